/* SPDX-License-Identifier: GPL-2.0-only */
/* Folded stacks from a raw profile's STACKS section. */
#include "folded.h"
#include "../lib/escape.h"
#include "../lib/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A stack of n names in s (root first), filled by the caller through
 * the returned slots (valid until the next push). */
static const char **push_stack(struct rep_folded_set *s, size_t n,
			       uint64_t count)
{
	struct rep_folded *st;

	grow(&s->pool, &s->cap_pool, s->npool + n, sizeof(*s->pool));
	grow(&s->v, &s->cap, s->n + 1, sizeof(*s->v));
	st = &s->v[s->n++];
	/* The pool moves as it grows: an offset until the end. */
	st->names = (const char **)(uintptr_t)s->npool;
	st->depth = n;
	st->count = count;
	s->npool += n;
	return s->pool + s->npool - n;
}

static void add_cb(const struct rep_sframe *f, size_t n, uint64_t count,
		   void *arg)
{
	const char **names;

	if (!n || !count)
		return;
	names = push_stack(arg, n, count);
	for (size_t i = 0; i < n; i++)
		names[i] = f[i].name;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct rep_folded *x = a, *y = b;

	for (size_t i = 0; i < x->depth && i < y->depth; i++) {
		int c = strcmp(x->names[i], y->names[i]);

		if (c)
			return c;
	}
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

/* The stacks' names from their pool offsets; sorted, equal ones added. */
static void finish(struct rep_folded_set *out)
{
	size_t k = 0;

	for (size_t i = 0; i < out->n; i++)
		out->v[i].names = out->pool + (uintptr_t)out->v[i].names;
	sort(out->v, out->n, sizeof(*out->v), cmp_stack);
	out->samples = 0;
	for (size_t i = 0; i < out->n; i++) {
		out->samples = sat_add64(out->samples, out->v[i].count);
		if (k && !cmp_stack(&out->v[k - 1], &out->v[i]))
			out->v[k - 1].count = sat_add64(out->v[k - 1].count,
						      out->v[i].count);
		else
			out->v[k++] = out->v[i];
	}
	out->n = k;
}

int rep_folded_build(struct rep_syms *s, struct rep_folded_set *out)
{
	uint64_t skipped;

	memset(out, 0, sizeof(*out));
	if (!rep_syms_has_stacks(s))
		return -1;
	rep_walk_raw(s, add_cb, out, &skipped);
	finish(out);
	return 0;
}

void rep_folded_free(struct rep_folded_set *f)
{
	free(f->v);
	free(f->pool);
	memset(f, 0, sizeof(*f));
}

int rep_folded_write(const struct rep_folded_set *f, FILE *out)
{
	for (size_t i = 0; i < f->n; i++) {
		for (size_t j = 0; j < f->v[i].depth; j++) {
			if (j)
				putc(';', out);
			esc_fputs(f->v[i].names[j], ESC_FOLDED, out);
		}
		fprintf(out, " %" PRIu64 "\n", f->v[i].count);
	}
	return ferror(out) ? -1 : 0;
}

/* ---- Stacks estimated from call counts (no STACKS section) ---- */

/* The calls into callee from one call site: the site's names (its inline
 * chain, root first) in est.sites. */
struct call_in {
	const char *callee;	/* interned: compared by pointer */
	size_t first, n;	/* in est.sites */
	uint64_t count;
};

struct est {
	struct rep_folded_set *out;
	struct call_in *calls;
	size_t ncalls, cap_calls;
	const char **sites;
	size_t nsites, cap_sites;
	const char **chain;	/* the stack being built, leaf first */
	size_t depth, cap_chain;
	const char **roots;	/* the functions on it, one per level */
	size_t nroots, cap_roots;
	double min;		/* below: not followed to its callers */
};

static void call_cb(const struct rep_sframe *site, size_t n,
		    const char *callee, uint64_t count, void *arg)
{
	struct est *e = arg;

	grow(&e->sites, &e->cap_sites, e->nsites + n, sizeof(*e->sites));
	grow(&e->calls, &e->cap_calls, e->ncalls + 1, sizeof(*e->calls));
	e->calls[e->ncalls++] = (struct call_in){ callee, e->nsites, n, count };
	for (size_t i = 0; i < n; i++)
		e->sites[e->nsites++] = site[i].name;
}

static int cmp_call(const void *a, const void *b)
{
	const struct call_in *x = a, *y = b;

	return (uintptr_t)x->callee < (uintptr_t)y->callee ? -1 :
	       (uintptr_t)x->callee > (uintptr_t)y->callee;
}

static void emit(struct est *e, const char *mark, double w)
{
	uint64_t count = w >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)(w + 0.5);
	const char **names;
	size_t n = e->depth + (mark != NULL);

	if (!count)
		return;
	names = push_stack(e->out, n, count);
	if (mark)
		*names++ = mark;
	for (size_t i = 0; i < e->depth; i++)
		names[i] = e->chain[e->depth - 1 - i];
}

static int on_stack(const struct est *e, const char *fn)
{
	for (size_t i = 0; i < e->nroots; i++)
		if (e->roots[i] == fn)
			return 1;
	return 0;
}

#define EST_MAX_LEVELS 64
#define EST_CUT "[callers below 0.01%]"

/* Share weight w of the stack in e->chain among the callers of its root
 * function, in proportion to their calls (the callers already on the
 * stack, recursion, left out), and so on up: gprof's assumption that
 * every call of a function costs the same. */
static void expand(struct est *e, double w)
{
	struct call_in key = { e->chain[e->depth - 1], 0, 0, 0 };
	const struct call_in *c = bsearch(&key, e->calls, e->ncalls,
					  sizeof(key), cmp_call);
	uint64_t sum = 0;
	double cut = 0;
	size_t lo, hi;

	if (!c || e->nroots >= EST_MAX_LEVELS) {
		emit(e, c ? EST_CUT : NULL, w);
		return;
	}
	for (lo = (size_t)(c - e->calls); lo && e->calls[lo - 1].callee == key.callee;)
		lo--;
	for (hi = lo; hi < e->ncalls && e->calls[hi].callee == key.callee; hi++)
		if (!on_stack(e, e->sites[e->calls[hi].first]))
			sum = sat_add64(sum, e->calls[hi].count);
	if (!sum) {
		emit(e, NULL, w);
		return;
	}
	for (size_t i = lo; i < hi; i++) {
		const struct call_in *ci = &e->calls[i];
		double wi = w * (double)ci->count / (double)sum;

		if (on_stack(e, e->sites[ci->first]))
			continue;
		if (wi < e->min) {
			cut += wi;
			continue;
		}
		grow(&e->chain, &e->cap_chain, e->depth + ci->n, sizeof(*e->chain));
		grow(&e->roots, &e->cap_roots, e->nroots + 1, sizeof(*e->roots));
		for (size_t k = ci->n; k-- > 0;)
			e->chain[e->depth++] = e->sites[ci->first + k];
		e->roots[e->nroots++] = e->sites[ci->first];
		expand(e, wi);
		e->depth -= ci->n;
		e->nroots--;
	}
	emit(e, EST_CUT, cut);
}

int rep_folded_estimate(struct rep_syms *s, struct rep_folded_set *out)
{
	struct rep_folded_set leaves;
	struct est e = { .out = out };
	uint64_t skipped, calls;

	memset(out, 0, sizeof(*out));
	memset(&leaves, 0, sizeof(leaves));
	if (rep_syms_has_stacks(s) ||
	    !(calls = rep_walk_calls(s, call_cb, &e))) {
		free(e.calls), free(e.sites);
		return -1;
	}
	rep_walk_raw(s, add_cb, &leaves, &skipped);
	finish(&leaves);
	sort(e.calls, e.ncalls, sizeof(*e.calls), cmp_call);
	e.min = (double)leaves.samples / 10000;
	for (size_t i = 0; i < leaves.n; i++) {
		const struct rep_folded *l = &leaves.v[i];

		e.depth = e.nroots = 0;
		grow(&e.chain, &e.cap_chain, l->depth, sizeof(*e.chain));
		grow(&e.roots, &e.cap_roots, 1, sizeof(*e.roots));
		for (size_t k = l->depth; k-- > 0;)
			e.chain[e.depth++] = l->names[k];
		e.roots[e.nroots++] = l->names[0];
		expand(&e, (double)l->count);
	}
	finish(out);
	rep_folded_free(&leaves);
	free(e.calls), free(e.sites), free(e.chain), free(e.roots);
	return 0;
}
