/* SPDX-License-Identifier: GPL-2.0-only */
#include "formats.h"
#include "afdo.h"
#include "llvm_extbinary.h"
#include "llvm_text.h"
#include "../lib/util.h"
#include "../raw/rawprof.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const names[] = {
	[FMT_LLVM_TEXT] = "llvm-text",
	[FMT_LLVM_EXTBINARY] = "llvm-extbinary",
	[FMT_AFDO] = "afdo",
};

enum prof_format format_by_name(const char *name)
{
	for (size_t i = 1; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return (enum prof_format)i;
	return FMT_NONE;
}

const char *format_name(enum prof_format f)
{
	return f > FMT_NONE && f < (int)ARRAY_SIZE(names) ? names[f] : "none";
}

int afdo_version_by_name(const char *name)
{
	if (!strcmp(name, "2"))
		return 2;
	if (!strcmp(name, "1"))
		return 1;
	if (!strcmp(name, "llvm"))
		return AFDO_VERSION_LLVM;
	return -1;
}

enum prof_format format_detect(const uint8_t *buf, size_t len)
{
	if (raw_probe(buf, len))
		return FMT_NONE;
	if (llvm_extbinary_detect(buf, len))
		return FMT_LLVM_EXTBINARY;
	if (afdo_detect(buf, len))
		return FMT_AFDO;
	if (llvm_text_detect(buf, len))
		return FMT_LLVM_TEXT;
	return FMT_NONE;
}

int profile_probe(const uint8_t *head, size_t len)
{
	size_t i;

	if (raw_probe(head, len) || format_detect(head, len) != FMT_NONE)
		return 1;
	/* A text profile whose first line goes on past the head (a long C++
	 * name): printable so far, no line end yet. */
	for (i = 0; i < len; i++)
		if (head[i] < 0x20 && head[i] != '\t')
			break;
	return len == INPUT_HEAD && i == len;
}

int any_profile_read(struct any_profile *p, const char *path)
{
	const char *name = input_name(path);
	size_t len;
	uint8_t *buf = read_input(path, &len, profile_probe);
	int rc;

	if (!buf)
		return -1;
	p->is_raw = raw_probe(buf, len);
	p->fmt = FMT_NONE;
	fs_init(&p->fs);
	if (p->is_raw)
		rc = raw_parse(&p->raw, buf, len, name);
	else if (format_detect(buf, len) == FMT_NONE)
		rc = err("%s: neither a pgoprof raw profile nor an LLVM (text, extbinary) or GCC (.afdo) sample profile",
			 name);
	else if ((rc = profile_parse(buf, len, name, &p->fs, &p->fmt)))
		fs_free(&p->fs);
	free(buf);
	return rc;
}

void any_profile_free(struct any_profile *p)
{
	if (p->is_raw)
		raw_free(&p->raw);
	else
		fs_free(&p->fs);
}

const char *any_profile_kind(const struct any_profile *p)
{
	return p->is_raw ? "raw" : format_name(p->fmt);
}

int profile_parse(const uint8_t *buf, size_t len, const char *path,
		  struct fs_profile *p, enum prof_format *fmt)
{
	int rc = -1;

	*fmt = format_detect(buf, len);
	switch (*fmt) {
	case FMT_LLVM_TEXT:
		rc = llvm_text_read(p, (const char *)buf, len, path);
		break;
	case FMT_LLVM_EXTBINARY:
		rc = llvm_extbinary_read(p, buf, len, path);
		break;
	case FMT_AFDO:
		rc = afdo_read(p, buf, len, path);
		break;
	default:
		err("%s: not an LLVM (text, extbinary) or GCC (.afdo) sample profile%s",
		    path, raw_probe(buf, len) ?
		    " but a raw profile: use 'pgoprof convert'" : "");
	}
	return rc;
}

void scale_for_format(struct fs_profile *p, const struct write_options *o)
{
	uint64_t max = fs_max_count(p);

	if (o->format != FMT_AFDO || max <= AFDO_MAX_COUNT)
		return;
	fs_scale(p, AFDO_MAX_COUNT, max);
	warnx("note: counts scaled by %d/%llu for GCC (largest count now %d)",
	      AFDO_MAX_COUNT, (unsigned long long)max, AFDO_MAX_COUNT);
}

static int write_to(const struct fs_profile *p, const struct write_options *o,
		    FILE *f)
{
	struct extbinary_options eo = { o->md5_names, o->compress };

	switch (o->format) {
	case FMT_LLVM_EXTBINARY:
		return llvm_extbinary_write(p, &eo, f);
	case FMT_AFDO:
		return afdo_write(p, o->afdo_version ? o->afdo_version : 2,
				  o->quiet, f);
	default:
		return llvm_text_write(p, f);
	}
}

int profile_write(const struct fs_profile *p, const struct write_options *o,
		  const char *path)
{
	struct outfile out;
	int rc;

	if (!path || !strcmp(path, "-")) {
		if (o->format != FMT_LLVM_TEXT && isatty(STDOUT_FILENO))
			return err("not writing a binary %s profile to a terminal: give -o FILE",
				   format_name(o->format));
		rc = write_to(p, o, stdout);
		return stdout_flush() ? -1 : rc;
	}
	if (outfile_open(&out, path))
		return -1;
	if (write_to(p, o, out.f))
		return outfile_fail(&out);
	return outfile_commit(&out);
}
