/* SPDX-License-Identifier: GPL-2.0-only */
/* The one rule for writing an output file at a path a user chose
 * (docs/threat-model.md, "Output file"), shared by pgoprof's outfile
 * (util.h) and pgoprof-record's writer (collector/outwriter.c): what may
 * be replaced or written in place, and how the directory is reached.
 * Interfaces: openat(2) O_PATH | O_NOFOLLOW, fstatat(2), fifo(7) (ENXIO
 * from a non-blocking open of a FIFO without a reader). */
#ifndef PGOPROF_OUTPATH_H
#define PGOPROF_OUTPATH_H

#include <stddef.h>
#include <sys/types.h>

/* An output path and its directory, held open: nothing swapped in along
 * the path after outpath_open() is followed. */
struct outpath {
	const char *path;	/* as given, for messages (not owned) */
	char *dir, *base;	/* dirname and basename of path (owned) */
	int dirfd;		/* dir, O_PATH */
	uid_t uid;		/* the writer's effective user ID */
};

/* Split path and reach its directory: while the caller's effective user
 * is root, one component at a time without following a symbolic link (a
 * link planted in /tmp would lead root anywhere); another user follows
 * links, which lead nowhere that user could not write anyway.  Returns 0,
 * or -1 after a message naming path (a link, a missing directory); t
 * needs outpath_close() only after 0. */
int outpath_open(struct outpath *t, const char *path);
void outpath_close(struct outpath *t);

/* Directory dir reached as outpath_open() does (nofollow: not following
 * links), an O_PATH descriptor; what names the output in the message.
 * Returns the descriptor, or -1 after a message. */
int outpath_open_dir(const char *what, const char *dir, int nofollow);

/* What is at t's path now, checked against the rule: nothing (0), or a
 * regular file the writer may replace by a rename (0), or a device or
 * FIFO it may write in place (1); refused (-1, after a message) when it
 * is a symbolic link or a directory, when a regular file in a sticky
 * directory (/tmp) belongs neither to the writer nor to the directory's
 * owner (the rename would fail; root may), when a device or FIFO in a
 * sticky directory does not belong to the writer (root included: another
 * user's FIFO would hang the writer or take the profile), or when a
 * device or FIFO is not writable. */
int outpath_check(const struct outpath *t);

/* The device or FIFO at t's path opened for writing, O_NONBLOCK, without
 * following a link: a FIFO that no process reads is refused at once
 * (ENXIO, "no reader") instead of blocking the open for ever.  The caller
 * clears O_NONBLOCK or writes with poll(2).  Returns the descriptor, or
 * -1 after a message naming the path. */
int outpath_open_special(const struct outpath *t);

/* A new file "PREFIX" + 6 random characters in dirfd (O_EXCL, not
 * following a link), mode 0644 (a profile is meant to be shared), its
 * name in name (size bytes).  mkstemp(3) has no *at form.  Returns the
 * descriptor, or -1 with errno set. */
int outpath_tmp_create(int dirfd, const char *prefix, char *name, size_t size);

#endif
