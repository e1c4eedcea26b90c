/* SPDX-License-Identifier: GPL-2.0-only */
/* Fuzz target: the callgrind reader (import/callgrind.c callgrind_add)
 * and its probe.  Properties: no crash or sanitizer error; an accepted
 * file is a raw profile that writes out and parses again.  An accepted
 * file is added a second time, as the next process of one run is (pgoprof
 * record --exact with fork: its objects are looked up again, its counts
 * added).  The paths that ob= names are opened (only regular files are),
 * as pgoprof import does: the seeds' objects are this machine's. */
#include "fuzz_import.h"
#include "../../import/callgrind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct raw_profile p;
	struct callgrind *cg;
	int rc;

	(void)callgrind_probe(data, size);
	raw_init(&p);
	cg = callgrind_new(&p);
	rc = callgrind_add(cg, data, size, "fuzz.out");
	if (!rc)
		FUZZ_CHECK(callgrind_add(cg, data, size, "fuzz.out") == 0);
	callgrind_finish(cg);
	if (!rc)
		fuzz_check_writes(&p);
	raw_free(&p);
	return 0;
}
