/* SPDX-License-Identifier: GPL-2.0-only */
/* The table of unwound stacks under its byte budget (pgoprof-record
 * --mem-budget): a new stack that would take it over is refused (the
 * collector counts it lost.unwind_table), stacks already in it are still
 * counted, and every sample offered is either counted or refused. */
#include "check.h"
#include "../../collector/stacktab.h"

#include <stdint.h>

struct tally {
	uint64_t stacks, samples;
	size_t frames;
};

static void add_up(void *arg, pid_t pid, const uint64_t *ips, size_t n,
		   uint64_t count)
{
	struct tally *t = arg;

	(void)pid;
	(void)ips;
	t->stacks++;
	t->samples += count;
	t->frames += n;
}

/* Stack i: 4 frames, distinct for every i. */
static void stack_of(uint64_t i, uint64_t ips[4])
{
	for (int k = 0; k < 4; k++)
		ips[k] = 0x400000 + i * 16 + (uint64_t)k;
}

static void test_budget_refuses_new_stacks(void)
{
	struct stacktab t;
	struct tally all = { 0 };
	uint64_t ips[4], kept = 0, refused = 0, offered = 0;
	size_t budget = 64 << 10;	/* 8 KiB of slots + room for ~600 stacks */

	stacktab_init(&t, budget);
	for (uint64_t i = 0; i < 5000; i++) {
		stack_of(i, ips);
		offered++;
		if (stacktab_add(&t, 1, ips, 4))
			refused++;
		else
			kept++;
	}
	CHECK(refused > 0 && kept > 0);
	CHECK(kept + refused == offered);
	CHECK(t.tab.bytes <= budget);
	CHECK(t.tab.n == kept);	/* each kept sample was a new stack */
	/* Full, a stack it has is counted all the same; a new one is not. */
	stack_of(0, ips);
	CHECK(stacktab_add(&t, 1, ips, 4) == 0);
	stack_of(4999, ips);
	CHECK(stacktab_add(&t, 1, ips, 4) == -1);
	stacktab_each(&t, add_up, &all);
	CHECK(all.stacks == kept);
	CHECK(all.samples == kept + 1);
	CHECK(all.frames == 4 * kept);
	stacktab_free(&t);
}

/* Stacks of one frame in 38 KiB: 512 of them, the index (1024 slots,
 * 8 KiB) and the array of entries (4 KiB) fit, the index doubled with
 * its old slots (24 KiB more) does not: the 513th is refused, and the
 * budget holds after every stack. */
static void test_index_cannot_grow(void)
{
	struct stacktab t;
	size_t budget = 38 << 10;
	uint64_t ip, kept = 0;
	int ok = 1;

	stacktab_init(&t, budget);
	for (uint64_t i = 0; i < 2000; i++) {
		ip = 0x400000 + i;
		kept += stacktab_add(&t, 1, &ip, 1) == 0;
		ok &= t.tab.bytes <= budget;
	}
	CHECK(ok && kept == 512 && t.tab.n == 512);
	CHECK(t.tab.index.cap == 1024);
	stacktab_free(&t);
}

/* A budget big enough for everything refuses nothing, across rehashes. */
static void test_big_budget_keeps_all(void)
{
	struct stacktab t;
	struct tally all = { 0 };
	uint64_t ips[4];

	stacktab_init(&t, 64 << 20);
	for (int round = 0; round < 3; round++)
		for (uint64_t i = 0; i < 5000; i++) {
			stack_of(i, ips);
			CHECK(stacktab_add(&t, (pid_t)(1 + i % 2), ips, 4) == 0);
		}
	stacktab_each(&t, add_up, &all);
	CHECK(all.stacks == 5000 && all.samples == 15000);
	CHECK(t.tab.bytes <= t.tab.max_bytes);
	stacktab_free(&t);
}

/* A budget below the first slot array: every new stack is refused. */
static void test_tiny_budget(void)
{
	struct stacktab t;
	uint64_t ips[4];

	stacktab_init(&t, 1024);
	stack_of(1, ips);
	CHECK(stacktab_add(&t, 1, ips, 4) == -1);
	CHECK(t.tab.n == 0);
	stacktab_free(&t);
}

int main(void)
{
	RUN(test_budget_refuses_new_stacks);
	RUN(test_index_cannot_grow);
	RUN(test_big_budget_keeps_all);
	RUN(test_tiny_budget);
	return tests_failed != 0;
}
