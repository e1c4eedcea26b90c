/* SPDX-License-Identifier: GPL-2.0-only */
/* Machine instructions decoded with capstone (x86-64 and aarch64): their
 * kinds as llvm-profgen sorts them, their lengths, and branch targets.
 * Bytes in, facts out; where the bytes come from (an ELF file's segments)
 * is the symbolizer's business (symbolize.c). */
#ifndef PGOPROF_INSN_H
#define PGOPROF_INSN_H

#include <stddef.h>
#include <stdint.h>

/* Instruction kinds, as llvm-profgen's ProfiledBinary sorts them
 * (MCInstrDesc isCall, isReturn, isUnconditionalBranch): a call, a
 * return, or a direct unconditional jump ends straight-line code. */
#define INSN_NONE 0u
#define INSN_CALL 1u
#define INSN_RET 2u
#define INSN_JUMP 4u	/* unconditional direct jump */
#define INSN_BRANCH 8u	/* other branches: conditional, indirect */
/* A flag beside the kind: an x86 string instruction with a REP, REPE or
 * REPNE prefix (movs, stos, lods, scas, cmps, ins, outs).  It is one
 * instruction that runs rcx iterations, and instruction-counting engines
 * (QEMU, whose translation jumps back to it for each iteration; valgrind)
 * count every iteration as an execution. */
#define INSN_REPEAT 16u

struct insn_dec;

/* A decoder for ELF machine e_machine (EM_X86_64 or EM_AARCH64) into
 * *out, the caller's (insn_close).  Returns 0; *out is NULL for another
 * machine, or when capstone cannot open one (then nothing decodes:
 * callers treat it as "no instructions").  Returns -1 after one message
 * ("cannot load capstone, to decode instructions: REASON") when the
 * capstone library cannot be loaded (it is loaded at the first call,
 * not when pgoprof starts). */
int insn_open(unsigned e_machine, struct insn_dec **out);
void insn_close(struct insn_dec *d);

/* The instruction at code (left bytes readable, at address addr): its
 * kind (INSN_*, with INSN_REPEAT), and its length in *len, 0 if it does
 * not decode. */
unsigned insn_kind(struct insn_dec *d, const uint8_t *code, size_t left,
		   uint64_t addr, uint32_t *len);

/* The instruction at code (left bytes, at addr) as assembly text,
 * capstone's "mnemonic operands", into buf (size bytes, cut to fit);
 * returns its length, 0 if it does not decode (buf "(bad)"). */
uint32_t insn_text(struct insn_dec *d, const uint8_t *code, size_t left,
		   uint64_t addr, char *buf, size_t size);

/* 1 if an instruction that ends at end (address addr; before bytes
 * readable before it) is a call, so that addr is a plausible return
 * address; 0 if not. */
int insn_call_before(struct insn_dec *d, const uint8_t *end, size_t before,
		     uint64_t addr);

/* The target address of the direct jump or conditional branch at code
 * (left bytes, at addr); UINT64_MAX for an indirect one, or when it is
 * not a jump or branch. */
uint64_t insn_branch_target(struct insn_dec *d, const uint8_t *code,
			    size_t left, uint64_t addr);

/* Decode code[0, left) from address addr on, calling cb(address, length,
 * kind, arg) for each instruction (kind INSN_NONE unless with_kind; then
 * with INSN_REPEAT), up to
 * the end or the first byte that does not decode.  Returns the address
 * where it stopped; *n counts the instructions. */
uint64_t insn_walk(struct insn_dec *d, const uint8_t *code, size_t left,
		   uint64_t addr, int with_kind,
		   void (*cb)(uint64_t addr, uint32_t len, unsigned kind,
			      void *arg),
		   void *arg, size_t *n);

#endif
