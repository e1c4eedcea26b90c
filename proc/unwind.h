/* SPDX-License-Identifier: GPL-2.0-only */
/* Unwinding of sampled user stacks without frame pointers: the registers
 * and a copy of the top of the user stack at the sample become the list of
 * return addresses, by the CFI (.eh_frame, .debug_frame) of the mapped
 * files, through libdw's frame API (dwfl_attach_state).  With
 * UNWIND_AUTO, frames in files that keep frame pointers are walked by
 * frame pointers instead (cheaper, and not limited to the copied stack
 * when the kernel's frame-pointer walk is given), but the leaf always by
 * its CFI: a leaf without a frame is where a frame-pointer walk loses the
 * caller.
 *
 * The module knows nothing of the collector: pgoprof-record (BPF ring
 * buffer records) and pgoprof import (perf.data with PERF_SAMPLE_REGS_USER
 * and PERF_SAMPLE_STACK_USER) both call it.  x86-64 only.  Not thread-safe:
 * one unwinder per thread. */
#ifndef PGOPROF_UNWIND_H
#define PGOPROF_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "stackdepth.h"

/* x86-64 DWARF registers 0..16: rax rdx rcx rbx rsi rdi rbp rsp r8..r15
 * rip. */
#define UNWIND_NREGS 17
#define UNWIND_REG_BP 6
#define UNWIND_REG_SP 7
#define UNWIND_REG_IP 16
#define UNWIND_ALL_REGS ((1u << UNWIND_NREGS) - 1)
/* As many frames as the kernel's frame-pointer walk gives. */
#define UNWIND_MAX_FRAMES PROC_STACK_DEPTH_MAX

enum unwind_mode {
	UNWIND_DWARF,	/* every frame by CFI */
	UNWIND_AUTO,	/* the leaf by CFI; then frame pointers in files that
			 * keep them (see unwind_keeps_fp), CFI elsewhere */
};

/* Why an unwind ended.  unwind_end_name[] gives the counter suffixes
 * ("unwind.<name>"). */
enum unwind_end {
	UNWIND_COMPLETE,	/* the outermost frame: its CFI leaves the return
				 * address undefined, or frame pointer 0 */
	UNWIND_STACK_END,	/* the next frame lies above the copied stack:
				 * the copy was too small for this stack */
	UNWIND_NO_STACK,	/* no stack bytes were copied: the leaf only */
	UNWIND_NO_MODULE,	/* a frame's address is in no file mapping (JIT
				 * code, [vdso], garbage) */
	UNWIND_NO_FILE,		/* a file mapping whose file cannot be opened, is
				 * not ELF, or has another build-ID */
	UNWIND_NO_CFI,		/* no usable CFI at the address, and libdw's
				 * frame-pointer fallback failed */
	UNWIND_BAD_ADDRESS,	/* a read below the stack pointer, above a stack
				 * copied to its end, or in no mapping: garbage
				 * registers or a corrupt stack */
	UNWIND_LOOP,		/* the stack pointer did not move up from one
				 * frame to the next: looping or corrupt CFI */
	UNWIND_MAX_DEPTH,	/* the frame array is full */
	UNWIND_FP_END,		/* (auto) the stack ended where the kernel's
				 * frame-pointer walk ended */
	UNWIND_END_MAX,
};
extern const char *const unwind_end_name[UNWIND_END_MAX];

/* Where an address of a process lies in a file. */
struct unwind_file {
	uint32_t id;		/* the caller's ID of the file: the same file
				 * always has the same ID (pgoprof: the raw
				 * object index).  Small and dense: an array
				 * is indexed by it. */
	uint64_t offset;	/* file offset of the address */
	const char *path;	/* where to open the file; only read during the
				 * call.  Also tried as /proc/PID/root/PATH. */
	const uint8_t *build_id;	/* the file must have this GNU build-ID;
					 * NULL: not checked */
	uint32_t build_id_len;
	int build_id_is_md5;	/* build_id is instead the MD5 of the whole
				 * file (a file linked without a build-ID) */
};

/* The caller's mappings: fill *file for addr of process pid and return 0,
 * or return -1 if addr is in no file mapping (anonymous memory, or no
 * mapping at all).  Only executable mappings need to be known. */
typedef int (*unwind_locate_fn)(void *arg, pid_t pid, uint64_t addr,
				struct unwind_file *file);

/* One sample to unwind.  Nothing is kept after unwind_stack returns. */
struct unwind_sample {
	pid_t pid, tid;
	uint64_t regs[UNWIND_NREGS];	/* DWARF numbering */
	uint32_t regs_mask;		/* bit i: regs[i] is known; IP and SP
					 * are required */
	const uint8_t *stack;		/* stack_len bytes of the user stack
					 * from regs[UNWIND_REG_SP] upwards */
	size_t stack_len;
	int stack_whole;		/* 1 if the copy reaches the end of the
					 * stack mapping: nothing lies above it */
	const uint64_t *fp_chain;	/* optional (auto): the kernel's
					 * frame-pointer walk, fp_chain[0] the
					 * sampled IP, as bpf_get_stack or a
					 * perf callchain gives it */
	size_t fp_len;
};

struct unwinder;

/* A new unwinder; locate(arg, ...) is its view of the mappings.  Files
 * are opened and kept open (one descriptor per file ID) until
 * unwind_free.  Never returns NULL (exits when memory runs out, like
 * xmalloc).  If libelf or libdw cannot be set up for x86-64, one message
 * on stderr says so and unwind_stack returns the sampled IP alone
 * (UNWIND_NO_CFI); nothing exits. */
struct unwinder *unwind_new(enum unwind_mode mode, unwind_locate_fn locate,
			    void *arg);
void unwind_free(struct unwinder *u);

/* Unwind s into pcs[0..max): pcs[0] is the sampled IP and pcs[i > 0] the
 * return address of frame i (the address after its call: the callee of
 * an edge lies at pcs[i] - 1), as a frame-pointer walk gives them.
 * Returns the number of frames (at least 1 when max > 0) and sets *end to
 * why it stopped.  Bad input (garbage registers, a stack pointer outside
 * any mapping, no stack, CFI that loops) ends with a reason, never with a
 * crash or a hang: at most max frames, each step moving the stack pointer
 * up. */
size_t unwind_stack(struct unwinder *u, const struct unwind_sample *s,
		    uint64_t *pcs, size_t max, enum unwind_end *end);

/* Process pid mapped something new (or was replaced by exec): its cached
 * state is checked against locate() before its next unwind, and rebuilt
 * if a mapping it used has changed.  Cheap; unknown pids are ignored. */
void unwind_invalidate(struct unwinder *u, pid_t pid);

/* What the unwinder did, for counters and benchmarks. */
struct unwind_stats {
	uint64_t samples;	/* unwind_stack calls */
	uint64_t frames;	/* frames returned */
	uint64_t cfi_steps;	/* frames found by CFI */
	uint64_t fp_steps;	/* frames found by frame pointers (auto) */
	uint64_t fp_chain_frames;	/* frames taken from fp_chain (auto) */
	uint64_t dwfl_builds;	/* per-process states built or rebuilt */
};
const struct unwind_stats *unwind_get_stats(const struct unwinder *u);

/* 1 if the code of this ELF file keeps frame pointers, 0 if not: by the
 * compiler's options in DW_AT_producer where the file has DWARF, else by
 * how many of its functions begin with push %rbp; mov %rsp,%rbp.  Reads
 * at most a bounded number of compile units and symbols.  fd is only
 * read. */
int unwind_keeps_fp(int fd);

/* perf's x86-64 user registers (PERF_SAMPLE_REGS_USER: the values of the
 * bits set in mask, in bit order, enum perf_event_x86_regs) to DWARF
 * order.  Sets s->regs and s->regs_mask.  Returns the number of values
 * read from vals (the popcount of mask), for the importer to step over
 * them. */
size_t unwind_regs_from_perf(struct unwind_sample *s, uint64_t mask,
			     const uint64_t *vals);

#endif
