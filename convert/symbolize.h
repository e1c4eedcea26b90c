/* SPDX-License-Identifier: GPL-2.0-only */
/* One ELF binary and its debug info: ELF virtual address -> inline chain
 * (linkage name, line offset, discriminator per frame), with libdw. */
#ifndef PGOPROF_SYMBOLIZE_H
#define PGOPROF_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>
#include "insn.h"
#include "../proc/elfaddr.h"

#define SYM_MAX_FRAMES 64

/* One frame of an inline chain.  line/disc locate the point inside this
 * frame's function: the sampled instruction in the innermost frame, the
 * call site of the next-inner frame otherwise.  line_offset is
 * (line - DW_AT_decl_line) & 0xffff, as LLVM's FunctionSamples::getOffset
 * computes it (llvm/include/llvm/ProfileData/SampleProf.h). */
struct sym_frame {
	const char *name;	/* linkage name; owned by the symbolizer */
	uint32_t line_offset;
	uint32_t disc;		/* base discriminator (see sym_base_disc) */
	/* The source line itself (line_offset before the subtraction) and
	 * the function's DW_AT_decl_line: for pprof's Line and Function. */
	uint32_t line, decl_line;
	/* The file that declares the function (DW_AT_decl_file), absolute
	 * when its unit's DW_AT_comp_dir makes it so; NULL if the DWARF
	 * names none, or sym_want_files was not called.  Owned by the
	 * symbolizer. */
	const char *file;
};

/* Where a function's entry address lies, for the head sample estimate
 * (sym_at_entry): its frames[0] line offset and discriminator, its inline
 * depth, and its innermost frame's line offset and discriminator, so that
 * code inlined at the entry's line is told apart from the entry itself. */
struct sym_entry {
	int nframes;		/* 0: the entry's location is unknown */
	uint32_t offset, disc;
	uint32_t in_offset, in_disc;
};

struct sym_result {
	int nframes;		/* frames[0] is the outermost (real) function */
	struct sym_frame frames[SYM_MAX_FRAMES];
	struct sym_entry entry;	/* of frames[0]'s function */
	int truncated;		/* inline nesting deeper than SYM_MAX_FRAMES */
};

enum sym_status {
	SYM_OK,
	SYM_NO_FUNCTION,	/* no DWARF subprogram covers the address */
	SYM_NO_LINE,		/* the CU's line table has no row for it */
};

struct symbolizer;

/* Open binary (and its debug info: debug_path if given, else the binary's
 * own .debug_info, else .gnu_debuglink or /usr/lib/debug/.build-id/).
 * need_dwarf: fail when no debug info is found.  Returns NULL after a
 * one-line message naming the file and the fix: also for a directory or
 * another file that is not regular, and for a damaged file, with the part
 * (elf_check in elfaddr.h), the DWARF section and offset (libdw's error),
 * or the compressed section that does not inflate.  DWARF that libdw
 * cannot read after some functions were read is a warning line, and so is
 * the first line table that it cannot read (at the first look-up). */
struct symbolizer *sym_open(const char *path, const char *debug_path,
			    int need_dwarf);
void sym_close(struct symbolizer *s);

/* The binary's GNU build-ID; *len bytes, owned by s.  NULL if it has none. */
const uint8_t *sym_build_id(struct symbolizer *s, size_t *len);
/* The path s was opened with; owned by s. */
const char *sym_path(const struct symbolizer *s);
const struct load_seg *sym_segments(struct symbolizer *s, int *n);

/* The instruction at vaddr as capstone's assembly text into buf (size
 * bytes); its length, 0 if it does not decode. */
uint32_t sym_insn_text(struct symbolizer *s, uint64_t vaddr, char *buf,
		       size_t size);

/* Fill sym_frame.file from now on (before the first look-up): it reads
 * each unit's file table, which only pprof's Function.filename needs. */
void sym_want_files(struct symbolizer *s);

/* The source file and line of ELF virtual address vaddr for people (a
 * report), where sym_lookup gives line offsets for compiler profiles:
 * the row of the line table (libdw's dwarf_getsrc_die) of the unit whose
 * address ranges hold vaddr.  The name is absolute when its unit's
 * DW_AT_comp_dir makes it so, owned by s until sym_close; NULL (*line
 * untouched) if no unit or row holds vaddr, or s has no DWARF: not an
 * error, the line is unknown. */
const char *sym_source_line(struct symbolizer *s, uint64_t vaddr,
			    uint32_t *line);

/* Whether R (a sym_lookup result) is at its function's entry location:
 * the same line offset and discriminator in frames[0] as the entry address,
 * at the same inline depth and innermost line, so that the samples of
 * code inlined at the entry's line are not taken for entries.  HEAD's
 * estimate in IP mode (docs/convert.md, section 7). */
int sym_at_entry(const struct sym_result *r);

/* Symbolize an ELF virtual address of the binary. */
enum sym_status sym_lookup(struct symbolizer *s, uint64_t vaddr,
			   struct sym_result *r);
/* Linkage name of the (non-inlined) function containing vaddr: from DWARF,
 * else from .symtab/.dynsym.  NULL if none.  Owned by s. */
const char *sym_function_name(struct symbolizer *s, uint64_t vaddr);
/* 1 if the instruction that ends at vaddr is a call (so vaddr is a
 * plausible return address), 0 if not, decoded with capstone. */
int sym_follows_call(struct symbolizer *s, uint64_t vaddr);

/* Index of the (non-inlined) function containing vaddr, or -1. */
long sym_function_at(struct symbolizer *s, uint64_t vaddr);
/* Decode the instructions of function fn (from sym_function_at) with
 * capstone, in address order over all its ranges, calling
 * cb(vaddr, length in bytes, arg) for each.  A byte that does not decode is
 * skipped.  Returns the number of instructions. */
size_t sym_function_insns(struct symbolizer *s, long fn,
			  void (*cb)(uint64_t vaddr, uint32_t len, void *arg),
			  void *arg);

/* Index of the function whose linkage name is name, or -1. */
long sym_function_by_name(struct symbolizer *s, const char *name);

/* The functions GCC split into a head and a body clone (ipa-split,
 * gcc/ipa-split.cc, split_function: the body becomes NAME.part.N, a
 * function symbol of .symtab or .dynsym), by NAME, each once, sorted by
 * strcmp.  *names: a malloc'd array of malloc'd strings, NULL when there
 * are none; the count is returned (0 also when there is no symbol table). */
size_t sym_split_functions(struct symbolizer *s, char ***names);

/* The size in bytes of each function symbol (STT_FUNC of .symtab or
 * .dynsym), by its name cut at the first '.' (GCC's clones, F.constprop.N
 * and the like, count as F), the largest where several have one name;
 * sorted by strcmp.  *names and *bytes: malloc'd parallel arrays (names
 * malloc'd too), NULL when there are none; the count is returned. */
size_t sym_function_sizes(struct symbolizer *s, char ***names, uint64_t **bytes);

/* LLVM's base discriminator from a clang-encoded one: the inverse of
 * DILocation::encodeDiscriminator's first component
 * (llvm/include/llvm/IR/DebugInfoMetadata.h,
 * getBaseDiscriminatorFromDiscriminator, getUnsignedFromPrefixEncoding). */
uint32_t sym_base_disc(uint32_t d);

/* ---- For branch records (convert/lbr.c) ---- */

/* Decode the instruction at vaddr: its kind (INSN_*, insn.h), and its
 * length in *len (0 if it does not decode). */
unsigned sym_insn_kind(struct symbolizer *s, uint64_t vaddr, uint32_t *len);
/* sym_function_insns with each instruction's kind (INSN_*). */
size_t sym_function_insns_kind(struct symbolizer *s, long fn,
			       void (*cb)(uint64_t vaddr, uint32_t len,
					  unsigned kind, void *arg),
			       void *arg);
/* The instructions of the branch-record range [begin, end] (file
 * offsets: begin the first instruction, end the first byte of the last;
 * docs/raw-format.md section 3.4), decoded with capstone from begin:
 * cb(file offset of each, arg).  Stops at a byte that does not decode.
 * Returns how many; 0 if an end is in no segment. */
size_t sym_range_insns(struct symbolizer *s, uint64_t begin, uint64_t end,
		       void (*cb)(uint64_t off, void *arg), void *arg);
/* The target (an ELF virtual address) of the direct jump or conditional
 * branch at vaddr, decoded with capstone; UINT64_MAX for an indirect one,
 * or when vaddr is not a jump or branch. */
uint64_t sym_branch_target(struct symbolizer *s, uint64_t vaddr);
/* Entry address of function fn (DW_AT_entry_pc, DW_AT_low_pc, else its
 * lowest range), or UINT64_MAX. */
uint64_t sym_function_entry(struct symbolizer *s, long fn);
/* Duplication factor of the line-table discriminator at vaddr (clang:
 * DILocation::getDuplicationFactorFromDiscriminator; loop unrolling and
 * vectorization), 1 if none or not clang. */
uint32_t sym_dup_factor(struct symbolizer *s, uint64_t vaddr);
/* 1 if vaddr is where a function starts: the entry of a DWARF function,
 * else (no DWARF there) the start of an ELF symbol; 0 if not. */
int sym_starts_function(struct symbolizer *s, uint64_t vaddr);

#endif
