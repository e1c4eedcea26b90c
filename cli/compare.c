/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof compare: how alike two sample profiles are (convert/overlap.h):
 * a sampled profile against an exact-count one, two recordings, two
 * hosts.  Deterministic, and seconds, where a rebuild and a benchmark
 * take minutes and are noisy. */
#include "cmds.h"
#include "../convert/formats.h"
#include "../convert/overlap.h"
#include "../lib/escape.h"
#include "../lib/util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f,
"usage: pgoprof compare [-n N] [-l N] A B\n\n"
"Compare two compiler sample profiles (LLVM text or extbinary, GCC .afdo;\n"
"convert raw profiles first) by the weighted overlap of their counts:\n"
"the sum over all keys of min(share in A, share in B), 1 when the two\n"
"distribute their counts alike, 0 when they share nothing.  Scale-free:\n"
"samples compare with executions (pgoprof record --exact).\n\n"
"  body    the counts of the lines of every function and inlined copy\n"
"  head    the functions' entry counts\n"
"  target  the call targets' counts\n\n"
"Then the functions whose share of the body counts differs most, with each\n"
"one's own overlap (its shape), and the lines (with their inline context\n"
"and discriminator: f@3.1:g@2.0) whose share differs most.\n\n"
"  -n, --top N     list N functions (default 20; 0: none)\n"
"  -l, --lines N   list N lines (default 20; 0: none)\n\n"
"Exit status: 0 compared; 1 a profile cannot be read; 2 usage.\n");
}

static void print_overlap(const char *what, double v, const char *meaning)
{
	if (v < 0)
		printf("%-7s -       %s (none in either)\n", what, meaning);
	else
		printf("%-7s %.4f  %s\n", what, v, meaning);
}

static void print_lines(const struct overlap *r, long n)
{
	if (n <= 0 || !r->nlines)
		return;
	printf("# the lines whose share of body counts differs most\n"
	       "#  A share  B share  function@line.discriminator[:inlined@line...]\n");
	for (size_t i = 0; i < r->nlines && i < (size_t)n; i++) {
		printf("  %6.2f%%  %6.2f%%  ", 100 * r->lines[i].share_a,
		       100 * r->lines[i].share_b);
		esc_fputs(r->lines[i].where, 0, stdout);
		putchar('\n');
	}
}

static void print(const struct overlap *r, long top)
{
	print_overlap("body", r->body, "weighted overlap of body counts");
	print_overlap("head", r->head, "weighted overlap of head counts");
	print_overlap("target", r->target, "weighted overlap of call targets");
	printf("functions %zu in A, %zu in B, %zu in both\n", r->fn_a, r->fn_b,
	       r->fn_both);
	if (top <= 0 || !r->nfns)
		return;
	printf("# the functions whose share of body counts differs most\n"
	       "#  A share  B share  shape  function\n");
	for (size_t i = 0; i < r->nfns && i < (size_t)top; i++) {
		const struct overlap_fn *f = &r->fns[i];
		char shape[16] = "     -";

		if (f->shape >= 0)
			snprintf(shape, sizeof(shape), "%6.3f", f->shape);
		printf("  %6.2f%%  %6.2f%%  %s  ", 100 * f->share_a,
		       100 * f->share_b, shape);
		esc_fputs(f->name, 0, stdout);
		putchar('\n');
	}
}

static int read_one(const char *path, struct any_profile *p)
{
	if (any_profile_read(p, path))
		return -1;
	if (p->is_raw) {
		any_profile_free(p);
		return err("%s is a raw profile: compare compiler profiles (pgoprof convert %s --binary ELF -o %s.prof)",
			   path, path, path);
	}
	fs_finish(&p->fs);
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "top", required_argument, NULL, 'n' },
		{ "lines", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct any_profile a, b;
	struct overlap r;
	long top = 20, lines = 20;
	char *end;
	int o;

	while ((o = getopt_long(argc, argv, "n:l:h", longopts, NULL)) != -1) {
		long *v = o == 'n' ? &top : &lines;

		switch (o) {
		case 'n':
		case 'l':
			*v = strtol(optarg, &end, 10);
			if (*end || *v < 0) {
				err("-%c %s: give a count, 0 or more", o, optarg);
				return 2;
			}
			break;
		case 'h': return cmd_usage(usage, CMD_HELP);
		default: return cmd_usage(usage, CMD_USAGE);
		}
	}
	if (optind + 2 != argc)
		return cmd_usage(usage, CMD_USAGE);
	if (read_one(argv[optind], &a))
		return 1;
	if (read_one(argv[optind + 1], &b)) {
		any_profile_free(&a);
		return 1;
	}
	overlap_compute(&a.fs, &b.fs, &r);
	print(&r, top);
	print_lines(&r, lines);
	overlap_free(&r);
	any_profile_free(&a);
	any_profile_free(&b);
	return 0;	/* main() flushes and closes standard output */
}
