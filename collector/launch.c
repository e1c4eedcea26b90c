/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof-record's launch: whose rights the run has (the invoker through
 * sudo, docs/threat-model.md), the output's writer begun as that user,
 * the command forked stopped so that it is a target from its first
 * instruction, the targets followed (the BPF targets map, the side-band,
 * the mappings that exist), and at the end the command's status. */
#include "collector.h"
#include "record.skel.h"
#include "target.h"
#include "../lib/sudo.h"
#include "../lib/util.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* SUDO_UID/SUDO_GID (lib/sudo.h); a malformed one stops the run. */
static void find_invoker(struct invoker *inv)
{
	int r;

	*inv = (struct invoker){ 0 };
	r = sudo_invoker(&inv->uid, &inv->gid);
	if (r < 0)
		exit(1);
	inv->set = r;
}

/* Through sudo, -p takes only a process that the invoking user could
 * ptrace themselves: its real, effective and saved user IDs are theirs
 * (the user-ID part of ptrace's access check; see docs/threat-model.md).
 * Returns the first of those IDs that is not the user's, inv->uid when
 * all are, or -1 after a message when /proc/PID/status cannot be read. */
static long pid_other_owner(const struct invoker *inv, pid_t pid)
{
	char path[64], line[256];
	unsigned long r, e, s;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return err("-p %d: cannot read %s: %s", (int)pid, path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %lu %lu %lu", &r, &e, &s) == 3) {
			fclose(f);
			return (long)(e != inv->uid ? e : r != inv->uid ? r : s);
		}
	fclose(f);
	return err("cannot read the owner of process %d from %s", (int)pid, path);
}

static void check_pid_owner(const struct invoker *inv, pid_t pid)
{
	long owner = pid_other_owner(inv, pid);

	if (owner < 0)
		exit(1);
	if (owner != (long)inv->uid)
		die(1, "-p %d: the process belongs to user %ld, not to user %lu who ran pgoprof-record through sudo (SUDO_UID): profile it as that user, or as root without sudo",
		    (int)pid, owner, (unsigned long)inv->uid);
}

/* Fork the command stopped before exec, so that it is a target from its
 * first instruction.  Writing a byte to *go starts it; closing *go without
 * writing makes it exit 127. */
pid_t spawn_stopped(char **argv, int *go)
{
	pid_t parent = getpid(), pid;
	int p[2];
	char c;

	if (pipe2(p, O_CLOEXEC))
		die(1, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die(1, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(p[1]);
		/* A recorder killed outright (SIGKILL, the OOM killer) cannot
		 * stop the command: the kernel does.  A parent gone before the
		 * prctl shows as a new parent. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(127);
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: cannot run %s: %s\n", progname, argv[0],
			strerror(errno));
		_exit(127);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

/* --children: -p's descendants now; through sudo, the user's only (a
 * child may be a setuid program). */
static void find_kids(struct collector *c)
{
	size_t n = target_descendants(c->opt.pid, &c->kids), kept = 0;

	for (size_t i = 0; i < n; i++)
		if (!c->inv.set || pid_other_owner(&c->inv, c->kids[i]) == (long)c->inv.uid)
			c->kids[kept++] = c->kids[i];
	if (kept < n)
		warnx("--children: %zu of %zu children of process %d are not user %lu's (SUDO_UID): left out",
		      n - kept, n, (int)c->opt.pid, (unsigned long)c->inv.uid);
	c->nkids = kept;
}

static int add_target(struct collector *c, pid_t pid)
{
	uint32_t key = (uint32_t)pid;
	uint8_t one = 1;

	return bpf_map_update_elem(bpf_map__fd(c->skel->maps.targets), &key,
				   &one, BPF_ANY);
}

static void scan_existing(struct collector *c)
{
	DIR *d;
	struct dirent *e;

	if (c->opt.pid) {
		if (maps_scan_proc(&c->maps, c->opt.pid))
			die(1, "-p %d: cannot read /proc/%d/maps: %s%s", (int)c->opt.pid,
			    (int)c->opt.pid, strerror(errno), errno == EACCES ?
			    " (another user's process: record it as root)" : "");
		for (size_t i = 0; i < c->nkids; i++)
			maps_scan_proc(&c->maps, c->kids[i]);	/* may have exited */
		return;
	}
	if (!c->opt.all)
		return;
	d = opendir("/proc");
	if (!d)
		die(1, "cannot read /proc: %s", strerror(errno));
	while ((e = readdir(d)))
		if (isdigit((unsigned char)e->d_name[0]))
			maps_scan_proc(&c->maps, (pid_t)atoi(e->d_name));
	closedir(d);
}

int check_launch(struct collector *c)
{
	struct sigaction sa = { .sa_handler = on_signal };

	find_invoker(&c->inv);
	if (c->opt.pid && target_check(c->opt.pid))
		return -1;
	if (c->inv.set && c->opt.pid)
		check_pid_owner(&c->inv, c->opt.pid);
	if (strcmp(c->opt.output, "-") &&
	    outwriter_start(&c->out, c->opt.output, c->inv.uid, c->inv.gid, c->inv.set))
		return -1;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);	/* a closed terminal or ssh session */
	return 0;
}

/* The writer has checked -o meanwhile; the mode is said once the output
 * is known to be writable (a bad -o is then the only line). */
int output_ready(struct collector *c)
{
	if (strcmp(c->opt.output, "-") && outwriter_ready(&c->out))
		return -1;
	phase(c, "output checked");
	if (!c->opt.quiet)
		say_ladder(c);
	return 0;
}

int follow_targets(struct collector *c)
{
	/* The loop wakes when the target ends, not at its next round. */
	if (c->child || c->opt.pid)
		c->pidfd = (int)syscall(SYS_pidfd_open, c->child ? c->child : c->opt.pid, 0);
	if (c->child)
		add_target(c, c->child);
	if (c->opt.pid)
		add_target(c, c->opt.pid);
	if (c->opt.children)
		find_kids(c);
	for (size_t i = 0; i < c->nkids; i++)
		add_target(c, c->kids[i]);
	if (sideband_open(&c->sb, c->cpus, c->ncpus))
		return -1;
	phase(c, "side-band open");
	scan_existing(c);
	phase(c, "existing mappings read");
	return 0;
}

void start_command(struct collector *c)
{
	if (c->go < 0)
		return;
	if (write(c->go, "g", 1) != 1)
		die(1, "cannot start the command: %s", strerror(errno));
	close(c->go);
	c->go = -1;
	phase(c, "command started");
}

void reap_command(struct collector *c)
{
	if (!c->child)
		return;
	/* Forward the stop to the command and wait, so that the shell gets
	 * its status. */
	if (stop_signal)
		kill(c->child, stop_signal);
	waitpid(c->child, &c->child_status, 0);
}

int exit_status(const struct collector *c, int rc)
{
	/* Like time(1): a failed training run must fail the CI stage, even
	 * though its samples were written. */
	if (!rc && c->opt.command && WIFEXITED(c->child_status) &&
	    WEXITSTATUS(c->child_status)) {
		warnx("the command exited with status %d (its profile was written)",
		      WEXITSTATUS(c->child_status));
		return WEXITSTATUS(c->child_status);
	}
	if (!rc && c->opt.command && WIFSIGNALED(c->child_status) &&
	    !stop_signal) {
		warnx("the command was killed by signal %d (its profile was written)",
		      WTERMSIG(c->child_status));
		return 128 + WTERMSIG(c->child_status);
	}
	return rc;
}
