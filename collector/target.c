/* SPDX-License-Identifier: GPL-2.0-only */
/* -p PID: refuse what gives no samples before recording, and find the
 * children that do a shell's or a launcher's work.  Interfaces: proc(5)
 * /proc/PID/stat (fields 3 state, 9 flags, 14 utime and 15 stime),
 * /proc/PID/task/TID/children. */
#include "target.h"
#include "../lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PF_KTHREAD 0x00200000	/* include/linux/sched.h */

/* /proc/PID/stat into buf (size bytes), and where the fields after the
 * name (field 2, which may hold spaces and parentheses) start: after its
 * last ')'.  NULL when it cannot be read or parsed (errno: why). */
static char *read_stat(pid_t pid, char *buf, size_t size)
{
	char path[64], *close_paren;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "re")))
		return NULL;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	close_paren = strrchr(buf, ')');
	if (!close_paren)
		errno = EINVAL;
	return close_paren;
}

int target_check(pid_t pid)
{
	char buf[1024], *close_paren, state;
	unsigned long flags;

	close_paren = read_stat(pid, buf, sizeof(buf));
	if (!close_paren && (errno == ENOENT || errno == ESRCH))
		return err("-p %d: no such process", (int)pid);
	if (!close_paren && errno != EINVAL)
		return err("-p %d: cannot read /proc/%d/stat: %s", (int)pid, (int)pid,
			   strerror(errno));
	if (!close_paren || sscanf(close_paren + 1, " %c %*d %*d %*d %*d %*d %lu",
				   &state, &flags) != 2)
		return err("-p %d: cannot parse /proc/%d/stat", (int)pid, (int)pid);
	*close_paren = '\0';
	if (flags & PF_KTHREAD)
		return err("-p %d (%s) is a kernel thread: pgoprof-record samples user space (use -a to see what the whole system runs)",
			   (int)pid, strchr(buf, '(') ? strchr(buf, '(') + 1 : "?");
	if (state == 'Z' || state == 'X')
		return err("-p %d is a zombie (it has exited and its parent has not reaped it): no code runs in it",
			   (int)pid);
	return 0;
}

static void add_children(pid_t pid, pid_t **out, size_t *n, size_t *cap)
{
	char path[64];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path)))
		return;
	while ((e = readdir(d))) {
		char cpath[64 + sizeof(e->d_name) + 16];
		FILE *f;
		int child;

		if (e->d_name[0] == '.')
			continue;
		snprintf(cpath, sizeof(cpath), "%s/%s/children", path, e->d_name);
		if (!(f = fopen(cpath, "re")))
			continue;
		while (fscanf(f, "%d", &child) == 1 && *n < 65536) {
			grow(out, cap, *n + 1, sizeof(**out));
			(*out)[(*n)++] = (pid_t)child;
		}
		fclose(f);
	}
	closedir(d);
}

size_t target_descendants(pid_t pid, pid_t **out)
{
	size_t n = 0, cap = 0;

	*out = NULL;
	add_children(pid, out, &n, &cap);
	/* Breadth first over the list as it grows; pids are unique in a
	 * tree, so nothing is visited twice. */
	for (size_t i = 0; i < n; i++)
		add_children((*out)[i], out, &n, &cap);
	return n;
}

static int listed(const pid_t *v, size_t n, pid_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == tid)
			return 1;
	return 0;
}

size_t target_threads(pid_t pid, pid_t **out, size_t *n, size_t *cap)
{
	char path[64];
	struct dirent *e;
	size_t added = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path)))
		return 0;
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);

		if (tid <= 0 || listed(*out, *n, tid))
			continue;
		grow(out, cap, *n + 1, sizeof(**out));
		(*out)[(*n)++] = tid;
		added++;
	}
	closedir(d);
	return added;
}

double target_cpu_seconds(pid_t pid)
{
	char buf[1024], *fields = read_stat(pid, buf, sizeof(buf));
	unsigned long long utime, stime;
	long hz = sysconf(_SC_CLK_TCK);

	/* Fields 3 to 13 skipped, then utime and stime. */
	if (!fields || hz <= 0 ||
	    sscanf(fields + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
		   &utime, &stime) != 2)
		return -1;
	return (double)(utime + stime) / (double)hz;
}
