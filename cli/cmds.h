/* SPDX-License-Identifier: GPL-2.0-only */
/* The subcommands of pgoprof, one file each (git's builtin layout).  Each
 * gets argv with argv[0] = the subcommand name and returns the exit status:
 * 0 success, 1 error, 2 bad usage. */
#ifndef PGOPROF_CMDS_H
#define PGOPROF_CMDS_H

int cmd_record(int argc, char **argv);
/* record --exact (cli/exact.c): unprivileged, so not pgoprof-record. */
int cmd_record_exact(int argc, char **argv);
struct raw_profile;
/* The summary line of an exact-count profile written to out. */
void exact_report(const char *out, const struct raw_profile *p);
int cmd_convert(int argc, char **argv);
struct convert_options;
/* convert's argv -> *o (getopt_long; reset optind first to parse twice).
 * Returns -1 to go on, else the exit status: 0 after -h (usage on
 * stdout), 2 after bad usage (a message or the usage on stderr).  *o's
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
