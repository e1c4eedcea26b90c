/* SPDX-License-Identifier: GPL-2.0-only */
/* A binary and its object in a raw profile, both ways: the object of a
 * --binary (with the message when there is none), and the file still at
 * an object's recorded path.  The rule itself is raw/match.c's
 * (docs/raw-format.md section 3.3); this is its one use with symbolizers,
 * for convert, show, check and report. */
#ifndef PGOPROF_BINOBJ_H
#define PGOPROF_BINOBJ_H

#include "symbolize.h"
#include "../raw/rawprof.h"

/* Index of the object of binary s in raw profile p (read from raw_path),
 * by raw_binary_object() with s's path and build-ID; recorded_path is
 * --recorded-path, or NULL.  -1 after its one message on stderr that says
 * why not. */
int binobj_find(struct symbolizer *s, const struct raw_profile *p,
		const char *raw_path, const char *recorded_path);

/* Object o's binary at the path it was recorded at, opened without the
 * need for DWARF: NULL if that path is not absolute or not readable, if
 * sym_open() fails (after its message), or if the file is no longer o
 * (raw_file_is_object: rebuilt or replaced since recording).  The caller
 * closes it (sym_close). */
struct symbolizer *binobj_open_recorded(const struct raw_object *o);

#endif
