/* SPDX-License-Identifier: GPL-2.0-only */
/* The perf.data records that change address spaces: MMAP, MMAP2 (with
 * or without a build-ID), COMM (exec), FORK and EXIT.  Layouts:
 * include/uapi/linux/perf_event.h, enum perf_event_type. */
#include "internal.h"

#include <string.h>

/* A NUL-terminated file name at off inside the record. */
static const char *rec_filename(struct imp *m, const struct rec *rc, size_t at)
{
	const char *s = (const char *)m->buf + rc->off + at;

	if (at >= rc->size || !memchr(s, 0, rc->size - at)) {
		pd_fail(m, rc->off + (at < rc->size ? at : 6),
			"file name of the mapping record is not NUL-terminated");
		return NULL;
	}
	return s;
}

/* Does an MMAP2 record carry a build-ID (instead of device and inode)?
 * The kernel sets PERF_RECORD_MISC_MMAP_BUILD_ID for every event that
 * asked for build-IDs (attr.build_id) but, at least up to 6.18, leaves the
 * flag set for the other events that receive the same mmap, whose records
 * hold device and inode: so the flag counts only if an event of the file
 * asked for build-IDs, and the size and reserved bytes make sense. */
static int mmap2_has_build_id(struct imp *m, const struct rec *rc)
{
	const uint8_t *p = m->buf + rc->off;

	if (!(rc->misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
		return 0;
	if (m->build_id_attr && p[40] >= 1 && p[40] <= 20 && !p[41] &&
	    !get16(p + 42))
		return 1;
	m->bad_build_id_flag++;
	return 0;
}

/* PERF_RECORD_MMAP2: an executable mapping, with its build-ID if
 * mmap2_has_build_id(). */
static void task_mmap2(struct imp *m, const struct rec *rc)
{
	const uint8_t *p = m->buf + rc->off;
	const char *path;
	uint32_t prot;

	if (rc->size < 73) {
		pd_fail(m, rc->off + 6, "MMAP2 record of %u bytes (at least 73)", rc->size);
		return;
	}
	path = rec_filename(m, rc, 72);
	prot = get32(p + 64);
	if (!path || !(prot & PROT_EXEC_BIT))
		return;
	if (mmap2_has_build_id(m, rc))
		samples_add_mapping(&m->s, get32(p + 8), get64(p + 16), get64(p + 24),
				    get64(p + 32), p + 44, p[40], path);
	else
		samples_add_mapping(&m->s, get32(p + 8), get64(p + 16), get64(p + 24),
				    get64(p + 32), NULL, 0, path);
	pd_invalidate(m, get32(p + 8));
}

/* PERF_RECORD_MMAP (no protection bits): every mapping but those that
 * PERF_RECORD_MISC_MMAP_DATA marks as data. */
static void task_mmap(struct imp *m, const struct rec *rc)
{
	const uint8_t *p = m->buf + rc->off;
	const char *path;

	if (rc->size < 41) {
		pd_fail(m, rc->off + 6, "MMAP record of %u bytes (at least 41)", rc->size);
		return;
	}
	path = rec_filename(m, rc, 40);
	if (path && !(rc->misc & PERF_RECORD_MISC_MMAP_DATA)) {
		samples_add_mapping(&m->s, get32(p + 8), get64(p + 16), get64(p + 24),
				    get64(p + 32), NULL, 0, path);
		pd_invalidate(m, get32(p + 8));
	}
}

/* PERF_RECORD_COMM with exec: a new address space; its mappings follow. */
static void task_comm(struct imp *m, const struct rec *rc)
{
	const uint8_t *p = m->buf + rc->off;

	if (rc->size < 16) {
		pd_fail(m, rc->off + 6, "COMM record of %u bytes (at least 16)", rc->size);
		return;
	}
	if (rc->misc & PERF_RECORD_MISC_COMM_EXEC) {
		samples_exec(&m->s, get32(p + 8));
		pd_invalidate(m, get32(p + 8));
	}
}

/* PERF_RECORD_FORK and EXIT: a new process starts with a copy of its
 * parent's mappings; a new thread shares them already. */
static void task_fork_exit(struct imp *m, const struct rec *rc)
{
	const uint8_t *p = m->buf + rc->off;

	if (rc->size < 32) {
		pd_fail(m, rc->off + 6, "%s record of %u bytes (at least 32)",
			rc->type == PERF_RECORD_FORK ? "FORK" : "EXIT", rc->size);
		return;
	}
	if (rc->type == PERF_RECORD_FORK && get32(p + 8) != get32(p + 12)) {
		samples_fork(&m->s, get32(p + 12), get32(p + 8));
		pd_invalidate(m, get32(p + 8));
	}
}

void pd_task_record(struct imp *m, const struct rec *rc)
{
	switch (rc->type) {
	case PERF_RECORD_MMAP2:
		task_mmap2(m, rc);
		break;
	case PERF_RECORD_MMAP:
		task_mmap(m, rc);
		break;
	case PERF_RECORD_COMM:
		task_comm(m, rc);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		task_fork_exit(m, rc);
		break;
	}
}
