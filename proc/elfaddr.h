/* SPDX-License-Identifier: GPL-2.0-only */
/* File offsets <-> ELF virtual addresses over the PT_LOAD segments: the raw
 * profile speaks file offsets (what a mapping gives at run time, whatever
 * the load address), DWARF speaks ELF virtual addresses.  And the check of
 * an ELF file's structure that comes before, so that a damaged file is
 * named with the part that is damaged. */
#ifndef PGOPROF_ELFADDR_H
#define PGOPROF_ELFADDR_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

struct load_seg {
	uint64_t offset, filesz;	/* file bytes [offset, offset+filesz) */
	uint64_t vaddr, memsz;		/* loaded at [vaddr, vaddr+memsz) */
	uint32_t flags;			/* PF_X, PF_R, PF_W */
};

/* The PT_LOAD segments of elf, executable ones first (a sampled address is
 * in code; first match wins).  *segs is malloc'd.  Returns the count, or -1
 * on a malformed program header table. */
int elf_load_segments(Elf *elf, struct load_seg **segs);

/* Check the structure of elf, read from the file path of size bytes: the
 * ELF header, the program headers, the section header table and the
 * section names, each section's bytes inside the file (SHT_NOBITS aside),
 * and each compressed section's header (SHF_COMPRESSED; the data are
 * inflated by libdw later).  libelf reads them (elf32_getehdr.c,
 * elf_getphdrnum.c, elf_getshdrnum.c, elf_strptr.c, elf32_getchdr.c in
 * elfutils).  Returns 0; or -1 after one line naming path and the part
 * ("PATH: section .debug_line: bytes 0x3279..0x3331 lie past the end of
 * the file (12000 bytes): truncated? give the whole ELF file", or
 * "PATH: section 30: header: invalid data (libelf)"). */
int elf_check(Elf *elf, const char *path, uint64_t size);

/* Inflate every compressed section of elf (SHF_COMPRESSED, in memory:
 * elf_compress in elfutils' elf_compress.c), which libdw skips without a
 * word when it fails (libdw/dwarf_begin_elf.c check_section).  elf must be
 * opened with ELF_C_READ_MMAP_PRIVATE or ELF_C_READ.  Slow for big debug
 * sections: for explaining why libdw found no debug info.  Returns 0; or
 * -1 after one line "PATH: section NAME: inflating it: MESSAGE (libelf)". */
int elf_check_compressed(Elf *elf, const char *path);

/* File offset -> ELF virtual address.  Returns 0, or -1 if no segment holds
 * the offset. */
int offset_to_vaddr(const struct load_seg *segs, int n, uint64_t off,
		    uint64_t *vaddr);
/* ELF virtual address -> file offset (inverse of offset_to_vaddr for bytes
 * present in the file).  Returns 0 or -1. */
int vaddr_to_offset(const struct load_seg *segs, int n, uint64_t vaddr,
		    uint64_t *off);

#endif
