/* SPDX-License-Identifier: GPL-2.0-only */
/* IP mode: a line's body count from the samples of its instructions.
 * cpu-clock samples land where the timer interrupt lands, so a line's sum
 * favours lines with many (or slow) instructions; the per-instruction mean
 * estimates how often the line ran, the maximum follows its hottest
 * instruction.  Totals are rescaled to the sum, so every estimator gives
 * counts of the same magnitude (docs/design.md, counting rules). */
#ifndef PGOPROF_ESTIMATE_H
#define PGOPROF_ESTIMATE_H

#include "../raw/signal.h"

#include <stddef.h>
#include <stdint.h>

enum estimator {
	EST_SUM, EST_MEAN, EST_MAX,
	EST_BLOCK,		/* the largest estimate (blocks.h) of the blocks
				 * the line has instructions in */
	EST_BLOCK_CAPPED,	/* the same with BLK_CAPPED blocks */
	EST_FLOW,		/* the same with BLK_FLOW blocks */
	EST_COUNT
};

/* One source line in one inline context: its instructions' samples. */
struct est_line {
	uint64_t key;		/* hash of the inline chain and location */
	uint64_t sum, max;	/* samples: total, largest at one instruction */
	uint32_t ninsns;	/* instructions, sampled or not */
	uint64_t vaddr;		/* its first sampled instruction, else its
				 * first instruction */
	double block;		/* EST_BLOCK*: the largest block estimate */
};

struct est_table {
	struct est_line *slot;	/* open addressing; key 0 is empty */
	size_t size, used;
};

/* "sum", "mean", "max", "block", "block-capped", "flow" -> estimator; -1
 * if unknown. */
int estimator_by_name(const char *name);

/* The name of e (a static string; "?" for a value out of range). */
const char *estimator_name(enum estimator e);
/* The estimator that measured best for IP samples of signal s (`pgoprof
 * convert --estimator auto`), and in *why a static phrase that says why,
 * for convert's one line on stderr.  Unknown signals get mean, the
 * default before signals were recorded.  Exact counts and branch
 * records are converted from their ranges without an estimator; the
 * value returned for them is what their IP samples, if any, would get. */
enum estimator estimator_for_signal(enum raw_signal s, const char **why);

void est_init(struct est_table *t);
void est_free(struct est_table *t);
/* Count one instruction (at virtual address vaddr) of the line key
 * (non-zero) with samples; block: its block's estimate (blk_estimate), 0
 * unless a block estimator is used. */
void est_add(struct est_table *t, uint64_t key, uint64_t samples,
	     uint64_t vaddr, double block);
/* 1 if e estimates lines from block estimates (blk_estimate). */
int est_uses_blocks(enum estimator e);
/* The factor that makes the estimator's total equal the sum of samples. */
long double est_scale(const struct est_table *t, enum estimator e);
/* The body count of a line: its estimate times scale, rounded; 0 for a
 * line without samples of its own; a line with samples never rounds to
 * 0. */
uint64_t est_value(const struct est_line *l, enum estimator e,
		   long double scale);

#endif
