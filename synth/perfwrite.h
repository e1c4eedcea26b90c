/* SPDX-License-Identifier: GPL-2.0-only */
/* Writing perf.data records (tools/perf/Documentation/perf.data-file-format.txt,
 * include/uapi/linux/perf_event.h), for the test tools that synthesize
 * branch-record samples: tests/lbrsynth/lbrsynth.c (in memory) and
 * bench/lbrgen.c (streamed to a file).
 *
 * The layout: the 104-byte perf_file_header (pw_file_header() writes it
 * with empty sections, patched at the end with the words pw_features()
 * gives), one attribute with no ids, the data records, then the feature
 * sections: HEADER_BUILD_ID (when build-IDs are given) and
 * HEADER_BRANCH_STACK (a flag without contents, as perf record -b sets it).
 * Samples are IP | TID | TIME | PERIOD | BRANCH_STACK, or, as perf record -g
 * writes them, IP | TID | TIME | PERIOD | CALLCHAIN (pw_callchain_attr,
 * pw_sample_callchain, pw_features_ex without the branch stack flag);
 * non-sample records carry the sample_id_all trailer TID, TIME. */
#ifndef PGOPROF_PERFWRITE_H
#define PGOPROF_PERFWRITE_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PW_SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK)
#define PW_CALLCHAIN_SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

/* Bytes to write: all kept in memory (f NULL), or written to f by
 * pw_flush(). */
struct pwbuf {
	uint8_t *p;
	size_t n, cap;
	FILE *f;
	uint64_t flushed;	/* bytes written to f before p */
};

void pw_put(struct pwbuf *b, const void *d, size_t n);
void pw_u64(struct pwbuf *b, uint64_t v);
void pw_u32(struct pwbuf *b, uint32_t v);
/* The file offset of the next byte. */
uint64_t pw_pos(const struct pwbuf *b);
/* Write the buffered bytes to b->f: 0, or -1 (errno set). */
int pw_flush(struct pwbuf *b);
/* Flush when more than 1 MiB is buffered. */
int pw_maybe_flush(struct pwbuf *b);

/* The file header (sections empty) and attr, with no ids: returns the
 * offset of the data. */
uint64_t pw_file_header(struct pwbuf *b, const struct perf_event_attr *attr);

/* A branch-sampling attribute of type/config (PERF_TYPE_HARDWARE,
 * PERF_COUNT_HW_*): user space only, USER|ANY branches (with
 * PERF_SAMPLE_BRANCH_TYPE_SAVE when type_save), sample_id_all, mmap2,
 * comm and build-IDs in MMAP2 records. */
void pw_lbr_attr(struct perf_event_attr *attr, uint32_t type, uint64_t config,
		 uint64_t period, int type_save);

/* A call-chain sampling attribute (perf record -g, frame pointers): as
 * pw_lbr_attr, with PW_CALLCHAIN_SAMPLE_TYPE and no branch sampling. */
void pw_callchain_attr(struct perf_event_attr *attr, uint32_t type,
		       uint64_t config, uint64_t period);

struct pw_map {
	uint64_t start, len, pgoff, ino;
	uint32_t maj, min, prot, flags;	/* PROT_*, MAP_* */
	const char *path;
	const uint8_t *build_id;	/* at most 20 bytes; NULL: maj/min/ino */
	size_t build_id_len;
};

struct pw_branch {
	uint64_t from, to;
	uint8_t type;		/* PERF_BR_* */
};

void pw_comm(struct pwbuf *b, uint32_t pid, const char *comm, uint64_t time);
void pw_mmap2(struct pwbuf *b, uint32_t pid, const struct pw_map *m,
	      uint64_t time);
void pw_sample(struct pwbuf *b, uint32_t pid, uint64_t ip, uint64_t time,
	       uint64_t period, const struct pw_branch *br, size_t nbr);
/* A sample of PW_CALLCHAIN_SAMPLE_TYPE: chain is the call chain as the
 * kernel writes it (PERF_CONTEXT_USER, the ip, the return addresses). */
void pw_sample_callchain(struct pwbuf *b, uint32_t pid, uint64_t ip,
			 uint64_t time, uint64_t period, const uint64_t *chain,
			 size_t nchain);
/* PERF_RECORD_FINISHED_ROUND: everything before it may be processed. */
void pw_finished_round(struct pwbuf *b);

/* A HEADER_BUILD_ID entry: a user-space file and its build-ID. */
struct pw_build_id {
	const char *path;
	const uint8_t *id;
	size_t len;		/* at most 20 */
	int unsized;		/* as perf before 5.x wrote it: no size, the ID
				 * zero-padded to 20 bytes */
};

/* After the data (which started at data_off and ends here): the feature
 * sections.  hdr gets the header's words from byte 24 on (the sections of
 * the attributes, the data and the event types, and the feature bits), to
 * be written over bytes 24..103. */
void pw_features(struct pwbuf *b, uint64_t data_off, const struct pw_build_id *ids,
		 size_t nids, uint64_t hdr[10]);
/* The same, with the HEADER_BRANCH_STACK flag only when branch_stack. */
void pw_features_ex(struct pwbuf *b, uint64_t data_off,
		    const struct pw_build_id *ids, size_t nids, int branch_stack,
		    uint64_t hdr[10]);

#endif
