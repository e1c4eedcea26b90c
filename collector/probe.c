/* SPDX-License-Identifier: GPL-2.0-only */
/* The sampler ladder (probe.h).  The kernel's rules for each event:
 * arch/x86/events/intel/lbr.c (any event, freq mode), amd/lbr.c (Zen 4
 * LbrExtV2: any sampling event, filters USER and ANY), amd/brs.c (Zen 3
 * BRS: only event 0xc4, a fixed period above 16, no branch-type filter),
 * drivers/perf/arm_brbe.c (BRBE: the branch filter's privilege levels
 * must agree with the event's exclude_*), amd/ibs.c (IBS op: a period
 * whose low 4 bits are zero; exclude_kernel refused with EINVAL before the
 * kernel filtered in its interrupt handler). */
#include "probe.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#define IBS_SYSFS "/sys/bus/event_source/devices/ibs_op"
#define BRS_PERIOD 100003	/* a prime; BRS needs a period, not -F */

int mode_by_name(const char *name)
{
	static const char *const names[] = {
		[MODE_AUTO] = "auto", [MODE_LBR] = "lbr",
		[MODE_EXEC] = "exec", [MODE_STACK] = "stack",
	};

	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

static const char *const ev_names[LEV_MAX] = {
	[LEV_BRSTACK] = "cycles", [LEV_AMD_BRS] = "ex_ret_brn_tkn",
	[LEV_INSN_PPP] = "instructions:ppp", [LEV_INSN_PP] = "instructions:pp",
	[LEV_INSN_P] = "instructions:p", [LEV_IBS_OP] = "ibs_op",
	[LEV_INSN] = "instructions", [LEV_BRANCHES] = "branches",
	[LEV_CPU_CLOCK] = "cpu-clock",
};

const char *ladder_event_name(enum ladder_event e)
{
	return (unsigned)e < LEV_MAX ? ev_names[e] : "?";
}

int ladder_event_by_name(const char *name)
{
	if (!strcmp(name, "ibs_op/cnt_ctl=1/"))
		return LEV_IBS_OP;
	for (int e = LEV_INSN_PPP; e <= LEV_BRANCHES; e++)
		if (!strcmp(name, ev_names[e]))
			return e;
	return -1;
}

/* The rung of an event: 1, 2 or 3. */
static int rung_of(int e)
{
	return e <= LEV_AMD_BRS ? 1 : e <= LEV_BRANCHES ? 2 : 3;
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
		a->sample_period = period ? period : BRS_PERIOD;
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

static int is_prime(unsigned long long n)
{
	if (n < 2)
		return 0;
	for (unsigned long long d = 2; d * d <= n; d++)
		if (n % d == 0)
			return 0;
	return 1;
}

unsigned long long exec_period(unsigned long freq, int ibs)
{
	unsigned long long n = EXEC_RATE / (freq ? freq : 1) / (ibs ? 16 : 1);

	/* A loop of L instructions and a period P sample every position of
	 * the loop when gcd(L, P) = 1; a prime P (above 1000 at any rate
	 * the kernel allows) is coprime to every L but its multiples. */
	if (n < 1009)
		n = 1009;
	while (!is_prime(n))
		n++;
	return ibs ? 16 * n : n;
}

void ladder_attr(struct perf_event_attr *a, enum ladder_event e,
		 const struct ladder_probe *p, unsigned long freq,
		 unsigned long long period)
{
	if (e <= LEV_AMD_BRS) {
		lbr_attr(a, freq, period, e == LEV_AMD_BRS);
		return;
	}
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	if (e == LEV_CPU_CLOCK) {
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_CPU_CLOCK;
		a->exclude_kernel = 0;	/* as before: kernel samples counted */
		a->exclude_hv = 0;
		if (period) {
			a->sample_period = period;
		} else {
			a->freq = 1;
			a->sample_freq = freq;
		}
		return;
	}
	/* A fixed period: in freq mode the kernel retunes the period every
	 * tick to keep the rate, so that a phase of high IPC would get
	 * fewer samples per instruction than one of low IPC; the samples
	 * would measure time again. */
	a->sample_period = period ? period : exec_period(freq, e == LEV_IBS_OP);
	if (e == LEV_IBS_OP) {
		a->type = (unsigned)p->ibs_type;
		a->config = 1ull << p->ibs_cnt_ctl;
		a->exclude_kernel = !p->ibs_kernel;
		a->exclude_hv = 0;	/* IBS refuses exclude_hv */
		return;
	}
	a->type = PERF_TYPE_HARDWARE;
	a->config = e == LEV_BRANCHES ? PERF_COUNT_HW_BRANCH_INSTRUCTIONS
				      : PERF_COUNT_HW_INSTRUCTIONS;
	a->precise_ip = e == LEV_INSN_PPP ? 3 : e == LEV_INSN_PP ? 2 :
			e == LEV_INSN_P ? 1 : 0;
}

static enum cpu_vendor cpu_vendor(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[256];
	enum cpu_vendor v = VENDOR_OTHER;
	struct utsname u;

	if (!uname(&u) && !strcmp(u.machine, "aarch64"))
		v = VENDOR_ARM;
	while (f && v == VENDOR_OTHER && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "vendor_id", 9))
			continue;
		if (strstr(line, "GenuineIntel"))
			v = VENDOR_INTEL;
		else if (strstr(line, "AuthenticAMD") || strstr(line, "HygonGenuine"))
			v = VENDOR_AMD;
	}
	if (f)
		fclose(f);
	return v;
}

/* ibs_op's PMU type and the config bit of cnt_ctl ("config:19"). */
static void read_ibs(struct ladder_probe *p)
{
	FILE *f = fopen(IBS_SYSFS "/type", "re");
	int bit;

	p->ibs_type = p->ibs_cnt_ctl = -1;
	if (!f)
		return;
	if (fscanf(f, "%d", &p->ibs_type) != 1)
		p->ibs_type = -1;
	fclose(f);
	f = fopen(IBS_SYSFS "/format/cnt_ctl", "re");
	if (!f)
		return;
	if (fscanf(f, "config:%d", &bit) == 1 && bit >= 0 && bit < 64)
		p->ibs_cnt_ctl = bit;
	fclose(f);
}

static int try_open(const struct perf_event_attr *a, int cpu)
{
	int fd = (int)syscall(SYS_perf_event_open, a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int rung_wanted(enum record_mode mode, int rung)
{
	return mode == MODE_AUTO || (mode == MODE_LBR && rung == 1) ||
	       (mode == MODE_EXEC && rung == 2);
}

/* 0 to open event e; PROBE_NOT_TRIED when this machine cannot have it. */
static int probe_one(struct ladder_probe *p, int e, int cpu,
		     unsigned long freq, unsigned long long period)
{
	struct perf_event_attr a;
	int r;

	if (e == LEV_AMD_BRS && p->vendor != VENDOR_AMD)
		return PROBE_NOT_TRIED;
	if (e == LEV_IBS_OP && p->ibs_type < 0)
		return PROBE_NO_PMU;
	if (e == LEV_IBS_OP && p->ibs_cnt_ctl < 0)
		return PROBE_NO_CNT_CTL;
	ladder_attr(&a, (enum ladder_event)e, p, freq,
		    e == LEV_AMD_BRS || rung_of(e) == 3 ? period : 0);
	r = try_open(&a, cpu);
	if (e == LEV_IBS_OP && r == EINVAL) {
		/* IBS before it honoured exclude_kernel: the BPF program
		 * counts the kernel's samples (unattributed.kernel). */
		p->ibs_kernel = 1;
		ladder_attr(&a, LEV_IBS_OP, p, freq, 0);
		r = try_open(&a, cpu);
		if (r)
			p->ibs_kernel = 0;
	}
	return r;
}

void ladder_probe_run(struct ladder_probe *p, enum record_mode mode,
		      int forced, int cpu, unsigned long freq,
		      unsigned long long period)
{
	memset(p, 0, sizeof(*p));
	p->vendor = cpu_vendor();
	read_ibs(p);
	for (int e = 0; e < LEV_MAX; e++) {
		p->err[e] = PROBE_NOT_TRIED;
		if (mode == MODE_STACK || !rung_wanted(mode, rung_of(e)) ||
		    (forced >= 0 && rung_of(e) == 2 && e != forced))
			continue;
		p->err[e] = probe_one(p, e, cpu, freq, period);
	}
}

/* ---- the decision ---- */

static const struct {
	int e;
	const char *name, *gloss;
} errs[] = {
	{ ENOENT, "ENOENT", "no such event here" },
	{ EOPNOTSUPP, "EOPNOTSUPP", "not supported here" },
	{ EINVAL, "EINVAL", "refused with these attributes" },
	{ ENODEV, "ENODEV", "no such PMU" },
	{ EACCES, "EACCES", "permission denied" },
	{ EPERM, "EPERM", "not permitted" },
	{ EBUSY, "EBUSY", "the PMU is in use" },
};

/* The probe's answer in words. */
static const char *answer(int r, char *buf, size_t len)
{
	if (r == 0)
		return "opened";
	if (r == PROBE_NO_PMU)
		return "no ibs_op PMU (" IBS_SYSFS ")";
	if (r == PROBE_NO_CNT_CTL)
		return "ibs_op without cnt_ctl (" IBS_SYSFS "/format): it would count cycles";
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		if (errs[i].e == r) {
			snprintf(buf, len, "%s, %s", errs[i].name, errs[i].gloss);
			return buf;
		}
	snprintf(buf, len, "%s", strerror(r));
	return buf;
}

static void cat(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n >= len - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/* The hardware behind an event, for the lines. */
static const char *hardware(int e, enum cpu_vendor v)
{
	static const char *const brstack[] = {
		[VENDOR_OTHER] = "a branch stack", [VENDOR_INTEL] = "Intel LBR",
		[VENDOR_AMD] = "AMD LbrExtV2, Zen 4", [VENDOR_ARM] = "Arm BRBE",
	};

	switch (e) {
	case LEV_BRSTACK: return brstack[v];
	case LEV_AMD_BRS: return "AMD BRS, Zen 3";
	case LEV_INSN_PPP: case LEV_INSN_PP: case LEV_INSN_P:
		return v == VENDOR_INTEL ? "PEBS" : "precise";
	case LEV_IBS_OP: return "AMD IBS, dispatched ops";
	default: return NULL;
	}
}

/* The events of rung tried, with their answers, those of one answer
 * together: "instructions:ppp, instructions:pp (PEBS): EOPNOTSUPP, not
 * supported here; ibs_op (AMD IBS, dispatched ops): opened". */
static void tried(char *buf, size_t len, int rung, const struct ladder_probe *p)
{
	char w[128];
	int group[LEV_MAX], n = 0;

	buf[0] = '\0';
	for (int e = 0; e <= LEV_MAX; e++) {
		int in = e < LEV_MAX && rung_of(e) == rung && p->err[e] != PROBE_NOT_TRIED;
		int last = n ? group[n - 1] : -1;

		if (in && (!n || (p->err[last] == p->err[e] &&
				  hardware(last, p->vendor) == hardware(e, p->vendor)))) {
			group[n++] = e;
			continue;
		}
		if (n) {	/* the group ends: say it */
			const char *hw = hardware(last, p->vendor);

			cat(buf, len, "%s", buf[0] ? "; " : "");
			for (int i = 0; i < n; i++)
				cat(buf, len, "%s%s", i ? ", " : "", ev_names[group[i]]);
			cat(buf, len, "%s%s%s: %s", hw ? " (" : "", hw ? hw : "",
			    hw ? ")" : "", answer(p->err[last], w, sizeof(w)));
		}
		n = 0;
		if (in)
			group[n++] = e;
	}
	if (!buf[0])
		snprintf(buf, len, "nothing to try");
}

static const char *const rung_title[] = {
	"", "rung 1, branch stacks", "rung 2, execution samples",
	"rung 3, time samples",
};

/* The first event of rung that opened, or was refused for privileges
 * (*priv set); -1 if none. */
static int first_answer(const struct ladder_probe *p, int rung, int *priv)
{
	for (int e = 0; e < LEV_MAX; e++) {
		int r = p->err[e];

		if (rung_of(e) != rung)
			continue;
		if (r == 0)
			return e;
		if (r == EACCES || r == EPERM) {
			*priv = 1;
			return e;
		}
	}
	return -1;
}

/* The line of a failure: privileges, or the mode asked for is not here. */
static void fail_why(enum record_mode mode, int forced, const struct ladder_probe *p,
		     int priv_ev, struct ladder_report *r, const char *list)
{
	char w[128];

	if (priv_ev >= 0) {
		snprintf(r->why, sizeof(r->why), "cannot probe for %s (%s): run as root or grant CAP_PERFMON",
			 ev_names[priv_ev], answer(p->err[priv_ev], w, sizeof(w)));
	} else if (mode == MODE_LBR) {
		snprintf(r->why, sizeof(r->why), "--mode lbr: this CPU or VM offers no branch records (%.500s); use --mode exec or --mode stack", list);
	} else if (forced >= 0) {
		snprintf(r->why, sizeof(r->why), "--event %s: not on this CPU or VM (%.500s); use --mode exec for the best one there is, or --mode stack", ev_names[forced], list);
	} else if (mode == MODE_EXEC) {
		snprintf(r->why, sizeof(r->why), "--mode exec: this CPU or VM offers no execution-proportional event (%.500s); use --mode stack", list);
	} else {
		snprintf(r->why, sizeof(r->why), "cannot sample cpu-clock (%.500s)", list);
	}
}

static void chosen_why(enum record_mode mode, int e, const struct ladder_probe *p,
		       struct ladder_report *r)
{
	const char *asked = mode == MODE_AUTO ? "" : " (asked for)";
	const char *hw = hardware(e, p->vendor);

	if (rung_of(e) == 1)
		snprintf(r->why, sizeof(r->why), "mode lbr%s: the CPU has %s; sampling %s with branch records",
			 asked, hw, ev_names[e]);
	else if (rung_of(e) == 2)
		snprintf(r->why, sizeof(r->why), "mode exec%s: %ssampling %s (executions, not time) with user stacks%s",
			 asked, mode == MODE_AUTO ? "no branch records here; " : "",
			 ev_names[e], e == LEV_IBS_OP && p->ibs_kernel ?
			 "; this kernel's IBS cannot exclude the kernel: its samples are counted apart" : "");
	else
		snprintf(r->why, sizeof(r->why), "mode stack: no branch records here, nor an execution-proportional event; sampling cpu-clock (time) with user stacks");
}

int ladder_decide(enum record_mode mode, int forced,
		  const struct ladder_probe *p, enum ladder_event *ev,
		  struct ladder_report *r)
{
	char list[3][512];
	int chosen = -1, priv = 0, priv_ev = -1, fail_rung = 0;
	struct ladder_probe only = *p;

	memset(r, 0, sizeof(*r));
	/* --event: the other execution events do not count, probed or not. */
	for (int e = 0; e < LEV_MAX && forced >= 0; e++)
		if (rung_of(e) == 2 && e != forced)
			only.err[e] = PROBE_NOT_TRIED;
	p = &only;
	if (mode == MODE_STACK) {
		*ev = LEV_CPU_CLOCK;
		snprintf(r->why, sizeof(r->why), "mode stack (asked for): cpu-clock samples with user stacks");
		return MODE_STACK;
	}
	for (int rung = 1; rung <= 3; rung++) {
		char *line = r->rung[rung - 1];
		size_t len = sizeof(r->rung[0]);

		if (!rung_wanted(mode, rung)) {
			snprintf(line, len, "%s: not tried (--mode %s)", rung_title[rung],
				 mode == MODE_LBR ? "lbr" : "exec");
			continue;
		}
		tried(list[rung - 1], sizeof(list[0]), rung, p);
		snprintf(line, len, "%s: %.512s; ", rung_title[rung], list[rung - 1]);
		if (chosen >= 0 || priv_ev >= 0) {
			cat(line, len, "not needed");
			continue;
		}
		int e = first_answer(p, rung, &priv);

		if (priv) {
			priv_ev = e;
			cat(line, len, "refused for privileges");
		} else if (e >= 0) {
			chosen = e;
			cat(line, len, "taken: %s", ev_names[e]);
		} else {
			fail_rung = rung;
			cat(line, len, "not taken");
		}
	}
	if (chosen < 0) {
		fail_why(mode, forced, p, priv_ev, r, list[fail_rung ? fail_rung - 1 : 0]);
		return -1;
	}
	*ev = (enum ladder_event)chosen;
	chosen_why(mode, chosen, p, r);
	return rung_of(chosen) == 1 ? MODE_LBR : rung_of(chosen) == 2 ? MODE_EXEC : MODE_STACK;
}
