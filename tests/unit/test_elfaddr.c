/* SPDX-License-Identifier: GPL-2.0-only */
/* Address math: file offset <-> ELF virtual address over PT_LOAD segments,
 * on synthetic layouts and on real ELF files (a PIE and libc), and LLVM's
 * discriminator decoding. */
#include "check.h"
#include "../../proc/elfaddr.h"
#include "../../convert/symbolize.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static void test_synthetic(void)
{
	/* A typical PIE: r-- at 0, r-x at 0x1000, rw- at 0x3de8 / 0x2de8. */
	struct load_seg s[] = {
		{ 0x1000, 0x500, 0x1000, 0x500, PF_R | PF_X },
		{ 0x0, 0x800, 0x0, 0x800, PF_R },
		{ 0x2de8, 0x230, 0x3de8, 0x248, PF_R | PF_W },
	};
	uint64_t v, o;

	CHECK(offset_to_vaddr(s, 3, 0x1234, &v) == 0 && v == 0x1234);
	CHECK(offset_to_vaddr(s, 3, 0x2e00, &v) == 0 && v == 0x3e00);
	CHECK(offset_to_vaddr(s, 3, 0x1500, &v) == -1);	/* past filesz */
	CHECK(offset_to_vaddr(s, 3, 0x900, &v) == -1);		/* in a hole */
	CHECK(vaddr_to_offset(s, 3, 0x3e00, &o) == 0 && o == 0x2e00);
	CHECK(vaddr_to_offset(s, 3, 0x4020, &o) == -1);	/* .bss: no file bytes */
	/* A non-PIE executable: vaddr = offset + 0x400000. */
	struct load_seg e[] = { { 0x1000, 0x2000, 0x401000, 0x2000, PF_R | PF_X } };
	CHECK(offset_to_vaddr(e, 1, 0x1abc, &v) == 0 && v == 0x401abc);
	CHECK(vaddr_to_offset(e, 1, 0x401abc, &o) == 0 && o == 0x1abc);
}

/* Every byte of every PT_LOAD of a real file maps there and back. */
static void check_real_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	struct load_seg *segs;
	int n;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	n = elf_load_segments(elf, &segs);
	CHECK(n >= 2);
	CHECK(n > 0 && (segs[0].flags & PF_X));	/* code first */
	for (int i = 0; i < n; i++) {
		uint64_t v, o, step = segs[i].filesz / 97 + 1;

		for (uint64_t off = segs[i].offset; off < segs[i].offset + segs[i].filesz;
		     off += step) {
			CHECK(offset_to_vaddr(segs, n, off, &v) == 0);
			CHECK(vaddr_to_offset(segs, n, v, &o) == 0 && o == off);
		}
	}
	free(segs);
	elf_end(elf);
	close(fd);
}

static void test_real_libc(void)
{
	check_real_file("/lib/x86_64-linux-gnu/libc.so.6");
}

static void test_real_self(void)
{
	check_real_file("/proc/self/exe");
}

static void test_base_discriminator(void)
{
	/* Values from LLVM's encodeDiscriminator(base, dup, copy):
	 * base 0 -> 1 bit "1"; base b < 32 -> b << 1 (7 bits). */
	CHECK(sym_base_disc(0) == 0);
	CHECK(sym_base_disc(1) == 0);		/* base 0, more components */
	CHECK(sym_base_disc(2) == 1);
	CHECK(sym_base_disc(6) == 3);
	CHECK(sym_base_disc(62) == 31);
	/* base 3 with duplication factor 4: 3<<1 | (4<<1) << 7 */
	CHECK(sym_base_disc(6 | (8 << 7)) == 3);
	/* base 40 (> 31) uses the 14-bit form: prefix-encode 40 -> 0x48 | 0x20 */
	CHECK(sym_base_disc(((((40 & 0xfe0) << 1) | (40 & 0x1f) | 0x20)) << 1) == 40);
}

int main(void)
{
	RUN(test_synthetic);
	RUN(test_real_libc);
	RUN(test_real_self);
	RUN(test_base_discriminator);
	return tests_failed != 0;
}
