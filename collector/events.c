/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof-record's events: the mode and event the sampler ladder takes
 * on this machine (probe.h), the rate (lowered in stack mode to what the
 * machine affords, rate.h), and the sampling events with the BPF program
 * attached: one per online CPU with -a, else one on each thread of the
 * targets, inherited by the tasks they start. */
#include "collector.h"
#include "record.skel.h"
#include "rate.h"
#include "target.h"
#include "../lib/util.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Up to this rate (Hz) any machine keeps sampling's cost small; above it
 * the cost is measured first (rate.c).  The kernel's cpu-clock timer fires
 * at most every 10 us (kernel/events/core.c, perf_swevent_init_hrtimer). */
#define RATE_UNMEASURED 1000
#define RATE_PROBE 10000
#define CPU_CLOCK_MIN_NS 10000

/* CPUs listed in /sys/devices/system/cpu/online ("0-3,6"). */
static int online_cpus(int **cpus)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	int n = 0, a, b;
	size_t cap = 0;
	char sep;

	*cpus = NULL;
	if (!f)
		die(1, "cannot read /sys/devices/system/cpu/online: %s", strerror(errno));
	while (fscanf(f, "%d", &a) == 1) {
		b = a;
		if (fscanf(f, "%c", &sep) == 1 && sep == '-') {
			if (fscanf(f, "%d", &b) != 1)
				break;
			if (fscanf(f, "%c", &sep) != 1)
				sep = 0;
		}
		for (int c = a; c <= b && c < 65536; c++) {
			grow(cpus, &cap, (size_t)n + 1, sizeof(int));
			(*cpus)[n++] = c;
		}
		if (sep != ',')
			break;
	}
	fclose(f);
	if (n == 0)
		die(1, "no online CPU in /sys/devices/system/cpu/online");
	return n;
}

/* One line per rung considered (docs/man/pgoprof-record.1). */
static void say_rungs(const struct collector *c)
{
	for (int i = 0; i < 3; i++)
		if (c->why.rung[i][0])
			fprintf(stderr, "%s: %s\n", progname, c->why.rung[i]);
}

/* The mode taken and why (c->why, said once the output is known to be
 * writable: a bad -o is then the only line); an error, with the rungs
 * unless -q, when --mode lbr or exec cannot be honoured or the probes
 * were refused for privileges. */
static int choose_mode(struct collector *c)
{
	ladder_probe_run(&c->probe, c->opt.mode, c->opt.event, c->cpus[0],
			 c->opt.freq, c->opt.period);
	c->mode = ladder_decide(c->opt.mode, c->opt.event, &c->probe, &c->event, &c->why);
	if (c->mode < 0) {
		if (!c->opt.quiet)
			say_rungs(c);
		return err("%s", c->why.why);
	}
	return 0;
}

void say_ladder(const struct collector *c)
{
	say_rungs(c);
	fprintf(stderr, "%s: %s\n", progname, c->why.why);
}

/* --probe: the rungs on stderr, the mode auto takes on stdout, one word
 * (pgo/pgo.mk reads it). */
int probe_only(struct collector *c)
{
	static const char *const word[] = {
		[MODE_LBR] = "lbr", [MODE_EXEC] = "exec", [MODE_STACK] = "stack",
	};
	int rc = 1;

	c->ncpus = online_cpus(&c->cpus);
	if (!choose_mode(c)) {
		if (!c->opt.quiet)
			say_ladder(c);
		printf("%s\n", word[c->mode]);
		rc = fflush(stdout) ? 1 : 0;
	}
	free(c->cpus);
	c->cpus = NULL;
	return rc;
}

int choose_sampling(struct collector *c)
{
	c->ncpus = online_cpus(&c->cpus);
	if (choose_mode(c)) {
		free(c->cpus);
		c->cpus = NULL;
		outwriter_abort(&c->out);
		return -1;
	}
	c->use_cg = c->mode != MODE_LBR && c->opt.call_graph != CG_FP;
	phase(c, "mode chosen (the ladder's probes)");
	if (c->mode == MODE_STACK && c->opt.period && c->opt.period < CPU_CLOCK_MIN_NS) {
		outwriter_abort(&c->out);
		die(2, "-c %llu: in stack mode the period is nanoseconds of cpu-clock, at least %d (the kernel's timer fires at most every 10 us)",
		    c->opt.period, CPU_CLOCK_MIN_NS);
	}
	if (c->event == LEV_IBS_OP && c->opt.period % 16) {
		outwriter_abort(&c->out);
		die(2, "-c %llu: ibs_op's period is a multiple of 16 (IBS ignores the low 4 bits of its count)",
		    c->opt.period);
	}
	return 0;
}

void sampling_attr(const struct collector *c, struct perf_event_attr *a)
{
	ladder_attr(a, c->event, &c->probe, c->opt.freq, c->opt.period);
}

static unsigned long stack_rate(const struct collector *c)
{
	return c->opt.period ? (unsigned long)(1e9 / (double)c->opt.period) : c->opt.freq;
}

/* The share of a CPU that sampling at hz takes (rate.c). */
static double busy_at(struct collector *c, struct bpf_program *prog,
		      unsigned long hz)
{
	struct perf_event_attr a;

	sampling_attr(c, &a);
	a.freq = 0;
	a.sample_period = 1000000000ul / hz;
	return rate_measure_busy(prog, &a, c->cpus[0]);
}

/* The rate, from asked down, at which sampling with prog takes at most
 * pct% of a CPU.  The first measure is at RATE_PROBE at most, scaled up
 * in proportion (a cost that saturates grows less than the rate, so this
 * errs high and a machine is never measured at a rate that could stall
 * it); each lowered rate is measured again, since the cost need not be
 * proportional.  *first: the share at asked.  0 when a measure failed. */
static unsigned long rate_for_share(struct collector *c, struct bpf_program *prog,
				    unsigned long asked, unsigned pct, double *first)
{
	unsigned long hz = asked < RATE_PROBE ? asked : RATE_PROBE, next;
	double busy;

	if ((busy = busy_at(c, prog, hz)) < 0)
		return 0;
	busy *= (double)asked / (double)hz;	/* at the rate asked */
	*first = busy;
	hz = asked;
	for (int step = 0; step < 4; step++) {
		next = rate_within(asked, busy, pct);
		if (next < RATE_UNMEASURED)
			next = RATE_UNMEASURED;
		if (next >= hz)
			break;
		hz = next;
		if ((busy = busy_at(c, prog, hz)) < 0)
			return 0;
		busy *= (double)asked / (double)hz;
	}
	return hz;
}

/* Stack mode above RATE_UNMEASURED: lower the rate until sampling takes at
 * most kernel.perf_cpu_time_max_percent of a CPU (half with DWARF stacks),
 * as the kernel does for hardware events (LBR mode is left to the kernel).
 * 0, or -1 after a message when the cost could not be measured. */
static int limit_rate(struct collector *c)
{
	struct bpf_program *prog = c->use_cg ? c->skel->progs.on_stack_sample
					     : c->skel->progs.on_sample;
	unsigned long asked = stack_rate(c), hz;
	unsigned kpct = rate_cpu_percent(), pct = kpct;
	double first = 0;

	/* The stack copies are unwound here, in user space, at about the
	 * cost of the interrupt again: half the share for each. */
	if (c->use_cg && pct < 100)
		pct /= 2;

	if (c->mode != MODE_STACK || asked <= RATE_UNMEASURED)
		return 0;
	hz = rate_for_share(c, prog, asked, pct, &first);
	if (!hz)
		return -1;
	if (hz == asked)
		return 0;
	if (c->opt.period) {
		c->opt.period = 1000000000ull / hz;
	} else {
		c->freq_asked = asked;
		c->opt.freq = hz;
	}
	if (!c->opt.quiet)
		fprintf(stderr, "%s: sampling at %lu Hz would take about %.0f%% of each CPU here; lowered to %lu Hz (kernel.perf_cpu_time_max_percent = %u%s)\n",
			progname, asked, 100.0 * first, hz, kpct,
			pct != kpct ? ", halved: DWARF stacks are unwound here too" : "");
	return 0;
}

/* What to do about a sampling event that failed with errno e: the
 * privilege, or the open-file limit, which an event and its BPF link per
 * thread reach (two descriptors a thread; -a takes two per CPU). */
static const char *event_hint(int e)
{
	static char buf[200];
	struct rlimit r;

	if (e == EACCES || e == EPERM)
		return " (run as root, grant CAP_PERFMON, or lower /proc/sys/kernel/perf_event_paranoid)";
	if (e != EMFILE)
		return "";
	if (getrlimit(RLIMIT_NOFILE, &r))
		r.rlim_cur = 0;
	snprintf(buf, sizeof(buf), " (an event and a BPF link per thread, and the limit is %llu open files: raise ulimit -n, or record with -a)",
		 (unsigned long long)r.rlim_cur);
	return buf;
}

/* One sampling event with the BPF program: on CPU cpu (tid -1), or on
 * thread tid wherever it runs (cpu -1) and, inherited, on the tasks it
 * starts.  0; 1 when the thread has ended meanwhile (nothing to sample);
 * -1 after the message. */
static int open_event(struct collector *c, struct bpf_program *prog,
		      const struct perf_event_attr *a, pid_t tid, int cpu)
{
	struct sampling_event *e;
	int fd = (int)syscall(SYS_perf_event_open, a, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	char where[32];

	if (tid >= 0)
		snprintf(where, sizeof(where), "thread %d", (int)tid);
	else
		snprintf(where, sizeof(where), "cpu %d", cpu);
	if (fd < 0 && tid >= 0 && errno == ESRCH)
		return 1;
	if (fd < 0)
		return err("perf_event_open(%s, %s): %s%s",
			   c->mode == MODE_LBR ? "branch records" : ladder_event_name(c->event), where,
			   strerror(errno), event_hint(errno));
	grow(&c->ev, &c->cap_ev, c->nev + 1, sizeof(*c->ev));
	e = &c->ev[c->nev++];
	e->fd = fd;
	e->link = bpf_program__attach_perf_event(prog, fd);
	if (!e->link)
		return err("cannot attach the BPF program to %s: %s%s", where,
			   strerror(errno), event_hint(errno));
	return 0;
}

/* An event a thread takes a file descriptor: the soft limit (often
 * 1024) up to the hard one, for targets with many threads. */
static void raise_nofile(void)
{
	struct rlimit r;

	if (!getrlimit(RLIMIT_NOFILE, &r) && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &r);
	}
}

/* Events on every thread of process pid: listed again until no new one
 * shows up (a thread started between the listing and its event is seen
 * the next time; one started by a thread with an event inherits it). */
static int open_threads(struct collector *c, struct bpf_program *prog,
			const struct perf_event_attr *a, pid_t pid,
			pid_t **tids, size_t *n, size_t *cap)
{
	for (int pass = 0; pass < 8; pass++) {
		size_t from = *n;

		if (!target_threads(pid, tids, n, cap))
			return 0;
		for (size_t i = from; i < *n; i++) {
			int r = open_event(c, prog, a, (*tids)[i], -1);

			if (r < 0)
				return -1;
			c->nthreads += r == 0;
		}
	}
	return 0;
}

/* With -a, an event on every CPU.  Else an event on every thread of the
 * targets (the command, -p PID and its --children), inherited by the
 * tasks they start: only the targets are interrupted.  Per-CPU events
 * filtered in BPF interrupted every task of the machine at the rate
 * (12-20 us each on a VM: 6-9% of every CPU at 4999 Hz;
 * bench/results/collector-steady.md, "The interrupt floor"). */
static int open_sampling(struct collector *c)
{
	struct bpf_program *prog = sampling_prog(c);
	struct perf_event_attr a;
	pid_t *tids = NULL, *pids = c->kids;
	size_t n = 0, cap = 0;
	int r = 0;

	sampling_attr(c, &a);
	if (c->opt.all) {
		for (int i = 0; i < c->ncpus && !r; i++)
			r = open_event(c, prog, &a, -1, c->cpus[i]);
		return r;
	}
	a.inherit = 1;
	raise_nofile();
	r = open_threads(c, prog, &a, c->child ? c->child : c->opt.pid, &tids, &n, &cap);
	for (size_t i = 0; i < c->nkids && !r; i++)
		r = open_threads(c, prog, &a, pids[i], &tids, &n, &cap);
	free(tids);
	if (!r && !c->nthreads)
		return err("process %d ended before sampling could start",
			   (int)(c->child ? c->child : c->opt.pid));
	return r;
}

void close_sampling(struct collector *c)
{
	for (size_t i = 0; i < c->nev; i++) {
		if (c->ev[i].link)
			bpf_link__destroy(c->ev[i].link);
		close(c->ev[i].fd);
	}
	free(c->ev);
	c->ev = NULL;
	c->nev = c->cap_ev = 0;
}

int open_events(struct collector *c)
{
	if (limit_rate(c))
		return -1;
	phase(c, "rate decided");
	if (open_sampling(c))
		return -1;
	phase(c, "sampling armed");
	if (c->opt.pid)
		c->cpu0 = target_cpu_seconds(c->opt.pid);
	return 0;
}
