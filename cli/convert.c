/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof convert: the command line of convert/convert.h. */
#include "cmds.h"
#include "writeopts.h"
#include "../convert/convert.h"
#include "../lib/util.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Past every character, so that no short or write option (writeopts.h)
 * takes it. */
enum { OPT_MIN_SAMPLES = 256, OPT_COLD_CUT, OPT_LINE0, OPT_PROBES,
       OPT_UNSAMPLED };

static void usage(FILE *f)
{
	fprintf(f,
"usage: pgoprof convert RAW --binary ELF [--debug-binary ELF] [-o OUT]\n"
"                       [--format FORMAT] [FORMAT OPTIONS]\n\n"
"Write the sample profile of one binary from a raw profile.  The binary is\n"
"found in the profile by its build-ID (a binary without one: by its\n"
"content, or by the path it was recorded at); it needs debug info (-g; with\n"
"clang also -fdebug-info-for-profiling), in itself, in --debug-binary,\n"
"through .gnu_debuglink or under /usr/lib/debug/.build-id/.\n\n"
"  -b, --binary ELF        the executable or shared library to profile\n"
"  -g, --debug-binary ELF  its separate debug info file\n"
"      --recorded-path PATH  the samples of the object recorded at PATH\n"
"                          without a build-ID ('pgoprof show' lists them),\n"
"                          when not the only one named like ELF\n"
"  -o, --output OUT        write here (atomically) instead of stdout\n"
"  -f, --format FORMAT     llvm-extbinary (default; clang -fprofile-sample-use=OUT,\n"
"                          compact, fastest to load), llvm-text (readable),\n"
"                          afdo (gcc -fauto-profile=OUT)\n"
"      --md5-names         llvm-extbinary: names as MD5 hashes (smaller)\n"
"      --compress          llvm-extbinary: zlib-compressed sections\n"
"      --gcc-version N     afdo: for GCC N (12 and later read version 2)\n"
"      --afdo-version V    afdo: 2 (GCC 12+, default), 1 (GCC 11 and\n"
"                          earlier) or llvm (llvm-profdata, clang)\n"
"  -e, --estimator E       a line's count from its instructions' samples:\n"
"                          auto (default: by what the profile's samples\n"
"                          measure, META signal: block for execution samples,\n"
"                          sum for time samples, mean for unknown ones; said\n"
"                          on stderr), mean (per instruction), sum, max,\n"
"                          block (the mean of its basic blocks), block-capped\n"
"                          (the same without each block's most sampled\n"
"                          instruction), flow (block-capped, pooled over the\n"
"                          blocks that run equally often)\n"
"      --min-samples N     warn when the binary has fewer samples (branch\n"
"                          records: ranges) than N (default %d; 0: never)\n"
"      --call-targets T    stack samples, without branch records: a call\n"
"                          target's count is stack (default; the samples\n"
"                          taken in the callee called from there), calls\n"
"                          (the call's line count shared among its callees),\n"
"                          or none (no call targets)\n"
"      --cold-cut F        leave out counts below F x the binary's samples\n"
"                          (exact counts: instructions run), and functions\n"
"                          with nothing left; auto (default): %g for exact\n"
"                          counts in an LLVM format, 0 (off) for samples,\n"
"                          branch records and afdo;\n"
"                          summary: below the count at clang's cold cutoff\n"
"                          (99.9999%% of the counts)\n"
"      --line0 R           body counts of code at line 0: keep (default;\n"
"                          written at offset (0 - start line) & 0xffff) or\n"
"                          drop\n"
"      --probes P          a binary built with -fpseudo-probe-for-profiling:\n"
"                          auto (default: a probe-based profile from exact\n"
"                          counts written for clang, else by lines), on\n"
"                          (also from branch records; an error without\n"
"                          .pseudo_probe) or off (by lines); build with the\n"
"                          profile with -fpseudo-probe-for-profiling too\n"
"      --unsampled U       IP samples: the lines of a sampled function that\n"
"                          got no sample: auto (default: floor), floor\n"
"                          (counts in %dths of a sample, such a line gets\n"
"                          1: GCC reads a missing line as never run) or\n"
"                          omit\n"
"  -q, --quiet             print only errors\n\n"
"Exit status: 0 written; 1 error (also: the binary is not in the profile,\n"
"or none of its samples got a function and a line); 2 usage.\n", CONVERT_MIN_SAMPLES, CONVERT_COLD_CUT_EXACT,
	CONVERT_FLOOR_UNIT);
}

/* The words of the options that take one, in their enums' order. */
static const char *const line0_names[] = { "keep", "drop", NULL };
static const char *const probes_names[] = { "auto", "on", "off", NULL };
static const char *const targets_names[] = { "calls", "stack", "none", NULL };
static const char *const unsampled_names[] = { "auto", "floor", "omit", NULL };
static const enum unsampled_mode unsampled_modes[] = {
	UNSAMPLED_AUTO, UNSAMPLED_FLOOR, UNSAMPLED_OMIT,
};

int convert_parse_args(struct convert_options *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "binary", required_argument, NULL, 'b' },
		{ "debug-binary", required_argument, NULL, 'g' },
		{ "recorded-path", required_argument, NULL, 'R' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "estimator", required_argument, NULL, 'e' },
		{ "call-targets", required_argument, NULL, 'T' },
		{ "min-samples", required_argument, NULL, OPT_MIN_SAMPLES },
		{ "cold-cut", required_argument, NULL, OPT_COLD_CUT },
		{ "line0", required_argument, NULL, OPT_LINE0 },
		{ "probes", required_argument, NULL, OPT_PROBES },
		{ "unsampled", required_argument, NULL, OPT_UNSAMPLED },
		WRITE_LONGOPTS,
		{ 0 },
	};
	int opt, w;

	o->wo.format = FMT_LLVM_EXTBINARY;
	o->wo.afdo_version = 2;
	o->estimator = EST_MEAN;
	o->estimator_auto = 1;
	o->min_samples = CONVERT_MIN_SAMPLES;
	o->targets = TARGETS_STACK;
	o->cold_auto = 1;
	while ((opt = getopt_long(argc, argv, "b:g:o:f:e:qh", longopts, NULL)) != -1) {
		w = write_option(opt, optarg, &o->wo);
		if (w < 0)
			return 2;
		if (w)
			continue;
		switch (opt) {
		case 'b': o->binary = optarg; break;
		case 'g': o->debug = optarg; break;
		case 'R': o->recorded_path = optarg; break;
		case 'o': o->output = optarg; break;
		case 'e':
			o->estimator_auto = !strcmp(optarg, "auto");
			if (o->estimator_auto)
				break;
			if (estimator_by_name(optarg) < 0) {
				err("--estimator %s: give auto, mean, sum, max, block, block-capped or flow", optarg);
				return 2;
			}
			o->estimator = (enum estimator)estimator_by_name(optarg);
			break;
		case OPT_MIN_SAMPLES: {
			char *end;

			errno = 0;
			o->min_samples = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || *optarg == '-') {
				err("--min-samples %s: give a whole number (0: never warn)", optarg);
				return 2;
			}
			break;
		}
		case OPT_COLD_CUT: {
			char *end;

			o->cold_summary = !strcmp(optarg, "summary");
			o->cold_auto = !strcmp(optarg, "auto");
			if (o->cold_summary || o->cold_auto)
				break;
			errno = 0;
			o->cold_cut = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o->cold_cut >= 0 && o->cold_cut < 1)) {
				err("--cold-cut %s: give auto, summary or a fraction in [0, 1) (0: off)", optarg);
				return 2;
			}
			break;
		}
		case OPT_LINE0:
			if ((w = cmd_choice("line0", optarg, line0_names)) < 0)
				return CMD_USAGE;
			o->line0_drop = w;
			break;
		case OPT_PROBES:
			if ((w = cmd_choice("probes", optarg, probes_names)) < 0)
				return CMD_USAGE;
			o->probes = (enum probes_mode)w;
			break;
		case OPT_UNSAMPLED:
			if ((w = cmd_choice("unsampled", optarg, unsampled_names)) < 0)
				return CMD_USAGE;
			o->unsampled = unsampled_modes[w];
			break;
		case 'T':
			if ((w = cmd_choice("call-targets", optarg, targets_names)) < 0)
				return CMD_USAGE;
			o->targets = (enum call_targets)w;
			break;
		case 'q': o->quiet = 1; break;
		case 'h': return cmd_usage(usage, CMD_HELP);
		default: return cmd_usage(usage, CMD_USAGE);
		}
	}
	if (optind + 1 != argc || !o->binary)
		return cmd_usage(usage, CMD_USAGE);
	o->raw_path = argv[optind];
	return CMD_GO_ON;
}

int cmd_convert(int argc, char **argv)
{
	struct convert_options o = { 0 };
	int rc = convert_parse_args(&o, argc, argv);

	return rc >= 0 ? rc : convert_profile(&o);
}
