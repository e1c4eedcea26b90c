/* SPDX-License-Identifier: GPL-2.0-only */
/* The perf.data file header, its attribute table and its feature
 * sections (HEADER_BUILD_ID, HOSTNAME, OSRELEASE, VERSION, ARCH, CMDLINE,
 * EVENT_DESC, SAMPLE_TIME).  Layouts: tools/perf/Documentation/
 * perf.data-file-format.txt and tools/perf/util/header.c (write_* and
 * process_* of each feature, perf_file_header). */
#include "internal.h"
#include "../../lib/util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A perf_header_string at r: u32 length, then that many bytes, the text
 * ending at the first NUL.  Returns a malloc'd copy or NULL. */
static char *read_hstring(struct rbuf *r)
{
	uint32_t n = rb_u32(r);
	const uint8_t *p;
	size_t l;
	char *s;

	if (!r->failed && n > r->len - r->pos) {
		r->pos -= 4;
		rb_fail(r, "string of %u bytes runs past the end of its section", n);
		return NULL;
	}
	p = rb_bytes(r, n);
	if (!p)
		return NULL;
	l = strnlen((const char *)p, n);
	s = xmalloc(l + 1);
	memcpy(s, p, l);
	s[l] = '\0';
	return s;
}

void pd_set_str(char **dst, char *s)
{
	free(*dst);
	*dst = s;
}

/* One HEADER_BUILD_ID entry (file feature or record 67) at [off, off+size). */
int pd_add_build_id_entry(struct imp *m, size_t off, size_t size,
			  uint16_t misc)
{
	const uint8_t *p = m->buf + off;
	uint32_t len = 20;
	int unsized = !(misc & PERF_RECORD_MISC_BUILD_ID_SIZE);
	size_t namelen;
	char *name;

	if (size < 36)
		return pd_fail(m, off + 6, "build-ID record of %zu bytes (at least 36)", size);
	/* Without PERF_RECORD_MISC_BUILD_ID_SIZE (perf before 5.x) the ID is
	 * zero-padded to 20 bytes (tools/perf/util/header.c, write_buildid):
	 * its real length is where the padding starts.  A real ID that ends
	 * in zero bytes is cut short by this; raw_same_build_id() still
	 * matches it, and samples_map() takes the local file's whole ID. */
	if (!unsized)
		len = p[8 + 4 + 20];
	if (len > 20)
		len = 20;
	while (unsized && len && !p[12 + len - 1])
		len--;
	namelen = strnlen((const char *)p + 36, size - 36);
	if (!len || !namelen)
		return 0;
	name = xmalloc(namelen + 1);
	memcpy(name, p + 36, namelen);
	name[namelen] = '\0';
	samples_header_build_id(&m->s, name, p + 12, len, (int32_t)get32(p + 8),
				unsized);
	free(name);
	return 0;
}

static int feat_build_id(struct imp *m, size_t off, size_t end)
{
	while (!m->failed && end - off >= 8) {
		uint16_t size = get16(m->buf + off + 6);

		if (size > end - off)
			return pd_fail(m, off + 6, "build-ID record of %u bytes runs past the end of its section (%zu bytes left)",
				       size, end - off);
		if (pd_add_build_id_entry(m, off, size, get16(m->buf + off + 4)))
			return -1;
		off += size;
	}
	return m->failed ? -1 : 0;
}

static int feat_event_desc(struct imp *m, size_t off, size_t end)
{
	struct rbuf r;
	uint32_t nr, asize;

	pd_reader(m, &r, off, end);
	nr = rb_u32(&r);
	asize = rb_u32(&r);
	for (uint32_t i = 0; i < nr && !r.failed; i++) {
		uint32_t nids;
		char *name;
		int ai = -1;

		if (!rb_bytes(&r, asize))
			break;
		nids = rb_u32(&r);
		name = read_hstring(&r);
		if (!r.failed && nids > (r.len - r.pos) / 8)
			rb_fail(&r, "%u event IDs run past the end of the section", nids);
		if (r.failed) {
			free(name);
			break;
		}
		/* The attribute: by its first ID, else by position. */
		if (nids)
			ai = pd_attr_by_id(m, get64(m->buf + r.pos));
		if (ai < 0 && i < m->nattrs && nr == m->nattrs)
			ai = (int)i;
		r.pos += (size_t)nids * 8;
		if (ai >= 0 && name && name[0])
			pd_set_str(&m->attrs[ai].name, name);
		else
			free(name);
	}
	return pd_check_reader(m, &r);
}

/* HOSTNAME, OSRELEASE, VERSION, ARCH: one perf_header_string. */
static int feat_string(struct imp *m, char **dst, size_t off, size_t end)
{
	struct rbuf r;

	pd_reader(m, &r, off, end);
	pd_set_str(dst, read_hstring(&r));
	return pd_check_reader(m, &r);
}

/* CMDLINE: a u32 count of strings, kept joined by spaces (at most 511
 * bytes). */
static int feat_cmdline(struct imp *m, size_t off, size_t end)
{
	char line[512] = "";
	size_t n = 0;
	struct rbuf r;
	uint32_t nr;

	pd_reader(m, &r, off, end);
	nr = rb_u32(&r);
	for (uint32_t i = 0; i < nr && !r.failed; i++) {
		char *s = read_hstring(&r);

		if (s && n < sizeof(line) - 1)
			n += (size_t)snprintf(line + n, sizeof(line) - n,
					      "%s%s", n ? " " : "", s);
		if (n > sizeof(line) - 1)
			n = sizeof(line) - 1;
		free(s);
	}
	if (!r.failed)
		pd_set_str(&m->host.cmdline, xstrdup(line));
	return pd_check_reader(m, &r);
}

/* SAMPLE_TIME: the times of the first and the last sample. */
static int feat_sample_time(struct imp *m, size_t off, size_t end)
{
	struct rbuf r;

	pd_reader(m, &r, off, end);
	m->first_time = rb_u64(&r);
	m->last_time = rb_u64(&r);
	m->have_sample_time = !r.failed;
	return pd_check_reader(m, &r);
}

int pd_process_feature(struct imp *m, int feat, size_t off, size_t size)
{
	size_t end = off + size;

	switch (feat) {
	case FEAT_BUILD_ID:
		return feat_build_id(m, off, end);
	case FEAT_HOSTNAME:
		return feat_string(m, &m->host.hostname, off, end);
	case FEAT_OSRELEASE:
		return feat_string(m, &m->host.osrelease, off, end);
	case FEAT_VERSION:
		return feat_string(m, &m->host.version, off, end);
	case FEAT_ARCH:
		return feat_string(m, &m->host.arch, off, end);
	case FEAT_CMDLINE:
		return feat_cmdline(m, off, end);
	case FEAT_EVENT_DESC:
		return feat_event_desc(m, off, end);
	case FEAT_SAMPLE_TIME:
		return feat_sample_time(m, off, end);
	}
	return 0;
}

/* The attribute table of the file header: asize bytes at aoff, entries
 * of attr_size bytes: an attr (attr.size bytes), then the {offset, size}
 * of its event IDs (perf_file_attr, tools/perf/util/header.c). */
static int read_attrs(struct imp *m, uint64_t aoff, uint64_t asize,
		      uint64_t attr_size)
{
	for (uint64_t i = 0; i < asize / attr_size; i++) {
		size_t at = (size_t)(aoff + i * attr_size), sz;
		struct pattr a;
		uint64_t ioff, isize;
		uint32_t ai = (uint32_t)m->nattrs;

		sz = pd_parse_attr(m, at, (size_t)attr_size - 16, &a);
		if (!sz)
			return -1;
		*pd_new_attr(m) = a;
		ioff = get64(m->buf + at + sz);
		isize = get64(m->buf + at + sz + 8);
		if (pd_check_section(m, at + sz, ioff, isize, "the event IDs"))
			return -1;
		for (uint64_t j = 0; j < isize / 8; j++)
			pd_add_id(m, get64(m->buf + ioff + 8 * j), ai);
	}
	return 0;
}

/* The feature sections: a table of {offset, size} at table (after the
 * data), one per bit set in the 256-bit map flags, in bit order. */
static int read_features(struct imp *m, size_t table, const uint64_t flags[4])
{
	struct rbuf r;

	for (int bit = 0; bit < 256; bit++) {
		uint64_t off, size;

		if (!(flags[bit / 64] >> (bit % 64) & 1))
			continue;
		pd_reader(m, &r, table, m->len);
		off = rb_u64(&r);
		size = rb_u64(&r);
		if (pd_check_reader(m, &r) ||
		    pd_check_section(m, table, off, size, "a feature section") ||
		    pd_process_feature(m, bit, (size_t)off, (size_t)size))
			return -1;
		table += 16;
	}
	return 0;
}

int pd_read_file_header(struct imp *m, size_t *data_off, size_t *data_end)
{
	struct rbuf r;
	uint64_t hsize, attr_size, aoff, asize, doff, dsize, flags[4];

	pd_reader(m, &r, 8, m->len);
	hsize = rb_u64(&r);
	if (r.failed)
		return pd_check_reader(m, &r);
	if (hsize == PIPE_HEADER_SIZE) {
		m->pipe = 1;
		*data_off = PIPE_HEADER_SIZE;
		*data_end = m->len;
		return 0;
	}
	if (hsize < FILE_HEADER_SIZE)
		return pd_fail(m, 8, "header size %" PRIu64 " is neither %d (pipe) nor at least %d",
			       hsize, PIPE_HEADER_SIZE, FILE_HEADER_SIZE);
	attr_size = rb_u64(&r);
	aoff = rb_u64(&r);
	asize = rb_u64(&r);
	doff = rb_u64(&r);
	dsize = rb_u64(&r);
	rb_u64(&r);	/* event_types: unused since perf 3.x */
	rb_u64(&r);
	for (int i = 0; i < 4; i++)
		flags[i] = rb_u64(&r);
	if (pd_check_reader(m, &r))
		return -1;
	if (hsize > m->len)
		return pd_fail(m, 8, "header of %" PRIu64 " bytes runs past the end of the file (%zu bytes)",
			       hsize, m->len);
	if (attr_size < ATTR_SIZE_VER0 + 16)
		return pd_fail(m, 16, "attribute entry size %" PRIu64 " is smaller than %d",
			       attr_size, ATTR_SIZE_VER0 + 16);
	if (pd_check_section(m, 24, aoff, asize, "the attribute section"))
		return -1;
	if (dsize == 0) {
		/* perf did not finish the file: read to the end, as perf does. */
		if (!(m->warned & PD_WARNED_NO_SIZE))
			warnx("%s: the header gives no data size (did 'perf record' end cleanly?); reading to the end of the file",
			      m->name);
		m->warned |= PD_WARNED_NO_SIZE;
		if (doff > m->len)
			return pd_fail(m, 40, "data section at offset %" PRIu64 " is past the end of the file (%zu bytes)",
				       doff, m->len);
		memset(flags, 0, sizeof(flags));
		dsize = m->len - doff;
		m->unfinished = 1;
	}
	if (pd_check_section(m, 40, doff, dsize, "the data section"))
		return -1;
	*data_off = (size_t)doff;
	*data_end = (size_t)(doff + dsize);

	if (read_attrs(m, aoff, asize, attr_size))
		return -1;
	return read_features(m, *data_end, flags);
}
