/* SPDX-License-Identifier: GPL-2.0-only */
/* The write options of convert and merge (writeopts.h): one parser, so
 * both commands accept the same values and say the same things. */
#include "writeopts.h"
#include "../lib/util.h"

#include <stdlib.h>

/* --gcc-version N: GCC 12 and later read .afdo version 2, earlier ones 1
 * (gcc/auto-profile.cc, AUTO_PROFILE_VERSION). */
static int gcc_version(const char *arg, struct write_options *wo)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || v < 4 || v > 99)
		return err("--gcc-version %s: give GCC's major version, e.g. 12", arg);
	wo->afdo_version = v >= 12 ? 2 : 1;
	return 1;
}

int write_option(int opt, const char *arg, struct write_options *wo)
{
	int v;

	switch (opt) {
	case 'f':
		wo->format = format_by_name(arg);
		if (wo->format == FMT_NONE)
			return err("--format %s: not known; formats: llvm-text, llvm-extbinary, afdo", arg);
		return 1;
	case WOPT_MD5_NAMES:
		wo->md5_names = 1;
		return 1;
	case WOPT_COMPRESS:
		wo->compress = 1;
		return 1;
	case WOPT_GCC_VERSION:
		return gcc_version(arg, wo);
	case WOPT_AFDO_VERSION:
		v = afdo_version_by_name(arg);
		if (v < 0)
			return err("--afdo-version %s: give 2 (GCC 12 and later), 1 (GCC 11 and earlier) or llvm (llvm-profdata, clang)", arg);
		wo->afdo_version = v;
		return 1;
	default:
		return 0;
	}
}
