/* SPDX-License-Identifier: GPL-2.0-only */
/* LLVM's extensible binary sample profile (SPF_Ext_Binary, version 103):
 * what clang -fprofile-sample-use reads fastest.  Layout: SampleProf.h,
 * SampleProfWriter.cpp (SampleProfileWriterExtBinary), SampleProfReader.cpp
 * in llvm/lib/ProfileData. */
#ifndef PGOPROF_LLVM_EXTBINARY_H
#define PGOPROF_LLVM_EXTBINARY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "fstree.h"

struct extbinary_options {
	int md5_names;	/* names as MD5 hashes (SecNameTableFlags::MD5Name) */
	int compress;	/* zlib-compressed sections (SecCommonFlags::SecFlagCompress) */
};

/* Write p (fs_finish'ed) to f.  Byte-identical to
 * `llvm-profdata-16 merge --sample --extbinary` of the same profile in text.
 * Returns 0, or -1 with a message on a write error. */
int llvm_extbinary_write(const struct fs_profile *p,
			 const struct extbinary_options *o, FILE *f);

/* 1 if buf starts with the extbinary magic. */
int llvm_extbinary_detect(const uint8_t *buf, size_t len);

/* Parse an extbinary profile into p (fs_init'ed by the caller; fs_finish'ed
 * on success).  name is used in messages.  On malformed input: one line
 * naming the file and byte offset, returns -1, p is left empty. */
int llvm_extbinary_read(struct fs_profile *p, const uint8_t *buf, size_t len,
			const char *name);

#endif
