/* SPDX-License-Identifier: GPL-2.0-only */
/* Structures shared by record.bpf.c (kernel side) and the collector. */
#ifndef PGOPROF_RECORD_H
#define PGOPROF_RECORD_H

/* MAX_STACK_DEPTH: the kernel's PERF_MAX_STACK_DEPTH, 127. */
#include "../proc/stackdepth.h"

/* Counters in the per-CPU "stats" map, indexed by this enum. */
enum record_stat {
	STAT_SAMPLES,		/* samples of the target processes */
	STAT_KERNEL,		/* the CPU was in the kernel: no user IP */
	STAT_NO_USER_STACK,	/* bpf_get_stackid could not read the stack */
	STAT_STACK_LOST,	/* stack map full or hash collision */
	STAT_COUNTS_FULL,	/* the counts map was full */
	STAT_NO_BRANCHES,	/* bpf_read_branch_records failed */
	STAT_BRANCHES_FULL,	/* a branch record lost: map and spill ring full */
	STAT_RANGES_FULL,	/* a range lost: map and spill ring full */
	STAT_LBR_SPILLED,	/* branches/ranges sent through the spill ring */
	STAT_RINGBUF_LOST,	/* stack copy lost: the ring buffer was full */
	STAT_COPY_TOP,		/* stack copy ends at the stack mapping's end */
	STAT_COPY_SHORT,	/* stack copy cut short by an unreadable page */
	STAT_COPY_FAILED,	/* the user stack could not be read at all */
	STAT_RINGBUF_BYTES,	/* bytes of stack records sent (not samples) */
	STAT_RINGBUF_LOST_KERNEL, /* as STAT_RINGBUF_LOST, of a sample in the
				   * kernel: counted in STAT_KERNEL already,
				   * only its call edges are lost */
	STAT_STACK_HASH,	/* fp stack lost: another stack of the process
				 * has the same 64-bit hash (fp_counts) */
	STAT_FRAMES_UNSENT,	/* a new fp stack's frames did not fit the
				 * fp_stacks ring: its samples are counted
				 * lost by the collector (lost.stack_frames) */
	STAT_FORK_MISSED,	/* a child of a target could not be added to
				 * new_tasks (map full): it is not sampled */
	STAT_VMA_LAYOUT,	/* bpf_find_vma gave a mapping that does not
				 * hold sp: the kernel's vm_area_struct does
				 * not start with vm_start, vm_end (the copy
				 * is made page by page) */
	STAT_OTHER_TASKS,	/* a sample of a task that is not a target,
				 * dropped: none since the events go on the
				 * targets' threads (with -a, all are targets) */
	STAT_FIRST_NS,		/* not a sum: bpf_ktime_get_ns() of the CPU's
				 * first sample of a target, 0 if none */
	STAT_MAX,
};

/* A branch (kind 0) or range (kind 1) that did not fit its map, sent to
 * user space through the "lbr_spill" ring buffer instead. */
struct lbr_spill {
	__u32 kind;
	__u32 pad;
	__u32 pid;
	__u32 pad2;
	__u64 a, b;
};

/* The most branch records one sample carries (Intel LBR: 32). */
#define MAX_LBR 32

/* The context of the test program lbr_fold_test (bpf/record.bpf.c): n
 * branch records of process pid, newest first, each laid out as the
 * kernel's struct perf_branch_entry (from, to, then a word of flags that
 * the fold does not read). */
struct lbr_fold_ctx {
	__u32 pid;
	__u32 n;
	__u64 e[MAX_LBR][3];
};

/* A taken branch (from -> to) or a fall-through range [begin, end] of a
 * process, as runtime virtual addresses. */
struct lbr_key {
	__u32 pid;
	__u32 pad;
	__u64 a, b;
};

/* Key of the in-kernel aggregation: one count per distinct user stack of
 * each process.  pid is the tgid (process ID). */
struct sample_key {
	__u32 pid;
	__s32 user_stack_id;
};

/* Frame-pointer stacks (Linux 6.1 and later): each distinct stack of a
 * process is counted under a 64-bit hash of its frames in the fp_counts
 * map, which the kernel allocates as keys come (BPF_F_NO_PREALLOC), and
 * its frames go to user space once, through the fp_stacks ring, when its
 * key is made.  A second, independent hash kept with the count tells a
 * different stack with the same key apart (STAT_STACK_HASH). */
struct fp_key {
	__u32 pid;
	__u32 pad;
	__u64 hash;
};

struct fp_val {
	__u64 count;
	__u64 check;	/* the second hash */
};

/* A stack as sent through fp_stacks: this header and n frames (n * 8
 * bytes; the record is cut there). */
struct fp_stack_rec {
	__u32 pid;
	__u32 n;
	__u64 hash;
	__u64 ips[MAX_STACK_DEPTH];
};

/* splitmix64's finalizer: every input bit reaches every output bit. */
static inline __u64 fp_fin(__u64 x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ull;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dull;
	x ^= x >> 33;
	return x;
}

/* The two hashes of frames ips[0..n) (n <= MAX_STACK_DEPTH): the key's
 * (returned) and the check (*check).  Two multiply-rotate chains with
 * other constants, each finalized: a stack that collides in both is about
 * 2^-64 as likely as in one.  The BPF program runs the same steps
 * (fp_hash_start, fp_hash_step, fp_hash_end) under bpf_loop(), which the
 * verifier checks once rather than per frame; the collector recomputes
 * fp_hash() for every stack it receives. */
static inline void fp_hash_start(__u64 h[2], __u32 n)
{
	h[0] = 0x9e3779b97f4a7c15ull ^ n;
	h[1] = 0xc2b2ae3d27d4eb4full + n;
}

static inline void fp_hash_step(__u64 h[2], __u64 ip)
{
	h[0] = (h[0] ^ ip) * 0xff51afd7ed558ccdull;
	h[0] = (h[0] << 29) | (h[0] >> 35);
	h[1] = (h[1] + ip) * 0xc4ceb9fe1a85ec53ull;
	h[1] ^= h[1] >> 32;
}

static inline __u64 fp_hash_end(const __u64 h[2], __u64 *check)
{
	*check = fp_fin(h[1]);
	return fp_fin(h[0]);
}

static inline __u64 fp_hash(const __u64 *ips, __u32 n, __u64 *check)
{
	__u64 h[2];

	fp_hash_start(h, n);
	for (__u32 i = 0; i < n && i < MAX_STACK_DEPTH; i++)
		fp_hash_step(h, ips[i]);
	return fp_hash_end(h, check);
}

/* The context of the test program fp_count_test (bpf/record.bpf.c): one
 * sample's stack, counted as on_sample counts it. */
struct fp_count_ctx {
	struct fp_stack_rec r;
};

/* DWARF call graphs: each sample's user registers and the top of its user
 * stack go to user space through a ring buffer, for unwinding there. */

/* The scratch area holds this much stack; the user-visible limit is
 * STACK_COPY_MAX - 8 (65528, as perf's). */
#define STACK_COPY_MAX 65536
/* x86-64 DWARF registers 0..16: rax rdx rcx rbx rsi rdi rbp rsp r8..r15
 * rip (the System V psABI numbering, which .eh_frame uses). */
#define REC_NREGS 17

/* One sample, variable length: this header, then nfp u64 return addresses
 * of the kernel's frame-pointer walk (--call-graph auto; ips[0] is the
 * sampled IP), then stack_len bytes of the user stack from regs[7] (sp)
 * upwards. */
struct stack_rec {
	__u32 pid, tid;
	__u32 flags;		/* REC_F_* */
	__u16 nfp;
	__u16 reserved;
	__u32 stack_len;
	__u32 stack_want;	/* the size asked for: stack_len < stack_want
				 * means the copy was cut short */
	__u64 regs[REC_NREGS];
};

/* The copy reaches the end of the stack mapping: nothing lies above it. */
#define REC_F_STACK_WHOLE 1
/* The sample hit the kernel: the registers are the task's user registers
 * (bpf_task_pt_regs), so the stack gives call edges but no IP sample. */
#define REC_F_KERNEL 2

#endif
