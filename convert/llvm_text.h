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
 * Returns 0, or -1 if writing failed. */
int llvm_text_write(const struct fs_profile *p, FILE *f);

#endif
