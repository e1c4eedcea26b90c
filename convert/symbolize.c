/* SPDX-License-Identifier: GPL-2.0-only */
/* Symbolization with libdw: one pass over the DWARF builds a sorted index
 * of function address ranges; each lookup then finds its function by binary
 * search and descends only that function's DIE tree for inlined frames. */
#include "symbolize.h"
#include "../lib/util.h"
#include "../lib/hash.h"
#include "../lib/hindex.h"
#include "../lib/strtab.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* GNU extension: discriminator of an inlined call site (LLVM's
 * DwarfCompileUnit::constructInlinedScopeDIE emits it). */
#define DW_AT_GNU_discriminator_ 0x2136
#define MAX_DIE_DEPTH 256

/* The inlined subroutines of a function as a tree, built on first use:
 * node 0 is the function; each node's children's address ranges are
 * contiguous in inl_range and sorted by address, so the inline chain of
 * an address is found by one binary search per level instead of a walk
 * over the DIEs. */
struct inl_node {
	Dwarf_Off die;
	uint32_t first, n;	/* children's ranges in inl_range */
	/* Read once when the tree is built, so that a look-up reads no DIE:
	 * linkage name, DW_AT_decl_line (through abstract origins), and the
	 * call site's DW_AT_call_line and discriminator (inlined nodes). */
	const char *name;
	const char *file;	/* DW_AT_decl_file, absolute if it can be */
	uint32_t decl, call_line, call_disc;
};

struct inl_range {
	uint64_t lo, hi;
	uint32_t node;
};

struct inl_tree {
	struct inl_node *node;
	size_t nnodes, cap_nodes;
	struct inl_range *range;
	size_t nranges, cap_ranges;
};

struct func {
	Dwarf_Off die;
	struct inl_tree *inl;	/* NULL until first looked up */
	const char *name;	/* linkage name; NULL until first asked */
	uint32_t cu;		/* index in symbolizer.cus */
	uint64_t entry;		/* entry address: DW_AT_entry_pc/low_pc, else
				 * entry_by_symbol, else lowest range */
	uint8_t clang;		/* discriminators are LLVM-encoded */
	int8_t entry_state;	/* 0 unknown, 1 known, -1 none */
	struct sym_entry entry_loc;	/* when entry_state is 1 */
};

struct range {
	uint64_t low, high;
	uint32_t func;
};

/* What a look-up takes from a line-table row. */
struct line_row {
	uint32_t line, disc;
	uint8_t end;		/* ends a sequence: no line */
};

/* A compilation unit's line table, read on first use, for a binary search
 * without libdw's locks.  A row like the one before it (line,
 * discriminator, end of sequence) is left out: the row before answers for
 * its addresses the same. */
struct cu_lines {
	Dwarf_Off die;		/* the CU's DIE */
	int8_t state;		/* 0 not read, 1 read, -1 none */
	size_t nrows;
	uint64_t *addr;		/* [nrows], ascending */
	struct line_row *row;	/* [nrows] */
	size_t next;		/* where the last search ended */
};

/* A unit's address range, for sym_source_line: its own index, since
 * dwarf_addrdie needs .debug_aranges, which clang does not emit. */
struct cu_range {
	uint64_t lo, hi;	/* ELF virtual addresses [lo, hi) */
	Dwarf_Off die;		/* the unit's DIE */
};

struct symbolizer {
	char *path;
	Dwfl *dwfl;
	Dwfl *debug_dwfl;	/* --debug-binary, used even if path has DWARF */
	Dwfl_Module *mod;
	Elf *elf;
	GElf_Addr elf_bias;
	Dwarf *dw;
	const uint8_t *build_id;
	size_t build_id_len;
	struct load_seg *segs;
	int nsegs;
	struct func *funcs;
	size_t nfuncs, cap_funcs;
	struct range *ranges;
	size_t nranges, cap_ranges;
	struct cu_lines *cus;
	size_t ncus, cap_cus;
	struct hindex by_name;	/* funcs by name, built at the first look-up */
	struct insn_dec *dec;	/* NULL: a machine capstone does not decode */
	/* The last look-up, and the addresses [last_lo, last_hi) of its
	 * function that share its line-table row and inline chain: a walk
	 * over a function's instructions mostly asks for the same result. */
	const struct func *last_f;
	uint64_t last_lo, last_hi;
	struct sym_result last;
	/* The file of the DWARF (the binary, --debug-binary or the file
	 * libdwfl found), and the first error libdw gave in reading it. */
	const char *dwarf_path;
	char dwarf_err[256];
	int lines_warned;
	struct strtab files;	/* file names joined with their comp_dir */
	struct cu_range *cu_ranges;	/* sorted by lo; built at first use */
	size_t ncu_ranges, cap_cu_ranges;
	int cu_ranges_built;
	int want_files;		/* sym_want_files */
};

/* Keep the first DWARF error: "section SECTION: WHAT at offset 0xOFF:
 * libdw's message (libdw)". */
static void dwarf_problem(struct symbolizer *s, const char *section,
			  const char *what, uint64_t off)
{
	if (!s->dwarf_err[0])
		snprintf(s->dwarf_err, sizeof(s->dwarf_err),
			 "section %s: %s at offset 0x%llx: %s (libdw)", section,
			 what, (unsigned long long)off, dwarf_errmsg(-1));
}

/* A .gnu_debuglink is a file name, never a path: a crafted binary naming
 * "../../dev/zero" would make the standard search read forever (it checks
 * the CRC of what it opens). */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name,
			  const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	if (debuglink_file && strchr(debuglink_file, '/'))
		return -1;
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base,
					    file_name, debuglink_file,
					    debuglink_crc, debuginfo_file_name);
}

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static int is_clang(Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	const char *p = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &a));

	return p && strstr(p, "clang");
}

/* The entry of a function in several address ranges that has neither
 * DW_AT_entry_pc nor DW_AT_low_pc: the start of the range where an ELF
 * symbol other than a ".cold" part starts.  GCC splits functions into
 * "foo" and "foo.cold" (-freorder-blocks-and-partition, on at -O2) and
 * places the cold part in .text.unlikely, before .text: the lowest range
 * is then not the entry, and calls to the function would not be seen as
 * calls.  UINT64_MAX: no such symbol (a stripped .symtab). */
static uint64_t entry_by_symbol(struct symbolizer *s, size_t r0)
{
	for (size_t i = r0; i < s->nranges; i++) {
		GElf_Off off = 1;
		GElf_Sym sym;
		const char *name = dwfl_module_addrinfo(s->mod, s->ranges[i].low + s->elf_bias,
							&off, &sym, NULL, NULL, NULL);

		if (name && off == 0 && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
		    !strstr(name, ".cold"))
			return s->ranges[i].low;
	}
	return UINT64_MAX;
}

static void index_function(struct symbolizer *s, Dwarf_Die *die, int clang)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	uint32_t f = (uint32_t)s->nfuncs;
	uint64_t entry = UINT64_MAX, by_sym;
	size_t r0 = s->nranges;
	Dwarf_Addr epc;
	int any = 0;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo || lo == 0)
			continue;	/* discarded by the linker */
		grow(&s->ranges, &s->cap_ranges, s->nranges + 1, sizeof(*s->ranges));
		s->ranges[s->nranges++] = (struct range){ lo, hi, f };
		if (lo < entry)
			entry = lo;
		any = 1;
	}
	if (off < 0)
		dwarf_problem(s, ".debug_info", "the address ranges of the function DIE",
			      dwarf_dieoffset(die));
	if (!any)
		return;
	/* elfutils 0.188's dwarf_entrypc fails on DW_AT_ranges alone. */
	if (!dwarf_entrypc(die, &epc) && epc)
		entry = epc;
	else if (s->nranges - r0 > 1 && (by_sym = entry_by_symbol(s, r0)) != UINT64_MAX)
		entry = by_sym;
	grow(&s->funcs, &s->cap_funcs, s->nfuncs + 1, sizeof(*s->funcs));
	s->funcs[s->nfuncs++] = (struct func){ .die = dwarf_dieoffset(die),
					       .cu = (uint32_t)(s->ncus - 1),
					       .entry = entry,
					       .clang = (uint8_t)clang };
}

/* Subprograms at CU level, or inside namespaces and classes (C++). */
static void index_children(struct symbolizer *s, Dwarf_Die *parent, int clang,
			   int depth)
{
	Dwarf_Die d;
	int rc;

	if (depth > 16 || (rc = dwarf_child(parent, &d)) > 0)
		return;
	if (rc < 0) {
		dwarf_problem(s, ".debug_info", "the children of the DIE",
			      dwarf_dieoffset(parent));
		return;
	}
	do {
		switch (dwarf_tag(&d)) {
		case DW_TAG_subprogram:
			index_function(s, &d, clang);
			break;
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
			index_children(s, &d, clang, depth + 1);
			break;
		}
	} while ((rc = dwarf_siblingof(&d, &d)) == 0);
	if (rc < 0)
		dwarf_problem(s, ".debug_info", "the DIE after the one",
			      dwarf_dieoffset(&d));
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return (x->low > y->low) - (x->low < y->low);
}

static void build_index(struct symbolizer *s)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Die cu;
	int rc;

	while ((rc = dwarf_nextcu(s->dw, off, &next, &hsize, NULL, NULL, NULL)) == 0) {
		if (dwarf_offdie(s->dw, off + hsize, &cu)) {
			grow(&s->cus, &s->cap_cus, s->ncus + 1, sizeof(*s->cus));
			s->cus[s->ncus++] = (struct cu_lines){ .die = dwarf_dieoffset(&cu) };
			index_children(s, &cu, is_clang(&cu), 0);
		} else {
			dwarf_problem(s, ".debug_info", "the DIE of the unit", off + hsize);
		}
		off = next;
	}
	if (rc < 0)
		dwarf_problem(s, ".debug_info", "the header of the unit", off);
	sort(s->ranges, s->nranges, sizeof(*s->ranges), cmp_range);
}

static int open_elf_parts(struct symbolizer *s, const char *path)
{
	const void *id;
	ssize_t idlen;
	GElf_Ehdr eh;

	s->elf = dwfl_module_getelf(s->mod, &s->elf_bias);
	if (!s->elf)
		return err("%s: not a readable ELF file: %s (libdwfl)", path, dwfl_errmsg(-1));
	idlen = dwelf_elf_gnu_build_id(s->elf, &id);
	if (idlen > 0) {
		s->build_id = id;
		s->build_id_len = (size_t)idlen;
	}
	s->nsegs = elf_load_segments(s->elf, &s->segs);
	if (s->nsegs <= 0)
		return err("%s: no loadable segments (not an executable or shared library?)", path);
	if (gelf_getehdr(s->elf, &eh) && insn_open(eh.e_machine, &s->dec))
		return -1;
	return 0;
}

/* The DWARF of a separate debug file, whose build-ID must be the binary's:
 * a debug file of another build gives wrong lines without any error. */
static int open_debug_file(struct symbolizer *s, const char *debug_path)
{
	Dwfl_Module *m;
	Elf *elf;
	GElf_Addr bias;
	Dwarf_Addr dbias;
	const void *id;
	ssize_t len;

	s->debug_dwfl = dwfl_begin(&callbacks);
	m = s->debug_dwfl ? dwfl_report_offline(s->debug_dwfl, debug_path, debug_path, -1) : NULL;
	if (!m || dwfl_report_end(s->debug_dwfl, NULL, NULL))
		return err("%s: %s (libdwfl)", debug_path, dwfl_errmsg(-1));
	elf = dwfl_module_getelf(m, &bias);
	len = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
	if (s->build_id && (len != (ssize_t)s->build_id_len ||
			    memcmp(id, s->build_id, s->build_id_len))) {
		char a[2 * 64 + 1] = "(none)", b[2 * 64 + 1] = "(none)";

		hex_string(a, s->build_id, s->build_id_len > 64 ? 64 : s->build_id_len);
		if (len > 0 && len <= 64)
			hex_string(b, id, (size_t)len);
		return err("%s has build-ID %s but the binary %s has %s: give the debug file of this build",
			   debug_path, b, s->path, a);
	}
	s->dw = dwfl_module_getdwarf(m, &dbias);
	return 0;
}

/* A user-given ELF file: readable, a regular file (not a directory, which
 * libdwfl calls an "invalid file descriptor", nor a FIFO that would
 * block), and sound in its structure (elf_check); deep: its compressed
 * sections inflate too (elf_check_compressed). */
static int check_file(const char *path, int deep)
{
	struct stat st;
	Elf *elf;
	int fd, rc;

	if (stat(path, &st))
		return err("cannot open %s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return err("%s is a directory: give the ELF file", path);
	if (!S_ISREG(st.st_mode))
		return err("%s is not a regular file: give the ELF file", path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err("cannot open %s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	rc = elf ? elf_check(elf, path, (uint64_t)st.st_size) :
		   err("%s: %s (libelf)", path, elf_errmsg(-1));
	if (!rc && deep)
		rc = elf_check_compressed(elf, path);
	elf_end(elf);
	close(fd);
	return rc;
}

/* Why need_dwarf fails: a DWARF error, else a compressed section that did
 * not inflate, else no debug info.  One line. */
static void no_dwarf(struct symbolizer *s)
{
	if (s->dwarf_err[0])
		err("%s: %s: the debug info is damaged; rebuild, or pass an undamaged --debug-binary FILE",
		    s->dwarf_path, s->dwarf_err);
	else if (!check_file(s->dwarf_path, 1))
		err("%s: no debug info%s: build with -g, or pass --debug-binary FILE",
		    s->dwarf_path, s->dw ? " with functions" : "");
}

/* The file that holds the DWARF: --debug-binary, else the one libdwfl
 * found (.gnu_debuglink, /usr/lib/debug), else the binary. */
static const char *dwarf_file(struct symbolizer *s, const char *debug_path)
{
	const char *debugfile = NULL;

	if (debug_path)
		return debug_path;
	if (s->dw)
		dwfl_module_info(s->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	return debugfile ? debugfile : s->path;
}

struct symbolizer *sym_open(const char *path, const char *debug_path,
			    int need_dwarf)
{
	struct symbolizer *s;
	Dwarf_Addr bias;

	if (check_file(path, 0) || (debug_path && check_file(debug_path, 0)))
		return NULL;
	s = xcalloc(1, sizeof(*s));
	strtab_init(&s->files);
	s->path = xstrdup(path);
	s->dwfl = dwfl_begin(&callbacks);
	if (!s->dwfl)
		goto fail_msg;
	s->mod = dwfl_report_offline(s->dwfl, path, path, -1);
	if (!s->mod || dwfl_report_end(s->dwfl, NULL, NULL))
		goto fail_msg;
	if (open_elf_parts(s, path))
		goto fail;
	if (debug_path) {
		if (open_debug_file(s, debug_path))
			goto fail;
	} else {
		s->dw = dwfl_module_getdwarf(s->mod, &bias);
	}
	s->dwarf_path = dwarf_file(s, debug_path);
	if (s->dw)
		build_index(s);
	if (need_dwarf && (!s->dw || !s->nranges)) {
		no_dwarf(s);
		goto fail;
	}
	if (s->dwarf_err[0])
		warnx("warning: %s: %s: the functions there have no debug info",
		      s->dwarf_path, s->dwarf_err);
	return s;
fail_msg:
	err("%s: %s (libdwfl)", path, dwfl_errmsg(-1));
fail:
	sym_close(s);
	return NULL;
}

void sym_close(struct symbolizer *s)
{
	if (!s)
		return;
	insn_close(s->dec);
	strtab_free(&s->files);
	if (s->dwfl)
		dwfl_end(s->dwfl);
	if (s->debug_dwfl)
		dwfl_end(s->debug_dwfl);
	free(s->segs);
	hindex_free(&s->by_name);
	free(s->cu_ranges);
	for (size_t i = 0; i < s->nfuncs; i++) {
		if (s->funcs[i].inl) {
			free(s->funcs[i].inl->node);
			free(s->funcs[i].inl->range);
			free(s->funcs[i].inl);
		}
	}
	for (size_t i = 0; i < s->ncus; i++) {
		free(s->cus[i].addr);
		free(s->cus[i].row);
	}
	free(s->cus);
	free(s->funcs);
	free(s->ranges);
	free(s->path);
	free(s);
}

const uint8_t *sym_build_id(struct symbolizer *s, size_t *len)
{
	*len = s->build_id_len;
	return s->build_id;
}

const char *sym_path(const struct symbolizer *s)
{
	return s->path;
}

const struct load_seg *sym_segments(struct symbolizer *s, int *n)
{
	*n = s->nsegs;
	return s->segs;
}

uint32_t sym_base_disc(uint32_t d)
{
	if (d & 1)
		return 0;
	d >>= 1;
	return (d & 0x20) ? (((d >> 1) & 0xfe0) | (d & 0x1f)) : (d & 0x1f);
}

static const struct range *find_range(const struct symbolizer *s, uint64_t a)
{
	size_t lo = 0, hi = s->nranges;

	while (lo < hi) {	/* first range with low > a */
		size_t mid = lo + (hi - lo) / 2;

		if (s->ranges[mid].low <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Ranges of different functions do not overlap, but a function's
	 * range may contain another's (rare): look back a few. */
	for (size_t i = lo, k = 0; i-- > 0 && k < 8; k++)
		if (a < s->ranges[i].high)
			return &s->ranges[i];
	return NULL;
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		n = dwarf_formstring(&a);
	if (!n && dwarf_attr_integrate(die, DW_AT_name, &a))
		n = dwarf_formstring(&a);
	return n ? n : "";
}

static uint32_t die_udata(Dwarf_Die *die, unsigned attr, int integrate)
{
	Dwarf_Attribute a;
	Dwarf_Word w = 0;

	if (integrate ? dwarf_attr_integrate(die, attr, &a) : dwarf_attr(die, attr, &a))
		dwarf_formudata(&a, &w);
	return (uint32_t)w;
}

/* A file name of unit cu, joined with the unit's DW_AT_comp_dir if it is
 * relative (DWARF 5, section 6.2.4: directory entry 0; clang writes
 * "tests/x.c" for a file compiled below its working directory).  The
 * joined name is s's (s->files), once per name; else f itself. */
static const char *join_comp_dir(struct symbolizer *s, Dwarf_Die *cu,
				 const char *f)
{
	Dwarf_Attribute a;
	const char *dir;
	char buf[4096];

	if (f[0] == '/' ||
	    !(dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a))) ||
	    (size_t)snprintf(buf, sizeof(buf), "%s/%s", dir, f) >= sizeof(buf))
		return f;
	return strtab_get(&s->files, buf);
}

/* The file that declares the function of die (through abstract origins),
 * joined with its unit's DW_AT_comp_dir if relative; NULL if none. */
static const char *decl_file(struct symbolizer *s, Dwarf_Die *die)
{
	const char *f = dwarf_decl_file(die);
	Dwarf_Die cu;

	if (!f || !dwarf_diecu(die, &cu, NULL, NULL))
		return f;
	return join_comp_dir(s, &cu, f);
}

/* Collect the inlined subroutines directly below die (looking through
 * lexical blocks, which are not frames) into the children of node k. */
static void gather_inlined(Dwarf_Die *die, struct inl_tree *t, uint32_t k,
			   struct inl_range **tmp, size_t *ntmp, size_t *cap,
			   int depth)
{
	Dwarf_Die d;

	if (depth > MAX_DIE_DEPTH || dwarf_child(die, &d) != 0)
		return;
	do {
		int tag = dwarf_tag(&d);
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;

		if (tag == DW_TAG_lexical_block) {
			gather_inlined(&d, t, k, tmp, ntmp, cap, depth + 1);
			continue;
		}
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		grow(&t->node, &t->cap_nodes, t->nnodes + 1, sizeof(*t->node));
		t->node[t->nnodes] = (struct inl_node){ .die = dwarf_dieoffset(&d) };
		while ((off = dwarf_ranges(&d, off, &base, &lo, &hi)) > 0) {
			if (hi <= lo)
				continue;
			grow(tmp, cap, *ntmp + 1, sizeof(**tmp));
			(*tmp)[(*ntmp)++] = (struct inl_range){ lo, hi,
								(uint32_t)t->nnodes };
		}
		t->nnodes++;
	} while (dwarf_siblingof(&d, &d) == 0);
}

static int cmp_inl(const void *a, const void *b)
{
	const struct inl_range *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Build the children of node k, then theirs (breadth first, so that
 * each node's child ranges are appended in one block). */
static void build_inl(struct symbolizer *s, struct inl_tree *t)
{
	struct inl_range *tmp = NULL;
	size_t cap = 0;

	for (size_t k = 0; k < t->nnodes; k++) {
		Dwarf_Die die;
		size_t ntmp = 0;

		if (!dwarf_offdie(s->dw, t->node[k].die, &die))
			continue;	/* name stays NULL: the chain ends here */
		t->node[k].name = die_name(&die);
		t->node[k].decl = die_udata(&die, DW_AT_decl_line, 1);
		t->node[k].file = s->want_files ? decl_file(s, &die) : NULL;
		t->node[k].call_line = die_udata(&die, DW_AT_call_line, 0);
		t->node[k].call_disc = die_udata(&die, DW_AT_GNU_discriminator_, 0);
		gather_inlined(&die, t, (uint32_t)k, &tmp, &ntmp, &cap, 0);
		sort(tmp, ntmp, sizeof(*tmp), cmp_inl);
		grow(&t->range, &t->cap_ranges, t->nranges + ntmp, sizeof(*t->range));
		if (ntmp)
			memcpy(t->range + t->nranges, tmp, ntmp * sizeof(*tmp));
		t->node[k].first = (uint32_t)t->nranges;
		t->node[k].n = (uint32_t)ntmp;
		t->nranges += ntmp;
	}
	free(tmp);
}

static struct inl_tree *inl_tree(struct symbolizer *s, struct func *f)
{
	if (!f->inl) {
		f->inl = xcalloc(1, sizeof(*f->inl));
		grow(&f->inl->node, &f->inl->cap_nodes, 1, sizeof(*f->inl->node));
		f->inl->node[0] = (struct inl_node){ .die = f->die };
		f->inl->nnodes = 1;
		build_inl(s, f->inl);
	}
	return f->inl;
}

/* Addresses [lo, hi) around a looked-up one that give the same result. */
struct span {
	uint64_t lo, hi;
};

static void span_cut(struct span *sp, uint64_t lo, uint64_t hi)
{
	if (lo > sp->lo)
		sp->lo = lo;
	if (hi < sp->hi)
		sp->hi = hi;
}

/* The child of node k whose ranges hold addr, or -1; sp is narrowed to
 * the addresses for which the answer is the same. */
static long inl_child(const struct inl_tree *t, uint32_t k, uint64_t addr,
		      struct span *sp)
{
	const struct inl_range *r;
	size_t lo = 0, hi = t->node[k].n, n = t->node[k].n;

	if (!hi)
		return -1;
	r = t->range + t->node[k].first;
	while (lo < hi) {	/* first range with lo > addr */
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	span_cut(sp, lo ? r[lo - 1].lo : 0, lo < n ? r[lo].lo : UINT64_MAX);
	/* Siblings do not overlap, but look back a little in case. */
	for (size_t i = lo, m = 0; i-- > 0 && m < 4; m++) {
		if (addr < r[i].hi) {
			span_cut(sp, 0, r[i].hi);
			return (long)r[i].node;
		}
		span_cut(sp, r[i].hi, UINT64_MAX);
	}
	return -1;
}

/* A line table that libdw cannot read: one warning for the first. */
static void lines_problem(struct symbolizer *s, Dwarf_Off cu)
{
	if (s->lines_warned++)
		return;
	warnx("warning: %s: section .debug_line: the line table of the unit at .debug_info offset 0x%llx: %s (libdw): the samples of its functions have no line",
	      s->dwarf_path, (unsigned long long)cu, dwarf_errmsg(-1));
}

/* The line table of CU i; NULL if it has none. */
static struct cu_lines *cu_lines(struct symbolizer *s, uint32_t i)
{
	struct cu_lines *c = &s->cus[i];
	Dwarf_Lines *lines;
	size_t nlines;
	Dwarf_Die cu;
	int rc = -1;

	if (c->state == 0) {
		c->state = -1;
		if (dwarf_offdie(s->dw, c->die, &cu) &&
		    (rc = dwarf_getsrclines(&cu, &lines, &nlines)) &&
		    dwarf_hasattr(&cu, DW_AT_stmt_list))
			lines_problem(s, c->die);
		if (!rc && nlines) {
			c->addr = xmalloc(nlines * sizeof(*c->addr));
			c->row = xmalloc(nlines * sizeof(*c->row));
			for (size_t k = 0; k < nlines; k++) {
				Dwarf_Line *l = dwarf_onesrcline(lines, k);
				Dwarf_Addr a = 0;
				unsigned disc = 0;
				int lineno = 0;
				bool end = false;
				struct line_row r;

				dwarf_lineaddr(l, &a);
				dwarf_lineno(l, &lineno);
				dwarf_linediscriminator(l, &disc);
				dwarf_lineendsequence(l, &end);
				r = (struct line_row){ (uint32_t)lineno, disc, end };
				if (c->nrows && c->row[c->nrows - 1].line == r.line &&
				    c->row[c->nrows - 1].disc == r.disc &&
				    c->row[c->nrows - 1].end == r.end)
					continue;
				c->addr[c->nrows] = a;
				c->row[c->nrows++] = r;
			}
			c->state = 1;
		}
	}
	return c->state > 0 ? c : NULL;
}

/* The row for addr, as dwarf_getsrc_die finds it: the last row at or
 * below addr, unless that ends a sequence.  NULL if none. */
static const struct line_row *cu_line_at(struct cu_lines *c, uint64_t addr,
					 struct span *sp)
{
	size_t lo = 0, hi = c->nrows;

	/* Walks ask in ascending order: start from the last answer. */
	if (c->next && c->next <= c->nrows && c->addr[c->next - 1] <= addr) {
		lo = c->next;
		for (int k = 0; k < 4 && lo < c->nrows && c->addr[lo] <= addr; k++)
			lo++;
		if (lo == c->nrows || addr < c->addr[lo])
			hi = lo;
	}

	while (lo < hi) {	/* first row above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (c->addr[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	c->next = lo;
	if (!lo)
		return NULL;
	span_cut(sp, c->addr[lo - 1], lo < c->nrows ? c->addr[lo] : UINT64_MAX);
	return c->row[lo - 1].end ? NULL : &c->row[lo - 1];
}

/* Push onto chain the nodes of the inlined subroutines that contain addr,
 * outermost first, after chain[0] (the function). */
static void inline_chain(const struct inl_tree *t, uint64_t addr,
			 uint32_t *chain, int *n, int *truncated, struct span *sp)
{
	long k = 0;

	while ((k = inl_child(t, (uint32_t)k, addr, sp)) >= 0) {
		if (*n >= SYM_MAX_FRAMES) {
			*truncated = 1;
			sp->hi = sp->lo;	/* not reused */
			return;
		}
		if (!t->node[k].name)
			return;
		chain[(*n)++] = (uint32_t)k;
	}
}

static enum sym_status lookup_in(struct symbolizer *s, struct func *f,
				 uint64_t addr, struct sym_result *r,
				 struct span *sp)
{
	const struct inl_tree *t = inl_tree(s, f);
	struct cu_lines *cl;
	uint32_t chain[SYM_MAX_FRAMES];
	const struct line_row *line;
	int n = 1;

	r->truncated = 0;
	if (!t->node[0].name)
		return SYM_NO_FUNCTION;
	chain[0] = 0;
	inline_chain(t, addr, chain, &n, &r->truncated, sp);
	cl = cu_lines(s, f->cu);
	line = cl ? cu_line_at(cl, addr, sp) : NULL;
	if (!line)
		return SYM_NO_LINE;
	r->nframes = n;
	for (int i = 0; i < n; i++) {
		const struct inl_node *nd = &t->node[chain[i]];
		const struct inl_node *in = i + 1 < n ? &t->node[chain[i + 1]] : NULL;
		uint32_t ln = in ? in->call_line : line->line;
		uint32_t d = in ? in->call_disc : line->disc;

		r->frames[i].name = nd->name;
		r->frames[i].line_offset = (ln - nd->decl) & 0xffff;
		r->frames[i].line = ln;
		r->frames[i].decl_line = nd->decl;
		r->frames[i].file = nd->file;
		r->frames[i].disc = f->clang ? sym_base_disc(d) : d;
	}
	return SYM_OK;
}

/* Where the function's entry address lies in its own body (frame 0). */
static void entry_location(struct symbolizer *s, struct func *f)
{
	struct sym_result *r;
	struct span sp = { 0, UINT64_MAX };

	f->entry_state = -1;
	r = xmalloc(sizeof(*r));
	if (lookup_in(s, f, f->entry, r, &sp) == SYM_OK) {
		f->entry_state = 1;
		f->entry_loc = (struct sym_entry){
			.nframes = r->nframes,
			.offset = r->frames[0].line_offset,
			.disc = r->frames[0].disc,
			.in_offset = r->frames[r->nframes - 1].line_offset,
			.in_disc = r->frames[r->nframes - 1].disc,
		};
	}
	free(r);
}

static void copy_result(struct sym_result *d, const struct sym_result *r)
{
	d->nframes = r->nframes;
	memcpy(d->frames, r->frames, (size_t)r->nframes * sizeof(*r->frames));
	d->entry = r->entry;
	d->truncated = r->truncated;
}

int sym_at_entry(const struct sym_result *r)
{
	const struct sym_frame *in = &r->frames[r->nframes - 1];

	return r->entry.nframes == r->nframes &&
	       r->frames[0].line_offset == r->entry.offset &&
	       r->frames[0].disc == r->entry.disc &&
	       in->line_offset == r->entry.in_offset &&
	       in->disc == r->entry.in_disc;
}

enum sym_status sym_lookup(struct symbolizer *s, uint64_t vaddr,
			   struct sym_result *r)
{
	const struct range *rg = find_range(s, vaddr);
	struct span sp = { 0, UINT64_MAX };
	struct func *f;
	enum sym_status st;

	if (!rg)
		return SYM_NO_FUNCTION;
	f = &s->funcs[rg->func];
	if (f == s->last_f && vaddr >= s->last_lo && vaddr < s->last_hi) {
		copy_result(r, &s->last);
		return SYM_OK;
	}
	st = lookup_in(s, f, vaddr, r, &sp);
	if (st != SYM_OK)
		return st;
	if (f->entry_state == 0)
		entry_location(s, f);
	r->entry = f->entry_state > 0 ? f->entry_loc : (struct sym_entry){ 0 };
	s->last_f = f;
	s->last_lo = sp.lo;
	s->last_hi = sp.hi;
	copy_result(&s->last, r);
	return SYM_OK;
}

static const char *func_name(struct symbolizer *s, size_t i)
{
	struct func *f = &s->funcs[i];
	Dwarf_Die die;

	if (!f->name)
		f->name = dwarf_offdie(s->dw, f->die, &die) ? die_name(&die) : "";
	return f->name;
}

const char *sym_function_name(struct symbolizer *s, uint64_t vaddr)
{
	const struct range *rg = s->dw ? find_range(s, vaddr) : NULL;
	const char *n;

	if (rg) {
		n = func_name(s, rg->func);
		if (*n)
			return n;
	}
	n = dwfl_module_addrname(s->mod, vaddr + s->elf_bias);
	return n && *n ? n : NULL;
}

long sym_function_at(struct symbolizer *s, uint64_t vaddr)
{
	const struct range *rg = find_range(s, vaddr);

	return rg ? (long)rg->func : -1;
}

/* by_name's hash and equality: the names are filled in (func_name) before
 * the index is built. */
static uint64_t fname_hash(const void *s, size_t i)
{
	return hash_str(HASH_INIT, ((const struct symbolizer *)s)->funcs[i].name);
}

static int fname_eq(const void *s, size_t i, const void *name)
{
	return !strcmp(((const struct symbolizer *)s)->funcs[i].name, name);
}

long sym_function_by_name(struct symbolizer *s, const char *name)
{
	size_t *slot;

	if (!s->by_name.cap) {
		for (size_t i = 0; i < s->nfuncs; i++)
			func_name(s, i);
		hindex_rebuild(&s->by_name, s->nfuncs, 1024, fname_hash, s);
	}
	slot = hindex_find(&s->by_name, hash_str(HASH_INIT, name), fname_eq, s, name);
	return *slot ? (long)(*slot - 1) : -1;
}

/* cb(name, size, arg) for each named function symbol of .symtab (or
 * .dynsym), in the table's order. */
static void each_function_symbol(struct symbolizer *s,
				 void (*cb)(const char *name, uint64_t size, void *arg),
				 void *arg)
{
	int nsym = s->mod ? dwfl_module_getsymtab(s->mod) : -1;

	for (int i = 1; i < nsym; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(s->mod, i, &sym, &addr, NULL,
							    NULL, NULL);

		if (name && *name && GELF_ST_TYPE(sym.st_info) == STT_FUNC)
			cb(name, sym.st_size, arg);
	}
}

struct name_list {
	char **v;
	size_t n, cap;
};

static void add_split(const char *name, uint64_t size, void *arg)
{
	struct name_list *l = arg;
	const char *part = strstr(name, ".part.");

	(void)size;
	if (!part || part == name)
		return;
	grow(&l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n] = xstrdup(name);
	l->v[l->n++][part - name] = '\0';
}

size_t sym_split_functions(struct symbolizer *s, char ***names)
{
	struct name_list l = { 0 };
	size_t k = 0;

	each_function_symbol(s, add_split, &l);
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), cmp_cstr);
	for (size_t i = 0; i < l.n; i++) {	/* each once */
		if (k && !strcmp(l.v[k - 1], l.v[i]))
			free(l.v[i]);
		else
			l.v[k++] = l.v[i];
	}
	*names = l.v;
	return k;
}

struct name_size {
	char *name;
	uint64_t bytes;
};

static int cmp_name_size(const void *a, const void *b)
{
	const struct name_size *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->bytes < y->bytes) - (x->bytes > y->bytes);
}

struct size_list {
	struct name_size *v;
	size_t n, cap;
};

static void add_size(const char *name, uint64_t size, void *arg)
{
	struct size_list *l = arg;

	if (*name == '.' || !size)
		return;
	grow(&l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n].name = xstrdup(name);
	l->v[l->n].name[strcspn(name, ".")] = '\0';
	l->v[l->n++].bytes = size;
}

size_t sym_function_sizes(struct symbolizer *s, char ***names, uint64_t **bytes)
{
	struct size_list l = { 0 };
	size_t k = 0;

	each_function_symbol(s, add_size, &l);
	*names = NULL;
	*bytes = NULL;
	if (!l.n)
		return 0;
	qsort(l.v, l.n, sizeof(*l.v), cmp_name_size);	/* largest first per name */
	*names = xmalloc(l.n * sizeof(**names));
	*bytes = xmalloc(l.n * sizeof(**bytes));
	for (size_t i = 0; i < l.n; i++) {
		if (k && !strcmp((*names)[k - 1], l.v[i].name)) {
			free(l.v[i].name);
			continue;
		}
		(*names)[k] = l.v[i].name;
		(*bytes)[k++] = l.v[i].bytes;
	}
	free(l.v);
	return k;
}

/* ---- Source lines for people (report) ---- */

static int cmp_cu_range(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The address ranges of the compile, partial and skeleton units. */
static void index_unit_ranges(struct symbolizer *s)
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
			grow(&s->cu_ranges, &s->cap_cu_ranges, s->ncu_ranges + 1,
			     sizeof(*s->cu_ranges));
			s->cu_ranges[s->ncu_ranges++] =
				(struct cu_range){ lo, hi, dwarf_dieoffset(&die) };
		}
	}
	sort(s->cu_ranges, s->ncu_ranges, sizeof(*s->cu_ranges), cmp_cu_range);
}

/* The index after the last unit range that starts at or before vaddr. */
static size_t cu_range_after(const struct symbolizer *s, uint64_t vaddr)
{
	size_t lo = 0, hi = s->ncu_ranges;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->cu_ranges[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const char *sym_source_line(struct symbolizer *s, uint64_t vaddr,
			    uint32_t *line)
{
	Dwarf_Die die;
	Dwarf_Line *l;
	const char *file;
	int ln = 0;

	if (!s->dw)
		return NULL;
	if (!s->cu_ranges_built) {
		index_unit_ranges(s);
		s->cu_ranges_built = 1;
	}
	/* Ranges of different units do not overlap; look back a little in
	 * case one range lies inside another's span. */
	for (size_t i = cu_range_after(s, vaddr), k = 0; i-- > 0 && k < 8; k++) {
		const struct cu_range *r = &s->cu_ranges[i];

		if (vaddr < r->lo || vaddr >= r->hi)
			continue;
		if (!dwarf_offdie(s->dw, r->die, &die) ||
		    !(l = dwarf_getsrc_die(&die, vaddr)))
			return NULL;
		file = dwarf_linesrc(l, NULL, NULL);
		if (!file || dwarf_lineno(l, &ln) || ln <= 0)
			return NULL;
		*line = (uint32_t)ln;
		return join_comp_dir(s, &die, file);
	}
	return NULL;
}

/* ---- Instructions (decoded by insn.c) ---- */

/* The file's bytes at ELF virtual address vaddr: NULL if vaddr is in no
 * segment, beyond the file, or nothing decodes here; else *left bytes
 * from there to the end of the file, *before bytes before it. */
static const uint8_t *code_at(struct symbolizer *s, uint64_t vaddr,
			      size_t *left, size_t *before)
{
	size_t size;
	const uint8_t *img;
	uint64_t off;

	if (!s->dec || !(img = (const uint8_t *)elf_rawfile(s->elf, &size)) ||
	    vaddr_to_offset(s->segs, s->nsegs, vaddr, &off) || off > size)
		return NULL;
	*left = size - off;
	*before = off;
	return img + off;
}

int sym_follows_call(struct symbolizer *s, uint64_t vaddr)
{
	size_t left, before;
	const uint8_t *code = code_at(s, vaddr, &left, &before);

	return code ? insn_call_before(s->dec, code, before, vaddr) : 0;
}

unsigned sym_insn_kind(struct symbolizer *s, uint64_t vaddr, uint32_t *len)
{
	size_t left, before;
	const uint8_t *code = code_at(s, vaddr, &left, &before);

	*len = 0;
	if (!code)
		return INSN_NONE;
	return insn_kind(s->dec, code, left < 16 ? left : 16, vaddr, len);
}

uint32_t sym_insn_text(struct symbolizer *s, uint64_t vaddr, char *buf,
		       size_t size)
{
	size_t left, before;
	const uint8_t *code = code_at(s, vaddr, &left, &before);

	if (!code) {
		snprintf(buf, size, "(no code)");
		return 0;
	}
	return insn_text(s->dec, code, left < 16 ? left : 16, vaddr, buf, size);
}

void sym_want_files(struct symbolizer *s)
{
	s->want_files = 1;
}

size_t sym_range_insns(struct symbolizer *s, uint64_t begin, uint64_t end,
		       void (*cb)(uint64_t off, void *arg), void *arg)
{
	uint64_t v0, v, last;
	size_t n = 0;

	if (offset_to_vaddr(s->segs, s->nsegs, begin, &v0) ||
	    offset_to_vaddr(s->segs, s->nsegs, end, &last))
		return 0;
	for (v = v0; v <= last;) {
		uint32_t len = 0;

		cb(begin + (v - v0), arg);
		n++;
		sym_insn_kind(s, v, &len);
		if (!len)
			break;
		v += len;
	}
	return n;
}

uint64_t sym_branch_target(struct symbolizer *s, uint64_t vaddr)
{
	size_t left, before;
	const uint8_t *code = code_at(s, vaddr, &left, &before);

	if (!code)
		return UINT64_MAX;
	return insn_branch_target(s->dec, code, left < 16 ? left : 16, vaddr);
}

/* Every instruction of function fn, over its ranges in address order. */
static size_t walk_function(struct symbolizer *s, long fn, int with_kind,
			    void (*cb)(uint64_t, uint32_t, unsigned, void *),
			    void *arg)
{
	size_t size, n = 0;
	const uint8_t *img;

	if (!s->dec || fn < 0 || (size_t)fn >= s->nfuncs ||
	    !(img = (const uint8_t *)elf_rawfile(s->elf, &size)))
		return 0;
	for (size_t i = 0; i < s->nranges; i++) {
		uint64_t off, addr = s->ranges[i].low, hi = s->ranges[i].high;

		if (s->ranges[i].func != (uint32_t)fn)
			continue;
		while (addr < hi && !vaddr_to_offset(s->segs, s->nsegs, addr, &off) &&
		       off < size) {
			size_t left = (size_t)(hi - addr) < size - off
					      ? (size_t)(hi - addr) : size - off;

			addr = insn_walk(s->dec, img + off, left, addr, with_kind,
					 cb, arg, &n);
			addr++;	/* skip a byte that does not decode */
		}
	}
	return n;
}

struct plain_walk {
	void (*cb)(uint64_t vaddr, uint32_t len, void *arg);
	void *arg;
};

static void without_kind(uint64_t vaddr, uint32_t len, unsigned kind, void *arg)
{
	const struct plain_walk *w = arg;

	(void)kind;
	w->cb(vaddr, len, w->arg);
}

size_t sym_function_insns(struct symbolizer *s, long fn,
			  void (*cb)(uint64_t vaddr, uint32_t len, void *arg),
			  void *arg)
{
	struct plain_walk w = { cb, arg };

	return walk_function(s, fn, 0, without_kind, &w);
}

size_t sym_function_insns_kind(struct symbolizer *s, long fn,
			       void (*cb)(uint64_t vaddr, uint32_t len,
					  unsigned kind, void *arg),
			       void *arg)
{
	return walk_function(s, fn, 1, cb, arg);
}

/* ---- Discriminators and entries for branch records (convert/lbr.c) ---- */

uint64_t sym_function_entry(struct symbolizer *s, long fn)
{
	return fn >= 0 && (size_t)fn < s->nfuncs ? s->funcs[fn].entry : UINT64_MAX;
}

/* DILocation::getDuplicationFactorFromDiscriminator: the component after
 * the base discriminator, prefix-encoded like it. */
static uint32_t dup_factor(uint32_t d)
{
	uint32_t f;

	d = (d & 1) == 0 ? d >> ((d & 0x40) ? 14 : 7) : d >> 1;
	if (d & 1)
		return 1;
	d >>= 1;
	f = (d & 0x20) ? (((d >> 1) & 0xfe0) | (d & 0x1f)) : (d & 0x1f);
	return f ? f : 1;
}

uint32_t sym_dup_factor(struct symbolizer *s, uint64_t vaddr)
{
	const struct range *rg = find_range(s, vaddr);
	struct cu_lines *cl;
	struct span sp = { 0, UINT64_MAX };
	const struct line_row *line;

	if (!rg || !s->funcs[rg->func].clang ||
	    !(cl = cu_lines(s, s->funcs[rg->func].cu)) ||
	    !(line = cu_line_at(cl, vaddr, &sp)))
		return 1;
	return dup_factor(line->disc);
}

int sym_starts_function(struct symbolizer *s, uint64_t vaddr)
{
	long fn = sym_function_at(s, vaddr);
	GElf_Off off = 1;
	GElf_Sym sym;

	if (fn >= 0)
		return sym_function_entry(s, fn) == vaddr;
	return dwfl_module_addrinfo(s->mod, vaddr + s->elf_bias, &off, &sym,
				    NULL, NULL, NULL) && off == 0;
}
