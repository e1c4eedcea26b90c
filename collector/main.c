/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof-record: the privileged collector.  Samples the targets with the
 * BPF programs of bpf/record.bpf.c attached to perf events: with -a, one
 * event per online CPU; else one event on each thread of the targets (the
 * command, -p PID and with --children its descendants), inherited by the
 * tasks they start, so that only the targets are interrupted.  The event
 * is the sampler ladder's (probe.h): branch records, an execution event or
 * cpu-clock.  Follows the mappings through the side-band, and writes the
 * raw profile.  Stacks come from frame pointers (aggregated in the kernel)
 * or, for DWARF call graphs, from copies of the user stack unwound here
 * (dwarfcg.c) once privileges are dropped.  The phases are in the files
 * that collector.h lists; this one runs them in order. */
#include "collector.h"
#include "record.skel.h"
#include "privdrop.h"
#include "../lib/util.h"

#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* -v: one line per phase, in milliseconds since main() was entered, so
 * that slow start-up or teardown shows where it goes
 * (bench/collector-startup.sh reads these lines). */
void phase(const struct collector *c, const char *what)
{
	struct timespec t;

	if (!c->opt.verbose)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t);
	fprintf(stderr, "%s: %8.1f ms %s\n", progname,
		(double)(t.tv_sec - c->tstart.tv_sec) * 1e3 +
		(double)(t.tv_nsec - c->tstart.tv_nsec) / 1e6, what);
}

/* -v: when main() was entered, on the wall clock (the command's own
 * clock in bench/collector-startup.sh), so that the time before it shows. */
static void verbose_start(const struct collector *c)
{
	struct timespec mono, real;

	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	fprintf(stderr, "%s: %8.1f ms main() entered at %.6f (CLOCK_REALTIME)\n",
		progname, (double)(mono.tv_sec - c->tstart.tv_sec) * 1e3 +
		(double)(mono.tv_nsec - c->tstart.tv_nsec) / 1e6,
		(double)real.tv_sec + real.tv_nsec / 1e9);
}

/* Everything opened, stopped and freed, in an order that works after a
 * failure at any phase; the command waited for. */
static void teardown(struct collector *c)
{
	outwriter_abort(&c->out);
	close_sampling(c);
	if (c->use_cg)
		dwarfcg_free(&c->cg);
	sideband_close(&c->sb);
	ring_buffer__free(c->spill_rb);
	ring_buffer__free(c->fp_rb);
	fpstacks_free(&c->fps);
	free(c->spilled);
	if (c->pidfd >= 0)
		close(c->pidfd);
	record_bpf__destroy(c->skel);
	reap_command(c);
	maps_free(&c->maps);
	raw_free(&c->prof);
	free_options(&c->opt);
	free(c->cpus);
	free(c->kids);
	phase(c, "done");
}

int main(int argc, char **argv)
{
	struct collector c = { .go = -1, .pidfd = -1 };
	int rc;

	progname = "pgoprof-record";
	clock_gettime(CLOCK_MONOTONIC, &c.tstart);
	raw_init(&c.prof);
	maps_init(&c.maps, &c.prof);
	parse_options(argc, argv, &c.opt);
	if (c.opt.probe)
		return probe_only(&c);
	if (c.opt.verbose)
		verbose_start(&c);
	/* Launch: the invoker's rights, the writer, the mode, the command
	 * forked and stopped before its first instruction. */
	if (check_launch(&c) || choose_sampling(&c))
		return 1;
	if (c.opt.command)
		c.child = spawn_stopped(c.opt.command, &c.go);
	/* Load, open the events: everything privileged is open before the
	 * files of the target are parsed (side-band build-IDs, the
	 * unwinder's ELF and CFI). */
	rc = load_bpf(&c) || output_ready(&c) || follow_targets(&c) ||
	     open_events(&c) || open_readers(&c) || drop_privileges();
	if (!rc) {
		start_recording(&c);
		collect(&c);
		rc = write_profile(&c);
	} else if (c.go >= 0) {
		close(c.go);	/* the command exits 127 without running */
	}
	teardown(&c);
	return exit_status(&c, rc);
}
