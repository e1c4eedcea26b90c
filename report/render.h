/* SPDX-License-Identifier: GPL-2.0-only */
/* What pgoprof report prints of a profile's model: the text report, the
 * JSON of docs/report.md ("JSON schema"), folded stacks and the flame
 * graph.  The command (cli/report.c) parses the options into a view and
 * calls one of these. */
#ifndef PGOPROF_REPORT_RENDER_H
#define PGOPROF_REPORT_RENDER_H

#include <stdio.h>
#include "funcs.h"
#include "load.h"
#include "source.h"

/* One report as asked: the profile, its model, and what to list. */
struct rep_view {
	const struct rep_input *in;	/* the profile: path, kind, counters */
	struct rep_model *m;		/* its model; its lines get sorted */
	struct rep_sources *src;	/* the hot lines' source text; NULL: not shown */
	long limit;			/* functions and lines listed; 0: all */
	int by_total;			/* functions by total samples, else self */
	long fn;			/* >= 0: that function's callers and
					 * callees (rep_view_function), not
					 * the lists */
};

/* The function the user named: exactly (as the report prints it, escaped),
 * else the one whose demangled name is NAME(...).  Its index in m, or -1
 * after one message naming path if none or several. */
long rep_view_function(const struct rep_model *m, const char *name,
		       const char *path);

/* The report of v as text (a '#' header, the functions, the lines, the
 * samples without a line; or one function's callers and callees) and as
 * JSON, to out.  Write errors are left to out's owner (ferror). */
void rep_render_text(FILE *out, const struct rep_view *v);
void rep_render_json(FILE *out, const struct rep_view *v);

/* in's folded stacks (report/folded.h) to out, or as a flame graph SVG
 * to path (atomically; "-": standard output).  Without stacks, those
 * estimated from the branch records' calls, said on stderr.  Returns 0,
 * or -1 after one message naming in's path (a compiler profile, no stacks
 * and no calls, nothing with a binary) or the SVG's. */
int rep_render_folded(FILE *out, const struct rep_input *in);
int rep_render_svg(const struct rep_input *in, const char *path);

#endif
