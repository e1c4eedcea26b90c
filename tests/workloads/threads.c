/* SPDX-License-Identifier: GPL-2.0-only */
/* Many threads that each work in short bursts: threads N BURST_US
 * PAUSE_MS [SECONDS].  Each thread spins BURST_US microseconds of its
 * own CPU time, then sleeps PAUSE_MS milliseconds, until SECONDS have
 * passed (default 60).  "ready" on standard output once all N run.  For
 * tests of -p on processes whose threads each run less than a sampling
 * period, and of the file descriptors that an event per thread takes. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long burst_ns, pause_ms, seconds = 60;

static long long thread_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void *work(void *arg)
{
	volatile unsigned long h = 1;
	time_t end = time(NULL) + seconds;

	(void)arg;
	while (time(NULL) < end) {
		long long until = thread_ns() + burst_ns;

		while (thread_ns() < until)
			h = h * 31 + 7;
		nanosleep(&(struct timespec){ pause_ms / 1000, pause_ms % 1000 * 1000000 }, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;
	long n;

	if (argc < 4) {
		fprintf(stderr, "usage: threads N BURST_US PAUSE_MS [SECONDS]\n");
		return 2;
	}
	n = atol(argv[1]);
	burst_ns = atol(argv[2]) * 1000;
	pause_ms = atol(argv[3]);
	if (argc > 4)
		seconds = atol(argv[4]);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (long i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, &attr, work, NULL)) {
			fprintf(stderr, "threads: cannot start thread %ld\n", i);
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	sleep((unsigned)seconds);
	return 0;
}
