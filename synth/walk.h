/* SPDX-License-Identifier: GPL-2.0-only */
/* A random walk over the machine code of an x86-64 ELF binary that
 * synthesizes branch-record (LBR) samples, for the tests and benchmarks of
 * the LBR path on machines without a PMU branch stack.
 *
 * Conditional branches are taken at random (backward ones, loops, mostly);
 * calls push a shadow stack that returns pop; indirect calls and jumps pick
 * a function or an instruction of the same function; calls through the PLT
 * go to a pretend libc (at WALK_EXT) that sometimes calls back into the
 * binary.  Every 1 to 48 taken branches the last WALK_LBR are a sample.
 * The paths are consistent (each range between two branches is code that
 * can run straight).
 *
 * Each instruction is decoded once (capstone, into a cache indexed by its
 * offset in the executable segment), and the instructions of a function
 * once, so that a walk runs at millions of samples a minute.
 *
 * The same walk gives stack samples (walk_run_stacks): at the same taken
 * branches as the LBR samples, an instruction of the straight code that
 * ran after the branch and the shadow stack's return addresses then, as a
 * frame-pointer call chain (perf record -g) has them.  The walk is the
 * same either way (the instruction is picked by a random number generator
 * of its own).
 *
 * Used by tests/unit/test_lbr.c (perf-script text and a raw profile) and
 * bench/lbrgen.c (perf.data). */
#ifndef PGOPROF_WALK_H
#define PGOPROF_WALK_H

#include <capstone/capstone.h>
#include <stddef.h>
#include <stdint.h>

#define WALK_LBR 32			/* branch records per sample */
#define WALK_BASE 0x555555554000ULL	/* where the PIE "runs" */
#define WALK_EXT 0x7f3a12340000ULL	/* the pretend libc */
#define WALK_EXT_ID ((const uint8_t *)"\xee\xee\xee\xee\xee\xee\xee\xee")
#define WALK_EXT_ID_LEN 8
#define WALK_EXT_PATH "/pretend/libc.so.6"

/* ---- the binary, as the walker sees it ---- */

struct fsym {
	uint64_t addr, size;
	char *name;
};

struct elfinfo {
	uint8_t *img;
	size_t size;
	uint64_t seg_vaddr, seg_off, seg_size;	/* the executable PT_LOAD */
	uint64_t plt[2][2];			/* .plt, .plt.sec [lo, hi) */
	struct fsym *syms;			/* functions, by address */
	size_t nsyms, cap_syms;
	uint8_t build_id[64];
	size_t build_id_len;
};

/* 0, or -1 when file has no executable segment or no function symbols. */
int elf_info(const char *file, struct elfinfo *ei);
void elf_info_free(struct elfinfo *ei);
/* The function symbol holding address a, or NULL. */
const struct fsym *sym_at(const struct elfinfo *ei, uint64_t a);
const struct fsym *sym_named(const struct elfinfo *ei, const char *name);
int in_plt(const struct elfinfo *ei, uint64_t a);
int in_text(const struct elfinfo *ei, uint64_t a);
/* The instructions of a function symbol (capstone): n addresses in *addr
 * (malloc'd). */
size_t insns_of(csh cs, const struct elfinfo *ei, const struct fsym *s,
		uint64_t **addr);

/* ---- the walk ---- */

/* One sample: ip and the WALK_LBR branch records, newest first, as the
 * walk's runtime addresses (the binary at WALK_BASE + its virtual
 * addresses, the pretend libc at WALK_EXT and up). */
typedef void (*walk_sink_fn)(void *arg, uint64_t ip, const uint64_t *from,
			     const uint64_t *to);

/* One stack sample: ip, then the n return addresses of the shadow stack,
 * innermost first (the caller of ip's function first), as runtime
 * addresses.  A frame that returns into the pretend libc (a callback from
 * it) has a pretend-libc address; ip may be in the pretend libc too. */
typedef void (*walk_stack_fn)(void *arg, uint64_t ip, const uint64_t *ret,
			      size_t n);

struct walker;

/* A walk over binary with seed; NULL (with a message naming the file) when
 * it has no executable segment, no symbols or no function to start at, or
 * capstone cannot open an x86-64 decoder. */
struct walker *walk_open(const char *binary, uint64_t seed);
const struct elfinfo *walk_elf(const struct walker *w);
/* The runtime address of the end of the pretend libc's code (the walk
 * calls its functions at WALK_EXT + 0x100000 + 16 x offset of the PLT
 * stub). */
uint64_t walk_ext_end(const struct walker *w);
/* Walk until samples more samples were given to sink. */
void walk_run(struct walker *w, uint64_t samples, walk_sink_fn sink, void *arg);
/* The same, as stack samples: each one is decided at the taken branch
 * where walk_run would give an LBR sample, and given to sink at the next
 * taken branch (the walk runs on to it after the last one). */
void walk_run_stacks(struct walker *w, uint64_t samples, walk_stack_fn sink,
		     void *arg);
void walk_close(struct walker *w);

#endif
