/* SPDX-License-Identifier: GPL-2.0-only */
/* The body of the importer targets (fuzz_perfdata, fuzz_perfscript,
 * fuzz_pprof): the importers of perf's output share their signature; and
 * the check of what any importer made (fuzz_callgrind too).  Never reads
 * a file of this machine (no_local_files).  Properties: no crash or sanitizer
 * error; a failed import leaves the profile empty; an accepted one is a
 * raw profile that writes out and parses again.  An accepted input is
 * imported a second time with an event filter (the --event path). */
#ifndef PGOPROF_FUZZ_IMPORT_H
#define PGOPROF_FUZZ_IMPORT_H

#include "fuzz.h"
#include "../../import/perfdata/perfdata.h"
#include "../../raw/rawprof.h"

/* An imported profile writes out and parses again. */
static inline void fuzz_check_writes(struct raw_profile *p)
{
	struct raw_profile q;
	struct fuzz_mem a;

	FUZZ_CHECK(raw_write(p, fuzz_mem_open(&a)) == 0);
	fuzz_mem_close(&a);
	FUZZ_CHECK(raw_parse(&q, (const uint8_t *)a.buf, a.len, "imported") == 0);
	raw_free(&q);
	free(a.buf);
}

typedef int fuzz_importer(struct raw_profile *p, const uint8_t *buf,
			  size_t len, const char *name,
			  const struct perfdata_options *opt);

static inline int fuzz_import(const uint8_t *data, size_t size,
			      int (*probe)(const uint8_t *, size_t),
			      fuzz_importer *import, const char *name,
			      const char *event)
{
	struct perfdata_options opt = { .no_local_files = 1 };
	struct raw_profile p;

	(void)probe(data, size);
	raw_init(&p);
	if (import(&p, data, size, name, &opt)) {
		FUZZ_CHECK(p.nobjs == 0);
		raw_free(&p);
		return 0;
	}
	fuzz_check_writes(&p);
	raw_free(&p);

	opt.event = event;
	raw_init(&p);
	if (import(&p, data, size, name, &opt))
		FUZZ_CHECK(p.nobjs == 0);
	raw_free(&p);
	return 0;
}

#endif
