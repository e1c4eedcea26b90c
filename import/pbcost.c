/* SPDX-License-Identifier: GPL-2.0-only */
/* libprotobuf-c's unpack, counted before it runs (pbcost.h): a walk over
 * the wire format by the message descriptors that unpack itself follows,
 * adding what each step of protobuf_c_message_unpack() (protobuf-c 1.x,
 * protobuf-c.c) allocates. */
#include "pbcost.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

/* protobuf-c 1.x's unpack (protobuf-c.c) scans a message's fields into
 * ScannedMember entries of 32 bytes, the first 16 on the stack, then in
 * slabs each twice the last. */
#define PB_SCANNED_MEMBER 32
#define PB_STACK_MEMBERS 16

/* What unpack allocates for one message: keep stays with the message,
 * peak is the most it holds besides while it runs (scratch). */
struct cost {
	uint64_t keep, peak;
};

uint64_t pb_block(uint64_t n)
{
	uint64_t b = (n + 8 + 15) & ~(uint64_t)15;

	return b < 32 ? 32 : b;
}

static int broken(struct pb_scan *s, const uint8_t *at, const char *what)
{
	s->bad = (size_t)(at - s->base);
	s->what = what;
	return -1;
}

/* The varint at *p of at most max bytes (protobuf-c reads a tag or a
 * length in 5, a value in 10), *p moved past it; 0 if it does not end
 * within max bytes and before end. */
static int varint(const uint8_t **p, const uint8_t *end, unsigned max,
		  uint64_t *v)
{
	*v = 0;
	for (unsigned i = 0; i < max && *p < end; i++) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			return 1;
	}
	return 0;
}

/* The value of wire type wt at *p: *p moved to its data (past a length),
 * *len its bytes.  0, or -1 if it does not fit before end. */
static int wire_value(const uint8_t **p, const uint8_t *end, unsigned wt,
		      uint64_t *len)
{
	const uint8_t *v = *p;
	uint64_t x;

	switch (wt) {
	case PROTOBUF_C_WIRE_TYPE_VARINT:
		if (!varint(p, end, 10, &x))
			return -1;
		*len = (uint64_t)(*p - v);
		*p = v;
		return 0;
	case PROTOBUF_C_WIRE_TYPE_64BIT:
	case PROTOBUF_C_WIRE_TYPE_32BIT:
		*len = wt == PROTOBUF_C_WIRE_TYPE_64BIT ? 8 : 4;
		return (uint64_t)(end - v) < *len ? -1 : 0;
	case PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED:
		if (!varint(p, end, 5, len) || *len > (uint64_t)(end - *p))
			return -1;
		return 0;
	}
	return -1;	/* groups: protobuf-c reads none */
}

/* Entries in n bytes of a packed field of type t (count_packed_elements
 * in protobuf-c.c: a varint is a byte without its high bit). */
static uint64_t packed_entries(ProtobufCType t, const uint8_t *p, uint64_t n)
{
	uint64_t k = 0;

	switch (t) {
	case PROTOBUF_C_TYPE_SFIXED32: case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_FLOAT:
		return n / 4;
	case PROTOBUF_C_TYPE_SFIXED64: case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return n / 8;
	case PROTOBUF_C_TYPE_BOOL:
		return n;
	default:
		for (uint64_t i = 0; i < n; i++)
			k += !(p[i] & 0x80);
		return k;
	}
}

/* Whether a repeated field of type t may come packed: numbers do
 * (is_packable_type in protobuf-c.c), strings, bytes and messages not. */
static int packable(ProtobufCType t)
{
	return t != PROTOBUF_C_TYPE_STRING && t != PROTOBUF_C_TYPE_BYTES &&
	       t != PROTOBUF_C_TYPE_MESSAGE;
}

/* An entry of a repeated field of type t in protobuf-c's array. */
static uint64_t entry_size(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64: case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE:
		return 8;
	case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_MESSAGE:
		return sizeof(void *);
	case PROTOBUF_C_TYPE_BYTES:
		return sizeof(ProtobufCBinaryData);
	case PROTOBUF_C_TYPE_BOOL:
		return sizeof(protobuf_c_boolean);
	default:
		return 4;
	}
}

static int message_cost(struct pb_scan *s, const ProtobufCMessageDescriptor *d,
			const uint8_t *p, const uint8_t *end, struct cost *c,
			int outermost);

/* What field f's length-delimited value (len bytes at p) costs besides
 * its entry: a sub-message, a string, bytes. */
static int value_cost(struct pb_scan *s, const ProtobufCFieldDescriptor *f,
		      const uint8_t *p, uint64_t len, struct cost *c)
{
	const ProtobufCMessageDescriptor *d = f->descriptor;

	*c = (struct cost){ 0, 0 };
	/* As deep as the descriptors nest: profile.proto's 3, no cycle.  An
	 * empty message (millions of them make a file too large) is quick. */
	if (f->type == PROTOBUF_C_TYPE_MESSAGE && !len)
		c->keep = pb_block(d->sizeof_message);
	else if (f->type == PROTOBUF_C_TYPE_MESSAGE)
		return message_cost(s, d, p, p + len, c, 0);
	if (f->type == PROTOBUF_C_TYPE_STRING)
		c->keep = pb_block(len + 1);
	else if (f->type == PROTOBUF_C_TYPE_BYTES && len)
		c->keep = pb_block(len);
	return 0;
}

/* pb_unpack_cost() of the message of type d at [p, end) into c; the
 * outermost one's entries go to s.  0, or -1 with s->bad. */
static int message_cost(struct pb_scan *s, const ProtobufCMessageDescriptor *d,
			const uint8_t *p, const uint8_t *end, struct cost *c,
			int outermost)
{
	uint64_t n[PB_FIELDS_MAX] = { 0 }, fields = 0, unknown = 0, len, tag;
	const ProtobufCFieldDescriptor *f = NULL;

	*c = (struct cost){ pb_block(d->sizeof_message), 0 };
	if (d->n_fields > PB_FIELDS_MAX)	/* not profile.proto's */
		return broken(s, p, "a message type with too many fields");
	for (; p < end; p += len, fields++) {
		const uint8_t *at = p, *v;
		struct cost sub = { 0, 0 };
		size_t i;

		if (!varint(&p, end, 5, &tag))
			return broken(s, at, "in a field's tag");
		if (v = p, wire_value(&p, end, tag & 7, &len))
			return broken(s, at, "in a field's value");
		if (!f || f->id != tag >> 3)	/* a repeated field's entries come in a row */
			f = protobuf_c_message_descriptor_get_field(d, (unsigned)(tag >> 3));
		if (!f) {
			unknown++;
			c->keep += pb_block((uint64_t)(p - v) + len);
			continue;
		}
		i = (size_t)(f - d->fields);
		if (outermost && !n[i])
			s->first[i] = len;
		n[i] += f->label != PROTOBUF_C_LABEL_REPEATED ? 0 :
			(tag & 7) == PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED &&
			packable(f->type) ? packed_entries(f->type, p, len) : 1;
		if ((tag & 7) == PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED &&
		    value_cost(s, f, p, len, &sub))
			return -1;
		c->keep += sub.keep;
		c->peak = sub.peak > c->peak ? sub.peak : c->peak;
	}
	for (size_t i = 0; i < d->n_fields; i++)
		if (n[i])
			c->keep += pb_block(n[i] * entry_size(d->fields[i].type));
	if (unknown)
		c->keep += pb_block(unknown * sizeof(ProtobufCMessageUnknownField));
	for (uint64_t cap = PB_STACK_MEMBERS, slab = cap * 2; fields > cap; cap += slab, slab *= 2)
		c->peak += pb_block(slab * PB_SCANNED_MEMBER);
	if (outermost)
		memcpy(s->n, n, sizeof(n));
	return 0;
}

uint64_t pb_unpack_cost(const ProtobufCMessageDescriptor *d,
			const uint8_t *buf, size_t len, struct pb_scan *s)
{
	struct cost c;

	*s = (struct pb_scan){ .base = buf };
	if (message_cost(s, d, buf, buf + len, &c, 1))
		return UINT64_MAX;
	return c.keep + c.peak;
}

static void *counted_alloc(void *data, size_t n)
{
	struct pb_counted *c = data;
	void *p;

	if (c->used + pb_block(n) > c->limit) {
		c->over = 1, c->at = c->used;
		return NULL;
	}
	if (!(p = malloc(n)))
		c->oom = 1, c->at = c->used;
	else
		c->used += malloc_usable_size(p) + 8;
	return p;
}

static void counted_free(void *data, void *p)
{
	struct pb_counted *c = data;

	if (p)
		c->used -= malloc_usable_size(p) + 8;
	free(p);
}

void pb_counted_init(struct pb_counted *c, uint64_t limit)
{
	*c = (struct pb_counted){ { counted_alloc, counted_free, c }, 0, limit, 0, 0, 0 };
}
