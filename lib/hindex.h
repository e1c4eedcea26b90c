/* SPDX-License-Identifier: GPL-2.0-only */
/* The open-addressing index for pgoprof's tables: a hash index over an
 * array the caller keeps (functions, stacks, edges...).  A table with a
 * probe loop of its own says why beside it (convert/estimate.c).  A slot
 * holds an entry's number + 1, 0 when empty; linear probing; at most half
 * full, so probes stay short.  The entries never move for the index: it
 * grows by re-placing every entry by its hash, which the caller gives.
 *
 * A lookup or insert, with the caller's hash and equality:
 *	hindex_reserve(&x, n, 256, hash_of_entry, tab);
 *	slot = hindex_find(&x, hash_of_key, equal, tab, key);
 *	if (!*slot)
 *		(append entry n to tab) *slot = ++n;
 *	entry = *slot - 1; */
#ifndef PGOPROF_HINDEX_H
#define PGOPROF_HINDEX_H

#include <stddef.h>
#include <stdint.h>

struct hindex {
	size_t *slot;		/* entry number + 1; 0 empty */
	size_t cap;		/* slots: 0, or a power of two */
};

/* The hash of entry i of the caller's table arg (the same value as the
 * lookups give for its key). */
typedef uint64_t hindex_hash_fn(const void *arg, size_t i);

/* The first slot to probe for hash h, and the one after slot i.  x must
 * have slots (hindex_reserve first).  The high bits are folded in, so a
 * hash with weak low bits (an address times an odd constant) spreads. */
static inline size_t hindex_first(const struct hindex *x, uint64_t h)
{
	return (size_t)(h ^ (h >> 31)) & (x->cap - 1);
}

static inline size_t hindex_next(const struct hindex *x, size_t i)
{
	return (i + 1) & (x->cap - 1);
}

/* Whether entry i of the caller's table arg has the key. */
typedef int hindex_eq_fn(const void *arg, size_t i, const void *key);

/* The slot of the entry of hash h that eq() accepts, or the empty slot
 * where it goes (the slots are the index's, writable also through a
 * const index).  Inline, so that a constant eq is inlined too. */
static inline size_t *hindex_find(const struct hindex *x, uint64_t h,
				  hindex_eq_fn *eq, const void *arg,
				  const void *key)
{
	size_t i = hindex_first(x, h);

	while (x->slot[i] && !eq(arg, x->slot[i] - 1, key))
		i = hindex_next(x, i);
	return &x->slot[i];
}

/* Room for entry n (entries 0..n-1 are indexed): when n + 1 entries
 * would fill more than half the slots, the index doubles (from min_cap,
 * a power of two, when empty) and entries 0..n-1 are re-placed by
 * hash(arg, i).  Dies only if memory runs out (xcalloc). */
void hindex_reserve(struct hindex *x, size_t n, size_t min_cap,
		    hindex_hash_fn *hash, const void *arg);

/* hindex_reserve for a table bounded in bytes: *bytes is what the caller
 * holds, these slots included.  The index grows only if its new slots
 * fit in max_bytes with *bytes (the old slots are held until every entry
 * is re-placed), and *bytes then counts the new slots in place of the
 * old (budget_grow).  Returns 0 when entry n has room, or -1, x and
 * *bytes unchanged, when growing would go over: the caller refuses the
 * entry and counts it.  Dies only if memory runs out. */
int hindex_try_reserve(struct hindex *x, size_t n, size_t min_cap,
		       size_t *bytes, size_t max_bytes,
		       hindex_hash_fn *hash, const void *arg);

/* Entries 0..n-1 indexed again from scratch, e.g. after the caller
 * sorted or removed entries: at least min_cap slots, at most half full. */
void hindex_rebuild(struct hindex *x, size_t n, size_t min_cap,
		    hindex_hash_fn *hash, const void *arg);

/* Frees the slots; x is empty again (cap 0). */
void hindex_free(struct hindex *x);

#endif
