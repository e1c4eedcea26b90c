/* SPDX-License-Identifier: GPL-2.0-only */
/* pprof out and in (convert/pprof.c, import/pprof.c) on synthesized raw
 * profiles: raw -> pprof -> raw gives the same objects, IP samples,
 * edges and stacks, marks included (and callers one byte on when taken
 * as call addresses, as Go writes them); a profile without stacks gives its IP
 * samples; a symbolized-only profile (built here with the protoc-c code)
 * is refused and says why; damaged files are named in one line.  What
 * protobuf-c takes to unpack is counted before it runs (the estimate
 * against a measured unpack, the allocator held to a limit), and 2 M
 * empty samples are refused as too large, in one line, in little memory;
 * PGOPROF_PPROF_MAX_MIB sets the limit. */
#include "check.h"
#include "capture.h"
#include "../../convert/pprof.h"
#include "../../convert/symbolize.h"
#include "../../import/pbcost.h"
#include "../../import/pprof.h"
#include "../../lib/util.h"
#include "../../raw/rawprof.h"
#include "pprof/profile.pb-c.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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
 * one location at address addr with a function name, nsamples samples of
 * it (value 4 each). */
static uint8_t *samples_at(uint64_t addr, size_t nsamples, size_t *len)
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
	Perftools__Profiles__Sample **sps = xcalloc(nsamples, sizeof(*sps));
	uint8_t *buf;

	vt.type = 1, vt.unit = 2;
	m.id = 1, m.memory_start = 0x1000, m.memory_limit = 0x2000, m.file_offset = 0;
	m.filename = 4, m.build_id = 5, m.has_functions = 1;
	fn.id = 1, fn.name = fn.system_name = 3;
	ln.function_id = 1, ln.line = 7;
	l.id = 1, l.mapping_id = 1, l.address = addr, l.n_line = 1, l.line = &lp;
	s.n_location_id = 1, s.location_id = ids, s.n_value = 1, s.value = val;
	pf.n_sample_type = 1, pf.sample_type = &vtp;
	for (size_t k = 0; k < nsamples; k++)
		sps[k] = sp;
	pf.n_sample = nsamples, pf.sample = sps;
	pf.n_mapping = 1, pf.mapping = &mp;
	pf.n_location = 1, pf.location = &locp;
	pf.n_function = 1, pf.function = &fp;
	pf.n_string_table = 6, pf.string_table = strs;
	*len = perftools__profiles__profile__get_packed_size(&pf);
	buf = xmalloc(*len);
	perftools__profiles__profile__pack(&pf, buf);
	free(sps);
	return buf;
}

static uint8_t *one_location(uint64_t addr, size_t *len)
{
	return samples_at(addr, 1, len);
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

/* protobuf-c's allocations as pprof_decode_cost() counts them
 * (pb_block()), the most at one time; each allocation keeps its size in
 * front. */
static uint64_t pb_used, pb_peak;

static void *pb_alloc(void *data, size_t n)
{
	size_t *a = malloc(n + 16);

	(void)data;
	a[0] = n;
	pb_used += pb_block(n);
	pb_peak = pb_used > pb_peak ? pb_used : pb_peak;
	return a + 2;
}

static void pb_free(void *data, void *p)
{
	(void)data;
	if (!p)
		return;
	pb_used -= pb_block(((size_t *)p - 2)[0]);
	free((size_t *)p - 2);
}

/* The peak of protobuf-c's unpack of buf, measured. */
static uint64_t unpack_peak(const uint8_t *buf, size_t len)
{
	ProtobufCAllocator a = { pb_alloc, pb_free, NULL };
	Perftools__Profiles__Profile *pf;

	pb_used = pb_peak = 0;
	pf = perftools__profiles__profile__unpack(&a, len, buf);
	CHECK(pf != NULL);
	if (pf)
		perftools__profiles__profile__free_unpacked(pf, &a);
	CHECK(pb_used == 0);
	return pb_peak;
}

/* n empty samples (field 2, length 0: 2 bytes each), after prefix. */
static uint8_t *empty_samples(const uint8_t *prefix, size_t plen, size_t n,
			      size_t *len)
{
	uint8_t *buf = xmalloc(plen + 2 * n);

	if (plen)
		memcpy(buf, prefix, plen);
	for (size_t k = 0; k < n; k++)
		buf[plen + 2 * k] = 0x12, buf[plen + 2 * k + 1] = 0;
	*len = plen + 2 * n;
	return buf;
}

/* A string table, a sample type, a mapping, a location of two lines, a
 * period type given twice (unpack merges it), unknown fields. */
static const uint8_t ODD[] = {
	0x32, 0x00, 0x32, 0x07, 's', 'a', 'm', 'p', 'l', 'e', 's',
	0x0a, 0x04, 0x08, 0x01, 0x10, 0x01,
	0x1a, 0x02, 0x08, 0x01,
	0x22, 0x11, 0x08, 0x01, 0x10, 0x01, 0x18, 0x80, 0x20,
	0x22, 0x02, 0x08, 0x01, 0x22, 0x04, 0x08, 0x01, 0x10, 0x07,
	0x5a, 0x02, 0x08, 0x01, 0x5a, 0x02, 0x10, 0x01,
	0x9a, 0x06, 0x03, 'a', 'b', 'c', 0xa0, 0x06, 0x2a,
};
/* A sample of 40 location ids not packed: more fields than unpack's 16 on
 * the stack. */
static const uint8_t LONG_SAMPLE[] = {
	0x12, 0x52,
	0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1,
	0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1,
	0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1,
	0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1,
	0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1, 0x08, 1,
	0x10, 0x01,
};

/* The estimate is what protobuf-c takes at its peak: at least, so that the
 * allocator's limit never stops a profile the estimate let in; at most an
 * eighth more (a field given twice, scratch). */
static void test_decode_cost(void)
{
	size_t len, n;
	uint8_t *one = samples_at(0x1234, 1000, &len), *odd;
	uint64_t est = pprof_decode_cost(one, len), peak = unpack_peak(one, len);

	CHECK(est >= peak && est <= peak + peak / 8);
	/* ODD, 30 empty samples (more than 16 fields), LONG_SAMPLE last: its
	 * scratch is freed when the message it is in is whole. */
	odd = empty_samples(ODD, sizeof(ODD), 30, &n);
	odd = xrealloc(odd, n + sizeof(LONG_SAMPLE));
	memcpy(odd + n, LONG_SAMPLE, sizeof(LONG_SAMPLE));
	n += sizeof(LONG_SAMPLE);
	est = pprof_decode_cost(odd, n), peak = unpack_peak(odd, n);
	CHECK(est >= peak && est <= peak + peak / 8);
	if (est < peak || est > peak + peak / 8)
		printf("  estimated %llu bytes, unpack took %llu\n",
		       (unsigned long long)est, (unsigned long long)peak);
	free(odd);
	odd = empty_samples(NULL, 0, 100000, &n);
	est = pprof_decode_cost(odd, n), peak = unpack_peak(odd, n);
	CHECK(est >= peak && est <= peak + peak / 8);
	CHECK(est / n > 50);	/* why counting bytes would not do */
	CHECK(pprof_decode_cost(odd, n - 1) == UINT64_MAX);	/* cut short */
	free(odd);
	free(one);
}

/* The second line: an allocator held to a limit fails unpack past it and
 * says so (over), lets it through at the estimate, and is back at 0 when
 * the profile is freed. */
static void test_counted_allocator(void)
{
	size_t len;
	uint8_t *buf = samples_at(0x1234, 1000, &len);
	uint64_t est = pprof_decode_cost(buf, len);
	Perftools__Profiles__Profile *pf;
	struct pb_counted c;

	pb_counted_init(&c, est / 2);
	CHECK(perftools__profiles__profile__unpack(&c.a, len, buf) == NULL);
	CHECK(c.over && !c.oom && c.at <= est / 2 && c.used == 0);
	pb_counted_init(&c, est);
	pf = perftools__profiles__profile__unpack(&c.a, len, buf);
	CHECK(pf && !c.over && c.used > 0 && c.used <= est);
	if (pf)
		perftools__profiles__profile__free_unpacked(pf, &c.a);
	CHECK(c.used == 0);
	free(buf);
}

static long max_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* Two million empty samples: 4 MB of protobuf that protobuf-c would make
 * 243 MB; refused before it runs, in one line naming the file. */
static void test_too_large(void)
{
	static const uint8_t shape[] = { 0x32, 0x00, 0x0a, 0x00 };
	struct raw_profile q;
	char msg[1024];
	size_t len;
	uint8_t *buf = empty_samples(shape, sizeof(shape), 2000000, &len);
	long rss = max_rss_kb();
	int rc;

	CHECK(pprof_probe_proto(buf, len) == 1);	/* it is shaped as one */
	raw_init(&q);
	capture_begin();
	rc = pprof_import(&q, buf, len, "empty.pb", NULL, PPROF_CALLERS_AUTO);
	capture_end(msg, sizeof(msg));
	CHECK(rc == -1 && q.nobjs == 0);
	CHECK(strstr(msg, "empty.pb: too large: 2000000 samples,") != NULL);
	CHECK(strstr(msg, "more than 122 MiB (32 bytes a byte of protobuf") != NULL);
	CHECK(strchr(msg, '\n') == msg + strlen(msg) - 1);
	CHECK(max_rss_kb() - rss < 64 * 1024);
	if (strstr(msg, "too large") == NULL)
		printf("  said: %s", msg);
	free(buf);
	raw_free(&q);
}

/* PGOPROF_PPROF_MAX_MIB sets the limit: 1 MiB refuses a profile of 20,000
 * samples (3.7 MB decoded), which imports without it. */
static void test_limit_env(void)
{
	struct raw_profile q;
	char msg[1024];
	size_t len;
	uint8_t *buf = samples_at(0x1234, 20000, &len);

	raw_init(&q);
	setenv("PGOPROF_PPROF_MAX_MIB", "1", 1);
	capture_begin();
	CHECK(pprof_import(&q, buf, len, "big.pb", NULL, PPROF_CALLERS_AUTO) == -1);
	capture_end(msg, sizeof(msg));
	CHECK(strstr(msg, "big.pb: too large: 20000 samples, 1 locations, 1 functions and 6 strings would take 3 MiB to decode, more than 1 MiB (PGOPROF_PPROF_MAX_MIB)\n") != NULL);
	setenv("PGOPROF_PPROF_MAX_MIB", "1x", 1);
	capture_begin();
	CHECK(pprof_import(&q, buf, len, "big.pb", NULL, PPROF_CALLERS_AUTO) == -1);
	capture_end(msg, sizeof(msg));
	CHECK(strstr(msg, "PGOPROF_PPROF_MAX_MIB=1x: give a positive number of MiB") != NULL);
	unsetenv("PGOPROF_PPROF_MAX_MIB");
	CHECK(q.nobjs == 0);
	CHECK(pprof_import(&q, buf, len, "big.pb", NULL, PPROF_CALLERS_AUTO) == 0);
	CHECK(raw_get_counter(&q, CNT_SAMPLES) == 80000);
	free(buf);
	raw_free(&q);
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

/* The unpacked Profile of the gzipped pprof file path (gzip -dc); NULL
 * if it does not unpack. */
static Perftools__Profiles__Profile *unpack_file(const char *path)
{
	char cmd[256];
	uint8_t *buf = NULL;
	size_t len = 0, n;
	FILE *f;
	Perftools__Profiles__Profile *pf = NULL;

	snprintf(cmd, sizeof(cmd), "gzip -dc %s", path);
	if (!(f = popen(cmd, "r")))
		return NULL;
	buf = xmalloc(1 << 20);
	while ((n = fread(buf + len, 1, (1 << 20) - len, f)) > 0)
		len += n;
	if (!pclose(f) && len < (1 << 20))
		pf = perftools__profiles__profile__unpack(NULL, len, buf);
	free(buf);
	return pf;
}

/* The Function of pf named name, or NULL. */
static Perftools__Profiles__Function *pf_function(Perftools__Profiles__Profile *pf,
						  const char *name)
{
	for (size_t i = 0; i < pf->n_function; i++)
		if (!strcmp(pf->string_table[pf->function[i]->name], name))
			return pf->function[i];
	return NULL;
}

/* A function of this test program, at a line it knows. */
enum { MARKER_LINE = __LINE__ + 2 };
__attribute__((noinline, used)) int pprof_marker(int x);
__attribute__((noinline, used)) int pprof_marker(int x)
{
	return x * 3 + 1;
}

struct insn_list {
	uint64_t v[256];
	size_t n;
};

static void list_insn(uint64_t vaddr, uint32_t len, void *arg)
{
	struct insn_list *l = arg;

	(void)len;
	if (l->n < 256)
		l->v[l->n++] = vaddr;
}

/* A raw profile of this program (by its build-ID): n samples at the
 * entry of pprof_marker; with ninsns, instead a range of n executions
 * over all of it, and its instructions in *ninsns.  0, or -1 if the
 * program cannot be read. */
static int self_profile_at(struct raw_profile *p, uint64_t n, size_t *ninsns)
{
	struct symbolizer *s = sym_open("/proc/self/exe", NULL, 1);
	const struct load_seg *segs;
	const uint8_t *id;
	uint64_t off;
	size_t len;
	long fn;
	int nseg, rc = -1;

	raw_init(p);
	raw_set_meta(p, "sample_freq", "1000");
	if (!s)
		return -1;
	segs = sym_segments(s, &nseg);
	id = sym_build_id(s, &len);
	fn = sym_function_by_name(s, "pprof_marker");
	if (id && fn >= 0 &&
	    !vaddr_to_offset(segs, nseg, sym_function_entry(s, fn), &off)) {
		uint32_t obj = raw_object(p, id, (uint32_t)len, "/proc/self/exe");
		struct insn_list l = { .n = 0 };
		uint64_t last;

		if (!ninsns) {
			raw_add_ip(&p->objs[obj], off, n);
			rc = 0;
		} else if (sym_function_insns(s, fn, list_insn, &l) > 1 && l.n < 256 &&
			   !vaddr_to_offset(segs, nseg, l.v[l.n - 1], &last)) {
			raw_add_range(&p->objs[obj], off, last, n);
			*ninsns = l.n;
			rc = 0;
		}
		raw_normalize(p);
	}
	sym_close(s);
	return rc;
}

static int self_profile(struct raw_profile *p, uint64_t n)
{
	return self_profile_at(p, n, NULL);
}

/* Functions have their file and start line, so that 'go tool pprof
 * -list' finds the source (issue 31, item 2). */
static void test_function_file(void)
{
	const char *bins[] = { "/proc/self/exe" };
	struct pprof_write_opts o = { .raw_name = "self", .quiet = 1,
				      .binaries = bins, .nbinaries = 1 };
	struct raw_profile p;
	Perftools__Profiles__Profile *pf;
	Perftools__Profiles__Function *f;
	const char *file;
	char msg[1024];

	CHECK(pprof_marker(1) == 4);
	CHECK(self_profile(&p, 5) == 0);
	capture_begin();
	CHECK(pprof_write_file(&p, tmp, &o) == 0);
	capture_end(msg, sizeof(msg));
	CHECK((pf = unpack_file(tmp)) != NULL);
	if (pf) {
		f = pf_function(pf, "pprof_marker");
		CHECK(f != NULL);
		file = f ? pf->string_table[f->filename] : "";
		CHECK(f && f->start_line == MARKER_LINE);
		CHECK(file[0] == '/' && strstr(file, "tests/unit/test_pprof.c"));
		CHECK(pf->n_mapping && pf->mapping[0]->has_filenames);
		perftools__profiles__profile__free_unpacked(pf, NULL);
	}
	raw_free(&p);
}

/* A profile of ranges only (branch records without IP samples): each
 * instruction of a range decoded from the binary, a sample of its
 * executions, of type instructions/count (issue 31, item 4). */
static void test_ranges_only(void)
{
	const char *bins[] = { "/proc/self/exe" };
	struct pprof_write_opts o = { .raw_name = "self", .quiet = 1,
				      .binaries = bins, .nbinaries = 1 };
	struct raw_profile p;
	Perftools__Profiles__Profile *pf;
	char msg[1024];
	size_t n = 0;

	CHECK(self_profile_at(&p, 7, &n) == 0 && n > 1);
	capture_begin();
	CHECK(pprof_write_file(&p, tmp, &o) == 0);
	capture_end(msg, sizeof(msg));
	CHECK((pf = unpack_file(tmp)) != NULL);
	if (pf) {
		CHECK(pf->n_sample_type == 1 &&
		      !strcmp(pf->string_table[pf->sample_type[0]->type], "instructions") &&
		      !strcmp(pf->string_table[pf->sample_type[0]->unit], "count"));
		CHECK(pf->n_sample == n && pf->n_location == n);
		for (size_t i = 0; i < pf->n_sample; i++)
			CHECK(pf->sample[i]->n_value == 1 && pf->sample[i]->value[0] == 7);
		CHECK(pf_function(pf, "pprof_marker") != NULL);
		perftools__profiles__profile__free_unpacked(pf, NULL);
	}
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
	RUN(test_decode_cost);
	RUN(test_counted_allocator);
	RUN(test_too_large);
	RUN(test_limit_env);
	RUN(test_gzip_trailing);
	RUN(test_function_file);
	RUN(test_ranges_only);
	if (!getenv("KEEP")) unlink(tmp); else printf("%s\n", tmp);
	return tests_failed ? 1 : 0;
}
