/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof report's output: text, JSON (docs/report.md), folded stacks
 * and the flame graph, from a model that report/funcs.c built. */
#include "render.h"
#include "flame.h"
#include "folded.h"
#include "json.h"
#include "../lib/escape.h"
#include "../lib/util.h"
#include "../raw/signal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- text ---- */

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
		       const struct rep_view *o)
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

static void text_lines(FILE *out, struct rep_model *m, const struct rep_view *o)
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
		if (!o->src || !l->file)
			continue;
		text = rep_source_line(o->src, l->file, l->line);
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
			rest = sat_add64(rest, m->nolines[i].count);
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

long rep_view_function(const struct rep_model *m, const char *name,
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
			calls = sat_add64(calls, m->edges[e[i]].count);
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

void rep_render_text(FILE *out, const struct rep_view *v)
{
	header(out, v->in, v->m);
	if (v->fn >= 0) {
		text_function(out, v->m, (size_t)v->fn);
		return;
	}
	text_funcs(out, v->m, v);
	text_lines(out, v->m, v);
	text_nolines(out, v->m);
}

/* ---- JSON (docs/report.md, "JSON schema") ---- */

static void json_count(FILE *out, const char *key, uint64_t v, uint64_t all)
{
	fprintf(out, "\"%s\": %" PRIu64 ", \"%s_pct\": %.4f", key, v, key, pct(v, all));
}

static void json_header(FILE *out, const struct rep_input *in,
			const struct rep_model *m, const struct rep_view *o)
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
		       const struct rep_view *o)
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

static void json_lines(FILE *out, struct rep_model *m, const struct rep_view *o)
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
		if (o->src) {
			fprintf(out, ", \"source\": ");
			json_str(out, l->file ? rep_source_line(o->src, l->file, l->line) : NULL);
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

void rep_render_json(FILE *out, const struct rep_view *v)
{
	json_header(out, v->in, v->m, v);
	if (v->fn >= 0) {
		json_function(out, v->m, (size_t)v->fn);
	} else {
		json_funcs(out, v->m, v);
		json_lines(out, v->m, v);
		json_nolines(out, v->m);
	}
	fprintf(out, "\n}\n");
}

/* ---- folded stacks and the flame graph ---- */

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

int rep_render_folded(FILE *out, const struct rep_input *in)
{
	struct rep_folded_set f;
	int estimated;

	if (stacks_of(in, &f, "folded stacks", &estimated))
		return -1;
	rep_folded_write(&f, out);
	rep_folded_free(&f);
	return 0;
}

int rep_render_svg(const struct rep_input *in, const char *path)
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
