/* SPDX-License-Identifier: GPL-2.0-only */
/* Execution-proportional IP samples synthesized from exact counts (issue
 * 28): what an `instructions` sampler (one sample every N retired
 * instructions) would have recorded of the run that `pgoprof record
 * --exact` counted, so that the converter's rules for such samples can be
 * measured on machines without a PMU.
 *
 * The input is a raw profile of mode exact-counts (docs/raw-format.md,
 * "Written by pgoprof record --exact"): each executed instruction a
 * single-instruction range [off, off] with its count, each call a branch
 * from the call instruction to the callee's first instruction with the
 * number of calls.
 *
 * - Leaves: N independent draws, each instruction with probability
 *   count / total (Vose's alias method: exact in distribution up to
 *   double rounding), so each instruction's samples are multinomial, as
 *   an unbiased sampler's are.
 * - Skid: each sample moves with probability `skid` to the next executed
 *   instruction in address order in the same object (the next range of
 *   the exact profile; the last stays).  The exact profile holds only
 *   executed instructions, so a skidded sample always lands on code that
 *   ran, as a real one does; no decoder and no binary are needed.  Real
 *   skid follows execution order (after a taken branch, its target):
 *   this is the fall-through approximation.
 * - Stacks: the leaf's function is the FUNC symbol that holds it, from
 *   the symbol table of the file the object was recorded at when that
 *   file is there with the same build-ID (else the last call target at
 *   or below it: functions entered only by jumps then count as part of
 *   the one before); call targets outside every symbol (a stripped
 *   library's internal functions) are functions up to the next one.
 *   Its caller is drawn among the calls into that function's entry in
 *   proportion to their counts, and so on up to max_depth frames or a
 *   function already on the stack (recursion is followed one level): a
 *   first-order (gprof-like) model, the best an exact profile's call
 *   counts allow.  A caller's frame is the return address: the next
 *   executed instruction after the call in address order (the
 *   instruction a call returns to runs as often as the call returns; a
 *   call that never returns ends the stack there and is counted).
 *   Callgrind counts a tail jump into another function as a call: such a
 *   frame's "return address" follows a jmp, which the converter drops
 *   ("return address not after a call instruction": 3% of the edges of
 *   Lua's, whose calls were 9% tail jumps by count), where a real stack
 *   would show the jumping function's caller instead.
 *
 * Output: stack-fp IP samples, edges and stacks (raw_add_sampled_stack's
 * rule, as pgoprof-record writes them), META mode stack-fp, event
 * instructions, signal executions, call_graph fp, sample_period the
 * instructions per sample. */
#ifndef PGOPROF_EXPSAMPLE_H
#define PGOPROF_EXPSAMPLE_H

#include <stdint.h>

struct raw_profile;

struct xs_options {
	uint64_t samples;	/* N, at least 1 */
	double skid;		/* 0..1: probability of moving a sample */
	uint64_t seed;		/* same seed, input and options: same output */
	uint32_t max_depth;	/* frames per stack, leaf included (>= 1) */
};

struct xs_stats {
	uint64_t instructions;	/* total count of the exact profile */
	uint64_t skidded;	/* samples moved to the next instruction */
	uint64_t frames;	/* caller frames drawn */
	uint64_t no_return;	/* stacks ended: a call without an executed
				 * instruction after it in its function */
	uint64_t depth_cut;	/* stacks ended at max_depth */
	uint64_t recursion_cut;	/* stacks ended at a function seen in them */
	uint64_t calls_not_to_entry;	/* calls not to a function's start */
	uint64_t objects_without_symbols;	/* functions from call targets */
};

/* A deterministic pseudo-random generator (splitmix64: Steele, Lea and
 * Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014). */
uint64_t xs_rand(uint64_t *state);
/* Uniform in [0, n), n >= 1, without modulo bias (rejection). */
uint64_t xs_below(uint64_t *state, uint64_t n);

/* Draw o->samples samples from exact into out (raw_init'ed, empty): the
 * same objects (IDs and paths), META and counters as above.  Returns 0;
 * -1 after one message on stderr naming name (the input) when exact is
 * not an exact-count profile (a range longer than one instruction, or
 * no counts at all).  st (may be NULL) gets the numbers. */
int xs_sample(const struct raw_profile *exact, const char *name,
	      const struct xs_options *o, struct raw_profile *out,
	      struct xs_stats *st);

#endif
