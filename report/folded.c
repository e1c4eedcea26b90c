/* SPDX-License-Identifier: GPL-2.0-only */
/* Folded stacks from a raw profile's STACKS section. */
#include "folded.h"
#include "../lib/escape.h"
#include "../lib/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void add_cb(const struct rep_sframe *f, size_t n, uint64_t count,
		   void *arg)
{
	struct rep_folded_set *s = arg;
	struct rep_folded *st;

	if (!n || !count)
		return;
	grow(&s->pool, &s->cap_pool, s->npool + n, sizeof(*s->pool));
	grow(&s->v, &s->cap, s->n + 1, sizeof(*s->v));
	st = &s->v[s->n++];
	/* The pool moves as it grows: an offset until the end. */
	st->names = (const char **)(uintptr_t)s->npool;
	st->depth = n;
	st->count = count;
	for (size_t i = 0; i < n; i++)
		s->pool[s->npool++] = f[i].name;
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

int rep_folded_build(struct rep_syms *s, struct rep_folded_set *out)
{
	uint64_t skipped;
	size_t k = 0;

	memset(out, 0, sizeof(*out));

	if (!rep_syms_has_stacks(s))
		return -1;
	rep_walk_raw(s, add_cb, out, &skipped);
	for (size_t i = 0; i < out->n; i++)
		out->v[i].names = out->pool + (uintptr_t)out->v[i].names;
	sort(out->v, out->n, sizeof(*out->v), cmp_stack);
	for (size_t i = 0; i < out->n; i++) {
		out->samples = rep_sat_add(out->samples, out->v[i].count);
		if (k && !cmp_stack(&out->v[k - 1], &out->v[i]))
			out->v[k - 1].count = rep_sat_add(out->v[k - 1].count,
						      out->v[i].count);
		else
			out->v[k++] = out->v[i];
	}
	out->n = k;
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
