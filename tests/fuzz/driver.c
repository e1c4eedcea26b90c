/* SPDX-License-Identifier: GPL-2.0-only */
/* A plain main() for the fuzz targets, for machines whose compiler has no
 * libFuzzer: "fuzz_x FILE..." runs each file through
 * LLVMFuzzerTestOneInput once, as a libFuzzer binary does with file
 * arguments.  A directory argument runs every regular file in it.  Exit
 * status 0 when every input ran; a crash is the sanitizers' to report. */
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		perror(path);
		return 1;
	}
	do {
		if (len == cap) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	if (ferror(f)) {
		perror(path);
		fclose(f);
		free(buf);
		return 1;
	}
	fclose(f);
	/* An exactly sized copy, so that reading one byte past the input is
	 * caught as libFuzzer's own buffer would catch it. */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact)
		abort();
	memcpy(exact, buf, len);
	free(buf);
	fprintf(stderr, "Running: %s (%zu bytes)\n", path, len);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (argv[i][0] == '-')
			continue;	/* libFuzzer flags: ignored */
		if (!stat(argv[i], &st) && S_ISDIR(st.st_mode)) {
			DIR *d = opendir(argv[i]);
			struct dirent *e;

			while (d && (e = readdir(d))) {
				char p[4096];

				snprintf(p, sizeof(p), "%s/%s", argv[i], e->d_name);
				if (!stat(p, &st) && S_ISREG(st.st_mode))
					rc |= run_file(p);
			}
			if (d)
				closedir(d);
		} else {
			rc |= run_file(argv[i]);
		}
	}
	return rc;
}
