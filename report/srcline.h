/* SPDX-License-Identifier: GPL-2.0-only */
/* The source file and line of an address of an ELF binary, from its DWARF
 * line table (libdw).  convert/symbolize.h gives inline chains and line
 * offsets, which are what compiler profiles need; a report shows people
 * file names and absolute lines. */
#ifndef PGOPROF_REPORT_SRCLINE_H
#define PGOPROF_REPORT_SRCLINE_H

#include <stdint.h>

struct srcline;

/* Open path's line tables (its own DWARF, else a separate debug file by
 * .gnu_debuglink or build-ID, as libdwfl finds them).  NULL if the file
 * cannot be read or has no DWARF: then no lines are known (not an error:
 * the caller reports lines as unknown). */
struct srcline *srcline_open(const char *path);
void srcline_close(struct srcline *s);

/* The file name (owned by s, valid until srcline_close) and line of ELF
 * virtual address vaddr; NULL if the line table has no row for it. */
const char *srcline_at(struct srcline *s, uint64_t vaddr, uint32_t *line);

#endif
