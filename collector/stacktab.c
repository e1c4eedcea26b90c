/* SPDX-License-Identifier: GPL-2.0-only */
#include "stacktab.h"
#include "../lib/util.h"
#include "../lib/hash.h"

#include <stdlib.h>
#include <string.h>

struct stack_ent {
	uint64_t hash, count;
	pid_t pid;
	size_t n;
	uint64_t ips[];
};

void stacktab_init(struct stacktab *t, size_t max_bytes)
{
	memset(t, 0, sizeof(*t));
	t->nslots = 1024;
	t->slots = xcalloc(t->nslots, sizeof(*t->slots));
	t->bytes = t->nslots * sizeof(*t->slots);
	t->max_bytes = max_bytes;
}

void stacktab_free(struct stacktab *t)
{
	for (size_t i = 0; i < t->nslots; i++)
		free(t->slots[i]);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

/* FNV-1a over the words: stacks differ mostly in their first frames. */
static uint64_t stack_hash(pid_t pid, const uint64_t *ips, size_t n)
{
	uint64_t h = HASH_INIT ^ (uint32_t)pid;

	for (size_t i = 0; i < n; i++)
		h = hash_u64(h, ips[i]);
	return h ^ n;
}

static struct stack_ent **find(const struct stacktab *t, uint64_t h, pid_t pid,
			       const uint64_t *ips, size_t n)
{
	size_t i = h & (t->nslots - 1);
	struct stack_ent *e;

	while ((e = t->slots[i]) &&
	       !(e->hash == h && e->pid == pid && e->n == n &&
		 !memcmp(e->ips, ips, n * sizeof(*ips))))
		i = (i + 1) & (t->nslots - 1);
	return &t->slots[i];
}

/* Keep the load at most one half, so that probes stay short. */
static void rehash(struct stacktab *t)
{
	struct stack_ent **old = t->slots;
	size_t nold = t->nslots;

	t->nslots *= 2;
	t->slots = xcalloc(t->nslots, sizeof(*t->slots));
	t->bytes += nold * sizeof(*old);	/* twice the old array */
	for (size_t i = 0; i < nold; i++)
		if (old[i])
			*find(t, old[i]->hash, old[i]->pid, old[i]->ips,
			      old[i]->n) = old[i];
	free(old);
}

int stacktab_add(struct stacktab *t, pid_t pid, const uint64_t *ips, size_t n)
{
	uint64_t h = stack_hash(pid, ips, n);
	struct stack_ent **slot = find(t, h, pid, ips, n), *e;

	if (*slot) {
		(*slot)->count++;
		return 0;
	}
	/* The entry, and the doubled slot array if this one makes it grow
	 * (while it grows, the old array is still there too). */
	size_t need = sizeof(*e) + n * sizeof(*ips);
	size_t grow = (t->n + 1) * 2 > t->nslots ? 2 * t->nslots * sizeof(*slot) : 0;

	if (t->bytes + need + grow > t->max_bytes)
		return -1;
	t->bytes += need;
	e = xmalloc(need);
	*e = (struct stack_ent){ .hash = h, .count = 1, .pid = pid, .n = n };
	memcpy(e->ips, ips, n * sizeof(*ips));
	*slot = e;
	if (++t->n * 2 > t->nslots)
		rehash(t);
	return 0;
}

void stacktab_each(const struct stacktab *t,
		   void (*fn)(void *arg, pid_t pid, const uint64_t *ips,
			      size_t n, uint64_t count),
		   void *arg)
{
	for (size_t i = 0; i < t->nslots; i++)
		if (t->slots[i])
			fn(arg, t->slots[i]->pid, t->slots[i]->ips,
			   t->slots[i]->n, t->slots[i]->count);
}
