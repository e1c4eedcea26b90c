/* SPDX-License-Identifier: GPL-2.0-only */
/* The report's aggregation.  Three hash indexes (lib/hindex.h) over
 * growing arrays; a stamp per stack counts a function (or a pair) once
 * per stack, which is what "total" means under recursion (perf report
 * --children does the same). */
#include "funcs.h"
#include "demangle.h"
#include "../lib/hash.h"
#include "../lib/hindex.h"
#include "../lib/util.h"

#include <stdlib.h>
#include <string.h>

void rep_model_init(struct rep_model *m, struct strtab *names)
{
	memset(m, 0, sizeof(*m));
	m->names = names;
}

void rep_model_free(struct rep_model *m)
{
	free(m->funcs);
	free(m->edges);
	free(m->lines);
	hindex_free(&m->fidx);
	hindex_free(&m->eidx);
	hindex_free(&m->lidx);
	free(m->nolines);
	hindex_free(&m->nidx);
	memset(m, 0, sizeof(*m));
}

/* Functions, by interned name. */
static uint64_t func_key(const char *name)
{
	return hash_u64(HASH_INIT, (uintptr_t)name);
}

static uint64_t func_hash(const void *m, size_t i)
{
	return func_key(((const struct rep_model *)m)->funcs[i].name);
}

static int func_eq(const void *m, size_t i, const void *key)
{
	return ((const struct rep_model *)m)->funcs[i].name == key;
}

size_t rep_model_func_add(struct rep_model *m, const char *name)
{
	size_t *slot;

	hindex_reserve(&m->fidx, m->nfuncs, 256, func_hash, m);
	slot = hindex_find(&m->fidx, func_key(name), func_eq, m, name);
	if (!*slot) {
		grow(&m->funcs, &m->cap_funcs, m->nfuncs + 1, sizeof(*m->funcs));
		m->funcs[m->nfuncs] = (struct rep_func){ .name = name };
		*slot = ++m->nfuncs;
	}
	return *slot - 1;
}

long rep_model_func(const struct rep_model *m, const char *name)
{
	for (size_t i = 0; i < m->nfuncs; i++)
		if (!strcmp(m->funcs[i].name, name))
			return (long)i;
	return -1;
}

/* Pairs, by (caller, callee, inlined). */
static uint64_t edge_key(size_t caller, size_t callee, int inlined)
{
	return hash_u64(hash_u64(hash_u64(HASH_INIT, caller), callee),
			(uint64_t)inlined);
}

static uint64_t edge_hash(const void *m, size_t i)
{
	const struct rep_edge *e = &((const struct rep_model *)m)->edges[i];

	return edge_key(e->caller, e->callee, e->inlined);
}

static int edge_eq(const void *m, size_t i, const void *key)
{
	const struct rep_edge *e = &((const struct rep_model *)m)->edges[i];
	const struct rep_edge *k = key;

	return e->caller == k->caller && e->callee == k->callee &&
	       e->inlined == k->inlined;
}

struct rep_edge *rep_model_pair(struct rep_model *m, size_t caller,
				size_t callee, int inlined)
{
	struct rep_edge k = { caller, callee, inlined != 0, 0, 0 };
	size_t *slot;

	hindex_reserve(&m->eidx, m->nedges, 256, edge_hash, m);
	slot = hindex_find(&m->eidx, edge_key(caller, callee, k.inlined),
			   edge_eq, m, &k);
	if (!*slot) {
		grow(&m->edges, &m->cap_edges, m->nedges + 1, sizeof(*m->edges));
		m->edges[m->nedges] = k;
		*slot = ++m->nedges;
	}
	return &m->edges[*slot - 1];
}

/* Lines, by (function, file, line, discriminator). */
static uint64_t line_key(const struct rep_line *l)
{
	uint64_t h = hash_u64(HASH_INIT, (uintptr_t)l->func);

	h = hash_u64(hash_u64(h, (uintptr_t)l->file), l->line);
	return hash_u64(h, l->disc);
}

static uint64_t line_hash(const void *m, size_t i)
{
	return line_key(&((const struct rep_model *)m)->lines[i]);
}

static int line_eq(const void *m, size_t i, const void *key)
{
	const struct rep_line *l = &((const struct rep_model *)m)->lines[i];
	const struct rep_line *k = key;

	return l->func == k->func && l->file == k->file && l->line == k->line &&
	       l->disc == k->disc;
}

void rep_model_add_line(struct rep_model *m, const struct rep_line *k,
		     uint64_t count)
{
	size_t *slot;

	hindex_reserve(&m->lidx, m->nlines, 256, line_hash, m);
	slot = hindex_find(&m->lidx, line_key(k), line_eq, m, k);
	if (!*slot) {
		grow(&m->lines, &m->cap_lines, m->nlines + 1, sizeof(*m->lines));
		m->lines[m->nlines] = *k;
		m->lines[m->nlines].count = 0;
		*slot = ++m->nlines;
	}
	m->lines[*slot - 1].count = sat_add64(m->lines[*slot - 1].count, count);
}

/* No-line entries, by (reason, function). */
static uint64_t noline_key(enum rep_noline why, const char *func)
{
	return hash_u64(hash_u64(HASH_INIT, (uintptr_t)func), (uint64_t)why);
}

static uint64_t noline_hash(const void *m, size_t i)
{
	const struct rep_noline_ent *e = &((const struct rep_model *)m)->nolines[i];

	return noline_key(e->why, e->func);
}

static int noline_eq(const void *m, size_t i, const void *key)
{
	const struct rep_noline_ent *e = &((const struct rep_model *)m)->nolines[i];
	const struct rep_noline_ent *k = key;

	return e->why == k->why && e->func == k->func;
}

static void add_noline(struct rep_model *m, const struct rep_sframe *leaf,
		       uint64_t count)
{
	struct rep_noline_ent k = { leaf->noline, leaf->name, 0 };
	size_t *slot;

	m->no_line = sat_add64(m->no_line, count);
	if (k.why == REP_LINE_KNOWN)	/* a frame that says nothing */
		k.why = REP_NOLINE_NO_SYMBOL;
	m->no_line_by[k.why] = sat_add64(m->no_line_by[k.why], count);
	hindex_reserve(&m->nidx, m->nnolines, 64, noline_hash, m);
	slot = hindex_find(&m->nidx, noline_key(k.why, k.func), noline_eq, m, &k);
	if (!*slot) {
		grow(&m->nolines, &m->cap_nolines, m->nnolines + 1,
		     sizeof(*m->nolines));
		m->nolines[m->nnolines] = k;
		*slot = ++m->nnolines;
	}
	m->nolines[*slot - 1].count = sat_add64(m->nolines[*slot - 1].count, count);
}

void rep_model_add_stack(struct rep_model *m, const struct rep_sframe *f,
			 size_t n, uint64_t count)
{
	size_t prev = 0;

	if (!n || !count)
		return;
	m->stamp++;
	m->samples = sat_add64(m->samples, count);
	for (size_t i = 0; i < n; i++) {
		size_t fi = rep_model_func_add(m, f[i].name);

		if (m->funcs[fi].stamp != m->stamp) {
			m->funcs[fi].stamp = m->stamp;
			m->funcs[fi].total = sat_add64(m->funcs[fi].total, count);
		}
		if (i) {
			struct rep_edge *e = rep_model_pair(m, prev, fi, f[i].inlined);

			if (e->stamp != m->stamp) {
				e->stamp = m->stamp;
				e->count = sat_add64(e->count, count);
			}
		}
		if (i == n - 1)
			m->funcs[fi].self = sat_add64(m->funcs[fi].self, count);
		prev = fi;
	}
	if (f[n - 1].file) {
		struct rep_line k = { f[n - 1].name, f[n - 1].file, f[n - 1].line, 0, 0 };

		rep_model_add_line(m, &k, count);
	} else {
		add_noline(m, &f[n - 1], count);
	}
}

static void model_stack_cb(const struct rep_sframe *f, size_t n,
			   uint64_t count, void *arg)
{
	rep_model_add_stack(arg, f, n, count);
}

static void model_call_cb(const struct rep_sframe *site, size_t n,
			  const char *callee, uint64_t count, void *arg)
{
	struct rep_model *m = arg;
	size_t caller = rep_model_func_add(m, site[n - 1].name);
	struct rep_edge *e = rep_model_pair(m, caller,
					    rep_model_func_add(m, callee), 0);

	e->count = sat_add64(e->count, count);
}

void rep_model_add_raw(struct rep_model *m, struct rep_syms *s)
{
	m->walk = rep_walk_raw(s, model_stack_cb, m, &m->skipped);
	m->has_total = m->walk == REP_WALK_STACKS;
	if (!m->has_total)
		m->calls = rep_walk_calls(s, model_call_cb, m);
}

/* qsort has no argument: the model being sorted. */
static const struct rep_model *sort_model;
static int sort_total;

static int cmp_func(const void *a, const void *b)
{
	const struct rep_func *x = &sort_model->funcs[*(const size_t *)a];
	const struct rep_func *y = &sort_model->funcs[*(const size_t *)b];
	uint64_t vx = sort_total ? x->total : x->self;
	uint64_t vy = sort_total ? y->total : y->self;

	if (vx != vy)
		return vx > vy ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return strcmp(x->name, y->name);
}

size_t *rep_model_order(const struct rep_model *m, int by_total)
{
	size_t *o = xmalloc((m->nfuncs + 1) * sizeof(*o));

	for (size_t i = 0; i < m->nfuncs; i++)
		o[i] = i;
	sort_model = m;
	sort_total = by_total;
	sort(o, m->nfuncs, sizeof(*o), cmp_func);
	return o;
}

static int cmp_line(const void *a, const void *b)
{
	const struct rep_line *x = a, *y = b;
	int c;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if ((c = strcmp(x->func, y->func)))
		return c;
	if (x->file != y->file)
		return !x->file ? -1 : !y->file ? 1 : strcmp(x->file, y->file);
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->disc < y->disc ? -1 : x->disc > y->disc;
}

/* Sorting moves the lines: their index is rebuilt at the next add. */
void rep_model_sort_lines(struct rep_model *m)
{
	sort(m->lines, m->nlines, sizeof(*m->lines), cmp_line);
	free(m->lidx.slot);
	memset(&m->lidx, 0, sizeof(m->lidx));
}

static int cmp_edge(const void *a, const void *b)
{
	const struct rep_edge *x = &sort_model->edges[*(const size_t *)a];
	const struct rep_edge *y = &sort_model->edges[*(const size_t *)b];

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (sort_total)		/* callers: by caller name */
		return strcmp(sort_model->funcs[x->caller].name,
			      sort_model->funcs[y->caller].name);
	return strcmp(sort_model->funcs[x->callee].name,
		      sort_model->funcs[y->callee].name);
}

size_t rep_model_pairs(const struct rep_model *m, size_t fn, int callers,
		       size_t **out)
{
	size_t n = 0;

	*out = xmalloc((m->nedges + 1) * sizeof(**out));
	for (size_t i = 0; i < m->nedges; i++)
		if ((callers ? m->edges[i].callee : m->edges[i].caller) == fn)
			(*out)[n++] = i;
	sort_model = m;
	sort_total = callers;
	sort(*out, n, sizeof(**out), cmp_edge);
	return n;
}

static int cmp_noline(const void *a, const void *b)
{
	const struct rep_noline_ent *x = a, *y = b;

	if (x->why != y->why)
		return x->why < y->why ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->func, y->func);
}

/* Sorting moves the entries: their index is rebuilt at the next add. */
void rep_model_sort_nolines(struct rep_model *m)
{
	sort(m->nolines, m->nnolines, sizeof(*m->nolines), cmp_noline);
	hindex_free(&m->nidx);
	memset(&m->nidx, 0, sizeof(m->nidx));
}

static const char *const noline_text[REP_NOLINE_MAX][2] = {
	[REP_LINE_KNOWN] = { "line known", "known" },
	[REP_NOLINE_KERNEL] = { "in the kernel", "kernel" },
	[REP_NOLINE_UNKNOWN] = { "in no known mapping", "unknown" },
	[REP_NOLINE_NO_BINARY] = { "in objects without a binary (give --binary)", "no_binary" },
	[REP_NOLINE_NO_SEGMENT] = { "outside the binary's loadable segments (binary mismatch?)", "no_segment" },
	[REP_NOLINE_NO_SYMBOL] = { "in code without a function or symbol (PLT, stripped code)", "no_symbol" },
	[REP_NOLINE_NO_DEBUG] = { "in functions without debug info (build with -g, or install their debug file)", "no_debug_info" },
	[REP_NOLINE_LINE0] = { "at instructions the line table gives line 0 or no row (compiler-generated code)", "line_0" },
};

const char *rep_noline_text(enum rep_noline why)
{
	return noline_text[why][0];
}

const char *rep_noline_key(enum rep_noline why)
{
	return noline_text[why][1];
}
