/* SPDX-License-Identifier: GPL-2.0-only */
/* Raw frames to named frames: binaries found by build-ID, and a cache of
 * the frames of each (object, offset, leaf), since a stack table repeats
 * the same return addresses in many stacks. */
#include "syms.h"
#include "funcs.h"
#include "demangle.h"
#include "../convert/binobj.h"
#include "../convert/symbolize.h"
#include "../lib/hash.h"
#include "../lib/hindex.h"
#include "../lib/util.h"
#include "../raw/signal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct rep_bin {
	struct symbolizer *sym;	/* also the source lines (sym_source_line) */
};

struct cache_ent {
	uint32_t obj;
	uint64_t key;		/* offset << 1 | leaf */
	size_t first;		/* in pool */
	int n;
};

struct rep_syms {
	const struct raw_profile *p;
	struct strtab *names;
	unsigned flags;
	struct rep_bin *bins;	/* one per object; sym NULL: none */
	unsigned char *used;	/* per --binary: matched an object */
	struct cache_ent *cache;	/* frames looked up, by (obj, key) */
	size_t cache_n, cache_cap;
	struct hindex cache_index;
	struct rep_sframe *pool;
	size_t npool, cap_pool;
	struct rep_sframe one;	/* a mark's frame */
	struct rep_sframe *walk;	/* rep_walk_raw's stack */
	size_t cap_walk;
};

/* 1 if object o has counts of its own, or the profile has stacks (which
 * may name it). */
static int has_counts(const struct raw_profile *p, const struct raw_object *o)
{
	return o->nips || o->nedges || o->nranges || o->nbranches || p->stacks.n;
}

static void set_binary(struct rep_syms *s, uint32_t obj, struct symbolizer *sym)
{
	s->bins[obj].sym = sym;
}

/* An object without a --binary: the file at its recorded path, if it is
 * still the same file. */
static void recorded_binary(struct rep_syms *s, uint32_t obj)
{
	const struct raw_object *o = &s->p->objs[obj];
	struct symbolizer *sym;

	if (o->id_kind == RAW_ID_PATH || !has_counts(s->p, o))
		return;
	sym = binobj_open_recorded(o);
	if (sym)
		set_binary(s, obj, sym);
}

/* Lenient (diff): a binary of the other profile is no error, and no
 * message, so it is matched by build-ID only, without the explanations
 * of raw_binary_object. */
static int given_binary(struct rep_syms *s, const char *raw_path,
			const char *path, size_t k)
{
	struct symbolizer *sym = sym_open(path, NULL, 0);
	const uint8_t *id;
	size_t len;
	int obj;

	if (!sym)
		return -1;
	id = sym_build_id(sym, &len);
	if (s->flags & REP_LENIENT)
		obj = id ? raw_match_object(s->p, id, (uint32_t)len) : -1;
	else
		obj = binobj_find(sym, s->p, raw_path, NULL);
	if (obj < 0 || s->bins[obj].sym) {
		sym_close(sym);
		if (obj >= 0)
			warnx("%s: its object in %s has a binary already; ignored",
			      path, raw_path);
		return s->flags & REP_LENIENT ? 0 : -1;
	}
	set_binary(s, (uint32_t)obj, sym);
	s->used[k] = 1;
	return 0;
}

int rep_syms_binary_used(const struct rep_syms *s, size_t k)
{
	return s->used[k];
}

struct rep_syms *rep_syms_open(const struct raw_profile *p,
			       const char *raw_path, const char *const *binaries,
			       size_t nbin, unsigned flags, struct strtab *names)
{
	struct rep_syms *s = xcalloc(1, sizeof(*s));

	s->p = p;
	s->names = names;
	s->flags = flags;
	s->bins = xcalloc(p->nobjs + 1, sizeof(*s->bins));
	s->used = xcalloc(nbin + 1, 1);
	for (size_t i = 0; i < nbin; i++) {
		if (given_binary(s, raw_path, binaries[i], i)) {
			rep_syms_close(s);
			return NULL;
		}
	}
	for (uint32_t i = 0; i < p->nobjs; i++)
		if (!s->bins[i].sym)
			recorded_binary(s, i);
	return s;
}

void rep_syms_close(struct rep_syms *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->p->nobjs; i++)
		if (s->bins[i].sym)
			sym_close(s->bins[i].sym);
	free(s->bins);
	free(s->used);
	free(s->cache);
	hindex_free(&s->cache_index);
	free(s->pool);
	free(s->walk);
	free(s);
}

size_t rep_syms_unnamed(const struct rep_syms *s, const char **first)
{
	size_t n = 0;

	*first = NULL;
	for (size_t i = 0; i < s->p->nobjs; i++) {
		const struct raw_object *o = &s->p->objs[i];

		if (s->bins[i].sym || !has_counts(s->p, o))
			continue;
		if (!n++)
			*first = o->path;
	}
	return n;
}

static const char *intern_name(struct rep_syms *s, const char *linkage)
{
	char *d = s->flags & REP_NO_DEMANGLE ? NULL : rep_demangle(linkage);
	const char *r;

	if (!d)
		return strtab_get(s->names, linkage);
	r = strtab_get(s->names, d);
	free(d);
	return r;
}

/* "[PATH]" or "[PATH+0xOFFSET]"; a pseudo-path that has brackets of its
 * own ("[vdso]") keeps them only. */
static const char *unnamed(struct rep_syms *s, const struct raw_object *o,
			   uint64_t off)
{
	char buf[4200], id[2 * RAW_BUILD_ID_MAX + 1];
	const char *where = o->path;
	int len;

	if (!where || !*where) {
		hex_string(id, o->build_id, o->build_id_len);
		where = id;
	}
	len = (int)strlen(where);
	if (where[0] == '[' && len > 2 && where[len - 1] == ']') {
		where++;
		len -= 2;
	}
	if (len > 4000)
		len = 4000;
	if (s->flags & REP_OFFSETS)
		snprintf(buf, sizeof(buf), "[%.*s+0x%" PRIx64 "]", len, where, off);
	else
		snprintf(buf, sizeof(buf), "[%.*s]", len, where);
	return strtab_get(s->names, buf);
}

static struct rep_sframe *pool_add(struct rep_syms *s)
{
	grow(&s->pool, &s->cap_pool, s->npool + 1, sizeof(*s->pool));
	memset(&s->pool[s->npool], 0, sizeof(*s->pool));
	return &s->pool[s->npool++];
}

/* The source line of the leaf frame just added at vaddr, or why it has
 * none: st is the symbolizer's answer there, name the symbol table's
 * function when it had none. */
static void leaf_line(struct rep_syms *s, struct rep_bin *b, uint64_t vaddr,
		      enum sym_status st, const char *name)
{
	struct rep_sframe *last = &s->pool[s->npool - 1];
	const char *file = sym_source_line(b->sym, vaddr, &last->line);

	last->file = file ? strtab_get(s->names, file) : NULL;
	if (file)
		return;
	last->line = 0;
	if (st == SYM_OK || st == SYM_NO_LINE)
		last->noline = REP_NOLINE_LINE0;
	else
		last->noline = name ? REP_NOLINE_NO_DEBUG : REP_NOLINE_NO_SYMBOL;
}

/* Append f's frames to the pool. */
static void lookup(struct rep_syms *s, const struct raw_frame *f, int leaf)
{
	const struct raw_object *o = &s->p->objs[f->obj];
	struct rep_bin *b = &s->bins[f->obj];
	uint64_t off = leaf || !f->offset ? f->offset : f->offset - 1;
	const struct load_seg *segs;
	struct sym_result r;
	const char *name = NULL;
	uint64_t vaddr;
	int nseg;

	enum sym_status st;

	if (!b->sym) {
		pool_add(s)->name = unnamed(s, o, f->offset);
		s->pool[s->npool - 1].noline = REP_NOLINE_NO_BINARY;
		return;
	}
	segs = sym_segments(b->sym, &nseg);
	if (offset_to_vaddr(segs, nseg, off, &vaddr)) {
		pool_add(s)->name = unnamed(s, o, f->offset);
		s->pool[s->npool - 1].noline = REP_NOLINE_NO_SEGMENT;
		return;
	}
	if ((st = sym_lookup(b->sym, vaddr, &r)) == SYM_OK) {
		for (int i = 0; i < r.nframes; i++) {
			struct rep_sframe *sf = pool_add(s);

			sf->name = intern_name(s, r.frames[i].name);
			sf->inlined = i > 0;
		}
	} else if ((name = sym_function_name(b->sym, vaddr))) {
		pool_add(s)->name = intern_name(s, name);
	} else {
		pool_add(s)->name = unnamed(s, o, f->offset);
	}
	if (leaf)
		leaf_line(s, b, vaddr, st, name);
}

static uint64_t cache_key(uint32_t obj, uint64_t key)
{
	return hash_u64(hash_u64(HASH_INIT, obj), key);
}

static uint64_t cache_hash(const void *s, size_t i)
{
	const struct cache_ent *e = &((const struct rep_syms *)s)->cache[i];

	return cache_key(e->obj, e->key);
}

static int cache_eq(const void *s, size_t i, const void *k)
{
	const struct cache_ent *e = &((const struct rep_syms *)s)->cache[i];
	const struct cache_ent *key = k;

	return e->obj == key->obj && e->key == key->key;
}

const struct rep_sframe *rep_syms_frame(struct rep_syms *s,
					const struct raw_frame *f, int leaf,
					int *n)
{
	struct cache_ent k = { f->obj, f->offset << 1 | (leaf != 0), 0, 0 };
	struct cache_ent *e;
	size_t *slot;

	if (f->obj >= s->p->nobjs) {
		memset(&s->one, 0, sizeof(s->one));
		s->one.name = strtab_get(s->names, f->obj == RAW_FRAME_KERNEL ?
					 REP_KERNEL : REP_UNKNOWN);
		s->one.noline = f->obj == RAW_FRAME_KERNEL ? REP_NOLINE_KERNEL :
				REP_NOLINE_UNKNOWN;
		*n = 1;
		return &s->one;
	}
	hindex_reserve(&s->cache_index, s->cache_n, 1024, cache_hash, s);
	slot = hindex_find(&s->cache_index, cache_key(k.obj, k.key), cache_eq,
			   s, &k);
	if (!*slot) {
		k.first = s->npool;
		lookup(s, f, leaf);
		k.n = (int)(s->npool - k.first);
		grow(&s->cache, &s->cache_cap, s->cache_n + 1, sizeof(*s->cache));
		s->cache[s->cache_n] = k;
		*slot = ++s->cache_n;
	}
	e = &s->cache[*slot - 1];
	*n = e->n;
	return &s->pool[e->first];
}

static void walk_push(struct rep_syms *s, size_t *n, const struct raw_frame *f,
		      int leaf)
{
	int k;
	const struct rep_sframe *sf = rep_syms_frame(s, f, leaf, &k);

	grow(&s->walk, &s->cap_walk, *n + (size_t)k, sizeof(*s->walk));
	memcpy(&s->walk[*n], sf, (size_t)k * sizeof(*sf));
	*n += (size_t)k;
}

struct symbolizer *rep_syms_binary(struct rep_syms *s, uint32_t obj)
{
	return obj < s->p->nobjs ? s->bins[obj].sym : NULL;
}

int rep_syms_has_stacks(const struct rep_syms *s)
{
	return s->p->stacks.n > 0;
}

struct range_walk {
	struct rep_syms *s;
	uint32_t obj;
	uint64_t count;
	rep_stack_cb *cb;
	void *arg;
};

static void range_insn(uint64_t off, void *arg)
{
	struct range_walk *w = arg;
	struct raw_frame f = { w->obj, off };
	size_t n = 0;

	walk_push(w->s, &n, &f, 1);
	w->cb(w->s->walk, n, w->count, w->arg);
}

/* Each instruction of range r of object obj, count times: the range
 * runs from the instruction at begin to the one at end, both file
 * offsets (docs/raw-format.md, section 3.4), decoded with capstone. */
static void walk_range(struct rep_syms *s, uint32_t obj,
		       const struct raw_range *r, rep_stack_cb *cb, void *arg)
{
	struct range_walk w = { s, obj, r->count, cb, arg };

	sym_range_insns(s->bins[obj].sym, r->begin, r->end, range_insn, &w);
}

enum rep_walk rep_walk_raw(struct rep_syms *s, rep_stack_cb *cb, void *arg,
			   uint64_t *skipped)
{
	const struct raw_profile *p = s->p;
	int ips = 0;

	*skipped = 0;
	if (p->stacks.n) {
		for (size_t i = 0; i < p->stacks.n; i++) {
			const struct raw_stack *st = &p->stacks.v[i];
			const struct raw_frame *f = raw_stack_frames(p, st);
			size_t n = 0;

			for (uint32_t j = st->depth; j-- > 0;)
				walk_push(s, &n, &f[j], j == 0);
			cb(s->walk, n, st->count, arg);
		}
		return REP_WALK_STACKS;
	}
	for (uint32_t i = 0; i < p->nobjs; i++) {
		for (size_t k = 0; k < p->objs[i].nips; k++) {
			struct raw_frame f = { i, p->objs[i].ips[k].offset };
			size_t n = 0;

			walk_push(s, &n, &f, 1);
			cb(s->walk, n, p->objs[i].ips[k].count, arg);
			ips = 1;
		}
	}
	if (ips)
		return REP_WALK_IPS;
	for (uint32_t i = 0; i < p->nobjs; i++) {
		for (size_t k = 0; k < p->objs[i].nranges; k++) {
			if (s->bins[i].sym)
				walk_range(s, i, &p->objs[i].ranges[k], cb, arg);
			else
				*skipped = sat_add64(*skipped, p->objs[i].ranges[k].count);
		}
	}
	return REP_WALK_RANGES;
}

/* 1 if the branch to (obj, off) is a call: its target starts a function
 * (decoded from the binary); without a binary, only in an exact-count
 * profile, whose branches are all calls (docs/raw-format.md 5.1). */
static int is_call(struct rep_syms *s, uint32_t obj, uint64_t off, int exact)
{
	struct symbolizer *sym = obj < s->p->nobjs ? s->bins[obj].sym : NULL;
	const struct load_seg *segs;
	uint64_t vaddr;
	int nseg;

	if (!sym)
		return exact && obj < s->p->nobjs;
	segs = sym_segments(sym, &nseg);
	return !offset_to_vaddr(segs, nseg, off, &vaddr) &&
	       sym_starts_function(sym, vaddr);
}

uint64_t rep_walk_calls(struct rep_syms *s, rep_call_cb *cb, void *arg)
{
	const struct raw_profile *p = s->p;
	int exact = raw_signal_of(p) == SIGNAL_EXACT, n;
	uint64_t calls = 0;

	for (uint32_t i = 0; i < p->nobjs; i++) {
		for (size_t k = 0; k < p->objs[i].nbranches; k++) {
			const struct raw_branch *b = &p->objs[i].branches[k];
			struct raw_frame site = { i, b->from }, to = { b->to_obj, b->to };
			const struct rep_sframe *f;
			const char *callee;

			if (!is_call(s, b->to_obj, b->to, exact))
				continue;
			/* The pool moves: the callee's name first, then the
			 * site's chain, which stays until the next look-up. */
			callee = rep_syms_frame(s, &to, 1, &n)[0].name;
			f = rep_syms_frame(s, &site, 1, &n);
			cb(f, (size_t)n, callee, b->count, arg);
			calls = sat_add64(calls, b->count);
		}
	}
	return calls;
}
