/* SPDX-License-Identifier: GPL-2.0-only */
/* convert/overlap.c: the weighted overlap of two sample profiles, on
 * trees whose overlaps are known by hand. */
#include "check.h"
#include "../../convert/overlap.h"

#include <string.h>

static int near(double a, double b)
{
	return a - b < 1e-9 && b - a < 1e-9;
}

/* f: lines 1 and 2 (counts x, y), head h, a call target at line 2, and
 * g inlined at line 3 with one line (count z). */
static void make(struct fs_profile *p, uint64_t x, uint64_t y, uint64_t z,
		 uint64_t h, uint64_t other)
{
	struct fsamples *f;

	fs_init(p);
	f = fs_function(p, "f");
	fs_add_body(f, 1, 0, x);
	fs_add_body(f, 2, 0, y);
	fs_add_target(f, 2, 0, "callee", y);
	fs_add_body(fs_inlinee(f, 3, 0, "g"), 1, 0, z);
	f->head = h;
	if (other)
		fs_add_body(fs_function(p, "other"), 1, 0, other);
	fs_finish(p);
}

static void test_known_overlaps(void)
{
	struct fs_profile a, b;
	struct overlap r;

	make(&a, 3, 1, 0, 5, 0);
	make(&b, 30, 10, 0, 7, 0);	/* the same shares, ten times the counts */
	overlap_compute(&a, &b, &r);
	CHECK(near(r.body, 1) && near(r.head, 1) && near(r.target, 1));
	CHECK(r.fn_a == 1 && r.fn_b == 1 && r.fn_both == 1);
	overlap_free(&r);
	fs_free(&b);

	make(&b, 1, 3, 0, 5, 0);	/* 3:1 against 1:3 */
	overlap_compute(&a, &b, &r);
	CHECK(near(r.body, 0.5));
	CHECK(near(r.target, 1));	/* one target on each side */
	CHECK(r.nfns == 1 && near(r.fns[0].shape, 0.5));
	CHECK(r.nlines == 2 && !strcmp(r.lines[0].where, "f@1.0") &&
	      near(r.lines[0].share_a, 0.75) && near(r.lines[0].share_b, 0.25));
	CHECK(r.nlines == 2 && !strcmp(r.lines[1].where, "f@2.0"));
	overlap_free(&r);
	fs_free(&b);

	/* Inlined g's line 1 is not f's line 1; and a function only in B. */
	make(&b, 0, 0, 4, 0, 4);
	overlap_compute(&a, &b, &r);
	CHECK(near(r.body, 0));
	CHECK(near(r.head, 0));
	CHECK(r.fn_a == 1 && r.fn_b == 2 && r.fn_both == 1);
	/* by |share A - share B|: f (1 against 0.5) and other (0 against
	 * 0.5) tie; then by name */
	CHECK(r.nfns == 2 && !strcmp(r.fns[0].name, "f") && near(r.fns[0].share_a, 1) &&
	      near(r.fns[0].share_b, 0.5) && near(r.fns[0].shape, 0));
	CHECK(r.nfns == 2 && !strcmp(r.fns[1].name, "other") && r.fns[1].shape == -1);
	/* f@1 .75 -> 0, other@1 0 -> .5, f@3:g@1 0 -> .5, f@2 .25 -> 0 */
	CHECK(r.nlines == 4 && !strcmp(r.lines[0].where, "f@1.0") &&
	      !strcmp(r.lines[1].where, "f@3.0:g@1.0") && !strcmp(r.lines[2].where, "other@1.0") &&
	      !strcmp(r.lines[3].where, "f@2.0"));
	overlap_free(&r);
	fs_free(&a);
	fs_free(&b);

	fs_init(&a);
	fs_init(&b);
	overlap_compute(&a, &b, &r);
	CHECK(r.body == -1 && r.head == -1 && r.target == -1 && r.nfns == 0);
	overlap_free(&r);
}

int main(void)
{
	RUN(test_known_overlaps);
	return tests_failed != 0;
}
