/* SPDX-License-Identifier: GPL-2.0-only */
/* The exact-count engines' workload (tests/integration/exact_engines.sh):
 * every count of its own code is the same whatever the scheduling, so two
 * engines must agree on each.  Threads that call into a shared library
 * (libhot.so's lib_mix), a signal handler run by raise(), a fork whose
 * child works and exits (not with "engines nofork"), and a child spawned
 * with posix_spawn that execs this program again ("engines child"): 13,500
 * calls of lib_mix in all (10,000 by the threads, 500 by the fork's
 * child, 3,000 by the spawned one), 3,000 fewer with nofork. */
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
long lib_mix(long x);
static volatile long sink;

static void on_signal(int sig)
{
	for (int i = 0; i < 1000; i++)
		sink += i ^ sig;
}

static void *work(void *arg)
{
	long n = (long)arg, r = 0;

	for (long i = 0; i < n; i++)
		r += lib_mix(i) & 7;
	sink += r;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[4];
	pid_t pid;
	int status;

	if (argc > 1 && !strcmp(argv[1], "child")) {
		work((void *)3000);
		return 0;
	}
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, work, (void *)(1000 * (i + 1)));
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	signal(SIGUSR1, on_signal);
	for (int i = 0; i < 50; i++)
		raise(SIGUSR1);
	if (argc > 1 && !strcmp(argv[1], "nofork"))
		;
	else if ((pid = fork()) == 0) {
		work((void *)500);
		_exit(0);
	} else {
		waitpid(pid, &status, 0);
	}
	char *args[] = { argv[0], "child", NULL };
	if (posix_spawn(&pid, argv[0], NULL, NULL, args, environ))
		return 1;
	waitpid(pid, &status, 0);
	printf("%ld\n", (long)sink);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
