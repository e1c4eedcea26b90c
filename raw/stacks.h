/* SPDX-License-Identifier: GPL-2.0-only */
/* The call-stack table's part in the profile-wide operations of
 * rawprof.c (normalize, renumbering objects, merge); raw_add_stack() in
 * rawprof.h is its public face. */
#ifndef PGOPROF_RAW_STACKS_H
#define PGOPROF_RAW_STACKS_H

#include "rawprof.h"

void stacks_free(struct raw_stacks *t);
/* Frames in objects below n move to newidx[obj]; the marks stay. */
void stacks_renumber(struct raw_stacks *t, const uint32_t *newidx, size_t n);
/* used[obj] = 1 for every object below n that a frame is in. */
void stacks_mark_used(const struct raw_stacks *t, uint8_t *used, size_t n);
/* The canonical order (docs/raw-format.md section 4). */
void stacks_sort(struct raw_stacks *t);
/* Add src's stacks, counts times weight (saturating), into dst: frames in
 * src's object i go to dst's object map[i]. */
void stacks_merge(struct raw_profile *dst, const struct raw_profile *src,
		  const uint32_t *map, uint64_t weight);

#endif
