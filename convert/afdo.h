/* GCC's AutoFDO profile (.afdo, read by gcc -fauto-profile): gcc/auto-profile.cc
 * (read_profile, string_table::read, function_instance::read_function_instance). */
#ifndef PGOPROF_AFDO_H
#define PGOPROF_AFDO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "fstree.h"

/* Write p (fs_finish'ed) to f in the given gcov version: 2 for GCC 12 and
 * later (byte-counted strings), 1 for GCC 11 and earlier and for LLVM's
 * GCC-format reader (word-counted, padded strings).  Returns 0, or -1 with a
 * message on a write error. */
int afdo_write(const struct fs_profile *p, int version, FILE *f);

/* 1 if buf starts with the gcov "adcg" magic of an AutoFDO file. */
int afdo_detect(const uint8_t *buf, size_t len);

/* Parse an .afdo file (version 1 or 2) into p (fs_init'ed by the caller;
 * fs_finish'ed on success).  On malformed input: one line naming the file
 * and byte offset, returns -1, p is left empty. */
int afdo_read(struct fs_profile *p, const uint8_t *buf, size_t len,
	      const char *name);

#endif
