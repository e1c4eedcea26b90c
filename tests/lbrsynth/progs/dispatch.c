/* SPDX-License-Identifier: GPL-2.0-only */
/* lbrsynth test program: a switch (a jump table), an indirect call through
 * a function pointer, and an inlined helper.  Usage: dispatch [ITERS] */
#include <stdio.h>
#include <stdlib.h>

typedef long (*op_fn)(long, long);

__attribute__((noinline)) long op_add(long a, long b) { return a + b; }
__attribute__((noinline)) long op_sub(long a, long b) { return a - b; }
__attribute__((noinline)) long op_mul(long a, long b) { return a * (b | 1); }
__attribute__((noinline)) long op_xor(long a, long b) { return a ^ b; }

static op_fn ops[4] = { op_add, op_sub, op_mul, op_xor };

static inline __attribute__((always_inline)) long clamp(long v)
{
	if (v > 1000000)
		return v % 1000003;
	if (v < -1000000)
		return -(-v % 1000003);
	return v;
}

__attribute__((noinline)) long step(long acc, unsigned k)
{
	switch (k % 7) {	/* dense cases: a jump table */
	case 0: acc += 17; break;
	case 1: acc -= 5; break;
	case 2: acc *= 3; break;
	case 3: acc ^= 0x5a5a; break;
	case 4: acc = acc / 2 + 1; break;
	case 5: acc += k; break;
	default: acc -= k; break;
	}
	return clamp(acc);
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 20000;
	/* volatile: the compiler cannot turn the indirect call into a switch. */
	op_fn *volatile table = ops;
	long acc = 1;

	for (long i = 0; i < iters; i++) {
		acc = step(acc, (unsigned)(i * 2654435761u >> 7));
		acc = clamp(table[i & 3](acc, i));	/* indirect call */
	}
	printf("%ld\n", acc);
	return 0;
}
