/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof: the unprivileged front end.  Dispatches to one subcommand. */
#include "cmds.h"
#include "../lib/util.h"
#include "../version.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} cmds[] = {
	{ "record", cmd_record, "sample a command, a process or the system (runs pgoprof-record)" },
	{ "convert", cmd_convert, "write a compiler's sample profile for one binary" },
	{ "show", cmd_show, "print a raw profile as text" },
	{ "merge", cmd_merge, "add profiles together (raw: exactly), or convert formats" },
	{ "import", cmd_import, "turn a perf.data file (perf record -g or -b) into a raw profile" },
	{ "check", cmd_check, "tell how well a profile fits a binary" },
	{ "compare", cmd_compare, "how alike two sample profiles are (weighted overlap)" },
	{ "report", cmd_report, "the hottest functions and lines of a profile; folded stacks" },
	{ "annotate", cmd_annotate, "one function's source lines (and instructions) with their samples" },
	{ "diff", cmd_diff, "the functions and lines whose share changed between two profiles" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: pgoprof COMMAND [OPTIONS] [ARGS]\n\n"
		   "Profile-guided optimization from samples.\n\n");
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		fprintf(f, "  %-9s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\n'pgoprof COMMAND --help' and pgoprof(1) tell more.\n");
}

static int run(int argc, char **argv)
{
	if (argc < 2)
		return cmd_usage(usage, CMD_USAGE);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help"))
		return cmd_usage(usage, CMD_HELP);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("pgoprof %s\n", PGOPROF_VERSION);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (!strcmp(argv[1], cmds[i].name)) {
			static char name[64];

			snprintf(name, sizeof(name), "pgoprof %s", cmds[i].name);
			progname = name;
			argv[1] = name;	/* getopt's messages: "pgoprof NAME: ..." */
			return cmds[i].fn(argc - 1, argv + 1);
		}
	}
	err("'%s' is not a pgoprof command; 'pgoprof --help' lists them", argv[1]);
	return CMD_USAGE;
}

/* What a command printed must have reached standard output: a full disk
 * or a closed pipe there is an error, exit status 1 (unless already
 * worse). */
int main(int argc, char **argv)
{
	int rc = run(argc, argv);

	if (stdout_close() && !rc)
		rc = 1;
	return rc;
}
