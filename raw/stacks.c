/* SPDX-License-Identifier: GPL-2.0-only */
/* The whole call stacks of a raw profile: one table across objects, the
 * frames of every stack in one array, and a hash index so that a stack
 * seen a million times takes one row (perf.data import adds stacks one
 * sample at a time).  Order and merge follow docs/raw-format.md. */
#include "rawprof.h"
#include "stacks.h"
#include "../lib/util.h"
#include "../lib/hash.h"

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

/* The index slot of frames f: the stack's (value > 0) or an empty one. */
static size_t find_slot(const struct raw_stacks *t, const struct raw_frame *f,
			uint32_t depth)
{
	size_t mask = t->index_cap - 1;
	size_t i = (size_t)hash_frames(f, depth) & mask;

	while (t->index[i]) {
		const struct raw_stack *s = &t->v[t->index[i] - 1];

		if (s->depth == depth &&
		    same_frames(&t->frames[s->first], f, depth))
			break;
		i = (i + 1) & mask;
	}
	return i;
}

/* A new index for n stacks and more, at most half full. */
static void reindex(struct raw_stacks *t, size_t n)
{
	size_t cap = 64;

	while (cap < 2 * n)
		cap *= 2;
	free(t->index);
	t->index = xcalloc(cap, sizeof(*t->index));
	t->index_cap = cap;
	for (size_t k = 0; k < t->n; k++) {
		const struct raw_stack *s = &t->v[k];

		t->index[find_slot(t, &t->frames[s->first], s->depth)] =
			(uint32_t)(k + 1);
	}
}

void raw_add_stack(struct raw_profile *p, const struct raw_frame *f,
		   uint32_t depth, uint64_t count)
{
	struct raw_stacks *t = &p->stacks;
	size_t slot;

	if (!depth)
		return;
	if (depth > RAW_STACK_DEPTH_MAX)
		depth = RAW_STACK_DEPTH_MAX;	/* keep the leaf side */
	if (2 * (t->n + 1) > t->index_cap)
		reindex(t, t->n + 1);
	slot = find_slot(t, f, depth);
	if (t->index[slot]) {
		struct raw_stack *s = &t->v[t->index[slot] - 1];

		s->count = s->count > UINT64_MAX - count ? UINT64_MAX
							 : s->count + count;
		return;
	}
	grow(&t->v, &t->cap, t->n + 1, sizeof(*t->v));
	grow(&t->frames, &t->cap_frames, t->nframes + depth, sizeof(*t->frames));
	memcpy(&t->frames[t->nframes], f, depth * sizeof(*f));
	t->v[t->n] = (struct raw_stack){ count, t->nframes, depth };
	t->nframes += depth;
	t->index[slot] = (uint32_t)++t->n;
}

uint64_t raw_add_sampled_stack(struct raw_profile *p, const struct raw_frame *f,
			       uint32_t depth, uint64_t count)
{
	uint64_t lost = 0;

	if (!depth)
		return 0;
	if (f[0].obj < p->nobjs)
		raw_add_ip(&p->objs[f[0].obj], f[0].offset, count);
	for (uint32_t i = 1; i < depth; i++) {
		if (f[i - 1].obj == RAW_FRAME_KERNEL)
			continue;
		if (f[i].obj >= p->nobjs || f[i - 1].obj >= p->nobjs) {
			lost += count;
			continue;
		}
		raw_add_edge(&p->objs[f[i].obj], f[i].offset, f[i - 1].obj,
			     i > 1 && f[i - 2].obj != RAW_FRAME_KERNEL
				     ? f[i - 1].offset - 1 : f[i - 1].offset,
			     count);
	}
	raw_add_stack(p, f, depth, count);
	return lost;
}

void stacks_free(struct raw_stacks *t)
{
	free(t->v);
	free(t->frames);
	free(t->index);
	memset(t, 0, sizeof(*t));
}

void stacks_renumber(struct raw_stacks *t, const uint32_t *newidx, size_t n)
{
	for (size_t i = 0; i < t->nframes; i++)
		if (t->frames[i].obj < n)
			t->frames[i].obj = newidx[t->frames[i].obj];
	free(t->index);	/* the hashes changed */
	t->index = NULL;
	t->index_cap = 0;
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

			d->count = d->count > UINT64_MAX - s->count ? UINT64_MAX
								    : d->count + s->count;
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
	reindex(t, t->n);
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
		c = weight && c > UINT64_MAX / weight ? UINT64_MAX : c * weight;
		raw_add_stack(dst, buf, d, c);
	}
}
