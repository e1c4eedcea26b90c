/* SPDX-License-Identifier: GPL-2.0-only */
/* callgrind output (valgrind --tool=callgrind --dump-instr=yes) -> an
 * exact-count raw profile: the ground truth that sampled profiles are
 * measured against, and a profile of its own where no PMU is.
 *
 * The format is valgrind's "Callgrind Format Specification"
 * (callgrind/docs/cl-format.xml; written by callgrind/dump.c): header
 * lines "key: value" (positions, events, cmd, creator), then ob=/fn=/...
 * lines and cost lines "POSITIONS COSTS", positions compressed against
 * the last cost line's ("+N", "-N", "*"; fprint_pos), names against
 * earlier ones ("(ID) name", then "(ID)").  A "calls=COUNT TARGET" line is
 * followed by the call's own line (the call instruction and the
 * inclusive cost), which neither counts as the instruction's cost nor
 * moves the position that the next lines are compressed against
 * (fprint_jcc).
 *
 * What the profile gets (docs/raw-format.md, META mode "exact-counts"):
 *  - every executed instruction's count (its Ir) as a single-instruction
 *    range [off, off] of its object: callgrind's addresses are ELF
 *    virtual addresses of the object named by ob= (relative to its load
 *    address; what the PT_LOAD segments of the file at that path map to
 *    file offsets);
 *  - every call's count as a taken branch from the call instruction to
 *    the callee's first instruction.  A call into a PLT stub (a function
 *    valgrind names "ADDR [PLT]", run with --skip-plt=no) is carried on
 *    to the stub's own callees, in proportion to their counts, so the
 *    call site names the function it reached and no call is counted
 *    twice;
 *  - counters: instructions (attributed), instructions.unattributed.REASON
 *    (unknown_object: "???", valgrind's view of a PLT or of code outside
 *    any file; no_file: the file cannot be read as ELF here; no_segment:
 *    an address outside its PT_LOADs; valgrind: valgrind's own preloaded
 *    objects), branches.unattributed (calls with an end so lost),
 *    processes (files imported).
 *
 * Objects are named by the build-ID of the file at the recorded path on
 * THIS machine (callgrind writes none), else by the MD5 of its bytes: a
 * callgrind file is imported where it was made, with the same files. */
#ifndef PGOPROF_CALLGRIND_H
#define PGOPROF_CALLGRIND_H

#include <stddef.h>
#include <stdint.h>
#include "../raw/rawprof.h"

struct callgrind;

/* An importer that adds to p (META, counters, objects); files of the
 * processes of one run go into one profile.  End with callgrind_finish(). */
struct callgrind *callgrind_new(struct raw_profile *p);
/* Add one callgrind output file, buf[0..len) (NUL not needed), named
 * name in messages.  Returns 0; or -1 after one line
 * "PROGRAM: NAME: line N: MESSAGE" (p then holds part of the file: the
 * caller throws it away). */
int callgrind_add(struct callgrind *cg, const uint8_t *buf, size_t len,
		  const char *name);
/* Add the counters of all the files to p (instructions,
 * instructions.unattributed.*, branches.unattributed), and free cg. */
void callgrind_finish(struct callgrind *cg);

/* 1 if buf (a file's first len bytes) starts like callgrind output: the
 * "# callgrind format" line, or a "version:"/"creator: callgrind" header. */
int callgrind_probe(const uint8_t *buf, size_t len);

#endif
