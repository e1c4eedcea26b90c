/* SPDX-License-Identifier: GPL-2.0-only */
/* A table of the collector bounded in bytes (a share of pgoprof-record
 * --mem-budget): the caller's entries, each its own allocation, kept in
 * an array in the order they came and found through a lib/hindex index.
 * Every byte it holds counts against max_bytes: the entries, the array
 * and the index, an array that grows counted with its old copy
 * (budget_grow).  Nothing is held before the first entry.  The tables
 * of stacks (fpstacks.c, stacktab.c) are budtabs. */
#ifndef PGOPROF_BUDTAB_H
#define PGOPROF_BUDTAB_H

#include "../lib/hindex.h"

#include <stddef.h>
#include <stdint.h>

struct budtab {
	struct hindex index;	/* over ent[0..n) */
	void **ent;		/* the entries, in the order added */
	size_t n, cap;		/* entries; room in ent */
	size_t bytes, max_bytes;	/* held: entries, ent and index */
};

/* An empty table that will hold at most max_bytes. */
void budtab_init(struct budtab *b, size_t max_bytes);
/* Frees every entry and the table's arrays; b is empty again. */
void budtab_free(struct budtab *b);

/* The slot of the entry that eq accepts for key (hash h), or the empty
 * one where it would go; NULL while the table has no index (no entry
 * yet).  eq and the hash functions get b itself: entry i is b->ent[i]. */
static inline size_t *budtab_find(const struct budtab *b, uint64_t h,
				  hindex_eq_fn *eq, const void *key)
{
	return b->index.cap ? hindex_find(&b->index, h, eq, b, key) : NULL;
}

/* A new entry n of size bytes, owned by the table, indexed under h, for
 * a key budtab_find did not find.  Uninitialized: the caller fills it,
 * so that hash(b, n) gives h, before the table is used again.  NULL,
 * and no entry, when it and the growth of the array or the index it
 * needs would take the table over max_bytes: the caller counts the
 * refusal.  The index may then have grown (and be counted) although
 * the array could not: the next entry has that much less to ask for.
 * Dies only if memory runs out. */
void *budtab_add(struct budtab *b, size_t size, uint64_t h,
		 hindex_hash_fn *hash);

#endif
