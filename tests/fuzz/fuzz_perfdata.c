/* Fuzz target: the perf.data importer (import/perfdata.c perfdata_import)
 * and its probe.  Never reads a file of this machine (no_local_files).
 * Properties: no crash or sanitizer error; a failed import leaves the
 * profile empty; an accepted one is a raw profile that writes out and parses
 * again.  An accepted file is imported a second time with an event filter
 * (the --event path). */
#include "fuzz.h"
#include "../../import/perfdata.h"
#include "../../raw/rawprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfdata_options opt = { .no_local_files = 1 };
	struct raw_profile p, q;
	struct fuzz_mem a;

	(void)perfdata_probe(data, size);
	raw_init(&p);
	if (perfdata_import(&p, data, size, "fuzz.data", &opt)) {
		FUZZ_CHECK(p.nobjs == 0);
		raw_free(&p);
		return 0;
	}
	FUZZ_CHECK(raw_write(&p, fuzz_mem_open(&a)) == 0);
	fuzz_mem_close(&a);
	FUZZ_CHECK(raw_parse(&q, (const uint8_t *)a.buf, a.len, "imported") == 0);
	raw_free(&q);
	free(a.buf);
	raw_free(&p);

	opt.event = "cpu-clock:u";
	raw_init(&p);
	if (perfdata_import(&p, data, size, "fuzz.data", &opt))
		FUZZ_CHECK(p.nobjs == 0);
	raw_free(&p);
	return 0;
}
