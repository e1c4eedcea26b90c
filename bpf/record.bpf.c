// SPDX-License-Identifier: GPL-2.0-only
/* Kernel side of pgoprof-record: on every cpu-clock sample of a target
 * process, take its user stack by frame pointers and count it in a map.
 * Aggregating here keeps the data copied to user space proportional to the
 * number of distinct stacks, not to the number of samples.
 * For DWARF call graphs (on_stack_sample) nothing can be aggregated: the
 * registers and the top of the user stack go to user space per sample.
 *
 * No kernel-internal type is read through BTF (CO-RE): with any CO-RE
 * relocation, or a tp_btf program, libbpf parses the kernel's whole BTF
 * before loading, which took most of pgoprof-record's start-up
 * (bench/results/collector-startup.md).  The perf-event context is UAPI
 * (linux/bpf_perf_event.h), the saved user registers are the UAPI struct
 * pt_regs, the fork hook is a raw tracepoint that needs no field of a
 * task, and the one kernel structure read, the head of vm_area_struct, is
 * checked on every use (vma_end). */
#include <stdbool.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "record.h"

#define EFAULT 14
#define EBUSY 16
/* include/uapi/linux/sched.h: the new task joins its parent's process. */
#define CLONE_THREAD 0x00010000

/* The head of the kernel's struct vm_area_struct (include/linux/mm_types.h):
 * vm_start and vm_end have been its first two words since long before
 * bpf_find_vma (5.17).  A kernel that lays it out otherwise
 * (CONFIG_RANDSTRUCT) is caught in vma_end: sp is not in [vm_start,
 * vm_end), and the copy is made page by page instead. */
struct vm_area_struct {
	__u64 vm_start;
	__u64 vm_end;
};

/* Set before load: only count processes in "targets" (record -p/COMMAND). */
const volatile bool filter_pid = false;
/* pgoprof-record itself, never profiled (it would be with -a). */
const volatile __u32 self_pid = 0;
/* on_stack_sample: bytes of user stack to copy (<= STACK_COPY_MAX - 8),
 * whether to add the kernel's frame-pointer walk (--call-graph auto), and
 * how much unread data makes it wake the collector (less: the collector
 * polls on its own timer, so most samples cost no wake-up). */
const volatile __u32 stack_size = 8192;
const volatile bool with_fp_chain = false;
const volatile __u64 wakeup_bytes = 1 << 20;
/* The same for the fp_stacks ring (a quarter of it). */
const volatile __u64 fp_wakeup_bytes = 1 << 18;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

/* Children of targets that have not been sampled yet, by task (the
 * task_struct's address, as bpf_get_current_task() gives it): on_newtask
 * cannot read a new task's process ID without kernel types, but a sample
 * of it, or its own first fork, can (target_pid).  An entry goes when the
 * process is promoted to targets or the task exits, so that an address
 * is never taken for a later task's. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u8);
} new_tasks SEC(".maps");

/* fp stacks (Linux 6.1 and later, bpf/record.h struct fp_key): counts by
 * (process, hash of the frames), allocated as keys come; max_entries is
 * set by the collector from --mem-budget or --max-stacks. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 131072);
	__type(key, struct fp_key);
	__type(value, struct fp_val);
} fp_counts SEC(".maps");

/* Each new stack's frames, once (struct fp_stack_rec); resized by the
 * collector. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} fp_stacks SEC(".maps");

/* The stack under construction: too big for the 512-byte BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_stack_rec);
} fp_scratch SEC(".maps");

/* Kernels before 6.1 refuse a map that is not preallocated in a
 * perf_event program: there the stacks go to the kernel's stack map
 * (preallocated whole at creation: slow to start) and are counted in
 * counts (on_sample_legacy). */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, MAX_STACK_DEPTH * sizeof(__u64));
	__uint(max_entries, 65536);
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 131072);
	__type(key, struct sample_key);
	__type(value, __u64);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 262144);
	__type(key, struct lbr_key);
	__type(value, __u64);
} branches SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 262144);
	__type(key, struct lbr_key);
	__type(value, __u64);
} ranges SEC(".maps");

/* Overflow of the branches and ranges maps: what does not fit there goes to
 * user space one record at a time; only when this ring is full too is it
 * lost (and counted). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} lbr_spill SEC(".maps");

/* Scratch for the branch records: too big for the 512-byte BPF stack. */
struct lbr_buf {
	struct perf_branch_entry e[MAX_LBR];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lbr_buf);
} lbr_scratch SEC(".maps");

/* Resized to the ring size the collector picks (libbpf: set_max_entries). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} samples SEC(".maps");

/* One record under construction per CPU: a plain array indexed by CPU
 * because a per-CPU map value may not exceed 32 KiB.  perf_event programs
 * do not nest on a CPU, so a slot is never shared. */
struct stack_scratch {
	struct stack_rec h;
	/* The chain (<= 1024 bytes), the stack, and room for one page more
	 * than the verifier can see that copy_pages() needs. */
	__u8 data[1024 + STACK_COPY_MAX + 8192];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* resized to the possible CPUs */
	__type(key, __u32);
	__type(value, struct stack_scratch);
} scratch SEC(".maps");

static __always_inline void stat_add(__u32 which, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &which);

	if (v)
		*v += n;
}

static __always_inline void stat_inc(__u32 which)
{
	stat_add(which, 1);
}

static __always_inline int count_in(void *map, void *key)
{
	__u64 one = 1, *count = bpf_map_lookup_elem(map, key);

	if (count) {
		__sync_fetch_and_add(count, 1);
		return 0;
	}
	if (!bpf_map_update_elem(map, key, &one, BPF_NOEXIST))
		return 0;
	/* Another CPU may have created it meanwhile. */
	count = bpf_map_lookup_elem(map, key);
	if (!count)
		return -1;
	__sync_fetch_and_add(count, 1);
	return 0;
}

/* Whether the current process is a target: in targets, or a child of one
 * not yet seen (new_tasks), which is then moved to targets.  A thread of
 * such a child is always made by the child's first task or by a thread
 * made after it, and that fork went through here (on_newtask): so the
 * child is in targets before any thread of it but the first runs. */
static __always_inline int is_target(__u32 pid)
{
	__u64 task = bpf_get_current_task();
	__u8 one = 1;

	if (bpf_map_lookup_elem(&targets, &pid))
		return 1;
	if (!bpf_map_lookup_elem(&new_tasks, &task))
		return 0;
	if (bpf_map_update_elem(&targets, &pid, &one, BPF_ANY))
		stat_inc(STAT_FORK_MISSED);
	bpf_map_delete_elem(&new_tasks, &task);
	return 1;
}

/* The time of this CPU's first sample of a target (-v: the first sample
 * after the command's start).  Per CPU: no two programs share the slot. */
static __always_inline void note_first(void)
{
	__u32 k = STAT_FIRST_NS;
	__u64 *v = bpf_map_lookup_elem(&stats, &k);

	if (v && !*v)
		*v = bpf_ktime_get_ns();
}

/* The process of the sample if it is to be profiled, else 0. */
static __always_inline __u32 target_pid(void)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;

	if (pid == 0 || pid == self_pid)	/* idle task, or us */
		return 0;
	if (filter_pid && !is_target(pid)) {
		stat_inc(STAT_OTHER_TASKS);
		return 0;
	}
	note_first();
	return pid;
}

/* bpf_loop's state for fp_hash_step over a stack's frames. */
struct hash_loop {
	const struct fp_stack_rec *r;
	__u64 h[2];
};

static long hash_frame(__u32 i, void *arg)
{
	struct hash_loop *l = arg;

	if (i >= MAX_STACK_DEPTH)	/* for the verifier: n <= that */
		return 1;
	fp_hash_step(l->h, l->r->ips[i]);
	return 0;
}

/* One sample of stack r (pid, n frames) counted in fp_counts; a new
 * stack's frames sent to fp_stacks.  A key is never deleted, so a stack's
 * frames are sent at most once.  When the ring is full the key stays: its
 * samples are counted, and the collector counts them lost for want of
 * frames (lost.stack_frames), all of them, so none is lost quietly. */
static __always_inline void count_frames(struct fp_stack_rec *r)
{
	struct fp_key key = {};
	struct fp_val first = { .count = 1 }, *v;
	struct hash_loop l = { .r = r };
	__u32 n = r->n;
	__u64 check;

	if (n > MAX_STACK_DEPTH)
		n = MAX_STACK_DEPTH;
	key.pid = r->pid;
	fp_hash_start(l.h, n);
	bpf_loop(n, hash_frame, &l, 0);
	key.hash = fp_hash_end(l.h, &check);
	v = bpf_map_lookup_elem(&fp_counts, &key);
	if (!v) {
		first.check = check;
		if (!bpf_map_update_elem(&fp_counts, &key, &first, BPF_NOEXIST)) {
			r->n = n;
			r->hash = key.hash;
			__u64 wake = bpf_ringbuf_query(&fp_stacks, BPF_RB_AVAIL_DATA) >
				     fp_wakeup_bytes ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;

			if (bpf_ringbuf_output(&fp_stacks, r,
					       __builtin_offsetof(struct fp_stack_rec, ips) + n * 8,
					       wake))
				stat_inc(STAT_FRAMES_UNSENT);
			return;
		}
		/* Another CPU made it meanwhile, or the map is full. */
		v = bpf_map_lookup_elem(&fp_counts, &key);
		if (!v) {
			stat_inc(STAT_COUNTS_FULL);
			return;
		}
	}
	if (v->check != check) {
		stat_inc(STAT_STACK_HASH);
		return;
	}
	__sync_fetch_and_add(&v->count, 1);
}

/* The user stack by frame pointers, counted per (process, stack) in
 * fp_counts.  Returns -1 for a sample in the kernel, else 0. */
static __always_inline int count_stack(struct bpf_perf_event_data *ctx,
				       __u32 pid)
{
	__u32 zero = 0;
	struct fp_stack_rec *r;
	long n;

	stat_inc(STAT_SAMPLES);
	/* Kernel addresses have the top bit set on x86-64 and arm64. */
	if ((__s64)PT_REGS_IP(&ctx->regs) < 0) {
		stat_inc(STAT_KERNEL);
		return -1;
	}
	r = bpf_map_lookup_elem(&fp_scratch, &zero);
	if (!r)
		return 0;
	/* The same walk as bpf_get_stackid's (kernel/bpf/stackmap.c: both
	 * get_perf_callchain, user, no skip); no frame reads as -EFAULT
	 * there and 0 here. */
	n = bpf_get_stack(ctx, r->ips, sizeof(r->ips), BPF_F_USER_STACK);
	if (n <= 0) {
		stat_inc(n == 0 || n == -EFAULT ? STAT_NO_USER_STACK
						: STAT_STACK_LOST);
		return 0;
	}
	r->pid = pid;
	r->n = (__u32)n / 8;
	count_frames(r);
	return 0;
}

/* As count_stack, through the kernel's stack map (kernels before 6.1). */
static __always_inline int count_stack_legacy(struct bpf_perf_event_data *ctx,
					      __u32 pid)
{
	struct sample_key key = {};

	stat_inc(STAT_SAMPLES);
	/* Kernel addresses have the top bit set on x86-64 and arm64. */
	if ((__s64)PT_REGS_IP(&ctx->regs) < 0) {
		stat_inc(STAT_KERNEL);
		return -1;
	}
	key.pid = pid;
	key.user_stack_id = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
	if (key.user_stack_id < 0) {
		stat_inc(key.user_stack_id == -EFAULT ? STAT_NO_USER_STACK
						      : STAT_STACK_LOST);
		return 0;
	}
	if (count_in(&counts, &key))
		stat_inc(STAT_COUNTS_FULL);
	return 0;
}

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	__u32 pid = target_pid();

	if (pid)
		count_stack(ctx, pid);
	return 0;
}

SEC("perf_event")
int on_sample_legacy(struct bpf_perf_event_data *ctx)
{
	__u32 pid = target_pid();

	if (pid)
		count_stack_legacy(ctx, pid);
	return 0;
}

/* For tests only (tests/fpcount): count_frames() on the stack user space
 * gives in the context, run by BPF_PROG_TEST_RUN. */
SEC("?syscall")
int fp_count_test(struct fp_count_ctx *ctx)
{
	__u32 zero = 0;
	struct fp_stack_rec *r = bpf_map_lookup_elem(&fp_scratch, &zero);

	if (!r)
		return 1;
	/* Word by word: clang does not inline a memcpy this long. */
#pragma unroll
	for (int i = 0; i < (int)(sizeof(*r) / 8); i++)
		((__u64 *)r)[i] = ((const __u64 *)&ctx->r)[i];
	count_frames(r);
	return 0;
}

static __always_inline void spill(__u32 kind, const struct lbr_key *key)
{
	struct lbr_spill *r = bpf_ringbuf_reserve(&lbr_spill, sizeof(*r), 0);

	if (!r) {
		stat_inc(kind ? STAT_RANGES_FULL : STAT_BRANCHES_FULL);
		return;
	}
	r->kind = kind;
	r->pad = 0;
	r->pid = key->pid;
	r->pad2 = 0;
	r->a = key->a;
	r->b = key->b;
	bpf_ringbuf_submit(r, 0);
	stat_inc(STAT_LBR_SPILLED);
}

/* The branch-stack rule, kernel side: n branch records of process pid
 * (newest first) as taken branches (from, to) and the fall-through ranges
 * between them, [e[i].to, e[i-1].from], which ran once; each counted in
 * its map, or sent through the spill ring when the map is full.  Its user
 * side twin is import/samples.c samples_add_branches(); tests/lbrfold
 * runs this through lbr_fold_test and checks that both give the same
 * branches and ranges (docs/raw-format.md section 3.4). */
static __always_inline void fold_branches(const struct lbr_buf *buf, int n,
					  __u32 pid)
{
	struct lbr_key key = {};

	key.pid = pid;
	for (int i = 0; i < MAX_LBR; i++) {
		if (i >= n)
			break;
		key.a = buf->e[i].from;
		key.b = buf->e[i].to;
		if (count_in(&branches, &key))
			spill(0, &key);
		if (i == 0)
			continue;
		key.a = buf->e[i].to;
		key.b = buf->e[i - 1].from;
		if (count_in(&ranges, &key))
			spill(1, &key);
	}
}

/* Branch-record mode: the stack as above, and the sample's branch records
 * folded by fold_branches().  legacy: the stack by count_stack_legacy (a
 * constant: each program references the maps of one way only). */
static __always_inline int lbr_sample(struct bpf_perf_event_data *ctx,
				      bool legacy)
{
	__u32 pid = target_pid(), zero = 0;
	struct lbr_buf *buf;
	long size;
	int n;

	if (!pid || (legacy ? count_stack_legacy(ctx, pid) : count_stack(ctx, pid)))
		return 0;
	buf = bpf_map_lookup_elem(&lbr_scratch, &zero);
	if (!buf)
		return 0;
	/* How many bytes of records this sample has (BPF_F_GET_BRANCH_RECORDS_SIZE),
	 * then at most what the scratch holds. */
	size = bpf_read_branch_records(ctx, NULL, 0, BPF_F_GET_BRANCH_RECORDS_SIZE);
	if (size > 0)
		size = bpf_read_branch_records(ctx, buf, size < sizeof(*buf) ?
					       (__u32)size : sizeof(*buf), 0);
	if (size < 0) {
		stat_inc(STAT_NO_BRANCHES);
		return 0;
	}
	n = size / sizeof(struct perf_branch_entry);
	fold_branches(buf, n, pid);
	return 0;
}

SEC("perf_event")
int on_lbr_sample(struct bpf_perf_event_data *ctx)
{
	return lbr_sample(ctx, false);
}

SEC("perf_event")
int on_lbr_sample_legacy(struct bpf_perf_event_data *ctx)
{
	return lbr_sample(ctx, true);
}

/* For tests only (tests/lbrfold): fold_branches() on the records user
 * space gives in the context (struct lbr_fold_ctx), run by
 * BPF_PROG_TEST_RUN, which perf_event programs do not support.  "?":
 * not loaded unless asked for, so pgoprof-record never loads it. */
_Static_assert(sizeof(struct perf_branch_entry) == sizeof(((struct lbr_fold_ctx *)0)->e[0]),
	       "lbr_fold_ctx lays its records out as perf_branch_entry");

SEC("?syscall")
int lbr_fold_test(struct lbr_fold_ctx *ctx)
{
	__u32 zero = 0;
	struct lbr_buf *buf = bpf_map_lookup_elem(&lbr_scratch, &zero);

	if (!buf)
		return 1;
	/* The context is read at constant offsets only: copied first. */
	__builtin_memcpy(buf->e, ctx->e, sizeof(buf->e));
	fold_branches(buf, ctx->n > MAX_LBR ? MAX_LBR : (int)ctx->n, ctx->pid);
	return 0;
}

/* bpf_find_vma's callback: the end of the mapping that holds sp (*arg,
 * replaced by the end), or 0 when the head of vm_area_struct is not
 * vm_start, vm_end (see its definition above). */
static long vma_end(struct task_struct *task, struct vm_area_struct *vma,
		    void *arg)
{
	__u64 *sp_end = arg, start = vma->vm_start, end = vma->vm_end;

	*sp_end = start <= *sp_end && *sp_end < end ? end : 0;
	return 0;
}

/* How many bytes from sp can be copied: stack_size, cut at the end of the
 * mapping that holds sp so that a copy near the top of the stack does not
 * fail as a whole.  0 (counted as failed) when sp is in no mapping. */
static __always_inline __u32 copy_size(__u64 sp, __u32 *flags)
{
	__u64 end = sp;
	long e = bpf_find_vma(bpf_get_current_task_btf(), sp, vma_end, &end, 0);

	if (!e && !end) {	/* not the layout vma_end knows */
		stat_inc(STAT_VMA_LAYOUT);
		return stack_size;	/* copy_pages() stops where it must */
	}
	if (e == -EBUSY) {	/* mmap lock taken: only sp's own page is sure */
		end = (sp | 4095) + 1;
		if (end - sp < stack_size)
			stat_inc(STAT_COPY_SHORT);
	} else if (e) {
		stat_inc(STAT_COPY_FAILED);
		return 0;
	} else if (end - sp <= stack_size) {
		*flags |= REC_F_STACK_WHOLE;
		stat_inc(STAT_COPY_TOP);
	}
	return end - sp < stack_size ? end - sp : stack_size;
}

/* The copy of [sp, sp + size) failed: some page in it is not present (a
 * perf_event program cannot fault pages in), typically the untouched top
 * of a main thread's stack above the random offset of its start.  Copy
 * page by page up to the first page that fails, and say how much: its
 * state, one page, and the loop. */
struct copy_loop {
	__u8 *dst;
	__u64 sp, size, done;
};

/* One page (or what is left of it) of copy_pages(); 1 to stop. */
static long copy_page(__u32 i, void *arg)
{
	struct copy_loop *l = arg;
	__u64 done = l->done, chunk = 4096 - ((l->sp + done) & 4095);

	if (chunk > l->size - done)
		chunk = l->size - done;
	if (!chunk)
		return 1;
	/* Bounds for the verifier, on the very registers passed (clang
	 * would otherwise mask a copy). */
	asm volatile("%0 &= 8191" : "+r"(chunk));
	asm volatile("%0 &= 65535" : "+r"(done));
	if (bpf_probe_read_user(l->dst + done, chunk, (void *)(l->sp + done)))
		return 1;
	l->done = done + chunk;
	return 0;
}

/* Under bpf_loop(), which the verifier checks once, not page by page
 * (bpf_find_vma in copy_size needs 5.17, as bpf_loop does). */
static __always_inline __u32 copy_pages(__u8 *dst, __u64 sp, __u64 size)
{
	struct copy_loop l = { .dst = dst, .sp = sp, .size = size };

	bpf_loop(STACK_COPY_MAX / 4096 + 1, copy_page, &l, 0);
	return l.done;
}

static __always_inline void fill_regs(struct stack_rec *h,
				      struct bpf_perf_event_data *ctx)
{
	h->regs[0] = ctx->regs.rax;
	h->regs[1] = ctx->regs.rdx;
	h->regs[2] = ctx->regs.rcx;
	h->regs[3] = ctx->regs.rbx;
	h->regs[4] = ctx->regs.rsi;
	h->regs[5] = ctx->regs.rdi;
	h->regs[6] = ctx->regs.rbp;
	h->regs[7] = ctx->regs.rsp;
	h->regs[8] = ctx->regs.r8;
	h->regs[9] = ctx->regs.r9;
	h->regs[10] = ctx->regs.r10;
	h->regs[11] = ctx->regs.r11;
	h->regs[12] = ctx->regs.r12;
	h->regs[13] = ctx->regs.r13;
	h->regs[14] = ctx->regs.r14;
	h->regs[15] = ctx->regs.r15;
	h->regs[16] = ctx->regs.rip;
}

/* The task's user registers, as saved on entry to the kernel. */
static __always_inline int fill_task_regs(struct stack_rec *h)
{
	struct pt_regs *r = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());

	if (!r)
		return -1;
	h->regs[0] = r->rax;
	h->regs[1] = r->rdx;
	h->regs[2] = r->rcx;
	h->regs[3] = r->rbx;
	h->regs[4] = r->rsi;
	h->regs[5] = r->rdi;
	h->regs[6] = r->rbp;
	h->regs[7] = r->rsp;
	h->regs[8] = r->r8;
	h->regs[9] = r->r9;
	h->regs[10] = r->r10;
	h->regs[11] = r->r11;
	h->regs[12] = r->r12;
	h->regs[13] = r->r13;
	h->regs[14] = r->r14;
	h->regs[15] = r->r15;
	h->regs[16] = r->rip;
	/* A kernel thread has no user registers. */
	return h->regs[16] && (__s64)h->regs[16] > 0 ? 0 : -1;
}

/* DWARF call graphs: the user registers, optionally the frame-pointer
 * walk, and the top of the user stack, as one ring buffer record.  A
 * sample in the kernel counts as unattributed.kernel, like in on_sample,
 * but its user stack (from the task's saved user registers) still gives
 * the call edges that led into the kernel (REC_F_KERNEL). */
SEC("perf_event")
int on_stack_sample(struct bpf_perf_event_data *ctx)
{
	__u32 pid = target_pid(), cpu = bpf_get_smp_processor_id();
	struct stack_scratch *buf;
	__u32 off = 0, size;
	__u64 total, flags, sp;
	long n;

	if (!pid)
		return 0;
	stat_inc(STAT_SAMPLES);
	buf = bpf_map_lookup_elem(&scratch, &cpu);
	if (!buf)
		return 0;
	buf->h.pid = pid;
	buf->h.tid = (__u32)bpf_get_current_pid_tgid();
	buf->h.flags = 0;
	if ((__s64)PT_REGS_IP(&ctx->regs) < 0) {
		stat_inc(STAT_KERNEL);
		if (fill_task_regs(&buf->h))
			return 0;
		buf->h.flags = REC_F_KERNEL;
	} else {
		fill_regs(&buf->h, ctx);
	}
	if (with_fp_chain) {
		n = bpf_get_stack(ctx, buf->data, MAX_STACK_DEPTH * 8,
				  BPF_F_USER_STACK);
		if (n > 0)
			off = (__u32)n & ~7u;
	}
	off &= 1023;		/* <= MAX_STACK_DEPTH * 8 + 8, for the verifier */
	buf->h.nfp = off / 8;
	buf->h.stack_want = stack_size;
	/* stack_size <= STACK_COPY_MAX - 8: the mask changes nothing but
	 * gives the verifier its bound. */
	sp = buf->h.regs[7];
	size = copy_size(sp, &buf->h.flags) & (STACK_COPY_MAX - 1);
	if (size && bpf_probe_read_user(buf->data + off, size, (void *)sp)) {
		size = copy_pages(buf->data + off, sp, size);
		buf->h.flags &= ~REC_F_STACK_WHOLE;
		stat_inc(size ? STAT_COPY_SHORT : STAT_COPY_FAILED);
		size &= STACK_COPY_MAX - 1;
	}
	buf->h.stack_len = size;
	total = sizeof(buf->h) + off + size;
	if (total > sizeof(*buf)) {	/* cannot happen: for the verifier */
		stat_inc(STAT_RINGBUF_LOST);
		return 0;
	}
	flags = bpf_ringbuf_query(&samples, BPF_RB_AVAIL_DATA) > wakeup_bytes ?
		BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	if (bpf_ringbuf_output(&samples, buf, total, flags))
		stat_inc(buf->h.flags & REC_F_KERNEL ? STAT_RINGBUF_LOST_KERNEL
						     : STAT_RINGBUF_LOST);
	else
		stat_add(STAT_RINGBUF_BYTES, total);
	return 0;
}

/* Follow the children of target processes (a shell script, make, ...):
 * trace_task_newtask(task, clone_flags) (kernel/fork.c copy_process, in
 * the parent, once the child can no longer fail) marks a new process of a
 * target in new_tasks, by its task; is_target() takes it from there.  A
 * new thread needs nothing: its process is the parent's. */
SEC("raw_tp/task_newtask")
int on_newtask(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 task = ctx->args[0], flags = ctx->args[1];
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	__u8 one = 1;

	if (!filter_pid || (flags & CLONE_THREAD) || !is_target(pid))
		return 0;
	if (bpf_map_update_elem(&new_tasks, &task, &one, BPF_ANY))
		stat_inc(STAT_FORK_MISSED);
	return 0;
}

/* A task that ends before it was sampled or forked leaves new_tasks, so
 * that its address is not taken for a later task's. */
SEC("raw_tp/sched_process_exit")
int on_exit(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 task = bpf_get_current_task();

	if (filter_pid)
		bpf_map_delete_elem(&new_tasks, &task);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
