/* SPDX-License-Identifier: GPL-2.0-only */
/* Internals shared by the unwinder's source files (proc/unwind*.c) and
 * its unit test (tests/unit/test_unwind.c). */
#ifndef PGOPROF_UNWIND_INT_H
#define PGOPROF_UNWIND_INT_H

#include "unwind.h"

#include <elfutils/libdwfl.h>
#include <libelf.h>
#include <gelf.h>

#include <stddef.h>
#include <stdint.h>

/* A function of a file's symbol table: [lo, hi) as ELF virtual
 * addresses, and whether it sets up %rbp as its frame pointer. */
struct uw_func {
	uint64_t lo, hi;
	int frame;
};

/* One ELF file, shared by all processes that map it. */
struct uw_file {
	int state;		/* 0 not tried, 1 open, -1 unusable */
	int fd;
	Elf *elf;
	int keeps_fp;		/* -1 not decided yet */
	struct uw_func *funcs;	/* its functions, once keeps_fp is decided */
	size_t nfuncs;
	char *path;		/* the path that opened it */
};

/* A module reported to (or refused by) a process's Dwfl, remembered by an
 * address that located it, to check it again after new mappings. */
struct uw_mod {
	uint64_t addr, offset;
	uint32_t id;
	int ok;
};

struct uw_run;

struct uw_proc {
	pid_t pid;
	Dwfl *dwfl;
	int stale;		/* new mappings since the modules were checked */
	struct uw_mod *mods;
	size_t nmods, cap_mods;
	uint64_t used;		/* LRU clock */
	struct uw_run *run;	/* the unwind in progress, for the callbacks */
	struct uw_proc *next;
};

struct unwinder {
	enum unwind_mode mode;
	unwind_locate_fn locate;
	void *arg;
	struct uw_file *files;	/* indexed by unwind_file.id */
	size_t nfiles;
	struct uw_proc *procs[256];
	size_t nprocs;
	uint64_t clock;
	Elf *arch_elf;		/* an x86-64 ELF header: the Dwfl's architecture;
				 * NULL if libelf could not make it */
	unsigned char arch_image[sizeof(Elf64_Ehdr)];
	int said_no_dwfl;	/* the message of proc_reset was printed */
	struct unwind_stats st;
};

/* The open file of f, or NULL if it cannot be used.  A file replaced since
 * it was mapped has another build-ID; a process in another mount
 * namespace sees its path under /proc/PID/root.  u keeps it open. */
struct uw_file *uw_get_file(struct unwinder *u, pid_t pid,
			    const struct unwind_file *f);

/* The functions of elf (.symtab, else .dynsym), sorted, one per address;
 * *out is malloc'd (NULL when there are none).  Returns their number. */
size_t uw_elf_funcs(Elf *elf, struct uw_func **out);
/* Whether the function of f[0..n) that holds vaddr sets up a frame
 * pointer: 1, 0, or -1 when no function holds it. */
int uw_funcs_frame(const struct uw_func *f, size_t n, uint64_t vaddr);
/* unwind_keeps_fp() on an ELF file already open, with its functions. */
int uw_elf_keeps_fp(Elf *elf, const struct uw_func *f, size_t n);
/* Whether a compile unit's DW_AT_producer (the compiler's command line)
 * says it keeps frame pointers: the last of the options that decide it
 * wins, as on gcc's command line.  Returns 1 (frame pointers), 0 (none),
 * -1 (the producer does not say). */
int uw_producer_vote(const char *producer);

#endif
