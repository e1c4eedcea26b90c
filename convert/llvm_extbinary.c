/* SPDX-License-Identifier: GPL-2.0-only */
/* LLVM's extensible binary sample profile, as llvm-profdata-16 writes it.
 *
 * File: ULEB128 magic, ULEB128 version (103), a section header table of
 * u64le {type, flags, offset, size} entries, then the sections.  Everything
 * inside a section is ULEB128 unless said otherwise.  Facts from LLVM 16
 * (llvm/lib/ProfileData/SampleProfWriter.cpp, SampleProfReader.cpp,
 * ProfileSummaryBuilder.cpp, llvm/include/llvm/ProfileData/SampleProf.h),
 * checked byte for byte against `llvm-profdata-16 merge --sample
 * --extbinary`:
 *
 *  - The header table lists the seven sections of the default layout in the
 *    order the reader processes them: Summary, NameTable, CSNameTable,
 *    FuncOffsetTable, LBRProfile, ProfileSymbolList, FuncMetadata.  The
 *    sections themselves are written in the order Summary, NameTable,
 *    CSNameTable, LBRProfile, ProfileSymbolList, FuncOffsetTable,
 *    FuncMetadata (the offset table needs the record offsets).  Offsets are
 *    from the start of the file.
 *  - Summary: total count, max count, max function count (largest HEAD),
 *    number of counts, number of functions, then {cutoff, min count,
 *    number of counts} for LLVM's 16 default cutoffs.  Every body record of
 *    every function and inlinee is one count (zeros too); only top-level
 *    functions count as functions.
 *  - NameTable: every function, inlinee and call-target name once, sorted
 *    bytewise; each name NUL-terminated.  With MD5 names: the count, then
 *    the low 64 bits of each name's MD5 as a fixed u64le (flags MD5Name |
 *    FixedLengthMD5), still in the order of the names.  Flag UniqSuffix
 *    when a name contains ".__uniq." (with MD5 names too, in LLVM 16).
 *  - CSNameTable: empty (one ULEB 0) for a profile without contexts.
 *  - LBRProfile: per function, in the order total descending, then name:
 *    HEAD, then BODY := name index, TOTAL, n body records {line, disc,
 *    count, n targets {name index, count}}, n call sites {line, disc,
 *    BODY}.
 *  - FuncOffsetTable: n, then {name index, offset of the function's record
 *    from the start of the LBRProfile section} in LBRProfile order.
 *    clang-16 finds functions only through this table.
 *  - ProfileSymbolList: empty (size 0).  FuncMetadata: empty, but for a
 *    probe-based profile (flag IsProbeBased): per function in LBRProfile
 *    order, name index, CFG checksum, n call sites {line, disc, the
 *    inlinee's record}, recursively (write_metadata).
 *  - Compression: every section gets flag bit 0; a non-empty section is
 *    stored as ULEB uncompressed size, ULEB compressed size, zlib data at
 *    level 9 (compress2); an empty one stays empty.
 */
#include "llvm_extbinary.h"
#include "../lib/bytes.h"
#include "../lib/md5.h"
#include "../lib/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define SPF_EXT_BINARY 0x04
#define EXTB_MAGIC                                                          \
	((uint64_t)'S' << 56 | (uint64_t)'P' << 48 | (uint64_t)'R' << 40 |  \
	 (uint64_t)'O' << 32 | (uint64_t)'F' << 24 | (uint64_t)'4' << 16 |  \
	 (uint64_t)'2' << 8 | SPF_EXT_BINARY)
#define EXTB_VERSION 103

enum {
	SEC_SUMMARY = 1,
	SEC_NAME_TABLE = 2,
	SEC_SYMBOL_LIST = 3,
	SEC_FUNC_OFFSETS = 4,
	SEC_FUNC_METADATA = 5,
	SEC_CS_NAME_TABLE = 6,
	SEC_LBR = 32,
};

/* Common flags in the low 32 bits, section-specific ones in the high. */
#define FLAG_COMPRESS ((uint64_t)1)
#define FLAG_MD5_NAME ((uint64_t)1 << 32)
#define FLAG_FIXED_MD5 ((uint64_t)2 << 32)
#define FLAG_UNIQ_SUFFIX ((uint64_t)4 << 32)
#define FLAG_FULL_CONTEXT ((uint64_t)2 << 32)	/* Summary */
#define FLAG_PROBE_BASED ((uint64_t)1 << 32)	/* FuncMetadata */

/* Deepest inline nesting the reader accepts; the converter's own limit
 * (SYM_MAX_FRAMES) keeps its profiles below it. */
#define MAX_DEPTH 64

/* Largest ratio of output to input zlib can reach (deflate's maximum is
 * about 1032:1); a section claiming more is corrupt. */
#define ZLIB_MAX_RATIO 1032

static const uint32_t cutoffs[] = {
	10000, 100000, 200000, 300000, 400000, 500000, 600000, 700000,
	800000, 900000, 950000, 990000, 999000, 999900, 999990, 999999,
};

static void wb_uleb(struct wbuf *b, uint64_t v)
{
	uint8_t x[10];
	size_t n = 0;

	do {
		x[n] = v & 0x7f;
		v >>= 7;
		if (v)
			x[n] |= 0x80;
		n++;
	} while (v);
	wb_bytes(b, x, n);
}

/* A name that is a plain decimal uint64 is taken as an MD5 value already:
 * that is how MD5 names read from a profile appear in the tree (and how
 * llvm-profdata show prints them).  No linkage name is all digits. */
static int decimal_name(const char *s, uint64_t *v)
{
	size_t n = strlen(s);

	if (s[0] == '0' && n > 1)
		return 0;
	return !dec_u64(s, n, v);
}

/* ---- writer ---- */

struct counts {
	uint64_t *v;
	size_t n, cap;
};

static void collect_counts(struct counts *c, const struct fsamples *f)
{
	grow(&c->v, &c->cap, c->n + f->nbody, sizeof(*c->v));
	for (size_t i = 0; i < f->nbody; i++)
		c->v[c->n++] = f->body[i].count;
	for (size_t i = 0; i < f->ncs; i++)
		collect_counts(c, f->cs[i].callee);
}

static int cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y) - (x > y);
}

/* floor(total * cutoff / 1000000) without 128-bit arithmetic. */
static uint64_t desired_count(uint64_t total, uint32_t cutoff)
{
	return total / 1000000 * cutoff + total % 1000000 * cutoff / 1000000;
}

/* SampleProfileSummaryBuilder::computeSummaryForProfiles and
 * ProfileSummaryBuilder::computeDetailedSummary, with LLVM's integer
 * widths (the 64-bit sums wrap, the 32-bit numbers of counts too). */
static void write_summary(struct wbuf *b, const struct fs_profile *p)
{
	struct counts c = { 0 };
	uint64_t total = 0, max = 0, max_head = 0, curr = 0, count = 0;
	uint32_t seen = 0;
	size_t it = 0;

	for (size_t i = 0; i < p->nfuncs; i++) {
		if (p->funcs[i]->head > max_head)
			max_head = p->funcs[i]->head;
		collect_counts(&c, p->funcs[i]);
	}
	for (size_t i = 0; i < c.n; i++) {
		total += c.v[i];
		if (c.v[i] > max)
			max = c.v[i];
	}
	sort(c.v, c.n, sizeof(*c.v), cmp_desc);
	wb_uleb(b, total);
	wb_uleb(b, max);
	wb_uleb(b, max_head);
	wb_uleb(b, (uint32_t)c.n);
	wb_uleb(b, (uint32_t)p->nfuncs);
	wb_uleb(b, ARRAY_SIZE(cutoffs));
	for (size_t k = 0; k < ARRAY_SIZE(cutoffs); k++) {
		uint64_t want = desired_count(total, cutoffs[k]);

		while (curr < want && it < c.n) {
			uint32_t freq = 0;

			count = c.v[it];
			while (it < c.n && c.v[it] == count) {
				freq++;
				it++;
			}
			curr += count * freq;
			seen += freq;
		}
		wb_uleb(b, cutoffs[k]);
		wb_uleb(b, count);
		wb_uleb(b, seen);
	}
	free(c.v);
}

static void write_name_table(struct wbuf *b, const struct fs_names *nt, int md5)
{
	wb_uleb(b, nt->n);
	for (size_t i = 0; i < nt->n; i++) {
		if (md5) {
			uint64_t h;

			if (!decimal_name(nt->v[i], &h))
				h = md5_low64(nt->v[i]);
			wb_u64(b, h);
		} else {
			wb_bytes(b, nt->v[i], strlen(nt->v[i]) + 1);
		}
	}
}

static void write_body(struct wbuf *b, const struct fs_names *nt,
		       const struct fsamples *f)
{
	wb_uleb(b, fs_names_index(nt, f->name));
	wb_uleb(b, f->total);
	wb_uleb(b, f->nbody);
	for (size_t i = 0; i < f->nbody; i++) {
		const struct fs_body *r = &f->body[i];

		wb_uleb(b, r->line);
		wb_uleb(b, r->disc);
		wb_uleb(b, r->count);
		wb_uleb(b, r->ntargets);
		for (size_t j = 0; j < r->ntargets; j++) {
			wb_uleb(b, fs_names_index(nt, r->targets[j].name));
			wb_uleb(b, r->targets[j].count);
		}
	}
	wb_uleb(b, f->ncs);
	for (size_t i = 0; i < f->ncs; i++) {
		wb_uleb(b, f->cs[i].line);
		wb_uleb(b, f->cs[i].disc);
		write_body(b, nt, f->cs[i].callee);
	}
}

/* A probe-based profile's FuncMetadata record of f: name index, CFG
 * checksum, then its inlinees' records, each after its (line, disc)
 * (SampleProfileWriterExtBinaryBase::writeFuncMetadata). */
static void write_metadata(struct wbuf *b, const struct fs_names *nt,
			   const struct fsamples *f)
{
	wb_uleb(b, fs_names_index(nt, f->name));
	wb_uleb(b, f->checksum);
	wb_uleb(b, f->ncs);
	for (size_t i = 0; i < f->ncs; i++) {
		wb_uleb(b, f->cs[i].line);
		wb_uleb(b, f->cs[i].disc);
		write_metadata(b, nt, f->cs[i].callee);
	}
}

/* Sections in header (layout) order. */
enum { L_SUMMARY, L_NAMES, L_CS_NAMES, L_OFFSETS, L_LBR, L_SYMBOLS,
       L_METADATA, L_COUNT };
static const uint64_t layout_type[L_COUNT] = {
	SEC_SUMMARY, SEC_NAME_TABLE, SEC_CS_NAME_TABLE, SEC_FUNC_OFFSETS,
	SEC_LBR, SEC_SYMBOL_LIST, SEC_FUNC_METADATA,
};
/* ... and in the order they are written. */
static const int write_order[L_COUNT] = {
	L_SUMMARY, L_NAMES, L_CS_NAMES, L_LBR, L_SYMBOLS, L_OFFSETS,
	L_METADATA,
};

static int compress_section(struct wbuf *sec)
{
	struct wbuf out = { 0 };
	uLongf clen;
	uint8_t *z;
	int rc;

	if (sec->len == 0)
		return 0;
	clen = compressBound(sec->len);
	z = xmalloc(clen);
	rc = compress2(z, &clen, sec->data, sec->len, Z_BEST_COMPRESSION);
	if (rc != Z_OK) {
		free(z);
		return err("extbinary: zlib compress2 failed (%d)", rc);
	}
	wb_uleb(&out, sec->len);
	wb_uleb(&out, clen);
	wb_bytes(&out, z, clen);
	free(z);
	free(sec->data);
	*sec = out;
	return 0;
}

int llvm_extbinary_write(const struct fs_profile *p,
			 const struct extbinary_options *o, FILE *f)
{
	static const struct extbinary_options defaults;
	struct wbuf sec[L_COUNT] = { { 0 } }, head = { 0 };
	uint64_t flags[L_COUNT] = { 0 }, offset[L_COUNT], *rec_off;
	struct fs_names nt = { 0 };
	size_t pos;
	int rc = 0;

	if (!o)
		o = &defaults;

	/* The name table: every name once, sorted bytewise. */
	fs_names_collect(&nt, p);

	write_summary(&sec[L_SUMMARY], p);
	write_name_table(&sec[L_NAMES], &nt, o->md5_names);
	if (o->md5_names)
		flags[L_NAMES] |= FLAG_MD5_NAME | FLAG_FIXED_MD5;
	/* LLVM 16 sets UniqSuffix with MD5 names too (later LLVMs do not). */
	for (size_t i = 0; i < nt.n; i++) {
		if (strstr(nt.v[i], ".__uniq.")) {
			flags[L_NAMES] |= FLAG_UNIQ_SUFFIX;
			break;
		}
	}
	wb_uleb(&sec[L_CS_NAMES], 0);
	rec_off = xcalloc(p->nfuncs + 1, sizeof(*rec_off));
	for (size_t i = 0; i < p->nfuncs; i++) {
		rec_off[i] = sec[L_LBR].len;
		wb_uleb(&sec[L_LBR], p->funcs[i]->head);
		write_body(&sec[L_LBR], &nt, p->funcs[i]);
		if (p->probe_based)
			write_metadata(&sec[L_METADATA], &nt, p->funcs[i]);
	}
	if (p->probe_based)
		flags[L_METADATA] |= FLAG_PROBE_BASED;
	wb_uleb(&sec[L_OFFSETS], p->nfuncs);
	for (size_t i = 0; i < p->nfuncs; i++) {
		wb_uleb(&sec[L_OFFSETS], fs_names_index(&nt, p->funcs[i]->name));
		wb_uleb(&sec[L_OFFSETS], rec_off[i]);
	}
	free(rec_off);
	fs_names_free(&nt);

	for (int i = 0; i < L_COUNT && rc == 0; i++) {
		if (o->compress) {
			flags[i] |= FLAG_COMPRESS;
			rc = compress_section(&sec[i]);
		}
	}

	if (rc == 0) {
		wb_uleb(&head, EXTB_MAGIC);
		wb_uleb(&head, EXTB_VERSION);
		wb_u64(&head, L_COUNT);
		pos = head.len + (size_t)L_COUNT * 32;
		for (int k = 0; k < L_COUNT; k++) {
			offset[write_order[k]] = pos;
			pos += sec[write_order[k]].len;
		}
		for (int i = 0; i < L_COUNT; i++) {
			wb_u64(&head, layout_type[i]);
			wb_u64(&head, flags[i]);
			wb_u64(&head, offset[i]);
			wb_u64(&head, sec[i].len);
		}
		if (fwrite(head.data, 1, head.len, f) != head.len)
			rc = -1;
		for (int k = 0; k < L_COUNT && rc == 0; k++) {
			const struct wbuf *s = &sec[write_order[k]];

			if (s->len && fwrite(s->data, 1, s->len, f) != s->len)
				rc = -1;
		}
		if (rc == 0 && (fflush(f) != 0 || ferror(f)))
			rc = -1;
		if (rc)
			err("extbinary: write failed: %s", strerror(errno));
	}
	free(head.data);
	for (int i = 0; i < L_COUNT; i++)
		free(sec[i].data);
	return rc;
}

/* ---- reader ---- */

int llvm_extbinary_detect(const uint8_t *buf, size_t len)
{
	uint64_t v = 0;

	/* The magic is always 9 bytes of ULEB128. */
	if (!buf || len < 9)
		return 0;
	for (int i = 0; i < 9; i++) {
		if ((i < 8) != !!(buf[i] & 0x80))
			return 0;
		v |= (uint64_t)(buf[i] & 0x7f) << (7 * i);
	}
	return v == EXTB_MAGIC;
}

static uint64_t rb_uleb_max(struct rbuf *r, uint64_t max, const char *what)
{
	size_t at = r->pos;
	uint64_t v = rb_uleb(r);

	if (!r->failed && v > max) {
		r->pos = at;
		rb_fail(r, "%s %" PRIu64 " is larger than %" PRIu64, what, v,
			max);
		return 0;
	}
	return v;
}

/* One top-level record of an LBRProfile section, for checking the
 * FuncOffsetTable against the records. */
struct rec {
	uint64_t off;		/* from the start of the section's data */
	const char *name;
	size_t at;		/* where, for messages */
	int listed;
};

/* One FuncOffsetTable entry. */
struct fot {
	uint64_t off;
	const char *name;
	size_t at;
};

struct reader {
	struct fs_profile *p;
	const char *file;
	const uint8_t *buf;
	size_t len;
	char **names;
	size_t nnames, cap_names;
	struct fot *fot;		/* the table waiting for its LBRProfile */
	size_t nfot, cap_fot;
	const char *fot_where;
	int fot_pending;
	char **where;			/* message prefixes we allocated */
	size_t nwhere, cap_where;
	uint8_t **bufs;			/* decompressed sections */
	size_t nbufs, cap_bufs;
};

static int fail_at(const char *where, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail_at(const char *where, size_t at, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err("%s: byte %zu: %s", where, at, msg);
}

static const char *add_where(struct reader *R, char *s)
{
	grow(&R->where, &R->cap_where, R->nwhere + 1, sizeof(*R->where));
	R->where[R->nwhere++] = s;
	return s;
}

static void add_name_str(struct reader *R, char *s)
{
	grow(&R->names, &R->cap_names, R->nnames + 1, sizeof(*R->names));
	R->names[R->nnames++] = s;
}

static const char *read_name(struct reader *R, struct rbuf *r)
{
	size_t at = r->pos;
	uint64_t i = rb_uleb(r);

	if (r->failed)
		return NULL;
	if (i >= R->nnames) {
		r->pos = at;
		rb_fail(r, "name index %" PRIu64 " out of range (%zu names)", i,
			R->nnames);
		return NULL;
	}
	return R->names[i];
}

static void read_summary(struct rbuf *r)
{
	uint64_t n;

	for (int i = 0; i < 5; i++)	/* total, max, max head, counts, funcs */
		rb_uleb(r);
	n = rb_uleb_max(r, (r->len - r->pos) / 3, "number of summary entries");
	for (uint64_t i = 0; i < n && !r->failed; i++) {
		size_t at = r->pos;

		if (rb_uleb(r) > 1000000 && !r->failed) {
			r->pos = at;
			rb_fail(r, "summary cutoff above 1000000");
		}
		rb_uleb(r);
		rb_uleb(r);
	}
}

static void read_name_table(struct reader *R, struct rbuf *r, uint64_t flags)
{
	int md5 = !!(flags & FLAG_MD5_NAME), fixed = !!(flags & FLAG_FIXED_MD5);
	uint64_t n;
	char num[24];

	if (fixed && !md5) {
		rb_fail(r, "fixed-length MD5 name table without the MD5 flag");
		return;
	}
	n = rb_uleb_max(r, (r->len - r->pos) / (fixed ? 8 : 1),
			"number of names");
	for (uint64_t i = 0; i < n && !r->failed; i++) {
		if (md5) {
			uint64_t h = fixed ? rb_u64(r) : rb_uleb(r);

			if (r->failed)
				break;
			snprintf(num, sizeof(num), "%" PRIu64, h);
			add_name_str(R, xstrdup(num));
		} else {
			const uint8_t *s = r->buf + r->pos;
			const uint8_t *nul = memchr(s, 0, r->len - r->pos);

			if (!nul) {
				rb_fail(r, "name without its terminating NUL");
				break;
			}
			add_name_str(R, xstrdup((const char *)s));
			r->pos += (size_t)(nul - s) + 1;
		}
	}
}

static void read_func_offsets(struct reader *R, struct rbuf *r)
{
	uint64_t n = rb_uleb_max(r, (r->len - r->pos) / 2,
				 "number of FuncOffsetTable entries");

	R->nfot = 0;
	R->fot_pending = 1;
	R->fot_where = r->name;
	for (uint64_t i = 0; i < n && !r->failed; i++) {
		size_t at = r->pos;
		const char *name = read_name(R, r);
		uint64_t off = rb_uleb(r);

		if (r->failed)
			break;
		grow(&R->fot, &R->cap_fot, R->nfot + 1, sizeof(*R->fot));
		R->fot[R->nfot++] = (struct fot){ off, name, at };
	}
}

static int cmp_body_loc(const void *a, const void *b)
{
	const struct fs_body *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return (x->disc > y->disc) - (x->disc < y->disc);
}

/* A body record of f.  f's records are kept sorted while reading, so one
 * that comes in LLVM's order (as in every well-formed file) is appended
 * without a search; any other is merged through fs_add_body, and the
 * order restored. */
static void add_body(struct fsamples *f, uint32_t line, uint32_t disc,
		     uint64_t count)
{
	const struct fs_body *last = f->nbody ? &f->body[f->nbody - 1] : NULL;
	size_t n = f->nbody;

	if (!last || last->line < line ||
	    (last->line == line && last->disc < disc)) {
		grow(&f->body, &f->cap_body, f->nbody + 1, sizeof(*f->body));
		f->body[f->nbody++] = (struct fs_body){ .line = line,
							.disc = disc,
							.count = count };
	} else {
		fs_add_body(f, line, disc, count);
		if (f->nbody != n)
			sort(f->body, f->nbody, sizeof(*f->body), cmp_body_loc);
	}
}

/* BODY after its name index: TOTAL (kept: totals_given), body records,
 * call sites. */
static void read_samples(struct reader *R, struct rbuf *r, struct fsamples *f,
			 int depth)
{
	uint64_t n, total = rb_uleb(r);

	f->total = sat_add64(f->total, total);
	n = rb_uleb_max(r, UINT32_MAX, "number of body records");
	for (uint64_t i = 0; i < n && !r->failed; i++) {
		uint32_t line = (uint32_t)rb_uleb_max(r, UINT32_MAX, "line offset");
		uint32_t disc = (uint32_t)rb_uleb_max(r, UINT32_MAX, "discriminator");
		uint64_t count = rb_uleb(r);
		uint64_t ncalls = rb_uleb_max(r, UINT32_MAX,
					      "number of call targets");

		if (r->failed)
			break;
		add_body(f, line, disc, count);
		for (uint64_t j = 0; j < ncalls && !r->failed; j++) {
			const char *callee = read_name(R, r);
			uint64_t c = rb_uleb(r);

			if (!r->failed)
				fs_add_target(f, line, disc, callee, c);
		}
	}
	n = rb_uleb_max(r, UINT32_MAX, "number of call sites");
	for (uint64_t i = 0; i < n && !r->failed; i++) {
		size_t at = r->pos;
		uint32_t line = (uint32_t)rb_uleb_max(r, UINT32_MAX, "line offset");
		uint32_t disc = (uint32_t)rb_uleb_max(r, UINT32_MAX, "discriminator");
		const char *callee;

		if (r->failed)
			break;
		if (depth >= MAX_DEPTH) {
			r->pos = at;
			rb_fail(r, "inlined call sites nested deeper than %d",
				MAX_DEPTH);
			break;
		}
		callee = read_name(R, r);
		if (callee)
			read_samples(R, r, fs_inlinee(f, line, disc, callee),
				     depth + 1);
	}
}

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return (x->off > y->off) - (x->off < y->off);
}

/* Function records, then the FuncOffsetTable read before them must list
 * exactly these records: clang looks functions up only through it. */
static void read_lbr(struct reader *R, struct rbuf *r)
{
	size_t start = r->pos;
	struct rec *recs = NULL;
	size_t nrecs = 0, cap = 0;

	while (r->pos < r->len && !r->failed) {
		size_t at = r->pos;
		uint64_t head = rb_uleb(r);
		const char *name = read_name(R, r);
		struct fsamples *f;

		if (r->failed)
			break;
		f = fs_function(R->p, name);
		f->head = sat_add64(f->head, head);
		read_samples(R, r, f, 0);
		grow(&recs, &cap, nrecs + 1, sizeof(*recs));
		recs[nrecs++] = (struct rec){ at - start, name, at, 0 };
	}
	if (!r->failed && R->fot_pending) {
		/* Records are in file order, hence sorted by offset. */
		for (size_t i = 0; i < R->nfot && !r->failed; i++) {
			struct rec key = { .off = R->fot[i].off };
			struct rec *hit = bsearch(&key, recs, nrecs, sizeof(*recs),
						  cmp_rec);

			if (!hit || strcmp(hit->name, R->fot[i].name) || hit->listed) {
				r->failed = 1;
				fail_at(R->fot_where, R->fot[i].at,
					"FuncOffsetTable entry %s: offset %" PRIu64
					" is not the start of its record",
					R->fot[i].name, R->fot[i].off);
			} else {
				hit->listed = 1;
			}
		}
		for (size_t i = 0; i < nrecs && !r->failed; i++) {
			if (!recs[i].listed) {
				r->failed = 1;
				fail_at(r->name, recs[i].at,
					"function %s is missing from the "
					"FuncOffsetTable", recs[i].name);
			}
		}
		R->fot_pending = 0;
		R->nfot = 0;
	}
	free(recs);
}

/* The bytes of a compressed section: ULEB uncompressed size, ULEB
 * compressed size, zlib data filling the rest of the section. */
static const uint8_t *inflate_section(struct reader *R, struct rbuf *r,
				      size_t *out_len)
{
	uint64_t ulen = rb_uleb(r);
	size_t at = r->pos;
	uint64_t clen = rb_uleb(r);
	uLongf got;
	uint8_t *out;
	int rc;

	if (r->failed)
		return NULL;
	if (clen != r->len - r->pos) {
		r->pos = at;
		rb_fail(r, "compressed size %" PRIu64 " does not fill the "
			"section (%zu bytes left)", clen, r->len - r->pos);
		return NULL;
	}
	if (ulen / ZLIB_MAX_RATIO > clen || ulen > SIZE_MAX / 2) {
		r->pos = at;
		rb_fail(r, "%" PRIu64 " bytes cannot come from %" PRIu64
			" compressed bytes", ulen, clen);
		return NULL;
	}
	/* Not xmalloc: a file asking for too much is an error, not an exit. */
	out = malloc(ulen ? (size_t)ulen : 1);
	if (!out) {
		r->pos = at;
		rb_fail(r, "cannot allocate %" PRIu64 " bytes to inflate the "
			"section", ulen);
		return NULL;
	}
	got = (uLongf)ulen;
	rc = uncompress(out, &got, r->buf + r->pos, (uLong)clen);
	if (rc != Z_OK || got != ulen) {
		free(out);
		rb_fail(r, "zlib data does not inflate to %" PRIu64 " bytes (%s)",
			ulen, rc == Z_OK ? "size differs" : zError(rc));
		return NULL;
	}
	r->pos += (size_t)clen;
	grow(&R->bufs, &R->cap_bufs, R->nbufs + 1, sizeof(*R->bufs));
	R->bufs[R->nbufs++] = out;
	*out_len = (size_t)ulen;
	return out;
}

static const char *type_name(uint64_t type)
{
	switch (type) {
	case SEC_SUMMARY: return "ProfileSummary";
	case SEC_NAME_TABLE: return "NameTable";
	case SEC_SYMBOL_LIST: return "ProfileSymbolList";
	case SEC_FUNC_OFFSETS: return "FuncOffsetTable";
	case SEC_FUNC_METADATA: return "FuncMetadata";
	case SEC_CS_NAME_TABLE: return "CSNameTable";
	case SEC_LBR: return "LBRProfile";
	default: return "unknown";
	}
}

/* The rest of f's FuncMetadata record of a probe-based profile, after its
 * name (write_metadata): its checksum, then its inlinees'. */
static void read_metadata(struct reader *R, struct rbuf *r,
			  struct fsamples *f, int depth)
{
	uint64_t n;

	f->checksum = rb_uleb(r);
	n = rb_uleb(r);
	if (!r->failed && depth >= MAX_DEPTH) {
		rb_fail(r, "inline nesting deeper than %d", MAX_DEPTH);
		return;
	}
	for (uint64_t i = 0; i < n && !r->failed; i++) {
		uint64_t line = rb_uleb_max(r, UINT32_MAX, "line offset");
		uint64_t disc = rb_uleb_max(r, UINT32_MAX, "discriminator");
		const char *name = read_name(R, r);

		if (name)
			read_metadata(R, r, fs_inlinee(f, (uint32_t)line,
						       (uint32_t)disc, name),
				      depth + 1);
	}
}

/* One section: r covers exactly its bytes (file offsets). */
static int read_section(struct reader *R, struct rbuf *r, uint64_t type,
			uint64_t flags, size_t hdr_at)
{
	struct rbuf z;

	if (type == SEC_SUMMARY && (flags & FLAG_FULL_CONTEXT))
		return fail_at(R->file, hdr_at, "context-sensitive profiles are "
			       "not supported");
	if (type == SEC_FUNC_METADATA && (flags & FLAG_PROBE_BASED))
		R->p->probe_based = 1;
	else if (type == SEC_FUNC_METADATA)
		return 0;	/* attributes of other profiles: not for us */
	if (type != SEC_SUMMARY && type != SEC_NAME_TABLE &&
	    type != SEC_CS_NAME_TABLE && type != SEC_FUNC_OFFSETS &&
	    type != SEC_LBR && type != SEC_FUNC_METADATA)
		return 0;	/* symbol list, unknown: not for us */

	if (flags & FLAG_COMPRESS) {
		size_t zlen = 0;
		size_t sec_at = r->pos;
		const uint8_t *data = inflate_section(R, r, &zlen);
		char *where;

		if (!data)
			return -1;
		where = xmalloc(strlen(R->file) + 80);
		sprintf(where, "%s (%s section at byte %zu, inflated)", R->file,
			type_name(type), sec_at);
		rb_init(&z, data, zlen, add_where(R, where));
		r = &z;
	}
	switch (type) {
	case SEC_SUMMARY:
		read_summary(r);
		break;
	case SEC_NAME_TABLE:
		read_name_table(R, r, flags);
		break;
	case SEC_CS_NAME_TABLE: {
		size_t at = r->pos;

		if (rb_uleb(r) != 0 && !r->failed) {
			r->pos = at;
			rb_fail(r, "context-sensitive profiles are not supported");
		}
		break;
	}
	case SEC_FUNC_OFFSETS:
		read_func_offsets(R, r);
		break;
	case SEC_LBR:
		read_lbr(R, r);
		break;
	case SEC_FUNC_METADATA:
		while (r->pos < r->len && !r->failed) {
			const char *name = read_name(R, r);

			if (name)
				read_metadata(R, r, fs_function(R->p, name), 0);
		}
		break;
	}
	if (!r->failed && r->pos != r->len)
		rb_fail(r, "%zu bytes left over at the end of the %s section",
			r->len - r->pos, type_name(type));
	return r->failed ? -1 : 0;
}

static void reader_free(struct reader *R)
{
	for (size_t i = 0; i < R->nnames; i++)
		free(R->names[i]);
	free(R->names);
	free(R->fot);
	for (size_t i = 0; i < R->nwhere; i++)
		free(R->where[i]);
	free(R->where);
	for (size_t i = 0; i < R->nbufs; i++)
		free(R->bufs[i]);
	free(R->bufs);
}

static int read_file(struct reader *R)
{
	struct rbuf r;
	uint64_t v, nsec;

	rb_init(&r, R->buf, R->len, R->file);
	if (!llvm_extbinary_detect(R->buf, R->len)) {
		if (R->len < 9)
			return rb_fail(&r, "truncated: %zu bytes, too short for "
				       "the extbinary magic", R->len);
		return rb_fail(&r, "not an LLVM extbinary sample profile "
			       "(wrong magic)");
	}
	r.pos = 9;
	v = rb_uleb(&r);
	if (!r.failed && v != EXTB_VERSION) {
		r.pos = 9;
		return rb_fail(&r, "unsupported extbinary version %" PRIu64
			       " (only %d)", v, EXTB_VERSION);
	}
	nsec = r.failed ? 0 : rb_u64(&r);
	if (!r.failed && nsec > (r.len - r.pos) / 32) {
		r.pos -= 8;
		return rb_fail(&r, "%" PRIu64 " section headers do not fit in "
			       "the file", nsec);
	}
	if (r.failed)
		return -1;
	{
		size_t table = r.pos;

		/* All headers are checked before any section is read. */
		for (uint64_t i = 0; i < nsec; i++) {
			size_t at = table + (size_t)i * 32;
			uint64_t type, off, size;

			r.pos = at;
			type = rb_u64(&r);
			rb_u64(&r);
			off = rb_u64(&r);
			size = rb_u64(&r);
			if (off > R->len || size > R->len - off) {
				r.pos = at;
				return rb_fail(&r, "section %" PRIu64 " (%s) at %"
					       PRIu64 " size %" PRIu64 " lies "
					       "outside the file (%zu bytes)", i,
					       type_name(type), off, size,
					       R->len);
			}
		}
		for (uint64_t i = 0; i < nsec; i++) {
			size_t at = table + (size_t)i * 32;
			uint64_t type, flags, off, size;
			struct rbuf s;

			r.pos = at;
			type = rb_u64(&r);
			flags = rb_u64(&r);
			off = rb_u64(&r);
			size = rb_u64(&r);
			if (size == 0)
				continue;	/* as LLVM: empty sections are skipped */
			rb_init(&s, R->buf, (size_t)(off + size), R->file);
			s.pos = (size_t)off;
			if (read_section(R, &s, type, flags, at))
				return -1;
		}
	}
	if (R->fot_pending && R->nfot)
		return fail_at(R->fot_where, R->fot[0].at, "FuncOffsetTable "
			       "lists %zu functions but no LBRProfile section "
			       "follows", R->nfot);
	return 0;
}

int llvm_extbinary_read(struct fs_profile *p, const uint8_t *buf, size_t len,
			const char *name)
{
	struct reader R = { .p = p, .file = name, .buf = buf, .len = len };
	int rc;

	if (!buf)
		R.len = 0, R.buf = (const uint8_t *)"";
	rc = read_file(&R);
	reader_free(&R);
	if (rc) {
		fs_free(p);
		return -1;
	}
	p->totals_given = 1;
	fs_finish(p);
	return 0;
}
