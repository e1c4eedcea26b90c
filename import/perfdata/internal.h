/* SPDX-License-Identifier: GPL-2.0-only */
/* The perf.data importer's own header: the state that its files share
 * (import/perfdata/), and the constants of the format that
 * <linux/perf_event.h> lacks.  Not for use outside import/perfdata/: the
 * rest of the tree includes perfdata.h alone.
 *
 * The files, in the order a file is read:
 *   perfdata.c  the entry points, errors, META and counters
 *   header.c    file header, attribute table, feature sections
 *   attr.c      event attributes and the ID -> attribute map
 *   order.c     record scanning and perf's time order
 *   jobs.c      the threads that add up the samples (--jobs)
 *   task.c      MMAP/MMAP2/COMM/FORK/EXIT: the address spaces
 *   sample.c    PERF_RECORD_SAMPLE, field by field
 * All integers little-endian; big-endian files are refused. */
#ifndef PGOPROF_PERFDATA_INT_H
#define PGOPROF_PERFDATA_INT_H

#include <linux/perf_event.h>	/* PERF_RECORD_*, PERF_SAMPLE_*, ... */
#include <stddef.h>
#include <stdint.h>
#include "perfdata.h"
#include "../samples.h"
#include "../../proc/unwind.h"
#include "../../lib/bytes.h"

/* ---- constants of the file format ---- */

#define PERF_MAGIC2 0x32454c4946524550ULL	/* "PERFILE2" read as LE u64 */
#define PERF_MAGIC2_SWAPPED 0x50455246494c4532ULL
#define FILE_HEADER_SIZE 104
#define PIPE_HEADER_SIZE 16
#define ATTR_SIZE_VER0 64

/* The record types that perf synthesizes itself (user records, 64 and
 * up): not in the kernel's <linux/perf_event.h> but in perf's enum
 * perf_user_event_type, tools/lib/perf/include/perf/event.h in the kernel
 * tree. */
enum {
	PERF_RECORD_HEADER_ATTR = 64, PERF_RECORD_HEADER_EVENT_TYPE = 65,
	PERF_RECORD_HEADER_TRACING_DATA = 66, PERF_RECORD_HEADER_BUILD_ID = 67,
	PERF_RECORD_FINISHED_ROUND = 68, PERF_RECORD_ID_INDEX = 69,
	PERF_RECORD_AUXTRACE_INFO = 70, PERF_RECORD_AUXTRACE = 71,
	PERF_RECORD_AUXTRACE_ERROR = 72, PERF_RECORD_THREAD_MAP = 73,
	PERF_RECORD_CPU_MAP = 74, PERF_RECORD_STAT_CONFIG = 75,
	PERF_RECORD_STAT = 76, PERF_RECORD_STAT_ROUND = 77,
	PERF_RECORD_EVENT_UPDATE = 78, PERF_RECORD_TIME_CONV = 79,
	PERF_RECORD_HEADER_FEATURE = 80, PERF_RECORD_COMPRESSED = 81,
	PERF_RECORD_FINISHED_INIT = 82,
};

/* The last kernel record type this importer knows (types above it and
 * below PERF_RECORD_HEADER_ATTR are counted as unknown), and the last
 * user record type: fixed here rather than PERF_RECORD_MAX, which grows
 * with the installed header. */
#define PD_KERNEL_RECORD_MAX PERF_RECORD_AUX_OUTPUT_HW_ID
#define PD_USER_RECORD_MAX PERF_RECORD_FINISHED_INIT

/* HEADER_BUILD_ID entries whose build_id[20] is followed by its size
 * (perf 5.x and later): perf's PERF_RECORD_MISC_BUILD_ID_SIZE,
 * tools/lib/perf/include/perf/event.h (struct perf_record_header_build_id). */
#define PERF_RECORD_MISC_BUILD_ID_SIZE (1 << 15)

/* perf_event_attr bit fields (the u64 at byte 40): freq, sample_id_all,
 * build_id (include/uapi/linux/perf_event.h, struct perf_event_attr). */
#define A_FREQ (1ULL << 10)
#define A_SAMPLE_ID_ALL (1ULL << 18)
#define A_BUILD_ID (1ULL << 34)

#define PROT_EXEC_BIT 4

enum {	/* feature bits: HEADER_* of tools/perf/util/header.h */
	FEAT_BUILD_ID = 2, FEAT_HOSTNAME = 3, FEAT_OSRELEASE = 4,
	FEAT_VERSION = 5, FEAT_ARCH = 6, FEAT_CMDLINE = 11,
	FEAT_EVENT_DESC = 12, FEAT_SAMPLE_TIME = 21,
};

/* PERF_EVENT_UPDATE__NAME, tools/lib/perf/include/perf/event.h */
#define EVENT_UPDATE_NAME 2
#define NO_TIME UINT64_MAX

/* The user registers of --call-graph dwarf samples are unwound in x86-64's
 * layout only (collector/unwind.c unwind_regs_from_perf: enum
 * perf_event_x86_regs, arch/x86/include/uapi/asm/perf_regs.h).  A
 * sample's abi (PERF_SAMPLE_REGS_ABI_*, include/uapi/linux/perf_event.h)
 * is 64 for a 64-bit process; an x86-64 sample_regs_user sets no bit of
 * 24..31 (its registers end at PERF_REG_X86_64_MAX, 24; the XMM registers
 * start at 32), while arm64's 33 registers, riscv's 32 and powerpc's set
 * them (arch/ARCH/include/uapi/asm/perf_regs.h). */
#define REGS_ARCH "x86_64"	/* uname -m, as perf writes HEADER_ARCH */
#define REGS_NOT_X86_64 0xff000000ULL

/* ---- the importer's state ---- */

struct pattr {
	uint32_t type, size;
	uint64_t config, period, sample_type, read_format, flags, branch_type;
	uint64_t regs_user;	/* sample_regs_user: the PERF_SAMPLE_REGS_USER set */
	char *name;
	int selected;
	uint64_t samples;
};

struct idmap {
	uint64_t id;
	uint32_t attr;
};

struct qent {
	uint64_t time, off;
};

enum { PD_WARNED_NO_SIZE = 1, PD_WARNED_PARTIAL = 2 };

struct imp {
	const struct perfdata_options *opt;
	const uint8_t *buf;
	size_t len;
	const char *name;
	int failed, pipe, unfinished;
	/* The warnings of an unfinished file printed (PD_WARNED_*): said
	 * once, though the import may run again (perfdata.c import()). */
	int warned;
	/* The data section read once: pass 1's records stop the import
	 * (perfdata.c one_pass_ok). */
	int one_pass;
	/* A worker thread's view (jobs.c): failures are not
	 * printed, as the import is then done again on one thread. */
	int quiet;
	struct pd_jobs *jobs;	/* NULL: one thread */

	struct pattr *attrs;
	size_t nattrs, cap_attrs;
	struct idmap *ids;
	size_t nids, cap_ids;
	int ids_sorted;

	struct perf_host host;	/* HOSTNAME, OSRELEASE, VERSION, ARCH, CMDLINE */
	uint64_t first_time, last_time;	/* HEADER_SAMPLE_TIME */
	int have_sample_time;

	struct samples s;	/* address spaces, samples and their counters */

	int ordered, build_id_attr, event_updates;
	/* opt->fd_set: buf is moved so that buf[off] is file byte off
	 * for off in [win_lo, win_hi), which win holds (win_cap bytes). */
	uint8_t *win;
	size_t win_lo, win_hi, win_cap;
	struct qent *q;
	size_t nq, cap_q;
	uint64_t next_flush, max_time;

	uint64_t unknown_records;
	uint64_t unknown_id, other_samples, dwarf_stacks, call_stack_lbr;
	uint64_t no_ranges_filter, bad_build_id_flag;

	/* --call-graph dwarf: user stacks unwound as pgoprof-record does */
	struct unwinder *uw;
	uint64_t unwind_ends[UNWIND_END_MAX];
	uint64_t unwound;
	/* ... but not those of another architecture or a 32-bit process */
	uint64_t foreign_regs, regs32, foreign_mask;
};

/* A record of the data section, its header checked by pd_read_rec(). */
struct rec {
	size_t off;		/* the record header */
	uint32_t type;
	uint16_t misc, size;
	size_t next;		/* where the next record starts */
};

/* ---- perfdata.c: errors and readers ---- */

/* "NAME: byte OFF: message" on stderr, once per import (later calls only
 * return); sets m->failed.  Returns -1. */
int pd_fail(struct imp *m, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A reader over [off, end) of the file, with absolute offsets. */
void pd_reader(struct imp *m, struct rbuf *r, size_t off, size_t end);
/* 0, or -1 (and m->failed) if r failed: its message is printed. */
int pd_check_reader(struct imp *m, const struct rbuf *r);
/* [off, off+size) inside the file?  field is where the pair is stored,
 * for the message.  0 or -1 after pd_fail(). */
int pd_check_section(struct imp *m, size_t field, uint64_t off,
		     uint64_t size, const char *what);

/* ---- attr.c ---- */

/* perf's name of an event without one in the file ("cycles",
 * "cpu-clock", else "type T config 0xC"): malloc'd. */
char *pd_default_name(const struct pattr *a);
/* Parse a perf_event_attr at off, at most avail bytes; returns its size
 * (attr.size, 64 if 0), or 0 after pd_fail(). */
size_t pd_parse_attr(struct imp *m, size_t off, size_t avail,
		     struct pattr *a);
/* A new, uninitialized attribute at the end of m->attrs. */
struct pattr *pd_new_attr(struct imp *m);
/* Event id belongs to attribute attr. */
void pd_add_id(struct imp *m, uint64_t id, uint32_t attr);
/* The attribute of event id, or -1. */
int pd_attr_by_id(struct imp *m, uint64_t id);
/* The event attribute of a record (perf's evlist__event2evsel): by the
 * IDENTIFIER or ID field when there are several.  -1: unknown ID. */
int pd_attr_of(struct imp *m, size_t off, size_t size, uint32_t type);

/* ---- header.c ---- */

/* Replace *dst (malloc'd or NULL) by s. */
void pd_set_str(char **dst, char *s);
/* One HEADER_BUILD_ID entry (file feature or record 67) at [off,
 * off+size), misc its header's misc: given to samples_header_build_id().
 * 0, or -1 after pd_fail(). */
int pd_add_build_id_entry(struct imp *m, size_t off, size_t size,
			  uint16_t misc);
/* Feature section feat (FEAT_*) at [off, off+size); others are skipped.
 * 0, or -1 after the message. */
int pd_process_feature(struct imp *m, int feat, size_t off, size_t size);
/* The file header (tools/perf/util/header.c perf_file_header), its
 * attributes and, in file mode, its feature sections; *data_off and
 * *data_end: the data section.  0, or -1 after the message. */
int pd_read_file_header(struct imp *m, size_t *data_off, size_t *data_end);

/* ---- order.c ---- */

/* Pass 1 over [off, end): attributes and features (pipe mode),
 * HEADER_BUILD_ID records.  0, or -1 after the message. */
int pd_scan_records(struct imp *m, size_t off, size_t end);
/* EVENT_UPDATE name records (pipe mode) once the attributes are known. */
void pd_scan_event_names(struct imp *m, size_t off, size_t end);
/* Pass 2: every record of [off, end) delivered in perf's order.  0, or
 * -1 after the message.  m->one_pass: -1 also (silently) at a record
 * that pass 1 acts on. */
int pd_process_records(struct imp *m, size_t off, size_t end);

/* ---- jobs.c ---- */

/* Threads for the samples if opt->jobs asks for them and the file allows
 * (not --call-graph dwarf); the attributes must be known. */
void pd_jobs_start(struct imp *m);
/* A sample record, in its turn: 1 if it went to a batch of the threads,
 * 0 if the caller must decode it (one thread). */
int pd_jobs_sample(struct imp *m, const struct rec *rc);
/* Wait until the samples given to other threads are added up. */
void pd_jobs_drain(struct imp *m);
/* The window is to move (m->jobs set): a buffer of at least cap bytes
 * for it, other than m->win, that no batch reads.  m->win stays as it is
 * until the batches that point into it are added up.  The threads own
 * the buffers: pd_jobs_finish() frees all but the m->win of then. */
uint8_t *pd_jobs_window(struct imp *m, size_t cap);
/* An address space is about to change: pd_jobs_drain(), and the
 * mappings are indexed again before the next batch goes out. */
void pd_jobs_change(struct imp *m);
/* Before a failure of the calling thread is printed: the samples before
 * it are added up.  1 if one of them failed, so that the import is to be
 * done again on one thread (and this failure not printed). */
int pd_jobs_fail(struct imp *m);
/* The end: the threads stop, and unless m failed, what they counted is
 * added to m.  1 if a worker stopped at a sample (the import is then to
 * be done again on one thread), else 0.  Also on the error path. */
int pd_jobs_finish(struct imp *m);

/* ---- task.c ---- */

/* An MMAP, MMAP2, COMM, FORK or EXIT record: the address spaces change.
 * A record too short for its type: pd_fail(). */
void pd_task_record(struct imp *m, const struct rec *rc);

/* ---- sample.c ---- */

/* A PERF_RECORD_SAMPLE: its stack or branch stack into m->s. */
void pd_sample(struct imp *m, const struct rec *rc);
/* One line on stderr for the samples whose registers were not unwound. */
void pd_report_foreign_regs(const struct imp *m);
/* pid has new mappings, or is a new address space (fork, exec): its
 * unwinder caches go. */
void pd_invalidate(struct imp *m, uint32_t pid);

#endif
