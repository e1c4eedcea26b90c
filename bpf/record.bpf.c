// SPDX-License-Identifier: GPL-2.0
/* Kernel side of pgoprof-record: on every cpu-clock sample of a target
 * process, take its user stack by frame pointers and count it in a map.
 * Aggregating here keeps the data copied to user space proportional to the
 * number of distinct stacks, not to the number of samples. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "record.h"

#define EFAULT 14

/* Set before load: only count processes in "targets" (record -p/COMMAND). */
const volatile bool filter_pid = false;
/* pgoprof-record itself, never profiled (it would be with -a). */
const volatile __u32 self_pid = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

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

static __always_inline void stat_inc(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &which);

	if (v)
		(*v)++;
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

/* The process of the sample if it is to be profiled, else 0. */
static __always_inline __u32 target_pid(void)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;

	if (pid == 0 || pid == self_pid)	/* idle task, or us */
		return 0;
	if (filter_pid && !bpf_map_lookup_elem(&targets, &pid))
		return 0;
	return pid;
}

/* The user stack by frame pointers, counted per (process, stack). */
static __always_inline int count_stack(struct bpf_perf_event_data *ctx,
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

/* Branch-record mode: the stack as above, and the sample's branch records
 * (newest first) as taken branches and the fall-through ranges between
 * them: [e[i].to, e[i-1].from] ran once. */
SEC("perf_event")
int on_lbr_sample(struct bpf_perf_event_data *ctx)
{
	__u32 pid = target_pid(), zero = 0;
	struct lbr_key key = {};
	struct lbr_buf *buf;
	long size;
	int n;

	if (!pid || count_stack(ctx, pid))
		return 0;
	buf = bpf_map_lookup_elem(&lbr_scratch, &zero);
	if (!buf)
		return 0;
	size = bpf_read_branch_records(ctx, buf, sizeof(*buf), 0);
	if (size < 0) {
		stat_inc(STAT_NO_BRANCHES);
		return 0;
	}
	n = size / sizeof(struct perf_branch_entry);
	key.pid = pid;
	for (int i = 0; i < MAX_LBR; i++) {
		if (i >= n)
			break;
		key.a = buf->e[i].from;
		key.b = buf->e[i].to;
		if (count_in(&branches, &key))
			stat_inc(STAT_BRANCHES_FULL);
		if (i == 0)
			continue;
		key.a = buf->e[i].to;
		key.b = buf->e[i - 1].from;
		if (count_in(&ranges, &key))
			stat_inc(STAT_RANGES_FULL);
	}
	return 0;
}

/* Follow the children of target processes (a shell script, make, ...). */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ppid = parent->tgid, cpid = child->tgid;
	__u8 one = 1;

	if (filter_pid && bpf_map_lookup_elem(&targets, &ppid))
		bpf_map_update_elem(&targets, &cpid, &one, BPF_ANY);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
