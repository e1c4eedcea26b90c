/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof-record's collection: the rings it reads while recording (DWARF
 * stack copies, new fp stacks' frames, spilled branch records), the loop
 * that reads them with the side-band until the target ends, and then the
 * kernel's statistics, counts and stacks taken into the raw profile,
 * each stack resolved to file offsets and cut by raw_add_sampled_stack(). */
#include "collector.h"
#include "record.skel.h"
#include "lbrcollect.h"
#include "../lib/util.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The ring is read at least this often, and unwinding takes at most this
 * long before the ring is read again. */
#define SERVE_MS 50

static int want_pid(uint32_t pid, void *arg)
{
	struct collector *c = arg;
	uint8_t v;

	if (c->skel->rodata->filter_pid &&
	    bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.targets), &pid, &v))
		return 0;
	/* The side-band asks for every MMAP2 and FORK: the unwinder's
	 * cached view of this process may be out of date. */
	if (c->use_cg)
		dwarfcg_invalidate(&c->cg, (pid_t)pid);
	return 1;
}

double elapsed(const struct collector *c)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - c->t0.tv_sec) + (t.tv_nsec - c->t0.tv_nsec) / 1e9;
}

static int target_done(struct collector *c)
{
	if (c->child) {
		pid_t r = waitpid(c->child, &c->child_status, WNOHANG);

		if (r == c->child) {
			c->child = 0;
			return 1;
		}
		return 0;
	}
	if (c->opt.pid && kill(c->opt.pid, 0) && errno == ESRCH)
		return 1;
	return c->opt.duration > 0 && elapsed(c) >= c->opt.duration;
}

/* One round of the main loop: wait for samples (or SERVE_MS), take the
 * new mappings, unwind what waits.  The ring is read before the side-band
 * is drained, so the mappings of every sample read are known when it is
 * unwound.  wait_ms 0: do not wait; unwind_ms < 0: unwind everything. */
static void serve(struct collector *c, int wait_ms, int unwind_ms)
{
	if (c->spill_rb)
		ring_buffer__consume(c->spill_rb);
	if (!c->use_cg) {
		struct pollfd p[2] = { { .fd = c->pidfd, .events = POLLIN },
				       { .fd = c->fp_rb ? ring_buffer__epoll_fd(c->fp_rb) : -1,
					 .events = POLLIN } };

		if (wait_ms)
			poll(p, 2, wait_ms);
		if (c->fp_rb)
			ring_buffer__consume(c->fp_rb);
		sideband_drain(&c->sb, &c->maps, want_pid, c);
		return;
	}
	dwarfcg_read(&c->cg, dwarfcg_pending(&c->cg) ? 0 : wait_ms, c->pidfd);
	sideband_drain(&c->sb, &c->maps, want_pid, c);
	dwarfcg_unwind(&c->cg, unwind_ms);
}

/* The kernel's per-CPU statistics, summed (stats map, bpf/record.h). */
static void read_stats(struct collector *c, uint64_t sum[STAT_MAX])
{
	int fd = bpf_map__fd(c->skel->maps.stats);
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v = xcalloc(ncpu, sizeof(*v));

	memset(sum, 0, STAT_MAX * sizeof(*sum));
	for (uint32_t k = 0; k < STAT_MAX; k++) {
		if (bpf_map_lookup_elem(fd, &k, v))
			continue;
		for (int i = 0; i < ncpu; i++) {
			if (k != STAT_FIRST_NS)
				sum[k] += v[i];
			else if (v[i] && (!sum[k] || v[i] < sum[k]))
				sum[k] = v[i];	/* the earliest CPU's */
		}
	}
	free(v);
}

/* -v: the first sample of a target, in ms since main() (the BPF
 * program's bpf_ktime_get_ns() is CLOCK_MONOTONIC), or that none came. */
static void verbose_first(struct collector *c)
{
	uint64_t sum[STAT_MAX];
	double ms;

	read_stats(c, sum);
	if (!sum[STAT_FIRST_NS]) {
		fprintf(stderr, "%s: no sample of the target\n", progname);
		return;
	}
	ms = ((double)sum[STAT_FIRST_NS] - ((double)c->tstart.tv_sec * 1e9 +
					    (double)c->tstart.tv_nsec)) / 1e6;
	/* Not a phase line: it comes after later phases. */
	fprintf(stderr, "%s: first sample of the target at %.1f ms\n", progname, ms);
}

/* Once a second on a terminal: how long, how many samples, how many
 * lost, on one line rewritten in place.  Nothing when stderr is a file or
 * a pipe (a CI log), or with -q. */
static void show_progress(struct collector *c, double *next)
{
	uint64_t sum[STAT_MAX];
	double t = elapsed(c);

	if (t < *next)
		return;
	*next = t + 1;
	read_stats(c, sum);
	fprintf(stderr, "\r%s: %.0f s, %llu samples, %llu lost ", progname, t,
		(unsigned long long)sum[STAT_SAMPLES],
		(unsigned long long)(sum[STAT_STACK_LOST] + sum[STAT_COUNTS_FULL] +
				     sum[STAT_RINGBUF_LOST] + sum[STAT_STACK_HASH]));
}

static void run_loop(struct collector *c)
{
	int progress = !c->opt.quiet && isatty(STDERR_FILENO);
	double next = 1;

	while (!stop_signal && !target_done(c)) {
		int wait = SERVE_MS;

		/* -d ends on time, not up to a round late. */
		if (c->opt.duration > 0 &&
		    (c->opt.duration - elapsed(c)) * 1000 < wait)
			wait = (int)((c->opt.duration - elapsed(c)) * 1000) + 1;
		serve(c, wait, SERVE_MS);
		if (progress)
			show_progress(c, &next);
	}
	if (progress && next > 1)
		fputc('\n', stderr);
}

/* One aggregated stack of n frames, resolved to file offsets and cut
 * into an IP sample, edges and a stack by raw_add_sampled_stack().  Both
 * the kernel's frame-pointer stacks and the unwound ones come here. */
static void add_stack(struct collector *c, pid_t pid, const uint64_t *ips,
		      size_t n, uint64_t count)
{
	struct raw_frame fr[MAX_STACK_DEPTH + 1];
	uint32_t nf = 0;
	uint64_t lost;

	/* A leading 0: a sample in the kernel (counted unattributed.kernel
	 * already), whose user stack gives edges but no IP sample. */
	if (n > 1 && ips[0] == 0) {
		ips++;
		n--;
		fr[nf++] = (struct raw_frame){ RAW_FRAME_KERNEL, 0 };
	}
	for (size_t i = 0; i < n && i < MAX_STACK_DEPTH && (i == 0 || ips[i]); i++) {
		struct raw_frame *f = &fr[nf++];
		enum unattr_reason r = maps_resolve(&c->maps, pid, ips[i],
						    &f->obj, &f->offset);

		if (r == UNATTR_NONE)
			continue;
		*f = (struct raw_frame){ RAW_FRAME_UNKNOWN, 0 };
		if (nf == 1)	/* the leaf */
			raw_add_unattributed(&c->prof, unattr_name[r], count);
	}
	lost = raw_add_sampled_stack(&c->prof, fr, nf, count);
	if (lost)
		raw_add_counter(&c->prof, "edges.unattributed", lost);
}

static void collect_stats(struct collector *c)
{
	uint64_t sum[STAT_MAX];

	read_stats(c, sum);
	raw_add_counter(&c->prof, CNT_SAMPLES, sum[STAT_SAMPLES]);
	raw_add_counter(&c->prof, CNT_LOST, sum[STAT_STACK_LOST] +
			sum[STAT_COUNTS_FULL] + sum[STAT_RINGBUF_LOST] +
			sum[STAT_STACK_HASH]);
	raw_add_counter(&c->prof, "lost.stack_map", sum[STAT_STACK_LOST]);
	raw_add_counter(&c->prof, "lost.counts_map", sum[STAT_COUNTS_FULL]);
	raw_add_counter(&c->prof, "lost.stack_hash", sum[STAT_STACK_HASH]);
	raw_add_counter(&c->prof, "children.missed", sum[STAT_FORK_MISSED]);
	raw_add_counter(&c->prof, "samples.other_tasks", sum[STAT_OTHER_TASKS]);
	raw_add_unattributed(&c->prof, "kernel", sum[STAT_KERNEL]);
	raw_add_unattributed(&c->prof, "no_user_stack", sum[STAT_NO_USER_STACK]);
	raw_add_counter(&c->prof, "sideband.lost", c->sb.lost);
	if (c->use_cg) {
		raw_add_counter(&c->prof, "lost.ringbuf", sum[STAT_RINGBUF_LOST]);
		raw_add_counter(&c->prof, "stack_copy.top", sum[STAT_COPY_TOP]);
		raw_add_counter(&c->prof, "stack_copy.short", sum[STAT_COPY_SHORT]);
		raw_add_counter(&c->prof, "stack_copy.failed", sum[STAT_COPY_FAILED]);
		raw_add_counter(&c->prof, "stack_copy.vma_layout", sum[STAT_VMA_LAYOUT]);
		raw_add_counter(&c->prof, "ringbuf.bytes", sum[STAT_RINGBUF_BYTES]);
		raw_add_counter(&c->prof, "kernel_stacks.dropped",
				sum[STAT_RINGBUF_LOST_KERNEL]);
		raw_add_counter(&c->prof, CNT_LOST, dwarfcg_counters(&c->cg, &c->prof));
	}
	if (c->mode == MODE_LBR) {
		raw_add_counter(&c->prof, "lbr.unreadable", sum[STAT_NO_BRANCHES]);
		raw_add_counter(&c->prof, "lost.branches_map", sum[STAT_BRANCHES_FULL]);
		raw_add_counter(&c->prof, "lost.ranges_map", sum[STAT_RANGES_FULL]);
		raw_add_counter(&c->prof, "lbr.spilled", sum[STAT_LBR_SPILLED]);
	}
}

static void add_unwound(void *arg, pid_t pid, const uint64_t *ips, size_t n,
			uint64_t count)
{
	add_stack(arg, pid, ips, n, count);
}

/* fp stacks: each (process, hash) of fp_counts with the frames that came
 * through fp_stacks; a count whose frames never came (the ring or the
 * table was full) is lost, all of it (lost.stack_frames). */
static void collect_fp_stacks(struct collector *c)
{
	int fd = bpf_map__fd(c->skel->maps.fp_counts);
	struct fp_key key, next, *prev = NULL;
	struct fp_val v;
	uint64_t unsent = 0;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		const uint64_t *ips;
		uint32_t n;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue;
		ips = fpstacks_find(&c->fps, key.pid, key.hash, &n);
		if (!ips) {
			unsent += v.count;
			continue;
		}
		add_stack(c, (pid_t)key.pid, ips, n, v.count);
	}
	raw_add_counter(&c->prof, CNT_LOST, unsent);
	raw_add_counter(&c->prof, "lost.stack_frames", unsent);
}

/* fp stacks before Linux 6.1: the counts map's (process, stack ID) and
 * the kernel's stack map's frames; a stack the map lost is counted lost
 * (lost.stack_map). */
static void collect_legacy_stacks(struct collector *c)
{
	int cfd = bpf_map__fd(c->skel->maps.counts);
	int sfd = bpf_map__fd(c->skel->maps.stacks);
	struct sample_key key, next, *prev = NULL;
	uint64_t ips[MAX_STACK_DEPTH], count;

	while (!bpf_map_get_next_key(cfd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(cfd, &key, &count))
			continue;
		memset(ips, 0, sizeof(ips));
		if (bpf_map_lookup_elem(sfd, &key.user_stack_id, ips)) {
			raw_add_counter(&c->prof, CNT_LOST, count);
			raw_add_counter(&c->prof, "lost.stack_map", count);
			continue;
		}
		add_stack(c, (pid_t)key.pid, ips, MAX_STACK_DEPTH, count);
	}
}

static void collect_stacks(struct collector *c)
{
	if (c->use_cg)
		stacktab_each(&c->cg.tab, add_unwound, c);
	else if (!c->legacy_fp)
		collect_fp_stacks(c);
	else
		collect_legacy_stacks(c);
}

/* fp stacks: a new stack's frames, kept until the end. */
static int on_fp_stack(void *ctx, void *data, size_t size)
{
	struct collector *c = ctx;

	fpstacks_add(&c->fps, data, size);
	return 0;
}

/* The spill ring is read every round so that it does not fill; its
 * records are resolved at the end with the maps' (mappings are kept). */
static int on_spill(void *ctx, void *data, size_t size)
{
	struct collector *c = ctx;

	if (size < sizeof(struct lbr_spill))
		return 0;
	grow(&c->spilled, &c->cap_spilled, c->nspilled + 1, sizeof(*c->spilled));
	memcpy(&c->spilled[c->nspilled++], data, sizeof(struct lbr_spill));
	return 0;
}

static void collect_spilled(struct collector *c)
{
	if (c->spill_rb)
		ring_buffer__consume(c->spill_rb);
	for (size_t i = 0; i < c->nspilled; i++)
		lbr_add_spilled(&c->prof, &c->maps, &c->spilled[i]);
}

int open_readers(struct collector *c)
{
	if (c->mode == MODE_LBR &&
	    !(c->spill_rb = ring_buffer__new(bpf_map__fd(c->skel->maps.lbr_spill),
					     on_spill, c, NULL)))
		return err("cannot open the branch-record spill ring: %s", strerror(errno));
	if (!c->use_cg && !c->legacy_fp) {
		fpstacks_init(&c->fps, c->fp_table);
		c->fp_rb = ring_buffer__new(bpf_map__fd(c->skel->maps.fp_stacks),
					    on_fp_stack, c, NULL);
		if (!c->fp_rb)
			return err("cannot open the ring of new stacks: %s", strerror(errno));
	}
	if (c->use_cg && dwarfcg_open(&c->cg, bpf_map__fd(c->skel->maps.samples),
				      c->opt.call_graph == CG_AUTO ? UNWIND_AUTO : UNWIND_DWARF,
				      &c->cg_budget, &c->maps, &c->prof))
		return -1;
	return 0;
}

void start_recording(struct collector *c)
{
	set_meta(c);
	clock_gettime(CLOCK_MONOTONIC, &c->t0);
	start_command(c);
	say_recording(c);
}

void collect(struct collector *c)
{
	run_loop(c);
	phase(c, "target ended or stop");
	close_sampling(c);
	raw_add_counter(&c->prof, "duration_ms", (uint64_t)(elapsed(c) * 1000));
	serve(c, 0, -1);	/* the last samples and mappings, all unwound */
	if (c->use_cg)
		dwarfcg_stop(&c->cg);	/* before objects are renumbered */
	phase(c, "last samples read");
	if (c->opt.verbose)
		verbose_first(c);
	collect_stats(c);
	collect_stacks(c);
	if (c->mode == MODE_LBR) {
		lbr_collect_map(&c->prof, &c->maps, bpf_map__fd(c->skel->maps.branches), 0);
		lbr_collect_map(&c->prof, &c->maps, bpf_map__fd(c->skel->maps.ranges), 1);
		collect_spilled(c);
	}
}
