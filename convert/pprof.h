/* SPDX-License-Identifier: GPL-2.0-only */
/* A raw profile as pprof (google/pprof's profile.proto, gzipped): the
 * format that continuous profilers store and 'go tool pprof' reads.
 * docs/pprof.md says what is written. */
#ifndef PGOPROF_CONVERT_PPROF_H
#define PGOPROF_CONVERT_PPROF_H

#include "../raw/rawprof.h"

struct pprof_write_opts {
	const char *raw_name;		/* the raw profile, for messages */
	const char *const *binaries;	/* --binary files, may be none */
	int nbinaries;
	int quiet;			/* no summary line on stderr */
};

/* Write p (normalized: raw_normalize, as raw_read_file leaves it) to path
 * ("-": standard output, not a terminal) as a gzipped pprof Profile,
 * atomically (temporary + rename).  One Sample per stack of p's STACKS
 * section (its locations leaf first), and one one-location Sample for
 * the IP samples that no stack has (all of them without stacks; said on
 * stderr).  Each object is
 * symbolized with the first of o->binaries that is it (raw_file_is_object;
 * for an object known by path only, the same file name), else with the
 * file at its recorded path if that file is still it; unsymbolized
 * otherwise.  Location addresses are ELF virtual addresses for a
 * symbolized object (one Mapping per PT_LOAD segment: memory_start =
 * p_vaddr, file_offset = p_offset), file offsets otherwise (a Mapping at
 * memory_start 0, file_offset 0); either way address - memory_start +
 * file_offset is the raw file offset.  Returns 0, or -1 after one message
 * (a --binary that does not open, a write error). */
int pprof_write_file(const struct raw_profile *p, const char *path,
		     const struct pprof_write_opts *o);

#endif
