/* SPDX-License-Identifier: GPL-2.0-only */
/* The subcommands of pgoprof, one file each (git's builtin layout).  Each
 * gets argv with argv[0] = the subcommand name and returns the exit status:
 * 0 success, 1 error, 2 bad usage. */
#ifndef PGOPROF_CMDS_H
#define PGOPROF_CMDS_H

#include <stdio.h>

/* The one -h and bad-usage contract of every command (pgoprof(1), "Common
 * options" and "EXIT STATUS"; pgoprof-record(1) likewise): -h and --help
 * print the usage on standard output, status 0; bad usage (an unknown
 * option, a bad value, a missing argument) prints getopt's or the
 * command's one-line message, then the usage, on standard error, status
 * 2.  cmd_usage(usage, CMD_HELP or CMD_USAGE) prints the usage there and
 * returns the status, which the command returns to main(): main() closes
 * standard output, so a usage that cannot be written is status 1.  No
 * command calls exit().  An option parser returns CMD_GO_ON to go on,
 * else the status. */
#define CMD_HELP 0
#define CMD_USAGE 2
#define CMD_GO_ON (-1)
int cmd_usage(void (*usage)(FILE *), int status);
/* The index of arg in names (NULL-terminated), for an option that takes
 * one of a few words.  Else says "--option ARG: give a, b or c" (the names
 * in their order) on stderr and returns -1: the caller returns CMD_USAGE.
 * option is the long option's name without the dashes. */
int cmd_choice(const char *option, const char *arg, const char *const *names);

int cmd_record(int argc, char **argv);
/* record --exact (cli/exact.c): unprivileged, so not pgoprof-record. */
int cmd_record_exact(int argc, char **argv);
struct raw_profile;
/* The summary line of an exact-count profile written to out. */
void exact_report(const char *out, const struct raw_profile *p);
int cmd_convert(int argc, char **argv);
struct convert_options;
/* convert's argv -> *o (getopt_long; reset optind first to parse twice).
 * Returns CMD_GO_ON, else the exit status (cmd_usage's contract).  *o's
 * strings point into argv. */
int convert_parse_args(struct convert_options *o, int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_diff(int argc, char **argv);

#endif
