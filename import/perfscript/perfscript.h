/* SPDX-License-Identifier: GPL-2.0-only */
/* The text of 'perf script' -> raw profile: what llvm-profgen reads
 * (perf script -F ip,brstack --show-mmap-events, of perf record -b) and
 * the call chains of perf record -g (perf script -F pid,tid,ip,sym,dso
 * --show-mmap-events, with or without comm, cpu, time, period, event),
 * to the same raw profile as the import of the perf.data it came from:
 * the rules are import/samples.h's, which import/perfdata/ uses too.
 *
 * Lines, each checked (docs/raw-format.md, "perf script text"):
 *  - PERF_RECORD_MMAP2 / PERF_RECORD_MMAP (required: --show-mmap-events):
 *    the executable mappings; a build-ID in the brackets (perf prints it
 *    for a file recorded with --buildid-mmap) names the object, else the
 *    rule of samples_map();
 *  - PERF_RECORD_COMM exec and PERF_RECORD_FORK (--show-task-events):
 *    a fresh address space at exec, a copy of the parent's at fork;
 *    PERF_RECORD_LOST (--show-lost-events): samples.lost; other
 *    PERF_RECORD_* lines are skipped;
 *  - a sample: the fields before its address (comm, pid/tid or pid, [cpu],
 *    time:, as in the PERF_RECORD lines; then period and event:), then
 *    either its ip (with sym and (dso)) and its branch stack
 *    (0xFROM/0xTO/... entries), on one line, or its call chain, a frame a
 *    line ("\tADDRESS sym (dso)"), then an empty line or the branch stack
 *    (a line "IP 0xFROM/0xTO/..." may have no fields before it, as text
 *    written for llvm-profgen has);
 *  - '#' lines (perf script --header): host, kernel, perf version, command
 *    line, events and sample times, for META and duration_ms.
 * Call-chain frames of user objects are DSO offsets in perf 6.3 and older,
 * addresses in later perf: each frame is read as what it can be in the
 * mappings of its dso (the 'dso' field is needed for the former).
 * Without pid, every sample is in one address space made of every
 * mapping, as llvm-profgen does. */
#ifndef PGOPROF_PERFSCRIPT_H
#define PGOPROF_PERFSCRIPT_H

#include <stddef.h>
#include <stdint.h>
#include "../perfdata/perfdata.h"
#include "../../raw/rawprof.h"

/* Import the text in buf[0..len) into p (normally empty), with the
 * options of perfdata_import (fd_set and jobs are not used).  name is the
 * file name for messages and for META "source".  Returns 0; or -1 after
 * one line on stderr, "PROGRAM: NAME: line N: MESSAGE" (or without the
 * line for what has none), with p emptied. */
int perfscript_import(struct raw_profile *p, const uint8_t *buf, size_t len,
		      const char *name, const struct perfdata_options *opt);

/* 1 if the head of a file (its first INPUT_HEAD bytes) looks like the
 * output of perf script: text, with a PERF_RECORD_ line, a call-chain
 * frame or a branch stack among its first lines; else 0. */
int perfscript_probe(const uint8_t *buf, size_t len);

#endif
