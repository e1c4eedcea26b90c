/* SPDX-License-Identifier: GPL-2.0-only */
/* A hot leaf function without a frame, called from one known caller: the
 * test of the lost-caller problem.  gcc 12 gives a leaf no frame even with
 * -fno-omit-frame-pointer, so a frame-pointer walk that starts in
 * hot_leaf skips caller_a.  Build it with and without frame pointers.
 *   leafcall [REPS]            main -> caller_a -> hot_leaf
 *   leafcall deep DEPTH [REPS] main -> descend (DEPTH frames of about 100
 *                              bytes) -> caller_a -> hot_leaf: a stack
 *                              deeper than the copied bytes
 *   leafcall threads [REPS]    two threads run caller_a: thread stacks */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) unsigned long hot_leaf(unsigned long n, unsigned long h)
{
	for (unsigned long i = 0; i < n; i++) {
		h ^= i;
		h *= 0x100000001b3UL;
		h ^= h >> 29;
	}
	return h;
}

/* Some work of its own too, so that the converter keeps it (a function
 * without samples of its own is omitted) with its call site of hot_leaf. */
__attribute__((noinline)) unsigned long caller_a(long reps)
{
	unsigned long h = 1;

	for (long r = 0; r < reps; r++) {
		h = hot_leaf(1000, h) + (unsigned long)r;
		for (int k = 0; k < 40; k++) {
			h = h * 31 + (unsigned long)k;
			__asm__ volatile("" : "+r"(h));
		}
	}
	return h;
}

/* Recursion with a real frame per level (the array keeps it from being
 * turned into a loop or a tail call). */
__attribute__((noinline)) unsigned long descend(int depth, long reps)
{
	volatile char pad[64];
	unsigned long h;

	pad[0] = (char)depth;
	h = depth > 0 ? descend(depth - 1, reps) : caller_a(reps);
	return h + (unsigned long)pad[0];
}

static void *thread_main(void *arg)
{
	*(unsigned long *)arg = caller_a(*(long *)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	long reps = 100000;
	unsigned long h;

	if (argc > 2 && !strcmp(argv[1], "deep")) {
		if (argc > 3)
			reps = atol(argv[3]);
		h = descend(atoi(argv[2]), reps);
	} else if (argc > 1 && !strcmp(argv[1], "threads")) {
		pthread_t t[2];
		long arg[2];

		for (int i = 0; i < 2; i++) {
			arg[i] = argc > 2 ? atol(argv[2]) : reps;
			pthread_create(&t[i], NULL, thread_main, &arg[i]);
		}
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		h = (unsigned long)arg[0] ^ (unsigned long)arg[1];
	} else {
		if (argc > 1)
			reps = atol(argv[1]);
		h = caller_a(reps);
	}
	printf("%lu\n", h);
	return 0;
}
