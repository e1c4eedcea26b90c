/* SPDX-License-Identifier: GPL-2.0-only */
/* The options that say how a compiler profile is written, shared by
 * 'pgoprof convert' and 'pgoprof merge': --format, --md5-names,
 * --compress, --afdo-version, --gcc-version. */
#ifndef PGOPROF_WRITEOPTS_H
#define PGOPROF_WRITEOPTS_H

#include "../convert/formats.h"

#include <getopt.h>

/* getopt_long values of the long-only write options. */
enum {
	WOPT_MD5_NAMES = 'M',
	WOPT_COMPRESS = 'Z',
	WOPT_GCC_VERSION = 'G',
	WOPT_AFDO_VERSION = 'A',
};

/* The entries of a command's struct option table; -f is --format. */
#define WRITE_LONGOPTS \
	{ "format", required_argument, NULL, 'f' }, \
	{ "md5-names", no_argument, NULL, WOPT_MD5_NAMES }, \
	{ "compress", no_argument, NULL, WOPT_COMPRESS }, \
	{ "gcc-version", required_argument, NULL, WOPT_GCC_VERSION }, \
	{ "afdo-version", required_argument, NULL, WOPT_AFDO_VERSION }

/* Apply getopt_long's option opt (with its argument arg) to wo if it is
 * one of WRITE_LONGOPTS.  Returns 1 if it was (wo updated), 0 if opt is
 * not a write option (wo untouched), -1 if its value is bad: one line on
 * stderr names the option, the value and the choices; the command then
 * exits with status 2. */
int write_option(int opt, const char *arg, struct write_options *wo);

#endif
