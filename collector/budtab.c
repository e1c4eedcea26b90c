/* SPDX-License-Identifier: GPL-2.0-only */
/* A table under a byte budget (budtab.h). */
#include "budtab.h"
#include "../lib/util.h"

#include <stdlib.h>
#include <string.h>

/* The index's first slots. */
#define MIN_SLOTS 1024

void budtab_init(struct budtab *b, size_t max_bytes)
{
	memset(b, 0, sizeof(*b));
	b->max_bytes = max_bytes;
}

void budtab_free(struct budtab *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->ent[i]);
	free(b->ent);
	hindex_free(&b->index);
	memset(b, 0, sizeof(*b));
}

/* Equal to no entry: budtab_add's key is not in the table, so the probe
 * stops at the first empty slot, where budtab_find would have. */
static int never(const void *arg, size_t i, const void *key)
{
	(void)arg;
	(void)i;
	(void)key;
	return 0;
}

void *budtab_add(struct budtab *b, size_t size, uint64_t h,
		 hindex_hash_fn *hash)
{
	size_t max;
	void *e;

	if (size > b->max_bytes - b->bytes)	/* bytes <= max_bytes */
		return NULL;
	max = b->max_bytes - size;
	if (hindex_try_reserve(&b->index, b->n, MIN_SLOTS, &b->bytes, max,
			       hash, b) ||
	    try_grow(&b->ent, &b->cap, b->n + 1, sizeof(*b->ent), &b->bytes, max))
		return NULL;
	e = xmalloc(size);
	b->bytes += size;
	b->ent[b->n] = e;
	*hindex_find(&b->index, h, never, b, NULL) = ++b->n;
	return e;
}
