/* SPDX-License-Identifier: GPL-2.0-only */
/* DWARF call graphs in pgoprof-record (dwarfcg.h).  Records are only
 * copied out of the ring buffer when it is read, so reading never waits for
 * unwinding; they are unwound later, after the side-band has been drained,
 * and their stacks counted like the kernel counts frame-pointer stacks. */
#include <linux/types.h>
#include "dwarfcg.h"
#include "../bpf/record.h"
#include "../lib/util.h"
#include "../raw/rawprof.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>


struct qent {
	struct qent *next;
	size_t len;
	uint8_t data[];
};

static int locate(void *arg, pid_t pid, uint64_t addr, struct unwind_file *f)
{
	struct dwarfcg *d = arg;
	const struct raw_object *o;
	uint32_t obj;
	uint64_t off;

	if (maps_resolve(d->maps, pid, addr, &obj, &off) != UNATTR_NONE)
		return -1;
	o = &d->prof->objs[obj];
	*f = (struct unwind_file){ obj, off, o->path, o->build_id,
				   o->build_id_len, o->id_kind == RAW_ID_CONTENT };
	return 0;
}

/* Well-formed: the header, the chain and the stack fit in the record. */
static int record_ok(const void *data, size_t size)
{
	const struct stack_rec *h = data;

	return size >= sizeof(*h) && h->nfp <= MAX_STACK_DEPTH + 1 &&
	       h->stack_len <= STACK_COPY_MAX &&
	       sizeof(*h) + (size_t)h->nfp * 8 + h->stack_len <= size;
}

/* A record dropped for want of memory: a lost sample, but for a sample
 * in the kernel, which unattributed.kernel counts already (only its call
 * edges are lost), so that every sample is counted once. */
static void lost(struct dwarfcg *d, const void *rec, uint64_t *reason)
{
	const struct stack_rec *h = rec;

	if (h->flags & REC_F_KERNEL)
		d->kernel_dropped++;
	else
		(*reason)++;
}

/* libbpf calls this for each record; it only copies. */
static int on_record(void *ctx, void *data, size_t size)
{
	struct dwarfcg *d = ctx;
	struct qent *e;

	if (!record_ok(data, size)) {
		d->bad_records++;
		return 0;
	}
	/* A backlog over its share of the memory budget means unwinding
	 * cannot keep up: newer samples are dropped and counted rather than
	 * letting memory grow. */
	if (d->queued + sizeof(*e) + size > d->queue_max) {
		lost(d, data, &d->lost_backlog);
		return 0;
	}
	e = xmalloc(sizeof(*e) + size);
	e->next = NULL;
	e->len = sizeof(*e) + size;
	memcpy(e->data, data, size);
	*d->tail = e;
	d->tail = &e->next;
	d->queued += e->len;
	return 0;
}

int dwarfcg_open(struct dwarfcg *d, int ringbuf_fd, enum unwind_mode mode,
		 const struct dwarfcg_budget *budget, struct maptable *maps,
		 struct raw_profile *prof)
{
	struct rlimit nofile;

	/* The unwinder keeps one descriptor per file it has read (-a sees
	 * many): take the hard limit, a file it cannot open only counts as
	 * unwind.no_file. */
	if (!getrlimit(RLIMIT_NOFILE, &nofile) && nofile.rlim_cur < nofile.rlim_max) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}
	memset(d, 0, sizeof(*d));
	d->maps = maps;
	d->prof = prof;
	d->tail = &d->head;
	d->queue_max = budget->queue_bytes;
	stacktab_init(&d->tab, budget->table_bytes);
	d->rb = ring_buffer__new(ringbuf_fd, on_record, d, NULL);
	if (!d->rb)
		return err("cannot read the BPF ring buffer: %s", strerror(errno));
	d->uw = unwind_new(mode, locate, d);
	return 0;
}

void dwarfcg_read(struct dwarfcg *d, int wait_ms, int wake_fd)
{
	struct pollfd p[2] = { { .fd = -1, .events = POLLIN },
			       { .fd = wake_fd, .events = POLLIN } };

	if (!d->rb)
		return;
	if (wait_ms > 0) {
		p[0].fd = ring_buffer__epoll_fd(d->rb);
		poll(p, 2, wait_ms);
	}
	ring_buffer__consume(d->rb);
}

int dwarfcg_pending(const struct dwarfcg *d)
{
	return d->head != NULL;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void unwind_one(struct dwarfcg *d, const uint8_t *rec)
{
	const struct stack_rec *h = (const void *)rec;
	struct unwind_sample s = {
		.pid = (pid_t)h->pid,
		.tid = (pid_t)h->tid,
		.regs_mask = UNWIND_ALL_REGS,
		.stack = rec + sizeof(*h) + (size_t)h->nfp * 8,
		.stack_len = h->stack_len,
		.stack_whole = !!(h->flags & REC_F_STACK_WHOLE),
		.fp_chain = h->nfp ? (const uint64_t *)(rec + sizeof(*h)) : NULL,
		.fp_len = h->nfp,
	};
	uint64_t pcs[MAX_STACK_DEPTH], t0 = now_ns();
	enum unwind_end end;
	size_t n;

	memcpy(s.regs, h->regs, sizeof(s.regs));
	n = unwind_stack(d->uw, &s, pcs, MAX_STACK_DEPTH, &end);
	d->time_ns += now_ns() - t0;
	d->ends[end]++;
	/* A sample in the kernel (already counted unattributed.kernel) keeps
	 * its call edges: a leading 0 marks "no IP" for add_stack. */
	if ((h->flags & REC_F_KERNEL) && n) {
		uint64_t k[MAX_STACK_DEPTH + 1];

		k[0] = 0;
		memcpy(k + 1, pcs, n * sizeof(*pcs));
		if (stacktab_add(&d->tab, s.pid, k, n + 1))
			d->kernel_dropped++;
		return;
	}
	if (stacktab_add(&d->tab, s.pid, pcs, n))
		d->lost_table++;
}

void dwarfcg_unwind(struct dwarfcg *d, int budget_ms)
{
	uint64_t stop = now_ns() + (uint64_t)(budget_ms < 0 ? 0 : budget_ms) * 1000000u;

	while (d->head && d->uw && (budget_ms < 0 || now_ns() < stop)) {
		struct qent *e = d->head;

		d->head = e->next;
		if (!d->head)
			d->tail = &d->head;
		d->queued -= e->len;
		unwind_one(d, e->data);
		free(e);
	}
}

void dwarfcg_invalidate(struct dwarfcg *d, pid_t pid)
{
	if (d->uw)
		unwind_invalidate(d->uw, pid);
}

/* Whatever is still queued is lost: counted, never silently. */
static void drop_queue(struct dwarfcg *d)
{
	while (d->head) {
		struct qent *e = d->head;

		d->head = e->next;
		lost(d, e->data, &d->lost_backlog);
		free(e);
	}
	d->tail = &d->head;
	d->queued = 0;
}

void dwarfcg_stop(struct dwarfcg *d)
{
	drop_queue(d);
	if (d->uw)
		d->stats = *unwind_get_stats(d->uw);
	unwind_free(d->uw);
	d->uw = NULL;
	ring_buffer__free(d->rb);
	d->rb = NULL;
}

uint64_t dwarfcg_counters(const struct dwarfcg *d, struct raw_profile *prof)
{
	char name[64];

	for (int i = 0; i < UNWIND_END_MAX; i++) {
		snprintf(name, sizeof(name), "unwind.%s", unwind_end_name[i]);
		raw_add_counter(prof, name, d->ends[i]);
	}
	raw_add_counter(prof, "lost.unwind_backlog", d->lost_backlog);
	raw_add_counter(prof, "lost.unwind_table", d->lost_table);
	raw_add_counter(prof, "lost.bad_record", d->bad_records);
	raw_add_counter(prof, "kernel_stacks.dropped", d->kernel_dropped);
	raw_add_counter(prof, "unwinder.time_us", d->time_ns / 1000);
	raw_add_counter(prof, "unwinder.cfi_steps", d->stats.cfi_steps);
	raw_add_counter(prof, "unwinder.fp_steps", d->stats.fp_steps);
	raw_add_counter(prof, "unwinder.fp_chain_frames", d->stats.fp_chain_frames);
	raw_add_counter(prof, "unwinder.dwfl_builds", d->stats.dwfl_builds);
	return d->lost_backlog + d->lost_table + d->bad_records;
}

void dwarfcg_free(struct dwarfcg *d)
{
	dwarfcg_stop(d);
	stacktab_free(&d->tab);
}
