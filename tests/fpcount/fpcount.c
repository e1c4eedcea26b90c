/* SPDX-License-Identifier: GPL-2.0-only */
/* Frame-pointer stacks counted in the kernel (bpf/record.bpf.c
 * count_frames, through the test program fp_count_test and
 * BPF_PROG_TEST_RUN) and their frames taken back by the collector's code
 * (collector/fpstacks.c), against the same synthesized samples counted
 * here: every (process, stack) must come back with its exact count and
 * frames, or be counted lost by reason, sample for sample.
 *
 *   fpcount [--map-entries N] [--ring BYTES] [--table BYTES] [--collide]
 *
 * --map-entries N: fp_counts holds N keys, the other stacks' samples must
 * be lost.counts_map (STAT_COUNTS_FULL); --ring BYTES: the fp_stacks ring,
 * read only at the end, so that new stacks' frames overflow it
 * (STAT_FRAMES_UNSENT; their samples are lost.stack_frames); --table
 * BYTES: the collector's table of frames takes at most BYTES, the
 * stacks it refuses are lost.stack_frames as well; --collide: a
 * key is made beforehand with the hash of one stack and another check, so
 * that stack's samples must all be lost.stack_hash.  Prints one line:
 * "samples S counted C keys K full F unsent U frames_lost L hash H
 * loaded P" (P: the sampling programs the verifier took) and exits 0 when
 * everything matched, else 1 with the first mismatch.  Needs root (BPF). */
#include <linux/types.h>
#include "../../bpf/record.h"
#include "record.skel.h"
#include "../../collector/fpstacks.h"
#include "../../lib/util.h"
#include "../bpftest.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPIDS 3
#define NSTACKS 150		/* per process */
#define MAXREP 12

struct stack {
	uint32_t pid, n, reps;
	uint64_t ips[MAX_STACK_DEPTH];
};

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t rnd(uint64_t n)
{
	return xorshift_next(&rng) % n;
}

/* Stacks of 1 to 127 frames; process 2's first stacks are process 0's
 * frames (the same code in another process is another key); stacks that
 * share a prefix, as real ones do. */
static struct stack *make_stacks(size_t *nst)
{
	size_t n = NPIDS * NSTACKS;
	struct stack *st = xcalloc(n, sizeof(*st));

	for (size_t i = 0; i < n; i++) {
		struct stack *s = &st[i];

		s->pid = 1000 + (uint32_t)(i / NSTACKS);
		s->reps = 1 + (uint32_t)rnd(MAXREP);
		if (s->pid == 1002 && i % NSTACKS < 20) {
			memcpy(s->ips, st[i % NSTACKS].ips, sizeof(s->ips));
			s->n = st[i % NSTACKS].n;
			continue;
		}
		s->n = i % 7 == 0 ? MAX_STACK_DEPTH : 1 + (uint32_t)rnd(40);
		for (uint32_t k = 0; k < s->n; k++)
			s->ips[k] = 0x400000 + (k < 3 && i ? st[i - 1].ips[k] - 0x400000 : rnd(1 << 20));
		s->ips[0] = 0x400000 + i * 16;	/* distinct leaves */
	}
	*nst = n;
	return st;
}

static int on_stack(void *ctx, void *data, size_t size)
{
	fpstacks_add(ctx, data, size);
	return 0;
}

/* The sampling programs that loaded: pgoprof-record loads one only, so
 * this load is where the verifier sees them all. */
static int count_loaded(struct record_bpf *s)
{
	struct bpf_program *p[] = { s->progs.on_sample, s->progs.on_sample_legacy,
				    s->progs.on_lbr_sample, s->progs.on_lbr_sample_legacy,
				    s->progs.on_stack_sample, s->progs.on_newtask,
				    s->progs.on_exit };
	int n = 0;

	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		n += bpf_program__fd(p[i]) >= 0;
	return n;
}

static struct record_bpf *load(unsigned entries, unsigned ring)
{
	struct record_bpf *skel = record_bpf__open();

	if (!skel) {
		err("cannot open the BPF skeleton: %s", strerror(errno));
		return NULL;
	}
	bpf_program__set_autoload(skel->progs.fp_count_test, true);
	if (entries)
		bpf_map__set_max_entries(skel->maps.fp_counts, entries);
	if (ring)
		bpf_map__set_max_entries(skel->maps.fp_stacks, ring);
	if (record_bpf__load(skel)) {
		err("cannot load the BPF programs: %s", strerror(errno));
		record_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

static int run_one(struct record_bpf *skel, const struct stack *s)
{
	struct fp_count_ctx ctx;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx));

	memset(&ctx, 0, sizeof(ctx));
	ctx.r.pid = s->pid;
	ctx.r.n = s->n;
	memcpy(ctx.r.ips, s->ips, s->n * 8ul);
	if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.fp_count_test), &opts))
		return err("BPF_PROG_TEST_RUN of fp_count_test: %s", strerror(errno));
	return opts.retval ? err("fp_count_test returned %u", opts.retval) : 0;
}

/* A key with stack s's hash and a check that is not its own. */
static int plant_collision(struct record_bpf *skel, const struct stack *s)
{
	struct fp_key key = { .pid = s->pid };
	struct fp_val v = { 0, 0 };
	__u64 check;

	key.hash = fp_hash((const __u64 *)s->ips, s->n, &check);
	v.check = ~check;
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.fp_counts), &key, &v, BPF_NOEXIST))
		return err("cannot plant a colliding key: %s", strerror(errno));
	return 0;
}

struct outcome {
	uint64_t samples, counted, keys, frames_lost, no_frames;
};

/* Each stack's key against what was sent: its count, its frames. */
static int check_keys(struct record_bpf *skel, const struct fpstacks *fps,
		      const struct stack *st, size_t nst, int collide,
		      struct outcome *o)
{
	int fd = bpf_map__fd(skel->maps.fp_counts);

	for (size_t i = 0; i < nst; i++) {
		struct fp_key key = { .pid = st[i].pid };
		struct fp_val v;
		const uint64_t *ips;
		__u64 check;
		uint32_t n;

		key.hash = fp_hash((const __u64 *)st[i].ips, st[i].n, &check);
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue;	/* the map was full: counted below */
		if (collide && i == 0) {
			if (v.count)
				return err("stack 0: the colliding key counted %llu samples",
					   (unsigned long long)v.count);
			continue;
		}
		o->keys++;
		if (v.count != st[i].reps || v.check != check)
			return err("stack %zu (pid %u): count %llu, want %u", i, st[i].pid,
				   (unsigned long long)v.count, st[i].reps);
		o->counted += v.count;
		ips = fpstacks_find(fps, key.pid, key.hash, &n);
		if (!ips) {
			o->frames_lost += v.count;
			o->no_frames++;
			continue;
		}
		if (n != st[i].n || memcmp(ips, st[i].ips, n * 8ul))
			return err("stack %zu (pid %u): other frames came back", i, st[i].pid);
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned entries = 0, ring = 0;
	size_t table = 64u << 20;
	int collide = 0, rc = 1;
	size_t nst, ns = 0;
	struct stack *st = make_stacks(&nst);
	uint32_t *order;
	struct record_bpf *skel;
	struct ring_buffer *rb = NULL;
	struct fpstacks fps;
	struct outcome o = { 0 };
	uint64_t full, unsent, hash;

	progname = "fpcount";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--map-entries") && i + 1 < argc)
			entries = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--ring") && i + 1 < argc)
			ring = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--table") && i + 1 < argc)
			table = strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--collide"))
			collide = 1;
		else
			die(2, "usage: fpcount [--map-entries N] [--ring BYTES] [--table BYTES] [--collide]");
	}
	/* Every sample of every stack, shuffled. */
	for (size_t i = 0; i < nst; i++)
		ns += st[i].reps;
	order = xcalloc(ns, sizeof(*order));
	for (size_t i = 0, k = 0; i < nst; i++)
		for (uint32_t r = 0; r < st[i].reps; r++)
			order[k++] = (uint32_t)i;
	for (size_t i = ns - 1; i > 0; i--) {
		size_t j = rnd(i + 1);
		uint32_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	skel = load(entries, ring);
	if (!skel)
		return 1;
	fpstacks_init(&fps, table);
	rb = ring_buffer__new(bpf_map__fd(skel->maps.fp_stacks), on_stack, &fps, NULL);
	if (!rb || (collide && plant_collision(skel, &st[0])))
		goto out;
	for (size_t k = 0; k < ns; k++) {
		if (run_one(skel, &st[order[k]]))
			goto out;
		/* Read as the collector does, unless the ring is to overflow. */
		if (!ring && k % 64 == 63)
			ring_buffer__consume(rb);
	}
	ring_buffer__consume(rb);
	o.samples = ns;
	if (fps.bad) {
		err("%llu records of a wrong size or hash", (unsigned long long)fps.bad);
		goto out;
	}
	if (check_keys(skel, &fps, st, nst, collide, &o))
		goto out;
	full = stat_sum(skel, STAT_COUNTS_FULL);
	unsent = stat_sum(skel, STAT_FRAMES_UNSENT);
	hash = stat_sum(skel, STAT_STACK_HASH);
	printf("samples %llu counted %llu keys %llu full %llu unsent %llu refused %llu frames_lost %llu hash %llu loaded %d\n",
	       (unsigned long long)o.samples, (unsigned long long)o.counted,
	       (unsigned long long)o.keys, (unsigned long long)full,
	       (unsigned long long)unsent, (unsigned long long)fps.refused,
	       (unsigned long long)o.frames_lost,
	       (unsigned long long)hash, count_loaded(skel));
	/* Every sample counted once: kept, map full, or a collision. */
	if (o.counted + full + hash != o.samples) {
		err("%llu counted + %llu map full + %llu collided != %llu samples",
		    (unsigned long long)o.counted, (unsigned long long)full,
		    (unsigned long long)hash, (unsigned long long)o.samples);
		goto out;
	}
	/* A key without frames: the ring was full when it was made, or the
	 * table refused its frames. */
	if (o.no_frames != unsent + fps.refused) {
		err("%llu keys without frames, %llu sends failed, %llu refused by the table",
		    (unsigned long long)o.no_frames, (unsigned long long)unsent,
		    (unsigned long long)fps.refused);
		goto out;
	}
	if (collide && hash != st[0].reps) {
		err("collision: %llu samples lost.stack_hash, want %u",
		    (unsigned long long)hash, st[0].reps);
		goto out;
	}
	rc = 0;
out:
	ring_buffer__free(rb);
	fpstacks_free(&fps);
	record_bpf__destroy(skel);
	free(order);
	free(st);
	return rc;
}
