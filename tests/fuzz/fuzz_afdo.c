/* SPDX-License-Identifier: GPL-2.0-only */
/* Fuzz target: the GCC AutoFDO reader (convert/afdo.c afdo_read) and its
 * detector.  Properties: no crash or sanitizer error; an accepted profile
 * writes out in each layout (GCC 12+, GCC 11, LLVM's), every layout written
 * reads back, and the GCC 12 one writes out again to the same bytes. */
#include "fuzz.h"
#include "../../convert/afdo.h"
#include "../../convert/fstree.h"

#include <string.h>

/* Write p in layout version; if the writer accepted it, read it back. */
static void round_trip(const struct fs_profile *p, int version,
		       struct fuzz_mem *out)
{
	struct fs_profile q;
	int rc = afdo_write(p, version, 1, fuzz_mem_open(out));

	fuzz_mem_close(out);
	if (rc) {	/* counts over 2^63-1: refused with a message */
		free(out->buf);
		out->buf = NULL;
		return;
	}
	fs_init(&q);
	FUZZ_CHECK(afdo_read(&q, (const uint8_t *)out->buf, out->len, "rewritten") == 0);
	fs_free(&q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fs_profile p, q;
	struct fuzz_mem a, b, c, d;

	(void)afdo_detect(data, size);
	fs_init(&p);
	if (afdo_read(&p, data, size, "fuzz.afdo")) {
		FUZZ_CHECK(p.nfuncs == 0);
		fs_free(&p);
		return 0;
	}
	round_trip(&p, 1, &c);
	round_trip(&p, AFDO_VERSION_LLVM, &d);
	round_trip(&p, 2, &a);
	if (a.buf) {
		fs_init(&q);
		FUZZ_CHECK(afdo_read(&q, (const uint8_t *)a.buf, a.len, "rewritten") == 0);
		FUZZ_CHECK(afdo_write(&q, 2, 1, fuzz_mem_open(&b)) == 0);
		fuzz_mem_close(&b);
		FUZZ_CHECK(a.len == b.len && !memcmp(a.buf, b.buf, a.len));
		free(b.buf);
		fs_free(&q);
	}
	free(a.buf);
	free(c.buf);
	free(d.buf);
	fs_free(&p);
	return 0;
}
