/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PGOPROF_LLVM_TEXT_H
#define PGOPROF_LLVM_TEXT_H

#include <stdio.h>
#include "fstree.h"

/* Write p (already fs_finish'ed) as an LLVM text sample profile, in the
 * layout of SampleProfileWriterText::writeSample
 * (llvm/lib/ProfileData/SampleProfWriter.cpp):
 *   name:TOTAL:HEAD
 *    OFF[.DISC]: N [callee:N]...
 *    OFF[.DISC]: inlinee:TOTAL      (its lines one space deeper)
 *    !CFGChecksum: N                (probe-based profiles: last in each
 *                                    function and inlinee)
 * The format has no escapes: a function, inlined instance or call target
 * whose name esc_llvm_text_unfit() refuses (lib/escape.h) is left out
 * with all it holds, and one warning on stderr counts them by kind with
 * their samples.  Returns 0, or -1 if writing failed. */
int llvm_text_write(const struct fs_profile *p, FILE *f);

/* Parse an LLVM text sample profile (SampleProfileReaderText::readImpl and
 * ParseLine in llvm/lib/ProfileData/SampleProfReader.cpp): "#" comments
 * are skipped, "!CFGChecksum: N" gives the checksum of the profile it
 * ends and makes p probe-based, other "!" metadata is skipped; the stated TOTALs are kept
 * (p->totals_given).  p is fs_init'ed by the caller and fs_finish'ed on
 * success.  On malformed input: one line naming the file and line, -1, p
 * left empty.  Context-sensitive profiles ("[a:1 @ b]") are refused. */
int llvm_text_read(struct fs_profile *p, const char *buf, size_t len,
		   const char *name);

/* 1 if buf looks like an LLVM text profile: its first non-comment line is
 * "NAME:TOTAL:HEAD". */
int llvm_text_detect(const uint8_t *buf, size_t len);

#endif
