/* pgoprof merge: add raw profiles; counts add up exactly. */
#include "cmds.h"
#include "../lib/util.h"
#include "../raw/rawprof.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: pgoprof merge [--weight FILE=N]... -o OUT FILE...\n\n"
		   "Add raw profiles (from any hosts and runs) into one.  Samples are\n"
		   "matched by build-ID and file offset, so the sum is exact.\n\n"
		   "  -o, --output OUT      the merged profile (written atomically)\n"
		   "  -w, --weight FILE=N   multiply the counts of FILE by N (integer)\n");
}

int cmd_merge(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "weight", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *out = NULL;
	char **wfile = xcalloc(argc, sizeof(char *));
	uint64_t *wval = xcalloc(argc, sizeof(uint64_t));
	int nw = 0, c, rc = 0;
	struct raw_profile dst, src;

	while ((c = getopt_long(argc, argv, "o:w:h", longopts, NULL)) != -1) {
		char *eq, *end;

		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'w':
			eq = strrchr(optarg, '=');
			if (!eq || !eq[1] || (wval[nw] = strtoull(eq + 1, &end, 10), *end) ||
			    !wval[nw])
				die(2, "--weight %s: give FILE=N with N a positive integer", optarg);
			*eq = '\0';
			wfile[nw++] = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!out || optind >= argc) {
		usage(stderr);
		return 2;
	}
	raw_init(&dst);
	for (int i = optind; i < argc && !rc; i++) {
		uint64_t w = 1;

		for (int j = 0; j < nw; j++)
			if (!strcmp(wfile[j], argv[i]))
				w = wval[j];
		if (raw_read_file(&src, argv[i])) {
			rc = 1;
			break;
		}
		raw_merge(&dst, &src, w);
		raw_free(&src);
	}
	if (!rc && raw_write_file(&dst, out))
		rc = 1;
	raw_free(&dst);
	free(wfile);
	free(wval);
	return rc;
}
