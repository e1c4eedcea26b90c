/* SPDX-License-Identifier: GPL-2.0-only */
/* Weighted overlap of two sample profiles; see overlap.h. */
#include "overlap.h"
#include "../lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A count under its key; fn is the length of the key's function name
 * (the key starts with it, then SEP). */
struct entry {
	char *key;
	size_t fn;
	uint64_t count;
};

struct entries {
	struct entry *v;
	size_t n, cap;
};

/* Below every character of a linkage name: a function's keys sort
 * together, right after its name. */
#define SEP "\x01"

static double dmin(double a, double b) { return a < b ? a : b; }
static double dabs(double a) { return a < 0 ? -a : a; }

static void add(struct entries *e, const char *key, size_t fn, uint64_t count)
{
	if (!count)
		return;
	grow(&e->v, &e->cap, e->n + 1, sizeof(*e->v));
	e->v[e->n++] = (struct entry){ xstrdup(key), fn, count };
}

static void flatten(const struct fsamples *f, const char *ctx, size_t fn,
		    struct entries *body, struct entries *target)
{
	char key[4096];

	for (size_t i = 0; i < f->nbody; i++) {
		const struct fs_body *b = &f->body[i];

		snprintf(key, sizeof(key), "%s@%u.%u", ctx, b->line, b->disc);
		add(body, key, fn, b->count);
		for (size_t t = 0; t < b->ntargets; t++) {
			char tkey[4200];

			snprintf(tkey, sizeof(tkey), "%s>%s", key, b->targets[t].name);
			add(target, tkey, fn, b->targets[t].count);
		}
	}
	for (size_t i = 0; i < f->ncs; i++) {
		const struct fs_callsite *c = &f->cs[i];

		snprintf(key, sizeof(key), "%s@%u.%u:%s", ctx, c->line, c->disc,
			 c->callee->name);
		flatten(c->callee, key, fn, body, target);
	}
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->key, ((const struct entry *)b)->key);
}

/* Sorted, equal keys summed. */
static void canon(struct entries *e)
{
	size_t n = 0;

	sort(e->v, e->n, sizeof(*e->v), cmp_entry);
	for (size_t i = 0; i < e->n; i++) {
		if (n && !strcmp(e->v[n - 1].key, e->v[i].key)) {
			e->v[n - 1].count += e->v[i].count;
			free(e->v[i].key);
		} else {
			e->v[n++] = e->v[i];
		}
	}
	e->n = n;
}

static void collect(const struct fs_profile *p, struct entries *body,
		    struct entries *head, struct entries *target)
{
	char ctx[4096];

	for (size_t i = 0; i < p->nfuncs; i++) {
		const struct fsamples *f = p->funcs[i];
		size_t fn = strlen(f->name);

		snprintf(ctx, sizeof(ctx), "%s" SEP, f->name);
		add(head, ctx, fn, f->head);
		flatten(f, ctx, fn, body, target);
	}
	canon(body);
	canon(head);
	canon(target);
}

static double total(const struct entries *e)
{
	double t = 0;

	for (size_t i = 0; i < e->n; i++)
		t += (double)e->v[i].count;
	return t;
}

static double overlap_of(const struct entries *a, const struct entries *b)
{
	double ta = total(a), tb = total(b), o = 0;
	size_t i = 0, j = 0;

	if (ta == 0 && tb == 0)
		return -1;
	if (ta == 0 || tb == 0)
		return 0;
	while (i < a->n && j < b->n) {
		int c = strcmp(a->v[i].key, b->v[j].key);

		if (c == 0)
			o += dmin((double)a->v[i].count / ta, (double)b->v[j].count / tb);
		i += c <= 0;
		j += c >= 0;
	}
	return o;
}

/* The entries of one function: [*at, end) of e, its name's length fn. */
static size_t fn_end(const struct entries *e, size_t at)
{
	size_t end = at;

	while (end < e->n && e->v[end].fn == e->v[at].fn &&
	       !strncmp(e->v[end].key, e->v[at].key, e->v[at].fn + 1))
		end++;
	return end;
}

static struct overlap_fn *new_fn(struct overlap *r, size_t *cap,
				 const char *key, size_t fn)
{
	struct overlap_fn *f;

	grow(&r->fns, cap, r->nfns + 1, sizeof(*r->fns));
	f = &r->fns[r->nfns++];
	f->name = xmalloc(fn + 1);
	memcpy(f->name, key, fn);
	f->name[fn] = '\0';
	f->share_a = f->share_b = 0;
	f->shape = -1;
	return f;
}

/* One function on each side (either range may be empty). */
static void one_fn(struct overlap_fn *f, const struct entries *a, size_t a0,
		   size_t a1, double ta, const struct entries *b, size_t b0,
		   size_t b1, double tb)
{
	struct entries sa = { a->v + a0, a1 - a0, 0 }, sb = { b->v + b0, b1 - b0, 0 };
	double fa = total(&sa), fb = total(&sb);

	f->share_a = ta > 0 ? fa / ta : 0;
	f->share_b = tb > 0 ? fb / tb : 0;
	if (fa > 0 && fb > 0)
		f->shape = overlap_of(&sa, &sb);
}

static int cmp_fn(const void *x, const void *y)
{
	const struct overlap_fn *a = x, *b = y;
	double da = dabs(a->share_a - a->share_b), db = dabs(b->share_a - b->share_b);

	if (da != db)
		return da < db ? 1 : -1;
	return strcmp(a->name, b->name);
}

static void per_function(const struct entries *a, const struct entries *b,
			 struct overlap *r)
{
	double ta = total(a), tb = total(b);
	size_t i = 0, j = 0, cap = 0;

	while (i < a->n || j < b->n) {
		int c = i >= a->n ? 1 : j >= b->n ? -1 : 0;
		size_t ie = i, je = j;

		if (!c) {	/* compare the function names */
			size_t n = a->v[i].fn < b->v[j].fn ? a->v[i].fn : b->v[j].fn;

			c = strncmp(a->v[i].key, b->v[j].key, n);
			if (!c)
				c = (a->v[i].fn > b->v[j].fn) - (a->v[i].fn < b->v[j].fn);
		}
		if (c <= 0)
			ie = fn_end(a, i);
		if (c >= 0)
			je = fn_end(b, j);
		one_fn(new_fn(r, &cap, c <= 0 ? a->v[i].key : b->v[j].key,
			      c <= 0 ? a->v[i].fn : b->v[j].fn),
		       a, i, ie, ta, b, j, je, tb);
		r->fn_a += c <= 0;
		r->fn_b += c >= 0;
		r->fn_both += c == 0;
		i = ie;
		j = je;
	}
	sort(r->fns, r->nfns, sizeof(*r->fns), cmp_fn);
}

static int cmp_line(const void *x, const void *y)
{
	const struct overlap_line *a = x, *b = y;
	double da = dabs(a->share_a - a->share_b), db = dabs(b->share_a - b->share_b);

	if (da != db)
		return da < db ? 1 : -1;
	return strcmp(a->where, b->where);
}

/* The key as people read it: the function name's separator dropped. */
static char *readable(const char *key, size_t fn)
{
	char *s = xmalloc(strlen(key) + 1);

	memcpy(s, key, fn);
	strcpy(s + fn, key + fn + 1);
	return s;
}

static void per_line(const struct entries *a, const struct entries *b,
		     struct overlap *r)
{
	double ta = total(a), tb = total(b);
	size_t i = 0, j = 0, cap = 0;

	while (i < a->n || j < b->n) {
		int c = i >= a->n ? 1 : j >= b->n ? -1 : strcmp(a->v[i].key, b->v[j].key);
		const struct entry *e = c <= 0 ? &a->v[i] : &b->v[j];
		struct overlap_line *l;

		grow(&r->lines, &cap, r->nlines + 1, sizeof(*r->lines));
		l = &r->lines[r->nlines++];
		l->where = readable(e->key, e->fn);
		l->share_a = c <= 0 && ta > 0 ? (double)a->v[i].count / ta : 0;
		l->share_b = c >= 0 && tb > 0 ? (double)b->v[j].count / tb : 0;
		i += c <= 0;
		j += c >= 0;
	}
	sort(r->lines, r->nlines, sizeof(*r->lines), cmp_line);
}

static void entries_free(struct entries *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i].key);
	free(e->v);
}

void overlap_compute(const struct fs_profile *a, const struct fs_profile *b,
		     struct overlap *r)
{
	struct entries ea[3] = { 0 }, eb[3] = { 0 };

	memset(r, 0, sizeof(*r));
	collect(a, &ea[0], &ea[1], &ea[2]);
	collect(b, &eb[0], &eb[1], &eb[2]);
	r->body = overlap_of(&ea[0], &eb[0]);
	r->head = overlap_of(&ea[1], &eb[1]);
	r->target = overlap_of(&ea[2], &eb[2]);
	per_function(&ea[0], &eb[0], r);
	per_line(&ea[0], &eb[0], r);
	for (int k = 0; k < 3; k++) {
		entries_free(&ea[k]);
		entries_free(&eb[k]);
	}
}

void overlap_free(struct overlap *r)
{
	for (size_t i = 0; i < r->nfns; i++)
		free(r->fns[i].name);
	free(r->fns);
	for (size_t i = 0; i < r->nlines; i++)
		free(r->lines[i].where);
	free(r->lines);
	memset(r, 0, sizeof(*r));
}
