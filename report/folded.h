/* SPDX-License-Identifier: GPL-2.0-only */
/* Folded stacks: one line per distinct named stack, "root;caller;...;leaf
 * COUNT", the format of Brendan Gregg's stackcollapse scripts that
 * flamegraph.pl, inferno, speedscope and pprof read.  As data too, for a
 * flame graph writer. */
#ifndef PGOPROF_REPORT_FOLDED_H
#define PGOPROF_REPORT_FOLDED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "funcs.h"
#include "syms.h"

struct rep_folded {
	const char **names;	/* depth names, root first; interned */
	size_t depth;
	uint64_t count;		/* samples */
};

struct rep_folded_set {
	struct rep_folded *v;	/* sorted by names, each stack once */
	size_t n, cap;
	const char **pool;	/* every stack's names */
	size_t npool, cap_pool;
	uint64_t samples;	/* the sum of the counts */
};

/* The folded stacks of the raw profile behind s: its stacks with each
 * frame expanded into its inline chain (inlined frames separate,
 * outermost first), stacks that name alike added up, sorted by name.
 * Returns 0, or -1 (no message: the caller names the file) if the
 * profile has no stacks.  Free with rep_folded_free. */
int rep_folded_build(struct rep_syms *s, struct rep_folded_set *out);
/* Without stacks: stacks estimated from the call counts of the branch
 * records (rep_walk_calls: record --exact, LBR).  Each instruction's
 * count (rep_walk_raw, with its inline chain) is shared among the callers
 * of its function in proportion to their calls, and theirs among their
 * callers, up to a function that nobody calls: gprof's assumption that
 * every call of a function costs the same, which the profile cannot
 * check.  Callers already on the stack (recursion) are left out; a share
 * below 0.01% of all counts, or above 64 levels of calls, is not followed
 * further and gets the root "[callers below 0.01%]".  Counts are
 * rounded to whole executions.  Returns 0, or -1 (no message) if the
 * profile has stacks or no calls. */
int rep_folded_estimate(struct rep_syms *s, struct rep_folded_set *out);
void rep_folded_free(struct rep_folded_set *f);

/* Write f, one "a;b;c COUNT" line per stack, each name escaped with
 * ESC_FOLDED (lib/escape.h: no name adds a frame, a count or a line).
 * Returns 0, or -1 if a
 * write failed (the caller's output handling names the file). */
int rep_folded_write(const struct rep_folded_set *f, FILE *out);

#endif
