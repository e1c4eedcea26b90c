/* The compiler profile formats by name: detection, reading any of them into
 * a function-sample tree, and writing one atomically. */
#ifndef PGOPROF_FORMATS_H
#define PGOPROF_FORMATS_H

#include "fstree.h"

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
};

/* "llvm-text", "llvm-extbinary", "afdo" -> format; FMT_NONE if unknown. */
enum prof_format format_by_name(const char *name);
const char *format_name(enum prof_format f);

/* "2", "1" or "llvm" -> the afdo_write version word; exits with status 2
 * and a message naming the choices otherwise (a command-line helper). */
int afdo_version_by_name(const char *name);

/* What buf holds: FMT_NONE if no compiler format (e.g. a raw profile). */
enum prof_format format_detect(const uint8_t *buf, size_t len);

/* Read a compiler profile of any format from path into p (fs_init'ed by
 * the caller).  *fmt gets the format.  Returns 0, or -1 with one message
 * naming the file. */
int profile_read(const char *path, struct fs_profile *p, enum prof_format *fmt);

/* GCC 12 was seen to crash on AutoFDO counts near 1e9
 * (../shared/REFERENCE.md): for FMT_AFDO, scale p down so that its largest
 * count is AFDO_MAX_COUNT, saying so on stderr; other formats unchanged. */
#define AFDO_MAX_COUNT 1000000
void scale_for_format(struct fs_profile *p, const struct write_options *o);

/* profile_read of a file already in memory (buf NUL-terminated one past
 * len, as read_whole_file gives it); path names it in messages. */
int profile_parse(const uint8_t *buf, size_t len, const char *path,
		  struct fs_profile *p, enum prof_format *fmt);

/* Write p (fs_finish'ed) to path atomically, or to stdout if path is NULL
 * or "-" (binary formats are refused on a terminal).  Returns 0 or -1 with
 * a message naming the file. */
int profile_write(const struct fs_profile *p, const struct write_options *o,
		  const char *path);

#endif
