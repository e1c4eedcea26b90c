/* SPDX-License-Identifier: GPL-2.0-only */
/* The functions of a binary that have samples but no debug info: what
 * convert names when it drops samples "outside any function with debug
 * info", so that a binary built without -g is told as such instead of
 * being taken for PLT and startup code. */
#ifndef PGOPROF_CONVERT_NODEBUG_H
#define PGOPROF_CONVERT_NODEBUG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "symbolize.h"
#include "../raw/rawprof.h"

struct nodebug_fn {
	const char *name;	/* the symbol's; owned by the symbolizer */
	uint64_t count;
};

struct nodebug {
	struct nodebug_fn *v;	/* by count, descending, then name */
	size_t n, cap;
	uint64_t named;		/* counts in v */
	uint64_t startup;	/* ... of them in startup code (_start...) */
	uint64_t unnamed;	/* at no symbol either (PLT stubs) */
};

/* The counts of object o (its IP samples; with ranges: ranges, by
 * their first instruction: branch-record executions) at addresses that
 * no DWARF function of s holds, by the symbol-table function there.
 * Free with nodebug_free. */
void nodebug_collect(struct nodebug *d, struct symbolizer *s,
		     const struct raw_object *o, int ranges);
void nodebug_free(struct nodebug *d);

/* Say on f, after the line "N UNIT dropped: ... outside any function
 * with debug info": which functions have those counts but no line
 * information, and the fix (build them with -g), or that the rest is
 * PLT and startup code.  unit: "samples" or
 * "executions". */
void nodebug_report(const struct nodebug *d, const char *binary,
		    const char *unit, FILE *f);

#endif
