/* SPDX-License-Identifier: GPL-2.0-only */
#include "cfg.h"
#include "../lib/util.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* Adjacency in compressed rows: node v's neighbours are adj[off[v] ..
 * off[v + 1]). */
struct rows {
	uint32_t *off, *adj;
};

static void rows_build(struct rows *r, size_t nodes, const struct cfg_edge *e,
		       size_t ne, int reverse)
{
	r->off = xcalloc(nodes + 1, sizeof(*r->off));
	r->adj = xmalloc((ne ? ne : 1) * sizeof(*r->adj));
	for (size_t i = 0; i < ne; i++)
		r->off[(reverse ? e[i].to : e[i].from) + 1]++;
	for (size_t v = 0; v < nodes; v++)
		r->off[v + 1] += r->off[v];
	uint32_t *fill = xmalloc((nodes + 1) * sizeof(*fill));

	memcpy(fill, r->off, (nodes + 1) * sizeof(*fill));
	for (size_t i = 0; i < ne; i++)
		r->adj[fill[reverse ? e[i].to : e[i].from]++] = reverse ? e[i].from : e[i].to;
	free(fill);
}

static void rows_free(struct rows *r)
{
	free(r->off);
	free(r->adj);
}

/* Reverse postorder from root along succ: order[0..returned), and num[v]
 * = v's position, NONE when root does not reach v.  Iterative DFS. */
static size_t rpo(size_t nodes, const struct rows *succ, uint32_t root,
		  uint32_t *order, uint32_t *num)
{
	uint32_t *stack = xmalloc(nodes * sizeof(*stack));
	uint32_t *next = xcalloc(nodes, sizeof(*next));
	size_t sp = 0, done = 0;

	for (size_t v = 0; v < nodes; v++)
		num[v] = NONE;
	num[root] = 0;		/* seen */
	stack[sp++] = root;
	while (sp) {
		uint32_t v = stack[sp - 1];

		if (succ->off[v] + next[v] < succ->off[v + 1]) {
			uint32_t w = succ->adj[succ->off[v] + next[v]++];

			if (num[w] == NONE) {
				num[w] = 0;
				stack[sp++] = w;
			}
			continue;
		}
		order[done++] = v;	/* postorder */
		sp--;
	}
	for (size_t i = 0; i < done / 2; i++) {
		uint32_t t = order[i];

		order[i] = order[done - 1 - i];
		order[done - 1 - i] = t;
	}
	for (size_t i = 0; i < done; i++)
		num[order[i]] = (uint32_t)i;
	free(stack);
	free(next);
	return done;
}

/* Immediate dominators along succ from root (idom[root] = root, NONE for
 * what root does not reach); num: the reverse postorder numbers. */
static void dominators(size_t nodes, const struct rows *succ,
		       const struct rows *pred, uint32_t root, uint32_t *idom,
		       uint32_t *num)
{
	uint32_t *order = xmalloc(nodes * sizeof(*order));
	size_t n = rpo(nodes, succ, root, order, num);
	int changed = 1;

	for (size_t v = 0; v < nodes; v++)
		idom[v] = NONE;
	idom[root] = root;
	while (changed) {
		changed = 0;
		for (size_t i = 1; i < n; i++) {
			uint32_t b = order[i], d = NONE;

			for (uint32_t k = pred->off[b]; k < pred->off[b + 1]; k++) {
				uint32_t p = pred->adj[k];

				if (idom[p] == NONE)
					continue;
				while (d != NONE && p != d) {	/* intersect */
					while (num[p] > num[d])
						p = idom[p];
					while (num[d] > num[p])
						d = idom[d];
				}
				d = p;
			}
			if (d != idom[b]) {
				idom[b] = d;
				changed = 1;
			}
		}
	}
	free(order);
}

/* 1 if a dominates b in the tree idom (numbered by num). */
static int dominates(const uint32_t *idom, const uint32_t *num, uint32_t a,
		     uint32_t b)
{
	if (idom[a] == NONE || idom[b] == NONE)
		return 0;
	while (b != a && num[b] > num[a])
		b = idom[b];
	return b == a;
}

/* loop[v]: the header of v's innermost natural loop, NONE outside loops.
 * A loop's body: what reaches one of its back edges' sources (u -> h, h
 * dominating u) without passing h.  Outer loops are marked first, so the
 * innermost loop's mark stays. */
static void loops(size_t n, const struct rows *pred,
		  const uint32_t *idom, const uint32_t *num, uint32_t *loop)
{
	uint32_t *size = xcalloc(n, sizeof(*size)), *mark = xmalloc(n * sizeof(*mark));
	uint32_t *stack = xmalloc(n * sizeof(*stack)), *hdr = xmalloc(n * sizeof(*hdr));
	size_t nh = 0;

	for (size_t v = 0; v < n; v++)
		loop[v] = mark[v] = NONE;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < (pass ? nh : n); i++) {
			uint32_t h = pass ? hdr[i] : (uint32_t)i;
			size_t sp = 0, body = 1;
			int header = 0;

			mark[h] = h + (uint32_t)pass * (uint32_t)n;
			for (uint32_t k = pred->off[h]; k < pred->off[h + 1]; k++) {
				uint32_t u = pred->adj[k];

				if (u >= n || !dominates(idom, num, h, u))
					continue;
				header = 1;	/* u -> h is a back edge */
				if (mark[u] != mark[h]) {
					mark[u] = mark[h];
					stack[sp++] = u;
				}
			}
			if (!header && !pass)
				continue;
			if (pass)
				loop[h] = h;
			while (sp) {
				uint32_t v = stack[--sp];

				body++;
				if (pass)
					loop[v] = h;
				for (uint32_t k = pred->off[v]; k < pred->off[v + 1]; k++) {
					uint32_t p = pred->adj[k];

					if (idom[p] != NONE && mark[p] != mark[h]) {
						mark[p] = mark[h];
						stack[sp++] = p;
					}
				}
			}
			if (!pass) {
				size[h] = (uint32_t)body;
				hdr[nh++] = h;
			}
		}
		/* outer (larger) loops first in the marking pass */
		for (size_t i = 1; i < nh && !pass; i++)
			for (size_t j = i; j > 0 && size[hdr[j - 1]] < size[hdr[j]]; j--) {
				uint32_t t = hdr[j];

				hdr[j] = hdr[j - 1];
				hdr[j - 1] = t;
			}
		for (size_t v = 0; v < n && !pass; v++)
			mark[v] = NONE;
	}
	free(size);
	free(mark);
	free(stack);
	free(hdr);
}

/* Preorder intervals of the tree idom rooted at root: a dominates b iff
 * pre[a] <= pre[b] <= last[a]; byPre lists the nodes in preorder.  Nodes
 * outside the tree get pre NONE. */
static void intervals(size_t nodes, const uint32_t *idom, uint32_t root,
		      uint32_t *pre, uint32_t *last, uint32_t *by_pre)
{
	struct cfg_edge *te = xmalloc(nodes * sizeof(*te));
	uint32_t *stack = xmalloc(nodes * sizeof(*stack)), *next = xcalloc(nodes, sizeof(*next));
	struct rows kids;
	size_t nt = 0, sp = 0, k = 0;

	for (size_t v = 0; v < nodes; v++) {
		pre[v] = last[v] = NONE;
		if (idom[v] != NONE && v != root)
			te[nt++] = (struct cfg_edge){ idom[v], (uint32_t)v };
	}
	rows_build(&kids, nodes, te, nt, 0);
	pre[root] = (uint32_t)k;
	by_pre[k++] = root;
	stack[sp++] = root;
	while (sp) {
		uint32_t v = stack[sp - 1];

		if (kids.off[v] + next[v] < kids.off[v + 1]) {
			uint32_t w = kids.adj[kids.off[v] + next[v]++];

			pre[w] = (uint32_t)k;
			by_pre[k++] = w;
			stack[sp++] = w;
			continue;
		}
		last[v] = (uint32_t)k - 1;
		sp--;
	}
	rows_free(&kids);
	free(te);
	free(stack);
	free(next);
}

void cfg_equivalence(size_t n, const struct cfg_edge *e, size_t ne,
		     size_t entry, uint32_t *cls)
{
	size_t nodes = n + 1;	/* node n: the exit */
	struct rows succ, pred;
	uint32_t *idom = xmalloc(nodes * sizeof(*idom)), *num = xmalloc(nodes * sizeof(*num));
	uint32_t *ipdom = xmalloc(nodes * sizeof(*ipdom)), *pnum = xmalloc(nodes * sizeof(*pnum));
	uint32_t *pre = xmalloc(nodes * sizeof(*pre)), *last = xmalloc(nodes * sizeof(*last));
	uint32_t *ppre = xmalloc(nodes * sizeof(*ppre)), *plast = xmalloc(nodes * sizeof(*plast));
	uint32_t *by_pre = xmalloc(nodes * sizeof(*by_pre)), *loop = xmalloc(nodes * sizeof(*loop));

	for (size_t i = 0; i < n; i++)
		cls[i] = (uint32_t)i;
	if (!n || entry >= n)
		goto out;
	rows_build(&succ, nodes, e, ne, 0);
	rows_build(&pred, nodes, e, ne, 1);
	dominators(nodes, &succ, &pred, (uint32_t)entry, idom, num);
	dominators(nodes, &pred, &succ, (uint32_t)n, ipdom, pnum);
	loops(n, &pred, idom, num, loop);
	intervals(nodes, ipdom, (uint32_t)n, ppre, plast, by_pre);
	intervals(nodes, idom, (uint32_t)entry, pre, last, by_pre);
	/* In dominator-tree preorder, a block not yet in a class claims the
	 * blocks it dominates that post-dominate it, in its loop. */
	for (size_t k0 = 0; k0 < nodes && k0 <= last[entry]; k0++) {
		uint32_t a = by_pre[k0];

		if (a >= n || cls[a] != a || ppre[a] == NONE)
			continue;
		for (uint32_t k = pre[a] + 1; k <= last[a]; k++) {
			uint32_t b = by_pre[k];

			if (b < n && cls[b] == b && loop[b] == loop[a] &&
			    ppre[b] != NONE && ppre[b] <= ppre[a] && ppre[a] <= plast[b])
				cls[b] = a;
		}
	}
	rows_free(&succ);
	rows_free(&pred);
out:
	free(idom); free(num); free(ipdom); free(pnum); free(pre); free(last);
	free(ppre); free(plast); free(by_pre); free(loop);
}
