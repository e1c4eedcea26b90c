/* SPDX-License-Identifier: GPL-2.0-only */
/* Which object of a raw profile holds the samples of an ELF file: by
 * build-ID, by content digest, else by the path it was recorded at.  The
 * one rule for convert, show and check; docs/raw-format.md section 3.3. */
#include "rawprof.h"
#include "../lib/escape.h"
#include "../lib/md5.h"
#include "../lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Trailing zero bytes are padding: perf pads every build-ID to 20 bytes
 * in HEADER_BUILD_ID when it writes no size (tools/perf/util/build-id.c,
 * write_buildid; PERF_RECORD_MISC_BUILD_ID_SIZE came with perf 5.x). */
static uint32_t unpadded(const uint8_t *id, uint32_t len)
{
	while (len && !id[len - 1])
		len--;
	return len;
}

int raw_same_build_id(const uint8_t *a, uint32_t alen, const uint8_t *b,
		      uint32_t blen)
{
	uint32_t n;

	if (alen == blen && !memcmp(a, b, alen))
		return alen > 0;
	alen = unpadded(a, alen);
	blen = unpadded(b, blen);
	n = alen < blen ? alen : blen;
	return n >= RAW_BUILD_ID_MIN && !memcmp(a, b, n);
}

int raw_match_object(const struct raw_profile *p, const uint8_t *build_id,
		     uint32_t len)
{
	int found = raw_find_object(p, build_id, len);

	for (size_t i = 0; found < 0 && i < p->nobjs; i++)
		if (p->objs[i].id_kind == RAW_ID_BUILD_ID &&
		    raw_same_build_id(p->objs[i].build_id, p->objs[i].build_id_len,
				      build_id, len))
			found = (int)i;
	return found;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* path, less the " (deleted)" the kernel adds to a removed file, is want. */
static int same_path(const char *path, const char *want)
{
	size_t n = strlen(want);

	return !strncmp(path, want, n) &&
	       (!path[n] || !strcmp(path + n, " (deleted)"));
}

static int file_digest(const char *path, uint8_t out[MD5_DIGEST_LEN])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = md5_fd(fd, RAW_CONTENT_MAX, out);
	close(fd);
	return rc;
}

int raw_file_is_object(const struct raw_object *o, const char *path,
		       const uint8_t *id, size_t len)
{
	uint8_t d[MD5_DIGEST_LEN];

	switch (o->id_kind) {
	case RAW_ID_BUILD_ID:
		return id && raw_same_build_id(o->build_id, o->build_id_len,
					       id, (uint32_t)len);
	case RAW_ID_CONTENT:
		return !id && o->build_id_len == sizeof(d) && !file_digest(path, d) &&
		       !memcmp(d, o->build_id, sizeof(d));
	default:
		return 1;
	}
}

static uint64_t object_samples(const struct raw_object *o)
{
	uint64_t n = 0;

	for (size_t i = 0; i < o->nips; i++)
		n += o->ips[i].count;
	return n;
}

/* The object most likely meant by binary: the same file name, else the
 * most samples; -1 if p has none. */
static int likely_object(const struct raw_profile *p, const char *binary)
{
	int best = -1;

	for (size_t i = 0; i < p->nobjs; i++) {
		if (same_path(base_name(p->objs[i].path), base_name(binary)))
			return (int)i;
		if (best < 0 || object_samples(&p->objs[i]) > object_samples(&p->objs[best]))
			best = (int)i;
	}
	return best;
}

/* "build-ID 1234", "content MD5 abcd", "no build-ID": what identifies
 * an object or a file, for messages. */
static const char *describe(char *out, size_t size, enum raw_id_kind kind,
			    const uint8_t *id, size_t len)
{
	char hex[2 * RAW_BUILD_ID_MAX + 1];

	if (!id || kind == RAW_ID_PATH)
		return "no build-ID";
	hex_string(hex, id, len);
	snprintf(out, size, "%s %s", kind == RAW_ID_BUILD_ID ? "build-ID" :
		 "no build-ID, content MD5", hex);
	return out;
}

/* Nothing of b in p: say what p has instead, object i if i >= 0, else
 * the one most likely meant. */
static int mismatch(const struct raw_profile *p, const char *raw_path,
		    const struct raw_binary *b, int i)
{
	char want[2 * RAW_BUILD_ID_MAX + 40], have[2 * RAW_BUILD_ID_MAX + 40];
	const struct raw_object *o;
	uint8_t d[MD5_DIGEST_LEN];
	char *path;
	int rc;

	if (b->build_id)
		describe(want, sizeof(want), RAW_ID_BUILD_ID, b->build_id,
			 b->build_id_len);
	else if (!file_digest(b->path, d))
		describe(want, sizeof(want), RAW_ID_CONTENT, d, sizeof(d));
	else
		snprintf(want, sizeof(want), "no build-ID");
	if (i < 0)
		i = likely_object(p, b->path);
	if (i < 0)
		return err("%s has %s but %s has no samples at all", b->path,
			   want, raw_path);
	o = &p->objs[i];
	path = esc_strdup(o->path, 0);
	rc = err("%s has %s but %s has no samples of it; it has %s (%s) and %zu other objects: was the binary rebuilt or changed since recording?",
		 b->path, want, raw_path,
		 describe(have, sizeof(have), (enum raw_id_kind)o->id_kind,
			  o->build_id, o->build_id_len),
		 path, p->nobjs - 1);
	free(path);
	return rc;
}

/* Objects recorded at b->recorded_path, or without a build-ID under b's
 * file name: the one known only by its path is taken (said in one line);
 * several are refused, listed; one with another ID has changed. */
static int by_path(const struct raw_profile *p, const char *raw_path,
		   const struct raw_binary *b)
{
	const char *want = b->recorded_path ? b->recorded_path : base_name(b->path);
	size_t n = 0, npath = 0;
	int pick = -1, other = -1;
	char list[1024] = "";

	for (size_t i = 0; i < p->nobjs; i++) {
		const struct raw_object *o = &p->objs[i];

		if (o->id_kind == RAW_ID_BUILD_ID && !b->recorded_path)
			continue;
		if (!same_path(b->recorded_path ? o->path : base_name(o->path), want))
			continue;
		if (n++ < 8)
			esc_cat(list, sizeof(list), n > 1 ? ", " : "", o->path);
		if (o->id_kind == RAW_ID_PATH)
			npath++, pick = (int)i;
		else if (other < 0)
			other = (int)i;
	}
	if (n == 1 && npath == 1) {
		warnx("%s: matched by %s to the samples recorded at %s (without a build-ID)",
		      b->path, b->recorded_path ? "--recorded-path" : "file name",
		      list);
		return pick;
	}
	if (npath)
		return err("%s: %s has %zu objects named %s: %s%s; name the one meant with --recorded-path PATH",
			   b->path, raw_path, n, want, list, n > 8 ? ", ..." : "");
	if (other >= 0)
		return mismatch(p, raw_path, b, other);
	if (b->recorded_path)
		return err("%s has no object recorded at %s", raw_path, want);
	return mismatch(p, raw_path, b, -1);
}

int raw_binary_object(const struct raw_profile *p, const char *raw_path,
		      const struct raw_binary *b)
{
	uint8_t d[MD5_DIGEST_LEN];
	int o = -1;

	if (b->build_id)
		o = raw_match_object(p, b->build_id, (uint32_t)b->build_id_len);
	for (size_t i = 0; o < 0 && !b->build_id && i < p->nobjs; i++)
		if (p->objs[i].id_kind == RAW_ID_CONTENT) {
			if (!file_digest(b->path, d))
				o = raw_find_object_id(p, RAW_ID_CONTENT, d, sizeof(d));
			break;
		}
	return o >= 0 ? o : by_path(p, raw_path, b);
}
