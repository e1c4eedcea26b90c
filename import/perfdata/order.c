/* SPDX-License-Identifier: GPL-2.0-only */
/* The perf.data data section: its records checked one by one, the two
 * passes over them, and perf's time order (FINISHED_ROUND, the sort):
 * tools/perf/util/session.c and ordered-events.c. */
#include "internal.h"
#include "../../lib/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first window: 16 MiB, in 2 MiB pages where the kernel gives them
 * (a page of the window is touched for the first time once). */
#define WIN_MIN ((size_t)16 << 20)

/* The lowest offset that a queued record still needs (off if none). */
static size_t lowest_queued(const struct imp *m, size_t off)
{
	for (size_t i = 0; i < m->nq; i++)
		if (m->q[i].off < off)
			off = (size_t)m->q[i].off;
	return off;
}

/* The window from file byte lo on, with room for cap bytes: the bytes
 * from lo that the old one held are kept. */
static void window_move(struct imp *m, size_t lo, size_t cap)
{
	size_t keep = lo >= m->win_lo && lo < m->win_hi ? m->win_hi - lo : 0;
	uint8_t *w = m->win;

	if (m->jobs)	/* threads may read the old window still */
		w = pd_jobs_window(m, cap);
	else if (cap > m->win_cap)
		w = xmalloc_huge(cap);
	if (keep)
		memmove(w, m->win + (lo - m->win_lo), keep);
	if (w != m->win) {
		if (!m->jobs)
			free(m->win);
		m->win = w;
		m->win_cap = cap;
	}
	m->win_lo = lo;
	m->win_hi = lo + keep;
}

/* opt->fd_set: make file bytes [off, off + n) readable at buf + off,
 * keeping those of the queued records (reads go forward, but for a new
 * pass from the start).  The window moves, and grows if the queued
 * records need it, only here; with threads, into another buffer
 * (pd_jobs_window).  0, or -1 after the message. */
static int window(struct imp *m, size_t off, size_t n)
{
	size_t lo = off, cap = m->win_cap ? m->win_cap : WIN_MIN;

	if (!m->opt->fd_set || (off >= m->win_lo && off + n <= m->win_hi))
		return 0;
	if (off >= m->win_lo && off <= m->win_hi)
		lo = lowest_queued(m, off);
	lo &= ~(size_t)4095;	/* page-aligned reads */
	while (cap < 2 * (off + n - lo))
		cap *= 2;
	window_move(m, lo, cap);
	while (m->win_hi < m->len && m->win_hi - m->win_lo < m->win_cap) {
		ssize_t k = pread(m->opt->fd, m->win + (m->win_hi - m->win_lo),
				  m->win_cap - (m->win_hi - m->win_lo), (off_t)m->win_hi);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return pd_fail(m, m->win_hi, "cannot read: %s",
				       k ? strerror(errno) : "the file became shorter");
		m->win_hi += (size_t)k;
	}
	m->buf = (const uint8_t *)((uintptr_t)m->win - m->win_lo);
	return 0;
}

/* A file that perf did not finish may end inside a record: the records
 * before it are read, with a warning. */
static int partial(struct imp *m, size_t off)
{
	if (!m->unfinished)
		return 0;
	if (!(m->warned & PD_WARNED_PARTIAL))
		warnx("%s: byte %zu: the file ends inside a record; reading the records before it",
		      m->name, off);
	m->warned |= PD_WARNED_PARTIAL;
	return 1;
}

/* The record at off of the stream [.., end), checked: 0, or 1 at the end
 * of an unfinished file, or -1 after the error message. */
static int read_rec(struct imp *m, size_t off, size_t end, struct rec *rc)
{
	const uint8_t *p;
	uint64_t extra = 0;

	if (end - off < 8)
		return partial(m, off) ? 1 :
		       pd_fail(m, off, "truncated: need 8 bytes for a record header, %zu left",
			       end - off);
	if (window(m, off, 8))
		return -1;
	p = m->buf + off;
	rc->off = off;
	rc->type = get32(p);
	rc->misc = get16(p + 4);
	rc->size = get16(p + 6);
	if (rc->size < 8)
		return pd_fail(m, off + 6, "record size %u is smaller than its 8-byte header",
			       rc->size);
	if (rc->size > end - off)
		return partial(m, off) ? 1 :
		       pd_fail(m, off + 6, "record of %u bytes runs past the end of the data (%zu bytes left)",
			       rc->size, end - off);
	if (window(m, off, rc->size))
		return -1;
	p = m->buf + off;
	/* Two user records carry a payload after themselves. */
	if (rc->type == PERF_RECORD_AUXTRACE && rc->size >= 16)
		extra = get64(p + 8);
	else if (rc->type == PERF_RECORD_HEADER_TRACING_DATA && rc->size >= 12)
		extra = get32(p + 8);
	if (extra > end - off - rc->size)
		return partial(m, off) ? 1 : pd_fail(m, off + 8, "payload of %" PRIu64 " bytes runs past the end of the data (%zu bytes left)",
			    extra, end - off - rc->size);
	rc->next = off + rc->size + (size_t)extra;
	return 0;
}

/* Pass 1: what the samples need before they are read: attributes and
 * features (pipe mode), build-IDs (perf inject -b, pipe mode), event names. */
int pd_scan_records(struct imp *m, size_t off, size_t end)
{
	struct rec rc;

	for (; off < end && !m->failed; off = rc.next) {
		int r = read_rec(m, off, end, &rc);

		if (r)
			return r < 0 ? -1 : 0;
		switch (rc.type) {
		case PERF_RECORD_EVENT_UPDATE:
			m->event_updates = 1;
			break;
		case PERF_RECORD_HEADER_ATTR: {	/* pipe mode */
			struct pattr a;
			size_t asize;
			uint32_t ai = (uint32_t)m->nattrs;

			if (!m->pipe)
				break;
			asize = pd_parse_attr(m, off + 8, rc.size - 8, &a);
			if (!asize)
				return -1;
			*pd_new_attr(m) = a;
			for (size_t at = off + 8 + asize; at + 8 <= off + rc.size; at += 8)
				pd_add_id(m, get64(m->buf + at), ai);
			break;
		}
		case PERF_RECORD_HEADER_FEATURE:
			if (rc.size < 16)
				return pd_fail(m, off + 6, "feature record of %u bytes (at least 16)", rc.size);
			if (pd_process_feature(m, (int)get64(m->buf + off + 8), off + 16,
					       rc.size - 16))
				return -1;
			break;
		case PERF_RECORD_HEADER_BUILD_ID:
			if (pd_add_build_id_entry(m, off, rc.size, rc.misc))
				return -1;
			break;
		case PERF_RECORD_COMPRESSED:
			return pd_fail(m, off, "zstd-compressed records (perf record -z) are not supported; "
				       "record without -z");
		}
	}
	return m->failed ? -1 : 0;
}

/* Does pass 1 act on a record of this type (or stop at it)? */
static int pass1_record(const struct imp *m, uint32_t type)
{
	return type == PERF_RECORD_EVENT_UPDATE || type == PERF_RECORD_HEADER_FEATURE ||
	       type == PERF_RECORD_HEADER_BUILD_ID || type == PERF_RECORD_COMPRESSED ||
	       (type == PERF_RECORD_HEADER_ATTR && m->pipe);
}

/* EVENT_UPDATE name records (pipe mode) once the attributes are known. */
void pd_scan_event_names(struct imp *m, size_t off, size_t end)
{
	struct rec rc;

	for (; off < end; off = rc.next) {
		if (read_rec(m, off, end, &rc))
			return;
		if (rc.type == PERF_RECORD_EVENT_UPDATE && rc.size > 24 &&
		    get64(m->buf + off + 8) == EVENT_UPDATE_NAME) {
			int ai = pd_attr_by_id(m, get64(m->buf + off + 16));
			size_t n = strnlen((const char *)m->buf + off + 24, rc.size - 24);

			if (ai >= 0 && n) {
				char *s = xmalloc(n + 1);

				memcpy(s, m->buf + off + 24, n);
				s[n] = '\0';
				pd_set_str(&m->attrs[ai].name, s);
			}
		}
	}
}

/* The timestamp of a kernel record for ordering, or NO_TIME. */
static uint64_t rec_time(struct imp *m, const struct rec *rc)
{
	int ai = pd_attr_of(m, rc->off, rc->size, rc->type);
	const struct pattr *a;
	uint64_t st;
	size_t at;

	if (ai < 0)
		return NO_TIME;
	a = &m->attrs[ai];
	st = a->sample_type;
	if (!(st & PERF_SAMPLE_TIME))
		return NO_TIME;
	if (rc->type == PERF_RECORD_SAMPLE) {
		at = 8 + 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID));
	} else {
		size_t back = 8 * (1 + !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
				   !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_IDENTIFIER));

		if (!(a->flags & A_SAMPLE_ID_ALL) || back > rc->size - 8u)
			return NO_TIME;
		at = rc->size - back;
	}
	if (at + 8 > rc->size)
		return NO_TIME;
	return get64(m->buf + rc->off + at);
}

/* One record, in its turn. */
static void deliver(struct imp *m, const struct rec *rc)
{
	const uint8_t *p = m->buf + rc->off;

	switch (rc->type) {
	case PERF_RECORD_SAMPLE:
		if (!pd_jobs_sample(m, rc))
			pd_sample(m, rc);
		break;
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_MMAP:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		pd_jobs_change(m);
		pd_task_record(m, rc);
		break;
	case PERF_RECORD_LOST:
		if (rc->size < 24) {
			pd_fail(m, rc->off + 6, "LOST record of %u bytes (at least 24)", rc->size);
			break;
		}
		m->s.lost_records += get64(p + 16);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (rc->size < 16) {
			pd_fail(m, rc->off + 6, "LOST_SAMPLES record of %u bytes (at least 16)", rc->size);
			break;
		}
		m->s.lost_samples += get64(p + 8);
		break;
	case 0:
		m->unknown_records++;
		break;
	}
}

static int cmp_qent(const void *a, const void *b)
{
	const struct qent *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Are the queued records in order already?  Those of one CPU are, and
 * the order is total (time, then offset): sorting would change nothing. */
static int queue_sorted(const struct imp *m)
{
	for (size_t i = 1; i < m->nq; i++)
		if (cmp_qent(&m->q[i - 1], &m->q[i]) > 0)
			return 0;
	return 1;
}

/* Deliver the queued records with time <= limit, in time order. */
static void flush(struct imp *m, uint64_t limit)
{
	size_t i = 0, end;

	if (!queue_sorted(m))
		sort(m->q, m->nq, sizeof(*m->q), cmp_qent);
	for (end = 0; end < m->nq && m->q[end].time <= limit; end++)
		;
	for (; i < end && !m->failed; i++) {
		struct rec rc;

		rc.off = (size_t)m->q[i].off;
		rc.type = get32(m->buf + rc.off);
		rc.misc = get16(m->buf + rc.off + 4);
		rc.size = get16(m->buf + rc.off + 6);
		deliver(m, &rc);
	}
	if (end) {
		memmove(m->q, m->q + end, (m->nq - end) * sizeof(*m->q));
		m->nq -= end;
	}
}

/* Pass 2: the records in perf's order.  Kernel records with a timestamp
 * are queued and delivered in time order up to the time reached one
 * FINISHED_ROUND earlier (tools/perf/util/ordered-events.c); records
 * without one (time 0: synthesized at the start) are delivered at once. */
int pd_process_records(struct imp *m, size_t off, size_t end)
{
	struct rec rc;

	for (; off < end && !m->failed; off = rc.next) {
		int r = read_rec(m, off, end, &rc);

		if (r < 0)
			return -1;
		if (r)
			break;
		if (rc.type > PD_KERNEL_RECORD_MAX) {
			if (m->one_pass && pass1_record(m, rc.type)) {
				m->failed = 1;	/* the import is done again */
				return -1;
			}
			if (rc.type == PERF_RECORD_FINISHED_ROUND && m->ordered) {
				flush(m, m->next_flush);
				m->next_flush = m->max_time;
			} else if (rc.type > PD_USER_RECORD_MAX ||
				   (rc.type < PERF_RECORD_HEADER_ATTR)) {
				m->unknown_records++;
			}
			continue;
		}
		uint64_t t = m->ordered ? rec_time(m, &rc) : NO_TIME;

		if (t == NO_TIME || t == 0) {
			deliver(m, &rc);
			continue;
		}
		grow(&m->q, &m->cap_q, m->nq + 1, sizeof(*m->q));
		m->q[m->nq++] = (struct qent){ t, off };
		if (t > m->max_time)
			m->max_time = t;
	}
	if (!m->failed)
		flush(m, UINT64_MAX);
	return m->failed ? -1 : 0;
}
