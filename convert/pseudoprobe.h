/* SPDX-License-Identifier: GPL-2.0-only */
/* clang's pseudo-probes (-fpseudo-probe-for-profiling): the sections
 * .pseudo_probe_desc and .pseudo_probe of a linked binary, and a
 * probe-based sample profile from exact counts.  Format facts from LLVM 16
 * (llvm/include/llvm/MC/MCPseudoProbe.h, llvm/lib/MC/MCPseudoProbe.cpp
 * MCPseudoProbeDecoder::buildGUID2FuncDescMap and buildAddress2ProbeMap;
 * llvm/tools/llvm-profgen/ProfileGenerator.cpp
 * populateBodySamplesWithProbesForAllFunctions), docs/convert.md
 * "Pseudo-probes". */
#ifndef PGOPROF_PSEUDOPROBE_H
#define PGOPROF_PSEUDOPROBE_H

#include <stddef.h>
#include <stdint.h>
#include "fstree.h"
#include "../raw/rawprof.h"
#include "../proc/elfaddr.h"

/* A probe's type, the low 4 bits of its type byte. */
enum { PP_BLOCK = 0, PP_INDIRECT_CALL = 1, PP_DIRECT_CALL = 2 };

/* .pseudo_probe_desc: one function of the source. */
struct pp_desc {
	uint64_t guid;		/* MD5 of its name, low 64 bits (LE) */
	uint64_t hash;		/* CFG checksum (!CFGChecksum) */
	char *name;
};

/* A node of the inline forest: a top-level function (parent -1) or a
 * function inlined at call probe `site` of its parent. */
struct pp_node {
	uint64_t guid;
	uint32_t site;
	int32_t parent;
};

struct pp_probe {
	uint64_t vaddr;		/* ELF virtual address */
	uint32_t index;		/* probe id in its function, from 1 */
	uint32_t node;		/* index into nodes */
	uint8_t type;		/* PP_* */
};

/* A function symbol: where calls go. */
struct pp_sym {
	uint64_t vaddr;
	const char *name;	/* points into the string table copy */
};

struct pseudo_probes {
	struct pp_desc *desc;	/* sorted by guid */
	size_t ndesc;
	struct pp_node *nodes;
	size_t nnodes;
	struct pp_probe *probes; /* sorted by vaddr, then as decoded */
	size_t nprobes;
	struct pp_sym *syms;	/* STT_FUNC symbols, sorted by vaddr */
	size_t nsyms;
	char *strtab;		/* the names of syms */
	size_t unplaced;	/* probes left out: their top-level
				 * function has no symbol and no sentinel
				 * placed them */
};

/* Read the pseudo-probes of the ELF file at path into pp (zeroed by the
 * caller).  A top-level record starts at the function whose symbol's name
 * has its GUID (as llvm-profgen's ProfiledBinary does with DWARF names),
 * or where a sentinel probe (index 0, attribute 2: its address field the
 * GUID of the function the code is in) puts it; sentinels are not
 * probes.  Returns 1 if the
 * file has no .pseudo_probe section (pp empty), 0 when read, -1 after one
 * message naming the file, the section and the byte offset (truncated or
 * malformed records, a name without its descriptor).  Free with pp_free
 * in every case. */
int pp_read(struct pseudo_probes *pp, const char *path);
void pp_free(struct pseudo_probes *pp);

/* The descriptor of guid, or NULL. */
const struct pp_desc *pp_desc_of(const struct pseudo_probes *pp,
				 uint64_t guid);
/* The name of the function symbol that starts at vaddr, or NULL. */
const char *pp_sym_at(const struct pseudo_probes *pp, uint64_t vaddr);

/* Name of the function that starts at file offset off of object obj of
 * the raw profile (another object than the binary's), or NULL; as
 * lbr_callee_fn (lbr.h). */
typedef const char *(*pp_callee_fn)(void *arg, uint32_t obj, uint64_t off);

/* What pp_add did, in executions (range counts) and calls. */
struct pp_stats {
	uint64_t insns;		/* range counts of the object */
	uint64_t insns_unmapped; /* ... outside every PT_LOAD */
	uint64_t probes;	/* probes with a non-zero count */
	uint64_t probes_zero;	/* body records of 0: probes of functions
				 * that ran, which did not run */
	uint64_t calls;		/* calls from the object */
	uint64_t calls_used;	/* ... from a call probe, to a named
				 * function: call targets */
};

/* Add the RANGES and BRANCHES of object obj of raw (the binary whose
 * probes pp holds; segs its PT_LOAD segments) into prof as a probe-based
 * profile, llvm-profgen's rules: a probe's count is the sum of the counts
 * of the ranges that hold its address (exact counts: the count of the
 * instruction at it), added over the probe's copies; a body record per
 * probe index of a top-level function with a non-zero count anywhere
 * (0 for its probes that did not run), at (index, 0), in the function of
 * its inline-tree node, inlinees at (call probe index, 0); HEAD of a
 * top-level function is its entry probe's (index 1) count; a call from a
 * call probe's address is a call target of that probe, named by pp's
 * symbols (in the binary) or by callee (other objects).  Every function
 * and inlinee gets its descriptor's CFG checksum, and prof->probe_based
 * is set.  st is cleared and filled. */
void pp_add(struct fs_profile *prof, const struct pseudo_probes *pp,
	    const struct raw_profile *raw, int obj,
	    const struct load_seg *segs, int nsegs,
	    pp_callee_fn callee, void *arg, struct pp_stats *st);

#endif
