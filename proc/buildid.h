/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PGOPROF_BUILDID_H
#define PGOPROF_BUILDID_H

#include <stdint.h>

/* Read the GNU build-ID (NT_GNU_BUILD_ID note in a PT_NOTE segment) of the
 * ELF file open on fd, into id (at most max bytes; *len gets its length).
 * Only the ELF header, program headers and note segments are read, each
 * bounded, so a crafted file costs at most a few KiB of reads.  Returns 0,
 * or -1 if the file is not ELF or has no build-ID (no message). */
int buildid_read_fd(int fd, uint8_t *id, uint32_t max, uint32_t *len);

#endif
