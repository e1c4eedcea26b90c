/* SPDX-License-Identifier: GPL-2.0-only */
/* The raw profile: write/read round trip, exact merge, and a clean error
 * (never a crash) for every kind of damage. */
#include "check.h"
#include "capture.h"
#include "../../lib/md5.h"
#include "../../lib/util.h"
#include "../../raw/rawprof.h"
#include "../../raw/stackcut.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const uint8_t id_a[20] = { 1, 2, 3 }, id_b[8] = { 9, 9 };

static void build(struct raw_profile *p)
{
	uint32_t a, b;

	raw_init(p);
	raw_set_meta(p, "host", "h1");
	raw_set_meta(p, "mode", "stack-fp");
	raw_add_counter(p, CNT_SAMPLES, 100);
	raw_add_counter(p, "unattributed.kernel", 3);
	a = raw_object(p, id_a, sizeof(id_a), "/bin/a");
	b = raw_object(p, id_b, sizeof(id_b), "/lib/b.so");
	raw_add_ip(&p->objs[a], 0x1234, 50);
	raw_add_ip(&p->objs[a], 0x1000, 20);
	raw_add_ip(&p->objs[a], 0x1234, 7);
	raw_add_ip(&p->objs[b], 0x99, 20);
	raw_add_edge(&p->objs[a], 0x1100, b, 0x90, 20);
	raw_add_edge(&p->objs[a], 0x1100, a, 0x1234, 57);
}

static uint8_t *serialize(struct raw_profile *p, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	CHECK(raw_write(p, f) == 0);
	fclose(f);
	return (uint8_t *)buf;
}

static void test_round_trip(void)
{
	struct raw_profile p, q;
	size_t len, len2;
	uint8_t *buf, *buf2;

	build(&p);
	buf = serialize(&p, &len);
	CHECK(raw_parse(&q, buf, len, "mem") == 0);
	CHECK(q.nobjs == 2);
	CHECK(q.objs[0].nips == 2);		/* duplicates summed */
	CHECK(q.objs[0].ips[0].offset == 0x1000);	/* sorted */
	CHECK(q.objs[0].ips[1].count == 57);
	CHECK(q.objs[0].nedges == 2);
	CHECK(q.objs[0].edges[0].callee_obj == 0);
	CHECK(!strcmp(q.objs[1].path, "/lib/b.so"));
	CHECK(raw_get_counter(&q, CNT_SAMPLES) == 100);
	CHECK(!strcmp(raw_get_meta(&q, "mode"), "stack-fp"));
	buf2 = serialize(&q, &len2);	/* canonical: same bytes again */
	CHECK(len == len2 && !memcmp(buf, buf2, len));
	free(buf);
	free(buf2);
	raw_free(&p);
	raw_free(&q);
}

/* A file larger than the writer's buffer (raw/rawio.c writes it out as
 * it fills, each section's size given before its bytes): records of
 * every kind cross the buffer's end, and the file reads back the same. */
static void test_large_write(void)
{
	struct raw_profile p, q;
	struct raw_frame f[3] = { { 0, 0x10 }, { 1, 0x20 }, { RAW_FRAME_KERNEL, 0 } };
	size_t len, len2;
	uint8_t *buf, *buf2;

	build(&p);
	for (uint64_t i = 0; i < 7001; i++) {
		raw_add_ip(&p.objs[i % 2], 0x10000 + 3 * i, i + 1);
		raw_add_edge(&p.objs[1], 8 * i, 0, 0x40, i + 2);
		raw_add_range(&p.objs[0], 16 * i, 16 * i + 9, i + 3);
		raw_add_branch(&p.objs[i % 2], 4 * i, 1, 0x77, i + 4);
		f[0].offset = i;
		raw_add_stack(&p, f, 1 + (unsigned)(i % 3), i + 5);
	}
	buf = serialize(&p, &len);
	CHECK(len > (size_t)512 << 10);	/* the buffer filled twice */
	CHECK(raw_parse(&q, buf, len, "mem") == 0);
	CHECK(q.nobjs == 2 && q.objs[0].nips == 3503 && q.objs[1].nedges == 7001);
	CHECK(q.nobjs == 2 && q.objs[0].nranges == 7001 && q.objs[1].nbranches == 3500);
	CHECK(q.nobjs == 2 && q.objs[0].ranges[7000].count == 7003 && q.stacks.n == 7001);
	buf2 = serialize(&q, &len2);
	CHECK(len == len2 && !memcmp(buf, buf2, len));
	free(buf);
	free(buf2);
	raw_free(&p);
	raw_free(&q);
}

static void test_merge_exact(void)
{
	struct raw_profile p, q, m;
	uint32_t c;

	build(&p);
	raw_init(&q);
	raw_set_meta(&q, "host", "h2");
	raw_add_counter(&q, CNT_SAMPLES, 1);
	/* q lists b first, so its object indexes differ from p's. */
	c = raw_object(&q, id_b, sizeof(id_b), "/lib/b.so");
	raw_object(&q, id_a, sizeof(id_a), "/bin/a");
	raw_add_ip(&q.objs[c], 0x99, 1);
	raw_add_edge(&q.objs[1], 0x1100, c, 0x90, 2);
	raw_init(&m);
	raw_merge(&m, &p, 1);
	raw_merge(&m, &q, 3);
	CHECK(raw_get_counter(&m, CNT_SAMPLES) == 103);
	CHECK(!strcmp(raw_get_meta(&m, "host"), "h1,h2"));
	CHECK(m.nobjs == 2);
	CHECK(m.objs[1].ips[0].count == 23);
	CHECK(m.objs[0].nedges == 2);
	CHECK(m.objs[0].edges[0].callee_obj == 0 || m.objs[0].edges[1].callee_obj == 1);
	for (size_t i = 0; i < m.objs[0].nedges; i++)
		if (m.objs[0].edges[i].callee_obj == 1)
			CHECK(m.objs[0].edges[i].count == 26);
	raw_merge(&m, &p, 1);	/* same host again: not repeated */
	CHECK(!strcmp(raw_get_meta(&m, "host"), "h1,h2"));
	raw_free(&p);
	raw_free(&q);
	raw_free(&m);
}

static void test_truncated_everywhere(void)
{
	struct raw_profile p, q;
	size_t len;
	uint8_t *buf;
	int bad = 0;

	build(&p);
	buf = serialize(&p, &len);
	fprintf(stderr, "(expect one error line per truncation below)\n");
	for (size_t n = 0; n < len; n++) {
		uint8_t *copy = malloc(n + 1);

		memcpy(copy, buf, n);
		if (raw_parse(&q, copy, n, "trunc") != -1 || q.nobjs)
			bad++;
		free(copy);
	}
	CHECK(bad == 0);
	free(buf);
	raw_free(&p);
}

static void test_damage(void)
{
	struct raw_profile p, q;
	size_t len;
	uint8_t *buf;

	build(&p);
	buf = serialize(&p, &len);
	buf[0] ^= 0xff;					/* magic */
	CHECK(raw_parse(&q, buf, len, "magic") == -1);
	buf[0] ^= 0xff;
	buf[8] = 7;					/* version */
	CHECK(raw_parse(&q, buf, len, "version") == -1);
	buf[8] = 1;
	CHECK(raw_parse(&q, buf, len, "good") == 0);
	raw_free(&q);
	/* Flip every byte in turn: each parse must end cleanly. */
	for (size_t i = 0; i < len; i++) {
		buf[i] ^= 0x80;
		if (raw_parse(&q, buf, len, "flip") == 0)
			raw_free(&q);
		buf[i] ^= 0x80;
	}
	free(buf);
	raw_free(&p);
}

static void test_bad_callee_index(void)
{
	struct raw_profile p, q;
	size_t len;
	uint8_t *buf;

	build(&p);
	p.objs[0].edges[0].callee_obj = 5;
	buf = serialize(&p, &len);
	CHECK(raw_parse(&q, buf, len, "index") == -1);
	free(buf);
	raw_free(&p);
}

static void test_huge_count(void)
{
	struct raw_profile p, q;
	size_t len;
	uint8_t *buf;

	raw_init(&p);
	raw_object(&p, id_a, sizeof(id_a), "x");
	buf = serialize(&p, &len);
	/* The IP count is the last-but-one u64 of the file: claim 2^60. */
	memset(buf + len - 16, 0, 8);
	buf[len - 9] = 0x10;
	CHECK(raw_parse(&q, buf, len, "count") == -1);
	free(buf);
	raw_free(&p);
}

/* No allocation here is near 1 GiB: one that is comes from a count the
 * reader did not bound, which this makes an ASan error, not a calloc
 * that overcommit lets through. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "max_allocation_size_mb=1024";
}

/* Issue 27, finding 8: a section that ends inside an object's IP count
 * (its size field says so).  Half a count once came back as a count:
 * 2^32-1 IPs, xcalloc(4294967295, 16), "out of memory" without the file
 * or "truncated".  Now each cut is the reader's message naming the file
 * and the byte. */
static void test_section_cuts_count(void)
{
	struct raw_profile p, q;
	size_t len;
	uint8_t *buf;
	char msg[512];
	const size_t body = 4 + sizeof(id_a) + 4 + 1 + 8 + 8;	/* path "x" */

	raw_init(&p);
	raw_object(&p, id_a, sizeof(id_a), "x");
	buf = serialize(&p, &len);
	memset(buf + len - 16, 0xff, 16);	/* the IP and edge counts */
	for (size_t cut = 1; cut <= 16; cut++) {
		uint64_t size = body - cut;

		for (int i = 0; i < 8; i++)	/* the object's section size */
			buf[len - body - 8 + i] = (uint8_t)(size >> 8 * i);
		capture_begin();
		CHECK(raw_parse(&q, buf, len, "cut") == -1 && q.nobjs == 0);
		capture_end(msg, sizeof(msg));
		CHECK(!strncmp(msg, "pgoprof: cut: byte ", 19) &&
		      (strstr(msg, "truncated") || strstr(msg, "exceeds the section")));
		CHECK(!strstr(msg, "out of memory"));
		raw_free(&q);
	}
	free(buf);
	raw_free(&p);
}

static void test_counts_saturate(void)
{
	struct raw_profile a, m;
	uint32_t o;

	raw_init(&a);
	o = raw_object(&a, id_a, sizeof(id_a), "x");
	raw_add_ip(&a.objs[o], 1, UINT64_MAX / 2 + 1);
	raw_add_counter(&a, CNT_SAMPLES, 3);
	raw_init(&m);
	raw_merge(&m, &a, 1);
	CHECK(raw_saturated(&m) == 0);
	raw_merge(&m, &a, 1);
	CHECK(m.objs[0].ips[0].count == UINT64_MAX);
	CHECK(raw_saturated(&m) == 1);	/* the sum; pgoprof merge says so */
	raw_merge(&m, &a, UINT64_MAX / 2);
	CHECK(m.objs[0].ips[0].count == UINT64_MAX);
	CHECK(raw_saturated(&m) == 2);	/* and samples.taken, by the weight */
	raw_free(&a);
	raw_free(&m);
}

static void test_branch_records(void)
{
	struct raw_profile p, q, m;
	uint32_t a, b;
	size_t len;
	uint8_t *buf;

	raw_init(&p);
	/* b first, so sorting by build-ID moves a before it */
	b = raw_object(&p, id_b, sizeof(id_b), "/lib/b.so");
	a = raw_object(&p, id_a, sizeof(id_a), "/bin/a");
	raw_add_range(&p.objs[a], 0x1010, 0x1020, 5);
	raw_add_range(&p.objs[a], 0x1000, 0x1008, 7);
	raw_add_range(&p.objs[a], 0x1010, 0x1020, 1);
	raw_add_branch(&p.objs[a], 0x1020, b, 0x90, 6);
	raw_add_branch(&p.objs[b], 0x99, a, 0x1025, 6);
	buf = serialize(&p, &len);
	CHECK(raw_parse(&q, buf, len, "lbr") == 0);
	CHECK(q.nobjs == 2 && !strcmp(q.objs[0].path, "/bin/a"));
	CHECK(q.objs[0].nranges == 2 && q.objs[0].ranges[0].begin == 0x1000);
	CHECK(q.objs[0].ranges[1].count == 6);
	CHECK(q.objs[0].nbranches == 1 && q.objs[0].branches[0].to_obj == 1);
	CHECK(q.objs[1].nbranches == 1 && q.objs[1].branches[0].to_obj == 0);
	raw_init(&m);
	raw_merge(&m, &q, 2);
	CHECK(m.objs[0].ranges[1].count == 12 && m.objs[1].branches[0].count == 12);
	/* truncated anywhere: a clean error */
	for (size_t n = 0; n < len; n++) {
		struct raw_profile t;

		CHECK(raw_parse(&t, buf, n, "trunc") == -1);
	}
	free(buf);
	raw_free(&p);
	raw_free(&q);
	raw_free(&m);
}

/* Build-IDs of any length: the padded and cut-short forms perf writes are
 * the same ID; a different ID, or too short a common part, is not. */
static void test_same_build_id(void)
{
	static const uint8_t fast[8] = { 0x57, 0x2a, 0xc7, 0x24, 0x87, 0xae, 0x19, 0x66 };
	uint8_t padded[20] = { 0 }, sha256[32], cut[20], other[8];
	struct raw_profile p;

	memcpy(padded, fast, sizeof(fast));
	for (int i = 0; i < 32; i++)
		sha256[i] = (uint8_t)(0x80 + i);
	memcpy(cut, sha256, sizeof(cut));
	memcpy(other, fast, sizeof(other));
	other[7] ^= 1;
	CHECK(raw_same_build_id(fast, 8, fast, 8));
	CHECK(raw_same_build_id(fast, 8, padded, 20));
	CHECK(raw_same_build_id(padded, 20, fast, 8));
	CHECK(raw_same_build_id(sha256, 32, cut, 20));
	CHECK(!raw_same_build_id(fast, 8, other, 8));
	CHECK(!raw_same_build_id(other, 8, padded, 20));
	CHECK(!raw_same_build_id(fast, 3, fast, 8));	/* 3 bytes: too few */
	CHECK(!raw_same_build_id(padded, 0, padded, 0));
	raw_init(&p);
	raw_object(&p, padded, 20, "/bin/fast");
	raw_object(&p, sha256, 32, "/bin/long");
	CHECK(raw_find_object(&p, fast, 8) == -1);
	CHECK(raw_match_object(&p, fast, 8) == 0);
	CHECK(raw_match_object(&p, cut, 20) == 1);
	CHECK(raw_match_object(&p, other, 8) == -1);
	raw_free(&p);
}

/* Objects without a build-ID: the kind of ID is written (the OBJECT
 * section's flags), read back, kept apart from a build-ID of the same
 * bytes by merge, and sorted after build-IDs. */
static void test_id_kinds(void)
{
	static const uint8_t digest[16] = { 0xaa, 1, 2, 3 };
	struct raw_profile p, q, m;
	uint8_t *buf;
	size_t len;
	uint32_t c, b, x;

	raw_init(&p);
	c = raw_object_id(&p, RAW_ID_CONTENT, digest, 16, "/opt/nobid");
	b = raw_object(&p, digest, 16, "/opt/bid");
	x = raw_path_object(&p, "/opt/old (deleted)");
	CHECK(c != b && b != x && c != x);
	CHECK(raw_path_object(&p, "/opt/old") == x);	/* " (deleted)" is cut */
	CHECK(raw_find_object(&p, digest, 16) == (int)b);
	CHECK(raw_find_object_id(&p, RAW_ID_CONTENT, digest, 16) == (int)c);
	raw_add_ip(&p.objs[c], 0x10, 2);
	raw_add_ip(&p.objs[x], 0x20, 3);
	raw_add_edge(&p.objs[x], 0x30, c, 0x10, 1);
	buf = serialize(&p, &len);
	raw_init(&q);
	CHECK(raw_parse(&q, buf, len, "k.raw") == 0);
	CHECK(q.nobjs == 3);
	CHECK(q.nobjs == 3 && q.objs[0].id_kind == RAW_ID_BUILD_ID &&
	      q.objs[1].id_kind == RAW_ID_CONTENT && q.objs[2].id_kind == RAW_ID_PATH);
	CHECK(q.nobjs == 3 && q.objs[2].nedges == 1 && q.objs[2].edges[0].callee_obj == 1);
	raw_init(&m);
	raw_merge(&m, &q, 1);
	raw_merge(&m, &p, 1);
	raw_normalize(&m);
	CHECK(m.nobjs == 3 && m.objs[1].nips == 1 && m.objs[1].ips[0].count == 4);
	/* The first OBJECT section's flags (after 16 + META 20 + COUNTERS
	 * 20 bytes): a kind no reader knows is an error at that byte. */
	CHECK(len > 60 && buf[56] == 3 && buf[60] == 0);
	buf[60] = 7;
	raw_free(&q);
	raw_init(&q);
	CHECK(raw_parse(&q, buf, len, "k.raw") == -1);
	free(buf);
	raw_free(&p);
	raw_free(&q);
	raw_free(&m);
}

/* stderr of the last call. */
static char errtext[2048];

static int binary_object(const struct raw_profile *p, const char *path,
			 const uint8_t *id, size_t len, const char *recorded)
{
	struct raw_binary b = { path, id, len, recorded };
	int o;

	capture_begin();
	o = raw_binary_object(p, "t.raw", &b);
	capture_end(errtext, sizeof(errtext));
	return o;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0);
}

/* A binary without a build-ID is found by its content digest, else by
 * the path it was recorded at: one such object is taken and said so,
 * several are refused (listed) unless --recorded-path names one, and one
 * with another digest has changed since recording. */
static void test_binary_without_build_id(void)
{
	char dir[] = "/tmp/pgoprof-rawtest.XXXXXX", bin[64], other[64];
	uint8_t d[MD5_DIGEST_LEN];
	struct raw_profile p;
	int o, x;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(bin, sizeof(bin), "%s/prog", dir);
	snprintf(other, sizeof(other), "%s/lib.so", dir);
	static const char text[] = "\177ELF the program's bytes";

	write_file(bin, text);
	write_file(other, "\177ELF a library");
	md5_buffer(text, strlen(text), d);
	raw_init(&p);
	raw_object(&p, (const uint8_t *)"\1\2\3\4\5", 5, "/x/prog");
	o = (int)raw_object_id(&p, RAW_ID_CONTENT, d, sizeof(d), "/build/prog");
	CHECK(binary_object(&p, bin, NULL, 0, NULL) == o);	/* by content */
	CHECK(errtext[0] == '\0');
	CHECK(raw_file_is_object(&p.objs[o], bin, NULL, 0));
	CHECK(!raw_file_is_object(&p.objs[o], other, NULL, 0));
	/* The same name, other content: changed since recording. */
	p.objs[o].build_id[0] ^= 1;
	CHECK(binary_object(&p, bin, NULL, 0, NULL) == -1);
	CHECK(strstr(errtext, "no build-ID, content MD5") &&
	      strstr(errtext, "changed since recording"));
	/* Known by path only (perf.data without build-IDs): by file name. */
	x = (int)raw_path_object(&p, "/usr/lib/lib.so");
	CHECK(binary_object(&p, other, NULL, 0, NULL) == x);
	CHECK(strstr(errtext, "matched by file name") && strstr(errtext, "/usr/lib/lib.so"));
	CHECK(binary_object(&p, other, (const uint8_t *)"\7\7\7\7", 4, NULL) == x);
	/* Two of that name: refused, listed, until --recorded-path picks. */
	raw_path_object(&p, "/opt/lib.so");
	CHECK(binary_object(&p, other, NULL, 0, NULL) == -1);
	CHECK(strstr(errtext, "2 objects named lib.so") &&
	      strstr(errtext, "/usr/lib/lib.so") && strstr(errtext, "/opt/lib.so") &&
	      strstr(errtext, "--recorded-path"));
	CHECK(binary_object(&p, other, NULL, 0, "/usr/lib/lib.so") == x);
	CHECK(strstr(errtext, "matched by --recorded-path"));
	CHECK(binary_object(&p, other, NULL, 0, "/nowhere/lib.so") == -1);
	CHECK(strstr(errtext, "no object recorded at /nowhere/lib.so"));
	/* A build-ID object at the recorded path with another ID. */
	CHECK(binary_object(&p, bin, (const uint8_t *)"\7\7\7\7", 4, "/x/prog") == -1);
	CHECK(strstr(errtext, "build-ID 07070707") && strstr(errtext, "build-ID 0102030405 (/x/prog)"));
	raw_free(&p);
	unlink(bin);
	unlink(other);
	rmdir(dir);
}

/* Two stacks across objects a and b of p, one of them twice. */
static void add_stacks(struct raw_profile *p, uint32_t a, uint32_t b)
{
	struct raw_frame s1[] = { { b, 0x99 }, { a, 0x1105 }, { a, 0x2000 } };
	struct raw_frame s2[] = { { RAW_FRAME_KERNEL, 0 }, { a, 0x1105 },
				  { RAW_FRAME_UNKNOWN, 0 } };

	raw_add_stack(p, s1, 3, 5);
	raw_add_stack(p, s2, 3, 1);
	raw_add_stack(p, s1, 3, 2);
	raw_add_stack(p, s1, 0, 9);	/* depth 0: nothing */
}

static void test_stacks(void)
{
	struct raw_profile p, q, m;
	size_t len, len2;
	uint8_t *buf, *buf2;

	build(&p);
	add_stacks(&p, 0, 1);
	CHECK(p.stacks.n == 2);
	CHECK(p.stacks.v[0].count == 7);	/* a stack seen again adds up */
	buf = serialize(&p, &len);
	CHECK(raw_parse(&q, buf, len, "mem") == 0);
	CHECK(q.stacks.n == 2);
	/* canonical order: frame by frame from the leaf, object first */
	CHECK(q.stacks.v[0].count == 7 && q.stacks.v[1].count == 1);
	CHECK(raw_stack_frames(&q, &q.stacks.v[0])[0].obj == 1);
	CHECK(raw_stack_frames(&q, &q.stacks.v[1])[0].obj == RAW_FRAME_KERNEL);
	CHECK(raw_stack_frames(&q, &q.stacks.v[1])[2].obj == RAW_FRAME_UNKNOWN);
	buf2 = serialize(&q, &len2);
	CHECK(len == len2 && !memcmp(buf, buf2, len));
	free(buf2);

	/* merge follows objects to their new indexes and adds with weight */
	raw_init(&m);
	raw_object(&m, id_b, sizeof(id_b), "/lib/b.so");	/* b is 0 here */
	raw_merge(&m, &q, 2);
	raw_merge(&m, &q, 1);
	CHECK(m.stacks.n == 2);
	for (size_t i = 0; i < m.stacks.n; i++) {
		const struct raw_stack *s = &m.stacks.v[i];
		const struct raw_frame *f = raw_stack_frames(&m, s);

		if (f[0].obj == RAW_FRAME_KERNEL)
			CHECK(s->count == 3);
		else
			CHECK(s->count == 21 && !memcmp(m.objs[f[0].obj].build_id, id_b, sizeof(id_b)) &&
			      !memcmp(m.objs[f[1].obj].build_id, id_a, sizeof(id_a)));
	}
	raw_free(&m);
	raw_free(&q);

	/* a frame that names an object the file does not have is an error:
	 * the last stack (the kernel one) ends the file, 3 frames of 12 bytes */
	{
		uint8_t *bad = malloc(len);
		char msg[512];

		memcpy(bad, buf, len);
		memcpy(bad + len - 36, "\x07\0\0\0", 4);	/* object 7 of 2 */
		capture_begin();
		CHECK(raw_parse(&q, bad, len, "bad.raw") == -1);
		capture_end(msg, sizeof(msg));
		CHECK(strstr(msg, "bad.raw") && strstr(msg, "stack 1 frame 0: object 7 does not exist"));
		free(bad);
	}
	free(buf);
	raw_free(&p);
}

/* An object that only a stack names (its neighbours unresolved, so no
 * edge) is kept when empty objects are dropped. */
static void test_stack_keeps_object(void)
{
	struct raw_profile p;
	uint32_t a, b;
	struct raw_frame f[] = { { RAW_FRAME_UNKNOWN, 0 }, { 0, 0x10 } };

	raw_init(&p);
	a = raw_object(&p, id_a, sizeof(id_a), "/bin/a");
	b = raw_object(&p, id_b, sizeof(id_b), "/lib/b.so");
	raw_add_ip(&p.objs[a], 0x10, 1);
	f[1].obj = b;
	raw_add_stack(&p, f, 2, 1);
	raw_drop_empty_objects(&p);
	CHECK(p.nobjs == 2);
	raw_free(&p);
}

/* The rule that cuts a sampled stack: leaf IP, edges with the callee
 * inside the call above the leaf, a kernel leaf without IP, unknown
 * frames counted and not joined. */
static void test_sampled_stack(void)
{
	struct raw_profile p;
	uint32_t a;
	struct raw_frame s1[] = { { 0, 0x10 }, { 0, 0x25 }, { 0, 0x40 } };
	struct raw_frame s2[] = { { RAW_FRAME_KERNEL, 0 }, { 0, 0x30 },
				  { 0, 0x50 }, { RAW_FRAME_UNKNOWN, 0 } };

	raw_init(&p);
	a = raw_object(&p, id_a, sizeof(id_a), "/bin/a");
	CHECK(raw_add_sampled_stack(&p, s1, 3, 2) == 0);
	CHECK(raw_add_sampled_stack(&p, s2, 4, 3) == 3);
	raw_normalize(&p);
	CHECK(p.objs[a].nips == 1 && p.objs[a].ips[0].offset == 0x10 &&
	      p.objs[a].ips[0].count == 2);
	CHECK(p.objs[a].nedges == 3);
	/* (ret, callee): 0x25 -> 0x10 (leaf as is), 0x40 -> 0x24 (a return
	 * address less 1), 0x50 -> 0x30 (above a kernel leaf: as is) */
	CHECK(p.objs[a].edges[0].ret_offset == 0x25 && p.objs[a].edges[0].callee_offset == 0x10);
	CHECK(p.objs[a].edges[1].ret_offset == 0x40 && p.objs[a].edges[1].callee_offset == 0x24);
	CHECK(p.objs[a].edges[2].ret_offset == 0x50 && p.objs[a].edges[2].callee_offset == 0x30 &&
	      p.objs[a].edges[2].count == 3);
	CHECK(p.stacks.n == 2);
	raw_free(&p);
}

/* raw_stack_cut(), the rule's one body, frame by frame: what each frame
 * gives, and "in an object" as the caller's known says. */
static void test_stack_cut(void)
{
	static const struct raw_frame u[] = { { 0, 0x10 }, { 0, 0x25 }, { 0, 0x40 } };
	static const struct raw_frame far[] = { { 7, 0x10 }, { 7, 0x25 }, { 9, 0x40 } };
	static const struct raw_frame k[] = { { RAW_FRAME_KERNEL, 0 }, { 0, 0x30 },
					      { 0, 0x50 }, { RAW_FRAME_UNKNOWN, 0 },
					      { 7, 0x70 } };
	uint64_t c = 0;

	CHECK(raw_stack_cut(u, 0, 1, &c) == RAW_CUT_IP);
	CHECK(raw_stack_cut(u, 1, 1, &c) == RAW_CUT_EDGE && c == 0x10);
	CHECK(raw_stack_cut(u, 2, 1, &c) == RAW_CUT_EDGE && c == 0x24);
	CHECK(raw_stack_cut(k, 0, 1, &c) == RAW_CUT_NONE);
	CHECK(raw_stack_cut(k, 1, 1, &c) == RAW_CUT_NONE);
	CHECK(raw_stack_cut(k, 2, 1, &c) == RAW_CUT_EDGE && c == 0x30);
	CHECK(raw_stack_cut(k, 3, 1, &c) == RAW_CUT_LOST);
	CHECK(raw_stack_cut(k, 4, 1, &c) == RAW_CUT_LOST);
	CHECK(raw_stack_cut(k, 4, RAW_FRAME_KERNEL, &c) == RAW_CUT_LOST);
	/* objects 7 and 9: none of a profile of one, objects for import */
	CHECK(raw_stack_cut(far, 2, 1, &c) == RAW_CUT_LOST);
	CHECK(raw_stack_cut(far, 2, RAW_FRAME_KERNEL, &c) == RAW_CUT_EDGE && c == 0x24);
	CHECK(raw_stack_cut(&k[4], 0, 1, &c) == RAW_CUT_NONE &&
	      raw_stack_cut(&k[4], 0, RAW_FRAME_KERNEL, &c) == RAW_CUT_IP);
}

/* Sharing: --keep by build-ID prefix or path; what goes is counted, the
 * frames of dropped objects become unknown, paths can be stripped. */
static void test_keep_and_strip(void)
{
	struct raw_profile p;
	char *by_id[] = { "0102030000" }, *by_path[] = { "/lib/b.so" };
	char *none[] = { "deadbeefdead" };
	char msg[512];

	build(&p);
	add_stacks(&p, 0, 1);
	raw_set_meta(&p, "target", "./secret --token x");
	raw_normalize(&p);
	CHECK(raw_object_matches(&p.objs[0], "0102030000000000"));
	CHECK(raw_object_matches(&p.objs[0], "/bin/a"));
	CHECK(!raw_object_matches(&p.objs[0], "/bin"));
	CHECK(!raw_object_matches(&p.objs[1], "0102030000"));
	capture_begin();
	CHECK(raw_keep_matching(&p, none, 1, "--keep", "out.raw") == -1);
	capture_end(msg, sizeof(msg));
	CHECK(strstr(msg, "--keep deadbeefdead: out.raw has no object with this build-ID") != NULL);
	CHECK(p.nobjs == 2);	/* unchanged */

	capture_begin();
	CHECK(raw_keep_matching(&p, by_path, 1, "--keep", "out.raw") == 0);
	capture_end(msg, sizeof(msg));
	CHECK(strstr(msg, "kept 1 object; 77 samples of the others left out") != NULL);
	CHECK(p.nobjs == 1 && !strcmp(p.objs[0].path, "/lib/b.so"));
	CHECK(p.objs[0].nips == 1 && p.objs[0].nedges == 0);	/* b -> a went */
	CHECK(raw_get_counter(&p, CNT_FILTERED) == 77);
	/* the stack b <- a <- a keeps b; the kernel one had only a: gone */
	CHECK(p.stacks.n == 1);
	CHECK(raw_stack_frames(&p, &p.stacks.v[0])[0].obj == 0 &&
	      raw_stack_frames(&p, &p.stacks.v[0])[1].obj == RAW_FRAME_UNKNOWN);
	raw_strip_paths(&p);
	CHECK(!strcmp(p.objs[0].path, "") && !raw_get_meta(&p, "target") &&
	      raw_get_meta(&p, "host"));
	raw_free(&p);

	build(&p);
	capture_begin();
	CHECK(raw_keep_matching(&p, by_id, 1, "--keep", "o") == 0);
	capture_end(msg, sizeof(msg));
	CHECK(p.nobjs == 1 && p.objs[0].nedges == 1 &&
	      raw_get_counter(&p, CNT_FILTERED) == 20);
	raw_free(&p);
}

/* Stacks made equal by changing frames in place (fleetgen does) are one
 * after normalizing, their counts added. */
static void test_stacks_equal_after_edit(void)
{
	struct raw_profile p;
	struct raw_frame a[] = { { 0, 0x10 }, { 0, 0x20 } }, b[] = { { 0, 0x30 }, { 0, 0x20 } };

	raw_init(&p);
	raw_object(&p, id_a, sizeof(id_a), "/bin/a");
	raw_add_stack(&p, a, 2, 3);
	raw_add_stack(&p, b, 2, 4);
	p.stacks.frames[p.stacks.v[1].first].offset = 0x10;
	raw_normalize(&p);
	CHECK(p.stacks.n == 1 && p.stacks.v[0].count == 7 && p.stacks.nframes == 2);
	raw_add_stack(&p, a, 2, 1);	/* the index was rebuilt */
	CHECK(p.stacks.n == 1 && p.stacks.v[0].count == 8);
	raw_free(&p);
}

int main(void)
{
	RUN(test_stacks_equal_after_edit);
	RUN(test_keep_and_strip);
	RUN(test_sampled_stack);
	RUN(test_stack_cut);
	RUN(test_stacks);
	RUN(test_stack_keeps_object);
	RUN(test_same_build_id);
	RUN(test_id_kinds);
	RUN(test_binary_without_build_id);
	RUN(test_branch_records);
	RUN(test_round_trip);
	RUN(test_large_write);
	RUN(test_merge_exact);
	RUN(test_truncated_everywhere);
	RUN(test_damage);
	RUN(test_bad_callee_index);
	RUN(test_huge_count);
	RUN(test_section_cuts_count);
	RUN(test_counts_saturate);
	return tests_failed != 0;
}
