/* SPDX-License-Identifier: GPL-2.0-only */
/* Two reports compared: the functions and lines whose share of samples
 * changed most, each share relative to its own profile's samples (so a
 * longer recording compares with a shorter one). */
#ifndef PGOPROF_REPORT_DIFF_H
#define PGOPROF_REPORT_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include "funcs.h"

struct rep_diff_row {
	const char *key;	/* function name, or "file:line" / "func:+offset[.disc]"; interned */
	uint64_t a, b;		/* self samples in A and in B */
	double share_a, share_b;	/* of all samples of A, of B; 0..1 */
};

struct rep_diff {
	struct rep_diff_row *funcs, *lines;	/* by |share_b - share_a|, descending */
	size_t nfuncs, nlines;
};

/* Compare a and b (built with the same string table, so that names are
 * the same pointers): functions by self samples, lines by samples.
 * Rows with no sample in either are left out. */
void rep_diff(const struct rep_model *a, const struct rep_model *b,
	      struct rep_diff *d);
void rep_diff_free(struct rep_diff *d);

#endif
