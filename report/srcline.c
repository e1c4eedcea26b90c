/* SPDX-License-Identifier: GPL-2.0-only */
/* Source lines by libdw.  libdwfl finds the debug info (the file itself,
 * .gnu_debuglink, /usr/lib/debug/.build-id); the unit of an address is
 * found in a table of the units' address ranges built here, since
 * dwarf_addrdie needs .debug_aranges, which clang does not emit. */
#include "srcline.h"
#include "../lib/util.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

struct cu_range {
	uint64_t lo, hi;	/* ELF virtual addresses [lo, hi) */
	Dwarf_Off die;		/* the unit's DIE */
};

struct srcline {
	Dwfl *dwfl;
	Dwarf *dw;		/* owned by dwfl */
	struct cu_range *r;
	size_t n, cap;
	char **paths;		/* relative names joined with their comp_dir */
	size_t npaths, cap_paths;
};

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static int cmp_range(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void index_units(struct srcline *s)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die die;
	uint8_t type;

	while (!dwarf_get_units(s->dw, cu, &cu, NULL, &type, &die, NULL)) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t k = 0;

		if (type != DW_UT_compile && type != DW_UT_partial &&
		    type != DW_UT_skeleton)
			continue;
		while ((k = dwarf_ranges(&die, k, &base, &lo, &hi)) > 0) {
			if (lo >= hi)
				continue;
			grow(&s->r, &s->cap, s->n + 1, sizeof(*s->r));
			s->r[s->n++] = (struct cu_range){ lo, hi, dwarf_dieoffset(&die) };
		}
	}
	sort(s->r, s->n, sizeof(*s->r), cmp_range);
}

struct srcline *srcline_open(const char *path)
{
	struct srcline *s = xcalloc(1, sizeof(*s));
	Dwfl_Module *mod;
	Dwarf_Addr bias;

	s->dwfl = dwfl_begin(&callbacks);
	if (!s->dwfl)
		goto fail;
	mod = dwfl_report_offline(s->dwfl, "", path, -1);
	dwfl_report_end(s->dwfl, NULL, NULL);
	if (!mod || !(s->dw = dwfl_module_getdwarf(mod, &bias)))
		goto fail;
	index_units(s);
	if (!s->n)
		goto fail;
	return s;
fail:
	srcline_close(s);
	return NULL;
}

void srcline_close(struct srcline *s)
{
	if (!s)
		return;
	if (s->dwfl)
		dwfl_end(s->dwfl);
	for (size_t i = 0; i < s->npaths; i++)
		free(s->paths[i]);
	free(s->paths);
	free(s->r);
	free(s);
}

/* A name in the line table that is relative is relative to its unit's
 * DW_AT_comp_dir (DWARF 5, section 6.2.4: directory entry 0): clang
 * writes "tests/x.c" for a file compiled below its working directory.
 * Joined once per name and kept in s. */
static const char *absolute(struct srcline *s, Dwarf_Die *cu, const char *file)
{
	Dwarf_Attribute a;
	const char *dir;
	char buf[4096];

	if (file[0] == '/' ||
	    !(dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a))) ||
	    (size_t)snprintf(buf, sizeof(buf), "%s/%s", dir, file) >= sizeof(buf))
		return file;
	for (size_t i = 0; i < s->npaths; i++)
		if (!strcmp(s->paths[i], buf))
			return s->paths[i];
	grow(&s->paths, &s->cap_paths, s->npaths + 1, sizeof(*s->paths));
	s->paths[s->npaths] = xstrdup(buf);
	return s->paths[s->npaths++];
}

const char *srcline_at(struct srcline *s, uint64_t vaddr, uint32_t *line)
{
	size_t lo = 0, hi = s->n;
	Dwarf_Die die;
	Dwarf_Line *l;
	const char *file;
	int ln = 0;

	while (lo < hi) {	/* the last range starting at or before vaddr */
		size_t mid = (lo + hi) / 2;

		if (s->r[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Ranges of different units do not overlap; look back a little in
	 * case one range lies inside another's span. */
	for (size_t i = lo, k = 0; i-- > 0 && k < 8; k++) {
		if (vaddr < s->r[i].lo || vaddr >= s->r[i].hi)
			continue;
		if (!dwarf_offdie(s->dw, s->r[i].die, &die) ||
		    !(l = dwarf_getsrc_die(&die, vaddr)))
			return NULL;
		file = dwarf_linesrc(l, NULL, NULL);
		if (!file || dwarf_lineno(l, &ln) || ln <= 0)
			return NULL;
		*line = (uint32_t)ln;
		return absolute(s, &die, file);
	}
	return NULL;
}
