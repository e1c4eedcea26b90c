/* SPDX-License-Identifier: GPL-2.0-only */
/* JSON strings. */
#include "json.h"
#include "../lib/escape.h"

#include <stddef.h>

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
