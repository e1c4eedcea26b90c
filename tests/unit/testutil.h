/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers the unit tests share (header-only: each test is one program). */
#ifndef PGOPROF_TESTUTIL_H
#define PGOPROF_TESTUTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>
#include "../../convert/fstree.h"
#include "../../convert/llvm_text.h"
#include "../../proc/elfaddr.h"

/* p as LLVM text (malloc'd): what the tests compare profiles by. */
static inline char *profile_text(const struct fs_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	llvm_text_write(p, f);
	fclose(f);
	return buf;
}

static inline int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* dir/name in one of 8 rotating static buffers: up to 8 in one call. */
static inline char *test_path(const char *dir, const char *name)
{
	static char buf[8][600];
	static int k;
	char *p = buf[k++ % 8];

	snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
	return p;
}

/* system() of the formatted command (at most 4095 bytes). */
static inline int test_run(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static inline int test_run(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* This test program's path (in self, PATH_MAX bytes) and its PT_LOAD
 * segments (*segs malloc'd): the object the importers' tests name.
 * Returns the number of segments, executable ones first, or -1. */
static inline int test_self_segments(char *self, struct load_seg **segs)
{
	ssize_t n = readlink("/proc/self/exe", self, PATH_MAX - 1);
	int fd, nsegs;
	Elf *elf;

	self[n > 0 ? n : 0] = '\0';
	elf_version(EV_CURRENT);
	if ((fd = open(self, O_RDONLY)) < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	nsegs = elf ? elf_load_segments(elf, segs) : -1;
	elf_end(elf);
	close(fd);
	return nsegs;
}

#endif
