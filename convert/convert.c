/* SPDX-License-Identifier: GPL-2.0-only */
/* The conversion of convert.h: one binary's samples in a raw profile -> a
 * function-sample tree -> a compiler's profile format. */
#include "convert.h"
#include "fstree.h"
#include "blocks.h"
#include "estimate.h"
#include "formats.h"
#include "lbr.h"
#include "pseudoprobe.h"
#include "binobj.h"
#include "symbolize.h"
#include "../lib/util.h"
#include "../raw/rawprof.h"
#include "../raw/signal.h"
#include "../lib/hash.h"
#include "nodebug.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Why a sample or an edge of the binary did not make it into the profile. */
enum drop {
	DROP_NO_SEGMENT,	/* file offset outside every PT_LOAD */
	DROP_NO_FUNCTION,	/* no DWARF function there (PLT, crt code) */
	DROP_NO_LINE,		/* function without line info there */
	DROP_NOT_AFTER_CALL,	/* edge: return address not after a call */
	DROP_NO_CALLEE,		/* edge: callee's object or symbol unknown */
	DROP_MAX,
};

static const char *const drop_name[DROP_MAX] = {
	"outside any loadable segment",
	"outside any function with debug info",
	"without line information",
	"return address not after a call instruction",
	"callee object or symbol not found",
};

struct conv {
	const char *raw_path, *binary, *debug, *output, *recorded_path;
	struct write_options wo;
	int quiet;
	struct raw_profile raw;
	int obj;			/* the binary's object in raw */
	struct symbolizer *sym;
	struct symbolizer **callee_sym;	/* per raw object, opened lazily */
	int8_t *callee_tried;
	struct fs_profile prof;
	struct sym_result *res;
	uint64_t samples, attributed, edges, edges_used;
	uint64_t dropped[DROP_MAX];	/* samples */
	uint64_t edges_dropped[DROP_MAX];
	uint64_t *drop;			/* dropped or edges_dropped */
	size_t zero_funcs;		/* call targets only: omitted */
	enum estimator estimator;
	enum call_targets targets;
	uint64_t min_samples;
	struct est_table est;
	uint8_t *consumed;		/* per IP record: counted by the walk */
	size_t ip_next;			/* walk: first IP record at or after
					 * the last instruction */
	struct blk_insn *fn_insns;	/* walk: the function's instructions */
	uint64_t *fn_keys;		/* and their line keys */
	size_t fn_n, fn_cap, fn_kcap;
	uint64_t fn_entry;		/* and its entry address */
	struct sym_result *prev;	/* walk: the last instruction's chain */
	uint64_t prev_key;		/* and its line_key, 0 if none */
	int lbr_mode;			/* the object has branch records */
	struct lbr_stats lbr;
	int line0_drop;			/* body counts at line 0 left out */
	uint64_t line0;			/* ... so many (IP mode: samples) */
	uint64_t cold_min;		/* --cold-cut's threshold, 0: none */
	int cold_auto;			/* ... chosen by the signal */
	struct fs_cut cut;		/* ... and what it left out */
	uint64_t unit;			/* counts per sample (IP samples) */
	int floor;			/* --unsampled floor */
	size_t floored;			/* ... lines written with count 1 */
	int probes;			/* a probe-based profile (--probes) */
	struct pp_stats pp;		/* ... what it counted */
	size_t pp_unplaced;		/* ... top-level probe records without
					 * a function symbol */
};

static int find_object(struct conv *c)
{
	c->obj = binobj_find(c->sym, &c->raw, c->raw_path, c->recorded_path);
	return c->obj < 0 ? -1 : 0;
}

/* Innermost frame's profile for a symbolized address, creating the chain of
 * inlined callsites on the way. */
static struct fsamples *frame_profile(struct conv *c, const struct sym_result *r)
{
	struct fsamples *f = fs_function(&c->prof, r->frames[0].name);

	for (int i = 1; i < r->nframes; i++)
		f = fs_inlinee(f, r->frames[i - 1].line_offset,
			       r->frames[i - 1].disc, r->frames[i].name);
	return f;
}

static int symbolize_offset(struct conv *c, uint64_t off, uint64_t adjust,
			    uint64_t count)
{
	int nsegs;
	const struct load_seg *segs = sym_segments(c->sym, &nsegs);
	uint64_t vaddr;

	if (offset_to_vaddr(segs, nsegs, off, &vaddr)) {
		c->drop[DROP_NO_SEGMENT] += count;
		return -1;
	}
	switch (sym_lookup(c->sym, vaddr - adjust, c->res)) {
	case SYM_OK:
		return 0;
	case SYM_NO_FUNCTION:
		c->drop[DROP_NO_FUNCTION] += count;
		return -1;
	default:
		c->drop[DROP_NO_LINE] += count;
		return -1;
	}
}

/* HEAD is estimated in IP mode: the count of the function's entry location
 * (the line of its first instruction); docs/convert.md says why. */
static void add_count(struct conv *c, const struct sym_result *r, uint64_t n)
{
	const struct sym_frame *in = &r->frames[r->nframes - 1];

	if (!in->line && c->line0_drop)
		c->line0 += n;
	else
		fs_add_body(frame_profile(c, r), in->line_offset, in->disc, n);
	if (sym_at_entry(r))
		fs_function(&c->prof, r->frames[0].name)->head += n;
}

/* n samples in counts (c->unit each). */
static uint64_t in_counts(const struct conv *c, uint64_t n)
{
	return n > UINT64_MAX / c->unit ? UINT64_MAX : n * c->unit;
}

/* An IP that the instruction walk did not reach: its samples as they are. */
static void add_ip(struct conv *c, const struct raw_ip *ip)
{
	c->drop = c->dropped;
	if (symbolize_offset(c, ip->offset, 0, ip->count))
		return;
	add_count(c, c->res, in_counts(c, ip->count));
	c->attributed += ip->count;
}

/* FNV-1a over the inline chain and the location: one line in one inline
 * context.  Never 0 (the empty key). */
static uint64_t line_key(const struct sym_result *r)
{
	uint64_t h = HASH_INIT;

	for (int i = 0; i < r->nframes; i++) {
		h = hash_byte(hash_str(h, r->frames[i].name), 0xff);
		h = hash_u64(h, r->frames[i].line_offset);
		h = hash_u64(h, r->frames[i].disc);
	}
	return h ? h : 1;
}

/* The IP record at file offset off, or -1.  *next: where the last search
 * ended; a walk asks in ascending order, mostly a few records on. */
static long ip_index(const struct raw_object *o, uint64_t off, size_t *next)
{
	size_t lo = 0, hi = o->nips;

	if (*next <= o->nips && (*next == 0 || o->ips[*next - 1].offset < off)) {
		lo = *next;
		for (int k = 0; k < 8 && lo < o->nips && o->ips[lo].offset < off; k++)
			lo++;
		if (lo < o->nips && o->ips[lo].offset < off)
			hi = o->nips;	/* far ahead: search the rest */
		else
			hi = lo;
	}

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->ips[mid].offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	*next = lo;
	return lo < o->nips && o->ips[lo].offset == off ? (long)lo : -1;
}

static int same_chain(const struct sym_result *a, const struct sym_result *b)
{
	return a->nframes == b->nframes &&
	       !memcmp(a->frames, b->frames, (size_t)a->nframes * sizeof(*a->frames));
}

/* One instruction of the function being walked: its samples and line key
 * (0: counted elsewhere or without a line) into c->fn_insns / c->fn_keys. */
static void walk_insn(uint64_t vaddr, uint32_t len, unsigned kind, void *arg)
{
	struct conv *c = arg;
	const struct raw_object *o = &c->raw.objs[c->obj];
	const struct load_seg *segs;
	struct blk_insn *in;
	uint64_t off, key = 0, samples = 0;
	long i;
	int n;

	segs = sym_segments(c->sym, &n);
	grow(&c->fn_insns, &c->fn_cap, c->fn_n + 1, sizeof(*c->fn_insns));
	grow(&c->fn_keys, &c->fn_kcap, c->fn_n + 1, sizeof(*c->fn_keys));
	in = &c->fn_insns[c->fn_n];
	*in = (struct blk_insn){ vaddr, len, kind, UINT64_MAX, 0, 0 };
	if ((kind & (INSN_JUMP | INSN_BRANCH)) && est_uses_blocks(c->estimator))
		in->target = sym_branch_target(c->sym, vaddr);
	c->fn_keys[c->fn_n++] = 0;
	if (!vaddr_to_offset(segs, n, vaddr, &off) &&
	    (i = ip_index(o, off, &c->ip_next)) >= 0) {
		if (c->consumed[i])
			return;	/* ranges overlap: counted once */
		c->consumed[i] = 1;
		samples = o->ips[i].count;
	}
	in->samples = samples;
	if (sym_lookup(c->sym, vaddr, c->res) != SYM_OK) {
		c->dropped[DROP_NO_LINE] += samples;
		return;
	}
	if (!c->prev_key || !same_chain(c->res, c->prev)) {
		struct sym_result *t = c->prev;

		c->prev = c->res;	/* keep this chain for the next */
		c->res = t;
		c->prev_key = line_key(c->prev);
	}
	key = c->prev_key;
	c->fn_keys[c->fn_n - 1] = key;
}

/* The walked function's instructions into the line estimates. */
static void add_function_lines(struct conv *c)
{
	if (est_uses_blocks(c->estimator))
		blk_estimate(c->fn_insns, c->fn_n, c->fn_entry,
			     c->estimator == EST_FLOW ? BLK_FLOW
			     : c->estimator == EST_BLOCK_CAPPED ? BLK_CAPPED : BLK_MEAN);
	for (size_t i = 0; i < c->fn_n; i++)
		if (c->fn_keys[i])
			est_add(&c->est, c->fn_keys[i], c->fn_insns[i].samples,
				c->fn_insns[i].vaddr, c->fn_insns[i].count);
	c->fn_n = 0;
}

/* Whether a body record of line (any discriminator) has a count. */
static int line_counted(const struct fsamples *f, uint32_t line)
{
	for (size_t i = 0; i < f->nbody; i++)
		if (f->body[i].line == line && f->body[i].count)
			return 1;
	return 0;
}

/* --unsampled floor: count 1 for each line (line and discriminator) of
 * the walked functions that got no sample.  GCC folds a line's
 * discriminators by their minimum (convert/afdo.c), so a floor beside a
 * sampled discriminator makes the whole line cold.  Execution samples
 * say that such a block ran rarely, and the floor helps (gcc-12, Ir vs
 * -O2, 5,000 samples: lua -2.79% with it, -1.50% without); time samples
 * do not, as skid leaves hot blocks without a sample, so with them (and
 * with samples of unknown kind) only a line none of whose discriminators
 * got a sample gets a floor (bzip2, cpu-clock: -0.36% against +0.68%).
 * The lines are chosen first and written after, so that a floor does not
 * count as a sample of its line. */
static void add_floor(struct conv *c)
{
	int whole_lines = raw_signal_of(&c->raw) != SIGNAL_EXEC;
	uint64_t *at = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < c->est.size; i++) {
		const struct est_line *l = &c->est.slot[i];
		const struct sym_frame *in;

		if (!l->key || l->sum)
			continue;
		if (whole_lines) {	/* else the lookup below is enough */
			if (sym_lookup(c->sym, l->vaddr, c->res) != SYM_OK)
				continue;
			in = &c->res->frames[c->res->nframes - 1];
			if (line_counted(frame_profile(c, c->res), in->line_offset))
				continue;
		}
		grow(&at, &cap, n + 1, sizeof(*at));
		at[n++] = l->vaddr;
	}
	for (size_t i = 0; i < n; i++) {
		if (sym_lookup(c->sym, at[i], c->res) != SYM_OK)
			continue;
		add_count(c, c->res, 1);
		c->floored++;
	}
	free(at);
}

/* Every instruction of every sampled function, so that a line's count can
 * use how many instructions it has (the estimator); then the IPs the walk
 * did not reach. */
static void add_ips(struct conv *c)
{
	const struct raw_object *o = &c->raw.objs[c->obj];
	const struct load_seg *segs;
	long *walked = NULL;
	size_t nwalked = 0, cap = 0;
	long double scale;
	uint64_t vaddr;
	int n;

	segs = sym_segments(c->sym, &n);
	c->consumed = xcalloc(o->nips, 1);
	c->prev = xmalloc(sizeof(*c->prev));
	c->prev_key = 0;
	est_init(&c->est);
	for (size_t i = 0; i < o->nips; i++) {
		long fn;
		size_t k;

		c->samples += o->ips[i].count;
		if (c->consumed[i] || offset_to_vaddr(segs, n, o->ips[i].offset, &vaddr) ||
		    (fn = sym_function_at(c->sym, vaddr)) < 0)
			continue;
		for (k = 0; k < nwalked && walked[k] != fn; k++)
			;
		if (k < nwalked)
			continue;	/* walked, IP not on an instruction */
		grow(&walked, &cap, nwalked + 1, sizeof(*walked));
		walked[nwalked++] = fn;
		c->ip_next = 0;
		c->fn_entry = sym_function_entry(c->sym, fn);
		sym_function_insns_kind(c->sym, fn, walk_insn, c);
		add_function_lines(c);
	}
	free(c->fn_insns);
	free(c->fn_keys);
	free(c->prev);
	c->prev = NULL;
	scale = est_scale(&c->est, c->estimator) * c->unit;
	for (size_t i = 0; i < c->est.size; i++) {
		const struct est_line *l = &c->est.slot[i];
		uint64_t v;

		if (!l->key || !(v = est_value(l, c->estimator, scale)) ||
		    sym_lookup(c->sym, l->vaddr, c->res) != SYM_OK)
			continue;
		add_count(c, c->res, v);
		c->attributed += l->sum;
	}
	if (c->floor)
		add_floor(c);
	for (size_t i = 0; i < o->nips; i++)
		if (!c->consumed[i])
			add_ip(c, &o->ips[i]);
	free(walked);
	free(c->consumed);
	est_free(&c->est);
}

static struct symbolizer *callee_symbolizer(struct conv *c, uint32_t obj)
{
	if ((int)obj == c->obj)
		return c->sym;
	if (!c->callee_tried[obj]) {
		c->callee_tried[obj] = 1;
		c->callee_sym[obj] = binobj_open_recorded(&c->raw.objs[obj]);
	}
	return c->callee_sym[obj];
}

static const char *callee_name(struct conv *c, uint32_t obj, uint64_t off)
{
	struct symbolizer *s = callee_symbolizer(c, obj);
	const struct load_seg *segs;
	uint64_t vaddr;
	int n;

	if (!s)
		return NULL;
	segs = sym_segments(s, &n);
	if (offset_to_vaddr(segs, n, off, &vaddr))
		return NULL;
	return sym_function_name(s, vaddr);
}

/* Branch records: a callee's name only at a function's entry, as
 * llvm-profgen names call targets. */
static const char *lbr_callee(void *arg, uint32_t obj, uint64_t off)
{
	struct conv *c = arg;
	struct symbolizer *s = callee_symbolizer(c, obj);
	const struct load_seg *segs;
	uint64_t vaddr;
	int n;

	if (!s)
		return NULL;
	segs = sym_segments(s, &n);
	if (offset_to_vaddr(segs, n, off, &vaddr) || !sym_starts_function(s, vaddr))
		return NULL;
	return sym_function_name(s, vaddr);
}

/* Stack mode: the count of a call target.  Its edges' samples are the
 * samples taken while the callee (or its callees) ran, called from there:
 * time, not calls.  TARGETS_CALLS counts the calls instead: the call's
 * line count (the executions of its block), shared among the callees seen
 * from the call site by their samples; a call site in a block without
 * samples ran rarely, and gets 1. */
static uint64_t target_count(struct conv *c, struct fsamples *f,
			     const struct sym_frame *in, uint64_t samples,
			     uint64_t site_samples)
{
	long double n;

	if (c->targets == TARGETS_STACK)
		return in_counts(c, samples);
	n = (long double)fs_body_at(f, in->line_offset, in->disc)->count *
	    samples / site_samples + 0.5L;
	return n < 1 ? 1 : n >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)n;
}

/* The callee of one stack edge, or NULL after counting why it is dropped;
 * c->res: the call's inline chain. */
static const char *edge_callee(struct conv *c, const struct raw_edge *e)
{
	const struct load_seg *segs;
	const char *callee;
	uint64_t vaddr;
	int n;

	c->edges += e->count;
	c->drop = c->edges_dropped;
	segs = sym_segments(c->sym, &n);
	if (offset_to_vaddr(segs, n, e->ret_offset, &vaddr)) {
		c->drop[DROP_NO_SEGMENT] += e->count;
		return NULL;
	}
	if (!sym_follows_call(c->sym, vaddr)) {
		c->drop[DROP_NOT_AFTER_CALL] += e->count;
		return NULL;
	}
	/* The call instruction ends at the return address: look it up one
	 * byte before, where the call's own line and inline chain are. */
	if (symbolize_offset(c, e->ret_offset, 1, e->count))
		return NULL;
	callee = callee_name(c, e->callee_obj, e->callee_offset);
	if (!callee)
		c->drop[DROP_NO_CALLEE] += e->count;
	return callee;
}

struct site_target {
	const char *name;	/* owned by a symbolizer */
	uint64_t samples;
};

/* The n edges of one call site (one return address; an edge per place
 * in the callee where samples were taken), per callee, as call targets
 * at the call's location, in the innermost inlined frame that made it. */
static void add_site(struct conv *c, const struct raw_edge *e, size_t n)
{
	struct site_target *t = NULL;
	size_t nt = 0, cap = 0, k;
	uint64_t site = 0;

	for (size_t i = 0; i < n; i++) {
		const char *name = edge_callee(c, &e[i]);

		site += e[i].count;
		if (!name)
			continue;
		for (k = 0; k < nt && strcmp(t[k].name, name); k++)
			;
		if (k == nt) {
			grow(&t, &cap, nt + 1, sizeof(*t));
			t[nt++] = (struct site_target){ name, 0 };
		}
		t[k].samples += e[i].count;
		c->edges_used += e[i].count;
	}
	if (nt) {
		const struct sym_frame *in = &c->res->frames[c->res->nframes - 1];
		struct fsamples *f = frame_profile(c, c->res);

		for (k = 0; k < nt; k++)
			fs_add_target(f, in->line_offset, in->disc, t[k].name,
				      target_count(c, f, in, t[k].samples, site));
	}
	free(t);
}

/* The stack edges (sorted by return address: raw/rawprof.c cmp_edge), a
 * call site at a time. */
static void add_edges(struct conv *c)
{
	const struct raw_object *o = &c->raw.objs[c->obj];

	if (c->targets == TARGETS_NONE)
		return;
	for (size_t i = 0, j; i < o->nedges; i = j) {
		for (j = i; j < o->nedges && o->edges[j].ret_offset == o->edges[i].ret_offset; j++)
			;
		add_site(c, &o->edges[i], j - i);
	}
}

/* After "N dropped: ... outside any function with debug info": which
 * functions of the binary those are, and the fix; and, when no function
 * is left (convert then fails: fail_unattributed), a note that this is
 * why. */
static void report_nodebug(const struct conv *c)
{
	struct nodebug d;

	nodebug_collect(&d, c->sym, &c->raw.objs[c->obj], c->lbr_mode);
	nodebug_report(&d, c->binary, c->lbr_mode ? "executions" : "samples", stderr);
	if (!c->prof.nfuncs && d.named > d.startup)
		warnx("note: the samples of %s's own code are in functions without debug info (above): rebuild it with -g and profile again, or give --debug-binary",
		      c->binary);
	nodebug_free(&d);
}

static void report_probes(const struct conv *c)
{
	const struct pp_stats *p = &c->pp;

	fprintf(stderr, "%s: pseudo-probes: %" PRIu64 " probes counted from %" PRIu64 " instructions, %" PRIu64 " written with 0 (did not run, in functions that did); %" PRIu64 " of %" PRIu64 " calls became call targets; %zu functions\n",
		progname, p->probes, p->insns, p->probes_zero, p->calls_used,
		p->calls, c->prof.nfuncs);
	if (p->insns_unmapped)
		fprintf(stderr, "%s:   %" PRIu64 " instructions dropped: outside any loadable segment\n",
			progname, p->insns_unmapped);
	if (c->pp_unplaced)
		fprintf(stderr, "%s:   %zu probes left out: their function has no symbol in %s\n",
			progname, c->pp_unplaced, c->binary);
}

static void report_lbr(const struct conv *c)
{
	const struct lbr_stats *l = &c->lbr;

	if (c->probes) {
		report_probes(c);
		return;
	}
	fprintf(stderr, "%s: branch records: %" PRIu64 " of %" PRIu64 " ranges used; %" PRIu64 " taken branches (%" PRIu64 " calls, %" PRIu64 " calls into other objects, %" PRIu64 " returns); %zu functions\n",
		progname, l->range_samples, l->ranges, l->branches, l->calls,
		l->calls_out, l->returns, c->prof.nfuncs);
	for (int i = 0; i < LBR_DROP_MAX; i++) {
		if (!l->dropped[i])
			continue;
		fprintf(stderr, "%s:   %" PRIu64 " ranges dropped: %s\n",
			progname, l->dropped[i], lbr_drop_name[i]);
		if (i == LBR_DROP_NO_FUNCTION)
			report_nodebug(c);
	}
	if (l->insns_no_line)
		fprintf(stderr, "%s:   %" PRIu64 " of %" PRIu64 " instructions in the ranges' functions left out: without line information\n",
			progname, l->insns_no_line, l->insns);
	if (l->branches_dropped)
		fprintf(stderr, "%s:   %" PRIu64 " branches dropped: outside any loadable segment\n",
			progname, l->branches_dropped);
	if (l->repeats)
		fprintf(stderr, "%s:   %" PRIu64 " REP string instructions counted once per execution, not per iteration (%" PRIu64 " iterations left out)\n",
			progname, l->repeats, l->repeat_iterations);
}

/* Above this share of samples.lost in samples.taken, warn: the profile
 * under-counts code whose stacks did not fit (pgoprof-record warns too). */
#define LOST_WARN_PERCENT 1.0

static void report_lost(const struct conv *c)
{
	uint64_t taken = raw_get_counter(&c->raw, CNT_SAMPLES);
	uint64_t lost = raw_get_counter(&c->raw, CNT_LOST);
	const char *cg = raw_get_meta(&c->raw, "call_graph");
	int ring = cg && strcmp(cg, "fp") != 0;

	if (!taken || !(100.0 * (double)lost / (double)taken > LOST_WARN_PERCENT))
		return;
	warnx("warning: %" PRIu64 " of %" PRIu64 " samples (%.1f%%) were lost in recording (samples.lost, over %.0f%%): %s; record again with a lower -F or with %s",
	      lost, taken, 100.0 * (double)lost / (double)taken, LOST_WARN_PERCENT,
	      ring ? "the ring buffer of stack copies was full"
		   : "a kernel map (stacks, counts, branches or ranges) was full",
	      ring ? "a bigger pgoprof-record --ring-size"
		   : "more map entries (pgoprof-record --max-stacks)");
}

/* The estimator of --estimator auto, in one line on stderr. */
static void choose_estimator(struct conv *c)
{
	const char *why, *event = raw_get_meta(&c->raw, "event");
	enum raw_signal s = raw_signal_of(&c->raw);

	c->estimator = estimator_for_signal(s, &why);
	if (c->quiet)
		return;
	if (c->lbr_mode)
		fprintf(stderr, "%s: no estimator: %s\n", progname,
			s == SIGNAL_EXACT ? "exact counts: each range's count is its executions"
			: "branch records: each range counts as it ran");
	else
		fprintf(stderr, "%s: estimator %s: %s%s%s%s\n", progname,
			estimator_name(c->estimator), why, event ? " (event " : "",
			event ? event : "", event ? ")" : "");
}

/* Too few samples to trust (issue 28): the count, what the recorder did
 * to its rate, and what to do.  Branch records count their ranges (up to
 * 32 a sample, correlated within it: more are needed than IP samples,
 * not fewer); exact counts are never short. */
static void report_sufficiency(const struct conv *c)
{
	enum raw_signal s = raw_signal_of(&c->raw);
	const char *got = raw_get_meta(&c->raw, "sample_freq");
	const char *asked = raw_get_meta(&c->raw, "sample_freq_requested");
	uint64_t n = c->lbr_mode ? c->lbr.ranges : c->samples;
	char rate[160] = "";

	if (!c->min_samples || s == SIGNAL_EXACT || !n || n >= c->min_samples)
		return;
	if (got && asked && strcmp(got, asked))
		snprintf(rate, sizeof(rate), "; recorded at %s Hz of the %s Hz asked for (pgoprof-record lowered its rate under load)",
			 got, asked);
	/* Not "N samples of ELF": scripts read that from the summary. */
	warnx("warning: %s has only %" PRIu64 " %s (fewer than %" PRIu64 ", --min-samples): too few to trust, such a profile can make the program slower%s; record a longer training run, at a higher rate (-F), or several runs combined with 'pgoprof merge'",
	      c->binary, n, c->lbr_mode ? "branch records (ranges)" : s == SIGNAL_TIME ? "time samples"
	      : s == SIGNAL_EXEC ? "execution samples" : "samples",
	      c->min_samples, rate);
}

/* What --line0 drop and --cold-cut left out. */
static void report_cut(const struct conv *c)
{
	if (c->line0_drop)
		fprintf(stderr, "%s: %" PRIu64 " %s at line 0 left out of the body (--line0 drop)\n",
			progname, c->lbr_mode ? c->lbr.insns_line0 : c->line0,
			c->lbr_mode ? "instructions" : "samples");
	if (c->cold_min)
		fprintf(stderr, "%s: --cold-cut%s: counts below %" PRIu64 " left out: %zu body records, %zu call targets, %zu inlined callsites, %zu functions\n",
			progname, c->cold_auto ? " auto (exact counts, clang)" : "",
			c->cold_min, c->cut.body, c->cut.targets,
			c->cut.inlinees, c->cut.functions);
}

/* --unsampled: what the floor did, in one line. */
static void report_floor(const struct conv *c)
{
	if (c->floor)
		fprintf(stderr, "%s: --unsampled floor: a sample counts %" PRIu64 "; %zu lines of sampled functions without a sample written with count 1, not left out\n",
			progname, c->unit, c->floored);
}

/* --unsampled: the floor for IP samples (auto), or as asked;
 * asked for a profile of ranges, it is left off, in one line (a script
 * may give it for every profile it converts). */
static void choose_floor(struct conv *c, const struct convert_options *o)
{
	c->unit = 1;
	if (o->unsampled == UNSAMPLED_OMIT ||
	    (o->unsampled == UNSAMPLED_AUTO && c->lbr_mode))
		return;
	if (c->lbr_mode) {
		warnx("note: --unsampled floor left off: the profile has %s of %s, which write every line they cover (0 where none ran); the floor is for IP samples",
		      raw_signal_of(&c->raw) == SIGNAL_EXACT ? "exact counts" : "branch records",
		      c->binary);
		return;
	}
	c->floor = 1;
	c->unit = CONVERT_FLOOR_UNIT;
}

/* --cold-cut's threshold: a count below it is left out. */
static uint64_t cold_threshold(const struct conv *c,
			       const struct convert_options *o)
{
	int llvm = c->wo.format == FMT_LLVM_TEXT || c->wo.format == FMT_LLVM_EXTBINARY;
	double f = !o->cold_auto ? o->cold_cut
		: raw_signal_of(&c->raw) == SIGNAL_EXACT && llvm && !c->probes ?
		  CONVERT_COLD_CUT_EXACT : 0;
	/* exact counts are single-instruction ranges: their count is the
	 * instructions run */
	long double t = (long double)f *
		(long double)(c->lbr_mode ? c->lbr.ranges : c->samples);
	uint64_t m;

	if (o->cold_summary)
		return fs_summary_count(&c->prof, 999999);
	if (t <= 0)
		return 0;
	m = (uint64_t)t;
	return m + ((long double)m < t);
}

static void report(const struct conv *c)
{
	report_lost(c);
	report_cut(c);
	report_floor(c);
	report_sufficiency(c);
	if (c->lbr_mode) {
		report_lbr(c);
		return;
	}
	uint64_t total = raw_get_counter(&c->raw, CNT_SAMPLES);

	fprintf(stderr, "%s: %" PRIu64 " samples of %s (of %" PRIu64 " in the profile); %" PRIu64 " attributed to %zu functions (%.1f%%)\n",
		progname, c->samples, c->binary, total, c->attributed,
		c->prof.nfuncs,
		c->samples ? 100.0 * (double)c->attributed / (double)c->samples : 0.0);
	for (int i = 0; i < DROP_MAX; i++) {
		if (!c->dropped[i])
			continue;
		fprintf(stderr, "%s:   %" PRIu64 " samples dropped: %s\n",
			progname, c->dropped[i], drop_name[i]);
		if (i == DROP_NO_FUNCTION)
			report_nodebug(c);
	}
	fprintf(stderr, "%s: %" PRIu64 " of %" PRIu64 " stack edges became call targets\n",
		progname, c->edges_used, c->edges);
	if (c->zero_funcs)
		fprintf(stderr, "%s:   %zu functions omitted: on sampled stacks but without samples of their own (an all-zero profile would mark them cold)\n",
			progname, c->zero_funcs);
	for (int i = 0; i < DROP_MAX; i++)
		if (c->edges_dropped[i])
			fprintf(stderr, "%s:   %" PRIu64 " edges left out: %s%s\n",
				progname, c->edges_dropped[i],
				i == DROP_NO_FUNCTION ? "call sites " : "",
				drop_name[i]);
	if (c->edges_dropped[DROP_NO_FUNCTION])
		fprintf(stderr, "%s:   (expected: nearly every stack starts in startup code such as _start, which has no debug info; nothing of the program's own code is lost)\n",
			progname);
	if (!c->samples)
		warnx("warning: the profile has no samples of %s: the output is empty", c->binary);
}

/* Whether the profile has samples of the binary but none of them (or of
 * the instructions their ranges cover) got a function and a line: a
 * profile written from them would be empty, or heads only, and look
 * like one of code that never ran. */
static int nothing_attributed(const struct conv *c)
{
	if (c->probes)
		return 0;
	if (c->lbr_mode)
		return c->lbr.ranges &&
		       (!c->prof.nfuncs || c->lbr.insns_no_line == c->lbr.insns);
	return c->samples && !c->attributed;
}

/* Says why, after report() has given the reasons. */
static void fail_unattributed(const struct conv *c)
{
	struct pseudo_probes pp = { 0 };

	err("no sample of %s could be given a function and a line%s: no profile written",
	    c->binary, c->quiet ? " (without -q: why)" : " (the reasons above)");
	if (pp_read(&pp, c->binary) == 0)
		warnx("note: %s was built with -fpseudo-probe-for-profiling, whose line-table discriminators not every libdw reads; convert exact counts of it (record --exact, --probes auto), or sample a build without that option",
		      c->binary);
	pp_free(&pp);
}

/* --probes: whether to write a probe-based profile, and if so, the
 * profile.  Returns 0, or -1 after its one message. */
static int choose_probes(struct conv *c, const struct convert_options *o)
{
	int llvm = c->wo.format == FMT_LLVM_TEXT || c->wo.format == FMT_LLVM_EXTBINARY;
	struct pseudo_probes pp = { 0 };
	const struct load_seg *segs;
	int rc, nsegs;

	if (o->probes == PROBES_OFF ||
	    (o->probes == PROBES_AUTO &&
	     (!llvm || !c->lbr_mode || raw_signal_of(&c->raw) != SIGNAL_EXACT)))
		return 0;
	if (!llvm)
		return err("--probes on: %s has no pseudo-probes; write llvm-text or llvm-extbinary",
			   format_name(c->wo.format));
	if (!c->lbr_mode)
		return err("--probes on: the profile has no exact counts or branch records of %s (record --exact, or a branch-record recording)",
			   c->binary);
	rc = pp_read(&pp, c->binary);
	if (rc == 1 && o->probes == PROBES_ON)
		err("--probes on: %s has no .pseudo_probe section: build it with -fpseudo-probe-for-profiling",
		    c->binary);
	if (rc == 0) {
		segs = sym_segments(c->sym, &nsegs);
		pp_add(&c->prof, &pp, &c->raw, c->obj, segs, nsegs, lbr_callee,
		       c, &c->pp);
		c->probes = 1;
		c->pp_unplaced = pp.unplaced;
		c->lbr.ranges = c->pp.insns;	/* --cold-cut's base */
	}
	pp_free(&pp);
	return rc < 0 || (rc == 1 && o->probes == PROBES_ON) ? -1 : 0;
}

int convert_profile(const struct convert_options *o)
{
	struct conv c = {
		.raw_path = o->raw_path, .binary = o->binary, .debug = o->debug,
		.output = o->output, .recorded_path = o->recorded_path,
		.wo = o->wo, .quiet = o->quiet, .estimator = o->estimator,
		.targets = o->targets, .min_samples = o->min_samples,
		.line0_drop = o->line0_drop, .cold_auto = o->cold_auto,
	};
	int rc = 1;

	c.wo.quiet = o->quiet;
	if (raw_read_file(&c.raw, c.raw_path))
		return 1;
	c.sym = sym_open(c.binary, c.debug, 1);
	if (!c.sym || find_object(&c))
		goto out;
	fs_init(&c.prof);
	c.res = xmalloc(sizeof(*c.res));
	c.callee_sym = xcalloc(c.raw.nobjs, sizeof(*c.callee_sym));
	c.callee_tried = xcalloc(c.raw.nobjs, 1);
	{
		const struct raw_object *ob = &c.raw.objs[c.obj];

		/* Branch records count executions; where a profile has them,
		 * they are the profile (IP samples only fill in the report). */
		c.lbr_mode = ob->nranges > 0;	/* branches alone (perf -j any_call) carry no line counts */
		if (o->estimator_auto)
			choose_estimator(&c);
		if (c.lbr_mode) {
			for (size_t i = 0; i < ob->nips; i++)
				c.samples += ob->ips[i].count;
		}
		if (choose_probes(&c, o) < 0)
			goto out_prof;
		choose_floor(&c, o);
		if (c.probes) {
			/* done by choose_probes */
		} else if (c.lbr_mode) {
			lbr_add(&c.prof, c.sym, &c.raw, c.obj, lbr_callee, &c, &c.lbr,
				(o->line0_drop ? LBR_LINE0_DROP : 0) |
				(raw_signal_of(&c.raw) == SIGNAL_EXACT ? LBR_REPEAT_ONCE : 0));
		} else {
			add_ips(&c);
			add_edges(&c);
		}
	}
	fs_finish(&c.prof);
	/* llvm-profgen keeps callees with only a HEAD in LBR mode. */
	if (!c.lbr_mode)
		c.zero_funcs = fs_drop_zero_totals(&c.prof);
	c.cold_min = cold_threshold(&c, o);
	fs_cut_below(&c.prof, c.cold_min, &c.cut);
	scale_for_format(&c.prof, &c.wo);
	if (nothing_attributed(&c)) {
		if (!c.quiet)
			report(&c);
		fail_unattributed(&c);
		goto out_prof;
	}
	if (c.wo.format == FMT_AFDO) {	/* what the GCC writer reads */
		c.prof.nsplit = sym_split_functions(c.sym, &c.prof.split);
		c.prof.nfn = sym_function_sizes(c.sym, &c.prof.fn_names,
						&c.prof.fn_bytes);
	}
	if (!profile_write(&c.prof, &c.wo, c.output)) {
		rc = 0;
		if (!c.quiet)
			report(&c);
	}
out_prof:
	for (size_t i = 0; i < c.raw.nobjs; i++)
		if ((int)i != c.obj)
			sym_close(c.callee_sym[i]);
	free(c.callee_sym);
	free(c.callee_tried);
	free(c.res);
	fs_free(&c.prof);
out:
	sym_close(c.sym);
	raw_free(&c.raw);
	return rc;
}
