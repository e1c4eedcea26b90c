/* SPDX-License-Identifier: GPL-2.0-only */
/* Files named by path -> raw profile objects; see objfile.h. */
#include "objfile.h"
#include "../proc/buildid.h"
#include "../lib/md5.h"
#include "../lib/util.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const objfile_why_name[OBJ_WHY_MAX] = {
	"unknown_object", "no_file", "no_segment", "valgrind",
};

/* Valgrind's own objects, preloaded into every process it runs. */
static int valgrind_object(const char *path)
{
	const char *b = strrchr(path, '/');

	return !strncmp(b ? b + 1 : path, "vgpreload_", 10);
}

/* Open path (from the input) only if it is a regular file: opening a
 * device can do something (a tape rewinds, a watchdog starts) and a FIFO
 * is someone else's.  Returns 0 with *fd open, or -1 with *fd = -1. */
static int regular_file(const char *path, int *fd)
{
	struct stat st;

	*fd = -1;
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return -1;
	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (*fd >= 0 && (fstat(*fd, &st) || !S_ISREG(st.st_mode))) {
		close(*fd);	/* replaced since stat() */
		*fd = -1;
	}
	return *fd >= 0 ? 0 : -1;
}

/* The object of the ELF file at path: its build-ID, else the MD5 of its
 * bytes; and its PT_LOAD segments. */
static void open_file(struct raw_profile *p, struct objfile *f)
{
	uint8_t id[RAW_BUILD_ID_MAX];
	uint32_t len;
	Elf *elf = NULL;
	int fd = -1;

	f->why = OBJ_NO_FILE;
	if (!f->path[0] || !strcmp(f->path, "???")) {
		f->why = OBJ_UNKNOWN;
		return;
	}
	if (valgrind_object(f->path)) {
		f->why = OBJ_VALGRIND;
		return;
	}
	if (!regular_file(f->path, &fd))
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF &&
	    (f->nsegs = elf_load_segments(elf, &f->segs)) > 0) {
		if (!buildid_read_fd(fd, id, sizeof(id), &len))
			f->obj = raw_object(p, id, len, f->path);
		else if (!md5_fd(fd, RAW_CONTENT_MAX, id))
			f->obj = raw_object_id(p, RAW_ID_CONTENT, id,
					       MD5_DIGEST_LEN, f->path);
		else
			len = 0, f->nsegs = 0;
		f->usable = f->nsegs > 0;
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
}

struct objfile *objfile_get(struct objfiles *t, const char *path)
{
	struct objfile *f;

	/* Lines come function by function: mostly the last file. */
	if (t->last < t->n && !strcmp(t->v[t->last].path, path))
		return &t->v[t->last];
	for (t->last = 0; t->last < t->n; t->last++)
		if (!strcmp(t->v[t->last].path, path))
			return &t->v[t->last];
	elf_version(EV_CURRENT);
	grow(&t->v, &t->cap, t->n + 1, sizeof(*t->v));
	f = &t->v[t->n];
	memset(f, 0, sizeof(*f));
	f->path = xstrdup(path);
	open_file(t->p, f);
	t->last = t->n++;
	return f;
}

void objfiles_free(struct objfiles *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].path);
		free(t->v[i].segs);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}
