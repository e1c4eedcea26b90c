/* SPDX-License-Identifier: GPL-2.0-only */
/* JSON strings. */
#include "json.h"

#include <stddef.h>

/* Length of the valid UTF-8 sequence at s, or 0. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : s[0] >= 0xe0 ? 3 :
		   s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;

	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		fputs("null", f);
		return;
	}
	putc('"', f);
	while (*p) {
		size_t n;

		if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p++);
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\u%04x", *p++);
		} else if (*p < 0x80) {
			putc(*p++, f);
		} else if ((n = utf8_len(p))) {
			fwrite(p, 1, n, f);
			p += n;
		} else {
			fprintf(f, "\\u%04x", *p++);
		}
	}
	putc('"', f);
}
