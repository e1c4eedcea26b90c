/* SPDX-License-Identifier: GPL-2.0-only */
/* Diff of two reports: rows from both, merged by key after a sort by
 * key pointer, then sorted by the size of the change. */
#include "diff.h"
#include "../lib/util.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct rows {
	struct rep_diff_row *v;
	size_t n, cap;
};

static void add(struct rows *r, const char *key, uint64_t a, uint64_t b)
{
	if (!a && !b)
		return;
	grow(&r->v, &r->cap, r->n + 1, sizeof(*r->v));
	r->v[r->n++] = (struct rep_diff_row){ key, a, b, 0, 0 };
}

static int cmp_key(const void *x, const void *y)
{
	uintptr_t a = (uintptr_t)((const struct rep_diff_row *)x)->key;
	uintptr_t b = (uintptr_t)((const struct rep_diff_row *)y)->key;

	return a < b ? -1 : a > b;
}

static int cmp_change(const void *x, const void *y)
{
	const struct rep_diff_row *a = x, *b = y;
	double ca = fabs(a->share_b - a->share_a), cb = fabs(b->share_b - b->share_a);

	if (ca != cb)
		return ca > cb ? -1 : 1;
	return strcmp(a->key, b->key);
}

/* Merge rows of the same key, then shares and order. */
static void finish(struct rows *r, uint64_t sa, uint64_t sb,
		   struct rep_diff_row **out, size_t *n)
{
	size_t k = 0;

	sort(r->v, r->n, sizeof(*r->v), cmp_key);
	for (size_t i = 0; i < r->n; i++) {
		if (k && r->v[k - 1].key == r->v[i].key) {
			r->v[k - 1].a = sat_add64(r->v[k - 1].a, r->v[i].a);
			r->v[k - 1].b = sat_add64(r->v[k - 1].b, r->v[i].b);
		} else {
			r->v[k++] = r->v[i];
		}
	}
	for (size_t i = 0; i < k; i++) {
		r->v[i].share_a = sa ? (double)r->v[i].a / (double)sa : 0;
		r->v[i].share_b = sb ? (double)r->v[i].b / (double)sb : 0;
	}
	sort(r->v, k, sizeof(*r->v), cmp_change);
	*out = r->v;
	*n = k;
}

static const char *line_key(const struct rep_model *m, const struct rep_line *l)
{
	char buf[8400];

	if (l->file)
		snprintf(buf, sizeof(buf), "%.4000s:%" PRIu32, l->file, l->line);
	else if (l->disc)
		snprintf(buf, sizeof(buf), "%.4000s:+%" PRIu32 ".%" PRIu32,
			 l->func, l->line, l->disc);
	else
		snprintf(buf, sizeof(buf), "%.4000s:+%" PRIu32, l->func, l->line);
	return strtab_get(m->names, buf);
}

void rep_diff(const struct rep_model *a, const struct rep_model *b,
	      struct rep_diff *d)
{
	struct rows f = { 0 }, l = { 0 };

	for (size_t i = 0; i < a->nfuncs; i++)
		add(&f, a->funcs[i].name, a->funcs[i].self, 0);
	for (size_t i = 0; i < b->nfuncs; i++)
		add(&f, b->funcs[i].name, 0, b->funcs[i].self);
	for (size_t i = 0; i < a->nlines; i++)
		add(&l, line_key(a, &a->lines[i]), a->lines[i].count, 0);
	for (size_t i = 0; i < b->nlines; i++)
		add(&l, line_key(b, &b->lines[i]), 0, b->lines[i].count);
	finish(&f, a->samples, b->samples, &d->funcs, &d->nfuncs);
	finish(&l, a->samples, b->samples, &d->lines, &d->nlines);
}

void rep_diff_free(struct rep_diff *d)
{
	free(d->funcs);
	free(d->lines);
	memset(d, 0, sizeof(*d));
}
