/* SPDX-License-Identifier: GPL-2.0-only */
/* The report's data model: named stacks aggregated into functions (self
 * and total samples), caller->callee pairs and source lines.  Built from
 * a raw profile (report/syms.h) or a compiler profile (convert/fstree.h). */
#ifndef PGOPROF_REPORT_FUNCS_H
#define PGOPROF_REPORT_FUNCS_H

#include <stddef.h>
#include <stdint.h>
#include "../lib/hindex.h"
#include "../lib/strtab.h"
#include "../lib/util.h"
#include "syms.h"
#include "../convert/fstree.h"

struct rep_func {
	const char *name;	/* interned */
	uint64_t self;		/* samples in its own code (leaf frame) */
	uint64_t total;		/* samples with it anywhere in the stack */
	uint64_t stamp;		/* the last stack that counted its total */
};

/* A caller->callee pair (function indexes), inlined or a call. */
struct rep_edge {
	size_t caller, callee;
	int inlined;
	uint64_t count;		/* samples with the pair in their stack */
	uint64_t stamp;
};

/* Samples of one source line of one function: file:line for a raw
 * profile; for a compiler profile (file NULL) line is the line offset
 * from the function's start and disc the discriminator. */
struct rep_line {
	const char *func, *file;	/* interned */
	uint32_t line, disc;
	uint64_t count;
};

/* Samples without a source line of one function, for one reason. */
struct rep_noline_ent {
	enum rep_noline why;
	const char *func;	/* interned: the leaf's innermost function */
	uint64_t count;
};

struct rep_model {
	struct strtab *names;	/* the caller's */
	int has_total;		/* totals known: stacks, or a compiler profile */
	int from_fs;		/* built from a compiler profile */
	enum rep_walk walk;	/* of a raw profile: what its counts are */
	uint64_t skipped;	/* range executions not decoded (no binary) */
	uint64_t samples;	/* all samples: the base of percentages */
	uint64_t no_line;	/* samples whose leaf has no source line */
	/* Without stacks: calls of the branch records' call edges
	 * (rep_walk_calls), which are then the pairs not inlined, counted
	 * in calls instead of samples. */
	uint64_t calls;
	uint64_t stamp;
	struct rep_func *funcs;
	size_t nfuncs, cap_funcs;
	struct rep_edge *edges;
	size_t nedges, cap_edges;
	struct rep_line *lines;
	size_t nlines, cap_lines;
	/* no_line by reason, and by reason and function (raw profiles) */
	uint64_t no_line_by[REP_NOLINE_MAX];
	struct rep_noline_ent *nolines;
	size_t nnolines, cap_nolines;
	struct hindex fidx, eidx, lidx, nidx;	/* by name, pair, line, noline */
};

void rep_model_init(struct rep_model *m, struct strtab *names);
void rep_model_free(struct rep_model *m);

/* Add count samples of one stack of n named frames, root first (the
 * leaf last).  A function is counted in total once per stack however
 * often it recurses, and so is each caller->callee pair. */
void rep_model_add_stack(struct rep_model *m, const struct rep_sframe *f,
			 size_t n, uint64_t count);
/* Every sample of the raw profile behind s: its stacks (has_total set)
 * or, without any, its IP samples or its ranges (self only; see
 * rep_walk_raw), and then the call edges of its branch records
 * (rep_walk_calls) as pairs counted in calls. */
void rep_model_add_raw(struct rep_model *m, struct rep_syms *s);
/* A compiler profile (fs_finish'ed): self is a function's body samples in
 * all its instances, inlined ones included, total the TOTAL of its
 * instances as the profile gives it (an instance inside another instance
 * of the same function not again); callees are call targets and inlined
 * call sites.  demangle: names for people (report/demangle.h). */
void rep_model_add_fs(struct rep_model *m, const struct fs_profile *p,
		      int demangle);

/* The index of the function of interned name, added with no samples if
 * new. */
size_t rep_model_func_add(struct rep_model *m, const char *name);
/* The pair caller->callee (function indexes; inlined or a call), added
 * with count 0 if new; valid until the next add. */
struct rep_edge *rep_model_pair(struct rep_model *m, size_t caller,
				size_t callee, int inlined);
/* Add count samples to the line of k (func, file interned). */
void rep_model_add_line(struct rep_model *m, const struct rep_line *k,
			uint64_t count);

/* The index of the function named name (interned or not), or -1. */
long rep_model_func(const struct rep_model *m, const char *name);

/* Sort orders: function indexes (into *out, malloc'd, m->nfuncs of them)
 * by self or total samples, descending, then by name; the lines in place
 * by samples, descending, then function, file, line. */
size_t *rep_model_order(const struct rep_model *m, int by_total);
void rep_model_sort_lines(struct rep_model *m);

/* The no-line entries in place: by reason (enum order), then samples,
 * descending, then name. */
void rep_model_sort_nolines(struct rep_model *m);
/* A reason as people read it ("line 0 ..."), and as a JSON key. */
const char *rep_noline_text(enum rep_noline why);
const char *rep_noline_key(enum rep_noline why);

/* The pairs of function fn as caller (callees) or callee (callers),
 * malloc'd edge indexes into *out, sorted by count descending; returns
 * how many. */
size_t rep_model_pairs(const struct rep_model *m, size_t fn, int callers,
		       size_t **out);

#endif
