/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof-record's output, written by a child process with the rights of
 * the user who asked for it (docs/threat-model.md, "Output file"). */
#ifndef PGOPROF_OUTWRITER_H
#define PGOPROF_OUTWRITER_H

#include <stddef.h>
#include <sys/types.h>

struct outwriter {
	pid_t pid;		/* the writer; 0 when not started */
	int data;		/* to the writer: u64 length, then the bytes */
	int status;		/* from the writer: one byte per step */
};

/* Fork the writer for PATH, before anything privileged is open; it checks
 * PATH while the caller goes on, and outwriter_ready() waits for its word
 * (waiting here cost pgoprof-record's start up to 25 ms on a busy machine
 * until the child was scheduled).  The writer checks PATH against the
 * output rule of lib/outpath.h (no symbolic link in the directory part
 * while the writer is root; no link, directory, another user's device or
 * FIFO in a sticky directory at PATH) and that it may create and remove
 * a file in the directory.  as_user: the writer first becomes uid:gid
 * (become_user, lib/sudo.h), as the sudo user is; else it keeps the
 * caller's user ID and drops every capability but root's.  The writer
 * ignores SIGINT, SIGTERM and SIGHUP (it exits when its socket closes).
 * Returns 0, or -1 after a message (no process to fork). */
int outwriter_start(struct outwriter *w, const char *path, uid_t uid,
		    gid_t gid, int as_user);

/* Wait for the writer's check of PATH: 0 when it passed, else -1 after a
 * message naming PATH (the writer prints it) and the writer is stopped.
 * Call it before the profiled command can start. */
int outwriter_ready(struct outwriter *w);

/* Hand the whole file (len bytes) to the writer, which checks PATH again,
 * writes a temporary in PATH's directory and renames it over PATH.  A
 * device or FIFO is written in place, opened without blocking: a FIFO
 * that no process reads fails at once, and a signal caught while waiting
 * here (the caller's handlers must not set SA_RESTART) makes the writer
 * give up a reader that does not take the bytes.  When writing PATH fails
 * (a full disk, no reader), the writer saves the bytes under $TMPDIR,
 * /var/tmp or /tmp instead and says where.  Returns 0 when PATH was
 * written, -1 otherwise (the writer has printed why).  The writer has
 * exited when this returns. */
int outwriter_commit(struct outwriter *w, const void *buf, size_t len);

/* Stop the writer without a file; safe after a commit and when the writer
 * was never started. */
void outwriter_abort(struct outwriter *w);

#endif
