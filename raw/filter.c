/* SPDX-License-Identifier: GPL-2.0-only */
/* What a profile keeps when it is shared: the objects asked for, and no
 * paths (a system-wide profile lists every binary of its host).  The
 * rules are in docs/raw-format.md section 6.1. */
#include "rawprof.h"
#include "stacks.h"
#include "../lib/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* META keys whose values hold paths or command lines. */
static const char *const path_keys[] = { "target", "source", "perf_cmdline" };

int raw_spec_is_build_id(const char *spec)
{
	size_t n = strlen(spec);

	if (n < 8 || n > 2 * RAW_BUILD_ID_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)spec[i]))
			return 0;
	return 1;
}

int raw_object_matches(const struct raw_object *o, const char *spec)
{
	char hex[2 * RAW_BUILD_ID_MAX + 1];

	if (!raw_spec_is_build_id(spec))
		return o->path && !strcmp(o->path, spec);
	hex_string(hex, o->build_id, o->build_id_len);
	return !strncasecmp(hex, spec, strlen(spec));
}

/* The count of IP samples of o, saturating. */
static uint64_t ip_samples(const struct raw_object *o)
{
	uint64_t n = 0;

	for (size_t i = 0; i < o->nips; i++)
		n = sat_add64(n, o->ips[i].count);
	return n;
}

/* Edges and branches into a dropped object go; the rest are renumbered by
 * raw_drop_empty_objects(). */
static void cut_links(struct raw_object *o, const uint8_t *keep)
{
	size_t n = 0;

	for (size_t i = 0; i < o->nedges; i++)
		if (keep[o->edges[i].callee_obj])
			o->edges[n++] = o->edges[i];
	o->nedges = n;
	n = 0;
	for (size_t i = 0; i < o->nbranches; i++)
		if (keep[o->branches[i].to_obj])
			o->branches[n++] = o->branches[i];
	o->nbranches = n;
}

/* Frames in dropped objects become unknown; a stack with no kept frame
 * goes.  Rebuilt through raw_add_stack so that equal stacks add up. */
static void cut_stacks(struct raw_profile *p, const uint8_t *keep)
{
	struct raw_stacks old = p->stacks;
	struct raw_frame f[RAW_STACK_DEPTH_MAX];

	memset(&p->stacks, 0, sizeof(p->stacks));
	for (size_t i = 0; i < old.n; i++) {
		const struct raw_stack *s = &old.v[i];
		int any = 0;

		for (uint32_t j = 0; j < s->depth; j++) {
			f[j] = old.frames[s->first + j];
			if (f[j].obj < p->nobjs && !keep[f[j].obj])
				f[j] = (struct raw_frame){ RAW_FRAME_UNKNOWN, 0 };
			any |= f[j].obj < p->nobjs;
		}
		if (any)
			raw_add_stack(p, f, s->depth, s->count);
	}
	stacks_free(&old);
}

size_t raw_keep_objects(struct raw_profile *p, const uint8_t *keep)
{
	uint64_t dropped = 0;
	size_t n = 0;

	for (size_t i = 0; i < p->nobjs; i++) {
		struct raw_object *o = &p->objs[i];

		cut_links(o, keep);
		if (keep[i]) {
			n++;
			continue;
		}
		dropped += ip_samples(o);
		o->nips = o->nedges = o->nranges = o->nbranches = 0;
	}
	cut_stacks(p, keep);
	raw_add_counter(p, CNT_FILTERED, dropped);
	raw_drop_empty_objects(p);
	return n;
}

void raw_strip_paths(struct raw_profile *p)
{
	for (size_t i = 0; i < p->nobjs; i++) {
		free(p->objs[i].path);
		p->objs[i].path = xstrdup("");
	}
	for (size_t k = 0; k < sizeof(path_keys) / sizeof(*path_keys); k++)
		for (size_t i = 0; i < p->nmeta; i++)
			if (!strcmp(p->meta[i].key, path_keys[k])) {
				free(p->meta[i].key);
				free(p->meta[i].value);
				p->meta[i] = p->meta[--p->nmeta];
				break;
			}
}

int raw_keep_matching(struct raw_profile *p, char *const *specs, int n,
		      const char *opt, const char *name)
{
	uint8_t *keep = xcalloc(p->nobjs ? p->nobjs : 1, 1);
	uint64_t before = raw_get_counter(p, CNT_FILTERED);
	size_t kept;

	for (int k = 0; k < n; k++) {
		int found = 0;

		for (size_t i = 0; i < p->nobjs; i++)
			if (raw_object_matches(&p->objs[i], specs[k]))
				keep[i] = found = 1;
		if (!found) {
			free(keep);
			return err("%s %s: %s has no object with this %s", opt,
				   specs[k], name,
				   raw_spec_is_build_id(specs[k]) ? "build-ID" :
				   "path (give a build-ID, or the path exactly as 'pgoprof show' prints it)");
		}
	}
	kept = raw_keep_objects(p, keep);
	free(keep);
	warnx("%s: kept %zu object%s; %llu samples of the others left out (counter " CNT_FILTERED ")",
	      name, kept, kept == 1 ? "" : "s",
	      (unsigned long long)(raw_get_counter(p, CNT_FILTERED) - before));
	return 0;
}
