/* SPDX-License-Identifier: GPL-2.0-only */
/* The compiler profile formats by name: detection, reading any of them into
 * a function-sample tree (or a raw profile, for the commands that take
 * either), and writing one atomically. */
#ifndef PGOPROF_FORMATS_H
#define PGOPROF_FORMATS_H

#include "fstree.h"
#include "../raw/rawprof.h"

enum prof_format {
	FMT_NONE,
	FMT_LLVM_TEXT,
	FMT_LLVM_EXTBINARY,
	FMT_AFDO,
};

struct write_options {
	enum prof_format format;
	int md5_names;		/* extbinary */
	int compress;		/* extbinary */
	int afdo_version;	/* 1 or 2 */
	int quiet;		/* afdo: no notes on the GCC view's changes */
};

/* "llvm-text", "llvm-extbinary", "afdo" -> format; FMT_NONE if unknown. */
enum prof_format format_by_name(const char *name);
const char *format_name(enum prof_format f);

/* "2", "1" or "llvm" -> the afdo_write version word (1, 2 or
 * AFDO_VERSION_LLVM); -1 for any other name, without a message (the
 * caller names the option it came from). */
int afdo_version_by_name(const char *name);

/* What buf holds: FMT_NONE if no compiler format (e.g. a raw profile). */
enum prof_format format_detect(const uint8_t *buf, size_t len);

/* 1 if head (the first len bytes of a file) may begin a raw profile or a
 * compiler profile, else 0: the input_probe of read_input() for commands
 * that take either. */
int profile_probe(const uint8_t *head, size_t len);

/* A profile of either kind, read once (a pipe cannot be read twice). */
struct any_profile {
	int is_raw;
	struct raw_profile raw;		/* if is_raw */
	struct fs_profile fs;		/* if not */
	enum prof_format fmt;		/* of fs */
};

/* Read path ("-": standard input; see read_input) into p: a raw profile
 * or a compiler profile of any format.  Returns 0, or -1 with one message
 * naming the file (p then holds nothing to free). */
int any_profile_read(struct any_profile *p, const char *path);
void any_profile_free(struct any_profile *p);
/* "raw", or the compiler profile's format_name(). */
const char *any_profile_kind(const struct any_profile *p);

/* GCC 12 was seen to crash on AutoFDO counts near 1e9
 * (docs/convert.md, section 10): for FMT_AFDO, scale p down so that its largest
 * count is AFDO_MAX_COUNT, saying so on stderr; other formats unchanged. */
#define AFDO_MAX_COUNT 1000000
void scale_for_format(struct fs_profile *p, const struct write_options *o);

/* Parse a compiler profile of any format from buf (NUL-terminated one
 * past len, as read_input gives it) into p (fs_init'ed by the caller);
 * *fmt gets the format.  Returns 0, or -1 with one message naming path. */
int profile_parse(const uint8_t *buf, size_t len, const char *path,
		  struct fs_profile *p, enum prof_format *fmt);

/* Write p (fs_finish'ed) to path atomically, or to stdout if path is NULL
 * or "-" (binary formats are refused on a terminal).  Returns 0 or -1 with
 * a message naming the file and, for a write error, the reason. */
int profile_write(const struct fs_profile *p, const struct write_options *o,
		  const char *path);

#endif
