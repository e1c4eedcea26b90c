/* SPDX-License-Identifier: GPL-2.0-only */
/* A small program for the fuzz seed corpora (tests/fuzz/seeds.sh): a loop
 * with data-dependent branches, an always-inlined helper (a nested call
 * site), and a call.  Built with libc (for recording) and, with
 * -DSEED_NOSTDLIB, as a tiny static binary for the ELF seeds (x86-64,
 * i386, aarch64). */
#ifndef SEED_NOSTDLIB
#include <stdio.h>
#include <stdlib.h>
#endif

static inline __attribute__((always_inline)) unsigned long mix(unsigned long x)
{
	return (x * 2654435761u) ^ (x >> 7);
}

__attribute__((noinline)) unsigned long work(unsigned long n)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < n; i++) {
		if (mix(i) & 1)
			s += mix(s);
		else
			s ^= i;
	}
	return s;
}

#ifdef SEED_NOSTDLIB
void _start(void)
{
	unsigned long r = work(1000) & 0x7f;
#if defined(__x86_64__)
	__asm__ volatile("syscall" : : "a"(60), "D"(r));
#elif defined(__i386__)
	__asm__ volatile("int $0x80" : : "a"(1), "b"(r));
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = 93;
	register long x0 __asm__("x0") = (long)r;
	__asm__ volatile("svc 0" : : "r"(x8), "r"(x0));
#endif
	for (;;)
		;
}
#else
int main(int argc, char **argv)
{
	printf("%lu\n", work(argc > 1 ? strtoul(argv[1], NULL, 10) : 1000));
	return 0;
}
#endif
