/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof-record's command line: the options, their checks against each
 * other, and -h's text (docs/man/pgoprof-record.1 says the same). */
#include "collector.h"
#include "rate.h"
#include "../lib/util.h"
#include "../raw/rawprof.h"
#include "../version.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STACK_SIZE_DEFAULT 8192
#define OPT_CALL_GRAPH 256	/* long options only */
/* Map sizes, for very many distinct stacks (and tests that force lost
 * samples). */
#define OPT_MAX_STACKS 257
#define OPT_RING_SIZE 258
#define OPT_CHILDREN 259
#define OPT_ONLY 260
#define OPT_STRIP_PATHS 261
#define OPT_MEM_BUDGET 262
#define OPT_FP_STACK_MAP 263
#define OPT_VERSION 264
#define OPT_PROBE 265
#define OPT_EVENT 266
/* What the memory that grows with the samples may take by default, and at
 * least (docs/man/pgoprof-record.1).  DWARF stacks: the ring buffer (twice,
 * as mapped), the unwind queue, the stack table.  fp stacks: the kernel's
 * fp_counts map, the fp_stacks ring (twice) and the table of frames. */
#define MEM_BUDGET_DEFAULT (64ull << 20)
#define MEM_BUDGET_MIN (64ull << 10)

static const struct option longopts[] = {
	{ "freq", required_argument, NULL, 'F' },
	{ "period", required_argument, NULL, 'c' },
	{ "mode", required_argument, NULL, 'm' },
	{ "output", required_argument, NULL, 'o' },
	{ "pid", required_argument, NULL, 'p' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "duration", required_argument, NULL, 'd' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "max-stacks", required_argument, NULL, OPT_MAX_STACKS },
	{ "ring-size", required_argument, NULL, OPT_RING_SIZE },
	{ "mem-budget", required_argument, NULL, OPT_MEM_BUDGET },
	{ "fp-stack-map", no_argument, NULL, OPT_FP_STACK_MAP },
	{ "children", no_argument, NULL, OPT_CHILDREN },
	{ "only", required_argument, NULL, OPT_ONLY },
	{ "strip-paths", no_argument, NULL, OPT_STRIP_PATHS },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "probe", no_argument, NULL, OPT_PROBE },
	{ "event", required_argument, NULL, OPT_EVENT },
	{ 0 },
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: pgoprof-record [OPTIONS] -- COMMAND [ARGS...]\n"
"       pgoprof-record [OPTIONS] -p PID [-d SECONDS]\n"
"       pgoprof-record [OPTIONS] -a [-d SECONDS]\n"
"\n"
"Sample user space with BPF on every online CPU and write a raw profile\n"
"(see pgoprof-raw(5)): branch records (LBR) where the CPU has a branch\n"
"stack, else cpu-clock samples with user stacks: by frame pointers where\n"
"a file keeps them, else unwound by DWARF CFI with libdw (--call-graph).\n"
"The default rate (999 Hz) is for production processes; pgo/pgo.mk's\n"
"training runs use 9999 Hz (PGO_FREQ): they are short and only profiled.\n"
"\n"
"  -m, --mode MODE      auto (default: the best the machine has of lbr,\n"
"                       exec and stack, one line per rung says why),\n"
"                       lbr (branch records), exec (samples of\n"
"                       instructions or the like: execution counts), or\n"
"                       stack (cpu-clock); lbr and exec fail where the\n"
"                       machine lacks them\n"
"  --event NAME         mode exec with this event: instructions,\n"
"                       instructions:p, :pp, :ppp, ibs_op or branches\n"
"  --probe              record nothing: print the ladder's lines and, on\n"
"                       standard output, the mode auto takes (lbr, exec\n"
"                       or stack); exit 1 when refused for privileges\n"
"  -F, --freq HZ        samples per second per CPU (default 999); above\n"
"                       1000 lowered to what keeps sampling under\n"
"                       kernel.perf_cpu_time_max_percent of a CPU\n"
"  -c, --period N       a sample every N events instead (cycles; AMD BRS:\n"
"                       retired taken branches, which needs it; exec: the\n"
"                       event's, default a prime near 2e9 / HZ; stack\n"
"                       mode: nanoseconds of cpu-clock, at least 10000)\n"
"  --call-graph MODE    how stack mode walks user stacks: auto (default:\n"
"                       the leaf by its CFI, then frame pointers in files\n"
"                       that keep them and DWARF CFI elsewhere), fp (frame\n"
"                       pointers, counted in the kernel), or dwarf[,SIZE]\n"
"                       (CFI everywhere); auto and dwarf copy SIZE bytes of\n"
"                       user stack per sample (default 8192, at most 65528)\n"
"  -o, --output FILE    raw profile to write (default pgoprof.raw)\n"
"  -p, --pid PID        profile a running process and its new children\n"
"  --children           with -p: its children that exist already too\n"
"  -a, --all-cpus       profile the whole system\n"
"  -d, --duration SECS  stop after SECS seconds (default: when the\n"
"                       command or PID ends, or on SIGINT/SIGTERM/SIGHUP)\n"
"  --ring-size BYTES    DWARF stacks: the ring buffer (a power of two,\n"
"                       e.g. 8M; default from -F and the CPUs, within an\n"
"                       eighth of --mem-budget)\n"
"  --mem-budget BYTES   memory for the samples (default 64M): DWARF\n"
"                       stacks: the ring buffer (counted twice: it is\n"
"                       mapped twice), the stacks waiting to be unwound\n"
"                       and the unwound stacks; fp stacks: the kernel's\n"
"                       map of counts, the ring of new stacks (twice) and\n"
"                       their frames; samples over it are dropped and\n"
"                       counted\n"
"  --max-stacks N       fp stacks: entries of the kernel's map of counts\n"
"                       (default: from --mem-budget, at most 131072)\n"
"  --fp-stack-map       fp stacks through the kernel's stack map, as on\n"
"                       kernels before 6.1 (preallocated: a slower start)\n"
"  --only BINARY|ID     keep only the samples of this binary (its path\n"
"                       as mapped) or build-ID (8+ hex digits); repeat\n"
"                       for more; the others are counted, not kept\n"
"  --strip-paths        write no paths or command line; build-IDs stay\n"
"  -q, --quiet          print only errors\n"
"  -v, --verbose        say how long each start-up and teardown phase\n"
"                       took (milliseconds since pgoprof-record started);\n"
"                       twice: libbpf's messages too\n"
"  -h, --help           this text\n"
"      --version        print the version and exit\n"
"\n"
"Needs root or CAP_BPF + CAP_PERFMON.  Run through sudo, the profile is\n"
"written with the rights of SUDO_UID and -p takes only that user's\n"
"processes.  Exit status: 0 when the profile was\n"
"written; 1 on errors; 2 on bad usage; the COMMAND's status if it failed\n"
"(the profile is written all the same).\n");
}

/* fp | dwarf[,SIZE] | auto[,SIZE] */
static void parse_call_graph(const char *arg, struct options *o)
{
	const char *comma = strchr(arg, ',');
	size_t len = comma ? (size_t)(comma - arg) : strlen(arg);
	char *end;

	if (len == 2 && !strncmp(arg, "fp", 2) && !comma)
		o->call_graph = CG_FP;
	else if (len == 5 && !strncmp(arg, "dwarf", 5))
		o->call_graph = CG_DWARF;
	else if (len == 4 && !strncmp(arg, "auto", 4))
		o->call_graph = CG_AUTO;
	else
		die(2, "--call-graph %s: give fp, dwarf[,SIZE] or auto[,SIZE]", arg);
	if (!comma)
		return;
	unsigned long n = strtoul(comma + 1, &end, 10);
	/* Whole words: perf rounds up silently, which hides a typo. */
	if (*end || n == 0 || n > STACK_COPY_MAX - 8 || n % 8)
		die(2, "--call-graph %s: SIZE is the bytes of stack to copy, a multiple of 8 from 8 to %d",
		    arg, STACK_COPY_MAX - 8);
	o->stack_size = (unsigned)n;
}

/* A size in bytes with an optional suffix K, M or G (powers of 1024);
 * 0 when arg is not one (0 is never a valid size here). */
static uint64_t parse_bytes(const char *arg)
{
	char *end;
	uint64_t n = strtoull(arg, &end, 10);
	int shift = 0;

	if (end == arg || *arg == '-')
		return 0;
	if (*end && strchr("kK", *end))
		shift = 10;
	else if (*end && strchr("mM", *end))
		shift = 20;
	else if (*end && strchr("gG", *end))
		shift = 30;
	if (shift)
		end++;
	if (*end || n > (UINT64_MAX >> shift))
		return 0;
	return n << shift;
}

/* --only: a build-ID as given; a path as the kernel maps it (absolute,
 * links resolved) when it resolves, since that is what objects record. */
static void add_only(struct options *o, const char *arg)
{
	char *real = raw_spec_is_build_id(arg) ? NULL : realpath(arg, NULL);

	o->only = xrealloc(o->only, (o->nonly + 1) * sizeof(*o->only));
	o->only[o->nonly++] = real ? real : xstrdup(arg);
}

/* How and how often to sample: -c, -m, -F, --event, --call-graph.
 * 1 when opt was one of them (exits 2 on a bad argument), else 0. */
static int sampling_option(int opt, const char *arg, struct options *o)
{
	char *end;

	switch (opt) {
	case 'c':
		o->period = strtoull(arg, &end, 10);
		if (*end || o->period == 0)
			die(2, "-c %s: give a positive number of events per sample", arg);
		return 1;
	case 'm':
		if (mode_by_name(arg) < 0)
			die(2, "--mode %s: give auto, lbr, exec or stack", arg);
		o->mode = (enum record_mode)mode_by_name(arg);
		return 1;
	case 'F':
		o->freq = strtoul(arg, &end, 10);
		if (*end || o->freq == 0 || o->freq > rate_kernel_max())
			die(2, "-F %s: give a frequency in Hz from 1 to %lu (kernel.perf_event_max_sample_rate)",
			    arg, rate_kernel_max());
		o->freq_given = 1;
		return 1;
	case OPT_EVENT:
		o->event = ladder_event_by_name(arg);
		if (o->event < 0)
			die(2, "--event %s: give instructions, instructions:p, instructions:pp, instructions:ppp, ibs_op or branches", arg);
		return 1;
	case OPT_CALL_GRAPH:
		parse_call_graph(arg, o);
		return 1;
	}
	return 0;
}

/* The memory's: --max-stacks, --ring-size, --mem-budget.  1 when opt
 * was one of them (exits 2 on a bad argument), else 0. */
static int size_option(int opt, const char *arg, struct options *o)
{
	char *end;
	uint64_t n;

	switch (opt) {
	case OPT_MAX_STACKS:
		n = strtoul(arg, &end, 10);
		if (*end || n == 0 || n > (1ul << 24))
			die(2, "--max-stacks %s: give a number of map entries from 1 to %lu",
			    arg, 1ul << 24);
		o->max_stacks = (uint32_t)n;
		return 1;
	case OPT_RING_SIZE:
		n = parse_bytes(arg);
		if (n < (uint64_t)sysconf(_SC_PAGESIZE) || n > (1ull << 30) ||
		    (n & (n - 1)))
			die(2, "--ring-size %s: give a power of two from the page size (%ld) to 1G",
			    arg, sysconf(_SC_PAGESIZE));
		o->ring_size = (uint32_t)n;
		return 1;
	case OPT_MEM_BUDGET:
		o->mem_budget = parse_bytes(arg);
		if (o->mem_budget < MEM_BUDGET_MIN || o->mem_budget > (1ull << 40))
			die(2, "--mem-budget %s: give a size from 64K to 1T (suffix K, M or G)",
			    arg);
		return 1;
	}
	return 0;
}

/* What to sample and where to write: -o, -p, -d, --only. */
static int target_option(int opt, const char *arg, struct options *o)
{
	char *end;

	switch (opt) {
	case 'o':
		o->output = arg;
		return 1;
	case 'p':
		o->pid = (pid_t)strtol(arg, &end, 10);
		if (*end || o->pid <= 0)
			die(2, "-p %s: not a process ID", arg);
		return 1;
	case 'd':
		o->duration = strtod(arg, &end);
		if (*end || !(o->duration > 0))
			die(2, "-d %s: give a duration in seconds", arg);
		return 1;
	case OPT_ONLY:
		add_only(o, arg);
		return 1;
	}
	return 0;
}

/* The options without an argument; -h and --version exit 0, anything
 * else getopt_long returned exits 2 after the usage. */
static void flag_option(int opt, struct options *o)
{
	switch (opt) {
	case 'a':
		o->all = 1;
		break;
	case 'q':
		o->quiet = 1;
		break;
	case 'v':
		o->verbose++;
		break;
	case OPT_CHILDREN:
		o->children = 1;
		break;
	case OPT_PROBE:
		o->probe = 1;
		break;
	case OPT_STRIP_PATHS:
		o->strip_paths = 1;
		break;
	case OPT_FP_STACK_MAP:
		o->fp_stack_map = 1;
		break;
	case 'h':
		usage(stdout);
		exit(0);
	case OPT_VERSION:
		printf("pgoprof-record %s\n", PGOPROF_VERSION);
		exit(0);
	default:
		usage(stderr);
		exit(2);
	}
}

/* The options against each other; exits 2 after a message. */
static void check_options(struct options *o)
{
	if (o->event >= 0 && o->mode != MODE_AUTO && o->mode != MODE_EXEC)
		die(2, "--event applies to mode exec, not --mode %s", o->mode == MODE_LBR ? "lbr" : "stack");
	if (o->event >= 0)
		o->mode = MODE_EXEC;
	if (o->probe && (o->command || o->pid || o->all))
		die(2, "--probe records nothing: give no COMMAND, -p or -a");
	if (o->probe)
		return;
	if (!!o->command + !!o->pid + o->all != 1) {
		usage(stderr);
		die(2, "give exactly one of: a COMMAND after --, -p PID, or -a");
	}
	if (o->children && !o->pid)
		die(2, "--children applies to -p (a COMMAND's children are always followed)");
	if (o->freq_given && o->period)
		die(2, "give -F (samples per second) or -c (events per sample), not both");
	if (o->command && o->duration > 0)
		die(2, "-d applies to -p and -a; a COMMAND is recorded until it ends");
	if (2ull * o->ring_size > o->mem_budget / 2)
		die(2, "--ring-size %u: the ring is mapped twice, and 2 x %u bytes is over half of --mem-budget (%llu bytes): give a bigger --mem-budget",
		    o->ring_size, o->ring_size, (unsigned long long)o->mem_budget);
}

void parse_options(int argc, char **argv, struct options *o)
{
	int c;

	*o = (struct options){ .freq = 999, .output = "pgoprof.raw",
			       .mode = MODE_AUTO, .event = -1, .call_graph = CG_AUTO,
			       .stack_size = STACK_SIZE_DEFAULT,
			       .mem_budget = MEM_BUDGET_DEFAULT };
	while ((c = getopt_long(argc, argv, "+F:c:m:o:p:ad:qvh", longopts, NULL)) != -1)
		if (!sampling_option(c, optarg, o) && !size_option(c, optarg, o) &&
		    !target_option(c, optarg, o))
			flag_option(c, o);
	if (optind < argc)
		o->command = argv + optind;
	check_options(o);
}

void free_options(struct options *o)
{
	for (int i = 0; i < o->nonly; i++)
		free(o->only[i]);
	free(o->only);
}
