/* SPDX-License-Identifier: GPL-2.0-only */
/* synth/expsample.c: execution-proportional samples drawn from exact
 * counts.  Every draw here has a fixed seed, so each result is one
 * deterministic number; the bounds on it are the 0.1% points of the
 * chi-square distribution, so a correct sampler passes them at nearly
 * every seed, not just at this one. */
#include "check.h"
#include "../../raw/rawprof.h"
#include "../../synth/expsample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A made-up exact-count profile of one object whose file is not there
 * (functions then come from call targets): main (no caller, at 0x100)
 * calls F (0x200) from 0x104 1000 times and from 0x10c 3000 times. */
static const struct { uint64_t off, count; } insns[] = {
	{ 0x100, 1000 }, { 0x104, 1000 }, { 0x108, 1000 }, { 0x10c, 3000 },
	{ 0x110, 3000 }, { 0x200, 4000 }, { 0x204, 4000 },
};
#define NINSNS (sizeof(insns) / sizeof(insns[0]))
#define TOTAL 17000

static void exact_profile(struct raw_profile *p)
{
	uint32_t o;

	raw_init(p);
	raw_set_meta(p, "mode", "exact-counts");
	o = raw_object(p, (const uint8_t *)"\x11\x22\x33\x44\x55\x66\x77\x88", 8,
		       "/nonexistent/expsample-test");
	for (size_t i = 0; i < NINSNS; i++)
		raw_add_range(&p->objs[o], insns[i].off, insns[i].off, insns[i].count);
	raw_add_branch(&p->objs[o], 0x104, o, 0x200, 1000);
	raw_add_branch(&p->objs[o], 0x10c, o, 0x200, 3000);
	raw_normalize(p);
}

static int sample(uint64_t n, double skid, uint64_t seed, struct raw_profile *out,
		  struct xs_stats *st)
{
	struct raw_profile in;
	struct xs_options o = { .samples = n, .skid = skid, .seed = seed, .max_depth = 127 };
	int rc;

	exact_profile(&in);
	raw_init(out);
	rc = xs_sample(&in, "test", &o, out, st);
	raw_normalize(out);
	raw_free(&in);
	return rc;
}

static uint64_t ip_count(const struct raw_profile *p, uint64_t off)
{
	for (size_t i = 0; i < p->objs[0].nips; i++)
		if (p->objs[0].ips[i].offset == off)
			return p->objs[0].ips[i].count;
	return 0;
}

static uint64_t ip_total(const struct raw_profile *p)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->objs[0].nips; i++)
		n += p->objs[0].ips[i].count;
	return n;
}

static void test_total_and_meta(void)
{
	struct raw_profile p;
	struct xs_stats st;

	CHECK(!sample(12345, 0.3, 5, &p, &st));
	CHECK(ip_total(&p) == 12345);
	CHECK(raw_get_counter(&p, CNT_SAMPLES) == 12345);
	CHECK(st.instructions == TOTAL);
	CHECK(!strcmp(raw_get_meta(&p, "signal"), "executions"));
	CHECK(!strcmp(raw_get_meta(&p, "event"), "instructions"));
	CHECK(!strcmp(raw_get_meta(&p, "mode"), "stack-fp"));
	raw_free(&p);
}

static char *bytes(struct raw_profile *p, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	CHECK(f && !raw_write(p, f));
	fclose(f);
	return buf;
}

static void test_deterministic(void)
{
	struct raw_profile a, b, c;
	size_t la, lb, lc;
	char *ba, *bb, *bc;

	CHECK(!sample(20000, 0.5, 42, &a, NULL));
	CHECK(!sample(20000, 0.5, 42, &b, NULL));
	CHECK(!sample(20000, 0.5, 43, &c, NULL));
	ba = bytes(&a, &la);
	bb = bytes(&b, &lb);
	bc = bytes(&c, &lc);
	CHECK(la == lb && !memcmp(ba, bb, la));
	CHECK(la != lc || memcmp(ba, bc, la));
	free(ba);
	free(bb);
	free(bc);
	raw_free(&a);
	raw_free(&b);
	raw_free(&c);
}

/* Pearson's statistic of observed counts against expected shares. */
static double chi2(const uint64_t *obs, const double *share, size_t k, uint64_t n)
{
	double x = 0;

	for (size_t i = 0; i < k; i++) {
		double e = share[i] * (double)n;

		x += ((double)obs[i] - e) * ((double)obs[i] - e) / e;
	}
	return x;
}

static void test_proportions(void)
{
	struct raw_profile p;
	uint64_t obs[NINSNS];
	double share[NINSNS];
	const uint64_t n = 200000;

	CHECK(!sample(n, 0, 7, &p, NULL));
	for (size_t i = 0; i < NINSNS; i++) {
		obs[i] = ip_count(&p, insns[i].off);
		share[i] = (double)insns[i].count / TOTAL;
	}
	/* 6 degrees of freedom: 22.46 is the 0.1% point */
	CHECK(chi2(obs, share, NINSNS, n) < 22.46);
	raw_free(&p);
}

static void test_skid(void)
{
	struct raw_profile p;
	struct xs_stats st;
	const uint64_t n = 100000;
	uint64_t obs[2];
	/* a sample at the last instruction (0x204) has nowhere to go */
	double share[2] = { 0.5 * 13000 / TOTAL, 1 - 0.5 * 13000 / TOTAL };

	/* all moved: each to the next executed instruction; the last stays */
	CHECK(!sample(n, 1, 3, &p, &st));
	CHECK(ip_count(&p, 0x100) == 0);
	CHECK(st.skidded < n && st.skidded > n / 2);
	CHECK(ip_count(&p, 0x200) > 0 && ip_count(&p, 0x204) > ip_count(&p, 0x200));
	CHECK(ip_total(&p) == n);
	raw_free(&p);
	/* half moved, a draw per sample (1 degree of freedom: 10.83) */
	CHECK(!sample(n, 0.5, 3, &p, &st));
	obs[0] = st.skidded;
	obs[1] = n - st.skidded;
	CHECK(chi2(obs, share, 2, n) < 10.83);
	raw_free(&p);
}

/* F's samples have main as caller, at the instruction after each call,
 * in proportion to the calls: 1 to 3. */
static void test_stacks(void)
{
	struct raw_profile p;
	struct xs_stats st;
	const uint64_t n = 100000;
	uint64_t obs[2] = { 0, 0 }, in_f;
	double share[2] = { 0.25, 0.75 };

	CHECK(!sample(n, 0, 11, &p, &st));
	in_f = ip_count(&p, 0x200) + ip_count(&p, 0x204);
	for (size_t i = 0; i < p.objs[0].nedges; i++) {
		const struct raw_edge *e = &p.objs[0].edges[i];

		CHECK(e->ret_offset == 0x108 || e->ret_offset == 0x110);
		obs[e->ret_offset == 0x110] += e->count;
	}
	CHECK(obs[0] + obs[1] == in_f);
	CHECK(st.frames == in_f);
	CHECK(chi2(obs, share, 2, in_f) < 10.83);
	raw_free(&p);
}

static void test_not_exact(void)
{
	struct raw_profile in, out;
	struct xs_options o = { .samples = 10, .seed = 1, .max_depth = 127 };

	exact_profile(&in);
	raw_add_range(&in.objs[0], 0x300, 0x310, 5);	/* a range, not one insn */
	raw_normalize(&in);
	raw_init(&out);
	CHECK(xs_sample(&in, "test", &o, &out, NULL) == -1);
	raw_free(&in);
	raw_free(&out);
	raw_init(&in);
	raw_init(&out);
	CHECK(xs_sample(&in, "empty", &o, &out, NULL) == -1);
	raw_free(&in);
	raw_free(&out);
}

static void test_below(void)
{
	uint64_t s = 9, hits[3] = { 0 };
	double share[3] = { 1.0 / 3, 1.0 / 3, 1.0 / 3 };

	for (int i = 0; i < 30000; i++)
		hits[xs_below(&s, 3)]++;
	CHECK(chi2(hits, share, 3, 30000) < 13.82);	/* 2 df */
	CHECK(xs_below(&s, 1) == 0);
}

int main(void)
{
	RUN(test_total_and_meta);
	RUN(test_deterministic);
	RUN(test_proportions);
	RUN(test_skid);
	RUN(test_stacks);
	RUN(test_not_exact);
	RUN(test_below);
	return tests_failed != 0;
}
