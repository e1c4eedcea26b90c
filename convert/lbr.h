/* SPDX-License-Identifier: GPL-2.0-only */
/* Branch records (LBR and its kin) -> function-sample tree, by the rules of
 * llvm-profgen 16's line-number based, context-insensitive profile
 * (llvm/tools/llvm-profgen/PerfReader.cpp computeCounterFromLBR,
 * ProfileGenerator.cpp populateBodySamplesForAllFunctions,
 * populateBoundarySamplesForAllFunctions, updateCallsiteSamples).
 * tests/unit/test_lbr.c compares the output with llvm-profgen-16's. */
#ifndef PGOPROF_LBR_H
#define PGOPROF_LBR_H

#include <stdint.h>
#include "fstree.h"
#include "symbolize.h"
#include "../raw/rawprof.h"

/* Why a fall-through range was not used.  Checked in this order; a range
 * counts under the first reason that applies. */
enum lbr_drop {
	LBR_DROP_NO_SEGMENT,	/* an end outside every PT_LOAD of the binary */
	LBR_DROP_BACKWARDS,	/* begin after end */
	LBR_DROP_TOO_LONG,	/* longer than LBR_MAX_RANGE bytes */
	LBR_DROP_NO_FUNCTION,	/* begin outside any function with debug info */
	LBR_DROP_CROSS_FUNCTION, /* end in another function than begin */
	LBR_DROP_NOT_INSN,	/* begin or end not at an instruction's start */
	LBR_DROP_CROSS_BRANCH,	/* a call, return or jump before end: the code
				 * cannot have run straight through */
	LBR_DROP_MAX,
};

/* No straight-line code is this long: the range is garbage. */
#define LBR_MAX_RANGE 65536

/* Text of each reason, for reports. */
extern const char *const lbr_drop_name[LBR_DROP_MAX];

/* Counts are sums of record counts (executions), not numbers of records. */
struct lbr_stats {
	uint64_t ranges;		/* all ranges of the object */
	uint64_t range_samples;		/* ... of them used */
	uint64_t dropped[LBR_DROP_MAX];	/* ... of them dropped, by reason */
	uint64_t branches;		/* all taken branches from the object */
	uint64_t calls;			/* ... to a function's entry in it:
					 * HEAD and a call target */
	uint64_t calls_out;		/* ... to a function in another object,
					 * named by the callback: a call target */
	uint64_t returns;		/* ... from a return instruction */
	uint64_t other;			/* ... other jumps (their effect is in
					 * the ranges) */
	uint64_t branches_dropped;	/* ... with an end outside every PT_LOAD */
	uint64_t calls_in;		/* branches from other objects to a
					 * function's entry in it: HEAD */
	uint64_t calls_unlocated;	/* calls whose call site has no line:
					 * HEAD only */
	uint64_t insns;			/* instructions given a count (with 0) */
	uint64_t insns_no_line;		/* ... of them without function or line */
	uint64_t functions;		/* functions whose ranges were walked */
	uint64_t insns_line0;		/* instructions at line 0 left out of
					 * the body (LBR_LINE0_DROP) */
	uint64_t repeats;		/* REP string instructions counted by
					 * the instruction before them
					 * (LBR_REPEAT_ONCE) */
	uint64_t repeat_iterations;	/* ... the counts they lost */
};

/* lbr_add's flags. */
enum {
	/* No body record for an instruction that the compiler gave line 0:
	 * clang's sample loader would read it at the wrapped offset
	 * (0 - decl line) & 0xffff, where only its own line-0 IR
	 * instructions look, and most line-0 code of a binary is made after
	 * the loader ran (docs/convert.md, "Line 0"). */
	LBR_LINE0_DROP = 1,
	/* Exact counts: an x86 REP string instruction that no direct branch
	 * goes to counts as often as the instruction before it where it
	 * counted more, its iterations left out (insn.h, INSN_REPEAT;
	 * docs/convert.md, "Exact counts").  Not for branch records: a
	 * range never holds an iteration, and one that starts at the
	 * instruction came from a branch that may be indirect. */
	LBR_REPEAT_ONCE = 2,
};

/* Name of the function that STARTS at file offset off of object obj of the
 * raw profile (a shared library), or NULL (sym_starts_function, then
 * sym_function_name, on that object's symbolizer).  The string must stay
 * valid until lbr_add returns. */
typedef const char *(*lbr_callee_fn)(void *arg, uint32_t obj, uint64_t off);

/* Add the branch records of object obj (raw->objs[obj], whose ELF file sym
 * has opened) into prof:
 *  - each range that passes the checks (enum lbr_drop) gives every
 *    instruction in it the range's count; a location's body count is the
 *    maximum over its instructions of count x the duplication factor of
 *    the instruction's discriminator, and every instruction of a function
 *    in which a range begins gets a body record, 0 if no range covers it;
 *  - TOTAL, of each function and inlinee, is the sum over its instructions
 *    of count x instruction length in bytes (llvm-profgen's "per byte"
 *    total; not the sum of the body), so prof->totals_given is set;
 *  - a taken branch to a function's entry adds its count to the callee's
 *    HEAD and to the call target at the call site's location; from another
 *    object (raw->objs[i].branches with to_obj == obj), to HEAD only;
 *  - a branch to another object becomes a call target if callee_name (may
 *    be NULL: llvm-profgen does not see those) names a function starting
 *    there and the branch is not a return;
 *  - finally a top-level body count is raised to the sum of its call
 *    targets where that is larger (FunctionSamples::updateCallsiteSamples;
 *    llvm-profgen 16 does not do it inside inlined callsites, nor do we).
 * Functions that only have a HEAD, or only call targets, have TOTAL 0 (as
 * in llvm-profgen's output).  prof should hold no IP-mode counts.  st (may
 * be NULL) is added to, not cleared.  Returns 0, or -1 if obj is not in
 * raw.  flags: LBR_LINE0_DROP, LBR_REPEAT_ONCE, or 0. */
int lbr_add(struct fs_profile *prof, struct symbolizer *sym,
	    const struct raw_profile *raw, int obj, lbr_callee_fn callee_name,
	    void *arg, struct lbr_stats *st, unsigned flags);

/* llvm-profgen's FunctionSamples::getCanonicalFnName: name without a
 * ".llvm.N" or ".part.N" suffix, in buf (size n) if it has one. */
const char *lbr_canonical_name(const char *name, char *buf, size_t n);

#endif
