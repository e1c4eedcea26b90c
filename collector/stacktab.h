/* SPDX-License-Identifier: GPL-2.0-only */
/* Stacks counted in user space, as the kernel's counts map does for
 * frame-pointer stacks: one count per distinct (process, frames), so that
 * memory grows with the distinct stacks, not with the samples. */
#ifndef PGOPROF_STACKTAB_H
#define PGOPROF_STACKTAB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct stack_ent;

struct stacktab {
	struct stack_ent **slots;	/* open addressing, power of 2 */
	size_t nslots, n, max;
};

/* An empty table that holds at most max distinct stacks. */
void stacktab_init(struct stacktab *t, size_t max);
void stacktab_free(struct stacktab *t);

/* Count one more sample of (pid, ips[0..n)); ips are copied.  Returns 0,
 * or -1 when the stack is new and the table is full (not counted). */
int stacktab_add(struct stacktab *t, pid_t pid, const uint64_t *ips, size_t n);

/* Call fn for every stack, in no particular order. */
void stacktab_each(const struct stacktab *t,
		   void (*fn)(void *arg, pid_t pid, const uint64_t *ips,
			      size_t n, uint64_t count),
		   void *arg);

#endif
