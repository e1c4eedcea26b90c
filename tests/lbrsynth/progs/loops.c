/* SPDX-License-Identifier: GPL-2.0-only */
/* lbrsynth test program: loops with data-dependent branches, an inlined
 * helper, and a loop body with a known iteration count.
 *
 * body() runs exactly ITERS times: the line marked LOOP-BODY and the first
 * instruction of body() each execute exactly ITERS times (the integration
 * test checks the ground truth against that).  Usage: loops [ITERS] */
#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_ITERS 20000

static unsigned long state = 12345;

/* Always inlined: a nested call site in the profile. */
static inline __attribute__((always_inline)) unsigned long next_rand(void)
{
	state = state * 6364136223846793005UL + 1442695040888963407UL;
	return state >> 33;
}

__attribute__((noinline)) long body(long i, unsigned long r)
{
	/* Data-dependent branches: taken about 1/2 and 1/8 of the time. */
	if (r & 1)
		i += 3;
	else
		i -= 1;
	if ((r & 7) == 0)
		i *= 5;
	return i;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : DEFAULT_ITERS;
	long acc = 0;

	for (long i = 0; i < iters; i++) {
		unsigned long r = next_rand();
		acc += body(i, r);	/* LOOP-BODY */
	}
	/* A second loop whose trip count depends on the data. */
	for (long j = 0; j < iters / 4; j++) {
		unsigned long r = next_rand();
		while (r & 3) {
			acc ^= (long)r;
			r >>= 2;
		}
	}
	printf("%ld\n", acc);
	return 0;
}
