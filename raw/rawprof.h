/* SPDX-License-Identifier: GPL-2.0-only */
/* The raw profile: address-level, symbol-free, mergeable.  It is the only
 * contract between pgoprof-record and the converter; docs/raw-format.md is
 * its specification.  Addresses are FILE OFFSETS into the ELF file named by
 * the object's build-ID, never runtime virtual addresses. */
#ifndef PGOPROF_RAWPROF_H
#define PGOPROF_RAWPROF_H

#include "../lib/hindex.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define RAW_MAGIC "PGORAW\0\0"
#define RAW_VERSION 1
#define RAW_BUILD_ID_MAX 64
#define RAW_BUILD_ID_MIN 4	/* the shortest the notes allow (--build-id=0xHEX) */
/* The largest file given a content digest (RAW_ID_CONTENT), in bytes. */
#define RAW_CONTENT_MAX ((uint64_t)1 << 30)

enum raw_section {
	RAW_SEC_META = 1,	/* key/value strings */
	RAW_SEC_COUNTERS = 2,	/* named u64 counters; merge adds them */
	RAW_SEC_OBJECT = 3,	/* one ELF object: build-ID, IPs, edges */
	RAW_SEC_RANGES = 4,	/* branch records: fall-through ranges of an object */
	RAW_SEC_BRANCHES = 5,	/* branch records: taken branches from an object */
	RAW_SEC_STACKS = 6,	/* whole call stacks, across objects */
};

/* Standard counter names (docs/raw-format.md lists them all). */
#define CNT_SAMPLES "samples.taken"
#define CNT_LOST "samples.lost"
#define CNT_UNATTR "unattributed."	/* prefix; reason follows */
#define CNT_FILTERED "filtered.samples"	/* IP samples of objects not kept */

struct raw_kv {
	char *key, *value;
};

struct raw_counter {
	char *name;
	uint64_t value;
};

/* IP samples: count samples whose leaf address was at this file offset. */
struct raw_ip {
	uint64_t offset;
	uint64_t count;
};

/* A caller->callee edge seen in a stack: a frame returning to ret_offset
 * (file offset in this object, the address after the call) had as callee a
 * frame at callee_offset in object callee_obj (index into raw_profile.objs). */
struct raw_edge {
	uint64_t ret_offset;
	uint32_t callee_obj;
	uint64_t callee_offset;
	uint64_t count;
};

/* Branch records (LBR): the straight-line code from begin (the target of
 * one taken branch) to end (the start of the next taken branch's
 * instruction), both file offsets in this object, ran count times. */
struct raw_range {
	uint64_t begin, end;
	uint64_t count;
};

/* Branch records: a taken branch from the instruction at file offset from
 * in this object to file offset to in object to_obj, count times. */
struct raw_branch {
	uint64_t from;
	uint32_t to_obj;
	uint64_t to;
	uint64_t count;
};

/* What an object's ID is (the OBJECT section's flags; docs/raw-format.md
 * section 3.3).  Every address is a file offset into the file so named. */
enum raw_id_kind {
	RAW_ID_BUILD_ID = 0,	/* the ELF file's GNU build-ID note */
	RAW_ID_CONTENT = 1,	/* no build-ID: MD5 of the file's bytes, taken
				 * when it was recorded (pgoprof-record) */
	RAW_ID_PATH = 2,	/* build-ID unknown (perf.data without one):
				 * MD5 of the path; matched by file name */
	RAW_ID_KINDS
};
extern const char *const raw_id_kind_name[RAW_ID_KINDS];

struct raw_object {
	uint8_t build_id[RAW_BUILD_ID_MAX];	/* the ID, of kind id_kind */
	uint32_t build_id_len;
	uint8_t id_kind;		/* enum raw_id_kind */
	char *path;			/* where it was seen; advisory only */
	struct raw_ip *ips;
	size_t nips, cap_ips;
	struct raw_edge *edges;
	size_t nedges, cap_edges;
	struct raw_range *ranges;
	size_t nranges, cap_ranges;
	struct raw_branch *branches;
	size_t nbranches, cap_branches;
};

/* A frame of a call stack: a file offset in object obj, or one of the
 * two marks below (offset 0) for a frame that is in no object. */
#define RAW_FRAME_UNKNOWN UINT32_MAX		/* in no known mapping */
#define RAW_FRAME_KERNEL (UINT32_MAX - 1)	/* a sample in the kernel */
/* The deepest stack a reader takes (the kernel gives at most 127 user
 * frames; perf's sysctl allows more). */
#define RAW_STACK_DEPTH_MAX 1024
struct raw_frame {
	uint32_t obj;
	uint64_t offset;
};

/* A whole call stack seen count times: depth frames from frames[first],
 * the leaf first (the sampled address), then return addresses (the file
 * offset of the instruction after each call), outermost last.  The IP
 * samples and edges of its object tables are the same samples, cut into
 * pairs: stacks are what report, folded output and pprof read. */
struct raw_stack {
	uint64_t count;
	size_t first;
	uint32_t depth;
};

struct raw_stacks {
	struct raw_stack *v;
	size_t n, cap;
	struct raw_frame *frames;
	size_t nframes, cap_frames;
	struct hindex index;	/* by frames; none (cap 0) until the next add */
};

struct raw_profile {
	struct raw_kv *meta;
	size_t nmeta, cap_meta;
	struct raw_counter *counters;
	size_t ncounters, cap_counters;
	struct raw_object *objs;
	size_t nobjs, cap_objs;
	struct raw_stacks stacks;
	size_t merge_normalized;	/* records after raw_merge_add last normalized */
};

/* Empty profile; free with raw_free(). */
void raw_init(struct raw_profile *p);
void raw_free(struct raw_profile *p);

/* Set a META value (copied), replacing an older value of the same key. */
void raw_set_meta(struct raw_profile *p, const char *key, const char *value);
/* The META value of key, or NULL.  Owned by p. */
const char *raw_get_meta(const struct raw_profile *p, const char *key);
/* Add delta to the counter name (created at 0). */
void raw_add_counter(struct raw_profile *p, const char *name, uint64_t delta);
uint64_t raw_get_counter(const struct raw_profile *p, const char *name);

/* Index of the object with this build-ID, added (with path copied) if new.
 * Never fails. */
uint32_t raw_object(struct raw_profile *p, const uint8_t *build_id,
		    uint32_t len, const char *path);
/* The same for an ID of any kind (len bytes, at most RAW_BUILD_ID_MAX). */
uint32_t raw_object_id(struct raw_profile *p, enum raw_id_kind kind,
		       const uint8_t *id, uint32_t len, const char *path);
/* The object of an ELF file that has no build-ID, mapped from path
 * (kind RAW_ID_PATH: its ID is the MD5 of path without a " (deleted)"
 * suffix), added if new. */
uint32_t raw_path_object(struct raw_profile *p, const char *path);
/* Index of the object with this build-ID (the same length and bytes), or
 * -1. */
int raw_find_object(const struct raw_profile *p, const uint8_t *build_id,
		    uint32_t len);
int raw_find_object_id(const struct raw_profile *p, enum raw_id_kind kind,
		       const uint8_t *id, uint32_t len);
/* 1 when two build-IDs name the same file: equal, or one is the other
 * zero-padded (perf's 20-byte HEADER_BUILD_ID without a size) or cut
 * short (older perf keeps 20 bytes of a longer ID), in at least
 * RAW_BUILD_ID_MIN bytes that are not padding.  Else 0. */
int raw_same_build_id(const uint8_t *a, uint32_t alen, const uint8_t *b,
		      uint32_t blen);
/* The object of a binary with this build-ID: the exact one, else the
 * first that raw_same_build_id() accepts; -1 if none. */
int raw_match_object(const struct raw_profile *p, const uint8_t *build_id,
		     uint32_t len);
/* The ELF file that a profile's object is looked up for. */
struct raw_binary {
	const char *path;		/* the file (read for its digest) */
	const uint8_t *build_id;	/* its build-ID, or NULL if none */
	size_t build_id_len;
	/* The path the object was recorded at (--recorded-path), or NULL:
	 * then objects without a build-ID are matched by file name. */
	const char *recorded_path;
};
/* The object of binary b in p (read from raw_path), by the rules of
 * docs/raw-format.md section 3.3: the same build-ID (raw_match_object);
 * else the same content digest; else, among objects without a build-ID,
 * the one recorded at b->recorded_path or under b's file name, with one
 * line on stderr that says so and which path it took.  -1 after one
 * message that says why not: p has no samples at all, the object most
 * likely meant (the same file name, else the most samples) has another
 * build-ID or content (the file was rebuilt or changed since recording),
 * or several objects share the name (they are listed). */
int raw_binary_object(const struct raw_profile *p, const char *raw_path,
		      const struct raw_binary *b);
/* 1 if the file at path (build-ID id, len bytes; NULL if none) is object
 * o: the same build-ID, the same content digest, or, for an object known
 * only by its path (RAW_ID_PATH), any file: the path is all there is.
 * For reading names only. */
int raw_file_is_object(const struct raw_object *o, const char *path,
		       const uint8_t *id, size_t len);
void raw_add_ip(struct raw_object *o, uint64_t offset, uint64_t count);
void raw_add_edge(struct raw_object *o, uint64_t ret_offset, uint32_t callee_obj,
		  uint64_t callee_offset, uint64_t count);

void raw_add_range(struct raw_object *o, uint64_t begin, uint64_t end,
		   uint64_t count);
void raw_add_branch(struct raw_object *o, uint64_t from, uint32_t to_obj,
		    uint64_t to, uint64_t count);

/* Add count to the stack of depth frames f (leaf first; see struct
 * raw_stack), a new one if p has no such stack yet.  depth 0 is ignored;
 * a stack deeper than RAW_STACK_DEPTH_MAX keeps its leaf-side frames.
 * Frames name objects of p or a RAW_FRAME_ mark. */
void raw_add_stack(struct raw_profile *p, const struct raw_frame *f,
		   uint32_t depth, uint64_t count);
/* One sampled stack of depth frames (leaf first, as struct raw_stack),
 * count times, cut as docs/raw-format.md sections 3.3 and 3.5 say: the
 * leaf, unless a mark, is an IP sample; each adjacent pair of frames in
 * objects is a caller->callee edge (a callee above the leaf at its
 * offset - 1, inside the call); the whole is a stack.  Returns how many
 * pairs were no edge because a frame is RAW_FRAME_UNKNOWN (the caller
 * counts them as edges.unattributed; a kernel leaf is no pair).  The rule
 * itself is raw/stackcut.h's raw_stack_cut(), which perf import's batches
 * (import/samples.c) call too. */
uint64_t raw_add_sampled_stack(struct raw_profile *p, const struct raw_frame *f,
			       uint32_t depth, uint64_t count);
/* The s->depth frames of stack s of p, leaf first; owned by p. */
static inline const struct raw_frame *raw_stack_frames(const struct raw_profile *p,
						       const struct raw_stack *s)
{
	return &p->stacks.frames[s->first];
}

/* Sort every table (objects by build-ID) and add up duplicate keys, so that output is canonical
 * and deterministic.  Counts saturate at UINT64_MAX instead of wrapping. */
void raw_normalize(struct raw_profile *p);

/* Remove objects with no samples and no edges that no edge points to (the
 * collector sees every executable mapping, sampled or not). */
void raw_drop_empty_objects(struct raw_profile *p);

/* Add src into dst, count by count (objects matched by build-ID, counters by
 * name; differing META values are kept as "a,b").  weight multiplies every
 * count of src.  Exact: merge(A, B) has the sums of the counts of A and B. */
void raw_merge(struct raw_profile *dst, const struct raw_profile *src,
	       uint64_t weight);
/* The same without normalizing dst each time: duplicate records are added
 * up only when dst's tables have doubled since, so that merging N
 * profiles costs O(total log total), not O(N x distinct).  dst is not
 * canonical afterwards (raw_write normalizes; or call raw_normalize). */
void raw_merge_add(struct raw_profile *dst, const struct raw_profile *src,
		   uint64_t weight);
/* How many counts of p (counters, IP, edge, range and branch counts) are
 * at UINT64_MAX: saturated by a weight or a sum (raw_merge,
 * raw_normalize) instead of wrapping, or read so.  0 means every count is
 * exact. */
size_t raw_saturated(const struct raw_profile *p);

/* Sharing a profile (raw/filter.c; docs/raw-format.md section 6.1). */
/* 1 if spec reads as a build-ID or its start: 8 to 128 hex digits. */
int raw_spec_is_build_id(const char *spec);
/* 1 if object o is what spec names: a build-ID (or its first hex
 * digits, any case), else the path o was recorded at, exactly. */
int raw_object_matches(const struct raw_object *o, const char *spec);
/* Keep only the objects i with keep[i] (p->nobjs flags): the others, the
 * edges and branches into them, and their ranges go; their frames in
 * stacks become RAW_FRAME_UNKNOWN and a stack left with no object goes.
 * The IP samples that went are added to the counter CNT_FILTERED (0
 * included, so the filter shows).  Returns how many objects were kept;
 * objects are renumbered. */
size_t raw_keep_objects(struct raw_profile *p, const uint8_t *keep);
/* Keep the objects that the n specs name (raw_object_matches), as
 * raw_keep_objects() does, and say in one line on stderr what was kept
 * and left out.  -1 with a message naming opt (the option, e.g.
 * "--keep") and name (the profile) when a spec names no object: nothing
 * is changed then. */
int raw_keep_matching(struct raw_profile *p, char *const *specs, int n,
		      const char *opt, const char *name);
/* Drop what names files and commands: every object's path becomes "",
 * and the META keys target, source and perf_cmdline go.  Build-IDs stay.
 * An object known only by its path (RAW_ID_PATH) keeps its digest, so
 * convert can match it only with --recorded-path afterwards. */
void raw_strip_paths(struct raw_profile *p);

/* Write p (normalized first) to f.  Returns 0, or -1 on a write error. */
int raw_write(struct raw_profile *p, FILE *f);
/* Write p atomically to path (temporary + rename), or to stdout if path is
 * "-" (not a terminal).  Returns 0 or -1 with a message naming the file. */
int raw_write_file(struct raw_profile *p, const char *path);

/* Parse a raw profile from memory.  name is used in messages.  On error
 * prints one line naming the file and byte offset, returns -1, and leaves
 * p empty.  Every length and index is checked against the buffer. */
int raw_parse(struct raw_profile *p, const uint8_t *buf, size_t len,
	      const char *name);
/* Read ("-": standard input; see read_input) and parse a file (see
 * raw_parse). */
int raw_read_file(struct raw_profile *p, const char *path);

/* 1 if buf (len bytes: a whole file or its first bytes) starts with
 * RAW_MAGIC, else 0.  An input_probe for read_input(). */
int raw_probe(const uint8_t *buf, size_t len);

/* Add n to the counter "unattributed.<reason>" (created at 0, even when n
 * is 0: pgoprof-record writes every reason it knows). */
void raw_add_unattributed(struct raw_profile *p, const char *reason,
			  uint64_t n);
/* The unattributed samples of p: their total, and in line (len bytes,
 * always NUL-terminated, cut if short) "N reason, N reason" for the
 * non-zero "unattributed.<reason>" counters. */
uint64_t raw_unattributed(const struct raw_profile *p, char *line, size_t len);

/* Print p as text, one fact per line (the output of "pgoprof show"):
 * META values, counter names and object paths escaped (lib/escape.h). */
void raw_print(const struct raw_profile *p, FILE *f);

#endif
