/* SPDX-License-Identifier: GPL-2.0-only */
/* perf.data (written by "perf record -g", "--call-graph dwarf" or "-b") ->
 * raw profile.
 *
 * Reads the file format directly (tools/perf/Documentation/
 * perf.data-file-format.txt, include/uapi/linux/perf_event.h in the kernel):
 * the attributes, the MMAP/MMAP2, COMM, FORK and LOST records and the
 * samples, in perf's time order (the FINISHED_ROUND rule), and the
 * HEADER_BUILD_ID, HOSTNAME, OSRELEASE, VERSION, ARCH, CMDLINE, EVENT_DESC
 * and SAMPLE_TIME features.  File mode and pipe mode ("perf record -o -").
 *
 * Stacks become IP samples and caller->callee edges by the rules of
 * pgoprof-record (collector/record.c add_stack()); the copies of the user
 * stack of --call-graph dwarf (PERF_SAMPLE_REGS_USER and STACK_USER) are
 * first unwound as pgoprof-record --call-graph dwarf unwinds them
 * (proc/unwind.h), with the mappings of the file; branch stacks become
 * taken branches and the fall-through ranges between them by the rules of
 * bpf/record.bpf.c fold_branches().  docs/raw-format.md describes both.
 * These rules, the mapping -> object rule below and the counters they keep
 * are import/samples.h's, which the perf script importer shares.
 * Kernel samples (cpumode, or an IP with its top bit set) are counted as
 * unattributed.kernel and their stacks and branches left out, as there.
 *
 * Build-IDs, first found: the MMAP2 record (PERF_RECORD_MISC_MMAP_BUILD_ID,
 * trusted only if an event asked for build-IDs), HEADER_BUILD_ID (feature
 * or records, by file name), the file at that path on this machine (counted
 * in import.build_id_from_file; see no_local_files); else the object is
 * known by its path alone (RAW_ID_PATH), which convert matches by name.
 * A process gets fresh mappings at FORK (a copy of its parent's) and at
 * COMM with exec, so every process of a binary counts at its own address.
 *
 * META: tool, source (the file), host, kernel ("Linux RELEASE ARCH"),
 * recorder ("perf VERSION"), perf_cmdline, event (the events that gave
 * samples, comma-separated), sample_freq or sample_period, mode
 * ("import-lbr" for unfiltered branch records, -b; else "import-stack").
 * Counters as pgoprof-record writes them: samples.taken (samples of the
 * imported events + lost), samples.lost (PERF_RECORD_LOST and LOST_SAMPLES),
 * sideband.lost (PERF_RECORD_LOST: records of any kind), unattributed.*,
 * edges/branches/ranges.unattributed, duration_ms; and import.*:
 * unknown_records (skipped), unknown_event_id, other_event_samples
 * (--event), build_id_from_file (objects), user_stack_not_unwound
 * (--call-graph dwarf samples without user registers: IP only),
 * user_regs_foreign_arch (--call-graph dwarf samples whose registers are
 * not x86-64's, which alone are unwound: HEADER_ARCH is not "x86_64", or
 * sample_regs_user has bits x86-64 never sets, or a 32-bit process; IP
 * only, and one line on stderr says so); and, for
 * --call-graph dwarf, unwind.<reason> (unwind_end_name[]) as pgoprof-record
 * counts them; lbr_call_stack_not_used (--call-graph
 * lbr), branch_filter_no_ranges (-j with a filter: branches, no ranges),
 * mmap2_build_id_flag_ignored. */
#ifndef PGOPROF_PERFDATA_H
#define PGOPROF_PERFDATA_H

#include <stddef.h>
#include <stdint.h>
#include "../../raw/rawprof.h"

struct perfdata_options {
	/* Import only the samples of the event with this name (perf's name,
	 * from HEADER_EVENT_DESC, e.g. "cycles:u"); NULL: every event. */
	const char *event;
	/* Never read a build-ID from a file on this machine: a mapping whose
	 * build-ID is neither in an MMAP2 record nor in HEADER_BUILD_ID is
	 * known by its path alone (RAW_ID_PATH). */
	int no_local_files;
	/* fd_set: buf is the whole of the regular file open on fd.  Its
	 * data section is then read with pread() through a window of a few
	 * MiB that is used again and again, rather than from buf: peak RSS
	 * follows the records still queued for time ordering, not the
	 * file's size, and the pages of buf that hold records are never
	 * touched (a first touch of a page costs more than copying it on
	 * the virtual machines this runs on). */
	int fd_set, fd;
	/* Threads that add up the samples (import/perfdata/jobs.c); 0 or 1:
	 * the calling thread alone.  The profile is the same whatever the
	 * number. */
	int jobs;
	/* For tests: the threads of jobs post the keys of each other's
	 * share in chunks of this many (aggshare.h); 0: the default. */
	size_t share_chunk;
};

/* Import the perf.data file in buf[0..len) into p (normally empty: its
 * objects, META and counters are added to).  name is the file name for
 * messages and for the META key "source".  Every offset and count is checked
 * against the buffer.  Returns 0; or -1 after one line on stderr,
 * "PROGRAM: NAME: byte OFFSET: MESSAGE" (or without the byte offset for
 * errors that have none, such as an unknown --event), with p emptied. */
int perfdata_import(struct raw_profile *p, const uint8_t *buf, size_t len,
		    const char *name, const struct perfdata_options *opt);

/* 1 if buf starts like a perf.data file (file or pipe mode, any byte order
 * or version), else 0. */
int perfdata_probe(const uint8_t *buf, size_t len);

#endif
