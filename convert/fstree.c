/* SPDX-License-Identifier: GPL-2.0-only */
#include "fstree.h"
#include "../lib/util.h"
#include "../lib/hash.h"
#include "../lib/hindex.h"

#include <stdlib.h>
#include <string.h>

void fs_init(struct fs_profile *p)
{
	memset(p, 0, sizeof(*p));
}

static void fs_node_free(struct fsamples *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nbody; i++) {
		for (size_t j = 0; j < f->body[i].ntargets; j++)
			free(f->body[i].targets[j].name);
		free(f->body[i].targets);
	}
	for (size_t i = 0; i < f->ncs; i++)
		fs_node_free(f->cs[i].callee);
	free(f->body);
	free(f->cs);
	free(f->name);
	free(f);
}

void fs_free(struct fs_profile *p)
{
	for (size_t i = 0; i < p->nfuncs; i++)
		fs_node_free(p->funcs[i]);
	free(p->funcs);
	hindex_free(&p->index);
	for (size_t i = 0; i < p->nsplit; i++)
		free(p->split[i]);
	free(p->split);
	for (size_t i = 0; i < p->nfn; i++)
		free(p->fn_names[i]);
	free(p->fn_names);
	free(p->fn_bytes);
	fs_init(p);
}

static struct fsamples *new_node(const char *name)
{
	struct fsamples *f = xcalloc(1, sizeof(*f));

	f->name = xstrdup(name);
	return f;
}

static uint64_t func_hash(const void *p, size_t i)
{
	return hash_str(HASH_INIT, ((const struct fs_profile *)p)->funcs[i]->name);
}

static int func_eq(const void *p, size_t i, const void *name)
{
	return !strcmp(((const struct fs_profile *)p)->funcs[i]->name, name);
}

/* The index again, after the functions moved. */
static void reindex(struct fs_profile *p)
{
	hindex_rebuild(&p->index, p->nfuncs, 1024, func_hash, p);
}

struct fsamples *fs_function(struct fs_profile *p, const char *name)
{
	size_t *slot;

	hindex_reserve(&p->index, p->nfuncs, 1024, func_hash, p);
	slot = hindex_find(&p->index, hash_str(HASH_INIT, name), func_eq, p, name);
	if (!*slot) {
		grow(&p->funcs, &p->cap_funcs, p->nfuncs + 1, sizeof(*p->funcs));
		p->funcs[p->nfuncs] = new_node(name);
		*slot = ++p->nfuncs;
	}
	return p->funcs[*slot - 1];
}

struct fsamples *fs_find(struct fs_profile *p, const char *name)
{
	size_t *slot;

	hindex_reserve(&p->index, p->nfuncs, 1024, func_hash, p);
	slot = hindex_find(&p->index, hash_str(HASH_INIT, name), func_eq, p, name);
	return *slot ? p->funcs[*slot - 1] : NULL;
}

struct fsamples *fs_inlinee(struct fsamples *f, uint32_t line, uint32_t disc,
			    const char *callee)
{
	for (size_t i = 0; i < f->ncs; i++)
		if (f->cs[i].line == line && f->cs[i].disc == disc &&
		    !strcmp(f->cs[i].callee->name, callee))
			return f->cs[i].callee;
	grow(&f->cs, &f->cap_cs, f->ncs + 1, sizeof(*f->cs));
	f->cs[f->ncs] = (struct fs_callsite){ line, disc, new_node(callee) };
	return f->cs[f->ncs++].callee;
}

struct fs_body *fs_body_at(struct fsamples *f, uint32_t line, uint32_t disc)
{
	for (size_t i = f->nbody; i-- > 0;)
		if (f->body[i].line == line && f->body[i].disc == disc)
			return &f->body[i];
	grow(&f->body, &f->cap_body, f->nbody + 1, sizeof(*f->body));
	f->body[f->nbody] = (struct fs_body){ .line = line, .disc = disc };
	return &f->body[f->nbody++];
}

void fs_add_body(struct fsamples *f, uint32_t line, uint32_t disc,
		 uint64_t count)
{
	struct fs_body *b = fs_body_at(f, line, disc);

	b->count = sat_add64(b->count, count);
}

void fs_add_target(struct fsamples *f, uint32_t line, uint32_t disc,
		   const char *callee, uint64_t count)
{
	struct fs_body *b = fs_body_at(f, line, disc);

	for (size_t i = 0; i < b->ntargets; i++) {
		if (!strcmp(b->targets[i].name, callee)) {
			b->targets[i].count = sat_add64(b->targets[i].count, count);
			return;
		}
	}
	grow(&b->targets, &b->cap_targets, b->ntargets + 1, sizeof(*b->targets));
	b->targets[b->ntargets++] = (struct fs_target){ xstrdup(callee), count };
}

static int cmp_loc(uint32_t l1, uint32_t d1, uint32_t l2, uint32_t d2)
{
	if (l1 != l2)
		return l1 < l2 ? -1 : 1;
	return (d1 > d2) - (d1 < d2);
}

static int cmp_body(const void *a, const void *b)
{
	const struct fs_body *x = a, *y = b;

	return cmp_loc(x->line, x->disc, y->line, y->disc);
}

static int cmp_target(const void *a, const void *b)
{
	const struct fs_target *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_cs(const void *a, const void *b)
{
	const struct fs_callsite *x = a, *y = b;
	int c = cmp_loc(x->line, x->disc, y->line, y->disc);

	return c ? c : strcmp(x->callee->name, y->callee->name);
}

static int cmp_func(const void *a, const void *b)
{
	const struct fsamples *x = *(struct fsamples *const *)a;
	const struct fsamples *y = *(struct fsamples *const *)b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

void fs_merge_node(struct fsamples *d, const struct fsamples *s, uint64_t w)
{
	d->head = sat_add64(d->head, sat_mul64(s->head, w));
	if (!d->checksum)
		d->checksum = s->checksum;
	d->total = sat_add64(d->total, sat_mul64(s->total, w));
	for (size_t i = 0; i < s->nbody; i++) {
		const struct fs_body *b = &s->body[i];

		fs_add_body(d, b->line, b->disc, sat_mul64(b->count, w));
		for (size_t j = 0; j < b->ntargets; j++)
			fs_add_target(d, b->line, b->disc, b->targets[j].name,
				      sat_mul64(b->targets[j].count, w));
	}
	for (size_t i = 0; i < s->ncs; i++)
		fs_merge_node(fs_inlinee(d, s->cs[i].line, s->cs[i].disc,
					 s->cs[i].callee->name),
			      s->cs[i].callee, w);
}

void fs_merge(struct fs_profile *dst, const struct fs_profile *src,
	      uint64_t weight)
{
	for (size_t i = 0; i < src->nfuncs; i++)
		fs_merge_node(fs_function(dst, src->funcs[i]->name), src->funcs[i],
			      weight);
	dst->totals_given |= src->totals_given;
	dst->probe_based |= src->probe_based;
}

static uint64_t finish_node(struct fsamples *f, int keep_total)
{
	uint64_t t = 0;

	sort(f->body, f->nbody, sizeof(*f->body), cmp_body);
	for (size_t i = 0; i < f->nbody; i++) {
		sort(f->body[i].targets, f->body[i].ntargets,
		      sizeof(*f->body[i].targets), cmp_target);
		t = sat_add64(t, f->body[i].count);
	}
	sort(f->cs, f->ncs, sizeof(*f->cs), cmp_cs);
	for (size_t i = 0; i < f->ncs; i++)
		t = sat_add64(t, finish_node(f->cs[i].callee, keep_total));
	if (!keep_total)
		f->total = t;
	return f->total;
}

void fs_finish(struct fs_profile *p)
{
	for (size_t i = 0; i < p->nfuncs; i++)
		finish_node(p->funcs[i], p->totals_given);
	sort(p->funcs, p->nfuncs, sizeof(*p->funcs), cmp_func);
	reindex(p);
}

size_t fs_drop_zero_totals(struct fs_profile *p)
{
	size_t n = 0, dropped;

	for (size_t i = 0; i < p->nfuncs; i++) {
		if (p->funcs[i]->total)
			p->funcs[n++] = p->funcs[i];
		else
			fs_node_free(p->funcs[i]);
	}
	dropped = p->nfuncs - n;
	p->nfuncs = n;
	if (dropped)
		reindex(p);
	return dropped;
}

static size_t node_saturated(const struct fsamples *f)
{
	size_t n = (f->head == UINT64_MAX) + (f->total == UINT64_MAX);

	for (size_t i = 0; i < f->nbody; i++) {
		n += f->body[i].count == UINT64_MAX;
		for (size_t j = 0; j < f->body[i].ntargets; j++)
			n += f->body[i].targets[j].count == UINT64_MAX;
	}
	for (size_t i = 0; i < f->ncs; i++)
		n += node_saturated(f->cs[i].callee);
	return n;
}

size_t fs_saturated(const struct fs_profile *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nfuncs; i++)
		n += node_saturated(p->funcs[i]);
	return n;
}

static uint64_t node_max(const struct fsamples *f)
{
	uint64_t m = 0;

	for (size_t i = 0; i < f->nbody; i++)
		if (f->body[i].count > m)
			m = f->body[i].count;
	for (size_t i = 0; i < f->ncs; i++) {
		uint64_t c = node_max(f->cs[i].callee);

		if (c > m)
			m = c;
	}
	return m;
}

uint64_t fs_max_count(const struct fs_profile *p)
{
	uint64_t m = 0;

	for (size_t i = 0; i < p->nfuncs; i++) {
		uint64_t c = node_max(p->funcs[i]);

		if (c > m)
			m = c;
	}
	return m;
}

static uint64_t scale1(uint64_t v, uint64_t num, uint64_t den)
{
	long double x = (long double)v * num / den + 0.5L;

	if (!v)
		return 0;
	if (x >= 18446744073709551615.0L)
		return UINT64_MAX;
	return x < 1 ? 1 : (uint64_t)x;
}

static void scale_node(struct fsamples *f, uint64_t num, uint64_t den)
{
	f->head = scale1(f->head, num, den);
	f->total = scale1(f->total, num, den);
	for (size_t i = 0; i < f->nbody; i++) {
		f->body[i].count = scale1(f->body[i].count, num, den);
		for (size_t j = 0; j < f->body[i].ntargets; j++)
			f->body[i].targets[j].count =
				scale1(f->body[i].targets[j].count, num, den);
	}
	for (size_t i = 0; i < f->ncs; i++)
		scale_node(f->cs[i].callee, num, den);
}

void fs_scale(struct fs_profile *p, uint64_t num, uint64_t den)
{
	for (size_t i = 0; i < p->nfuncs; i++)
		scale_node(p->funcs[i], num, den);
}

void fs_names_add(struct fs_names *t, const char *s)
{
	grow(&t->v, &t->cap, t->n + 1, sizeof(*t->v));
	t->v[t->n++] = s;
}

static void names_of(struct fs_names *t, const struct fsamples *f)
{
	fs_names_add(t, f->name);
	for (size_t i = 0; i < f->nbody; i++)
		for (size_t j = 0; j < f->body[i].ntargets; j++)
			fs_names_add(t, f->body[i].targets[j].name);
	for (size_t i = 0; i < f->ncs; i++)
		names_of(t, f->cs[i].callee);
}

void fs_names_collect(struct fs_names *t, const struct fs_profile *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nfuncs; i++)
		names_of(t, p->funcs[i]);
	sort(t->v, t->n, sizeof(*t->v), cmp_cstr);
	for (size_t i = 0; i < t->n; i++)
		if (!n || strcmp(t->v[n - 1], t->v[i]))
			t->v[n++] = t->v[i];
	t->n = n;
}

size_t fs_names_index(const struct fs_names *t, const char *s)
{
	const char **hit = bsearch(&s, t->v, t->n, sizeof(*t->v), cmp_cstr);

	return hit ? (size_t)(hit - t->v) : 0;
}

void fs_names_free(struct fs_names *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* Cut f's counts below min; 1 if nothing of f is left at or above it. */
static int cut_node(struct fsamples *f, uint64_t min, struct fs_cut *st)
{
	size_t nb = 0, nc = 0;
	int live = 0;

	for (size_t i = 0; i < f->nbody; i++) {
		struct fs_body *b = &f->body[i];
		size_t nt = 0;

		for (size_t j = 0; j < b->ntargets; j++) {
			if (b->targets[j].count >= min) {
				b->targets[nt++] = b->targets[j];
				continue;
			}
			st->targets++;
			free(b->targets[j].name);
		}
		b->ntargets = nt;
		if (b->count && b->count < min && !nt) {
			st->body++;
			free(b->targets);
			continue;
		}
		live |= b->count >= min || nt;
		f->body[nb++] = *b;
	}
	f->nbody = nb;
	for (size_t i = 0; i < f->ncs; i++) {
		if (cut_node(f->cs[i].callee, min, st)) {
			st->inlinees++;
			fs_node_free(f->cs[i].callee);
			continue;
		}
		live = 1;
		f->cs[nc++] = f->cs[i];
	}
	f->ncs = nc;
	return !live;
}

size_t fs_cut_below(struct fs_profile *p, uint64_t min, struct fs_cut *st)
{
	size_t n = 0;

	memset(st, 0, sizeof(*st));
	if (!min)
		return 0;
	for (size_t i = 0; i < p->nfuncs; i++) {
		struct fsamples *f = p->funcs[i];
		int had = f->total || f->nbody || f->ncs;

		if (cut_node(f, min, st) && had) {
			st->functions++;
			fs_node_free(f);
			continue;
		}
		p->funcs[n++] = f;
	}
	p->nfuncs = n;
	fs_finish(p);
	return st->functions;
}

/* LLVM's ProfileSummaryBuilder (llvm/lib/ProfileData/ProfileSummaryBuilder.cpp,
 * computeDetailedSummary) walks the counts from the largest down and takes,
 * for each cutoff, the count at which the running sum first reaches
 * cutoff / 10^6 of the total; the sample profile's counts are its body
 * counts (SampleProfileSummaryBuilder::addRecord). */
static void collect_counts(const struct fsamples *f, uint64_t **v, size_t *n,
			   size_t *cap)
{
	for (size_t i = 0; i < f->nbody; i++) {
		if (!f->body[i].count)
			continue;
		grow(v, cap, *n + 1, sizeof(**v));
		(*v)[(*n)++] = f->body[i].count;
	}
	for (size_t i = 0; i < f->ncs; i++)
		collect_counts(f->cs[i].callee, v, n, cap);
}

static int cmp_u64_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y) - (x > y);
}

uint64_t fs_summary_count(const struct fs_profile *p, uint32_t cutoff)
{
	uint64_t *v = NULL, c = 0;
	size_t n = 0, cap = 0;
	long double total = 0, sum = 0, want;

	for (size_t i = 0; i < p->nfuncs; i++)
		collect_counts(p->funcs[i], &v, &n, &cap);
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		total += (long double)v[i];
	qsort(v, n, sizeof(*v), cmp_u64_desc);
	want = total * cutoff / 1000000.0L;
	for (size_t i = 0; i < n; i++) {
		c = v[i];
		sum += (long double)v[i];
		if (sum >= want)
			break;
	}
	free(v);
	return c;
}
