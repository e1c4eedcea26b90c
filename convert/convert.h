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

/* --probes: a probe-based profile (convert/pseudoprobe.h) or by lines. */
enum probes_mode {
	PROBES_AUTO,	/* probes for exact counts in an LLVM format when the
			 * binary has .pseudo_probe, else lines */
	PROBES_ON,	/* probes from ranges (exact counts or branch
			 * records); an error if there are none */
	PROBES_OFF,	/* lines */
};

/* --unsampled: the lines of a sampled function that got no sample. */
enum unsampled_mode {
	UNSAMPLED_AUTO,		/* FLOOR for IP samples, else OMIT */
	UNSAMPLED_OMIT,		/* left out of the profile */
	UNSAMPLED_FLOOR,	/* IP samples: counts in CONVERT_FLOOR_UNIT-ths
				 * of a sample, and such a line gets 1 */
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
	int estimator_auto;		/* estimator by the profile's signal
					 * (estimator_for_signal), said on
					 * stderr */
	enum call_targets targets;
	uint64_t min_samples;		/* fewer samples of the binary (branch
					 * records: ranges) warn; 0: never */
	int quiet;			/* no summary on stderr */
	/* --cold-cut: leave out counts below cold_cut x the binary's samples
	 * (instructions, for exact counts), or with cold_summary below the
	 * count at LLVM's cold cutoff (fs_summary_count, 999999); fs_cut_below
	 * says what goes.  cold_auto: CONVERT_COLD_CUT_EXACT for exact counts
	 * written for clang (LLVM formats), nothing for other signals or
	 * afdo.  0, 0 and 0: nothing. */
	double cold_cut;
	int cold_summary;
	int cold_auto;
	int line0_drop;			/* --line0 drop: no body records at
					 * line 0 (LBR_LINE0_DROP) */
	enum probes_mode probes;	/* --probes */
	enum unsampled_mode unsampled;	/* --unsampled */
};

/* --min-samples' default.  Drawn from exact counts, 5,000
 * execution-proportional samples got 16-63% of the exact profile's Ir
 * reduction with clang and 50,000 got 72-100% (bench/results/
 * quality-signal.md); the cpu-clock recordings of pgo.mk's defaults had
 * 2,000-9,000 samples and got 20-87% (bench/results/ablation.md). */
#define CONVERT_MIN_SAMPLES 50000

/* --cold-cut auto's fraction for exact counts (record --exact).  With
 * clang-16 on the bench programs (Ir vs -O2, sqlite / bzip2 / lua; no
 * cut: -8.40% / -19.68% / -8.22%), 1e-6, 2e-6 and 3e-6 helped all three
 * (2e-6: -8.98% / -20.44% / -8.43%); 1e-7 to 5e-7 cost sqlite up to 1.2
 * points and bzip2 up to 11.6, 1e-5 cost lua 0.25 (bench/results/
 * ceiling-cold.md).  Samples are left alone: at 500,000 execution
 * samples a cut of singletons cost bzip2 and lua.  So is gcc's afdo: with
 * gcc-12 the cut cost sqlite (-4.73% -> -4.25%) and lua (-0.67% ->
 * -0.44%) and helped bzip2 (-3.63% -> -3.85%). */
#define CONVERT_COLD_CUT_EXACT 2e-6
/* A probe-based profile gets no cut from auto: 2e-6 cost lua 0.4, bzip2
 * 2.3 and sqlite 1.9 points of Ir with clang-16 (bench/results/
 * ceiling-probes.md). */

/* --unsampled floor: a sample is worth this many counts, and a line of a
 * sampled function without samples gets a count of 1.  GCC reads a line
 * missing from a function's profile as never run (auto-profile.cc,
 * afdo_annotate_cfg: every block starts at a zero afdo count) and a count
 * at most the number of runs as not hot (predict.cc, maybe_hot_count_p),
 * so from sparse samples it neither inlines nor optimizes for speed code
 * that ran.  gcc-12, gawk at 5,000 execution samples (Ir vs -O2): +3.85%
 * as sampled, +1.49% with counts x100, -1.90% with the floor too (exact
 * counts: -0.22%).  clang-16 with profile inference gains too: sqlite
 * at 50,000 execution samples -6.64% -> -9.05% (exact -8.98%), bzip2 from
 * cpu-clock samples -14.58% -> -17.00% (median of three recordings);
 * bench/results/quality-signal.md. */
#define CONVERT_FLOOR_UNIT 100

/* Write o->binary's sample profile from o->raw_path to o->output (written
 * atomically: a temporary, then renamed), and unless o->quiet a summary on
 * stderr: the estimator chosen (o->estimator_auto) and why, samples
 * attributed and dropped, and why (counts are samples; branch records:
 * ranges and branches), and a warning when the binary has fewer than
 * o->min_samples samples, with what to do.  Returns 0, or 1 after one message
 * on stderr (unreadable or bad input, the binary not in the profile, a
 * write error); nothing is written then. */
int convert_profile(const struct convert_options *o);

#endif
