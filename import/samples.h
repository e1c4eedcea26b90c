/* SPDX-License-Identifier: GPL-2.0-only */
/* What the importers of perf's output share (import/perfdata/ reads
 * perf.data, import/perfscript/ the text of 'perf script'): the address
 * spaces of the recorded processes, and the rules that turn what perf
 * recorded into a raw profile, each in one place:
 *
 *  - a mapping becomes an object: the build-ID the input gives (an MMAP2
 *    record, or HEADER_BUILD_ID by file name), else the build-ID of the
 *    file at that path on this machine (unless no_local_files; counted in
 *    import.build_id_from_file), else an object known by its path alone
 *    (raw_path_object(), RAW_ID_PATH); a path that does not start with
 *    '/' ([vdso], [anon:...]) is anonymous memory;
 *  - a sample's stack (leaf first, then return addresses) becomes an IP
 *    sample and caller->callee edges, by the stack rule of
 *    raw/stackcut.h that pgoprof-record applies too (collector/record.c
 *    add_stack(), through raw_add_sampled_stack()); a sample in the
 *    kernel, its user stack under the kernel mark [kernel], as
 *    pgoprof-record keeps it;
 *  - a branch stack (newest first) becomes taken branches and the
 *    fall-through ranges between them, by the rules of bpf/record.bpf.c
 *    fold_branches() (tests/integration/lbrfold.sh compares the two);
 *  - what could not be attributed is counted by reason (unattributed.*,
 *    edges/branches/ranges.unattributed), and the counters that every
 *    import writes (samples.taken, samples.lost, sideband.lost,
 *    duration_ms) are written at the end, in samples_finish().
 *
 * Samples are added up by key in a hash table before they go into the
 * profile, so that memory grows with the distinct addresses, not with the
 * samples.  Process IDs name address spaces: a pid gets a fresh one at
 * exec (samples_exec) and a copy of its parent's at fork (samples_fork). */
#ifndef PGOPROF_IMPORT_SAMPLES_H
#define PGOPROF_IMPORT_SAMPLES_H

#include <stddef.h>
#include <stdint.h>
#include "aggtab.h"
#include "../proc/mappings.h"
#include "../raw/rawprof.h"
#include "../lib/strmap.h"

/* Little-endian reads (perf's records; branch entries below). */
static inline uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t get64(const uint8_t *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* A build-ID from HEADER_BUILD_ID or from the local file. */
struct samples_bid {
	uint8_t id[RAW_BUILD_ID_MAX];
	uint32_t len;	/* 0: the local file has none */
	int32_t pid;
	int unsized;	/* HEADER_BUILD_ID without a size: the padding is cut */
};

struct samples_pidkey;

struct samples {
	struct raw_profile *prof;
	/* Never read a build-ID from a file on this machine. */
	int no_local_files;

	/* Counters the importers keep, written by samples_finish(): the
	 * samples of the imported events (samples.taken is taken plus the
	 * two lost counts), PERF_RECORD_LOST and LOST_SAMPLES counts, the
	 * reasons a sample had no user IP, and the first and last sample
	 * times (ns; duration_ms if tmax > tmin). */
	uint64_t taken, lost_records, lost_samples;
	uint64_t kernel, guest, no_user_stack;
	uint64_t tmin, tmax;
	/* Kept by the rules below. */
	uint64_t unattr[UNATTR_MAX];
	uint64_t edges_unattr, branches_unattr, ranges_unattr;

	/* The rest is the layer's own. */
	struct strmap bid_index;	/* HEADER_BUILD_ID by file name */
	struct samples_bid *bids;
	size_t nbids, cap_bids;
	struct strmap file_index;	/* build-IDs read from local files */
	struct samples_bid *fids;
	size_t nfids, cap_fids;

	struct maptable maps;
	struct samples_pidkey *keys;
	size_t cap_keys, nkeys_used;
	int32_t next_key;

	struct aggtab agg;	/* the aggregated samples */
};

void samples_init(struct samples *s, struct raw_profile *p, int no_local_files);
void samples_free(struct samples *s);

/* ---- several threads (import/perfdata/jobs.c) ---- */

/* w: another thread's samples of the same import as main, into tables and
 * counters of its own, its stacks into stacks (an empty profile, the
 * caller's).  It reads main's address spaces, which the caller copies in
 * again (maps, keys, cap_keys) whenever they may have changed, and which
 * nobody changes while w adds samples up (maps_index()).  Freed with
 * samples_worker_free(), not samples_free(). */
void samples_worker(struct samples *w, const struct samples *main,
		    struct raw_profile *stacks);
void samples_worker_free(struct samples *w);
/* Add what w counted (its aggregated samples, stacks, counters) to dst:
 * the profile is then that of one thread that added up both.  w's
 * aggregated samples are then empty (aggtab_take: no thread may add to
 * a table of w's share any more). */
void samples_merge(struct samples *dst, struct samples *w);
/* The distinct keys (branches, ranges, IPs, edges) in s's large
 * tables. */
size_t samples_aggregated(const struct samples *s);

/* ---- address spaces ---- */

/* The key of pid's address space (the maptable's process), or 0 if pid
 * has none yet.  Keys are negative, so that the maptable never looks at
 * /proc/KEY of this machine. */
int32_t samples_key(const struct samples *s, uint32_t pid);
/* A fresh, empty address space for pid (exec); returns its key. */
int32_t samples_exec(struct samples *s, uint32_t pid);
/* A fresh, empty address space that belongs to no pid. */
int32_t samples_space(struct samples *s);
/* A new process child starts with a copy of parent's mappings. */
void samples_fork(struct samples *s, uint32_t parent, uint32_t child);

/* The build-ID of path from the input's table (HEADER_BUILD_ID); pid -1
 * is the host's entry, which wins over a guest machine's. */
void samples_header_build_id(struct samples *s, const char *path,
			     const uint8_t *id, uint32_t len, int32_t pid,
			     int unsized);

/* An executable mapping of pid (UINT32_MAX, the kernel's, is ignored),
 * into pid's address space (made if it has none).  id: the build-ID the
 * record carries (NULL or idlen 0: none), else as the rule above. */
void samples_add_mapping(struct samples *s, uint32_t pid, uint64_t start,
			 uint64_t len, uint64_t pgoff, const uint8_t *id,
			 uint32_t idlen, const char *path);
/* The same into the address space key. */
void samples_map(struct samples *s, int32_t key, uint64_t start, uint64_t len,
		 uint64_t pgoff, const uint8_t *id, uint32_t idlen,
		 const char *path);

/* Runtime address in address space key (0: none) -> (object, file
 * offset).  Returns UNATTR_NONE or why it could not. */
enum unattr_reason samples_resolve(const struct samples *s, int32_t key,
				   uint64_t addr, uint32_t *obj, uint64_t *off);

/* ---- samples ---- */

/* A sample's time (ns), for duration_ms. */
void samples_time(struct samples *s, uint64_t t);

/* One sample's user stack in address space key: ips[0] the leaf, then
 * the return addresses, n >= 1 (at most RAW_STACK_DEPTH_MAX frames are
 * used; perf gives at most MAX_STACK_DEPTH); a 0 above the leaf ends it.
 * Cut by raw_stack_cut() (raw/stackcut.h).  whole: the
 * sample carried a call chain (or a stack that was unwound), so the stack
 * is also kept whole (docs/raw-format.md section 3.5); 0 for a sample's
 * IP alone. */
void samples_add_stack(struct samples *s, int32_t key, const uint64_t *ips,
		       size_t n, int whole);
/* One sample in the kernel, by pgoprof-record's rule (collector/record.c
 * add_stack(), docs/raw-format.md section 3.5): counted in
 * unattributed.kernel; no IP sample; its user stack ips[0..n) (the user
 * IP that entered the kernel, then return addresses; n 0: none known)
 * gives edges and a stack whose leaf is the kernel mark
 * (RAW_FRAME_KERNEL), which report and diff show as [kernel]. */
void samples_add_kernel(struct samples *s, int32_t key, const uint64_t *ips,
			size_t n);

/* One sample's branch stack in address space key: n entries, newest
 * first, stride bytes apart at e, each starting with the branch's source
 * and target as little-endian u64 (perf's struct perf_branch_entry;
 * stride 24 in perf.data).  ranges: also the fall-through ranges (a stack
 * of every taken branch, not filtered). */
void samples_add_branches(struct samples *s, int32_t key, const uint8_t *e,
			  size_t n, size_t stride, int ranges);

/* The host that recorded: perf.data's HOSTNAME, OSRELEASE, VERSION, ARCH
 * and CMDLINE features (file or pipe mode), or the '#' lines "hostname",
 * "os release", "perf version", "arch" and "cmdline" of perf script
 * --header.  Each a malloc'd string (as the input has it; cmdline: the
 * arguments joined by spaces) or NULL where the input says nothing; the
 * importer owns them and frees them with perf_host_free(). */
struct perf_host {
	char *hostname, *osrelease, *version, *arch, *cmdline;
};

/* Free h's strings; h is then empty (every field NULL). */
void perf_host_free(struct perf_host *h);

/* What the input says of the recording: source, the file name; input, the
 * META "input" (NULL: none); host, the recording host (NULL: nothing
 * known).  lbr: META mode is import-lbr whatever the events say. */
struct samples_info {
	const char *source, *input;
	const struct perf_host *host;
	int lbr;
};

/* An event of the input: imported (selected) or not, the samples it gave,
 * its sampling frequency (freq) or period, if known, and whether it
 * records every taken branch (perf record -b). */
struct samples_event {
	const char *name;
	uint64_t samples, period;
	int selected, freq, period_known, lbr;
};

/* The META of an import: tool, source, input, host, kernel ("Linux
 * RELEASE ARCH"), recorder ("perf VERSION"), perf_cmdline (from
 * info->host, each where known); event: the
 * selected events that gave samples, else the first selected, with the
 * sample_freq or sample_period of the first of them; mode: import-lbr if
 * one of them records every taken branch, else import-stack. */
void samples_meta(struct raw_profile *p, const struct samples_info *info,
		  const struct samples_event *ev, size_t n);

/* Add counter name of p if n > 0 (counters written only when they are
 * not 0). */
void samples_count(struct raw_profile *p, const char *name, uint64_t n);

/* The end of an import: the aggregated samples go into the profile (and
 * their compact tables are freed), the common counters are written, objects without samples are dropped, the
 * objects whose build-ID came only from a local file are counted
 * (import.build_id_from_file), and the profile is normalized.  The
 * importer writes its META and counters of its own before. */
void samples_finish(struct samples *s);

#endif
