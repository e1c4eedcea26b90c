/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof merge: add raw profiles; counts add up exactly. */
#include "cmds.h"
#include "writeopts.h"
#include "../convert/formats.h"
#include "../lib/util.h"
#include "../raw/rawprof.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: pgoprof merge [--weight FILE=N]... [--keep ID]... [--strip-paths]\n"
		   "                     -o OUT FILE...\n\n"
		   "Add raw profiles (from any hosts and runs) into one.  Samples are\n"
		   "matched by build-ID and file offset, so the sum is exact.  Compiler\n"
		   "profiles of one kind (LLVM text, LLVM extbinary or GCC .afdo) merge\n"
		   "into that kind, function by function and line by line.\n\n"
		   "  -o, --output OUT      the merged profile (written atomically)\n"
		   "  -w, --weight FILE=N   multiply the counts of FILE by N (integer)\n\n"
		   "Raw profiles only (what to share of a host's profile):\n"
		   "  -k, --keep ID         keep only the objects with this build-ID (or\n"
		   "                        its first 8+ hex digits) or recorded path;\n"
		   "                        repeat for more; the samples of the others\n"
		   "                        are counted in filtered.samples\n"
		   "      --strip-paths     drop object paths and the META values that\n"
		   "                        hold paths or command lines; build-IDs stay\n\n"
		   "Compiler profiles only (this also converts between formats):\n"
		   "  -f, --format FORMAT   write llvm-text, llvm-extbinary or afdo\n"
		   "                        (default: the kind of the inputs)\n"
		   "      --md5-names       llvm-extbinary: names as MD5 hashes\n"
		   "      --compress        llvm-extbinary: zlib-compressed sections\n"
		   "      --afdo-version V  afdo: 2 (GCC 12+, default), 1 (GCC 11 and\n"
		   "                        earlier) or llvm (llvm-profdata, clang)\n"
		   "      --gcc-version N   afdo: for GCC N (12 and later read version 2)\n");
}


/* --weight FILE=N: N into *w and FILE (arg cut at the '=') into *file;
 * 0, or -1 after a message when N is not an integer from 1 to 2^64-1. */
static int parse_weight(char *arg, char **file, uint64_t *w)
{
	char *eq = strrchr(arg, '='), *end;

	if (!eq || !eq[1] || eq[1] == '-' || eq[1] == '+')
		return err("--weight %s: give FILE=N with N a positive integer", arg);
	errno = 0;
	*w = strtoull(eq + 1, &end, 10);
	if (*end || !*w)
		return err("--weight %s: give FILE=N with N a positive integer", arg);
	if (errno == ERANGE)
		return err("--weight %s: N is above 2^64-1 (%llu), the largest count: give a smaller weight",
			   arg, (unsigned long long)UINT64_MAX);
	*eq = '\0';
	*file = arg;
	return 0;
}

/* One line if counts of out saturated (n of them, from raw_saturated or
 * fs_saturated): the sums and products of merge stop at 2^64-1. */
static void report_saturated(size_t n, const char *out)
{
	if (n)
		warnx("warning: %s: %zu count%s reached 2^64-1 with the weights given and "
		      "stopped there (saturated, not wrapped): %s ratio%s to other counts "
		      "%s wrong; merge with smaller weights", out, n, n == 1 ? "" : "s",
		      n == 1 ? "its" : "their", n == 1 ? "" : "s", n == 1 ? "is" : "are");
}

static uint64_t weight_of(const char *file, char **wfile, uint64_t *wval, int nw)
{
	for (int j = 0; j < nw; j++)
		if (!strcmp(wfile[j], file))
			return wval[j];
	return 1;
}

/* Add files into dst (zeroed by the caller), each read once (a pipe
 * cannot be read twice): all of the first file's kind, raw or one compiler
 * format.  Returns 0, or -1 with a message. */
static int merge_inputs(char **files, int n, char **wfile, uint64_t *wval,
			int nw, struct any_profile *dst)
{
	struct any_profile src;

	for (int i = 0; i < n; i++) {
		uint64_t w = weight_of(files[i], wfile, wval, nw);

		if (any_profile_read(&src, files[i]))
			return -1;
		if (!i) {
			dst->is_raw = src.is_raw;
			dst->fmt = src.fmt;
		}
		if (src.is_raw != dst->is_raw || src.fmt != dst->fmt) {
			err("%s is a %s profile but %s is %s: merge profiles of one kind (convert them first)",
			    files[i], any_profile_kind(&src), files[0],
			    any_profile_kind(dst));
			any_profile_free(&src);
			return -1;
		}
		if (src.is_raw)
			raw_merge_add(&dst->raw, &src.raw, w);
		else
			fs_merge(&dst->fs, &src.fs, w);
		any_profile_free(&src);
	}
	return 0;
}

/* Write a merged compiler profile in wo's format, or else its own. */
static int write_merged(struct any_profile *p, struct write_options *wo,
			const char *out)
{
	size_t saturated;

	fs_finish(&p->fs);
	saturated = fs_saturated(&p->fs);	/* before scaling for GCC */
	if (wo->format == FMT_NONE)
		wo->format = p->fmt;
	scale_for_format(&p->fs, wo);
	if (profile_write(&p->fs, wo, out))
		return -1;
	report_saturated(saturated, out);
	return 0;
}

/* Write a merged raw profile, with only the objects keep names (none:
 * all) and without paths if strip. */
static int write_raw(struct raw_profile *p, char **keep, int nkeep, int strip,
		     const char *out)
{
	if (nkeep && raw_keep_matching(p, keep, nkeep, "--keep", out))
		return -1;
	if (strip)
		raw_strip_paths(p);
	if (raw_write_file(p, out))
		return -1;
	report_saturated(raw_saturated(p), out);
	return 0;
}

int cmd_merge(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "weight", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ "keep", required_argument, NULL, 'k' },
		{ "strip-paths", no_argument, NULL, 'S' },
		WRITE_LONGOPTS,
		{ 0 },
	};
	struct write_options wo = { .afdo_version = 2 };
	const char *out = NULL;
	char **wfile = xcalloc(argc, sizeof(char *));
	uint64_t *wval = xcalloc(argc, sizeof(uint64_t));
	char **keep = xcalloc(argc, sizeof(char *));
	int nw = 0, nkeep = 0, strip = 0, c, w, rc = 0;
	struct any_profile dst = { 0 };

	while ((c = getopt_long(argc, argv, "o:w:f:k:h", longopts, NULL)) != -1) {
		w = write_option(c, optarg, &wo);
		if (w < 0) {
			rc = 2;
			goto out;
		}
		if (w)
			continue;
		switch (c) {
		case 'k':
			keep[nkeep++] = optarg;
			break;
		case 'S':
			strip = 1;
			break;
		case 'o':
			out = optarg;
			break;
		case 'w':
			if (parse_weight(optarg, &wfile[nw], &wval[nw])) {
				rc = CMD_USAGE;
				goto out;
			}
			nw++;
			break;
		case 'h':
			rc = cmd_usage(usage, CMD_HELP);
			goto out;
		default:
			rc = cmd_usage(usage, CMD_USAGE);
			goto out;
		}
	}
	if (!out || optind >= argc) {
		rc = cmd_usage(usage, CMD_USAGE);
		goto out;
	}
	for (int j = 0; j < nw; j++) {
		int found = 0;

		for (int i = optind; i < argc; i++)
			found |= !strcmp(wfile[j], argv[i]);
		if (!found) {
			err("--weight %s=...: %s is not among the files to merge",
			    wfile[j], wfile[j]);
			rc = CMD_USAGE;
			goto out;
		}
	}
	if (merge_inputs(argv + optind, argc - optind, wfile, wval, nw, &dst)) {
		rc = 1;
	} else if (dst.is_raw && wo.format != FMT_NONE) {
		err("--format applies to compiler profiles; raw profiles merge into a raw profile ('pgoprof convert' makes compiler profiles)");
		rc = 2;
	} else if (!dst.is_raw && (nkeep || strip)) {
		err("--keep and --strip-paths apply to raw profiles; compiler profiles name functions, not files");
		rc = 2;
	} else if (dst.is_raw ? write_raw(&dst.raw, keep, nkeep, strip, out) :
		   write_merged(&dst, &wo, out)) {
		rc = 1;
	}
	any_profile_free(&dst);
out:
	free(wfile);
	free(wval);
	free(keep);
	return rc;
}
