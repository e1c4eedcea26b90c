/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof-record's output file, written by a child with the invoking
 * user's rights.  Run through sudo, pgoprof-record is root until the end:
 * a root process that creates, renames or chowns at a path the user chose
 * would replace root's files (docs/threat-model.md).  The writer is forked
 * before anything privileged is open, becomes the user, checks the path
 * before the training run, and at the end receives the profile's bytes
 * over a socket.  Interfaces: socketpair(2), openat(2) O_NOFOLLOW,
 * renameat(2), poll(2); the path rule is lib/outpath.h's. */
#include "outwriter.h"
#include "../lib/outpath.h"
#include "../lib/sudo.h"
#include "../lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

enum { ST_OK, ST_FAILED, ST_SAVED_ELSEWHERE };

/* The writer's view of its target: the path's directory, reached once
 * and held open (lib/outpath.h), and whose rights the writer has. */
struct target {
	struct outpath p;
	int as_user;		/* the sudo user's rights */
};

static void become(uid_t uid, gid_t gid, int as_user)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct none[2] = { { 0 } };

	if (as_user && become_user(uid, gid))
		exit(1);
	if (!as_user && geteuid() != 0) {
		/* File capabilities (CAP_BPF, CAP_PERFMON): none are needed
		 * to write a file. */
		syscall(SYS_capset, &h, none);
	}
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

/* Until fd takes bytes, or -1 with errno EINTR when the recorder asks
 * the writer to give up (a byte on watch: it was signalled) or is gone
 * (watch closed). */
static int wait_writable(int fd, int watch)
{
	struct pollfd pf[2] = { { fd, POLLOUT, 0 }, { watch, POLLIN, 0 } };

	while (poll(pf, 2, -1) < 0)
		if (errno != EINTR)
			return -1;
	if (pf[1].revents) {
		errno = EINTR;
		return -1;
	}
	return 0;
}

/* All n bytes to a file, to the socket (a peer gone is EPIPE, not
 * SIGPIPE), or, with watch >= 0, to a device or FIFO opened O_NONBLOCK as
 * fast as it takes them: a reader that never reads would block a plain
 * write for ever, with the recorder waiting and deaf to signals, so the
 * socket watch is watched too (wait_writable). */
static int write_all(int fd, int watch, const uint8_t *p, size_t n)
{
	struct stat st;
	int sock = !fstat(fd, &st) && S_ISSOCK(st.st_mode);

	while (n) {
		ssize_t k;

		if (watch >= 0 && wait_writable(fd, watch))
			return -1;
		k = sock ? send(fd, p, n, MSG_NOSIGNAL) : write(fd, p, n);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int read_all(int fd, void *buf, size_t n)
{
	uint8_t *p = buf;

	while (n) {
		ssize_t k = read(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* What is at the target now must pass the rule (lib/outpath.h), and the
 * directory must take a new file: found before the training run, not
 * after it. */
static int check_target(const struct target *t)
{
	char name[NAME_MAX + 1];
	int fd, special = outpath_check(&t->p);

	if (special)
		return special < 0 ? -1 : 0;	/* written in place */
	fd = outpath_tmp_create(t->p.dirfd, ".pgoprof-check.", name, sizeof(name));
	if (fd < 0 && t->as_user)
		return err("-o %s: user %lu (SUDO_UID) cannot create files in %s: %s",
			   t->p.path, (unsigned long)t->p.uid, t->p.dir, strerror(errno));
	if (fd < 0)
		return err("-o %s: cannot create files in %s: %s", t->p.path,
			   t->p.dir, strerror(errno));
	close(fd);
	unlinkat(t->p.dirfd, name, 0);
	return 0;
}

static int save_special(const struct target *t, int sock, const uint8_t *buf,
			size_t len)
{
	int fd = outpath_open_special(&t->p), e;

	if (fd < 0)
		return -1;
	if (write_all(fd, sock, buf, len)) {
		e = errno;
		close(fd);
		if (e == EINTR)
			return err("writing %s was interrupted: its reader did not take the profile",
				   t->p.path);
		return err("cannot write %s: %s", t->p.path, strerror(e));
	}
	return close(fd) ? err("cannot write %s: %s", t->p.path, strerror(errno)) : 0;
}

/* Temporary, then rename: readers never see half a profile.  The target
 * is checked again: a link or FIFO may have appeared since the start. */
static int save_at(const struct target *t, int sock, const uint8_t *buf,
		   size_t len)
{
	char name[NAME_MAX + 1], prefix[NAME_MAX - 6];
	int fd, e, special = outpath_check(&t->p);

	if (special)
		return special < 0 ? -1 : save_special(t, sock, buf, len);
	snprintf(prefix, sizeof(prefix), ".%s.", t->p.base);
	fd = outpath_tmp_create(t->p.dirfd, prefix, name, sizeof(name));
	if (fd < 0)
		return err("cannot create a temporary beside %s: %s", t->p.path,
			   strerror(errno));
	if (write_all(fd, -1, buf, len) || fsync(fd) || close(fd) ||
	    renameat(t->p.dirfd, name, t->p.dirfd, t->p.base)) {
		e = errno;
		close(fd);	/* may be closed already: harmless */
		unlinkat(t->p.dirfd, name, 0);
		return err("cannot write %s: %s", t->p.path, strerror(e));
	}
	return 0;
}

/* The samples of a long training run are not lost to a full disk: they go
 * to the first temporary directory that takes them. */
static int save_elsewhere(const struct target *t, const uint8_t *buf, size_t len)
{
	const char *tmpdir = getenv("TMPDIR");
	const char *dirs[] = { tmpdir && *tmpdir == '/' ? tmpdir : "/var/tmp",
			       "/var/tmp", "/tmp" };
	char name[NAME_MAX + 1], prefix[NAME_MAX - 6];

	snprintf(prefix, sizeof(prefix), "pgoprof-%s.", t->p.base);
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		int dfd = outpath_open_dir(dirs[i], dirs[i], t->p.uid == 0), fd = -1;

		if (dfd >= 0)
			fd = outpath_tmp_create(dfd, prefix, name, sizeof(name));
		if (fd >= 0 && !write_all(fd, -1, buf, len) && !fsync(fd) && !close(fd)) {
			close(dfd);
			warnx("the profile (%zu bytes) was saved to %s/%s instead: move it where it belongs",
			      len, dirs[i], name);
			return 0;
		}
		if (fd >= 0) {
			close(fd);
			unlinkat(dfd, name, 0);
		}
		if (dfd >= 0)
			close(dfd);
	}
	return err("the profile could not be saved anywhere (tried %s, /var/tmp, /tmp): its samples are lost",
		   dirs[0]);
}

static uint8_t writer_save(const struct target *t, int sock)
{
	uint64_t len;
	uint8_t *buf;
	uint8_t st;

	if (read_all(sock, &len, sizeof(len)))
		return ST_FAILED;	/* the recorder stopped without a profile */
	buf = xmalloc(len);
	if (read_all(sock, buf, len)) {
		free(buf);
		return ST_FAILED;
	}
	st = !save_at(t, sock, buf, len) ? ST_OK :
	     !save_elsewhere(t, buf, len) ? ST_SAVED_ELSEWHERE : ST_FAILED;
	free(buf);
	return st;
}

static void __attribute__((noreturn))
writer_main(int sock, const char *path, uid_t uid, gid_t gid, int as_user)
{
	struct target t = { .as_user = as_user };
	uint8_t st = ST_FAILED;

	signal(SIGINT, SIG_IGN);	/* Ctrl-C reaches the whole group */
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	become(uid, gid, as_user);
	if (!outpath_open(&t.p, path) && !check_target(&t))
		st = ST_OK;
	if (send(sock, &st, 1, MSG_NOSIGNAL) == 1 && st == ST_OK) {
		st = writer_save(&t, sock);
		send(sock, &st, 1, MSG_NOSIGNAL);
	}
	_exit(st == ST_OK ? 0 : 1);
}

int outwriter_start(struct outwriter *w, const char *path, uid_t uid,
		    gid_t gid, int as_user)
{
	int sv[2];

	*w = (struct outwriter){ .data = -1, .status = -1 };
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return err("socketpair: %s", strerror(errno));
	fflush(NULL);
	w->pid = fork();
	if (w->pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return err("fork: %s", strerror(errno));
	}
	if (w->pid == 0) {
		close(sv[0]);
		writer_main(sv[1], path, uid, gid, as_user);
	}
	close(sv[1]);
	w->data = w->status = sv[0];
	return 0;
}

int outwriter_ready(struct outwriter *w)
{
	uint8_t st;

	if (w->pid <= 0)
		return -1;
	if (read_all(w->status, &st, 1) || st != ST_OK) {
		outwriter_abort(w);
		return -1;
	}
	return 0;
}

/* The writer's last word.  A signal (the recorder's stop signals) while
 * waiting asks the writer, once, to give up a device or FIFO that does
 * not take the profile: the recorder must end when told, whoever holds
 * the other end. */
static int final_status(struct outwriter *w, uint8_t *st)
{
	int asked = 0;

	for (;;) {
		ssize_t k = read(w->status, st, 1);

		if (k == 1)
			return 0;
		if (k == 0 || errno != EINTR)
			return -1;
		if (!asked++)
			send(w->data, "", 1, MSG_NOSIGNAL);
	}
}

int outwriter_commit(struct outwriter *w, const void *buf, size_t len)
{
	uint64_t n = len;
	uint8_t st = ST_FAILED;

	if (w->pid <= 0)
		return -1;
	if (write_all(w->data, -1, (const uint8_t *)&n, sizeof(n)) ||
	    write_all(w->data, -1, buf, len))
		err("cannot hand the profile to its writer: %s", strerror(errno));
	else if (final_status(w, &st))
		st = ST_FAILED;
	outwriter_abort(w);
	return st == ST_OK ? 0 : -1;
}

void outwriter_abort(struct outwriter *w)
{
	if (w->data >= 0)
		close(w->data);
	w->data = w->status = -1;
	if (w->pid > 0)
		while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
			;
	w->pid = 0;
}
