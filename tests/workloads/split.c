/* SPDX-License-Identifier: GPL-2.0-only */
/* ipa-split at gcc -O2: sum_slow's head (the cached case, expected) is
 * inlined into use_a and use_b, its body becomes sum_slow.part.0
 * (tests/integration/afdo_split.sh). */
#include <stdio.h>
#include <stdlib.h>

static int cache_n = -1;
static long cache_v;

static long sum_slow(const int *v, int n)
{
	if (__builtin_expect(n == cache_n, 1))
		return cache_v;
	long s = 0;
	for (int i = 0; i < n; i++) {
		s += (long)v[i] * v[i];
		if (s > 1000000007L)
			s %= 1000000007L;
	}
	for (int i = n - 1; i >= 0; i--)
		s ^= (long)v[i] << (i & 7);
	cache_n = n;
	cache_v = s;
	return s;
}

long use_a(const int *v, int n) { return sum_slow(v, n) + 1; }
long use_b(const int *v, int n) { return sum_slow(v, n) * 3; }

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 2000, v[512];
	long t = 0;

	for (int i = 0; i < 512; i++)
		v[i] = i * 7 + 3;
	for (int r = 0; r < rounds; r++)
		t += use_a(v, 256 + r % 200) + use_b(v, 256 + (r * 3) % 200);
	printf("%ld\n", t);
	return 0;
}
