/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof import: a perf.data file (perf record -g, perf record -b), or
 * the text perf script prints of one, or callgrind's output files, as a
 * raw profile. */
#include "cmds.h"
#include "../import/callgrind.h"
#include "../import/perfdata/perfdata.h"
#include "../import/perfscript/perfscript.h"
#include "../import/pprof.h"
#include "../lib/escape.h"
#include "../lib/util.h"
#include "../raw/rawprof.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: pgoprof import [-o RAW] [-e EVENT] [--input-format FORMAT]\n"
		   "                      [--no-local-files] [-j N] [-q] INPUT\n"
		   "       pgoprof import [-o RAW] [-q] CALLGRIND.OUT...\n"
		   "       pgoprof import [-o RAW] [-q] [--sample-type NAME] PROFILE.pb.gz\n\n"
		   "Turn a perf.data file from 'perf record -g' (call chains by frame\n"
		   "pointers) or 'perf record -b' (branch stacks: LBR, BRS, BRBE), or the\n"
		   "text 'perf script' prints of one, into a raw profile: IP samples, call\n"
		   "edges, and for branch stacks the taken branches and fall-through\n"
		   "ranges, at file offsets of objects named by build-ID.  Every process\n"
		   "counts, wherever its objects were loaded.  INPUT may be '-' for a pipe\n"
		   "('perf record -o - ... | pgoprof import -').\n\n"
		   "perf script text gives the same profile as its perf.data when it has\n"
		   "the mappings and the fields the samples need:\n"
		   "  perf script -F ip,brstack --show-mmap-events            (perf record -b;\n"
		   "                                               what llvm-profgen reads)\n"
		   "  perf script -F pid,tid,ip,sym,dso --show-mmap-events --show-task-events\n"
		   "                                               (perf record -g)\n"
		   "comm, cpu, time, period, event and --header may be added; without pid,\n"
		   "all samples share one address space made of every mapping.\n\n"
		   "callgrind's files (valgrind --tool=callgrind --dump-instr=yes\n"
		   "--skip-plt=no, one a process) give the exact counts of every\n"
		   "instruction and call, as 'pgoprof record --exact' does; import them\n"
		   "on the machine where they were made (they name files, not build-IDs).\n\n"
		   "pprof profiles (profile.proto, gzipped or not: Go, Parca, Pyroscope,\n"
		   "the OpenTelemetry eBPF profiler) with addresses and mapping build-IDs\n"
		   "give the same stacks, IP samples and edges (docs/pprof.md).\n\n"
		   "  -o, --output RAW      the raw profile (default pgoprof.raw, written\n"
		   "                        atomically)\n"
		   "  -e, --event EVENT     only the samples of this event (perf's name, as\n"
		   "                        'perf report --header-only' prints it; perf script\n"
		   "                        text needs the event field); default: every event's\n"
		   "      --input-format FORMAT\n"
		   "                        perf-data, perf-script, callgrind or pprof;\n"
		   "                        default: by the content\n"
		   "      --sample-type NAME\n"
		   "                        pprof: the value that counts samples (default\n"
		   "                        'samples', else the first)\n"
		   "      --caller-addresses return|call\n"
		   "                        pprof: a caller's address is its return address\n"
		   "                        (perf, eBPF profilers) or inside the call (Go's\n"
		   "                        runtime/pprof); default: call for Go's profiles\n"
		   "      --no-local-files  never read a build-ID from a file on this machine:\n"
		   "                        a mapping whose build-ID is not in INPUT (MMAP2\n"
		   "                        record or build-ID table) is kept by its path\n"
		   "  -j, --jobs N          perf.data: add the samples up on N threads (default:\n"
		   "                        the online CPUs; 1: this thread alone); the\n"
		   "                        profile is the same whatever N\n"
		   "  -q, --quiet           no summary line\n");
}

enum { FMT_AUTO, FMT_PERF_DATA, FMT_PERF_SCRIPT, FMT_CALLGRIND, FMT_PPROF };
/* --input-format's words, from FMT_PERF_DATA on; --caller-addresses's,
 * from PPROF_CALLERS_RETURN on. */
static const char *const format_names[] = {
	"perf-data", "perf-script", "callgrind", "pprof", NULL,
};
static const char *const callers_names[] = { "return", "call", NULL };

/* -j: at most this many threads. */
#define JOBS_MAX 256

/* The default -j: the online CPUs (at most JOBS_MAX). */
static int default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > JOBS_MAX ? JOBS_MAX : (int)n;
}

/* Any format's head. */
static int any_probe(const uint8_t *head, size_t len)
{
	return perfdata_probe(head, len) || callgrind_probe(head, len) ||
	       pprof_probe_gzip(head, len) || perfscript_probe(head, len);
}

/* A name that says pprof (.pb, .pb.gz, .pprof), for a file that is not
 * one of its content: its message is then pprof's. */
static int pprof_named(const char *path)
{
	size_t n = strlen(path);

	return (n > 3 && !strcmp(path + n - 3, ".pb")) ||
	       (n > 6 && !strcmp(path + n - 6, ".pb.gz")) ||
	       (n > 6 && !strcmp(path + n - 6, ".pprof"));
}

/* The file mapped (or read, for a pipe or a device: only its first bytes
 * if they begin no input of format).  *mapped tells which to undo; a
 * mapped file stays open on *fd (for perfdata_options.fd), else -1. */
static uint8_t *load(const char *path, int format, size_t *len, int *mapped,
		     int *fd_out)
{
	input_probe *probe = format == FMT_PERF_DATA ? perfdata_probe :
			     format == FMT_CALLGRIND ? callgrind_probe :
			     format == FMT_PERF_SCRIPT || format == FMT_PPROF ? NULL : any_probe;

	struct stat st;
	uint8_t *buf;
	int fd;

	*mapped = 0;
	*fd_out = -1;
	if (!strcmp(path, "-"))
		return read_input(path, len, probe);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err("cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		err("%s is a directory: perf.data directories ('perf record --threads') are not supported",
		    path);
		close(fd);
		return NULL;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		buf = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (buf != MAP_FAILED) {
			*fd_out = fd;
			*len = (size_t)st.st_size;
			*mapped = 1;
			return buf;
		}
	}
	close(fd);
	return read_input(path, len, probe);
}

/* Objects without a build-ID: kept by path, matched by name later. */
static void report_by_path(const struct raw_profile *p)
{
	char list[512] = "";
	size_t n = 0;

	for (size_t i = 0; i < p->nobjs; i++) {
		if (p->objs[i].id_kind != RAW_ID_PATH)
			continue;
		if (n++ < 4)
			esc_cat(list, sizeof(list), n > 1 ? ", " : "", p->objs[i].path);
	}
	if (n)
		fprintf(stderr, "%s: %zu object%s without a build-ID (%s%s): kept by the path recorded; "
			"'pgoprof convert --binary' matches %s by file name\n",
			progname, n, n == 1 ? "" : "s", list, n > 4 ? ", ..." : "",
			n == 1 ? "it" : "them");
}

static void report(const struct raw_profile *p, const char *out)
{
	uint64_t unattr = 0, local = raw_get_counter(p, "import.build_id_from_file");
	char line[1024];
	size_t n = 0;

	unattr = raw_unattributed(p, line, sizeof(line));
	n = strlen(line);
	fprintf(stderr, "%s: wrote %s: %" PRIu64 " samples, %" PRIu64 " lost, %" PRIu64
		" unattributed%s%s%s, %zu objects (mode %s)\n",
		progname, out, raw_get_counter(p, CNT_SAMPLES),
		raw_get_counter(p, CNT_LOST), unattr, n ? " (" : "",
		n ? line : "", n ? ")" : "", p->nobjs,
		raw_get_meta(p, "mode") ? raw_get_meta(p, "mode") : "?");
	if (local && raw_get_meta(p, "input"))	/* perf script text */
		fprintf(stderr, "%s: the build-IDs of %" PRIu64 " object%s came from files on this machine "
			"(perf script prints none unless perf record had --buildid-mmap); they are right only "
			"if those files are the ones that ran (--no-local-files refuses them)\n",
			progname, local, local == 1 ? "" : "s");
	else if (local)
		fprintf(stderr, "%s: the build-IDs of %" PRIu64 " object%s came from files on this machine, "
			"not from the perf.data file; they are right only if those files are the ones that ran "
			"(--no-local-files refuses them)\n",
			progname, local, local == 1 ? "" : "s");
	report_by_path(p);
	if (raw_get_counter(p, "import.unknown_records"))
		fprintf(stderr, "%s: skipped %" PRIu64 " records of unknown types\n", progname,
			raw_get_counter(p, "import.unknown_records"));
	if (raw_get_counter(p, "import.user_stack_not_unwound"))
		fprintf(stderr, "%s: %" PRIu64 " samples carry a copy of the user stack (--call-graph dwarf) "
			"but no user registers, so it is not unwound: they give IP samples but no call edges\n",
			progname,
			raw_get_counter(p, "import.user_stack_not_unwound"));
	if (raw_get_counter(p, "import.lbr_call_stack_not_used"))
		fprintf(stderr, "%s: %" PRIu64 " samples have an LBR call stack (--call-graph lbr), "
			"which is not used: record with -b for branch records or -g for call chains\n",
			progname, raw_get_counter(p, "import.lbr_call_stack_not_used"));
}

/* Callgrind's files, one a process, into one profile; the first file's
 * bytes are buf (len).  Returns 0 or 1. */
static int import_callgrind(struct raw_profile *p, char **files, int n,
			    const uint8_t *buf, size_t len)
{
	struct callgrind *cg = callgrind_new(p);
	int rc = callgrind_add(cg, buf, len, input_name(files[0]));

	for (int i = 1; i < n && !rc; i++) {
		size_t l;
		uint8_t *b = read_input(files[i], &l, callgrind_probe);

		rc = !b || callgrind_add(cg, b, l, input_name(files[i]));
		free(b);
	}
	callgrind_finish(cg);
	return rc ? 1 : 0;
}

int cmd_import(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "event", required_argument, NULL, 'e' },
		{ "no-local-files", no_argument, NULL, 'L' },
		{ "input-format", required_argument, NULL, 'F' },
		{ "sample-type", required_argument, NULL, 'T' },
		{ "caller-addresses", required_argument, NULL, 'C' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct perfdata_options opt = { 0 };
	const char *out = "pgoprof.raw", *in, *sample_type = NULL;
	enum pprof_callers callers = PPROF_CALLERS_AUTO;
	struct raw_profile prof;
	uint8_t *buf;
	size_t len = 0;
	int c, w, quiet = 0, mapped, rc, format = FMT_AUTO, fd;

	opt.jobs = default_jobs();
	while ((c = getopt_long(argc, argv, "o:e:j:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'e':
			opt.event = optarg;
			break;
		case 'L':
			opt.no_local_files = 1;
			break;
		case 'F':
			if ((format = cmd_choice("input-format", optarg, format_names)) < 0)
				return CMD_USAGE;
			format += FMT_PERF_DATA;
			break;
		case 'T':
			sample_type = optarg;
			break;
		case 'C':
			if ((w = cmd_choice("caller-addresses", optarg, callers_names)) < 0)
				return CMD_USAGE;
			callers = (enum pprof_callers)(w + PPROF_CALLERS_RETURN);
			break;
		case 'j': {
			char *end;
			long n = strtol(optarg, &end, 10);

			if (*end || end == optarg || n < 1 || n > JOBS_MAX) {
				err("-j %s: give a number of threads from 1 to %d", optarg, JOBS_MAX);
				return 2;
			}
			opt.jobs = (int)n;
			break;
		}
		case 'q':
			quiet = 1;
			break;
		case 'h':
			return cmd_usage(usage, CMD_HELP);
		default:
			return cmd_usage(usage, CMD_USAGE);
		}
	}
	if (optind == argc) {
		err("give the perf.data file (or perf script text, or callgrind files) to import");
		return cmd_usage(usage, CMD_USAGE);
	}
	in = argv[optind];
	buf = load(in, format, &len, &mapped, &fd);
	if (!buf)
		return 1;
	raw_init(&prof);
	opt.fd_set = fd >= 0;
	opt.fd = fd;
	/* By the content: perf.data by its magic, callgrind by its header,
	 * pprof by gzip's magic or as a protobuf Profile, else text that
	 * looks like perf script's; anything else gets perf.data's message. */
	if (format == FMT_AUTO)
		format = perfdata_probe(buf, len) ? FMT_PERF_DATA :
			 callgrind_probe(buf, len) ? FMT_CALLGRIND :
			 pprof_probe_gzip(buf, len) || pprof_probe_proto(buf, len) ||
			 pprof_named(in) ? FMT_PPROF :
			 perfscript_probe(buf, len < INPUT_HEAD ? len : INPUT_HEAD) ?
			 FMT_PERF_SCRIPT : FMT_PERF_DATA;
	if (format != FMT_CALLGRIND && optind + 1 != argc) {
		err("give one input (merge raw profiles with 'pgoprof merge'); several are for callgrind's files");
		rc = cmd_usage(usage, CMD_USAGE);
	} else if (format == FMT_CALLGRIND)
		rc = import_callgrind(&prof, argv + optind, argc - optind, buf, len);
	else if (format == FMT_PPROF)
		rc = pprof_import(&prof, buf, len, input_name(in), sample_type, callers) ? 1 : 0;
	else if (format == FMT_PERF_SCRIPT)
		rc = perfscript_import(&prof, buf, len, input_name(in), &opt) ? 1 : 0;
	else
		rc = perfdata_import(&prof, buf, len, input_name(in), &opt) ? 1 : 0;
	if (mapped) {
		munmap(buf, len);
		close(fd);
	} else
		free(buf);
	if (!rc && raw_write_file(&prof, out))
		rc = 1;
	if (!rc && !quiet && format == FMT_CALLGRIND)
		exact_report(out, &prof);
	else if (!rc && !quiet)
		report(&prof, out);
	if (!rc && !quiet && format == FMT_PPROF && raw_get_counter(&prof, "edges.unattributed"))
		fprintf(stderr, "%s: %" PRIu64 " caller->callee pairs with a frame in no object are no edges (edges.unattributed)\n",
			progname, raw_get_counter(&prof, "edges.unattributed"));
	raw_free(&prof);
	return rc;
}
