/* SPDX-License-Identifier: GPL-2.0-only */
/* Branch-record mode, user side of the collector: the BPF maps of taken
 * branches and fall-through ranges (bpf/record.bpf.c fold_branches) and
 * the records of their spill ring, resolved into a raw profile. */
#ifndef PGOPROF_LBRCOLLECT_H
#define PGOPROF_LBRCOLLECT_H

#include <linux/types.h>
#include "../bpf/record.h"
#include "../proc/mappings.h"

/* A taken branch (a -> b) or fall-through range [a, b] of process pid,
 * runtime addresses, count times: into p as file offsets of the objects
 * maps resolves them to.  A range must begin and end in one mapping (the
 * same rule as import/samples.c samples_add_branches); what does not
 * resolve is counted in branches.unattributed or ranges.unattributed. */
void lbr_collect_add(struct raw_profile *p, const struct maptable *maps, pid_t pid,
	     uint64_t a, uint64_t b, uint64_t count, int is_range);

/* Every entry of the BPF hash map fd (struct lbr_key -> u64 count): the
 * branches map (is_range 0) or the ranges map (1), through lbr_collect_add. */
void lbr_collect_map(struct raw_profile *p, const struct maptable *maps,
		     int fd, int is_range);

/* One record of the lbr_spill ring, through lbr_collect_add. */
void lbr_add_spilled(struct raw_profile *p, const struct maptable *maps,
		     const struct lbr_spill *r);

#endif
