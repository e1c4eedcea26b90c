#include "mappings.h"
#include "buildid.h"
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

struct proc {
	pid_t pid;
	struct mapping *maps;
	size_t n, cap;
	struct proc *next;
};

struct idcache {
	uint64_t dev, ino;
	uint32_t obj;		/* MAP_NO_OBJECT if the file had no build-ID */
};

void maps_init(struct maptable *t, struct raw_profile *prof)
{
	memset(t, 0, sizeof(*t));
	t->prof = prof;
}

void maps_free(struct maptable *t)
{
	for (size_t i = 0; i < ARRAY_SIZE(t->bucket); i++) {
		struct proc *p = t->bucket[i], *next;

		for (; p; p = next) {
			next = p->next;
			free(p->maps);
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

/* Build-ID of the file behind a mapping: the mapped file itself through
 * map_files (root only), else the path it had. */
static uint32_t file_object(struct maptable *t, pid_t pid, uint64_t start,
			    uint64_t end, const char *path, uint64_t dev,
			    uint64_t ino)
{
	uint8_t id[RAW_BUILD_ID_MAX];
	uint32_t len, obj = MAP_NO_OBJECT;
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
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0) {
		if (!buildid_read_fd(fd, id, sizeof(id), &len))
			obj = raw_object(t->prof, id, len, path);
		close(fd);
	}
	if (dev || ino) {
		grow(&t->ids, &t->cap_ids, t->nids + 1, sizeof(*t->ids));
		t->ids[t->nids++] = (struct idcache){ dev, ino, obj };
	}
	return obj;
}

void maps_add(struct maptable *t, pid_t pid, uint64_t start, uint64_t len,
	      uint64_t pgoff, const uint8_t *build_id, uint32_t build_id_len,
	      const char *path, uint64_t dev, uint64_t ino)
{
	struct proc *p = get_proc(t, pid);
	struct mapping m = { start, start + len, pgoff, MAP_NO_OBJECT,
			     UNATTR_NONE };

	if (build_id && build_id_len)
		m.obj = raw_object(t->prof, build_id, build_id_len, path);
	else if (path[0] == '/')
		m.obj = file_object(t, pid, start, start + len, path, dev, ino);
	if (m.obj == MAP_NO_OBJECT)
		m.reason = path[0] == '/' ? UNATTR_NO_BUILD_ID : UNATTR_ANON;
	grow(&p->maps, &p->cap, p->n + 1, sizeof(*p->maps));
	p->maps[p->n++] = m;
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

enum unattr_reason maps_resolve(const struct maptable *t, pid_t pid,
				uint64_t addr, uint32_t *obj, uint64_t *off)
{
	const struct proc *p = find_proc(t, pid);

	if (!p)
		return UNATTR_NO_MAPPING;
	/* Newest first: a later mmap over the same range replaced it. */
	for (size_t i = p->n; i-- > 0;) {
		const struct mapping *m = &p->maps[i];

		if (addr < m->start || addr >= m->end)
			continue;
		if (m->obj == MAP_NO_OBJECT)
			return (enum unattr_reason)m->reason;
		*obj = m->obj;
		*off = addr - m->start + m->pgoff;
		return UNATTR_NONE;
	}
	return UNATTR_NO_MAPPING;
}
