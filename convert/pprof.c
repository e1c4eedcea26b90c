/* SPDX-License-Identifier: GPL-2.0-only */
/* A raw profile as pprof: profile.proto (third_party/pprof) encoded by
 * libprotobuf-c from code that protoc-c generates at build time, gzipped
 * by zlib.  It symbolizes, so it lives with the converter: function names,
 * inline chains and source lines come from convert/symbolize.h. */
#include "pprof.h"
#include "binobj.h"
#include "symbolize.h"
#include "../lib/escape.h"
#include "../lib/hash.h"
#include "../lib/hindex.h"
#include "../lib/util.h"
#include "pprof/profile.pb-c.h"
#include "../lib/strtab.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__ValueType ValueType;

/* One object: its symbolizer (NULL: unsymbolized) and its mappings, one
 * per PT_LOAD segment and one (index nsegs) for addresses that are file
 * offsets; map[k] is a Mapping id, 0 before its first location. */
struct objsym {
	struct symbolizer *s;
	int own;		/* opened here for the recorded path */
	const struct load_seg *segs;
	int nsegs;
	uint64_t *map;
};

/* A location's key: object (or mark), file offset, leaf or return
 * address (symbolized at offset - 1, inside the call). */
struct lockey {
	uint32_t obj;
	uint32_t leaf;
	uint64_t off;
};

struct pw {
	const struct raw_profile *p;
	struct strtab str;
	struct objsym *os;
	Mapping *maps;
	size_t nmaps, cap_maps;
	Location *locs;
	size_t nlocs, cap_locs;
	size_t *loc_line;	/* [nlocs]: the location's first line in lines */
	size_t cap_loc_line;
	struct lockey *keys;	/* [nlocs] */
	size_t cap_keys;
	struct hindex lindex;	/* locations by key */
	Line *lines;
	size_t nlines, cap_lines;
	Function *funcs;
	size_t nfuncs, cap_funcs;
	uint64_t *fn_by_str;	/* Function id by name's string number */
	size_t cap_fn_by_str;
	Sample *samples;
	size_t nsamples, cap_samples;
	uint64_t *ids;		/* every sample's location ids, in order */
	size_t nids, cap_ids;
	int64_t *values;	/* nvalues per sample */
	size_t nvals, cap_vals;
	int nvalues;
	int ranges;		/* samples are instructions of ranges */
	uint64_t undecoded;	/* range executions without a binary */
	uint64_t period;	/* nanoseconds (or events) per sample */
	struct sym_result *res;
};

/* The string number of s (copied in if new). */
static int64_t str_id(struct strtab *t, const char *s)
{
	return (int64_t)strtab_id(t, s);
}

/* ---- Objects: which file symbolizes each ---- */

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* 1 if the opened binary at path is object o; for an object known by
 * path only, the file name must agree as well. */
static int binary_is(const struct raw_object *o, const char *path,
		     struct symbolizer *s)
{
	size_t len;
	const uint8_t *id = sym_build_id(s, &len);

	if (o->id_kind == RAW_ID_PATH &&
	    strcmp(base_name(o->path), base_name(path)))
		return 0;
	return raw_file_is_object(o, path, id, len);
}

/* Pick each object's symbolizer among bins (opened --binary files).
 * A --binary that is no object is said. */
static void find_objects(struct pw *w, struct symbolizer **bins,
			 const struct pprof_write_opts *o)
{
	int *used = xcalloc((size_t)o->nbinaries + 1, sizeof(*used));

	w->os = xcalloc(w->p->nobjs + 1, sizeof(*w->os));
	for (size_t i = 0; i < w->p->nobjs; i++) {
		struct objsym *os = &w->os[i];

		for (int j = 0; j < o->nbinaries && !os->s; j++)
			if (binary_is(&w->p->objs[i], o->binaries[j], bins[j])) {
				os->s = bins[j];
				used[j] = 1;
			}
		if (!os->s && (os->s = binobj_open_recorded(&w->p->objs[i])))
			os->own = 1;
		if (os->s) {
			sym_want_files(os->s);	/* Function.filename */
			os->segs = sym_segments(os->s, &os->nsegs);
		}
		os->map = xcalloc((size_t)os->nsegs + 1, sizeof(*os->map));
	}
	for (int j = 0; j < o->nbinaries; j++)
		if (!used[j])
			warnx("%s: no object of %s has its build-ID (or content): its samples are not there",
			      o->binaries[j], o->raw_name);
	free(used);
}

/* ---- Mappings, functions, locations ---- */

static uint64_t mapping(struct pw *w, uint32_t obj, int seg)
{
	struct objsym *os = &w->os[obj];
	const struct raw_object *o = &w->p->objs[obj];
	Mapping *m;
	char id[2 * RAW_BUILD_ID_MAX + 1] = "";

	if (os->map[seg])
		return os->map[seg];
	grow(&w->maps, &w->cap_maps, w->nmaps + 1, sizeof(*w->maps));
	m = &w->maps[w->nmaps];
	*m = (Mapping)PERFTOOLS__PROFILES__MAPPING__INIT;
	m->id = w->nmaps + 1;
	if (seg < os->nsegs) {
		m->memory_start = os->segs[seg].vaddr;
		m->memory_limit = os->segs[seg].vaddr + os->segs[seg].memsz;
		m->file_offset = os->segs[seg].offset;
	}
	m->filename = str_id(&w->str, o->path ? o->path : "");
	/* pprof writes a GNU build-ID as lower-case hex; an ID of another
	 * kind (a content or path digest) is no build-ID. */
	if (o->id_kind == RAW_ID_BUILD_ID)
		hex_string(id, o->build_id, o->build_id_len);
	m->build_id = str_id(&w->str, id);
	w->nmaps++;
	return os->map[seg] = m->id;
}

/* The Function id of name, added with its start line and file (NULL:
 * none) when first seen. */
static uint64_t function(struct pw *w, const char *name, uint32_t decl_line,
			 const char *file)
{
	int64_t s = str_id(&w->str, name);
	Function *f;

	if ((size_t)s >= w->cap_fn_by_str) {	/* grow() leaves new slots as they are */
		size_t old = w->cap_fn_by_str;

		grow(&w->fn_by_str, &w->cap_fn_by_str, (size_t)s + 1,
		     sizeof(*w->fn_by_str));
		memset(w->fn_by_str + old, 0,
		       (w->cap_fn_by_str - old) * sizeof(*w->fn_by_str));
	}
	if (w->fn_by_str[s])
		return w->fn_by_str[s];
	grow(&w->funcs, &w->cap_funcs, w->nfuncs + 1, sizeof(*w->funcs));
	f = &w->funcs[w->nfuncs];
	*f = (Function)PERFTOOLS__PROFILES__FUNCTION__INIT;
	f->id = w->nfuncs + 1;
	f->name = s;
	f->system_name = s;
	f->start_line = decl_line;
	if (file)
		f->filename = str_id(&w->str, file);
	w->nfuncs++;
	return w->fn_by_str[s] = f->id;
}

static void add_line(struct pw *w, Location *l, const char *name,
		     uint32_t line, uint32_t decl_line, const char *file)
{
	uint64_t fn = function(w, name, decl_line, file);

	grow(&w->lines, &w->cap_lines, w->nlines + 1, sizeof(*w->lines));
	w->lines[w->nlines] = (Line)PERFTOOLS__PROFILES__LINE__INIT;
	w->lines[w->nlines].function_id = fn;
	w->lines[w->nlines].line = line;
	w->nlines++;
	l->n_line++;
}

/* Lines of l at the ELF virtual address vaddr of symbolizer s, innermost
 * first as pprof wants; sym_result's frames are outermost first. */
static void symbolize(struct pw *w, Location *l, Mapping *m,
		      struct symbolizer *s, uint64_t vaddr)
{
	const struct sym_result *r = w->res;
	const char *name;

	if (sym_lookup(s, vaddr, w->res) == SYM_OK) {
		for (int i = r->nframes - 1; i >= 0; i--) {
			add_line(w, l, r->frames[i].name, r->frames[i].line,
				 r->frames[i].decl_line, r->frames[i].file);
			m->has_filenames |= r->frames[i].file != NULL;
		}
		m->has_line_numbers = m->has_inline_frames = 1;
		m->has_functions = 1;
	} else if ((name = sym_function_name(s, vaddr))) {
		add_line(w, l, name, 0, 0, NULL);	/* .symtab: no line */
		m->has_functions = 1;
	}
}

/* The segment that holds file offset off, or nsegs (none, or no ELF). */
static int segment_of(const struct objsym *os, uint64_t off)
{
	int seg;

	for (seg = 0; seg < os->nsegs; seg++)
		if (off >= os->segs[seg].offset &&
		    off - os->segs[seg].offset < os->segs[seg].filesz)
			break;
	return seg;
}

/* Fill location l for key k: mapping, address, lines. */
static void fill_location(struct pw *w, Location *l, const struct lockey *k)
{
	struct objsym *os;
	uint64_t vaddr;
	int seg;
	Mapping *m;

	if (k->obj >= w->p->nobjs) {	/* a mark: no mapping, a name */
		add_line(w, l, k->obj == RAW_FRAME_KERNEL ? "[kernel]" : "[unknown]", 0, 0, NULL);
		return;
	}
	os = &w->os[k->obj];
	seg = segment_of(os, k->off);
	l->mapping_id = mapping(w, k->obj, seg);
	m = &w->maps[l->mapping_id - 1];
	if (seg == os->nsegs) {		/* the address is the file offset */
		l->address = k->off;
		if (m->memory_limit <= k->off)
			m->memory_limit = k->off + 1;
		return;
	}
	/* The mapping's own segment: address - memory_start + file_offset
	 * is the file offset whatever other segments hold it. */
	vaddr = os->segs[seg].vaddr + (k->off - os->segs[seg].offset);
	l->address = vaddr;
	/* A return address is symbolized inside its call. */
	symbolize(w, l, m, os->s, k->leaf || !vaddr ? vaddr : vaddr - 1);
}

static uint64_t hash_key(const struct lockey *k)
{
	return hash_u64(hash_u64(hash_u64(HASH_INIT, k->obj), k->leaf), k->off);
}

static uint64_t loc_hash(const void *w, size_t i)
{
	return hash_key(&((const struct pw *)w)->keys[i]);
}

static int loc_eq(const void *w, size_t i, const void *key)
{
	const struct lockey *o = &((const struct pw *)w)->keys[i], *k = key;

	return o->obj == k->obj && o->leaf == k->leaf && o->off == k->off;
}

/* The Location id of frame f (a leaf or a return address). */
static uint64_t location(struct pw *w, const struct raw_frame *f, int leaf)
{
	struct lockey k = { f->obj, leaf || f->obj >= w->p->nobjs, f->offset };
	Location *l;
	size_t *slot;

	hindex_reserve(&w->lindex, w->nlocs, 1024, loc_hash, w);
	slot = hindex_find(&w->lindex, hash_key(&k), loc_eq, w, &k);
	if (*slot)
		return *slot;
	grow(&w->locs, &w->cap_locs, w->nlocs + 1, sizeof(*w->locs));
	grow(&w->keys, &w->cap_keys, w->nlocs + 1, sizeof(*w->keys));
	grow(&w->loc_line, &w->cap_loc_line, w->nlocs + 1, sizeof(*w->loc_line));
	l = &w->locs[w->nlocs];
	*l = (Location)PERFTOOLS__PROFILES__LOCATION__INIT;
	l->id = w->nlocs + 1;
	w->keys[w->nlocs] = k;
	w->loc_line[w->nlocs] = w->nlines;
	*slot = ++w->nlocs;
	fill_location(w, l, &k);
	return l->id;
}

/* ---- Samples and the profile's header ---- */

static void add_sample(struct pw *w, const struct raw_frame *f,
		       uint32_t depth, uint64_t count)
{
	Sample *s;
	uint64_t v = count;

	grow(&w->samples, &w->cap_samples, w->nsamples + 1, sizeof(*w->samples));
	s = &w->samples[w->nsamples++];
	*s = (Sample)PERFTOOLS__PROFILES__SAMPLE__INIT;
	s->n_location_id = depth;
	grow(&w->ids, &w->cap_ids, w->nids + depth, sizeof(*w->ids));
	for (uint32_t i = 0; i < depth; i++)
		w->ids[w->nids + i] = location(w, &f[i], i == 0);
	w->nids += depth;
	s->n_value = (size_t)w->nvalues;
	grow(&w->values, &w->cap_vals, w->nvals + 2, sizeof(*w->values));
	w->values[w->nvals++] = v > INT64_MAX ? INT64_MAX : (int64_t)v;
	if (w->nvalues > 1) {
		v = w->period && count > INT64_MAX / w->period ? INT64_MAX
							      : count * w->period;
		w->values[w->nvals++] = v > INT64_MAX ? INT64_MAX : (int64_t)v;
	}
}

/* pprof takes mapping[0] for the main binary: the object with the most
 * IP samples, at the segment of its busiest address, goes first. */
static void main_mapping(struct pw *w)
{
	const struct raw_profile *p = w->p;
	uint64_t best = 0, most = 0, sum;
	size_t obj = 0, ip = 0;

	for (size_t i = 0; i < p->nobjs; i++) {
		sum = 0;
		for (size_t j = 0; j < p->objs[i].nips; j++)
			sum += p->objs[i].ips[j].count;
		if (sum > best)
			best = sum, obj = i;
	}
	if (!best)
		return;
	for (size_t j = 0; j < p->objs[obj].nips; j++)
		if (p->objs[obj].ips[j].count > most)
			most = p->objs[obj].ips[j].count, ip = j;
	mapping(w, (uint32_t)obj,
		segment_of(&w->os[obj], p->objs[obj].ips[ip].offset));
}

/* A leaf of the stacks: its count summed over the stacks. */
struct leaf {
	uint32_t obj;
	uint64_t off, count;
};

static int cmp_leaf(const void *a, const void *b)
{
	const struct leaf *x = a, *y = b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Sort v[0..k) and sum the counts of duplicates; returns how many are
 * left (saturating, as the raw profile's counts do). */
static size_t merge_leaves(struct leaf *v, size_t k)
{
	size_t n = 0;

	sort(v, k, sizeof(*v), cmp_leaf);
	for (size_t i = 0; i < k; i++) {
		if (n && !cmp_leaf(&v[n - 1], &v[i]))
			v[n - 1].count = sat_add64(v[n - 1].count, v[i].count);
		else
			v[n++] = v[i];
	}
	return n;
}

/* The stacks' leaves in objects, sorted, duplicates summed. */
static struct leaf *stack_leaves(const struct raw_profile *p, size_t *n)
{
	struct leaf *v = xcalloc(p->stacks.n + 1, sizeof(*v));
	size_t k = 0;

	for (size_t i = 0; i < p->stacks.n; i++) {
		const struct raw_frame *f = raw_stack_frames(p, &p->stacks.v[i]);

		if (f[0].obj < p->nobjs)
			v[k++] = (struct leaf){ f[0].obj, f[0].offset, p->stacks.v[i].count };
	}
	*n = merge_leaves(v, k);
	return v;
}

/* Every stack as a Sample; then the IP samples that no stack has (a raw
 * profile without stacks, or merged with one of branch records), each
 * as a Sample of one location, which is said. */
static void add_samples(struct pw *w, const char *raw_name)
{
	const struct raw_profile *p = w->p;
	size_t nleaves;
	struct leaf *leaves = stack_leaves(p, &nleaves);
	uint64_t alone = 0;

	for (size_t i = 0; i < p->stacks.n; i++)
		add_sample(w, raw_stack_frames(p, &p->stacks.v[i]),
			   p->stacks.v[i].depth, p->stacks.v[i].count);
	for (size_t i = 0; i < p->nobjs; i++)
		for (size_t k = 0; k < p->objs[i].nips; k++) {
			struct leaf key = { (uint32_t)i, p->objs[i].ips[k].offset, 0 };
			const struct leaf *l = bsearch(&key, leaves, nleaves, sizeof(key), cmp_leaf);
			uint64_t c = p->objs[i].ips[k].count, in = l ? l->count : 0;

			if (c > in) {
				add_sample(w, &(struct raw_frame){ key.obj, key.off }, 1, c - in);
				alone += c - in;
			}
		}
	free(leaves);
	if (alone && !p->stacks.n)
		warnx("%s has no stacks (STACKS section): each IP sample is a sample of one location, without its callers",
		      raw_name);
	else if (alone)
		warnx("%s: %" PRIu64 " IP samples are in no stack: written as samples of one location, without their callers",
		      raw_name, alone);
}

/* 1 if p has neither stacks nor IP samples but ranges (branch records,
 * exact counts): its instructions are the samples. */
static int ranges_only(const struct raw_profile *p)
{
	size_t ranges = 0;

	if (p->stacks.n)
		return 0;
	for (size_t i = 0; i < p->nobjs; i++) {
		if (p->objs[i].nips)
			return 0;
		ranges += p->objs[i].nranges;
	}
	return ranges > 0;
}

struct insns {
	struct leaf *v;
	size_t n, cap;
	uint32_t obj;
	uint64_t count;
};

static void range_insn(uint64_t off, void *arg)
{
	struct insns *in = arg;

	grow(&in->v, &in->cap, in->n + 1, sizeof(*in->v));
	in->v[in->n++] = (struct leaf){ in->obj, off, in->count };
}

/* Ranges only: each instruction with the executions of the ranges that
 * hold it, a sample of one location.  A range of one instruction (exact
 * counts) needs no binary; a longer one is decoded with the object's. */
static void add_range_samples(struct pw *w)
{
	const struct raw_profile *p = w->p;
	struct insns in = { 0 };

	for (uint32_t i = 0; i < p->nobjs; i++) {
		in.obj = i;
		for (size_t k = 0; k < p->objs[i].nranges; k++) {
			const struct raw_range *r = &p->objs[i].ranges[k];

			in.count = r->count;
			if (r->begin == r->end)
				range_insn(r->begin, &in);
			else if (!w->os[i].s || !sym_range_insns(w->os[i].s, r->begin, r->end, range_insn, &in))
				w->undecoded = sat_add64(w->undecoded, r->count);
		}
	}
	in.n = merge_leaves(in.v, in.n);
	for (size_t i = 0; i < in.n; i++)
		add_sample(w, &(struct raw_frame){ in.v[i].obj, in.v[i].off }, 1,
			   in.v[i].count);
	free(in.v);
}

static uint64_t meta_u64(const struct raw_profile *p, const char *key)
{
	const char *v = raw_get_meta(p, key);

	return v ? strtoull(v, NULL, 10) : 0;
}

/* Nanoseconds a sample stands for: 1e9 / sample_freq, or sample_period
 * of a clock event (cpu-clock's period is nanoseconds); 0 if unknown. */
static uint64_t period_ns(const struct raw_profile *p)
{
	uint64_t freq = meta_u64(p, "sample_freq");
	const char *ev = raw_get_meta(p, "event");

	if (freq)
		return (1000000000ull + freq / 2) / freq;
	if (ev && (!strcmp(ev, "cpu-clock") || !strcmp(ev, "task-clock")))
		return meta_u64(p, "sample_period");
	return 0;
}

static ValueType *value_type(struct pw *w, ValueType *t, const char *type,
			     const char *unit)
{
	*t = (ValueType)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	t->type = str_id(&w->str, type);
	t->unit = str_id(&w->str, unit);
	return t;
}

/* Sample types, period and times.  types[] holds 3 value types. */
static void header(struct pw *w, Profile *pf, ValueType *types,
		   ValueType **type_ptrs, const char *raw_name)
{
	const struct raw_profile *p = w->p;
	const char *ev = raw_get_meta(p, "event"), *start = raw_get_meta(p, "start_time");
	uint64_t events = meta_u64(p, "sample_period");
	struct tm tm = { 0 };

	type_ptrs[0] = value_type(w, &types[0], "samples", "count");
	w->period = period_ns(p);
	if (w->ranges) {	/* counts are executions, of instructions */
		type_ptrs[0] = value_type(w, &types[0], "instructions", "count");
		pf->period_type = value_type(w, &types[2], "instructions", "count");
		w->period = 1;
	} else if (w->period) {
		type_ptrs[1] = value_type(w, &types[1], "cpu", "nanoseconds");
		pf->period_type = value_type(w, &types[2], "cpu", "nanoseconds");
		pf->default_sample_type = types[1].type;
	} else if (events && ev) {	/* a hardware event: events, not time */
		w->period = events;
		type_ptrs[1] = value_type(w, &types[1], ev, "count");
		pf->period_type = value_type(w, &types[2], ev, "count");
		char *e = esc_strdup(ev, 0);

		warnx("%s: event %s is no clock: the second value is %s events (samples x sample_period %" PRIu64 "), not cpu/nanoseconds",
		      raw_name, e, e, events);
		free(e);
	} else {
		pf->period_type = value_type(w, &types[2], "samples", "count");
		w->period = 1;
		warnx("%s has neither sample_freq nor sample_period: only samples/count is written",
		      raw_name);
	}
	w->nvalues = type_ptrs[1] ? 2 : 1;
	pf->n_sample_type = (size_t)w->nvalues;
	pf->sample_type = type_ptrs;
	pf->period = (int64_t)w->period;
	pf->duration_nanos = (int64_t)(raw_get_counter(p, "duration_ms") * 1000000);
	if (start && strptime(start, "%Y-%m-%dT%H:%M:%SZ", &tm))
		pf->time_nanos = (int64_t)timegm(&tm) * 1000000000;
}

/* Point the messages at their parts, now that no array moves. */
static void link_parts(struct pw *w, Profile *pf, void ***ptrs)
{
	Mapping **mp = xcalloc(w->nmaps + 1, sizeof(*mp));
	Location **lp = xcalloc(w->nlocs + 1, sizeof(*lp));
	Line **np = xcalloc(w->nlines + 1, sizeof(*np));
	Function **fp = xcalloc(w->nfuncs + 1, sizeof(*fp));
	Sample **sp = xcalloc(w->nsamples + 1, sizeof(*sp));
	size_t ids = 0;

	for (size_t i = 0; i < w->nmaps; i++)
		mp[i] = &w->maps[i];
	for (size_t i = 0; i < w->nlines; i++)
		np[i] = &w->lines[i];
	for (size_t i = 0; i < w->nlocs; i++) {
		lp[i] = &w->locs[i];
		lp[i]->line = w->locs[i].n_line ? &np[w->loc_line[i]] : NULL;
	}
	for (size_t i = 0; i < w->nfuncs; i++)
		fp[i] = &w->funcs[i];
	for (size_t i = 0; i < w->nsamples; i++) {
		sp[i] = &w->samples[i];
		sp[i]->location_id = &w->ids[ids];
		sp[i]->value = &w->values[i * (size_t)w->nvalues];
		ids += sp[i]->n_location_id;
	}
	pf->n_mapping = w->nmaps, pf->mapping = mp;
	pf->n_location = w->nlocs, pf->location = lp;
	pf->n_function = w->nfuncs, pf->function = fp;
	pf->n_sample = w->nsamples, pf->sample = sp;
	pf->n_string_table = w->str.n, pf->string_table = w->str.v;
	ptrs[0] = (void **)mp, ptrs[1] = (void **)lp, ptrs[2] = (void **)np;
	ptrs[3] = (void **)fp, ptrs[4] = (void **)sp;
}

/* ---- Output ---- */

/* buf (len bytes) gzipped into *out (malloc'd); returns its length, or 0
 * on a zlib error. */
static size_t gzip(const uint8_t *buf, size_t len, uint8_t **out)
{
	z_stream z = { 0 };
	size_t cap;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	cap = deflateBound(&z, len) + 64;
	*out = xmalloc(cap);
	z.next_in = (Bytef *)buf;
	z.avail_in = (uInt)len;
	z.next_out = *out;
	z.avail_out = (uInt)cap;
	if (len > UINT32_MAX || cap > UINT32_MAX ||
	    deflate(&z, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&z);
		free(*out);
		return 0;
	}
	deflateEnd(&z);
	return z.total_out;
}

static int write_out(const uint8_t *buf, size_t len, const char *path)
{
	struct outfile o;

	if (!strcmp(path, "-")) {
		if (isatty(STDOUT_FILENO))
			return err("not writing gzipped pprof to a terminal: give -o FILE");
		fwrite(buf, 1, len, stdout);
		return stdout_flush();
	}
	if (outfile_open(&o, path))
		return -1;
	if (fwrite(buf, 1, len, o.f) != len)
		return outfile_fail(&o);
	return outfile_commit(&o);
}

static int pack_and_write(Profile *pf, const char *path)
{
	size_t len = perftools__profiles__profile__get_packed_size(pf), zlen;
	uint8_t *buf = xmalloc(len + 1), *z = NULL;
	int rc;

	perftools__profiles__profile__pack(pf, buf);
	zlen = gzip(buf, len, &z);
	free(buf);
	if (!zlen)
		return err("%s: gzip (zlib) failed for %zu bytes of profile", path, len);
	rc = write_out(z, zlen, path);
	free(z);
	return rc;
}

static void pw_free(struct pw *w, struct symbolizer **bins, int nbins)
{
	for (size_t i = 0; w->os && i < w->p->nobjs; i++) {
		if (w->os[i].own)
			sym_close(w->os[i].s);
		free(w->os[i].map);
	}
	for (int j = 0; j < nbins; j++)
		sym_close(bins[j]);
	strtab_free(&w->str);
	free(w->os), free(w->maps);
	free(w->locs), free(w->loc_line), free(w->keys);
	hindex_free(&w->lindex);
	free(w->lines), free(w->funcs), free(w->fn_by_str), free(w->samples);
	free(w->ids), free(w->values), free(w->res);
}

static void summary(const struct pw *w, const char *path)
{
	size_t sym = 0;
	uint64_t total = 0;

	for (size_t i = 0; i < w->p->nobjs; i++)
		sym += w->os[i].s != NULL;
	for (size_t i = 0; i < w->nsamples; i++)
		total += (uint64_t)w->values[i * (size_t)w->nvalues];
	fprintf(stderr, "%s: wrote %s: %zu samples (%" PRIu64 " counts), %zu locations, %zu functions, %zu of %zu objects symbolized\n",
		progname, path, w->nsamples, total, w->nlocs, w->nfuncs, sym,
		w->p->nobjs);
}

int pprof_write_file(const struct raw_profile *p, const char *path,
		     const struct pprof_write_opts *o)
{
	struct pw w = { .p = p };
	struct symbolizer **bins = xcalloc((size_t)o->nbinaries + 1, sizeof(*bins));
	Profile pf = PERFTOOLS__PROFILES__PROFILE__INIT;
	ValueType types[3], *type_ptrs[2] = { NULL, NULL };
	int64_t comment;
	void **ptrs[5] = { NULL };
	int nb = 0, rc = -1;

	for (; nb < o->nbinaries; nb++)
		if (!(bins[nb] = sym_open(o->binaries[nb], NULL, 0)))
			goto out;
	w.res = xmalloc(sizeof(*w.res));
	str_id(&w.str, "");	/* string_table[0] must be "" */
	find_objects(&w, bins, o);
	w.ranges = ranges_only(p);
	header(&w, &pf, types, type_ptrs, o->raw_name);
	main_mapping(&w);
	if (w.ranges)
		add_range_samples(&w);
	else
		add_samples(&w, o->raw_name);
	if (w.undecoded)
		warnx("%s: %" PRIu64 " range executions in objects without a binary are not written: give their --binary",
		      o->raw_name, w.undecoded);
	if (!w.nsamples) {
		err("%s: nothing to write: %s; %s not written", o->raw_name,
		    w.undecoded ? "its ranges are in objects without a binary (give --binary)" :
		    "it has no stacks, IP samples or ranges", path);
		goto out;
	}
	comment = str_id(&w.str, "pgoprof raw profile");
	pf.n_comment = 1;
	pf.comment = &comment;
	link_parts(&w, &pf, ptrs);
	rc = pack_and_write(&pf, path);
	if (!rc && !o->quiet)
		summary(&w, path);
out:
	for (int i = 0; i < 5; i++)
		free(ptrs[i]);
	pw_free(&w, bins, nb);
	free(bins);
	return rc;
}
