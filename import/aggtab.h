/* SPDX-License-Identifier: GPL-2.0-only */
/* The aggregated samples of an import: a count for each key (an IP, a
 * caller->callee edge, a fall-through range, a taken branch; objects are
 * indexes of the raw profile, addresses file offsets), added up before
 * they go into the profile (aggtab_emit), so that memory grows with the
 * distinct keys, not with the samples.  A key's count may be split
 * among the tables below; the parts add up in raw_normalize(), so the
 * sums are exact in any order, and tables of several threads join
 * (aggtab_take) into the same profile as one thread's.
 *
 * The tables: keys of objects below 2^COBJ_BITS and offsets below 2^32
 * (all of them in practice) go to the front table (a direct-mapped cache
 * of 2^14 entries that stays in L2), what it evicts waits in out, then
 * goes to the compact table (16-byte entries), or, where several
 * threads share the keys out (aggshare.h), to the compact table of the
 * thread that owns it; the others, and counts that would overflow a
 * compact entry, go to the wide table (32 bytes).  Tables taken over at
 * the end (aggtab_take) wait as pieces, gathered at the emit.
 * bench/results/import-sample-cost.md has the figures behind each. */
#ifndef PGOPROF_IMPORT_AGGTAB_H
#define PGOPROF_IMPORT_AGGTAB_H

#include <stddef.h>
#include <stdint.h>
#include "../raw/rawprof.h"

enum { AGG_IP = 1, AGG_EDGE, AGG_RANGE, AGG_BRANCH };

/* A key and its count, 32 bytes, two a cache line: the kind in the top
 * bits of the count (2^61 counts are more samples than an import can
 * read).  a, b: an IP's offset (b 0); an edge's or a branch's source in
 * obj and target in obj2; a range's begin and end in obj. */
struct agg_entry {
	uint64_t a, b;
	uint32_t obj, obj2;
	uint64_t count : 61;
	uint64_t kind : 3;	/* 0: free slot */
};

/* 16 bytes, four a cache line: a key of agg_entry whose objects fit in
 * COBJ_BITS and whose offsets fit in 32 bits (ELF files are smaller than
 * 4 GiB), so that the table of the distinct keys is half the size of a
 * wide one, and a cache miss fetches four entries.  Its count goes to
 * the wide table before it would pass cagg_max. */
struct agg_centry {
	uint32_t a, b;
	uint32_t tag;	/* kind << 28 | obj << COBJ_BITS | obj2; 0: free slot */
	uint32_t count;
};

#define COBJ_BITS 14
#define COBJ_MASK ((1u << COBJ_BITS) - 1)

/* The front table's entries: 2^FRONT_BITS (FRONT_BITS of a key's hash
 * pick its one slot). */
#define FRONT_BITS 14

/* Keys that the sample paths gather before aggtab_add_batch: a batch
 * holds at most 2 * AGG_BATCH. */
#define AGG_BATCH 32

/* Compact entries with their counts, taken over from another table
 * (aggtab_take): some of its slots may be free (count 0), and a key may
 * also be elsewhere, the counts adding up at the emit. */
struct agg_piece {
	void *mem;			/* owned: freed with the table */
	const struct agg_centry *e;	/* n slots, in mem */
	size_t n, keys;			/* keys: at most this many counted */
};

struct aggshare;
struct agg_chunk;

struct aggtab {
	struct agg_entry *agg;		/* the wide table */
	size_t nagg, cap_agg;
	struct agg_centry *cagg, *front, *out;
	size_t ncagg, cap_cagg, nout;
	struct agg_piece *piece;	/* taken over, waiting for the emit */
	size_t npiece;
	/* Where the keys are shared out (aggtab_share): the share, this
	 * table's part of it, and a chunk being filled for each other
	 * table (NULL: none yet). */
	struct aggshare *share;
	unsigned self;
	struct agg_chunk **fwd;
	/* The largest count a compact entry holds before it goes to the
	 * wide table: UINT32_MAX (aggtab_init); tests lower it. */
	uint32_t cagg_max;
	/* The entries from which aggtab_emit() pages in the memory it
	 * writes on a helper thread: SIZE_MAX (aggtab_init: never), or
	 * AGG_PREFAULT_MIN where the user allowed threads (-j); tests
	 * lower it. */
	size_t prefault_min;
};

/* 1 MB of entries, below which a helper thread costs more than it
 * saves. */
#define AGG_PREFAULT_MIN ((size_t)1 << 16)

/* e's compact key in *c (count 0): 1, or 0 if it does not fit. */
static inline int agg_compact(const struct agg_entry *e, struct agg_centry *c)
{
	if ((e->a | e->b) >> 32 || (e->obj | e->obj2) >> COBJ_BITS)
		return 0;
	*c = (struct agg_centry){ (uint32_t)e->a, (uint32_t)e->b,
				  (uint32_t)e->kind << 28 | e->obj << COBJ_BITS | e->obj2, 0 };
	return 1;
}

/* Empty tables; they allocate as keys come.  Freed by aggtab_free(). */
void aggtab_init(struct aggtab *tab);
void aggtab_free(struct aggtab *tab);

/* Add n to e's count (e->count is ignored), in whichever table holds
 * its key.  Dies if memory runs out (xmalloc). */
void aggtab_add(struct aggtab *tab, const struct agg_entry *e, uint64_t n);

/* Count each of the n (at most 2 * AGG_BATCH) compact keys at c once
 * (their counts are ignored). */
void aggtab_add_batch(struct aggtab *tab, const struct agg_centry *c, size_t n);

/* Count e once: its compact key into the batch c (*n keys so far, for
 * aggtab_add_batch), or e into the wide table now (rare: no batch). */
static inline void aggtab_add_one(struct aggtab *tab, struct agg_centry *c, size_t *n,
				  const struct agg_entry *e)
{
	if (agg_compact(e, &c[*n]))
		++*n;
	else
		aggtab_add(tab, e, 1);
}

/* Count only the keys of tab's part of share (aggshare_owner; self <
 * share->n), and post the others to the tables that own them.  share is
 * the caller's: it outlives tab's use of it (aggtab_take, aggtab_free). */
void aggtab_share(struct aggtab *tab, struct aggshare *share, unsigned self);
/* Count the keys that the other tables of tab's share posted to it, and
 * give their chunks back.  Only the thread that adds to tab calls it. */
void aggtab_receive(struct aggtab *tab);
/* src's counts, and those posted to it and not yet received, into dst
 * (dst shares with nobody); src is then empty and shares with nobody
 * either.  Nothing is probed: if dst is empty, src's tables become dst's
 * without a copy (src allocates anew), else they wait in dst as pieces,
 * which the emit gathers (a key in both adds up in raw_normalize()).  Call
 * it when no thread adds to any table of src's share. */
void aggtab_take(struct aggtab *dst, struct aggtab *src);
/* Distinct keys in the compact and wide tables (not in the front table,
 * the pieces, or on their way). */
size_t aggtab_keys(const struct aggtab *tab);

/* Every count into p's objects (raw_add_ip/edge/range/branch; their
 * arrays grown once, and compact keys in raw_normalize()'s order so that
 * its sort finds them sorted); a key may come more than once, which
 * raw_normalize() adds up.  The tables are emptied (aggtab_init).  From
 * tab->prefault_min keys, a second thread pages in the memory written
 * meanwhile (it changes no byte).  Dies if memory runs out. */
void aggtab_emit(struct aggtab *tab, struct raw_profile *p);

#endif
