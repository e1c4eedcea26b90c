/* SPDX-License-Identifier: GPL-2.0-only */
/* Fuzz target: the LLVM text sample profile reader (convert/llvm_text.c
 * llvm_text_read) and its detector.  Properties: no crash or sanitizer
 * error; an accepted profile is left consistent for the writers and
 * fs_merge; what llvm_text_write makes of it reads back and writes out to
 * the same bytes. */
#include "fuzz.h"
#include "../../convert/fstree.h"
#include "../../convert/llvm_text.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fs_profile p, q, m;
	struct fuzz_mem a, b;

	(void)llvm_text_detect(data, size);
	fs_init(&p);
	if (llvm_text_read(&p, (const char *)data, size, "fuzz.prof")) {
		FUZZ_CHECK(p.nfuncs == 0);
		fs_free(&p);
		return 0;
	}
	FUZZ_CHECK(llvm_text_write(&p, fuzz_mem_open(&a)) == 0);
	fuzz_mem_close(&a);
	fs_init(&q);
	FUZZ_CHECK(llvm_text_read(&q, a.buf, a.len, "rewritten") == 0);
	FUZZ_CHECK(llvm_text_write(&q, fuzz_mem_open(&b)) == 0);
	fuzz_mem_close(&b);
	FUZZ_CHECK(a.len == b.len && !memcmp(a.buf, b.buf, a.len));

	fs_init(&m);
	fs_merge(&m, &p, 1);
	fs_merge(&m, &q, 2);
	fs_finish(&m);
	(void)fs_max_count(&m);
	fs_scale(&m, 1000, 7);
	fs_drop_zero_totals(&m);

	free(a.buf);
	free(b.buf);
	fs_free(&m);
	fs_free(&q);
	fs_free(&p);
	return 0;
}
