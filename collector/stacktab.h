/* SPDX-License-Identifier: GPL-2.0-only */
/* Stacks counted in user space, as the kernel's counts map does for
 * frame-pointer stacks: one count per distinct (process, frames), so that
 * memory grows with the distinct stacks, not with the samples. */
#ifndef PGOPROF_STACKTAB_H
#define PGOPROF_STACKTAB_H

#include "budtab.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct stacktab {
	struct budtab tab;	/* by (pid, frames), nothing held at first */
};

/* An empty table that takes at most max_bytes (budtab.h counts them). */
void stacktab_init(struct stacktab *t, size_t max_bytes);
void stacktab_free(struct stacktab *t);

/* Count one more sample of (pid, ips[0..n)); ips are copied.  Returns 0,
 * or -1 when the stack is new and would take the table over its
 * max_bytes (not counted: the caller counts it lost).  A stack already
 * in the table is always counted. */
int stacktab_add(struct stacktab *t, pid_t pid, const uint64_t *ips, size_t n);

/* Call fn for every stack, in the order they came. */
void stacktab_each(const struct stacktab *t,
		   void (*fn)(void *arg, pid_t pid, const uint64_t *ips,
			      size_t n, uint64_t count),
		   void *arg);

#endif
