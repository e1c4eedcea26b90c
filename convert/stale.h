/* SPDX-License-Identifier: GPL-2.0-only */
/* Is a function's profile stale?  What its line offsets meant in the
 * binary the profile was recorded from, against what they mean in a new
 * build: for 'pgoprof check' (docs/report.md "check").  Each line of a
 * function (its top-level line offset, DW_AT_decl_line based, as the
 * profile keys it) gets a fingerprint of its code: the multiset of its
 * instructions' mnemonics and of the functions inlined there.  The old
 * lines are aligned with the new ones in line order (longest common
 * subsequence of fingerprints); a sampled line keeps its key when its
 * code is at the same offset, moves when it is at another, and is lost
 * when no new line has its code. */
#ifndef PGOPROF_STALE_H
#define PGOPROF_STALE_H

#include <stdint.h>
#include "fstree.h"
#include "symbolize.h"

enum stale_kind {
	STALE_UNCHANGED,	/* <= 1% of the samples moved, <= 10% lost
				 * (a gcc-12 -fauto-profile build of the
				 * same source: 0% and 8%) */
	STALE_SHIFTED,		/* > 1% moved, <= 10% lost */
	STALE_REWRITTEN,	/* > 10% of the samples lost */
	STALE_MISSING,		/* no function of that name in the new build */
	STALE_NO_OLD,		/* ... in the recorded build (or no lines) */
};

/* The verdict on one function.  Counts are the profile's (samples, or
 * executions for exact counts): body records and inlined call sites at
 * the top level, keyed by line offset. */
struct stale_verdict {
	enum stale_kind kind;
	uint64_t total;		/* samples of the function */
	uint64_t kept;		/* on lines whose code kept its offset */
	uint64_t moved;		/* on lines whose code is at another one */
	uint64_t lost;		/* on lines whose code is in no new line */
	int32_t shift;		/* the new offset - old offset that holds
				 * most of the moved samples */
	uint32_t from;		/* the lowest old offset moved by shift */
};

/* Compare function f (its samples keyed by the line offsets of old) in
 * binary old and binary new, both opened with DWARF (sym_open), into *v.
 * Functions are found by linkage name.  Never fails: a function that has
 * no lines in a binary is STALE_NO_OLD or STALE_MISSING. */
void stale_compare(const struct fsamples *f, struct symbolizer *old,
		   struct symbolizer *new, struct stale_verdict *v);

/* The name of a kind: "unchanged", "shifted", "rewritten", "missing",
 * "not in the recorded binary". */
const char *stale_kind_name(enum stale_kind k);

#endif
