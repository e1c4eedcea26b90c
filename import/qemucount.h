/* SPDX-License-Identifier: GPL-2.0-only */
/* The qemu engine's count files (qemu/count.h; docs/exact.md) -> an
 * exact-count raw profile, as import/callgrind.h makes of callgrind's:
 *  - every executed instruction's count as a single-instruction range
 *    [off, off] of its object (the files give file offsets already);
 *  - every call's count as a taken branch from the call instruction to
 *    the callee's first instruction (a call through a PLT entry names the
 *    function the entry jumped to: the plugin follows it);
 *  - counters: instructions, instructions.unattributed.REASON (no_file,
 *    no_segment as for callgrind; anonymous: code no file backs, a JIT's;
 *    no_mapping), branches.unattributed, processes, and
 *    processes.not_followed (execs of programs the engine cannot run,
 *    which ran uncounted).
 * Objects are named by the build-ID of the file at the recorded path on
 * THIS machine, else by the MD5 of its bytes (import/objfile.h). */
#ifndef PGOPROF_QEMUCOUNT_H
#define PGOPROF_QEMUCOUNT_H

#include <stddef.h>
#include <stdint.h>
#include "../raw/rawprof.h"

struct qemucount;

/* An importer that adds to p (META mode exact-counts, event Ir);
 * end with qemucount_finish(). */
struct qemucount *qemucount_new(struct raw_profile *p);
/* Add one count file, buf[0..len), named name in messages.  Returns 0;
 * or -1 after one line "PROGRAM: NAME: line N: MESSAGE" (p then holds
 * part of the file: the caller throws it away).  A file without its
 * "end" line (a process killed while writing) is an error. */
int qemucount_add(struct qemucount *q, const uint8_t *buf, size_t len,
		  const char *name);
/* Add the counters to p and free q. */
void qemucount_finish(struct qemucount *q);

/* 1 if a file named name (no directory) is a count file. */
int qemucount_is_file(const char *name);

#endif
