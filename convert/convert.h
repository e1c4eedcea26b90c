/* SPDX-License-Identifier: GPL-2.0-only */
/* The samples of one binary (found by build-ID in a raw profile) -> a
 * function-sample tree -> a compiler's profile format.  The command line
 * is cli/convert.c. */
#ifndef PGOPROF_CONVERT_H
#define PGOPROF_CONVERT_H

#include "estimate.h"
#include "formats.h"

/* Stack samples without branch records: what a call target counts. */
enum call_targets {
	TARGETS_CALLS,	/* the call's line count shared among its callees */
	TARGETS_STACK,	/* the samples taken in the callee called from there */
	TARGETS_NONE,	/* no call targets */
};

struct convert_options {
	const char *raw_path;		/* the raw profile */
	const char *binary;		/* the ELF to write the profile of */
	const char *debug;		/* its separate debug info, or NULL */
	const char *output;		/* NULL: stdout */
	const char *recorded_path;	/* the object without build-ID recorded
					 * at this path, or NULL */
	struct write_options wo;
	enum estimator estimator;
	enum call_targets targets;
	int quiet;			/* no summary on stderr */
};

/* Write o->binary's sample profile from o->raw_path to o->output (written
 * atomically: a temporary, then renamed), and unless o->quiet a summary on
 * stderr: samples attributed and dropped, and why (counts are samples;
 * branch records: ranges and branches).  Returns 0, or 1 after one message
 * on stderr (unreadable or bad input, the binary not in the profile, a
 * write error); nothing is written then. */
int convert_profile(const struct convert_options *o);

#endif
