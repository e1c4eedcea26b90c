/* SPDX-License-Identifier: GPL-2.0-only */
#include "escape.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)	/* also stops at the NUL */
			return 0;
	return n;
}

/* The next unit of s: *len bytes of s kept as they are (returns NULL),
 * or one byte written as the escape it returns (in buf). */
static const char *next_unit(const unsigned char *s, unsigned flags,
			     size_t *len, char buf[5])
{
	static const char hex[] = "0123456789abcdef";
	unsigned c = *s;

	*len = 1;
	if (c == '\\')
		return "\\\\";
	if (c == '\n')
		return "\\n";
	if (c == '\t')
		return flags & ESC_TABS ? NULL : "\\t";
	if (c == '\r')
		return "\\r";
	/* U+0080..U+009F (C1 controls) are 0xc2 0x80..0x9f. */
	if (c >= 0x80 && (*len = utf8_len(s)) && !(c == 0xc2 && s[1] < 0xa0))
		return NULL;
	*len = 1;
	if (c < 0x20 || c >= 0x7f || (c == ';' && (flags & ESC_FOLDED))) {
		buf[0] = '\\', buf[1] = 'x';
		buf[2] = hex[c >> 4], buf[3] = hex[c & 15], buf[4] = '\0';
		return buf;
	}
	return NULL;
}

int esc_needed(const char *s, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;
	char buf[5];
	size_t n;

	for (; *p; p += n)
		if (next_unit(p, flags, &n, buf))
			return 1;
	return 0;
}

void esc_fputs(const char *s, unsigned flags, FILE *f)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;
	const char *e;
	char buf[5];
	size_t n;

	for (; *p; p += n) {
		if (!(e = next_unit(p, flags, &n, buf)))
			continue;
		fwrite(run, 1, (size_t)(p - run), f);
		fputs(e, f);
		run = p + n;
	}
	fwrite(run, 1, (size_t)(p - run), f);
}

char *esc_strdup(const char *s, unsigned flags)
{
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		die(1, "out of memory");
	esc_fputs(s, flags, f);
	if (fclose(f))
		die(1, "out of memory");
	return out;
}

void esc_cat(char *buf, size_t size, const char *sep, const char *s)
{
	char *e = esc_strdup(s, 0);
	size_t n = strlen(buf);

	if (n < size)
		snprintf(buf + n, size - n, "%s%s", sep, e);
	free(e);
}

const char *esc_llvm_text_unfit(const char *name)
{
	const unsigned char *p = (const unsigned char *)name;

	if (!*p)
		return "empty";
	if (strchr("#![", *p))
		return "starts with '#', '!' or '['";
	for (; *p; p++)
		if (*p <= 0x20 || *p == 0x7f)
			return "has a space or a control character";
	return NULL;
}
