/* SPDX-License-Identifier: GPL-2.0-only */
/* The sampling rate this machine sustains: the kernel's limits
 * (kernel.perf_event_max_sample_rate, kernel.perf_cpu_time_max_percent)
 * and the measured cost of one sample. */
#ifndef PGOPROF_RATE_H
#define PGOPROF_RATE_H

#include <linux/perf_event.h>

struct bpf_program;

/* The kernel's limits, from /proc/sys/kernel: the highest rate it takes
 * (samples per second per CPU; 100000 when unreadable) and the share of
 * CPU time sampling may take (percent; 0 or 100: no limit, as the kernel
 * reads it; 25 when unreadable). */
unsigned long rate_kernel_max(void);
unsigned rate_cpu_percent(void);

/* The share of a CPU's time (0 to 1) that sampling with attr a, with prog
 * attached, takes from the code that runs on cpu: the iterations of a
 * spin loop pinned there with the event enabled against disabled, the
 * best of a few interleaved 5 ms windows of each.  Interrupts of a
 * virtual machine's timer cost far more than the BPF program (about
 * 100 us a sample on a Firecracker VM against 2 us on bare metal), which
 * is why it is measured, not assumed.  Returns -1 with a message when the
 * event cannot be opened or attached. */
double rate_measure_busy(struct bpf_program *prog,
			 const struct perf_event_attr *a, int cpu);

/* The highest rate (Hz) at most hz that keeps sampling under pct percent
 * of each CPU, given that hz took busy (0 to 1) of it: the cost is taken
 * as proportional to the rate.  pct 0 or >= 100: hz. */
unsigned long rate_within(unsigned long hz, double busy, unsigned pct);

#endif
