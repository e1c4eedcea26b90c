/* SPDX-License-Identifier: GPL-2.0-only */
#include <linux/types.h>
#include "fpstacks.h"
#include "../bpf/record.h"

#include <string.h>

struct fp_ent {
	uint32_t pid, n;
	uint64_t hash;
	uint64_t ips[];
};

/* struct fp_stack_rec before its frames. */
#define REC_HEAD offsetof(struct fp_stack_rec, ips)

void fpstacks_init(struct fpstacks *t, size_t max_bytes)
{
	memset(t, 0, sizeof(*t));
	budtab_init(&t->tab, max_bytes);
}

void fpstacks_free(struct fpstacks *t)
{
	budtab_free(&t->tab);
	memset(t, 0, sizeof(*t));
}

/* The key's hash is already mixed (fp_fin). */
static uint64_t key_hash(uint32_t pid, uint64_t hash)
{
	return hash ^ pid;
}

static uint64_t ent_hash(const void *tab, size_t i)
{
	const struct fp_ent *e = ((const struct budtab *)tab)->ent[i];

	return key_hash(e->pid, e->hash);
}

static int ent_eq(const void *tab, size_t i, const void *key)
{
	const struct fp_ent *e = ((const struct budtab *)tab)->ent[i];
	const struct fp_ent *k = key;

	return e->hash == k->hash && e->pid == k->pid;
}

/* The entry of (pid, hash), or NULL. */
static const struct fp_ent *find(const struct fpstacks *t, uint32_t pid,
				 uint64_t hash)
{
	struct fp_ent key = { .pid = pid, .hash = hash };
	size_t *slot = budtab_find(&t->tab, key_hash(pid, hash), ent_eq, &key);

	return slot && *slot ? t->tab.ent[*slot - 1] : NULL;
}

int fpstacks_add(struct fpstacks *t, const void *rec, size_t size)
{
	const struct fp_stack_rec *r = rec;
	struct fp_ent *e;
	__u64 check;

	if (size < REC_HEAD || r->n > MAX_STACK_DEPTH || size < REC_HEAD + r->n * 8ul ||
	    fp_hash(r->ips, r->n, &check) != r->hash) {
		t->bad++;
		return -1;
	}
	if (find(t, r->pid, r->hash))	/* sent once per key: cannot happen */
		return 0;
	e = budtab_add(&t->tab, sizeof(*e) + r->n * 8ul,
		       key_hash(r->pid, r->hash), ent_hash);
	if (!e) {
		t->refused++;
		return -1;
	}
	e->pid = r->pid;
	e->n = r->n;
	e->hash = r->hash;
	memcpy(e->ips, r->ips, r->n * 8ul);
	return 0;
}

const uint64_t *fpstacks_find(const struct fpstacks *t, uint32_t pid,
			      uint64_t hash, uint32_t *n)
{
	const struct fp_ent *e = find(t, pid, hash);

	if (!e)
		return NULL;
	*n = e->n;
	return e->ips;
}
