/* SPDX-License-Identifier: GPL-2.0-only */
/* import/samples.c: the aggregated samples are exact whatever table a key
 * lands in.  Branch stacks over three objects, one whose offsets pass
 * 2^32 and one whose index passes 2^14 (keys that do not fit a compact
 * entry), with counts that pass a lowered cagg_max (spilled to the wide
 * table), added on one thread and split over a worker then merged, must
 * give the branches and ranges of a plain count of the same stacks. */
#include "check.h"
#include "../../import/samples.h"
#include "../../lib/util.h"

#include <stdlib.h>
#include <string.h>

#define PID 77
#define NREC 16
#define NSAMPLES 6000
#define NADDR 24	/* few addresses a mapping: keys repeat */

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
	return map[*which].start + 0x10 * (rnd() % NADDR);
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

/* The stacks counted by samples (half of them by a worker if split),
 * with cagg_max max, against the plain count; with flush, the worker
 * hands its large tables on (samples_flush) every flush samples, as
 * perfdata_jobs.c's workers do, keeping its front table.  From
 * prefault_min keys, the emit pages memory in on a helper thread. */
static void run(uint32_t max, int split, int flush, size_t prefault_min)
{
	struct raw_profile p, ref, stacks;
	struct samples s, w;
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
	raw_init(&stacks);
	samples_worker(&w, &s, &stacks);
	for (int n = 0; n < NSAMPLES; n++) {
		make_sample(e, &ref, robj);
		samples_add_branches(split && n % 2 ? &w : &s, key, e, NREC, 24, 1);
		if (flush && n % flush == flush - 1) {
			size_t front = 0;

			samples_flush(&s, &w);
			CHECK(samples_aggregated(&w) == 0);
			for (size_t i = 0; w.agg.front && i < (size_t)1 << FRONT_BITS; i++)
				front += w.agg.front[i].count != 0;
			CHECK(front > 0);	/* kept: what the worker adds next */
		}
	}
	samples_merge(&s, &w);
	samples_worker_free(&w);
	raw_free(&stacks);
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
	run(UINT32_MAX, 0, 0, SIZE_MAX);
}

static void test_count_spills(void)
{
	run(3, 0, 0, SIZE_MAX);
}

static void test_worker_merge(void)
{
	run(UINT32_MAX, 1, 0, SIZE_MAX);
	run(2, 1, 0, SIZE_MAX);
}

/* Hand-overs into a table that already holds keys, the first one into
 * an empty table (taken whole), and counts that spill on the way. */
static void test_worker_flush(void)
{
	run(UINT32_MAX, 1, 500, SIZE_MAX);
	run(2, 1, 333, SIZE_MAX);
}

/* The emit with its helper thread, which pages in the arrays that it
 * fills (aggtab_emit), and merged tables (samples_merge keeps the
 * setting of the table it takes over). */
static void test_emit_helper(void)
{
	run(UINT32_MAX, 0, 0, 0);
	run(2, 1, 500, 1);
}

int main(void)
{
	RUN(test_wide_keys);
	RUN(test_count_spills);
	RUN(test_worker_merge);
	RUN(test_worker_flush);
	RUN(test_emit_helper);
	return tests_failed != 0;
}
