/* SPDX-License-Identifier: GPL-2.0-only */
/* A function's line offsets in the recorded build against a new build
 * (stale.h).  Fingerprints are order-free sums within a line, so code
 * that the scheduler spreads differently over a line's instructions still
 * matches; the alignment keeps line order, so lines shifted as a block
 * (lines inserted above them) match at a constant distance. */
#include "stale.h"
#include "../lib/hash.h"
#include "../lib/util.h"

#include <stdlib.h>
#include <string.h>

/* The dynamic-programming table of the alignment, at most this many
 * cells (4 bytes each); bigger functions are compared line by line. */
#define STALE_LCS_CELLS (8u << 20)

struct fpline {
	uint32_t off;		/* top-level line offset */
	uint64_t fp;		/* sum of its instructions' hashes */
};

struct lineset {
	struct fpline *v;
	size_t n, cap;
	struct symbolizer *s;
	struct sym_result r;
};

static int cmp_off(const void *a, const void *b)
{
	const struct fpline *x = a, *y = b;

	return (x->off > y->off) - (x->off < y->off);
}

static int cmp_off_fp(const void *a, const void *b)
{
	const struct fpline *x = a, *y = b;

	if (x->off != y->off)
		return (x->off > y->off) - (x->off < y->off);
	return (x->fp > y->fp) - (x->fp < y->fp);
}

/* Instructions that code layout and register allocation make, not the
 * line's source: jumps, returns, padding, saves of callee-saved
 * registers.  A PGO build of the same source moves and duplicates them
 * (clang-16: warm of tests/workloads/stale.c gained a jmp and lost a ret
 * and a test). */
static int layout_insn(const char *m)
{
	static const char *const skip[] = { "ret", "nop", "cs", "int3", "ud2",
					    "endbr", "push", "pop", "xchg" };

	if (m[0] == 'j')
		return 1;
	for (size_t i = 0; i < sizeof(skip) / sizeof(*skip); i++)
		if (!strncmp(m, skip[i], strlen(skip[i])))
			return 1;
	return 0;
}

/* One instruction: its mnemonic and the function inlined there (if any)
 * for the fingerprint of its top-level line; a layout instruction keeps
 * the line, with nothing. */
static void add_insn(uint64_t vaddr, uint32_t len, void *arg)
{
	struct lineset *l = arg;
	char text[128];
	size_t k;
	uint64_t h = 0;

	(void)len;
	if (sym_lookup(l->s, vaddr, &l->r) != SYM_OK || !l->r.frames[0].line)
		return;
	if (!sym_insn_text(l->s, vaddr, text, sizeof(text)))
		return;
	k = strcspn(text, " \t");
	text[k] = 0;
	if (!layout_insn(text)) {
		h = hash_str(HASH_INIT, text);
		if (l->r.nframes > 1)
			h = hash_str(hash_byte(h, 0), l->r.frames[1].name);
	}
	grow(&l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = (struct fpline){ l->r.frames[0].line_offset & 0xffff, h };
}

/* The lines of the function named name in s, by offset, one entry each;
 * 0 lines if s has no such function. */
static void function_lines(struct symbolizer *s, const char *name,
			   struct lineset *l)
{
	long fn = sym_function_by_name(s, name);
	size_t w = 0;

	memset(l, 0, sizeof(*l));
	l->s = s;
	if (fn < 0)
		return;
	sym_function_insns(s, fn, add_insn, l);
	/* A line's fingerprint is the sum of its distinct hashes: unrolled
	 * or duplicated copies of its code count once. */
	sort(l->v, l->n, sizeof(*l->v), cmp_off_fp);
	for (size_t i = 0; i < l->n; i++) {
		if (i && l->v[i - 1].off == l->v[i].off && l->v[i - 1].fp == l->v[i].fp)
			continue;
		if (w && l->v[w - 1].off == l->v[i].off)
			l->v[w - 1].fp += l->v[i].fp;
		else
			l->v[w++] = l->v[i];
	}
	l->n = w;
}

/* match[i]: the index in b of old line a[i], or -1.  The longest common
 * subsequence of the fingerprints; too big a table: equal offsets and
 * fingerprints only. */
static void align(const struct lineset *a, const struct lineset *b, long *match)
{
	size_t n = a->n, m = b->n, w = m + 1;
	uint32_t *t;

	for (size_t i = 0; i < n; i++)
		match[i] = -1;
	if ((n + 1) * w > STALE_LCS_CELLS) {
		for (size_t i = 0, j = 0; i < n; i++) {
			while (j < m && b->v[j].off < a->v[i].off)
				j++;
			if (j < m && b->v[j].off == a->v[i].off && b->v[j].fp == a->v[i].fp)
				match[i] = (long)j;
		}
		return;
	}
	t = xcalloc((n + 1) * w, sizeof(*t));
	for (size_t i = n; i-- > 0;)
		for (size_t j = m; j-- > 0;)
			t[i * w + j] = a->v[i].fp == b->v[j].fp ?
				t[(i + 1) * w + j + 1] + 1 :
				(t[(i + 1) * w + j] > t[i * w + j + 1] ?
				 t[(i + 1) * w + j] : t[i * w + j + 1]);
	for (size_t i = 0, j = 0; i < n && j < m;) {
		if (a->v[i].fp == b->v[j].fp)
			match[i++] = (long)j++;
		else if (t[(i + 1) * w + j] >= t[i * w + j + 1])
			i++;
		else
			j++;
	}
	free(t);
}

struct deltas {
	int32_t d[64];
	uint64_t n[64];
	uint32_t from[64];
	size_t len;
};

/* count samples on old line offset off: kept, moved (by how much) or lost. */
static void place(const struct lineset *a, const struct lineset *b,
		  const long *match, uint32_t off, uint64_t count,
		  struct stale_verdict *v, struct deltas *ds)
{
	struct fpline key = { off & 0xffff, 0 };
	const struct fpline *p = bsearch(&key, a->v, a->n, sizeof(*a->v), cmp_off);
	long j;
	int32_t d;
	size_t k;

	if (!p)			/* no code there in the recorded build */
		return;
	j = match[p - a->v];
	if (j < 0) {
		v->lost += count;
		return;
	}
	d = (int32_t)b->v[j].off - (int32_t)p->off;
	if (!d) {
		v->kept += count;
		return;
	}
	v->moved += count;
	for (k = 0; k < ds->len && ds->d[k] != d; k++)
		;
	if (k == ds->len) {
		if (ds->len == 64)
			return;
		ds->len++;
		ds->d[k] = d;
		ds->n[k] = 0;
		ds->from[k] = p->off;
	}
	ds->n[k] += count;
	if (p->off < ds->from[k])
		ds->from[k] = p->off;
}

static void classify(struct stale_verdict *v, const struct deltas *ds)
{
	uint64_t known = v->kept + v->moved + v->lost, best = 0;

	for (size_t k = 0; k < ds->len; k++)
		if (ds->n[k] > best) {
			best = ds->n[k];
			v->shift = ds->d[k];
			v->from = ds->from[k];
		}
	if (v->lost * 10 > known)
		v->kind = STALE_REWRITTEN;
	else if (v->moved * 100 > known)
		v->kind = STALE_SHIFTED;
	else
		v->kind = STALE_UNCHANGED;
}

void stale_compare(const struct fsamples *f, struct symbolizer *old,
		   struct symbolizer *new, struct stale_verdict *v)
{
	struct lineset *a = xmalloc(sizeof(*a)), *b = xmalloc(sizeof(*b));
	struct deltas ds = { .len = 0 };
	long *match;

	memset(v, 0, sizeof(*v));
	for (size_t i = 0; i < f->nbody; i++)
		v->total += f->body[i].count;
	for (size_t i = 0; i < f->ncs; i++)
		v->total += f->cs[i].callee->total;
	function_lines(old, f->name, a);
	function_lines(new, f->name, b);
	if (!a->n || !b->n) {
		v->kind = !a->n ? STALE_NO_OLD : STALE_MISSING;
		goto out;
	}
	match = xcalloc(a->n, sizeof(*match));
	align(a, b, match);
	for (size_t i = 0; i < f->nbody; i++)
		place(a, b, match, f->body[i].line, f->body[i].count, v, &ds);
	for (size_t i = 0; i < f->ncs; i++)
		place(a, b, match, f->cs[i].line, f->cs[i].callee->total, v, &ds);
	free(match);
	classify(v, &ds);
out:
	free(a->v);
	free(b->v);
	free(a);
	free(b);
}

const char *stale_kind_name(enum stale_kind k)
{
	static const char *const names[] = {
		[STALE_UNCHANGED] = "unchanged",
		[STALE_SHIFTED] = "shifted",
		[STALE_REWRITTEN] = "rewritten",
		[STALE_MISSING] = "missing",
		[STALE_NO_OLD] = "not in the recorded binary",
	};

	return names[k];
}
