/* SPDX-License-Identifier: GPL-2.0-only */
/* Fuzz target: the LLVM extbinary sample profile reader
 * (convert/llvm_extbinary.c llvm_extbinary_read) and its detector.
 * Properties: no crash or sanitizer error; an accepted profile writes out
 * in every layout (plain, MD5 names, compressed), the plain one reads back
 * and writes out to the same bytes. */
#include "fuzz.h"
#include "../../convert/fstree.h"
#include "../../convert/llvm_extbinary.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct extbinary_options plain = { 0, 0 }, md5z = { 1, 1 };
	struct fs_profile p, q;
	struct fuzz_mem a, b, c;

	(void)llvm_extbinary_detect(data, size);
	fs_init(&p);
	if (llvm_extbinary_read(&p, data, size, "fuzz.extbinary")) {
		FUZZ_CHECK(p.nfuncs == 0);
		fs_free(&p);
		return 0;
	}
	FUZZ_CHECK(llvm_extbinary_write(&p, &plain, fuzz_mem_open(&a)) == 0);
	fuzz_mem_close(&a);
	fs_init(&q);
	FUZZ_CHECK(llvm_extbinary_read(&q, (const uint8_t *)a.buf, a.len, "rewritten") == 0);
	FUZZ_CHECK(llvm_extbinary_write(&q, &plain, fuzz_mem_open(&b)) == 0);
	fuzz_mem_close(&b);
	FUZZ_CHECK(a.len == b.len && !memcmp(a.buf, b.buf, a.len));
	fs_free(&q);

	FUZZ_CHECK(llvm_extbinary_write(&p, &md5z, fuzz_mem_open(&c)) == 0);
	fuzz_mem_close(&c);
	fs_init(&q);
	FUZZ_CHECK(llvm_extbinary_read(&q, (const uint8_t *)c.buf, c.len, "md5") == 0);
	FUZZ_CHECK(q.nfuncs == p.nfuncs);

	free(a.buf);
	free(b.buf);
	free(c.buf);
	fs_free(&q);
	fs_free(&p);
	return 0;
}
