/* SPDX-License-Identifier: GPL-2.0-only */
/* A small program for the fuzz seed corpora (tests/fuzz/seeds.sh): a loop
 * with data-dependent branches, an always-inlined helper (a nested call
 * site), and a call; with libc, in a child process or a second thread
 * too.  Built with libc (for recording) and, with
 * -DSEED_NOSTDLIB, as a tiny static binary for the ELF seeds (x86-64,
 * i386, aarch64). */
#ifndef SEED_NOSTDLIB
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
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
static void *thread_work(void *n)
{
	return (void *)work((unsigned long)n);
}

/* prog [N [fork|thread]]: work(N), and as much again in a child process
 * or a second thread (a run of several processes or threads to record). */
int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	const char *how = argc > 2 ? argv[2] : "";
	pthread_t t;
	void *r = NULL;
	pid_t child = !strcmp(how, "fork") ? fork() : -1;

	if (!strcmp(how, "thread") && pthread_create(&t, NULL, thread_work, (void *)n))
		return 1;
	printf("%lu\n", work(n));
	if (!strcmp(how, "thread"))
		pthread_join(t, &r);
	if (child == 0)
		return 0;
	if (child > 0)
		waitpid(child, NULL, 0);
	return 0;
}
#endif
