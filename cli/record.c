/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof record: run pgoprof-record, the only privileged program, from
 * the directory of this executable if it is there, else from PATH; with
 * --exact (before the command), run the command under callgrind instead. */
#include "cmds.h"
#include "../lib/util.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cmd_record(int argc, char **argv)
{
	char self[PATH_MAX], path[PATH_MAX + 32];

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--exact"))
			return cmd_record_exact(argc, argv);
	argv[0] = "pgoprof-record";
	if (!exe_dir(self, sizeof(self))) {
		snprintf(path, sizeof(path), "%s/pgoprof-record", self);
		if (!access(path, X_OK))
			execv(path, argv);
	}
	execvp("pgoprof-record", argv);
	err("cannot run pgoprof-record: %s (is it installed next to pgoprof or in PATH?)",
	    strerror(errno));
	return 1;
}
