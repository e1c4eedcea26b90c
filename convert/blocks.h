/* SPDX-License-Identifier: GPL-2.0-only */
/* IP mode: the basic blocks of one function, found in its decoded
 * instructions, and each block's execution count estimated from the
 * samples of its instructions.  Every instruction of a block runs as often
 * as the block, so the block, not the source line, is where samples are
 * pooled (docs/convert.md, "Block estimates"). */
#ifndef PGOPROF_BLOCKS_H
#define PGOPROF_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

/* One instruction of the function, in address order. */
struct blk_insn {
	uint64_t vaddr;		/* ELF virtual address */
	uint32_t len;		/* bytes */
	unsigned kind;		/* INSN_* (insn.h) */
	uint64_t target;	/* a direct jump's or branch's target
				 * (virtual address), else UINT64_MAX */
	uint64_t samples;	/* samples at this instruction */
	double count;		/* out: its block's estimate, in samples per
				 * instruction */
};

/* How a block's samples become its count. */
enum blk_stat {
	BLK_MEAN,	/* samples / instructions */
	BLK_CAPPED,	/* the same with the most sampled instruction
			 * capped where Poisson noise around the others'
			 * mean would not reach (blocks of 3 or more): a
			 * load that misses the cache holds the timer's
			 * samples on one instruction, not on the block */
	BLK_FLOW,	/* BLK_CAPPED, then pooled over the blocks that run
			 * equally often (cfg.h): more samples to each
			 * estimate; then each block bounded by what flows
			 * in and out of it */
};

/* Split in[0..n) (sorted by vaddr; entry: the function's entry address)
 * into basic blocks: a block starts at
 * the first instruction, after a gap in the addresses, at a jump's or
 * branch's target, and after a jump, branch or return (calls do not end a
 * block).  Sets in[i].count to the estimate of in[i]'s block.  Returns the
 * number of blocks. */
size_t blk_estimate(struct blk_insn *in, size_t n, uint64_t entry,
		    enum blk_stat st);

#endif
