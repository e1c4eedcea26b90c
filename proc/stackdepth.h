/* SPDX-License-Identifier: GPL-2.0-only */
/* The deepest call stack a sample holds, shared by the BPF program
 * (bpf/record.h), the collector and the importers of perf data.  Plain
 * preprocessor only: bpf/record.bpf.c includes it too. */
#ifndef PGOPROF_STACKDEPTH_H
#define PGOPROF_STACKDEPTH_H

/* Return addresses per stack (leaf included): the kernel's
 * PERF_MAX_STACK_DEPTH (include/uapi/linux/perf_event.h), which is also the
 * default of sysctl kernel.perf_event_max_stack, so neither
 * bpf_get_stack nor perf record -g gives more. */
#define PROC_STACK_DEPTH_MAX 127

/* The name the collector, the BPF program and the importers use. */
#define MAX_STACK_DEPTH PROC_STACK_DEPTH_MAX

#endif
