/* SPDX-License-Identifier: GPL-2.0-only */
#include <linux/types.h>
#include "fpstacks.h"
#include "../bpf/record.h"
#include "../lib/util.h"

#include <stdlib.h>
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
	t->nslots = 1024;
	t->slots = xcalloc(t->nslots, sizeof(*t->slots));
	t->bytes = t->nslots * sizeof(*t->slots);
	t->max_bytes = max_bytes;
}

void fpstacks_free(struct fpstacks *t)
{
	for (size_t i = 0; t->slots && i < t->nslots; i++)
		free(t->slots[i]);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

/* The slot of (pid, hash), or the empty one where it would go.  The key's
 * hash is already mixed (fp_fin): its low bits serve as the index. */
static struct fp_ent **find(const struct fpstacks *t, uint32_t pid, uint64_t hash)
{
	size_t i = (hash ^ pid) & (t->nslots - 1);
	struct fp_ent *e;

	while ((e = t->slots[i]) && !(e->hash == hash && e->pid == pid))
		i = (i + 1) & (t->nslots - 1);
	return &t->slots[i];
}

/* Keep the load at most one half, so that probes stay short. */
static int rehash(struct fpstacks *t)
{
	struct fp_ent **old = t->slots;
	size_t nold = t->nslots, more = nold * sizeof(*old);

	if (t->bytes + more > t->max_bytes)
		return -1;
	t->nslots *= 2;
	t->slots = xcalloc(t->nslots, sizeof(*t->slots));
	t->bytes += more;
	for (size_t i = 0; i < nold; i++)
		if (old[i])
			*find(t, old[i]->pid, old[i]->hash) = old[i];
	free(old);
	return 0;
}

int fpstacks_add(struct fpstacks *t, const void *rec, size_t size)
{
	const struct fp_stack_rec *r = rec;
	struct fp_ent **slot, *e;
	size_t esize;
	__u64 check;

	if (size < REC_HEAD || r->n > MAX_STACK_DEPTH || size < REC_HEAD + r->n * 8ul ||
	    fp_hash(r->ips, r->n, &check) != r->hash) {
		t->bad++;
		return -1;
	}
	if (2 * (t->n + 1) > t->nslots && rehash(t)) {
		t->refused++;
		return -1;
	}
	slot = find(t, r->pid, r->hash);
	if (*slot)		/* sent once per key: cannot happen */
		return 0;
	esize = sizeof(*e) + r->n * 8ul;
	if (t->bytes + esize > t->max_bytes) {
		t->refused++;
		return -1;
	}
	e = xmalloc(esize);
	e->pid = r->pid;
	e->n = r->n;
	e->hash = r->hash;
	memcpy(e->ips, r->ips, r->n * 8ul);
	*slot = e;
	t->n++;
	t->bytes += esize;
	return 0;
}

const uint64_t *fpstacks_find(const struct fpstacks *t, uint32_t pid,
			      uint64_t hash, uint32_t *n)
{
	struct fp_ent *e = *find(t, pid, hash);

	if (!e)
		return NULL;
	*n = e->n;
	return e->ips;
}
