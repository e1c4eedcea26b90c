/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof-record: the privileged collector.  Samples the target with the
 * BPF program of bpf/record.bpf.c on a cpu-clock event per CPU, follows the
 * mappings through the side-band, and writes the raw profile.  Stacks come
 * from frame pointers (aggregated in the kernel) or, for DWARF call graphs,
 * from copies of the user stack unwound here (dwarfcg.c) once privileges
 * are dropped. */
#include <linux/types.h>
#include "../bpf/record.h"
#include "record.skel.h"
#include "dwarfcg.h"
#include "fpstacks.h"
#include "lbrcollect.h"
#include "../proc/mappings.h"
#include "outwriter.h"
#include "privdrop.h"
#include "rate.h"
#include "probe.h"
#include "sideband.h"
#include "target.h"
#include "../lib/sudo.h"
#include "../lib/util.h"
#include "../raw/rawprof.h"
#include "../raw/signal.h"
#include "../version.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* --call-graph: how user stacks are walked in stack mode. */
enum call_graph { CG_AUTO, CG_FP, CG_DWARF };

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
/* fp stacks: what one fp_counts entry takes in the kernel, at most: the
 * element (struct htab_elem, key, value: 72 bytes) in bpf_mem_alloc's
 * 96- or 128-byte class, and two bucket heads (16 bytes each; the buckets
 * are max_entries rounded up to a power of two) (kernel/bpf/hashtab.c). */
#define FP_ENTRY_BYTES 160
/* and its entries by default, at most: the old counts map's.  The kernel
 * allocates max_entries rounded up to a power of two bucket heads when it
 * creates the map; at 2^18 that took 40 ms here, at 2^17 7 ms. */
#define FP_ENTRIES_DEFAULT 131072
/* Above this share of samples lost, the summary warns (as convert does). */
#define LOST_WARN_PERCENT 1.0
/* Up to this rate (Hz) any machine keeps sampling's cost small; above it
 * the cost is measured first (rate.c).  The kernel's cpu-clock timer fires
 * at most every 10 us (kernel/events/core.c, perf_swevent_init_hrtimer). */
#define RATE_UNMEASURED 1000
#define RATE_PROBE 10000
#define CPU_CLOCK_MIN_NS 10000
/* The ring is read at least this often, and unwinding takes at most this
 * long before the ring is read again. */
#define SERVE_MS 50

struct options {
	unsigned long freq;
	unsigned long long period;	/* -c: events per sample, 0 = use freq */
	enum record_mode mode;
	int event;		/* --event: a rung 2 event, -1 = the best */
	int probe;		/* --probe: say the mode auto takes, record nothing */
	const char *output;
	pid_t pid;		/* -p */
	int all;		/* -a */
	double duration;	/* -d, seconds; 0 = until the target ends */
	char **command;
	int quiet;
	enum call_graph call_graph;
	unsigned stack_size;	/* bytes of user stack copied (dwarf, auto) */
	uint32_t max_stacks;	/* --max-stacks: fp counts entries, 0 = from the budget */
	uint32_t ring_size;	/* --ring-size: bytes, 0 = from -F and the CPUs */
	uint64_t mem_budget;	/* --mem-budget: bytes */
	int freq_given;		/* -F was on the command line */
	int children;		/* --children: -p's descendants too */
	char **only;		/* --only: the objects to keep (none: all) */
	int nonly;
	int strip_paths;	/* --strip-paths */
	int fp_stack_map;	/* --fp-stack-map: as kernels before 6.1 must */
	int verbose;		/* -v: the start-up and teardown phases; -vv:
				 * and libbpf's own lines */
};

/* The user who ran us through sudo (SUDO_UID/SUDO_GID, honoured only when
 * the real user is root): the output is given to them, and -p is limited
 * to the processes they could trace. */
struct invoker {
	int set;
	uid_t uid;
	gid_t gid;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

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

static void parse_options(int argc, char **argv, struct options *o)
{
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
	char *end;
	int c;

	*o = (struct options){ .freq = 999, .output = "pgoprof.raw",
			       .mode = MODE_AUTO, .event = -1, .call_graph = CG_AUTO,
			       .stack_size = STACK_SIZE_DEFAULT,
			       .mem_budget = MEM_BUDGET_DEFAULT };
	while ((c = getopt_long(argc, argv, "+F:c:m:o:p:ad:qvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->period = strtoull(optarg, &end, 10);
			if (*end || o->period == 0)
				die(2, "-c %s: give a positive number of events per sample", optarg);
			break;
		case 'm':
			if (mode_by_name(optarg) < 0)
				die(2, "--mode %s: give auto, lbr, exec or stack", optarg);
			o->mode = (enum record_mode)mode_by_name(optarg);
			break;
		case 'F':
			o->freq = strtoul(optarg, &end, 10);
			if (*end || o->freq == 0 || o->freq > rate_kernel_max())
				die(2, "-F %s: give a frequency in Hz from 1 to %lu (kernel.perf_event_max_sample_rate)",
				    optarg, rate_kernel_max());
			o->freq_given = 1;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'p':
			o->pid = (pid_t)strtol(optarg, &end, 10);
			if (*end || o->pid <= 0)
				die(2, "-p %s: not a process ID", optarg);
			break;
		case 'a':
			o->all = 1;
			break;
		case 'd':
			o->duration = strtod(optarg, &end);
			if (*end || !(o->duration > 0))
				die(2, "-d %s: give a duration in seconds", optarg);
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
		case OPT_EVENT:
			o->event = ladder_event_by_name(optarg);
			if (o->event < 0)
				die(2, "--event %s: give instructions, instructions:p, instructions:pp, instructions:ppp, ibs_op or branches", optarg);
			break;
		case OPT_ONLY:
			add_only(o, optarg);
			break;
		case OPT_STRIP_PATHS:
			o->strip_paths = 1;
			break;
		case OPT_CALL_GRAPH:
			parse_call_graph(optarg, o);
			break;
		case OPT_MAX_STACKS: {
			unsigned long n = strtoul(optarg, &end, 10);

			if (*end || n == 0 || n > (1ul << 24))
				die(2, "--max-stacks %s: give a number of map entries from 1 to %lu",
				    optarg, 1ul << 24);
			o->max_stacks = (uint32_t)n;
			break;
		}
		case OPT_RING_SIZE: {
			uint64_t n = parse_bytes(optarg);

			if (n < (uint64_t)sysconf(_SC_PAGESIZE) || n > (1ull << 30) ||
			    (n & (n - 1)))
				die(2, "--ring-size %s: give a power of two from the page size (%ld) to 1G",
				    optarg, sysconf(_SC_PAGESIZE));
			o->ring_size = (uint32_t)n;
			break;
		}
		case OPT_FP_STACK_MAP:
			o->fp_stack_map = 1;
			break;
		case OPT_MEM_BUDGET:
			o->mem_budget = parse_bytes(optarg);
			if (o->mem_budget < MEM_BUDGET_MIN || o->mem_budget > (1ull << 40))
				die(2, "--mem-budget %s: give a size from 64K to 1T (suffix K, M or G)",
				    optarg);
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
	if (optind < argc)
		o->command = argv + optind;
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

/* SUDO_UID/SUDO_GID (lib/sudo.h); a malformed one stops the run. */
static void find_invoker(struct invoker *inv)
{
	int r;

	*inv = (struct invoker){ 0 };
	r = sudo_invoker(&inv->uid, &inv->gid);
	if (r < 0)
		exit(1);
	inv->set = r;
}

/* Through sudo, -p takes only a process that the invoking user could
 * ptrace themselves: its real, effective and saved user IDs are theirs
 * (the user-ID part of ptrace's access check; see docs/threat-model.md).
 * Returns the first of those IDs that is not the user's, inv->uid when
 * all are, or -1 after a message when /proc/PID/status cannot be read. */
static long pid_other_owner(const struct invoker *inv, pid_t pid)
{
	char path[64], line[256];
	unsigned long r, e, s;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return err("-p %d: cannot read %s: %s", (int)pid, path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %lu %lu %lu", &r, &e, &s) == 3) {
			fclose(f);
			return (long)(e != inv->uid ? e : r != inv->uid ? r : s);
		}
	fclose(f);
	return err("cannot read the owner of process %d from %s", (int)pid, path);
}

static void check_pid_owner(const struct invoker *inv, pid_t pid)
{
	long owner = pid_other_owner(inv, pid);

	if (owner < 0)
		exit(1);
	if (owner != (long)inv->uid)
		die(1, "-p %d: the process belongs to user %ld, not to user %lu who ran pgoprof-record through sudo (SUDO_UID): profile it as that user, or as root without sudo",
		    (int)pid, owner, (unsigned long)inv->uid);
}

/* CPUs listed in /sys/devices/system/cpu/online ("0-3,6"). */
static int online_cpus(int **cpus)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	int n = 0, a, b;
	size_t cap = 0;
	char sep;

	*cpus = NULL;
	if (!f)
		die(1, "cannot read /sys/devices/system/cpu/online: %s", strerror(errno));
	while (fscanf(f, "%d", &a) == 1) {
		b = a;
		if (fscanf(f, "%c", &sep) == 1 && sep == '-') {
			if (fscanf(f, "%d", &b) != 1)
				break;
			if (fscanf(f, "%c", &sep) != 1)
				sep = 0;
		}
		for (int c = a; c <= b && c < 65536; c++) {
			grow(cpus, &cap, (size_t)n + 1, sizeof(int));
			(*cpus)[n++] = c;
		}
		if (sep != ',')
			break;
	}
	fclose(f);
	if (n == 0)
		die(1, "no online CPU in /sys/devices/system/cpu/online");
	return n;
}

/* Fork the command stopped before exec, so that it is a target from its
 * first instruction.  Writing a byte to *go starts it; closing *go without
 * writing makes it exit 127. */
static pid_t spawn_stopped(char **argv, int *go)
{
	pid_t parent = getpid(), pid;
	int p[2];
	char c;

	if (pipe2(p, O_CLOEXEC))
		die(1, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die(1, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(p[1]);
		/* A recorder killed outright (SIGKILL, the OOM killer) cannot
		 * stop the command: the kernel does.  A parent gone before the
		 * prctl shows as a new parent. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(127);
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: cannot run %s: %s\n", progname, argv[0],
			strerror(errno));
		_exit(127);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

struct collector {
	struct options opt;
	struct invoker inv;
	int mode;		/* MODE_LBR, MODE_EXEC or MODE_STACK, after the probe */
	enum ladder_event event;	/* the event sampled (probe.h) */
	struct ladder_probe probe;
	unsigned long freq_asked;	/* -F before limit_rate lowered it */
	struct record_bpf *skel;
	int *cpus, ncpus;
	/* The sampling events: one per CPU with -a, else one per thread
	 * of the targets, inherited by what they start. */
	struct sampling_event {
		int fd;
		struct bpf_link *link;
	} *ev;
	size_t nev, cap_ev;
	size_t nthreads;	/* threads the events went on; 0 with -a */
	double cpu0;		/* -p's CPU seconds when sampling began */
	struct sideband sb;
	struct ladder_report why;	/* the rungs, the mode taken and why */
	int use_cg;		/* stack records unwound in user space */
	int legacy_fp;		/* fp stacks by the kernel's stack map (< 6.1) */
	struct ring_buffer *fp_rb;	/* fp stacks: new stacks' frames */
	struct fpstacks fps;
	uint32_t fp_ring;	/* fp stacks: the fp_stacks ring's bytes */
	uint32_t fp_entries;	/* and fp_counts' entries */
	size_t fp_table;	/* and the frames' table's bytes at most */
	struct ring_buffer *spill_rb;	/* LBR: branches/ranges over the maps */
	struct lbr_spill *spilled;
	size_t nspilled, cap_spilled;
	struct dwarfcg cg;
	uint32_t ring;		/* DWARF stacks: the ring buffer's bytes */
	struct dwarfcg_budget cg_budget;	/* and the rest of --mem-budget */
	struct raw_profile prof;
	struct maptable maps;
	struct outwriter out;	/* the file's writer, as the invoking user */
	pid_t child;
	int child_status;
	pid_t *kids;		/* --children: -p's descendants at the start */
	size_t nkids;
	struct timespec t0;	/* the recording's start (the command's go) */
	struct timespec tstart;	/* main() entered, for -v */
	int pidfd;		/* the command or -p PID: readable when it ends */
};

/* -v: one line per phase, in milliseconds since main() was entered, so
 * that slow start-up or teardown shows where it goes
 * (bench/collector-startup.sh reads these lines). */
static void phase(const struct collector *c, const char *what)
{
	struct timespec t;

	if (!c->opt.verbose)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t);
	fprintf(stderr, "%s: %8.1f ms %s\n", progname,
		(double)(t.tv_sec - c->tstart.tv_sec) * 1e3 +
		(double)(t.tv_nsec - c->tstart.tv_nsec) / 1e6, what);
}

/* -v: when main() was entered, on the wall clock (the command's own
 * clock in bench/collector-startup.sh), so that the time before it shows. */
static void verbose_start(const struct collector *c)
{
	struct timespec mono, real;

	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	fprintf(stderr, "%s: %8.1f ms main() entered at %.6f (CLOCK_REALTIME)\n",
		progname, (double)(mono.tv_sec - c->tstart.tv_sec) * 1e3 +
		(double)(mono.tv_nsec - c->tstart.tv_nsec) / 1e6,
		(double)real.tv_sec + real.tv_nsec / 1e9);
}

static void read_stats(struct collector *c, uint64_t sum[STAT_MAX]);

/* -v: the first sample of a target, in ms since main() (the BPF
 * program's bpf_ktime_get_ns() is CLOCK_MONOTONIC), or that none came. */
static void verbose_first(struct collector *c)
{
	uint64_t sum[STAT_MAX];
	double ms;

	read_stats(c, sum);
	if (!sum[STAT_FIRST_NS]) {
		fprintf(stderr, "%s: no sample of the target\n", progname);
		return;
	}
	ms = ((double)sum[STAT_FIRST_NS] - ((double)c->tstart.tv_sec * 1e9 +
					    (double)c->tstart.tv_nsec)) / 1e6;
	/* Not a phase line: it comes after later phases. */
	fprintf(stderr, "%s: first sample of the target at %.1f ms\n", progname, ms);
}

/* --children: -p's descendants now; through sudo, the user's only (a
 * child may be a setuid program). */
static void find_kids(struct collector *c)
{
	size_t n = target_descendants(c->opt.pid, &c->kids), kept = 0;

	for (size_t i = 0; i < n; i++)
		if (!c->inv.set || pid_other_owner(&c->inv, c->kids[i]) == (long)c->inv.uid)
			c->kids[kept++] = c->kids[i];
	if (kept < n)
		warnx("--children: %zu of %zu children of process %d are not user %lu's (SUDO_UID): left out",
		      n - kept, n, (int)c->opt.pid, (unsigned long)c->inv.uid);
	c->nkids = kept;
}

/* One line per rung considered (docs/man/pgoprof-record.1). */
static void say_rungs(const struct collector *c)
{
	for (int i = 0; i < 3; i++)
		if (c->why.rung[i][0])
			fprintf(stderr, "%s: %s\n", progname, c->why.rung[i]);
}

/* The mode taken and why (c->why, said once the output is known to be
 * writable: a bad -o is then the only line); an error, with the rungs
 * unless -q, when --mode lbr or exec cannot be honoured or the probes
 * were refused for privileges. */
static int choose_mode(struct collector *c)
{
	ladder_probe_run(&c->probe, c->opt.mode, c->opt.event, c->cpus[0],
			 c->opt.freq, c->opt.period);
	c->mode = ladder_decide(c->opt.mode, c->opt.event, &c->probe, &c->event, &c->why);
	if (c->mode < 0) {
		if (!c->opt.quiet)
			say_rungs(c);
		return err("%s", c->why.why);
	}
	return 0;
}

/* --probe: the rungs on stderr, the mode auto takes on stdout, one word
 * (pgo/pgo.mk reads it). */
static int probe_only(struct collector *c)
{
	static const char *const word[] = {
		[MODE_LBR] = "lbr", [MODE_EXEC] = "exec", [MODE_STACK] = "stack",
	};

	if (choose_mode(c))
		return 1;
	if (!c->opt.quiet) {
		say_rungs(c);
		fprintf(stderr, "%s: %s\n", progname, c->why.why);
	}
	printf("%s\n", word[c->mode]);
	return fflush(stdout) ? 1 : 0;
}

static int want_pid(uint32_t pid, void *arg)
{
	struct collector *c = arg;
	uint8_t v;

	if (c->skel->rodata->filter_pid &&
	    bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.targets), &pid, &v))
		return 0;
	/* The side-band asks for every MMAP2 and FORK: the unwinder's
	 * cached view of this process may be out of date. */
	if (c->use_cg)
		dwarfcg_invalidate(&c->cg, (pid_t)pid);
	return 1;
}

/* A power of two that buffers about half a second of samples on every
 * CPU (the collector reads it every SERVE_MS, or when it is a quarter
 * full), within 8 MiB .. 256 MiB, and within an eighth of the memory
 * budget (libbpf maps the ring's data twice, for records that wrap
 * around: it shows twice in the collector's RSS). */
static uint32_t ring_bytes(const struct collector *c)
{
	double hz = c->opt.period ? 1e9 / (double)c->opt.period : (double)c->opt.freq;
	double want = hz * c->ncpus * (sizeof(struct stack_rec) + 1024.0 +
				      c->opt.stack_size) / 2;
	uint32_t size = 8u << 20;

	while (size < want && size < (256u << 20))
		size *= 2;
	while (size > c->opt.mem_budget / 8 && size > (uint32_t)sysconf(_SC_PAGESIZE))
		size /= 2;
	return size;
}

/* --mem-budget, DWARF stacks: the ring (twice, as mapped), then of what
 * is left two thirds for records waiting to be unwound and a third for
 * the table of unwound stacks. */
static void split_budget(struct collector *c)
{
	uint64_t rest;

	c->ring = c->opt.ring_size ? c->opt.ring_size : ring_bytes(c);
	rest = c->opt.mem_budget - 2ull * c->ring;	/* parse_options checked */
	c->cg_budget.queue_bytes = (size_t)(rest / 3 * 2);
	c->cg_budget.table_bytes = (size_t)(rest / 3);
}

/* Set-up of the stack-copy program, before the skeleton is loaded.
 * Without DWARF call graphs its program and maps are not loaded at all,
 * so that the fp path needs nothing newer from the kernel than before
 * (ring buffer 5.8, bpf_find_vma 5.17). */
static void configure_cg(struct collector *c)
{
	uint32_t ring;

	if (!c->use_cg) {
		bpf_program__set_autoload(c->skel->progs.on_stack_sample, false);
		bpf_map__set_autocreate(c->skel->maps.samples, false);
		bpf_map__set_autocreate(c->skel->maps.scratch, false);
		return;
	}
	split_budget(c);
	ring = c->ring;
	c->skel->rodata->stack_size = c->opt.stack_size;
	c->skel->rodata->with_fp_chain = c->opt.call_graph == CG_AUTO;
	c->skel->rodata->wakeup_bytes = ring / 4;
	bpf_map__set_max_entries(c->skel->maps.samples, ring);
	bpf_map__set_max_entries(c->skel->maps.scratch,
				 (uint32_t)libbpf_num_possible_cpus());
}

/* libbpf's own lines are kept and shown after pgoprof-record's message
 * only where they help (a verifier log), not for missing privileges,
 * which pgoprof-record says in one line. */
static char libbpf_log[8192];
static size_t libbpf_len;

static int libbpf_verbose;	/* -vv: every libbpf line, on stderr */

static int keep_libbpf_line(enum libbpf_print_level level, const char *fmt,
			    va_list ap)
{
	int n;

	if (libbpf_verbose)
		return vfprintf(stderr, fmt, ap);
	if (level == LIBBPF_DEBUG || libbpf_len >= sizeof(libbpf_log) - 1)
		return 0;
	n = vsnprintf(libbpf_log + libbpf_len, sizeof(libbpf_log) - libbpf_len, fmt, ap);
	if (n > 0)
		libbpf_len += (size_t)n;
	if (libbpf_len > sizeof(libbpf_log) - 1)
		libbpf_len = sizeof(libbpf_log) - 1;
	return 0;
}

/* The program attached to the sampling events. */
static struct bpf_program *sampling_prog(const struct collector *c)
{
	struct record_bpf *s = c->skel;

	if (c->mode == MODE_LBR)
		return c->legacy_fp ? s->progs.on_lbr_sample_legacy : s->progs.on_lbr_sample;
	if (c->use_cg)
		return s->progs.on_stack_sample;
	return c->legacy_fp ? s->progs.on_sample_legacy : s->progs.on_sample;
}

/* fp stacks: --mem-budget split into the fp_stacks ring (twice, as
 * mapped), then half of the rest for fp_counts (FP_ENTRY_BYTES an entry,
 * at most FP_ENTRIES_DEFAULT or --max-stacks entries: more is refused)
 * and half for the table of frames.  The ring
 * holds a quarter second of samples on every CPU should all be of new
 * stacks (the collector reads it every SERVE_MS, or when a quarter full),
 * within 256 KiB .. 64 MiB and an eighth of the budget. */
static void split_fp_budget(struct collector *c)
{
	double hz = c->opt.period ? 1e9 / (double)c->opt.period : (double)c->opt.freq;
	double want = hz * c->ncpus * sizeof(struct fp_stack_rec) / 4;
	uint64_t rest, entries;
	uint32_t size = 256u << 10;

	while (size < want && size < (64u << 20))
		size *= 2;
	while (size > c->opt.mem_budget / 8 && size > (uint32_t)sysconf(_SC_PAGESIZE))
		size /= 2;
	c->fp_ring = size;
	rest = c->opt.mem_budget - 2ull * size;
	entries = rest / 2 / FP_ENTRY_BYTES;
	if (c->opt.max_stacks > entries)
		die(2, "--max-stacks %u: %u entries of %d bytes are over half of --mem-budget (%llu bytes) less the ring (2 x %u): give a bigger --mem-budget",
		    c->opt.max_stacks, c->opt.max_stacks, FP_ENTRY_BYTES,
		    (unsigned long long)c->opt.mem_budget, size);
	c->fp_entries = c->opt.max_stacks ? c->opt.max_stacks :
			entries > FP_ENTRIES_DEFAULT ? FP_ENTRIES_DEFAULT :
			entries ? (uint32_t)entries : 1;
	c->fp_table = (size_t)(rest / 2);
}

/* Only the sampling program that is used is loaded (tests/lbrfold loads
 * them all, so that the verifier checks each on every test machine): the
 * verifier took 20 ms for the others.  The stack maps of the way that is
 * used are sized; the other's get one entry (or a page of ring).  Since
 * Linux 6.1 the hash maps are not preallocated (creating them cost a page
 * fault per page); kernels before (legacy_fp) refuse that in perf_event
 * programs, and fp stacks go through the kernel's stack map there. */
static void configure_fp(struct collector *c)
{
	struct record_bpf *s = c->skel;
	int kernel_counts = !c->use_cg;	/* fp stacks, or LBR mode's */
	uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE);
	struct bpf_program *used = sampling_prog(c);
	struct bpf_program *all[] = { s->progs.on_sample, s->progs.on_sample_legacy,
				      s->progs.on_lbr_sample, s->progs.on_lbr_sample_legacy,
				      s->progs.on_stack_sample };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		bpf_program__set_autoload(all[i], all[i] == used);
	if (c->opt.verbose > 1)		/* -vv: the verifier's statistics */
		bpf_program__set_log_level(used, 4);
	if (!c->legacy_fp) {
		bpf_map__set_map_flags(s->maps.targets, BPF_F_NO_PREALLOC);
		bpf_map__set_map_flags(s->maps.new_tasks, BPF_F_NO_PREALLOC);
	}
	if (kernel_counts && !c->legacy_fp) {
		split_fp_budget(c);
		bpf_map__set_max_entries(s->maps.fp_counts, c->fp_entries);
		bpf_map__set_max_entries(s->maps.fp_stacks, c->fp_ring);
		s->rodata->fp_wakeup_bytes = c->fp_ring / 4;
	} else {
		bpf_map__set_max_entries(s->maps.fp_counts, 1);
		bpf_map__set_max_entries(s->maps.fp_stacks, page);
	}
	if (kernel_counts && c->legacy_fp) {
		if (c->opt.max_stacks) {
			bpf_map__set_max_entries(s->maps.stacks, c->opt.max_stacks);
			bpf_map__set_max_entries(s->maps.counts, c->opt.max_stacks);
		}
	} else {
		bpf_map__set_max_entries(s->maps.stacks, 1);
		bpf_map__set_max_entries(s->maps.counts, 1);
	}
}

/* The maps of the other modes are created with one entry: the kernel
 * preallocates hash and stack maps whole, and creating the branch maps
 * (2 x 262144 entries), the frame-pointer stack map (65536 x 1016 bytes)
 * and counts took most of the start-up (bench/results/collector-startup.md).
 * In branch-record mode the branch maps are allocated as they fill where
 * the kernel allows it (6.1+, as configure_fp): a key that finds no memory
 * goes through the spill ring like one that finds the map full. */
static void shrink_unused(struct collector *c)
{
	struct record_bpf *s = c->skel;

	if (c->mode != MODE_LBR) {
		bpf_map__set_max_entries(s->maps.branches, 1);
		bpf_map__set_max_entries(s->maps.ranges, 1);
		bpf_map__set_max_entries(s->maps.lbr_spill, (uint32_t)sysconf(_SC_PAGESIZE));
	} else if (!c->legacy_fp) {
		bpf_map__set_map_flags(s->maps.branches, BPF_F_NO_PREALLOC);
		bpf_map__set_map_flags(s->maps.ranges, BPF_F_NO_PREALLOC);
	}
	configure_fp(c);
}

/* The skeleton opened, configured and loaded: 0 or libbpf's -errno. */
static int load_once(struct collector *c)
{
	int e;

	c->skel = record_bpf__open();
	if (!c->skel)
		return -errno;
	c->skel->rodata->filter_pid = !c->opt.all;
	c->skel->rodata->self_pid = (uint32_t)getpid();
	configure_cg(c);
	shrink_unused(c);
	phase(c, "BPF object opened");
	e = record_bpf__load(c->skel);
	phase(c, "BPF loaded (maps, verifier)");
	return e;
}

static int load_bpf(struct collector *c)
{
	int e;

	libbpf_verbose = c->opt.verbose > 1;
	libbpf_set_print(keep_libbpf_line);
	c->legacy_fp = c->opt.fp_stack_map;
	e = load_once(c);
	if (e && e != -EPERM && e != -EACCES && !c->legacy_fp) {
		/* Before Linux 6.1 the verifier refuses a map that is not
		 * preallocated in a perf_event program: again without. */
		record_bpf__destroy(c->skel);
		c->skel = NULL;
		c->legacy_fp = 1;
		/* The verifier's words (kernel/bpf/verifier.c,
		 * check_map_prog_compatibility, before 6.1). */
		int prealloc = !!strstr(libbpf_log, "preallocated");

		libbpf_len = 0;
		libbpf_log[0] = '\0';
		e = load_once(c);
		if (!e && !c->opt.quiet)
			fprintf(stderr, "%s: %s: the maps are preallocated%s (a slower start)\n",
				progname, prealloc ?
				"this kernel refuses maps that are not preallocated in perf_event programs (before Linux 6.1)" :
				"the BPF load with maps allocated as they fill failed (libbpf -v: pgoprof-record -vv)",
				c->use_cg ? "" : ", and fp stacks go through the kernel's stack map");
	}
	if (!c->skel)
		return err("cannot open the BPF object: %s", strerror(-e));
	if (e && e != -EPERM && e != -EACCES && libbpf_len)
		fprintf(stderr, "%s: libbpf said:\n%s", progname, libbpf_log);
	if (e)
		return err("the kernel refused the BPF program (%s): run as root or with CAP_BPF + CAP_PERFMON, on a kernel with BTF (CONFIG_DEBUG_INFO_BTF)",
			   strerror(-e));
	e = record_bpf__attach(c->skel);
	if (e)
		return err("cannot attach to sched_process_fork (%s): children of the target would be missed",
			   strerror(-e));
	phase(c, "fork tracepoint attached");
	return 0;
}

static int add_target(struct collector *c, pid_t pid)
{
	uint32_t key = (uint32_t)pid;
	uint8_t one = 1;

	return bpf_map_update_elem(bpf_map__fd(c->skel->maps.targets), &key,
				   &one, BPF_ANY);
}

static void sampling_attr(const struct collector *c, struct perf_event_attr *a)
{
	ladder_attr(a, c->event, &c->probe, c->opt.freq, c->opt.period);
}

static unsigned long stack_rate(const struct collector *c)
{
	return c->opt.period ? (unsigned long)(1e9 / (double)c->opt.period) : c->opt.freq;
}

/* The share of a CPU that sampling at hz takes (rate.c). */
static double busy_at(struct collector *c, struct bpf_program *prog,
		      unsigned long hz)
{
	struct perf_event_attr a;

	sampling_attr(c, &a);
	a.freq = 0;
	a.sample_period = 1000000000ul / hz;
	return rate_measure_busy(prog, &a, c->cpus[0]);
}

/* Stack mode above RATE_UNMEASURED: lower the rate until sampling takes at
 * most kernel.perf_cpu_time_max_percent of a CPU (half with DWARF stacks),
 * as the kernel does for hardware events (LBR mode is left to the kernel).
 * The first measure is at RATE_PROBE at most, scaled up in proportion (a
 * cost that saturates grows less than the rate, so this errs high and a
 * machine is never measured at a rate that could stall it); each lowered
 * rate is measured again, since the cost need not be proportional. */
static int limit_rate(struct collector *c)
{
	struct bpf_program *prog = c->use_cg ? c->skel->progs.on_stack_sample
					     : c->skel->progs.on_sample;
	unsigned long asked = stack_rate(c), hz, next;
	unsigned kpct = rate_cpu_percent(), pct = kpct;
	double busy, first;

	/* The stack copies are unwound here, in user space, at about the
	 * cost of the interrupt again: half the share for each. */
	if (c->use_cg && pct < 100)
		pct /= 2;

	if (c->mode != MODE_STACK || asked <= RATE_UNMEASURED)
		return 0;
	hz = asked < RATE_PROBE ? asked : RATE_PROBE;
	if ((busy = busy_at(c, prog, hz)) < 0)
		return -1;
	busy *= (double)asked / (double)hz;	/* at the rate asked */
	first = busy;
	hz = asked;
	for (int step = 0; step < 4; step++) {
		next = rate_within(asked, busy, pct);
		if (next < RATE_UNMEASURED)
			next = RATE_UNMEASURED;
		if (next >= hz)
			break;
		hz = next;
		if ((busy = busy_at(c, prog, hz)) < 0)
			return -1;
		busy *= (double)asked / (double)hz;
	}
	if (hz == asked)
		return 0;
	if (c->opt.period) {
		c->opt.period = 1000000000ull / hz;
	} else {
		c->freq_asked = asked;
		c->opt.freq = hz;
	}
	if (!c->opt.quiet)
		fprintf(stderr, "%s: sampling at %lu Hz would take about %.0f%% of each CPU here; lowered to %lu Hz (kernel.perf_cpu_time_max_percent = %u%s)\n",
			progname, asked, 100.0 * first, hz, kpct,
			pct != kpct ? ", halved: DWARF stacks are unwound here too" : "");
	return 0;
}

/* What to do about a sampling event that failed with errno e: the
 * privilege, or the open-file limit, which an event and its BPF link per
 * thread reach (two descriptors a thread; -a takes two per CPU). */
static const char *event_hint(int e)
{
	static char buf[200];
	struct rlimit r;

	if (e == EACCES || e == EPERM)
		return " (run as root, grant CAP_PERFMON, or lower /proc/sys/kernel/perf_event_paranoid)";
	if (e != EMFILE)
		return "";
	if (getrlimit(RLIMIT_NOFILE, &r))
		r.rlim_cur = 0;
	snprintf(buf, sizeof(buf), " (an event and a BPF link per thread, and the limit is %llu open files: raise ulimit -n, or record with -a)",
		 (unsigned long long)r.rlim_cur);
	return buf;
}

/* One sampling event with the BPF program: on CPU cpu (tid -1), or on
 * thread tid wherever it runs (cpu -1) and, inherited, on the tasks it
 * starts.  0; 1 when the thread has ended meanwhile (nothing to sample);
 * -1 after the message. */
static int open_event(struct collector *c, struct bpf_program *prog,
		      const struct perf_event_attr *a, pid_t tid, int cpu)
{
	struct sampling_event *e;
	int fd = (int)syscall(SYS_perf_event_open, a, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	char where[32];

	if (tid >= 0)
		snprintf(where, sizeof(where), "thread %d", (int)tid);
	else
		snprintf(where, sizeof(where), "cpu %d", cpu);
	if (fd < 0 && tid >= 0 && errno == ESRCH)
		return 1;
	if (fd < 0)
		return err("perf_event_open(%s, %s): %s%s",
			   c->mode == MODE_LBR ? "branch records" : ladder_event_name(c->event), where,
			   strerror(errno), event_hint(errno));
	grow(&c->ev, &c->cap_ev, c->nev + 1, sizeof(*c->ev));
	e = &c->ev[c->nev++];
	e->fd = fd;
	e->link = bpf_program__attach_perf_event(prog, fd);
	if (!e->link)
		return err("cannot attach the BPF program to %s: %s%s", where,
			   strerror(errno), event_hint(errno));
	return 0;
}

/* An event a thread takes a file descriptor: the soft limit (often
 * 1024) up to the hard one, for targets with many threads. */
static void raise_nofile(void)
{
	struct rlimit r;

	if (!getrlimit(RLIMIT_NOFILE, &r) && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &r);
	}
}

/* Events on every thread of process pid: listed again until no new one
 * shows up (a thread started between the listing and its event is seen
 * the next time; one started by a thread with an event inherits it). */
static int open_threads(struct collector *c, struct bpf_program *prog,
			const struct perf_event_attr *a, pid_t pid,
			pid_t **tids, size_t *n, size_t *cap)
{
	for (int pass = 0; pass < 8; pass++) {
		size_t from = *n;

		if (!target_threads(pid, tids, n, cap))
			return 0;
		for (size_t i = from; i < *n; i++) {
			int r = open_event(c, prog, a, (*tids)[i], -1);

			if (r < 0)
				return -1;
			c->nthreads += r == 0;
		}
	}
	return 0;
}

/* With -a, an event on every CPU.  Else an event on every thread of the
 * targets (the command, -p PID and its --children), inherited by the
 * tasks they start: only the targets are interrupted.  Per-CPU events
 * filtered in BPF interrupted every task of the machine at the rate
 * (12-20 us each on a VM: 6-9% of every CPU at 4999 Hz;
 * bench/results/collector-steady.md, "The interrupt floor"). */
static int open_sampling(struct collector *c)
{
	struct bpf_program *prog = sampling_prog(c);
	struct perf_event_attr a;
	pid_t *tids = NULL, *pids = c->kids;
	size_t n = 0, cap = 0;
	int r = 0;

	sampling_attr(c, &a);
	if (c->opt.all) {
		for (int i = 0; i < c->ncpus && !r; i++)
			r = open_event(c, prog, &a, -1, c->cpus[i]);
		return r;
	}
	a.inherit = 1;
	raise_nofile();
	r = open_threads(c, prog, &a, c->child ? c->child : c->opt.pid, &tids, &n, &cap);
	for (size_t i = 0; i < c->nkids && !r; i++)
		r = open_threads(c, prog, &a, pids[i], &tids, &n, &cap);
	free(tids);
	if (!r && !c->nthreads)
		return err("process %d ended before sampling could start",
			   (int)(c->child ? c->child : c->opt.pid));
	return r;
}

static void close_sampling(struct collector *c)
{
	for (size_t i = 0; i < c->nev; i++) {
		if (c->ev[i].link)
			bpf_link__destroy(c->ev[i].link);
		close(c->ev[i].fd);
	}
	free(c->ev);
	c->ev = NULL;
	c->nev = c->cap_ev = 0;
}

static void scan_existing(struct collector *c)
{
	DIR *d;
	struct dirent *e;

	if (c->opt.pid) {
		if (maps_scan_proc(&c->maps, c->opt.pid))
			die(1, "-p %d: cannot read /proc/%d/maps: %s%s", (int)c->opt.pid,
			    (int)c->opt.pid, strerror(errno), errno == EACCES ?
			    " (another user's process: record it as root)" : "");
		for (size_t i = 0; i < c->nkids; i++)
			maps_scan_proc(&c->maps, c->kids[i]);	/* may have exited */
		return;
	}
	if (!c->opt.all)
		return;
	d = opendir("/proc");
	if (!d)
		die(1, "cannot read /proc: %s", strerror(errno));
	while ((e = readdir(d)))
		if (isdigit((unsigned char)e->d_name[0]))
			maps_scan_proc(&c->maps, (pid_t)atoi(e->d_name));
	closedir(d);
}

static double elapsed(const struct collector *c)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - c->t0.tv_sec) + (t.tv_nsec - c->t0.tv_nsec) / 1e9;
}

static int target_done(struct collector *c)
{
	if (c->child) {
		pid_t r = waitpid(c->child, &c->child_status, WNOHANG);

		if (r == c->child) {
			c->child = 0;
			return 1;
		}
		return 0;
	}
	if (c->opt.pid && kill(c->opt.pid, 0) && errno == ESRCH)
		return 1;
	return c->opt.duration > 0 && elapsed(c) >= c->opt.duration;
}

/* One round of the main loop: wait for samples (or SERVE_MS), take the
 * new mappings, unwind what waits.  The ring is read before the side-band
 * is drained, so the mappings of every sample read are known when it is
 * unwound.  wait_ms 0: do not wait; unwind_ms < 0: unwind everything. */
static void serve(struct collector *c, int wait_ms, int unwind_ms)
{
	if (c->spill_rb)
		ring_buffer__consume(c->spill_rb);
	if (!c->use_cg) {
		struct pollfd p[2] = { { .fd = c->pidfd, .events = POLLIN },
				       { .fd = c->fp_rb ? ring_buffer__epoll_fd(c->fp_rb) : -1,
					 .events = POLLIN } };

		if (wait_ms)
			poll(p, 2, wait_ms);
		if (c->fp_rb)
			ring_buffer__consume(c->fp_rb);
		sideband_drain(&c->sb, &c->maps, want_pid, c);
		return;
	}
	dwarfcg_read(&c->cg, dwarfcg_pending(&c->cg) ? 0 : wait_ms, c->pidfd);
	sideband_drain(&c->sb, &c->maps, want_pid, c);
	dwarfcg_unwind(&c->cg, unwind_ms);
}

/* How the recording ends, for the line that starts it. */
static const char *stop_hint(const struct options *o)
{
	if (o->command)
		return "";
	return o->duration > 0 ? "; Ctrl-C to stop before -d ends it"
			       : "; Ctrl-C to stop";
}

/* The kernel's per-CPU statistics, summed (stats map, bpf/record.h). */
static void read_stats(struct collector *c, uint64_t sum[STAT_MAX])
{
	int fd = bpf_map__fd(c->skel->maps.stats);
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v = xcalloc(ncpu, sizeof(*v));

	memset(sum, 0, STAT_MAX * sizeof(*sum));
	for (uint32_t k = 0; k < STAT_MAX; k++) {
		if (bpf_map_lookup_elem(fd, &k, v))
			continue;
		for (int i = 0; i < ncpu; i++) {
			if (k != STAT_FIRST_NS)
				sum[k] += v[i];
			else if (v[i] && (!sum[k] || v[i] < sum[k]))
				sum[k] = v[i];	/* the earliest CPU's */
		}
	}
	free(v);
}

/* Once a second on a terminal: how long, how many samples, how many
 * lost, on one line rewritten in place.  Nothing when stderr is a file or
 * a pipe (a CI log), or with -q. */
static void show_progress(struct collector *c, double *next)
{
	uint64_t sum[STAT_MAX];
	double t = elapsed(c);

	if (t < *next)
		return;
	*next = t + 1;
	read_stats(c, sum);
	fprintf(stderr, "\r%s: %.0f s, %llu samples, %llu lost ", progname, t,
		(unsigned long long)sum[STAT_SAMPLES],
		(unsigned long long)(sum[STAT_STACK_LOST] + sum[STAT_COUNTS_FULL] +
				     sum[STAT_RINGBUF_LOST] + sum[STAT_STACK_HASH]));
}

static void run_loop(struct collector *c)
{
	int progress = !c->opt.quiet && isatty(STDERR_FILENO);
	double next = 1;

	while (!stop_signal && !target_done(c)) {
		int wait = SERVE_MS;

		/* -d ends on time, not up to a round late. */
		if (c->opt.duration > 0 &&
		    (c->opt.duration - elapsed(c)) * 1000 < wait)
			wait = (int)((c->opt.duration - elapsed(c)) * 1000) + 1;
		serve(c, wait, SERVE_MS);
		if (progress)
			show_progress(c, &next);
	}
	if (progress && next > 1)
		fputc('\n', stderr);
}

/* One aggregated stack of n frames, resolved to file offsets and cut
 * into an IP sample, edges and a stack by raw_add_sampled_stack().  Both
 * the kernel's frame-pointer stacks and the unwound ones come here. */
static void add_stack(struct collector *c, pid_t pid, const uint64_t *ips,
		      size_t n, uint64_t count)
{
	struct raw_frame fr[MAX_STACK_DEPTH + 1];
	uint32_t nf = 0;
	uint64_t lost;

	/* A leading 0: a sample in the kernel (counted unattributed.kernel
	 * already), whose user stack gives edges but no IP sample. */
	if (n > 1 && ips[0] == 0) {
		ips++;
		n--;
		fr[nf++] = (struct raw_frame){ RAW_FRAME_KERNEL, 0 };
	}
	for (size_t i = 0; i < n && i < MAX_STACK_DEPTH && (i == 0 || ips[i]); i++) {
		struct raw_frame *f = &fr[nf++];
		enum unattr_reason r = maps_resolve(&c->maps, pid, ips[i],
						    &f->obj, &f->offset);

		if (r == UNATTR_NONE)
			continue;
		*f = (struct raw_frame){ RAW_FRAME_UNKNOWN, 0 };
		if (nf == 1)	/* the leaf */
			raw_add_unattributed(&c->prof, unattr_name[r], count);
	}
	lost = raw_add_sampled_stack(&c->prof, fr, nf, count);
	if (lost)
		raw_add_counter(&c->prof, "edges.unattributed", lost);
}

static void collect_stats(struct collector *c)
{
	uint64_t sum[STAT_MAX];

	read_stats(c, sum);
	raw_add_counter(&c->prof, CNT_SAMPLES, sum[STAT_SAMPLES]);
	raw_add_counter(&c->prof, CNT_LOST, sum[STAT_STACK_LOST] +
			sum[STAT_COUNTS_FULL] + sum[STAT_RINGBUF_LOST] +
			sum[STAT_STACK_HASH]);
	raw_add_counter(&c->prof, "lost.stack_map", sum[STAT_STACK_LOST]);
	raw_add_counter(&c->prof, "lost.counts_map", sum[STAT_COUNTS_FULL]);
	raw_add_counter(&c->prof, "lost.stack_hash", sum[STAT_STACK_HASH]);
	raw_add_counter(&c->prof, "children.missed", sum[STAT_FORK_MISSED]);
	raw_add_counter(&c->prof, "samples.other_tasks", sum[STAT_OTHER_TASKS]);
	raw_add_unattributed(&c->prof, "kernel", sum[STAT_KERNEL]);
	raw_add_unattributed(&c->prof, "no_user_stack", sum[STAT_NO_USER_STACK]);
	raw_add_counter(&c->prof, "sideband.lost", c->sb.lost);
	if (c->use_cg) {
		raw_add_counter(&c->prof, "lost.ringbuf", sum[STAT_RINGBUF_LOST]);
		raw_add_counter(&c->prof, "stack_copy.top", sum[STAT_COPY_TOP]);
		raw_add_counter(&c->prof, "stack_copy.short", sum[STAT_COPY_SHORT]);
		raw_add_counter(&c->prof, "stack_copy.failed", sum[STAT_COPY_FAILED]);
		raw_add_counter(&c->prof, "stack_copy.vma_layout", sum[STAT_VMA_LAYOUT]);
		raw_add_counter(&c->prof, "ringbuf.bytes", sum[STAT_RINGBUF_BYTES]);
		raw_add_counter(&c->prof, "kernel_stacks.dropped",
				sum[STAT_RINGBUF_LOST_KERNEL]);
		raw_add_counter(&c->prof, CNT_LOST, dwarfcg_counters(&c->cg, &c->prof));
	}
	if (c->mode == MODE_LBR) {
		raw_add_counter(&c->prof, "lbr.unreadable", sum[STAT_NO_BRANCHES]);
		raw_add_counter(&c->prof, "lost.branches_map", sum[STAT_BRANCHES_FULL]);
		raw_add_counter(&c->prof, "lost.ranges_map", sum[STAT_RANGES_FULL]);
		raw_add_counter(&c->prof, "lbr.spilled", sum[STAT_LBR_SPILLED]);
	}
}

static void add_unwound(void *arg, pid_t pid, const uint64_t *ips, size_t n,
			uint64_t count)
{
	add_stack(arg, pid, ips, n, count);
}

/* fp stacks: each (process, hash) of fp_counts with the frames that came
 * through fp_stacks; a count whose frames never came (the ring or the
 * table was full) is lost, all of it (lost.stack_frames). */
static void collect_fp_stacks(struct collector *c)
{
	int fd = bpf_map__fd(c->skel->maps.fp_counts);
	struct fp_key key, next, *prev = NULL;
	struct fp_val v;
	uint64_t unsent = 0;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		const uint64_t *ips;
		uint32_t n;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue;
		ips = fpstacks_find(&c->fps, key.pid, key.hash, &n);
		if (!ips) {
			unsent += v.count;
			continue;
		}
		add_stack(c, (pid_t)key.pid, ips, n, v.count);
	}
	raw_add_counter(&c->prof, CNT_LOST, unsent);
	raw_add_counter(&c->prof, "lost.stack_frames", unsent);
}

static void collect_stacks(struct collector *c)
{
	if (c->use_cg) {
		stacktab_each(&c->cg.tab, add_unwound, c);
		return;
	}
	if (!c->legacy_fp) {
		collect_fp_stacks(c);
		return;
	}
	int cfd = bpf_map__fd(c->skel->maps.counts);
	int sfd = bpf_map__fd(c->skel->maps.stacks);
	struct sample_key key, next, *prev = NULL;
	uint64_t ips[MAX_STACK_DEPTH], count;

	while (!bpf_map_get_next_key(cfd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(cfd, &key, &count))
			continue;
		memset(ips, 0, sizeof(ips));
		if (bpf_map_lookup_elem(sfd, &key.user_stack_id, ips)) {
			raw_add_counter(&c->prof, CNT_LOST, count);
			raw_add_counter(&c->prof, "lost.stack_map", count);
			continue;
		}
		add_stack(c, (pid_t)key.pid, ips, MAX_STACK_DEPTH, count);
	}
}

/* fp stacks: a new stack's frames, kept until the end. */
static int on_fp_stack(void *ctx, void *data, size_t size)
{
	struct collector *c = ctx;

	fpstacks_add(&c->fps, data, size);
	return 0;
}

/* The spill ring is read every round so that it does not fill; its
 * records are resolved at the end with the maps' (mappings are kept). */
static int on_spill(void *ctx, void *data, size_t size)
{
	struct collector *c = ctx;

	if (size < sizeof(struct lbr_spill))
		return 0;
	grow(&c->spilled, &c->cap_spilled, c->nspilled + 1, sizeof(*c->spilled));
	memcpy(&c->spilled[c->nspilled++], data, sizeof(struct lbr_spill));
	return 0;
}

static void collect_spilled(struct collector *c)
{
	if (c->spill_rb)
		ring_buffer__consume(c->spill_rb);
	for (size_t i = 0; i < c->nspilled; i++)
		lbr_add_spilled(&c->prof, &c->maps, &c->spilled[i]);
}

static void set_meta(struct collector *c)
{
	struct raw_profile *p = &c->prof;
	struct utsname u;
	char buf[512];
	time_t now = time(NULL);

	uname(&u);
	raw_set_meta(p, "tool", "pgoprof " PGOPROF_VERSION);
	raw_set_meta(p, "host", u.nodename);
	snprintf(buf, sizeof(buf), "%s %s %s", u.sysname, u.release, u.machine);
	raw_set_meta(p, "kernel", buf);
	/* IBS by perf's full name: without cnt_ctl=1 ibs_op counts cycles. */
	raw_set_meta(p, "event", c->event == LEV_IBS_OP ? "ibs_op/cnt_ctl=1/"
						       : ladder_event_name(c->event));
	raw_set_meta(p, "mode", c->mode == MODE_LBR ? "lbr" : "stack-fp");
	raw_set_meta(p, "signal", signal_name(c->mode == MODE_LBR ? SIGNAL_BRANCH :
					      c->mode == MODE_EXEC ? SIGNAL_EXEC : SIGNAL_TIME));
	if (c->use_cg) {
		snprintf(buf, sizeof(buf), "%s,%u",
			 c->opt.call_graph == CG_AUTO ? "auto" : "dwarf",
			 c->opt.stack_size);
		raw_set_meta(p, "call_graph", buf);
	} else {
		raw_set_meta(p, "call_graph", "fp");
	}
	if (c->opt.period || c->event == LEV_AMD_BRS || c->mode == MODE_EXEC) {
		struct perf_event_attr a;

		sampling_attr(c, &a);
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)a.sample_period);
		raw_set_meta(p, "sample_period", buf);
	} else {
		snprintf(buf, sizeof(buf), "%lu", c->opt.freq);
		raw_set_meta(p, "sample_freq", buf);
		if (c->freq_asked) {	/* limit_rate lowered it */
			snprintf(buf, sizeof(buf), "%lu", c->freq_asked);
			raw_set_meta(p, "sample_freq_requested", buf);
		}
	}
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	raw_set_meta(p, "start_time", buf);
	if (c->opt.all) {
		raw_set_meta(p, "target", "system-wide");
	} else if (c->opt.pid) {
		snprintf(buf, sizeof(buf), "pid %d", (int)c->opt.pid);
		raw_set_meta(p, "target", buf);
	} else {
		size_t n = 0;

		buf[0] = '\0';
		for (char **a = c->opt.command; *a && n < sizeof(buf) - 1; a++)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s",
					      n ? " " : "", *a);
		raw_set_meta(p, "target", buf);
	}
}

/* n bytes for a message: "64 KiB", "21.3 MiB"; returns buf (32 bytes). */
static const char *size_str(char *buf, uint64_t n)
{
	if (n < (1u << 20))
		snprintf(buf, 32, "%.4g KiB", (double)n / 1024);
	else
		snprintf(buf, 32, "%.4g MiB", (double)n / 1048576);
	return buf;
}

/* DWARF stacks: the samples dropped for want of memory, by reason, in
 * one line, with the budget's split (nothing when none was dropped). */
static void report_budget(const struct collector *c)
{
	const struct raw_profile *p = &c->prof;
	uint64_t ring = raw_get_counter(p, "lost.ringbuf");
	uint64_t queue = raw_get_counter(p, "lost.unwind_backlog");
	uint64_t table = raw_get_counter(p, "lost.unwind_table");
	uint64_t kernel = raw_get_counter(p, "kernel_stacks.dropped");

	if (!ring && !queue && !table && !kernel)
		return;
	char all[32], rb[32], qb[32], tb[32];

	fprintf(stderr, "%s: memory budget %s (--mem-budget: ring 2 x %s, unwind queue %s, stack table %s): %llu samples dropped: %llu ring full, %llu unwind queue full, %llu stack table full; and the stacks of %llu samples in the kernel\n",
		progname, size_str(all, c->opt.mem_budget), size_str(rb, c->ring),
		size_str(qb, c->cg_budget.queue_bytes),
		size_str(tb, c->cg_budget.table_bytes),
		(unsigned long long)(ring + queue + table), (unsigned long long)ring,
		(unsigned long long)queue, (unsigned long long)table,
		(unsigned long long)kernel);
}

/* How the unwinds ended, when some did not reach the outermost frame. */
static void report_unwinding(const struct collector *c)
{
	uint64_t all = 0;
	char line[512];
	size_t n = 0;

	for (int i = 0; i < UNWIND_END_MAX; i++)
		all += c->cg.ends[i];
	for (int i = 0; i < UNWIND_END_MAX && n < sizeof(line); i++)
		if (i != UNWIND_COMPLETE && c->cg.ends[i])
			n += (size_t)snprintf(line + n, sizeof(line) - n, ", %llu %s",
					      (unsigned long long)c->cg.ends[i],
					      unwind_end_name[i]);
	if (n)
		fprintf(stderr, "%s: unwound %llu stacks: %llu to the outermost frame%s (counters unwind.*)\n",
			progname, (unsigned long long)all,
			(unsigned long long)c->cg.ends[UNWIND_COMPLETE], line);
}

/* --only: what was asked for and nothing else; when it was never
 * sampled, no object at all (never every object: the option is there so
 * that the others are not shared). */
static void keep_only(struct collector *c)
{
	uint8_t *none;

	if (!raw_keep_matching(&c->prof, c->opt.only, c->opt.nonly, "--only",
			       c->opt.output))
		return;
	none = xcalloc(c->prof.nobjs ? c->prof.nobjs : 1, 1);
	raw_keep_objects(&c->prof, none);
	free(none);
	warnx("--only: the profile is written without objects");
}

/* The profile's bytes go to the writer, which has the invoking user's
 * rights (outwriter.c); standard output is the caller's already. */
static int write_output(struct collector *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if (!strcmp(c->opt.output, "-"))
		return raw_write_file(&c->prof, "-");
	f = open_memstream(&buf, &len);
	if (!f)
		return err("cannot write %s: %s", c->opt.output, strerror(errno));
	rc = raw_write(&c->prof, f);
	if (fclose(f) || rc) {
		free(buf);
		return err("cannot write %s: out of memory", c->opt.output);
	}
	rc = outwriter_commit(&c->out, buf, len);
	free(buf);
	return rc;
}

/* Why threads that ran gave no samples: each has its own period. */
static void warn_periods(const struct collector *c, double cpu)
{
	char period[64];

	if (c->opt.period && c->mode == MODE_STACK)
		snprintf(period, sizeof(period), "%.3f ms", (double)c->opt.period / 1e6);
	else if (c->opt.period)
		snprintf(period, sizeof(period), "%llu cycles", c->opt.period);
	else
		snprintf(period, sizeof(period), "1/%lu s", c->opt.freq);
	warnx("warning: process %d gave no samples of user code, though its %zu threads ran %.2f s of CPU: each thread is sampled on its own period (%s of that thread's CPU time, perf -p does the same), and none ran that long; record with -a (a period per CPU), or lower the period with -c",
	      (int)c->opt.pid, c->nthreads, cpu, period);
}

/* An empty profile is said even with -q: a CI stage would build with it. */
static void warn_empty(const struct collector *c)
{
	double cpu = c->opt.pid && c->cpu0 >= 0 ?
		     target_cpu_seconds(c->opt.pid) - c->cpu0 : -1;

	if (c->prof.nobjs)
		return;
	/* 10 ms: more than /proc's clock ticks can round up to. */
	if (c->opt.pid && c->nthreads > 1 && cpu > 0.01)
		warn_periods(c, cpu);
	else if (c->opt.pid)
		warnx("warning: process %d%s gave no samples of user code: it was idle%s",
		      (int)c->opt.pid, c->opt.children ? " and its children" : "",
		      c->opt.children ? "" : ", or its children do the work (add --children to follow the ones it has)");
	else
		warnx("warning: no samples of user code were taken in %.1f s: %s",
		      elapsed(c), c->opt.all ? "the system was idle" :
		      "the command was idle or too short for the rate (raise -F)");
}

/* What the kernel side could not do as designed, one line each: children
 * not followed (new_tasks full), stack copies made page by page because
 * the kernel's vm_area_struct is laid out otherwise (bpf/record.bpf.c). */
static void report_kernel(const struct collector *c)
{
	uint64_t missed = raw_get_counter(&c->prof, "children.missed");
	uint64_t layout = raw_get_counter(&c->prof, "stack_copy.vma_layout");

	if (missed)
		fprintf(stderr, "%s: warning: %llu new processes of the target were not followed: the kernel's table of them was full (counter children.missed)\n",
			progname, (unsigned long long)missed);
	if (layout)
		fprintf(stderr, "%s: this kernel's vm_area_struct does not start with vm_start, vm_end: %llu stack copies were made page by page, up to the first page that could not be read (counter stack_copy.vma_layout)\n",
			progname, (unsigned long long)layout);
}

static void report(const struct collector *c)
{
	const struct raw_profile *p = &c->prof;
	uint64_t taken = raw_get_counter(p, CNT_SAMPLES), unattr = 0;
	char line[1024];
	size_t n = 0;

	unattr = raw_unattributed(p, line, sizeof(line));
	n = strlen(line);
	fprintf(stderr, "%s: wrote %s: %llu samples, %llu lost, %llu unattributed%s%s%s, %zu objects, %.1f s\n",
		progname, c->opt.output, (unsigned long long)taken,
		(unsigned long long)raw_get_counter(p, CNT_LOST),
		(unsigned long long)unattr, n ? " (" : "", n ? line : "",
		n ? ")" : "", p->nobjs, elapsed(c));
	uint64_t lost = raw_get_counter(p, CNT_LOST);

	if (taken && 100.0 * (double)lost / (double)taken > LOST_WARN_PERCENT)
		fprintf(stderr, "%s: warning: %llu of %llu samples (%.1f%%) lost: %s full; record with a lower -F, or give %s\n",
			progname, (unsigned long long)lost,
			(unsigned long long)taken, 100.0 * (double)lost / (double)taken,
			c->use_cg ? "the ring buffer or the memory budget was" : "the kernel's stack maps were",
			c->use_cg ? "a bigger --mem-budget (or --ring-size)"
			: c->legacy_fp ? "a bigger --max-stacks" : "a bigger --mem-budget (or --max-stacks)");
	if (c->use_cg) {
		report_budget(c);
		report_unwinding(c);
	}
	report_kernel(c);
}

int main(int argc, char **argv)
{
	struct collector c = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	int go = -1, rc = 0;

	progname = "pgoprof-record";
	clock_gettime(CLOCK_MONOTONIC, &c.tstart);
	c.pidfd = -1;
	parse_options(argc, argv, &c.opt);
	if (c.opt.probe) {
		c.ncpus = online_cpus(&c.cpus);
		rc = probe_only(&c);
		free(c.cpus);
		return rc;
	}
	if (c.opt.verbose)
		verbose_start(&c);
	find_invoker(&c.inv);
	if (c.opt.pid && target_check(c.opt.pid))
		return 1;
	if (c.inv.set && c.opt.pid)
		check_pid_owner(&c.inv, c.opt.pid);
	if (strcmp(c.opt.output, "-") &&
	    outwriter_start(&c.out, c.opt.output, c.inv.uid, c.inv.gid, c.inv.set))
		return 1;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);	/* a closed terminal or ssh session */
	raw_init(&c.prof);
	maps_init(&c.maps, &c.prof);
	c.ncpus = online_cpus(&c.cpus);
	if (choose_mode(&c)) {
		free(c.cpus);
		outwriter_abort(&c.out);
		return 1;
	}
	c.use_cg = c.mode != MODE_LBR && c.opt.call_graph != CG_FP;
	phase(&c, "mode chosen (the ladder's probes)");
	if (c.mode == MODE_STACK && c.opt.period && c.opt.period < CPU_CLOCK_MIN_NS) {
		outwriter_abort(&c.out);
		die(2, "-c %llu: in stack mode the period is nanoseconds of cpu-clock, at least %d (the kernel's timer fires at most every 10 us)",
		    c.opt.period, CPU_CLOCK_MIN_NS);
	}
	if (c.event == LEV_IBS_OP && c.opt.period % 16) {
		outwriter_abort(&c.out);
		die(2, "-c %llu: ibs_op's period is a multiple of 16 (IBS ignores the low 4 bits of its count)",
		    c.opt.period);
	}
	if (c.opt.command)
		c.child = spawn_stopped(c.opt.command, &go);
	if (load_bpf(&c))
		goto fail;
	/* The writer has checked -o meanwhile. */
	if (strcmp(c.opt.output, "-") && outwriter_ready(&c.out))
		goto fail;
	phase(&c, "output checked");
	if (!c.opt.quiet) {
		say_rungs(&c);
		fprintf(stderr, "%s: %s\n", progname, c.why.why);
	}
	/* The loop wakes when the target ends, not at its next round. */
	if (c.child || c.opt.pid)
		c.pidfd = (int)syscall(SYS_pidfd_open, c.child ? c.child : c.opt.pid, 0);
	if (c.child)
		add_target(&c, c.child);
	if (c.opt.pid)
		add_target(&c, c.opt.pid);
	if (c.opt.children)
		find_kids(&c);
	for (size_t i = 0; i < c.nkids; i++)
		add_target(&c, c.kids[i]);
	if (sideband_open(&c.sb, c.cpus, c.ncpus))
		goto fail;
	phase(&c, "side-band open");
	scan_existing(&c);
	phase(&c, "existing mappings read");
	if (limit_rate(&c))
		goto fail;
	phase(&c, "rate decided");
	if (open_sampling(&c))
		goto fail;
	phase(&c, "sampling armed");
	if (c.opt.pid)
		c.cpu0 = target_cpu_seconds(c.opt.pid);
	if (c.mode == MODE_LBR &&
	    !(c.spill_rb = ring_buffer__new(bpf_map__fd(c.skel->maps.lbr_spill),
					    on_spill, &c, NULL))) {
		err("cannot open the branch-record spill ring: %s", strerror(errno));
		goto fail;
	}
	if (!c.use_cg && !c.legacy_fp) {
		fpstacks_init(&c.fps, c.fp_table);
		c.fp_rb = ring_buffer__new(bpf_map__fd(c.skel->maps.fp_stacks),
					   on_fp_stack, &c, NULL);
		if (!c.fp_rb) {
			err("cannot open the ring of new stacks: %s", strerror(errno));
			goto fail;
		}
	}
	if (c.use_cg && dwarfcg_open(&c.cg, bpf_map__fd(c.skel->maps.samples),
				     c.opt.call_graph == CG_AUTO ? UNWIND_AUTO : UNWIND_DWARF,
				     &c.cg_budget, &c.maps, &c.prof))
		goto fail;
	/* Everything privileged is open; files of the target are parsed
	 * (side-band build-IDs, the unwinder's ELF and CFI) only after. */
	if (drop_privileges())
		goto fail;
	set_meta(&c);
	clock_gettime(CLOCK_MONOTONIC, &c.t0);
	if (go >= 0) {
		if (write(go, "g", 1) != 1)
			die(1, "cannot start the command: %s", strerror(errno));
		close(go);
		go = -1;
		phase(&c, "command started");
	}
	if (!c.opt.quiet) {
		char rate[64], on[64];

		if (c.opt.period)
			snprintf(rate, sizeof(rate), "a sample every %llu events", c.opt.period);
		else
			snprintf(rate, sizeof(rate), "at %lu Hz", c.opt.freq);
		if (c.opt.all)
			snprintf(on, sizeof(on), "%d CPUs", c.ncpus);
		else
			snprintf(on, sizeof(on), "%zu thread%s and what %s start%s", c.nthreads,
				 c.nthreads == 1 ? "" : "s", c.nthreads == 1 ? "it" : "they",
				 c.nthreads == 1 ? "s" : "");
		fprintf(stderr, "%s: recording %s on %s%s\n", progname, rate, on,
			stop_hint(&c.opt));
	}
	if (!c.opt.quiet && c.use_cg)
		fprintf(stderr, "%s: call graph %s: %u bytes of user stack per sample, unwound here (libdw)%s\n",
			progname, c.opt.call_graph == CG_AUTO ? "auto" : "dwarf",
			c.opt.stack_size, c.opt.call_graph == CG_AUTO ?
			"; frame pointers above the leaf where the file keeps them" : "");
	run_loop(&c);
	phase(&c, "target ended or stop");
	close_sampling(&c);
	raw_add_counter(&c.prof, "duration_ms", (uint64_t)(elapsed(&c) * 1000));
	serve(&c, 0, -1);	/* the last samples and mappings, all unwound */
	if (c.use_cg)
		dwarfcg_stop(&c.cg);	/* before objects are renumbered */
	phase(&c, "last samples read");
	if (c.opt.verbose)
		verbose_first(&c);
	collect_stats(&c);
	collect_stacks(&c);
	if (c.mode == MODE_LBR) {
		lbr_collect_map(&c.prof, &c.maps, bpf_map__fd(c.skel->maps.branches), 0);
		lbr_collect_map(&c.prof, &c.maps, bpf_map__fd(c.skel->maps.ranges), 1);
		collect_spilled(&c);
	}
	raw_drop_empty_objects(&c.prof);
	if (c.opt.nonly)
		keep_only(&c);
	if (c.opt.strip_paths)
		raw_strip_paths(&c.prof);
	phase(&c, "stacks collected");
	if (write_output(&c))
		rc = 1;
	phase(&c, "profile written");
	if (!rc && !c.opt.quiet)
		report(&c);
	if (!rc)
		warn_empty(&c);
	goto out;
fail:
	rc = 1;
	if (go >= 0)
		close(go);	/* the command exits 127 without running */
out:
	outwriter_abort(&c.out);
	close_sampling(&c);
	if (c.use_cg)
		dwarfcg_free(&c.cg);
	sideband_close(&c.sb);
	ring_buffer__free(c.spill_rb);
	ring_buffer__free(c.fp_rb);
	fpstacks_free(&c.fps);
	free(c.spilled);
	if (c.pidfd >= 0)
		close(c.pidfd);
	record_bpf__destroy(c.skel);
	if (c.child) {
		/* Forward the stop to the command and wait, so that the shell
		 * gets its status. */
		if (stop_signal)
			kill(c.child, stop_signal);
		waitpid(c.child, &c.child_status, 0);
	}
	maps_free(&c.maps);
	raw_free(&c.prof);
	for (int i = 0; i < c.opt.nonly; i++)
		free(c.opt.only[i]);
	free(c.opt.only);
	free(c.cpus);
	free(c.kids);
	phase(&c, "done");
	/* Like time(1): a failed training run must fail the CI stage, even
	 * though its samples were written. */
	if (!rc && c.opt.command && WIFEXITED(c.child_status) &&
	    WEXITSTATUS(c.child_status)) {
		warnx("the command exited with status %d (its profile was written)",
		      WEXITSTATUS(c.child_status));
		rc = WEXITSTATUS(c.child_status);
	} else if (!rc && c.opt.command && WIFSIGNALED(c.child_status) &&
		   !stop_signal) {
		warnx("the command was killed by signal %d (its profile was written)",
		      WTERMSIG(c.child_status));
		rc = 128 + WTERMSIG(c.child_status);
	}
	return rc;
}
