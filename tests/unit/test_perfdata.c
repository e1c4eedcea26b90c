/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof import: perf.data files written here, in memory, by a small
 * writer of the format (tools/perf/Documentation/perf.data-file-format.txt,
 * include/uapi/linux/perf_event.h), imported, and checked IP by IP, edge by
 * edge, range by range; then every truncation and byte flip of them must
 * give a clean one-line error with a byte offset, never a crash (ASan). */
#include "check.h"
#include "capture.h"
#include "../../proc/buildid.h"
#include "../../import/perfdata/perfdata.h"
#include "../../lib/bytes.h"
#include "../../lib/util.h"
#include "../../raw/rawprof.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the format's numbers ---- */
enum {
	S_IP = 1 << 0, S_TID = 1 << 1, S_TIME = 1 << 2, S_ADDR = 1 << 3,
	S_READ = 1 << 4, S_CALLCHAIN = 1 << 5, S_ID = 1 << 6, S_CPU = 1 << 7,
	S_PERIOD = 1 << 8, S_STREAM_ID = 1 << 9, S_RAW = 1 << 10,
	S_BRANCH_STACK = 1 << 11, S_REGS_USER = 1 << 12,
	S_STACK_USER = 1 << 13, S_IDENTIFIER = 1 << 16,
};
#define A_FREQ (1ULL << 10)
#define A_SAMPLE_ID_ALL (1ULL << 18)
#define A_MMAP2 (1ULL << 23)
#define A_COMM_EXEC (1ULL << 24)
#define A_BUILD_ID (1ULL << 34)
#define BR_USER (1ULL << 0)
#define BR_ANY (1ULL << 3)
#define BR_CALL_STACK (1ULL << 11)
#define BR_HW_INDEX (1ULL << 17)
#define RF_TOTAL_TIME_ENABLED 1
#define RF_ID 4
#define RF_GROUP 8
#define CTX_KERNEL ((uint64_t)-128)
#define CTX_USER ((uint64_t)-512)
#define MISC_KERNEL 1
#define MISC_USER 2
#define MISC_COMM_EXEC (1 << 13)
#define MISC_MMAP_BUILD_ID (1 << 14)
#define MISC_BUILD_ID_SIZE (1 << 15)

/* ---- a perf.data writer ---- */

struct tattr {
	uint32_t type;
	uint64_t config, period, st, rf, flags, bst;
	uint64_t regs;	/* sample_regs_user */
	uint64_t ids[4];
	int nids;
};

struct tfile {
	struct tattr attrs[4];
	int nattrs;
	const struct tattr *cur;	/* the attr of the records written next */
	uint64_t cur_id;
	struct wbuf data;
	struct wbuf feat[32];
	int has_feat[32];
};

static void tf_init(struct tfile *f)
{
	memset(f, 0, sizeof(*f));
}

static void tf_free(struct tfile *f)
{
	free(f->data.data);
	for (int i = 0; i < 32; i++)
		free(f->feat[i].data);
}

static struct tattr *tf_attr(struct tfile *f, uint32_t type, uint64_t config,
			     uint64_t st, uint64_t flags)
{
	struct tattr *a = &f->attrs[f->nattrs++];

	memset(a, 0, sizeof(*a));
	a->type = type;
	a->config = config;
	a->period = 999;
	a->st = st;
	a->flags = flags;
	f->cur = a;
	return a;
}

static void put_attr(struct wbuf *b, const struct tattr *a)
{
	size_t at = b->len;

	wb_u32(b, a->type);
	wb_u32(b, 128);
	wb_u64(b, a->config);
	wb_u64(b, a->period);
	wb_u64(b, a->st);
	wb_u64(b, a->rf);
	wb_u64(b, a->flags);
	wb_u32(b, 0);	/* wakeup_events */
	wb_u32(b, 0);	/* bp_type */
	wb_u64(b, 0);	/* config1 */
	wb_u64(b, 0);	/* config2 */
	wb_u64(b, a->bst);
	wb_u64(b, a->regs);
	while (b->len < at + 128)
		wb_u8(b, 0);
}

static size_t rec_begin(struct tfile *f, uint32_t type, uint16_t misc)
{
	size_t at = f->data.len;

	wb_u32(&f->data, type);
	wb_u8(&f->data, (uint8_t)misc);
	wb_u8(&f->data, (uint8_t)(misc >> 8));
	wb_u8(&f->data, 0);
	wb_u8(&f->data, 0);
	return at;
}

static void rec_end(struct tfile *f, size_t at)
{
	size_t size = f->data.len - at;

	f->data.data[at + 6] = (uint8_t)size;
	f->data.data[at + 7] = (uint8_t)(size >> 8);
}

/* The sample_id_all trailer of a non-sample record. */
static void trailer(struct tfile *f, uint32_t pid, uint32_t tid, uint64_t time)
{
	uint64_t st = f->cur->st;

	if (!(f->cur->flags & A_SAMPLE_ID_ALL))
		return;
	if (st & S_TID) {
		wb_u32(&f->data, pid);
		wb_u32(&f->data, tid);
	}
	if (st & S_TIME)
		wb_u64(&f->data, time);
	if (st & S_ID)
		wb_u64(&f->data, f->cur_id);
	if (st & S_STREAM_ID)
		wb_u64(&f->data, 0);
	if (st & S_CPU)
		wb_u64(&f->data, 0);
	if (st & S_IDENTIFIER)
		wb_u64(&f->data, f->cur_id);
}

/* A NUL-terminated name padded to 8 bytes. */
static void put_name(struct wbuf *b, const char *s)
{
	size_t n = strlen(s) + 1;

	wb_bytes(b, s, n);
	while (n++ % 8)
		wb_u8(b, 0);
}

static void t_mmap2(struct tfile *f, uint16_t misc, uint32_t pid, uint64_t addr,
		    uint64_t len, uint64_t pgoff, const uint8_t *id, int idlen,
		    uint32_t prot, const char *path, uint64_t time)
{
	size_t at = rec_begin(f, 10, (uint16_t)(MISC_USER | misc | (id ? MISC_MMAP_BUILD_ID : 0)));

	wb_u32(&f->data, pid);
	wb_u32(&f->data, pid);
	wb_u64(&f->data, addr);
	wb_u64(&f->data, len);
	wb_u64(&f->data, pgoff);
	if (id) {
		uint8_t b[24] = { (uint8_t)idlen };

		memcpy(b + 4, id, (size_t)idlen);
		wb_bytes(&f->data, b, 24);
	} else {
		wb_u32(&f->data, 254);	/* maj */
		wb_u32(&f->data, 1);	/* min */
		wb_u64(&f->data, 12345);	/* ino */
		wb_u64(&f->data, 0xdeadbeef);	/* ino generation */
	}
	wb_u32(&f->data, prot);
	wb_u32(&f->data, 2);	/* MAP_PRIVATE */
	put_name(&f->data, path);
	trailer(f, pid, pid, time);
	rec_end(f, at);
}

static void t_mmap(struct tfile *f, uint32_t pid, uint64_t addr, uint64_t len,
		   uint64_t pgoff, const char *path, uint64_t time)
{
	size_t at = rec_begin(f, 1, MISC_USER);

	wb_u32(&f->data, pid);
	wb_u32(&f->data, pid);
	wb_u64(&f->data, addr);
	wb_u64(&f->data, len);
	wb_u64(&f->data, pgoff);
	put_name(&f->data, path);
	trailer(f, pid, pid, time);
	rec_end(f, at);
}

static void t_comm(struct tfile *f, uint32_t pid, int exec, const char *comm,
		   uint64_t time)
{
	size_t at = rec_begin(f, 3, exec ? MISC_COMM_EXEC : 0);

	wb_u32(&f->data, pid);
	wb_u32(&f->data, pid);
	put_name(&f->data, comm);
	trailer(f, pid, pid, time);
	rec_end(f, at);
}

static void t_fork(struct tfile *f, uint32_t pid, uint32_t ppid, uint32_t tid,
		   uint64_t time)
{
	size_t at = rec_begin(f, 7, 0);

	wb_u32(&f->data, pid);
	wb_u32(&f->data, ppid);
	wb_u32(&f->data, tid);
	wb_u32(&f->data, ppid);
	wb_u64(&f->data, time);
	trailer(f, pid, tid, time);
	rec_end(f, at);
}

static void t_lost(struct tfile *f, uint64_t n, uint64_t time)
{
	size_t at = rec_begin(f, 2, 0);

	wb_u64(&f->data, f->cur_id);
	wb_u64(&f->data, n);
	trailer(f, 0, 0, time);
	rec_end(f, at);
}

static void t_raw(struct tfile *f, uint32_t type, size_t payload)
{
	size_t at = rec_begin(f, type, 0);

	for (size_t i = 0; i < payload; i++)
		wb_u8(&f->data, (uint8_t)i);
	rec_end(f, at);
}

static void t_round(struct tfile *f)
{
	rec_end(f, rec_begin(f, 68, 0));
}

/* HEADER_BUILD_ID record (perf inject -b), or a feature entry. */
static void put_build_id(struct wbuf *b, uint16_t misc, int32_t pid,
			 const uint8_t *id, int len, const char *path)
{
	size_t at = b->len, size;
	uint8_t bid[24] = { 0 };

	wb_u32(b, 67);
	wb_u8(b, (uint8_t)misc);
	wb_u8(b, (uint8_t)((misc | MISC_BUILD_ID_SIZE) >> 8));
	wb_u8(b, 0);
	wb_u8(b, 0);
	wb_u32(b, (uint32_t)pid);
	memcpy(bid, id, (size_t)len);
	bid[20] = (uint8_t)len;
	wb_bytes(b, bid, 24);
	put_name(b, path);
	size = b->len - at;
	b->data[at + 6] = (uint8_t)size;
	b->data[at + 7] = (uint8_t)(size >> 8);
}

struct tsample {
	uint16_t misc;
	uint64_t ip;
	uint32_t pid;
	uint64_t time;
	const uint64_t *chain;
	int nchain;
	const uint64_t (*br)[2];
	int nbr;
};

static void t_sample(struct tfile *f, const struct tsample *s)
{
	const struct tattr *a = f->cur;
	uint64_t st = a->st;
	size_t at = rec_begin(f, 9, s->misc ? s->misc : MISC_USER);

	if (st & S_IDENTIFIER)
		wb_u64(&f->data, f->cur_id);
	if (st & S_IP)
		wb_u64(&f->data, s->ip);
	if (st & S_TID) {
		wb_u32(&f->data, s->pid);
		wb_u32(&f->data, s->pid);
	}
	if (st & S_TIME)
		wb_u64(&f->data, s->time);
	if (st & S_ADDR)
		wb_u64(&f->data, 0x1234);
	if (st & S_ID)
		wb_u64(&f->data, f->cur_id);
	if (st & S_STREAM_ID)
		wb_u64(&f->data, 77);
	if (st & S_CPU)
		wb_u64(&f->data, 1);
	if (st & S_PERIOD)
		wb_u64(&f->data, 1000);
	if (st & S_READ) {	/* GROUP | ID | TOTAL_TIME_ENABLED, 2 events */
		wb_u64(&f->data, 2);
		wb_u64(&f->data, 5555);
		for (int i = 0; i < 2; i++) {
			wb_u64(&f->data, 100 + i);
			wb_u64(&f->data, f->cur_id);
		}
	}
	if (st & S_CALLCHAIN) {
		wb_u64(&f->data, (uint64_t)s->nchain);
		for (int i = 0; i < s->nchain; i++)
			wb_u64(&f->data, s->chain[i]);
	}
	if (st & S_RAW) {
		wb_u32(&f->data, 4);
		wb_u32(&f->data, 0xabcdef);
	}
	if (st & S_BRANCH_STACK) {
		wb_u64(&f->data, (uint64_t)s->nbr);
		if (a->bst & BR_HW_INDEX)
			wb_u64(&f->data, 3);
		for (int i = 0; i < s->nbr; i++) {
			wb_u64(&f->data, s->br[i][0]);
			wb_u64(&f->data, s->br[i][1]);
			wb_u64(&f->data, 1);	/* flags: mispred */
		}
	}
	rec_end(f, at);
}

static void feat_string(struct tfile *f, int bit, const char *s)
{
	size_t n = strlen(s) + 1, padded = (n + 63) / 64 * 64;

	f->has_feat[bit] = 1;
	wb_u32(&f->feat[bit], (uint32_t)padded);
	wb_bytes(&f->feat[bit], s, n);
	while (n++ < padded)
		wb_u8(&f->feat[bit], 0);
}

static void feat_event_desc(struct tfile *f, const char *const *names)
{
	struct wbuf *b = &f->feat[12];

	f->has_feat[12] = 1;
	wb_u32(b, (uint32_t)f->nattrs);
	wb_u32(b, 128);
	for (int i = 0; i < f->nattrs; i++) {
		size_t n = strlen(names[i]) + 1, padded = (n + 7) / 8 * 8;

		put_attr(b, &f->attrs[i]);
		wb_u32(b, (uint32_t)f->attrs[i].nids);
		wb_u32(b, (uint32_t)padded);
		wb_bytes(b, names[i], n);
		while (n++ < padded)
			wb_u8(b, 0);
		for (int j = 0; j < f->attrs[i].nids; j++)
			wb_u64(b, f->attrs[i].ids[j]);
	}
}

/* The whole file: header, attrs and their IDs, data, feature table and
 * sections (the last one ends the file, so that every prefix is short). */
static struct wbuf tf_file(const struct tfile *f)
{
	struct wbuf b = { 0 };
	size_t ids_at, data_at, nfeat = 0;

	wb_bytes(&b, "PERFILE2", 8);
	wb_u64(&b, 104);
	wb_u64(&b, 144);
	wb_u64(&b, 104);
	wb_u64(&b, (uint64_t)f->nattrs * 144);
	ids_at = 104 + (size_t)f->nattrs * 144;
	data_at = ids_at;
	for (int i = 0; i < f->nattrs; i++)
		data_at += 8 * (size_t)f->attrs[i].nids;
	wb_u64(&b, data_at);
	wb_u64(&b, f->data.len);
	wb_u64(&b, 0);
	wb_u64(&b, 0);
	for (int w = 0; w < 4; w++) {
		uint64_t bits = 0;

		for (int i = 0; i < 32; i++)
			if (f->has_feat[i] && i / 64 == w)
				bits |= 1ULL << (i % 64);
		wb_u64(&b, bits);
	}
	for (int i = 0, at = (int)ids_at; i < f->nattrs; i++) {
		put_attr(&b, &f->attrs[i]);
		wb_u64(&b, (uint64_t)at);
		wb_u64(&b, 8 * (uint64_t)f->attrs[i].nids);
		at += 8 * f->attrs[i].nids;
	}
	for (int i = 0; i < f->nattrs; i++)
		for (int j = 0; j < f->attrs[i].nids; j++)
			wb_u64(&b, f->attrs[i].ids[j]);
	wb_bytes(&b, f->data.data, f->data.len);
	for (int i = 0; i < 32; i++)
		nfeat += f->has_feat[i];
	size_t sec = b.len + 16 * nfeat;
	for (int i = 0; i < 32; i++) {
		if (!f->has_feat[i])
			continue;
		wb_u64(&b, sec);
		wb_u64(&b, f->feat[i].len);
		sec += f->feat[i].len;
	}
	for (int i = 0; i < 32; i++)
		if (f->has_feat[i])
			wb_bytes(&b, f->feat[i].data, f->feat[i].len);
	return b;
}

/* Pipe mode: a 16-byte header, HEADER_ATTR and HEADER_FEATURE records,
 * then the data (perf record -o -). */
static struct wbuf tf_pipe(const struct tfile *f)
{
	struct wbuf b = { 0 };

	wb_bytes(&b, "PERFILE2", 8);
	wb_u64(&b, 16);
	for (int i = 0; i < f->nattrs; i++) {
		size_t at = b.len, size;

		wb_u32(&b, 64);
		wb_u32(&b, 0);
		put_attr(&b, &f->attrs[i]);
		for (int j = 0; j < f->attrs[i].nids; j++)
			wb_u64(&b, f->attrs[i].ids[j]);
		size = b.len - at;
		b.data[at + 6] = (uint8_t)size;
		b.data[at + 7] = (uint8_t)(size >> 8);
	}
	for (int i = 0; i < 32; i++) {
		size_t at = b.len, size;

		if (!f->has_feat[i] || i == 2)	/* build-IDs: records */
			continue;
		wb_u32(&b, 80);
		wb_u32(&b, 0);
		wb_u64(&b, (uint64_t)i);
		wb_bytes(&b, f->feat[i].data, f->feat[i].len);
		size = b.len - at;
		b.data[at + 6] = (uint8_t)size;
		b.data[at + 7] = (uint8_t)(size >> 8);
	}
	if (f->has_feat[2])
		wb_bytes(&b, f->feat[2].data, f->feat[2].len);
	wb_bytes(&b, f->data.data, f->data.len);
	return b;
}

/* ---- running the importer with its messages captured ---- */

static char errbuf[4096];

static int import_capture(struct raw_profile *p, const uint8_t *buf, size_t len,
			  const struct perfdata_options *opt)
{
	int rc;

	capture_begin();
	rc = perfdata_import(p, buf, len, "t.data", opt);
	capture_end(errbuf, sizeof(errbuf));
	return rc;
}

static int count_lines(const char *s, const char *with)
{
	int n = 0;

	for (const char *l = s; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);

		if (!with || memmem(l, len, with, strlen(with)))
			n++;
		l += len + (e ? 1 : 0);
	}
	return n;
}

/* ---- comparing profiles ---- */

static int same_objects(struct raw_profile *got, struct raw_profile *want)
{
	int ok = got->nobjs == want->nobjs;

	raw_normalize(got);
	raw_normalize(want);
	if (!ok)
		printf("  %zu objects, want %zu\n", got->nobjs, want->nobjs);
	for (size_t i = 0; ok && i < got->nobjs; i++) {
		const struct raw_object *g = &got->objs[i], *w = &want->objs[i];

		ok = g->id_kind == w->id_kind && g->build_id_len == w->build_id_len &&
		     !memcmp(g->build_id, w->build_id, g->build_id_len) &&
		     g->nips == w->nips && g->nedges == w->nedges &&
		     g->nranges == w->nranges && g->nbranches == w->nbranches;
		for (size_t j = 0; ok && j < g->nips; j++)
			ok = g->ips[j].offset == w->ips[j].offset &&
			     g->ips[j].count == w->ips[j].count;
		for (size_t j = 0; ok && j < g->nedges; j++)
			ok = g->edges[j].ret_offset == w->edges[j].ret_offset &&
			     g->edges[j].callee_obj == w->edges[j].callee_obj &&
			     g->edges[j].callee_offset == w->edges[j].callee_offset &&
			     g->edges[j].count == w->edges[j].count;
		for (size_t j = 0; ok && j < g->nranges; j++)
			ok = g->ranges[j].begin == w->ranges[j].begin &&
			     g->ranges[j].end == w->ranges[j].end &&
			     g->ranges[j].count == w->ranges[j].count;
		for (size_t j = 0; ok && j < g->nbranches; j++)
			ok = g->branches[j].from == w->branches[j].from &&
			     g->branches[j].to_obj == w->branches[j].to_obj &&
			     g->branches[j].to == w->branches[j].to &&
			     g->branches[j].count == w->branches[j].count;
	}
	if (!ok) {
		printf("  got:\n");
		raw_print(got, stdout);
		printf("  want:\n");
		raw_print(want, stdout);
	}
	return ok;
}

/* samples.taken = IPs + unattributed.* + samples.lost */
static int invariant_holds(const struct raw_profile *p)
{
	uint64_t sum = raw_get_counter(p, CNT_LOST);

	for (size_t i = 0; i < p->nobjs; i++)
		for (size_t j = 0; j < p->objs[i].nips; j++)
			sum += p->objs[i].ips[j].count;
	for (size_t i = 0; i < p->ncounters; i++)
		if (!strncmp(p->counters[i].name, CNT_UNATTR, strlen(CNT_UNATTR)))
			sum += p->counters[i].value;
	return sum == raw_get_counter(p, CNT_SAMPLES);
}

static const char *meta(const struct raw_profile *p, const char *key)
{
	const char *v = raw_get_meta(p, key);

	return v ? v : "(none)";
}

/* ---- the test files ---- */

static uint8_t EXE[20], LIB[20], HDR[20], SELF[RAW_BUILD_ID_MAX];
static uint32_t self_len;
static char self_path[PATH_MAX];

static void init_ids(void)
{
	ssize_t n;
	int fd;

	memset(EXE, 0x11, 20);
	memset(LIB, 0x22, 20);
	memset(HDR, 0x33, 20);
	n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	self_path[n > 0 ? n : 0] = '\0';
	fd = open(self_path, O_RDONLY);
	if (fd < 0 || buildid_read_fd(fd, SELF, sizeof(SELF), &self_len))
		self_len = 0;
	if (fd >= 0)
		close(fd);
}

#define X(a) (0x555555554000ULL + (a) - 0x1000)	/* exe: pgoff 0x1000 */
#define L(a) (0x7f0000001000ULL + (a) - 0x2000)	/* lib: pgoff 0x2000 */

/* Call chains (perf record -g), file mode, time-ordered, with processes
 * that fork and exec and a second load address of the same binary. */
static void make_stack_file(struct tfile *f, uint64_t extra_flags)
{
	static const char *const names[] = { "cpu-clock:u" };
	uint64_t c1[] = { CTX_USER, X(0x1100), X(0x1200), L(0x2500) };
	uint64_t c2[] = { CTX_KERNEL, 0xffffffff81000010ULL, CTX_USER, X(0x1100),
			  L(0x2600) };
	uint64_t c3[] = { CTX_USER, 0x7f0000010040ULL, 0, X(0x1300) };
	uint64_t c4[] = { CTX_USER, 0x7fff00000010ULL, X(0x1300) };
	uint64_t c5[] = { CTX_USER, 0x7f0000030010ULL };
	uint64_t c6[] = { CTX_USER, 0x1000 };
	uint64_t c7[] = { CTX_USER, 0x7f0000020010ULL, X(0x1400) };
	uint64_t c9[] = { CTX_USER, X(0x1100) };
	uint64_t c10[] = { CTX_USER, 0x560000000100ULL, 0x560000000280ULL };
	struct tattr *a;

	tf_init(f);
	a = tf_attr(f, 1, 0, S_IP | S_TID | S_TIME | S_CALLCHAIN | S_PERIOD,
		    A_FREQ | A_SAMPLE_ID_ALL | A_MMAP2 | A_COMM_EXEC | extra_flags);
	a->ids[a->nids++] = 620;
	a->ids[a->nids++] = 621;
	f->cur_id = 620;

	t_comm(f, 100, 0, "sh", 0);	/* synthesized: time 0 */
	t_raw(f, 200, 8);		/* unknown types are skipped */
	t_raw(f, 30, 0);
	t_comm(f, 100, 1, "prog", 10);
	/* A sample written before the mappings it needs but later in time:
	 * the round's order puts it after them. */
	t_sample(f, &(struct tsample){ 0, X(0x1100), 100, 20, c1, 4, NULL, 0 });
	t_mmap2(f, 0, 100, 0x555555554000ULL, 0x2000, 0x1000, EXE, 20, 5, "/opt/prog", 11);
	t_mmap2(f, 0, 100, 0x7f0000001000ULL, 0x3000, 0x2000, LIB, 20, 5, "/opt/lib.so", 12);
	t_mmap2(f, 0, 100, 0x7f0000010000ULL, 0x1000, 0, NULL, 0, 5, "/opt/hdr.so", 13);
	t_mmap2(f, 0, 100, 0x7fff00000000ULL, 0x1000, 0, NULL, 0, 5, "[vdso]", 14);
	t_mmap2(f, 0, 100, 0x7f0000030000ULL, 0x1000, 0, NULL, 0, 5, "/nonexistent/lib.so", 15);
	t_mmap2(f, 0x2000, 100, 0x7f0000040000ULL, 0x1000, 0, NULL, 0, 3, "/opt/data", 16);
	t_mmap2(f, 0, 100, 0x7f0000020000ULL, 0x1000, 0, NULL, 0, 5, self_path, 17);
	t_sample(f, &(struct tsample){ MISC_KERNEL, 0xffffffff81000010ULL, 100, 21, c2, 5, NULL, 0 });
	t_round(f);
	t_sample(f, &(struct tsample){ 0, 0x7f0000010040ULL, 100, 22, c3, 4, NULL, 0 });
	t_sample(f, &(struct tsample){ 0, 0x7fff00000010ULL, 100, 23, c4, 3, NULL, 0 });
	t_sample(f, &(struct tsample){ 0, 0x7f0000030010ULL, 100, 24, c5, 2, NULL, 0 });
	t_sample(f, &(struct tsample){ 0, 0x1000, 100, 25, c6, 2, NULL, 0 });
	t_sample(f, &(struct tsample){ 0, 0x7f0000020010ULL, 100, 26, c7, 3, NULL, 0 });
	t_sample(f, &(struct tsample){ 0, X(0x1500), 100, 27, NULL, 0, NULL, 0 });
	t_lost(f, 5, 28);
	t_round(f);
	/* pid 200: a child of 100, with its mappings. */
	t_fork(f, 200, 100, 200, 30);
	t_fork(f, 200, 200, 201, 30);	/* a thread */
	t_sample(f, &(struct tsample){ 0, X(0x1100), 200, 31, c9, 2, NULL, 0 });
	/* pid 300: the same binary at another address. */
	t_comm(f, 300, 1, "prog", 40);
	t_mmap2(f, 0, 300, 0x560000000000ULL, 0x2000, 0x1000, EXE, 20, 5, "/opt/prog", 41);
	t_sample(f, &(struct tsample){ 0, 0x560000000100ULL, 300, 42, c10, 3, NULL, 0 });
	t_round(f);
	/* pid 100 runs another program: its old mappings are gone. */
	t_comm(f, 100, 1, "other", 50);
	t_sample(f, &(struct tsample){ 0, X(0x1100), 100, 51, c9, 2, NULL, 0 });
	t_sample(f, &(struct tsample){ 0, X(0x1100), 999, 52, c9, 2, NULL, 0 });
	t_round(f);

	f->has_feat[2] = 1;
	put_build_id(&f->feat[2], MISC_KERNEL, -1, HDR, 20, "[kernel.kallsyms]");
	put_build_id(&f->feat[2], MISC_USER, -1, HDR, 20, "/opt/hdr.so");
	feat_string(f, 3, "testhost");
	feat_string(f, 4, "6.1.0-test");
	feat_string(f, 5, "6.1.192");
	feat_string(f, 6, "x86_64");
	feat_event_desc(f, names);
	f->has_feat[21] = 1;
	wb_u64(&f->feat[21], 1000000000ULL);
	wb_u64(&f->feat[21], 3500000000ULL);
}

/* The objects of make_stack_file: self (this test program, whose
 * build-ID is read from the file when local files may be read) and the
 * library that exists nowhere are known by their paths without one. */
static void want_stack(struct raw_profile *w, int self_by_id)
{
	uint32_t exe, lib, hdr, self, none;

	raw_init(w);
	exe = raw_object(w, EXE, 20, "/opt/prog");
	lib = raw_object(w, LIB, 20, "/opt/lib.so");
	hdr = raw_object(w, HDR, 20, "/opt/hdr.so");
	raw_add_ip(&w->objs[exe], 0x1100, 3);	/* pids 100, 200, 300 */
	raw_add_ip(&w->objs[exe], 0x1500, 1);	/* no call chain: the IP */
	raw_add_edge(&w->objs[exe], 0x1200, exe, 0x1100, 1);
	raw_add_edge(&w->objs[lib], 0x2500, exe, 0x11ff, 1);
	raw_add_edge(&w->objs[exe], 0x1280, exe, 0x1100, 1);	/* pid 300 */
	/* The kernel sample: no IP sample, but the edge into the user IP
	 * that entered the kernel (not a return address: no -1), as
	 * pgoprof-record writes it. */
	raw_add_edge(&w->objs[lib], 0x2600, exe, 0x1100, 1);
	raw_add_ip(&w->objs[hdr], 0x40, 1);
	none = raw_path_object(w, "/nonexistent/lib.so");
	raw_add_ip(&w->objs[none], 0x10, 1);
	self = self_by_id ? raw_object(w, SELF, self_len, self_path)
			  : raw_path_object(w, self_path);
	raw_add_ip(&w->objs[self], 0x10, 1);
	raw_add_edge(&w->objs[exe], 0x1400, self, 0x10, 1);
}

/* make_stack_file's sample in the kernel is one stack, as pgoprof-record
 * keeps it (collector/collect.c add_stack()): the kernel mark, then the
 * user IP that entered the kernel and its caller. */
static int kernel_stack_ok(const struct raw_profile *p)
{
	int n = 0;

	for (size_t i = 0; i < p->stacks.n; i++) {
		const struct raw_stack *s = &p->stacks.v[i];
		const struct raw_frame *f = raw_stack_frames(p, s);

		if (f[0].obj != RAW_FRAME_KERNEL)
			continue;
		n++;
		if (s->count != 1 || s->depth != 3 || f[1].obj >= p->nobjs ||
		    f[2].obj >= p->nobjs || f[1].offset != 0x1100 ||
		    f[2].offset != 0x2600 ||
		    strcmp(p->objs[f[1].obj].path, "/opt/prog") ||
		    strcmp(p->objs[f[2].obj].path, "/opt/lib.so"))
			return 0;
	}
	return n == 1;
}

static void test_call_chains(void)
{
	struct tfile f;
	struct wbuf b;
	struct raw_profile p, w;

	make_stack_file(&f, A_BUILD_ID);
	b = tf_file(&f);
	raw_init(&p);
	CHECK(import_capture(&p, b.data, b.len, NULL) == 0);
	CHECK(errbuf[0] == '\0');
	want_stack(&w, self_len > 0);
	CHECK(same_objects(&p, &w));
	CHECK(raw_get_counter(&p, CNT_SAMPLES) == 12 + 5);
	CHECK(raw_get_counter(&p, CNT_LOST) == 5);
	CHECK(raw_get_counter(&p, "unattributed.kernel") == 1);
	CHECK(kernel_stack_ok(&p));
	CHECK(raw_get_counter(&p, "unattributed.anonymous") == 1);
	CHECK(raw_get_counter(&p, "unattributed.no_build_id") == 0);
	CHECK(raw_get_counter(&p, "unattributed.no_mapping") == 3);
	CHECK(raw_get_counter(&p, "edges.unattributed") == 1);
	CHECK(raw_get_counter(&p, "import.unknown_records") == 2);
	CHECK(raw_get_counter(&p, "import.build_id_from_file") == (self_len > 0));
	CHECK(raw_get_counter(&p, "duration_ms") == 2500);
	CHECK(invariant_holds(&p));
	CHECK(!strcmp(meta(&p, "host"), "testhost"));
	CHECK(!strcmp(meta(&p, "kernel"), "Linux 6.1.0-test x86_64"));
	CHECK(!strcmp(meta(&p, "event"), "cpu-clock:u"));
	CHECK(!strcmp(meta(&p, "mode"), "import-stack"));
	CHECK(!strcmp(meta(&p, "sample_freq"), "999"));
	CHECK(!strcmp(meta(&p, "source"), "t.data"));
	CHECK(!strcmp(meta(&p, "recorder"), "perf 6.1.192"));
	raw_free(&p);
	raw_free(&w);
	free(b.data);
	tf_free(&f);
}

/* --no-local-files: the mapping of a file whose build-ID the perf.data
 * file does not give is known by its path alone. */
static void test_no_local_files(void)
{
	struct perfdata_options opt = { .no_local_files = 1 };
	struct tfile f;
	struct wbuf b;
	struct raw_profile p, w;

	make_stack_file(&f, A_BUILD_ID);
	b = tf_file(&f);
	raw_init(&p);
	CHECK(import_capture(&p, b.data, b.len, &opt) == 0);
	want_stack(&w, 0);
	CHECK(same_objects(&p, &w));
	CHECK(raw_get_counter(&p, "unattributed.no_build_id") == 0);
	CHECK(raw_get_counter(&p, "edges.unattributed") == 1);
	CHECK(raw_get_counter(&p, "import.build_id_from_file") == 0);
	CHECK(invariant_holds(&p));
	raw_free(&p);
	raw_free(&w);
	free(b.data);
	tf_free(&f);
}

/* Without attr.build_id, PERF_RECORD_MISC_MMAP_BUILD_ID on an MMAP2 record
 * is the kernel's leak from another event: the record holds an inode. */
static void test_leaked_build_id_flag(void)
{
	struct tfile f;
	struct wbuf b;
	struct raw_profile p;
	uint64_t c[] = { CTX_USER, 0x7f0000010040ULL };

	tf_init(&f);
	tf_attr(&f, 1, 0, S_IP | S_TID | S_TIME | S_CALLCHAIN, A_SAMPLE_ID_ALL | A_MMAP2);
	t_mmap2(&f, MISC_MMAP_BUILD_ID, 100, 0x7f0000010000ULL, 0x1000, 0, NULL, 0,
		5, "/opt/hdr.so", 13);
	t_sample(&f, &(struct tsample){ 0, 0x7f0000010040ULL, 100, 22, c, 2, NULL, 0 });
	f.has_feat[2] = 1;
	put_build_id(&f.feat[2], MISC_USER, -1, HDR, 20, "/opt/hdr.so");
	b = tf_file(&f);
	raw_init(&p);
	CHECK(import_capture(&p, b.data, b.len, NULL) == 0);
	CHECK(p.nobjs == 1 && p.objs[0].build_id_len == 20 &&
	      !memcmp(p.objs[0].build_id, HDR, 20) && p.objs[0].nips == 1 &&
	      p.objs[0].ips[0].offset == 0x40);
	CHECK(raw_get_counter(&p, "import.mmap2_build_id_flag_ignored") == 1);
	raw_free(&p);
	free(b.data);
	tf_free(&f);
}

/* The same records in pipe mode give the same profile. */
static void test_pipe_mode(void)
{
	struct tfile f;
	struct wbuf b;
	struct raw_profile p, w;

	make_stack_file(&f, A_BUILD_ID);
	b = tf_pipe(&f);
	raw_init(&p);
	CHECK(import_capture(&p, b.data, b.len, NULL) == 0);
	CHECK(errbuf[0] == '\0');
	want_stack(&w, self_len > 0);
	CHECK(same_objects(&p, &w));
	CHECK(raw_get_counter(&p, CNT_SAMPLES) == 17);
	CHECK(raw_get_counter(&p, "unattributed.no_mapping") == 3);
	CHECK(!strcmp(meta(&p, "host"), "testhost"));
	CHECK(invariant_holds(&p));
	raw_free(&p);
	raw_free(&w);
	free(b.data);
	tf_free(&f);
}

#define E(a) (0x400000ULL + (a))		/* /opt/exe: MMAP, pgoff 0 */
#define B(a) (0x7f0000001000ULL + (a) - 0x3000)	/* lib: pgoff 0x3000 */

/* Branch stacks (perf record -b): the build-ID of an MMAP (version 1)
 * mapping from a HEADER_BUILD_ID record in the data (perf inject -b). */
static void make_lbr_file(struct tfile *f, uint64_t bst)
{
	/* Newest first.  Ranges [e[i].to, e[i-1].from]. */
	static const uint64_t br[][2] = {
		{ E(0x1100), E(0x1000) },		/* 0 */
		{ B(0x3100), E(0x0ff0) },		/* 1: range exe 0xff0..0x1100 */
		{ E(0x0fe0), B(0x3000) },		/* 2: range lib 0x3000..0x3100 */
		{ 0xffffffff81000000ULL, E(0x0f00) },	/* 3: exe 0xf00..0xfe0 */
		{ E(0x0e00), B(0x3200) },		/* 4: range ends in the kernel */
		{ E(0x0c00), E(0x0d00) },		/* 5: exe 0xd00..0xe00 */
		{ E(0x0b00), B(0x3300) },		/* 6: lib -> exe: no range */
	};
	struct tattr *a;

	tf_init(f);
	a = tf_attr(f, 0, 0, S_IP | S_TID | S_BRANCH_STACK, A_MMAP2 | A_BUILD_ID);
	a->bst = bst;
	t_mmap(f, 100, 0x400000, 0x10000, 0, "/opt/exe", 0);
	t_mmap2(f, 0, 100, 0x7f0000001000ULL, 0x1000, 0x3000, LIB, 20, 5, "/opt/lib.so", 0);
	t_sample(f, &(struct tsample){ 0, E(0x1000), 100, 0, NULL, 0, br, 7 });
	t_sample(f, &(struct tsample){ MISC_KERNEL, 0xffffffff81000000ULL, 100, 0, NULL, 0, br, 7 });
	put_build_id(&f->data, MISC_USER, -1, EXE, 20, "/opt/exe");
}

static void want_lbr(struct raw_profile *w, int ranges)
{
	uint32_t exe, lib;

	raw_init(w);
	exe = raw_object(w, EXE, 20, "/opt/exe");
	lib = raw_object(w, LIB, 20, "/opt/lib.so");
	raw_add_ip(&w->objs[exe], 0x1000, 1);
	raw_add_branch(&w->objs[exe], 0x1100, exe, 0x1000, 1);
	raw_add_branch(&w->objs[lib], 0x3100, exe, 0x0ff0, 1);
	raw_add_branch(&w->objs[exe], 0x0fe0, lib, 0x3000, 1);
	raw_add_branch(&w->objs[exe], 0x0e00, lib, 0x3200, 1);
	raw_add_branch(&w->objs[exe], 0x0c00, exe, 0x0d00, 1);
	raw_add_branch(&w->objs[exe], 0x0b00, lib, 0x3300, 1);
	if (!ranges)
		return;
	raw_add_range(&w->objs[exe], 0x0ff0, 0x1100, 1);
	raw_add_range(&w->objs[lib], 0x3000, 0x3100, 1);
	raw_add_range(&w->objs[exe], 0x0f00, 0x0fe0, 1);
	raw_add_range(&w->objs[exe], 0x0d00, 0x0e00, 1);
}

static void test_branch_stacks(void)
{
	static const uint64_t variants[] = { BR_ANY | BR_USER | BR_HW_INDEX, BR_ANY };

	for (size_t v = 0; v < ARRAY_SIZE(variants); v++) {
		struct tfile f;
		struct wbuf b;
		struct raw_profile p, w;

		make_lbr_file(&f, variants[v]);
		b = tf_file(&f);
		raw_init(&p);
		CHECK(import_capture(&p, b.data, b.len, NULL) == 0);
		want_lbr(&w, 1);
		CHECK(same_objects(&p, &w));
		CHECK(raw_get_counter(&p, CNT_SAMPLES) == 2);
		CHECK(raw_get_counter(&p, "unattributed.kernel") == 1);
		CHECK(raw_get_counter(&p, "branches.unattributed") == 1);
		CHECK(raw_get_counter(&p, "ranges.unattributed") == 2);
		CHECK(!strcmp(meta(&p, "mode"), "import-lbr"));
		CHECK(!strcmp(meta(&p, "event"), "cycles"));
		CHECK(!strcmp(meta(&p, "signal"), "branch-records"));
		CHECK(!strcmp(meta(&p, "sample_period"), "999"));
		CHECK(invariant_holds(&p));
		raw_free(&p);
		raw_free(&w);
		free(b.data);
		tf_free(&f);
	}
}

/* Filtered branch records (-j any_call) give branches but no ranges; an
 * LBR call stack (--call-graph lbr) gives neither. */
static void test_branch_filters(void)
{
	struct tfile f;
	struct wbuf b;
	struct raw_profile p, w;

	make_lbr_file(&f, BR_USER | (1ULL << 4));
	b = tf_file(&f);
	raw_init(&p);
	CHECK(import_capture(&p, b.data, b.len, NULL) == 0);
	want_lbr(&w, 0);
	CHECK(same_objects(&p, &w));
	CHECK(raw_get_counter(&p, "ranges.unattributed") == 0);
	CHECK(!strcmp(meta(&p, "mode"), "import-stack"));
	raw_free(&p);
	raw_free(&w);
	free(b.data);
	tf_free(&f);

	make_lbr_file(&f, BR_USER | BR_CALL_STACK | BR_HW_INDEX);
	b = tf_file(&f);
	raw_init(&p);
	CHECK(import_capture(&p, b.data, b.len, NULL) == 0);
	CHECK(p.nobjs == 1 && p.objs[0].nips == 1 && !p.objs[0].nbranches &&
	      !p.objs[0].nranges);
	CHECK(raw_get_counter(&p, "import.lbr_call_stack_not_used") == 1);
	raw_free(&p);
	free(b.data);
	tf_free(&f);
}

/* Two events, told apart by IDENTIFIER, with every sample field before
 * the branch stack, sample_id_all trailers, and an AUXTRACE record with
 * its payload; --event picks one. */
static void make_multi_file(struct tfile *f)
{
	uint64_t st = S_IDENTIFIER | S_IP | S_TID | S_TIME | S_ADDR | S_ID |
		      S_STREAM_ID | S_CPU | S_PERIOD | S_READ | S_CALLCHAIN | S_RAW;
	uint64_t c[] = { CTX_USER, X(0x1100), X(0x1200) };
	struct tattr *a, *i;
	size_t at;

	tf_init(f);
	a = tf_attr(f, 0, 0, st, A_SAMPLE_ID_ALL | A_MMAP2 | A_BUILD_ID);
	a->rf = RF_GROUP | RF_ID | RF_TOTAL_TIME_ENABLED;
	a->ids[a->nids++] = 7;
	a->ids[a->nids++] = 8;
	i = tf_attr(f, 0, 1, st, A_SAMPLE_ID_ALL | A_MMAP2 | A_BUILD_ID);
	i->rf = a->rf;
	i->ids[i->nids++] = 9;
	f->cur = a;
	f->cur_id = 8;
	t_mmap2(f, 0, 100, 0x555555554000ULL, 0x2000, 0x1000, EXE, 20, 5, "/opt/prog", 5);
	t_sample(f, &(struct tsample){ 0, X(0x1100), 100, 10, c, 3, NULL, 0 });
	at = rec_begin(f, 71, 0);	/* AUXTRACE: size, offset, ref, idx, tid, cpu, pad */
	wb_u64(&f->data, 24);
	for (int k = 0; k < 5; k++)
		wb_u64(&f->data, 0);
	rec_end(f, at);
	for (int k = 0; k < 3; k++)
		wb_u64(&f->data, 0xffffffffffffffffULL);	/* the payload */
	f->cur = i;
	f->cur_id = 9;
	t_sample(f, &(struct tsample){ 0, X(0x1200), 100, 11, c + 1, 2, NULL, 0 });
	t_sample(f, &(struct tsample){ 0, X(0x1200), 100, 12, c + 1, 2, NULL, 0 });
	f->cur_id = 42;	/* no such event */
	t_sample(f, &(struct tsample){ 0, X(0x1200), 100, 13, c + 1, 2, NULL, 0 });
	f->cur_id = 9;
	t_round(f);
}

static void test_two_events(void)
{
	struct perfdata_options opt = { .event = "instructions" };
	struct tfile f;
	struct wbuf b;
	struct raw_profile p;
	uint32_t exe;

	make_multi_file(&f);
	b = tf_file(&f);
	raw_init(&p);
	CHECK(import_capture(&p, b.data, b.len, NULL) == 0);
	CHECK(p.nobjs == 1);
	exe = 0;
	CHECK(p.objs[exe].nips == 2 && p.objs[exe].ips[0].offset == 0x1100 &&
	      p.objs[exe].ips[0].count == 1 && p.objs[exe].ips[1].offset == 0x1200 &&
	      p.objs[exe].ips[1].count == 2);
	CHECK(p.objs[exe].nedges == 1 && p.objs[exe].edges[0].ret_offset == 0x1200 &&
	      p.objs[exe].edges[0].callee_offset == 0x1100);
	CHECK(raw_get_counter(&p, CNT_SAMPLES) == 3);
	CHECK(raw_get_counter(&p, "import.unknown_event_id") == 1);
	CHECK(raw_get_counter(&p, "import.unknown_records") == 0);
	CHECK(!strcmp(meta(&p, "event"), "cycles,instructions"));
	raw_free(&p);

	raw_init(&p);
	CHECK(import_capture(&p, b.data, b.len, &opt) == 0);
	CHECK(p.nobjs == 1 && p.objs[0].nips == 1 && p.objs[0].ips[0].count == 2);
	CHECK(raw_get_counter(&p, CNT_SAMPLES) == 2);
	CHECK(raw_get_counter(&p, "import.other_event_samples") == 1);
	CHECK(!strcmp(meta(&p, "event"), "instructions"));
	CHECK(!strcmp(meta(&p, "signal"), "executions"));
	raw_free(&p);

	opt.event = "no-such-event";
	raw_init(&p);
	CHECK(import_capture(&p, b.data, b.len, &opt) == -1);
	CHECK(count_lines(errbuf, NULL) == 1 && strstr(errbuf, "cycles, instructions"));
	CHECK(p.nobjs == 0 && p.ncounters == 0);
	free(b.data);
	tf_free(&f);
}

/* A file whose writer did not finish (data size 0 in the header) is read
 * to its end, as perf does. */
static void test_unfinished_file(void)
{
	struct tfile f;
	struct wbuf b;
	struct raw_profile p;

	make_multi_file(&f);
	b = tf_file(&f);
	wb_patch_u64(&b, 48, 0);
	raw_init(&p);
	CHECK(import_capture(&p, b.data, b.len, NULL) == 0);
	CHECK(strstr(errbuf, "no data size") != NULL);
	CHECK(raw_get_counter(&p, CNT_SAMPLES) == 3);
	raw_free(&p);
	/* ... and may end inside a record (here the last FINISHED_ROUND). */
	raw_init(&p);
	CHECK(import_capture(&p, b.data, b.len - 5, NULL) == 0);
	CHECK(strstr(errbuf, "ends inside a record") != NULL);
	CHECK(raw_get_counter(&p, CNT_SAMPLES) == 3);
	raw_free(&p);
	free(b.data);
	/* Said once, also when the import is done again: on threads, then
	 * on one for the sample at time 0 (import/perfdata/jobs.c). */
	t_sample(&f, &(struct tsample){ 0, X(0x1200), 100, 0, NULL, 0, NULL, 0 });
	b = tf_file(&f);
	wb_patch_u64(&b, 48, 0);
	raw_init(&p);
	CHECK(import_capture(&p, b.data, b.len, &(struct perfdata_options){ .jobs = 2 }) == 0);
	CHECK(count_lines(errbuf, "no data size") == 1);
	CHECK(raw_get_counter(&p, CNT_SAMPLES) == 4);
	raw_free(&p);
	free(b.data);
	tf_free(&f);
}

/* --call-graph dwarf samples (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER)
 * go to the unwinder: its end reasons are counted as unwind.*, the leaf
 * stays an IP sample; a sample without user registers keeps its IP only. */
static void dwarf_sample_in(struct tfile *f, int misc, uint64_t ip,
			    uint64_t abi, int nregs, size_t stack,
			    uint64_t size_field)
{
	size_t at = rec_begin(f, 9, misc);

	wb_u64(&f->data, ip);
	wb_u32(&f->data, 100);
	wb_u32(&f->data, 100);
	wb_u64(&f->data, 20);			/* time */
	wb_u64(&f->data, abi);
	if (abi) {	/* x86-64: bits 7 (sp) and 8 (ip), in bit order */
		wb_u64(&f->data, 0x7ffc00001000ULL);
		wb_u64(&f->data, 0x555555554100ULL);
		for (int i = 2; i < nregs; i++)
			wb_u64(&f->data, 0);
	}
	wb_u64(&f->data, size_field);
	for (size_t i = 0; i < stack; i++)
		wb_u8(&f->data, (uint8_t)i);
	if (stack)
		wb_u64(&f->data, stack);	/* dyn_size */
	rec_end(f, at);
}

static void dwarf_sample_regs(struct tfile *f, uint64_t abi, int nregs,
			      size_t stack, uint64_t size_field)
{
	dwarf_sample_in(f, MISC_USER, 0x555555554100ULL, abi, nregs, stack,
			size_field);
}

static void dwarf_sample(struct tfile *f, uint64_t abi, size_t stack,
			 uint64_t size_field)
{
	dwarf_sample_regs(f, abi, 2, stack, size_field);
}

/* A --call-graph dwarf file (sample_regs_user mask, HEADER_ARCH arch
 * unless NULL) with the mapping of /nonexistent/prog, whose samples
 * dwarf_sample() writes next. */
static void dwarf_file(struct tfile *f, uint64_t mask, const char *arch)
{
	struct tattr *a;

	tf_init(f);
	a = tf_attr(f, 1, 0, S_IP | S_TID | S_TIME | S_REGS_USER | S_STACK_USER,
		    A_SAMPLE_ID_ALL | A_BUILD_ID);
	a->regs = mask;
	if (arch)
		feat_string(f, 6, arch);
	t_mmap2(f, 0, 100, 0x555555554000ULL, 0x2000, 0x1000, EXE, 20, 5,
		"/nonexistent/prog", 11);
}

/* The three dwarf_sample()s of a dwarf_file() became IP samples. */
static int ips_kept(const struct raw_profile *p)
{
	return p->nobjs == 1 && p->objs[0].nips == 1 &&
	       p->objs[0].ips[0].offset == 0x1100 && p->objs[0].ips[0].count == 3 &&
	       invariant_holds(p);
}

static void test_dwarf_stacks(void)
{
	struct tfile f;
	struct wbuf b;
	struct raw_profile p;
	struct tattr *a;

	dwarf_file(&f, 3ULL << 7, NULL);
	dwarf_sample(&f, 2, 0, 0);	/* no stack copied */
	dwarf_sample(&f, 2, 16, 16);	/* a file that cannot be opened */
	dwarf_sample(&f, 0, 0, 0);	/* no user registers */
	b = tf_file(&f);
	raw_init(&p);
	CHECK(import_capture(&p, b.data, b.len, NULL) == 0);
	CHECK(errbuf[0] == '\0');
	CHECK(raw_get_counter(&p, CNT_SAMPLES) == 3);
	CHECK(raw_get_counter(&p, "unwind.no_stack") == 1);
	CHECK(raw_get_counter(&p, "unwind.no_file") == 1);
	CHECK(raw_get_counter(&p, "unwind.complete") == 0);
	CHECK(raw_get_counter(&p, "import.user_stack_not_unwound") == 1);
	CHECK(ips_kept(&p));
	raw_free(&p);
	free(b.data);
	tf_free(&f);

	/* Samples in the kernel: the user registers that entered it are
	 * unwound (the user IP under the kernel mark, as pgoprof-record
	 * keeps it); a kernel thread's (no user registers) is counted in
	 * unattributed.kernel alone, not as a user stack not unwound. */
	dwarf_file(&f, 3ULL << 7, NULL);
	dwarf_sample_in(&f, MISC_KERNEL, 0xffffffff81000010ULL, 2, 2, 16, 16);
	dwarf_sample_in(&f, MISC_KERNEL, 0xffffffff81000010ULL, 0, 0, 0, 0);
	b = tf_file(&f);
	raw_init(&p);
	CHECK(import_capture(&p, b.data, b.len, NULL) == 0);
	CHECK(raw_get_counter(&p, "unattributed.kernel") == 2);
	CHECK(raw_get_counter(&p, "unwind.no_file") == 1);
	CHECK(raw_get_counter(&p, "import.user_stack_not_unwound") == 0);
	CHECK(p.stacks.n == 1 && p.stacks.v[0].count == 1 &&
	      p.stacks.v[0].depth == 2 &&
	      raw_stack_frames(&p, &p.stacks.v[0])[0].obj == RAW_FRAME_KERNEL &&
	      raw_stack_frames(&p, &p.stacks.v[0])[1].offset == 0x1100);
	CHECK(invariant_holds(&p));
	raw_free(&p);
	free(b.data);
	tf_free(&f);

	/* A stack size larger than the record: a clean error. */
	tf_init(&f);
	a = tf_attr(&f, 1, 0, S_IP | S_TID | S_TIME | S_REGS_USER | S_STACK_USER,
		    A_SAMPLE_ID_ALL);
	a->regs = 3ULL << 7;
	dwarf_sample(&f, 2, 8, 4096);
	b = tf_file(&f);
	raw_init(&p);
	CHECK(import_capture(&p, b.data, b.len, NULL) == -1);
	CHECK(strstr(errbuf, "user stack of 4096 bytes") != NULL);
	raw_free(&p);
	free(b.data);
	tf_free(&f);
}

/* The user registers of another architecture (HEADER_ARCH, or without it
 * a sample_regs_user mask that is not x86-64's) or of a 32-bit process
 * are not unwound as x86-64 ones: the samples keep their IP, are counted
 * in import.user_regs_foreign_arch, and one line says so. */
static void import_foreign(const char *arch, uint64_t mask, int nregs,
			   uint64_t abi, const char *says)
{
	struct tfile f;
	struct wbuf b;
	struct raw_profile p;

	dwarf_file(&f, mask, arch);
	dwarf_sample_regs(&f, abi, nregs, 16, 16);
	dwarf_sample_regs(&f, abi, nregs, 16, 16);
	dwarf_sample(&f, 0, 0, 0);	/* no user registers */
	b = tf_file(&f);
	raw_init(&p);
	CHECK(import_capture(&p, b.data, b.len, NULL) == 0);
	CHECK(count_lines(errbuf, NULL) == 1 && strstr(errbuf, says));
	CHECK(raw_get_counter(&p, "import.user_regs_foreign_arch") == 2);
	CHECK(raw_get_counter(&p, "import.user_stack_not_unwound") == 1);
	for (size_t i = 0; i < p.ncounters; i++)	/* nothing went to the unwinder */
		CHECK(strncmp(p.counters[i].name, "unwind.", 7));
	CHECK(ips_kept(&p));
	raw_free(&p);
	free(b.data);
	tf_free(&f);
}

static void test_foreign_arch(void)
{
	/* perf record --call-graph dwarf on arm64: 33 registers x0..x30, sp,
	 * pc (PERF_REG_ARM64_MAX) */
	import_foreign("aarch64", (1ULL << 33) - 1, 33, 2,
		       "test_perfdata: t.data was recorded on aarch64: the user registers of its 2 "
		       "--call-graph dwarf samples are not unwound here (x86_64 only); "
		       "their IP samples and call chains are kept\n");
	import_foreign(NULL, (1ULL << 33) - 1, 33, 2,
		       "t.data was recorded on another architecture than x86_64 "
		       "(sample_regs_user 0x1ffffffff)");
	/* x86-64's mask, but another architecture's file */
	import_foreign("riscv64", 3ULL << 7, 2, 2, "was recorded on riscv64: ");
	/* a 32-bit process (PERF_SAMPLE_REGS_ABI_32) on x86-64 */
	import_foreign("x86_64", 3ULL << 7, 2, 1,
		       "t.data: the user registers of 2 --call-graph dwarf samples of 32-bit processes");
}

static void test_not_perf_data(void)
{
	static const uint8_t raw[] = "PGORAW\0\0\1\0\0\0\0\0\0\0";
	static const uint8_t be[16] = "2ELIFREP";
	struct raw_profile p;

	raw_init(&p);
	CHECK(import_capture(&p, raw, sizeof(raw) - 1, NULL) == -1);
	CHECK(strstr(errbuf, "t.data: byte 0: not a perf.data file") != NULL);
	CHECK(import_capture(&p, be, sizeof(be), NULL) == -1);
	CHECK(strstr(errbuf, "big-endian") != NULL);
	CHECK(perfdata_probe(be, sizeof(be)) && !perfdata_probe(raw, sizeof(raw)));
}

/* ---- damaged files ---- */

static int bad_file_checks, bad_file_ok;

/* A failed import prints exactly one line with the file and a byte
 * offset (a warning line may come before it) and leaves p empty. */
static int clean_failure(const struct raw_profile *p)
{
	return count_lines(errbuf, ": byte ") == 1 && count_lines(errbuf, NULL) <= 2 &&
	       count_lines(errbuf, "t.data: byte ") == 1 && !p->nobjs && !p->ncounters &&
	       !p->nmeta;
}

/* Every prefix is tried (most fail early: 8000 cost about a second).
 * A flipped byte mostly imports in full (over a millisecond each with
 * ASan): make check tries every third byte with one of the three flips in
 * turn, which still gives each byte position of an 8-byte field each flip
 * value every 72 bytes; make check-long (PGOPROF_TEST_LONG=1) tries every
 * byte with every flip, three times the cases of the default. */
static int long_tests;

static void damage(const struct wbuf *b, int every_prefix_fails)
{
	uint8_t *copy = xmalloc(b->len);
	struct raw_profile p;

	for (size_t n = 0; n < b->len; n++) {
		int rc;

		raw_init(&p);
		rc = import_capture(&p, b->data, n, NULL);
		bad_file_checks++;
		if (rc == 0 && !every_prefix_fails) {
			bad_file_ok++;
		} else if (rc != -1 || !clean_failure(&p)) {
			printf("  prefix of %zu bytes: rc %d: %s", n, rc, errbuf);
			check_failed++;
		}
		raw_free(&p);
	}
	for (size_t i = 0; i < b->len; i += long_tests ? 1 : 3) {
		static const uint8_t flips[] = { 0xff, 0x01, 0x80 };

		for (size_t k = 0; k < ARRAY_SIZE(flips); k++) {
			int rc;

			if (!long_tests && k != i / 3 % ARRAY_SIZE(flips))
				continue;

			memcpy(copy, b->data, b->len);
			copy[i] ^= flips[k];
			raw_init(&p);
			rc = import_capture(&p, copy, b->len, NULL);
			bad_file_checks++;
			if (rc == 0)
				bad_file_ok++;
			else if (rc != -1 || !clean_failure(&p)) {
				printf("  byte %zu ^ 0x%02x: rc %d: %s", i, flips[k], rc, errbuf);
				check_failed++;
			}
			raw_free(&p);
		}
	}
	free(copy);
}

static void test_truncated_and_flipped(void)
{
	struct tfile f;
	struct wbuf b;

	make_stack_file(&f, A_BUILD_ID);
	b = tf_file(&f);
	damage(&b, 1);
	free(b.data);
	b = tf_pipe(&f);
	damage(&b, 0);	/* a pipe stream may end after any record */
	free(b.data);
	tf_free(&f);
	make_lbr_file(&f, BR_ANY | BR_HW_INDEX);
	b = tf_file(&f);
	damage(&b, 1);
	free(b.data);
	tf_free(&f);
	make_multi_file(&f);
	b = tf_file(&f);
	damage(&b, 1);
	free(b.data);
	tf_free(&f);
	printf("  %d damaged files (%s): %d imported, the others failed cleanly\n",
	       bad_file_checks, long_tests ? "every flip of every byte" :
	       "one flip of every third byte; PGOPROF_TEST_LONG=1: all", bad_file_ok);
}

/* -j: several threads give one thread's profile, also when they post
 * each key of another's share alone (perfdata_options.share_chunk), and
 * when the file has more batches than the threads' ring. */
static void test_jobs(void)
{
	struct perfdata_options o1 = { .jobs = 1 };
	struct raw_profile p1;
	struct tfile f;
	struct wbuf b;

	tf_init(&f);
	tf_attr(&f, 0, 0, S_IP | S_TID | S_BRANCH_STACK, A_MMAP2 | A_BUILD_ID)->bst = BR_ANY;
	t_mmap2(&f, 0, 100, 0x400000, 0x100000, 0, EXE, 20, 5, "/opt/exe", 0);
	for (uint64_t i = 0; i < 20000; i++) {	/* 20 batches, distinct keys */
		uint64_t a = 0x400000 + 16 * (i % 9000);
		const uint64_t br[][2] = { { a + 8, a + 64 }, { a + 4, a }, { a + 200, a + 300 } };

		t_sample(&f, &(struct tsample){ 0, a, 100, 0, NULL, 0, br, 3 });
	}
	b = tf_file(&f);
	raw_init(&p1);
	CHECK(import_capture(&p1, b.data, b.len, &o1) == 0);
	CHECK(raw_get_counter(&p1, CNT_SAMPLES) == 20000);
	for (int jobs = 2; jobs <= 4; jobs++) {
		for (size_t chunk = 0; chunk <= 1; chunk++) {
			struct perfdata_options o = { .jobs = jobs, .share_chunk = chunk };
			struct raw_profile p;

			raw_init(&p);
			CHECK(import_capture(&p, b.data, b.len, &o) == 0);
			CHECK(raw_get_counter(&p, CNT_SAMPLES) == 20000);
			CHECK(same_objects(&p, &p1));
			raw_free(&p);
		}
	}
	raw_free(&p1);
	free(b.data);
	tf_free(&f);
}

/* One truncation spelled out: the message names the byte offset. */
static void test_error_message(void)
{
	struct tfile f;
	struct wbuf b;
	struct raw_profile p;

	make_stack_file(&f, A_BUILD_ID);
	b = tf_file(&f);
	raw_init(&p);
	CHECK(import_capture(&p, b.data, 50, NULL) == -1);
	CHECK(!strncmp(errbuf, "test_perfdata: t.data: byte 48: truncated: need ", 48) &&
	      count_lines(errbuf, NULL) == 1);
	CHECK(import_capture(&p, b.data, b.len - 1, NULL) == -1);
	CHECK(strstr(errbuf, "runs past the end of the file") != NULL);
	free(b.data);
	tf_free(&f);
}

int main(void)
{
	progname = "test_perfdata";
	long_tests = getenv("PGOPROF_TEST_LONG") && strcmp(getenv("PGOPROF_TEST_LONG"), "0");
	init_ids();
	RUN(test_call_chains);
	RUN(test_no_local_files);
	RUN(test_leaked_build_id_flag);
	RUN(test_pipe_mode);
	RUN(test_branch_stacks);
	RUN(test_branch_filters);
	RUN(test_two_events);
	RUN(test_unfinished_file);
	RUN(test_dwarf_stacks);
	RUN(test_foreign_arch);
	RUN(test_not_perf_data);
	RUN(test_jobs);
	RUN(test_error_message);
	RUN(test_truncated_and_flipped);
	return tests_failed ? 1 : 0;
}
