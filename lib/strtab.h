/* SPDX-License-Identifier: GPL-2.0-only */
/* Interned strings, numbered in the order they were first added: one copy
 * of each, so that names compare by pointer (report) and a format's string
 * table is the array itself (pprof's Profile.string_table). */
#ifndef PGOPROF_STRTAB_H
#define PGOPROF_STRTAB_H

#include "hindex.h"

#include <stddef.h>

/* Zero-initialized (or strtab_init), it is an empty table. */
struct strtab {
	char **v;		/* string number -> the copy, n of them */
	size_t n, cap;
	struct hindex index;	/* the strings by FNV-1a */
};

void strtab_init(struct strtab *t);
/* Free every string the table holds (pointers it gave become invalid). */
void strtab_free(struct strtab *t);
/* The number of s in t, added (copied) if new: 0, 1, ... in the order of
 * first addition.  Never fails (allocation exits). */
size_t strtab_id(struct strtab *t, const char *s);
/* The number of s in t, or -1 if t does not hold it (nothing added). */
long strtab_find(const struct strtab *t, const char *s);
/* The table's copy of s (added if new): owned by t, stable until
 * strtab_free. */
const char *strtab_get(struct strtab *t, const char *s);

#endif
