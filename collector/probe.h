/* SPDX-License-Identifier: GPL-2.0-only */
/* The sampler ladder: which event pgoprof-record samples on this machine.
 * Rung 1, branch stacks (Intel LBR, AMD LbrExtV2, Arm BRBE, AMD BRS);
 * rung 2, IP samples proportional to executions (instructions at the
 * highest precise_ip, AMD IBS op samples counting ops, instructions,
 * branches); rung 3, cpu-clock.  The probes (ladder_probe_run) open each
 * event once; the decision (ladder_decide) is a pure function of what they
 * returned, so that it is tested for machines this one is not
 * (tests/unit/test_probe.c).  docs/man/pgoprof-record.1, "Sampling mode". */
#ifndef PGOPROF_PROBE_H
#define PGOPROF_PROBE_H

#include <linux/perf_event.h>
#include <stddef.h>

/* MODE_EXEC before MODE_STACK: tests/fuzz/fuzz_cmdline.c bounds the
 * values by MODE_STACK. */
enum record_mode { MODE_AUTO, MODE_LBR, MODE_EXEC, MODE_STACK };

/* "auto", "lbr", "exec", "stack" -> mode; -1 if unknown. */
int mode_by_name(const char *name);

/* The events of the ladder, in the order auto tries them. */
enum ladder_event {
	LEV_BRSTACK,	/* cycles with a user branch stack: Intel LBR, AMD
			 * LbrExtV2 (Zen 4, 6.1+), Arm BRBE (6.17+) */
	LEV_AMD_BRS,	/* AMD BRS (Zen 3, 5.19+): retired taken branches */
	LEV_INSN_PPP,	/* instructions, precise_ip 3 (Intel PEBS) */
	LEV_INSN_PP,
	LEV_INSN_P,
	LEV_IBS_OP,	/* AMD IBS op samples, cnt_ctl=1: dispatched ops */
	LEV_INSN,	/* instructions, precise_ip 0 (a virtual PMU's) */
	LEV_BRANCHES,	/* branch instructions retired */
	LEV_CPU_CLOCK,
	LEV_MAX
};

enum cpu_vendor { VENDOR_OTHER, VENDOR_INTEL, VENDOR_AMD, VENDOR_ARM };

/* Probe results that are not an errno (which are all positive). */
#define PROBE_NOT_TRIED	(-1)	/* another vendor's, or not asked for */
#define PROBE_NO_PMU	(-2)	/* no ibs_op in /sys/bus/event_source/devices */
#define PROBE_NO_CNT_CTL (-3)	/* ibs_op without format/cnt_ctl */

/* What the probes found: the input of ladder_decide(). */
struct ladder_probe {
	enum cpu_vendor vendor;
	int ibs_type;		/* ibs_op's PMU type (sysfs type), -1: none */
	int ibs_cnt_ctl;	/* its config bit of cnt_ctl (format/), -1: none */
	int ibs_kernel;		/* ibs_op opened only with kernel samples too:
				 * kernels before IBS honoured exclude_kernel */
	int err[LEV_MAX];	/* 0: perf_event_open succeeded; an errno; or
				 * a PROBE_* value */
};

/* What ladder_decide() says, to be printed as is: one line per rung
 * (empty when the rung was not considered: --mode stack), and the line
 * of the choice or of the error. */
struct ladder_report {
	char rung[3][768];
	char why[768];
};

/* perf's name of the event (META `event`): "cycles", "ex_ret_brn_tkn",
 * "instructions:ppp", "ibs_op", "instructions", "branches",
 * "cpu-clock"...  Static strings. */
const char *ladder_event_name(enum ladder_event e);

/* --event: "instructions", "instructions:p", ":pp", ":ppp", "ibs_op"
 * (or "ibs_op/cnt_ctl=1/"), "branches" -> the rung 2 event; -1 for
 * anything else. */
int ladder_event_by_name(const char *name);

/* The perf_event_attr of branch-record sampling: hardware cycles (AMD
 * BRS: retired taken branches, which needs a fixed period), user branches
 * of any kind.  freq in Hz if period is 0. */
void lbr_attr(struct perf_event_attr *a, unsigned long freq,
	      unsigned long long period, int amd);

/* The period of an execution event for about freq samples a second: a
 * prime near EXEC_RATE / freq, so that a loop's length never divides it
 * (ibs: 16 times a prime, since IBS ignores the low 4 bits of its count,
 * arch/x86/events/amd/ibs.c). */
#define EXEC_RATE 2000000000ull	/* instructions a second assumed */
unsigned long long exec_period(unsigned long freq, int ibs);

/* The attr of event e with user samples (the kernel's excluded where the
 * PMU allows: p->ibs_kernel), at freq Hz or every period events (0: from
 * freq; execution events always get a fixed period, see exec_period). */
void ladder_attr(struct perf_event_attr *a, enum ladder_event e,
		 const struct ladder_probe *p, unsigned long freq,
		 unsigned long long period);

/* Open each event of the rungs that mode needs (forced >= 0: rung 2 is
 * that event alone) on cpu for all tasks, as -a records, and close it;
 * fill p.  Reads /proc/cpuinfo, uname and the ibs_op sysfs directory. */
void ladder_probe_run(struct ladder_probe *p, enum record_mode mode,
		      int forced, int cpu, unsigned long freq,
		      unsigned long long period);

/* The decision: the best rung that mode allows and the probes opened
 * (forced >= 0: only that execution event).  Returns MODE_LBR, MODE_EXEC
 * or MODE_STACK with *ev the event, or -1 when the mode asked for is not
 * there or an event was refused for privileges (EACCES, EPERM: never
 * hidden by a lower rung).  r gets the lines in any case. */
int ladder_decide(enum record_mode mode, int forced,
		  const struct ladder_probe *p, enum ladder_event *ev,
		  struct ladder_report *r);

#endif
