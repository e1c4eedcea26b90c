/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers the unit tests share (header-only: each test is one program). */
#ifndef PGOPROF_TESTUTIL_H
#define PGOPROF_TESTUTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "../../convert/fstree.h"
#include "../../convert/llvm_text.h"

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

#endif
