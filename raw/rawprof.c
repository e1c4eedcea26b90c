/* SPDX-License-Identifier: GPL-2.0-only */
/* Raw profile: in-memory tables, canonical form, merge. The byte layout is
 * in rawio.c; docs/raw-format.md specifies it. */
#include "rawprof.h"
#include "stacks.h"
#include "../lib/escape.h"
#include "../lib/md5.h"
#include "../lib/util.h"

#include <stdlib.h>
#include <string.h>

void raw_init(struct raw_profile *p)
{
	memset(p, 0, sizeof(*p));
}

static void object_free(struct raw_object *o)
{
	free(o->path);
	free(o->ips);
	free(o->edges);
	free(o->ranges);
	free(o->branches);
}

void raw_free(struct raw_profile *p)
{
	for (size_t i = 0; i < p->nmeta; i++) {
		free(p->meta[i].key);
		free(p->meta[i].value);
	}
	for (size_t i = 0; i < p->ncounters; i++)
		free(p->counters[i].name);
	for (size_t i = 0; i < p->nobjs; i++)
		object_free(&p->objs[i]);
	free(p->meta);
	free(p->counters);
	free(p->objs);
	stacks_free(&p->stacks);
	raw_init(p);
}

void raw_set_meta(struct raw_profile *p, const char *key, const char *value)
{
	for (size_t i = 0; i < p->nmeta; i++) {
		if (!strcmp(p->meta[i].key, key)) {
			free(p->meta[i].value);
			p->meta[i].value = xstrdup(value);
			return;
		}
	}
	grow(&p->meta, &p->cap_meta, p->nmeta + 1, sizeof(*p->meta));
	p->meta[p->nmeta].key = xstrdup(key);
	p->meta[p->nmeta].value = xstrdup(value);
	p->nmeta++;
}

const char *raw_get_meta(const struct raw_profile *p, const char *key)
{
	for (size_t i = 0; i < p->nmeta; i++)
		if (!strcmp(p->meta[i].key, key))
			return p->meta[i].value;
	return NULL;
}

void raw_add_counter(struct raw_profile *p, const char *name, uint64_t delta)
{
	for (size_t i = 0; i < p->ncounters; i++) {
		if (!strcmp(p->counters[i].name, name)) {
			p->counters[i].value = sat_add64(p->counters[i].value, delta);
			return;
		}
	}
	grow(&p->counters, &p->cap_counters, p->ncounters + 1,
	     sizeof(*p->counters));
	p->counters[p->ncounters].name = xstrdup(name);
	p->counters[p->ncounters].value = delta;
	p->ncounters++;
}

uint64_t raw_get_counter(const struct raw_profile *p, const char *name)
{
	for (size_t i = 0; i < p->ncounters; i++)
		if (!strcmp(p->counters[i].name, name))
			return p->counters[i].value;
	return 0;
}

const char *const raw_id_kind_name[RAW_ID_KINDS] = {
	[RAW_ID_BUILD_ID] = "build-id",
	[RAW_ID_CONTENT] = "content-md5",
	[RAW_ID_PATH] = "path-md5",
};

int raw_find_object_id(const struct raw_profile *p, enum raw_id_kind kind,
		       const uint8_t *id, uint32_t len)
{
	for (size_t i = 0; i < p->nobjs; i++)
		if (p->objs[i].id_kind == kind && p->objs[i].build_id_len == len &&
		    !memcmp(p->objs[i].build_id, id, len))
			return (int)i;
	return -1;
}

int raw_find_object(const struct raw_profile *p, const uint8_t *build_id,
		    uint32_t len)
{
	return raw_find_object_id(p, RAW_ID_BUILD_ID, build_id, len);
}

uint32_t raw_object_id(struct raw_profile *p, enum raw_id_kind kind,
		       const uint8_t *id, uint32_t len, const char *path)
{
	int i;
	struct raw_object *o;

	if (len > RAW_BUILD_ID_MAX)
		len = RAW_BUILD_ID_MAX;
	i = raw_find_object_id(p, kind, id, len);
	if (i >= 0)
		return (uint32_t)i;
	grow(&p->objs, &p->cap_objs, p->nobjs + 1, sizeof(*p->objs));
	o = &p->objs[p->nobjs];
	memset(o, 0, sizeof(*o));
	memcpy(o->build_id, id, len);
	o->build_id_len = len;
	o->id_kind = (uint8_t)kind;
	o->path = xstrdup(path ? path : "");
	return (uint32_t)p->nobjs++;
}

uint32_t raw_object(struct raw_profile *p, const uint8_t *build_id,
		    uint32_t len, const char *path)
{
	return raw_object_id(p, RAW_ID_BUILD_ID, build_id, len, path);
}

uint32_t raw_path_object(struct raw_profile *p, const char *path)
{
	static const char deleted[] = " (deleted)";
	size_t n = strlen(path), d = sizeof(deleted) - 1;
	uint8_t id[MD5_DIGEST_LEN];

	if (n > d && !strcmp(path + n - d, deleted))
		n -= d;
	md5_buffer(path, n, id);
	return raw_object_id(p, RAW_ID_PATH, id, sizeof(id), path);
}

void raw_add_ip(struct raw_object *o, uint64_t offset, uint64_t count)
{
	grow(&o->ips, &o->cap_ips, o->nips + 1, sizeof(*o->ips));
	o->ips[o->nips++] = (struct raw_ip){ offset, count };
}

void raw_add_edge(struct raw_object *o, uint64_t ret_offset, uint32_t callee_obj,
		  uint64_t callee_offset, uint64_t count)
{
	grow(&o->edges, &o->cap_edges, o->nedges + 1, sizeof(*o->edges));
	o->edges[o->nedges++] = (struct raw_edge){ ret_offset, callee_obj,
						   callee_offset, count };
}

void raw_add_range(struct raw_object *o, uint64_t begin, uint64_t end,
		   uint64_t count)
{
	grow(&o->ranges, &o->cap_ranges, o->nranges + 1, sizeof(*o->ranges));
	o->ranges[o->nranges++] = (struct raw_range){ begin, end, count };
}

void raw_add_branch(struct raw_object *o, uint64_t from, uint32_t to_obj,
		    uint64_t to, uint64_t count)
{
	grow(&o->branches, &o->cap_branches, o->nbranches + 1,
	     sizeof(*o->branches));
	o->branches[o->nbranches++] = (struct raw_branch){ from, to_obj, to, count };
}

static int cmp_range(const void *a, const void *b)
{
	const struct raw_range *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin > y->begin ? 1 : -1;
	return (x->end > y->end) - (x->end < y->end);
}

static int cmp_branch(const void *a, const void *b)
{
	const struct raw_branch *x = a, *y = b;

	if (x->from != y->from)
		return x->from > y->from ? 1 : -1;
	if (x->to_obj != y->to_obj)
		return x->to_obj > y->to_obj ? 1 : -1;
	return (x->to > y->to) - (x->to < y->to);
}

static int cmp_ip(const void *a, const void *b)
{
	const struct raw_ip *x = a, *y = b;

	return (x->offset > y->offset) - (x->offset < y->offset);
}

static int cmp_edge(const void *a, const void *b)
{
	const struct raw_edge *x = a, *y = b;

	if (x->ret_offset != y->ret_offset)
		return (x->ret_offset > y->ret_offset) ? 1 : -1;
	if (x->callee_obj != y->callee_obj)
		return (x->callee_obj > y->callee_obj) ? 1 : -1;
	return (x->callee_offset > y->callee_offset) -
	       (x->callee_offset < y->callee_offset);
}

static int cmp_counter(const void *a, const void *b)
{
	return strcmp(((const struct raw_counter *)a)->name,
		      ((const struct raw_counter *)b)->name);
}

static int cmp_kv(const void *a, const void *b)
{
	return strcmp(((const struct raw_kv *)a)->key,
		      ((const struct raw_kv *)b)->key);
}

static void normalize_object(struct raw_object *o)
{
	size_t n = 0;

	sort(o->ips, o->nips, sizeof(*o->ips), cmp_ip);
	for (size_t i = 0; i < o->nips; i++) {
		if (n && o->ips[n - 1].offset == o->ips[i].offset)
			o->ips[n - 1].count = sat_add64(o->ips[n - 1].count,
							o->ips[i].count);
		else
			o->ips[n++] = o->ips[i];
	}
	o->nips = n;
	n = 0;
	sort(o->edges, o->nedges, sizeof(*o->edges), cmp_edge);
	for (size_t i = 0; i < o->nedges; i++) {
		if (n && !cmp_edge(&o->edges[n - 1], &o->edges[i]))
			o->edges[n - 1].count = sat_add64(o->edges[n - 1].count,
							  o->edges[i].count);
		else
			o->edges[n++] = o->edges[i];
	}
	o->nedges = n;
	n = 0;
	sort(o->ranges, o->nranges, sizeof(*o->ranges), cmp_range);
	for (size_t i = 0; i < o->nranges; i++) {
		if (n && !cmp_range(&o->ranges[n - 1], &o->ranges[i]))
			o->ranges[n - 1].count = sat_add64(o->ranges[n - 1].count,
							   o->ranges[i].count);
		else
			o->ranges[n++] = o->ranges[i];
	}
	o->nranges = n;
	n = 0;
	sort(o->branches, o->nbranches, sizeof(*o->branches), cmp_branch);
	for (size_t i = 0; i < o->nbranches; i++) {
		if (n && !cmp_branch(&o->branches[n - 1], &o->branches[i]))
			o->branches[n - 1].count = sat_add64(o->branches[n - 1].count,
							     o->branches[i].count);
		else
			o->branches[n++] = o->branches[i];
	}
	o->nbranches = n;
}

static int cmp_obj(const void *a, const void *b)
{
	const struct raw_object *x = a, *y = b;
	uint32_t n = x->build_id_len < y->build_id_len ? x->build_id_len
						       : y->build_id_len;
	int c = memcmp(x->build_id, y->build_id, n);

	if (x->id_kind != y->id_kind)
		return (x->id_kind > y->id_kind) - (x->id_kind < y->id_kind);
	if (c)
		return c;
	return (x->build_id_len > y->build_id_len) - (x->build_id_len < y->build_id_len);
}

/* Object references (edge callees, branch targets) below n get newidx[]. */
static void renumber(struct raw_profile *p, const uint32_t *newidx, size_t n)
{
	for (size_t i = 0; i < p->nobjs; i++) {
		struct raw_object *o = &p->objs[i];

		for (size_t j = 0; j < o->nedges; j++)
			if (o->edges[j].callee_obj < n)
				o->edges[j].callee_obj = newidx[o->edges[j].callee_obj];
		for (size_t j = 0; j < o->nbranches; j++)
			if (o->branches[j].to_obj < n)
				o->branches[j].to_obj = newidx[o->branches[j].to_obj];
	}
	stacks_renumber(&p->stacks, newidx, n);
}

/* Objects in build-ID order, so that merge(A, B) and merge(B, A) are the
 * same bytes; edges follow their callee objects to the new indexes. */
static void sort_objects(struct raw_profile *p)
{
	uint32_t *newidx = xcalloc(p->nobjs, sizeof(*newidx));
	struct raw_object *old = xmalloc(p->nobjs * sizeof(*old));

	if (p->nobjs)
		memcpy(old, p->objs, p->nobjs * sizeof(*old));
	sort(p->objs, p->nobjs, sizeof(*p->objs), cmp_obj);
	for (size_t i = 0; i < p->nobjs; i++)
		newidx[i] = (uint32_t)raw_find_object_id(p, old[i].id_kind,
							 old[i].build_id,
							 old[i].build_id_len);
	renumber(p, newidx, p->nobjs);
	free(old);
	free(newidx);
}

static int has_samples(const struct raw_object *o)
{
	return o->nips || o->nedges || o->nranges || o->nbranches;
}

void raw_drop_empty_objects(struct raw_profile *p)
{
	uint8_t *used;
	uint32_t *newidx;
	size_t n = 0, old_n = p->nobjs;

	/* Most often none is empty: then the walks of every edge and branch
	 * below (twice, with renumber()) would change nothing. */
	while (n < p->nobjs && has_samples(&p->objs[n]))
		n++;
	if (n == p->nobjs)
		return;
	n = 0;
	used = xcalloc(p->nobjs, 1);
	newidx = xcalloc(p->nobjs, sizeof(*newidx));
	for (size_t i = 0; i < p->nobjs; i++) {
		const struct raw_object *o = &p->objs[i];

		used[i] |= has_samples(o);
		for (size_t j = 0; j < o->nedges; j++)
			if (o->edges[j].callee_obj < p->nobjs)
				used[o->edges[j].callee_obj] = 1;
		for (size_t j = 0; j < o->nbranches; j++)
			if (o->branches[j].to_obj < p->nobjs)
				used[o->branches[j].to_obj] = 1;
	}
	stacks_mark_used(&p->stacks, used, p->nobjs);
	for (size_t i = 0; i < p->nobjs; i++) {
		if (!used[i]) {
			object_free(&p->objs[i]);
			continue;
		}
		newidx[i] = (uint32_t)n;
		p->objs[n++] = p->objs[i];
	}
	p->nobjs = n;
	renumber(p, newidx, old_n);
	free(used);
	free(newidx);
}

void raw_normalize(struct raw_profile *p)
{
	sort_objects(p);
	sort(p->meta, p->nmeta, sizeof(*p->meta), cmp_kv);
	sort(p->counters, p->ncounters, sizeof(*p->counters), cmp_counter);
	for (size_t i = 0; i < p->nobjs; i++)
		normalize_object(&p->objs[i]);
	stacks_sort(&p->stacks);
}

/* 1 if value is one of the comma-separated items of list. */
static int has_item(const char *list, const char *value)
{
	size_t n = strlen(value);

	for (const char *s = list; s; s = strchr(s, ',')) {
		if (*s == ',')
			s++;
		if (!strncmp(s, value, n) && (s[n] == ',' || !s[n]))
			return 1;
	}
	return 0;
}

static void merge_meta(struct raw_profile *dst, const struct raw_kv *kv)
{
	const char *old = raw_get_meta(dst, kv->key);
	char *joined;

	if (!old) {
		raw_set_meta(dst, kv->key, kv->value);
		return;
	}
	/* Keep every distinct value, e.g. the hosts a fleet profile came from. */
	if (!*kv->value || has_item(old, kv->value))
		return;
	joined = xmalloc(strlen(old) + strlen(kv->value) + 2);
	sprintf(joined, "%s,%s", old, kv->value);
	raw_set_meta(dst, kv->key, joined);
	free(joined);
}

/* Records of every table of p: what normalizing it costs. */
static size_t records(const struct raw_profile *p)
{
	size_t n = p->stacks.n;

	for (size_t i = 0; i < p->nobjs; i++)
		n += p->objs[i].nips + p->objs[i].nedges + p->objs[i].nranges +
		     p->objs[i].nbranches;
	return n;
}

void raw_merge(struct raw_profile *dst, const struct raw_profile *src,
	       uint64_t weight)
{
	raw_merge_add(dst, src, weight);
	raw_normalize(dst);
	dst->merge_normalized = records(dst);
}

void raw_merge_add(struct raw_profile *dst, const struct raw_profile *src,
		   uint64_t weight)
{
	uint32_t *map = xcalloc(src->nobjs, sizeof(*map));

	for (size_t i = 0; i < src->nmeta; i++)
		merge_meta(dst, &src->meta[i]);
	for (size_t i = 0; i < src->ncounters; i++)
		raw_add_counter(dst, src->counters[i].name,
				sat_mul64(src->counters[i].value, weight));
	/* First give every source object its index in dst, so edges that
	 * point across objects can be renumbered. */
	for (size_t i = 0; i < src->nobjs; i++)
		map[i] = raw_object_id(dst, src->objs[i].id_kind,
				       src->objs[i].build_id,
				       src->objs[i].build_id_len, src->objs[i].path);
	for (size_t i = 0; i < src->nobjs; i++) {
		const struct raw_object *s = &src->objs[i];
		struct raw_object *d = &dst->objs[map[i]];

		for (size_t j = 0; j < s->nips; j++)
			raw_add_ip(d, s->ips[j].offset,
				   sat_mul64(s->ips[j].count, weight));
		for (size_t j = 0; j < s->nedges; j++)
			raw_add_edge(d, s->edges[j].ret_offset,
				     map[s->edges[j].callee_obj],
				     s->edges[j].callee_offset,
				     sat_mul64(s->edges[j].count, weight));
		for (size_t j = 0; j < s->nranges; j++)
			raw_add_range(d, s->ranges[j].begin, s->ranges[j].end,
				      sat_mul64(s->ranges[j].count, weight));
		for (size_t j = 0; j < s->nbranches; j++)
			raw_add_branch(d, s->branches[j].from,
				       map[s->branches[j].to_obj], s->branches[j].to,
				       sat_mul64(s->branches[j].count, weight));
	}
	stacks_merge(dst, src, map, weight);
	free(map);
	/* Adding up duplicates once the tables have doubled keeps memory at
	 * twice the distinct records and the sorting linear-logarithmic in
	 * all that was added, however many profiles come. */
	if (records(dst) > 2 * dst->merge_normalized + 4096) {
		raw_normalize(dst);
		dst->merge_normalized = records(dst);
	}
}

size_t raw_saturated(const struct raw_profile *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->ncounters; i++)
		n += p->counters[i].value == UINT64_MAX;
	for (size_t i = 0; i < p->nobjs; i++) {
		const struct raw_object *o = &p->objs[i];

		for (size_t j = 0; j < o->nips; j++)
			n += o->ips[j].count == UINT64_MAX;
		for (size_t j = 0; j < o->nedges; j++)
			n += o->edges[j].count == UINT64_MAX;
		for (size_t j = 0; j < o->nranges; j++)
			n += o->ranges[j].count == UINT64_MAX;
		for (size_t j = 0; j < o->nbranches; j++)
			n += o->branches[j].count == UINT64_MAX;
	}
	for (size_t i = 0; i < p->stacks.n; i++)
		n += p->stacks.v[i].count == UINT64_MAX;
	return n;
}

/* "stack COUNT OBJ:0xOFFSET ...", leaf first; a mark prints as
 * "unknown" or "kernel". */
static void print_stacks(const struct raw_profile *p, FILE *f)
{
	for (size_t i = 0; i < p->stacks.n; i++) {
		const struct raw_stack *s = &p->stacks.v[i];
		const struct raw_frame *fr = raw_stack_frames(p, s);

		fprintf(f, "stack %llu", (unsigned long long)s->count);
		for (uint32_t j = 0; j < s->depth; j++) {
			if (fr[j].obj == RAW_FRAME_UNKNOWN)
				fprintf(f, " unknown");
			else if (fr[j].obj == RAW_FRAME_KERNEL)
				fprintf(f, " kernel");
			else
				fprintf(f, " %u:0x%llx", fr[j].obj,
					(unsigned long long)fr[j].offset);
		}
		fputc('\n', f);
	}
}

void raw_print(const struct raw_profile *p, FILE *f)
{
	char hex[2 * RAW_BUILD_ID_MAX + 1];

	fprintf(f, "# pgoprof raw profile, format version %d\n", RAW_VERSION);
	for (size_t i = 0; i < p->nmeta; i++) {
		fputs("meta ", f);
		esc_fputs(p->meta[i].key, 0, f);
		fputs(" = ", f);
		esc_fputs(p->meta[i].value, 0, f);
		putc('\n', f);
	}
	for (size_t i = 0; i < p->ncounters; i++) {
		fputs("counter ", f);
		esc_fputs(p->counters[i].name, 0, f);
		fprintf(f, " = %llu\n", (unsigned long long)p->counters[i].value);
	}
	for (size_t i = 0; i < p->nobjs; i++) {
		const struct raw_object *o = &p->objs[i];
		uint64_t total = 0;

		for (size_t j = 0; j < o->nips; j++)
			total += o->ips[j].count;
		hex_string(hex, o->build_id, o->build_id_len);
		fprintf(f, "object %zu %s %s path ", i,
			raw_id_kind_name[o->id_kind], hex);
		esc_fputs(o->path, 0, f);
		fprintf(f, " samples %llu ips %zu edges %zu ranges %zu branches %zu\n",
			(unsigned long long)total, o->nips,
			o->nedges, o->nranges, o->nbranches);
		for (size_t j = 0; j < o->nips; j++)
			fprintf(f, "  ip 0x%llx %llu\n",
				(unsigned long long)o->ips[j].offset,
				(unsigned long long)o->ips[j].count);
		for (size_t j = 0; j < o->nedges; j++)
			fprintf(f, "  edge 0x%llx -> %u:0x%llx %llu\n",
				(unsigned long long)o->edges[j].ret_offset,
				o->edges[j].callee_obj,
				(unsigned long long)o->edges[j].callee_offset,
				(unsigned long long)o->edges[j].count);
		for (size_t j = 0; j < o->nranges; j++)
			fprintf(f, "  range 0x%llx-0x%llx %llu\n",
				(unsigned long long)o->ranges[j].begin,
				(unsigned long long)o->ranges[j].end,
				(unsigned long long)o->ranges[j].count);
		for (size_t j = 0; j < o->nbranches; j++)
			fprintf(f, "  branch 0x%llx -> %u:0x%llx %llu\n",
				(unsigned long long)o->branches[j].from,
				o->branches[j].to_obj,
				(unsigned long long)o->branches[j].to,
				(unsigned long long)o->branches[j].count);
	}
	print_stacks(p, f);
}

void raw_add_unattributed(struct raw_profile *p, const char *reason,
			  uint64_t n)
{
	char name[64];

	snprintf(name, sizeof(name), CNT_UNATTR "%s", reason);
	raw_add_counter(p, name, n);
}

uint64_t raw_unattributed(const struct raw_profile *p, char *line, size_t len)
{
	size_t n = 0, pre = strlen(CNT_UNATTR);
	uint64_t total = 0;

	line[0] = '\0';
	for (size_t i = 0; i < p->ncounters; i++) {
		const char *name = p->counters[i].name;

		if (strncmp(name, CNT_UNATTR, pre) || !p->counters[i].value)
			continue;
		total = sat_add64(total, p->counters[i].value);
		n += (size_t)snprintf(line + n, n < len ? len - n : 0,
				      "%s%llu %s", n ? ", " : "",
				      (unsigned long long)p->counters[i].value,
				      name + pre);
		if (n >= len)
			n = len - 1;
	}
	return total;
}
