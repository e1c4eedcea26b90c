/* SPDX-License-Identifier: GPL-2.0-only */
/* Executable mappings of the processes being profiled, so that a runtime
 * address of a process becomes (object, file offset). */
#ifndef PGOPROF_MAPPINGS_H
#define PGOPROF_MAPPINGS_H

#include <stdint.h>
#include <sys/types.h>
#include "../raw/rawprof.h"

/* Why an address could not be attributed; the names are the counter
 * suffixes stored in the profile ("unattributed.<name>"). */
enum unattr_reason {
	UNATTR_NONE,
	UNATTR_NO_MAPPING,	/* address outside every known mapping */
	UNATTR_ANON,		/* anonymous memory: JIT code, trampolines */
	UNATTR_NO_BUILD_ID,	/* file mapping of no known identity: no
				 * build-ID, and its bytes not read (gone,
				 * not ELF, larger than RAW_CONTENT_MAX) */
	UNATTR_MAX,
};
extern const char *const unattr_name[UNATTR_MAX];

#define MAP_NO_OBJECT UINT32_MAX

struct mapping {
	uint64_t start, end;	/* runtime virtual addresses [start, end) */
	uint64_t pgoff;		/* file offset of start */
	uint32_t obj;		/* raw profile object, or MAP_NO_OBJECT */
	uint8_t reason;		/* if obj is MAP_NO_OBJECT */
};

struct proc;

struct maptable {
	struct proc *bucket[4096];
	struct raw_profile *prof;	/* objects are added here */
	/* Build-IDs read from files, by (device, inode). */
	struct idcache *ids;
	size_t nids, cap_ids;
	uint64_t gen;	/* tells maptables apart in maps_resolve's cache */
};

void maps_init(struct maptable *t, struct raw_profile *prof);
void maps_free(struct maptable *t);

/* Add a mapping of pid.  build_id may be NULL: then it is read from the file
 * (through /proc/PID/map_files when possible, so a file deleted or replaced
 * since still gives the mapped one), cached by (dev, ino) when those are
 * non-zero; an ELF file without one is named by the MD5 of its bytes
 * (RAW_ID_CONTENT).  Later mappings shadow earlier ones at the same
 * addresses. */
void maps_add(struct maptable *t, pid_t pid, uint64_t start, uint64_t len,
	      uint64_t pgoff, const uint8_t *build_id, uint32_t build_id_len,
	      const char *path, uint64_t dev, uint64_t ino);
/* Add a mapping of pid to object obj of t->prof (MAP_NO_OBJECT: not
 * attributed; path tells why: a file, or anonymous memory). */
void maps_add_object(struct maptable *t, pid_t pid, uint64_t start,
		     uint64_t len, uint64_t pgoff, uint32_t obj, const char *path);
/* A new process starts with its parent's mappings. */
void maps_fork(struct maptable *t, pid_t parent, pid_t child);
/* Read the executable mappings of a running process from /proc/PID/maps.
 * Returns 0, or -1 if the process is gone. */
int maps_scan_proc(struct maptable *t, pid_t pid);

/* Index the mappings of every process now rather than at the next
 * maps_resolve(): until the next maps_add() or maps_fork(), maps_resolve()
 * then writes nothing that threads share, and several threads may call it
 * at once. */
void maps_index(struct maptable *t);

/* Runtime address -> (object index, file offset).  Returns UNATTR_NONE on
 * success or the reason it failed.  Its cache of last answers is the
 * calling thread's own. */
enum unattr_reason maps_resolve(const struct maptable *t, pid_t pid,
				uint64_t addr, uint32_t *obj, uint64_t *off);

/* Addresses [start, end) that resolve to object obj at file offset
 * addr + delta (mod 2^64); empty (start == end) if none are known. */
struct maps_span {
	uint64_t start, end, delta;
	uint32_t obj;
};

/* maps_resolve(), and in *span the addresses around addr that resolve
 * the same way until the next maps_add() or maps_fork() (when it fails,
 * or when the hit cache does not know them, an empty span), so that a
 * caller may resolve a run of addresses without calling again. */
enum unattr_reason maps_resolve_span(const struct maptable *t, pid_t pid,
				     uint64_t addr, uint32_t *obj, uint64_t *off,
				     struct maps_span *span);

#endif
