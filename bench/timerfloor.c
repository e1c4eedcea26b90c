/* SPDX-License-Identifier: GPL-2.0-only */
/* timerfloor: the cost of the sampling interrupt alone, for
 * bench/collector-steady.sh's floor@HZ cells.
 *
 * On a machine without a PMU every sampler (perf record, pgoprof record)
 * samples on cpu-clock, an hrtimer that interrupts the sampled task HZ
 * times a second of its CPU time.  That interrupt, and the kernel's
 * overflow path behind it, is paid whatever the sampler then does; only
 * what a sampler adds on top of it (copying the stack, a BPF program,
 * writing a ring buffer, reading it in user space) is the sampler's own.
 * This opens the same event with nothing on top: a cpu-clock sampling
 * event (freq=1, sample_freq=HZ, PERF_SAMPLE_IP, kernel not excluded, as
 * perf record and pgoprof-record's stack mode open it), no ring buffer
 * mmap'd (each overflow finds no buffer and is dropped) and no BPF
 * program, for SECONDS, then closes it.
 *
 * By default one event per thread of PID (pid=TID, cpu=-1, inherit=1), as
 * perf record -p opens them; --cpu opens one per online CPU (pid=-1), as
 * pgoprof-record does (its BPF program then keeps the target's samples):
 * that interrupts every task on the CPU, not only PID's.
 *
 * --self measures the interrupt's cost directly, where a throughput
 * cannot resolve it: timerfloor itself runs a loop that reads
 * CLOCK_MONOTONIC (tens of ns an iteration) and takes every step longer
 * than 1.5 us as time the loop lost (an interrupt, a VM exit, the
 * host), for SECONDS in 1 s halves with the event on itself (or on
 * every CPU) disabled and enabled in turn.  The difference between the
 * halves is what the event costs: its interrupts a second, the share of
 * the CPU they take and the us each (that share over HZ: the steps
 * counted also catch other interruptions, the share is the firmer
 * figure), with a 95% t-interval over the pairs.  Pin it alone on a CPU (taskset) so that no other task's time
 * slices fall into it; steps over 0.5 ms (a time slice elsewhere, the
 * host) are left out and counted.
 *
 * Otherwise, at the end it prints one line: the rate run (per second of the sampled
 * CPU time), the interrupts, the event's counted seconds, and
 * kernel.perf_event_max_sample_rate at the start and the end.  The
 * kernel turns freq into a fixed period (1 s / HZ) for cpu-clock, so the
 * interrupts are the counted time over that period; the kernel lowers
 * perf_event_max_sample_rate when an interrupt takes too long, and the
 * rate run is then the lower of HZ and that rate (the hrtimer is
 * throttled to it).
 *
 * Usage: timerfloor [--cpu] -F HZ -p PID [-d SECONDS] [-o FILE]
 *        timerfloor --self [--cpu] -F HZ [-d SECONDS] */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_FDS 1024

static const char usage[] =
"Usage: timerfloor [--cpu] -F HZ -p PID [-d SECONDS] [-o FILE]\n"
"       timerfloor --self [--cpu] -F HZ [-d SECONDS]\n"
"Open a cpu-clock sampling event at HZ on PID (its threads; --cpu: on\n"
"every online CPU instead, all tasks) with no ring buffer and no BPF\n"
"program, keep it SECONDS (default 30, or until PID exits), and print\n"
"  hz_run interrupts counted_s max_sample_rate_start max_sample_rate_end\n"
"to FILE (default stdout).  The cost of the sampling interrupt alone.\n"
"--self: the event on timerfloor itself (--cpu: on every CPU), disabled\n"
"and enabled in turn every second for SECONDS (default 30) while it\n"
"reads the clock in a loop; prints the interrupts a second it adds, the\n"
"share of the CPU they take and the us each (95% intervals over the\n"
"pairs).  Pin it alone on a CPU with taskset.\n";

static int fds[MAX_FDS];
static int nfds;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("timerfloor: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static long max_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	long r = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &r) != 1)
		r = -1;
	fclose(f);
	return r;
}

static void open_one(struct perf_event_attr *a, pid_t pid, int cpu)
{
	int fd;

	if (nfds == MAX_FDS)
		die("more than %d events", MAX_FDS);
	fd = (int)syscall(SYS_perf_event_open, a, pid, cpu, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		if (pid > 0 && errno == ESRCH)
			return;		/* a thread that just exited */
		die("perf_event_open(cpu-clock, pid %d, cpu %d): %s%s", (int)pid,
		    cpu, strerror(errno), errno == EACCES || errno == EPERM ?
		    " (run as root or lower kernel.perf_event_paranoid)" :
		    errno == EINVAL ? " (above kernel.perf_event_max_sample_rate?)" : "");
	}
	fds[nfds++] = fd;
}

static void open_threads(struct perf_event_attr *a, pid_t pid)
{
	char path[64];
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		die("-p %d: cannot read %s: %s", (int)pid, path, strerror(errno));
	while ((e = readdir(d)))
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
			open_one(a, (pid_t)atoi(e->d_name), -1);
	closedir(d);
	if (!nfds)
		die("-p %d: no thread left to open an event on", (int)pid);
}

static void open_cpus(struct perf_event_attr *a)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	/* Online CPUs are 0..n-1 on the machines this runs on; a hole
	 * fails loudly in open_one. */
	for (int cpu = 0; cpu < n; cpu++)
		open_one(a, -1, cpu);
}

#define GAP_NS 1500		/* a step longer than this: time lost */
#define SLICE_NS 500000		/* longer: another task ran, left out */

struct half {
	double gaps, lost;	/* a second: steps over GAP_NS, their ns */
	long slices;
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* One second of the clock loop: the steps over GAP_NS, per second. */
static struct half loop_second(void)
{
	uint64_t t0 = now_ns(), p = t0, end = t0 + 1000000000u, t, d;
	uint64_t n = 0, lost = 0, out = 0;
	struct half h = { 0, 0, 0 };

	while (p < end) {
		t = now_ns();
		d = t - p;
		p = t;
		if (d > SLICE_NS) {
			h.slices++;
			out += d;
		} else if (d > GAP_NS) {
			n++;
			lost += d;
		}
	}
	/* Per second of the loop's own time (slices elsewhere left out). */
	h.gaps = (double)n * 1e9 / (double)(p - t0 - out);
	h.lost = (double)lost / (double)(p - t0 - out);
	return h;
}

/* t(0.975, df) for df 1..30, then 2.0: the interval errs wide. */
static double t975(int df)
{
	static const double t[] = { 12.706, 4.303, 3.182, 2.776, 2.571, 2.447,
		2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
		2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
		2.060, 2.056, 2.052, 2.048, 2.045, 2.042 };

	return df < 1 ? 0 : df <= 30 ? t[df - 1] : 2.0;
}

/* Mean and 95% half-width of x[0..n-1]. */
static void interval(const double *x, int n, double *m, double *h)
{
	double s = 0, ss = 0;

	for (int i = 0; i < n; i++)
		s += x[i];
	*m = s / n;
	for (int i = 0; i < n; i++)
		ss += (x[i] - *m) * (x[i] - *m);
	*h = n > 1 ? t975(n - 1) * sqrt(ss / (n - 1) / n) : 0;
}

static int self_test(long hz, long secs)
{
	int pairs = (int)(secs / 2), slices = 0;
	double *dg, *dl, *us, og = 0, ol = 0, mg, hg, ml, hl, mu, hu;

	if (pairs < 2)
		die("--self: -d %ld: at least 4 seconds (two pairs)", secs);
	dg = calloc((size_t)pairs, sizeof(double));
	dl = calloc((size_t)pairs, sizeof(double));
	us = calloc((size_t)pairs, sizeof(double));
	if (!dg || !dl || !us)
		die("out of memory");
	for (int i = 0; i < pairs; i++) {
		struct half h[2];	/* [0] disabled, [1] enabled */

		/* Off then on, on then off in turn: a drift cancels. */
		for (int k = 0; k < 2; k++) {
			int enable = (k == 0) == (i % 2 == 1);

			for (int j = 0; j < nfds; j++)
				if (ioctl(fds[j], enable ? PERF_EVENT_IOC_ENABLE :
					  PERF_EVENT_IOC_DISABLE, 0))
					die("ioctl(event): %s", strerror(errno));
			h[enable] = loop_second();
			slices += (int)h[enable].slices;
		}
		dg[i] = h[1].gaps - h[0].gaps;
		dl[i] = 100 * (h[1].lost - h[0].lost);
		us[i] = 1e4 * dl[i] / (double)hz;	/* HZ a CPU-second */
		og += h[0].gaps / pairs;
		ol += 100 * h[0].lost / pairs;
	}
	interval(dg, pairs, &mg, &hg);
	interval(dl, pairs, &ml, &hl);
	interval(us, pairs, &mu, &hu);
	printf("%ld Hz, %d pairs of 1 s: off %.0f steps/s, %.2f%% lost; the event adds %.0f (%.0f..%.0f) interrupts/s, %.2f%% (%.2f..%.2f) of the CPU, %.1f us (%.1f..%.1f) each; %d steps over 0.5 ms left out\n",
	       hz, pairs, og, ol, mg, mg - hg, mg + hg, ml, ml - hl, ml + hl,
	       mu, mu - hu, mu + hu, slices);
	free(dg);
	free(dl);
	free(us);
	return 0;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cpu", no_argument, NULL, 'c' },
		{ "self", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct perf_event_attr a;
	long hz = 0, secs = 30, r0, r1;
	pid_t pid = 0;
	int per_cpu = 0, self = 0, o;
	const char *out = NULL;
	uint64_t count = 0, period;
	double hz_run;
	FILE *f = stdout;
	char *end;

	while ((o = getopt_long(argc, argv, "cF:p:d:o:h", longopts, NULL)) != -1) {
		switch (o) {
		case 'c':
			per_cpu = 1;
			break;
		case 's':
			self = 1;
			break;
		case 'F':
			hz = strtol(optarg, &end, 10);
			if (*end || hz <= 0 || hz > 1000000)
				die("-F %s: a rate in Hz, 1 to 1000000", optarg);
			break;
		case 'p':
			pid = (pid_t)strtol(optarg, &end, 10);
			if (*end || pid <= 0)
				die("-p %s: not a process ID", optarg);
			break;
		case 'd':
			secs = strtol(optarg, &end, 10);
			if (*end || secs <= 0)
				die("-d %s: a number of seconds", optarg);
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind != argc || !hz || !pid == !self) {
		fprintf(stderr, "timerfloor: %s\n%s", optind != argc ?
			"no arguments after the options" : self ?
			"give -F HZ, and --self or -p PID but not both" :
			"give -F HZ and -p PID (or --self)", usage);
		return 2;
	}

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.freq = 1;
	a.sample_freq = (uint64_t)hz;
	a.sample_type = PERF_SAMPLE_IP;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.inherit = !per_cpu;
	a.exclude_hv = 1;
	a.disabled = self;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	r0 = max_rate();
	if (per_cpu)
		open_cpus(&a);
	else
		open_threads(&a, self ? getpid() : pid);
	if (self)
		return self_test(hz, secs);

	/* Until SECONDS pass or PID exits; signals end it early. */
	for (long t = 0; t < secs * 10 && !stop; t++) {
		struct timespec ts = { 0, 100000000 };

		if (kill(pid, 0) && errno == ESRCH)
			break;
		nanosleep(&ts, NULL);
	}

	/* Per task: the sampled task's CPU time (with inherit, its
	 * children's).  Per CPU: the CPUs' whole time; the rate run is per
	 * second of it, the target's own share not being known here. */
	for (int i = 0; i < nfds; i++) {
		uint64_t v[3];

		if (read(fds[i], v, sizeof(v)) != (ssize_t)sizeof(v))
			die("read(event): %s", strerror(errno));
		count += v[0];
		close(fds[i]);
	}
	r1 = max_rate();
	period = 1000000000ull / (uint64_t)hz;
	hz_run = (double)hz;
	if (r1 > 0 && r1 < hz_run)
		hz_run = (double)r1;
	if (out && !(f = fopen(out, "w")))
		die("%s: %s", out, strerror(errno));
	fprintf(f, "%.0f %llu %.3f %ld %ld\n", hz_run,
		(unsigned long long)(count / period), (double)count / 1e9, r0, r1);
	if (f != stdout && fclose(f))
		die("%s: %s", out, strerror(errno));
	return 0;
}
