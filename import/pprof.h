/* SPDX-License-Identifier: GPL-2.0-only */
/* pprof (google/pprof's profile.proto, gzipped or not) from other
 * profilers (Go, Parca, Pyroscope, Grafana, the OpenTelemetry eBPF
 * profiler, Google Cloud Profiler) into a raw profile.  docs/pprof.md says
 * what is read and how it maps. */
#ifndef PGOPROF_IMPORT_PPROF_H
#define PGOPROF_IMPORT_PPROF_H

#include <stddef.h>
#include <stdint.h>

struct raw_profile;

/* 1 if head (len bytes: the start of a file) begins gzip data (RFC 1952
 * magic 1f 8b), else 0.  An input_probe for read_input(). */
int pprof_probe_gzip(const uint8_t *head, size_t len);
/* 1 if buf (a whole file of len bytes, not gzipped) is protobuf wire
 * format throughout (pprof_decode_cost()'s walk: nothing is unpacked)
 * with the fields of a pprof Profile's string table, starting with "",
 * and a sample type, else 0. */
int pprof_probe_proto(const uint8_t *buf, size_t len);

/* What unpacking the Profile in buf (len bytes of protobuf, not gzipped)
 * takes at its peak, in bytes: libprotobuf-c 1.x's allocations (a message
 * per entry of a repeated message field, an array per repeated field, a
 * copy of each string, its scratch while it scans) as glibc's malloc holds
 * them (16-byte granules after an 8-byte header).  Counted from the wire
 * format without allocating; UINT64_MAX if the wire format breaks.
 * pprof_import() refuses a profile whose cost is over its limit
 * (docs/pprof.md). */
uint64_t pprof_decode_cost(const uint8_t *buf, size_t len);

/* What the address of a location above the leaf is: the return address
 * (perf, eBPF profilers, pgoprof), or an address inside the call, return
 * address - 1 (Go's runtime/pprof: runtime.Frame.PC).  AUTO takes CALL
 * for a profile that looks written by Go's runtime (docs/pprof.md). */
enum pprof_callers { PPROF_CALLERS_AUTO, PPROF_CALLERS_RETURN, PPROF_CALLERS_CALL };

/* Import the pprof profile buf (len bytes, gzipped or not) into p.  Each
 * Location's address is a file offset of the object of its Mapping:
 * address - memory_start + file_offset, the object named by the Mapping's
 * build_id (hex), else by its filename (raw_path_object); a Sample's
 * locations (leaf first; a location's inline lines are one frame) go to
 * raw_add_sampled_stack() (a caller's address made a return address, see
 * callers), count = the value of the sample type named
 * sample_type (NULL: "samples" if there is one, else the first value, as
 * samples when its unit is the period's).  Samples that cannot be
 * attributed are counted in unattributed.REASON and edges.unattributed.
 * Returns 0; or -1 after one line naming the file (damaged gzip, a
 * protobuf that is no Profile, one too large to decode: its
 * pprof_decode_cost() over 32 bytes a byte of protobuf, at least 64 and
 * at most 4096 MiB, or over PGOPROF_PPROF_MAX_MIB; an index out of range,
 * no sample type of that name, a profile with function names but no
 * addresses), leaving p empty. */
int pprof_import(struct raw_profile *p, const uint8_t *buf, size_t len,
		 const char *name, const char *sample_type,
		 enum pprof_callers callers);

#endif
