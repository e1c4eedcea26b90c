/* SPDX-License-Identifier: GPL-2.0-only */
/* A function's control-flow graph over its basic blocks, and which blocks
 * run equally often: A and B do when A dominates B, B post-dominates A,
 * and both are in the same innermost loop (the rule of LLVM's
 * SampleProfileLoaderBaseImpl::findEquivalencesFor,
 * llvm/include/llvm/Transforms/Utils/SampleProfileLoaderBaseImpl.h). */
#ifndef PGOPROF_CFG_H
#define PGOPROF_CFG_H

#include <stddef.h>
#include <stdint.h>

/* An edge between blocks; to == the number of blocks: the function's exit
 * (a return, a jump out of the function, or an indirect jump, whose
 * targets are unknown). */
struct cfg_edge {
	uint32_t from, to;
};

/* Blocks 0..n-1, entered at block entry.  Sets cls[i] to the block that
 * names block i's class of equally often run blocks: the one of them that
 * dominates the others.  A block
 * that the entry does not reach (only through an indirect jump), or that
 * does not reach the exit, is a class of its own.  Dominators by Cooper,
 * Harvey and Kennedy's iterative algorithm ("A Simple, Fast Dominance
 * Algorithm", 2001).  Time: O(n^2) at worst. */
void cfg_equivalence(size_t n, const struct cfg_edge *e, size_t ne,
		     size_t entry, uint32_t *cls);

#endif
