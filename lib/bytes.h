/* SPDX-License-Identifier: GPL-2.0-only */
/* Little-endian byte buffers: a growing writer and a bounds-checked reader
 * whose errors name the file and the byte offset. */
#ifndef PGOPROF_BYTES_H
#define PGOPROF_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct wbuf {
	uint8_t *data;
	size_t len, cap;
};

void wb_bytes(struct wbuf *b, const void *p, size_t n);
void wb_u8(struct wbuf *b, uint8_t v);

/* The n low bytes of v, little-endian.  Inline, with a store where there
 * is room: a profile of a million keys writes ten million fields, and a
 * call and a capacity check for each was 5% of an import. */
static inline void wb_le(struct wbuf *b, uint64_t v, size_t n)
{
	uint8_t x[8];

	for (size_t i = 0; i < n; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	if (b->cap - b->len < n) {
		wb_bytes(b, x, n);
		return;
	}
	memcpy(b->data + b->len, x, n);
	b->len += n;
}

static inline void wb_u32(struct wbuf *b, uint32_t v)
{
	wb_le(b, v, 4);
}

static inline void wb_u64(struct wbuf *b, uint64_t v)
{
	wb_le(b, v, 8);
}
/* u32 length, then the bytes (no NUL). */
void wb_str(struct wbuf *b, const char *s);
/* Overwrite a u64 written earlier at byte offset at. */
void wb_patch_u64(struct wbuf *b, size_t at, uint64_t v);

/* A reader over [buf, buf+len).  The first failure records a message with
 * the byte offset and makes every later read fail too, so a parser can read
 * a whole record and check once. */
struct rbuf {
	const uint8_t *buf;
	size_t len, pos;
	const char *name;	/* file name for messages */
	int failed;
	int quiet;	/* rb_fail() prints nothing (rb_init: 0) */
};

void rb_init(struct rbuf *r, const uint8_t *buf, size_t len, const char *name);
/* Report "NAME: byte OFF: what" once (the first failure only). */
int rb_fail(struct rbuf *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
uint8_t rb_u8(struct rbuf *r);
uint32_t rb_u32(struct rbuf *r);
uint64_t rb_u64(struct rbuf *r);
/* Pointer to n bytes in the buffer, or NULL (and failed) past the end. */
const uint8_t *rb_bytes(struct rbuf *r, size_t n);
/* A ULEB128 / SLEB128 number (LLVM's decodeULEB128 / decodeSLEB128,
 * llvm/Support/LEB128.h: padded encodings are accepted); one that does not
 * fit in 64 bits, or runs past the end, fails. */
uint64_t rb_uleb(struct rbuf *r);
int64_t rb_sleb(struct rbuf *r);
/* A u32-length string of at most max bytes without NUL: malloc'd copy,
 * or NULL on failure. */
char *rb_str(struct rbuf *r, size_t max);

#endif
