/* SPDX-License-Identifier: GPL-2.0-only */
/* Loading a profile for a report. */
#include "load.h"

#include <string.h>

int rep_load(struct rep_input *in, const char *path,
	     const char *const *binaries, size_t nbin, unsigned flags,
	     struct rep_model *m)
{
	memset(in, 0, sizeof(*in));
	in->path = path;
	if (any_profile_read(&in->prof, path))
		return -1;
	if (!in->prof.is_raw) {
		fs_finish(&in->prof.fs);
		rep_model_add_fs(m, &in->prof.fs, !(flags & REP_NO_DEMANGLE));
		return 0;
	}
	in->syms = rep_syms_open(&in->prof.raw, path, binaries, nbin, flags,
				 m->names);
	if (!in->syms) {
		any_profile_free(&in->prof);
		return -1;
	}
	rep_model_add_raw(m, in->syms);
	return 0;
}

void rep_input_free(struct rep_input *in)
{
	rep_syms_close(in->syms);
	any_profile_free(&in->prof);
	memset(in, 0, sizeof(*in));
}
