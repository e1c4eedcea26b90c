/* SPDX-License-Identifier: GPL-2.0-only */
/* GCC's AutoFDO profile (.afdo, read by gcc -fauto-profile): gcc/auto-profile.cc
 * (read_profile, string_table::read, function_instance::read_function_instance). */
#ifndef PGOPROF_AFDO_H
#define PGOPROF_AFDO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "fstree.h"

/* The version word of the layout LLVM's GCC-format reader takes ("adcg*704":
 * SampleProfileReaderGCC), which GCC itself refuses. */
#define AFDO_VERSION_LLVM 0x3430372a

/* Write p (fs_finish'ed) to f with the given version word: 2 for GCC 12 and
 * later (byte-counted strings), 1 for GCC 11 and earlier (word-counted,
 * padded strings), AFDO_VERSION_LLVM for llvm-profdata and clang (version 1
 * strings, discriminators kept).  For GCC, names are cut at the first '.'
 * and discriminators folded as gcc 12's auto-profile.cc reads them.
 * Notes on stderr say what the GCC view changed, unless quiet.
 * Returns 0, or -1 with a message (write error, counts over 2^63-1). */
int afdo_write(const struct fs_profile *p, int version, int quiet, FILE *f);

/* 1 if buf starts with the gcov "adcg" magic of an AutoFDO file. */
int afdo_detect(const uint8_t *buf, size_t len);

/* Parse an .afdo file (version 1 or 2) into p (fs_init'ed by the caller;
 * fs_finish'ed on success).  On malformed input: one line naming the file
 * and byte offset, returns -1, p is left empty. */
int afdo_read(struct fs_profile *p, const uint8_t *buf, size_t len,
	      const char *name);

#endif
