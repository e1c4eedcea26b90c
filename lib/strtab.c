/* SPDX-License-Identifier: GPL-2.0-only */
/* Interned strings: an array of copies and an open-addressing index. */
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
	free(t->index);
	memset(t, 0, sizeof(*t));
}

/* The index slot of s: its number + 1, or an empty slot. */
static size_t find(const struct strtab *t, const char *s)
{
	size_t i = (size_t)hash_str(HASH_INIT, s) & (t->icap - 1);

	while (t->index[i] && strcmp(t->v[t->index[i] - 1], s))
		i = (i + 1) & (t->icap - 1);
	return i;
}

static void reindex(struct strtab *t)
{
	t->icap = t->icap ? 2 * t->icap : 256;
	free(t->index);
	t->index = xcalloc(t->icap, sizeof(*t->index));
	for (size_t k = 0; k < t->n; k++)
		t->index[find(t, t->v[k])] = k + 1;
}

size_t strtab_id(struct strtab *t, const char *s)
{
	size_t i;

	if (2 * (t->n + 1) > t->icap)
		reindex(t);
	i = find(t, s);
	if (!t->index[i]) {
		grow(&t->v, &t->cap, t->n + 1, sizeof(*t->v));
		t->v[t->n] = xstrdup(s);
		t->index[i] = ++t->n;
	}
	return t->index[i] - 1;
}

const char *strtab_get(struct strtab *t, const char *s)
{
	size_t id = strtab_id(t, s);	/* first: it may move t->v */

	return t->v[id];
}
