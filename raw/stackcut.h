/* SPDX-License-Identifier: GPL-2.0-only */
/* The stack rule: how one sampled stack is cut into an IP sample and
 * caller->callee edges (docs/raw-format.md sections 3.3 and 3.5).  Its
 * one body, for every writer: raw_add_sampled_stack() (pgoprof-record,
 * pprof import, the synthesizers) adds the cuts to a profile at once;
 * import/samples.c (perf.data and perf script import) adds them to its
 * batches.  Each caller is the sink of the cuts; the rule is here. */
#ifndef PGOPROF_RAW_STACKCUT_H
#define PGOPROF_RAW_STACKCUT_H

#include <stddef.h>
#include <stdint.h>
#include "rawprof.h"

enum raw_cut {
	RAW_CUT_NONE,	/* nothing: a leaf in no object (the caller counts
			 * why, unattributed.REASON), or a pair whose
			 * callee is the kernel mark */
	RAW_CUT_IP,	/* an IP sample at the leaf, f[0] */
	RAW_CUT_EDGE,	/* an edge from caller f[i] to callee f[i-1] */
	RAW_CUT_LOST,	/* a pair with a frame in no object:
			 * edges.unattributed */
};

/* The cut of frame i of a sampled stack f (leaf first: f[0] the leaf or
 * the kernel mark RAW_FRAME_KERNEL, then return addresses); reads f[0..i]
 * only.  A frame is in an object when its obj is below known (the
 * profile's nobjs, or RAW_FRAME_KERNEL when every frame that is no mark
 * names an object).  RAW_CUT_EDGE sets *callee_off: f[i-1].offset, less
 * 1 when f[i-1] is a return address (above the leaf, and not the user IP
 * right above the kernel mark), so that the edge lands inside the call
 * instruction. */
static inline enum raw_cut raw_stack_cut(const struct raw_frame *f, uint32_t i,
					 size_t known, uint64_t *callee_off)
{
	if (i == 0)
		return f[0].obj < known ? RAW_CUT_IP : RAW_CUT_NONE;
	if (f[i - 1].obj == RAW_FRAME_KERNEL)
		return RAW_CUT_NONE;
	if (f[i].obj >= known || f[i - 1].obj >= known)
		return RAW_CUT_LOST;
	*callee_off = i > 1 && f[i - 2].obj != RAW_FRAME_KERNEL
			      ? f[i - 1].offset - 1 : f[i - 1].offset;
	return RAW_CUT_EDGE;
}

#endif
