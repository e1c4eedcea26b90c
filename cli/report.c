/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof report: where the samples of a profile went, for people (and
 * scripts: --json; flame graphs: --folded).  Functions with self and
 * total samples, inlined code credited to the inlined function, C++
 * names demangled, the hottest source lines, one function's callers and
 * callees.  The aggregation and the output are report/ (funcs.c,
 * render.c); this file is the options and the call. */
#include "cmds.h"
#include "../lib/util.h"
#include "../report/load.h"
#include "../report/render.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_LIMIT 20

struct ropts {
	const char **bins;
	size_t nbin;
	unsigned flags;
	int by_total, source, json, folded;
	const char *svg;		/* --svg FILE */
	long limit;			/* 0: all */
	const char *function, *output, *path;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: pgoprof report PROFILE [--binary ELF]... [OPTIONS]\n\n"
"Where the samples of a profile went: the hottest functions with their self\n"
"samples (in their own code) and total samples (with them anywhere in the\n"
"stack), and the hottest source lines.  Code inlined into a function is\n"
"credited to the inlined function, with the function it is inlined into as\n"
"its caller.  PROFILE is a raw profile (pgoprof record, import), named with\n"
"its binaries, or a compiler sample profile (LLVM text or extbinary, GCC\n"
".afdo).  A raw profile without stacks has self samples only; its callers\n"
"and callees are the calls of its branch records (record --exact, LBR).\n\n"
"  -b, --binary ELF     a binary of the raw profile (by build-ID; repeat for\n"
"                       libraries); an object without one is named from its\n"
"                       recorded path if the file there is the same, else\n"
"                       [PATH]\n"
"  -s, --sort self|total  order of the functions (default self)\n"
"  -n, --limit N        list N functions and N lines (default %d; 0: all)\n"
"  -f, --function NAME  that function's callers and callees, with counts\n"
"      --source         the source text of each hot line, if found\n"
"      --no-demangle    C++ linkage names as they are\n"
"      --json           JSON for scripts (docs/report.md gives the schema)\n"
"      --folded         folded stacks (root;...;leaf COUNT) for flamegraph.pl,\n"
"                       inferno, speedscope, pprof: raw profiles with stacks;\n"
"                       without, estimated from branch records' calls (said)\n"
"      --svg FILE       a flame graph of the stacks, as an SVG file to open in\n"
"                       a browser (docs/flamegraph.md): as --folded\n"
"  -o, --output FILE    write to FILE (whole or not at all), not standard output\n\n"
"Exit status: 0 reported; 1 a profile or binary cannot be read, or has not\n"
"what was asked (nothing to report, no stacks or calls for --folded, no\n"
"such function); 2 usage.\n",
		DEFAULT_LIMIT);
}


static int report(FILE *out, const struct rep_input *in, struct rep_model *m,
		  const struct ropts *o)
{
	struct rep_view v = { .in = in, .m = m, .limit = o->limit,
			      .by_total = o->by_total, .fn = -1 };

	if (!m->samples && m->skipped)	/* never an empty report, status 0 */
		return err("%s: nothing to report: its %" PRIu64 " range executions are in objects without a binary; give --binary",
			   in->path, m->skipped);
	if (!m->samples)
		return err("%s: nothing to report: the profile has no samples", in->path);
	if (o->folded)
		return rep_render_folded(out, in);
	if (o->svg)
		return rep_render_svg(in, o->svg);
	if (o->by_total && !m->has_total)
		return err("--sort total: %s has no stacks, so total samples are not known; sort by self",
			   in->path);
	if (o->function && (v.fn = rep_view_function(m, o->function, in->path)) < 0)
		return -1;
	v.src = o->source ? rep_sources_new() : NULL;
	if (o->json)
		rep_render_json(out, &v);
	else
		rep_render_text(out, &v);
	rep_sources_free(v.src);
	return 0;
}

static const char *const sort_names[] = { "self", "total", NULL };

static int parse(int argc, char **argv, struct ropts *o)
{
	enum { O_SOURCE = 256, O_NO_DEMANGLE, O_JSON, O_FOLDED, O_SVG };
	static const struct option longopts[] = {
		{ "binary", required_argument, NULL, 'b' },
		{ "sort", required_argument, NULL, 's' },
		{ "limit", required_argument, NULL, 'n' },
		{ "function", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "source", no_argument, NULL, O_SOURCE },
		{ "no-demangle", no_argument, NULL, O_NO_DEMANGLE },
		{ "json", no_argument, NULL, O_JSON },
		{ "folded", no_argument, NULL, O_FOLDED },
		{ "svg", required_argument, NULL, O_SVG },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	size_t cap = 0;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "b:s:n:f:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			grow(&o->bins, &cap, o->nbin + 1, sizeof(*o->bins));
			o->bins[o->nbin++] = optarg;
			break;
		case 's':
			if ((o->by_total = cmd_choice("sort", optarg, sort_names)) < 0)
				return CMD_USAGE;
			break;
		case 'n':
			o->limit = strtol(optarg, &end, 10);
			if (!*optarg || *end || o->limit < 0)
				return err("--limit %s: give a count, 0 (all) or more", optarg), CMD_USAGE;
			break;
		case 'f': o->function = optarg; break;
		case 'o': o->output = optarg; break;
		case O_SOURCE: o->source = 1; break;
		case O_NO_DEMANGLE: o->flags |= REP_NO_DEMANGLE; break;
		case O_JSON: o->json = 1; break;
		case O_FOLDED: o->folded = 1; o->flags |= REP_OFFSETS; break;
		case O_SVG: o->svg = optarg; o->flags |= REP_OFFSETS; break;
		case 'h': return cmd_usage(usage, CMD_HELP);
		default: return cmd_usage(usage, CMD_USAGE);
		}
	}
	if (optind + 1 != argc)
		return cmd_usage(usage, CMD_USAGE);
	if ((o->folded || o->svg) && (o->json || o->function || o->source || o->by_total))
		return err("--folded and --svg write stacks only: not with --json, --function, --source or --sort"), CMD_USAGE;
	if (o->folded && o->svg)
		return err("--folded and --svg: give one (the SVG draws the folded stacks)"), CMD_USAGE;
	if (o->svg && o->output)
		return err("--svg FILE is the output; -o is for the text reports"), CMD_USAGE;
	o->path = argv[optind];
	return CMD_GO_ON;
}

/* Output to standard output, or to a file that appears whole. */
static int write_out(const struct ropts *o, struct rep_input *in,
		     struct rep_model *m)
{
	struct outfile of;

	if (!o->output || !strcmp(o->output, "-"))
		return report(stdout, in, m, o) ? -1 : stdout_flush();
	if (outfile_open(&of, o->output))
		return -1;
	if (report(of.f, in, m, o)) {
		outfile_abort(&of);
		return -1;
	}
	if (ferror(of.f))
		return outfile_fail(&of);
	return outfile_commit(&of);
}

int cmd_report(int argc, char **argv)
{
	struct ropts o = { .limit = DEFAULT_LIMIT };
	struct strtab names;
	struct rep_model m;
	struct rep_input in;
	int rc = parse(argc, argv, &o);

	if (rc != CMD_GO_ON) {
		free(o.bins);
		return rc;
	}
	rc = 1;
	strtab_init(&names);
	rep_model_init(&m, &names);
	if (!rep_load(&in, o.path, o.bins, o.nbin, o.flags, &m)) {
		if (!in.prof.is_raw && o.nbin)
			warnx("%s is a compiler profile (%s): it names its functions, --binary is not used",
			      o.path, any_profile_kind(&in.prof));
		rc = write_out(&o, &in, &m) ? 1 : 0;
		rep_input_free(&in);
	}
	rep_model_free(&m);
	strtab_free(&names);
	free(o.bins);
	return rc;
}
