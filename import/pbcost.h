/* SPDX-License-Identifier: GPL-2.0-only */
/* What libprotobuf-c's unpack of a message will allocate, counted from
 * the wire format before it runs, and an allocator that holds unpack to a
 * limit.  Unpack makes every entry of a repeated message field an
 * allocation of its own, so what it takes follows the number of entries,
 * not the bytes: an empty entry is 2 bytes of wire format and a message
 * of tens of bytes unpacked.  import/pprof.c bounds its decoding by them
 * (docs/pprof.md). */
#ifndef PGOPROF_IMPORT_PBCOST_H
#define PGOPROF_IMPORT_PBCOST_H

#include <protobuf-c/protobuf-c.h>
#include <stddef.h>
#include <stdint.h>

/* The most fields a message type may have for pb_unpack_cost() (one of
 * profile.proto has at most 14). */
#define PB_FIELDS_MAX 16

/* What pb_unpack_cost() saw: where the wire format breaks, and of the
 * outermost message the entries of each field (by index in its
 * descriptor's fields) and the length of each field's first value. */
struct pb_scan {
	const uint8_t *base;
	size_t bad;			/* byte offset of the break */
	const char *what;		/* "in a field's tag", "in a field's value" */
	uint64_t n[PB_FIELDS_MAX];
	uint64_t first[PB_FIELDS_MAX];
};

/* The bytes that malloc holds for a request of n: glibc's blocks, an
 * 8-byte header and 16-byte granules, 32 bytes at least. */
uint64_t pb_block(uint64_t n);

/* What protobuf_c_message_unpack(d, ..., len, buf) allocates at its peak,
 * in pb_block() bytes, as libprotobuf-c 1.x does it (protobuf-c.c): the
 * message, an array per repeated field, a block per sub-message, string,
 * bytes value and unknown field, and while it runs its scratch
 * (ScannedMember slabs).  An upper bound: a field given twice counts
 * twice (unpack merges and frees), a sub-message's scratch counts as if
 * the whole message were there.  Fills s; returns UINT64_MAX if the wire
 * format breaks (s->bad, s->what). */
uint64_t pb_unpack_cost(const ProtobufCMessageDescriptor *d,
			const uint8_t *buf, size_t len, struct pb_scan *s);

/* An allocator for protobuf-c that counts what it holds (a block's
 * malloc_usable_size() + 8: pb_block() of the request, a page more for
 * one that malloc maps on its own) and refuses an allocation that would
 * take it past limit (over), so that unpack fails then and the caller can
 * tell that from a malloc that failed (oom) and from a damaged message.
 * Pass &c->a to unpack and to free_unpacked; at is what it held when it
 * refused. */
struct pb_counted {
	ProtobufCAllocator a;
	uint64_t used, limit, at;
	int over, oom;
};
void pb_counted_init(struct pb_counted *c, uint64_t limit);

#endif
