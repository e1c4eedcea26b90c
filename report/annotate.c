/* SPDX-License-Identifier: GPL-2.0-only */
/* A function's samples per instruction and per line (report/annotate.h). */
#include "annotate.h"
#include "funcs.h"
#include "../convert/symbolize.h"
#include "../lib/util.h"

#include <stdlib.h>
#include <string.h>

struct collect {
	struct ann_func *a;
	const struct load_seg *segs;
	int nseg;
	size_t cap;
	struct sym_result r;
};

static void insn_cb(uint64_t vaddr, uint32_t len, void *arg)
{
	struct collect *c = arg;
	struct ann_func *a = c->a;
	uint64_t off;

	(void)len;
	if (vaddr_to_offset(c->segs, c->nseg, vaddr, &off))
		return;
	grow(&a->v, &c->cap, a->n + 1, sizeof(*a->v));
	a->v[a->n] = (struct ann_insn){ vaddr, off, 0, 0 };
	if (sym_lookup(a->sym, vaddr, &c->r) == SYM_OK) {
		a->v[a->n].line = c->r.frames[0].line;
		if (!a->file)
			a->file = c->r.frames[0].file;
		if (!a->decl_line)
			a->decl_line = c->r.frames[0].decl_line;
	}
	a->n++;
}

/* The first instruction at or after file offset off, or a->n. */
static size_t lower(const struct ann_func *a, uint64_t off)
{
	size_t lo = 0, hi = a->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->v[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void add_at(struct ann_func *a, uint64_t off, uint64_t count)
{
	size_t i = lower(a, off);

	if (i < a->n && a->v[i].off == off)
		a->v[i].count = sat_add64(a->v[i].count, count);
}

/* The counts, read as rep_walk_raw reads a profile. */
static void count(struct ann_func *a, const struct raw_profile *p)
{
	const struct raw_object *o = &p->objs[a->obj];
	int ips = 0;

	a->walk = REP_WALK_STACKS;
	for (size_t i = 0; i < p->stacks.n; i++) {
		const struct raw_frame *f = raw_stack_frames(p, &p->stacks.v[i]);

		if (f[0].obj == a->obj)
			add_at(a, f[0].offset, p->stacks.v[i].count);
	}
	for (size_t i = 0; i < p->nobjs; i++)
		ips |= p->objs[i].nips > 0;
	if (p->stacks.n)
		return;
	a->walk = ips ? REP_WALK_IPS : REP_WALK_RANGES;
	for (size_t i = 0; ips && i < o->nips; i++)
		add_at(a, o->ips[i].offset, o->ips[i].count);
	/* A range is straight-line code: the instructions from begin to end. */
	for (size_t i = 0; !ips && i < o->nranges; i++)
		for (size_t k = lower(a, o->ranges[i].begin);
		     k < a->n && a->v[k].off <= o->ranges[i].end; k++)
			a->v[k].count = sat_add64(a->v[k].count, o->ranges[i].count);
}

/* The function in object obj (its binary sym, function fn), counted. */
static void build_one(struct ann_func *a, const struct raw_profile *p,
		      uint32_t obj, struct symbolizer *sym, long fn)
{
	struct collect *c = xcalloc(1, sizeof(*c));

	a->obj = obj;
	a->sym = sym;
	sym_want_files(sym);
	c->a = a;
	c->segs = sym_segments(sym, &c->nseg);
	sym_function_insns(sym, fn, insn_cb, c);
	free(c);
	count(a, p);
	for (size_t i = 0; i < a->n; i++)
		a->total = sat_add64(a->total, a->v[i].count);
}

int ann_build(struct rep_syms *s, const struct raw_profile *p,
	      const char *raw_path, const char *name, struct ann_func *out)
{
	int found = 0;

	memset(out, 0, sizeof(*out));
	/* The first object that has the function with samples (libc has a
	 * "step" too), else the first that has it. */
	for (uint32_t i = 0; i < p->nobjs && !out->total; i++) {
		struct symbolizer *sym = rep_syms_binary(s, i);
		long fn = sym ? sym_function_by_name(sym, name) : -1;

		if (fn < 0)
			continue;
		if (found++) {
			struct ann_func b = { .name = name };

			build_one(&b, p, i, sym, fn);
			if (!b.total) {
				ann_free(&b);
				continue;
			}
			ann_free(out);
			*out = b;
		} else {
			out->name = name;
			build_one(out, p, i, sym, fn);
		}
	}
	if (!found)
		return err("%s: no binary of its objects has a function %s with debug info: give the linkage name (pgoprof report --no-demangle lists them) and the --binary that holds it",
			   raw_path, name);
	return 0;
}

void ann_free(struct ann_func *a)
{
	free(a->v);
	memset(a, 0, sizeof(*a));
}
