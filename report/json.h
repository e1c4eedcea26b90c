/* SPDX-License-Identifier: GPL-2.0-only */
/* The little JSON the report writes: strings escaped as RFC 8259 section 7
 * requires. */
#ifndef PGOPROF_REPORT_JSON_H
#define PGOPROF_REPORT_JSON_H

#include <stdio.h>

/* Write s as a JSON string (quoted); NULL as null.  Bytes that are not
 * valid UTF-8 are written as \u00XX of the byte, so that the output always
 * parses. */
void json_str(FILE *f, const char *s);

#endif
