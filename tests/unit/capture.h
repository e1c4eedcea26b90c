/* SPDX-License-Identifier: GPL-2.0-only */
/* A unit test's view of what a call printed on standard error: between
 * capture_begin() and capture_end(), stderr goes to a temporary file,
 * whose text capture_end() puts in buf (size bytes, NUL-terminated, cut
 * if long).  Header-only: each test is one program. */
#ifndef PGOPROF_CAPTURE_H
#define PGOPROF_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int capture_fd = -1, capture_saved = -1;

static inline void capture_begin(void)
{
	if (capture_fd < 0)
		capture_fd = fileno(tmpfile());
	if (capture_fd < 0 || ftruncate(capture_fd, 0) || lseek(capture_fd, 0, SEEK_SET))
		abort();
	fflush(stderr);
	capture_saved = dup(2);
	dup2(capture_fd, 2);
}

static inline void capture_end(char *buf, size_t size)
{
	ssize_t n;

	fflush(stderr);
	dup2(capture_saved, 2);
	close(capture_saved);
	n = pread(capture_fd, buf, size - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
}

#endif
