/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof-record's state and the functions its files share: internal to
 * the program (main.c and the files of its phases, layers.mk RECORD_MAIN),
 * not part of the collector's library.  The phases, in the order main()
 * runs them:
 *   options.c   the command line (struct options)
 *   launch.c    whose rights (the invoker), the output's writer begun, the
 *               command spawned stopped, the targets followed, the stop
 *               signals and the command's exit status
 *   events.c    the mode (the ladder), the rate, the sampling events
 *   bpfload.c   the BPF object: which programs and maps, the maps' sizes
 *               within --mem-budget, the load
 *   collect.c   the loop that reads the rings and the side-band, then the
 *               kernel's counts and stacks taken into the profile
 *   summary.c   the profile's metadata and filters, the file written, the
 *               lines on stderr
 *   main.c      main(): the phases, -v's phase lines, the teardown */
#ifndef PGOPROF_COLLECTOR_H
#define PGOPROF_COLLECTOR_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <linux/types.h>
#include "../bpf/record.h"
#include "dwarfcg.h"
#include "fpstacks.h"
#include "outwriter.h"
#include "probe.h"
#include "sideband.h"
#include "../proc/mappings.h"
#include "../raw/rawprof.h"

struct bpf_link;
struct bpf_program;
struct perf_event_attr;
struct record_bpf;
struct ring_buffer;

/* --call-graph: how user stacks are walked in stack mode. */
enum call_graph { CG_AUTO, CG_FP, CG_DWARF };

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
	int go;			/* the stopped command's start: write a byte
				 * (spawn_stopped); -1 once started */
	pid_t *kids;		/* --children: -p's descendants at the start */
	size_t nkids;
	struct timespec t0;	/* the recording's start (the command's go) */
	struct timespec tstart;	/* main() entered, for -v */
	int pidfd;		/* the command or -p PID: readable when it ends */
};

/* main.c */
/* -v: one line on stderr, what ended and when (ms since main()). */
void phase(const struct collector *c, const char *what);

/* options.c */
/* The command line into *o; exits 0 after -h or --version, 2 after a
 * message on bad usage.  o->only is malloc'd (free_options). */
void parse_options(int argc, char **argv, struct options *o);
void free_options(struct options *o);

/* launch.c */
/* The signal that asked to stop (SIGINT, SIGTERM, SIGHUP), 0 if none. */
extern volatile sig_atomic_t stop_signal;
/* The invoker, -p's process checked, the output's writer started, the stop
 * signals caught.  0, or -1 after a message (exits on a malformed
 * SUDO_UID or another user's -p). */
int check_launch(struct collector *c);
/* Fork the command stopped before exec; writing a byte to *go starts it,
 * closing *go without writing makes it exit 127.  Exits 1 on failure. */
pid_t spawn_stopped(char **argv, int *go);
/* The writer's check of -o, then the ladder's lines.  0, or -1. */
int output_ready(struct collector *c);
/* The targets in the BPF targets map, the side-band open and the
 * mappings that exist read.  0, or -1 after a message. */
int follow_targets(struct collector *c);
/* Let the stopped command run (exits 1 when it cannot). */
void start_command(struct collector *c);
/* Forward a stop to the command and wait for it. */
void reap_command(struct collector *c);
/* main()'s status: rc, else the command's failure, as time(1). */
int exit_status(const struct collector *c, int rc);

/* events.c */
/* --probe: the mode auto takes on stdout; main()'s status. */
int probe_only(struct collector *c);
/* The online CPUs, the mode and event (the ladder's probes), -c checked
 * against them.  0, or -1 after a message (the writer stopped); exits 2
 * when -c does not fit the event. */
int choose_sampling(struct collector *c);
/* The ladder's lines and its choice, on stderr. */
void say_ladder(const struct collector *c);
/* The perf_event_attr of the sampling event at the rate decided. */
void sampling_attr(const struct collector *c, struct perf_event_attr *a);
/* The rate limited (stack mode) and the sampling events opened with the
 * BPF program attached.  0, or -1 after a message. */
int open_events(struct collector *c);
/* The sampling events detached and closed; safe when none is open. */
void close_sampling(struct collector *c);

/* bpfload.c */
/* The skeleton sized, loaded and its fork tracepoint attached.  0, or -1
 * after a message. */
int load_bpf(struct collector *c);
/* The program attached to the sampling events. */
struct bpf_program *sampling_prog(const struct collector *c);

/* collect.c */
/* Seconds since the recording started (c->t0). */
double elapsed(const struct collector *c);
/* The rings read while recording.  0, or -1 after a message. */
int open_readers(struct collector *c);
/* The metadata, the command started, the recording line. */
void start_recording(struct collector *c);
/* The loop until the target ends or a stop, then the last samples and
 * the kernel's maps into c->prof. */
void collect(struct collector *c);

/* summary.c */
/* META of the run (docs/raw-format.md): the host, the sampling, the
 * start, the target. */
void set_meta(struct collector *c);
/* Unless -q: the rate and the targets, and the call graph's way. */
void say_recording(const struct collector *c);
/* The profile filtered, written and summed up: 0, or 1 when it could not
 * be written. */
int write_profile(struct collector *c);

#endif
