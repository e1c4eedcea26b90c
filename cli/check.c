/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof check: how well a compiler profile fits a binary, for profiles
 * carried across commits.  A profile is matched by linkage name and line
 * offset, as the compilers match it; samples on lines that no longer have
 * code are lost to the compiler, so their share is the measure. */
#include "cmds.h"
#include "../convert/formats.h"
#include "../convert/binobj.h"
#include "../convert/symbolize.h"
#include "../lib/escape.h"
#include "../lib/util.h"
#include "../raw/rawprof.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

struct fit {
	const char *name;
	uint64_t total, matched;
};

struct lines {
	struct symbolizer *sym;
	struct sym_result *res;
	uint8_t seen[65536];	/* line offsets of the function's own code */
};

static void usage(FILE *f)
{
	fprintf(f, "usage: pgoprof check --binary ELF [--debug-binary ELF] [--min-fit PERCENT] PROFILE\n\n"
		   "Tell how well PROFILE (LLVM text or extbinary, GCC .afdo, or a raw\n"
		   "profile) fits ELF: the share of its samples in functions that still\n"
		   "exist, on lines that still have code, and the functions whose line\n"
		   "structure changed.  Exit status 1 when the fit is below PERCENT\n"
		   "(default 80), 2 on bad usage.\n");
}

static void mark_line(uint64_t vaddr, uint32_t len, void *arg)
{
	struct lines *l = arg;

	(void)len;
	if (sym_lookup(l->sym, vaddr, l->res) == SYM_OK)
		l->seen[l->res->frames[0].line_offset & 0xffff] = 1;
}

/* Samples of f (top level: body and inlined callsites), all of them and
 * those on lines with code (l NULL: all).  Not f->total: llvm-profgen's
 * totals count bytes, not lines. */
static uint64_t line_samples(const struct fsamples *f, const struct lines *l)
{
	uint64_t m = 0;

	for (size_t i = 0; i < f->nbody; i++)
		if (!l || l->seen[f->body[i].line & 0xffff])
			m += f->body[i].count;
	for (size_t i = 0; i < f->ncs; i++)
		if (!l || l->seen[f->cs[i].line & 0xffff])
			m += f->cs[i].callee->total;
	return m;
}

static int cmp_fit(const void *a, const void *b)
{
	const struct fit *x = a, *y = b;
	uint64_t lx = x->total - x->matched, ly = y->total - y->matched;

	return (lx < ly) - (lx > ly);
}

static int check_raw(const struct raw_profile *p, const char *path,
		     const char *binary)
{
	struct symbolizer *s = sym_open(binary, NULL, 0);
	int found;

	if (!s)
		return 1;
	found = binobj_find(s, p, path, NULL) >= 0;
	printf("%s: %s the samples of %s%s\n", path,
	       found ? "holds" : "does not hold", binary,
	       found ? ": it fits exactly" :
	       ": convert it with the binary it was recorded from, then check that profile");
	sym_close(s);
	return found ? 0 : 1;
}

static void report(struct fit *fits, size_t n, uint64_t total, uint64_t in_funcs,
		   uint64_t matched, size_t missing, double min_fit)
{
	size_t changed = 0;

	printf("functions: %zu in the profile, %zu missing from the binary (%.1f%% of samples in functions that exist)\n",
	       n, missing, total ? 100.0 * (double)in_funcs / (double)total : 0.0);
	sort(fits, n, sizeof(*fits), cmp_fit);
	for (size_t i = 0; i < n; i++) {
		double f = fits[i].total ? (double)fits[i].matched / (double)fits[i].total : 1;

		if (f >= 0.9 || !fits[i].total)
			continue;
		if (changed++ >= 10)
			continue;
		fputs("  changed: ", stdout);
		esc_fputs(fits[i].name, 0, stdout);
		printf(": %.0f%% of its %llu samples on lines that still have code\n",
		       100 * f, (unsigned long long)fits[i].total);
	}
	printf("line structure: %zu functions changed (under 90%% of their samples on lines with code)\n",
	       changed);
	printf("fit: %.1f%% of the samples land on functions and lines that still exist (minimum %.1f%%)\n",
	       total ? 100.0 * (double)matched / (double)total : 100.0, min_fit);
}

int cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "binary", required_argument, NULL, 'b' },
		{ "debug-binary", required_argument, NULL, 'g' },
		{ "min-fit", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *binary = NULL, *debug = NULL;
	double min_fit = 80;
	struct any_profile in;
	const struct fs_profile *p;
	struct symbolizer *s;
	struct lines *l;
	struct fit *fits;
	uint64_t total = 0, in_funcs = 0, matched = 0;
	size_t missing = 0;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "b:g:m:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': binary = optarg; break;
		case 'g': debug = optarg; break;
		case 'm':
			min_fit = strtod(optarg, &end);
			if (*end || min_fit < 0 || min_fit > 100)
				die(2, "--min-fit %s: give a percentage from 0 to 100", optarg);
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!binary || optind + 1 != argc) {
		usage(stderr);
		return 2;
	}
	if (any_profile_read(&in, argv[optind]))
		return 1;
	if (in.is_raw) {
		c = check_raw(&in.raw, argv[optind], binary);
		any_profile_free(&in);
		return c;
	}
	p = &in.fs;
	s = sym_open(binary, debug, 1);
	if (!s) {
		any_profile_free(&in);
		return 1;
	}
	l = xmalloc(sizeof(*l));
	l->sym = s;
	l->res = xmalloc(sizeof(*l->res));
	fits = xcalloc(p->nfuncs, sizeof(*fits));
	for (size_t i = 0; i < p->nfuncs; i++) {
		const struct fsamples *f = p->funcs[i];
		long fn = sym_function_by_name(s, f->name);

		uint64_t all = line_samples(f, NULL);

		fits[i] = (struct fit){ f->name, all, 0 };
		total += all;
		if (fn < 0) {
			missing++;
			fits[i].total = 0;	/* missing, not changed */
			continue;
		}
		in_funcs += all;
		memset(l->seen, 0, sizeof(l->seen));
		sym_function_insns(s, fn, mark_line, l);
		fits[i].matched = line_samples(f, l);
		matched += fits[i].matched;
	}
	printf("%s (%s) against %s\n", argv[optind], format_name(in.fmt), binary);
	report(fits, p->nfuncs, total, in_funcs, matched, missing, min_fit);
	c = total && 100.0 * (double)matched / (double)total < min_fit;
	free(fits);
	free(l->res);
	free(l);
	sym_close(s);
	any_profile_free(&in);
	return c;
}
