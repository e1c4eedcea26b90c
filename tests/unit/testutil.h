/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers the unit tests share (header-only: each test is one program). */
#ifndef PGOPROF_TESTUTIL_H
#define PGOPROF_TESTUTIL_H

#include <stdio.h>
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

#endif
