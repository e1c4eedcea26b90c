/* SPDX-License-Identifier: GPL-2.0-only */
/* Fuzz target: the raw profile reader (raw/rawio.c raw_parse), and what
 * pgoprof does next with a profile it accepted: print, merge, write.
 * Properties: no crash or sanitizer error; an accepted profile writes out
 * as a file that parses again and writes out to the same bytes. */
#include "fuzz.h"
#include "../../raw/rawprof.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct raw_profile p, q, m;
	struct fuzz_mem a, b, t;

	if (raw_parse(&p, data, size, "fuzz.raw")) {
		FUZZ_CHECK(p.nobjs == 0 && p.nmeta == 0 && p.ncounters == 0);
		raw_free(&p);
		return 0;
	}
	raw_print(&p, fuzz_mem_open(&t));
	fuzz_mem_close(&t);
	free(t.buf);

	FUZZ_CHECK(raw_write(&p, fuzz_mem_open(&a)) == 0);
	fuzz_mem_close(&a);
	FUZZ_CHECK(raw_parse(&q, (const uint8_t *)a.buf, a.len, "rewritten") == 0);
	FUZZ_CHECK(raw_write(&q, fuzz_mem_open(&b)) == 0);
	fuzz_mem_close(&b);
	FUZZ_CHECK(a.len == b.len && !memcmp(a.buf, b.buf, a.len));

	raw_init(&m);
	raw_merge(&m, &p, 1);
	raw_merge(&m, &q, 3);
	raw_drop_empty_objects(&m);
	raw_normalize(&m);

	free(a.buf);
	free(b.buf);
	raw_free(&m);
	raw_free(&q);
	raw_free(&p);
	return 0;
}
