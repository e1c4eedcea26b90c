/* SPDX-License-Identifier: GPL-2.0-only */
/* The function-sample tree that every profile format is written from and
 * read into: LLVM's FunctionSamples (llvm/include/llvm/ProfileData/
 * SampleProf.h) in C.  Locations are (line offset, discriminator); counts
 * are samples (IP mode) or executions (branch-record mode). */
#ifndef PGOPROF_FSTREE_H
#define PGOPROF_FSTREE_H

#include "../lib/hindex.h"

#include <stddef.h>
#include <stdint.h>

struct fs_target {
	char *name;
	uint64_t count;
};

/* Samples at one location of a function's own body, with the call targets
 * of a call at that location. */
struct fs_body {
	uint32_t line, disc;
	uint64_t count;
	struct fs_target *targets;
	size_t ntargets, cap_targets;
};

struct fsamples;

/* An inlined call at (line, disc): the inlined function's own profile. */
struct fs_callsite {
	uint32_t line, disc;
	struct fsamples *callee;
};

struct fsamples {
	char *name;		/* linkage name */
	uint64_t total;		/* body + callsites, set by fs_finish */
	uint64_t head;		/* entry count (top level only) */
	uint64_t checksum;	/* CFG checksum of a probe-based profile
				 * (!CFGChecksum), else 0 */
	struct fs_body *body;
	size_t nbody, cap_body;
	struct fs_callsite *cs;
	size_t ncs, cap_cs;
};

struct fs_profile {
	struct fsamples **funcs;	/* top level; sorted by fs_finish */
	size_t nfuncs, cap_funcs;
	struct hindex index;		/* by name */
	/* Totals were read from a file (llvm-profgen's are not the sum of the
	 * body): fs_finish keeps them instead of summing. */
	int totals_given;
	/* Locations are pseudo-probe ids (line = probe index, disc 0), and
	 * each function and inlinee has its checksum (convert/pseudoprobe.h):
	 * the writers mark the profile probe-based. */
	int probe_based;
	/* The functions GCC split in the binary the profile is of
	 * (sym_split_functions: sorted, owned): the GCC writer completes
	 * their inlined heads (convert/afdo.c, docs/convert.md). */
	char **split;
	size_t nsplit;
	/* The size in bytes of each function of that binary, by name
	 * (sym_function_sizes: sorted, owned): the GCC writer inlines the hot
	 * calls of the small ones (convert/afdo.c, docs/convert.md). */
	char **fn_names;
	uint64_t *fn_bytes;
	size_t nfn;
};

void fs_init(struct fs_profile *p);
void fs_free(struct fs_profile *p);

/* Top-level profile of the function name, created empty if new. */
struct fsamples *fs_function(struct fs_profile *p, const char *name);
/* Top-level profile of the function name, or NULL. */
struct fsamples *fs_find(struct fs_profile *p, const char *name);
/* Profile of callee inlined into f at (line, disc), created if new. */
struct fsamples *fs_inlinee(struct fsamples *f, uint32_t line, uint32_t disc,
			    const char *callee);
/* The body record of f at (line, disc), created with count 0 if new. */
struct fs_body *fs_body_at(struct fsamples *f, uint32_t line, uint32_t disc);
void fs_add_body(struct fsamples *f, uint32_t line, uint32_t disc,
		 uint64_t count);
void fs_add_target(struct fsamples *f, uint32_t line, uint32_t disc,
		   const char *callee, uint64_t count);

/* Add every count of src, times weight, into dst: body counts, call
 * targets, inlined callsites, head and totals (saturating). */
void fs_merge(struct fs_profile *dst, const struct fs_profile *src,
	      uint64_t weight);
/* The same for one function or inlined instance: src into dst. */
void fs_merge_node(struct fsamples *dst, const struct fsamples *src,
		   uint64_t weight);

/* Remove top-level functions whose TOTAL is 0 (after fs_finish): a profile
 * of all-zero counts tells clang the function is cold, which is worse than
 * no profile at all.  Returns how many were removed. */
size_t fs_drop_zero_totals(struct fs_profile *p);

/* What fs_cut_below left out, by kind. */
struct fs_cut {
	size_t body;		/* body records with 0 < count < min */
	size_t targets;		/* call targets with count < min */
	size_t inlinees;	/* inlined callsites with nothing left */
	size_t functions;	/* top-level functions with nothing left */
};

/* Leave out of p every non-zero count below min (body records, call
 * targets), then every inlined callsite and top-level function that has
 * no count at or above min left (its zero records and HEAD with it): code
 * that ran too rarely for a sampler to see, which clang otherwise reads as
 * measured.  Records with count 0 stay where their function stays.  Then
 * fs_finish.  min 0: nothing.  st is cleared and filled; returns
 * st->functions. */
size_t fs_cut_below(struct fs_profile *p, uint64_t min, struct fs_cut *st);

/* The count at cutoff (parts per million of the sum of the non-zero body
 * counts, any depth) of LLVM's detailed profile summary: the largest
 * count c such that the body counts >= c hold cutoff/10^6 of the sum
 * (ProfileSummaryBuilder::computeDetailedSummary; clang's cold-count
 * threshold is the one at 999999, -profile-summary-cutoff-cold).  0 for an
 * empty profile. */
uint64_t fs_summary_count(const struct fs_profile *p, uint32_t cutoff);

/* How many counts of p (head, totals, body counts, call targets, at any
 * depth) are at UINT64_MAX: saturated by a weight or a sum (fs_merge,
 * fs_finish) instead of wrapping, or read so.  0 means every count is
 * exact. */
size_t fs_saturated(const struct fs_profile *p);

/* The largest body count of p (any depth). */
uint64_t fs_max_count(const struct fs_profile *p);
/* Multiply every count (body, targets, head, totals) by num/den, rounding
 * to nearest but keeping every non-zero count at least 1. */
void fs_scale(struct fs_profile *p, uint64_t num, uint64_t den);

/* The name table of the binary writers (llvm_extbinary.c, afdo.c): names
 * of a profile, each once, sorted bytewise (strcmp), as pointers into the
 * profile (or to the strings given to fs_names_add). */
struct fs_names {
	const char **v;
	size_t n, cap;
};

/* Add s (not copied) to t: a name the format wants that p need not have
 * (afdo's "" at index 0).  Before fs_names_collect. */
void fs_names_add(struct fs_names *t, const char *s);
/* Add every name of p -- function, inlined callee and call target, at any
 * depth -- then sort t bytewise and drop duplicates. */
void fs_names_collect(struct fs_names *t, const struct fs_profile *p);
/* Index of s in t (after fs_names_collect); 0 if it is not there, which
 * cannot happen for a name of the profile collected. */
size_t fs_names_index(const struct fs_names *t, const char *s);
void fs_names_free(struct fs_names *t);

/* Canonical order and totals: body records by (line, disc), call targets by
 * count descending then name, callsites by (line, disc, name) -- the order
 * of LLVM's SampleProfileWriterText -- and TOTAL = body counts plus the
 * totals of inlined callsites, recursively (unless totals_given).  Top-level functions by total
 * descending, then name.  Counts saturate at UINT64_MAX. */
void fs_finish(struct fs_profile *p);

#endif
