/* SPDX-License-Identifier: GPL-2.0-only */
/* lbrsynth test program: calls into the shared C library (strlen, memcpy,
 * snprintf) and a callback from libc into this program (qsort's
 * comparator, an indirect call from libc).  Usage: libcall [ROUNDS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 64

static int cmp_calls;

__attribute__((noinline)) static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	cmp_calls++;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 200;
	long v[N], w[N];
	char buf[64];
	size_t total = 0;
	unsigned long s = 1;

	for (long r = 0; r < rounds; r++) {
		for (int i = 0; i < N; i++) {
			s = s * 1103515245 + 12345;
			v[i] = (long)(s >> 16) % 1000;
		}
		memcpy(w, v, sizeof(v));
		qsort(w, N, sizeof(w[0]), cmp_long);
		snprintf(buf, sizeof(buf), "%ld-%ld", w[0], w[N - 1]);
		total += strlen(buf);
	}
	printf("%zu %d\n", total, cmp_calls);
	return 0;
}
