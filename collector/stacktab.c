/* SPDX-License-Identifier: GPL-2.0-only */
#include "stacktab.h"
#include "../lib/hash.h"

#include <string.h>

struct stack_ent {
	uint64_t hash, count;
	pid_t pid;
	size_t n;
	uint64_t ips[];
};

/* What stacktab_add looks for. */
struct stack_key {
	uint64_t hash;
	pid_t pid;
	size_t n;
	const uint64_t *ips;
};

void stacktab_init(struct stacktab *t, size_t max_bytes)
{
	budtab_init(&t->tab, max_bytes);
}

void stacktab_free(struct stacktab *t)
{
	budtab_free(&t->tab);
}

/* FNV-1a over the words: stacks differ mostly in their first frames. */
static uint64_t stack_hash(pid_t pid, const uint64_t *ips, size_t n)
{
	uint64_t h = HASH_INIT ^ (uint32_t)pid;

	for (size_t i = 0; i < n; i++)
		h = hash_u64(h, ips[i]);
	return h ^ n;
}

static uint64_t ent_hash(const void *tab, size_t i)
{
	const struct stack_ent *e = ((const struct budtab *)tab)->ent[i];

	return e->hash;
}

static int ent_eq(const void *tab, size_t i, const void *key)
{
	const struct stack_ent *e = ((const struct budtab *)tab)->ent[i];
	const struct stack_key *k = key;

	return e->hash == k->hash && e->pid == k->pid && e->n == k->n &&
	       !memcmp(e->ips, k->ips, k->n * sizeof(*k->ips));
}

int stacktab_add(struct stacktab *t, pid_t pid, const uint64_t *ips, size_t n)
{
	struct stack_key k = { stack_hash(pid, ips, n), pid, n, ips };
	size_t *slot = budtab_find(&t->tab, k.hash, ent_eq, &k);
	struct stack_ent *e;

	if (slot && *slot) {
		((struct stack_ent *)t->tab.ent[*slot - 1])->count++;
		return 0;
	}
	e = budtab_add(&t->tab, sizeof(*e) + n * sizeof(*ips), k.hash, ent_hash);
	if (!e)
		return -1;
	*e = (struct stack_ent){ .hash = k.hash, .count = 1, .pid = pid, .n = n };
	memcpy(e->ips, ips, n * sizeof(*ips));
	return 0;
}

void stacktab_each(const struct stacktab *t,
		   void (*fn)(void *arg, pid_t pid, const uint64_t *ips,
			      size_t n, uint64_t count),
		   void *arg)
{
	for (size_t i = 0; i < t->tab.n; i++) {
		const struct stack_ent *e = t->tab.ent[i];

		fn(arg, e->pid, e->ips, e->n, e->count);
	}
}
