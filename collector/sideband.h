/* SPDX-License-Identifier: GPL-2.0-only */
/* The side-band: a dummy software event per CPU whose ring buffer carries
 * PERF_RECORD_MMAP2 (with build-IDs), FORK and COMM records, so that the
 * collector learns every executable mapping made while it records. */
#ifndef PGOPROF_SIDEBAND_H
#define PGOPROF_SIDEBAND_H

#include <stdint.h>
#include "../proc/mappings.h"

struct sideband {
	int ncpus;
	int *fds;
	void **rings;		/* mmap'd: 1 metadata page + 2^n data pages */
	size_t ring_bytes;	/* data area size */
	uint8_t *scratch;	/* a record that wraps the ring is copied here */
	uint64_t lost;		/* records the kernel dropped (PERF_RECORD_LOST) */
	uint64_t unknown;	/* records of types we do not use */
};

/* Open the dummy event on every CPU in cpus[0..ncpus).  Returns 0, or -1
 * with a message that names the failing call and the fix. */
int sideband_open(struct sideband *sb, const int *cpus, int ncpus);
/* Consume every record now in the rings, adding mappings to t.  Records of
 * processes that fail want(pid) are skipped (cheaply: before any file is
 * opened). */
void sideband_drain(struct sideband *sb, struct maptable *t,
		    int (*want)(uint32_t pid, void *arg), void *arg);
void sideband_close(struct sideband *sb);

#endif
