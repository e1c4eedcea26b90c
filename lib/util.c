/* SPDX-License-Identifier: GPL-2.0-only */
#include "util.h"
#include "outpath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

const char *progname = "pgoprof";

static void vmsg(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	return -1;
}

int verr_line(const char *file, size_t line, const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	return err("%s: line %zu: %s", file, line, msg);
}

void warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(status);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die(1, "out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die(1, "out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *xmalloc_huge(size_t n)
{
	const size_t huge = (size_t)2 << 20;
	size_t whole = (n + huge - 1) & ~(huge - 1);
	void *p;

	if (n < huge)
		return xmalloc(n);
	p = aligned_alloc(huge, whole);
	if (!p)
		die(1, "out of memory (%zu bytes)", n);
	madvise(p, whole, MADV_HUGEPAGE);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die(1, "out of memory (%zu bytes)", n);
	return p;
}

char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		die(1, "out of memory");
	return d;
}

int budget_grow(size_t *bytes, size_t max_bytes, size_t old, size_t new)
{
	if (new > max_bytes || *bytes > max_bytes - new)
		return -1;
	*bytes += new - old;
	return 0;
}

int try_grow(void *arr, size_t *cap, size_t need, size_t elem,
	     size_t *bytes, size_t max_bytes)
{
	void **p = arr;
	size_t n = *cap;

	if (need <= n)
		return 0;
	while (n < need)
		n = n ? 2 * n : 16;
	if (n > SIZE_MAX / elem)
		die(1, "out of memory (array of %zu elements)", n);
	if (budget_grow(bytes, max_bytes, *cap * elem, n * elem))
		return -1;
	*p = xrealloc(*p, n * elem);
	*cap = n;
	return 0;
}

/* An unbounded budget: the same growth, never refused. */
int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void grow(void *arr, size_t *cap, size_t need, size_t elem)
{
	size_t bytes = 0;

	try_grow(arr, cap, need, elem, &bytes, SIZE_MAX);
}

void sort(void *base, size_t n, size_t size,
	  int (*cmp)(const void *, const void *))
{
	const char *b = base;
	size_t i = 1;

	/* Already sorted (import/samples.c emits so): nothing to do, and
	 * the same result as glibc's qsort(), a merge sort, which is
	 * stable. */
	while (i < n && cmp(b + (i - 1) * size, b + i * size) <= 0)
		i++;
	if (i < n)
		qsort(base, n, size, cmp);
}

int dec_u64(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	if (!n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

void hex_string(char *out, const uint8_t *id, size_t len)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 15];
	}
	out[2 * len] = '\0';
}

/* The temporaries of the open outfiles, for the signal handler and for
 * exit(): each its directory's descriptor and its name there (unlinkat is
 * async-signal-safe, and does not walk the path again).  Changed only
 * with temp_signals blocked, so that the handler never sees them
 * half-changed; pid keeps a forked child (which inherits them) from
 * removing its parent's files. */
static const int temp_signals[] = { SIGHUP, SIGINT, SIGTERM };
struct temp {
	int dirfd;
	const char *name;	/* the outfile's tmpname */
};
static struct {
	struct temp *v;
	size_t n, cap;
	pid_t pid;
	unsigned caught;	/* bit i: temp_signals[i] is ours */
} temps;

static void temps_remove(void)
{
	if (getpid() != temps.pid)
		return;
	for (size_t i = 0; i < temps.n; i++)
		unlinkat(temps.v[i].dirfd, temps.v[i].name, 0);
}

/* Only async-signal-safe calls: unlinkat, getpid, sigaction, raise.  The
 * signal stays blocked until the handler returns, then ends the process
 * with its default action (the exit status a shell expects). */
static void temps_on_signal(int sig)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	temps_remove();
	sigaction(sig, &dfl, NULL);
	raise(sig);
}

static void temps_block(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < ARRAY_SIZE(temp_signals); i++)
		sigaddset(&set, temp_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

/* Catch the signals left at their default action. */
static void temps_catch(void)
{
	struct sigaction sa = { .sa_handler = temps_on_signal }, old;

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(temp_signals); i++)
		sigaddset(&sa.sa_mask, temp_signals[i]);
	for (size_t i = 0; i < ARRAY_SIZE(temp_signals); i++) {
		if (sigaction(temp_signals[i], NULL, &old) ||
		    (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
			continue;
		if (!sigaction(temp_signals[i], &sa, NULL))
			temps.caught |= 1u << i;
	}
}

/* Give back what temps_catch() took. */
static void temps_release(void)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	for (size_t i = 0; i < ARRAY_SIZE(temp_signals); i++)
		if (temps.caught & 1u << i)
			sigaction(temp_signals[i], &dfl, NULL);
	temps.caught = 0;
}

/* With temp_signals blocked. */
static void temps_add(int dirfd, const char *name)
{
	static int at_exit;

	if (!at_exit)
		at_exit = !atexit(temps_remove);
	if (!temps.n) {
		temps.pid = getpid();
		temps_catch();
	}
	grow(&temps.v, &temps.cap, temps.n + 1, sizeof(*temps.v));
	temps.v[temps.n++] = (struct temp){ dirfd, name };
}

/* With temp_signals blocked. */
static void temps_del(const char *name)
{
	for (size_t i = 0; i < temps.n; i++) {
		if (temps.v[i].name != name)
			continue;
		temps.v[i] = temps.v[--temps.n];
		if (!temps.n)
			temps_release();
		return;
	}
}

/* A device or FIFO is written in place (renaming over /dev/null would
 * replace it), blocking once open: a FIFO's reader sets the pace. */
static int outfile_special(struct outfile *o, const struct outpath *t)
{
	int fd = outpath_open_special(t);

	if (fd < 0)
		return -1;
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) ||
	    !(o->f = fdopen(fd, "wb"))) {
		close(fd);
		return err("cannot open %s: %s", t->path, strerror(errno));
	}
	return 0;
}

/* outfile_abort(), then "cannot VERB PATH: REASON" (e 0: no reason). */
static int outfile_failed(struct outfile *o, const char *verb, int e)
{
	char *p = o->path;

	o->path = NULL;
	outfile_abort(o);
	if (e)
		err("cannot %s %s: %s", verb, p, strerror(e));
	else
		err("cannot %s %s", verb, p);
	free(p);
	return -1;
}

/* "DIR/.NAME.XXXXXX" in t's held directory, known to the signal handler
 * from the moment it exists. */
static int outfile_temp(struct outfile *o, const struct outpath *t)
{
	size_t n = strlen(t->dir) + strlen(t->base) + 16;
	char prefix[NAME_MAX + 1], name[NAME_MAX + 1];
	sigset_t old;
	int fd, e;

	snprintf(prefix, sizeof(prefix) - 6, ".%s.", t->base);
	temps_block(&old);
	fd = outpath_tmp_create(o->dirfd, prefix, name, sizeof(name));
	e = errno;
	if (fd >= 0) {
		o->tmp = xmalloc(n);
		snprintf(o->tmp, n, "%s/%s", t->dir, name);
		o->tmpname = o->tmp + strlen(t->dir) + 1;
		temps_add(o->dirfd, o->tmpname);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (fd < 0)
		return err("-o %s: cannot create files in %s: %s", t->path, t->dir,
			   strerror(e));
	if (!(o->f = fdopen(fd, "wb"))) {
		close(fd);
		return -1;
	}
	return 0;
}

int outfile_open(struct outfile *o, const char *path)
{
	struct outpath t;
	int special, rc;

	*o = (struct outfile){ .dirfd = -1 };
	if (outpath_open(&t, path))
		return -1;
	special = outpath_check(&t);
	if (special < 0) {
		outpath_close(&t);
		return -1;
	}
	/* t's directory and name become o's. */
	o->path = xstrdup(path);
	o->dirfd = t.dirfd;
	rc = special ? outfile_special(o, &t) : outfile_temp(o, &t);
	o->base = t.base;
	t.base = NULL;
	t.dirfd = -1;
	outpath_close(&t);
	if (rc && o->tmp)
		return outfile_failed(o, "open", errno);
	if (rc)
		outfile_abort(o);
	return rc;
}

void outfile_abort(struct outfile *o)
{
	sigset_t old;

	if (o->f)
		fclose(o->f);
	if (o->tmp) {
		temps_block(&old);
		unlinkat(o->dirfd, o->tmpname, 0);
		temps_del(o->tmpname);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->tmp);
	free(o->path);
	free(o->base);
	*o = (struct outfile){ .dirfd = -1 };
}

int outfile_fail(struct outfile *o)
{
	int e = errno;

	/* What is left in the buffer fails again, with a fresh errno. */
	if (o->f && fflush(o->f))
		e = errno;
	else if (!o->f || !ferror(o->f))
		e = 0;
	return outfile_failed(o, "write", e);
}

int outfile_commit(struct outfile *o)
{
	FILE *f = o->f;
	sigset_t old;
	int e;

	if (ferror(f) || fflush(f))
		return outfile_fail(o);
	/* fsync fails on devices and FIFOs, which have nothing to sync. */
	if (o->tmp && fsync(fileno(f)))
		return outfile_failed(o, "write", errno);
	o->f = NULL;
	if (fclose(f))
		return outfile_failed(o, "write", errno);
	if (o->tmp) {
		temps_block(&old);
		e = renameat(o->dirfd, o->tmpname, o->dirfd, o->base) ? errno : 0;
		if (!e)
			temps_del(o->tmpname);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (e)
			return outfile_failed(o, "rename to", e);
		free(o->tmp);
		o->tmp = NULL;
	}
	outfile_abort(o);	/* nothing left to remove: frees the rest */
	return 0;
}

/* STREAM_MAX_MIB in bytes, or PGOPROF_STREAM_MAX_MIB's; 0 with a message
 * if that is not a number of MiB. */
int env_mib(const char *var, uint64_t *bytes)
{
	const char *s = getenv(var);
	unsigned long long mib;
	char *end;

	if (!s || !*s)
		return 0;
	mib = *s >= '0' && *s <= '9' ? strtoull(s, &end, 10) : 0;
	if (!mib || *end || mib > SIZE_MAX >> 22)
		return err("%s=%s: give a positive number of MiB", var, s);
	*bytes = (uint64_t)mib << 20;
	return 1;
}

static size_t stream_max(void)
{
	uint64_t max = (uint64_t)STREAM_MAX_MIB << 20;

	return env_mib("PGOPROF_STREAM_MAX_MIB", &max) < 0 ? 0 : (size_t)max;
}

struct inbuf {
	uint8_t *data;
	size_t n, cap;
};

/* Read from f until b holds max bytes or f ends; room for a NUL after
 * them.  Returns 0, or -1 on a read error (errno). */
static int fill(FILE *f, struct inbuf *b, size_t max)
{
	while (b->n < max) {
		size_t room, got;

		if (b->cap - b->n < 2) {
			size_t cap = b->cap < 65536 ? 65536 : 2 * b->cap;

			if (cap > max + 1)
				cap = max + 1;
			b->data = xrealloc(b->data, cap);
			b->cap = cap;
		}
		room = b->cap - b->n - 1;
		got = fread(b->data + b->n, 1, room, f);
		b->n += got;
		if (got < room)
			return ferror(f) ? -1 : 0;
	}
	return 0;
}

uint8_t *read_input(const char *path, size_t *len, input_probe *probe)
{
	int is_stdin = !strcmp(path, "-");
	const char *name = input_name(path);
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	struct inbuf b = { 0 };
	size_t max = SIZE_MAX / 4;
	struct stat st;
	int rc = -1;

	if (!f) {
		err("cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode))
		max = stream_max();
	if (max && !(rc = fill(f, &b, max < INPUT_HEAD ? max : INPUT_HEAD)) &&
	    (!probe || probe(b.data, b.n)))
		rc = fill(f, &b, max + 1);
	if (rc && max)
		err("cannot read %s: %s", name, strerror(errno));
	else if (!rc && b.n > max)
		rc = err("%s: not a regular file and larger than %zu MiB: save it to a file first (or raise PGOPROF_STREAM_MAX_MIB)",
			 name, max >> 20);
	if (!is_stdin)
		fclose(f);
	if (rc) {
		free(b.data);
		return NULL;
	}
	if (!b.data)
		b.data = xmalloc(1);
	b.data[b.n] = '\0';
	*len = b.n;
	return b.data;
}

const char *input_name(const char *path)
{
	return strcmp(path, "-") ? path : "standard input";
}

uint8_t *read_whole_file(const char *path, size_t *len)
{
	return read_input(path, len, NULL);
}

static int stdout_failed(int e)
{
	static int told;

	if (!told++)
		err("cannot write standard output%s%s", e ? ": " : "",
		    e ? strerror(e) : "");
	return -1;
}

int stdout_flush(void)
{
	int e = errno;

	if (fflush(stdout))
		return stdout_failed(errno);
	return ferror(stdout) ? stdout_failed(e) : 0;
}

int stdout_close(void)
{
	int rc = stdout_flush();

	/* EBADF: standard output was closed and nothing was written. */
	if (fclose(stdout) && errno != EBADF && !rc)
		rc = stdout_failed(errno);
	return rc;
}

int exe_dir(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);
	char *slash;

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (!(slash = strrchr(buf, '/')))
		return -1;
	*slash = '\0';
	return 0;
}
