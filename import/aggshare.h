/* SPDX-License-Identifier: GPL-2.0-only */
/* The key space of an import shared out among the tables of its threads
 * (import/perfdata/jobs.c): each table owns the keys whose hash falls in
 * its share (aggshare_owner) and is the only one to count them, so that
 * no key is counted in two large tables and nothing is merged at the end
 * but by concatenation (aggtab_take).  A thread that meets a key of
 * another's share posts it in a chunk, which the owner counts when it
 * next calls aggtab_receive().  Before, each thread handed its table on
 * to one shared table every 130,000 keys: merges into a table of up to
 * 2^21 entries that took a fifth of an import's CPU on many distinct
 * keys (bench/results/import-speed.md).
 *
 * This file is the post between the threads: chunks, an inbox a table,
 * a pool of empty chunks; aggtab.c decides what goes where. */
#ifndef PGOPROF_IMPORT_AGGSHARE_H
#define PGOPROF_IMPORT_AGGSHARE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "aggtab.h"

/* Compact entries with their counts, on their way to the table that owns
 * their keys. */
struct agg_chunk {
	struct agg_chunk *next;	/* in an inbox, or the pool */
	size_t n;		/* entries in e */
	struct agg_centry e[];	/* aggshare.chunk of them */
};

struct aggshare {
	pthread_mutex_t mu;	/* inbox and pool */
	unsigned n;		/* tables that share the keys */
	size_t chunk;		/* entries a chunk */
	struct agg_chunk **inbox;	/* n lists: chunks posted to each */
	struct agg_chunk *pool;	/* empty chunks */
};

/* Entries a chunk (64 KiB): posting costs one lock a chunk, and the
 * chunks in flight stay a few a thread. */
#define AGGSHARE_CHUNK 4096

/* A share of n tables (n >= 1) with chunks of chunk entries (0:
 * AGGSHARE_CHUNK; tests post each entry alone).  Dies if memory runs
 * out (xmalloc).  Freed by aggshare_free(), with every chunk still in
 * an inbox or the pool. */
struct aggshare *aggshare_new(unsigned n, size_t chunk);
void aggshare_free(struct aggshare *s);

/* The table (0 .. s->n - 1) that owns a key of compact hash h: the low
 * 32 bits of the hash, scaled, as the top bits pick its slot
 * (aggtab.c cagg_home), so that each table uses all of its slots. */
static inline unsigned aggshare_owner(const struct aggshare *s, uint64_t h)
{
	return (unsigned)(((h & 0xffffffffu) * s->n) >> 32);
}

/* An empty chunk, from the pool or newly allocated (dies if memory runs
 * out); the caller owns it until it posts or frees it. */
struct agg_chunk *aggshare_chunk(struct aggshare *s);
/* Post chunk c to table to's inbox: s owns it again. */
void aggshare_post(struct aggshare *s, unsigned to, struct agg_chunk *c);
/* Every chunk in table to's inbox, as a list that the caller owns (NULL:
 * none); aggshare_recycle() gives them back to the pool. */
struct agg_chunk *aggshare_take(struct aggshare *s, unsigned to);
void aggshare_recycle(struct aggshare *s, struct agg_chunk *list);

#endif
