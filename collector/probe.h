/* SPDX-License-Identifier: GPL-2.0-only */
/* Which sampling mode this machine can do: branch records (LBR and its
 * kin, through perf's branch stack) or cpu-clock with stacks. */
#ifndef PGOPROF_PROBE_H
#define PGOPROF_PROBE_H

#include <linux/perf_event.h>
#include <stddef.h>

enum record_mode { MODE_AUTO, MODE_LBR, MODE_STACK };

/* "auto", "lbr", "stack" -> mode; -1 if unknown. */
int mode_by_name(const char *name);

/* The perf_event_attr of branch-record sampling: hardware cycles (AMD
 * BRS: retired taken branches, which needs a fixed period), user branches
 * of any kind.  freq in Hz if period is 0. */
void lbr_attr(struct perf_event_attr *a, unsigned long freq,
	      unsigned long long period, int amd);

/* Decide the mode from the request and the errno of the branch-stack probe
 * (0 when perf_event_open succeeded).  Writes the one-line reason to why.
 * Returns MODE_LBR or MODE_STACK, or -1 when LBR was demanded and is not
 * there, or the probe failed for a reason a fallback would hide (EACCES:
 * privileges). */
int decide_mode(enum record_mode requested, int probe_errno, char *why,
		size_t len);

/* perf_event_open the branch-stack event on cpu and close it: 0 or errno. */
int probe_lbr(int cpu, unsigned long freq, unsigned long long period, int amd);

/* 1 if /proc/cpuinfo says AuthenticAMD. */
int cpu_is_amd(void);

#endif
