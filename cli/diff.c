/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof diff: what changed between two profiles, for people: the
 * functions and source lines whose share of the samples changed most.
 * pgoprof compare gives one number for how alike two compiler profiles
 * are; this tells where they differ, for raw profiles too. */
#include "cmds.h"
#include "../lib/escape.h"
#include "../lib/util.h"
#include "../report/diff.h"
#include "../report/json.h"
#include "../report/load.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_LIMIT 20

static void usage(FILE *f)
{
	fprintf(f,
"usage: pgoprof diff A B [--binary ELF]... [OPTIONS]\n\n"
"The functions and the source lines whose share of the samples changed most\n"
"from profile A to profile B: each count as a share of its own profile's\n"
"samples (so recordings of different lengths compare), sorted by the\n"
"absolute change.  Functions by self samples (their own code; inlined code\n"
"is the inlined function's).  A and B are raw profiles (named with their\n"
"binaries, as pgoprof report names them) or compiler sample profiles.\n\n"
"  -b, --binary ELF     a binary of A or B (by build-ID; repeatable)\n"
"  -n, --limit N        list N functions and N lines (default %d; 0: all)\n"
"      --no-demangle    C++ linkage names as they are\n"
"      --json           JSON for scripts (docs/report.md gives the schema)\n\n"
"Exit status: 0 compared; 1 a profile or binary cannot be read; 2 usage.\n",
		DEFAULT_LIMIT);
}

static size_t shown(size_t n, long limit)
{
	return limit && (size_t)limit < n ? (size_t)limit : n;
}

static void text_rows(const char *what, const struct rep_diff_row *r,
		      size_t n, long limit)
{
	printf("\n# %s whose share changed most (%zu of %zu)\n", what,
	       shown(n, limit), n);
	printf("#%8s %9s %9s  %s\n", "A", "B", "change", what[0] == 'f' ? "function" : "line");
	for (size_t i = 0; i < shown(n, limit); i++) {
		printf(" %7.2f%% %8.2f%% %+8.2f%%  ", 100 * r[i].share_a,
		       100 * r[i].share_b, 100 * (r[i].share_b - r[i].share_a));
		esc_fputs(r[i].key, 0, stdout);
		putchar('\n');
	}
}

static void json_rows(const char *what, const struct rep_diff_row *r,
		      size_t n, long limit)
{
	printf(",\n  \"%s\": [", what);
	for (size_t i = 0; i < shown(n, limit); i++) {
		printf("%s\n    {\"%s\": ", i ? "," : "", what[0] == 'f' ? "name" : "line");
		json_str(stdout, r[i].key);
		printf(", \"a\": %" PRIu64 ", \"b\": %" PRIu64 ", \"a_pct\": %.4f, \"b_pct\": %.4f, \"change_pct\": %.4f}",
		       r[i].a, r[i].b, 100 * r[i].share_a, 100 * r[i].share_b,
		       100 * (r[i].share_b - r[i].share_a));
	}
	printf("\n  ]");
}

static void print(const struct rep_input *in, const struct rep_model *m,
		  const struct rep_diff *d, long limit, int json)
{
	if (json) {
		printf("{\n  \"schema\": \"pgoprof-diff/1\"");
		for (int i = 0; i < 2; i++) {
			printf(",\n  \"%c\": {\"profile\": ", 'a' + i);
			json_str(stdout, in[i].path);
			printf(", \"kind\": ");
			json_str(stdout, any_profile_kind(&in[i].prof));
			printf(", \"samples\": %" PRIu64 "}", m[i].samples);
		}
		json_rows("functions", d->funcs, d->nfuncs, limit);
		json_rows("lines", d->lines, d->nlines, limit);
		printf("\n}\n");
		return;
	}
	for (int i = 0; i < 2; i++)
		printf("# %c: %s (%s), %" PRIu64 " samples\n", 'A' + i, in[i].path,
		       any_profile_kind(&in[i].prof), m[i].samples);
	text_rows("functions", d->funcs, d->nfuncs, limit);
	text_rows("lines", d->lines, d->nlines, limit);
}

static int parse(int argc, char **argv, const char ***bins, size_t *nbin,
		 long *limit, unsigned *flags, int *json)
{
	enum { O_NO_DEMANGLE = 256, O_JSON };
	static const struct option longopts[] = {
		{ "binary", required_argument, NULL, 'b' },
		{ "limit", required_argument, NULL, 'n' },
		{ "no-demangle", no_argument, NULL, O_NO_DEMANGLE },
		{ "json", no_argument, NULL, O_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	size_t cap = 0;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "b:n:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			grow(bins, &cap, *nbin + 1, sizeof(**bins));
			(*bins)[(*nbin)++] = optarg;
			break;
		case 'n':
			*limit = strtol(optarg, &end, 10);
			if (!*optarg || *end || *limit < 0)
				return err("--limit %s: give a count, 0 (all) or more", optarg), CMD_USAGE;
			break;
		case O_NO_DEMANGLE: *flags |= REP_NO_DEMANGLE; break;
		case O_JSON: *json = 1; break;
		case 'h': return cmd_usage(usage, CMD_HELP);
		default: return cmd_usage(usage, CMD_USAGE);
		}
	}
	if (optind + 2 != argc)
		return cmd_usage(usage, CMD_USAGE);
	return CMD_GO_ON;
}

int cmd_diff(int argc, char **argv)
{
	const char **bins = NULL;
	size_t nbin = 0;
	long limit = DEFAULT_LIMIT;
	unsigned flags = REP_LENIENT;
	int json = 0, rc = 1, loaded = 0;
	struct rep_input in[2];
	struct rep_model m[2];
	struct rep_diff d;
	struct strtab names;

	rc = parse(argc, argv, &bins, &nbin, &limit, &flags, &json);
	if (rc != CMD_GO_ON) {
		free(bins);
		return rc;
	}
	rc = 1;
	strtab_init(&names);
	for (; loaded < 2; loaded++) {
		rep_model_init(&m[loaded], &names);
		if (rep_load(&in[loaded], argv[optind + loaded], bins, nbin,
			     flags, &m[loaded])) {
			rep_model_free(&m[loaded]);
			break;
		}
	}
	for (size_t k = 0; loaded == 2 && k < nbin; k++)
		if (!(in[0].syms && rep_syms_binary_used(in[0].syms, k)) &&
		    !(in[1].syms && rep_syms_binary_used(in[1].syms, k)))
			warnx("%s: no object of %s or %s has its build-ID; not used",
			      bins[k], in[0].path, in[1].path);
	if (loaded == 2) {
		rep_diff(&m[0], &m[1], &d);
		print(in, m, &d, limit, json);
		rep_diff_free(&d);
		rc = 0;
	}
	while (loaded-- > 0) {
		rep_input_free(&in[loaded]);
		rep_model_free(&m[loaded]);
	}
	strtab_free(&names);
	free(bins);
	return rc;
}
