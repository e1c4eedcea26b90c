/* SPDX-License-Identifier: GPL-2.0-only */
/* lbrgen: synthesized branch-record samples of a binary as a perf.data
 * file, fast, for conversion benchmarks at up to 10^7 samples.
 *
 * The samples are those of the random walk of synth/walk.c (as
 * test_lbr's): 32 branch records each, the PIE at 0x555555554000, calls
 * through the PLT into a pretend libc (/pretend/libc.so.6, build-ID
 * eeeeeeeeeeeeeeee) that calls back.  The perf.data is what
 * "perf record -e cycles:u -b" writes: the header, one attribute
 * (IP|TID|TIME|PERIOD|BRANCH_STACK, branches USER|ANY, sample_id_all), COMM,
 * MMAP2 records with build-IDs for the binary and the pretend libc, the
 * samples with a FINISHED_ROUND every 4096, then the HEADER_BUILD_ID and
 * HEADER_BRANCH_STACK features.  The records are streamed (memory stays
 * bounded at any sample count) into a temporary renamed at the end.
 *
 * --callchain writes stack samples of the same walk instead, as
 * "perf record -e cycles:u -g" (frame pointers) would: IP|TID|TIME|PERIOD|
 * CALLCHAIN, each chain PERF_CONTEXT_USER, the ip (an instruction of the
 * straight code after the taken branch where the LBR sample would be),
 * then the return addresses of the walk's shadow stack, innermost first
 * (those of callbacks from the pretend libc in the pretend libc); no
 * HEADER_BRANCH_STACK.
 *
 * --raw FILE writes the same samples as a pgoprof raw profile (IP
 * samples, taken branches and the fall-through ranges between them, or
 * with --callchain IP samples and call edges, by the rules of pgoprof
 * import), to check an importer against.
 *
 * Build: make build/bench/lbrgen */
#include "../synth/walk.h"
#include "../synth/perfwrite.h"
#include "../lib/util.h"
#include "../raw/rawprof.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define PID 4242
#define PERIOD 100003
#define ROUND 4096	/* samples between FINISHED_ROUND records */
#define MAX_CHAIN 128

struct gen {
	struct pwbuf b;
	uint64_t samples;
	int failed;
	/* the two mappings: [start, end) at file offset pgoff */
	struct pw_map map[2];
	/* --raw */
	struct raw_profile *raw;
	uint32_t obj[2];
	const uint8_t *id[2];
	size_t id_len[2];
};

/* Mapping index and file offset of a runtime address, or -1. */
static int resolve(const struct gen *g, uint64_t a, uint64_t *off)
{
	for (int i = 0; i < 2; i++)
		if (a >= g->map[i].start && a - g->map[i].start < g->map[i].len) {
			*off = a - g->map[i].start + g->map[i].pgoff;
			return i;
		}
	return -1;
}

/* Every ROUND samples: keep memory bounded (objects are sorted by
 * build-ID). */
static void raw_round(struct gen *g)
{
	if (g->samples % ROUND)
		return;
	raw_normalize(g->raw);
	for (int i = 0; i < 2; i++)
		g->obj[i] = (uint32_t)raw_find_object(g->raw, g->id[i], (uint32_t)g->id_len[i]);
}

/* A sample's IP (the samples are counted once at the end): the mapping
 * index of ip (its file offset in *off), or -1. */
static int raw_ip(struct gen *g, uint64_t ip, uint64_t *off)
{
	int k = resolve(g, ip, off);

	if (k >= 0)
		raw_add_ip(&g->raw->objs[g->obj[k]], *off, 1);
	else
		raw_add_counter(g->raw, CNT_UNATTR "no_mapping", 1);
	return k;
}

/* pgoprof import's rules (import/samples.c add_stack, samples_add_branches). */
static void raw_sample(struct gen *g, uint64_t ip, const uint64_t *from,
		       const uint64_t *to)
{
	struct raw_profile *p = g->raw;
	uint64_t off, f = 0, t = 0, e = 0;	/* e: the newer branch's source */
	int pf = -1;			/* and its mapping */

	raw_ip(g, ip, &off);
	for (int i = 0; i < WALK_LBR; i++) {
		int of = resolve(g, from[i], &f), ot = resolve(g, to[i], &t);

		if (of >= 0 && ot >= 0)
			raw_add_branch(&p->objs[g->obj[of]], f, g->obj[ot], t, 1);
		else
			raw_add_counter(p, "branches.unattributed", 1);
		if (i > 0) {
			if (ot >= 0 && pf == ot)
				raw_add_range(&p->objs[g->obj[ot]], t, e, 1);
			else
				raw_add_counter(p, "ranges.unattributed", 1);
		}
		pf = of;
		e = f;
	}
	raw_round(g);
}

/* pgoprof import's rules for a call chain (raw_add_sampled_stack): the
 * leaf is an IP sample, each return address an edge, the whole a stack. */
static void raw_stack(struct gen *g, uint64_t ip, const uint64_t *ret, size_t n)
{
	struct raw_frame fr[RAW_STACK_DEPTH_MAX];
	uint32_t nf = 0;
	uint64_t lost;

	for (size_t i = 0; i <= n && nf < RAW_STACK_DEPTH_MAX; i++) {
		struct raw_frame *f = &fr[nf++];
		int k = resolve(g, i ? ret[i - 1] : ip, &f->offset);

		if (k >= 0) {
			f->obj = g->obj[k];
			continue;
		}
		*f = (struct raw_frame){ RAW_FRAME_UNKNOWN, 0 };
		if (!i)
			raw_add_counter(g->raw, CNT_UNATTR "no_mapping", 1);
	}
	lost = raw_add_sampled_stack(g->raw, fr, nf, 1);
	if (lost)
		raw_add_counter(g->raw, "edges.unattributed", lost);
	raw_round(g);
}

/* After a sample: a FINISHED_ROUND every ROUND, and a flush when due. */
static void sampled(struct gen *g)
{
	if (g->samples % ROUND == 0)
		pw_finished_round(&g->b);
	if (pw_maybe_flush(&g->b) < 0)
		g->failed = 1;
}

static void sink(void *arg, uint64_t ip, const uint64_t *from, const uint64_t *to)
{
	struct gen *g = arg;
	struct pw_branch br[WALK_LBR];

	for (int i = 0; i < WALK_LBR; i++)
		br[i] = (struct pw_branch){ from[i], to[i], PERF_BR_UNKNOWN };
	g->samples++;
	pw_sample(&g->b, PID, ip, 1000000 + g->samples * 1000, PERIOD, br, WALK_LBR);
	sampled(g);
	if (g->raw)
		raw_sample(g, ip, from, to);
}

static void stack_sink(void *arg, uint64_t ip, const uint64_t *ret, size_t n)
{
	struct gen *g = arg;
	uint64_t chain[2 + MAX_CHAIN];

	if (n > MAX_CHAIN)
		n = MAX_CHAIN;
	chain[0] = PERF_CONTEXT_USER;
	chain[1] = ip;
	memcpy(chain + 2, ret, n * sizeof(*ret));
	g->samples++;
	pw_sample_callchain(&g->b, PID, ip, 1000000 + g->samples * 1000, PERIOD,
			    chain, n + 2);
	sampled(g);
	if (g->raw)
		raw_stack(g, ip, ret, n);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: lbrgen [-n SAMPLES] [-s SEED] [-o OUT.perf.data] [--raw OUT.raw]\n"
"              [--callchain] BINARY\n"
"Synthesize branch-record (LBR) samples of an x86-64 BINARY by a random walk\n"
"over its machine code (synth/walk.c) and write them as a perf.data\n"
"file, as \"perf record -e cycles:u -b\" would for BINARY run as a PIE at\n"
"0x555555554000 with a pretend libc: 32 branches a sample.\n"
"  -g, --callchain  stack samples of the same walk instead, as\n"
"                   \"perf record -e cycles:u -g\" would: a frame-pointer\n"
"                   call chain a sample (the ip, then the return addresses)\n"
"  -n, --samples N  samples (default 100000)\n"
"  -s, --seed N     seed of the walk (default 1): the same seed, the same file\n"
"  -o, --output F   the perf.data to write (default lbrgen.perf.data)\n"
"      --old-build-ids  build-IDs as perf before 5.x wrote them: none in\n"
"                   MMAP2, zero-padded to 20 bytes with no size in\n"
"                   HEADER_BUILD_ID\n"
"      --raw F      also write the samples as a pgoprof raw profile (what\n"
"                   \"pgoprof import\" makes of the perf.data)\n"
"  -q, --quiet      no summary on stderr\n"
"  -h, --help       this text\n"
"Readers: perf script -F ip,brstack --show-mmap-events (--callchain:\n"
"perf script -F ip,sym), pgoprof import, create_llvm_prof / create_gcov\n"
"(AutoFDO, --callchain with --use_lbr=false; the binary needs DWARF 4).\n");
}

static uint64_t number(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || !*s || *end || *s == '-')
		die(1, "bad %s '%s'", what, s);
	return v;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "samples", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "raw", required_argument, NULL, 'r' },
		{ "callchain", no_argument, NULL, 'g' },
		{ "old-build-ids", no_argument, NULL, 'B' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *out = "lbrgen.perf.data", *raw_path = NULL, *binary;
	uint64_t samples = 100000, seed = 1, data_off, hdr[10];
	struct perf_event_attr attr;
	struct raw_profile raw;
	struct pw_build_id ids[2];
	struct outfile o;
	struct walker *w;
	const struct elfinfo *ei;
	struct gen g = { 0 };
	char real[PATH_MAX];
	int c, quiet = 0, callchain = 0, old_ids = 0;
	double t0;

	progname = "lbrgen";
	while ((c = getopt_long(argc, argv, "n:s:o:gqh", lopts, NULL)) != -1) {
		switch (c) {
		case 'n': samples = number(optarg, "sample count"); break;
		case 's': seed = number(optarg, "seed"); break;
		case 'o': out = optarg; break;
		case 'r': raw_path = optarg; break;
		case 'g': callchain = 1; break;
		case 'B': old_ids = 1; break;
		case 'q': quiet = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 1;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return 1;
	}
	binary = argv[optind];
	if (!realpath(binary, real))
		die(1, "%s: %s", binary, strerror(errno));
	w = walk_open(real, seed);
	if (!w)
		return 1;
	ei = walk_elf(w);
	t0 = now();

	/* The binary's executable segment, page-aligned as mmap maps it, and
	 * the pretend libc up to its last function. */
	g.map[0] = (struct pw_map){
		.start = WALK_BASE + (ei->seg_vaddr & ~(uint64_t)0xfff),
		.len = (ei->seg_size + (ei->seg_vaddr & 0xfff) + 0xfff) & ~(uint64_t)0xfff,
		.pgoff = ei->seg_off & ~(uint64_t)0xfff,
		.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE, .path = real,
		.build_id = ei->build_id_len && !old_ids ? ei->build_id : NULL,
		.build_id_len = ei->build_id_len,
	};
	g.map[1] = (struct pw_map){
		.start = WALK_EXT,
		.len = (walk_ext_end(w) - WALK_EXT + 0xfff) & ~(uint64_t)0xfff,
		.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE,
		.path = WALK_EXT_PATH, .build_id = old_ids ? NULL : WALK_EXT_ID,
		.build_id_len = WALK_EXT_ID_LEN,
	};
	g.id[0] = ei->build_id;
	g.id_len[0] = ei->build_id_len;
	g.id[1] = WALK_EXT_ID;
	g.id_len[1] = WALK_EXT_ID_LEN;
	if (raw_path) {
		raw_init(&raw);
		g.raw = &raw;
		for (int i = 0; i < 2; i++)
			g.obj[i] = raw_object(&raw, g.id[i], (uint32_t)g.id_len[i], g.map[i].path);
	}

	if (outfile_open(&o, out) < 0) {
		walk_close(w);
		return 1;
	}
	g.b.f = o.f;
	if (callchain)
		pw_callchain_attr(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, PERIOD);
	else
		pw_lbr_attr(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, PERIOD, 0);
	data_off = pw_file_header(&g.b, &attr);
	pw_comm(&g.b, PID, real, 0);
	pw_mmap2(&g.b, PID, &g.map[0], 0);
	pw_mmap2(&g.b, PID, &g.map[1], 0);
	if (callchain)
		walk_run_stacks(w, samples, stack_sink, &g);
	else
		walk_run(w, samples, sink, &g);
	pw_finished_round(&g.b);
	for (int i = 0; i < 2; i++)
		ids[i] = (struct pw_build_id){ g.map[i].path, g.id[i], g.id_len[i],
					       old_ids };
	pw_features_ex(&g.b, data_off, ids, ei->build_id_len ? 2 : 0, !callchain, hdr);
	if (g.failed || pw_flush(&g.b) < 0 || fseek(o.f, 24, SEEK_SET) ||
	    fwrite(hdr, sizeof(hdr), 1, o.f) != 1) {
		err("cannot write %s: %s", out, strerror(errno));
		outfile_abort(&o);
		walk_close(w);
		return 1;
	}
	free(g.b.p);
	if (outfile_commit(&o) < 0) {
		walk_close(w);
		return 1;
	}
	if (!quiet) {
		double t = now() - t0;

		fprintf(stderr, "lbrgen: %" PRIu64 " samples in %.2f s (%.0f/s), %s: %" PRIu64
			" bytes (%.0f a sample)\n", samples, t, samples / (t > 0 ? t : 1e-9),
			out, g.b.flushed, samples ? (double)g.b.flushed / samples : 0.0);
	}
	walk_close(w);
	if (raw_path) {
		char val[32];
		int rc;

		raw_normalize(&raw);
		raw_set_meta(&raw, "tool", "lbrgen (pgoprof bench)");
		raw_set_meta(&raw, "mode", callchain ? "stack-synth" : "lbr-synth");
		raw_set_meta(&raw, "event", "cycles:u");
		snprintf(val, sizeof(val), "%d", PERIOD);
		raw_set_meta(&raw, "sample_period", val);
		raw_add_counter(&raw, CNT_SAMPLES, g.samples);
		raw_add_counter(&raw, CNT_LOST, 0);
		rc = raw_write_file(&raw, raw_path);
		raw_free(&raw);
		if (rc)
			return 1;
	}
	return 0;
}
