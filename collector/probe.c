/* SPDX-License-Identifier: GPL-2.0-only */
#include "probe.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int mode_by_name(const char *name)
{
	if (!strcmp(name, "auto"))
		return MODE_AUTO;
	if (!strcmp(name, "lbr"))
		return MODE_LBR;
	if (!strcmp(name, "stack"))
		return MODE_STACK;
	return -1;
}

void lbr_attr(struct perf_event_attr *a, unsigned long freq,
	      unsigned long long period, int amd)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	if (amd) {
		/* AMD BRS records branches only on this event, at a fixed
		 * period (arch/x86/events/amd/brs.c). */
		a->type = PERF_TYPE_RAW;
		a->config = 0xc4;	/* ex_ret_brn_tkn: retired taken branches */
		a->sample_period = period ? period : 100003;
	} else {
		a->type = PERF_TYPE_HARDWARE;
		a->config = PERF_COUNT_HW_CPU_CYCLES;
		if (period) {
			a->sample_period = period;
		} else {
			a->freq = 1;
			a->sample_freq = freq;
		}
	}
	a->sample_type = PERF_SAMPLE_BRANCH_STACK;
	a->branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

int decide_mode(enum record_mode requested, int probe_errno, char *why,
		size_t len)
{
	const char *e = strerror(probe_errno);

	if (requested == MODE_STACK) {
		snprintf(why, len, "mode stack (asked for): cpu-clock samples with user stacks");
		return MODE_STACK;
	}
	if (probe_errno == 0) {
		snprintf(why, len, "mode lbr: the CPU has a branch stack; sampling %s with branch records",
			 requested == MODE_LBR ? "as asked" : "cycles");
		return MODE_LBR;
	}
	if (probe_errno == EACCES || probe_errno == EPERM) {
		snprintf(why, len, "cannot probe for branch records (%s): run as root or grant CAP_PERFMON", e);
		return -1;
	}
	/* ENOENT: no such hardware event (no PMU, e.g. most VMs);
	 * EOPNOTSUPP: no branch stack; EINVAL: this branch filter or period
	 * is not supported (AMD BRS without a fixed period). */
	if (requested == MODE_LBR) {
		snprintf(why, len, "--mode lbr: this CPU or VM offers no branch records (perf_event_open of cycles with a branch stack: %s); use --mode stack", e);
		return -1;
	}
	snprintf(why, len, "mode stack: no branch records here (perf_event_open of cycles with a branch stack: %s); sampling cpu-clock with user stacks", e);
	return MODE_STACK;
}

int probe_lbr(int cpu, unsigned long freq, unsigned long long period, int amd)
{
	struct perf_event_attr a;
	int fd;

	lbr_attr(&a, freq, period, amd);
	fd = (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

int cpu_is_amd(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[256];
	int amd = 0;

	if (!f)
		return 0;
	while (!amd && fgets(line, sizeof(line), f))
		amd = !strncmp(line, "vendor_id", 9) && strstr(line, "AuthenticAMD");
	fclose(f);
	return amd;
}
