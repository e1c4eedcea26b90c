/* SPDX-License-Identifier: GPL-2.0-only */
/* The hash index (hindex.h). */
#include "hindex.h"
#include "util.h"

#include <stdlib.h>

void hindex_rebuild(struct hindex *x, size_t n, size_t min_cap,
		    hindex_hash_fn *hash, const void *arg)
{
	size_t cap = min_cap;

	while (cap < 2 * (n + 1))
		cap *= 2;
	free(x->slot);
	x->slot = xcalloc(cap, sizeof(*x->slot));
	x->cap = cap;
	for (size_t k = 0; k < n; k++) {
		size_t i = hindex_first(x, hash(arg, k));

		while (x->slot[i])
			i = hindex_next(x, i);
		x->slot[i] = k + 1;
	}
}

void hindex_reserve(struct hindex *x, size_t n, size_t min_cap,
		    hindex_hash_fn *hash, const void *arg)
{
	if (2 * (n + 1) <= x->cap)
		return;
	hindex_rebuild(x, n, x->cap ? 2 * x->cap : min_cap, hash, arg);
}

void hindex_free(struct hindex *x)
{
	free(x->slot);
	x->slot = NULL;
	x->cap = 0;
}
