/* SPDX-License-Identifier: GPL-2.0-only */
/* Writing perf.data records: perfwrite.h. */
#include "perfwrite.h"
#include "../lib/util.h"

#include <string.h>

void pw_put(struct pwbuf *b, const void *d, size_t n)
{
	grow(&b->p, &b->cap, b->n + n, 1);
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

void pw_u64(struct pwbuf *b, uint64_t v) { pw_put(b, &v, 8); }
void pw_u32(struct pwbuf *b, uint32_t v) { pw_put(b, &v, 4); }

uint64_t pw_pos(const struct pwbuf *b)
{
	return b->flushed + b->n;
}

int pw_flush(struct pwbuf *b)
{
	if (b->n && fwrite(b->p, 1, b->n, b->f) != b->n)
		return -1;
	b->flushed += b->n;
	b->n = 0;
	return 0;
}

int pw_maybe_flush(struct pwbuf *b)
{
	return b->n > (1u << 20) ? pw_flush(b) : 0;
}

static void put_hdr(struct pwbuf *b, uint32_t type, uint16_t misc, size_t size)
{
	struct perf_event_header h = { type, misc, (uint16_t)size };

	pw_put(b, &h, sizeof(h));
}

/* sample_id_all trailer of non-sample records: TID, TIME. */
static void put_id(struct pwbuf *b, uint32_t pid, uint64_t time)
{
	pw_u32(b, pid);
	pw_u32(b, pid);
	pw_u64(b, time);
}

static void put_padded_string(struct pwbuf *b, const char *s, size_t padded)
{
	static const uint8_t zero[64];
	size_t n = strlen(s);

	pw_put(b, s, n);
	pw_put(b, zero, padded - n);
}

static size_t pad8(size_t n) { return (n + 8) & ~(size_t)7; } /* with the NUL */

uint64_t pw_file_header(struct pwbuf *b, const struct perf_event_attr *attr)
{
	pw_put(b, "PERFILE2", 8);
	pw_u64(b, 104);
	pw_u64(b, sizeof(*attr) + 16);
	for (int i = 0; i < 2 + 2 + 2 + 4; i++)	/* attrs, data, event_types, flags[4] */
		pw_u64(b, 0);
	pw_put(b, attr, sizeof(*attr));
	pw_u64(b, 0);		/* ids: none (one event) */
	pw_u64(b, 0);
	return pw_pos(b);
}

void pw_lbr_attr(struct perf_event_attr *attr, uint32_t type, uint64_t config,
		 uint64_t period, int type_save)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = type;
	attr->size = sizeof(*attr);
	attr->config = config;
	attr->sample_period = period;
	attr->sample_type = PW_SAMPLE_TYPE;
	attr->branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY |
				   (type_save ? PERF_SAMPLE_BRANCH_TYPE_SAVE : 0);
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->sample_id_all = 1;
	attr->mmap = 1;
	attr->mmap2 = 1;
	attr->comm = 1;
	attr->comm_exec = 1;
	attr->build_id = 1;
}

void pw_callchain_attr(struct perf_event_attr *attr, uint32_t type,
		       uint64_t config, uint64_t period)
{
	pw_lbr_attr(attr, type, config, period, 0);
	attr->sample_type = PW_CALLCHAIN_SAMPLE_TYPE;
	attr->branch_sample_type = 0;
	attr->sample_max_stack = 127;	/* kernel.perf_event_max_stack */
}

void pw_comm(struct pwbuf *b, uint32_t pid, const char *comm, uint64_t time)
{
	const char *base = strrchr(comm, '/') ? strrchr(comm, '/') + 1 : comm;
	char name[16];
	size_t clen;

	snprintf(name, sizeof(name), "%s", base);
	clen = pad8(strlen(name));
	put_hdr(b, PERF_RECORD_COMM, 0, 8 + 8 + clen + 16);
	pw_u32(b, pid);
	pw_u32(b, pid);
	put_padded_string(b, name, clen);
	put_id(b, pid, time);
}

void pw_mmap2(struct pwbuf *b, uint32_t pid, const struct pw_map *m, uint64_t time)
{
	size_t plen = pad8(strlen(m->path));
	uint16_t misc = PERF_RECORD_MISC_USER;

	if (m->build_id)
		misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	put_hdr(b, PERF_RECORD_MMAP2, misc, 8 + 8 + 24 + 24 + 8 + plen + 16);
	pw_u32(b, pid);
	pw_u32(b, pid);
	pw_u64(b, m->start);
	pw_u64(b, m->len);
	pw_u64(b, m->pgoff);
	if (m->build_id) {
		uint8_t u[24] = { (uint8_t)(m->build_id_len > 20 ? 20 : m->build_id_len) };

		memcpy(u + 4, m->build_id, u[0]);
		pw_put(b, u, sizeof(u));
	} else {
		pw_u32(b, m->maj);
		pw_u32(b, m->min);
		pw_u64(b, m->ino);
		pw_u64(b, 0);		/* ino_generation */
	}
	pw_u32(b, m->prot);
	pw_u32(b, m->flags);
	put_padded_string(b, m->path, plen);
	put_id(b, pid, time);
}

/* A sample's header and its IP, TID, TIME, PERIOD, then the count of
 * the entries (of tail bytes) that follow. */
static void sample_head(struct pwbuf *b, uint32_t pid, uint64_t ip,
			uint64_t time, uint64_t period, uint64_t n, size_t tail)
{
	put_hdr(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
		8 + 8 + 8 + 8 + 8 + 8 + tail);
	pw_u64(b, ip);
	pw_u32(b, pid);
	pw_u32(b, pid);
	pw_u64(b, time);
	pw_u64(b, period);
	pw_u64(b, n);
}

void pw_sample(struct pwbuf *b, uint32_t pid, uint64_t ip, uint64_t time,
	       uint64_t period, const struct pw_branch *br, size_t nbr)
{
	sample_head(b, pid, ip, time, period, nbr, 24 * nbr);
	for (size_t i = 0; i < nbr; i++) {
		/* flags: mispred:1 predicted:1 in_tx:1 abort:1 cycles:16
		 * type:4 ... (struct perf_branch_entry) */
		pw_u64(b, br[i].from);
		pw_u64(b, br[i].to);
		pw_u64(b, (1ULL << 1) | ((uint64_t)br[i].type << 20));
	}
}

void pw_sample_callchain(struct pwbuf *b, uint32_t pid, uint64_t ip,
			 uint64_t time, uint64_t period, const uint64_t *chain,
			 size_t nchain)
{
	sample_head(b, pid, ip, time, period, nchain, 8 * nchain);
	pw_put(b, chain, 8 * nchain);
}

/* perf's own record types (tools/lib/perf/include/perf/event.h). */
#define PERF_RECORD_FINISHED_ROUND 68

void pw_finished_round(struct pwbuf *b)
{
	put_hdr(b, PERF_RECORD_FINISHED_ROUND, 0, 8);
}

#define HEADER_BUILD_ID 2
#define HEADER_BRANCH_STACK 15
#define NAME_ALIGN 64		/* of HEADER_BUILD_ID's file names */

/* A HEADER_BUILD_ID file name's bytes: with its NUL, padded. */
static size_t name_size(const char *path)
{
	return (strlen(path) + 1 + NAME_ALIGN - 1) & ~(size_t)(NAME_ALIGN - 1);
}

void pw_features(struct pwbuf *b, uint64_t data_off, const struct pw_build_id *ids,
		 size_t nids, uint64_t hdr[10])
{
	pw_features_ex(b, data_off, ids, nids, 1, hdr);
}

void pw_features_ex(struct pwbuf *b, uint64_t data_off,
		    const struct pw_build_id *ids, size_t nids, int branch_stack,
		    uint64_t hdr[10])
{
	uint64_t table = pw_pos(b), size = 0;
	uint64_t at = table + 16 * ((uint64_t)!!branch_stack + !!nids);

	memset(hdr, 0, 10 * sizeof(*hdr));
	hdr[0] = 104;			/* attrs */
	hdr[1] = sizeof(struct perf_event_attr) + 16;
	hdr[2] = data_off;		/* data */
	hdr[3] = table - data_off;
	/* Feature HEADER_BRANCH_STACK, as perf record -b sets it: a flag
	 * without contents, so one empty section.  perf report then shows
	 * branches by default. */
	if (branch_stack)
		hdr[6] = 1ULL << HEADER_BRANCH_STACK;
	if (nids) {
		hdr[6] |= 1ULL << HEADER_BUILD_ID;
		for (size_t i = 0; i < nids; i++)
			size += 36 + name_size(ids[i].path);
		pw_u64(b, at);
		pw_u64(b, size);
	}
	if (branch_stack) {
		pw_u64(b, at + size);	/* the branch stack's empty section */
		pw_u64(b, 0);
	}
	/* struct perf_record_header_build_id (tools/perf/util/header.c
	 * write_buildid): pid -1 (the host), 20 bytes of build-ID and its
	 * size (PERF_RECORD_MISC_BUILD_ID_SIZE), the name padded to 64. */
	for (size_t i = 0; i < nids; i++) {
		size_t len = name_size(ids[i].path);
		uint8_t id[24] = { 0 };

		memcpy(id, ids[i].id, ids[i].len > 20 ? 20 : ids[i].len);
		if (!ids[i].unsized)
			id[20] = (uint8_t)(ids[i].len > 20 ? 20 : ids[i].len);
		put_hdr(b, 0, PERF_RECORD_MISC_USER |
			(ids[i].unsized ? 0 : 1u << 15), 36 + len);
		pw_u32(b, UINT32_MAX);
		pw_put(b, id, sizeof(id));
		put_padded_string(b, ids[i].path, len);
	}
}
