/* SPDX-License-Identifier: GPL-2.0-only */
/* The branch-stack rule, both sides on the same records: synthesized
 * branch stacks of several processes are folded by the kernel side
 * (bpf/record.bpf.c fold_branches, through the test program lbr_fold_test
 * and BPF_PROG_TEST_RUN) and collected into a raw profile by the
 * collector's own code (collector/lbrcollect.c), and the same records go
 * into a perf.data file (synth/perfwrite.c) for 'pgoprof import'
 * (import/samples.c samples_add_branches).  tests/integration/lbrfold.sh
 * compares the branches and ranges of the two.
 *
 *   lbrfold [--map-entries N] PREFIX
 *
 * writes PREFIX.raw and PREFIX.perf.data and prints one line
 * "samples S records R spilled P lost L" (the BPF side's counters).
 * --map-entries N: the branches and ranges maps hold N entries, so that
 * the rest goes through the spill ring.  Needs root (BPF). */
#include <linux/types.h>
#include "../../bpf/record.h"
#include "record.skel.h"
#include "../../collector/lbrcollect.h"
#include "../../lib/util.h"
#include "../bpftest.h"
#include "../../raw/rawprof.h"
#include "../../synth/perfwrite.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define NPIDS 3
#define NSAMPLES 60		/* random ones per process */
#define NREPEAT 50		/* times one sample is repeated */

/* Regions of a process's address space: two mappings of one object (its
 * text and a second executable segment), a library, and no mapping. */
enum { R_TEXT, R_TEXT2, R_LIB, R_NONE, R_COUNT };

static const uint8_t id_a[20] = { 0xa0, 0x1f, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
				  0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e };
static const uint8_t id_b[20] = { 0xb0, 0x1f, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16,
				  0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e };

struct region {
	uint64_t start, len, pgoff;
	const uint8_t *id;	/* NULL: not mapped */
	const char *path;
};

struct sample {
	uint32_t pid;
	uint32_t n;
	struct pw_branch e[MAX_LBR];	/* newest first */
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(uint64_t n)
{
	return xorshift_next(&rng) % n;
}

static uint32_t pid_of(int k)
{
	return 3001 + (uint32_t)k;
}

/* Process k's regions: the same objects at other addresses per process,
 * as ASLR places them. */
static void regions(int k, struct region r[R_COUNT])
{
	uint64_t base = 0x555500000000ull + (uint64_t)k * 0x1000000;

	r[R_TEXT] = (struct region){ base + 0x1000, 0x4000, 0x1000, id_a, "/lbrfold/a.out" };
	r[R_TEXT2] = (struct region){ base + 0x20000, 0x2000, 0x9000, id_a, "/lbrfold/a.out" };
	r[R_LIB] = (struct region){ 0x7f0000000000ull + (uint64_t)k * 0x100000, 0x3000, 0,
				    id_b, "/lbrfold/libb.so" };
	r[R_NONE] = (struct region){ base + 0x10000, 0x1000, 0, NULL, NULL };
}

/* An address in a region, from a small pool of places so that the same
 * branches and ranges recur: mostly the text, some of the others. */
static uint64_t place(const struct region r[R_COUNT])
{
	static const int pick[] = { R_TEXT, R_TEXT, R_TEXT, R_TEXT, R_TEXT,
				    R_LIB, R_LIB, R_TEXT2, R_NONE };
	const struct region *g = &r[pick[rnd(sizeof(pick) / sizeof(pick[0]))]];

	return g->start + (rnd(24) * g->len / 24 & ~(uint64_t)3);
}

/* A branch stack of n records: from a place, straight-line code of a few
 * bytes to the next branch's source (now and then a source anywhere),
 * then a jump to another place.  Made oldest first, stored newest first. */
static void make_sample(struct sample *s, int k, uint32_t n)
{
	struct region r[R_COUNT];
	uint64_t cur;

	regions(k, r);
	cur = place(r);
	s->pid = pid_of(k);
	s->n = n;
	for (uint32_t i = 0; i < n; i++) {
		struct pw_branch *b = &s->e[n - 1 - i];

		b->from = rnd(8) ? cur + 4 * rnd(4) : place(r);
		b->to = place(r);
		b->type = 0;
		cur = b->to;
	}
}

/* Every process: random lengths, one of 1 record, one of a full 32, and
 * one sample repeated. */
static struct sample *make_samples(size_t *count)
{
	size_t per = NSAMPLES + 2 + NREPEAT, n = 0;
	struct sample *s = xcalloc(NPIDS * per, sizeof(*s));

	for (int k = 0; k < NPIDS; k++) {
		for (int i = 0; i < NSAMPLES; i++)
			make_sample(&s[n++], k, 1 + (uint32_t)rnd(MAX_LBR));
		make_sample(&s[n++], k, 1);
		make_sample(&s[n++], k, MAX_LBR);
		make_sample(&s[n], k, 12);
		for (int i = 1; i < NREPEAT; i++)
			s[n + i] = s[n];
		n += NREPEAT;
	}
	*count = n;
	return s;
}

/* ---- the kernel side and the collector's ---- */

static int on_spill(void *ctx, void *data, size_t size)
{
	struct maptable *maps = ctx;

	if (size >= sizeof(struct lbr_spill))
		lbr_add_spilled(maps->prof, maps, data);
	return 0;
}

static int run_fold(struct record_bpf *skel, struct ring_buffer *rb,
		    const struct sample *s)
{
	struct lbr_fold_ctx ctx = { s->pid, s->n, { { 0 } } };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx));

	for (uint32_t i = 0; i < s->n; i++) {
		ctx.e[i][0] = s->e[i].from;
		ctx.e[i][1] = s->e[i].to;
	}
	if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.lbr_fold_test), &opts))
		return err("BPF_PROG_TEST_RUN of lbr_fold_test: %s", strerror(errno));
	if (opts.retval)
		return err("lbr_fold_test returned %u", opts.retval);
	ring_buffer__consume(rb);
	return 0;
}

static struct record_bpf *load(unsigned map_entries)
{
	struct record_bpf *skel = record_bpf__open();

	if (!skel) {
		err("cannot open the BPF skeleton: %s", strerror(errno));
		return NULL;
	}
	bpf_program__set_autoload(skel->progs.lbr_fold_test, true);
	/* As pgoprof-record's branch-record mode creates them (6.1+). */
	bpf_map__set_map_flags(skel->maps.branches, BPF_F_NO_PREALLOC);
	bpf_map__set_map_flags(skel->maps.ranges, BPF_F_NO_PREALLOC);
	if (map_entries) {
		bpf_map__set_max_entries(skel->maps.branches, map_entries);
		bpf_map__set_max_entries(skel->maps.ranges, map_entries);
	}
	if (record_bpf__load(skel)) {
		err("cannot load the BPF programs: %s", strerror(errno));
		record_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

/* The samples through the kernel side and the collector into raw. */
static int bpf_side(const struct sample *s, size_t n, unsigned map_entries,
		    const char *raw)
{
	struct raw_profile p;
	struct maptable maps;
	struct record_bpf *skel = load(map_entries);
	struct ring_buffer *rb = NULL;
	uint64_t records = 0;
	int rc = -1;

	if (!skel)
		return -1;
	raw_init(&p);
	maps_init(&maps, &p);
	for (int k = 0; k < NPIDS; k++) {
		struct region r[R_COUNT];

		regions(k, r);
		for (int i = 0; i < R_COUNT; i++)
			if (r[i].id)
				maps_add(&maps, (pid_t)pid_of(k), r[i].start, r[i].len,
					 r[i].pgoff, r[i].id, 20, r[i].path, 0, 0);
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.lbr_spill), on_spill, &maps, NULL);
	if (!rb) {
		err("cannot read the spill ring: %s", strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (run_fold(skel, rb, &s[i]))
			goto out;
		records += s[i].n;
	}
	lbr_collect_map(&p, &maps, bpf_map__fd(skel->maps.branches), 0);
	lbr_collect_map(&p, &maps, bpf_map__fd(skel->maps.ranges), 1);
	raw_drop_empty_objects(&p);
	printf("samples %zu records %" PRIu64 " spilled %" PRIu64 " lost %" PRIu64 "\n",
	       n, records, stat_sum(skel, STAT_LBR_SPILLED),
	       stat_sum(skel, STAT_BRANCHES_FULL) + stat_sum(skel, STAT_RANGES_FULL));
	rc = raw_write_file(&p, raw) ? -1 : 0;
out:
	ring_buffer__free(rb);
	record_bpf__destroy(skel);
	maps_free(&maps);
	raw_free(&p);
	return rc;
}

/* ---- the same records as perf.data ---- */

static int perf_side(const struct sample *s, size_t n, const char *path)
{
	struct perf_event_attr attr;
	struct pwbuf b = { 0 };
	uint64_t data_off, hdr[10], t = 1;
	FILE *f;
	int rc = 0;

	pw_lbr_attr(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 100003, 0);
	data_off = pw_file_header(&b, &attr);
	for (int k = 0; k < NPIDS; k++) {
		struct region r[R_COUNT];

		regions(k, r);
		pw_comm(&b, pid_of(k), "lbrfold", 0);
		for (int i = 0; i < R_COUNT; i++) {
			struct pw_map m = { r[i].start, r[i].len, r[i].pgoff, 0, 0, 0,
					    PROT_READ | PROT_EXEC, MAP_PRIVATE,
					    r[i].path, r[i].id, 20 };

			if (r[i].id)
				pw_mmap2(&b, pid_of(k), &m, 0);
		}
	}
	for (size_t i = 0; i < n; i++)
		pw_sample(&b, s[i].pid, s[i].e[0].to, t++, 100003, s[i].e, s[i].n);
	pw_features(&b, data_off, NULL, 0, hdr);
	memcpy(b.p + 24, hdr, sizeof(hdr));
	f = fopen(path, "we");
	if (!f || fwrite(b.p, 1, b.n, f) != b.n)
		rc = err("cannot write %s: %s", path, strerror(errno));
	if (f && fclose(f) && !rc)
		rc = err("cannot write %s: %s", path, strerror(errno));
	free(b.p);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned map_entries = 0;
	char raw[4096], data[4096];
	struct sample *s;
	size_t n;
	int rc;

	progname = "lbrfold";
	if (argc == 4 && !strcmp(argv[1], "--map-entries")) {
		map_entries = (unsigned)strtoul(argv[2], NULL, 10);
		argv += 2;
		argc -= 2;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: lbrfold [--map-entries N] PREFIX\n");
		return 2;
	}
	snprintf(raw, sizeof(raw), "%s.raw", argv[1]);
	snprintf(data, sizeof(data), "%s.perf.data", argv[1]);
	s = make_samples(&n);
	rc = perf_side(s, n, data) || bpf_side(s, n, map_entries, raw);
	free(s);
	return rc ? 1 : 0;
}
