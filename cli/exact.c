/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof record --exact: run a command under valgrind's callgrind and
 * write the exact count of every instruction and call it made as a raw
 * profile (import/callgrind.h).  Unprivileged: no BPF, no perf events;
 * through sudo, all of it runs as the invoking user (docs/threat-model.md,
 * "pgoprof record --exact"). */
#include "cmds.h"
#include "../import/callgrind.h"
#include "../lib/sudo.h"
#include "../lib/util.h"
#include "../raw/rawprof.h"
#include "../version.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_SECONDS 30

struct exact {
	const char *out, *keep, *valgrind;
	char **command;
	int quiet;
	char dir[4096];		/* where callgrind writes: new, ours */
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: pgoprof record --exact [-o RAW] [-q] [--callgrind-out DIR]\n"
"                              [--valgrind PROG] -- COMMAND [ARGS...]\n\n"
"Run COMMAND, and every process it starts, under valgrind's callgrind and\n"
"write the exact execution count of every instruction and of every call as\n"
"a raw profile (mode exact-counts): no sampling, no PMU, no privileges, and\n"
"the same profile from the same binary, input and environment.  It costs\n"
"20 to 100 times the command's own run time.  Binaries built by clang 16\n"
"need -gdwarf-4 for valgrind 3.19 (the code is the same).\n\n"
"  -o, --output RAW         the raw profile (default pgoprof.raw; atomically)\n"
"      --callgrind-out DIR  keep callgrind's files (callgrind.out.PID) in a new\n"
"                           directory DIR/pgoprof-exact.XXXXXX\n"
"      --valgrind PROG      the valgrind to run (default: valgrind in PATH)\n"
"  -q, --quiet              no progress and no summary\n\n"
"Exit status: 0 written; 1 error; 2 usage; else COMMAND's own failure\n"
"(its status, or 128 + signal), with the profile written all the same.\n");
}

static int parse_args(struct exact *e, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "exact", no_argument, NULL, 'E' },
		{ "output", required_argument, NULL, 'o' },
		{ "callgrind-out", required_argument, NULL, 'C' },
		{ "valgrind", required_argument, NULL, 'V' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int o;

	e->out = "pgoprof.raw";
	e->valgrind = "valgrind";
	while ((o = getopt_long(argc, argv, "+o:qh", longopts, NULL)) != -1) {
		switch (o) {
		case 'E': break;
		case 'o': e->out = optarg; break;
		case 'C': e->keep = optarg; break;
		case 'V': e->valgrind = optarg; break;
		case 'q': e->quiet = 1; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		err("--exact: give the command to run, after --");
		usage(stderr);
		return 2;
	}
	e->command = argv + optind;
	return 0;
}

/* A new directory for callgrind's files, ours alone (mkdtemp: mode
 * 0700), in --callgrind-out DIR (made if missing), else in $TMPDIR or
 * /tmp.  Everything in it is read: so only what this run's processes
 * wrote is there, not a file another user planted in a shared DIR nor
 * one of an earlier run. */
static int make_dir(struct exact *e)
{
	const char *tmp = getenv("TMPDIR");
	const char *base = e->keep ? e->keep : tmp && *tmp ? tmp : "/tmp";

	if (e->keep && mkdir(e->keep, 0700) && errno != EEXIST)
		return err("--callgrind-out %s: %s", e->keep, strerror(errno));
	snprintf(e->dir, sizeof(e->dir), "%s/pgoprof-exact.XXXXXX", base);
	if (!mkdtemp(e->dir))
		return err("cannot make a directory for callgrind's files (%s): %s",
			   e->dir, strerror(errno));
	return 0;
}

static void run_valgrind(const struct exact *e)
{
	char out[4200], log[4200];
	char *args[16 + 1024];
	int n = 0;

	snprintf(out, sizeof(out), "--callgrind-out-file=%s/callgrind.out.%%p", e->dir);
	snprintf(log, sizeof(log), "--log-file=%s/valgrind.%%p.log", e->dir);
	args[n++] = (char *)e->valgrind;
	args[n++] = "--tool=callgrind";
	args[n++] = "--dump-instr=yes";	/* a count per instruction */
	args[n++] = "--dump-line=no";	/* lines are pgoprof's business */
	args[n++] = "--skip-plt=no";	/* else a call via the PLT counts twice */
	args[n++] = "--trace-children=yes";
	args[n++] = out;
	args[n++] = log;
	args[n++] = "--";	/* a COMMAND "-..." is no valgrind option */
	for (char **a = e->command; *a && n < (int)ARRAY_SIZE(args) - 1; a++)
		args[n++] = *a;
	args[n] = NULL;
	execvp(args[0], args);
	fprintf(stderr, "%s: cannot run %s: %s (install Debian's valgrind package, or give --valgrind PROG)\n",
		progname, e->valgrind, strerror(errno));
	_exit(127);
}

/* Run the command; its exit status as record's (128 + signal). */
static int run(const struct exact *e)
{
	time_t start = time(NULL), said = start;
	struct sigaction ign = { .sa_handler = SIG_IGN }, oint, oquit;
	int status = 0;
	pid_t pid;

	/* As system(3): the terminal's ^C reaches the command, which ends
	 * and has its counts written; pgoprof waits for that. */
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	pid = fork();
	if (pid == 0) {
		sigaction(SIGINT, &oint, NULL);
		sigaction(SIGQUIT, &oquit, NULL);
		run_valgrind(e);
	}
	if (pid < 0)
		return err("fork: %s", strerror(errno)), 1;
	if (!e->quiet)
		fprintf(stderr, "%s: running %s under callgrind: 20-100x slower than natively\n",
			progname, e->command[0]);
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return err("waiting for %s: %s", e->valgrind, strerror(errno)), 1;
		nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
		if (!e->quiet && time(NULL) - said >= PROGRESS_SECONDS) {
			said = time(NULL);
			fprintf(stderr, "%s: ... %lld s\n", progname,
				(long long)(said - start));
		}
	}
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int callgrind_file(const struct dirent *d)
{
	return !strncmp(d->d_name, "callgrind.out.", 14);
}

static int log_file(const struct dirent *d)
{
	return !strncmp(d->d_name, "valgrind.", 9);
}

/* valgrind's messages: say the first fatal one, with its log file's
 * name; a debuginfo reader that gave up is clang's DWARF 5, named so. */
static void report_logs(const struct exact *e)
{
	struct dirent **v;
	int n = scandir(e->dir, &v, log_file, alphasort);

	for (int i = 0; i < n; i++) {
		char path[8192], line[1024], image[1024] = "";
		int dwarf = 0, fatal = 0;
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", e->dir, v[i]->d_name);
		if ((f = fopen(path, "re"))) {
			while (fgets(line, sizeof(line), f)) {
				char *q = strchr(line, '"');

				if (q && strstr(line, "=="))
					snprintf(image, sizeof(image), "%s", q);
				dwarf |= !!strstr(line, "Possibly corrupted debuginfo");
				fatal |= !!strstr(line, "Giving up") || !!strstr(line, "FATAL");
			}
			fclose(f);
		}
		image[strcspn(image, "\n")] = '\0';
		if (dwarf)
			err("valgrind cannot read the debug info of %s (valgrind 3.19 and clang's DWARF 5): build it with -gdwarf-4 for the exact run (the code is the same), or strip it (objcopy --strip-debug keeps its build-ID and offsets)",
			    image[0] ? image : "a binary");
		else if (fatal)
			err("valgrind stopped; its messages are in %s", path);
		free(v[i]);
	}
	if (n > 0)
		free(v);
}

/* Every process's callgrind file into p.  Returns how many, or -1. */
static int import_all(const struct exact *e, struct raw_profile *p)
{
	struct callgrind *cg = callgrind_new(p);
	struct dirent **v;
	int n = scandir(e->dir, &v, callgrind_file, alphasort), rc = 0;

	if (n < 0)
		rc = err("cannot read %s: %s", e->dir, strerror(errno));
	for (int i = 0; i < n; i++) {
		char path[8192];
		size_t len;
		uint8_t *buf;

		snprintf(path, sizeof(path), "%s/%s", e->dir, v[i]->d_name);
		buf = rc ? NULL : read_whole_file(path, &len);
		if (!rc && (!buf || callgrind_add(cg, buf, len, path)))
			rc = -1;
		free(buf);
		free(v[i]);
	}
	if (n > 0)
		free(v);
	callgrind_finish(cg);
	return rc ? -1 : n;
}

/* Remove the files callgrind and valgrind wrote, and the directory. */
static void remove_dir(const struct exact *e)
{
	DIR *d = opendir(e->dir);
	struct dirent *de;

	while (d && (de = readdir(d)))
		if (callgrind_file(de) || log_file(de))
			unlinkat(dirfd(d), de->d_name, 0);
	if (d)
		closedir(d);
	rmdir(e->dir);
}

static void set_meta(const struct exact *e, struct raw_profile *p)
{
	char buf[512];
	size_t n = 0;

	buf[0] = '\0';
	for (char **a = e->command; *a && n < sizeof(buf) - 1; a++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? " " : "", *a);
	raw_set_meta(p, "target", buf);
	raw_set_meta(p, "tool", "pgoprof " PGOPROF_VERSION);
}

/* The profile into o (opened before the run, so that an output that
 * cannot be written fails before a long run, not after). */
void exact_report(const char *out, const struct raw_profile *p)
{
	uint64_t n = raw_get_counter(p, "processes");

	fprintf(stderr, "%s: wrote %s: %llu instructions of %llu process%s, %zu objects (mode exact-counts)\n",
		progname, out, (unsigned long long)raw_get_counter(p, "instructions"),
		(unsigned long long)n, n == 1 ? "" : "es", p->nobjs);
}

static int write_profile(const struct exact *e, struct raw_profile *p,
			 struct outfile *o)
{
	set_meta(e, p);
	raw_drop_empty_objects(p);
	if (raw_write(p, o->f))
		return outfile_fail(o);
	if (outfile_commit(o))
		return -1;
	if (!e->quiet)
		exact_report(e->out, p);
	return 0;
}

/* Through sudo, become the invoking user before anything is run or
 * written: --exact needs no privilege, and as root it would run the
 * command as root and write -o where the user may not (a sudoers rule
 * for "pgoprof record" would allow "--exact -o /etc/passwd"). */
static int drop_to_invoker(void)
{
	uid_t uid;
	gid_t gid;
	int r = sudo_invoker(&uid, &gid);

	return r <= 0 ? r : become_user(uid, gid);
}

int cmd_record_exact(int argc, char **argv)
{
	struct exact e = { 0 };
	struct raw_profile p;
	struct outfile o;
	int status, nfiles, rc;

	if ((rc = parse_args(&e, argc, argv)))
		return rc;
	if (drop_to_invoker())
		return 1;
	if (!strcmp(e.out, "-"))
		return err("-o -: give a file; the command's own output goes to standard output"), 2;
	if (outfile_open(&o, e.out))
		return 1;
	if (make_dir(&e)) {
		outfile_abort(&o);
		return 1;
	}
	status = run(&e);
	raw_init(&p);
	nfiles = import_all(&e, &p);
	if (nfiles <= 0) {
		report_logs(&e);
		if (!nfiles)
			err("callgrind wrote no profile");
		outfile_abort(&o);
	}
	rc = nfiles > 0 ? write_profile(&e, &p, &o) : -1;
	if (!e.keep)
		remove_dir(&e);
	else		/* even with -q: its name is new */
		fprintf(stderr, "%s: callgrind's files are in %s\n", progname, e.dir);
	raw_free(&p);
	if (rc)
		return status && status != 1 ? status : 1;
	if (status)
		fprintf(stderr, "%s: the command exited with status %d (its profile was written)\n",
			progname, status);
	return status;
}
