/* SPDX-License-Identifier: GPL-2.0-only */
/* A compiler profile into the report's model.  A sample profile has no
 * stacks: a function's instances (its out-of-line copy and each inlined
 * copy) hold its body samples, their TOTALs its samples with inlinees, as
 * LLVM's FunctionSamples defines them (llvm/include/llvm/ProfileData/
 * SampleProf.h: getTotalSamples, getBodySamples, getCallsiteSamples). */
#include "funcs.h"
#include "demangle.h"
#include "../lib/util.h"

#include <stdlib.h>
#include <string.h>

/* The deepest nesting of inlined instances followed. */
#define FS_DEPTH_MAX 256

struct fs_walk {
	struct rep_model *m;
	int demangle;
	size_t path[FS_DEPTH_MAX];	/* function indexes, outermost first */
	int depth;
};

static size_t fs_func(struct fs_walk *w, const char *linkage)
{
	char *d = w->demangle ? rep_demangle(linkage) : NULL;
	const char *name = strtab_get(w->m->names, d ? d : linkage);

	free(d);
	return rep_model_func_add(w->m, name);
}

static void walk_instance(struct fs_walk *w, const struct fsamples *f)
{
	struct rep_model *m = w->m;
	size_t fi = fs_func(w, f->name);
	int again = 0;

	for (int i = 0; i < w->depth; i++)
		again |= w->path[i] == fi;
	if (!again)
		m->funcs[fi].total = sat_add64(m->funcs[fi].total, f->total);
	for (size_t i = 0; i < f->nbody; i++) {
		const struct fs_body *b = &f->body[i];
		struct rep_line k = { m->funcs[fi].name, NULL, b->line, b->disc, 0 };

		m->funcs[fi].self = sat_add64(m->funcs[fi].self, b->count);
		rep_model_add_line(m, &k, b->count);
		for (size_t t = 0; t < b->ntargets; t++) {
			size_t ci = fs_func(w, b->targets[t].name);

			struct rep_edge *e = rep_model_pair(m, fi, ci, 0);

			e->count = sat_add64(e->count, b->targets[t].count);
		}
	}
	if (w->depth == FS_DEPTH_MAX)
		return;
	w->path[w->depth++] = fi;
	for (size_t i = 0; i < f->ncs; i++) {
		const struct fsamples *c = f->cs[i].callee;
		struct rep_edge *e = rep_model_pair(m, fi, fs_func(w, c->name), 1);

		e->count = sat_add64(e->count, c->total);
		walk_instance(w, c);
	}
	w->depth--;
}

void rep_model_add_fs(struct rep_model *m, const struct fs_profile *p,
		      int demangle)
{
	struct fs_walk *w = xcalloc(1, sizeof(*w));

	w->m = m;
	w->demangle = demangle;
	m->has_total = 1;
	m->from_fs = 1;
	for (size_t i = 0; i < p->nfuncs; i++) {
		m->samples = sat_add64(m->samples, p->funcs[i]->total);
		walk_instance(w, p->funcs[i]);
	}
	free(w);
}
