/* pgoprof show: a raw profile as text. */
#include "cmds.h"
#include "../lib/util.h"
#include "../raw/rawprof.h"

#include <string.h>

int cmd_show(int argc, char **argv)
{
	struct raw_profile p;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: pgoprof show FILE\n\n"
		       "Print a raw profile: its header (meta values and counters), then per\n"
		       "object (build-ID) its IP samples and caller->callee edges, addresses\n"
		       "as file offsets.\n");
		return 0;
	}
	if (argc != 2) {
		err("usage: pgoprof show FILE");
		return 2;
	}
	if (raw_read_file(&p, argv[1]))
		return 1;
	raw_print(&p, stdout);
	raw_free(&p);
	return fflush(stdout) ? 1 : 0;
}
