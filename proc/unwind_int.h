/* SPDX-License-Identifier: GPL-2.0-only */
/* Internals shared by the unwinder's source files (proc/unwind*.c). */
#ifndef PGOPROF_UNWIND_INT_H
#define PGOPROF_UNWIND_INT_H

#include <libelf.h>

#include <stddef.h>
#include <stdint.h>

/* A function of a file's symbol table: [lo, hi) as ELF virtual
 * addresses, and whether it sets up %rbp as its frame pointer. */
struct uw_func {
	uint64_t lo, hi;
	int frame;
};

/* The functions of elf (.symtab, else .dynsym), sorted, one per address;
 * *out is malloc'd (NULL when there are none).  Returns their number. */
size_t uw_elf_funcs(Elf *elf, struct uw_func **out);
/* Whether the function of f[0..n) that holds vaddr sets up a frame
 * pointer: 1, 0, or -1 when no function holds it. */
int uw_funcs_frame(const struct uw_func *f, size_t n, uint64_t vaddr);
/* unwind_keeps_fp() on an ELF file already open, with its functions. */
int uw_elf_keeps_fp(Elf *elf, const struct uw_func *f, size_t n);

#endif
