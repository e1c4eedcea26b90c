/* SPDX-License-Identifier: GPL-2.0-only */
/* Functions with samples but no debug info (convert/nodebug.h). */
#include "nodebug.h"
#include "../lib/escape.h"
#include "../lib/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Functions of the C runtime's startup and teardown, which have no
 * debug info in Debian's crt files and are expected to: nothing of the
 * program's own code. */
static const char *const startup[] = {
	"_start", "_init", "_fini", "frame_dummy", "register_tm_clones",
	"deregister_tm_clones", "__do_global_dtors_aux", "__libc_csu_init",
	"__libc_csu_fini", "_dl_relocate_static_pie", "__x86.get_pc_thunk.bx",
};

static int is_startup(const char *name)
{
	for (size_t i = 0; i < sizeof(startup) / sizeof(startup[0]); i++)
		if (!strcmp(name, startup[i]))
			return 1;
	return 0;
}

static void add(struct nodebug *d, struct symbolizer *s, uint64_t off,
		uint64_t count)
{
	const struct load_seg *segs;
	const char *name;
	uint64_t vaddr;
	int nseg;
	size_t i;

	segs = sym_segments(s, &nseg);
	if (offset_to_vaddr(segs, nseg, off, &vaddr) || sym_function_at(s, vaddr) >= 0)
		return;
	if (!(name = sym_function_name(s, vaddr))) {
		d->unnamed = sat_add64(d->unnamed, count);
		return;
	}
	/* Names are the symbolizer's: one pointer per function. */
	for (i = 0; i < d->n && d->v[i].name != name; i++)
		;
	if (i == d->n) {
		grow(&d->v, &d->cap, d->n + 1, sizeof(*d->v));
		d->v[d->n++] = (struct nodebug_fn){ name, 0 };
	}
	d->v[i].count = sat_add64(d->v[i].count, count);
	d->named = sat_add64(d->named, count);
	if (is_startup(name))
		d->startup = sat_add64(d->startup, count);
}

static int cmp_fn(const void *a, const void *b)
{
	const struct nodebug_fn *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

void nodebug_collect(struct nodebug *d, struct symbolizer *s,
		     const struct raw_object *o, int ranges)
{
	memset(d, 0, sizeof(*d));
	if (ranges)
		for (size_t i = 0; i < o->nranges; i++)
			add(d, s, o->ranges[i].begin, o->ranges[i].count);
	else
		for (size_t i = 0; i < o->nips; i++)
			add(d, s, o->ips[i].offset, o->ips[i].count);
	sort(d->v, d->n, sizeof(*d->v), cmp_fn);
}

void nodebug_free(struct nodebug *d)
{
	free(d->v);
	memset(d, 0, sizeof(*d));
}

#define NODEBUG_NAMED 5		/* functions named in the message */

void nodebug_report(const struct nodebug *d, const char *binary,
		    const char *unit, FILE *f)
{
	size_t k = 0, own = 0;

	for (size_t i = 0; i < d->n; i++)
		own += !is_startup(d->v[i].name);
	if (own) {
		fprintf(f, "%s:     %" PRIu64 " %s in %zu function%s of %s that %s symbols but no debug info:",
			progname, d->named - d->startup, unit, own, own > 1 ? "s" : "",
			binary, own > 1 ? "have" : "has");
		for (size_t i = 0; i < d->n && k < NODEBUG_NAMED; i++) {
			if (is_startup(d->v[i].name))
				continue;
			fprintf(f, "%s ", k++ ? "," : "");
			esc_fputs(d->v[i].name, 0, f);
			fprintf(f, " %" PRIu64, d->v[i].count);
		}
		fprintf(f, "%s; build %s with -g (or give the debug file, --debug-binary) to profile %s\n",
			own > k ? ", ..." : "", own > 1 ? "them" : "it",
			own > 1 ? "them" : "it");
	}
	if (d->startup || d->unnamed)
		fprintf(f, "%s:     %" PRIu64 " %s in startup code and PLT stubs (expected: they have no debug info)\n",
			progname, sat_add64(d->startup, d->unnamed), unit);
}
