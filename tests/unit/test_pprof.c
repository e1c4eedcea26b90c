/* SPDX-License-Identifier: GPL-2.0-only */
/* pprof out and in (convert/pprof.c, import/pprof.c) on synthesized raw
 * profiles: raw -> pprof -> raw gives the same objects, IP samples,
 * edges and stacks, marks included (and callers one byte on when taken
 * as call addresses, as Go writes them); a profile without stacks gives its IP
 * samples; a symbolized-only profile (built here with the protoc-c code)
 * is refused and says why; damaged files are named in one line. */
#include "check.h"
#include "capture.h"
#include "../../convert/pprof.h"
#include "../../import/pprof.h"
#include "../../lib/util.h"
#include "../../raw/rawprof.h"
#include "pprof/profile.pb-c.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmp[64];

static const uint8_t ID_A[20] = { 0xaa, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
				  11, 12, 13, 14, 15, 16, 17, 18, 19 };

/* Two objects (one by build-ID, one by path), stacks across them, a
 * kernel leaf, an unknown frame, a stack of one frame. */
static void synth(struct raw_profile *p, int stacks)
{
	uint32_t a, b;

	raw_init(p);
	raw_set_meta(p, "sample_freq", "1000");
	raw_add_counter(p, "duration_ms", 1500);
	a = raw_object(p, ID_A, sizeof(ID_A), "/nonexistent/a");
	b = raw_path_object(p, "/nonexistent/libb.so");
	if (!stacks) {
		raw_add_ip(&p->objs[a], 0x100, 7);
		raw_add_ip(&p->objs[b], 0x300, 2);
		return;
	}
	struct raw_frame s1[] = { { b, 0x300 }, { a, 0x200 }, { a, 0x110 } };
	struct raw_frame s2[] = { { RAW_FRAME_KERNEL, 0 }, { a, 0x210 } };
	struct raw_frame s3[] = { { a, 0x104 }, { RAW_FRAME_UNKNOWN, 0 }, { a, 0x220 } };
	struct raw_frame s4[] = { { a, 0x104 } };

	raw_add_sampled_stack(p, s1, 3, 5);
	raw_add_sampled_stack(p, s2, 2, 2);
	raw_add_sampled_stack(p, s3, 3, 1);
	raw_add_sampled_stack(p, s4, 1, 3);
}

/* The objects, IPs, edges and stacks of p as pgoprof show prints them. */
static char *tables(struct raw_profile *p)
{
	char *buf = NULL, *out, *line, *save;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	raw_normalize(p);
	raw_print(p, f);
	fclose(f);
	out = xcalloc(len + 1, 1);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, "meta ", 5) && strncmp(line, "counter ", 8) && line[0] != '#')
			strcat(strcat(out, line), "\n");
	free(buf);
	return out;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	return read_whole_file(path, len);
}

/* p written as pprof and imported again into q; 0 on success. */
static int round_trip(struct raw_profile *p, struct raw_profile *q)
{
	struct pprof_write_opts o = { .raw_name = "synth", .quiet = 1 };
	uint8_t *buf;
	size_t len;
	int rc;

	raw_normalize(p);
	if (pprof_write_file(p, tmp, &o))
		return -1;
	buf = slurp(tmp, &len);
	raw_init(q);
	rc = buf ? pprof_import(q, buf, len, "synth.pb.gz", NULL, PPROF_CALLERS_AUTO) : -1;
	free(buf);
	return rc;
}

static void test_round_trip_stacks(void)
{
	struct raw_profile p, q;
	char msg[1024];
	char *a, *b;

	synth(&p, 1);
	capture_begin();
	CHECK(round_trip(&p, &q) == 0);
	capture_end(msg, sizeof(msg));
	a = tables(&p);
	b = tables(&q);
	CHECK(strcmp(a, b) == 0);
	if (strcmp(a, b))
		printf("  written:\n%s  read back:\n%s", a, b);
	CHECK(strstr(a, "stack 2 kernel 0:0x210") != NULL);
	CHECK(raw_get_counter(&q, CNT_SAMPLES) == 11);
	CHECK(raw_get_counter(&q, "unattributed.kernel") == 2);
	CHECK(raw_get_counter(&q, "edges.unattributed") == 2);
	CHECK(raw_get_counter(&q, "duration_ms") == 1500);
	/* 1000 Hz: a sample is 1 ms of CPU, cpu-clock's period. */
	CHECK(raw_get_meta(&q, "sample_period") &&
	      !strcmp(raw_get_meta(&q, "sample_period"), "1000000"));
	free(a), free(b);
	raw_free(&p), raw_free(&q);
}

/* --caller-addresses call: callers' addresses are return address - 1, so
 * they come back one byte on; the leaf and the marks stay. */
static void test_call_addresses(void)
{
	struct pprof_write_opts o = { .raw_name = "synth", .quiet = 1 };
	struct raw_profile p, q;
	uint8_t *buf;
	size_t len;
	char *b;

	synth(&p, 1);
	CHECK(pprof_write_file(&p, tmp, &o) == 0);
	buf = slurp(tmp, &len);
	raw_init(&q);
	CHECK(buf && pprof_import(&q, buf, len, "go.pb.gz", NULL, PPROF_CALLERS_CALL) == 0);
	b = tables(&q);
	CHECK(strstr(b, "stack 5 1:0x300 0:0x201 0:0x111\n") != NULL);
	CHECK(strstr(b, "stack 1 0:0x104 unknown 0:0x221\n") != NULL);
	CHECK(strstr(b, "stack 2 kernel 0:0x211\n") != NULL);
	CHECK(raw_get_meta(&q, "pprof_callers") && !strcmp(raw_get_meta(&q, "pprof_callers"), "call"));
	free(b), free(buf);
	raw_free(&p), raw_free(&q);
}

static void test_no_stacks(void)
{
	struct raw_profile p, q;
	char msg[1024];

	synth(&p, 0);
	capture_begin();
	CHECK(round_trip(&p, &q) == 0);
	capture_end(msg, sizeof(msg));
	CHECK(strstr(msg, "has no stacks") != NULL);
	CHECK(q.nobjs == 2 && q.stacks.n == 2);
	for (size_t i = 0; i < q.nobjs; i++) {
		CHECK(q.objs[i].nips == 1);
		CHECK(q.objs[i].ips[0].count == (q.objs[i].ips[0].offset == 0x100 ? 7u : 2u));
	}
	raw_free(&p), raw_free(&q);
}

/* Stacks and IP samples that no stack has (a merge with branch records):
 * those become one-location samples, said; every IP count comes back. */
static void test_ips_beyond_stacks(void)
{
	struct raw_profile p, q;
	char msg[1024];
	char *a, *b;

	synth(&p, 1);
	raw_add_ip(&p.objs[raw_find_object(&p, ID_A, sizeof(ID_A))], 0x500, 4);
	raw_add_ip(&p.objs[raw_find_object(&p, ID_A, sizeof(ID_A))], 0x104, 6);
	capture_begin();
	CHECK(round_trip(&p, &q) == 0);
	capture_end(msg, sizeof(msg));
	CHECK(strstr(msg, "synth: 10 IP samples are in no stack") != NULL);
	a = tables(&p);
	b = tables(&q);
	CHECK(strstr(a, "  ip 0x104 10\n") && strstr(b, "  ip 0x104 10\n"));
	CHECK(strstr(a, "  ip 0x500 4\n") && strstr(b, "  ip 0x500 4\n"));
	CHECK(strstr(b, "stack 9 0:0x104\n") && strstr(b, "stack 4 0:0x500\n"));
	free(a), free(b);
	raw_free(&p), raw_free(&q);
}

/* A profile built with the generated code: one mapping with a build-ID,
 * one location at address addr with a function name. */
static uint8_t *one_location(uint64_t addr, size_t *len)
{
	char *strs[] = { "", "samples", "count", "main", "/bin/x",
			 "aabbccddeeff00112233" };
	Perftools__Profiles__ValueType vt = PERFTOOLS__PROFILES__VALUE_TYPE__INIT, *vtp = &vt;
	Perftools__Profiles__Mapping m = PERFTOOLS__PROFILES__MAPPING__INIT, *mp = &m;
	Perftools__Profiles__Function fn = PERFTOOLS__PROFILES__FUNCTION__INIT, *fp = &fn;
	Perftools__Profiles__Line ln = PERFTOOLS__PROFILES__LINE__INIT, *lp = &ln;
	Perftools__Profiles__Location l = PERFTOOLS__PROFILES__LOCATION__INIT, *locp = &l;
	Perftools__Profiles__Sample s = PERFTOOLS__PROFILES__SAMPLE__INIT, *sp = &s;
	Perftools__Profiles__Profile pf = PERFTOOLS__PROFILES__PROFILE__INIT;
	uint64_t ids[] = { 1 };
	int64_t val[] = { 4 };
	uint8_t *buf;

	vt.type = 1, vt.unit = 2;
	m.id = 1, m.memory_start = 0x1000, m.memory_limit = 0x2000, m.file_offset = 0;
	m.filename = 4, m.build_id = 5, m.has_functions = 1;
	fn.id = 1, fn.name = fn.system_name = 3;
	ln.function_id = 1, ln.line = 7;
	l.id = 1, l.mapping_id = 1, l.address = addr, l.n_line = 1, l.line = &lp;
	s.n_location_id = 1, s.location_id = ids, s.n_value = 1, s.value = val;
	pf.n_sample_type = 1, pf.sample_type = &vtp;
	pf.n_sample = 1, pf.sample = &sp;
	pf.n_mapping = 1, pf.mapping = &mp;
	pf.n_location = 1, pf.location = &locp;
	pf.n_function = 1, pf.function = &fp;
	pf.n_string_table = 6, pf.string_table = strs;
	*len = perftools__profiles__profile__get_packed_size(&pf);
	buf = xmalloc(*len);
	perftools__profiles__profile__pack(&pf, buf);
	return buf;
}

static void test_uncompressed_with_address(void)
{
	struct raw_profile q;
	size_t len;
	uint8_t *buf = one_location(0x1234, &len);

	CHECK(pprof_probe_proto(buf, len) == 1);
	raw_init(&q);
	CHECK(pprof_import(&q, buf, len, "one.pb", NULL, PPROF_CALLERS_AUTO) == 0);
	CHECK(q.nobjs == 1 && q.objs[0].nips == 1 && q.objs[0].ips[0].offset == 0x234 &&
	      q.objs[0].ips[0].count == 4);
	free(buf);
	raw_free(&q);
}

static void test_symbolized_only_refused(void)
{
	struct raw_profile q;
	char msg[1024];
	size_t len;
	uint8_t *buf = one_location(0, &len);
	int rc;

	raw_init(&q);
	capture_begin();
	rc = pprof_import(&q, buf, len, "heap.pb", NULL, PPROF_CALLERS_AUTO);
	capture_end(msg, sizeof(msg));
	CHECK(rc == -1);
	CHECK(q.nobjs == 0);
	CHECK(strstr(msg, "heap.pb: ") && strstr(msg, "no addresses"));
	CHECK(strchr(msg, '\n') == msg + strlen(msg) - 1);	/* one line */
	free(buf);
	raw_free(&q);
}

static void test_damaged(void)
{
	struct raw_profile p, q;
	static const uint8_t garbage[] = { 0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01, 0x02 };
	char msg[1024];
	uint8_t *buf;
	size_t len;

	synth(&p, 1);
	capture_begin();
	CHECK(round_trip(&p, &q) == 0);
	raw_free(&q);
	buf = slurp(tmp, &len);
	CHECK(pprof_import(&q, buf, len / 2, "cut.pb.gz", NULL, PPROF_CALLERS_AUTO) == -1);
	capture_end(msg, sizeof(msg));
	CHECK(strstr(msg, "cut.pb.gz: truncated gzip data") != NULL);
	CHECK(q.nobjs == 0);
	capture_begin();
	CHECK(pprof_import(&q, garbage, sizeof(garbage), "junk.pb", NULL, PPROF_CALLERS_AUTO) == -1);
	capture_end(msg, sizeof(msg));
	CHECK(strstr(msg, "junk.pb: not a pprof profile") != NULL);
	CHECK(pprof_probe_proto(garbage, sizeof(garbage)) == 0);
	capture_begin();
	CHECK(pprof_import(&q, buf, len, "x.pb.gz", "alloc_space", PPROF_CALLERS_AUTO) == -1);
	capture_end(msg, sizeof(msg));
	CHECK(strstr(msg, "x.pb.gz: no sample type alloc_space; it has: samples, cpu") != NULL);
	free(buf);
	raw_free(&p);
}

/* Bytes after the last gzip member that do not start another one: an
 * error at their offset (issue 27, finding 11), not ignored. */
static void test_gzip_trailing(void)
{
	struct raw_profile p, q;
	char msg[1024], want[128];
	uint8_t *buf;
	size_t len;

	synth(&p, 1);
	CHECK(round_trip(&p, &q) == 0);
	raw_free(&q);
	buf = slurp(tmp, &len);
	buf = xrealloc(buf, len + 5);
	memcpy(buf + len, "junk", 5);
	capture_begin();
	CHECK(pprof_import(&q, buf, len + 4, "tail.pb.gz", NULL, PPROF_CALLERS_AUTO) == -1);
	capture_end(msg, sizeof(msg));
	snprintf(want, sizeof(want), "tail.pb.gz: byte %zu: 4 bytes after the last gzip member", len);
	CHECK(strstr(msg, want) != NULL);
	CHECK(q.nobjs == 0);
	free(buf);
	raw_free(&p);
}

int main(void)
{
	int fd;

	progname = "test_pprof";
	strcpy(tmp, "/tmp/test_pprof.XXXXXX");
	fd = mkstemp(tmp);
	if (fd < 0)
		return 1;
	close(fd);
	RUN(test_round_trip_stacks);
	RUN(test_call_addresses);
	RUN(test_no_stacks);
	RUN(test_ips_beyond_stacks);
	RUN(test_uncompressed_with_address);
	RUN(test_symbolized_only_refused);
	RUN(test_damaged);
	RUN(test_gzip_trailing);
	if (!getenv("KEEP")) unlink(tmp); else printf("%s\n", tmp);
	return tests_failed ? 1 : 0;
}
