/* Structures shared by record.bpf.c (kernel side) and the collector. */
#ifndef PGOPROF_RECORD_H
#define PGOPROF_RECORD_H

/* The kernel's default kernel.perf_event_max_stack. */
#define MAX_STACK_DEPTH 127

/* Counters in the per-CPU "stats" map, indexed by this enum. */
enum record_stat {
	STAT_SAMPLES,		/* samples of the target processes */
	STAT_KERNEL,		/* the CPU was in the kernel: no user IP */
	STAT_NO_USER_STACK,	/* bpf_get_stackid could not read the stack */
	STAT_STACK_LOST,	/* stack map full or hash collision */
	STAT_COUNTS_FULL,	/* the counts map was full */
	STAT_NO_BRANCHES,	/* bpf_read_branch_records failed */
	STAT_BRANCHES_FULL,	/* a branch record lost: branches map full */
	STAT_RANGES_FULL,	/* a range lost: ranges map full */
	STAT_MAX,
};

/* The most branch records one sample carries (Intel LBR: 32). */
#define MAX_LBR 32

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

#endif
