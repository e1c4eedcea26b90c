/* SPDX-License-Identifier: GPL-2.0-only */
/* A steady CPU-bound workload for bench/collector-steady.sh: runs for
 * SECONDS (default 60) and prints, once a second, the wall-clock time
 * (CLOCK_REALTIME, seconds), the iterations done per second of wall time
 * since the previous line, and per second of the process's own CPU time,
 * so that a collector attached for part of the run shows as a drop in
 * throughput in exactly those lines.  The CPU-time rate does not move
 * when other jobs take the CPU, and it still counts the sampling
 * interrupt (and the BPF program run in it) where the kernel charges
 * interrupts to the task they interrupt (no CONFIG_IRQ_TIME_ACCOUNTING).
 * Lines come when CLOCK_REALTIME passes a whole second, so that two
 * copies run side by side (bench/collector-steady.sh's paired mode) print
 * the same seconds and can be compared line by line; each line ends with
 * the iterations and the CPU seconds behind it, so that a window's
 * throughput can be taken as a ratio of sums rather than a mean of rates.
 * With SECONDS 0 it prints "exec TIME" (CLOCK_REALTIME) and exits, for
 * measuring how long a collector takes to start a command.  An iteration is a few
 * calls three to five levels deep (hashing, a small sort, a table walk),
 * so that stacks have several frames and several distinct shapes. */
/* clock_gettime and its clocks under -std=c11. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 64

static double now(clockid_t clk)
{
	struct timespec t;

	clock_gettime(clk, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

__attribute__((noinline)) static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

__attribute__((noinline)) static uint64_t hash_block(const uint64_t *a, int n)
{
	uint64_t h = 0;

	for (int i = 0; i < n; i++)
		h = mix(h, a[i]);
	return h;
}

__attribute__((noinline)) static void insertion_sort(uint64_t *a, int n)
{
	for (int i = 1; i < n; i++) {
		uint64_t v = a[i];
		int j = i;

		for (; j > 0 && a[j - 1] > v; j--)
			a[j] = a[j - 1];
		a[j] = v;
	}
}

__attribute__((noinline)) static uint64_t walk_table(const uint64_t *a, int n,
						    uint64_t seed)
{
	uint64_t s = 0;
	unsigned k = (unsigned)seed;

	for (int i = 0; i < 4 * n; i++) {
		k = (k * 1103515245u + 12345u) % (unsigned)n;
		s += a[k];
	}
	return s;
}

__attribute__((noinline)) static uint64_t one_round(uint64_t *a, uint64_t seed)
{
	for (int i = 0; i < N; i++)
		a[i] = mix(seed, (uint64_t)i);
	insertion_sort(a, N);
	return hash_block(a, N) ^ walk_table(a, N, seed);
}

__attribute__((noinline)) static uint64_t iteration(uint64_t *a, uint64_t seed)
{
	/* Two shapes of stack: one_round directly and through a detour. */
	return seed & 1 ? one_round(a, seed) : mix(one_round(a, seed), seed);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 60, start, last, t, c, lastc;
	double tick;
	uint64_t a[N], seed = 1, iters = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* SECONDS 0: only say when it started (bench/collector-startup.sh). */
	if (seconds <= 0) {
		printf("exec %.6f\n", now(CLOCK_REALTIME));
		return 0;
	}
	start = last = now(CLOCK_MONOTONIC);
	lastc = now(CLOCK_PROCESS_CPUTIME_ID);
	tick = (double)(long long)now(CLOCK_REALTIME) + 1;
	for (;;) {
		double wall;

		/* 256 iterations take 0.4 ms here: the lines of two copies
		 * come within that, or within a time slice when they share
		 * a CPU, of each other. */
		for (int i = 0; i < 256; i++)
			seed = iteration(a, seed) | 1u << (i & 1);
		iters += 256;
		t = now(CLOCK_MONOTONIC);
		wall = now(CLOCK_REALTIME);
		if (wall >= tick) {
			c = now(CLOCK_PROCESS_CPUTIME_ID);
			printf("%.3f %.0f %.0f %llu %.6f\n", wall,
			       (double)iters / (t - last), (double)iters / (c - lastc),
			       (unsigned long long)iters, c - lastc);
			iters = 0;
			last = t;
			lastc = c;
			tick = (double)(long long)wall + 1;
		}
		if (t - start >= seconds)
			break;
	}
	return seed == 42;	/* keep the work */
}
