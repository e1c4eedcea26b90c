/* SPDX-License-Identifier: GPL-2.0-only */
#include "lbrcollect.h"

#include <bpf/bpf.h>

void lbr_collect_add(struct raw_profile *p, const struct maptable *maps, pid_t pid,
	     uint64_t a, uint64_t b, uint64_t count, int is_range)
{
	uint32_t oa, ob;
	uint64_t fa, fb;
	enum unattr_reason ra = maps_resolve(maps, pid, a, &oa, &fa);
	enum unattr_reason rb = maps_resolve(maps, pid, b, &ob, &fb);

	/* Both ends of a range in one mapping: one object, and the same
	 * distance in the file as in memory. */
	if (ra != UNATTR_NONE || rb != UNATTR_NONE ||
	    (is_range && (oa != ob || fb - fa != b - a)))
		raw_add_counter(p, is_range ? "ranges.unattributed"
					    : "branches.unattributed", count);
	else if (is_range)
		raw_add_range(&p->objs[oa], fa, fb, count);
	else
		raw_add_branch(&p->objs[oa], fa, ob, fb, count);
}

void lbr_collect_map(struct raw_profile *p, const struct maptable *maps,
		     int fd, int is_range)
{
	struct lbr_key key, next, *prev = NULL;
	uint64_t count;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (!bpf_map_lookup_elem(fd, &key, &count))
			lbr_collect_add(p, maps, (pid_t)key.pid, key.a, key.b, count,
				is_range);
	}
}

void lbr_add_spilled(struct raw_profile *p, const struct maptable *maps,
		     const struct lbr_spill *r)
{
	lbr_collect_add(p, maps, (pid_t)r->pid, r->a, r->b, 1, r->kind == 1);
}
