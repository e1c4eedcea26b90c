/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof-record's summary and output: the profile's metadata, the line
 * that says the recording started, --only and --strip-paths, the file
 * handed to the writer (outwriter.h), and the lines on stderr that sum
 * the recording up (what was written, what was lost and why, an empty
 * profile). */
#include "collector.h"
#include "target.h"
#include "../lib/util.h"
#include "../raw/signal.h"
#include "../version.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

/* Above this share of samples lost, the summary warns (as convert does). */
#define LOST_WARN_PERCENT 1.0

/* META of what was sampled and how often: event, mode, signal,
 * call_graph, sample_period or sample_freq (docs/raw-format.md). */
static void meta_sampling(struct collector *c)
{
	struct raw_profile *p = &c->prof;
	char buf[64];

	/* IBS by perf's full name: without cnt_ctl=1 ibs_op counts cycles. */
	raw_set_meta(p, "event", c->event == LEV_IBS_OP ? "ibs_op/cnt_ctl=1/"
						       : ladder_event_name(c->event));
	raw_set_meta(p, "mode", c->mode == MODE_LBR ? "lbr" : "stack-fp");
	raw_set_meta(p, "signal", signal_name(c->mode == MODE_LBR ? SIGNAL_BRANCH :
					      c->mode == MODE_EXEC ? SIGNAL_EXEC : SIGNAL_TIME));
	if (c->use_cg) {
		snprintf(buf, sizeof(buf), "%s,%u",
			 c->opt.call_graph == CG_AUTO ? "auto" : "dwarf",
			 c->opt.stack_size);
		raw_set_meta(p, "call_graph", buf);
	} else {
		raw_set_meta(p, "call_graph", "fp");
	}
	if (c->opt.period || c->event == LEV_AMD_BRS || c->mode == MODE_EXEC) {
		struct perf_event_attr a;

		sampling_attr(c, &a);
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)a.sample_period);
		raw_set_meta(p, "sample_period", buf);
	} else {
		snprintf(buf, sizeof(buf), "%lu", c->opt.freq);
		raw_set_meta(p, "sample_freq", buf);
		if (c->freq_asked) {	/* limit_rate lowered it */
			snprintf(buf, sizeof(buf), "%lu", c->freq_asked);
			raw_set_meta(p, "sample_freq_requested", buf);
		}
	}
}

/* META target: system-wide, pid N, or the command line (at most 511
 * bytes). */
static void meta_target(struct collector *c)
{
	char buf[512];

	if (c->opt.all) {
		raw_set_meta(&c->prof, "target", "system-wide");
	} else if (c->opt.pid) {
		snprintf(buf, sizeof(buf), "pid %d", (int)c->opt.pid);
		raw_set_meta(&c->prof, "target", buf);
	} else {
		size_t n = 0;

		buf[0] = '\0';
		for (char **a = c->opt.command; *a && n < sizeof(buf) - 1; a++)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s",
					      n ? " " : "", *a);
		raw_set_meta(&c->prof, "target", buf);
	}
}

void set_meta(struct collector *c)
{
	struct raw_profile *p = &c->prof;
	struct utsname u;
	char buf[512];
	time_t now = time(NULL);

	uname(&u);
	raw_set_meta(p, "tool", "pgoprof " PGOPROF_VERSION);
	raw_set_meta(p, "host", u.nodename);
	snprintf(buf, sizeof(buf), "%s %s %s", u.sysname, u.release, u.machine);
	raw_set_meta(p, "kernel", buf);
	meta_sampling(c);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	raw_set_meta(p, "start_time", buf);
	meta_target(c);
}

/* How the recording ends, for the line that starts it. */
static const char *stop_hint(const struct options *o)
{
	if (o->command)
		return "";
	return o->duration > 0 ? "; Ctrl-C to stop before -d ends it"
			       : "; Ctrl-C to stop";
}

/* n bytes for a message: "64 KiB", "21.3 MiB"; returns buf (32 bytes). */
static const char *size_str(char *buf, uint64_t n)
{
	if (n < (1u << 20))
		snprintf(buf, 32, "%.4g KiB", (double)n / 1024);
	else
		snprintf(buf, 32, "%.4g MiB", (double)n / 1048576);
	return buf;
}

/* DWARF stacks: the samples dropped for want of memory, by reason, in
 * one line, with the budget's split (nothing when none was dropped). */
static void report_budget(const struct collector *c)
{
	const struct raw_profile *p = &c->prof;
	uint64_t ring = raw_get_counter(p, "lost.ringbuf");
	uint64_t queue = raw_get_counter(p, "lost.unwind_backlog");
	uint64_t table = raw_get_counter(p, "lost.unwind_table");
	uint64_t kernel = raw_get_counter(p, "kernel_stacks.dropped");

	if (!ring && !queue && !table && !kernel)
		return;
	char all[32], rb[32], qb[32], tb[32];

	fprintf(stderr, "%s: memory budget %s (--mem-budget: ring 2 x %s, unwind queue %s, stack table %s): %llu samples dropped: %llu ring full, %llu unwind queue full, %llu stack table full; and the stacks of %llu samples in the kernel\n",
		progname, size_str(all, c->opt.mem_budget), size_str(rb, c->ring),
		size_str(qb, c->cg_budget.queue_bytes),
		size_str(tb, c->cg_budget.table_bytes),
		(unsigned long long)(ring + queue + table), (unsigned long long)ring,
		(unsigned long long)queue, (unsigned long long)table,
		(unsigned long long)kernel);
}

/* How the unwinds ended, when some did not reach the outermost frame. */
static void report_unwinding(const struct collector *c)
{
	uint64_t all = 0;
	char line[512];
	size_t n = 0;

	for (int i = 0; i < UNWIND_END_MAX; i++)
		all += c->cg.ends[i];
	for (int i = 0; i < UNWIND_END_MAX && n < sizeof(line); i++)
		if (i != UNWIND_COMPLETE && c->cg.ends[i])
			n += (size_t)snprintf(line + n, sizeof(line) - n, ", %llu %s",
					      (unsigned long long)c->cg.ends[i],
					      unwind_end_name[i]);
	if (n)
		fprintf(stderr, "%s: unwound %llu stacks: %llu to the outermost frame%s (counters unwind.*)\n",
			progname, (unsigned long long)all,
			(unsigned long long)c->cg.ends[UNWIND_COMPLETE], line);
}

/* --only: what was asked for and nothing else; when it was never
 * sampled, no object at all (never every object: the option is there so
 * that the others are not shared). */
static void keep_only(struct collector *c)
{
	uint8_t *none;

	if (!raw_keep_matching(&c->prof, c->opt.only, c->opt.nonly, "--only",
			       c->opt.output))
		return;
	none = xcalloc(c->prof.nobjs ? c->prof.nobjs : 1, 1);
	raw_keep_objects(&c->prof, none);
	free(none);
	warnx("--only: the profile is written without objects");
}

/* The profile's bytes go to the writer, which has the invoking user's
 * rights (outwriter.c); standard output is the caller's already. */
static int write_output(struct collector *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if (!strcmp(c->opt.output, "-"))
		return raw_write_file(&c->prof, "-");
	f = open_memstream(&buf, &len);
	if (!f)
		return err("cannot write %s: %s", c->opt.output, strerror(errno));
	rc = raw_write(&c->prof, f);
	if (fclose(f) || rc) {
		free(buf);
		return err("cannot write %s: out of memory", c->opt.output);
	}
	rc = outwriter_commit(&c->out, buf, len);
	free(buf);
	return rc;
}

/* Why threads that ran gave no samples: each has its own period. */
static void warn_periods(const struct collector *c, double cpu)
{
	char period[64];

	if (c->opt.period && c->mode == MODE_STACK)
		snprintf(period, sizeof(period), "%.3f ms", (double)c->opt.period / 1e6);
	else if (c->opt.period)
		snprintf(period, sizeof(period), "%llu cycles", c->opt.period);
	else
		snprintf(period, sizeof(period), "1/%lu s", c->opt.freq);
	warnx("warning: process %d gave no samples of user code, though its %zu threads ran %.2f s of CPU: each thread is sampled on its own period (%s of that thread's CPU time, perf -p does the same), and none ran that long; record with -a (a period per CPU), or lower the period with -c",
	      (int)c->opt.pid, c->nthreads, cpu, period);
}

/* An empty profile is said even with -q: a CI stage would build with it. */
static void warn_empty(const struct collector *c)
{
	double cpu = c->opt.pid && c->cpu0 >= 0 ?
		     target_cpu_seconds(c->opt.pid) - c->cpu0 : -1;

	if (c->prof.nobjs)
		return;
	/* 10 ms: more than /proc's clock ticks can round up to. */
	if (c->opt.pid && c->nthreads > 1 && cpu > 0.01)
		warn_periods(c, cpu);
	else if (c->opt.pid)
		warnx("warning: process %d%s gave no samples of user code: it was idle%s",
		      (int)c->opt.pid, c->opt.children ? " and its children" : "",
		      c->opt.children ? "" : ", or its children do the work (add --children to follow the ones it has)");
	else
		warnx("warning: no samples of user code were taken in %.1f s: %s",
		      elapsed(c), c->opt.all ? "the system was idle" :
		      "the command was idle or too short for the rate (raise -F)");
}

/* What the kernel side could not do as designed, one line each: children
 * not followed (new_tasks full), stack copies made page by page because
 * the kernel's vm_area_struct is laid out otherwise (bpf/record.bpf.c). */
static void report_kernel(const struct collector *c)
{
	uint64_t missed = raw_get_counter(&c->prof, "children.missed");
	uint64_t layout = raw_get_counter(&c->prof, "stack_copy.vma_layout");

	if (missed)
		fprintf(stderr, "%s: warning: %llu new processes of the target were not followed: the kernel's table of them was full (counter children.missed)\n",
			progname, (unsigned long long)missed);
	if (layout)
		fprintf(stderr, "%s: this kernel's vm_area_struct does not start with vm_start, vm_end: %llu stack copies were made page by page, up to the first page that could not be read (counter stack_copy.vma_layout)\n",
			progname, (unsigned long long)layout);
}

static void report(const struct collector *c)
{
	const struct raw_profile *p = &c->prof;
	uint64_t taken = raw_get_counter(p, CNT_SAMPLES), unattr = 0;
	char line[1024];
	size_t n = 0;

	unattr = raw_unattributed(p, line, sizeof(line));
	n = strlen(line);
	fprintf(stderr, "%s: wrote %s: %llu samples, %llu lost, %llu unattributed%s%s%s, %zu objects, %.1f s\n",
		progname, c->opt.output, (unsigned long long)taken,
		(unsigned long long)raw_get_counter(p, CNT_LOST),
		(unsigned long long)unattr, n ? " (" : "", n ? line : "",
		n ? ")" : "", p->nobjs, elapsed(c));
	uint64_t lost = raw_get_counter(p, CNT_LOST);

	if (taken && 100.0 * (double)lost / (double)taken > LOST_WARN_PERCENT)
		fprintf(stderr, "%s: warning: %llu of %llu samples (%.1f%%) lost: %s full; record with a lower -F, or give %s\n",
			progname, (unsigned long long)lost,
			(unsigned long long)taken, 100.0 * (double)lost / (double)taken,
			c->use_cg ? "the ring buffer or the memory budget was" : "the kernel's stack maps were",
			c->use_cg ? "a bigger --mem-budget (or --ring-size)"
			: c->legacy_fp ? "a bigger --max-stacks" : "a bigger --mem-budget (or --max-stacks)");
	if (c->use_cg) {
		report_budget(c);
		report_unwinding(c);
	}
	report_kernel(c);
}

void say_recording(const struct collector *c)
{
	char rate[64], on[64];

	if (c->opt.quiet)
		return;
	if (c->opt.period)
		snprintf(rate, sizeof(rate), "a sample every %llu events", c->opt.period);
	else
		snprintf(rate, sizeof(rate), "at %lu Hz", c->opt.freq);
	if (c->opt.all)
		snprintf(on, sizeof(on), "%d CPUs", c->ncpus);
	else
		snprintf(on, sizeof(on), "%zu thread%s and what %s start%s", c->nthreads,
			 c->nthreads == 1 ? "" : "s", c->nthreads == 1 ? "it" : "they",
			 c->nthreads == 1 ? "s" : "");
	fprintf(stderr, "%s: recording %s on %s%s\n", progname, rate, on,
		stop_hint(&c->opt));
	if (c->use_cg)
		fprintf(stderr, "%s: call graph %s: %u bytes of user stack per sample, unwound here (libdw)%s\n",
			progname, c->opt.call_graph == CG_AUTO ? "auto" : "dwarf",
			c->opt.stack_size, c->opt.call_graph == CG_AUTO ?
			"; frame pointers above the leaf where the file keeps them" : "");
}

int write_profile(struct collector *c)
{
	int rc;

	raw_drop_empty_objects(&c->prof);
	if (c->opt.nonly)
		keep_only(c);
	if (c->opt.strip_paths)
		raw_strip_paths(&c->prof);
	phase(c, "stacks collected");
	rc = write_output(c) ? 1 : 0;
	phase(c, "profile written");
	if (!rc && !c->opt.quiet)
		report(c);
	if (!rc)
		warn_empty(c);
	return rc;
}
