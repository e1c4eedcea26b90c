/* lib/util.c: an outfile's temporary never outlives the process that made
 * it (signals, exit()), yet a forked child and the program's own signal
 * handlers are left alone; read_input() stops early on a bad head and
 * bounds what it reads from a file that is not regular. */
#include "check.h"
#include "../../lib/util.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/pgoprof-test-util-XXXXXX";
static char out[sizeof(dir) + 8];

/* How many files dir holds (the target, temporaries); rm: and
 * remove them. */
static int files(int rm)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[sizeof(dir) + 256];
	int n = 0;

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		n++;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (rm)
			unlink(path);
	}
	if (d)
		closedir(d);
	return n;
}

/* Run fn in a child; its wait status. */
static int in_child(void (*fn)(void))
{
	int status = -1;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		fn();
		_exit(0);
	}
	waitpid(pid, &status, 0);
	return status;
}

/* fn, in a child, succeeds and leaves the output alone. */
static void commits_in_child(void (*fn)(void))
{
	int st = in_child(fn);

	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(access(out, F_OK) == 0);
	CHECK(files(1) == 1);
}

static void open_then_term(void)
{
	struct outfile o;

	if (outfile_open(&o, out) || fputs("half", o.f) < 0)
		_exit(1);
	raise(SIGTERM);
	_exit(2);
}

static void open_then_exit(void)
{
	struct outfile o;

	if (outfile_open(&o, out))
		_exit(1);
	exit(3);
}

static void test_signal_removes_temporary(void)
{
	int st = in_child(open_then_term);

	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	CHECK(files(1) == 0);
}

static void test_exit_removes_temporary(void)
{
	int st = in_child(open_then_exit);

	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3);
	CHECK(files(1) == 0);
}

static volatile sig_atomic_t caught;
static void on_term(int sig)
{
	caught = sig;
}

/* A program that catches SIGTERM itself (pgoprof-record) keeps its
 * handler; the commit gives the default action back. */
static void own_handler_then_commit(void)
{
	struct sigaction sa;
	struct outfile o;

	/* Under nohup the test itself starts with SIGHUP ignored. */
	signal(SIGHUP, SIG_DFL);
	signal(SIGTERM, on_term);
	if (outfile_open(&o, out))
		_exit(1);
	raise(SIGTERM);
	if (caught != SIGTERM || outfile_commit(&o))
		_exit(2);
	signal(SIGTERM, SIG_DFL);
	if (outfile_open(&o, out) || outfile_commit(&o))
		_exit(3);
	if (sigaction(SIGHUP, NULL, &sa) || sa.sa_handler != SIG_DFL)
		_exit(4);
	_exit(0);
}

static void test_own_handler_kept(void)
{
	commits_in_child(own_handler_then_commit);
}

/* A child forked while the temporary is open leaves it to its parent. */
static void fork_then_commit(void)
{
	struct outfile o;
	pid_t pid;

	if (outfile_open(&o, out))
		_exit(1);
	pid = fork();
	if (pid == 0)
		exit(0);
	waitpid(pid, NULL, 0);
	if (access(o.tmp, F_OK) || outfile_commit(&o))
		_exit(2);
	_exit(0);
}

static void test_child_leaves_temporary(void)
{
	commits_in_child(fork_then_commit);
}

static int never(const uint8_t *head, size_t len)
{
	(void)head;
	(void)len;
	return 0;
}

static void test_read_input_bounded(void)
{
	size_t len = 0;
	uint8_t *b = read_input("/dev/zero", &len, never);

	CHECK(b && len == INPUT_HEAD && b[len] == 0);
	free(b);
	setenv("PGOPROF_STREAM_MAX_MIB", "1", 1);
	b = read_input("/dev/zero", &len, NULL);
	CHECK(!b);
	free(b);
	setenv("PGOPROF_STREAM_MAX_MIB", "-1", 1);
	CHECK(!read_input("/dev/null", &len, NULL));
	unsetenv("PGOPROF_STREAM_MAX_MIB");
	b = read_input("/dev/null", &len, never);
	CHECK(b && len == 0 && b[0] == 0);
	free(b);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(out, sizeof(out), "%s/out", dir);
	RUN(test_signal_removes_temporary);
	RUN(test_exit_removes_temporary);
	RUN(test_own_handler_kept);
	RUN(test_child_leaves_temporary);
	RUN(test_read_input_bounded);
	rmdir(dir);
	return tests_failed != 0;
}
