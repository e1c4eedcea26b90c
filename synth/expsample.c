// SPDX-License-Identifier: GPL-2.0-only
/* Execution-proportional samples from exact counts (expsample.h). */
#include "expsample.h"
#include "../lib/util.h"
#include "../raw/rawprof.h"
#include "../version.h"
#include "../proc/buildid.h"
#include "../proc/elfaddr.h"
#include "../proc/unwind_int.h"

#include <fcntl.h>
#include <unistd.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t xs_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t xs_below(uint64_t *state, uint64_t n)
{
	/* The largest multiple of n that fits: values at or above it
	 * would favour the small residues. */
	uint64_t lim = UINT64_MAX - UINT64_MAX % n, x;

	do
		x = xs_rand(state);
	while (x >= lim);
	return x % n;
}

static double unit(uint64_t *state)
{
	return (double)(xs_rand(state) >> 11) * 0x1.0p-53;
}

/* An executed instruction: object, file offset, exact count. */
struct xs_item {
	uint32_t obj;
	uint64_t off, count;
};

/* A function: [entry, end) in its object (file offsets), and the calls
 * into it, cumulative. */
struct xs_func {
	uint32_t obj;
	uint64_t entry, end;
	size_t first, n;	/* its calls in xs.calls */
};

struct xs_call {
	uint32_t obj;		/* the caller's object */
	uint64_t from;		/* the call instruction */
	uint32_t to_obj;
	uint64_t to;
	uint64_t cum;		/* the function's calls up to and including
				 * this one */
};

struct xs {
	struct xs_item *items;
	size_t nitems;
	double *prob;		/* alias table */
	size_t *alias;
	struct xs_call *calls;
	size_t ncalls;
	struct xs_func *funcs;
	size_t nfuncs;
};

static int cmp_call(const void *a, const void *b)
{
	const struct xs_call *x = a, *y = b;

	if (x->to_obj != y->to_obj)
		return x->to_obj < y->to_obj ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

/* The items (in object, then offset order: raw_parse normalizes) and the
 * calls, grouped into functions by target.  -1 if not exact counts. */
static int collect(struct xs *x, const struct raw_profile *p, const char *name,
		   uint64_t *total)
{
	size_t ni = 0, nc = 0;

	for (size_t i = 0; i < p->nobjs; i++) {
		ni += p->objs[i].nranges;
		nc += p->objs[i].nbranches;
	}
	x->items = xmalloc((ni ? ni : 1) * sizeof(*x->items));
	x->calls = xmalloc((nc ? nc : 1) * sizeof(*x->calls));
	*total = 0;
	for (uint32_t i = 0; i < p->nobjs; i++) {
		const struct raw_object *o = &p->objs[i];

		for (size_t k = 0; k < o->nranges; k++) {
			if (o->ranges[k].begin != o->ranges[k].end)
				return err("%s: object %u, range %zu [%#" PRIx64 ", %#" PRIx64 "]: not a single instruction: not an exact-count profile (pgoprof record --exact)",
					   name, i, k, o->ranges[k].begin, o->ranges[k].end);
			if (!o->ranges[k].count)
				continue;
			x->items[x->nitems++] = (struct xs_item){ i, o->ranges[k].begin, o->ranges[k].count };
			*total += o->ranges[k].count;
		}
		for (size_t k = 0; k < o->nbranches; k++)
			if (o->branches[k].count && o->branches[k].to_obj < p->nobjs)
				x->calls[x->ncalls++] = (struct xs_call){
					i, o->branches[k].from, o->branches[k].to_obj,
					o->branches[k].to, o->branches[k].count };
	}
	if (!*total)
		return err("%s: no instruction counts: not an exact-count profile (pgoprof record --exact)", name);
	sort(x->calls, x->ncalls, sizeof(*x->calls), cmp_call);
	return 0;
}

static int cmp_func(const void *a, const void *b)
{
	const struct xs_func *x = a, *y = b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

static void add_func(struct xs *x, size_t *cap, uint32_t obj, uint64_t entry,
		     uint64_t end)
{
	grow(&x->funcs, cap, x->nfuncs + 1, sizeof(*x->funcs));
	x->funcs[x->nfuncs++] = (struct xs_func){ obj, entry, end, 0, 0 };
}

/* The functions of object obj from the symbol table of the file it was
 * recorded at (.symtab, else .dynsym: proc/unwind_fp.c's reading), if
 * that file is there and has the object's build-ID.  Returns how many. */
static size_t symbol_funcs(struct xs *x, size_t *cap, uint32_t obj,
			   const struct raw_object *o)
{
	uint8_t id[RAW_BUILD_ID_MAX];
	uint32_t len = 0;
	struct uw_func *f = NULL;
	struct load_seg *segs = NULL;
	size_t n = 0, added = 0;
	int fd, nsegs;
	Elf *elf = NULL;

	if (!o->path || o->id_kind != RAW_ID_BUILD_ID ||
	    (fd = open(o->path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	if (!buildid_read_fd(fd, id, sizeof(id), &len) &&
	    raw_same_build_id(id, len, o->build_id, o->build_id_len) &&
	    (elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) &&
	    (nsegs = elf_load_segments(elf, &segs)) > 0)
		n = uw_elf_funcs(elf, &f);
	for (size_t i = 0; i < n; i++) {
		uint64_t lo, hi;

		if (!vaddr_to_offset(segs, nsegs, f[i].lo, &lo) &&
		    !vaddr_to_offset(segs, nsegs, f[i].hi - 1, &hi)) {
			add_func(x, cap, obj, lo, hi + 1);
			added++;
		}
	}
	free(f);
	free(segs);
	if (elf)
		elf_end(elf);
	close(fd);
	return added;
}

/* 1 if (obj, off) is inside one of funcs[from, n) (sorted). */
static int inside(const struct xs_func *f, size_t from, size_t n, uint64_t off)
{
	size_t lo = from, hi = n;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (f[m].entry <= off)
			lo = m + 1;
		else
			hi = m;
	}
	return lo > from && off < f[lo - 1].end;
}

/* The functions of every object: its symbols where its file can be read
 * (sorted), and the call targets outside them (a stripped library's
 * internal functions, an IFUNC's implementations), each up to the next
 * function; then each function's calls.  Calls to a place inside a
 * function but not at its start are no callers (counted). */
static void functions(struct xs *x, const struct raw_profile *p, struct xs_stats *st)
{
	size_t cap = 0, k = 0;

	elf_version(EV_CURRENT);
	for (uint32_t i = 0; i < p->nobjs; i++) {
		size_t from = x->nfuncs, nsym;

		if (!symbol_funcs(x, &cap, i, &p->objs[i]))
			st->objects_without_symbols++;
		sort(x->funcs + from, x->nfuncs - from, sizeof(*x->funcs), cmp_func);
		nsym = x->nfuncs;
		for (size_t c = 0; c < x->ncalls; c++)	/* sorted by target */
			if (x->calls[c].to_obj == i && !inside(x->funcs, from, nsym, x->calls[c].to) &&
			    (x->nfuncs == nsym || x->funcs[x->nfuncs - 1].entry != x->calls[c].to))
				add_func(x, &cap, i, x->calls[c].to, UINT64_MAX);
	}
	sort(x->funcs, x->nfuncs, sizeof(*x->funcs), cmp_func);
	for (size_t i = 0; i < x->nfuncs; i++) {
		struct xs_func *f = &x->funcs[i];

		if (i + 1 < x->nfuncs && f[1].obj == f->obj && f->end > f[1].entry)
			f->end = f[1].entry;	/* a call target's: up to the next */

		while (k < x->ncalls && (x->calls[k].to_obj < f->obj ||
		       (x->calls[k].to_obj == f->obj && x->calls[k].to < f->entry)))
			st->calls_not_to_entry += x->calls[k++].cum;
		f->first = k;
		for (; k < x->ncalls && x->calls[k].to_obj == f->obj &&
		       x->calls[k].to == f->entry; k++) {
			/* cum holds the call's own count until here */
			if (f->n++)
				x->calls[k].cum += x->calls[k - 1].cum;
		}
	}
	for (; k < x->ncalls; k++)
		st->calls_not_to_entry += x->calls[k].cum;
}

/* Vose's alias method (M. D. Vose, "A linear algorithm for generating
 * random numbers with a given distribution", IEEE TSE 17(9), 1991): a
 * draw is one uniform index and one uniform real. */
static void build_alias(struct xs *x, uint64_t total)
{
	size_t n = x->nitems, ns = 0, nl = 0;
	size_t *small = xmalloc(n * sizeof(*small)), *large = xmalloc(n * sizeof(*large));

	x->prob = xmalloc(n * sizeof(*x->prob));
	x->alias = xmalloc(n * sizeof(*x->alias));
	for (size_t i = 0; i < n; i++) {
		x->prob[i] = (double)x->items[i].count * (double)n / (double)total;
		x->alias[i] = i;
		if (x->prob[i] < 1.0)
			small[ns++] = i;
		else
			large[nl++] = i;
	}
	while (ns && nl) {
		size_t s = small[--ns], l = large[nl - 1];

		x->alias[s] = l;
		x->prob[l] -= 1.0 - x->prob[s];
		if (x->prob[l] < 1.0) {
			nl--;
			small[ns++] = l;
		}
	}
	/* what rounding leaves on either list is a probability of 1 */
	while (nl)
		x->prob[large[--nl]] = 1.0;
	while (ns)
		x->prob[small[--ns]] = 1.0;
	free(small);
	free(large);
}

static size_t draw(const struct xs *x, uint64_t *rng)
{
	size_t i = (size_t)xs_below(rng, x->nitems);

	return unit(rng) < x->prob[i] ? i : x->alias[i];
}

/* The first item after (obj, off) in the same object, or -1. */
static long next_item(const struct xs *x, uint32_t obj, uint64_t off)
{
	size_t lo = 0, hi = x->nitems;

	while (lo < hi) {	/* first item > (obj, off) */
		size_t m = lo + (hi - lo) / 2;
		const struct xs_item *it = &x->items[m];

		if (it->obj < obj || (it->obj == obj && it->off <= off))
			lo = m + 1;
		else
			hi = m;
	}
	return lo < x->nitems && x->items[lo].obj == obj ? (long)lo : -1;
}

/* The function that holds (obj, off), or NULL. */
static const struct xs_func *func_of(const struct xs *x, uint32_t obj, uint64_t off)
{
	size_t lo = 0, hi = x->nfuncs;

	while (lo < hi) {	/* first function > (obj, off) */
		size_t m = lo + (hi - lo) / 2;
		const struct xs_func *f = &x->funcs[m];

		if (f->obj < obj || (f->obj == obj && f->entry <= off))
			lo = m + 1;
		else
			hi = m;
	}
	return lo && x->funcs[lo - 1].obj == obj && off < x->funcs[lo - 1].end
	       ? &x->funcs[lo - 1] : NULL;
}

/* One of f's calls, in proportion to their counts. */
static const struct xs_call *draw_call(const struct xs *x, const struct xs_func *f,
				       uint64_t *rng)
{
	const struct xs_call *c = &x->calls[f->first];
	uint64_t u = xs_below(rng, c[f->n - 1].cum);
	size_t lo = 0, hi = f->n - 1;

	while (lo < hi) {	/* first call with cum > u */
		size_t m = lo + (hi - lo) / 2;

		if (c[m].cum <= u)
			lo = m + 1;
		else
			hi = m;
	}
	return &c[lo];
}

/* 1 if a and b (offsets in obj) are in one function, or a in none. */
static int same_func(const struct xs *x, uint32_t obj, uint64_t a, uint64_t b)
{
	const struct xs_func *f = func_of(x, obj, a);

	return !f || (b >= f->entry && b < f->end);
}

/* 1 if f is among the n functions on. */
static int on_stack(const struct xs_func *const *on, uint32_t n, const struct xs_func *f)
{
	for (uint32_t i = 0; i < n; i++)
		if (on[i] == f)
			return 1;
	return 0;
}

/* The stack of one sample at item i: frames[0] the leaf, then return
 * addresses; on[] the functions of the frames.  A caller drawn whose
 * function is on the stack already ends it (recursion is followed one
 * level): call counts say how often a function calls itself, not how
 * deep, and a first-order chain through a cycle (an interpreter's
 * metamethod calls) would run to max_depth on nearly every sample.
 * Returns the depth. */
static uint32_t stack_of(const struct xs *x, size_t i, struct raw_frame *fr,
			 const struct xs_func **on, const struct xs_options *o,
			 uint64_t *rng, struct xs_stats *st)
{
	uint32_t d = 1;
	const struct xs_func *f;

	fr[0] = (struct raw_frame){ x->items[i].obj, x->items[i].off };
	while ((f = func_of(x, fr[d - 1].obj, fr[d - 1].offset)) && f->n) {
		const struct xs_call *c;
		long r;

		if (on_stack(on, d - 1, f)) {
			st->recursion_cut++;
			break;
		}
		on[d - 1] = f;
		if (d == o->max_depth) {
			st->depth_cut++;
			break;
		}
		c = draw_call(x, f, rng);
		r = next_item(x, c->obj, c->from);
		if (r < 0 || !same_func(x, c->obj, c->from, x->items[r].off)) {
			st->no_return++;
			break;
		}
		fr[d++] = (struct raw_frame){ c->obj, x->items[r].off };
		st->frames++;
	}
	return d;
}

/* in's objects into out, with the same indexes: 0, or -1 after a message
 * (the input is canonical, its IDs distinct: not reached). */
static int copy_objects(const struct raw_profile *in, struct raw_profile *out)
{
	for (size_t i = 0; i < in->nobjs; i++) {
		const struct raw_object *o = &in->objs[i];
		uint32_t k = raw_object_id(out, (enum raw_id_kind)o->id_kind,
					   o->build_id, o->build_id_len, o->path);

		if (k != i)
			return err("expsample: object %zu became %u", i, k);
	}
	return 0;
}

static void set_meta(const struct raw_profile *in, const struct xs_options *o,
		     uint64_t total, struct raw_profile *out)
{
	const char *target = raw_get_meta(in, "target");
	char buf[160];

	raw_set_meta(out, "tool", "pgoprof " PGOPROF_VERSION " expsample");
	raw_set_meta(out, "mode", "stack-fp");
	raw_set_meta(out, "event", "instructions");
	raw_set_meta(out, "signal", "executions");
	raw_set_meta(out, "call_graph", "fp");
	snprintf(buf, sizeof(buf), "%" PRIu64, total / o->samples ? total / o->samples : 1);
	raw_set_meta(out, "sample_period", buf);
	snprintf(buf, sizeof(buf), "%" PRIu64 " samples from exact counts, seed %" PRIu64 ", skid %g",
		 o->samples, o->seed, o->skid);
	raw_set_meta(out, "synthesized", buf);
	if (target)
		raw_set_meta(out, "target", target);
}

int xs_sample(const struct raw_profile *exact, const char *name,
	      const struct xs_options *o, struct raw_profile *out,
	      struct xs_stats *st)
{
	struct xs x = { 0 };
	struct xs_stats s = { 0 };
	struct raw_frame *fr = xmalloc(o->max_depth * sizeof(*fr));
	const struct xs_func **on = xmalloc(o->max_depth * sizeof(*on));
	uint64_t rng = o->seed;
	int rc = -1;

	if (collect(&x, exact, name, &s.instructions))
		goto out;
	build_alias(&x, s.instructions);
	functions(&x, exact, &s);
	if (copy_objects(exact, out))
		goto out;
	set_meta(exact, o, s.instructions, out);
	for (uint64_t n = 0; n < o->samples; n++) {
		size_t i = draw(&x, &rng);
		long j;

		if (o->skid > 0 && unit(&rng) < o->skid &&
		    (j = next_item(&x, x.items[i].obj, x.items[i].off)) >= 0) {
			i = (size_t)j;
			s.skidded++;
		}
		raw_add_sampled_stack(out, fr, stack_of(&x, i, fr, on, o, &rng, &s), 1);
	}
	raw_add_counter(out, CNT_SAMPLES, o->samples);
	raw_add_counter(out, CNT_LOST, 0);
	rc = 0;
out:
	if (st)
		*st = s;
	free(fr);
	free(on);
	free(x.items);
	free(x.prob);
	free(x.alias);
	free(x.calls);
	free(x.funcs);
	return rc;
}
