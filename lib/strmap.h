/* SPDX-License-Identifier: GPL-2.0-only */
/* A string-keyed hash table of uint32_t values (file names to indices):
 * the keys interned in a strtab, a value per key number.
 * Zero-initialized, it is an empty map. */
#ifndef PGOPROF_STRMAP_H
#define PGOPROF_STRMAP_H

#include "strtab.h"

#include <stddef.h>
#include <stdint.h>

struct strmap {
	struct strtab keys;	/* in insertion order */
	uint32_t *vals;		/* [keys.n]: key number -> value */
	size_t cap_vals;
};

/* The value of key into *val and 1, or 0 if key is not there. */
int strmap_find(const struct strmap *t, const char *key, uint32_t *val);
/* Insert key (copied: the map owns its copy) with val, or replace its
 * value.  Exits on out-of-memory, as xmalloc does. */
void strmap_put(struct strmap *t, const char *key, uint32_t val);
/* Free the keys and tables; t is an empty map again. */
void strmap_free(struct strmap *t);

#endif
