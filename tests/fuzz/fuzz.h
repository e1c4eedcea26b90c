/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared by the fuzz targets (tests/fuzz/README.md). */
#ifndef PGOPROF_FUZZ_H
#define PGOPROF_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A stream writing into memory: the writers under test take a FILE *.
 * fuzz_mem_close() returns the bytes (malloc'd) and their count. */
struct fuzz_mem {
	FILE *f;
	char *buf;
	size_t len;
};

static inline FILE *fuzz_mem_open(struct fuzz_mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	if (!m->f)
		abort();
	return m->f;
}

static inline void fuzz_mem_close(struct fuzz_mem *m)
{
	if (fclose(m->f))
		abort();
	m->f = NULL;
}

/* A property the target checks failed: a crash libFuzzer records, with the
 * reason on stderr (stderr is the fuzzer's own with -close_fd_mask=2). */
#define FUZZ_CHECK(cond)                                                     \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: fuzz check failed: %s\n",    \
				__FILE__, __LINE__, #cond);                  \
			abort();                                             \
		}                                                            \
	} while (0)

#endif
