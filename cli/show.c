/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof show: a raw profile as text; with --binary, the samples of one
 * binary with their ELF virtual addresses and function names. */
#include "cmds.h"
#include "../convert/formats.h"
#include "../convert/llvm_text.h"
#include "../convert/pprof.h"
#include "../convert/binobj.h"
#include "../convert/symbolize.h"
#include "../lib/escape.h"
#include "../lib/util.h"
#include "../raw/rawprof.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: pgoprof show FILE [--binary ELF]\n"
		   "       pgoprof show --format pprof [-o OUT] RAW [--binary ELF]...\n\n"
		   "Print a raw profile: its header (meta values and counters), then per\n"
		   "object (build-ID) its IP samples and caller->callee edges, addresses\n"
		   "as file offsets.  Print a compiler profile (LLVM text or extbinary,\n"
		   "GCC .afdo; detected from its contents) as LLVM text.\n\n"
		   "  -b, --binary ELF   print only the IP samples of ELF (found as\n"
		   "                     convert finds it), one per line: file offset, ELF virtual\n"
		   "                     address, samples, function (DWARF or symbol table)\n"
		   "  -f, --format pprof write the raw profile as gzipped pprof (profile.proto):\n"
		   "                     its stacks as samples (samples/count, cpu/nanoseconds);\n"
		   "                     a profile of ranges only (record --exact) each\n"
		   "                     instruction's executions (instructions/count);\n"
		   "                     each object symbolized by the --binary that is it (any\n"
		   "                     number of them), else by the file at its recorded path\n"
		   "                     if its build-ID matches; 'go tool pprof -http=: OUT'\n"
		   "                     shows it (docs/pprof.md)\n"
		   "  -o, --output OUT   where --format pprof writes (default pgoprof.pb.gz;\n"
		   "                     '-' for standard output), atomically\n"
		   "  -q, --quiet        no summary line\n");
}

static int show_binary(const struct raw_profile *p, const char *path,
		       const char *raw_path)
{
	struct symbolizer *s = sym_open(path, NULL, 0);
	const struct load_seg *segs;
	int obj, n;

	if (!s)
		return 1;
	obj = binobj_find(s, p, raw_path, NULL);
	if (obj < 0) {
		sym_close(s);
		return 1;
	}
	segs = sym_segments(s, &n);
	printf("# offset vaddr samples function\n");
	for (size_t i = 0; i < p->objs[obj].nips; i++) {
		const struct raw_ip *ip = &p->objs[obj].ips[i];
		uint64_t vaddr;
		const char *name = NULL;

		if (offset_to_vaddr(segs, n, ip->offset, &vaddr)) {
			printf("0x%" PRIx64 " - %" PRIu64 " (outside any segment)\n",
			       ip->offset, ip->count);
			continue;
		}
		name = sym_function_name(s, vaddr);
		printf("0x%" PRIx64 " 0x%" PRIx64 " %" PRIu64 " ", ip->offset,
		       vaddr, ip->count);
		esc_fputs(name ? name : "?", 0, stdout);
		putchar('\n');
	}
	sym_close(s);
	return 0;
}

/* show --format pprof: the raw profile in, pprof out. */
static int show_pprof(const char *raw, const char *out,
		      const struct pprof_write_opts *o)
{
	struct raw_profile p;
	int rc;

	if (raw_read_file(&p, raw))
		return 1;
	rc = pprof_write_file(&p, out, o) ? 1 : 0;
	raw_free(&p);
	return rc;
}

int cmd_show(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "binary", required_argument, NULL, 'b' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *binary = NULL, *format = NULL, *out = NULL;
	const char **binaries = xcalloc((size_t)argc + 1, sizeof(*binaries));
	struct pprof_write_opts po = { .binaries = binaries };
	struct any_profile p;
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "b:f:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			binary = binaries[po.nbinaries++] = optarg;
			break;
		case 'f':
			format = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'q':
			po.quiet = 1;
			break;
		case 'h':
			free(binaries);
			return cmd_usage(usage, CMD_HELP);
		default:
			free(binaries);
			return cmd_usage(usage, CMD_USAGE);
		}
	}
	if (optind + 1 != argc || (format && strcmp(format, "pprof")) ||
	    (out && !format) || (po.nbinaries > 1 && !format)) {
		if (format && strcmp(format, "pprof"))
			err("--format %s: the one format show writes is pprof", format);
		else if (out || po.nbinaries > 1)
			err("-o and several --binary are for --format pprof");
		free(binaries);
		return cmd_usage(usage, CMD_USAGE);
	}
	if (format) {
		po.raw_name = input_name(argv[optind]);
		rc = show_pprof(argv[optind], out ? out : "pgoprof.pb.gz", &po);
		free(binaries);
		return rc;
	}
	free(binaries);
	if (any_profile_read(&p, argv[optind]))
		return 1;
	if (!p.is_raw && binary) {
		err("--binary applies to raw profiles; %s is not one", argv[optind]);
		rc = 2;
	} else if (!p.is_raw) {
		rc = llvm_text_write(&p.fs, stdout) ? 1 : 0;
	} else if (binary) {
		rc = show_binary(&p.raw, binary, argv[optind]);
	} else {
		raw_print(&p.raw, stdout);
	}
	any_profile_free(&p);
	/* A write error: pgoprof's main() says so when it closes stdout. */
	return rc;
}
