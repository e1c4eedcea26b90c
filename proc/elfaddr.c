/* SPDX-License-Identifier: GPL-2.0-only */
#include "elfaddr.h"
#include "../lib/util.h"

#include <stdlib.h>
#include <string.h>

int elf_load_segments(Elf *elf, struct load_seg **segs)
{
	size_t phnum;
	int n = 0;

	*segs = NULL;
	if (elf_getphdrnum(elf, &phnum))
		return -1;
	*segs = xcalloc(phnum, sizeof(**segs));
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph)) {
				free(*segs);
				*segs = NULL;
				return -1;
			}
			if (ph.p_type != PT_LOAD ||
			    !!(ph.p_flags & PF_X) != (pass == 0))
				continue;
			(*segs)[n++] = (struct load_seg){ ph.p_offset, ph.p_filesz,
							  ph.p_vaddr, ph.p_memsz,
							  ph.p_flags };
		}
	}
	return n;
}

int offset_to_vaddr(const struct load_seg *segs, int n, uint64_t off,
		    uint64_t *vaddr)
{
	for (int i = 0; i < n; i++) {
		if (off >= segs[i].offset && off - segs[i].offset < segs[i].filesz) {
			*vaddr = off - segs[i].offset + segs[i].vaddr;
			return 0;
		}
	}
	return -1;
}

int vaddr_to_offset(const struct load_seg *segs, int n, uint64_t vaddr,
		    uint64_t *off)
{
	for (int i = 0; i < n; i++) {
		if (vaddr >= segs[i].vaddr && vaddr - segs[i].vaddr < segs[i].filesz) {
			*off = vaddr - segs[i].vaddr + segs[i].offset;
			return 0;
		}
	}
	return -1;
}

static int elf_fail(const char *path, const char *part)
{
	return err("%s: %s: %s (libelf)", path, part, elf_errmsg(-1));
}

/* Bytes [off, off+len) of part lie inside the file of size bytes. */
static int check_bytes(const char *path, const char *part, uint64_t off,
		       uint64_t len, uint64_t size)
{
	if (off <= size && len <= size - off)
		return 0;
	return err("%s: %s: bytes 0x%llx..0x%llx lie past the end of the file (%llu bytes): truncated? give the whole ELF file",
		   path, part, (unsigned long long)off,
		   (unsigned long long)(off + len), (unsigned long long)size);
}

/* The bytes of section i (named name) lie in the file, and a compressed
 * section's header reads. */
static int check_section(Elf_Scn *scn, const GElf_Shdr *sh, const char *name,
			 const char *path, uint64_t size)
{
	char part[300];
	GElf_Chdr ch;

	snprintf(part, sizeof(part), "section %s", name);
	if (sh->sh_type != SHT_NOBITS && sh->sh_size &&
	    check_bytes(path, part, sh->sh_offset, sh->sh_size, size))
		return -1;
	if ((sh->sh_flags & SHF_COMPRESSED) && !gelf_getchdr(scn, &ch)) {
		snprintf(part, sizeof(part), "section %s: compression header", name);
		return elf_fail(path, part);
	}
	return 0;
}

static int check_sections(Elf *elf, const GElf_Ehdr *eh, const char *path,
			  uint64_t size)
{
	size_t shnum, shstrndx;
	char part[64];

	/* With more than 0xff00 sections, the first header holds the count. */
	if (eh->e_shoff && check_bytes(path, "section header table", eh->e_shoff,
				       (eh->e_shnum ? eh->e_shnum : 1) * (uint64_t)eh->e_shentsize,
				       size))
		return -1;
	if (elf_getshdrnum(elf, &shnum) || elf_getshdrstrndx(elf, &shstrndx))
		return elf_fail(path, "section header table");
	if (shnum && shstrndx >= shnum)
		return err("%s: ELF header: the section name table is section %zu of %zu (e_shstrndx): a damaged file",
			   path, shstrndx, shnum);
	for (size_t i = 1; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(elf, i);
		GElf_Shdr sh;
		const char *name;

		snprintf(part, sizeof(part), "section %zu: header", i);
		if (!scn || !gelf_getshdr(scn, &sh))
			return elf_fail(path, part);
		snprintf(part, sizeof(part), "section %zu: name", i);
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			return elf_fail(path, part);
		if (check_section(scn, &sh, name, path, size))
			return -1;
	}
	return 0;
}

int elf_check_compressed(Elf *elf, const char *path)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	char part[300];

	if (elf_getshdrstrndx(elf, &shstrndx))
		return elf_fail(path, "section header table");
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_COMPRESSED))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		snprintf(part, sizeof(part), "section %s: inflating it", name ? name : "?");
		if (elf_compress(scn, 0, 0) < 0)
			return elf_fail(path, part);
	}
	return 0;
}

int elf_check(Elf *elf, const char *path, uint64_t size)
{
	const unsigned char *id = (const unsigned char *)elf_rawfile(elf, NULL);
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t phnum;
	char part[64];

	if (elf_kind(elf) != ELF_K_ELF && size >= EI_NIDENT && id &&
	    !memcmp(id, ELFMAG, SELFMAG))
		return err("%s: ELF header: class %u, byte order %u: not known (a damaged file?)",
			   path, id[EI_CLASS], id[EI_DATA]);
	if (elf_kind(elf) != ELF_K_ELF)
		return err("%s: not an ELF file: give the executable or shared library", path);
	if (!gelf_getehdr(elf, &eh))
		return elf_fail(path, "ELF header");
	/* PN_XNUM: the count is in section 0, which libelf reads. */
	if (eh.e_phnum != PN_XNUM &&
	    check_bytes(path, "program header table", eh.e_phoff,
			eh.e_phnum * (uint64_t)eh.e_phentsize, size))
		return -1;
	if (elf_getphdrnum(elf, &phnum))
		return elf_fail(path, "program header table");
	for (size_t i = 0; i < phnum; i++) {
		snprintf(part, sizeof(part), "program header %zu", i);
		if (!gelf_getphdr(elf, (int)i, &ph))
			return elf_fail(path, part);
	}
	return check_sections(elf, &eh, path, size);
}
