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

static __always_inline void stat_inc(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &which);

	if (v)
		(*v)++;
}

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	struct sample_key key = {};
	__u64 one = 1, *count;

	if (pid == 0 || pid == self_pid)	/* idle task, or us */
		return 0;
	if (filter_pid && !bpf_map_lookup_elem(&targets, &pid))
		return 0;
	stat_inc(STAT_SAMPLES);
	/* Kernel addresses have the top bit set on x86-64 and arm64. */
	if ((__s64)PT_REGS_IP(&ctx->regs) < 0) {
		stat_inc(STAT_KERNEL);
		return 0;
	}
	key.pid = pid;
	key.user_stack_id = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
	if (key.user_stack_id < 0) {
		stat_inc(key.user_stack_id == -EFAULT ? STAT_NO_USER_STACK
						      : STAT_STACK_LOST);
		return 0;
	}
	count = bpf_map_lookup_elem(&counts, &key);
	if (count) {
		__sync_fetch_and_add(count, 1);
		return 0;
	}
	if (bpf_map_update_elem(&counts, &key, &one, BPF_NOEXIST)) {
		/* Another CPU may have created it meanwhile. */
		count = bpf_map_lookup_elem(&counts, &key);
		if (count)
			__sync_fetch_and_add(count, 1);
		else
			stat_inc(STAT_COUNTS_FULL);
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
