/* SPDX-License-Identifier: GPL-2.0-only */
/* Interned strings: an array of copies and a hash index (hindex.h) of
 * their FNV-1a hashes. */
#include "strtab.h"
#include "hash.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void strtab_init(struct strtab *t)
{
	memset(t, 0, sizeof(*t));
}

void strtab_free(struct strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	hindex_free(&t->index);
	memset(t, 0, sizeof(*t));
}

static uint64_t str_hash(const void *t, size_t i)
{
	return hash_str(HASH_INIT, ((const struct strtab *)t)->v[i]);
}

static int str_eq(const void *t, size_t i, const void *s)
{
	return !strcmp(((const struct strtab *)t)->v[i], s);
}

long strtab_find(const struct strtab *t, const char *s)
{
	size_t *slot;

	if (!t->index.cap)
		return -1;
	slot = hindex_find(&t->index, hash_str(HASH_INIT, s), str_eq, t, s);
	return *slot ? (long)(*slot - 1) : -1;
}

size_t strtab_id(struct strtab *t, const char *s)
{
	size_t *slot;

	hindex_reserve(&t->index, t->n, 256, str_hash, t);
	slot = hindex_find(&t->index, hash_str(HASH_INIT, s), str_eq, t, s);
	if (!*slot) {
		grow(&t->v, &t->cap, t->n + 1, sizeof(*t->v));
		t->v[t->n] = xstrdup(s);
		*slot = ++t->n;
	}
	return *slot - 1;
}

const char *strtab_get(struct strtab *t, const char *s)
{
	size_t id = strtab_id(t, s);	/* first: it may move t->v */

	return t->v[id];
}
