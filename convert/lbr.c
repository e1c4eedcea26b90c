/* SPDX-License-Identifier: GPL-2.0-only */
/* Branch records -> function-sample tree, as llvm-profgen 16 builds its
 * line-number based profile.  The steps and where llvm-profgen has them:
 *
 *  1. A range [begin, end] is used if both ends are instructions, begin <=
 *     end and no call, return or direct unconditional jump lies in
 *     [begin, end) (PerfReader.cpp computeCounterFromLBR,
 *     isValidFallThroughRange, ProfiledBinary::rangeCrossUncondBranch).
 *     pgoprof also wants both ends in one function and the range shorter
 *     than LBR_MAX_RANGE; llvm-profgen only warns about the first.
 *  2. Every instruction of a function in which a used range begins gets
 *     the sum of the counts of the ranges that cover it, 0 if none
 *     (ProfileGenerator.cpp preprocessRangeCounter, findDisjointRanges).
 *  3. Each such instruction adds count x its length to the TOTAL of every
 *     frame of its inline chain, and raises its location's body count to
 *     count x duplication factor (populateBodySamplesForAllFunctions,
 *     getLeafProfileAndAddTotalSamples, updateBodySamplesforFunctionProfile).
 *  4. A branch to a function's entry adds to the callee's HEAD and to a
 *     call target at the source's location (populateBoundarySamples-
 *     ForAllFunctions, getCalleeNameForAddress).
 *  5. A top-level body count below the sum of its call targets is raised
 *     to it (FunctionSamples::updateCallsiteSamples; LLVM 16 leaves the
 *     inlined callsites as they are).
 * Each instruction is symbolized once: the per-instruction counts of a
 * function are summed first, with a difference array over its
 * instructions. */
#include "lbr.h"
#include "../lib/hash.h"
#include "../lib/hindex.h"
#include "../lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const lbr_drop_name[LBR_DROP_MAX] = {
	"an end outside any loadable segment",
	"begins after its end",
	"longer than 64 KiB",
	"begins outside any function with debug info",
	"ends in another function",
	"an end not at an instruction boundary (binary mismatch?)",
	"runs across a call, return or jump",
};

/* The decoded instructions of one function, in address order. */
struct fn_insns {
	long fn;
	size_t n, cap;
	uint64_t *addr;
	uint8_t *len;
	uint32_t *barriers;	/* [i]: calls, returns, jumps before insn i */
	uint8_t *kind;		/* [i]: INSN_* of insn i, with INSN_REPEAT */
	uint64_t *targets;	/* the direct branch targets in the function,
				 * sorted; made for the repeat rule only */
	size_t ntargets;
	int targets_made;
	uint64_t *diff;		/* difference array of counts; NULL if no
				 * range begins in the function */
};

struct lbr {
	struct symbolizer *sym;
	const struct load_seg *segs;
	int nsegs;
	struct fs_profile *prof;
	struct lbr_stats *st;
	struct fn_insns **fns;	/* in the order first seen */
	size_t nfns, cap_fns;
	struct hindex index;	/* fns by fn */
	struct sym_result *res;
	lbr_callee_fn callee_name;
	void *arg;
	int obj;
	unsigned flags;
	/* The object's branches into other objects, by source: the jumps of
	 * its PLT stubs among them. */
	const struct raw_branch **out;
	size_t nout;
	/* The inline chain of the last instruction, to skip the look-ups of
	 * its profiles when the next one shares it. */
	struct fsamples *node[SYM_MAX_FRAMES];
	const char *raw_name[SYM_MAX_FRAMES];	/* the symbolizer's names */
	uint32_t cs_line[SYM_MAX_FRAMES], cs_disc[SYM_MAX_FRAMES];
	int nnodes;
};

const char *lbr_canonical_name(const char *name, char *buf, size_t n)
{
	static const char *const suffixes[] = { ".llvm.", ".part." };
	size_t len;

	if (!strchr(name, '.'))
		return name;	/* no suffix: the common case */
	len = strlen(name);

	/* ".__uniq." stays: LLVM keeps it (FunctionSamples::HasUniqSuffix). */
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t sl = strlen(suffixes[i]);
		const char *it = NULL, *dot = NULL;

		for (const char *p = name; p + sl <= name + len; p++)
			if (!memcmp(p, suffixes[i], sl))
				it = p;
		for (const char *p = name; p < name + len; p++)
			if (*p == '.')
				dot = p;
		if (it && dot == it + sl - 1)
			len = (size_t)(it - name);
	}
	if (len == strlen(name) || len >= n)
		return name;
	memcpy(buf, name, len);
	buf[len] = 0;
	return buf;
}

static void add_insn(uint64_t vaddr, uint32_t len, unsigned kind, void *arg)
{
	struct fn_insns *f = arg;

	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->addr = xrealloc(f->addr, f->cap * sizeof(*f->addr));
		f->len = xrealloc(f->len, f->cap * sizeof(*f->len));
		f->barriers = xrealloc(f->barriers, (f->cap + 1) * sizeof(*f->barriers));
		f->kind = xrealloc(f->kind, f->cap * sizeof(*f->kind));
	}
	f->addr[f->n] = vaddr;
	f->kind[f->n] = (uint8_t)kind;
	f->len[f->n] = (uint8_t)(len > 255 ? 255 : len);
	/* For now the kind; turned into a running count below. */
	f->barriers[f->n] = (kind & (INSN_CALL | INSN_RET | INSN_JUMP)) != 0;
	f->n++;
}

static uint64_t fn_key(long fn)
{
	return hash_u64(HASH_INIT, (uint64_t)fn);
}

static uint64_t fn_hash(const void *l, size_t i)
{
	return fn_key(((const struct lbr *)l)->fns[i]->fn);
}

static int fn_eq(const void *l, size_t i, const void *fn)
{
	return ((const struct lbr *)l)->fns[i]->fn == *(const long *)fn;
}

/* The instructions of function fn, decoded on first use. */
static struct fn_insns *function_insns(struct lbr *l, long fn)
{
	struct fn_insns *f;
	size_t *slot;

	hindex_reserve(&l->index, l->nfns, 256, fn_hash, l);
	slot = hindex_find(&l->index, fn_key(fn), fn_eq, l, &fn);
	if (*slot)
		return l->fns[*slot - 1];
	f = xcalloc(1, sizeof(*f));
	f->fn = fn;
	sym_function_insns_kind(l->sym, fn, add_insn, f);
	if (!f->barriers)
		f->barriers = xcalloc(1, sizeof(*f->barriers));
	{
		uint32_t run = 0;

		for (size_t i = 0; i < f->n; i++) {
			uint32_t b = f->barriers[i];

			f->barriers[i] = run;
			run += b;
		}
		f->barriers[f->n] = run;
	}
	grow(&l->fns, &l->cap_fns, l->nfns + 1, sizeof(*l->fns));
	l->fns[l->nfns] = f;
	*slot = ++l->nfns;
	return f;
}

/* Index of the instruction that starts at vaddr, or -1. */
static long insn_index(const struct fn_insns *f, uint64_t vaddr)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->addr[mid] < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->n && f->addr[lo] == vaddr ? (long)lo : -1;
}

static void add_range(struct lbr *l, const struct raw_range *r)
{
	struct lbr_stats *st = l->st;
	uint64_t b, e;
	struct fn_insns *f;
	long fn, ib, ie;
	enum lbr_drop why;

	st->ranges = sat_add64(st->ranges, r->count);
	if (offset_to_vaddr(l->segs, l->nsegs, r->begin, &b) ||
	    offset_to_vaddr(l->segs, l->nsegs, r->end, &e))
		why = LBR_DROP_NO_SEGMENT;
	else if (b > e)
		why = LBR_DROP_BACKWARDS;
	else if (e - b >= LBR_MAX_RANGE)
		why = LBR_DROP_TOO_LONG;
	else if ((fn = sym_function_at(l->sym, b)) < 0)
		why = LBR_DROP_NO_FUNCTION;
	else if (sym_function_at(l->sym, e) != fn)
		why = LBR_DROP_CROSS_FUNCTION;
	else if (f = function_insns(l, fn),
		 (ib = insn_index(f, b)) < 0 || (ie = insn_index(f, e)) < 0)
		why = LBR_DROP_NOT_INSN;
	else if (f->barriers[ie] != f->barriers[ib])
		why = LBR_DROP_CROSS_BRANCH;
	else {
		if (!f->diff)
			f->diff = xcalloc(f->n + 1, sizeof(*f->diff));
		/* Modulo 2^64: exact whenever the true sums fit. */
		f->diff[ib] += r->count;
		f->diff[ie + 1] -= r->count;
		st->range_samples = sat_add64(st->range_samples, r->count);
		return;
	}
	st->dropped[why] = sat_add64(st->dropped[why], r->count);
}

/* The profile of each frame of l->res's inline chain, in l->node. */
static int chain_profiles(struct lbr *l)
{
	const struct sym_result *r = l->res;
	char buf[1024];
	int i = 0;

	/* Reuse the outer frames that the last chain shares. */
	for (; i < r->nframes && i < l->nnodes; i++) {
		if (i > 0 && (r->frames[i - 1].line_offset != l->cs_line[i - 1] ||
			      r->frames[i - 1].disc != l->cs_disc[i - 1]))
			break;
		if (r->frames[i].name != l->raw_name[i] &&
		    strcmp(lbr_canonical_name(r->frames[i].name, buf, sizeof(buf)),
			   l->node[i]->name))
			break;
		l->raw_name[i] = r->frames[i].name;
	}
	for (; i < r->nframes; i++) {
		const char *name = lbr_canonical_name(r->frames[i].name, buf, sizeof(buf));

		l->node[i] = i == 0 ? fs_function(l->prof, name)
				    : fs_inlinee(l->node[i - 1], r->frames[i - 1].line_offset,
						 r->frames[i - 1].disc, name);
		l->raw_name[i] = r->frames[i].name;
	}
	for (i = 0; i < r->nframes; i++) {
		l->cs_line[i] = r->frames[i].line_offset;
		l->cs_disc[i] = r->frames[i].disc;
	}
	l->nnodes = r->nframes;
	return l->nnodes;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Whether a direct jump or branch of function f goes to vaddr. */
static int branch_target(struct lbr *l, struct fn_insns *f, uint64_t vaddr)
{
	if (!f->targets_made) {
		size_t cap = 0;

		f->targets_made = 1;
		for (size_t i = 0; i < f->n; i++) {
			uint64_t t;

			if (!(f->kind[i] & (INSN_JUMP | INSN_BRANCH)) ||
			    (t = sym_branch_target(l->sym, f->addr[i])) == UINT64_MAX)
				continue;
			grow(&f->targets, &cap, f->ntargets + 1, sizeof(*f->targets));
			f->targets[f->ntargets++] = t;
		}
		qsort(f->targets, f->ntargets, sizeof(*f->targets), cmp_u64);
	}
	return f->ntargets &&
	       bsearch(&vaddr, f->targets, f->ntargets, sizeof(*f->targets), cmp_u64);
}

/* The executions of instruction i of f, counted as count, for exact
 * counts (LBR_REPEAT_ONCE): a REP string instruction is counted by the
 * engines once per iteration (insn.h, INSN_REPEAT), and the compiler
 * wants how often its block ran.  Where no direct branch goes to it, it
 * is entered only from the instruction before it, so it ran at most as
 * often as that one (prev: its count, as this rule left it).  gawk's
 * re_search_internal clears a struct with rep stos: 25 iterations a
 * call, and the line read as 25 times hotter than the function. */
static uint64_t repeat_once(struct lbr *l, struct fn_insns *f, size_t i,
			    uint64_t count, uint64_t prev)
{
	if (!(l->flags & LBR_REPEAT_ONCE) || !(f->kind[i] & INSN_REPEAT) ||
	    i == 0 || count <= prev ||
	    (f->kind[i - 1] & (INSN_RET | INSN_JUMP)) ||
	    f->addr[i - 1] + f->len[i - 1] != f->addr[i] ||
	    branch_target(l, f, f->addr[i]))
		return count;
	l->st->repeats++;
	l->st->repeat_iterations = sat_add64(l->st->repeat_iterations, count - prev);
	return prev;
}

/* Counts of the instructions of one function into the tree. */
static void add_function(struct lbr *l, struct fn_insns *f)
{
	uint64_t count = 0, prev = 0;

	l->st->functions++;
	for (size_t i = 0; i < f->n; i++) {
		const struct sym_frame *in;
		struct fs_body *body;
		uint64_t v, c;
		int n;

		count += f->diff[i];
		c = prev = repeat_once(l, f, i, count, prev);
		l->st->insns++;
		if (sym_lookup(l->sym, f->addr[i], l->res) != SYM_OK || !l->res->nframes) {
			l->st->insns_no_line++;
			continue;
		}
		n = chain_profiles(l);
		for (int k = 0; k < n; k++)
			l->node[k]->total = sat_add64(l->node[k]->total,
						      sat_mul64(c, f->len[i]));
		in = &l->res->frames[n - 1];
		if (!in->line && (l->flags & LBR_LINE0_DROP)) {
			l->st->insns_line0++;
			continue;
		}
		body = fs_body_at(l->node[n - 1], in->line_offset, in->disc);
		v = c ? sat_mul64(c, sym_dup_factor(l->sym, f->addr[i])) : 0;
		if (v > body->count)
			body->count = v;
	}
}

/* Name of the function whose entry is at vaddr, or NULL. */
static const char *entry_name(struct lbr *l, uint64_t vaddr, char *buf, size_t n)
{
	long fn = sym_function_at(l->sym, vaddr);
	const char *name;

	if (fn < 0 || sym_function_entry(l->sym, fn) != vaddr ||
	    !(name = sym_function_name(l->sym, vaddr)))
		return NULL;
	return lbr_canonical_name(name, buf, n);
}

/* A call target at the location of the branch instruction at vaddr. */
static int add_target(struct lbr *l, uint64_t vaddr, const char *callee,
		      uint64_t count)
{
	const struct sym_frame *in;
	char name[1024];
	int n;

	if (sym_lookup(l->sym, vaddr, l->res) != SYM_OK || !l->res->nframes)
		return -1;
	if (strlen(callee) >= sizeof(name)) {	/* cut, as it always was */
		memcpy(name, callee, sizeof(name) - 1);
		name[sizeof(name) - 1] = 0;
		callee = name;
	}
	n = chain_profiles(l);
	in = &l->res->frames[n - 1];
	fs_add_target(l->node[n - 1], in->line_offset, in->disc, callee, count);
	return 0;
}

static int cmp_from(const void *a, const void *b)
{
	const struct raw_branch *x = *(const struct raw_branch *const *)a;
	const struct raw_branch *y = *(const struct raw_branch *const *)b;

	return (x->from > y->from) - (x->from < y->from);
}

/* The function in another object that the PLT stub at file offset stub
 * jumps to (the first the callback names among the branches from the
 * stub's 16 bytes), or NULL. */
static const char *plt_callee(struct lbr *l, uint64_t stub)
{
	size_t lo = 0, hi = l->nout;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->out[mid]->from < stub)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < l->nout && l->out[lo]->from - stub < 16; lo++) {
		const char *name = l->callee_name(l->arg, l->out[lo]->to_obj,
						  l->out[lo]->to);

		if (name && *name)
			return name;
	}
	return NULL;
}

static void add_call_out(struct lbr *l, uint64_t from, const char *callee,
			 uint64_t count)
{
	char buf[1024];

	callee = lbr_canonical_name(callee, buf, sizeof(buf));
	if (add_target(l, from, callee, count))
		l->st->calls_unlocated = sat_add64(l->st->calls_unlocated, count);
	else
		l->st->calls_out = sat_add64(l->st->calls_out, count);
}

static void add_branch(struct lbr *l, const struct raw_branch *br)
{
	struct lbr_stats *st = l->st;
	uint64_t from, to = 0;
	char buf[1024];
	const char *callee;
	uint32_t len;
	unsigned kind;
	int here = br->to_obj == (uint32_t)l->obj;

	st->branches = sat_add64(st->branches, br->count);
	if (offset_to_vaddr(l->segs, l->nsegs, br->from, &from) ||
	    (here && offset_to_vaddr(l->segs, l->nsegs, br->to, &to))) {
		st->branches_dropped = sat_add64(st->branches_dropped, br->count);
		return;
	}
	if (here && (callee = entry_name(l, to, buf, sizeof(buf)))) {
		struct fsamples *f = fs_function(l->prof, callee);

		f->head = sat_add64(f->head, br->count);
		st->calls = sat_add64(st->calls, br->count);
		if (add_target(l, from, callee, br->count))
			st->calls_unlocated = sat_add64(st->calls_unlocated, br->count);
		return;
	}
	kind = sym_insn_kind(l->sym, from, &len) & ~INSN_REPEAT;
	if (kind == INSN_RET) {
		st->returns = sat_add64(st->returns, br->count);
		return;
	}
	/* Calls into other objects, named by the callback: directly (GOT,
	 * -fno-plt), or through a PLT stub (code outside any function). */
	if (l->callee_name && (kind == INSN_CALL || kind == INSN_JUMP ||
			       kind == INSN_BRANCH) &&
	    sym_function_at(l->sym, from) >= 0) {
		callee = !here ? l->callee_name(l->arg, br->to_obj, br->to)
		       : sym_function_at(l->sym, to) < 0 ? plt_callee(l, br->to)
		       : NULL;
		if (callee && *callee) {
			add_call_out(l, from, callee, br->count);
			return;
		}
	}
	st->other = sat_add64(st->other, br->count);
}

/* FunctionSamples::updateCallsiteSamples: a call's line ran at least as
 * often as its calls.  LLVM 16 does this for the top level only, not in
 * inlined callsites (later LLVMs recurse). */
static void raise_to_targets(struct fsamples *f)
{
	for (size_t i = 0; i < f->nbody; i++) {
		struct fs_body *b = &f->body[i];
		uint64_t sum = 0;

		for (size_t j = 0; j < b->ntargets; j++)
			sum = sat_add64(sum, b->targets[j].count);
		if (sum > b->count)
			b->count = sum;
	}
}

int lbr_add(struct fs_profile *prof, struct symbolizer *sym,
	    const struct raw_profile *raw, int obj, lbr_callee_fn callee_name,
	    void *arg, struct lbr_stats *st, unsigned flags)
{
	struct lbr_stats dummy;
	struct lbr l = { 0 };
	const struct raw_object *o;
	char buf[1024];

	if (obj < 0 || (size_t)obj >= raw->nobjs)
		return -1;
	o = &raw->objs[obj];
	memset(&dummy, 0, sizeof(dummy));
	l.st = st ? st : &dummy;
	l.sym = sym;
	l.prof = prof;
	l.obj = obj;
	l.callee_name = callee_name;
	l.arg = arg;
	l.flags = flags;
	l.segs = sym_segments(sym, &l.nsegs);
	l.res = xmalloc(sizeof(*l.res));

	for (size_t i = 0; i < o->nranges; i++)
		add_range(&l, &o->ranges[i]);
	for (size_t i = 0; i < l.nfns; i++)
		if (l.fns[i]->diff)
			add_function(&l, l.fns[i]);
	if (callee_name) {
		l.out = xcalloc(o->nbranches + 1, sizeof(*l.out));
		for (size_t i = 0; i < o->nbranches; i++)
			if (o->branches[i].to_obj != (uint32_t)obj)
				l.out[l.nout++] = &o->branches[i];
		qsort(l.out, l.nout, sizeof(*l.out), cmp_from);
	}
	for (size_t i = 0; i < o->nbranches; i++)
		add_branch(&l, &o->branches[i]);
	/* Calls into the binary from other objects (a callback from libc's
	 * qsort): HEAD only, as llvm-profgen counts an external source. */
	for (size_t k = 0; k < raw->nobjs; k++) {
		const struct raw_object *src = &raw->objs[k];

		if ((int)k == obj)
			continue;
		for (size_t i = 0; i < src->nbranches; i++) {
			const struct raw_branch *br = &src->branches[i];
			const char *callee;
			uint64_t to;

			if (br->to_obj != (uint32_t)obj ||
			    offset_to_vaddr(l.segs, l.nsegs, br->to, &to) ||
			    !(callee = entry_name(&l, to, buf, sizeof(buf))))
				continue;
			fs_function(prof, callee)->head =
				sat_add64(fs_function(prof, callee)->head, br->count);
			l.st->calls_in = sat_add64(l.st->calls_in, br->count);
		}
	}
	for (size_t i = 0; i < prof->nfuncs; i++)
		raise_to_targets(prof->funcs[i]);
	prof->totals_given = 1;

	for (size_t i = 0; i < l.nfns; i++) {
		free(l.fns[i]->addr);
		free(l.fns[i]->len);
		free(l.fns[i]->barriers);
		free(l.fns[i]->kind);
		free(l.fns[i]->targets);
		free(l.fns[i]->diff);
		free(l.fns[i]);
	}
	free(l.fns);
	hindex_free(&l.index);
	free(l.out);
	free(l.res);
	return 0;
}
