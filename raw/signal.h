/* SPDX-License-Identifier: GPL-2.0-only */
/* What a raw profile's counts measure: its signal.  The converter's rules
 * (the estimator, the sufficiency of a sample count) depend on it: time
 * samples (cpu-clock) measure where time goes, execution-proportional
 * samples (instructions retired, AMD IBS ops) and exact counts measure
 * how often each instruction ran, branch records measure executions of
 * ranges.  docs/raw-format.md, META key `signal`, is the specification. */
#ifndef PGOPROF_SIGNAL_H
#define PGOPROF_SIGNAL_H

struct raw_profile;

enum raw_signal {
	SIGNAL_UNKNOWN,	/* no META says: an old or foreign profile */
	SIGNAL_TIME,	/* samples of a clock or of cycles: time, not counts */
	SIGNAL_EXEC,	/* IP samples proportional to executions */
	SIGNAL_BRANCH,	/* branch records (LBR and its kin): ranges, branches */
	SIGNAL_EXACT,	/* every instruction counted (record --exact) */
};

/* "time", "executions", "branch-records", "exact" (the META values), or
 * "unknown".  Static strings. */
const char *signal_name(enum raw_signal s);

/* The META value back to the enum; SIGNAL_UNKNOWN for NULL or any other
 * text. */
enum raw_signal signal_by_name(const char *name);

/* The signal of IP samples of a perf event named as perf names it
 * (`instructions:ppp`, `ibs_op/cnt_ctl=1/`, `cpu-clock`, `cycles:u`,
 * `r00c0`...): SIGNAL_EXEC for instructions, branches (and their
 * retired-instruction kin) and IBS op samples; SIGNAL_TIME for clocks and
 * cycles; SIGNAL_UNKNOWN for anything else or NULL.  Modifiers after ':'
 * or '/' do not change the signal.  Only the first event of a
 * comma-separated list is read. */
enum raw_signal signal_of_event(const char *event);

/* The signal of a profile: its META `signal` when present, else derived
 * from `mode` (exact-counts, lbr, import-lbr) and `event` for profiles
 * written before the key existed. */
enum raw_signal raw_signal_of(const struct raw_profile *p);

#endif
