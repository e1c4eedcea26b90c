/* SPDX-License-Identifier: GPL-2.0-only */
/* Fuzz target: the reader of the qemu engine's count files
 * (import/qemucount.c qemucount_add).  Properties: no crash or sanitizer
 * error; an accepted file is a raw profile that writes out and parses
 * again.  An accepted file is added a second time, as the image after an
 * execve is (its objects looked up again, its counts added).  The paths
 * that object lines name are opened (only regular files are), as record
 * --exact does: the seeds' objects are this machine's. */
#include "fuzz_import.h"
#include "../../import/qemucount.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct raw_profile p;
	struct qemucount *q;
	int rc;

	raw_init(&p);
	q = qemucount_new(&p);
	rc = qemucount_add(q, data, size, "fuzz.count");
	if (!rc)
		FUZZ_CHECK(qemucount_add(q, data, size, "fuzz.count") == 0);
	qemucount_finish(q);
	if (!rc)
		fuzz_check_writes(&p);
	raw_free(&p);
	return 0;
}
