/* SPDX-License-Identifier: GPL-2.0-only */
/* Spends its time in libc's qsort (built without frame pointers on
 * Debian), which calls back cmp_long in this program: a sample in libc
 * must unwind through libc's frames back into main.
 * Usage: libcsort [ROUNDS] */
#include <stdio.h>
#include <stdlib.h>

#define N 100000

static long v[N];

__attribute__((noinline)) int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 30;
	unsigned long seed = 1, sum = 0;

	for (long r = 0; r < rounds; r++) {
		for (int i = 0; i < N; i++) {
			seed = seed * 6364136223846793005UL + 1442695040888963407UL;
			v[i] = (long)(seed >> 17);
		}
		qsort(v, N, sizeof(v[0]), cmp_long);
		sum += (unsigned long)v[N / 2];
	}
	printf("%lu\n", sum);
	return 0;
}
