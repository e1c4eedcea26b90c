/* SPDX-License-Identifier: GPL-2.0-only */
/* The hash of pgoprof's in-memory tables: 64-bit FNV-1a (Fowler, Noll,
 * Vo), with the reference's offset basis and prime; keys of several
 * numbers fold one hash_u64 per number.  Fast on short keys (names, a few
 * addresses), and good enough for open addressing with linear probing at
 * half load (lib/hindex.h folds the high bits in).  Hash values never
 * reach a file, and table order is sorted away by every writer but one:
 * convert/estimate.c, which keeps its own slot hash because its sums run
 * in slot order (the line keys it is given are this hash, so changing it
 * may move the last bits of an estimated count).  The PRNGs of synth/
 * are generators, not table hashes. */
#ifndef PGOPROF_HASH_H
#define PGOPROF_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_INIT 14695981039346656037ull
#define HASH_PRIME 1099511628211ull

/* Fold one byte, or one 64-bit word at a time (addresses, counts). */
static inline uint64_t hash_byte(uint64_t h, uint8_t b)
{
	return (h ^ b) * HASH_PRIME;
}

static inline uint64_t hash_u64(uint64_t h, uint64_t v)
{
	return (h ^ v) * HASH_PRIME;
}

/* A NUL-terminated string's bytes (not the NUL). */
static inline uint64_t hash_str(uint64_t h, const char *s)
{
	while (*s)
		h = hash_byte(h, (uint8_t)*s++);
	return h;
}

#endif
