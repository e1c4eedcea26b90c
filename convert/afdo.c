/* SPDX-License-Identifier: GPL-2.0-only */
/* GCC's AutoFDO profile (.afdo), written and read.
 *
 * Facts, from the consumers' sources:
 * - gcc/auto-profile.cc read_profile: u32 magic 0x67636461 ("adcg" on a
 *   little-endian host: GCC reads host-order words and does not swap),
 *   u32 version, u32 0.  GCC 12 and later refuse any version but 2
 *   ("AutoFDO profile version %u does not match 2"); GCC 5 to 11 refuse any
 *   but 1.  LLVM's SampleProfileReaderGCC only recognises a file that starts
 *   with "adcg*704" (version word 0x3430372a, autofdo's old default).
 * - Strings (gcov-io.cc gcov_read_string): version 2 is a u32 byte length
 *   that includes the NUL, then the bytes, no padding; before (and for
 *   LLVM) a u32 length in 4-byte words, the string NUL-padded to it.  A
 *   length of 0 makes gcov_read_string return NULL, on which GCC crashes.
 * - Name table (string_table::read): tag 0xaa000000, length (skipped),
 *   count, strings.  Every name is cut at its first '.'; a later duplicate
 *   takes over the name, so two entries that cut to one name would hide
 *   each other's profile: the writer merges them first.  get_name() asserts
 *   index > 0, so index 0 must never be a function or call target: like
 *   autofdo, the writer puts "" there.
 * - Functions (autofdo_source_profile::read, read_function_instance): tag
 *   0xac000000, length (skipped), count; each: u64 head, then the instance:
 *   u32 name index, u32 positions, u32 callsites; a position is u32 offset,
 *   u32 targets, u64 count, targets {u32 histogram type (7, indirect call
 *   top-n; LLVM refuses others), u64 name index, u64 count}; a callsite is
 *   u32 offset and a nested instance.  offset = line offset << 16 |
 *   discriminator.  Counts are gcov_type (signed 64-bit), and every
 *   function sums its own and its inlinees' counts into one.
 * - Module section: tag 0xae000000, length, count; GCC asserts count == 0.
 *   Working set: tag 0xaf000000, length 384, 128 x {u32, u64}: GCC 5 (to
 *   7 at least) errors out without it; GCC 12 does not read it.
 * - Discriminators, GCC 5 to 12 (read_function_instance; checked with
 *   gcc 12.2 on a loop written on one line): a position's offset is read
 *   as offset & 0xffff0000, into a map, so of several records of one line
 *   the LAST one in the file wins; a callsite's offset is kept whole but
 *   looked up with (line offset << 16) alone, so an inlined instance whose
 *   offset has a discriminator is never found.  For versions 1 and 2 the
 *   writer therefore folds each line's discriminators into one record:
 *   body counts by min (records of call targets only, count 0, left
 *   out), call targets and inlined instances by sum.
 * - Why min (afdo_set_bb_count, afdo_propagate; measured on gcc 12.2,
 *   bench/results/ceiling-gcc.md): GCC gives a block the max of its
 *   statements' line counts, and gives a line's count to every block that
 *   has a statement of the line.  A count too low for a block is raised by
 *   its other lines and by flow propagation; a count too high is never
 *   lowered.  A line that spans a hot and a cold block (a macro such as
 *   Lua's vmfetch: the hook call and the fetch on one line, told apart
 *   only by discriminators) folded by max makes the cold block as hot as
 *   the hot one, and propagation then sends the whole flow through it.
 *   The price: a loop written on one line gets its entry's count.  Later
 *   GCC (the 2023 sources: no mask, get_discriminator_from_loc) reads
 *   discriminators from the same version 2 files; it gets the folded
 *   profile too.  LLVM's reader keeps discriminators and canonicalizes
 *   names itself (getCanonicalFnName), so the '*704' variant keeps both
 *   as they are.
 * - Heads of split functions (GCC 12's auto_profile, early_inline before
 *   annotation; ipa-inline.cc, afdo_callsite_hot_enough_for_early_inline;
 *   measured on lz4 and sqlite, bench/results/quality-signal.md):
 *   ipa-split cuts a function F with a cheap head into F and a clone
 *   F.part.N of the rest, and the head is inlined into the callers.  The
 *   binary's profile then shows F inlined at each call with the head's
 *   counts only, and the rest as a function of its own, named F once GCC
 *   cuts the suffix.  GCC early-inlines a call that the profile shows
 *   inlined, before ipa-split runs: the whole of F, annotated with the
 *   head's counts, so that F's hot body is compiled as never run.  For
 *   versions 1 and 2 the writer therefore completes each inlined head of
 *   a split function (fs_profile.split) that calls the clone: it adds the
 *   clone's profile, scaled by this head's share of the calls to it.
 *   GCC's inlining stays what the profile shows; the counts become
 *   those of the whole function.
 * - Split-off parts inlined back: when ipa-split's clone F.part.N is
 *   inlined into F again (its one caller), GCC's DWARF describes that code
 *   as an instance of F inlined into F at line offset 0, the line of F's
 *   declaration (bzip2's mainGtU, with its loop; lua's sort_comp, sqlite's
 *   sqlite3DbMallocRawNN).  No call is there in the source, so GCC, which
 *   annotates F before ipa-split, would find no count for the code of the
 *   part: its lines read as never run.  For GCC such an instance is
 *   viewed into F's own body, as a part that stayed out of line is (by
 *   name, F.part.N cut to F).
 * - Hot calls of small functions (GCC 12 runs no ipa-split with AutoFDO,
 *   and keeps -O2's size limits for a call the profile does not show
 *   inlined; what it shows inlined and hot, einline takes with no size
 *   limit, bottom-up: ipa-inline.cc, want_early_inline_function_p): a
 *   call at or above the profile's hot count to a function of at most
 *   PROMOTE_MAX_BYTES becomes an inlined instance, and the functions
 *   inlined on the way to it get a profile of their own, so that GCC
 *   finds the instance when it looks at each of them alone
 *   (promote_hot_calls; docs/convert.md section 10).
 */
#include "afdo.h"
#include "../lib/bytes.h"
#include "../lib/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define AFDO_MAGIC		0x67636461u
#define AFDO_VERSION_LLVM_WORD	((uint32_t)AFDO_VERSION_LLVM)	/* "*704" */
#define TAG_FILE_NAMES		0xaa000000u
#define TAG_FUNCTION		0xac000000u
#define TAG_MODULE_GROUPING	0xae000000u
#define TAG_WORKING_SET		0xaf000000u
#define HIST_INDIR_CALL_TOPN	7u
#define NUM_WORKING_SETS	128
#define MAX_DEPTH		64	/* inline nesting, reader and writer */
#define GCOV_TYPE_MAX		((uint64_t)INT64_MAX)

/* ---- names as GCC sees them ---- */

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Skip an Itanium <source-name> (decimal length, then that many bytes) at
 * s; NULL if it is not one. */
static char *skip_source_name(char *s)
{
	size_t n = 0, rest;

	if (!is_digit(*s) || *s == '0')
		return NULL;
	while (is_digit(*s)) {
		n = n * 10 + (size_t)(*s++ - '0');
		if (n > 4096)
			return NULL;
	}
	rest = strnlen(s, n);
	return rest < n ? NULL : s + n;
}

/* Skip an <unqualified-name>-level substitution "S_", "S<seq-id>_" or a
 * two-letter "St", "Sa", "Sb", "Ss", "Si", "So", "Sd". */
static char *skip_substitution(char *s)
{
	if (*s != 'S')
		return NULL;
	s++;
	if (*s && strchr("tabsiod", *s))
		return s + 1;
	while (is_digit(*s) || (*s >= 'A' && *s <= 'Z'))
		s++;
	return *s == '_' ? s + 1 : NULL;
}

/* Skip <template-args> "I ... E" at s, roughly: nested I/N/X/J ... E
 * pairs, literals "L<type><value>E", source names by their length.  NULL
 * when unsure (the caller then leaves the name alone). */
static char *skip_template_args(char *s)
{
	int depth = 0;

	do {
		char *n;

		switch (*s) {
		case '\0':
			return NULL;
		case 'I': case 'N': case 'X': case 'J':
			depth++;
			s++;
			break;
		case 'E':
			depth--;
			s++;
			break;
		case 'L':
			if (s[1] == '_')
				return NULL;	/* L_Z encoding E */
			s = strchr(s, 'E');
			if (!s)
				return NULL;
			s++;
			break;
		case 'S':
			if (!(n = skip_substitution(s)))
				return NULL;
			s = n;
			break;
		case 'T': case 'A':	/* T_ T0_, A10_ */
			s++;
			while (is_digit(*s))
				s++;
			if (*s != '_')
				return NULL;
			s++;
			break;
		default:
			if (is_digit(*s)) {
				if (!(s = skip_source_name(s)))
					return NULL;
			} else {
				s++;
			}
		}
	} while (depth > 0);
	return s;
}

/* GCC bug 64346 (autofdo's profile_writer.cc works around it): GCC names
 * the abstract "maybe in-charge" constructor and destructor C4/D4 in the
 * debug info, but the function it compiles and looks up is the base object
 * one, C2/D2.  Rename "_ZN...C4E..." and "_ZN...D4E..." in place. */
static void fix_ctor_dtor(char *s)
{
	char *p, *n;

	if (strncmp(s, "_ZN", 3))
		return;
	p = s + 3;
	while (*p && strchr("rVKRO", *p))
		p++;
	for (;;) {
		if ((p[0] == 'C' || p[0] == 'D') && p[1] == '4' &&
		    (p[2] == 'E' || p[2] == 'B')) {
			p[1] = '2';
			return;
		}
		if (is_digit(*p))
			n = skip_source_name(p);
		else if (*p == 'S')
			n = skip_substitution(p);
		else if (*p == 'I')
			n = skip_template_args(p);
		else if (*p == 'B')
			n = skip_source_name(p + 1);	/* ABI tag */
		else
			return;
		if (!n)
			return;
		p = n;
	}
}

/* The name GCC matches: cut at the first '.', C4/D4 as C2/D2.  malloc'd. */
static char *gcc_name(const char *name)
{
	char *s = xstrdup(name), *dot = strchr(s, '.');

	if (dot)
		*dot = '\0';
	fix_ctor_dtor(s);
	return s;
}

/* ---- the tree as GCC will see it ---- */

struct gview {
	int gcc;		/* for GCC: names as GCC matches them, and
				 * discriminators folded into line records */
	size_t dropped;		/* records that do not fit 16-bit fields */
	const struct fs_profile *src;
	char **split;		/* src's split functions as GCC names them,
				 * sorted */
	size_t nsplit;
	struct fs_profile calls; /* by split function: the calls of its clone
				  * from all its inlined heads, in head */
	const char *open[MAX_DEPTH];	/* heads being completed */
	int nopen;
	int merging;		/* viewing a completion: its heads are done */
	size_t completed;	/* inlined heads completed */
	size_t refolded;	/* split-off parts put back into their function */
	size_t promoted;	/* hot calls written as inlined instances */
	size_t offline;		/* instances given a profile of their own */
};

/* The name written: GCC's view of it, or (for LLVM, which canonicalizes
 * names itself) the name as it is.  malloc'd. */
static char *out_name(const struct gview *g, const char *name)
{
	return g->gcc ? gcc_name(name) : xstrdup(name);
}

static int loc_fits(uint32_t line, uint32_t disc)
{
	return line <= 0xffff && disc <= 0xffff;
}

struct line_count {
	uint32_t line;
	uint64_t count;
	int targets_only;	/* count 0, only call targets: says nothing of
				 * its block's count (with --call-targets
				 * stack the targets are the callee's samples) */
};

static int cmp_line_count(const void *a, const void *b)
{
	const struct line_count *x = a, *y = b;

	return (x->line > y->line) - (x->line < y->line);
}

static uint64_t clone_calls(const struct gview *g, const struct fsamples *f,
			    const char *name);
static void complete_head(struct gview *g, struct fsamples *d,
			  const struct fsamples *s, const char *name, int depth);

static void view_node(struct gview *g, struct fsamples *d,
		      const struct fsamples *s, int depth)
{
	struct line_count *lm = NULL;
	size_t nlm = 0;

	d->head = sat_add64(d->head, s->head);
	if (g->gcc)
		lm = xmalloc((s->nbody ? s->nbody : 1) * sizeof(*lm));
	for (size_t i = 0; i < s->nbody; i++) {
		const struct fs_body *b = &s->body[i];
		uint32_t disc = g->gcc ? 0 : b->disc;

		if (!loc_fits(b->line, b->disc)) {
			g->dropped++;
			continue;
		}
		if (g->gcc)
			lm[nlm++] = (struct line_count){
				b->line, b->count, !b->count && b->ntargets };
		else
			fs_add_body(d, b->line, disc, b->count);
		for (size_t j = 0; j < b->ntargets; j++) {
			char *t = out_name(g, b->targets[j].name);

			if (*t)
				fs_add_target(d, b->line, disc, t,
					      b->targets[j].count);
			free(t);
		}
	}
	if (g->gcc) {
		/* Per line, the min over its discriminators (see the head
		 * comment: GCC gives the count to every block of the line),
		 * records of targets only left out; then added, so that two
		 * functions merged into one name sum up. */
		sort(lm, nlm, sizeof(*lm), cmp_line_count);
		for (size_t i = 0; i < nlm;) {
			uint64_t m = UINT64_MAX;
			size_t j = i;

			for (; j < nlm && lm[j].line == lm[i].line; j++)
				if (!lm[j].targets_only && lm[j].count < m)
					m = lm[j].count;
			fs_add_body(d, lm[i].line, 0, m == UINT64_MAX ? 0 : m);
			i = j;
		}
		free(lm);
	}
	for (size_t i = 0; i < s->ncs; i++) {
		const struct fs_callsite *c = &s->cs[i];
		char *n;

		if (!loc_fits(c->line, c->disc) || depth + 1 >= MAX_DEPTH) {
			g->dropped++;
			continue;
		}
		n = out_name(g, c->callee->name);
		if (g->gcc && c->line == 0 && !strcmp(n, d->name)) {
			/* A split-off part inlined back (see the head comment). */
			view_node(g, d, c->callee, depth + 1);
			g->refolded += !g->merging;
		} else if (*n) {
			struct fsamples *in = fs_inlinee(d, c->line, g->gcc ? 0 : c->disc, n);

			view_node(g, in, c->callee, depth + 1);
			if (g->gcc && !g->merging)
				complete_head(g, in, c->callee, n, depth + 1);
		} else {
			g->dropped++;
		}
		free(n);
	}
}

/* The calls of split function name's clone from f, an inlined head of
 * it (a whole inlined copy of name makes none); 0 unless name is split. */
static uint64_t clone_calls(const struct gview *g, const struct fsamples *f,
			    const char *name)
{
	uint64_t calls = 0;

	if (!g->nsplit ||
	    !bsearch(&name, g->split, g->nsplit, sizeof(char *), cmp_cstr))
		return 0;
	for (size_t i = 0; i < f->nbody; i++)
		for (size_t j = 0; j < f->body[i].ntargets; j++) {
			char *t = gcc_name(f->body[i].targets[j].name);

			if (!strcmp(t, name))
				calls = sat_add64(calls, f->body[i].targets[j].count);
			free(t);
		}
	return calls;
}

/* Sum clone_calls over every inlined instance under f into g->calls. */
static void count_clone_calls(struct gview *g, const struct fsamples *f)
{
	for (size_t i = 0; i < f->ncs; i++) {
		const struct fsamples *in = f->cs[i].callee;
		char *n = gcc_name(in->name);
		uint64_t k = clone_calls(g, in, n);

		if (k) {
			struct fsamples *t = fs_function(&g->calls, n);

			t->head = sat_add64(t->head, k);
		}
		free(n);
		count_clone_calls(g, in);
	}
}

/* If s, inlined as name and viewed into d, is the head of a split function
 * that calls its clone: d gets the clone's profile, scaled by the share of
 * the clone's calls made from here (see the head comment). */
static void complete_head(struct gview *g, struct fsamples *d,
			  const struct fsamples *s, const char *name, int depth)
{
	uint64_t calls = clone_calls(g, s, name), all;
	struct fs_profile t;

	if (!calls || depth + 1 >= MAX_DEPTH)
		return;
	for (int i = 0; i < g->nopen; i++)
		if (!strcmp(g->open[i], name))
			return;		/* a recursive head: once */
	all = fs_function(&g->calls, name)->head;
	fs_init(&t);
	g->open[g->nopen++] = name;
	for (size_t i = 0; i < g->src->nfuncs; i++) {
		char *n = gcc_name(g->src->funcs[i]->name);

		if (!strcmp(n, name))
			view_node(g, fs_function(&t, name), g->src->funcs[i], depth + 1);
		free(n);
	}
	g->nopen--;
	if (t.nfuncs) {
		fs_scale(&t, calls, all);
		int was = g->merging;

		t.funcs[0]->head = 0;
		g->merging = 1;
		view_node(g, d, t.funcs[0], depth);
		g->merging = was;
		g->completed++;
	}
	fs_free(&t);
}

/* ---- hot calls inlined, for GCC's early inliner ---- */

#define PROMOTE_CUTOFF		990000	/* a hot call: ppm, as the summary's */
#define PROMOTE_MAX_BYTES	1024	/* the callee's size in the binary */

struct promote {
	struct fs_profile *src;		/* the hot callees as they were */
	const struct fs_profile *p;	/* the function sizes */
	uint64_t hot;			/* smallest count of a hot call */
	const char *chain[MAX_DEPTH];	/* the inline chain being walked */
	int depth;
	struct fs_profile need;		/* instances that then need a
					 * profile of their own, by name */
	size_t promoted;
};

static uint64_t function_bytes(const struct fs_profile *p, const char *name)
{
	char **at = p->nfn ? bsearch(&name, p->fn_names, p->nfn, sizeof(char *),
				     cmp_cstr) : NULL;

	return at ? p->fn_bytes[at - p->fn_names] : UINT64_MAX;
}

/* How deep f's inlined instances go: 0 for none. */
static int inline_depth(const struct fsamples *f)
{
	int d = 0;

	for (size_t i = 0; i < f->ncs; i++) {
		int c = 1 + inline_depth(f->cs[i].callee);

		d = c > d ? c : d;
	}
	return d;
}

/* Whether call target t is a hot call of a small function: what makes
 * a call promotable wherever it is. */
static int hot_small_call(const struct promote *pr, const struct fs_target *t)
{
	return t->count >= pr->hot &&
	       function_bytes(pr->p, t->name) <= PROMOTE_MAX_BYTES;
}

/* The callee of a call of n at line that GCC should inline, or NULL. */
static const struct fsamples *promotable(struct promote *pr, const struct fsamples *n,
					 uint32_t line, const struct fs_target *t)
{
	const struct fsamples *callee;

	if (!hot_small_call(pr, t) || !strcmp(t->name, n->name))
		return NULL;
	for (int i = 0; i < pr->depth; i++)
		if (!strcmp(pr->chain[i], t->name))
			return NULL;		/* recursion */
	for (size_t i = 0; i < n->ncs; i++)
		if (n->cs[i].line == line && !strcmp(n->cs[i].callee->name, t->name))
			return NULL;		/* inlined already */
	callee = fs_find(pr->src, t->name);
	if (!callee || !callee->head ||
	    pr->depth + 2 + inline_depth(callee) >= MAX_DEPTH)
		return NULL;		/* the reader's limit: no deeper */
	return callee;
}

/* n's call of callee at line becomes an instance inlined there: the
 * callee's profile times this call's share of its entries. */
static void inline_call(struct promote *pr, struct fsamples *n, uint32_t line,
			const struct fsamples *callee, uint64_t calls)
{
	struct fs_profile t;
	struct fsamples *c;

	fs_init(&t);
	c = fs_function(&t, callee->name);
	fs_merge_node(c, callee, 1);
	fs_scale(&t, calls < callee->head ? calls : callee->head, callee->head);
	c->head = 0;
	fs_merge_node(fs_inlinee(n, line, 0, callee->name), c, 1);
	fs_free(&t);
	for (int i = 1; i < pr->depth; i++)
		fs_function(&pr->need, pr->chain[i]);
	if (pr->depth)
		fs_function(&pr->need, n->name);
	pr->promoted++;
}

static void promote_node(struct promote *pr, struct fsamples *n)
{
	for (size_t i = 0, nbody = n->nbody; i < nbody; i++)
		for (size_t j = 0; j < n->body[i].ntargets; j++) {
			const struct fs_target *t = &n->body[i].targets[j];
			const struct fsamples *callee =
				promotable(pr, n, n->body[i].line, t);

			if (callee)
				inline_call(pr, n, n->body[i].line, callee, t->count);
		}
	if (pr->depth + 1 >= MAX_DEPTH)
		return;
	pr->chain[pr->depth++] = n->name;
	for (size_t i = 0; i < n->ncs; i++)
		promote_node(pr, n->cs[i].callee);
	pr->depth--;
}

/* The body count at f's first location: its entries, about. */
static uint64_t first_count(const struct fsamples *f)
{
	const struct fs_body *first = NULL;

	for (size_t i = 0; i < f->nbody; i++)
		if (!first || f->body[i].line < first->line ||
		    (f->body[i].line == first->line && f->body[i].disc < first->disc))
			first = &f->body[i];
	return first ? first->count : 0;
}

/* Every instance under f of a function in need that has no profile of
 * its own in m, added into out. */
static void collect_offline(struct promote *pr, struct fs_profile *m,
			    struct fs_profile *out, const struct fsamples *f)
{
	for (size_t i = 0; i < f->ncs; i++) {
		const struct fsamples *c = f->cs[i].callee;

		if (fs_find(&pr->need, c->name) &&
		    !fs_find(m, c->name)) {
			struct fsamples *o = fs_function(out, c->name);

			fs_merge_node(o, c, 1);
			o->head = sat_add64(o->head, first_count(c));
		}
		collect_offline(pr, m, out, c);
	}
}

/* Copy into src, as they are before any promotion, the functions of m
 * that a hot call under f could promote (hot_small_call): the callees,
 * not the whole view. */
static void copy_hot_callees(struct promote *pr, struct fs_profile *m,
			     const struct fsamples *f)
{
	for (size_t i = 0; i < f->nbody; i++)
		for (size_t j = 0; j < f->body[i].ntargets; j++) {
			const struct fs_target *t = &f->body[i].targets[j];
			const struct fsamples *c;

			if (!hot_small_call(pr, t) || fs_find(pr->src, t->name) ||
			    !(c = fs_find(m, t->name)))
				continue;
			fs_merge_node(fs_function(pr->src, t->name), c, 1);
		}
	for (size_t i = 0; i < f->ncs; i++)
		copy_hot_callees(pr, m, f->cs[i].callee);
}

/* GCC 12 inlines early what the profile shows inlined and hot, and only
 * that (see the head comment): the hot calls of small functions become
 * inlined instances, and the instances they went into get a profile of
 * their own, so that GCC, inlining bottom-up, finds them in each
 * function of the chain. */
static void promote_hot_calls(struct gview *g, struct fs_profile *m)
{
	struct promote pr = { .p = g->src };
	struct fs_profile src, out;

	if (!g->gcc || !g->src->nfn)
		return;
	fs_init(&src);
	fs_init(&out);
	fs_init(&pr.need);
	pr.src = &src;
	pr.hot = fs_summary_count(m, PROMOTE_CUTOFF);
	for (size_t i = 0; i < m->nfuncs && pr.hot; i++)
		copy_hot_callees(&pr, m, m->funcs[i]);
	for (size_t i = 0; i < m->nfuncs && pr.hot; i++)
		promote_node(&pr, m->funcs[i]);
	for (size_t i = 0; i < m->nfuncs; i++)
		collect_offline(&pr, m, &out, m->funcs[i]);
	fs_finish(&out);
	for (size_t i = 0; i < out.nfuncs; i++)
		if (out.funcs[i]->total) {
			fs_merge_node(fs_function(m, out.funcs[i]->name), out.funcs[i], 1);
			g->offline++;
		}
	g->promoted = pr.promoted;
	fs_free(&out);
	fs_free(&pr.need);
	fs_free(&src);
}

/* ---- writing ---- */

struct writer {
	struct wbuf b;
	int strings_in_bytes;	/* version 2 */
	struct fs_names names;	/* names.v[0] = "" */
};

/* Host-order words (GCC reads the file with plain u32 loads). */
static void w32(struct writer *w, uint32_t v)
{
	wb_bytes(&w->b, &v, 4);
}

static void w64(struct writer *w, uint64_t v)
{
	w32(w, (uint32_t)v);
	w32(w, (uint32_t)(v >> 32));
}

static void patch32(struct writer *w, size_t at, uint32_t v)
{
	memcpy(w->b.data + at, &v, 4);
}

static void wstring(struct writer *w, const char *s)
{
	size_t n = strlen(s) + 1;

	if (w->strings_in_bytes) {
		w32(w, (uint32_t)n);
		wb_bytes(&w->b, s, n);
	} else {
		static const char zero[4];
		size_t words = (n + 3) / 4;

		w32(w, (uint32_t)words);
		wb_bytes(&w->b, s, n);
		wb_bytes(&w->b, zero, words * 4 - n);
	}
}

static uint32_t name_index(const struct writer *w, const char *s)
{
	return (uint32_t)fs_names_index(&w->names, s);
}

static void write_instance(struct writer *w, const struct fsamples *f)
{
	w32(w, name_index(w, f->name));
	w32(w, (uint32_t)f->nbody);
	w32(w, (uint32_t)f->ncs);
	for (size_t i = 0; i < f->nbody; i++) {
		const struct fs_body *b = &f->body[i];

		w32(w, b->line << 16 | b->disc);
		w32(w, (uint32_t)b->ntargets);
		w64(w, b->count);
		for (size_t j = 0; j < b->ntargets; j++) {
			w32(w, HIST_INDIR_CALL_TOPN);
			w64(w, name_index(w, b->targets[j].name));
			w64(w, b->targets[j].count);
		}
	}
	for (size_t i = 0; i < f->ncs; i++) {
		w32(w, f->cs[i].line << 16 | f->cs[i].disc);
		write_instance(w, f->cs[i].callee);
	}
}

/* Section: tag, then a length in words of what follows it (GCC and LLVM
 * skip it; autofdo counts the words after the length), patched later. */
static size_t begin_section(struct writer *w, uint32_t tag)
{
	w32(w, tag);
	w32(w, 0);
	return w->b.len;
}

static void end_section(struct writer *w, size_t start)
{
	patch32(w, start - 4, (uint32_t)((w->b.len - start + 3) / 4));
}

/* Counts GCC can take: gcov_type is signed 64-bit, and a function's total
 * (its own and its inlinees' counts, summed by read_function_instance)
 * must not overflow it, nor the sum of a call's targets. */
static int check_counts(const struct fsamples *f)
{
	for (size_t i = 0; i < f->nbody; i++) {
		uint64_t t = 0;

		for (size_t j = 0; j < f->body[i].ntargets; j++)
			t = sat_add64(t, f->body[i].targets[j].count);
		if (t > GCOV_TYPE_MAX)
			return -1;
	}
	for (size_t i = 0; i < f->ncs; i++)
		if (check_counts(f->cs[i].callee))
			return -1;
	return 0;
}

static int cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y) - (x > y);
}

static void collect_counts(const struct fsamples *f, uint64_t **v, size_t *n,
			   size_t *cap)
{
	for (size_t i = 0; i < f->nbody; i++) {
		grow(v, cap, *n + 1, sizeof(**v));
		(*v)[(*n)++] = f->body[i].count;
	}
	for (size_t i = 0; i < f->ncs; i++)
		collect_counts(f->cs[i].callee, v, n, cap);
}

/* The working set GCC 5..8 read: for 128 cumulative shares of all counts,
 * how many records (hottest first) cover it and the smallest count among
 * them -- autofdo's SymbolMap::ComputeWorkingSets with one instruction per
 * record. */
static void write_working_set(struct writer *w, const struct fs_profile *m)
{
	uint64_t *v = NULL, total = 0, acc = 0;
	size_t n = 0, cap = 0, k = 0;
	size_t start;

	for (size_t i = 0; i < m->nfuncs; i++)
		collect_counts(m->funcs[i], &v, &n, &cap);
	sort(v, n, sizeof(*v), cmp_desc);
	for (size_t i = 0; i < n; i++)
		total = sat_add64(total, v[i]);
	start = begin_section(w, TAG_WORKING_SET);
	for (int i = 0; i < NUM_WORKING_SETS; i++) {
		/* ceil(total * (i + 1) / 129) without overflow */
		uint64_t q = total / (NUM_WORKING_SETS + 1);
		uint64_t r = total % (NUM_WORKING_SETS + 1);
		uint64_t want = q * (uint64_t)(i + 1) +
				(r * (uint64_t)(i + 1) + NUM_WORKING_SETS) /
				(NUM_WORKING_SETS + 1);

		while (k < n && acc < want)
			acc = sat_add64(acc, v[k++]);
		w32(w, (uint32_t)(k > UINT32_MAX ? UINT32_MAX : k));
		w64(w, k ? v[k - 1] : 0);
	}
	end_section(w, start);
	free(v);
}

int afdo_write(const struct fs_profile *p, int version, int quiet, FILE *f)
{
	struct gview g = { 0 };
	struct fs_profile m;
	struct writer w = { 0 };
	uint32_t vword;
	size_t start;
	int rc = 0;

	if (version == 1 || version == 2)
		vword = (uint32_t)version;
	else if ((uint32_t)version == AFDO_VERSION_LLVM_WORD)
		vword = AFDO_VERSION_LLVM_WORD;
	else
		return err("afdo: version %d not known: 2 (GCC 12 and later), 1 (GCC 11 and earlier) or 0x%x (LLVM's reader)",
			   version, AFDO_VERSION_LLVM_WORD);
	w.strings_in_bytes = vword == 2;
	g.gcc = vword != AFDO_VERSION_LLVM_WORD;

	/* What the reader will see: for GCC, names cut and fixed, entries
	 * that became one name merged, discriminators folded, inlined heads
	 * of split functions completed, parts inlined back refolded. */
	fs_init(&m);
	fs_init(&g.calls);
	g.src = p;
	if (g.gcc && p->nsplit) {
		g.split = xmalloc(p->nsplit * sizeof(*g.split));
		for (size_t i = 0; i < p->nsplit; i++)
			g.split[g.nsplit++] = gcc_name(p->split[i]);
		qsort(g.split, g.nsplit, sizeof(*g.split), cmp_cstr);
		for (size_t i = 0; i < p->nfuncs; i++)
			count_clone_calls(&g, p->funcs[i]);
	}
	for (size_t i = 0; i < p->nfuncs; i++) {
		char *n = out_name(&g, p->funcs[i]->name);

		if (*n)
			view_node(&g, fs_function(&m, n), p->funcs[i], 0);
		else
			g.dropped++;
		free(n);
	}
	promote_hot_calls(&g, &m);
	if (g.promoted && !quiet)
		warnx("note: %zu hot calls of small functions written as inlined, %zu inlined functions given a profile of their own, for GCC's early inliner",
		      g.promoted, g.offline);
	if (g.completed && !quiet)
		warnx("note: %zu inlined heads of functions GCC split (NAME.part.N) completed with the split-off body's profile, for GCC's early inliner",
		      g.completed);
	if (g.refolded && !quiet)
		warnx("note: %zu split-off parts that GCC inlined back into their function (F inlined into F at line offset 0) written as the function's own lines",
		      g.refolded);
	fs_free(&g.calls);
	for (size_t i = 0; i < g.nsplit; i++)
		free(g.split[i]);
	free(g.split);
	fs_finish(&m);
	for (size_t i = 0; i < m.nfuncs; i++) {
		if (m.funcs[i]->total > GCOV_TYPE_MAX ||
		    m.funcs[i]->head > GCOV_TYPE_MAX ||
		    check_counts(m.funcs[i])) {
			rc = err("afdo: counts of %s add up past %" PRIu64
				 ", more than GCC's 64-bit signed counters take: scale the profile down",
				 m.funcs[i]->name, GCOV_TYPE_MAX);
			goto out;
		}
	}
	if (g.dropped)
		warnx("afdo: %zu records left out: line offset or discriminator above 65535, an empty name, or inlined deeper than %d",
		      g.dropped, MAX_DEPTH);

	/* Name table: "" at index 0 (GCC asserts index > 0 for lookups). */
	fs_names_add(&w.names, "");
	fs_names_collect(&w.names, &m);

	w32(&w, AFDO_MAGIC);
	w32(&w, vword);
	w32(&w, 0);
	start = begin_section(&w, TAG_FILE_NAMES);
	w32(&w, (uint32_t)w.names.n);
	for (size_t i = 0; i < w.names.n; i++)
		wstring(&w, w.names.v[i]);
	end_section(&w, start);

	start = begin_section(&w, TAG_FUNCTION);
	w32(&w, (uint32_t)m.nfuncs);
	for (size_t i = 0; i < m.nfuncs; i++) {
		w64(&w, m.funcs[i]->head);
		write_instance(&w, m.funcs[i]);
	}
	end_section(&w, start);

	/* Module grouping: GCC reads the tag, the length and a count it
	 * asserts is 0. */
	w32(&w, TAG_MODULE_GROUPING);
	w32(&w, 0);
	w32(&w, 0);
	if (vword == 1)
		write_working_set(&w, &m);

	if (fwrite(w.b.data, 1, w.b.len, f) != w.b.len || fflush(f))
		rc = err("afdo: write failed: %s", strerror(errno));
out:
	fs_names_free(&w.names);
	free(w.b.data);
	fs_free(&m);
	return rc;
}

/* ---- reading ---- */

int afdo_detect(const uint8_t *buf, size_t len)
{
	uint32_t v;

	/* The magic in the file's byte order: "adcg" little-endian, "gcda"
	 * big-endian.  A gcov coverage file (.gcda) has the same magic but a
	 * version like "B22*"; a text profile may start with "adcg:".  Ours:
	 * the versions we know, or a small one (a future version, which
	 * afdo_read then reports). */
	if (len < 4 || (memcmp(buf, "adcg", 4) && memcmp(buf, "gcda", 4)))
		return 0;
	if (len < 8)
		return 1;
	if (buf[0] == 'a')
		v = (uint32_t)buf[4] | (uint32_t)buf[5] << 8 |
		    (uint32_t)buf[6] << 16 | (uint32_t)buf[7] << 24;
	else
		v = (uint32_t)buf[7] | (uint32_t)buf[6] << 8 |
		    (uint32_t)buf[5] << 16 | (uint32_t)buf[4] << 24;
	return v == AFDO_VERSION_LLVM_WORD || v < 256;
}

struct reader {
	struct rbuf r;
	int swap;		/* file words are big-endian */
	int strings_in_bytes;
	char **names;
	size_t nnames;
	struct fs_profile *p;
};

/* Fail with the byte offset of the field that started at at. */
static int fail_at(struct reader *d, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail_at(struct reader *d, size_t at, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	if (d->r.failed)
		return -1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	d->r.pos = at;
	return rb_fail(&d->r, "%s", msg);
}

static uint32_t r32(struct reader *d)
{
	uint32_t v = rb_u32(&d->r);

	return d->swap ? __builtin_bswap32(v) : v;
}

static uint64_t r64(struct reader *d)
{
	uint64_t lo = r32(d);

	return lo | (uint64_t)r32(d) << 32;
}

static size_t left(const struct reader *d)
{
	return d->r.len - d->r.pos;
}

/* A count GCC can hold (gcov_type). */
static uint64_t rcount(struct reader *d)
{
	size_t at = d->r.pos;
	uint64_t v = r64(d);

	if (v > GCOV_TYPE_MAX)
		fail_at(d, at, "count %" PRIu64 " overflows GCC's signed 64-bit counter", v);
	return v;
}

static char *rstring(struct reader *d)
{
	size_t at = d->r.pos;
	uint32_t n = r32(d);
	size_t bytes;
	const uint8_t *s;
	const void *nul;
	char *out;

	if (d->r.failed)
		return NULL;
	if (n == 0) {
		fail_at(d, at, "string of length 0 (GCC would crash on it)");
		return NULL;
	}
	bytes = d->strings_in_bytes ? n : (size_t)n * 4;
	if (bytes > left(d) || (!d->strings_in_bytes && n > left(d) / 4)) {
		fail_at(d, at, "string of %zu bytes runs past the end of the file", bytes);
		return NULL;
	}
	s = rb_bytes(&d->r, bytes);
	if (!s)
		return NULL;
	nul = memchr(s, 0, bytes);
	if (!nul) {
		fail_at(d, at, "string is not NUL-terminated");
		return NULL;
	}
	out = xmalloc((size_t)((const uint8_t *)nul - s) + 1);
	memcpy(out, s, (size_t)((const uint8_t *)nul - s) + 1);
	return out;
}

/* A section header: the tag, then a length in words that GCC and LLVM
 * skip (returned in *words when asked). */
static int expect_tag(struct reader *d, uint32_t tag, const char *what,
		      uint32_t *words)
{
	size_t at = d->r.pos;
	uint32_t t = r32(d), n = r32(d);

	if (d->r.failed)
		return -1;
	if (t != tag)
		return fail_at(d, at, "expected the %s section (tag 0x%08x), found 0x%08x",
			       what, tag, t);
	if (words)
		*words = n;
	return 0;
}

static int read_names(struct reader *d)
{
	size_t at;
	uint32_t n;

	if (expect_tag(d, TAG_FILE_NAMES, "name table", NULL))
		return -1;
	at = d->r.pos;
	n = r32(d);
	if (d->r.failed)
		return -1;
	if (n > left(d) / 5)	/* a string takes 5 bytes at least */
		return fail_at(d, at, "%u names cannot fit in the %zu bytes left", n, left(d));
	d->names = xcalloc(n ? n : 1, sizeof(*d->names));
	for (uint32_t i = 0; i < n; i++) {
		d->names[i] = rstring(d);
		if (!d->names[i])
			return -1;
		d->nnames = i + 1;
	}
	return 0;
}

static const char *name_at(struct reader *d, size_t at, uint64_t idx,
			   const char *what)
{
	if (idx >= d->nnames) {
		fail_at(d, at, "%s name index %" PRIu64 " out of range (%zu names)",
			what, idx, d->nnames);
		return NULL;
	}
	if (!*d->names[idx]) {
		fail_at(d, at, "%s name index %" PRIu64 " is the empty name", what, idx);
		return NULL;
	}
	return d->names[idx];
}

/* Body record at (line, disc): appended directly when the file is in
 * increasing order (ours and autofdo's are), else looked up. */
static struct fs_body *body_rec(struct fsamples *f, uint32_t line, uint32_t disc)
{
	struct fs_body *last = f->nbody ? &f->body[f->nbody - 1] : NULL;

	if (!last || last->line < line ||
	    (last->line == line && last->disc < disc)) {
		grow(&f->body, &f->cap_body, f->nbody + 1, sizeof(*f->body));
		f->body[f->nbody] = (struct fs_body){ .line = line, .disc = disc };
		return &f->body[f->nbody++];
	}
	return fs_body_at(f, line, disc);
}

static int read_instance(struct reader *d, struct fsamples *parent,
			 uint32_t cs_offset, uint64_t head, int depth)
{
	size_t at = d->r.pos;
	uint32_t idx = r32(d), npos = r32(d), ncs = r32(d);
	const char *name;
	struct fsamples *f;

	if (d->r.failed)
		return -1;
	if (!(name = name_at(d, at, idx, "function")))
		return -1;
	/* A position takes 16 bytes at least, a callsite 16. */
	if (npos > left(d) / 16 || ncs > left(d) / 16 ||
	    (uint64_t)npos * 16 + (uint64_t)ncs * 16 > left(d))
		return fail_at(d, at + 4, "%u positions and %u callsites cannot fit in the %zu bytes left",
			       npos, ncs, left(d));
	if (parent) {
		f = fs_inlinee(parent, cs_offset >> 16, cs_offset & 0xffff, name);
	} else {
		f = fs_function(d->p, name);
		f->head = sat_add64(f->head, head);
	}
	for (uint32_t i = 0; i < npos; i++) {
		uint32_t off = r32(d), nt = r32(d);
		uint64_t count = rcount(d);
		struct fs_body *b;

		if (d->r.failed)
			return -1;
		b = body_rec(f, off >> 16, off & 0xffff);
		b->count = sat_add64(b->count, count);
		if (nt > left(d) / 20)
			return fail_at(d, d->r.pos - 12, "%u call targets cannot fit in the %zu bytes left",
				       nt, left(d));
		for (uint32_t j = 0; j < nt; j++) {
			size_t tat = d->r.pos;
			uint32_t type = r32(d);
			uint64_t tidx = r64(d), tcount = rcount(d);
			const char *tname;

			if (d->r.failed)
				return -1;
			if (type != HIST_INDIR_CALL_TOPN)
				return fail_at(d, tat, "value profile type %u is not an indirect call target (%u)",
					       type, HIST_INDIR_CALL_TOPN);
			if (!(tname = name_at(d, tat + 4, tidx, "call target")))
				return -1;
			fs_add_target(f, off >> 16, off & 0xffff, tname, tcount);
		}
	}
	for (uint32_t i = 0; i < ncs; i++) {
		size_t cat = d->r.pos;
		uint32_t off = r32(d);

		if (d->r.failed)
			return -1;
		if (depth + 1 >= MAX_DEPTH)
			return fail_at(d, cat, "inlined callsites nested deeper than %d", MAX_DEPTH);
		if (read_instance(d, f, off, 0, depth + 1))
			return -1;
	}
	return 0;
}

static int read_functions(struct reader *d)
{
	size_t at;
	uint32_t n;

	if (expect_tag(d, TAG_FUNCTION, "function", NULL))
		return -1;
	at = d->r.pos;
	n = r32(d);
	if (d->r.failed)
		return -1;
	if (n > left(d) / 20)	/* head + name + 2 counts */
		return fail_at(d, at, "%u functions cannot fit in the %zu bytes left", n, left(d));
	for (uint32_t i = 0; i < n; i++) {
		uint64_t head = rcount(d);

		if (d->r.failed || read_instance(d, NULL, 0, head, 0))
			return -1;
	}
	return 0;
}

/* What follows the functions: the module grouping (GCC asserts it lists
 * no module) and a working set, both optional (LLVM stops before them). */
static int read_trailer(struct reader *d)
{
	size_t at;
	uint32_t n;

	if (!left(d))
		return 0;
	if (expect_tag(d, TAG_MODULE_GROUPING, "module grouping", NULL))
		return -1;
	at = d->r.pos;
	n = r32(d);
	if (d->r.failed)
		return -1;
	if (n != 0)
		return fail_at(d, at, "module grouping lists %u modules; GCC takes only 0", n);
	if (!left(d))
		return 0;
	at = d->r.pos + 4;
	if (expect_tag(d, TAG_WORKING_SET, "working set", &n))
		return -1;
	if (n > left(d) / 4)
		return fail_at(d, at, "working set of %u words runs past the end", n);
	rb_bytes(&d->r, (size_t)n * 4);
	if (left(d))
		return fail_at(d, d->r.pos, "%zu bytes of unknown data after the working set", left(d));
	return d->r.failed ? -1 : 0;
}

int afdo_read(struct fs_profile *p, const uint8_t *buf, size_t len,
	      const char *name)
{
	struct reader d = { .p = p };
	uint32_t version;
	int rc = -1;

	rb_init(&d.r, buf, len, name);
	if (len < 4 || (memcmp(buf, "adcg", 4) && memcmp(buf, "gcda", 4))) {
		rb_fail(&d.r, "not a GCC AutoFDO profile (no \"adcg\" magic)");
		goto out;
	}
	d.swap = !memcmp(buf, "gcda", 4);
	r32(&d);
	version = r32(&d);
	if (d.r.failed)
		goto out;
	if (version != 1 && version != 2 && version != AFDO_VERSION_LLVM_WORD) {
		fail_at(&d, 4, "AutoFDO version 0x%x not known (1, 2 or 0x%x)",
			version, AFDO_VERSION_LLVM_WORD);
		goto out;
	}
	d.strings_in_bytes = version == 2;
	r32(&d);	/* 0 */
	if (d.r.failed)
		goto out;
	if (read_names(&d) || read_functions(&d) || read_trailer(&d))
		goto out;
	rc = 0;
out:
	for (size_t i = 0; i < d.nnames; i++)
		free(d.names[i]);
	free(d.names);
	if (rc)
		fs_free(p);
	else
		fs_finish(p);
	return rc;
}
