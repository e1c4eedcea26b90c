/* SPDX-License-Identifier: GPL-2.0-only */
#include "estimate.h"
#include "../lib/util.h"

#include <stdlib.h>
#include <string.h>

static const char *const est_names[EST_COUNT] = {
	"sum", "mean", "max", "block", "block-capped", "flow"
};

int estimator_by_name(const char *name)
{
	for (int i = 0; i < EST_COUNT; i++)
		if (!strcmp(name, est_names[i]))
			return i;
	return -1;
}

const char *estimator_name(enum estimator e)
{
	return (unsigned)e < EST_COUNT ? est_names[e] : "?";
}

/* The measurements behind each choice are in bench/results/
 * quality-signal.md (execution-proportional samples drawn from exact
 * counts by bench/expsample) and bench/results/ablation.md (cpu-clock
 * samples). */
enum estimator estimator_for_signal(enum raw_signal s, const char **why)
{
	switch (s) {
	case SIGNAL_EXEC:
		/* A block's samples per instruction is its execution rate;
		 * the largest of a line's blocks is what exact counts give
		 * the line (llvm-profgen's max rule, convert/lbr.c). */
		*why = "samples proportional to executions: a line counts as its busiest basic block";
		return EST_BLOCK;
	case SIGNAL_TIME:
		*why = "time samples: a line's samples, as measured best for them";
		return EST_SUM;
	case SIGNAL_BRANCH:
	case SIGNAL_EXACT:
		*why = "counts of ranges (not read: no IP samples to estimate from)";
		return EST_MEAN;
	default:
		*why = "the profile does not say what its samples measure (no META signal)";
		return EST_MEAN;
	}
}

void est_init(struct est_table *t)
{
	memset(t, 0, sizeof(*t));
}

void est_free(struct est_table *t)
{
	free(t->slot);
	est_init(t);
}

/* Not on lib/hindex, nor lib/hash.h's mix: est_scale() and convert.c sum
 * long doubles in slot order, so a new placement changes counts' last bits. */
static struct est_line *find_slot(struct est_line *slot, size_t size,
				  uint64_t key)
{
	size_t h = (size_t)(key * 0x9e3779b97f4a7c15ULL) & (size - 1);

	while (slot[h].key && slot[h].key != key)
		h = (h + 1) & (size - 1);
	return &slot[h];
}

static void rehash(struct est_table *t)
{
	size_t size = t->size ? 2 * t->size : 4096;
	struct est_line *slot = xcalloc(size, sizeof(*slot));

	for (size_t i = 0; i < t->size; i++)
		if (t->slot[i].key)
			*find_slot(slot, size, t->slot[i].key) = t->slot[i];
	free(t->slot);
	t->slot = slot;
	t->size = size;
}

int est_uses_blocks(enum estimator e)
{
	return e == EST_BLOCK || e == EST_BLOCK_CAPPED || e == EST_FLOW;
}

void est_add(struct est_table *t, uint64_t key, uint64_t samples,
	     uint64_t vaddr, double block)
{
	struct est_line *l;

	if (2 * (t->used + 1) > t->size)
		rehash(t);
	l = find_slot(t->slot, t->size, key);
	if (!l->key) {
		l->key = key;
		t->used++;
	}
	l->sum += samples;
	if (samples > l->max)
		l->max = samples;
	l->ninsns++;
	if (!l->vaddr || (samples && l->sum == samples))
		l->vaddr = vaddr;
	if (block > l->block)
		l->block = block;
}

static long double raw_estimate(const struct est_line *l, enum estimator e)
{
	switch (e) {
	case EST_MEAN:
		return (long double)l->sum / (l->ninsns ? l->ninsns : 1);
	case EST_MAX:
		return (long double)l->max;
	case EST_BLOCK:
	case EST_BLOCK_CAPPED:
	case EST_FLOW:
		return (long double)l->block;
	default:
		return (long double)l->sum;
	}
}

long double est_scale(const struct est_table *t, enum estimator e)
{
	long double sum = 0, est = 0;

	for (size_t i = 0; i < t->size; i++) {
		if (!t->slot[i].key || !t->slot[i].sum)
			continue;	/* not written (est_value) */
		sum += (long double)t->slot[i].sum;
		est += raw_estimate(&t->slot[i], e);
	}
	return est > 0 ? sum / est : 1;
}

uint64_t est_value(const struct est_line *l, enum estimator e,
		   long double scale)
{
	long double v = raw_estimate(l, e) * scale + 0.5L;

	/* A line without samples of its own stays out of the profile with
	 * every estimator (--unsampled floor may give it 1: convert.c,
	 * add_floor), though a block estimate could give it a count:
	 * its count would come from code around it, and such counts marked
	 * code cold that the compiler's own inference got right (bzip2 with
	 * clang: -9% executed instructions against -16%; docs/convert.md). */
	if (!l->sum)
		return 0;
	if (v >= 18446744073709551615.0L)
		return UINT64_MAX;
	return v < 1 ? 1 : (uint64_t)v;
}
