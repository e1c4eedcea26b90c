/* SPDX-License-Identifier: GPL-2.0-only */
/* Format: the ELF gABI (program headers, note entries) and binutils'
 * NT_GNU_BUILD_ID (type 3, owner "GNU").  Written by hand and bounded
 * because the privileged collector must not link a general ELF parser. */
#include "buildid.h"

#include <elf.h>
#include <string.h>
#include <unistd.h>

#define NOTE_MAX 4096

static int get_le(const uint8_t *p, int n, uint64_t *v)
{
	*v = 0;
	for (int i = n - 1; i >= 0; i--)
		*v = *v << 8 | p[i];
	return 0;
}

static int scan_notes(const uint8_t *n, size_t len, uint8_t *id, uint32_t max,
		      uint32_t *idlen)
{
	size_t pos = 0;

	while (len - pos >= 12) {
		uint64_t namesz, descsz, type;

		get_le(n + pos, 4, &namesz);
		get_le(n + pos + 4, 4, &descsz);
		get_le(n + pos + 8, 4, &type);
		pos += 12;
		size_t nameal = (namesz + 3) & ~(uint64_t)3;
		size_t descal = (descsz + 3) & ~(uint64_t)3;
		if (nameal > len - pos || descal > len - pos - nameal)
			return -1;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(n + pos, "GNU", 4) && descsz > 0 && descsz <= max) {
			memcpy(id, n + pos + nameal, descsz);
			*idlen = (uint32_t)descsz;
			return 0;
		}
		pos += nameal + descal;
	}
	return -1;
}

int buildid_read_fd(int fd, uint8_t *id, uint32_t max, uint32_t *len)
{
	uint8_t eh[64], ph[56], notes[NOTE_MAX];
	uint64_t phoff, phnum, phentsize;
	int is64;

	if (pread(fd, eh, sizeof(eh), 0) < 52 || memcmp(eh, ELFMAG, SELFMAG) ||
	    eh[EI_DATA] != ELFDATA2LSB)
		return -1;
	is64 = eh[EI_CLASS] == ELFCLASS64;
	get_le(eh + (is64 ? 32 : 28), is64 ? 8 : 4, &phoff);
	get_le(eh + (is64 ? 54 : 42), 2, &phentsize);
	get_le(eh + (is64 ? 56 : 44), 2, &phnum);
	if (phentsize < (is64 ? 56u : 32u) || phnum > 256)
		return -1;
	for (uint64_t i = 0; i < phnum; i++) {
		uint64_t type, off, size;
		ssize_t got;

		if (pread(fd, ph, is64 ? 56 : 32, phoff + i * phentsize) !=
		    (is64 ? 56 : 32))
			return -1;
		get_le(ph, 4, &type);
		if (type != PT_NOTE)
			continue;
		get_le(ph + (is64 ? 8 : 4), is64 ? 8 : 4, &off);
		get_le(ph + (is64 ? 32 : 16), is64 ? 8 : 4, &size);
		if (size > NOTE_MAX)
			size = NOTE_MAX;
		got = pread(fd, notes, size, off);
		if (got > 0 && !scan_notes(notes, (size_t)got, id, max, len))
			return 0;
	}
	return -1;
}
