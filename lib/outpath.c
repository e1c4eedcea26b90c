/* SPDX-License-Identifier: GPL-2.0-only */
#include "outpath.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

int outpath_open_dir(const char *what, const char *dir, int nofollow)
{
	char *copy, *save, *comp;
	int fd, next;
	struct stat st;

	if (!nofollow || !strcmp(dir, ".") || !strcmp(dir, "/")) {
		fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			err("-o %s: cannot open the directory %s: %s", what, dir,
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
			err("-o %s: %s is a symbolic link; as root, pgoprof does not follow links to the output's directory: give the real path (realpath -m %s)",
			    what, comp, what);
		else if (next < 0)
			err("-o %s: cannot open the directory %s (at %s): %s",
			    what, dir, comp, strerror(errno));
		close(fd);
		fd = next;
	}
	free(copy);
	return fd;
}

int outpath_open(struct outpath *t, const char *path)
{
	size_t n = strlen(path);
	char *dcopy, *bcopy;

	if (!n || path[n - 1] == '/')
		return err("-o '%s': give a file name", path);
	dcopy = xstrdup(path);
	bcopy = xstrdup(path);
	*t = (struct outpath){ .path = path, .uid = geteuid() };
	t->dir = xstrdup(dirname(dcopy));
	t->base = xstrdup(basename(bcopy));
	free(dcopy);
	free(bcopy);
	t->dirfd = outpath_open_dir(path, t->dir, t->uid == 0);
	if (t->dirfd < 0) {
		outpath_close(t);
		return -1;
	}
	return 0;
}

void outpath_close(struct outpath *t)
{
	if (t->dirfd >= 0)
		close(t->dirfd);
	free(t->dir);
	free(t->base);
	t->dir = t->base = NULL;
	t->dirfd = -1;
}

/* A device or FIFO is written in place: in a sticky directory only the
 * writer's own (as fs.protected_fifos=2 has it, and for root too), and
 * only when the writer may write it. */
static int check_special(const struct outpath *t, const struct stat *st,
			 int sticky)
{
	if (sticky && st->st_uid != t->uid)
		return err("refusing to write %s: a %s of user %lu in a sticky directory (like /tmp), which would take the profile or block the writer: remove it or choose another name",
			   t->path, S_ISFIFO(st->st_mode) ? "FIFO" : "device",
			   (unsigned long)st->st_uid);
	if (faccessat(t->dirfd, t->base, W_OK, AT_EACCESS))
		return err("cannot write %s: %s", t->path, strerror(errno));
	return 1;
}

int outpath_check(const struct outpath *t)
{
	struct stat st, dst;
	int sticky;

	if (fstatat(t->dirfd, t->base, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return 0;
		return err("cannot write %s: %s", t->path, strerror(errno));
	}
	if (S_ISLNK(st.st_mode))
		return err("refusing to write through the symbolic link %s: give its target (or -o - for standard output)",
			   t->path);
	if (S_ISDIR(st.st_mode))
		return err("-o %s is a directory: give a file name", t->path);
	sticky = !fstat(t->dirfd, &dst) && (dst.st_mode & S_ISVTX);
	if (!S_ISREG(st.st_mode))
		return check_special(t, &st, sticky);
	/* The rename would fail (root has CAP_FOWNER): found now, not at
	 * the end of a long run. */
	if (sticky && t->uid && st.st_uid != t->uid && dst.st_uid != t->uid)
		return err("cannot replace %s: it belongs to user %lu and its directory is sticky (like /tmp): remove it or choose another name",
			   t->path, (unsigned long)st.st_uid);
	return 0;
}

int outpath_open_special(const struct outpath *t)
{
	int fd = openat(t->dirfd, t->base, O_WRONLY | O_NONBLOCK | O_NOFOLLOW |
			O_NOCTTY | O_CLOEXEC);

	if (fd < 0 && errno == ENXIO)
		return err("cannot write %s: a FIFO with no reader (start the process that reads it first)",
			   t->path);
	if (fd < 0)
		return err("cannot open %s: %s", t->path, strerror(errno));
	return fd;
}

int outpath_tmp_create(int dirfd, const char *prefix, char *name, size_t size)
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
