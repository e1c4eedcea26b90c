/* SPDX-License-Identifier: GPL-2.0-only */
/* A string-keyed hash table (strmap.h): the keys a strtab, the values an
 * array by key number. */
#include "strmap.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

int strmap_find(const struct strmap *t, const char *key, uint32_t *val)
{
	long i = strtab_find(&t->keys, key);

	if (i < 0)
		return 0;
	*val = t->vals[i];
	return 1;
}

void strmap_put(struct strmap *t, const char *key, uint32_t val)
{
	size_t i = strtab_id(&t->keys, key);

	grow(&t->vals, &t->cap_vals, t->keys.n, sizeof(*t->vals));
	t->vals[i] = val;
}

void strmap_free(struct strmap *t)
{
	strtab_free(&t->keys);
	free(t->vals);
	memset(t, 0, sizeof(*t));
}
