/* SPDX-License-Identifier: GPL-2.0-only */
/* A string-keyed hash table (strmap.h): the keys and values in arrays,
 * found through a hash index (hindex.h) of FNV-1a hashes. */
#include "strmap.h"
#include "hash.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static uint64_t key_hash(const void *t, size_t i)
{
	return hash_str(HASH_INIT, ((const struct strmap *)t)->keys[i]);
}

static int key_eq(const void *t, size_t i, const void *key)
{
	return !strcmp(((const struct strmap *)t)->keys[i], key);
}

int strmap_find(const struct strmap *t, const char *key, uint32_t *val)
{
	size_t *slot;

	if (!t->index.cap)
		return 0;
	slot = hindex_find(&t->index, hash_str(HASH_INIT, key), key_eq, t, key);
	if (!*slot)
		return 0;
	*val = t->vals[*slot - 1];
	return 1;
}

void strmap_put(struct strmap *t, const char *key, uint32_t val)
{
	size_t *slot;

	hindex_reserve(&t->index, t->n, 64, key_hash, t);
	slot = hindex_find(&t->index, hash_str(HASH_INIT, key), key_eq, t, key);
	if (!*slot) {
		grow(&t->keys, &t->cap_keys, t->n + 1, sizeof(*t->keys));
		grow(&t->vals, &t->cap_vals, t->n + 1, sizeof(*t->vals));
		t->keys[t->n] = xstrdup(key);
		*slot = ++t->n;
	}
	t->vals[*slot - 1] = val;
}

void strmap_free(struct strmap *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->keys[i]);
	free(t->keys);
	free(t->vals);
	hindex_free(&t->index);
	memset(t, 0, sizeof(*t));
}
