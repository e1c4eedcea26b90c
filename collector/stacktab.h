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
	size_t nslots, n;
	size_t bytes, max_bytes;	/* the slot array and the entries */
};

/* An empty table whose slot array and entries take at most max_bytes
 * (at least the initial slot array, 8 KiB). */
void stacktab_init(struct stacktab *t, size_t max_bytes);
void stacktab_free(struct stacktab *t);

/* Count one more sample of (pid, ips[0..n)); ips are copied.  Returns 0,
 * or -1 when the stack is new and would take the table over its
 * max_bytes (not counted: the caller counts it lost).  A stack already
 * in the table is always counted. */
int stacktab_add(struct stacktab *t, pid_t pid, const uint64_t *ips, size_t n);

/* Call fn for every stack, in no particular order. */
void stacktab_each(const struct stacktab *t,
		   void (*fn)(void *arg, pid_t pid, const uint64_t *ips,
			      size_t n, uint64_t count),
		   void *arg);

#endif
