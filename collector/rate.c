/* SPDX-License-Identifier: GPL-2.0-only */
/* How fast pgoprof-record may sample.  A cpu-clock event at 100 kHz froze
 * a 2-vCPU VM for minutes: every sample is a timer interrupt, and on a
 * virtual machine one costs about 100 us.  The kernel throttles hardware
 * events by perf_cpu_time_max_percent (kernel/events/core.c,
 * perf_sample_event_took) but not the hrtimer of cpu-clock, so the
 * collector measures the cost itself and keeps under the same share. */
#include "rate.h"
#include "../lib/util.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define WINDOW_NS 5000000	/* one measuring window */
#define ROUNDS 4		/* pairs of windows, interleaved */

static unsigned long read_sysctl(const char *path, unsigned long dflt)
{
	FILE *f = fopen(path, "re");
	unsigned long v;

	if (!f)
		return dflt;
	if (fscanf(f, "%lu", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

unsigned long rate_kernel_max(void)
{
	return read_sysctl("/proc/sys/kernel/perf_event_max_sample_rate", 100000);
}

unsigned rate_cpu_percent(void)
{
	return (unsigned)read_sysctl("/proc/sys/kernel/perf_cpu_time_max_percent", 25);
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Iterations of a loop in one window: the work that the interrupts left. */
static uint64_t spin_window(void)
{
	volatile uint64_t x = 0;
	uint64_t n = 0, end = now_ns() + WINDOW_NS;

	while (now_ns() < end) {
		for (int i = 0; i < 256; i++)
			x += (uint64_t)i;
		n++;
	}
	return n;
}

static double measure_on(int fd)
{
	uint64_t off = 0, on = 0, n;

	for (int r = 0; r < ROUNDS; r++) {
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		if ((n = spin_window()) > off)
			off = n;
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		if ((n = spin_window()) > on)
			on = n;
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	return off && on < off ? 1.0 - (double)on / (double)off : 0.0;
}

double rate_measure_busy(struct bpf_program *prog,
			 const struct perf_event_attr *a, int cpu)
{
	struct perf_event_attr attr = *a;
	struct bpf_link *link;
	cpu_set_t was, here;
	double busy;
	int fd;

	attr.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return err("perf_event_open(cpu-clock, cpu %d): %s", cpu, strerror(errno));
	link = bpf_program__attach_perf_event(prog, fd);
	if (!link) {
		close(fd);
		return err("cannot attach the BPF program to cpu %d: %s", cpu,
			   strerror(errno));
	}
	CPU_ZERO(&here);
	CPU_SET(cpu, &here);
	sched_getaffinity(0, sizeof(was), &was);
	sched_setaffinity(0, sizeof(here), &here);
	busy = measure_on(fd);
	sched_setaffinity(0, sizeof(was), &was);
	bpf_link__destroy(link);
	close(fd);
	return busy;
}

unsigned long rate_within(unsigned long hz, double busy, unsigned pct)
{
	double limit = pct / 100.0, want;

	if (pct == 0 || pct >= 100 || busy <= limit)
		return hz;
	want = (double)hz * limit / busy;
	return want < 1 ? 1 : (unsigned long)want;
}
