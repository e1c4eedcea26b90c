/* SPDX-License-Identifier: GPL-2.0-only */
/* The hash index (hindex.h). */
#include "hindex.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>

/* The slots for n entries: from cap (a power of two) doubled until they
 * are at most half full. */
static size_t cap_for(size_t n, size_t cap)
{
	while (cap < 2 * (n + 1))
		cap *= 2;
	return cap;
}

void hindex_rebuild(struct hindex *x, size_t n, size_t min_cap,
		    hindex_hash_fn *hash, const void *arg)
{
	size_t cap = cap_for(n, min_cap);

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

int hindex_try_reserve(struct hindex *x, size_t n, size_t min_cap,
		       size_t *bytes, size_t max_bytes,
		       hindex_hash_fn *hash, const void *arg)
{
	size_t cap;

	if (2 * (n + 1) <= x->cap)
		return 0;
	cap = cap_for(n, x->cap ? 2 * x->cap : min_cap);
	if (budget_grow(bytes, max_bytes, x->cap * sizeof(*x->slot),
			cap * sizeof(*x->slot)))
		return -1;
	hindex_rebuild(x, n, cap, hash, arg);
	return 0;
}

/* An unbounded budget: the same growth, never refused. */
void hindex_reserve(struct hindex *x, size_t n, size_t min_cap,
		    hindex_hash_fn *hash, const void *arg)
{
	size_t bytes = 0;

	hindex_try_reserve(x, n, min_cap, &bytes, SIZE_MAX, hash, arg);
}

void hindex_free(struct hindex *x)
{
	free(x->slot);
	x->slot = NULL;
	x->cap = 0;
}
