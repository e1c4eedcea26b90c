/* SPDX-License-Identifier: GPL-2.0-only */
#include "bytes.h"
#include "util.h"

#include <stdarg.h>
#include <string.h>

void wb_bytes(struct wbuf *b, const void *p, size_t n)
{
	grow(&b->data, &b->cap, b->len + n, 1);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void wb_u8(struct wbuf *b, uint8_t v)
{
	wb_bytes(b, &v, 1);
}

void wb_str(struct wbuf *b, const char *s)
{
	size_t n = strlen(s);

	wb_u32(b, (uint32_t)n);
	wb_bytes(b, s, n);
}

void wb_patch_u64(struct wbuf *b, size_t at, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b->data[at + i] = (uint8_t)(v >> (8 * i));
}

void rb_init(struct rbuf *r, const uint8_t *buf, size_t len, const char *name)
{
	r->buf = buf;
	r->len = len;
	r->pos = 0;
	r->name = name;
	r->failed = 0;
	r->quiet = 0;
}

int rb_fail(struct rbuf *r, const char *fmt, ...)
{
	va_list ap;
	char msg[256];

	if (r->failed)
		return -1;
	r->failed = 1;
	if (r->quiet)
		return -1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err("%s: byte %zu: %s", r->name, r->pos, msg);
}

const uint8_t *rb_bytes(struct rbuf *r, size_t n)
{
	const uint8_t *p;

	if (r->failed)
		return NULL;
	if (n > r->len - r->pos) {
		rb_fail(r, "truncated: need %zu bytes, %zu left", n,
			r->len - r->pos);
		return NULL;
	}
	p = r->buf + r->pos;
	r->pos += n;
	return p;
}

uint8_t rb_u8(struct rbuf *r)
{
	const uint8_t *p = rb_bytes(r, 1);

	return p ? p[0] : 0;
}

uint32_t rb_u32(struct rbuf *r)
{
	const uint8_t *p = rb_bytes(r, 4);

	return p ? (uint32_t)p[0] | (uint32_t)p[1] << 8 |
			   (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
		 : 0;
}

uint64_t rb_u64(struct rbuf *r)
{
	uint64_t lo = rb_u32(r);

	return lo | (uint64_t)rb_u32(r) << 32;
}

char *rb_str(struct rbuf *r, size_t max)
{
	size_t at = r->pos;
	uint32_t n = rb_u32(r);
	const uint8_t *p;
	char *s;

	if (!r->failed && n > max) {
		r->pos = at;
		rb_fail(r, "string of %u bytes is longer than %zu", n, max);
		return NULL;
	}
	p = rb_bytes(r, n);
	if (!p)
		return NULL;
	if (memchr(p, 0, n)) {
		r->pos = at;
		rb_fail(r, "string contains a NUL byte");
		return NULL;
	}
	s = xmalloc((size_t)n + 1);
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

uint64_t rb_uleb(struct rbuf *r)
{
	size_t at = r->pos;
	unsigned shift = 0;
	uint64_t v = 0;

	if (r->failed)
		return 0;
	for (;;) {
		uint64_t slice;
		uint8_t b;

		if (r->pos >= r->len) {
			r->pos = at;
			rb_fail(r, "truncated LEB128 number");
			return 0;
		}
		b = r->buf[r->pos++];
		slice = b & 0x7f;
		if (shift >= 64 || (slice << shift) >> shift != slice) {
			r->pos = at;
			rb_fail(r, "LEB128 number does not fit in 64 bits");
			return 0;
		}
		v |= slice << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
}

int64_t rb_sleb(struct rbuf *r)
{
	size_t at = r->pos;
	unsigned shift = 0;
	uint64_t v = 0;
	uint8_t b;

	if (r->failed)
		return 0;
	do {
		if (r->pos >= r->len || shift >= 64) {
			r->pos = at;
			rb_fail(r, r->pos >= r->len ? "truncated LEB128 number" :
				"LEB128 number does not fit in 64 bits");
			return 0;
		}
		b = r->buf[r->pos++];
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= UINT64_MAX << shift;
	return (int64_t)v;
}
