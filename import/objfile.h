/* SPDX-License-Identifier: GPL-2.0-only */
/* The files an exact-count run executed, named by path on this machine
 * (callgrind's ob= lines, the qemu engine's object lines), resolved once
 * each to a raw profile object: the build-ID of the file at that path,
 * else the MD5 of its bytes, and its PT_LOAD segments.  Used by
 * import/callgrind.c and import/qemucount.c: a count file is imported on
 * the machine it was made on, with the same files. */
#ifndef PGOPROF_OBJFILE_H
#define PGOPROF_OBJFILE_H

#include <stddef.h>
#include <stdint.h>
#include "../proc/elfaddr.h"
#include "../raw/rawprof.h"

/* Why a file's instructions are unattributed (the counter
 * instructions.unattributed.NAME; docs/raw-format.md). */
enum objfile_why {
	OBJ_UNKNOWN,		/* "unknown_object": the run named no file */
	OBJ_NO_FILE,		/* "no_file": not an ELF file here */
	OBJ_NO_SEGMENT,		/* "no_segment": outside its PT_LOADs */
	OBJ_VALGRIND,		/* "valgrind": valgrind's own preloads */
	OBJ_WHY_MAX
};
extern const char *const objfile_why_name[OBJ_WHY_MAX];

struct objfile {
	char *path;
	int usable;		/* 1: obj and segs are set */
	enum objfile_why why;	/* if not */
	uint32_t obj;		/* index into raw_profile.objs */
	struct load_seg *segs;
	int nsegs;
};

struct objfiles {
	struct raw_profile *p;
	struct objfile *v;
	size_t n, cap;
	size_t last;		/* the index objfile_get returned last */
};

/* The file at path ("" and "???": no file), resolved on first use and
 * added to t->p as an object if it is an ELF file.  The pointer is valid
 * until the next call.  Never fails: an unusable file says why. */
struct objfile *objfile_get(struct objfiles *t, const char *path);
void objfiles_free(struct objfiles *t);

#endif
