/* SPDX-License-Identifier: GPL-2.0-only */
/* A string-keyed hash table (strmap.h): open addressing, linear probing,
 * FNV-1a hashes, at most half full. */
#include "strmap.h"
#include "hash.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

int strmap_find(const struct strmap *t, const char *key, uint32_t *val)
{
	if (!t->cap)
		return 0;
	for (size_t i = hash_str(HASH_INIT, key) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		if (!t->keys[i])
			return 0;
		if (!strcmp(t->keys[i], key)) {
			*val = t->vals[i];
			return 1;
		}
	}
}

static void strmap_grow(struct strmap *t)
{
	struct strmap old = *t;

	t->cap = old.cap ? old.cap * 2 : 64;
	t->keys = xcalloc(t->cap, sizeof(*t->keys));
	t->vals = xcalloc(t->cap, sizeof(*t->vals));
	t->n = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.keys[i]) {
			strmap_put(t, old.keys[i], old.vals[i]);
			free(old.keys[i]);
		}
	free(old.keys);
	free(old.vals);
}

void strmap_put(struct strmap *t, const char *key, uint32_t val)
{
	size_t i;

	if (2 * (t->n + 1) > t->cap)
		strmap_grow(t);
	for (i = hash_str(HASH_INIT, key) & (t->cap - 1); t->keys[i];
	     i = (i + 1) & (t->cap - 1))
		if (!strcmp(t->keys[i], key)) {
			t->vals[i] = val;
			return;
		}
	t->keys[i] = xstrdup(key);
	t->vals[i] = val;
	t->n++;
}

void strmap_free(struct strmap *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->keys[i]);
	free(t->keys);
	free(t->vals);
	memset(t, 0, sizeof(*t));
}
