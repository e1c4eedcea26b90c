/* pgoprof show: a raw profile as text; with --binary, the samples of one
 * binary with their ELF virtual addresses and function names. */
#include "cmds.h"
#include "../convert/formats.h"
#include "../convert/llvm_text.h"
#include "../convert/symbolize.h"
#include "../lib/util.h"
#include "../raw/rawprof.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: pgoprof show FILE [--binary ELF]\n\n"
		   "Print a raw profile: its header (meta values and counters), then per\n"
		   "object (build-ID) its IP samples and caller->callee edges, addresses\n"
		   "as file offsets.  Print a compiler profile (LLVM text or extbinary,\n"
		   "GCC .afdo; detected from its contents) as LLVM text.\n\n"
		   "  -b, --binary ELF   print only the IP samples of ELF (found as\n"
		   "                     convert finds it), one per line: file offset, ELF virtual\n"
		   "                     address, samples, function (DWARF or symbol table)\n");
}

static int show_binary(const struct raw_profile *p, const char *path,
		       const char *raw_path)
{
	struct symbolizer *s = sym_open(path, NULL, 0);
	const struct load_seg *segs;
	struct raw_binary b = { path, NULL, 0, NULL };
	int obj, n;

	if (!s)
		return 1;
	b.build_id = sym_build_id(s, &b.build_id_len);
	obj = raw_binary_object(p, raw_path, &b);
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
		printf("0x%" PRIx64 " 0x%" PRIx64 " %" PRIu64 " %s\n", ip->offset,
		       vaddr, ip->count, name ? name : "?");
	}
	sym_close(s);
	return 0;
}

int cmd_show(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "binary", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *binary = NULL;
	struct any_profile p;
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "b:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			binary = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return 2;
	}
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
