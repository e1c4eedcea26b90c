/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof record --exact: run a command under an exact-count engine and
 * write the exact count of every instruction and call it made as a raw
 * profile: qemu-user with pgoprof's plugin (qemu/count.c,
 * import/qemucount.h), about 2-10x the native run, else valgrind's
 * callgrind (import/callgrind.h), 20-100x.  Unprivileged: no BPF, no perf
 * events; through sudo, all of it runs as the invoking user
 * (docs/threat-model.md, "pgoprof record --exact"). */
#include "cmds.h"
#include "../import/callgrind.h"
#include "../import/qemucount.h"
#include "../lib/sudo.h"
#include "../lib/util.h"
#include "../raw/rawprof.h"
#include "../version.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_SECONDS 30

#define STARTED "started"	/* made by the trampoline under QEMU */
#define PLUGIN "pgoprof-count.so"

enum engine { ENGINE_AUTO, ENGINE_QEMU, ENGINE_CALLGRIND };

struct exact {
	const char *out, *keep, *valgrind, *qemu;
	char **command;
	int quiet, print_engine;
	double native;		/* --native-time: the command's own seconds */
	enum engine engine;	/* asked for; then the one taken */
	char qemu_path[PATH_MAX], plugin[PATH_MAX];
	char dir[4096];		/* where the engine writes: new, ours */
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: pgoprof record --exact [-o RAW] [-q] [--engine auto|qemu|callgrind]\n"
"                              [--keep-counts DIR] [--qemu PROG]\n"
"                              [--valgrind PROG] -- COMMAND [ARGS...]\n\n"
"Run COMMAND, and every process it starts, under an exact-count engine and\n"
"write the exact execution count of every instruction and of every call as\n"
"a raw profile (mode exact-counts): no sampling, no PMU, no privileges, and\n"
"the same profile from the same binary, input and environment.\n\n"
"Engines (--engine auto takes the first that runs here, and says which):\n"
"  qemu       qemu-user (Debian: apt install qemu-user) with pgoprof's plugin\n"
"             " PLUGIN ": about 2 to 10 times the command's native run time;\n"
"             x86_64 and aarch64 programs of the machine's own architecture\n"
"  callgrind  valgrind's callgrind: 20 to 100 times; binaries built by\n"
"             clang 16 need -gdwarf-4 for valgrind 3.19 (the code is the same)\n\n"
"  -o, --output RAW         the raw profile (default pgoprof.raw; atomically)\n"
"      --engine E           auto (default), qemu or callgrind\n"
"      --keep-counts DIR    keep the engine's files (count.PID.N, or\n"
"                           callgrind.out.PID) in a new directory\n"
"                           DIR/pgoprof-exact.XXXXXX (--callgrind-out DIR too)\n"
"      --qemu PROG          the qemu-user to run (default qemu-ARCH in PATH)\n"
"      --valgrind PROG      the valgrind to run (default: valgrind in PATH)\n"
"      --native-time S      the command runs S seconds natively: the\n"
"                           progress lines then say how long to expect\n"
"      --print-engine       print the engine that would run (qemu or\n"
"                           callgrind) and exit: 1 when none can\n"
"  -q, --quiet              no progress and no summary\n\n"
"Exit status: 0 written; 1 error; 2 usage; else COMMAND's own failure\n"
"(its status, or 128 + signal), with the profile written all the same.\n");
}

/* --engine's words, in enum engine's order. */
static const char *const engine_names[] = { "auto", "qemu", "callgrind", NULL };

static int parse_args(struct exact *e, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "exact", no_argument, NULL, 'E' },
		{ "output", required_argument, NULL, 'o' },
		{ "engine", required_argument, NULL, 'e' },
		{ "keep-counts", required_argument, NULL, 'C' },
		{ "callgrind-out", required_argument, NULL, 'C' },
		{ "qemu", required_argument, NULL, 'Q' },
		{ "valgrind", required_argument, NULL, 'V' },
		{ "print-engine", no_argument, NULL, 'P' },
		{ "native-time", required_argument, NULL, 'N' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int o, rc;

	e->out = "pgoprof.raw";
	e->valgrind = "valgrind";
	while ((o = getopt_long(argc, argv, "+o:qh", longopts, NULL)) != -1) {
		switch (o) {
		case 'E': break;
		case 'o': e->out = optarg; break;
		case 'e':
			if ((rc = cmd_choice("engine", optarg, engine_names)) < 0)
				return CMD_USAGE;
			e->engine = (enum engine)rc;
			break;
		case 'C': e->keep = optarg; break;
		case 'Q': e->qemu = optarg; break;
		case 'V': e->valgrind = optarg; break;
		case 'P': e->print_engine = 1; break;
		case 'N': {
			char *end;

			e->native = strtod(optarg, &end);
			if (*end || !(e->native > 0) || e->native > 1e7)
				return err("--native-time %s: give the command's native run time in seconds", optarg), 2;
			break;
		}
		case 'q': e->quiet = 1; break;
		case 'h': return cmd_usage(usage, CMD_HELP);
		default: return cmd_usage(usage, CMD_USAGE);
		}
	}
	if (optind >= argc && !e->print_engine) {
		err("--exact: give the command to run, after --");
		return cmd_usage(usage, CMD_USAGE);
	}
	e->command = argv + optind;
	return CMD_GO_ON;
}

/* name as execvp(3) finds it (PATH, or a name with a '/'), in out. */
static int find_program(const char *name, char *out, size_t size)
{
	const char *path = getenv("PATH");
	char dir[PATH_MAX];

	if (strchr(name, '/')) {
		snprintf(out, size, "%s", name);
		return access(out, X_OK);
	}
	for (const char *s = path ? path : "/usr/bin:/bin"; ; s++) {
		size_t n = strcspn(s, ":");

		snprintf(dir, sizeof(dir), "%.*s", (int)n, n ? s : ".");
		if ((size_t)snprintf(out, size, "%s/%s", dir, name) < size &&
		    !access(out, X_OK))
			return 0;
		s += n;
		if (!*s)
			return -1;
	}
}

/* The plugin: beside this executable (the build tree), else in
 * ../lib/pgoprof (make install).  0 or -1. */
static int find_plugin(char *out, size_t size)
{
	char dir[PATH_MAX];
	const char *where[] = { "%s/" PLUGIN, "%s/../lib/pgoprof/" PLUGIN };

	if (exe_dir(dir, sizeof(dir)))
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(where); i++) {
		if ((size_t)snprintf(out, size, where[i], dir) < size &&
		    !access(out, R_OK))
			return 0;
	}
	return -1;
}

/* Why the qemu engine cannot run here ("" if it can): its program and
 * plugin found.  The reason names the fix. */
static const char *qemu_missing(struct exact *e, char *why, size_t size)
{
	struct utsname u;
	char name[128];

	if (uname(&u))
		snprintf(u.machine, sizeof(u.machine), "unknown");
	snprintf(name, sizeof(name), "qemu-%s", u.machine);
	if (!e->qemu && strcmp(u.machine, "x86_64") && strcmp(u.machine, "aarch64"))
		snprintf(why, size, "pgoprof's plugin counts x86_64 and aarch64 programs, not %s",
			 u.machine);
	else if (find_program(e->qemu ? e->qemu : name, e->qemu_path, sizeof(e->qemu_path)))
		snprintf(why, size, "%s is not installed (Debian: apt install qemu-user)",
			 e->qemu ? e->qemu : name);
	else if (find_plugin(e->plugin, sizeof(e->plugin)))
		snprintf(why, size, "its plugin %s is not beside pgoprof nor in ../lib/pgoprof (make install)",
			 PLUGIN);
	else
		why[0] = '\0';
	return why;
}

/* The engine: the one asked for, or auto's first that runs here; one
 * line says which and why.  0, or -1 when the one asked for cannot run. */
static int choose_engine(struct exact *e)
{
	char why[512];

	if (e->engine == ENGINE_CALLGRIND)
		return 0;
	if (*qemu_missing(e, why, sizeof(why))) {
		if (e->engine == ENGINE_QEMU)
			return err("--engine qemu: %s", why);
		e->engine = ENGINE_CALLGRIND;
		if (!e->quiet)
			fprintf(stderr, "%s: exact counts by callgrind (20-100x the native run): the qemu engine cannot run: %s\n",
				progname, why);
		return 0;
	}
	e->engine = ENGINE_QEMU;
	return 0;
}

/* A new directory for the engine's files, ours alone (mkdtemp: mode
 * 0700), in --keep-counts DIR (made if missing), else in $TMPDIR or
 * /tmp.  Everything in it is read: so only what this run's processes
 * wrote is there, not a file another user planted in a shared DIR nor
 * one of an earlier run. */
static int make_dir(struct exact *e)
{
	const char *tmp = getenv("TMPDIR");
	const char *base = e->keep ? e->keep : tmp && *tmp ? tmp : "/tmp";

	if (e->keep && mkdir(e->keep, 0700) && errno != EEXIST)
		return err("--keep-counts %s: %s", e->keep, strerror(errno));
	snprintf(e->dir, sizeof(e->dir), "%s/pgoprof-exact.XXXXXX", base);
	if (!mkdtemp(e->dir))
		return err("cannot make a directory for the counts (%s): %s",
			   e->dir, strerror(errno));
	/* QEMU splits a plugin's arguments at commas. */
	if (e->engine == ENGINE_QEMU && strchr(e->dir, ','))
		return err("%s: the qemu engine cannot take a directory with a comma in its name: give --keep-counts DIR or TMPDIR without one",
			   e->dir);
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

/* QEMU runs /bin/sh as a trampoline, whose image the plugin does not
 * count (skip=1): it says that the engine started (a plugin QEMU cannot
 * load stops QEMU before), then execs the command, so the command is
 * found on PATH, and a script run by its interpreter, as natively, by
 * the plugin's following of execve.  A shell, not pgoprof: it starts in
 * a millisecond, and a pgoprof built with ASan would not run under
 * QEMU. */
static void run_qemu(const struct exact *e)
{
	char spec[PATH_MAX + 4200];
	char *args[16 + 1024];
	int n = 0;

	snprintf(spec, sizeof(spec), "%s,dir=%s,skip=1", e->plugin, e->dir);
	args[n++] = (char *)e->qemu_path;
	args[n++] = "-plugin";
	args[n++] = spec;
	args[n++] = "--";
	args[n++] = "/bin/sh";
	args[n++] = "-c";
	args[n++] = ": >\"$PGOPROF_EXACT_DIR/" STARTED "\" && unset PGOPROF_EXACT_DIR && exec \"$@\"";
	args[n++] = "pgoprof record --exact";	/* $0: names its messages */
	setenv("PGOPROF_EXACT_DIR", e->dir, 1);
	for (char **a = e->command; *a && n < (int)ARRAY_SIZE(args) - 1; a++)
		args[n++] = *a;
	args[n] = NULL;
	execv(args[0], args);
	fprintf(stderr, "%s: cannot run %s: %s\n", progname, e->qemu_path, strerror(errno));
	_exit(127);
}

/* --print-engine: for pgo.mk, which builds for callgrind with DWARF 4. */
static int print_engine(const struct exact *e)
{
	char path[PATH_MAX];

	if (e->engine == ENGINE_CALLGRIND && find_program(e->valgrind, path, sizeof(path)))
		return err("no engine: %s is not installed either (Debian: apt install qemu-user or valgrind)",
			   e->valgrind), 1;
	puts(e->engine == ENGINE_QEMU ? "qemu" : "callgrind");
	return 0;
}

static const char *engine_name(const struct exact *e)
{
	return e->engine == ENGINE_QEMU ? "qemu-user" : "callgrind";
}

/* Each engine's slowdown against the native run, CPU time (docs/exact.md;
 * bench/results/exact-engine.md: qemu 2.5-9.5x, callgrind 9.8-53x). */
static const double slow_lo[] = { [ENGINE_QEMU] = 2, [ENGINE_CALLGRIND] = 20 };
static const double slow_hi[] = { [ENGINE_QEMU] = 10, [ENGINE_CALLGRIND] = 100 };

/* ", about A-B s in all" from --native-time and the engine's slowdown,
 * or "". */
static const char *expect(const struct exact *e, char *buf, size_t size)
{
	double lo = slow_lo[e->engine], hi = slow_hi[e->engine];

	if (!(e->native > 0))
		return "";
	snprintf(buf, size, " (about %.3g-%.3g s in all for %g s natively)",
		 lo * e->native, hi * e->native, e->native);
	return buf;
}

/* Run the command; its exit status as record's (128 + signal). */
static int run(const struct exact *e)
{
	char buf[128];
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
		if (e->engine == ENGINE_QEMU)
			run_qemu(e);
		run_valgrind(e);
	}
	if (pid < 0)
		return err("fork: %s", strerror(errno)), 1;
	if (!e->quiet)
		fprintf(stderr, "%s: running %s under %s: %g-%gx slower than natively%s\n",
			progname, e->command[0], engine_name(e), slow_lo[e->engine],
			slow_hi[e->engine], expect(e, buf, sizeof(buf)));
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return err("waiting for %s: %s", engine_name(e), strerror(errno)), 1;
		nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
		if (!e->quiet && time(NULL) - said >= PROGRESS_SECONDS) {
			said = time(NULL);
			fprintf(stderr, "%s: ... %lld s%s\n", progname,
				(long long)(said - start), expect(e, buf, sizeof(buf)));
		}
	}
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* 1 if the trampoline ran under QEMU: the plugin was loaded. */
static int engine_started(const struct exact *e)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/" STARTED, e->dir);
	return !access(path, F_OK);
}

static int count_file(const struct dirent *d)
{
	return qemucount_is_file(d->d_name);
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

/* Every process's file of the engine into p.  Returns how many, or -1. */
static int import_all(const struct exact *e, struct raw_profile *p)
{
	int qemu = e->engine == ENGINE_QEMU;
	struct callgrind *cg = qemu ? NULL : callgrind_new(p);
	struct qemucount *qc = qemu ? qemucount_new(p) : NULL;
	struct dirent **v;
	int n = scandir(e->dir, &v, qemu ? count_file : callgrind_file, alphasort), rc = 0;

	if (n < 0)
		rc = err("cannot read %s: %s", e->dir, strerror(errno));
	for (int i = 0; i < n; i++) {
		char path[8192];
		size_t len;
		uint8_t *buf;

		snprintf(path, sizeof(path), "%s/%s", e->dir, v[i]->d_name);
		buf = rc ? NULL : read_whole_file(path, &len);
		if (!rc && (!buf || (qemu ? qemucount_add(qc, buf, len, path)
					  : callgrind_add(cg, buf, len, path))))
			rc = -1;
		free(buf);
		free(v[i]);
	}
	if (n > 0)
		free(v);
	if (qemu)
		qemucount_finish(qc);
	else
		callgrind_finish(cg);
	return rc ? -1 : n;
}

/* Remove the files the engine wrote, and the directory. */
static void remove_dir(const struct exact *e)
{
	DIR *d = opendir(e->dir);
	struct dirent *de;

	while (d && (de = readdir(d)))
		if (callgrind_file(de) || log_file(de) || count_file(de) ||
		    !strcmp(de->d_name, STARTED))
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
	if (e->engine == ENGINE_QEMU)
		raw_set_meta(p, "recorder", "qemu-user+" PLUGIN);
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
	enum engine asked;

	if ((rc = parse_args(&e, argc, argv)) != CMD_GO_ON)
		return rc;
	asked = e.engine;
	if (drop_to_invoker() || choose_engine(&e))
		return 1;
	if (e.print_engine)
		return print_engine(&e);
	if (!strcmp(e.out, "-"))
		return err("-o -: give a file; the command's own output goes to standard output"), 2;
	if (outfile_open(&o, e.out))
		return 1;
	if (make_dir(&e)) {
		outfile_abort(&o);
		return 1;
	}
	status = run(&e);
	if (e.engine == ENGINE_QEMU && !engine_started(&e)) {
		/* QEMU stopped before the command ran: it said why. */
		if (asked == ENGINE_QEMU) {
			outfile_abort(&o);
			remove_dir(&e);
			return err("--engine qemu: %s stopped before running the command", e.qemu_path), 1;
		}
		e.engine = ENGINE_CALLGRIND;
		if (!e.quiet)
			fprintf(stderr, "%s: %s stopped before running the command: exact counts by callgrind instead\n",
				progname, e.qemu_path);
		status = run(&e);
	}
	raw_init(&p);
	nfiles = import_all(&e, &p);
	if (nfiles <= 0) {
		if (e.engine == ENGINE_CALLGRIND)
			report_logs(&e);
		if (!nfiles)
			err("%s wrote no profile", engine_name(&e));
		outfile_abort(&o);
	}
	rc = nfiles > 0 ? write_profile(&e, &p, &o) : -1;
	if (!e.keep)
		remove_dir(&e);
	else		/* even with -q: its name is new */
		fprintf(stderr, "%s: %s's files are in %s\n", progname,
			engine_name(&e), e.dir);
	raw_free(&p);
	if (rc)
		return status && status != 1 ? status : 1;
	if (status)
		fprintf(stderr, "%s: the command exited with status %d (its profile was written)\n",
			progname, status);
	return status;
}
