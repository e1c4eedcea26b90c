/* SPDX-License-Identifier: GPL-2.0-only */
/* One function of a raw profile, instruction by instruction and line by
 * line: its self samples (or executions) per instruction, each
 * instruction with the line of the function's own source that it belongs
 * to (inlined code at the line of its call), as perf annotate and pprof
 * -list show them.  cli/annotate.c prints it. */
#ifndef PGOPROF_REPORT_ANNOTATE_H
#define PGOPROF_REPORT_ANNOTATE_H

#include <stddef.h>
#include <stdint.h>
#include "syms.h"

struct ann_insn {
	uint64_t vaddr;		/* ELF virtual address */
	uint64_t off;		/* file offset (the raw profile's) */
	uint32_t line;		/* in the function's own file; 0: none */
	uint64_t count;		/* self samples (leaf), or executions */
};

struct ann_func {
	const char *name;	/* the linkage name, as asked */
	const char *file;	/* DW_AT_decl_file; NULL if not known */
	uint32_t decl_line;	/* 0 if not known */
	uint32_t obj;		/* the object that holds it */
	struct symbolizer *sym;	/* its binary (the rep_syms') */
	enum rep_walk walk;	/* what the counts are */
	struct ann_insn *v;	/* in address order */
	size_t n;
	uint64_t total;		/* the sum of the counts */
};

/* The instructions of the function of linkage name name in the first
 * object of s's profile whose binary has it (DWARF) with samples (else
 * the first that has it), with the counts of
 * the profile: its stacks' leaves, else its IP samples, else its ranges
 * (each instruction of a range counted, as rep_walk_raw counts).  Call
 * before anything else looks up s's frames (the symbolizers are asked
 * for files).  Returns 0, or -1 after a message naming raw_path if no
 * binary has the function.  Free with ann_free. */
int ann_build(struct rep_syms *s, const struct raw_profile *p,
	      const char *raw_path, const char *name, struct ann_func *out);
void ann_free(struct ann_func *a);

#endif
