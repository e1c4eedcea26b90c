/* SPDX-License-Identifier: GPL-2.0-only */
#include "mappings.h"
#include "buildid.h"
#include "../lib/md5.h"
#include "../lib/util.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

const char *const unattr_name[UNATTR_MAX] = {
	[UNATTR_NONE] = "none",
	[UNATTR_NO_MAPPING] = "no_mapping",
	[UNATTR_ANON] = "anonymous",
	[UNATTR_NO_BUILD_ID] = "no_build_id",
};

/* Where an address falls after shadowing: [start, end) is covered by
 * maps[map] and by no newer mapping. */
struct seg {
	uint64_t start, end;
	uint32_t map;
};

/* maps in the order they were added (a later one shadows an earlier one
 * where they overlap); segs: the first nindexed of them flattened into
 * disjoint segments sorted by address, so that a process with thousands
 * of mappings resolves in O(log n).  The newer ones are searched first,
 * newest first, until there are enough of them to index again. */
struct proc {
	pid_t pid;
	struct mapping *maps;
	size_t n, cap;
	struct seg *segs;
	size_t nsegs, cap_segs, nindexed;
	struct proc *next;
};

#define UNINDEXED_MAX 16

/* The last answers of this thread, by pid: addresses [hit.start,
 * hit.end) of pid in the maptable numbered gen resolve to mapping
 * hit.map while the process has n mappings (samples come in runs).  One
 * set a thread, so that threads may resolve at once (maps_index). */
#define HITS 64
struct hit {
	uint64_t gen;	/* 0: none */
	pid_t pid;
	size_t n;
	struct seg seg;
};
static _Thread_local struct hit hits[HITS];
static _Atomic uint64_t maptables;	/* maptable numbers handed out */

struct idcache {
	uint64_t dev, ino;
	uint32_t obj;		/* MAP_NO_OBJECT if the file had no build-ID */
};

void maps_init(struct maptable *t, struct raw_profile *prof)
{
	memset(t, 0, sizeof(*t));
	t->prof = prof;
	t->gen = ++maptables;
}

void maps_free(struct maptable *t)
{
	for (size_t i = 0; i < ARRAY_SIZE(t->bucket); i++) {
		struct proc *p = t->bucket[i], *next;

		for (; p; p = next) {
			next = p->next;
			free(p->maps);
			free(p->segs);
			free(p);
		}
	}
	free(t->ids);
	memset(t, 0, sizeof(*t));
}

static struct proc *find_proc(const struct maptable *t, pid_t pid)
{
	struct proc *p = t->bucket[(uint32_t)pid % ARRAY_SIZE(t->bucket)];

	while (p && p->pid != pid)
		p = p->next;
	return p;
}

static struct proc *get_proc(struct maptable *t, pid_t pid)
{
	struct proc *p = find_proc(t, pid);
	size_t b = (uint32_t)pid % ARRAY_SIZE(t->bucket);

	if (!p) {
		p = xcalloc(1, sizeof(*p));
		p->pid = pid;
		p->next = t->bucket[b];
		t->bucket[b] = p;
	}
	return p;
}

/* The object of an ELF file open on fd: by its build-ID, else (a file
 * linked without one) by the MD5 of its bytes; MAP_NO_OBJECT if it is
 * not ELF, cannot be read, or is larger than RAW_CONTENT_MAX. */
static uint32_t fd_object(struct maptable *t, int fd, const char *path)
{
	uint8_t id[RAW_BUILD_ID_MAX], magic[4];
	uint32_t len;

	if (!buildid_read_fd(fd, id, sizeof(id), &len))
		return raw_object(t->prof, id, len, path);
	if (pread(fd, magic, sizeof(magic), 0) != sizeof(magic) ||
	    memcmp(magic, "\177ELF", 4) || md5_fd(fd, RAW_CONTENT_MAX, id))
		return MAP_NO_OBJECT;
	return raw_object_id(t->prof, RAW_ID_CONTENT, id, MD5_DIGEST_LEN, path);
}

/* Object of the file behind a mapping: the mapped file itself through
 * map_files (root only), else the path it had. */
static uint32_t file_object(struct maptable *t, pid_t pid, uint64_t start,
			    uint64_t end, const char *path, uint64_t dev,
			    uint64_t ino)
{
	uint32_t obj = MAP_NO_OBJECT;
	char mf[96];
	int fd;

	if (dev || ino)
		for (size_t i = 0; i < t->nids; i++)
			if (t->ids[i].dev == dev && t->ids[i].ino == ino)
				return t->ids[i].obj;
	snprintf(mf, sizeof(mf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 (int)pid, start, end);
	fd = open(mf, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && path[0] == '/')
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd >= 0) {
		obj = fd_object(t, fd, path);
		close(fd);
	}
	if (dev || ino) {
		grow(&t->ids, &t->cap_ids, t->nids + 1, sizeof(*t->ids));
		t->ids[t->nids++] = (struct idcache){ dev, ino, obj };
	}
	return obj;
}

void maps_add_object(struct maptable *t, pid_t pid, uint64_t start,
		     uint64_t len, uint64_t pgoff, uint32_t obj, const char *path)
{
	struct proc *p = get_proc(t, pid);
	struct mapping m = { start, start + len, pgoff, obj, UNATTR_NONE };

	if (m.obj == MAP_NO_OBJECT)
		m.reason = path[0] == '/' ? UNATTR_NO_BUILD_ID : UNATTR_ANON;
	grow(&p->maps, &p->cap, p->n + 1, sizeof(*p->maps));
	p->maps[p->n++] = m;
}

void maps_add(struct maptable *t, pid_t pid, uint64_t start, uint64_t len,
	      uint64_t pgoff, const uint8_t *build_id, uint32_t build_id_len,
	      const char *path, uint64_t dev, uint64_t ino)
{
	uint32_t obj = MAP_NO_OBJECT;

	if (build_id && build_id_len)
		obj = raw_object(t->prof, build_id, build_id_len, path);
	else if (path[0] == '/')
		obj = file_object(t, pid, start, start + len, path, dev, ino);
	maps_add_object(t, pid, start, len, pgoff, obj, path);
}

void maps_fork(struct maptable *t, pid_t parent, pid_t child)
{
	struct proc *pp = find_proc(t, parent), *c;

	if (!pp || parent == child)
		return;
	c = get_proc(t, child);
	pp = find_proc(t, parent);	/* get_proc may not move it, but be safe */
	grow(&c->maps, &c->cap, c->n + pp->n, sizeof(*c->maps));
	memcpy(c->maps + c->n, pp->maps, pp->n * sizeof(*pp->maps));
	c->n += pp->n;
}

int maps_scan_proc(struct maptable *t, pid_t pid)
{
	char path[64], line[4096 + 256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		uint64_t start, end, pgoff, ino;
		unsigned maj, min;
		char perms[8];
		int name_at = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64
				 " %x:%x %" SCNu64 " %n",
			   &start, &end, perms, &pgoff, &maj, &min, &ino,
			   &name_at) < 7 || perms[2] != 'x')
			continue;
		char *name = line + name_at;
		name[strcspn(name, "\n")] = '\0';
		maps_add(t, pid, start, end - start, pgoff, NULL, 0, name,
			 makedev(maj, min), ino);
	}
	fclose(f);
	return 0;
}

struct bound {
	uint64_t at;
	uint32_t map;
	int end;
};

static int cmp_bound(const void *a, const void *b)
{
	const struct bound *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

/* Max-heap of mapping indices: the newest mapping open at the sweep. */
static void heap_push(uint32_t *h, size_t *n, uint32_t v)
{
	size_t i = (*n)++;

	for (; i && h[(i - 1) / 2] < v; i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = v;
}

static void heap_pop(uint32_t *h, size_t *n)
{
	uint32_t v = h[--*n];
	size_t i = 0;

	for (size_t c; (c = 2 * i + 1) < *n; i = c) {
		if (c + 1 < *n && h[c + 1] > h[c])
			c++;
		if (h[c] <= v)
			break;
		h[i] = h[c];
	}
	if (*n)
		h[i] = v;
}

static void add_seg(struct proc *p, uint64_t start, uint64_t end, uint32_t map)
{
	struct seg *last = p->nsegs ? &p->segs[p->nsegs - 1] : NULL;

	if (last && last->end == start && last->map == map) {
		last->end = end;
		return;
	}
	grow(&p->segs, &p->cap_segs, p->nsegs + 1, sizeof(*p->segs));
	p->segs[p->nsegs++] = (struct seg){ start, end, map };
}

/* Flatten the mappings: a sweep over their sorted bounds, where each
 * piece between two bounds goes to the newest mapping open there.
 * O(n log n). */
static void build_index(struct proc *p)
{
	struct bound *b = xcalloc(2 * p->n + 1, sizeof(*b));
	uint32_t *heap = xcalloc(p->n + 1, sizeof(*heap));
	uint8_t *open = xcalloc(p->n + 1, 1);
	size_t nb = 0, nh = 0;

	for (size_t i = 0; i < p->n; i++) {
		if (p->maps[i].start >= p->maps[i].end)
			continue;
		b[nb++] = (struct bound){ p->maps[i].start, (uint32_t)i, 0 };
		b[nb++] = (struct bound){ p->maps[i].end, (uint32_t)i, 1 };
	}
	qsort(b, nb, sizeof(*b), cmp_bound);
	p->nsegs = 0;
	for (size_t i = 0; i < nb;) {
		uint64_t at = b[i].at;

		for (; i < nb && b[i].at == at; i++) {
			open[b[i].map] = !b[i].end;
			if (!b[i].end)
				heap_push(heap, &nh, b[i].map);
		}
		while (nh && !open[heap[0]])	/* closed: removed lazily */
			heap_pop(heap, &nh);
		if (nh && i < nb)
			add_seg(p, at, b[i].at, heap[0]);
	}
	p->nindexed = p->n;
	free(b);
	free(heap);
	free(open);
}

/* Whether a mapping newer than the first `from` overlaps [start, end). */
static int shadowed(const struct proc *p, size_t from, uint64_t start, uint64_t end)
{
	for (size_t j = from; j < p->n; j++)
		if (p->maps[j].start < end && p->maps[j].end > start)
			return 1;
	return 0;
}

/* The mapping that holds addr: the unindexed newest ones first, newest
 * first (a later mmap over the same range replaced it), then the index.
 * The hit is remembered for the addresses around addr that no newer
 * mapping overlaps, where the answer is the same. */
static const struct mapping *find_mapping(const struct proc *p, uint64_t addr,
					  struct hit *h)
{
	struct seg hit;
	size_t lo = 0, hi = p->nsegs;

	for (size_t i = p->n; i-- > p->nindexed;) {
		const struct mapping *m = &p->maps[i];

		if (addr < m->start || addr >= m->end)
			continue;
		hit = (struct seg){ m->start, m->end, (uint32_t)i };
		if (!shadowed(p, i + 1, hit.start, hit.end))
			h->seg = hit, h->n = p->n;
		return m;
	}
	while (lo < hi) {	/* first segment ending after addr */
		size_t mid = lo + (hi - lo) / 2;

		if (p->segs[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == p->nsegs || p->segs[lo].start > addr)
		return NULL;
	hit = p->segs[lo];
	if (!shadowed(p, p->nindexed, hit.start, hit.end))
		h->seg = hit, h->n = p->n;
	return &p->maps[hit.map];
}

void maps_index(struct maptable *t)
{
	for (size_t i = 0; i < ARRAY_SIZE(t->bucket); i++)
		for (struct proc *p = t->bucket[i]; p; p = p->next)
			if (p->n - p->nindexed > UNINDEXED_MAX)
				build_index(p);
}

enum unattr_reason maps_resolve_span(const struct maptable *t, pid_t pid,
				     uint64_t addr, uint32_t *obj, uint64_t *off,
				     struct maps_span *span)
{
	struct proc *p = find_proc(t, pid);
	struct hit *h = &hits[(uint32_t)pid % HITS];
	const struct mapping *m = NULL;

	*span = (struct maps_span){ 0, 0, 0, 0 };
	if (!p)
		return UNATTR_NO_MAPPING;
	if (h->gen == t->gen && h->pid == pid && h->n == p->n &&
	    addr >= h->seg.start && addr < h->seg.end) {
		m = &p->maps[h->seg.map];
	} else {
		if (p->n - p->nindexed > UNINDEXED_MAX)
			build_index(p);
		*h = (struct hit){ t->gen, pid, SIZE_MAX, { 0, 0, 0 } };
		m = find_mapping(p, addr, h);
	}
	if (!m)
		return UNATTR_NO_MAPPING;
	if (m->obj == MAP_NO_OBJECT)
		return (enum unattr_reason)m->reason;
	*obj = m->obj;
	*off = addr - m->start + m->pgoff;
	if (h->n == p->n)	/* h->seg: no newer mapping overlaps it */
		*span = (struct maps_span){ h->seg.start, h->seg.end,
					    m->pgoff - m->start, m->obj };
	return UNATTR_NONE;
}

enum unattr_reason maps_resolve(const struct maptable *t, pid_t pid,
				uint64_t addr, uint32_t *obj, uint64_t *off)
{
	struct maps_span span;

	return maps_resolve_span(t, pid, addr, obj, off, &span);
}
