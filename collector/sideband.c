/* SPDX-License-Identifier: GPL-2.0-only */
/* Record layouts: include/uapi/linux/perf_event.h in the kernel
 * (PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID, PERF_RECORD_FORK,
 * PERF_RECORD_LOST); ring protocol: perf_event_mmap_page data_head/data_tail. */
#include "sideband.h"
#include "../lib/util.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define RING_PAGES 128		/* 512 KiB per CPU */

struct mmap2_rec {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	union {
		struct {
			uint32_t maj, min;
			uint64_t ino, ino_generation;
		};
		struct {
			uint8_t build_id_size;
			uint8_t reserved1;
			uint16_t reserved2;
			uint8_t build_id[20];
		};
	};
	uint32_t prot, flags;
	char filename[];
};

struct fork_rec {
	struct perf_event_header h;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct lost_rec {
	struct perf_event_header h;
	uint64_t id, lost;
};

int sideband_open(struct sideband *sb, const int *cpus, int ncpus)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_TID,
		.mmap = 1,
		.mmap2 = 1,
		.comm = 1,
		.task = 1,
		.build_id = 1,
		.exclude_kernel = 1,
		.watermark = 1,
		.wakeup_watermark = 1,
	};
	long page = sysconf(_SC_PAGESIZE);

	memset(sb, 0, sizeof(*sb));
	sb->ncpus = ncpus;
	sb->fds = xcalloc(ncpus, sizeof(int));
	sb->rings = xcalloc(ncpus, sizeof(void *));
	sb->ring_bytes = (size_t)RING_PAGES * page;
	sb->scratch = xmalloc(65536);
	for (int i = 0; i < ncpus; i++) {
		sb->fds[i] = (int)syscall(SYS_perf_event_open, &a, -1, cpus[i],
					  -1, PERF_FLAG_FD_CLOEXEC);
		if (sb->fds[i] < 0) {
			int e = errno;

			sb->ncpus = i;
			sideband_close(sb);
			return err("perf_event_open(dummy side-band event, cpu %d): %s%s",
				   cpus[i], strerror(e),
				   e == EACCES || e == EPERM ?
				   " (run as root or grant CAP_PERFMON)" :
				   e == EINVAL ? " (kernel older than 5.12 lacks build-IDs in MMAP2)" : "");
		}
		sb->rings[i] = mmap(NULL, (RING_PAGES + 1) * page,
				    PROT_READ | PROT_WRITE, MAP_SHARED,
				    sb->fds[i], 0);
		if (sb->rings[i] == MAP_FAILED) {
			int e = errno;

			sb->rings[i] = NULL;
			sb->ncpus = i + 1;
			sideband_close(sb);
			return err("mmap of the side-band ring (cpu %d): %s",
				   cpus[i], strerror(e));
		}
	}
	return 0;
}

static void handle(struct sideband *sb, const struct perf_event_header *h,
		   struct maptable *t, int (*want)(uint32_t, void *), void *arg)
{
	if (h->type == PERF_RECORD_MMAP2 && h->size >= sizeof(struct mmap2_rec)) {
		const struct mmap2_rec *m = (const void *)h;
		size_t maxname = h->size - sizeof(*m);
		char name[4096];
		int has_id = h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID;

		if (!(m->prot & PROT_EXEC) || !want(m->pid, arg))
			return;
		snprintf(name, sizeof(name), "%.*s", (int)maxname, m->filename);
		maps_add(t, (pid_t)m->pid, m->addr, m->len, m->pgoff,
			 has_id ? m->build_id : NULL,
			 has_id ? (m->build_id_size > 20 ? 20 : m->build_id_size) : 0,
			 name, has_id ? 0 : ((uint64_t)m->maj << 32 | m->min),
			 has_id ? 0 : m->ino);
	} else if (h->type == PERF_RECORD_FORK && h->size >= sizeof(struct fork_rec)) {
		const struct fork_rec *f = (const void *)h;

		/* A new thread shares its process's mappings already. */
		if (f->pid != f->ppid && want(f->pid, arg))
			maps_fork(t, (pid_t)f->ppid, (pid_t)f->pid);
	} else if (h->type == PERF_RECORD_LOST && h->size >= sizeof(struct lost_rec)) {
		sb->lost += ((const struct lost_rec *)h)->lost;
	} else if (h->type != PERF_RECORD_COMM && h->type != PERF_RECORD_EXIT &&
		   h->type != PERF_RECORD_MMAP) {
		sb->unknown++;
	}
}

void sideband_drain(struct sideband *sb, struct maptable *t,
		    int (*want)(uint32_t pid, void *arg), void *arg)
{
	long page = sysconf(_SC_PAGESIZE);

	for (int i = 0; i < sb->ncpus; i++) {
		struct perf_event_mmap_page *meta = sb->rings[i];
		uint8_t *data = (uint8_t *)meta + page;
		uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
		uint64_t tail = meta->data_tail;

		while (tail < head) {
			size_t at = tail % sb->ring_bytes;
			struct perf_event_header *h = (void *)(data + at);
			size_t size = h->size;

			if (size < sizeof(*h) || size > head - tail)
				break;	/* corrupt: cannot happen, do not loop */
			if (at + size > sb->ring_bytes) {
				size_t first = sb->ring_bytes - at;

				memcpy(sb->scratch, data + at, first);
				memcpy(sb->scratch + first, data, size - first);
				h = (void *)sb->scratch;
			}
			handle(sb, h, t, want, arg);
			tail += size;
		}
		__atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
	}
}

void sideband_close(struct sideband *sb)
{
	long page = sysconf(_SC_PAGESIZE);

	for (int i = 0; i < sb->ncpus; i++) {
		if (sb->rings && sb->rings[i])
			munmap(sb->rings[i], (RING_PAGES + 1) * page);
		if (sb->fds[i] >= 0)
			close(sb->fds[i]);
	}
	free(sb->fds);
	free(sb->rings);
	free(sb->scratch);
	memset(sb, 0, sizeof(*sb));
}
