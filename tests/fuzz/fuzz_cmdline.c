/* SPDX-License-Identifier: GPL-2.0-only */
/* Fuzz target: the command line, as far as it can be parsed in-process.
 *
 * The input is a command line: arguments separated by NUL bytes (at most
 * 64).  Covered:
 *   - pgoprof convert's option parser, convert_parse_args() of
 *     cli/convert.c, and write_option() of cli/writeopts.c that it shares
 *     with merge;
 *   - the value parsers behind the options of every command:
 *     format_by_name/format_name (--format), estimator_by_name
 *     (--estimator), mode_by_name (pgoprof-record --mode),
 *     afdo_version_by_name (--afdo-version).
 *
 * Not covered, because the code ends the process or touches files on
 * purpose, and a fuzz target must do neither (libFuzzer reports an exit as
 * a crash; forking per input is too slow to fuzz):
 *   - convert's -h/--help (usage on stdout, as often as the fuzzer finds
 *     it): command lines that could reach it are skipped, conservatively
 *     (see reaches_help);
 *   - cmd_merge, cmd_show, cmd_check, cmd_import (cli/): option parsing
 *     and file reading/writing are one function, and several bad options
 *     die(2);
 *   - pgoprof-record's parse_options (collector/options.c): one of the
 *     program's own files, not in the collector's archive (layers.mk
 *     RECORD_MAIN), and every error path exits.
 * Their file formats are fuzzed by the other targets. */
#include "../../cli/cmds.h"
#include "../../convert/convert.h"
#include "../../collector/probe.h"
#include "../../convert/afdo.h"
#include "fuzz.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 64

static int valid_afdo_version(const char *v)
{
	return !strcmp(v, "2") || !strcmp(v, "1") || !strcmp(v, "llvm");
}

/* s is a non-empty prefix of the long option name (getopt_long takes
 * unambiguous abbreviations). */
static int abbreviates(const char *s, size_t n, const char *name)
{
	return n > 0 && n <= strlen(name) && !strncmp(s, name, n);
}

/* 1 if getopt_long could hand convert_parse_args a -h.  Errs on the side of 1: an
 * option's argument that looks like an option counts as one. */
static int reaches_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--"))
			return 0;	/* the rest are operands */
		if (a[0] != '-' || !a[1])
			continue;
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t n = eq ? (size_t)(eq - name) : strlen(name);

			if (abbreviates(name, n, "help"))
				return 1;
			continue;
		}
		for (const char *c = a + 1; *c; c++) {
			if (*c == 'h')
				return 1;
			if (strchr("bgofe", *c))
				break;	/* the rest is this option's argument */
		}
	}
	return 0;
}

static void value_parsers(const char *s)
{
	enum prof_format f = format_by_name(s);
	int e = estimator_by_name(s), m = mode_by_name(s);

	FUZZ_CHECK(f == FMT_NONE || !strcmp(format_name(f), s));
	FUZZ_CHECK(e >= -1 && e < EST_COUNT);
	FUZZ_CHECK(m >= -1 && m <= MODE_STACK);
	int v = afdo_version_by_name(s);

	FUZZ_CHECK(valid_afdo_version(s) ? v == 1 || v == 2 || v == AFDO_VERSION_LLVM
					 : v == -1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1), *argv[MAX_ARGS + 2];
	int argc = 0;
	struct convert_options c;
	size_t i = 0;

	memcpy(copy, data, size);
	copy[size] = '\0';
	argv[argc++] = "convert";
	while (i < size && argc < MAX_ARGS + 1) {
		argv[argc++] = copy + i;
		i += strlen(copy + i) + 1;
	}
	argv[argc] = NULL;

	for (int k = 1; k < argc; k++)
		value_parsers(argv[k]);
	if (!reaches_help(argc, argv)) {
		memset(&c, 0, sizeof(c));
		optind = 0;	/* glibc: start a new scan */
		if (convert_parse_args(&c, argc, argv) < 0) {
			FUZZ_CHECK(c.binary && c.raw_path);
			FUZZ_CHECK(c.wo.format != FMT_NONE);
			FUZZ_CHECK(c.estimator < EST_COUNT);
		}
	}
	free(copy);
	return 0;
}
