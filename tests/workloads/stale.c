/* SPDX-License-Identifier: GPL-2.0-only */
/* Test workload of 'pgoprof check' (tests/integration/stale.sh): hot has
 * most of the executions on a long loop body, one line of code each, so
 * lines inserted above the body shift every sampled line while the new
 * build still has code at every old offset; warm is the function that
 * stays.  The test edits this file: it inserts after the line
 * "h *= 16777619u;", rewrites the lines "a += h >> 3;", "b += a * 3;" and
 * "c ^= b >> 7;", and adds a branch after "c += b * 7;". */
#include <stdio.h>

__attribute__((noinline)) unsigned hot(unsigned n, unsigned seed)
{
	unsigned h = seed, a = 1, b = 2, c = 3;

	for (unsigned i = 0; i < n; i++) {
		h ^= i;
		h *= 16777619u;
		a += h >> 3;
		b ^= a << 5;
		c += b * 7;
		if ((h & 0xff) == 0)
			h += i;
		a ^= c >> 11;
		b += a * 3;
		c ^= b >> 7;
		h ^= h >> 13;
		h += a ^ b ^ c;
	}
	return h;
}

__attribute__((noinline)) unsigned warm(unsigned n, unsigned x)
{
	unsigned s = x;

	for (unsigned i = 0; i < n; i++)
		s = s * 31 + (s >> 7) + i;
	return s;
}

int main(int argc, char **argv)
{
	unsigned s = hot(2000000, (unsigned)argc);

	(void)argv;
	s += warm(500000, s);
	printf("%u\n", s);
	return 0;
}
