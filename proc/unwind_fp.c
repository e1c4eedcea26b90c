/* SPDX-License-Identifier: GPL-2.0-only */
/* Does an ELF file keep frame pointers, and does a function of it?
 * (--call-graph auto walks frame pointers only in functions that set one
 * up, in files that keep them.)  For the file, the compiler's own record
 * is the best evidence: gcc writes its options into DW_AT_producer
 * ("GNU C17 12.2.0 -mtune=generic -O2 -fno-omit-frame-pointer").  clang
 * does not, and most libraries carry no DWARF: then the prologues decide,
 * since a function that keeps a frame pointer sets it up early with
 * mov %rsp,%rbp.  For a function, its prologue decides: one file can mix
 * code with and without frame pointers (a sanitizer's or libFuzzer's
 * runtime linked into a program built with them). */
#include "unwind.h"
#include "unwind_int.h"
#include "../lib/util.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CUS 64		/* compile units read for DW_AT_producer */
#define MAX_FUNCS (1u << 20)	/* functions in a file's table */
/* gcc -fno-omit-frame-pointer still gives leaf functions no frame, and
 * startup code (crt*.o) has none: a third of the functions with a frame
 * is already far above code built without frame pointers, where only
 * functions with alloca or stack realignment set one up (libc: ~2%). */
#define FP_PERCENT 25
#define PROLOGUE_BYTES 48

int uw_producer_vote(const char *p)
{
	const char *no = NULL, *yes = NULL, *opt = NULL;
	int gcc = !strncmp(p, "GNU C", 5) || !strncmp(p, "GNU Fortran", 11);

	for (const char *s = p; (s = strstr(s, " -")); s++) {
		if (!strncmp(s, " -fno-omit-frame-pointer", 24))
			yes = s;
		else if (!strncmp(s, " -fomit-frame-pointer", 21))
			no = s;
		else if (!strncmp(s, " -O", 3))
			opt = s;
	}
	if (yes || no)
		return yes > no;
	if (!gcc)
		return -1;
	/* gcc omits the frame pointer from -O1 up, on x86-64. */
	return !opt || !strncmp(opt, " -O0", 4);
}

/* Votes of the first compile units: 1, 0, or -1 when none says. */
static int producer_verdict(Elf *elf)
{
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	Dwarf_Off off = 0, next;
	size_t hsize;
	int yes = 0, no = 0;

	if (!dw)
		return -1;
	for (int i = 0; i < MAX_CUS &&
	     !dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL); i++) {
		Dwarf_Die cu;
		Dwarf_Attribute a;
		const char *p;

		if (dwarf_offdie(dw, off + hsize, &cu) &&
		    (p = dwarf_formstring(dwarf_attr(&cu, DW_AT_producer, &a)))) {
			int v = uw_producer_vote(p);

			yes += v == 1;
			no += v == 0;
		}
		off = next;
	}
	dwarf_end(dw);
	return yes + no ? yes >= no : -1;
}

/* mov %rsp,%rbp among the first bytes: gcc schedules the prologue and
 * shrink-wraps it (an early return may come first), so it is not always
 * the second instruction. */
static int sets_frame_pointer(const uint8_t *p, size_t n)
{
	static const uint8_t mov_rsp_rbp[3] = { 0x48, 0x89, 0xe5 };

	if (n > PROLOGUE_BYTES)
		n = PROLOGUE_BYTES;
	return memmem(p, n, mov_rsp_rbp, sizeof(mov_rsp_rbp)) != NULL;
}

static int cmp_func(const void *a, const void *b)
{
	const struct uw_func *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The FUNC symbols of one symbol table that lie in a PROGBITS section,
 * appended with whether each sets up a frame pointer. */
static void add_funcs(Elf *elf, Elf_Scn *symscn, const uint8_t *img,
		      size_t size, struct uw_func **f, size_t *n, size_t *cap)
{
	Elf_Data *d = elf_getdata(symscn, NULL);
	GElf_Shdr sh, text;
	GElf_Sym sym;
	Elf_Scn *scn;

	if (!d || !gelf_getshdr(symscn, &sh) || !sh.sh_entsize)
		return;
	for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && *n < MAX_FUNCS; i++) {
		if (!gelf_getsym(d, (int)i, &sym) ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_size ||
		    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE ||
		    !(scn = elf_getscn(elf, sym.st_shndx)) ||
		    !gelf_getshdr(scn, &text) || text.sh_type != SHT_PROGBITS ||
		    sym.st_value < text.sh_addr ||
		    sym.st_value - text.sh_addr >= text.sh_size)
			continue;
		uint64_t at = sym.st_value - text.sh_addr + text.sh_offset;
		if (at >= size || size - at < sym.st_size)
			continue;
		grow(f, cap, *n + 1, sizeof(**f));
		(*f)[(*n)++] = (struct uw_func){
			sym.st_value, sym.st_value + sym.st_size,
			sets_frame_pointer(img + at, sym.st_size) };
	}
}

size_t uw_elf_funcs(Elf *elf, struct uw_func **out)
{
	size_t size = 0, n = 0, cap = 0, k = 0;
	const uint8_t *img = (const uint8_t *)elf_rawfile(elf, &size);
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh;

	*out = NULL;
	if (!img)
		return 0;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			symtab = scn;
		else if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM)
			dynsym = scn;
	if (symtab)
		add_funcs(elf, symtab, img, size, out, &n, &cap);
	if (!n && dynsym)
		add_funcs(elf, dynsym, img, size, out, &n, &cap);
	sort(*out, n, sizeof(**out), cmp_func);
	for (size_t i = 0; i < n; i++)	/* aliases: one entry per address */
		if (!k || (*out)[i].lo != (*out)[k - 1].lo)
			(*out)[k++] = (*out)[i];
	return k;
}

int uw_funcs_frame(const struct uw_func *f, size_t n, uint64_t vaddr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {	/* the last function that starts at or before */
		size_t mid = lo + (hi - lo) / 2;

		if (f[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && vaddr < f[lo - 1].hi ? f[lo - 1].frame : -1;
}

int uw_elf_keeps_fp(Elf *elf, const struct uw_func *f, size_t n)
{
	int v = producer_verdict(elf);
	size_t frames = 0;

	if (v >= 0)
		return v;
	for (size_t i = 0; i < n; i++)
		frames += f[i].frame;
	return n && frames * 100 >= n * FP_PERCENT;
}

int unwind_keeps_fp(int fd)
{
	struct uw_func *f = NULL;
	Elf *elf;
	int v;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return 0;
	if (elf_kind(elf) == ELF_K_ELF) {
		size_t n = uw_elf_funcs(elf, &f);

		v = uw_elf_keeps_fp(elf, f, n);
	} else {
		v = 0;
	}
	free(f);
	elf_end(elf);
	return v;
}
