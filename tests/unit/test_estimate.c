/* SPDX-License-Identifier: GPL-2.0-only */
/* The IP-mode body-count estimators: sum, per-instruction mean, maximum,
 * each rescaled so that the total equals the samples. */
#include "check.h"
#include <math.h>
#include <string.h>
#include "../../convert/blocks.h"
#include "../../convert/cfg.h"
#include "../../convert/estimate.h"
#include "../../convert/symbolize.h"

static struct est_line *line(struct est_table *t, uint64_t key)
{
	for (size_t i = 0; i < t->size; i++)
		if (t->slot[i].key == key)
			return &t->slot[i];
	return NULL;
}

static void fill(struct est_table *t)
{
	est_init(t);
	/* Line 1: 4 instructions, 40 samples, all on the slow one. */
	est_add(t, 1, 0, 0x10, 0);
	est_add(t, 1, 0, 0x11, 0);
	est_add(t, 1, 40, 0x12, 0);
	est_add(t, 1, 0, 0x13, 0);
	/* Line 2: 1 instruction, 20 samples. */
	est_add(t, 2, 20, 0x20, 0);
	/* Line 3: never sampled. */
	est_add(t, 3, 0, 0x30, 0);
}

static void test_sum(void)
{
	struct est_table t;
	long double s;

	fill(&t);
	s = est_scale(&t, EST_SUM);
	CHECK(s == 1);
	CHECK(est_value(line(&t, 1), EST_SUM, s) == 40);
	CHECK(est_value(line(&t, 2), EST_SUM, s) == 20);
	CHECK(est_value(line(&t, 3), EST_SUM, s) == 0);
	CHECK(line(&t, 1)->vaddr == 0x12 && line(&t, 1)->ninsns == 4);
	est_free(&t);
}

static void test_mean(void)
{
	struct est_table t;
	long double s;

	fill(&t);
	/* means 10 and 20, total 30 rescaled to the 60 samples: x2 */
	s = est_scale(&t, EST_MEAN);
	CHECK(est_value(line(&t, 1), EST_MEAN, s) == 20);
	CHECK(est_value(line(&t, 2), EST_MEAN, s) == 40);
	CHECK(est_value(line(&t, 3), EST_MEAN, s) == 0);
	est_free(&t);
}

static void test_max(void)
{
	struct est_table t;
	long double s;

	fill(&t);
	s = est_scale(&t, EST_MAX);	/* 40 + 20 = 60: x1 */
	CHECK(est_value(line(&t, 1), EST_MAX, s) == 40);
	CHECK(est_value(line(&t, 2), EST_MAX, s) == 20);
	est_free(&t);
}

static void test_small_never_zero(void)
{
	struct est_table t;

	est_init(&t);
	est_add(&t, 7, 1, 1, 0);
	for (int i = 0; i < 1000; i++)
		est_add(&t, 7, 0, 2 + (uint64_t)i, 0);
	est_add(&t, 8, 100000, 5000, 0);
	CHECK(est_value(line(&t, 7), EST_MEAN, est_scale(&t, EST_MEAN)) == 1);
	CHECK(estimator_by_name("mean") == EST_MEAN && estimator_by_name("x") == -1);
	est_free(&t);
}

static void test_many_lines(void)
{
	struct est_table t;
	int ok = 1;

	est_init(&t);
	for (uint64_t k = 1; k <= 100000; k++)
		est_add(&t, k, k, k, 0);
	for (uint64_t k = 1; k <= 100000; k += 997)
		ok &= line(&t, k) && line(&t, k)->sum == k;
	CHECK(ok);
	CHECK(t.used == 100000);
	est_free(&t);
}

/* A function of 3 blocks: an entry block of 4 instructions ending in a
 * conditional branch to the third, a loop body of 3 that jumps back to
 * itself, and a return block of 2. */
static void function(struct blk_insn *in)
{
	static const struct { uint64_t va; uint32_t len; unsigned kind; uint64_t tgt, s; } f[] = {
		{ 0x100, 4, 0, UINT64_MAX, 2 },
		{ 0x104, 4, 0, UINT64_MAX, 0 },
		{ 0x108, 4, 0, UINT64_MAX, 1 },
		{ 0x10c, 2, INSN_BRANCH, 0x11a, 1 },	/* -> return block */
		{ 0x10e, 4, 0, UINT64_MAX, 2 },			/* loop body */
		{ 0x112, 4, 0, UINT64_MAX, 300 },		/* the cache miss */
		{ 0x116, 4, INSN_BRANCH, 0x10e, 4 },
		{ 0x11a, 3, 0, UINT64_MAX, 0 },			/* return block */
		{ 0x11d, 1, INSN_RET, UINT64_MAX, 0 },
	};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		in[i] = (struct blk_insn){ f[i].va, f[i].len, f[i].kind, f[i].tgt, f[i].s, -1 };
}

static void test_blocks_mean(void)
{
	struct blk_insn in[9];

	function(in);
	CHECK(blk_estimate(in, 9, 0x100, BLK_MEAN) == 3);
	CHECK(in[0].count == 1.0 && in[3].count == 1.0);	/* 4 samples / 4 */
	CHECK(in[4].count == 102.0 && in[6].count == 102.0);	/* 306 / 3 */
	CHECK(in[7].count == 0.0 && in[8].count == 0.0);
}

static void test_blocks_capped(void)
{
	struct blk_insn in[9];
	double m = (2 + 4 + 1) / 2.0, cap = m + 3 * 1.8708286933869707 + 1;

	function(in);
	CHECK(blk_estimate(in, 9, 0x100, BLK_CAPPED) == 3);
	/* the miss capped at the others' mean + 3 sd + 1 */
	CHECK(in[4].count > (6 + cap) / 3 - 1e-9 && in[4].count < (6 + cap) / 3 + 1e-9);
	CHECK(in[0].count == 1.0);	/* nothing stands out: unchanged */
	/* one sample among many instructions is not capped away */
	for (int i = 0; i < 9; i++)
		in[i].samples = i == 5;
	blk_estimate(in, 9, 0x100, BLK_CAPPED);
	CHECK(in[4].count == 1.0 / 3);
}

static void test_blocks_edges(void)
{
	struct blk_insn in[9];

	function(in);
	/* a gap in the addresses (a cold part elsewhere) starts a block */
	in[8].vaddr = 0x200;
	CHECK(blk_estimate(in, 9, 0x100, BLK_MEAN) == 4);
	/* a branch out of the function or into an instruction's middle
	 * starts none */
	function(in);
	in[3].target = 0x111;
	in[6].target = 0x5000;
	CHECK(blk_estimate(in, 9, 0x100, BLK_MEAN) == 3);	/* after each branch */
	CHECK(blk_estimate(in, 0, 0, BLK_MEAN) == 0);
}

/* A line spread over two blocks takes the larger block estimate; a line
 * without samples of its own stays out, though its block has samples. */
static void test_block_lines(void)
{
	struct est_table t;
	long double s;

	est_init(&t);
	est_add(&t, 1, 0, 0x10, 4.0);	/* line 1: in blocks of 4 and 1 */
	est_add(&t, 1, 1, 0x11, 1.0);
	est_add(&t, 2, 0, 0x20, 4.0);	/* line 2: unsampled, block of 4 */
	est_add(&t, 3, 0, 0x30, 0.0);	/* line 3: cold */
	est_add(&t, 4, 8, 0x40, 4.0);
	s = est_scale(&t, EST_BLOCK);	/* 9 samples / (4 + 4): 4.5 each */
	CHECK(est_value(line(&t, 1), EST_BLOCK, s) == 5);
	CHECK(est_value(line(&t, 4), EST_BLOCK, s) == 5);
	CHECK(est_value(line(&t, 2), EST_BLOCK, s) == 0);
	CHECK(est_value(line(&t, 3), EST_BLOCK, s) == 0);
	CHECK(line(&t, 1)->vaddr == 0x11 && line(&t, 2)->vaddr == 0x20);
	CHECK(estimator_by_name("block-capped") == EST_BLOCK_CAPPED);
	CHECK(est_uses_blocks(EST_BLOCK) && !est_uses_blocks(EST_MEAN));
	est_free(&t);
}

#define E(a, b) { a, b }

static int classes(size_t n, const struct cfg_edge *e, size_t ne,
		   const uint32_t *want)
{
	uint32_t cls[8];

	cfg_equivalence(n, e, ne, 0, cls);
	for (size_t i = 0; i < n; i++)
		if (cls[i] != want[i]) {
			printf("  block %zu: class %u, want %u\n", i, cls[i], want[i]);
			return 0;
		}
	return 1;
}

/* Blocks that run equally often: before and after an if/else, a loop's
 * body with its header, not the loop with what is outside it. */
static void test_cfg_equivalence(void)
{
	static const struct cfg_edge diamond[] = {
		E(0, 1), E(0, 2), E(1, 3), E(2, 3), E(3, 4) };
	static const uint32_t diamond_cls[] = { 0, 1, 2, 0 };
	static const struct cfg_edge loop[] = {
		E(0, 1), E(1, 2), E(2, 1), E(2, 3), E(3, 4) };
	static const uint32_t loop_cls[] = { 0, 1, 1, 0 };
	static const struct cfg_edge self[] = {
		E(0, 1), E(1, 1), E(1, 2), E(2, 3) };
	static const uint32_t self_cls[] = { 0, 1, 0 };
	/* a search loop with two exits (found, not found) */
	static const struct cfg_edge search[] = {
		E(0, 1), E(0, 3), E(1, 4), E(1, 2), E(2, 1), E(2, 3), E(3, 5), E(4, 5) };
	static const uint32_t search_cls[] = { 0, 1, 2, 3, 4 };
	/* block 1 is reached only by an indirect jump (an exit edge) */
	static const struct cfg_edge table[] = { E(0, 2), E(1, 2) };
	static const uint32_t table_cls[] = { 0, 1 };
	/* an endless loop never reaches the exit */
	static const struct cfg_edge endless[] = { E(0, 1), E(1, 2), E(2, 1) };
	static const uint32_t endless_cls[] = { 0, 1, 2 };

	CHECK(classes(4, diamond, 5, diamond_cls));
	CHECK(classes(4, loop, 5, loop_cls));
	CHECK(classes(3, self, 4, self_cls));
	CHECK(classes(5, search, 8, search_cls));
	CHECK(classes(2, table, 2, table_cls));
	CHECK(classes(3, endless, 3, endless_cls));
}

/* flow: the entry block and the return block of the test function run
 * equally often, so they share one estimate: 4 samples over 6
 * instructions (the loop keeps its own). */
static void test_blocks_flow(void)
{
	struct blk_insn in[9];

	function(in);
	in[8].samples = 0;
	CHECK(blk_estimate(in, 9, 0x100, BLK_FLOW) == 3);
	CHECK(in[0].count > 4.0 / 6 - 1e-9 && in[0].count < 4.0 / 6 + 1e-9);
	CHECK(in[8].count == in[0].count);
	CHECK(in[4].count > 3 && in[4].count < 102);	/* capped, not pooled */
}

/* A hash-chain search: an entry block, the loop's header (a load that
 * misses, then "found?"), its latch, the "not found" return and the
 * "found" return.  The header holds the samples of the miss; its
 * neighbours bound it. */
static void test_blocks_flow_bound(void)
{
	static const struct { uint64_t va; uint32_t len; unsigned kind; uint64_t tgt, s; } f[] = {
		{ 0x100, 4, 0, UINT64_MAX, 5 },
		{ 0x104, 4, 0, UINT64_MAX, 5 },
		{ 0x108, 4, 0, UINT64_MAX, 5 },
		{ 0x10c, 2, INSN_BRANCH, 0x120, 5 },	/* empty chain */
		{ 0x10e, 4, 0, UINT64_MAX, 0 },			/* header */
		{ 0x112, 2, INSN_BRANCH, 0x124, 300 },	/* found? */
		{ 0x114, 4, 0, UINT64_MAX, 0 },			/* latch */
		{ 0x118, 4, 0, UINT64_MAX, 0 },
		{ 0x11c, 4, INSN_BRANCH, 0x10e, 0 },
		{ 0x120, 4, INSN_RET, UINT64_MAX, 0 },	/* not found */
		{ 0x124, 4, 0, UINT64_MAX, 1 },			/* found */
		{ 0x128, 1, INSN_RET, UINT64_MAX, 0 },
	};
	struct blk_insn in[12];
	double up_entry = (20 + 3 * sqrt(20) + 1) / 4, up_latch = 1.0 / 3;
	double up_found = (1 + 3 * sqrt(1) + 1) / 2;
	double want = up_found + up_latch;	/* out: below in */

	for (size_t i = 0; i < 12; i++)
		in[i] = (struct blk_insn){ f[i].va, f[i].len, f[i].kind, f[i].tgt, f[i].s, -1 };
	CHECK(blk_estimate(in, 12, 0x100, BLK_FLOW) == 5);
	CHECK(want < up_entry + up_latch);
	CHECK(in[4].count > want - 1e-9 && in[4].count < want + 1e-9);
	CHECK(in[0].count == 5.0);	/* the entry has no inflow bound */
	blk_estimate(in, 12, 0x100, BLK_CAPPED);
	CHECK(in[4].count == 150.0);	/* without the bound */
}

/* --estimator auto: each signal's rule (bench/results/quality-signal.md),
 * with a reason to print. */
static void test_for_signal(void)
{
	const char *why = NULL;

	CHECK(estimator_for_signal(SIGNAL_EXEC, &why) == EST_BLOCK && why && *why);
	CHECK(estimator_for_signal(SIGNAL_TIME, &why) == EST_SUM && why && *why);
	CHECK(estimator_for_signal(SIGNAL_UNKNOWN, &why) == EST_MEAN && why && *why);
	CHECK(!strcmp(estimator_name(EST_SUM), "sum"));
	CHECK(estimator_by_name(estimator_name(EST_FLOW)) == EST_FLOW);
	CHECK(!strcmp(estimator_name((enum estimator)EST_COUNT), "?"));
}

int main(void)
{
	RUN(test_sum);
	RUN(test_blocks_mean);
	RUN(test_blocks_capped);
	RUN(test_blocks_edges);
	RUN(test_cfg_equivalence);
	RUN(test_blocks_flow);
	RUN(test_blocks_flow_bound);
	RUN(test_block_lines);
	RUN(test_mean);
	RUN(test_max);
	RUN(test_small_never_zero);
	RUN(test_many_lines);
	RUN(test_for_signal);
	return tests_failed != 0;
}
