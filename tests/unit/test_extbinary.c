/* SPDX-License-Identifier: GPL-2.0-only */
/* The LLVM extbinary writer and reader: byte-identical to
 * `llvm-profdata-16 merge --sample --extbinary` (plain, --use-md5,
 * --compress-all-sections), round trips, and one clean error line (never a
 * crash) for every kind of damage.
 *
 * Hooks for tests/integration/extbinary.sh:
 *   test_extbinary --write-demo OUT.txt OUT.extbin   profile for hot.c
 *   test_extbinary --rewrite IN OUT [md5] [compress] read IN, write OUT
 *   test_extbinary --text IN                         read IN, print text */
#include "check.h"
#include "testutil.h"
#include "../../convert/fstree.h"
#include "../../convert/llvm_extbinary.h"
#include "../../convert/llvm_text.h"
#include "../../lib/util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROFDATA "llvm-profdata-16"

static char tmpdir[] = "/tmp/test_extbinary.XXXXXX";
static int have_profdata;

/* ---- helpers ---- */

static char *path(const char *name)
{
	static char buf[8][512];
	static int k;
	char *p = buf[k++ % 8];

	snprintf(p, sizeof(buf[0]), "%s/%s", tmpdir, name);
	return p;
}

static uint8_t *slurp(const char *file, size_t *len)
{
	*len = 0;
	return (uint8_t *)read_whole_file(file, len);
}

static uint8_t *ext_of(const struct fs_profile *p, int md5, int compress,
		       size_t *len)
{
	struct extbinary_options o = { md5, compress };
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	CHECK(llvm_extbinary_write(p, &o, f) == 0);
	fclose(f);
	return (uint8_t *)buf;
}

static int write_file(const char *file, const void *data, size_t len)
{
	FILE *f = fopen(file, "wb");
	int ok = f && fwrite(data, 1, len, f) == len;

	if (f && fclose(f))
		ok = 0;
	return ok ? 0 : -1;
}

/* Read buf, with stderr captured into msg (the error lines). */
static int read_capture(struct fs_profile *p, const uint8_t *buf, size_t len,
			const char *name, char *msg, size_t msgsize)
{
	int saved = dup(2), fd = open(path("stderr.txt"),
				      O_RDWR | O_CREAT | O_TRUNC, 0600);
	ssize_t n;
	int rc;

	fflush(stderr);
	dup2(fd, 2);
	rc = llvm_extbinary_read(p, buf, len, name);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, msg, msgsize - 1, 0);
	msg[n > 0 ? n : 0] = '\0';
	close(fd);
	return rc;
}

/* A failed read: -1, an empty profile, one line naming the file and a
 * byte offset. */
static int clean_failure(const uint8_t *buf, size_t len, const char *expect)
{
	struct fs_profile p;
	char msg[1024];
	int rc, ok;

	fs_init(&p);
	rc = read_capture(&p, buf, len, "bad.extbin", msg, sizeof(msg));
	ok = rc == -1 && p.nfuncs == 0 && p.funcs == NULL &&
	     count_lines(msg) == 1 && strstr(msg, "bad.extbin") &&
	     strstr(msg, ": byte ") && (!expect || strstr(msg, expect));
	if (!ok)
		printf("  rc %d, %zu functions, message: %s", rc, p.nfuncs,
		       msg[0] ? msg : "(none)\n");
	fs_free(&p);
	return ok;
}

/* ---- profiles ---- */

static void profile_basic(struct fs_profile *p)
{
	struct fsamples *f, *in;

	fs_init(p);
	f = fs_function(p, "main");
	fs_add_body(f, 3, 0, 10);
	fs_add_body(f, 1, 0, 5);
	fs_add_target(f, 4, 2, "foo", 7);
	fs_add_target(f, 4, 2, "bar", 9);
	fs_add_target(f, 4, 2, "baz", 7);
	f->head = 4;
	in = fs_inlinee(f, 5, 0, "inl");
	fs_add_body(in, 1, 3, 20);
	fs_add_body(fs_inlinee(in, 2, 0, "deep"), 0, 0, 6);
	fs_add_body(fs_inlinee(f, 5, 0, "alt"), 1, 0, 2);	/* same site */
	fs_add_body(fs_function(p, "other"), 0, 0, 1);
	fs_add_body(fs_function(p, "aaa"), 0, 0, 1);		/* tie */
	fs_finish(p);
}

/* Many functions, ties, zero counts, big numbers, long and mangled names,
 * discriminators, several levels of inlining: enough bytes that offsets and
 * counts need multi-byte LEB128. */
static void profile_big(struct fs_profile *p)
{
	static const char *callees[] = {
		"_ZN4llvm5APInt4sdivERKS0_", "memcpy", "_Z3fooi", "zz_last",
		"_ZNSt6vectorIiSaIiEE9push_backERKi", "a", "A", "_",
	};
	uint64_t x = 0x9e3779b97f4a7c15u;
	char name[64];

	fs_init(p);
	for (int i = 0; i < 300; i++) {
		struct fsamples *f;

		snprintf(name, sizeof(name), i % 3 ? "fn_%03d" : "_ZN2ns%dfEv",
			 i / 2);	/* two records per name: merged */
		f = fs_function(p, name);
		f->head += (uint64_t)(i % 7) * 1000;
		for (int j = 0; j < 1 + i % 9; j++) {
			x = x * 6364136223846793005u + 1442695040888963407u;
			fs_add_body(f, (uint32_t)(x >> 48) % 200,
				    (uint32_t)(x >> 20) % 5 ? 0 : (uint32_t)(x >> 8),
				    i % 11 == 0 ? 0 : (x >> 33) % 100000);
			if (j % 3 == 1)
				fs_add_target(f, (uint32_t)j, 0,
					      callees[(x >> 7) % 8],
					      (x >> 40) % 1000);
		}
		if (i % 5 == 0) {
			struct fsamples *in = fs_inlinee(f, 12, i % 2 ? 0 : 4096,
							  callees[i % 8]);

			fs_add_body(in, 1, 0, (uint64_t)i * 12345);
			fs_add_target(in, 2, 1, "memcpy", 3);
			in = fs_inlinee(in, 3, 0, "_Z3bari");
			fs_add_body(in, 0, 0, 1ull << 40);	/* big */
			fs_add_body(fs_inlinee(in, 65535, 4294967295u, "leaf"),
				    65535, 4294967295u, 7);
		}
	}
	/* Exact ties in total, different heads. */
	fs_add_body(fs_function(p, "tie_b"), 0, 0, 5000);
	fs_add_body(fs_function(p, "tie_a"), 0, 0, 5000);
	fs_function(p, "tie_a")->head = 9;
	fs_finish(p);
}

static void profile_uniq(struct fs_profile *p)
{
	struct fsamples *f;

	fs_init(p);
	f = fs_function(p, "_ZL3foov.__uniq.123456789");
	fs_add_body(f, 1, 0, 100);
	fs_add_target(f, 2, 0, "bar.llvm.42", 3);
	fs_add_body(fs_function(p, "baz"), 0, 0, 1);
	fs_finish(p);
}

/* Corner cases: counts whose sums wrap in LLVM's 64-bit summary, a function
 * without records, functions with only call sites, an inlinee without
 * records, names that sort differently signed and unsigned. */
static void profile_odd(struct fs_profile *p)
{
	struct fsamples *f;

	fs_init(p);
	f = fs_function(p, "huge");
	fs_add_body(f, 1, 0, UINT64_MAX - 5);
	fs_add_body(f, 2, 0, 3);
	fs_add_target(f, 3, 0, "\xc3\xbc_callee", UINT64_MAX);
	f = fs_function(p, "huge2");
	fs_add_body(f, 1, 0, UINT64_MAX / 2);
	fs_add_body(fs_function(p, "\xc3\xa9t\xc3\xa9"), 1, 0, 1);
	fs_function(p, "nothing")->head = 7;
	f = fs_function(p, "only_sites");
	fs_add_body(fs_inlinee(f, 1, 0, "g"), 1, 0, 9);
	fs_inlinee(fs_inlinee(f, 1, 0, "g"), 2, 0, "empty_inlinee");
	fs_add_body(fs_inlinee(f, 1, 7, "g"), 1, 0, 9);
	fs_finish(p);
}

/* hot.c (tests/workloads): offsets from the decl lines of hot_loop (21),
 * mix (12) and main (38). */
static void profile_hot(struct fs_profile *p)
{
	struct fsamples *f, *m;

	fs_init(p);
	f = fs_function(p, "hot_loop");
	f->head = 20;
	fs_add_body(f, 2, 0, 20);
	fs_add_body(f, 4, 0, 5000);
	fs_add_body(f, 4, 2, 4800);
	fs_add_body(f, 6, 0, 5000);
	fs_add_body(f, 7, 0, 20);
	fs_add_body(f, 9, 0, 20);
	m = fs_inlinee(f, 5, 0, "mix");
	fs_add_body(m, 3, 0, 5000);
	fs_add_body(m, 4, 0, 5000);
	fs_add_body(m, 5, 0, 5000);
	fs_add_body(m, 6, 0, 5000);
	f = fs_function(p, "main");
	f->head = 1;
	fs_add_body(f, 2, 0, 1);
	fs_add_body(f, 6, 0, 21);
	fs_add_target(f, 7, 0, "hot_loop", 20);
	fs_add_body(f, 8, 0, 2000);
	fs_add_body(f, 8, 2, 1900);
	fs_add_target(f, 9, 0, "lib_mix", 2000);
	fs_add_body(f, 10, 0, 20);
	fs_add_target(f, 11, 0, "cold_path", 3);
	f = fs_function(p, "cold_path");
	f->head = 3;
	fs_add_body(f, 2, 0, 3);
	fs_finish(p);
}

/* f0 -> f1 -> ... inlined depth levels deep. */
static void profile_deep(struct fs_profile *p, int depth)
{
	struct fsamples *f;
	char name[32];

	fs_init(p);
	f = fs_function(p, "top");
	for (int i = 0; i < depth; i++) {
		fs_add_body(f, 1, 0, 1);
		snprintf(name, sizeof(name), "f%d", i);
		f = fs_inlinee(f, 2, 0, name);
	}
	fs_add_body(f, 1, 0, 1);
	fs_finish(p);
}

/* ---- against llvm-profdata ---- */

/* Our bytes against llvm-profdata's for the same profile in text. */
static int same_as_llvm(const struct fs_profile *p, const char *tag, int md5,
			int compress)
{
	char cmd[2048];
	uint8_t *ours, *ref;
	size_t olen, rlen;
	char *text = profile_text(p);
	int same;

	write_file(path("in.txt"), text, strlen(text));
	free(text);
	snprintf(cmd, sizeof(cmd),
		 PROFDATA " merge --sample --extbinary%s%s -o %s %s",
		 md5 ? " --use-md5" : "",
		 compress ? " --compress-all-sections" : "", path("ref.extbin"),
		 path("in.txt"));
	unlink(path("ref.extbin"));
	if (system(cmd) != 0) {
		printf("  %s: '%s' failed\n", tag, cmd);
		return 0;
	}
	ours = ext_of(p, md5, compress, &olen);
	ref = slurp(path("ref.extbin"), &rlen);
	same = ref && olen == rlen && !memcmp(ours, ref, olen);
	if (!same) {
		size_t i = 0;

		while (ref && i < olen && i < rlen && ours[i] == ref[i])
			i++;
		printf("  %s (md5 %d, compress %d): %zu bytes vs llvm's %zu, "
		       "first difference at byte %zu\n", tag, md5, compress,
		       olen, rlen, i);
		write_file(path("ours.extbin"), ours, olen);
	}
	free(ours);
	free(ref);
	return same;
}

static int need_profdata(void)
{
	if (!have_profdata)
		printf("  " PROFDATA " is not installed\n");
	return have_profdata;
}

static void check_identical(void (*build)(struct fs_profile *), const char *tag)
{
	struct fs_profile p;

	build(&p);
	for (int md5 = 0; md5 <= 1; md5++)
		for (int z = 0; z <= 1; z++)
			CHECK(same_as_llvm(&p, tag, md5, z));
	fs_free(&p);
}

static void empty_profile(struct fs_profile *p)
{
	fs_init(p);
	fs_finish(p);
}

static void test_identical_basic(void)
{
	if (need_profdata())
		check_identical(profile_basic, "basic");
	else
		CHECK(0);
}

static void test_identical_big(void)
{
	if (need_profdata())
		check_identical(profile_big, "big");
	else
		CHECK(0);
}

static void test_identical_more(void)
{
	if (!need_profdata()) {
		CHECK(0);
		return;
	}
	check_identical(profile_uniq, "uniq");
	check_identical(profile_hot, "hot");
	check_identical(profile_odd, "odd");
	/* (An empty profile cannot be compared: llvm-profdata does not read
	 * an empty text file.) */
}

/* The exact bytes of a small profile, so that the format is pinned down
 * even where llvm-profdata is missing. */
static void test_exact_bytes(void)
{
	static const uint8_t expect[] = {
		0x84, 0xe4, 0xd0, 0xb1, 0xf4, 0xc9, 0x94, 0xa8, 0x53, 0x67,
	};
	struct fs_profile p;
	uint8_t *b;
	size_t len;

	fs_init(&p);
	fs_add_body(fs_function(&p, "f"), 1, 0, 3);
	fs_finish(&p);
	b = ext_of(&p, 0, 0, &len);
	CHECK(len > 242 && !memcmp(b, expect, sizeof(expect)));
	CHECK(llvm_extbinary_detect(b, len));
	CHECK(!llvm_extbinary_detect(b, 8));
	CHECK(b[10] == 7 && b[18] == 1 && b[50] == 2);	/* count, types */
	/* Summary at 242: total 3, max 3, max head 0, 1 count, 1 function,
	 * 16 entries: 1% of 3 is 0 samples, so the first is {10000, 0, 0};
	 * the last {999999, 3, 1}. */
	CHECK(!memcmp(b + 242, "\x03\x03\x00\x01\x01\x10\x90\x4e\x00\x00", 10));
	CHECK(memmem(b + 242, len - 242, "\xbf\x84\x3d\x03\x01" "\x01" "f", 7));
	/* The file ends with the offset table: 1 entry, name 0 at 0. */
	CHECK(!memcmp(b + len - 3, "\x01\x00\x00", 3));
	free(b);
	fs_free(&p);
}

/* ---- round trips ---- */

static void check_round_trip(void (*build)(struct fs_profile *), const char *tag)
{
	struct fs_profile p, q;

	build(&p);
	for (int z = 0; z <= 1; z++) {
		size_t len;
		uint8_t *b = ext_of(&p, 0, z, &len);
		char *t1 = profile_text(&p), *t2;

		fs_init(&q);
		CHECK(llvm_extbinary_read(&q, b, len, tag) == 0);
		t2 = profile_text(&q);
		CHECK(!strcmp(t1, t2));
		if (strcmp(t1, t2))
			printf("  %s (compress %d): text differs after round "
			       "trip\n", tag, z);
		free(t2);
		/* And written again: the same bytes. */
		{
			size_t len2;
			uint8_t *b2 = ext_of(&q, 0, z, &len2);

			CHECK(len2 == len && !memcmp(b, b2, len));
			free(b2);
		}
		fs_free(&q);
		free(t1);
		free(b);
	}
	fs_free(&p);
}

static void test_round_trip(void)
{
	check_round_trip(profile_basic, "basic");
	check_round_trip(profile_big, "big");
	check_round_trip(profile_uniq, "uniq");
	check_round_trip(profile_hot, "hot");
	check_round_trip(profile_odd, "odd");
	check_round_trip(empty_profile, "empty");
}

/* MD5 names come back as the decimal numbers llvm-profdata prints; written
 * with MD5 again they keep their values. */
static void test_md5_round_trip(void)
{
	struct fs_profile p, q, r;
	uint8_t *b, *b2;
	size_t len, len2;
	char *t;

	profile_basic(&p);
	b = ext_of(&p, 1, 0, &len);
	fs_init(&q);
	CHECK(llvm_extbinary_read(&q, b, len, "md5") == 0);
	t = profile_text(&q);
	/* MD5("main") = 9ad8...; LLVM's low word, printed in decimal. */
	CHECK(strstr(t, "15822663052811949562:43:4\n") == t);
	CHECK(strstr(t, " 4.2: 0 16434608426314478903:9 "
			"6699318081062747564:7 7546896869197086323:7\n"));
	if (have_profdata) {
		char cmd[1024];
		size_t tl;
		char *ref;

		write_file(path("md5.extbin"), b, len);
		snprintf(cmd, sizeof(cmd), PROFDATA " merge --sample --text "
			 "-o %s %s", path("md5.txt"), path("md5.extbin"));
		CHECK(system(cmd) == 0);
		ref = (char *)slurp(path("md5.txt"), &tl);
		CHECK(ref && tl == strlen(t) && !memcmp(ref, t, tl));
		free(ref);
	}
	/* Written with MD5 again: the same hashes, so the same profile. */
	b2 = ext_of(&q, 1, 1, &len2);
	fs_init(&r);
	CHECK(llvm_extbinary_read(&r, b2, len2, "md5-2") == 0);
	{
		char *t2 = profile_text(&r);

		CHECK(!strcmp(t, t2));
		free(t2);
	}
	free(t);
	free(b);
	free(b2);
	fs_free(&p);
	fs_free(&q);
	fs_free(&r);
}

/* Files llvm-profdata wrote, read by us: the same text as llvm-profdata's
 * own text output. */
static void test_read_llvm_files(void)
{
	struct fs_profile p, q;
	static const char *flags[] = { "", " --use-md5", " --compress-all-sections",
				       " --use-md5 --compress-all-sections" };

	if (!need_profdata()) {
		CHECK(0);
		return;
	}
	profile_big(&p);
	{
		char *t = profile_text(&p);

		write_file(path("big.txt"), t, strlen(t));
		free(t);
	}
	for (size_t i = 0; i < ARRAY_SIZE(flags); i++) {
		char cmd[2048];
		uint8_t *b;
		char *ref, *ours;
		size_t len, tl;

		snprintf(cmd, sizeof(cmd),
			 PROFDATA " merge --sample --extbinary%s -o %s %s && "
			 PROFDATA " merge --sample --text -o %s %s", flags[i],
			 path("l.extbin"), path("big.txt"), path("l.txt"),
			 path("l.extbin"));
		CHECK(system(cmd) == 0);
		b = slurp(path("l.extbin"), &len);
		fs_init(&q);
		CHECK(b && llvm_extbinary_read(&q, b, len, "l.extbin") == 0);
		ours = profile_text(&q);
		ref = (char *)slurp(path("l.txt"), &tl);
		CHECK(ref && tl == strlen(ours) && !memcmp(ref, ours, tl));
		if (!ref || tl != strlen(ours) || memcmp(ref, ours, tl))
			printf("  %s: our text differs from llvm-profdata's\n",
			       flags[i]);
		free(ours);
		free(ref);
		free(b);
		fs_free(&q);
	}
	fs_free(&p);
}

/* Hand-made files. */
struct fb {
	uint8_t *d;
	size_t len, cap;
};

static void fb_bytes(struct fb *b, const void *p, size_t n)
{
	grow(&b->d, &b->cap, b->len + n, 1);
	memcpy(b->d + b->len, p, n);
	b->len += n;
}

static void fb_uleb(struct fb *b, uint64_t v)
{
	do {
		uint8_t x = (v & 0x7f) | (v > 0x7f ? 0x80 : 0);

		fb_bytes(b, &x, 1);
		v >>= 7;
	} while (v);
}

static void fb_u64(struct fb *b, uint64_t v)
{
	for (int i = 0; i < 8; i++) {
		uint8_t x = (uint8_t)(v >> (8 * i));

		fb_bytes(b, &x, 1);
	}
}

static void put_u64(uint8_t *at, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		at[i] = (uint8_t)(v >> (8 * i));
}

/* A file of sections given as (type, bytes): header, then the sections. */
struct sec {
	uint64_t type, flags;
	const struct fb *data;
};

static struct fb make_file(const struct sec *s, int n)
{
	struct fb f = { 0 };
	size_t pos;

	fb_uleb(&f, 0x5350524f46343204u);
	fb_uleb(&f, 103);
	fb_u64(&f, (uint64_t)n);
	pos = f.len + 32 * (size_t)n;
	for (int i = 0; i < n; i++) {
		fb_u64(&f, s[i].type);
		fb_u64(&f, s[i].flags);
		fb_u64(&f, pos);
		fb_u64(&f, s[i].data->len);
		pos += s[i].data->len;
	}
	for (int i = 0; i < n; i++)
		fb_bytes(&f, s[i].data->d, s[i].data->len);
	return f;
}

static void test_nesting_limit(void)
{
	struct fs_profile p, q;
	uint8_t *b;
	size_t len;

	profile_deep(&p, 64);		/* 64 levels of inlining: fine */
	b = ext_of(&p, 0, 0, &len);
	fs_init(&q);
	CHECK(llvm_extbinary_read(&q, b, len, "deep64") == 0);
	CHECK(q.nfuncs == 1 && q.funcs[0]->total == 65);
	fs_free(&q);
	free(b);
	fs_free(&p);

	profile_deep(&p, 65);		/* one more: refused */
	b = ext_of(&p, 0, 0, &len);
	CHECK(clean_failure(b, len, "nested deeper than 64"));
	free(b);
	fs_free(&p);

	/* 100000 levels, made by hand: would blow the stack. */
	{
		struct fb names = { 0 }, lbr = { 0 }, f;
		struct sec s[] = { { 2, 0, &names }, { 32, 0, &lbr } };

		fb_bytes(&names, "\x01" "f", 3);
		fb_uleb(&lbr, 0);			/* head */
		for (int i = 0; i < 100000; i++)	/* name, total, 0 records, */
			fb_bytes(&lbr, "\x00\x01\x00\x01\x02\x00", 6);
		fb_bytes(&lbr, "\x00\x01\x00\x00", 4);	/* 1 site at 2.0 */
		f = make_file(s, 2);
		CHECK(clean_failure(f.d, f.len, "nested deeper"));
		free(f.d);
		free(names.d);
		free(lbr.d);
	}
}

/* ---- damage ---- */

static void test_truncated(void)
{
	struct fs_profile p;
	int bad = 0;

	profile_basic(&p);
	for (int md5 = 0; md5 <= 1; md5++) {
		for (int z = 0; z <= 1; z++) {
			size_t len;
			uint8_t *b = ext_of(&p, md5, z, &len);

			for (size_t n = 0; n < len; n++) {
				/* A copy of exactly n bytes, so that ASan sees
				 * any read past the end. */
				uint8_t *c = xmalloc(n ? n : 1);

				memcpy(c, b, n);
				if (!clean_failure(c, n, NULL)) {
					printf("  truncated to %zu (md5 %d, "
					       "compress %d)\n", n, md5, z);
					bad++;
				}
				free(c);
			}
			free(b);
		}
	}
	CHECK(bad == 0);
	fs_free(&p);
}

/* Every byte changed: a clean result either way, never a crash.  A read
 * that succeeds is a consistent profile; one that fails is empty and says
 * why in one line. */
static void test_flipped(void)
{
	struct fs_profile p, q;
	int failed = 0, bad = 0;
	static const uint8_t xors[] = { 0xff, 0x80, 0x01, 0x7f };

	profile_basic(&p);
	for (int z = 0; z <= 1; z++) {
		size_t len;
		uint8_t *b = ext_of(&p, 0, z, &len);

		for (size_t i = 0; i < len; i++) {
			for (size_t k = 0; k < ARRAY_SIZE(xors); k++) {
				uint8_t *c = xmalloc(len);
				char msg[1024];
				int rc;

				memcpy(c, b, len);
				c[i] ^= xors[k];
				fs_init(&q);
				rc = read_capture(&q, c, len, "flip.extbin", msg,
						  sizeof(msg));
				if (rc == -1) {
					failed++;
					if (q.nfuncs || count_lines(msg) != 1 ||
					    !strstr(msg, "flip.extbin") ||
					    !strstr(msg, ": byte ")) {
						printf("  byte %zu ^ %#x: %s", i,
						       xors[k], msg);
						bad++;
					}
				} else if (rc != 0 || msg[0]) {
					printf("  byte %zu ^ %#x: rc %d %s", i,
					       xors[k], rc, msg);
					bad++;
				} else {
					free(profile_text(&q));
				}
				fs_free(&q);
				free(c);
			}
		}
		free(b);
	}
	CHECK(bad == 0);
	CHECK(failed > 0);
	fs_free(&p);
}

static void test_hand_made(void)
{
	struct fb names = { 0 }, lbr = { 0 }, fot = { 0 }, f;
	struct fs_profile p;

	fb_uleb(&names, 2);
	fb_bytes(&names, "f\0g", 4);
	/* f: head 1, name 0, total 5, 1 record {1, 0, 5, 1 call {g, 5}}, 0 cs */
	fb_bytes(&lbr, "\x01\x00\x05\x01\x01\x00\x05\x01\x01\x05\x00", 11);
	fb_bytes(&fot, "\x01\x00\x00", 3);
	{
		struct sec s[] = { { 2, 0, &names }, { 4, 0, &fot }, { 32, 0, &lbr } };

		f = make_file(s, 3);
		fs_init(&p);
		CHECK(llvm_extbinary_read(&p, f.d, f.len, "ok") == 0);
		CHECK(p.nfuncs == 1 && p.funcs[0]->total == 5 &&
		      p.funcs[0]->head == 1 &&
		      !strcmp(p.funcs[0]->body[0].targets[0].name, "g"));
		fs_free(&p);

		f.d[0] ^= 1;
		CHECK(clean_failure(f.d, f.len, "wrong magic"));
		f.d[0] ^= 1;
		f.d[9] = 102;
		CHECK(clean_failure(f.d, f.len, "version 102"));
		f.d[9] = 103;
		put_u64(f.d + 10, 1u << 30);		/* section count */
		CHECK(clean_failure(f.d, f.len, "do not fit"));
		put_u64(f.d + 10, 3);
		put_u64(f.d + 18 + 16, f.len);	/* offset past the end */
		CHECK(clean_failure(f.d, f.len, "outside the file"));
		put_u64(f.d + 18 + 16, 114);
		put_u64(f.d + 18 + 24, UINT64_MAX);	/* size wraps */
		CHECK(clean_failure(f.d, f.len, "outside the file"));
		free(f.d);
	}
	/* The same function twice, records out of order and repeated: merged,
	 * each location once. */
	{
		struct fb l2 = { 0 }, n2 = { 0 }, o2 = { 0 };
		char *t;

		fb_bytes(&n2, "\x01" "f", 3);
		/* head 1, f, total, 2 records {1: 1} {5: 5}, 0 sites */
		fb_bytes(&l2, "\x01\x00\x06\x02\x01\x00\x01\x00\x05\x00\x05\x00\x00", 13);
		/* head 2, f, total, 3 records {5: 5} {3: 3} {5: 1}, 0 sites */
		fb_bytes(&l2, "\x02\x00\x09\x03\x05\x00\x05\x00\x03\x00\x03\x00"
			      "\x05\x00\x01\x00\x00", 17);
		fb_bytes(&o2, "\x02\x00\x00\x00\x0d", 5);
		{
			struct sec s[] = { { 2, 0, &n2 }, { 4, 0, &o2 }, { 32, 0, &l2 } };

			f = make_file(s, 3);
			fs_init(&p);
			CHECK(llvm_extbinary_read(&p, f.d, f.len, "dup") == 0);
			t = profile_text(&p);
			CHECK(!strcmp(t, "f:15:3\n 1: 1\n 3: 3\n 5: 11\n"));
			free(t);
			fs_free(&p);
			free(f.d);
		}
		free(l2.d);
		free(n2.d);
		free(o2.d);
	}
	/* Name index out of range. */
	lbr.d[1] = 2;
	{
		struct sec s[] = { { 2, 0, &names }, { 32, 0, &lbr } };

		f = make_file(s, 2);
		CHECK(clean_failure(f.d, f.len, "name index 2 out of range"));
		free(f.d);
	}
	lbr.d[1] = 0;
	/* A call target's index out of range. */
	lbr.d[8] = 9;
	{
		struct sec s[] = { { 2, 0, &names }, { 32, 0, &lbr } };

		f = make_file(s, 2);
		CHECK(clean_failure(f.d, f.len, "name index 9 out of range"));
		free(f.d);
	}
	lbr.d[8] = 1;
	/* LBRProfile before the NameTable: no names yet. */
	{
		struct sec s[] = { { 32, 0, &lbr }, { 2, 0, &names } };

		f = make_file(s, 2);
		CHECK(clean_failure(f.d, f.len, "out of range (0 names)"));
		free(f.d);
	}
	/* The offset table disagrees with the records. */
	fot.d[2] = 1;
	{
		struct sec s[] = { { 2, 0, &names }, { 4, 0, &fot }, { 32, 0, &lbr } };

		f = make_file(s, 3);
		CHECK(clean_failure(f.d, f.len, "not the start of its record"));
		free(f.d);
	}
	fot.d[2] = 0;
	fot.d[0] = 0;
	fot.len = 1;
	{
		struct sec s[] = { { 2, 0, &names }, { 4, 0, &fot }, { 32, 0, &lbr } };

		f = make_file(s, 3);
		CHECK(clean_failure(f.d, f.len, "missing from the FuncOffsetTable"));
		free(f.d);
	}
	free(fot.d);
	free(lbr.d);
	free(names.d);

	/* Huge LEB128 numbers: 11 bytes, and a 10th byte above 1. */
	{
		struct fb big = { 0 };

		fb_bytes(&big, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11);
		{
			struct sec s[] = { { 2, 0, &big } };

			f = make_file(s, 1);
			CHECK(clean_failure(f.d, f.len, "does not fit in 64 bits"));
			free(f.d);
		}
		big.len = 0;
		fb_bytes(&big, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 10);
		{
			struct sec s[] = { { 2, 0, &big } };

			f = make_file(s, 1);
			CHECK(clean_failure(f.d, f.len, "does not fit in 64 bits"));
			free(f.d);
		}
		/* A padded but valid encoding of 1 is fine (LLVM too). */
		big.len = 0;
		fb_bytes(&big, "\x81\x80\x80\x00" "f\0", 6);
		{
			struct sec s[] = { { 2, 0, &big } };

			f = make_file(s, 1);
			fs_init(&p);
			CHECK(llvm_extbinary_read(&p, f.d, f.len, "pad") == 0);
			fs_free(&p);
			free(f.d);
		}
		/* Name count larger than the section can hold. */
		big.len = 0;
		fb_uleb(&big, UINT64_MAX);
		{
			struct sec s[] = { { 2, 0, &big } };

			f = make_file(s, 1);
			CHECK(clean_failure(f.d, f.len, "number of names"));
			free(f.d);
		}
		/* MD5 table with fewer bytes than its count says. */
		big.len = 0;
		fb_uleb(&big, 2);
		fb_u64(&big, 1);
		{
			struct sec s[] = { { 2, 3ull << 32, &big } };

			f = make_file(s, 1);
			CHECK(clean_failure(f.d, f.len, "number of names"));
			free(f.d);
		}
		/* A name without its NUL. */
		big.len = 0;
		fb_bytes(&big, "\x01" "abc", 4);
		{
			struct sec s[] = { { 2, 0, &big } };

			f = make_file(s, 1);
			CHECK(clean_failure(f.d, f.len, "NUL"));
			free(f.d);
		}
		free(big.d);
	}

	/* Counts that do not fit their fields: 2^32 body records, a line
	 * offset of 2^32, a discriminator of 2^40. */
	{
		struct fb n1 = { 0 }, l = { 0 };
		uint64_t bad[3][3] = { { 1ull << 32, 0, 0 }, { 1, 1ull << 32, 0 },
				       { 1, 1, 1ull << 40 } };

		fb_bytes(&n1, "\x01" "f", 3);
		for (int k = 0; k < 3; k++) {
			l.len = 0;
			fb_uleb(&l, 0);			/* head */
			fb_uleb(&l, 0);			/* name */
			fb_uleb(&l, 1);			/* total */
			fb_uleb(&l, bad[k][0]);		/* records */
			fb_uleb(&l, bad[k][1]);		/* line */
			fb_uleb(&l, bad[k][2]);		/* disc */
			fb_uleb(&l, 1);
			fb_uleb(&l, 0);
			fb_uleb(&l, 0);
			{
				struct sec s[] = { { 2, 0, &n1 }, { 32, 0, &l } };

				f = make_file(s, 2);
				CHECK(clean_failure(f.d, f.len, "is larger than"));
				free(f.d);
			}
		}
		/* Left-over bytes in a section. */
		l.len = 0;
		fb_bytes(&l, "\x00\x00\x00\x00\x00", 5);
		n1.len = 3;
		fb_bytes(&n1, "\x07", 1);
		{
			struct sec s[] = { { 2, 0, &n1 } };

			f = make_file(s, 1);
			CHECK(clean_failure(f.d, f.len, "left over"));
			free(f.d);
		}
		/* Context-sensitive and probe profiles: not ours. */
		{
			struct fb cs = { 0 };

			fb_bytes(&cs, "\x01\x01\x00\x00\x00", 5);
			struct sec s[] = { { 6, 0, &cs } };

			f = make_file(s, 1);
			CHECK(clean_failure(f.d, f.len, "context-sensitive"));
			free(f.d);
			free(cs.d);
		}
		free(n1.d);
		free(l.d);
	}

	/* Compressed sections that lie about their sizes. */
	{
		struct fb z = { 0 };

		fb_uleb(&z, 1ull << 40);	/* 1 TiB from 9 bytes */
		fb_uleb(&z, 9);
		fb_bytes(&z, "\x78\xda\x63\x00\x00\x00\x01\x00\x01", 9);
		{
			struct sec s[] = { { 2, 1, &z } };

			f = make_file(s, 1);
			CHECK(clean_failure(f.d, f.len, "cannot come from"));
			free(f.d);
		}
		z.len = 0;
		fb_uleb(&z, 5);			/* inflates to 1 byte, not 5 */
		fb_uleb(&z, 9);
		fb_bytes(&z, "\x78\xda\x63\x00\x00\x00\x01\x00\x01", 9);
		{
			struct sec s[] = { { 2, 1, &z } };

			f = make_file(s, 1);
			CHECK(clean_failure(f.d, f.len, "does not inflate"));
			free(f.d);
		}
		z.d[0] = 1;
		z.d[1] = 200;			/* more than the section */
		{
			struct sec s[] = { { 2, 1, &z } };

			f = make_file(s, 1);
			CHECK(clean_failure(f.d, f.len, "does not fill"));
			free(f.d);
		}
		z.d[1] = 9;
		z.d[6] = 0x55;			/* broken zlib stream */
		{
			struct sec s[] = { { 2, 1, &z } };

			f = make_file(s, 1);
			CHECK(clean_failure(f.d, f.len, "does not inflate"));
			free(f.d);
		}
		free(z.d);
	}
	CHECK(clean_failure(NULL, 0, "too short"));
	CHECK(clean_failure((const uint8_t *)"SPROF42", 7, "too short"));
}

/* Write errors are reported, not ignored. */
static void test_write_error(void)
{
	struct fs_profile p;
	FILE *f = fopen("/dev/full", "w");
	char msg[1024];
	int saved, fd, rc;

	if (!f) {
		printf("  no /dev/full\n");
		return;
	}
	profile_basic(&p);
	saved = dup(2);
	fd = open(path("werr.txt"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	rc = llvm_extbinary_write(&p, NULL, f);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	msg[pread(fd, msg, sizeof(msg) - 1, 0)] = '\0';
	close(fd);
	fclose(f);
	CHECK(rc == -1);
	CHECK(count_lines(msg) == 1 && strstr(msg, "write failed"));
	fs_free(&p);
}

/* ---- hooks for the integration script ---- */

static int write_demo(const char *txt, const char *ext)
{
	struct fs_profile p;
	FILE *f;
	int rc = 0;

	profile_hot(&p);
	if (!(f = fopen(txt, "w")) || llvm_text_write(&p, f) || fclose(f))
		rc = 1;
	if (!(f = fopen(ext, "wb")) || llvm_extbinary_write(&p, NULL, f) ||
	    fclose(f))
		rc = 1;
	fs_free(&p);
	return rc;
}

static int rewrite(int argc, char **argv)
{
	struct extbinary_options o = { 0, 0 };
	struct fs_profile p;
	size_t len;
	uint8_t *b = read_whole_file(argv[2], &len);
	FILE *f;
	int rc = 1;

	for (int i = 4; i < argc; i++) {
		o.md5_names |= !strcmp(argv[i], "md5");
		o.compress |= !strcmp(argv[i], "compress");
	}
	fs_init(&p);
	if (b && llvm_extbinary_read(&p, b, len, argv[2]) == 0 &&
	    (f = fopen(argv[3], "wb"))) {
		rc = llvm_extbinary_write(&p, &o, f) != 0;
		if (fclose(f))
			rc = 1;
	}
	fs_free(&p);
	free(b);
	return rc;
}

static int print_text(const char *file)
{
	struct fs_profile p;
	size_t len;
	uint8_t *b = read_whole_file(file, &len);
	int rc = 1;

	fs_init(&p);
	if (b && llvm_extbinary_read(&p, b, len, file) == 0)
		rc = llvm_text_write(&p, stdout) != 0;
	fs_free(&p);
	free(b);
	return rc;
}

int main(int argc, char **argv)
{
	progname = "test_extbinary";
	if (argc == 4 && !strcmp(argv[1], "--write-demo"))
		return write_demo(argv[2], argv[3]);
	if (argc >= 4 && !strcmp(argv[1], "--rewrite"))
		return rewrite(argc, argv);
	if (argc == 3 && !strcmp(argv[1], "--text"))
		return print_text(argv[2]);

	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	have_profdata = system(PROFDATA " merge --help >/dev/null 2>&1") == 0;
	RUN(test_exact_bytes);
	RUN(test_identical_basic);
	RUN(test_identical_big);
	RUN(test_identical_more);
	RUN(test_round_trip);
	RUN(test_md5_round_trip);
	RUN(test_read_llvm_files);
	RUN(test_nesting_limit);
	RUN(test_truncated);
	RUN(test_flipped);
	RUN(test_hand_made);
	RUN(test_write_error);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
		if (system(cmd) != 0)
			printf("  could not remove %s\n", tmpdir);
	}
	return tests_failed != 0;
}
