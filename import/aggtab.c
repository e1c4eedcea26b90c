/* SPDX-License-Identifier: GPL-2.0-only */
/* The aggregated samples of an import (samples.h): counts by key (an IP,
 * an edge, a fall-through range or a taken branch, with its objects and
 * file offsets) in tables that stay small and in cache, so that memory
 * grows with the distinct keys, not with the samples, and the sums are
 * exact whatever the order or the threads that add them up. */
#include "aggtab.h"
#include "aggshare.h"
#include "../lib/util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Evicted front-table entries that wait for the compact table: those of
 * several samples, so that more of its cache misses overlap. */
#define AGG_OUT (4 * AGG_BATCH)

/* The wide entry of c's key's key with count n. */
static struct agg_entry cagg_wide(const struct agg_centry *c, uint64_t n)
{
	return (struct agg_entry){ .a = c->a, .b = c->b,
				     .obj = c->tag >> COBJ_BITS & COBJ_MASK,
				     .obj2 = c->tag & COBJ_MASK, .count = n,
				     .kind = c->tag >> 28 };
}

static uint64_t cagg_hash(const struct agg_centry *c)
{
	uint64_t h = ((uint64_t)c->b << 32 | c->a) * 0x9e3779b97f4a7c15ULL;

	h = (h ^ c->tag) * 0xff51afd7ed558ccdULL;
	return h ^ h >> 32;
}

static uint64_t agg_hash(const struct agg_entry *e)
{
	uint64_t h = e->kind * 0x9e3779b97f4a7c15ULL;

	h = (h ^ e->obj) * 0xff51afd7ed558ccdULL;
	h = (h ^ e->a) * 0xc4ceb9fe1a85ec53ULL;
	h = (h ^ e->obj2) * 0xff51afd7ed558ccdULL;
	h = (h ^ e->b) * 0xc4ceb9fe1a85ec53ULL;
	return h ^ h >> 32;
}

/* The slot in a compact table of cap entries (a power of two) where a
 * key of hash h starts probing: the hash's top bits, so that the slots
 * of a table are in the order of the hashes (but for keys that probing
 * moved on), whatever its size.  A table read in its slot order then
 * goes into a larger one (tab_reserve) from its start to its end: the
 * hardware prefetches that walk, where low bits would jump from one
 * cache miss to the next.  The share of a key (aggshare_owner) comes
 * from the low bits. */
static size_t cagg_home(uint64_t h, size_t cap)
{
	return (size_t)(h >> (64 - __builtin_ctzll(cap)));
}

/* c's slot in t (cap a power of two, at least 2), probing from the
 * home of its hash h. */
static struct agg_centry *cagg_slot_at(struct agg_centry *t, size_t cap,
					 const struct agg_centry *c, uint64_t h)
{
	size_t i;

	for (i = cagg_home(h, cap); t[i].tag; i = (i + 1) & (cap - 1))
		if (t[i].tag == c->tag && t[i].a == c->a && t[i].b == c->b)
			break;
	return &t[i];
}

/* e's slot in t (cap a power of two), probing from i (its hash). */
static struct agg_entry *agg_slot_at(struct agg_entry *t, size_t cap,
				       const struct agg_entry *e, size_t i)
{
	for (i &= cap - 1; t[i].kind; i = (i + 1) & (cap - 1))
		if (t[i].kind == e->kind && t[i].obj == e->obj && t[i].a == e->a &&
		    t[i].obj2 == e->obj2 && t[i].b == e->b)
			break;
	return &t[i];
}

static void cagg_move(void *t, size_t cap, const void *from)
{
	const struct agg_centry *c = from;

	if (c->tag)
		*cagg_slot_at(t, cap, c, cagg_hash(c)) = *c;
}

static void agg_move(void *t, size_t cap, const void *from)
{
	const struct agg_entry *e = from;

	if (e->kind)
		*agg_slot_at(t, cap, e, (size_t)agg_hash(e)) = *e;
}

/* Room for n more entries in table t of used entries (*cap of size
 * bytes, a power of two; 0: none yet) at a load of at most 3/4: linear
 * probing then looks at 2 to 3 slots for a key that is there (most are),
 * which share cache lines.  Returns the table, moved (by move()) to a
 * larger one if it had to grow. */
static void *tab_reserve(void *t, size_t *cap, size_t used, size_t n, size_t size,
			 void (*move)(void *t, size_t cap, const void *from))
{
	size_t c = *cap ? *cap : 4096;
	uint8_t *nt;

	if (4 * (used + n) <= 3 * *cap)
		return t;
	while (4 * (used + n) > 3 * c)
		c *= 2;
	nt = xmalloc_huge(c * size);	/* touched at random */
	memset(nt, 0, c * size);
	for (size_t i = 0; i < *cap; i++)
		move(nt, c, (const uint8_t *)t + i * size);
	free(t);
	*cap = c;
	return nt;
}

static void agg_reserve(struct aggtab *tab, size_t n)
{
	tab->agg = tab_reserve(tab->agg, &tab->cap_agg, tab->nagg, n, sizeof(*tab->agg), agg_move);
}

static void cagg_reserve(struct aggtab *tab, size_t n)
{
	tab->cagg = tab_reserve(tab->cagg, &tab->cap_cagg, tab->ncagg, n, sizeof(*tab->cagg),
			      cagg_move);
}

/* Add n to e's count in the wide table (room reserved; h: its hash). */
static void agg_count(struct aggtab *tab, const struct agg_entry *e, size_t h,
		      uint64_t n)
{
	struct agg_entry *s = agg_slot_at(tab->agg, tab->cap_agg, e, h);

	if (!s->kind) {
		*s = *e;
		s->count = 0;
		tab->nagg++;
	}
	s->count += n;
}

/* Add n to c's count in the compact table (room reserved; h: its hash);
 * what would pass tab->cagg_max goes to the wide table with the entry's
 * count, which starts again from 0: the two add up at the end. */
static void cagg_count(struct aggtab *tab, const struct agg_centry *c, uint64_t h,
		       uint64_t n)
{
	struct agg_centry *s = cagg_slot_at(tab->cagg, tab->cap_cagg, c, h);
	struct agg_entry w;

	if (!s->tag) {
		*s = *c;
		s->count = 0;
		tab->ncagg++;
	}
	if (n <= tab->cagg_max - s->count) {
		s->count += (uint32_t)n;
		return;
	}
	w = cagg_wide(s, s->count + n);
	s->count = 0;
	agg_reserve(tab, 1);
	agg_count(tab, &w, (size_t)agg_hash(&w), w.count);
}

void aggtab_add(struct aggtab *tab, const struct agg_entry *e, uint64_t n)
{
	struct agg_centry c;

	if (agg_compact(e, &c)) {
		cagg_reserve(tab, 1);
		cagg_count(tab, &c, cagg_hash(&c), n);
	} else {
		agg_reserve(tab, 1);
		agg_count(tab, e, (size_t)agg_hash(e), n);
	}
}

/* How far ahead of the entry it counts cagg_add_hashed() prefetches a
 * slot: enough misses in flight to cover a trip to memory, few enough
 * that the core keeps them all (prefetching all 128 of a batch first
 * lost some: bzip2 -j2 0.85 -> 0.79 s at 16, 8 and 32 in between;
 * bench/results/import-speed.md). */
#define PREFETCH_AHEAD 16

/* Add the counts of n compact entries (at most AGG_OUT) of hashes h:
 * the slot of the entry PREFETCH_AHEAD further on is prefetched, so
 * that the cache misses of a large table overlap instead of following
 * each other. */
static void cagg_add_hashed(struct aggtab *tab, const struct agg_centry *c,
			    const uint64_t *h, size_t n)
{
	size_t d = n < PREFETCH_AHEAD ? n : PREFETCH_AHEAD;

	cagg_reserve(tab, n);
	for (size_t i = 0; i < d; i++)
		__builtin_prefetch(&tab->cagg[cagg_home(h[i], tab->cap_cagg)], 1);
	for (size_t i = 0; i < n; i++) {
		if (i + d < n)
			__builtin_prefetch(&tab->cagg[cagg_home(h[i + d], tab->cap_cagg)], 1);
		cagg_count(tab, &c[i], h[i], c[i].count);
	}
}

static void cagg_add_batch(struct aggtab *tab, const struct agg_centry *c, size_t n)
{
	uint64_t h[AGG_OUT];	/* each entry hashed once */

	for (size_t i = 0; i < n; i++)
		h[i] = cagg_hash(&c[i]);
	cagg_add_hashed(tab, c, h, n);
}

/* c (with its count) to table to of tab's share, in the chunk that
 * tab fills for it, posted when full. */
static void post(struct aggtab *tab, unsigned to, const struct agg_centry *c)
{
	struct agg_chunk *k = tab->fwd[to];

	if (!k)
		k = tab->fwd[to] = aggshare_chunk(tab->share);
	k->e[k->n++] = *c;
	if (k->n == tab->share->chunk) {
		aggshare_post(tab->share, to, k);
		tab->fwd[to] = NULL;
	}
}

/* The evictions waiting in tab->out into the compact table: those that
 * tab owns; the others are posted to their owners. */
static void spill(struct aggtab *tab)
{
	uint64_t h[AGG_OUT];
	size_t k = 0;

	if (!tab->share) {
		cagg_add_batch(tab, tab->out, tab->nout);
		tab->nout = 0;
		return;
	}
	for (size_t i = 0; i < tab->nout; i++) {
		uint64_t hi = cagg_hash(&tab->out[i]);
		unsigned to = aggshare_owner(tab->share, hi);

		if (to != tab->self) {
			post(tab, to, &tab->out[i]);
			continue;
		}
		h[k] = hi;
		tab->out[k++] = tab->out[i];	/* k <= i */
	}
	cagg_add_hashed(tab, tab->out, h, k);
	tab->nout = 0;
}

void aggtab_share(struct aggtab *tab, struct aggshare *share, unsigned self)
{
	tab->share = share;
	tab->self = self;
	tab->fwd = xcalloc(share->n, sizeof(*tab->fwd));
}

void aggtab_receive(struct aggtab *tab)
{
	struct agg_chunk *list;

	if (!tab->share || !(list = aggshare_take(tab->share, tab->self)))
		return;
	for (const struct agg_chunk *c = list; c; c = c->next)
		for (size_t i = 0; i < c->n; i += AGG_OUT)
			cagg_add_batch(tab, &c->e[i], c->n - i < AGG_OUT ? c->n - i : AGG_OUT);
	aggshare_recycle(tab->share, list);
}

static size_t front_slot(const struct agg_centry *c)
{
	uint64_t h = ((uint64_t)c->b << 32 | c->a) ^ (uint64_t)c->tag << 17;

	return (size_t)((h * 0x9e3779b97f4a7c15ULL) >> (64 - FRONT_BITS));
}

/* Count the n (at most 2 * AGG_BATCH) compact keys at c once each, in
 * the front table: a direct-mapped cache of (1 << FRONT_BITS) entries
 * that stays in the L2 cache.  A branch stack repeats the same loops, so
 * that most keys are there (84% to 98% of them in 10^6-sample imports);
 * the key that a new one evicts goes to the large table with its count,
 * in a batch. */
void aggtab_add_batch(struct aggtab *tab, const struct agg_centry *c, size_t n)
{
	size_t slot[2 * AGG_BATCH];

	if (!tab->front) {
		tab->front = xcalloc((size_t)1 << FRONT_BITS, sizeof(*tab->front));
		tab->out = xmalloc(AGG_OUT * sizeof(*tab->out));
	}
	for (size_t i = 0; i < n; i++) {	/* L2 latencies overlap */
		slot[i] = front_slot(&c[i]);
		__builtin_prefetch(&tab->front[slot[i]]);
	}
	for (size_t i = 0; i < n; i++) {
		struct agg_centry *f = &tab->front[slot[i]];

		if (f->tag == c[i].tag && f->a == c[i].a && f->b == c[i].b &&
		    f->count < tab->cagg_max) {
			f->count++;
			continue;
		}
		if (f->tag)
			tab->out[tab->nout++] = *f;
		*f = c[i];
		f->count = 1;
	}
	/* The evictions of several samples at once: more cache misses of
	 * the large table overlap. */
	if (tab->nout >= 2 * AGG_BATCH)
		spill(tab);
}

static void agg_emit_one(struct raw_profile *p, const struct agg_entry *e)
{
	struct raw_object *o = &p->objs[e->obj];

	switch (e->kind) {
	case AGG_IP:
		raw_add_ip(o, e->a, e->count);
		break;
	case AGG_EDGE:
		raw_add_edge(o, e->a, e->obj2, e->b, e->count);
		break;
	case AGG_RANGE:
		raw_add_range(o, e->a, e->b, e->count);
		break;
	case AGG_BRANCH:
		raw_add_branch(o, e->a, e->obj2, e->b, e->count);
		break;
	}
}

/* fn(arg, entry) for every entry of the wide table. */
static void agg_each(const struct aggtab *tab, void (*fn)(void *arg, const struct agg_entry *e),
		     void *arg)
{
	for (size_t i = 0; i < tab->cap_agg; i++)
		if (tab->agg[i].kind)
			fn(arg, &tab->agg[i]);
}

static void emit_one(void *arg, const struct agg_entry *e)
{
	agg_emit_one(arg, e);
}

/* How many entries each object gets, by kind: n[4 * obj + kind - 1]. */
static void emit_count(void *arg, const struct agg_entry *e)
{
	((size_t *)arg)[4 * e->obj + e->kind - 1]++;
}

/* Room in the objects' arrays for n[] more entries (emit_count): grown
 * one entry at a time, they were copied again and again (7% of an
 * import). */
static void emit_reserve(struct raw_profile *p, const size_t *n)
{
	for (size_t i = 0; i < p->nobjs; i++) {
		struct raw_object *o = &p->objs[i];
		const size_t *k = &n[4 * i];

		grow(&o->ips, &o->cap_ips, o->nips + k[AGG_IP - 1], sizeof(*o->ips));
		grow(&o->edges, &o->cap_edges, o->nedges + k[AGG_EDGE - 1], sizeof(*o->edges));
		grow(&o->ranges, &o->cap_ranges, o->nranges + k[AGG_RANGE - 1],
		     sizeof(*o->ranges));
		grow(&o->branches, &o->cap_branches, o->nbranches + k[AGG_BRANCH - 1],
		     sizeof(*o->branches));
	}
}

/* c at v[*k] if it has a count (k <= c's index if c is in v), counted
 * into n[] (emit_count). */
static void gather_one(struct agg_centry *v, size_t *k, const struct agg_centry *c, size_t *n)
{
	if (!c->count)
		return;
	n[4 * (c->tag >> COBJ_BITS & COBJ_MASK) + (c->tag >> 28) - 1]++;
	v[(*k)++] = *c;
}

/* The compact entries of the front, compact and out tables and of the
 * pieces, gathered at the start of the compact table (grown if they do
 * not fit), and counted into n[] (emit_count): memory that the import
 * faulted in already, where a new array of 12 MB cost 8 ms of page
 * faults, and one pass over the tables instead of two.  The front and
 * out tables and the pieces are freed.  Returns the number of entries. */
static size_t emit_gather(struct aggtab *tab, size_t *n)
{
	size_t nfront = tab->front ? (size_t)1 << FRONT_BITS : 0, k = 0, cap = tab->cap_cagg;
	size_t need = tab->ncagg + nfront + tab->nout + 1;
	struct agg_centry *v;

	for (size_t j = 0; j < tab->npiece; j++)
		need += tab->piece[j].keys;
	if (cap < need)
		tab->cagg = xrealloc(tab->cagg, need * sizeof(*tab->cagg));
	v = tab->cagg;
	for (size_t i = 0; i < cap; i++)	/* k <= i: in place */
		gather_one(v, &k, &v[i], n);
	for (size_t i = 0; i < nfront; i++)
		gather_one(v, &k, &tab->front[i], n);
	for (size_t i = 0; i < tab->nout; i++)
		gather_one(v, &k, &tab->out[i], n);
	for (size_t j = 0; j < tab->npiece; j++) {
		const struct agg_piece *pc = &tab->piece[j];

		for (size_t i = 0; i < pc->n; i++)
			gather_one(v, &k, &pc->e[i], n);
		free(pc->mem);
	}
	free(tab->piece);
	free(tab->front);
	free(tab->out);
	tab->piece = NULL;
	tab->front = tab->out = NULL;
	tab->nout = tab->npiece = 0;
	return k;
}

/* A compact entry's sort key in the order that raw_normalize() sorts an
 * object's arrays in (a, obj2, b: an IP's offset; a range's begin and
 * end; a branch's or an edge's source, target object and target), 78
 * bits, as digit d of 5 of 16 bits, the least significant first. */
static unsigned cagg_digit(const struct agg_centry *c, int d)
{
	switch (d) {
	case 0: return c->b & 0xffff;
	case 1: return c->b >> 16;
	case 2: return c->tag & COBJ_MASK;
	case 3: return c->a & 0xffff;
	default: return c->a >> 16;
	}
}

/* Sort v[n] by that key, a pass a digit (a radix sort, stable), with
 * tmp[n] to move to and fro; a digit that all share is skipped.  Returns
 * the sorted array, v or tmp. */
static struct agg_centry *cagg_sort(struct agg_centry *v, struct agg_centry *tmp,
				      size_t n)
{
	size_t *cnt = xcalloc((size_t)5 << 16, sizeof(*cnt));

	for (size_t i = 0; i < n; i++)
		for (int d = 0; d < 5; d++)
			cnt[(size_t)d << 16 | cagg_digit(&v[i], d)]++;
	for (int d = 0; d < 5; d++) {
		size_t *c = &cnt[(size_t)d << 16], at = 0;
		struct agg_centry *t;

		if (!n || c[cagg_digit(&v[0], d)] == n)
			continue;
		for (size_t x = 0; x < (size_t)1 << 16; x++) {
			size_t k = c[x];

			c[x] = at;
			at += k;
		}
		for (size_t i = 0; i < n; i++)
			tmp[c[cagg_digit(&v[i], d)]++] = v[i];
		t = v, v = tmp, tmp = t;
	}
	free(cnt);
	return v;
}

/* What the helper of aggtab_emit() pages in: spans of memory that the
 * emit writes next, not yet touched. */
struct prefault {
	pthread_t th;
	struct { void *p; size_t len; } *span;
	size_t n;
};

/* Page in the spans writable, on the CPU that the workers left idle,
 * while the other sorts: the first touch of a fresh page costs 2.6 us on
 * a VM, 8 ms for 12 MB.  MADV_POPULATE_WRITE changes no byte (no race
 * with the thread that writes there later); its errors (an old kernel:
 * EINVAL) only leave the faults to that thread. */
static void *prefault_run(void *arg)
{
	const struct prefault *f = arg;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < f->n; i++) {
		uintptr_t a = (uintptr_t)f->span[i].p;

#ifdef MADV_POPULATE_WRITE	/* Linux 5.14 */
		(void)madvise((void *)(a & ~(page - 1)), f->span[i].len + (a & (page - 1)),
			      MADV_POPULATE_WRITE);
#else
		(void)a;
		(void)page;
#endif
	}
	return NULL;
}

static void prefault_add(struct prefault *f, void *p, size_t len)
{
	if (len) {
		f->span[f->n].p = p;
		f->span[f->n++].len = len;
	}
}

/* Start paging in tmp[n] and the tails of p's arrays that n[] (emit_count)
 * will fill, on a thread of its own; 0, or -1 if there is none (the
 * faults then come as the arrays are written). */
static int prefault_start(struct prefault *f, const struct raw_profile *p, const size_t *n,
			  void *tmp, size_t ntmp)
{
	f->span = xmalloc((4 * p->nobjs + 1) * sizeof(*f->span));
	f->n = 0;
	prefault_add(f, tmp, ntmp * sizeof(struct agg_centry));
	for (size_t i = 0; i < p->nobjs; i++) {
		const struct raw_object *o = &p->objs[i];
		const size_t *k = &n[4 * i];

		prefault_add(f, o->ips + o->nips, k[AGG_IP - 1] * sizeof(*o->ips));
		prefault_add(f, o->edges + o->nedges, k[AGG_EDGE - 1] * sizeof(*o->edges));
		prefault_add(f, o->ranges + o->nranges, k[AGG_RANGE - 1] * sizeof(*o->ranges));
		prefault_add(f, o->branches + o->nbranches,
			     k[AGG_BRANCH - 1] * sizeof(*o->branches));
	}
	if (!pthread_create(&f->th, NULL, prefault_run, f))
		return 0;
	free(f->span);
	return -1;
}

static void prefault_join(struct prefault *f)
{
	pthread_join(f->th, NULL);
	free(f->span);
}

/* The tables into the profile; a key that comes more than once is added
 * up by raw_normalize().  The compact entries go in the order that it
 * sorts in, so that its sort finds them sorted (lib/util.c sort()): a
 * radix sort here is ten times faster than its qsort() (an import of
 * many distinct branches spent 14% of its time there).  With
 * tab->prefault_min entries or more, a helper thread pages in the
 * memory that the sort and the profile's arrays then write. */
void aggtab_emit(struct aggtab *tab, struct raw_profile *p)
{
	size_t *cnt = xcalloc(4 * p->nobjs + 1, sizeof(*cnt)), n;
	struct agg_centry *tmp, *s;
	struct prefault f;
	int helper = -1;

	n = emit_gather(tab, cnt);
	agg_each(tab, emit_count, cnt);
	emit_reserve(p, cnt);
	tmp = xmalloc((n + 1) * sizeof(*tmp));
	if (n >= tab->prefault_min)
		helper = prefault_start(&f, p, cnt, tmp, n);
	s = cagg_sort(tab->cagg, tmp, n);
	/* No wait for the helper before writing: its page-ins change no
	 * byte, and where this thread is ahead of it, it faults the pages
	 * in itself (the wait was 40 ms of bzip2's end on this VM, where a
	 * fresh page costs the host a fault too). */
	for (size_t i = 0; i < n; i++) {
		struct agg_entry w = cagg_wide(&s[i], s[i].count);

		agg_emit_one(p, &w);
	}
	if (!helper)
		prefault_join(&f);
	free(tmp);
	free(cnt);
	agg_each(tab, emit_one, p);
	aggtab_free(tab);
}

void aggtab_init(struct aggtab *tab)
{
	memset(tab, 0, sizeof(*tab));
	tab->cagg_max = UINT32_MAX;
	tab->prefault_min = SIZE_MAX;	/* one thread, unless the caller says */
}

/* The chunks that tab fills for the other tables of its share. */
static void free_fwd(struct aggtab *tab)
{
	for (unsigned i = 0; tab->fwd && i < tab->share->n; i++)
		free(tab->fwd[i]);
	free(tab->fwd);
	tab->fwd = NULL;
	tab->share = NULL;
}

void aggtab_free(struct aggtab *tab)
{
	free(tab->agg);
	free(tab->cagg);
	free(tab->front);
	free(tab->out);
	for (size_t i = 0; i < tab->npiece; i++)
		free(tab->piece[i].mem);
	free(tab->piece);
	free_fwd(tab);
	aggtab_init(tab);
}

/* Compact entries e[n] (keys: at most this many with a count), in
 * memory mem that dst now owns, to gather at the emit. */
static void add_piece(struct aggtab *dst, void *mem, const struct agg_centry *e, size_t n,
		      size_t keys)
{
	if (!n) {
		free(mem);
		return;
	}
	dst->piece = xrealloc(dst->piece, (dst->npiece + 1) * sizeof(*dst->piece));
	dst->piece[dst->npiece++] = (struct agg_piece){ mem, e, n, keys };
}

static void chunk_piece(struct aggtab *dst, struct agg_chunk *c)
{
	while (c) {
		struct agg_chunk *next = c->next;

		add_piece(dst, c, c->e, c->n, c->n);
		c = next;
	}
}

/* What src's share holds for src or src fills for the others, into
 * src's own pieces: src then shares with nobody. */
static void leave_share(struct aggtab *src)
{
	if (!src->share)
		return;
	chunk_piece(src, aggshare_take(src->share, src->self));
	for (unsigned i = 0; i < src->share->n; i++) {
		chunk_piece(src, src->fwd[i]);
		src->fwd[i] = NULL;
	}
	free_fwd(src);
}

void aggtab_take(struct aggtab *dst, struct aggtab *src)
{
	uint32_t max = dst->cagg_max;
	size_t pmin = dst->prefault_min;

	leave_share(src);
	if (!dst->ncagg && !dst->nagg && !dst->front && !dst->npiece) {	/* no copy */
		aggtab_free(dst);
		*dst = *src;
		dst->cagg_max = max;
		dst->prefault_min = pmin;
	} else {
		add_piece(dst, src->cagg, src->cagg, src->cap_cagg, src->ncagg);
		add_piece(dst, src->front, src->front, src->front ? (size_t)1 << FRONT_BITS : 0,
			  (size_t)1 << FRONT_BITS);
		add_piece(dst, src->out, src->out, src->nout, src->nout);
		for (size_t i = 0; i < src->npiece; i++)
			add_piece(dst, src->piece[i].mem, src->piece[i].e, src->piece[i].n,
				  src->piece[i].keys);
		for (size_t i = 0; i < src->cap_agg; i++)	/* few: keys wide or counts large */
			if (src->agg[i].kind)
				aggtab_add(dst, &src->agg[i], src->agg[i].count);
		free(src->agg);
		free(src->piece);
	}
	aggtab_init(src);
	src->cagg_max = max;
}

size_t aggtab_keys(const struct aggtab *tab)
{
	return tab->ncagg + tab->nagg;
}
