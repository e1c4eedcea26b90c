/* SPDX-License-Identifier: GPL-2.0-only */
/* import/samples.c: the aggregated samples are exact whatever table a key
 * lands in.  Branch stacks over three objects, one whose offsets pass
 * 2^32 and one whose index passes 2^14 (keys that do not fit a compact
 * entry), with counts that pass a lowered cagg_max (spilled to the wide
 * table), added on one thread, split over a worker then merged, or
 * shared out among two workers by key (aggshare.h), must give the
 * branches and ranges of a plain count of the same stacks. */
#include "check.h"
#include "../../import/aggshare.h"
#include "../../import/samples.h"
#include "../../lib/util.h"

#include <stdlib.h>
#include <string.h>

#define PID 77
#define NREC 16
#define NSAMPLES 6000

/* The mappings: runtime start, length, file offset of start. */
static const struct {
	uint64_t start, len, pgoff;
	const char *id;
} map[3] = {
	{ 0x400000, 0x100000, 0x1000, "A" },			/* compact */
	{ 0x7f0000000000, 0x100000, 0x100000000ULL, "B" },	/* offsets >= 2^32 */
	{ 0x10000000, 0x100000, 0, "C" },			/* object >= 2^14 */
};

static uint64_t rs = 1;
/* Addresses a mapping: few (keys repeat, and stay in the front table),
 * or many (keys go on to the large tables). */
static unsigned naddr = 24;

static uint64_t rnd(void)	/* Knuth's MMIX generator: its high bits */
{
	rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
	return rs >> 33;
}

/* A profile with 2^14 - 2 objects of no samples (dropped at the end)
 * before the three mapped: A and B the last below 2^14, C the first
 * above. */
static void setup(struct raw_profile *p, uint32_t obj[3])
{
	size_t n = (1u << 14) - 2;

	raw_init(p);
	grow(&p->objs, &p->cap_objs, n, sizeof(*p->objs));
	memset(p->objs, 0, n * sizeof(*p->objs));
	p->nobjs = n;
	for (int i = 0; i < 3; i++)
		obj[i] = raw_object(p, (const uint8_t *)map[i].id, 1, "/x");
}

static uint64_t addr(int *which)
{
	*which = (int)(rnd() % 3);
	return map[*which].start + 0x10 * (rnd() % naddr);
}

/* One sample's records (from, to, 8 bytes of flags: perf's 24) into e,
 * and what they count into ref, by the rules of samples_add_branches():
 * every branch, and a range from a target to the newer source in the
 * same mapping. */
static void make_sample(uint8_t *e, struct raw_profile *ref, const uint32_t obj[3])
{
	uint64_t pfrom = 0;
	int pw = 0;

	memset(e, 0, 24 * NREC);
	for (int i = 0; i < NREC; i++) {
		int fw, tw;
		uint64_t from = addr(&fw), to = addr(&tw);
		uint64_t foff = from - map[fw].start + map[fw].pgoff;
		uint64_t toff = to - map[tw].start + map[tw].pgoff;

		memcpy(e + 24 * i, &from, 8);
		memcpy(e + 24 * i + 8, &to, 8);
		raw_add_branch(&ref->objs[obj[fw]], foff, obj[tw], toff, 1);
		if (i > 0 && tw == pw)
			raw_add_range(&ref->objs[obj[tw]], toff,
				      pfrom - map[pw].start + map[pw].pgoff, 1);
		pfrom = from;
		pw = fw;
	}
}

static int same_object(const struct raw_object *x, const struct raw_object *y)
{
	if (x->nbranches != y->nbranches || x->nranges != y->nranges)
		return 0;
	for (size_t j = 0; j < x->nbranches; j++)
		if (x->branches[j].from != y->branches[j].from ||
		    x->branches[j].to_obj != y->branches[j].to_obj ||
		    x->branches[j].to != y->branches[j].to ||
		    x->branches[j].count != y->branches[j].count)
			return 0;
	for (size_t j = 0; j < x->nranges; j++)
		if (x->ranges[j].begin != y->ranges[j].begin ||
		    x->ranges[j].end != y->ranges[j].end ||
		    x->ranges[j].count != y->ranges[j].count)
			return 0;
	return 1;
}

static int same_objects(const struct raw_profile *a, const struct raw_profile *b)
{
	size_t n = 0;

	for (size_t i = 0; i < a->nobjs && i < b->nobjs; i++)
		n += same_object(&a->objs[i], &b->objs[i]);
	return a->nobjs == b->nobjs && n == a->nobjs;
}

static int cmp_key(const void *x, const void *y)
{
	const struct agg_centry *a = x, *b = y;

	if (a->tag != b->tag)
		return a->tag < b->tag ? -1 : 1;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

/* The keys of t's compact table, sorted, in *n. */
static struct agg_centry *keys_of(const struct aggtab *t, size_t *n)
{
	struct agg_centry *v = xmalloc((t->ncagg + 1) * sizeof(*v));

	*n = 0;
	for (size_t i = 0; i < t->cap_cagg; i++)
		if (t->cagg[i].tag)
			v[(*n)++] = t->cagg[i];
	qsort(v, *n, sizeof(*v), cmp_key);
	return v;
}

/* Are the compact tables of a and b without a key in common? */
static int disjoint(const struct aggtab *a, const struct aggtab *b)
{
	size_t na, nb, i = 0, k = 0;
	struct agg_centry *va = keys_of(a, &na), *vb = keys_of(b, &nb);
	int c = 1;

	while (i < na && k < nb && (c = cmp_key(&va[i], &vb[k])))
		c < 0 ? i++ : k++;
	free(va);
	free(vb);
	return c != 0;
}

/* Who counts the samples: the one table; half of them a worker, merged
 * (samples_merge); two workers that share the keys out (aggshare.h) and
 * receive what the other posts every 7 samples but near the end, taken
 * into an empty table or into one that counted a third of the samples
 * itself. */
enum who { ONE, SPLIT, SHARE, SHARE_MAIN };

/* The stacks counted as who says, with cagg_max max and chunks of chunk
 * entries, against the plain count.  From prefault_min keys, the emit
 * pages memory in on a helper thread. */
static void run(uint32_t max, enum who who, size_t chunk, size_t prefault_min)
{
	struct raw_profile p, ref, stacks[2];
	struct samples s, w[2];
	struct aggshare *share = aggshare_new(2, chunk);
	uint32_t obj[3], robj[3];
	uint8_t e[24 * NREC];
	int32_t key;

	setup(&p, obj);
	setup(&ref, robj);
	samples_init(&s, &p, 1);
	s.agg.cagg_max = max;
	s.agg.prefault_min = prefault_min;
	key = samples_exec(&s, PID);
	for (int i = 0; i < 3; i++)
		samples_map(&s, key, map[i].start, map[i].len, map[i].pgoff,
			    (const uint8_t *)map[i].id, 1, "/x");
	CHECK(obj[1] < (1u << 14) && obj[2] >= (1u << 14));
	for (unsigned k = 0; k < 2; k++) {
		raw_init(&stacks[k]);
		samples_worker(&w[k], &s, &stacks[k]);
		w[k].agg.cagg_max = max;
		if (who >= SHARE)
			aggtab_share(&w[k].agg, share, k);
	}
	for (int n = 0; n < NSAMPLES; n++) {
		struct samples *to = who == ONE ? &s : who == SPLIT ? (n % 2 ? &w[0] : &s) :
				     who == SHARE ? &w[n % 2] : n % 3 ? &w[n % 3 - 1] : &s;

		make_sample(e, &ref, robj);
		samples_add_branches(to, key, e, NREC, 24, 1);
		/* the last 500: posted, left in the inboxes for the end */
		if (who >= SHARE && n % 7 == 6 && n < NSAMPLES - 500) {
			aggtab_receive(&w[0].agg);
			aggtab_receive(&w[1].agg);
		}
	}
	if (who >= SHARE) {	/* each counted its own keys only */
		CHECK(w[0].agg.ncagg > 0 && w[1].agg.ncagg > 0);
		CHECK(disjoint(&w[0].agg, &w[1].agg));
	}
	for (int k = 0; k < 2; k++) {
		samples_merge(&s, &w[k]);
		samples_worker_free(&w[k]);
		raw_free(&stacks[k]);
	}
	aggshare_free(share);
	samples_finish(&s);
	raw_drop_empty_objects(&ref);
	raw_normalize(&ref);
	CHECK(p.nobjs == 3);
	CHECK(same_objects(&p, &ref));
	samples_free(&s);
	raw_free(&p);
	raw_free(&ref);
}

static void test_wide_keys(void)
{
	run(UINT32_MAX, ONE, 0, SIZE_MAX);
}

static void test_count_spills(void)
{
	run(3, ONE, 0, SIZE_MAX);
}

static void test_worker_merge(void)
{
	run(UINT32_MAX, SPLIT, 0, SIZE_MAX);
	run(2, SPLIT, 0, SIZE_MAX);
}

/* Keys shared out: posted one at a time, in chunks of a few, in
 * chunks larger than what the test posts (all left for the end); taken
 * into an empty table (whole) or into one with keys (as pieces). */
static void test_share(void)
{
	const size_t chunk[] = { 1, 5, 1 << 20 };

	for (size_t i = 0; i < sizeof(chunk) / sizeof(chunk[0]); i++) {
		naddr = 4096;	/* more keys than the front table holds */
		run(UINT32_MAX, SHARE, chunk[i], SIZE_MAX);
		run(UINT32_MAX, SHARE_MAIN, chunk[i], SIZE_MAX);
		naddr = 24;	/* keys that come back, and counts that spill */
		run(2, SHARE, chunk[i], SIZE_MAX);
		run(2, SHARE_MAIN, chunk[i], SIZE_MAX);
	}
}

/* The emit with its helper thread, which pages in the arrays that it
 * fills (aggtab_emit), and taken tables (samples_merge keeps the
 * setting of the table it takes over). */
static void test_emit_helper(void)
{
	run(UINT32_MAX, ONE, 0, 0);
	run(2, SHARE, 5, 1);
}

int main(void)
{
	RUN(test_wide_keys);
	RUN(test_count_spills);
	RUN(test_worker_merge);
	RUN(test_share);
	RUN(test_emit_helper);
	return tests_failed != 0;
}
