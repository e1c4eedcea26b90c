/* SPDX-License-Identifier: GPL-2.0-only */
/* Source text for the hottest lines (as perf annotate --stdio shows it):
 * files read once, split into lines. */
#ifndef PGOPROF_REPORT_SOURCE_H
#define PGOPROF_REPORT_SOURCE_H

#include <stdint.h>

struct rep_sources;

struct rep_sources *rep_sources_new(void);
void rep_sources_free(struct rep_sources *s);

/* The text of line (1-based) of file, without its newline, owned by s;
 * NULL if the file cannot be read (not found: the binary was built
 * elsewhere), is larger than REP_SOURCE_MAX bytes, or is shorter.  No
 * message: the report says "source not found". */
#define REP_SOURCE_MAX (64u << 20)
const char *rep_source_line(struct rep_sources *s, const char *file,
			    uint32_t line);

#endif
