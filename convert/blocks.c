/* SPDX-License-Identifier: GPL-2.0-only */
#include "blocks.h"
#include "cfg.h"
#include "symbolize.h"
#include "../lib/util.h"

#include <math.h>
#include <stdlib.h>

/* The index of the instruction at vaddr, or -1: a branch into the middle
 * of an instruction, or out of the function, starts no block here. */
static long insn_at(const struct blk_insn *in, size_t n, uint64_t vaddr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (in[mid].vaddr < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && in[lo].vaddr == vaddr ? (long)lo : -1;
}

static uint8_t *leaders(const struct blk_insn *in, size_t n)
{
	uint8_t *lead = xcalloc(n ? n : 1, 1);
	const unsigned ends = INSN_JUMP | INSN_BRANCH | INSN_RET;

	for (size_t i = 0; i < n; i++) {
		long t;

		if (i == 0 || in[i].vaddr != in[i - 1].vaddr + in[i - 1].len)
			lead[i] = 1;
		if ((in[i].kind & ends) && i + 1 < n)
			lead[i + 1] = 1;
		if (in[i].target != UINT64_MAX &&
		    (t = insn_at(in, n, in[i].target)) >= 0)
			lead[t] = 1;
	}
	return lead;
}

/* BLK_CAPPED: the others' mean m (one sample added, so that a block
 * sampled once is not all noise) plus three of its Poisson standard
 * deviations, plus one. */
static double cap(uint64_t others, size_t k)
{
	double m = (double)(others + 1) / (double)(k - 1);

	return m + 3 * sqrt(m) + 1;
}

static double block_count(const struct blk_insn *in, size_t b, size_t e,
			  enum blk_stat st)
{
	uint64_t sum = 0, max = 0;
	size_t k = e - b;
	double s;

	for (size_t i = b; i < e; i++) {
		sum += in[i].samples;
		if (in[i].samples > max)
			max = in[i].samples;
	}
	s = (double)sum;
	if (st == BLK_CAPPED && k >= 3 && (double)max > cap(sum - max, k))
		s = (double)(sum - max) + cap(sum - max, k);
	return s / (double)k;
}

/* The block that follows instruction i's block: its successor in the
 * address order, or the exit after a gap. */
static uint32_t next_block(const struct blk_insn *in, size_t n, size_t i,
			   const uint32_t *blk_of, uint32_t nb)
{
	return i + 1 < n && in[i + 1].vaddr == in[i].vaddr + in[i].len
		       ? blk_of[i + 1] : nb;
}

/* The edges out of the block that ends with instruction i. */
static size_t block_edges(const struct blk_insn *in, size_t n, size_t i,
			  const uint32_t *blk_of, uint32_t nb,
			  struct cfg_edge *out)
{
	uint32_t from = blk_of[i], to = nb;
	long t = in[i].target == UINT64_MAX ? -1 : insn_at(in, n, in[i].target);
	size_t k = 0;

	if (t >= 0)
		to = blk_of[t];
	if (in[i].kind & INSN_RET)
		out[k++] = (struct cfg_edge){ from, nb };
	else if (in[i].kind & INSN_JUMP)
		out[k++] = (struct cfg_edge){ from, to };
	else if ((in[i].kind & INSN_BRANCH) && in[i].target == UINT64_MAX)
		out[k++] = (struct cfg_edge){ from, nb };	/* indirect */
	else {
		if (in[i].kind & INSN_BRANCH)
			out[k++] = (struct cfg_edge){ from, to };
		out[k++] = (struct cfg_edge){ from, next_block(in, n, i, blk_of, nb) };
	}
	return k;
}

/* The most a block's count (samples per instruction) can be, given the
 * samples s of its class over i instructions and the samples k that may
 * belong to it though they landed on its successor's first instruction. */
static double upper(double s, double i, double k)
{
	return (s + k + 3 * sqrt(s + k) + 1) / i;
}

/* A block runs no more often than its predecessors together, nor than its
 * successors together: where its estimate says more, the excess is
 * latency (samples held by a slow instruction: a loop's header that
 * waits on a cache miss looks like a loop that runs many times, but its
 * back edge's block has no samples to feed it), and the bound is taken.
 * Each neighbour counts with the upper end of its estimate (3 Poisson
 * standard deviations).  A block fed by itself or its own class, the
 * entry, and a block entered only by an indirect jump have no inflow
 * bound; a block that may leave the function, no outflow bound. */
static void bound(struct blk_insn *in, size_t n, const uint32_t *blk_of,
		  uint32_t nb, const size_t *first, const struct cfg_edge *e,
		  size_t ne, const uint32_t *cls, const double *cs,
		  const double *ci, uint32_t entry)
{
	double *est = xmalloc(nb * sizeof(*est)), *inb = xcalloc(nb, sizeof(*inb));
	double *outb = xcalloc(nb, sizeof(*outb));
	uint8_t *open_in = xmalloc(nb), *open_out = xcalloc(nb, 1);

	for (uint32_t b = 0; b < nb; b++) {
		est[b] = in[first[b]].count;
		open_in[b] = 1;	/* until an edge enters it */
	}
	for (size_t k = 0; k < ne; k++)
		if (e[k].to < nb)
			open_in[e[k].to] = 0;
	for (size_t k = 0; k < ne; k++) {
		uint32_t f = e[k].from, t = e[k].to;
		double lead;

		if (t >= nb || f == t || cls[f] == cls[t]) {
			open_out[f] = 1;	/* exit, or feeds itself */
			if (t < nb)
				open_in[t] = 1;
			continue;
		}
		lead = (double)in[first[t]].samples;
		inb[t] += upper(cs[cls[f]], ci[cls[f]], lead);
		outb[f] += upper(cs[cls[t]], ci[cls[t]], 0);
	}
	open_in[entry] = 1;
	for (uint32_t b = 0; b < nb; b++) {
		double m = est[b];

		if (!open_in[b] && inb[b] < m)
			m = inb[b];
		if (!open_out[b] && outb[b] < m)
			m = outb[b];
		est[b] = m;
	}
	/* a block no edge enters (reached by an indirect jump) keeps its own */
	for (size_t i = 0; i < n; i++)
		in[i].count = est[blk_of[i]];
	free(est); free(inb); free(outb); free(open_in); free(open_out);
}

/* BLK_FLOW: each class of equally often run blocks (cfg.h) gets its
 * blocks' samples (capped) over their instructions; then the bounds of
 * the flow. */
static void pool(struct blk_insn *in, size_t n, const uint32_t *blk_of,
		 uint32_t nb, const size_t *first, const double *samples,
		 uint64_t entry)
{
	struct cfg_edge *e = xmalloc(2 * (nb ? nb : 1) * sizeof(*e));
	uint32_t *cls = xmalloc((nb ? nb : 1) * sizeof(*cls));
	double *cs = xcalloc(nb ? nb : 1, sizeof(*cs)), *ci = xcalloc(nb ? nb : 1, sizeof(*ci));
	size_t ne = 0;
	long ei = insn_at(in, n, entry);

	for (uint32_t b = 0; b < nb; b++)
		ne += block_edges(in, n, (b + 1 < nb ? first[b + 1] : n) - 1, blk_of, nb, e + ne);
	cfg_equivalence(nb, e, ne, ei >= 0 ? blk_of[ei] : 0, cls);
	for (uint32_t b = 0; b < nb; b++) {
		cs[cls[b]] += samples[b];
		ci[cls[b]] += (double)((b + 1 < nb ? first[b + 1] : n) - first[b]);
	}
	for (size_t i = 0; i < n; i++)
		in[i].count = cs[cls[blk_of[i]]] / ci[cls[blk_of[i]]];
	bound(in, n, blk_of, nb, first, e, ne, cls, cs, ci, ei >= 0 ? blk_of[ei] : 0);
	free(e);
	free(cls);
	free(cs);
	free(ci);
}

size_t blk_estimate(struct blk_insn *in, size_t n, uint64_t entry,
		    enum blk_stat st)
{
	uint8_t *lead = leaders(in, n);
	uint32_t *blk_of = xmalloc((n ? n : 1) * sizeof(*blk_of)), nb = 0;
	size_t *first = xmalloc((n ? n : 1) * sizeof(*first));
	double *samples = xmalloc((n ? n : 1) * sizeof(*samples));

	for (size_t b = 0; b < n;) {
		size_t e = b + 1;
		double c;

		while (e < n && !lead[e])
			e++;
		c = block_count(in, b, e, st == BLK_MEAN ? BLK_MEAN : BLK_CAPPED);
		for (size_t i = b; i < e; i++) {
			in[i].count = c;
			blk_of[i] = nb;
		}
		first[nb] = b;
		samples[nb++] = c * (double)(e - b);
		b = e;
	}
	if (st == BLK_FLOW && nb)
		pool(in, n, blk_of, nb, first, samples, entry);
	free(lead);
	free(blk_of);
	free(first);
	free(samples);
	return nb;
}
