/* SPDX-License-Identifier: GPL-2.0-only */
/* pprof into a raw profile: gunzip with zlib, unpack with libprotobuf-c
 * (code generated from third_party/pprof/profile.proto) once pbcost.c has
 * counted that unpacking fits the limit (decode()), then every
 * Location to a frame (object by the Mapping's build-ID, file offset by
 * the Mapping's memory_start and file_offset) and every Sample to
 * raw_add_sampled_stack(), the rule the other importers share. */
#include "pprof.h"
#include "pbcost.h"
#include "../lib/util.h"
#include "../raw/rawprof.h"
#include "../version.h"
#include "pprof/profile.pb-c.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;

/* The most a gzipped profile inflates to, in bytes (1 GiB, as
 * STREAM_MAX_MIB for a stream). */
#define PPROF_MAX ((size_t)1 << 30)

/* Why a frame is in no object: the unattributed.* reason of a leaf. */
enum why { WHY_OK, WHY_KERNEL, WHY_NO_MAPPING, WHY_ANONYMOUS, WHY_NO_ADDRESS };
static const char *const why_reason[] = {
	[WHY_KERNEL] = "kernel", [WHY_NO_MAPPING] = "no_mapping",
	[WHY_ANONYMOUS] = "anonymous", [WHY_NO_ADDRESS] = "no_address",
};

/* An id -> table index pair, sorted by id for bsearch. */
struct idx {
	uint64_t id;
	size_t i;
};

/* A Mapping as the raw profile sees it: an object, or why not. */
struct map {
	uint32_t obj;
	enum why why;
};

/* A Location as a frame, or why it is none. */
struct loc {
	struct raw_frame f;
	enum why why;
};

struct imp {
	struct raw_profile *p;
	const Profile *pf;
	const char *name;
	struct idx *map_ids, *loc_ids, *fn_ids;
	struct map *maps;
	struct loc *locs;
	uint64_t negative;
	int call_pcs;		/* callers' addresses are return address - 1 */
};

int pprof_probe_gzip(const uint8_t *head, size_t len)
{
	return len >= 2 && head[0] == 0x1f && head[1] == 0x8b;
}

static const char *str_at(const Profile *pf, int64_t i)
{
	return i >= 0 && (size_t)i < pf->n_string_table ? pf->string_table[i] : NULL;
}

/* Decoding's memory.  libprotobuf-c's unpack makes every entry of a
 * repeated field an allocation of its own, so what it takes follows the
 * number of entries, not the bytes: an empty Sample is 2 bytes of
 * protobuf and 120 bytes unpacked (31 M of them, 275 KB of gzip, took
 * 3.75 GB).  decode() counts them before unpacking (pb_unpack_cost()) and
 * refuses what would take more than the limit; unpack runs with an
 * allocator held to the same limit. */

/* The most decoding may take unless PGOPROF_PPROF_MAX_MIB says:
 * PPROF_DECODE_RATIO bytes a byte of protobuf (profiles of pgoprof and Go
 * take 8 to 13, samples of one frame and one value 23; empty samples 61),
 * at least PPROF_DECODE_MIN_MIB, at most PPROF_DECODE_MAX_MIB, as inflating
 * stops at PPROF_MAX. */
#define PPROF_DECODE_RATIO 32
#define PPROF_DECODE_MIN_MIB 64
#define PPROF_DECODE_MAX_MIB 4096

static uint64_t profile_cost(struct pb_scan *s, const uint8_t *buf, size_t len)
{
	return pb_unpack_cost(&perftools__profiles__profile__descriptor, buf, len, s);
}

uint64_t pprof_decode_cost(const uint8_t *buf, size_t len)
{
	struct pb_scan s;

	return profile_cost(&s, buf, len);
}

/* Fields of a Profile that the messages name (profile.proto's numbers). */
enum { PF_SAMPLE_TYPE = 1, PF_SAMPLE = 2, PF_LOCATION = 4, PF_FUNCTION = 5,
       PF_STRING_TABLE = 6 };

/* Profile field id's index in s->n and s->first. */
static size_t field_index(unsigned id)
{
	const ProtobufCMessageDescriptor *d = &perftools__profiles__profile__descriptor;

	return (size_t)(protobuf_c_message_descriptor_get_field(d, id) - d->fields);
}

/* The most decoding len bytes of protobuf may take, in bytes: the
 * default above, or PGOPROF_PPROF_MAX_MIB; 0 after a message if that is
 * not a number of MiB. */
static uint64_t decode_limit(size_t len)
{
	uint64_t lim = (uint64_t)len * PPROF_DECODE_RATIO;
	int set = env_mib("PGOPROF_PPROF_MAX_MIB", &lim);

	if (set)
		return set < 0 ? 0 : lim;
	lim = lim < (uint64_t)PPROF_DECODE_MIN_MIB << 20 ? (uint64_t)PPROF_DECODE_MIN_MIB << 20 : lim;
	return lim > (uint64_t)PPROF_DECODE_MAX_MIB << 20 ? (uint64_t)PPROF_DECODE_MAX_MIB << 20 : lim;
}

/* Why the limit is what it is, for the message that says it. */
static const char *limit_why(char *buf, size_t size)
{
	const char *e = getenv("PGOPROF_PPROF_MAX_MIB");

	if (e && *e)
		return "PGOPROF_PPROF_MAX_MIB";
	snprintf(buf, size, "%d bytes a byte of protobuf, %d to %d MiB; PGOPROF_PPROF_MAX_MIB sets another",
		 PPROF_DECODE_RATIO, PPROF_DECODE_MIN_MIB, PPROF_DECODE_MAX_MIB);
	return buf;
}

/* The Profile in buf (len bytes of protobuf) unpacked by c's allocator
 * (free it with it), if the wire format holds and decoding takes at most
 * the limit; else NULL after one line naming the file. */
static Profile *decode(const uint8_t *buf, size_t len, const char *name,
		       struct pb_counted *c)
{
	struct pb_scan s;
	uint64_t cost = profile_cost(&s, buf, len);
	Profile *pf;
	char why[128];

	pb_counted_init(c, decode_limit(len));
	if (!c->limit)
		return NULL;
	if (cost == UINT64_MAX)
		return err("%s: not a pprof profile: its protobuf breaks at byte %zu of %zu, %s (profile.proto)",
			   name, s.bad, len, s.what), NULL;
	if (cost > c->limit)
		return err("%s: too large: %" PRIu64 " samples, %" PRIu64 " locations, %" PRIu64 " functions and %" PRIu64
			   " strings would take %" PRIu64 " MiB to decode, more than %" PRIu64 " MiB (%s)",
			   name, s.n[field_index(PF_SAMPLE)], s.n[field_index(PF_LOCATION)],
			   s.n[field_index(PF_FUNCTION)], s.n[field_index(PF_STRING_TABLE)],
			   cost >> 20, c->limit >> 20, limit_why(why, sizeof(why))), NULL;
	if ((pf = perftools__profiles__profile__unpack(&c->a, len, buf)))
		return pf;
	if (c->over)
		return err("%s: too large: decoding it took more than %" PRIu64 " MiB (%s)",
			   name, c->limit >> 20, limit_why(why, sizeof(why))), NULL;
	if (c->oom)
		return err("%s: out of memory decoding it, at %" PRIu64 " MiB of the %" PRIu64 " MiB it takes",
			   name, c->at >> 20, cost >> 20), NULL;
	return err("%s: not a pprof profile: its %zu bytes of protobuf do not parse as a Profile (profile.proto)",
		   name, len), NULL;
}

int pprof_probe_proto(const uint8_t *buf, size_t len)
{
	struct pb_scan s;

	return profile_cost(&s, buf, len) != UINT64_MAX &&
	       s.n[field_index(PF_STRING_TABLE)] && !s.first[field_index(PF_STRING_TABLE)] &&
	       s.n[field_index(PF_SAMPLE_TYPE)];
}

/* Inflate gzip data (members one after another, RFC 1952) into *out.
 * Bytes after a member that do not start another are an error (gzip
 * only warns): they are a file run together with another, or written
 * over, and whether the profile before them is whole nobody can say. */
static uint8_t *gunzip(const uint8_t *buf, size_t len, const char *name,
		       size_t *outlen)
{
	z_stream z = { 0 };
	size_t cap = len * 4 + 4096, n = 0;
	uint8_t *out = xmalloc(cap);
	int rc = Z_OK;

	if (inflateInit2(&z, 15 + 16) != Z_OK) {	/* out of memory */
		err("%s: zlib cannot start inflating: %s", name,
		    z.msg ? z.msg : "out of memory");
		free(out);
		return NULL;
	}
	z.next_in = (Bytef *)buf;
	for (size_t left = len; rc != Z_STREAM_END || left;) {
		if (rc == Z_STREAM_END) {	/* another member, or garbage */
			if (!pprof_probe_gzip(z.next_in, left)) {
				err("%s: byte %zu: %zu bytes after the last gzip member: not gzip data",
				    name, len - left, left);
				goto fail;
			}
			inflateReset(&z);
		}
		if (n == cap) {
			if (cap >= PPROF_MAX) {
				err("%s: inflates to more than %zu bytes: not a profile pgoprof reads",
				    name, PPROF_MAX);
				goto fail;
			}
			out = xrealloc(out, cap *= 2);
		}
		z.avail_in = left > UINT32_MAX ? UINT32_MAX : (uInt)left;
		z.next_out = out + n;
		z.avail_out = cap - n > UINT32_MAX ? UINT32_MAX : (uInt)(cap - n);
		rc = inflate(&z, Z_NO_FLUSH);
		n = (size_t)(z.next_out - out);
		left = len - (size_t)(z.next_in - buf);
		if (rc == Z_BUF_ERROR && !left) {
			err("%s: truncated gzip data: it ends at byte %zu before the end of its stream",
			    name, len);
			goto fail;
		}
		if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
			err("%s: byte %zu: not valid gzip data (zlib: %s)", name,
			    len - left, z.msg ? z.msg : "error");
			goto fail;
		}
	}
	inflateEnd(&z);
	*outlen = n;
	return out;
fail:
	inflateEnd(&z);
	free(out);
	return NULL;
}

static int cmp_idx(const void *a, const void *b)
{
	const struct idx *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Sorted (id, index) of n messages whose ids get(k) gives. */
static struct idx *index_ids(size_t n, uint64_t (*get)(const Profile *, size_t),
			     const Profile *pf)
{
	struct idx *v = xcalloc(n + 1, sizeof(*v));

	for (size_t k = 0; k < n; k++)
		v[k] = (struct idx){ get(pf, k), k };
	sort(v, n, sizeof(*v), cmp_idx);
	return v;
}

static uint64_t map_id(const Profile *pf, size_t k) { return pf->mapping[k]->id; }
static uint64_t loc_id(const Profile *pf, size_t k) { return pf->location[k]->id; }
static uint64_t fn_id(const Profile *pf, size_t k) { return pf->function[k]->id; }

/* Table index of id in v (n entries), or -1. */
static long find_id(const struct idx *v, size_t n, uint64_t id)
{
	struct idx key = { id, 0 };
	const struct idx *r = id ? bsearch(&key, v, n, sizeof(*v), cmp_idx) : NULL;

	return r ? (long)r->i : -1;
}

/* A build-ID as pprof writes it (hex) -> bytes; 0 if it is not one. */
static uint32_t parse_build_id(const char *s, uint8_t *id)
{
	size_t n = strlen(s);

	if (n % 2 || n / 2 < RAW_BUILD_ID_MIN || n / 2 > RAW_BUILD_ID_MAX)
		return 0;
	for (size_t i = 0; i < n; i += 2) {
		char b[3] = { s[i], s[i + 1], 0 }, *end;

		id[i / 2] = (uint8_t)strtoul(b, &end, 16);
		if (*end || !strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
			return 0;
	}
	return (uint32_t)(n / 2);
}

/* Each Mapping's object, or why it has none. */
static int read_mappings(struct imp *m)
{
	const Profile *pf = m->pf;

	m->maps = xcalloc(pf->n_mapping + 1, sizeof(*m->maps));
	for (size_t k = 0; k < pf->n_mapping; k++) {
		const Mapping *mp = pf->mapping[k];
		const char *file = str_at(pf, mp->filename), *bid = str_at(pf, mp->build_id);
		uint8_t id[RAW_BUILD_ID_MAX];
		uint32_t len;

		if (!file || !bid)
			return err("%s: mapping %zu (id %" PRIu64 "): string index out of the string table (%zu strings)",
				   m->name, k, mp->id, pf->n_string_table);
		if (!mp->id)
			return err("%s: mapping %zu has id 0 (profile.proto: ids are nonzero)", m->name, k);
		if (!strncmp(file, "[kernel", 7) || !strcmp(file, "vmlinux"))
			m->maps[k].why = WHY_KERNEL;
		else if ((len = parse_build_id(bid, id)))
			m->maps[k].obj = raw_object(m->p, id, len, file);
		else if (file[0] == '/')
			m->maps[k].obj = raw_path_object(m->p, file);
		else
			m->maps[k].why = WHY_ANONYMOUS;
	}
	m->map_ids = index_ids(pf->n_mapping, map_id, pf);
	return 0;
}

/* The first line's function name of l, or "". */
static const char *first_function(const struct imp *m, const Location *l)
{
	uint64_t fid = l->n_line ? l->line[0]->function_id : 0;
	long k = find_id(m->fn_ids, m->pf->n_function, fid);
	const char *s = k >= 0 ? str_at(m->pf, m->pf->function[k]->name) : NULL;

	return s ? s : "";
}

/* Each Location as a frame: the file offset of its address in its
 * Mapping's object. */
static void read_locations(struct imp *m)
{
	const Profile *pf = m->pf;

	m->locs = xcalloc(pf->n_location + 1, sizeof(*m->locs));
	m->fn_ids = index_ids(pf->n_function, fn_id, pf);
	for (size_t k = 0; k < pf->n_location; k++) {
		const Location *l = pf->location[k];
		long mi = find_id(m->map_ids, pf->n_mapping, l->mapping_id);
		struct loc *lc = &m->locs[k];
		const Mapping *mp = mi >= 0 ? pf->mapping[mi] : NULL;

		lc->f = (struct raw_frame){ RAW_FRAME_UNKNOWN, 0 };
		if (!mp)	/* pgoprof writes a kernel frame so */
			lc->why = !strcmp(first_function(m, l), "[kernel]")
					  ? WHY_KERNEL : WHY_NO_MAPPING;
		else if (m->maps[mi].why)
			lc->why = m->maps[mi].why;
		else if (!l->address)
			lc->why = WHY_NO_ADDRESS;
		else if (l->address < mp->memory_start ||
			 (mp->memory_limit && l->address >= mp->memory_limit))
			lc->why = WHY_NO_MAPPING;
		else
			lc->f = (struct raw_frame){ m->maps[mi].obj,
				l->address - mp->memory_start + mp->file_offset };
		if (lc->why == WHY_KERNEL)
			lc->f.obj = RAW_FRAME_KERNEL;
	}
	m->loc_ids = index_ids(pf->n_location, loc_id, pf);
}

/* A profile of names without addresses cannot be attributed to code. */
static int refuse_symbolized(const struct imp *m)
{
	size_t with_address = 0, names_only = 0;

	for (size_t k = 0; k < m->pf->n_location; k++) {
		with_address += m->locs[k].why == WHY_OK;
		names_only += m->locs[k].why == WHY_NO_ADDRESS ||
			      (m->locs[k].why == WHY_NO_MAPPING &&
			       !m->pf->location[k]->address &&
			       m->pf->location[k]->n_line);
	}
	if (with_address || !names_only)
		return 0;
	return err("%s: its %zu locations have function names but no addresses (a symbolized-only profile, "
		   "as Go's heap profiles or 'pprof -proto' of a symbolized profile are): pgoprof needs each "
		   "location's address and its mapping's build-ID to find the code in the binary; export the "
		   "profile unsymbolized from the profiler (raw addresses with mappings), or record with 'pgoprof record'",
		   m->name, names_only);
}

/* Which value of the samples is the count, and the divisor that makes
 * it one (a time when the profile gives no "samples" value). */
static int pick_value(const struct imp *m, const char *want, size_t *vi,
		      uint64_t *div)
{
	const Profile *pf = m->pf;
	const char *unit, *pu = pf->period_type ? str_at(pf, pf->period_type->unit) : NULL;
	char list[512] = "";

	*div = 1;
	for (size_t k = 0; k < pf->n_sample_type; k++) {
		const char *t = str_at(pf, pf->sample_type[k]->type);

		if (!t || !str_at(pf, pf->sample_type[k]->unit))
			return err("%s: sample type %zu: string index out of the string table", m->name, k);
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", k ? ", " : "", t);
		if (!strcmp(t, want ? want : "samples")) {
			*vi = k;
			return 0;
		}
	}
	if (want)
		return err("%s: no sample type %s; it has: %s", m->name, want, list);
	*vi = 0;
	unit = str_at(pf, pf->sample_type[0]->unit);
	if (pu && !strcmp(unit, pu) && pf->period > 0) {
		*div = (uint64_t)pf->period;
		warnx("%s: no 'samples' value: samples = %s / period %" PRId64 " %s (--sample-type chooses another value)",
		      m->name, str_at(pf, pf->sample_type[0]->type), pf->period, pu);
	} else
		warnx("%s: no 'samples' value: the counts are its first value, %s/%s (--sample-type chooses another)",
		      m->name, str_at(pf, pf->sample_type[0]->type), unit);
	return 0;
}

/* Sample k's frames, leaf first, into f (at least RAW_STACK_DEPTH_MAX):
 * the kernel frames at the leaf become one kernel mark, as
 * pgoprof-record writes them.  Returns the depth, or -1 after a message
 * (an unknown location id); *leaf_why is the leaf's reason. */
static long sample_frames(const struct imp *m, size_t k, struct raw_frame *f,
			  enum why *leaf_why)
{
	const Perftools__Profiles__Sample *s = m->pf->sample[k];
	uint32_t d = 0;

	*leaf_why = WHY_OK;
	for (size_t i = 0; i < s->n_location_id && d < RAW_STACK_DEPTH_MAX; i++) {
		long li = find_id(m->loc_ids, m->pf->n_location, s->location_id[i]);
		const struct loc *lc = li >= 0 ? &m->locs[li] : NULL;

		if (!lc)
			return err("%s: sample %zu: location id %" PRIu64 " is not in the profile",
				   m->name, k, s->location_id[i]);
		if (!d)
			*leaf_why = lc->why;
		if (lc->why == WHY_KERNEL && d == 1 && f[0].obj == RAW_FRAME_KERNEL)
			continue;	/* one kernel mark for the kernel's frames */
		f[d] = lc->f;
		if (lc->why == WHY_KERNEL && d)	/* kernel above user code */
			f[d].obj = RAW_FRAME_UNKNOWN;
		else if (d && m->call_pcs && lc->why == WHY_OK)
			f[d].offset++;	/* the return address */
		d++;
	}
	return d;
}

static int read_samples(struct imp *m, size_t vi, uint64_t div)
{
	struct raw_frame *f = xmalloc(RAW_STACK_DEPTH_MAX * sizeof(*f));
	uint64_t lost = 0;

	for (size_t k = 0; k < m->pf->n_sample; k++) {
		const Perftools__Profiles__Sample *s = m->pf->sample[k];
		enum why why;
		uint64_t n;
		long d;

		if (s->n_value <= vi) {
			free(f);
			return err("%s: sample %zu has %zu values; the profile has %zu sample types",
				   m->name, k, s->n_value, m->pf->n_sample_type);
		}
		if (s->value[vi] <= 0) {
			m->negative += s->value[vi] < 0;
			continue;
		}
		n = ((uint64_t)s->value[vi] + div / 2) / div;
		n = n ? n : 1;
		if ((d = sample_frames(m, k, f, &why)) < 0) {
			free(f);
			return -1;
		}
		raw_add_counter(m->p, CNT_SAMPLES, n);
		if (!d)
			raw_add_unattributed(m->p, "no_user_stack", n);
		else if (why)
			raw_add_unattributed(m->p, why_reason[why], n);
		lost += raw_add_sampled_stack(m->p, f, (uint32_t)d, n);
	}
	if (lost)
		raw_add_counter(m->p, "edges.unattributed", lost);
	free(f);
	return 0;
}

/* META and counters: where it came from, the event, the times. */
static void header(struct imp *m, size_t vi)
{
	const Profile *pf = m->pf;
	const char *pt = pf->period_type ? str_at(pf, pf->period_type->type) : NULL;
	const char *pu = pf->period_type ? str_at(pf, pf->period_type->unit) : NULL;
	char buf[128];

	raw_set_meta(m->p, "tool", "pgoprof " PGOPROF_VERSION);
	raw_set_meta(m->p, "source", m->name);
	raw_set_meta(m->p, "input", "pprof");
	raw_set_meta(m->p, "mode", "import-stack");
	snprintf(buf, sizeof(buf), "%s/%s", str_at(pf, pf->sample_type[vi]->type),
		 str_at(pf, pf->sample_type[vi]->unit));
	raw_set_meta(m->p, "pprof_sample_type", buf);
	raw_set_meta(m->p, "pprof_callers", m->call_pcs ? "call" : "return");
	/* A time period is cpu-clock's: its sample_period is nanoseconds. */
	if (pf->period > 0 && pt && pu) {
		raw_set_meta(m->p, "event", !strcmp(pu, "nanoseconds") ? "cpu-clock" : pt);
		snprintf(buf, sizeof(buf), "%" PRId64, pf->period);
		raw_set_meta(m->p, "sample_period", buf);
	}
	if (pf->time_nanos > 0) {
		time_t t = (time_t)(pf->time_nanos / 1000000000);
		struct tm tm;

		if (gmtime_r(&t, &tm) && strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
			raw_set_meta(m->p, "start_time", buf);
	}
	if (pf->duration_nanos > 0)
		raw_add_counter(m->p, "duration_ms", (uint64_t)pf->duration_nanos / 1000000);
	raw_add_counter(m->p, CNT_LOST, 0);
}

/* Go's runtime/pprof writes a caller's address as runtime.Frame.PC, the
 * return address - 1 (runtime/pprof/proto.go).  Its CPU profiles have
 * exactly the values samples/count and cpu/nanoseconds and the Go
 * runtime's functions; pgoprof's own (the same values) say pgoprof in a
 * comment. */
static int written_by_go(const Profile *pf)
{
	const char *t0, *t1, *c;
	int go = 0;

	if (pf->n_sample_type != 2)
		return 0;
	t0 = str_at(pf, pf->sample_type[0]->type);
	t1 = str_at(pf, pf->sample_type[1]->type);
	if (!t0 || !t1 || strcmp(t0, "samples") || strcmp(t1, "cpu"))
		return 0;
	for (size_t k = 0; k < pf->n_comment; k++)
		if ((c = str_at(pf, pf->comment[k])) && strstr(c, "pgoprof"))
			return 0;
	for (size_t k = 0; k < pf->n_function && !go; k++) {
		const char *n = str_at(pf, pf->function[k]->name);

		go = n && (!strcmp(n, "runtime.main") || !strcmp(n, "runtime.goexit"));
	}
	return go;
}

static int import_profile(struct imp *m, const char *sample_type,
			  enum pprof_callers callers)
{
	size_t vi = 0;
	uint64_t div;

	if (!m->pf->n_string_table || m->pf->string_table[0][0])
		return err("%s: not a pprof profile: its string table does not start with \"\" (profile.proto)",
			   m->name);
	if (!m->pf->n_sample_type)
		return err("%s: the profile has no sample types", m->name);
	if (pick_value(m, sample_type, &vi, &div) || read_mappings(m))
		return -1;
	read_locations(m);
	m->call_pcs = callers == PPROF_CALLERS_CALL ||
		      (callers == PPROF_CALLERS_AUTO && written_by_go(m->pf));
	if (callers == PPROF_CALLERS_AUTO && m->call_pcs)
		warnx("%s: written by Go's runtime/pprof, it seems: a caller's address is taken as the call's (return address - 1); --caller-addresses return if it is not",
		      m->name);
	if (refuse_symbolized(m) || read_samples(m, vi, div))
		return -1;
	header(m, vi);
	if (m->negative)
		warnx("%s: %" PRIu64 " samples with a negative value were left out", m->name, m->negative);
	return 0;
}

int pprof_import(struct raw_profile *p, const uint8_t *buf, size_t len,
		 const char *name, const char *sample_type,
		 enum pprof_callers callers)
{
	struct imp m = { .p = p, .name = name };
	struct pb_counted c;
	uint8_t *plain = NULL;
	Profile *pf;
	int rc;

	if (pprof_probe_gzip(buf, len)) {
		if (!(plain = gunzip(buf, len, name, &len)))
			return -1;
		buf = plain;
	}
	pf = decode(buf, len, name, &c);
	free(plain);
	if (!pf)
		return -1;
	m.pf = pf;
	rc = import_profile(&m, sample_type, callers);
	perftools__profiles__profile__free_unpacked(pf, &c.a);
	free(m.map_ids), free(m.loc_ids), free(m.fn_ids), free(m.maps), free(m.locs);
	if (rc) {
		raw_free(p);
		raw_init(p);
	}
	return rc;
}
