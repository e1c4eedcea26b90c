/* SPDX-License-Identifier: GPL-2.0-only */
/* Raw frames (object, file offset) to named frames for a report: each
 * frame becomes its inline chain, outermost first (the symbolizer's,
 * convert/symbolize.h), so that code inlined into main is credited to the
 * inlined function with main as its caller. */
#ifndef PGOPROF_REPORT_SYMS_H
#define PGOPROF_REPORT_SYMS_H

#include <stddef.h>
#include <stdint.h>
#include "../lib/strtab.h"
#include "../raw/rawprof.h"

/* Why a leaf frame has no source line (rep_sframe.noline). */
enum rep_noline {
	REP_LINE_KNOWN,		/* it has one */
	REP_NOLINE_KERNEL,	/* a sample in the kernel */
	REP_NOLINE_UNKNOWN,	/* in no known mapping */
	REP_NOLINE_NO_BINARY,	/* its object has no binary (give --binary) */
	REP_NOLINE_NO_SEGMENT,	/* outside the binary's PT_LOAD segments */
	REP_NOLINE_NO_SYMBOL,	/* in no function, not even a symbol (PLT) */
	REP_NOLINE_NO_DEBUG,	/* a function without debug info (-g) */
	REP_NOLINE_LINE0,	/* debug info, but line 0 or no row there */
	REP_NOLINE_MAX,
};

/* A named frame.  Strings are interned in the rep_syms' table. */
struct rep_sframe {
	const char *name;	/* demangled unless REP_NO_DEMANGLE */
	const char *file;	/* source file of a leaf's innermost frame, or NULL */
	uint32_t line;		/* its line (1-based); 0 with file NULL */
	int inlined;		/* inlined into the frame before it */
	enum rep_noline noline;	/* a leaf's innermost frame: why file is NULL */
};

/* Names of frames outside any named code: */
#define REP_UNKNOWN "[unknown]"		/* RAW_FRAME_UNKNOWN */
#define REP_KERNEL "[kernel]"		/* RAW_FRAME_KERNEL */

enum {
	REP_NO_DEMANGLE = 1,	/* keep linkage names */
	/* Name code without a function "[PATH+0xOFFSET]" (the file offset)
	 * instead of "[PATH]": for folded stacks, where each address is
	 * what a reader can look up. */
	REP_OFFSETS = 2,
	/* A --binary that matches no object of the profile by build-ID is
	 * not an error, and not said (diff: it may belong to the other
	 * profile; rep_syms_binary_used tells). */
	REP_LENIENT = 4,
};

struct rep_syms;

/* Names for the objects of p (read from raw_path, for messages): each
 * object's binary is the one of binaries[0..nbin) that raw_binary_object
 * matches to it, else the file at the object's recorded path if
 * raw_file_is_object says it is the same (same build-ID or content).
 * Names are interned in names (owned by the caller, which must outlive
 * the result).  Returns NULL after one message: a binary that cannot be
 * opened, or (unless REP_LENIENT) that is no object of p. */
struct rep_syms *rep_syms_open(const struct raw_profile *p,
			       const char *raw_path, const char *const *binaries,
			       size_t nbin, unsigned flags, struct strtab *names);
void rep_syms_close(struct rep_syms *s);
/* 1 if binaries[k] of rep_syms_open names an object of the profile. */
int rep_syms_binary_used(const struct rep_syms *s, size_t k);

/* How many objects of the profile have samples but no binary, and the
 * first such object's path in *first (or NULL): for the report's
 * header. */
size_t rep_syms_unnamed(const struct rep_syms *s, const char **first);

/* The named frames of raw frame f: *n frames, outermost first, in an
 * array owned by s (valid until the next call).  leaf: f is the sampled
 * address (else a return address, looked up at offset - 1, inside its
 * call).  Never fails: what cannot be named gets a bracketed name. */
const struct rep_sframe *rep_syms_frame(struct rep_syms *s,
					const struct raw_frame *f, int leaf,
					int *n);

/* The binary of object obj (owned by s), or NULL if it has none. */
struct symbolizer *rep_syms_binary(struct rep_syms *s, uint32_t obj);

/* 1 if the profile has a STACKS section (whole stacks), else 0. */
int rep_syms_has_stacks(const struct rep_syms *s);

/* What rep_walk_raw walked: */
enum rep_walk {
	REP_WALK_STACKS,	/* whole stacks: self and total */
	REP_WALK_IPS,		/* IP samples (no stacks): self only */
	/* No stacks and no IP samples, but branch records (LBR, or
	 * pgoprof record --exact): each instruction of each range, decoded
	 * from the binary, weighs the range's count, so counts are
	 * instruction executions; self only. */
	REP_WALK_RANGES,
};

/* Call cb once per sample group of p, with its named frames root first
 * (each raw frame expanded into its inline chain) and its count: p's
 * stacks if it has any, else its IP samples, else its ranges (see enum
 * rep_walk), each a stack of one raw frame.  frames is owned by the walk.
 * Ranges of objects without a binary cannot be decoded: their counts go
 * to *skipped (range executions), with nothing passed to cb. */
typedef void rep_stack_cb(const struct rep_sframe *frames, size_t n,
			  uint64_t count, void *arg);
enum rep_walk rep_walk_raw(struct rep_syms *s, rep_stack_cb *cb, void *arg,
			   uint64_t *skipped);

/* Call cb once per call edge of p's branch records: a taken branch whose
 * target starts a function (of an object with a binary; in an
 * exact-count profile, whose branches are all calls, any object).  site:
 * the named frames of the branch's source, outermost first (owned by s,
 * valid during the call); callee: the function at its target (the
 * outermost frame there); count: how many calls.  For a profile without
 * stacks, whose branch records (LBR, record --exact) tell who calls whom.
 * Returns the calls passed. */
typedef void rep_call_cb(const struct rep_sframe *site, size_t n,
			 const char *callee, uint64_t count, void *arg);
uint64_t rep_walk_calls(struct rep_syms *s, rep_call_cb *cb, void *arg);

#endif
