/* SPDX-License-Identifier: GPL-2.0-only */
/* DWARF call graphs in pgoprof-record (--call-graph dwarf|auto): the BPF
 * ring buffer of stack records (bpf/record.h struct stack_rec), a bounded
 * queue so that reading the ring never waits for unwinding, the unwinder
 * (unwind.h) and the table of unwound stacks. */
#ifndef PGOPROF_DWARFCG_H
#define PGOPROF_DWARFCG_H

#include <stdint.h>
#include <sys/types.h>
#include "../proc/mappings.h"
#include "stacktab.h"
#include "../proc/unwind.h"

struct qent;

struct dwarfcg {
	struct ring_buffer *rb;
	struct unwinder *uw;
	struct maptable *maps;
	struct raw_profile *prof;
	struct qent *head, **tail;
	size_t queued;			/* bytes of records in the queue */
	size_t queue_max;		/* ... at most (struct dwarfcg_budget) */
	struct stacktab tab;
	uint64_t lost_backlog;		/* queue full: unwinding fell behind */
	uint64_t lost_table;		/* stack table full */
	uint64_t kernel_dropped;	/* either, of a sample in the kernel
					 * (counted unattributed.kernel):
					 * only its edges are lost */
	uint64_t bad_records;		/* records with impossible sizes */
	uint64_t ends[UNWIND_END_MAX];
	uint64_t time_ns;		/* spent in unwind_stack */
	struct unwind_stats stats;	/* the unwinder's, when it stopped */
};

/* The memory that grows with the samples, in bytes: records waiting to
 * be unwound, and the table of unwound stacks.  Over either, samples are
 * dropped and counted (lost.unwind_backlog, lost.unwind_table). */
struct dwarfcg_budget {
	size_t queue_bytes;
	size_t table_bytes;
};

/* Start reading the ring buffer map ringbuf_fd (libbpf ring_buffer__new);
 * addresses resolve through maps into objects of prof; memory within
 * *budget.  Returns 0, or -1 with a message. */
int dwarfcg_open(struct dwarfcg *d, int ringbuf_fd, enum unwind_mode mode,
		 const struct dwarfcg_budget *budget, struct maptable *maps,
		 struct raw_profile *prof);

/* Wait up to wait_ms for the BPF side to ask for a wake-up (it does when
 * the ring fills up; otherwise the wait runs out) or for wake_fd (-1:
 * none) to be readable, then move every record in the ring to the queue.
 * Never unwinds. */
void dwarfcg_read(struct dwarfcg *d, int wait_ms, int wake_fd);

/* 1 if records wait in the queue. */
int dwarfcg_pending(const struct dwarfcg *d);

/* Unwind queued records for at most budget_ms milliseconds (all of them
 * if budget_ms < 0).  Call after the side-band was drained, so that the
 * mappings of every queued sample are known. */
void dwarfcg_unwind(struct dwarfcg *d, int budget_ms);

/* Process pid has new mappings (a side-band MMAP2 or FORK). */
void dwarfcg_invalidate(struct dwarfcg *d, pid_t pid);

/* Close the ring and the unwinder (its file IDs are raw object indices,
 * which raw_drop_empty_objects renumbers).  The table and counters stay. */
void dwarfcg_stop(struct dwarfcg *d);

/* Add the counters (unwind.<reason>, lost.*, unwinder.*,
 * kernel_stacks.dropped) to prof.  Returns the samples lost in user
 * space, for samples.lost. */
uint64_t dwarfcg_counters(const struct dwarfcg *d, struct raw_profile *prof);

/* Free everything. */
void dwarfcg_free(struct dwarfcg *d);

#endif
