/* SPDX-License-Identifier: GPL-2.0-only */
/* A profile of any kind read into a report's model: the part that
 * pgoprof report and pgoprof diff share. */
#ifndef PGOPROF_REPORT_LOAD_H
#define PGOPROF_REPORT_LOAD_H

#include "funcs.h"
#include "syms.h"
#include "../convert/formats.h"

struct rep_input {
	const char *path;
	struct any_profile prof;
	struct rep_syms *syms;		/* a raw profile's names; else NULL */
};

/* Read path (raw or compiler profile: any_profile_read) into m, which the
 * caller rep_model_init'ed.  A raw profile is named with binaries
 * (rep_syms_open with flags); a compiler profile needs none, and flags
 * only say whether to demangle.  Returns 0, or -1 after one message
 * (in->prof then holds nothing to free).  Free with rep_input_free. */
int rep_load(struct rep_input *in, const char *path,
	     const char *const *binaries, size_t nbin, unsigned flags,
	     struct rep_model *m);
void rep_input_free(struct rep_input *in);

#endif
