/* SPDX-License-Identifier: GPL-2.0-only */
/* How alike two sample profiles are: the weighted overlap of their count
 * distributions, for the inner loop of profile quality work (a sampled
 * profile against an exact-count one: seconds, no rebuild).
 *
 * The overlap of two count sets a and b over keys k is
 *     sum over k of min(a_k / A, b_k / B),   A = sum a_k, B = sum b_k,
 * 1 when the shares are the same everywhere, 0 when nothing is shared;
 * scale-free, so samples compare with executions.  Keys:
 *  - body: a location of a function's own body, with its inline context
 *    ("f@3.1:g@2:h" is line 2 of h inlined at line 2 of g inlined at line
 *    3, discriminator 1, of f) and discriminator;
 *  - head: a top-level function's entry count;
 *  - target: a call target at a location (context, line, callee).
 * Per function (top level, its inlined code included): its share of all
 * body counts in each profile, and the overlap of its own body
 * distribution (its shape, each side normalized to the function). */
#ifndef PGOPROF_OVERLAP_H
#define PGOPROF_OVERLAP_H

#include <stddef.h>
#include <stdint.h>
#include "fstree.h"

struct overlap_fn {
	char *name;
	double share_a, share_b;	/* of all body counts, 0..1 */
	double shape;			/* body overlap within it; -1 if absent
					 * from one side or all zero there */
};

/* One body location: its share of all body counts on each side. */
struct overlap_line {
	char *where;		/* "f@3.1:g@2.0": context, line, discriminator */
	double share_a, share_b;
};

struct overlap {
	double body, head, target;	/* 0..1; -1 when both sides are empty */
	size_t fn_a, fn_b, fn_both;	/* top-level functions with body counts */
	struct overlap_fn *fns;		/* union of both, by
					 * |share_a - share_b| descending */
	size_t nfns;
	struct overlap_line *lines;	/* union of both, the same order */
	size_t nlines;
};

/* Compare a and b (fs_finish'ed).  r is filled; free with
 * overlap_free().  Never fails. */
void overlap_compute(const struct fs_profile *a, const struct fs_profile *b,
		     struct overlap *r);
void overlap_free(struct overlap *r);

#endif
