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
void rep_folded_free(struct rep_folded_set *f);

/* Write f, one "a;b;c COUNT" line per stack, each name escaped with
 * ESC_FOLDED (lib/escape.h: no name adds a frame, a count or a line).
 * Returns 0, or -1 if a
 * write failed (the caller's output handling names the file). */
int rep_folded_write(const struct rep_folded_set *f, FILE *out);

#endif
