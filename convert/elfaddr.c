#include "elfaddr.h"
#include "../lib/util.h"

#include <stdlib.h>

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
