/* SPDX-License-Identifier: GPL-2.0-only */
/* The frames of the frame-pointer stacks the kernel counts by hash
 * (bpf/record.h struct fp_key): each arrives once through the fp_stacks
 * ring, and is found again by (process, hash) when the counts are read at
 * the end. */
#ifndef PGOPROF_FPSTACKS_H
#define PGOPROF_FPSTACKS_H

#include "budtab.h"

#include <stddef.h>
#include <stdint.h>

struct fpstacks {
	struct budtab tab;	/* by (pid, hash), nothing held at first */
	uint64_t refused;	/* records over max_bytes (not kept) */
	uint64_t bad;		/* records malformed or of a wrong hash */
};

/* An empty table that takes at most max_bytes (budtab.h counts them). */
void fpstacks_init(struct fpstacks *t, size_t max_bytes);
void fpstacks_free(struct fpstacks *t);

/* One record of the fp_stacks ring (struct fp_stack_rec cut after its n
 * frames: size bytes), copied.  Its hash is recomputed (fp_hash): a
 * record whose hash or size does not match is counted in t->bad and
 * dropped; one over max_bytes in t->refused.  Returns 0 when kept. */
int fpstacks_add(struct fpstacks *t, const void *rec, size_t size);

/* The frames of (pid, hash) and their number in *n, or NULL when they
 * never arrived (ring full, refused, bad).  Owned by the table. */
const uint64_t *fpstacks_find(const struct fpstacks *t, uint32_t pid,
			      uint64_t hash, uint32_t *n);

#endif
