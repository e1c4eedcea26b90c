/* SPDX-License-Identifier: GPL-2.0-only */
/* What the exact-count plugin (qemu/count.c, loaded into qemu-user) and
 * its reader (import/qemucount.c) share: the file each process writes.
 * docs/exact.md, "The count files", is the specification.
 *
 * One text file per process image (a process that calls execve writes one
 * for the image it leaves), named COUNT_FILE_PREFIX PID "." SEQ in the
 * directory given to the plugin, lines:
 *   pgoprof-count 1                          the first line
 *   pid PID                                  the process (the same in the
 *                                            files of an execve's before
 *                                            and after)
 *   object N PATH                            object N is the file at PATH
 *   insn N OFFSET COUNT                      the instruction at file offset
 *                                            OFFSET (hex) of object N ran
 *                                            COUNT times
 *   call N OFFSET M OFFSET2 COUNT            the call instruction at N
 *                                            OFFSET reached M OFFSET2
 *                                            (the callee's first
 *                                            instruction) COUNT times
 *   unattributed REASON COUNT                instructions with no file
 *   calls.unattributed COUNT                 calls with an end in no file
 *   exec.not_followed COUNT                  execs of programs QEMU cannot
 *                                            run, left to run uncounted
 *   end                                      the last line: the file is
 *                                            whole
 * Objects are numbered from 0 in the order of their object lines, which
 * come before their first use.  Counts are decimal, offsets hex. */
#ifndef PGOPROF_QEMU_COUNT_H
#define PGOPROF_QEMU_COUNT_H

#define COUNT_MAGIC "pgoprof-count 1"
#define COUNT_FILE_PREFIX "count."

/* Why an instruction has no file offset. */
#define COUNT_WHY_ANON "anonymous"	/* code in memory no file backs (JIT) */
#define COUNT_WHY_NOMAP "no_mapping"	/* in no mapping (QEMU's vsyscall) */

#endif
