/* Interned strings: an open-addressing set of malloc'd copies. */
#include "intern.h"
#include "../lib/util.h"
#include "../lib/hash.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void strtab_init(struct strtab *t)
{
	memset(t, 0, sizeof(*t));
}

void strtab_free(struct strtab *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->slot[i]);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

static size_t str_hash(const char *s)
{
	return (size_t)hash_str(HASH_INIT, s);
}

static size_t find(const struct strtab *t, const char *s)
{
	size_t i = str_hash(s) & (t->cap - 1);

	while (t->slot[i] && strcmp(t->slot[i], s))
		i = (i + 1) & (t->cap - 1);
	return i;
}

static void rehash(struct strtab *t)
{
	struct strtab old = *t;

	t->cap = old.cap ? 2 * old.cap : 256;
	t->slot = xcalloc(t->cap, sizeof(*t->slot));
	for (size_t i = 0; i < old.cap; i++)
		if (old.slot[i])
			t->slot[find(t, old.slot[i])] = old.slot[i];
	free(old.slot);
}

const char *strtab_get(struct strtab *t, const char *s)
{
	size_t i;

	if (2 * (t->n + 1) > t->cap)
		rehash(t);
	i = find(t, s);
	if (!t->slot[i]) {
		t->slot[i] = xstrdup(s);
		t->n++;
	}
	return t->slot[i];
}
