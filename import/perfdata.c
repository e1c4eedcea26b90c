/* perf.data -> raw profile.  Layouts: tools/perf/Documentation/
 * perf.data-file-format.txt, tools/perf/util/header.c (file header, attrs,
 * feature sections, HEADER_BUILD_ID with PERF_RECORD_MISC_BUILD_ID_SIZE),
 * tools/perf/util/session.c and ordered-events.c (record order), and
 * include/uapi/linux/perf_event.h (records, sample layout, sample_id_all).
 * All integers little-endian; big-endian files are refused. */
#include <linux/types.h>
#include "../proc/stackdepth.h"	/* MAX_STACK_DEPTH: the kernel's stack depth */
#include "perfdata.h"
#include "samples.h"
#include "../proc/unwind.h"
#include "../lib/bytes.h"
#include "../lib/util.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- constants of the format (perf_event.h, perf's header.h/event.h) ---- */

#define PERF_MAGIC2 0x32454c4946524550ULL	/* "PERFILE2" read as LE u64 */
#define PERF_MAGIC2_SWAPPED 0x50455246494c4532ULL
#define FILE_HEADER_SIZE 104
#define PIPE_HEADER_SIZE 16
#define ATTR_SIZE_VER0 64

enum {
	REC_MMAP = 1, REC_LOST = 2, REC_COMM = 3, REC_EXIT = 4,
	REC_THROTTLE = 5, REC_UNTHROTTLE = 6, REC_FORK = 7, REC_READ = 8,
	REC_SAMPLE = 9, REC_MMAP2 = 10, REC_AUX = 11, REC_ITRACE_START = 12,
	REC_LOST_SAMPLES = 13, REC_SWITCH = 14, REC_SWITCH_CPU_WIDE = 15,
	REC_NAMESPACES = 16, REC_KSYMBOL = 17, REC_BPF_EVENT = 18,
	REC_CGROUP = 19, REC_TEXT_POKE = 20, REC_AUX_OUTPUT_HW_ID = 21,
	REC_KERNEL_MAX = 21,
	/* synthesized by perf */
	REC_HEADER_ATTR = 64, REC_HEADER_EVENT_TYPE = 65,
	REC_HEADER_TRACING_DATA = 66, REC_HEADER_BUILD_ID = 67,
	REC_FINISHED_ROUND = 68, REC_ID_INDEX = 69, REC_AUXTRACE_INFO = 70,
	REC_AUXTRACE = 71, REC_AUXTRACE_ERROR = 72, REC_THREAD_MAP = 73,
	REC_CPU_MAP = 74, REC_STAT_CONFIG = 75, REC_STAT = 76,
	REC_STAT_ROUND = 77, REC_EVENT_UPDATE = 78, REC_TIME_CONV = 79,
	REC_HEADER_FEATURE = 80, REC_COMPRESSED = 81, REC_FINISHED_INIT = 82,
	REC_USER_MAX = 82,
};

enum {
	S_IP = 1 << 0, S_TID = 1 << 1, S_TIME = 1 << 2, S_ADDR = 1 << 3,
	S_READ = 1 << 4, S_CALLCHAIN = 1 << 5, S_ID = 1 << 6, S_CPU = 1 << 7,
	S_PERIOD = 1 << 8, S_STREAM_ID = 1 << 9, S_RAW = 1 << 10,
	S_BRANCH_STACK = 1 << 11, S_REGS_USER = 1 << 12,
	S_STACK_USER = 1 << 13, S_IDENTIFIER = 1 << 16,
};

enum {	/* read_format */
	RF_TOTAL_TIME_ENABLED = 1, RF_TOTAL_TIME_RUNNING = 2, RF_ID = 4,
	RF_GROUP = 8, RF_LOST = 16,
};

/* perf_event_attr bit fields (the u64 at byte 40) */
#define A_FREQ (1ULL << 10)
#define A_SAMPLE_ID_ALL (1ULL << 18)
#define A_BUILD_ID (1ULL << 34)

/* branch_sample_type */
#define BR_ANY (1ULL << 3)
#define BR_CALL_STACK (1ULL << 11)
#define BR_HW_INDEX (1ULL << 17)

#define MISC_CPUMODE_MASK 7
#define MISC_KERNEL 1
#define MISC_USER 2
#define MISC_HYPERVISOR 3
#define MISC_GUEST_KERNEL 4
#define MISC_GUEST_USER 5
#define MISC_MMAP_DATA (1 << 13)
#define MISC_COMM_EXEC (1 << 13)
#define MISC_MMAP_BUILD_ID (1 << 14)
#define MISC_BUILD_ID_SIZE (1 << 15)

#define CONTEXT_USER ((uint64_t)-512)
#define CONTEXT_MAX ((uint64_t)-4095)

#define PROT_EXEC_BIT 4

enum {	/* feature bits */
	FEAT_BUILD_ID = 2, FEAT_HOSTNAME = 3, FEAT_OSRELEASE = 4,
	FEAT_VERSION = 5, FEAT_ARCH = 6, FEAT_CMDLINE = 11,
	FEAT_EVENT_DESC = 12, FEAT_SAMPLE_TIME = 21,
};

#define EVENT_UPDATE_NAME 2
#define NO_TIME UINT64_MAX

/* The user registers of --call-graph dwarf samples are unwound in x86-64's
 * layout only (collector/unwind.c unwind_regs_from_perf: enum
 * perf_event_x86_regs, arch/x86/include/uapi/asm/perf_regs.h).  A
 * sample's abi (PERF_SAMPLE_REGS_ABI_*, include/uapi/linux/perf_event.h)
 * is 64 for a 64-bit process; an x86-64 sample_regs_user sets no bit of
 * 24..31 (its registers end at PERF_REG_X86_64_MAX, 24; the XMM registers
 * start at 32), while arm64's 33 registers, riscv's 32 and powerpc's set
 * them (arch/ARCH/include/uapi/asm/perf_regs.h). */
#define REGS_ARCH "x86_64"	/* uname -m, as perf writes HEADER_ARCH */
#define REGS_ABI_64 2
#define REGS_NOT_X86_64 0xff000000ULL

/* ---- the importer ---- */

struct pattr {
	uint32_t type, size;
	uint64_t config, period, sample_type, read_format, flags, branch_type;
	uint64_t regs_user;	/* sample_regs_user: the PERF_SAMPLE_REGS_USER set */
	char *name;
	int selected;
	uint64_t samples;
};

struct idmap {
	uint64_t id;
	uint32_t attr;
};

struct qent {
	uint64_t time, off;
};

struct imp {
	const struct perfdata_options *opt;
	const uint8_t *buf;
	size_t len;
	const char *name;
	int failed, pipe, unfinished, warned_partial;

	struct pattr *attrs;
	size_t nattrs, cap_attrs;
	struct idmap *ids;
	size_t nids, cap_ids;
	int ids_sorted;

	char *hostname, *osrelease, *version, *arch, *cmdline;
	uint64_t first_time, last_time;	/* HEADER_SAMPLE_TIME */
	int have_sample_time;

	struct samples s;	/* address spaces, samples and their counters */

	int ordered, build_id_attr, event_updates;
	size_t released;		/* buf[0..released) given back */
	struct qent *q;
	size_t nq, cap_q;
	uint64_t next_flush, max_time;

	uint64_t unknown_records;
	uint64_t unknown_id, other_samples, dwarf_stacks, call_stack_lbr;
	uint64_t no_ranges_filter, bad_build_id_flag;

	/* --call-graph dwarf: user stacks unwound as pgoprof-record does */
	struct unwinder *uw;
	uint64_t unwind_ends[UNWIND_END_MAX];
	uint64_t unwound;
	/* ... but not those of another architecture or a 32-bit process */
	uint64_t foreign_regs, regs32, foreign_mask;
};

/* "NAME: byte OFF: message", once. */
static int fail(struct imp *m, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct imp *m, size_t off, const char *fmt, ...)
{
	struct rbuf r;
	char msg[256];
	va_list ap;

	if (m->failed)
		return -1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rb_init(&r, m->buf, m->len, m->name);
	r.pos = off;
	rb_fail(&r, "%s", msg);
	m->failed = 1;
	return -1;
}

/* A reader over [off, end) of the file, with absolute offsets. */
static void reader(struct imp *m, struct rbuf *r, size_t off, size_t end)
{
	rb_init(r, m->buf, end, m->name);
	r->pos = off;
}

static int check_reader(struct imp *m, const struct rbuf *r)
{
	if (r->failed)
		m->failed = 1;
	return r->failed ? -1 : 0;
}

/* [off, off+size) inside the file?  field is where the pair is stored. */
static int check_section(struct imp *m, size_t field, uint64_t off,
			 uint64_t size, const char *what)
{
	if (off > m->len || size > m->len - off)
		return fail(m, field, "%s (offset %" PRIu64 ", %" PRIu64
			    " bytes) runs past the end of the file (%zu bytes)",
			    what, off, size, m->len);
	return 0;
}

/* ---- attributes ---- */

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses",
	"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend", "ref-cycles",
};
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches",
	"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
};

static char *default_name(const struct pattr *a)
{
	char buf[64];

	if (a->type == 0 && a->config < ARRAY_SIZE(hw_names))
		return xstrdup(hw_names[a->config]);
	if (a->type == 1 && a->config < ARRAY_SIZE(sw_names))
		return xstrdup(sw_names[a->config]);
	snprintf(buf, sizeof(buf), "type %u config 0x%" PRIx64, a->type, a->config);
	return xstrdup(buf);
}

/* Parse a perf_event_attr at off, at most avail bytes; returns its size
 * (attr.size, 64 if 0), or 0 on error. */
static size_t parse_attr(struct imp *m, size_t off, size_t avail,
			 struct pattr *a)
{
	const uint8_t *p;
	uint32_t size;

	memset(a, 0, sizeof(*a));
	if (avail < ATTR_SIZE_VER0) {
		fail(m, off, "truncated: need %d bytes for an event attribute, %zu left",
		     ATTR_SIZE_VER0, avail);
		return 0;
	}
	p = m->buf + off;
	size = get32(p + 4);
	if (size == 0)
		size = ATTR_SIZE_VER0;
	if (size < ATTR_SIZE_VER0 || size > avail) {
		fail(m, off + 4, "event attribute size %u is not in %d..%zu",
		     size, ATTR_SIZE_VER0, avail);
		return 0;
	}
	a->type = get32(p);
	a->size = size;
	a->config = get64(p + 8);
	a->period = get64(p + 16);
	a->sample_type = get64(p + 24);
	a->read_format = get64(p + 32);
	a->flags = get64(p + 40);
	if (size >= 80)
		a->branch_type = get64(p + 72);
	if (size >= 88)
		a->regs_user = get64(p + 80);
	return size;
}

static void add_id(struct imp *m, uint64_t id, uint32_t attr)
{
	grow(&m->ids, &m->cap_ids, m->nids + 1, sizeof(*m->ids));
	m->ids[m->nids++] = (struct idmap){ id, attr };
	m->ids_sorted = 0;
}

static int cmp_idmap(const void *a, const void *b)
{
	const struct idmap *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->attr < y->attr ? -1 : x->attr > y->attr;
}

static int attr_by_id(struct imp *m, uint64_t id)
{
	size_t lo = 0, hi;

	if (!m->ids_sorted) {
		sort(m->ids, m->nids, sizeof(*m->ids), cmp_idmap);
		m->ids_sorted = 1;
	}
	hi = m->nids;
	while (lo < hi) {	/* the first entry with this id */
		size_t mid = lo + (hi - lo) / 2;

		if (m->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nids && m->ids[lo].id == id ? (int)m->ids[lo].attr : -1;
}

static struct pattr *new_attr(struct imp *m)
{
	grow(&m->attrs, &m->cap_attrs, m->nattrs + 1, sizeof(*m->attrs));
	return &m->attrs[m->nattrs++];
}

/* The event attribute of a record (perf's evlist__event2evsel): by the
 * IDENTIFIER or ID field when there are several.  -1: unknown ID. */
static int attr_of(struct imp *m, size_t off, size_t size, uint32_t type)
{
	const struct pattr *a0 = &m->attrs[0];
	uint64_t st = a0->sample_type;
	size_t at;

	if (m->nattrs == 1)
		return 0;
	if (type == REC_SAMPLE) {
		if (st & S_IDENTIFIER)
			at = 8;
		else if (st & S_ID)
			at = 8 + 8 * (!!(st & S_IP) + !!(st & S_TID) +
				      !!(st & S_TIME) + !!(st & S_ADDR));
		else
			return 0;
	} else {
		if (!(a0->flags & A_SAMPLE_ID_ALL))
			return 0;
		if (st & S_IDENTIFIER)
			at = 8;
		else if (st & S_ID)
			at = 8 * (1 + !!(st & S_STREAM_ID) + !!(st & S_CPU));
		else
			return 0;
		if (at > size - 8)
			return 0;
		at = size - at;
	}
	if (at + 8 > size)
		return -1;
	return attr_by_id(m, get64(m->buf + off + at));
}

/* ---- feature sections ---- */

/* A perf_header_string at r: u32 length, then that many bytes, the text
 * ending at the first NUL.  Returns a malloc'd copy or NULL. */
static char *read_hstring(struct rbuf *r)
{
	uint32_t n = rb_u32(r);
	const uint8_t *p;
	size_t l;
	char *s;

	if (!r->failed && n > r->len - r->pos) {
		r->pos -= 4;
		rb_fail(r, "string of %u bytes runs past the end of its section", n);
		return NULL;
	}
	p = rb_bytes(r, n);
	if (!p)
		return NULL;
	l = strnlen((const char *)p, n);
	s = xmalloc(l + 1);
	memcpy(s, p, l);
	s[l] = '\0';
	return s;
}

static void set_str(char **dst, char *s)
{
	free(*dst);
	*dst = s;
}

/* One HEADER_BUILD_ID entry (file feature or record 67) at [off, off+size). */
static int add_build_id_entry(struct imp *m, size_t off, size_t size,
			      uint16_t misc)
{
	const uint8_t *p = m->buf + off;
	uint32_t len = 20;
	int unsized = !(misc & MISC_BUILD_ID_SIZE);
	size_t namelen;
	char *name;

	if (size < 36)
		return fail(m, off + 6, "build-ID record of %zu bytes (at least 36)", size);
	/* Without PERF_RECORD_MISC_BUILD_ID_SIZE (perf before 5.x) the ID is
	 * zero-padded to 20 bytes (tools/perf/util/header.c, write_buildid):
	 * its real length is where the padding starts.  A real ID that ends
	 * in zero bytes is cut short by this; raw_same_build_id() still
	 * matches it, and samples_map() takes the local file's whole ID. */
	if (!unsized)
		len = p[8 + 4 + 20];
	if (len > 20)
		len = 20;
	while (unsized && len && !p[12 + len - 1])
		len--;
	namelen = strnlen((const char *)p + 36, size - 36);
	if (!len || !namelen)
		return 0;
	name = xmalloc(namelen + 1);
	memcpy(name, p + 36, namelen);
	name[namelen] = '\0';
	samples_header_build_id(&m->s, name, p + 12, len, (int32_t)get32(p + 8),
				unsized);
	free(name);
	return 0;
}

static int feat_build_id(struct imp *m, size_t off, size_t end)
{
	while (!m->failed && end - off >= 8) {
		uint16_t size = get16(m->buf + off + 6);

		if (size > end - off)
			return fail(m, off + 6, "build-ID record of %u bytes runs past the end of its section (%zu bytes left)",
				    size, end - off);
		if (add_build_id_entry(m, off, size, get16(m->buf + off + 4)))
			return -1;
		off += size;
	}
	return m->failed ? -1 : 0;
}

static int feat_event_desc(struct imp *m, size_t off, size_t end)
{
	struct rbuf r;
	uint32_t nr, asize;

	reader(m, &r, off, end);
	nr = rb_u32(&r);
	asize = rb_u32(&r);
	for (uint32_t i = 0; i < nr && !r.failed; i++) {
		uint32_t nids;
		char *name;
		int ai = -1;

		if (!rb_bytes(&r, asize))
			break;
		nids = rb_u32(&r);
		name = read_hstring(&r);
		if (!r.failed && nids > (r.len - r.pos) / 8)
			rb_fail(&r, "%u event IDs run past the end of the section", nids);
		if (r.failed) {
			free(name);
			break;
		}
		/* The attribute: by its first ID, else by position. */
		if (nids)
			ai = attr_by_id(m, get64(m->buf + r.pos));
		if (ai < 0 && i < m->nattrs && nr == m->nattrs)
			ai = (int)i;
		r.pos += (size_t)nids * 8;
		if (ai >= 0 && name && name[0])
			set_str(&m->attrs[ai].name, name);
		else
			free(name);
	}
	return check_reader(m, &r);
}

static int process_feature(struct imp *m, int feat, size_t off, size_t size)
{
	size_t end = off + size;
	struct rbuf r;

	switch (feat) {
	case FEAT_BUILD_ID:
		return feat_build_id(m, off, end);
	case FEAT_HOSTNAME:
	case FEAT_OSRELEASE:
	case FEAT_VERSION:
	case FEAT_ARCH: {
		char **dst = feat == FEAT_HOSTNAME ? &m->hostname :
			     feat == FEAT_OSRELEASE ? &m->osrelease :
			     feat == FEAT_VERSION ? &m->version : &m->arch;

		reader(m, &r, off, end);
		set_str(dst, read_hstring(&r));
		return check_reader(m, &r);
	}
	case FEAT_CMDLINE: {
		char line[512] = "";
		size_t n = 0;
		uint32_t nr;

		reader(m, &r, off, end);
		nr = rb_u32(&r);
		for (uint32_t i = 0; i < nr && !r.failed; i++) {
			char *s = read_hstring(&r);

			if (s && n < sizeof(line) - 1)
				n += (size_t)snprintf(line + n, sizeof(line) - n,
						      "%s%s", n ? " " : "", s);
			if (n > sizeof(line) - 1)
				n = sizeof(line) - 1;
			free(s);
		}
		if (!r.failed)
			set_str(&m->cmdline, xstrdup(line));
		return check_reader(m, &r);
	}
	case FEAT_EVENT_DESC:
		return feat_event_desc(m, off, end);
	case FEAT_SAMPLE_TIME:
		reader(m, &r, off, end);
		m->first_time = rb_u64(&r);
		m->last_time = rb_u64(&r);
		m->have_sample_time = !r.failed;
		return check_reader(m, &r);
	}
	return 0;
}

/* ---- records ---- */

struct rec {
	size_t off;		/* the record header */
	uint32_t type;
	uint16_t misc, size;
	size_t next;		/* where the next record starts */
};

/* A file that perf did not finish may end inside a record: the records
 * before it are read, with a warning. */
static int partial(struct imp *m, size_t off)
{
	if (!m->unfinished)
		return 0;
	if (!m->warned_partial)
		warnx("%s: byte %zu: the file ends inside a record; reading the records before it",
		      m->name, off);
	m->warned_partial = 1;
	return 1;
}

/* The record at off of the stream [.., end), checked: 0, or 1 at the end
 * of an unfinished file, or -1 after the error message. */
static int read_rec(struct imp *m, size_t off, size_t end, struct rec *rc)
{
	const uint8_t *p = m->buf + off;
	uint64_t extra = 0;

	if (end - off < 8)
		return partial(m, off) ? 1 :
		       fail(m, off, "truncated: need 8 bytes for a record header, %zu left",
			    end - off);
	rc->off = off;
	rc->type = get32(p);
	rc->misc = get16(p + 4);
	rc->size = get16(p + 6);
	if (rc->size < 8)
		return fail(m, off + 6, "record size %u is smaller than its 8-byte header",
			    rc->size);
	if (rc->size > end - off)
		return partial(m, off) ? 1 :
		       fail(m, off + 6, "record of %u bytes runs past the end of the data (%zu bytes left)",
			    rc->size, end - off);
	/* Two user records carry a payload after themselves. */
	if (rc->type == REC_AUXTRACE && rc->size >= 16)
		extra = get64(p + 8);
	else if (rc->type == REC_HEADER_TRACING_DATA && rc->size >= 12)
		extra = get32(p + 8);
	if (extra > end - off - rc->size)
		return partial(m, off) ? 1 : fail(m, off + 8, "payload of %" PRIu64 " bytes runs past the end of the data (%zu bytes left)",
			    extra, end - off - rc->size);
	rc->next = off + rc->size + (size_t)extra;
	return 0;
}

/* Give back the pages of buf below off (opt->release_pages), in steps of
 * at least 64 MiB so that madvise stays rare.  A page read again later
 * comes back from the file: this only bounds RSS, never changes what is
 * read. */
static void release_below(struct imp *m, size_t off)
{
	size_t to;

	/* released and the step are whole pages: off passes them when its
	 * page does, so the page size is asked only when there is work. */
	if (!m->opt->release_pages || off < m->released + ((size_t)64 << 20))
		return;
	to = off & ~((size_t)sysconf(_SC_PAGESIZE) - 1);
	madvise((void *)(m->buf + m->released), to - m->released, MADV_DONTNEED);
	m->released = to;
}

/* Pass 1: what the samples need before they are read: attributes and
 * features (pipe mode), build-IDs (perf inject -b, pipe mode), event names. */
static int scan_records(struct imp *m, size_t off, size_t end)
{
	struct rec rc;

	for (; off < end && !m->failed; off = rc.next) {
		int r = read_rec(m, off, end, &rc);

		if (r)
			return r < 0 ? -1 : 0;
		release_below(m, off);
		switch (rc.type) {
		case REC_EVENT_UPDATE:
			m->event_updates = 1;
			break;
		case REC_HEADER_ATTR: {	/* pipe mode */
			struct pattr a;
			size_t asize;
			uint32_t ai = (uint32_t)m->nattrs;

			if (!m->pipe)
				break;
			asize = parse_attr(m, off + 8, rc.size - 8, &a);
			if (!asize)
				return -1;
			*new_attr(m) = a;
			for (size_t at = off + 8 + asize; at + 8 <= off + rc.size; at += 8)
				add_id(m, get64(m->buf + at), ai);
			break;
		}
		case REC_HEADER_FEATURE:
			if (rc.size < 16)
				return fail(m, off + 6, "feature record of %u bytes (at least 16)", rc.size);
			if (process_feature(m, (int)get64(m->buf + off + 8), off + 16,
					    rc.size - 16))
				return -1;
			break;
		case REC_HEADER_BUILD_ID:
			if (add_build_id_entry(m, off, rc.size, rc.misc))
				return -1;
			break;
		case REC_COMPRESSED:
			return fail(m, off, "zstd-compressed records (perf record -z) are not supported; "
				    "record without -z");
		}
	}
	return m->failed ? -1 : 0;
}

/* EVENT_UPDATE name records (pipe mode) once the attributes are known. */
static void scan_event_names(struct imp *m, size_t off, size_t end)
{
	struct rec rc;

	for (; off < end; off = rc.next) {
		if (read_rec(m, off, end, &rc))
			return;
		if (rc.type == REC_EVENT_UPDATE && rc.size > 24 &&
		    get64(m->buf + off + 8) == EVENT_UPDATE_NAME) {
			int ai = attr_by_id(m, get64(m->buf + off + 16));
			size_t n = strnlen((const char *)m->buf + off + 24, rc.size - 24);

			if (ai >= 0 && n) {
				char *s = xmalloc(n + 1);

				memcpy(s, m->buf + off + 24, n);
				s[n] = '\0';
				set_str(&m->attrs[ai].name, s);
			}
		}
	}
}

/* The timestamp of a kernel record for ordering, or NO_TIME. */
static uint64_t rec_time(struct imp *m, const struct rec *rc)
{
	int ai = attr_of(m, rc->off, rc->size, rc->type);
	const struct pattr *a;
	uint64_t st;
	size_t at;

	if (ai < 0)
		return NO_TIME;
	a = &m->attrs[ai];
	st = a->sample_type;
	if (!(st & S_TIME))
		return NO_TIME;
	if (rc->type == REC_SAMPLE) {
		at = 8 + 8 * (!!(st & S_IDENTIFIER) + !!(st & S_IP) + !!(st & S_TID));
	} else {
		size_t back = 8 * (1 + !!(st & S_ID) + !!(st & S_STREAM_ID) +
				   !!(st & S_CPU) + !!(st & S_IDENTIFIER));

		if (!(a->flags & A_SAMPLE_ID_ALL) || back > rc->size - 8u)
			return NO_TIME;
		at = rc->size - back;
	}
	if (at + 8 > rc->size)
		return NO_TIME;
	return get64(m->buf + rc->off + at);
}

/* ---- mappings ---- */

/* The unwinder's view of the mappings (unwind.h): pid's current address
 * space; the file ID is the raw object index.  A mapping without a known
 * build-ID is not unwound through (the file here may be another one). */
static int locate(void *arg, pid_t pid, uint64_t addr, struct unwind_file *f)
{
	struct imp *m = arg;
	const struct raw_object *o;
	uint32_t obj;
	uint64_t off;

	if (samples_resolve(&m->s, samples_key(&m->s, (uint32_t)pid), addr, &obj,
			    &off) != UNATTR_NONE)
		return -1;
	o = &m->s.prof->objs[obj];
	if (o->id_kind != RAW_ID_BUILD_ID)
		return -1;
	*f = (struct unwind_file){ obj, off, o->path, o->build_id,
				   o->build_id_len };
	return 0;
}

/* pid has new mappings, or is a new address space (fork, exec). */
static void invalidate(struct imp *m, uint32_t pid)
{
	if (m->uw)
		unwind_invalidate(m->uw, (pid_t)pid);
}

/* ---- samples ---- */

static uint64_t read_size(const struct pattr *a, struct rbuf *r)
{
	uint64_t rf = a->read_format, per, fixed, nr;

	fixed = 8 * (!!(rf & RF_TOTAL_TIME_ENABLED) + !!(rf & RF_TOTAL_TIME_RUNNING));
	per = 8 * (1 + !!(rf & RF_ID) + !!(rf & RF_LOST));
	if (!(rf & RF_GROUP))
		return fixed + per;
	nr = rb_u64(r);
	if (r->failed)
		return 0;
	if (fixed > r->len - r->pos || nr > (r->len - r->pos - fixed) / per) {
		r->pos -= 8;
		rb_fail(r, "read values of %" PRIu64 " events do not fit in the sample", nr);
		return 0;
	}
	return fixed + nr * per;
}

/* Are the user registers of a sample of a (abi: the sample's
 * PERF_SAMPLE_REGS_ABI) in another layout than x86-64's?  Counts them by
 * why: another architecture (HEADER_ARCH, else the register mask), or a
 * 32-bit process. */
static int regs_foreign(struct imp *m, const struct pattr *a, uint64_t abi)
{
	if ((m->arch && strcmp(m->arch, REGS_ARCH)) ||
	    (a->regs_user & REGS_NOT_X86_64)) {
		m->foreign_regs++;
		if (!m->foreign_mask)
			m->foreign_mask = a->regs_user;
		return 1;
	}
	if (abi != REGS_ABI_64) {
		m->regs32++;
		return 1;
	}
	return 0;
}

/* One line for the samples whose registers regs_foreign() refused. */
static void report_foreign_regs(const struct imp *m)
{
	static const char kept[] = "their IP samples and call chains are kept";

	if (m->foreign_regs && m->arch && strcmp(m->arch, REGS_ARCH))
		warnx("%s was recorded on %s: the user registers of its %" PRIu64
		      " --call-graph dwarf samples are not unwound here (" REGS_ARCH " only); %s",
		      m->name, m->arch, m->foreign_regs, kept);
	else if (m->foreign_regs)
		warnx("%s was recorded on another architecture than " REGS_ARCH
		      " (sample_regs_user 0x%" PRIx64 "): the user registers of its %" PRIu64
		      " --call-graph dwarf samples are not unwound here; %s",
		      m->name, m->foreign_mask, m->foreign_regs, kept);
	if (m->regs32)
		warnx("%s: the user registers of %" PRIu64 " --call-graph dwarf samples of 32-bit processes "
		      "are not unwound here (" REGS_ARCH " only); %s", m->name, m->regs32, kept);
}

/* The copy of the user stack in s, with the nregs user registers at regs
 * (perf's order, the bits of mask), unwound into ips[MAX_STACK_DEPTH]:
 * the number of frames. */
static size_t unwind_user(struct imp *m, struct unwind_sample *s,
			  uint64_t mask, const uint8_t *regs, uint64_t nregs,
			  uint64_t *ips)
{
	uint64_t vals[64];
	enum unwind_end end;
	size_t n;

	for (uint64_t i = 0; i < nregs; i++)
		vals[i] = get64(regs + 8 * i);
	unwind_regs_from_perf(s, mask, vals);
	if (!m->uw)
		m->uw = unwind_new(UNWIND_DWARF, locate, m);
	n = unwind_stack(m->uw, s, ips, MAX_STACK_DEPTH, &end);
	m->unwind_ends[end]++;
	m->unwound++;
	return n;
}

static void do_sample(struct imp *m, const struct rec *rc)
{
	int ai = attr_of(m, rc->off, rc->size, rc->type);
	const struct pattr *a;
	uint64_t st, ip = 0, nchain = 0, nbr = 0, n, time = NO_TIME;
	uint64_t abi = 0, nregs = 0, ustack_size = 0, dyn_size = 0;
	const uint8_t *chain = NULL, *br = NULL, *regs = NULL, *ustack = NULL;
	uint32_t pid = UINT32_MAX, tid = 0;
	struct rbuf r;
	int cpumode = rc->misc & MISC_CPUMODE_MASK;
	uint64_t ips[MAX_STACK_DEPTH];
	size_t nips = 0;
	int chained;

	if (ai < 0) {
		m->unknown_id++;
		return;
	}
	a = &m->attrs[ai];
	st = a->sample_type;
	reader(m, &r, rc->off + 8, rc->off + rc->size);
	if (st & S_IDENTIFIER)
		rb_u64(&r);
	if (st & S_IP)
		ip = rb_u64(&r);
	if (st & S_TID) {
		pid = rb_u32(&r);
		tid = rb_u32(&r);
	}
	if (st & S_TIME)
		time = rb_u64(&r);
	rb_bytes(&r, 8 * (!!(st & S_ADDR) + !!(st & S_ID) + !!(st & S_STREAM_ID) +
			  !!(st & S_CPU) + !!(st & S_PERIOD)));
	if (st & S_READ) {
		n = read_size(a, &r);
		rb_bytes(&r, n);
	}
	if (st & S_CALLCHAIN) {
		nchain = rb_u64(&r);
		if (!r.failed && nchain > (r.len - r.pos) / 8) {
			r.pos -= 8;
			rb_fail(&r, "call chain of %" PRIu64 " entries does not fit in the sample (%zu bytes left)",
				nchain, r.len - r.pos - 8);
		}
		chain = rb_bytes(&r, nchain * 8);
	}
	if (st & S_RAW)
		rb_bytes(&r, rb_u32(&r));
	if (st & S_BRANCH_STACK) {
		nbr = rb_u64(&r);
		if (a->branch_type & BR_HW_INDEX)
			rb_u64(&r);
		if (!r.failed && nbr > (r.len - r.pos) / 24) {
			r.pos -= a->branch_type & BR_HW_INDEX ? 16 : 8;
			rb_fail(&r, "branch stack of %" PRIu64 " entries does not fit in the sample",
				nbr);
		}
		br = rb_bytes(&r, nbr * 24);
	}
	/* --call-graph dwarf: the user registers (none if abi is 0), then the
	 * copy of the user stack, dyn_size bytes of it filled. */
	if (st & S_REGS_USER) {
		abi = rb_u64(&r);
		if (abi) {
			nregs = (uint64_t)__builtin_popcountll(a->regs_user);
			regs = rb_bytes(&r, nregs * 8);
		}
	}
	if (st & S_STACK_USER) {
		ustack_size = rb_u64(&r);
		if (!r.failed && ustack_size > r.len - r.pos) {
			r.pos -= 8;
			rb_fail(&r, "user stack of %" PRIu64 " bytes does not fit in the sample (%zu bytes left)",
				ustack_size, r.len - r.pos - 8);
		}
		ustack = rb_bytes(&r, ustack_size);
		if (ustack_size)
			dyn_size = rb_u64(&r);
		if (dyn_size > ustack_size)
			dyn_size = ustack_size;
	}
	if (check_reader(m, &r))
		return;
	if (!a->selected) {
		m->other_samples++;
		return;
	}
	m->attrs[ai].samples++;
	m->s.taken++;
	if (time != NO_TIME)
		samples_time(&m->s, time);
	/* Kernel samples: no user IP, and (as in pgoprof-record) neither
	 * their user stack nor their branch records are used. */
	if (cpumode == MISC_GUEST_KERNEL || cpumode == MISC_GUEST_USER) {
		m->s.guest++;
		return;
	}
	if (cpumode == MISC_KERNEL || cpumode == MISC_HYPERVISOR ||
	    ((st & S_IP) && (int64_t)ip < 0) ||
	    (cpumode == 0 && !(st & S_IP) && nchain &&
	     get64(chain) >= CONTEXT_MAX && get64(chain) != CONTEXT_USER)) {
		m->s.kernel++;
		return;
	}

	/* The user part of the call chain: the leaf, then return addresses. */
	for (uint64_t i = 0; i < nchain; i++) {
		if (get64(chain + 8 * i) != CONTEXT_USER)
			continue;
		for (i++; i < nchain && nips < MAX_STACK_DEPTH; i++) {
			uint64_t v = get64(chain + 8 * i);

			if (v >= CONTEXT_MAX)
				break;
			ips[nips++] = v;
		}
		break;
	}
	if (!nips && regs && (st & S_STACK_USER)) {
		/* dwarf mode: unwound as pgoprof-record does, or the IP alone */
		struct unwind_sample s = {
			.pid = (pid_t)pid,
			.tid = (pid_t)tid,
			.stack = ustack,
			.stack_len = (size_t)dyn_size,
		};

		if (!regs_foreign(m, a, abi))
			nips = unwind_user(m, &s, a->regs_user, regs, nregs, ips);
	} else if (st & S_STACK_USER) {
		m->dwarf_stacks++;	/* no user registers: the IP only */
	}
	chained = nips > 0;
	if (!nips && (st & S_IP))
		ips[nips++] = ip;	/* no user call chain: -b */
	if (!nips)
		m->s.no_user_stack++;
	else
		samples_add_stack(&m->s, samples_key(&m->s, pid), ips, nips,
				  chained);
	if (br) {
		if (a->branch_type & BR_CALL_STACK) {
			m->call_stack_lbr++;
		} else {
			if (!(a->branch_type & BR_ANY))
				m->no_ranges_filter++;
			samples_add_branches(&m->s, samples_key(&m->s, pid), br, nbr, 24,
				     !!(a->branch_type & BR_ANY));
		}
	}
}

/* A NUL-terminated file name at off inside the record. */
static const char *rec_filename(struct imp *m, const struct rec *rc, size_t at)
{
	const char *s = (const char *)m->buf + rc->off + at;

	if (at >= rc->size || !memchr(s, 0, rc->size - at)) {
		fail(m, rc->off + (at < rc->size ? at : 6),
		     "file name of the mapping record is not NUL-terminated");
		return NULL;
	}
	return s;
}

/* Does an MMAP2 record carry a build-ID (instead of device and inode)?
 * The kernel sets PERF_RECORD_MISC_MMAP_BUILD_ID for every event that
 * asked for build-IDs (attr.build_id) but, at least up to 6.18, leaves the
 * flag set for the other events that receive the same mmap, whose records
 * hold device and inode: so the flag counts only if an event of the file
 * asked for build-IDs, and the size and reserved bytes make sense. */
static int mmap2_has_build_id(struct imp *m, const struct rec *rc)
{
	const uint8_t *p = m->buf + rc->off;

	if (!(rc->misc & MISC_MMAP_BUILD_ID))
		return 0;
	if (m->build_id_attr && p[40] >= 1 && p[40] <= 20 && !p[41] &&
	    !get16(p + 42))
		return 1;
	m->bad_build_id_flag++;
	return 0;
}

static void deliver(struct imp *m, const struct rec *rc)
{
	const uint8_t *p = m->buf + rc->off;

	switch (rc->type) {
	case REC_SAMPLE:
		do_sample(m, rc);
		break;
	case REC_MMAP2: {
		const char *path;
		uint32_t prot;

		if (rc->size < 73) {
			fail(m, rc->off + 6, "MMAP2 record of %u bytes (at least 73)", rc->size);
			break;
		}
		path = rec_filename(m, rc, 72);
		prot = get32(p + 64);
		if (!path || !(prot & PROT_EXEC_BIT))
			break;
		if (mmap2_has_build_id(m, rc))
			samples_add_mapping(&m->s, get32(p + 8), get64(p + 16), get64(p + 24),
				    get64(p + 32), p + 44, p[40], path);
		else
			samples_add_mapping(&m->s, get32(p + 8), get64(p + 16), get64(p + 24),
				    get64(p + 32), NULL, 0, path);
		invalidate(m, get32(p + 8));
		break;
	}
	case REC_MMAP: {
		const char *path;

		if (rc->size < 41) {
			fail(m, rc->off + 6, "MMAP record of %u bytes (at least 41)", rc->size);
			break;
		}
		path = rec_filename(m, rc, 40);
		if (path && !(rc->misc & MISC_MMAP_DATA)) {
			samples_add_mapping(&m->s, get32(p + 8), get64(p + 16), get64(p + 24),
				    get64(p + 32), NULL, 0, path);
			invalidate(m, get32(p + 8));
		}
		break;
	}
	case REC_COMM:
		if (rc->size < 16) {
			fail(m, rc->off + 6, "COMM record of %u bytes (at least 16)", rc->size);
			break;
		}
		/* exec: a new address space; its mappings follow. */
		if (rc->misc & MISC_COMM_EXEC) {
			samples_exec(&m->s, get32(p + 8));
			invalidate(m, get32(p + 8));
		}
		break;
	case REC_FORK:
	case REC_EXIT:
		if (rc->size < 32) {
			fail(m, rc->off + 6, "%s record of %u bytes (at least 32)",
			     rc->type == REC_FORK ? "FORK" : "EXIT", rc->size);
			break;
		}
		/* A new process starts with a copy of its parent's mappings;
		 * a new thread shares them already. */
		if (rc->type == REC_FORK && get32(p + 8) != get32(p + 12)) {
			samples_fork(&m->s, get32(p + 12), get32(p + 8));
			invalidate(m, get32(p + 8));
		}
		break;
	case REC_LOST:
		if (rc->size < 24) {
			fail(m, rc->off + 6, "LOST record of %u bytes (at least 24)", rc->size);
			break;
		}
		m->s.lost_records += get64(p + 16);
		break;
	case REC_LOST_SAMPLES:
		if (rc->size < 16) {
			fail(m, rc->off + 6, "LOST_SAMPLES record of %u bytes (at least 16)", rc->size);
			break;
		}
		m->s.lost_samples += get64(p + 8);
		break;
	case 0:
		m->unknown_records++;
		break;
	}
}

static int cmp_qent(const void *a, const void *b)
{
	const struct qent *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Deliver the queued records with time <= limit, in time order. */
static void flush(struct imp *m, uint64_t limit)
{
	size_t i = 0, end;

	sort(m->q, m->nq, sizeof(*m->q), cmp_qent);
	for (end = 0; end < m->nq && m->q[end].time <= limit; end++)
		;
	for (; i < end && !m->failed; i++) {
		struct rec rc;

		rc.off = (size_t)m->q[i].off;
		rc.type = get32(m->buf + rc.off);
		rc.misc = get16(m->buf + rc.off + 4);
		rc.size = get16(m->buf + rc.off + 6);
		deliver(m, &rc);
	}
	if (end) {
		memmove(m->q, m->q + end, (m->nq - end) * sizeof(*m->q));
		m->nq -= end;
	}
}

/* The lowest offset that a queued record still needs (off if none). */
static size_t lowest_queued(const struct imp *m, size_t off)
{
	for (size_t i = 0; i < m->nq; i++)
		if (m->q[i].off < off)
			off = (size_t)m->q[i].off;
	return off;
}

/* Pass 2: the records in perf's order.  Kernel records with a timestamp
 * are queued and delivered in time order up to the time reached one
 * FINISHED_ROUND earlier (tools/perf/util/ordered-events.c); records
 * without one (time 0: synthesized at the start) are delivered at once. */
static int process_records(struct imp *m, size_t off, size_t end)
{
	struct rec rc;

	for (; off < end && !m->failed; off = rc.next) {
		int r = read_rec(m, off, end, &rc);

		if (r < 0)
			return -1;
		if (r)
			break;
		if (rc.type > REC_KERNEL_MAX) {
			if (rc.type == REC_FINISHED_ROUND && m->ordered) {
				flush(m, m->next_flush);
				m->next_flush = m->max_time;
				release_below(m, lowest_queued(m, off));
			} else if (rc.type > REC_USER_MAX ||
				   (rc.type < REC_HEADER_ATTR)) {
				m->unknown_records++;
			}
			continue;
		}
		uint64_t t = m->ordered ? rec_time(m, &rc) : NO_TIME;

		if (t == NO_TIME || t == 0) {
			deliver(m, &rc);
			if (!m->nq)
				release_below(m, rc.next);
			continue;
		}
		grow(&m->q, &m->cap_q, m->nq + 1, sizeof(*m->q));
		m->q[m->nq++] = (struct qent){ t, off };
		if (t > m->max_time)
			m->max_time = t;
	}
	if (!m->failed)
		flush(m, UINT64_MAX);
	return m->failed ? -1 : 0;
}

/* ---- the file ---- */

static int read_file_header(struct imp *m, size_t *data_off, size_t *data_end)
{
	struct rbuf r;
	uint64_t hsize, attr_size, aoff, asize, doff, dsize, flags[4];

	reader(m, &r, 8, m->len);
	hsize = rb_u64(&r);
	if (r.failed)
		return check_reader(m, &r);
	if (hsize == PIPE_HEADER_SIZE) {
		m->pipe = 1;
		*data_off = PIPE_HEADER_SIZE;
		*data_end = m->len;
		return 0;
	}
	if (hsize < FILE_HEADER_SIZE)
		return fail(m, 8, "header size %" PRIu64 " is neither %d (pipe) nor at least %d",
			    hsize, PIPE_HEADER_SIZE, FILE_HEADER_SIZE);
	attr_size = rb_u64(&r);
	aoff = rb_u64(&r);
	asize = rb_u64(&r);
	doff = rb_u64(&r);
	dsize = rb_u64(&r);
	rb_u64(&r);	/* event_types: unused since perf 3.x */
	rb_u64(&r);
	for (int i = 0; i < 4; i++)
		flags[i] = rb_u64(&r);
	if (check_reader(m, &r))
		return -1;
	if (hsize > m->len)
		return fail(m, 8, "header of %" PRIu64 " bytes runs past the end of the file (%zu bytes)",
			    hsize, m->len);
	if (attr_size < ATTR_SIZE_VER0 + 16)
		return fail(m, 16, "attribute entry size %" PRIu64 " is smaller than %d",
			    attr_size, ATTR_SIZE_VER0 + 16);
	if (check_section(m, 24, aoff, asize, "the attribute section"))
		return -1;
	if (dsize == 0) {
		/* perf did not finish the file: read to the end, as perf does. */
		warnx("%s: the header gives no data size (did 'perf record' end cleanly?); reading to the end of the file",
		      m->name);
		if (doff > m->len)
			return fail(m, 40, "data section at offset %" PRIu64 " is past the end of the file (%zu bytes)",
				    doff, m->len);
		memset(flags, 0, sizeof(flags));
		dsize = m->len - doff;
		m->unfinished = 1;
	}
	if (check_section(m, 40, doff, dsize, "the data section"))
		return -1;
	*data_off = (size_t)doff;
	*data_end = (size_t)(doff + dsize);

	/* The attributes: attr (attr.size bytes), then the ids section. */
	for (uint64_t i = 0; i < asize / attr_size; i++) {
		size_t at = (size_t)(aoff + i * attr_size), sz;
		struct pattr a;
		uint64_t ioff, isize;
		uint32_t ai = (uint32_t)m->nattrs;

		sz = parse_attr(m, at, (size_t)attr_size - 16, &a);
		if (!sz)
			return -1;
		*new_attr(m) = a;
		ioff = get64(m->buf + at + sz);
		isize = get64(m->buf + at + sz + 8);
		if (check_section(m, at + sz, ioff, isize, "the event IDs"))
			return -1;
		for (uint64_t j = 0; j < isize / 8; j++)
			add_id(m, get64(m->buf + ioff + 8 * j), ai);
	}

	/* The feature sections: a table of {offset, size} after the data,
	 * one per bit set in the 256-bit map, in bit order. */
	size_t table = *data_end;
	for (int bit = 0; bit < 256; bit++) {
		uint64_t off, size;

		if (!(flags[bit / 64] >> (bit % 64) & 1))
			continue;
		reader(m, &r, table, m->len);
		off = rb_u64(&r);
		size = rb_u64(&r);
		if (check_reader(m, &r) ||
		    check_section(m, table, off, size, "a feature section") ||
		    process_feature(m, bit, (size_t)off, (size_t)size))
			return -1;
		table += 16;
	}
	return 0;
}

static void set_meta(struct imp *m)
{
	struct samples_info info = {
		.source = m->name, .host = m->hostname, .osrelease = m->osrelease,
		.arch = m->arch, .version = m->version, .cmdline = m->cmdline,
	};
	struct samples_event *ev = xcalloc(m->nattrs, sizeof(*ev));

	for (size_t i = 0; i < m->nattrs; i++) {
		const struct pattr *a = &m->attrs[i];

		ev[i] = (struct samples_event){
			.name = a->name, .samples = a->samples, .period = a->period,
			.selected = a->selected, .freq = !!(a->flags & A_FREQ),
			.period_known = 1,
			.lbr = (a->sample_type & S_BRANCH_STACK) &&
			       (a->branch_type & BR_ANY) && !(a->branch_type & BR_CALL_STACK),
		};
	}
	samples_meta(m->s.prof, &info, ev, m->nattrs);
	free(ev);
}

/* The counters of perf.data's own; samples_finish() writes the others. */
static void set_counters(struct imp *m)
{
	struct raw_profile *p = m->s.prof;

	/* duration_ms: feature SAMPLE_TIME, else the samples' times */
	if (m->have_sample_time && m->last_time > m->first_time) {
		m->s.tmin = m->first_time;
		m->s.tmax = m->last_time;
	}
	samples_count(p, "import.unknown_records", m->unknown_records);
	samples_count(p, "import.unknown_event_id", m->unknown_id);
	samples_count(p, "import.other_event_samples", m->other_samples);
	samples_count(p, "import.user_stack_not_unwound", m->dwarf_stacks);
	samples_count(p, "import.user_regs_foreign_arch", m->foreign_regs + m->regs32);
	samples_count(p, "import.lbr_call_stack_not_used", m->call_stack_lbr);
	/* As pgoprof-record --call-graph dwarf: why each unwind ended. */
	for (int i = 0; m->unwound && i < UNWIND_END_MAX; i++) {
		char name[64];

		snprintf(name, sizeof(name), "unwind.%s", unwind_end_name[i]);
		raw_add_counter(p, name, m->unwind_ends[i]);
	}
	samples_count(p, "import.mmap2_build_id_flag_ignored", m->bad_build_id_flag);
	samples_count(p, "import.branch_filter_no_ranges", m->no_ranges_filter);
}

int perfdata_probe(const uint8_t *buf, size_t len)
{
	return len >= 8 && (!memcmp(buf, "PERFILE2", 8) ||
			    !memcmp(buf, "2ELIFREP", 8) ||
			    !memcmp(buf, "PERFFILE", 8));
}

static void imp_free(struct imp *m)
{
	for (size_t i = 0; i < m->nattrs; i++)
		free(m->attrs[i].name);
	free(m->attrs);
	free(m->ids);
	free(m->hostname);
	free(m->osrelease);
	free(m->version);
	free(m->arch);
	free(m->cmdline);
	unwind_free(m->uw);
	samples_free(&m->s);
	free(m->q);
}

int perfdata_import(struct raw_profile *p, const uint8_t *buf, size_t len,
		    const char *name, const struct perfdata_options *opt)
{
	static const struct perfdata_options defaults;
	struct imp m = { 0 };
	size_t data_off = 0, data_end = 0;
	uint64_t magic;
	int selected = 0;

	m.opt = opt ? opt : &defaults;
	m.buf = buf;
	m.len = len;
	m.name = name;
	samples_init(&m.s, p, m.opt->no_local_files);
	if (len < 8) {
		fail(&m, 0, "truncated: need 8 bytes for the magic, %zu left", len);
		goto out;
	}
	magic = get64(buf);
	if (magic == PERF_MAGIC2_SWAPPED) {
		fail(&m, 0, "a big-endian perf.data file; this pgoprof reads little-endian ones");
		goto out;
	}
	if (magic != PERF_MAGIC2) {
		fail(&m, 0, !memcmp(buf, "PERFFILE", 8) ?
		     "perf.data version 1 (PERFFILE); this pgoprof reads version 2 (PERFILE2)" :
		     "not a perf.data file (bad magic)");
		goto out;
	}
	if (read_file_header(&m, &data_off, &data_end) ||
	    scan_records(&m, data_off, data_end))
		goto out;
	if (!m.nattrs) {
		fail(&m, m.pipe ? 0 : 24, "no event attributes in the file");
		goto out;
	}
	for (size_t i = 0; i < m.nattrs; i++)
		if (!m.attrs[i].name)
			m.attrs[i].name = default_name(&m.attrs[i]);
	if (m.event_updates)
		scan_event_names(&m, data_off, data_end);
	m.released = 0;
	for (size_t i = 0; i < m.nattrs; i++) {
		m.attrs[i].selected = !m.opt->event ||
				      !strcmp(m.opt->event, m.attrs[i].name);
		selected += m.attrs[i].selected;
	}
	if (!selected) {
		char list[512] = "";
		size_t n = 0;

		for (size_t i = 0; i < m.nattrs && n < sizeof(list) - 1; i++)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
					      n ? ", " : "", m.attrs[i].name);
		err("%s: no event named '%s'; its events: %s", name, m.opt->event, list);
		m.failed = 1;
		goto out;
	}
	m.ordered = !!(m.attrs[0].flags & A_SAMPLE_ID_ALL);
	for (size_t i = 0; i < m.nattrs; i++)
		m.build_id_attr |= !!(m.attrs[i].flags & A_BUILD_ID);
	if (process_records(&m, data_off, data_end))
		goto out;
	/* Its file IDs are object indices, which raw_drop_empty_objects
	 * renumbers. */
	unwind_free(m.uw);
	m.uw = NULL;
	report_foreign_regs(&m);
	set_meta(&m);
	set_counters(&m);
	samples_finish(&m.s);
out:
	imp_free(&m);
	if (m.failed) {
		raw_free(p);
		return -1;
	}
	return 0;
}
