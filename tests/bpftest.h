/* SPDX-License-Identifier: GPL-2.0-only */
/* What the test tools that drive bpf/record.bpf.c by BPF_PROG_TEST_RUN
 * (tests/lbrfold, tests/fpcount) share.  Include after record.skel.h and
 * lib/util.h. */
#ifndef PGOPROF_TESTS_BPFTEST_H
#define PGOPROF_TESTS_BPFTEST_H

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdint.h>
#include <stdlib.h>

/* xorshift64: the same synthesized input on every run (*state != 0). */
static inline uint64_t xorshift_next(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* Counter which of the per-CPU stats map (bpf/record.h enum
 * record_stat), summed over the CPUs; 0 if it cannot be read. */
static inline uint64_t stat_sum(struct record_bpf *skel, uint32_t which)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v, sum = 0;

	if (ncpu <= 0)
		return 0;
	v = xcalloc((size_t)ncpu, sizeof(*v));
	if (!bpf_map_lookup_elem(bpf_map__fd(skel->maps.stats), &which, v))
		for (int i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

#endif
