/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof report: where the samples of a profile went, for people (and
 * scripts: --json; flame graphs: --folded).  Functions with self and
 * total samples, inlined code credited to the inlined function, C++
 * names demangled, the hottest source lines, one function's callers and
 * callees.  The aggregation is report/; this file is options and
 * printing. */
#include "cmds.h"
#include "../lib/escape.h"
#include "../lib/util.h"
#include "../raw/signal.h"
#include "../report/flame.h"
#include "../report/folded.h"
#include "../report/json.h"
#include "../report/load.h"
#include "../report/source.h"

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

static double pct(uint64_t v, uint64_t all)
{
	return all ? 100.0 * (double)v / (double)all : 0;
}

static void header(FILE *out, const struct rep_input *in,
		   const struct rep_model *m)
{
	char why[512];
	const char *first;
	size_t n;

	if (!in->prof.is_raw) {
		fprintf(out, "# %s: %s profile, %" PRIu64 " samples (the functions' TOTALs)\n",
			in->path, any_profile_kind(&in->prof), m->samples);
		return;
	}
	if (m->walk == REP_WALK_STACKS)
		fprintf(out, "# %s: raw profile, %" PRIu64 " samples in stacks\n",
			in->path, m->samples);
	else if (m->walk == REP_WALK_IPS)
		fprintf(out, "# %s: raw profile, %" PRIu64 " samples; no stacks: total samples (with callees) are not known, self only\n",
			in->path, m->samples);
	else
		fprintf(out, "# %s: raw profile of %s, %" PRIu64 " instruction executions (each instruction of each range, decoded); no stacks: totals are not known, self only\n",
			in->path, raw_signal_of(&in->prof.raw) == SIGNAL_EXACT ?
			"exact counts" : "branch records", m->samples);
	if (m->skipped)
		fprintf(out, "# %" PRIu64 " range executions in objects without a binary are not counted: give --binary\n",
			m->skipped);
	if (raw_get_counter(&in->prof.raw, CNT_LOST))
		fprintf(out, "# %" PRIu64 " samples were lost while recording\n",
			raw_get_counter(&in->prof.raw, CNT_LOST));
	if (raw_unattributed(&in->prof.raw, why, sizeof(why))) {
		fprintf(out, "# samples outside the objects' code (%s): ",
			m->has_total ? "in the stacks as [kernel], [unknown]" :
			"not in this report");
		esc_fputs(why, 0, out);
		putc('\n', out);
	}
	n = rep_syms_unnamed(in->syms, &first);
	if (n) {
		fprintf(out, "# %zu object%s without a binary (%s", n,
			n > 1 ? "s" : "", n > 1 ? "first " : "");
		esc_fputs(first ? first : "?", 0, out);
		fprintf(out, "): code named [PATH]; give --binary\n");
	}
}

/* " [inlined into a, b]" for a function that has inlined samples. */
static void inlined_into(FILE *out, const struct rep_model *m, size_t fn,
			 int json)
{
	size_t *e, n = rep_model_pairs(m, fn, 1, &e), k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct rep_edge *p = &m->edges[e[i]];

		if (!p->inlined)
			continue;
		if (json) {
			fputs(k++ ? ", " : "", out);
			json_str(out, m->funcs[p->caller].name);
		} else if (k++ < 3) {
			fputs(k > 1 ? ", " : "  [inlined into ", out);
			esc_fputs(m->funcs[p->caller].name, 0, out);
		}
	}
	if (!json && k)
		fprintf(out, "%s]", k > 3 ? ", ..." : "");
	free(e);
}

static size_t count_funcs(const struct rep_model *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nfuncs; i++)
		n += m->funcs[i].self || m->funcs[i].total;
	return n;
}

static size_t shown(size_t n, long limit)
{
	return limit && (size_t)limit < n ? (size_t)limit : n;
}

static void text_funcs(FILE *out, const struct rep_model *m,
		       const struct ropts *o)
{
	size_t *ord = rep_model_order(m, o->by_total), n = count_funcs(m);

	fprintf(out, "# functions by %s samples (%zu of %zu)\n",
		o->by_total ? "total" : "self", shown(n, o->limit), n);
	fprintf(out, m->has_total ? "#%11s %7s %11s %7s  function\n" :
		"#%11s %7s  function\n", "self", "%", "total", "%");
	for (size_t i = 0; i < shown(n, o->limit); i++) {
		const struct rep_func *f = &m->funcs[ord[i]];

		fprintf(out, " %11" PRIu64 " %6.2f%%", f->self, pct(f->self, m->samples));
		if (m->has_total)
			fprintf(out, " %11" PRIu64 " %6.2f%%", f->total,
				pct(f->total, m->samples));
		fputs("  ", out);
		esc_fputs(f->name, 0, out);
		inlined_into(out, m, ord[i], 0);
		putc('\n', out);
	}
	free(ord);
}

static size_t count_lines(const struct rep_model *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nlines; i++)
		n += m->lines[i].count > 0;
	return n;
}

static void line_where(FILE *out, const struct rep_line *l)
{
	esc_fputs(l->file ? l->file : l->func, 0, out);
	if (l->file)
		fprintf(out, ":%" PRIu32, l->line);
	else if (l->disc)
		fprintf(out, ":+%" PRIu32 ".%" PRIu32, l->line, l->disc);
	else
		fprintf(out, ":+%" PRIu32, l->line);
}

static void text_lines(FILE *out, struct rep_model *m, const struct ropts *o,
		       struct rep_sources *src)
{
	size_t n = count_lines(m);

	rep_model_sort_lines(m);
	fprintf(out, "\n# source lines by samples (%zu of %zu", shown(n, o->limit), n);
	if (m->no_line)
		fprintf(out, "; %" PRIu64 " samples have no line: why, below", m->no_line);
	fprintf(out, ")\n");
	if (m->from_fs)
		fprintf(out, "# a compiler profile has line offsets from the function's first line (+N.discriminator), not files\n");
	fprintf(out, "#%11s %7s  %s  function\n", "samples", "%",
		m->from_fs ? "function:+offset" : "file:line");
	for (size_t i = 0; i < shown(n, o->limit); i++) {
		const struct rep_line *l = &m->lines[i];
		const char *text;

		fprintf(out, " %11" PRIu64 " %6.2f%%  ", l->count, pct(l->count, m->samples));
		line_where(out, l);
		fputs("  ", out);
		esc_fputs(l->func, 0, out);
		putc('\n', out);
		if (!o->source || !l->file)
			continue;
		text = rep_source_line(src, l->file, l->line);
		fprintf(out, "%21s| %s", "", text ? "" : "(source not found: ");
		esc_fputs(text ? text : l->file, text ? ESC_TABS : 0, out);
		fputs(text ? "\n" : ")\n", out);
	}
}

#define NOLINE_FUNCS 5	/* functions listed per reason */

/* The reasons that have samples into order[] (most samples first),
 * how many; first[why] is where the sorted no-line entries of why
 * begin (they end at first[why + 1]). */
static int noline_order(struct rep_model *m, int *order, size_t *first)
{
	int n = 0;

	rep_model_sort_nolines(m);
	for (int why = 0, i = 0; why <= REP_NOLINE_MAX; why++) {
		first[why] = (size_t)i;
		while ((size_t)i < m->nnolines && (int)m->nolines[i].why == why)
			i++;
	}
	for (int why = 0; why < REP_NOLINE_MAX; why++) {
		int k = n++;

		if (!m->no_line_by[why]) {
			n--;
			continue;
		}
		for (; k > 0 && m->no_line_by[order[k - 1]] < m->no_line_by[why]; k--)
			order[k] = order[k - 1];
		order[k] = why;
	}
	return n;
}

/* A reason whose frames are all named after it: no functions listed. */
static int noline_has_funcs(int why)
{
	return why != REP_NOLINE_KERNEL && why != REP_NOLINE_UNKNOWN;
}

/* The samples that have no line, by reason (most first), each with its
 * functions (the first NOLINE_FUNCS, most samples first). */
static void text_nolines(FILE *out, struct rep_model *m)
{
	int order[REP_NOLINE_MAX], n;
	size_t first[REP_NOLINE_MAX + 1];

	if (!m->no_line)
		return;
	n = noline_order(m, order, first);
	fprintf(out, "\n# the %" PRIu64 " samples without a source line (%.2f%%), by reason and function\n",
		m->no_line, pct(m->no_line, m->samples));
	fprintf(out, "#%11s %7s  %s\n", "samples", "%", "reason / function");
	for (int r = 0; r < n; r++) {
		int why = order[r];
		size_t k, end = first[why + 1];
		uint64_t rest = 0;

		fprintf(out, " %11" PRIu64 " %6.2f%%  %s\n", m->no_line_by[why],
			pct(m->no_line_by[why], m->samples), rep_noline_text(why));
		if (!noline_has_funcs(why))
			continue;
		for (k = first[why]; k < end && k - first[why] < NOLINE_FUNCS; k++) {
			fprintf(out, " %11" PRIu64 " %6.2f%%      ", m->nolines[k].count,
				pct(m->nolines[k].count, m->samples));
			esc_fputs(m->nolines[k].func, 0, out);
			putc('\n', out);
		}
		for (size_t i = k; i < end; i++)
			rest = rep_sat_add(rest, m->nolines[i].count);
		if (k < end)
			fprintf(out, " %11" PRIu64 " %6.2f%%      (%zu more function%s)\n",
				rest, pct(rest, m->samples), end - k, end - k > 1 ? "s" : "");
	}
}

/* The function whose name the report prints (escaped) as name, or -1. */
static long escaped_func(const struct rep_model *m, const char *name)
{
	long fn = -1;

	for (size_t i = 0; i < m->nfuncs && fn < 0; i++) {
		char *e;

		if (!esc_needed(m->funcs[i].name, 0))
			continue;
		e = esc_strdup(m->funcs[i].name, 0);
		if (!strcmp(e, name))
			fn = (long)i;
		free(e);
	}
	return fn;
}

/* The function the user named: exactly (as the report prints it), else the one whose demangled
 * name is NAME(...).  -1 after a message if none or several. */
static long find_function(const struct rep_model *m, const char *name,
			  const char *path)
{
	long fn = rep_model_func(m, name), found = -1, several = 0;
	size_t len = strlen(name);

	if (fn >= 0 || (fn = escaped_func(m, name)) >= 0)
		return fn;
	for (size_t i = 0; i < m->nfuncs; i++) {
		if (strncmp(m->funcs[i].name, name, len) || m->funcs[i].name[len] != '(')
			continue;
		if (found >= 0)
			several = 1;
		found = (long)i;
	}
	if (found < 0)
		err("%s has no function %s with samples (pgoprof report lists them; --no-demangle for linkage names)",
		    path, name);
	else if (several)
		err("%s has several functions %s(...): give the whole name, as the report prints it",
		    path, name);
	return several ? -1 : found;
}

/* What a pair's count is: samples with the pair in their stack; without
 * stacks, the instruction executions (or samples) of inlined code and,
 * for a call, the number of calls (rep_walk_calls). */
static const char *pair_unit(const struct rep_model *m, const struct rep_edge *p)
{
	if (m->from_fs || m->has_total)
		return "samples";
	if (!p->inlined)
		return "calls";
	return m->walk == REP_WALK_RANGES ? "executions" : "samples";
}

/* The base of a pair's percentage: all samples; calls, all the calls of
 * the list. */
static uint64_t pair_base(const struct rep_model *m, const size_t *e, size_t n)
{
	uint64_t calls = 0;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(pair_unit(m, &m->edges[e[i]]), "calls"))
			calls = rep_sat_add(calls, m->edges[e[i]].count);
	return calls;
}

static void text_pairs(FILE *out, const struct rep_model *m, size_t fn,
		       int callers)
{
	size_t *e, n = rep_model_pairs(m, fn, callers, &e);
	uint64_t calls = pair_base(m, e, n);

	fprintf(out, "\n# %s (%zu): %s\n", callers ? "callers" : "callees", n,
		m->from_fs ? "call target counts; inlined: the instance's TOTAL" :
		m->has_total ? "samples with the pair in their stack" :
		callers ? "calls from each (% of the calls into it); inlined: the counts of its code inlined there" :
		"calls to each (% of its calls); inlined: the counts of the code inlined here");
	fprintf(out, "#%11s %7s  %s\n", m->has_total || m->from_fs ? "samples" : "count",
		"%", callers ? "caller" : "callee");
	for (size_t i = 0; i < n; i++) {
		const struct rep_edge *p = &m->edges[e[i]];
		int call = !strcmp(pair_unit(m, p), "calls");

		fprintf(out, " %11" PRIu64 " %6.2f%%  ", p->count,
			pct(p->count, call ? calls : m->samples));
		esc_fputs(m->funcs[callers ? p->caller : p->callee].name, 0, out);
		fputs(p->inlined ? " (inlined)\n" : call ? " (calls)\n" : "\n", out);
	}
	free(e);
}

static void text_function(FILE *out, const struct rep_model *m, size_t fn)
{
	const struct rep_func *f = &m->funcs[fn];

	fputs("# function ", out);
	esc_fputs(f->name, 0, out);
	fprintf(out, ": self %" PRIu64 " (%.2f%%)", f->self,
		pct(f->self, m->samples));
	if (m->has_total)
		fprintf(out, ", total %" PRIu64 " (%.2f%%)\n", f->total,
			pct(f->total, m->samples));
	else if (m->calls)
		fprintf(out, "; total not known (no stacks): callers and callees are the calls of the branch records (%" PRIu64 " calls) and the inlined code\n",
			m->calls);
	else
		fprintf(out, "; total not known (no stacks): callers are the functions it is inlined into\n");
	text_pairs(out, m, fn, 1);
	text_pairs(out, m, fn, 0);
}

/* ---- JSON (docs/report.md, "JSON schema") ---- */

static void json_count(FILE *out, const char *key, uint64_t v, uint64_t all)
{
	fprintf(out, "\"%s\": %" PRIu64 ", \"%s_pct\": %.4f", key, v, key, pct(v, all));
}

static void json_header(FILE *out, const struct rep_input *in,
			const struct rep_model *m, const struct ropts *o)
{
	const struct raw_profile *p = in->prof.is_raw ? &in->prof.raw : NULL;
	char why[8];

	fprintf(out, "{\n  \"schema\": \"pgoprof-report/1\",\n  \"profile\": ");
	json_str(out, in->path);
	fprintf(out, ",\n  \"kind\": ");
	json_str(out, any_profile_kind(&in->prof));
	fprintf(out, ",\n  \"stacks\": %s,\n  \"total_known\": %s,\n  \"samples\": %" PRIu64
		",\n  \"lost\": %" PRIu64 ",\n  \"unattributed\": %" PRIu64
		",\n  \"no_line\": %" PRIu64 ",\n  \"counts\": \"%s\",\n  \"ranges_not_counted\": %" PRIu64
		",\n  \"sort\": \"%s\"",
		p && p->stacks.n ? "true" : "false",
		m->has_total ? "true" : "false", m->samples,
		p ? raw_get_counter(p, CNT_LOST) : 0,
		p ? raw_unattributed(p, why, sizeof(why)) : 0, m->no_line,
		p && m->walk == REP_WALK_RANGES ? "executions" : "samples", m->skipped,
		o->by_total ? "total" : "self");
}

static void json_funcs(FILE *out, const struct rep_model *m,
		       const struct ropts *o)
{
	size_t *ord = rep_model_order(m, o->by_total), n = count_funcs(m);

	fprintf(out, ",\n  \"functions\": [");
	for (size_t i = 0; i < shown(n, o->limit); i++) {
		const struct rep_func *f = &m->funcs[ord[i]];

		fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
		json_str(out, f->name);
		fprintf(out, ", ");
		json_count(out, "self", f->self, m->samples);
		if (m->has_total) {
			fprintf(out, ", ");
			json_count(out, "total", f->total, m->samples);
		} else {
			fprintf(out, ", \"total\": null, \"total_pct\": null");
		}
		fprintf(out, ", \"inlined_into\": [");
		inlined_into(out, m, ord[i], 1);
		fprintf(out, "]}");
	}
	fprintf(out, "\n  ]");
	free(ord);
}

static void json_lines(FILE *out, struct rep_model *m, const struct ropts *o,
		       struct rep_sources *src)
{
	size_t n = count_lines(m);

	rep_model_sort_lines(m);
	fprintf(out, ",\n  \"lines\": [");
	for (size_t i = 0; i < shown(n, o->limit); i++) {
		const struct rep_line *l = &m->lines[i];

		fprintf(out, "%s\n    {\"function\": ", i ? "," : "");
		json_str(out, l->func);
		fprintf(out, ", \"file\": ");
		json_str(out, l->file);
		fprintf(out, ", \"line\": %" PRIu32 ", \"line_is_offset\": %s, \"discriminator\": %" PRIu32 ", ",
			l->line, l->file ? "false" : "true", l->disc);
		json_count(out, "samples", l->count, m->samples);
		if (o->source) {
			fprintf(out, ", \"source\": ");
			json_str(out, l->file ? rep_source_line(src, l->file, l->line) : NULL);
		}
		fprintf(out, "}");
	}
	fprintf(out, "\n  ]");
}

static void json_nolines(FILE *out, struct rep_model *m)
{
	int order[REP_NOLINE_MAX], n;
	size_t first[REP_NOLINE_MAX + 1];

	n = noline_order(m, order, first);
	fprintf(out, ",\n  \"no_line_reasons\": [");
	for (int r = 0; r < n; r++) {
		int why = order[r];

		fprintf(out, "%s\n    {\"reason\": \"%s\", ", r ? "," : "",
			rep_noline_key(why));
		json_count(out, "samples", m->no_line_by[why], m->samples);
		fprintf(out, ", \"functions\": [");
		for (size_t k = first[why]; noline_has_funcs(why) && k < first[why + 1] &&
		     k - first[why] < NOLINE_FUNCS; k++) {
			fprintf(out, "%s{\"name\": ", k > first[why] ? ", " : "");
			json_str(out, m->nolines[k].func);
			fprintf(out, ", \"samples\": %" PRIu64 "}", m->nolines[k].count);
		}
		fprintf(out, "]}");
	}
	fprintf(out, "\n  ]");
}

static void json_pairs(FILE *out, const struct rep_model *m, size_t fn,
		       int callers)
{
	size_t *e, n = rep_model_pairs(m, fn, callers, &e);
	uint64_t calls = pair_base(m, e, n);

	fprintf(out, ",\n    \"%s\": [", callers ? "callers" : "callees");
	for (size_t i = 0; i < n; i++) {
		const struct rep_edge *p = &m->edges[e[i]];

		fprintf(out, "%s\n      {\"name\": ", i ? "," : "");
		json_str(out, m->funcs[callers ? p->caller : p->callee].name);
		fprintf(out, ", ");
		json_count(out, "samples", p->count,
			   strcmp(pair_unit(m, p), "calls") ? m->samples : calls);
		fprintf(out, ", \"unit\": \"%s\", \"inlined\": %s}",
			pair_unit(m, p), p->inlined ? "true" : "false");
	}
	fprintf(out, "\n    ]");
	free(e);
}

static void json_function(FILE *out, const struct rep_model *m, size_t fn)
{
	const struct rep_func *f = &m->funcs[fn];

	fprintf(out, ",\n  \"function\": {\n    \"name\": ");
	json_str(out, f->name);
	fprintf(out, ",\n    ");
	json_count(out, "self", f->self, m->samples);
	if (m->has_total) {
		fprintf(out, ",\n    ");
		json_count(out, "total", f->total, m->samples);
	} else {
		fprintf(out, ",\n    \"total\": null, \"total_pct\": null");
	}
	json_pairs(out, m, fn, 1);
	json_pairs(out, m, fn, 0);
	fprintf(out, "\n  }");
}

/* ---- the command ---- */

/* The named stacks of a raw profile, or -1 with a message.  Without
 * stacks, those estimated from the branch records' calls (*estimated
 * set, said on stderr). */
static int stacks_of(const struct rep_input *in, struct rep_folded_set *f,
		     const char *what, int *estimated)
{
	*estimated = 0;
	if (!in->prof.is_raw)
		return err("%s is a compiler profile (%s): %s need a raw profile with stacks (pgoprof record, or pgoprof import of perf record -g)",
			   in->path, any_profile_kind(&in->prof), what);
	if (!rep_folded_build(in->syms, f))
		return 0;
	if (rep_folded_estimate(in->syms, f))
		return err("%s has no stacks (a STACKS section) and no calls in branch records: %s need them; record in stack mode (pgoprof record), or import perf record -g",
			   in->path, what);
	if (!f->n) {
		rep_folded_free(f);
		return err("%s: no stack to draw: its ranges are in objects without a binary; give --binary",
			   in->path);
	}
	*estimated = 1;
	warnx("%s has no stacks: %s estimated from the calls of its branch records, each call of a function taken to cost the same (docs/report.md)",
	      in->path, what);
	return 0;
}

static int folded(FILE *out, const struct rep_input *in)
{
	struct rep_folded_set f;
	int estimated;

	if (stacks_of(in, &f, "folded stacks", &estimated))
		return -1;
	rep_folded_write(&f, out);
	rep_folded_free(&f);
	return 0;
}

/* --svg: the folded stacks drawn by report/flame.c. */
static int svg(const struct rep_input *in, const char *path)
{
	struct rep_folded_set f;
	struct flame_stack *v;
	char title[512];
	int rc, estimated;

	if (stacks_of(in, &f, "flame graphs", &estimated))
		return -1;
	v = xcalloc(f.n ? f.n : 1, sizeof(*v));
	for (size_t i = 0; i < f.n; i++)
		v[i] = (struct flame_stack){ f.v[i].names, (uint32_t)f.v[i].depth,
					     f.v[i].count };
	snprintf(title, sizeof(title), "pgoprof report: %s%s", in->path,
		 estimated ? " (stacks estimated from call counts)" : "");
	rc = flame_write_svg(path, title, v, f.n);
	free(v);
	rep_folded_free(&f);
	return rc;
}

static int report(FILE *out, const struct rep_input *in, struct rep_model *m,
		  const struct ropts *o)
{
	struct rep_sources *src;
	long fn = -1;

	if (!m->samples && m->skipped)	/* never an empty report, status 0 */
		return err("%s: nothing to report: its %" PRIu64 " range executions are in objects without a binary; give --binary",
			   in->path, m->skipped);
	if (!m->samples)
		return err("%s: nothing to report: the profile has no samples", in->path);
	if (o->folded)
		return folded(out, in);
	if (o->svg)
		return svg(in, o->svg);
	if (o->by_total && !m->has_total)
		return err("--sort total: %s has no stacks, so total samples are not known; sort by self",
			   in->path);
	if (o->function && (fn = find_function(m, o->function, in->path)) < 0)
		return -1;
	src = o->source ? rep_sources_new() : NULL;
	if (o->json) {
		json_header(out, in, m, o);
		if (fn >= 0) {
			json_function(out, m, (size_t)fn);
		} else {
			json_funcs(out, m, o);
			json_lines(out, m, o, src);
			json_nolines(out, m);
		}
		fprintf(out, "\n}\n");
	} else {
		header(out, in, m);
		if (fn >= 0) {
			text_function(out, m, (size_t)fn);
		} else {
			text_funcs(out, m, o);
			text_lines(out, m, o, src);
			text_nolines(out, m);
		}
	}
	rep_sources_free(src);
	return 0;
}

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
			if (strcmp(optarg, "self") && strcmp(optarg, "total"))
				return err("--sort %s: give self or total", optarg);
			o->by_total = !strcmp(optarg, "total");
			break;
		case 'n':
			o->limit = strtol(optarg, &end, 10);
			if (!*optarg || *end || o->limit < 0)
				return err("--limit %s: give a count, 0 (all) or more", optarg);
			break;
		case 'f': o->function = optarg; break;
		case 'o': o->output = optarg; break;
		case O_SOURCE: o->source = 1; break;
		case O_NO_DEMANGLE: o->flags |= REP_NO_DEMANGLE; break;
		case O_JSON: o->json = 1; break;
		case O_FOLDED: o->folded = 1; o->flags |= REP_OFFSETS; break;
		case O_SVG: o->svg = optarg; o->flags |= REP_OFFSETS; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return -1;
	}
	if ((o->folded || o->svg) && (o->json || o->function || o->source || o->by_total))
		return err("--folded and --svg write stacks only: not with --json, --function, --source or --sort");
	if (o->folded && o->svg)
		return err("--folded and --svg: give one (the SVG draws the folded stacks)");
	if (o->svg && o->output)
		return err("--svg FILE is the output; -o is for the text reports");
	o->path = argv[optind];
	return 0;
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
	int rc = 1;

	if (parse(argc, argv, &o)) {
		free(o.bins);
		return 2;
	}
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
