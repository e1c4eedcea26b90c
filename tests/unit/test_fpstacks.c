/* SPDX-License-Identifier: GPL-2.0-only */
/* The frames of frame-pointer stacks under their byte budget (a share of
 * pgoprof-record --mem-budget): every record kept is found again by
 * (process, hash) with its frames, also after the index grew; a record
 * that would take the table over is refused and counted, never found,
 * and the bytes counted are exactly what the table holds; a malformed
 * record is counted bad.  tests/integration/fpcount.sh runs the same
 * code behind the BPF program. */
#include <linux/types.h>
#include "check.h"
#include "../../bpf/record.h"
#include "../../collector/fpstacks.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define HEAD offsetof(struct fp_stack_rec, ips)

/* Record i of pid: n frames, distinct for every i. */
static size_t rec_of(struct fp_stack_rec *r, uint32_t pid, uint64_t i, uint32_t n)
{
	__u64 check;

	r->pid = pid;
	r->n = n;
	for (uint32_t k = 0; k < n; k++)
		r->ips[k] = 0x400000 + i * 256 + k;
	r->hash = fp_hash(r->ips, n, &check);
	return HEAD + n * 8ul;
}

/* Whether record r comes back whole. */
static int found(const struct fpstacks *t, const struct fp_stack_rec *r)
{
	uint32_t n;
	const uint64_t *ips = fpstacks_find(t, r->pid, r->hash, &n);

	return ips && n == r->n && !memcmp(ips, r->ips, n * 8ul);
}

/* What the table must count: its index, its array of entries, and each
 * entry (the record's header and frames). */
static size_t held(const struct fpstacks *t, size_t frames)
{
	return t->tab.index.cap * sizeof(size_t) + t->tab.cap * sizeof(void *) +
	       t->tab.n * HEAD + frames * 8;
}

/* Two processes with the same frames are two keys. */
static void test_keeps_and_finds(void)
{
	struct fpstacks t;
	struct fp_stack_rec r;
	size_t frames = 0;
	int ok = 1;

	fpstacks_init(&t, 64 << 20);
	for (uint64_t i = 0; i < 3000; i++) {
		ok &= fpstacks_add(&t, &r, rec_of(&r, 1 + i % 2, i / 2, 1 + i % 9)) == 0;
		frames += r.n;
	}
	CHECK(ok && t.tab.n == 3000 && t.refused == 0 && t.bad == 0);
	CHECK(t.tab.bytes == held(&t, frames) && t.tab.bytes <= t.tab.max_bytes);
	for (uint64_t i = 0; i < 3000; i++) {
		rec_of(&r, 1 + i % 2, i / 2, 1 + i % 9);
		ok &= found(&t, &r);
	}
	CHECK(ok);
	rec_of(&r, 3, 0, 1);	/* a process never seen */
	CHECK(!found(&t, &r));
	fpstacks_free(&t);
}

/* Records of n frames until one is refused, and all after it (they are
 * of the same size). */
static void budget_case(uint32_t n, size_t budget)
{
	struct fpstacks t;
	struct fp_stack_rec r;
	size_t frames = 0;
	uint64_t kept = 0, refused = 0;
	int ok = 1;

	fpstacks_init(&t, budget);
	for (uint64_t i = 0; i < 2000; i++) {
		if (fpstacks_add(&t, &r, rec_of(&r, 1, i, n))) {
			refused++;
		} else {
			kept++;
			frames += n;
		}
		ok &= t.tab.bytes <= budget;
	}
	CHECK(ok && kept > 0 && refused > 0 && kept + refused == 2000);
	CHECK(t.refused == refused && t.tab.n == kept && t.bad == 0);
	CHECK(t.tab.bytes == held(&t, frames));
	for (uint64_t i = 0; i < 2000; i++) {
		rec_of(&r, 1, i, n);
		ok &= found(&t, &r) == (i < kept);	/* the first ones */
	}
	CHECK(ok);
	fpstacks_free(&t);
}

/* In 64 KiB, small records fill the index first (it cannot double past
 * 512 of them), big ones the budget left for the entries.  In 17 KiB,
 * 256 records of one frame leave too little for the array of entries
 * to double. */
static void test_budget_refuses(void)
{
	budget_case(10, 64 << 10);
	budget_case(MAX_STACK_DEPTH, 64 << 10);
	budget_case(1, 17 << 10);
}

/* Below the first index: nothing kept, nothing held, nothing found. */
static void test_tiny_budget(void)
{
	struct fpstacks t;
	struct fp_stack_rec r;

	fpstacks_init(&t, 1024);
	CHECK(fpstacks_add(&t, &r, rec_of(&r, 1, 0, 3)) == -1);
	CHECK(t.refused == 1 && t.tab.n == 0 && t.tab.bytes == 0);
	CHECK(!found(&t, &r));
	fpstacks_free(&t);
}

static void test_bad_records(void)
{
	struct fpstacks t;
	struct fp_stack_rec r;
	size_t size;

	fpstacks_init(&t, 64 << 20);
	size = rec_of(&r, 1, 0, 5);
	CHECK(fpstacks_add(&t, &r, size - 8) == -1);	/* cut short */
	CHECK(fpstacks_add(&t, &r, HEAD - 1) == -1);
	r.ips[2]++;					/* other frames */
	CHECK(fpstacks_add(&t, &r, size) == -1);
	rec_of(&r, 1, 0, 5);
	r.n = MAX_STACK_DEPTH + 1;
	CHECK(fpstacks_add(&t, &r, sizeof(r)) == -1);
	CHECK(t.bad == 4 && t.tab.n == 0 && t.refused == 0);
	fpstacks_free(&t);
}

int main(void)
{
	RUN(test_keeps_and_finds);
	RUN(test_budget_refuses);
	RUN(test_tiny_budget);
	RUN(test_bad_records);
	return tests_failed != 0;
}
