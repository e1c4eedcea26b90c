/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof-record's BPF load: the skeleton of bpf/record.bpf.c opened, only
 * the sampling program that is used loaded, every map sized (the ones of
 * the way used from --mem-budget, the others' to one entry), loaded with
 * maps allocated as they fill, or preallocated where the kernel (before
 * 6.1) insists; libbpf's lines kept for the messages that need them. */
#include "collector.h"
#include "record.skel.h"
#include "../lib/util.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* fp stacks: what one fp_counts entry takes in the kernel, at most: the
 * element (struct htab_elem, key, value: 72 bytes) in bpf_mem_alloc's
 * 96- or 128-byte class, and two bucket heads (16 bytes each; the buckets
 * are max_entries rounded up to a power of two) (kernel/bpf/hashtab.c). */
#define FP_ENTRY_BYTES 160
/* and its entries by default, at most: the old counts map's.  The kernel
 * allocates max_entries rounded up to a power of two bucket heads when it
 * creates the map; at 2^18 that took 40 ms here, at 2^17 7 ms. */
#define FP_ENTRIES_DEFAULT 131072

/* A power of two that buffers about half a second of samples on every
 * CPU (the collector reads it every SERVE_MS of collect.c, or when it is
 * a quarter full), within 8 MiB .. 256 MiB, and within an eighth of the
 * memory budget (libbpf maps the ring's data twice, for records that
 * wrap around: it shows twice in the collector's RSS). */
static uint32_t ring_bytes(const struct collector *c)
{
	double hz = c->opt.period ? 1e9 / (double)c->opt.period : (double)c->opt.freq;
	double want = hz * c->ncpus * (sizeof(struct stack_rec) + 1024.0 +
				      c->opt.stack_size) / 2;
	uint32_t size = 8u << 20;

	while (size < want && size < (256u << 20))
		size *= 2;
	while (size > c->opt.mem_budget / 8 && size > (uint32_t)sysconf(_SC_PAGESIZE))
		size /= 2;
	return size;
}

/* --mem-budget, DWARF stacks: the ring (twice, as mapped), then of what
 * is left two thirds for records waiting to be unwound and a third for
 * the table of unwound stacks. */
static void split_budget(struct collector *c)
{
	uint64_t rest;

	c->ring = c->opt.ring_size ? c->opt.ring_size : ring_bytes(c);
	rest = c->opt.mem_budget - 2ull * c->ring;	/* parse_options checked */
	c->cg_budget.queue_bytes = (size_t)(rest / 3 * 2);
	c->cg_budget.table_bytes = (size_t)(rest / 3);
}

/* Set-up of the stack-copy program, before the skeleton is loaded.
 * Without DWARF call graphs its program and maps are not loaded at all,
 * so that the fp path needs nothing newer from the kernel than before
 * (ring buffer 5.8, bpf_find_vma 5.17). */
static void configure_cg(struct collector *c)
{
	uint32_t ring;

	if (!c->use_cg) {
		bpf_program__set_autoload(c->skel->progs.on_stack_sample, false);
		bpf_map__set_autocreate(c->skel->maps.samples, false);
		bpf_map__set_autocreate(c->skel->maps.scratch, false);
		return;
	}
	split_budget(c);
	ring = c->ring;
	c->skel->rodata->stack_size = c->opt.stack_size;
	c->skel->rodata->with_fp_chain = c->opt.call_graph == CG_AUTO;
	c->skel->rodata->wakeup_bytes = ring / 4;
	bpf_map__set_max_entries(c->skel->maps.samples, ring);
	bpf_map__set_max_entries(c->skel->maps.scratch,
				 (uint32_t)libbpf_num_possible_cpus());
}

/* libbpf's own lines are kept and shown after pgoprof-record's message
 * only where they help (a verifier log), not for missing privileges,
 * which pgoprof-record says in one line. */
static char libbpf_log[8192];
static size_t libbpf_len;

static int libbpf_verbose;	/* -vv: every libbpf line, on stderr */

static int keep_libbpf_line(enum libbpf_print_level level, const char *fmt,
			    va_list ap)
{
	int n;

	if (libbpf_verbose)
		return vfprintf(stderr, fmt, ap);
	if (level == LIBBPF_DEBUG || libbpf_len >= sizeof(libbpf_log) - 1)
		return 0;
	n = vsnprintf(libbpf_log + libbpf_len, sizeof(libbpf_log) - libbpf_len, fmt, ap);
	if (n > 0)
		libbpf_len += (size_t)n;
	if (libbpf_len > sizeof(libbpf_log) - 1)
		libbpf_len = sizeof(libbpf_log) - 1;
	return 0;
}

/* The program attached to the sampling events. */
struct bpf_program *sampling_prog(const struct collector *c)
{
	struct record_bpf *s = c->skel;

	if (c->mode == MODE_LBR)
		return c->legacy_fp ? s->progs.on_lbr_sample_legacy : s->progs.on_lbr_sample;
	if (c->use_cg)
		return s->progs.on_stack_sample;
	return c->legacy_fp ? s->progs.on_sample_legacy : s->progs.on_sample;
}

/* fp stacks: --mem-budget split into the fp_stacks ring (twice, as
 * mapped), then half of the rest for fp_counts (FP_ENTRY_BYTES an entry,
 * at most FP_ENTRIES_DEFAULT or --max-stacks entries: more is refused)
 * and half for the table of frames.  The ring holds a quarter second of
 * samples on every CPU should all be of new stacks (the collector reads
 * it every SERVE_MS of collect.c, or when a quarter full), within
 * 256 KiB .. 64 MiB and an eighth of the budget. */
static void split_fp_budget(struct collector *c)
{
	double hz = c->opt.period ? 1e9 / (double)c->opt.period : (double)c->opt.freq;
	double want = hz * c->ncpus * sizeof(struct fp_stack_rec) / 4;
	uint64_t rest, entries;
	uint32_t size = 256u << 10;

	while (size < want && size < (64u << 20))
		size *= 2;
	while (size > c->opt.mem_budget / 8 && size > (uint32_t)sysconf(_SC_PAGESIZE))
		size /= 2;
	c->fp_ring = size;
	rest = c->opt.mem_budget - 2ull * size;
	entries = rest / 2 / FP_ENTRY_BYTES;
	if (c->opt.max_stacks > entries)
		die(2, "--max-stacks %u: %u entries of %d bytes are over half of --mem-budget (%llu bytes) less the ring (2 x %u): give a bigger --mem-budget",
		    c->opt.max_stacks, c->opt.max_stacks, FP_ENTRY_BYTES,
		    (unsigned long long)c->opt.mem_budget, size);
	c->fp_entries = c->opt.max_stacks ? c->opt.max_stacks :
			entries > FP_ENTRIES_DEFAULT ? FP_ENTRIES_DEFAULT :
			entries ? (uint32_t)entries : 1;
	c->fp_table = (size_t)(rest / 2);
}

/* Only the sampling program that is used is loaded (tests/lbrfold loads
 * them all, so that the verifier checks each on every test machine): the
 * verifier took 20 ms for the others.  The stack maps of the way that is
 * used are sized; the other's get one entry (or a page of ring).  Since
 * Linux 6.1 the hash maps are not preallocated (creating them cost a page
 * fault per page); kernels before (legacy_fp) refuse that in perf_event
 * programs, and fp stacks go through the kernel's stack map there. */
static void configure_fp(struct collector *c)
{
	struct record_bpf *s = c->skel;
	int kernel_counts = !c->use_cg;	/* fp stacks, or LBR mode's */
	uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE);
	struct bpf_program *used = sampling_prog(c);
	struct bpf_program *all[] = { s->progs.on_sample, s->progs.on_sample_legacy,
				      s->progs.on_lbr_sample, s->progs.on_lbr_sample_legacy,
				      s->progs.on_stack_sample };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		bpf_program__set_autoload(all[i], all[i] == used);
	if (c->opt.verbose > 1)		/* -vv: the verifier's statistics */
		bpf_program__set_log_level(used, 4);
	if (!c->legacy_fp) {
		bpf_map__set_map_flags(s->maps.targets, BPF_F_NO_PREALLOC);
		bpf_map__set_map_flags(s->maps.new_tasks, BPF_F_NO_PREALLOC);
	}
	if (kernel_counts && !c->legacy_fp) {
		split_fp_budget(c);
		bpf_map__set_max_entries(s->maps.fp_counts, c->fp_entries);
		bpf_map__set_max_entries(s->maps.fp_stacks, c->fp_ring);
		s->rodata->fp_wakeup_bytes = c->fp_ring / 4;
	} else {
		bpf_map__set_max_entries(s->maps.fp_counts, 1);
		bpf_map__set_max_entries(s->maps.fp_stacks, page);
	}
	if (kernel_counts && c->legacy_fp) {
		if (c->opt.max_stacks) {
			bpf_map__set_max_entries(s->maps.stacks, c->opt.max_stacks);
			bpf_map__set_max_entries(s->maps.counts, c->opt.max_stacks);
		}
	} else {
		bpf_map__set_max_entries(s->maps.stacks, 1);
		bpf_map__set_max_entries(s->maps.counts, 1);
	}
}

/* The maps of the other modes are created with one entry: the kernel
 * preallocates hash and stack maps whole, and creating the branch maps
 * (2 x 262144 entries), the frame-pointer stack map (65536 x 1016 bytes)
 * and counts took most of the start-up (bench/results/collector-startup.md).
 * In branch-record mode the branch maps are allocated as they fill where
 * the kernel allows it (6.1+, as configure_fp): a key that finds no memory
 * goes through the spill ring like one that finds the map full. */
static void shrink_unused(struct collector *c)
{
	struct record_bpf *s = c->skel;

	if (c->mode != MODE_LBR) {
		bpf_map__set_max_entries(s->maps.branches, 1);
		bpf_map__set_max_entries(s->maps.ranges, 1);
		bpf_map__set_max_entries(s->maps.lbr_spill, (uint32_t)sysconf(_SC_PAGESIZE));
	} else if (!c->legacy_fp) {
		bpf_map__set_map_flags(s->maps.branches, BPF_F_NO_PREALLOC);
		bpf_map__set_map_flags(s->maps.ranges, BPF_F_NO_PREALLOC);
	}
	configure_fp(c);
}

/* The skeleton opened, configured and loaded: 0 or libbpf's -errno. */
static int load_once(struct collector *c)
{
	int e;

	c->skel = record_bpf__open();
	if (!c->skel)
		return -errno;
	c->skel->rodata->filter_pid = !c->opt.all;
	c->skel->rodata->self_pid = (uint32_t)getpid();
	configure_cg(c);
	shrink_unused(c);
	phase(c, "BPF object opened");
	e = record_bpf__load(c->skel);
	phase(c, "BPF loaded (maps, verifier)");
	return e;
}

/* Before Linux 6.1 the verifier refuses a map that is not preallocated
 * in a perf_event program: the load again without.  0 or libbpf's
 * -errno. */
static int load_preallocated(struct collector *c)
{
	int prealloc, e;

	record_bpf__destroy(c->skel);
	c->skel = NULL;
	c->legacy_fp = 1;
	/* The verifier's words (kernel/bpf/verifier.c,
	 * check_map_prog_compatibility, before 6.1). */
	prealloc = !!strstr(libbpf_log, "preallocated");
	libbpf_len = 0;
	libbpf_log[0] = '\0';
	e = load_once(c);
	if (!e && !c->opt.quiet)
		fprintf(stderr, "%s: %s: the maps are preallocated%s (a slower start)\n",
			progname, prealloc ?
			"this kernel refuses maps that are not preallocated in perf_event programs (before Linux 6.1)" :
			"the BPF load with maps allocated as they fill failed (libbpf -v: pgoprof-record -vv)",
			c->use_cg ? "" : ", and fp stacks go through the kernel's stack map");
	return e;
}

int load_bpf(struct collector *c)
{
	int e;

	libbpf_verbose = c->opt.verbose > 1;
	libbpf_set_print(keep_libbpf_line);
	c->legacy_fp = c->opt.fp_stack_map;
	e = load_once(c);
	if (e && e != -EPERM && e != -EACCES && !c->legacy_fp)
		e = load_preallocated(c);
	if (!c->skel)
		return err("cannot open the BPF object: %s", strerror(-e));
	if (e && e != -EPERM && e != -EACCES && libbpf_len)
		fprintf(stderr, "%s: libbpf said:\n%s", progname, libbpf_log);
	if (e)
		return err("the kernel refused the BPF program (%s): run as root or with CAP_BPF + CAP_PERFMON, on a kernel with BTF (CONFIG_DEBUG_INFO_BTF)",
			   strerror(-e));
	e = record_bpf__attach(c->skel);
	if (e)
		return err("cannot attach to sched_process_fork (%s): children of the target would be missed",
			   strerror(-e));
	phase(c, "fork tracepoint attached");
	return 0;
}
