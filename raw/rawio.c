/* SPDX-License-Identifier: GPL-2.0-only */
/* The raw profile's bytes: writer and bounds-checked reader.  Layout in
 * docs/raw-format.md; all integers little-endian. */
#include "rawprof.h"
#include "../lib/bytes.h"
#include "../lib/util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_STR (1u << 20)

/* The file goes out through a buffer of about WRITE_CHUNK bytes, written
 * to f whenever it fills, instead of built whole and then written: the
 * 21 MB buffer of a 10^6-sample import was fresh memory that faulted in
 * a page at a time (10 to 100 ms of a 0.9 s import).  A section's size
 * therefore comes before its bytes: computed first (the sec_* sizes),
 * and checked once the section is out. */
#define WRITE_CHUNK ((size_t)256 << 10)

struct rawout {
	struct wbuf b;
	FILE *f;
	uint64_t off;	/* the file's bytes before b's */
	int failed;
};

/* b's bytes to the file once it holds WRITE_CHUNK (between records). */
static void out_spill(struct rawout *o)
{
	if (o->b.len < WRITE_CHUNK)
		return;
	if (fwrite(o->b.data, 1, o->b.len, o->f) != o->b.len)
		o->failed = 1;
	o->off += o->b.len;
	o->b.len = 0;
}

/* The section header, with the size of its body: returns the offset in
 * the file where the body must end (section_end). */
static uint64_t section_begin(struct rawout *o, uint32_t type, uint32_t flags, uint64_t size)
{
	wb_u32(&o->b, type);
	wb_u32(&o->b, flags);
	wb_u64(&o->b, size);
	return o->off + o->b.len + size;
}

static void section_end(struct rawout *o, uint64_t end)
{
	if (o->off + o->b.len != end && !o->failed) {	/* a sec_* size out of step: our bug */
		err("raw_write: a section ends at byte %llu, not %llu",
		    (unsigned long long)(o->off + o->b.len), (unsigned long long)end);
		o->failed = 1;
	}
	out_spill(o);
}

/* An edge's or a branch's record, 32 bytes: its source, the target's
 * object, 4 bytes of 0, the target and the count. */
static void write_link(struct rawout *w, uint64_t from, uint32_t obj, uint64_t to,
		       uint64_t count)
{
	wb_u64(&w->b, from);
	wb_u32(&w->b, obj);
	wb_u32(&w->b, 0);
	wb_u64(&w->b, to);
	wb_u64(&w->b, count);
	out_spill(w);
}

static uint64_t sec_object(const struct raw_object *o)
{
	return 4 + (uint64_t)o->build_id_len + 4 + strlen(o->path) + 8 + 16 * (uint64_t)o->nips +
	       8 + 32 * (uint64_t)o->nedges;
}

static void write_object(struct rawout *w, const struct raw_object *o)
{
	uint64_t end = section_begin(w, RAW_SEC_OBJECT, o->id_kind, sec_object(o));
	struct wbuf *b = &w->b;

	wb_u32(b, o->build_id_len);
	wb_bytes(b, o->build_id, o->build_id_len);
	wb_str(b, o->path);
	wb_u64(b, o->nips);
	for (size_t i = 0; i < o->nips; i++) {
		wb_u64(b, o->ips[i].offset);
		wb_u64(b, o->ips[i].count);
		out_spill(w);
	}
	wb_u64(b, o->nedges);
	for (size_t i = 0; i < o->nedges; i++) {
		write_link(w, o->edges[i].ret_offset, o->edges[i].callee_obj,
			   o->edges[i].callee_offset, o->edges[i].count);
	}
	section_end(w, end);
}

/* A RANGES or BRANCHES section's start: object obj's n records of rec
 * bytes follow.  Returns where they end (section_end). */
static uint64_t lbr_begin(struct rawout *w, uint32_t type, uint32_t obj, size_t n, size_t rec)
{
	uint64_t end = section_begin(w, type, 0, 12 + (uint64_t)rec * n);

	wb_u32(&w->b, obj);
	wb_u64(&w->b, n);
	return end;
}

static void write_ranges(struct rawout *w, const struct raw_object *o, uint32_t obj)
{
	uint64_t end = lbr_begin(w, RAW_SEC_RANGES, obj, o->nranges, 24);
	struct wbuf *b = &w->b;

	for (size_t j = 0; j < o->nranges; j++) {
		wb_u64(b, o->ranges[j].begin);
		wb_u64(b, o->ranges[j].end);
		wb_u64(b, o->ranges[j].count);
		out_spill(w);
	}
	section_end(w, end);
}

static void write_branches(struct rawout *w, const struct raw_object *o, uint32_t obj)
{
	uint64_t end = lbr_begin(w, RAW_SEC_BRANCHES, obj, o->nbranches, 32);

	for (size_t j = 0; j < o->nbranches; j++) {
		write_link(w, o->branches[j].from, o->branches[j].to_obj, o->branches[j].to,
			   o->branches[j].count);
	}
	section_end(w, end);
}

/* Branch-record tables go in sections of their own after the objects, so
 * that readers of the first layout skip them (docs/raw-format.md). */
static void write_lbr(struct rawout *w, const struct raw_profile *p)
{
	for (size_t i = 0; i < p->nobjs; i++) {
		if (p->objs[i].nranges)
			write_ranges(w, &p->objs[i], (uint32_t)i);
		if (p->objs[i].nbranches)
			write_branches(w, &p->objs[i], (uint32_t)i);
	}
}

/* The call stacks, after every object that their frames name: u64 count,
 * u32 depth, then per frame u32 object and u64 file offset. */
static void write_stacks(struct rawout *w, const struct raw_profile *p)
{
	uint64_t size = 8, end;

	if (!p->stacks.n)
		return;
	for (size_t i = 0; i < p->stacks.n; i++)
		size += 12 + 12 * (uint64_t)p->stacks.v[i].depth;
	end = section_begin(w, RAW_SEC_STACKS, 0, size);
	wb_u64(&w->b, p->stacks.n);
	for (size_t i = 0; i < p->stacks.n; i++) {
		const struct raw_stack *st = &p->stacks.v[i];
		const struct raw_frame *fr = raw_stack_frames(p, st);

		wb_u64(&w->b, st->count);
		wb_u32(&w->b, st->depth);
		for (uint32_t j = 0; j < st->depth; j++) {
			wb_u32(&w->b, fr[j].obj);
			wb_u64(&w->b, fr[j].offset);
		}
		out_spill(w);
	}
	section_end(w, end);
}

static void write_meta(struct rawout *w, const struct raw_profile *p)
{
	uint64_t size = 4, end;

	for (size_t i = 0; i < p->nmeta; i++)
		size += 8 + strlen(p->meta[i].key) + strlen(p->meta[i].value);
	end = section_begin(w, RAW_SEC_META, 0, size);
	wb_u32(&w->b, (uint32_t)p->nmeta);
	for (size_t i = 0; i < p->nmeta; i++) {
		wb_str(&w->b, p->meta[i].key);
		wb_str(&w->b, p->meta[i].value);
	}
	section_end(w, end);
}

static void write_counters(struct rawout *w, const struct raw_profile *p)
{
	uint64_t size = 4, end;

	for (size_t i = 0; i < p->ncounters; i++)
		size += 12 + strlen(p->counters[i].name);
	end = section_begin(w, RAW_SEC_COUNTERS, 0, size);
	wb_u32(&w->b, (uint32_t)p->ncounters);
	for (size_t i = 0; i < p->ncounters; i++) {
		wb_str(&w->b, p->counters[i].name);
		wb_u64(&w->b, p->counters[i].value);
	}
	section_end(w, end);
}

/* The sections that raw_write() writes, for the file's header. */
static uint32_t section_count(const struct raw_profile *p)
{
	uint32_t n = (uint32_t)(2 + p->nobjs) + (p->stacks.n != 0);

	for (size_t i = 0; i < p->nobjs; i++)
		n += (p->objs[i].nranges != 0) + (p->objs[i].nbranches != 0);
	return n;
}

int raw_write(struct raw_profile *p, FILE *f)
{
	struct rawout w = { .f = f };

	raw_normalize(p);
	/* a record or a string past WRITE_CHUNK grows it, rarely */
	grow(&w.b.data, &w.b.cap, WRITE_CHUNK + 4096, 1);
	wb_bytes(&w.b, RAW_MAGIC, 8);
	wb_u32(&w.b, RAW_VERSION);
	wb_u32(&w.b, section_count(p));
	write_meta(&w, p);
	write_counters(&w, p);
	for (size_t i = 0; i < p->nobjs; i++)
		write_object(&w, &p->objs[i]);
	write_lbr(&w, p);
	write_stacks(&w, p);
	if (w.b.len && fwrite(w.b.data, 1, w.b.len, f) != w.b.len)
		w.failed = 1;
	free(w.b.data);
	return w.failed ? -1 : 0;
}

int raw_write_file(struct raw_profile *p, const char *path)
{
	struct outfile o;
	int rc;

	if (!strcmp(path, "-")) {
		if (isatty(STDOUT_FILENO))
			return err("not writing a binary raw profile to a terminal: give -o FILE");
		rc = raw_write(p, stdout);
		return stdout_flush() ? -1 : rc;
	}
	if (outfile_open(&o, path))
		return -1;
	if (raw_write(p, o.f))
		return outfile_fail(&o);
	return outfile_commit(&o);
}

static void parse_meta(struct rbuf *r, struct raw_profile *p)
{
	uint32_t n = rb_u32(r);

	for (uint32_t i = 0; i < n && !r->failed; i++) {
		char *k = rb_str(r, MAX_STR), *v = rb_str(r, MAX_STR);

		if (k && v)
			raw_set_meta(p, k, v);
		free(k);
		free(v);
	}
}

static void parse_counters(struct rbuf *r, struct raw_profile *p)
{
	uint32_t n = rb_u32(r);

	for (uint32_t i = 0; i < n && !r->failed; i++) {
		char *name = rb_str(r, MAX_STR);
		uint64_t v = rb_u64(r);

		if (name && !r->failed)
			raw_add_counter(p, name, v);
		free(name);
	}
}

/* A count of records each rec bytes long must fit in what is left of the
 * section (r is its window): checked before allocating, so a corrupt count
 * cannot ask for terabytes.  0 after a failure: rb_u64() of a count cut
 * by the section's end returns its low half, 2^32-1 at worst. */
static uint64_t rb_count(struct rbuf *r, size_t rec)
{
	uint64_t n = rb_u64(r);

	if (r->failed)
		return 0;
	if (n > (r->len - r->pos) / rec) {
		r->pos -= 8;
		rb_fail(r, "record count %llu exceeds the section",
			(unsigned long long)n);
		return 0;
	}
	return n;
}

/* flags: the kind of ID (enum raw_id_kind); at r->pos - 12 in the file. */
static void parse_object(struct rbuf *r, struct raw_profile *p, uint32_t flags)
{
	uint32_t idlen = rb_u32(r);
	const uint8_t *id;
	char *path;
	struct raw_object *o;
	uint64_t n;

	if (flags >= RAW_ID_KINDS) {
		r->pos -= 12;
		rb_fail(r, "object ID kind %u is not known (0 build-ID, 1 content digest, 2 path digest)",
			flags);
		return;
	}
	if (!r->failed && (idlen == 0 || idlen > RAW_BUILD_ID_MAX)) {
		r->pos -= 4;
		rb_fail(r, "build-ID length %u is not in 1..%d", idlen,
			RAW_BUILD_ID_MAX);
		return;
	}
	id = rb_bytes(r, idlen);
	path = rb_str(r, MAX_STR);
	if (r->failed) {
		free(path);
		return;
	}
	if (raw_find_object_id(p, (enum raw_id_kind)flags, id, idlen) >= 0) {
		free(path);
		rb_fail(r, "build-ID appears twice");
		return;
	}
	uint32_t idx = raw_object_id(p, (enum raw_id_kind)flags, id, idlen,
				     path);	/* may move objs */

	o = &p->objs[idx];
	free(path);
	n = rb_count(r, 16);
	o->ips = xcalloc(n, sizeof(*o->ips));
	o->cap_ips = n;
	for (uint64_t i = 0; i < n && !r->failed; i++) {
		uint64_t off = rb_u64(r);

		raw_add_ip(o, off, rb_u64(r));
	}
	n = rb_count(r, 32);
	o->edges = xcalloc(n, sizeof(*o->edges));
	o->cap_edges = n;
	for (uint64_t i = 0; i < n && !r->failed; i++) {
		uint64_t ret = rb_u64(r);
		uint32_t obj = rb_u32(r);
		uint32_t pad = rb_u32(r);
		uint64_t callee = rb_u64(r);

		if (pad && !r->failed) {
			r->pos -= 12;
			rb_fail(r, "reserved field is %u, not 0", pad);
		}
		raw_add_edge(o, ret, obj, callee, rb_u64(r));
	}
}

/* The object a RANGES or BRANCHES section belongs to: one read before it. */
static struct raw_object *lbr_object(struct rbuf *r, struct raw_profile *p)
{
	uint32_t i = rb_u32(r);

	if (!r->failed && i >= p->nobjs) {
		r->pos -= 4;
		rb_fail(r, "object %u does not exist (%zu objects precede this section)",
			i, p->nobjs);
		return NULL;
	}
	return r->failed ? NULL : &p->objs[i];
}

static void parse_ranges(struct rbuf *r, struct raw_profile *p)
{
	struct raw_object *o = lbr_object(r, p);
	uint64_t n = o ? rb_count(r, 24) : 0;

	for (uint64_t i = 0; i < n && !r->failed; i++) {
		uint64_t b = rb_u64(r), e = rb_u64(r);

		raw_add_range(o, b, e, rb_u64(r));
	}
}

static void parse_branches(struct rbuf *r, struct raw_profile *p)
{
	struct raw_object *o = lbr_object(r, p);
	uint64_t n = o ? rb_count(r, 32) : 0;

	for (uint64_t i = 0; i < n && !r->failed; i++) {
		uint64_t from = rb_u64(r);
		uint32_t obj = rb_u32(r), pad = rb_u32(r);
		uint64_t to = rb_u64(r);

		if (pad && !r->failed) {
			r->pos -= 12;
			rb_fail(r, "reserved field is %u, not 0", pad);
		}
		raw_add_branch(o, from, obj, to, rb_u64(r));
	}
}

/* Frames must name an object read before this section, or a mark. */
static void parse_stacks(struct rbuf *r, struct raw_profile *p)
{
	uint64_t n = rb_count(r, 24);
	struct raw_frame *f = xcalloc(RAW_STACK_DEPTH_MAX, sizeof(*f));

	for (uint64_t i = 0; i < n && !r->failed; i++) {
		uint64_t count = rb_u64(r);
		uint32_t depth = rb_u32(r);

		if (!r->failed && (depth == 0 || depth > RAW_STACK_DEPTH_MAX)) {
			r->pos -= 4;
			rb_fail(r, "stack %llu: depth %u is not in 1..%d",
				(unsigned long long)i, depth, RAW_STACK_DEPTH_MAX);
			break;
		}
		for (uint32_t j = 0; j < depth && !r->failed; j++) {
			f[j].obj = rb_u32(r);
			f[j].offset = rb_u64(r);
			if (!r->failed && f[j].obj >= p->nobjs &&
			    f[j].obj < RAW_FRAME_KERNEL) {
				r->pos -= 12;
				rb_fail(r, "stack %llu frame %u: object %u does not exist (%zu objects precede this section)",
					(unsigned long long)i, j, f[j].obj,
					p->nobjs);
			}
		}
		if (!r->failed)
			raw_add_stack(p, f, depth, count);
	}
	free(f);
}

static int check_edges(struct rbuf *r, const struct raw_profile *p)
{
	for (size_t i = 0; i < p->nobjs; i++)
		for (size_t j = 0; j < p->objs[i].nedges; j++)
			if (p->objs[i].edges[j].callee_obj >= p->nobjs)
				return err("%s: object %zu edge %zu: callee object %u does not exist (%zu objects)",
					   r->name, i, j,
					   p->objs[i].edges[j].callee_obj,
					   p->nobjs);
	for (size_t i = 0; i < p->nobjs; i++)
		for (size_t j = 0; j < p->objs[i].nbranches; j++)
			if (p->objs[i].branches[j].to_obj >= p->nobjs)
				return err("%s: object %zu branch %zu: target object %u does not exist (%zu objects)",
					   r->name, i, j,
					   p->objs[i].branches[j].to_obj,
					   p->nobjs);
	return 0;
}

int raw_parse(struct raw_profile *p, const uint8_t *buf, size_t len,
	      const char *name)
{
	struct rbuf r;
	const uint8_t *magic;
	uint32_t version, nsec;

	raw_init(p);
	rb_init(&r, buf, len, name);
	magic = rb_bytes(&r, 8);
	if (magic && memcmp(magic, RAW_MAGIC, 8)) {
		r.pos = 0;
		rb_fail(&r, "not a pgoprof raw profile (bad magic)");
	}
	version = rb_u32(&r);
	if (!r.failed && version != RAW_VERSION) {
		r.pos -= 4;
		rb_fail(&r, "format version %u; this pgoprof reads version %d",
			version, RAW_VERSION);
	}
	nsec = rb_u32(&r);
	for (uint32_t i = 0; i < nsec && !r.failed; i++) {
		uint32_t type = rb_u32(&r), flags = rb_u32(&r);
		uint64_t size = rb_u64(&r);
		struct rbuf s;

		if (r.failed)
			break;
		if (size > r.len - r.pos) {
			r.pos -= 8;
			rb_fail(&r, "section %u of %llu bytes runs past the end of the file",
				i, (unsigned long long)size);
			break;
		}
		/* Parse the section through its own window so that a bad
		 * count cannot read into the next one; offsets stay
		 * file-relative for messages. */
		rb_init(&s, r.buf, r.pos + size, name);
		s.pos = r.pos;
		if (type == RAW_SEC_META)
			parse_meta(&s, p);
		else if (type == RAW_SEC_COUNTERS)
			parse_counters(&s, p);
		else if (type == RAW_SEC_OBJECT)
			parse_object(&s, p, flags);
		else if (type == RAW_SEC_RANGES)
			parse_ranges(&s, p);
		else if (type == RAW_SEC_BRANCHES)
			parse_branches(&s, p);
		else if (type == RAW_SEC_STACKS)
			parse_stacks(&s, p);
		/* Unknown sections are skipped: newer writers may add some. */
		if (s.failed)
			r.failed = 1;
		else if (type >= RAW_SEC_META && type <= RAW_SEC_STACKS &&
			 s.pos != s.len)
			rb_fail(&s, "%llu bytes left over at the end of section %u",
				(unsigned long long)(s.len - s.pos), i), r.failed = 1;
		r.pos += size;
	}
	if (!r.failed && r.pos != r.len)
		rb_fail(&r, "trailing bytes after the last section");
	if (r.failed || check_edges(&r, p)) {
		raw_free(p);
		return -1;
	}
	raw_normalize(p);
	return 0;
}

int raw_read_file(struct raw_profile *p, const char *path)
{
	size_t len;
	uint8_t *buf = read_input(path, &len, raw_probe);
	int rc;

	if (!buf) {
		raw_init(p);
		return -1;
	}
	rc = raw_parse(p, buf, len, input_name(path));
	free(buf);
	return rc;
}

int raw_probe(const uint8_t *buf, size_t len)
{
	return len >= 8 && !memcmp(buf, RAW_MAGIC, 8);
}
