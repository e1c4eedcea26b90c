/* SPDX-License-Identifier: GPL-2.0-only */
/* The whole call stacks of a raw profile: one table across objects, the
 * frames of every stack in one array, and a hash index so that a stack
 * seen a million times takes one row (perf.data import adds stacks one
 * sample at a time).  Order and merge follow docs/raw-format.md. */
#include "rawprof.h"
#include "stacks.h"
#include "stackcut.h"
#include "../lib/util.h"
#include "../lib/hash.h"
#include "../lib/hindex.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_frames(const struct raw_frame *f, uint32_t depth)
{
	uint64_t h = HASH_INIT;

	for (uint32_t i = 0; i < depth; i++)
		h = hash_u64(hash_u64(h, f[i].obj), f[i].offset);
	return h ^ depth;
}

static int same_frames(const struct raw_frame *a, const struct raw_frame *b,
		       uint32_t depth)
{
	for (uint32_t i = 0; i < depth; i++)
		if (a[i].obj != b[i].obj || a[i].offset != b[i].offset)
			return 0;
	return 1;
}

struct stack_key {
	const struct raw_frame *f;
	uint32_t depth;
};

static uint64_t stack_hash(const void *t, size_t i)
{
	const struct raw_stacks *st = t;

	return hash_frames(&st->frames[st->v[i].first], st->v[i].depth);
}

static int stack_eq(const void *t, size_t i, const void *key)
{
	const struct raw_stacks *st = t;
	const struct stack_key *k = key;

	return st->v[i].depth == k->depth &&
	       same_frames(&st->frames[st->v[i].first], k->f, k->depth);
}

void raw_add_stack(struct raw_profile *p, const struct raw_frame *f,
		   uint32_t depth, uint64_t count)
{
	struct raw_stacks *t = &p->stacks;
	struct stack_key k = { f, 0 };
	size_t *slot;

	if (!depth)
		return;
	if (depth > RAW_STACK_DEPTH_MAX)
		depth = RAW_STACK_DEPTH_MAX;	/* keep the leaf side */
	k.depth = depth;
	hindex_reserve(&t->index, t->n, 64, stack_hash, t);
	slot = hindex_find(&t->index, hash_frames(f, depth), stack_eq, t, &k);
	if (*slot) {
		struct raw_stack *s = &t->v[*slot - 1];

		s->count = sat_add64(s->count, count);
		return;
	}
	grow(&t->v, &t->cap, t->n + 1, sizeof(*t->v));
	grow(&t->frames, &t->cap_frames, t->nframes + depth, sizeof(*t->frames));
	memcpy(&t->frames[t->nframes], f, depth * sizeof(*f));
	t->v[t->n] = (struct raw_stack){ count, t->nframes, depth };
	t->nframes += depth;
	*slot = ++t->n;
}

uint64_t raw_add_sampled_stack(struct raw_profile *p, const struct raw_frame *f,
			       uint32_t depth, uint64_t count)
{
	uint64_t lost = 0, callee;

	if (!depth)
		return 0;
	for (uint32_t i = 0; i < depth; i++) {
		switch (raw_stack_cut(f, i, p->nobjs, &callee)) {
		case RAW_CUT_IP:
			raw_add_ip(&p->objs[f[0].obj], f[0].offset, count);
			break;
		case RAW_CUT_EDGE:
			raw_add_edge(&p->objs[f[i].obj], f[i].offset,
				     f[i - 1].obj, callee, count);
			break;
		case RAW_CUT_LOST:
			lost += count;
			break;
		case RAW_CUT_NONE:
			break;
		}
	}
	raw_add_stack(p, f, depth, count);
	return lost;
}

void stacks_free(struct raw_stacks *t)
{
	free(t->v);
	free(t->frames);
	hindex_free(&t->index);
	memset(t, 0, sizeof(*t));
}

void stacks_renumber(struct raw_stacks *t, const uint32_t *newidx, size_t n)
{
	for (size_t i = 0; i < t->nframes; i++)
		if (t->frames[i].obj < n)
			t->frames[i].obj = newidx[t->frames[i].obj];
	hindex_free(&t->index);	/* the hashes changed: built at the next add */
}

void stacks_mark_used(const struct raw_stacks *t, uint8_t *used, size_t n)
{
	for (size_t i = 0; i < t->nframes; i++)
		if (t->frames[i].obj < n)
			used[t->frames[i].obj] = 1;
}

static const struct raw_stacks *sort_table;

/* Frame by frame from the leaf (object, then offset); a stack that is a
 * prefix of another comes first. */
static int cmp_stack(const void *a, const void *b)
{
	const struct raw_stack *x = &sort_table->v[*(const size_t *)a];
	const struct raw_stack *y = &sort_table->v[*(const size_t *)b];
	const struct raw_frame *fx = &sort_table->frames[x->first];
	const struct raw_frame *fy = &sort_table->frames[y->first];
	uint32_t d = x->depth < y->depth ? x->depth : y->depth;

	for (uint32_t i = 0; i < d; i++) {
		if (fx[i].obj != fy[i].obj)
			return fx[i].obj > fy[i].obj ? 1 : -1;
		if (fx[i].offset != fy[i].offset)
			return fx[i].offset > fy[i].offset ? 1 : -1;
	}
	return (x->depth > y->depth) - (x->depth < y->depth);
}

void stacks_sort(struct raw_stacks *t)
{
	size_t *order = xcalloc(t->n ? t->n : 1, sizeof(*order));
	struct raw_stack *v = xcalloc(t->n ? t->n : 1, sizeof(*v));
	struct raw_frame *frames = xcalloc(t->nframes ? t->nframes : 1,
					   sizeof(*frames));
	size_t nf = 0, n = 0, old_n = t->n, old_nframes = t->nframes;

	for (size_t i = 0; i < t->n; i++)
		order[i] = i;
	sort_table = t;
	sort(order, t->n, sizeof(*order), cmp_stack);
	for (size_t i = 0; i < t->n; i++) {
		const struct raw_stack *s = &t->v[order[i]];

		/* equal stacks (frames changed in place) become one */
		if (n && !cmp_stack(&order[i - 1], &order[i])) {
			struct raw_stack *d = &v[n - 1];

			d->count = sat_add64(d->count, s->count);
			continue;
		}
		memcpy(&frames[nf], &t->frames[s->first],
		       s->depth * sizeof(*frames));
		v[n++] = (struct raw_stack){ s->count, nf, s->depth };
		nf += s->depth;
	}
	t->n = n;
	t->nframes = nf;
	free(order);
	free(t->v);
	free(t->frames);
	t->v = v;
	t->cap = old_n ? old_n : 1;
	t->frames = frames;
	t->cap_frames = old_nframes ? old_nframes : 1;
	hindex_rebuild(&t->index, t->n, 64, stack_hash, t);
}

void stacks_merge(struct raw_profile *dst, const struct raw_profile *src,
		  const uint32_t *map, uint64_t weight)
{
	const struct raw_stacks *t = &src->stacks;
	struct raw_frame buf[RAW_STACK_DEPTH_MAX];

	for (size_t i = 0; i < t->n; i++) {
		const struct raw_stack *s = &t->v[i];
		uint32_t d = s->depth < RAW_STACK_DEPTH_MAX ? s->depth
							    : RAW_STACK_DEPTH_MAX;
		uint64_t c = s->count;

		for (uint32_t j = 0; j < d; j++) {
			buf[j] = t->frames[s->first + j];
			if (buf[j].obj < src->nobjs)
				buf[j].obj = map[buf[j].obj];
		}
		c = sat_mul64(c, weight);
		raw_add_stack(dst, buf, d, c);
	}
}
