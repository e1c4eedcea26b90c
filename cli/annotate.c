/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof annotate: one function of a raw profile, its source lines with
 * the self samples (or executions) of each, and with --asm its
 * instructions, as perf annotate and pprof -list show them.  The counts
 * are report/annotate.c's; this file is options and printing. */
#include "cmds.h"
#include "../convert/formats.h"
#include "../convert/symbolize.h"
#include "../lib/escape.h"
#include "../lib/util.h"
#include "../report/annotate.h"
#include "../report/funcs.h"
#include "../report/source.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f,
"usage: pgoprof annotate RAW [--binary ELF]... [--asm] [-o FILE] FUNCTION\n\n"
"One function of a raw profile (any mode: stacks, IP samples, branch records,\n"
"exact counts), line by line: its source lines with the self samples of each\n"
"(executions for branch records and exact counts), code inlined into it at\n"
"the line of its call, as perf annotate and pprof -list show them.\n"
"FUNCTION is the linkage name (pgoprof report --no-demangle lists them).\n\n"
"  -b, --binary ELF   a binary of the profile (by build-ID; repeat for\n"
"                     libraries); else each object's recorded path if the\n"
"                     file there is the same\n"
"      --asm          under each line, its instructions (capstone) with theirs\n"
"  -o, --output FILE  write to FILE (whole or not at all)\n\n"
"Exit status: 0 done; 1 a profile or binary cannot be read, no binary has the\n"
"function, or it has no samples; 2 usage.\n");
}

static double pct(uint64_t v, uint64_t all)
{
	return all ? 100.0 * (double)v / (double)all : 0;
}

static void print_insns(FILE *out, const struct ann_func *a, uint32_t line)
{
	char text[160];

	for (size_t i = 0; i < a->n; i++) {
		if (a->v[i].line != line)
			continue;
		sym_insn_text(a->sym, a->v[i].vaddr, text, sizeof(text));
		if (a->v[i].count)
			fprintf(out, " %11" PRIu64 " %7.2f%%", a->v[i].count,
				pct(a->v[i].count, a->total));
		else
			fprintf(out, " %11s %8s", ".", "");
		fprintf(out, "         %8" PRIx64 ":  %s\n", a->v[i].vaddr, text);
	}
}

/* The lines from the function's first to its last, each with its count
 * and source text. */
static void print_lines(FILE *out, const struct ann_func *a, int asm_too)
{
	struct rep_sources *src = rep_sources_new();
	uint32_t lo = a->decl_line, hi = 0;
	int found = 0;

	for (size_t i = 0; i < a->n; i++) {
		if (!a->v[i].line)
			continue;
		if (!lo || a->v[i].line < lo)
			lo = a->v[i].line;
		if (a->v[i].line > hi)
			hi = a->v[i].line;
	}
	for (uint32_t l = lo; l && l <= hi; l++) {
		const char *text = a->file ? rep_source_line(src, a->file, l) : NULL;
		uint64_t c = 0;
		int code = 0;

		for (size_t i = 0; i < a->n; i++)
			if (a->v[i].line == l)
				c = sat_add64(c, a->v[i].count), code = 1;
		if (!text && !code)
			continue;	/* no source: only the lines with code */
		found |= text != NULL;
		if (c)
			fprintf(out, " %11" PRIu64 " %7.2f%%  %6" PRIu32 "  ", c, pct(c, a->total), l);
		else
			fprintf(out, " %11s %8s  %6" PRIu32 "  ", ".", "", l);
		esc_fputs(text ? text : "", ESC_TABS, out);
		putc('\n', out);
		if (asm_too && code)
			print_insns(out, a, l);
	}
	if (!found) {
		fputs("# (source not found: ", out);
		esc_fputs(a->file ? a->file : "the debug info names no file", 0, out);
		fputs(")\n", out);
	}
	rep_sources_free(src);
}

static void print(FILE *out, const char *raw, const struct ann_func *a,
		  int asm_too)
{
	static const char *const unit[] = {
		[REP_WALK_STACKS] = "self samples (the leaves of the stacks)",
		[REP_WALK_IPS] = "self samples (IP samples)",
		[REP_WALK_RANGES] = "executions (each instruction of each range)",
	};
	uint64_t line0 = 0;

	fputs("# ", out);
	esc_fputs(a->name, 0, out);
	fputs(" (", out);
	esc_fputs(a->file ? a->file : "?", 0, out);
	fprintf(out, ":%" PRIu32 ") in ", a->decl_line);
	esc_fputs(raw, 0, out);
	fprintf(out, ": %" PRIu64 " %s in %zu instructions\n", a->total,
		unit[a->walk], a->n);
	fprintf(out, "#%11s %8s  %6s  %s\n", "count", "%", "line", "source");
	print_lines(out, a, asm_too);
	for (size_t i = 0; i < a->n; i++)
		if (!a->v[i].line)
			line0 = sat_add64(line0, a->v[i].count);
	if (line0 || (asm_too && a->n))
		fprintf(out, "# %" PRIu64 " (%.2f%%) at instructions without a line (line 0)\n",
			line0, pct(line0, a->total));
	if (asm_too)
		print_insns(out, a, 0);
}

/* To standard output, or to a file that appears whole. */
static int write_out(const char *output, const char *raw,
		     const struct ann_func *a, int asm_too)
{
	struct outfile of;

	if (!output || !strcmp(output, "-")) {
		print(stdout, raw, a, asm_too);
		return stdout_flush();
	}
	if (outfile_open(&of, output))
		return -1;
	print(of.f, raw, a, asm_too);
	return ferror(of.f) ? outfile_fail(&of) : outfile_commit(&of);
}

static int annotate(const char *raw, const char *const *bins, size_t nbin,
		    const char *func, const char *output, int asm_too)
{
	struct any_profile prof;
	struct strtab names;
	struct rep_syms *s;
	struct ann_func a;
	int rc = -1;

	if (any_profile_read(&prof, raw))
		return -1;
	strtab_init(&names);
	if (!prof.is_raw) {
		err("%s is a compiler profile (%s): annotate reads raw profiles, whose addresses name instructions",
		    raw, any_profile_kind(&prof));
		goto out;
	}
	if (!(s = rep_syms_open(&prof.raw, raw, bins, nbin, 0, &names)))
		goto out;
	if (!ann_build(s, &prof.raw, raw, func, &a)) {
		if (!a.total)	/* never an empty listing with status 0 */
			err("%s: %s has no samples", raw, func);
		else
			rc = write_out(output, raw, &a, asm_too);
		ann_free(&a);
	}
	rep_syms_close(s);
out:
	strtab_free(&names);
	any_profile_free(&prof);
	return rc;
}

int cmd_annotate(int argc, char **argv)
{
	enum { O_ASM = 256 };
	static const struct option longopts[] = {
		{ "binary", required_argument, NULL, 'b' },
		{ "asm", no_argument, NULL, O_ASM },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char **bins = xcalloc((size_t)argc + 1, sizeof(*bins));
	const char *output = NULL;
	size_t nbin = 0;
	int c, asm_too = 0, rc;

	while ((c = getopt_long(argc, argv, "b:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': bins[nbin++] = optarg; break;
		case 'o': output = optarg; break;
		case O_ASM: asm_too = 1; break;
		case 'h': free(bins); return cmd_usage(usage, CMD_HELP);
		default: free(bins); return cmd_usage(usage, CMD_USAGE);
		}
	}
	if (optind + 2 != argc) {
		free(bins);
		return cmd_usage(usage, CMD_USAGE);
	}
	rc = annotate(argv[optind], bins, nbin, argv[optind + 1], output, asm_too) ? 1 : 0;
	free(bins);
	return rc;
}
