/* SPDX-License-Identifier: GPL-2.0-only */
/* Test workload with known hot spots:
 *   hot_loop     most samples, in the executable (a PIE)
 *   mix          always inlined into hot_loop: a nested call-site profile
 *   lib_mix      in libhot.so: a shared library
 *   cold_path    rarely run
 * Usage: hot [SCALE [ROUNDS]]: SCALE x ROUNDS rounds (default 1 x 20;
 * 20 rounds take about 0.8 s of CPU). */
#include <stdio.h>
#include <stdlib.h>

long lib_mix(long x);

static inline __attribute__((always_inline)) unsigned long mix(unsigned long h,
							       unsigned long v)
{
	h ^= v;
	h *= 0x100000001b3UL;
	h ^= h >> 29;
	return h;
}

__attribute__((noinline)) unsigned long hot_loop(long n)
{
	unsigned long h = 1469598103934665603UL;

	for (long i = 0; i < n; i++) {
		h = mix(h, (unsigned long)i);
		if ((h & 0xff) == 0)
			h += (unsigned long)i;
	}
	return h;
}

__attribute__((noinline)) long cold_path(long x)
{
	return x * 3 + 1;
}

int main(int argc, char **argv)
{
	long scale = argc > 1 ? atol(argv[1]) : 1;
	long rounds = argc > 2 ? atol(argv[2]) : 20;
	unsigned long h = 0;
	long l = 0;

	for (long r = 0; r < rounds * scale; r++) {
		h += hot_loop(10000000 + r);
		for (int k = 0; k < 100000; k++)
			l += lib_mix(k + r) % (k | 1);	/* main has samples of its own */
		if (r % 7 == 0)
			l += cold_path(r);
	}
	printf("%lu %ld\n", h, l);
	return 0;
}
