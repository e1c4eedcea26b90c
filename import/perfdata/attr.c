/* SPDX-License-Identifier: GPL-2.0-only */
/* perf.data event attributes (struct perf_event_attr,
 * include/uapi/linux/perf_event.h) and which attribute a record belongs
 * to, by its event ID (perf's evlist__event2evsel, tools/perf/util/evlist.c). */
#include "internal.h"
#include "../../lib/util.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses",
	"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend", "ref-cycles",
};
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches",
	"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
};

char *pd_default_name(const struct pattr *a)
{
	char buf[64];

	if (a->type == 0 && a->config < ARRAY_SIZE(hw_names))
		return xstrdup(hw_names[a->config]);
	if (a->type == 1 && a->config < ARRAY_SIZE(sw_names))
		return xstrdup(sw_names[a->config]);
	snprintf(buf, sizeof(buf), "type %u config 0x%" PRIx64, a->type, a->config);
	return xstrdup(buf);
}

/* Parse a perf_event_attr at off, at most avail bytes; returns its size
 * (attr.size, 64 if 0), or 0 on error. */
size_t pd_parse_attr(struct imp *m, size_t off, size_t avail,
		     struct pattr *a)
{
	const uint8_t *p;
	uint32_t size;

	memset(a, 0, sizeof(*a));
	if (avail < ATTR_SIZE_VER0) {
		pd_fail(m, off, "truncated: need %d bytes for an event attribute, %zu left",
			ATTR_SIZE_VER0, avail);
		return 0;
	}
	p = m->buf + off;
	size = get32(p + 4);
	if (size == 0)
		size = ATTR_SIZE_VER0;
	if (size < ATTR_SIZE_VER0 || size > avail) {
		pd_fail(m, off + 4, "event attribute size %u is not in %d..%zu",
			size, ATTR_SIZE_VER0, avail);
		return 0;
	}
	a->type = get32(p);
	a->size = size;
	a->config = get64(p + 8);
	a->period = get64(p + 16);
	a->sample_type = get64(p + 24);
	a->read_format = get64(p + 32);
	a->flags = get64(p + 40);
	if (size >= 80)
		a->branch_type = get64(p + 72);
	if (size >= 88)
		a->regs_user = get64(p + 80);
	return size;
}

void pd_add_id(struct imp *m, uint64_t id, uint32_t attr)
{
	grow(&m->ids, &m->cap_ids, m->nids + 1, sizeof(*m->ids));
	m->ids[m->nids++] = (struct idmap){ id, attr };
	m->ids_sorted = 0;
}

static int cmp_idmap(const void *a, const void *b)
{
	const struct idmap *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->attr < y->attr ? -1 : x->attr > y->attr;
}

int pd_attr_by_id(struct imp *m, uint64_t id)
{
	size_t lo = 0, hi;

	if (!m->ids_sorted) {
		sort(m->ids, m->nids, sizeof(*m->ids), cmp_idmap);
		m->ids_sorted = 1;
	}
	hi = m->nids;
	while (lo < hi) {	/* the first entry with this id */
		size_t mid = lo + (hi - lo) / 2;

		if (m->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nids && m->ids[lo].id == id ? (int)m->ids[lo].attr : -1;
}

struct pattr *pd_new_attr(struct imp *m)
{
	grow(&m->attrs, &m->cap_attrs, m->nattrs + 1, sizeof(*m->attrs));
	return &m->attrs[m->nattrs++];
}

/* The event attribute of a record (perf's evlist__event2evsel): by the
 * IDENTIFIER or ID field when there are several.  -1: unknown ID. */
int pd_attr_of(struct imp *m, size_t off, size_t size, uint32_t type)
{
	const struct pattr *a0 = &m->attrs[0];
	uint64_t st = a0->sample_type;
	size_t at;

	if (m->nattrs == 1)
		return 0;
	if (type == PERF_RECORD_SAMPLE) {
		if (st & PERF_SAMPLE_IDENTIFIER)
			at = 8;
		else if (st & PERF_SAMPLE_ID)
			at = 8 + 8 * (!!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
				      !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR));
		else
			return 0;
	} else {
		if (!(a0->flags & A_SAMPLE_ID_ALL))
			return 0;
		if (st & PERF_SAMPLE_IDENTIFIER)
			at = 8;
		else if (st & PERF_SAMPLE_ID)
			at = 8 * (1 + !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU));
		else
			return 0;
		if (at > size - 8)
			return 0;
		at = size - at;
	}
	if (at + 8 > size)
		return -1;
	return pd_attr_by_id(m, get64(m->buf + off + at));
}
