/* SPDX-License-Identifier: GPL-2.0-only */
/* A test program for bench/lbrgen --callchain: qsort calls cmp back, so the
 * walk's pretend libc calls cmp (the walk's callbacks are the functions
 * named cmp) and cmp's call chains go through the pretend libc. */
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	int v[64];

	for (int r = 0; r < 1000; r++) {
		for (int i = 0; i < 64; i++)
			v[i] = rand();
		qsort(v, 64, sizeof(v[0]), cmp);
	}
	printf("%d\n", v[0]);
	return 0;
}
