/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof-record's output file, written by a child with the invoking
 * user's rights.  Run through sudo, pgoprof-record is root until the end:
 * a root process that creates, renames or chowns at a path the user chose
 * would replace root's files (docs/threat-model.md).  The writer is forked
 * before anything privileged is open, becomes the user, checks the path
 * before the training run, and at the end receives the profile's bytes
 * over a socket.  Interfaces: socketpair(2), openat(2) O_NOFOLLOW,
 * renameat(2), setresuid(2), initgroups(3). */
#include "outwriter.h"
#include "../lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <limits.h>
#include <linux/capability.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

enum { ST_OK, ST_FAILED, ST_SAVED_ELSEWHERE };

/* The writer's view of its target: the directory, reached once and held
 * open, so that nothing swapped in later along the path is followed. */
struct target {
	const char *path;
	const char *dir;
	int dirfd;
	char *base;
	uid_t uid;		/* the writer's own */
	int as_user;		/* the sudo user's rights */
};

static void become(uid_t uid, gid_t gid, int as_user)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct none[2] = { { 0 } };
	struct passwd *pw;

	if (as_user) {
		pw = getpwuid(uid);
		if (pw ? initgroups(pw->pw_name, gid) : setgroups(1, &gid))
			die(1, "writer: cannot take the groups of user %lu: %s",
			    (unsigned long)uid, strerror(errno));
		if (setresgid(gid, gid, gid) || setresuid(uid, uid, uid))
			die(1, "writer: cannot become user %lu: %s",
			    (unsigned long)uid, strerror(errno));
	} else if (geteuid() != 0) {
		/* File capabilities (CAP_BPF, CAP_PERFMON): none are needed
		 * to write a file. */
		syscall(SYS_capset, &h, none);
	}
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

/* DIR, one component at a time without following a symbolic link when
 * the writer is root (a link planted in /tmp would lead root anywhere);
 * another user may follow their own links. */
static int open_dir(const char *path, const char *dir, int nofollow)
{
	char *copy, *save, *comp;
	int fd, next;
	struct stat st;

	if (!nofollow || !strcmp(dir, ".") || !strcmp(dir, "/")) {
		fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			err("-o %s: cannot open the directory %s: %s", path, dir,
			    strerror(errno));
		return fd;
	}
	copy = xstrdup(dir);
	fd = open(*dir == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (comp = strtok_r(copy, "/", &save); comp && fd >= 0;
	     comp = strtok_r(NULL, "/", &save)) {
		next = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && !fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISLNK(st.st_mode))
			err("-o %s: %s is a symbolic link; as root, pgoprof-record does not follow links to the output's directory: give the real path (realpath -m %s)",
			    path, comp, path);
		else if (next < 0)
			err("-o %s: cannot open the directory %s (at %s): %s",
			    path, dir, comp, strerror(errno));
		close(fd);
		fd = next;
	}
	free(copy);
	return fd;
}

/* A new file "PREFIX" + 6 random characters in dirfd, mode 0644, its name
 * in name (size bytes).  mkstemp has no *at form. */
static int tmp_create(int dirfd, const char *prefix, char *name, size_t size)
{
	static const char set[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[6];

	for (int tries = 0; tries < 100; tries++) {
		if (getrandom(r, sizeof(r), 0) != sizeof(r))
			return -1;
		snprintf(name, size, "%s%c%c%c%c%c%c", prefix, set[r[0] % 62],
			 set[r[1] % 62], set[r[2] % 62], set[r[3] % 62],
			 set[r[4] % 62], set[r[5] % 62]);
		int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL |
				O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			fchmod(fd, 0644);	/* a profile is meant to be shared */
			return fd;
		}
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

/* All n bytes to a file, or to the socket (a peer gone is EPIPE, not
 * SIGPIPE). */
static int write_all(int fd, const uint8_t *p, size_t n)
{
	struct stat st;
	int sock = !fstat(fd, &st) && S_ISSOCK(st.st_mode);

	while (n) {
		ssize_t k = sock ? send(fd, p, n, MSG_NOSIGNAL) : write(fd, p, n);

		if (k < 0 && errno == EINTR)
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

/* What is at the target now must be a file this writer may replace (or a
 * device or FIFO it may write), and the directory must take a new file:
 * found before the training run, not after it. */
static int check_target(const struct target *t)
{
	char name[NAME_MAX + 1];
	struct stat st, dst;
	int fd;

	if (fstatat(t->dirfd, t->base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode))
			return err("refusing to write through the symbolic link %s: give its target (or -o - for standard output)",
				   t->path);
		if (S_ISDIR(st.st_mode))
			return err("-o %s is a directory: give a file name", t->path);
		if (!S_ISREG(st.st_mode)) {
			if (faccessat(t->dirfd, t->base, W_OK, 0))
				return err("cannot write %s: %s", t->path, strerror(errno));
			return 0;
		}
		if (!fstat(t->dirfd, &dst) && (dst.st_mode & S_ISVTX) && t->uid &&
		    st.st_uid != t->uid && dst.st_uid != t->uid)
			return err("cannot replace %s: it belongs to user %lu and its directory is sticky (like /tmp): remove it or choose another name",
				   t->path, (unsigned long)st.st_uid);
	} else if (errno != ENOENT) {
		return err("cannot write %s: %s", t->path, strerror(errno));
	}
	fd = tmp_create(t->dirfd, ".pgoprof-check.", name, sizeof(name));
	if (fd < 0 && t->as_user)
		return err("-o %s: user %lu (SUDO_UID) cannot create files in %s: %s",
			   t->path, (unsigned long)t->uid, t->dir, strerror(errno));
	if (fd < 0)
		return err("-o %s: cannot create files in %s: %s", t->path, t->dir,
			   strerror(errno));
	close(fd);
	unlinkat(t->dirfd, name, 0);
	return 0;
}

/* Temporary, then rename: readers never see half a profile. */
static int save_at(const struct target *t, const uint8_t *buf, size_t len)
{
	char name[NAME_MAX + 1], prefix[NAME_MAX - 6];
	struct stat st;
	int fd, e;

	if (!fstatat(t->dirfd, t->base, &st, AT_SYMLINK_NOFOLLOW) &&
	    S_ISLNK(st.st_mode))	/* appeared since the check */
		return err("refusing to write through the symbolic link %s: give its target (or -o - for standard output)",
			   t->path);
	if (!fstatat(t->dirfd, t->base, &st, AT_SYMLINK_NOFOLLOW) &&
	    !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		fd = openat(t->dirfd, t->base, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || write_all(fd, buf, len)) {
			e = errno;
			if (fd >= 0)
				close(fd);
			return err("cannot write %s: %s", t->path, strerror(e));
		}
		return close(fd) ? err("cannot write %s: %s", t->path, strerror(errno)) : 0;
	}
	snprintf(prefix, sizeof(prefix), ".%s.", t->base);
	fd = tmp_create(t->dirfd, prefix, name, sizeof(name));
	if (fd < 0)
		return err("cannot create a temporary beside %s: %s", t->path,
			   strerror(errno));
	if (write_all(fd, buf, len) || fsync(fd) || close(fd) ||
	    renameat(t->dirfd, name, t->dirfd, t->base)) {
		e = errno;
		close(fd);	/* may be closed already: harmless */
		unlinkat(t->dirfd, name, 0);
		return err("cannot write %s: %s", t->path, strerror(e));
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

	snprintf(prefix, sizeof(prefix), "pgoprof-%s.", t->base);
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		int dfd = open_dir(dirs[i], dirs[i], t->uid == 0), fd = -1;

		if (dfd >= 0)
			fd = tmp_create(dfd, prefix, name, sizeof(name));
		if (fd >= 0 && !write_all(fd, buf, len) && !fsync(fd) && !close(fd)) {
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
	st = !save_at(t, buf, len) ? ST_OK :
	     !save_elsewhere(t, buf, len) ? ST_SAVED_ELSEWHERE : ST_FAILED;
	free(buf);
	return st;
}

static void __attribute__((noreturn))
writer_main(int sock, const char *path, uid_t uid, gid_t gid, int as_user)
{
	char *dcopy = xstrdup(path), *bcopy = xstrdup(path);
	struct target t = { .path = path };
	uint8_t st = ST_FAILED;

	signal(SIGINT, SIG_IGN);	/* Ctrl-C reaches the whole group */
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	become(uid, gid, as_user);
	t.uid = geteuid();
	t.as_user = as_user;
	t.base = basename(bcopy);
	t.dir = dirname(dcopy);
	t.dirfd = open_dir(path, t.dir, t.uid == 0);
	if (t.dirfd >= 0 && !check_target(&t))
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
	size_t n = strlen(path);
	int sv[2];

	*w = (struct outwriter){ .data = -1, .status = -1 };
	if (!n || path[n - 1] == '/')
		return err("-o '%s': give a file name", path);
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

int outwriter_commit(struct outwriter *w, const void *buf, size_t len)
{
	uint64_t n = len;
	uint8_t st = ST_FAILED;

	if (w->pid <= 0)
		return -1;
	if (write_all(w->data, (const uint8_t *)&n, sizeof(n)) ||
	    write_all(w->data, buf, len))
		err("cannot hand the profile to its writer: %s", strerror(errno));
	else if (read_all(w->status, &st, 1))
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
