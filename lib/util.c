/* SPDX-License-Identifier: GPL-2.0-only */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
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
 * exit().  Changed only with temp_signals blocked, so that the handler
 * never sees them half-changed; pid keeps a forked child (which inherits
 * them) from removing its parent's files. */
static const int temp_signals[] = { SIGHUP, SIGINT, SIGTERM };
static struct {
	char **path;
	size_t n, cap;
	pid_t pid;
	unsigned caught;	/* bit i: temp_signals[i] is ours */
} temps;

static void temps_remove(void)
{
	if (getpid() != temps.pid)
		return;
	for (size_t i = 0; i < temps.n; i++)
		unlink(temps.path[i]);
}

/* Only async-signal-safe calls: unlink, getpid, sigaction, raise.  The
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
static void temps_add(char *path)
{
	static int at_exit;

	if (!at_exit)
		at_exit = !atexit(temps_remove);
	if (!temps.n) {
		temps.pid = getpid();
		temps_catch();
	}
	grow(&temps.path, &temps.cap, temps.n + 1, sizeof(*temps.path));
	temps.path[temps.n++] = path;
}

/* With temp_signals blocked. */
static void temps_del(const char *path)
{
	for (size_t i = 0; i < temps.n; i++) {
		if (temps.path[i] != path)
			continue;
		temps.path[i] = temps.path[--temps.n];
		if (!temps.n)
			temps_release();
		return;
	}
}

/* A path that is not a regular file: a device or a FIFO is written in
 * place (renaming over /dev/null would replace it), a symlink is refused
 * (as root, it could point anywhere). */
static int outfile_special(struct outfile *o, const char *path)
{
	struct stat st;
	int fd;

	if (lstat(path, &st) || S_ISREG(st.st_mode))
		return 0;
	if (S_ISLNK(st.st_mode))
		return err("refusing to write through the symbolic link %s: give its target (or -o - for standard output)", path);
	if (S_ISDIR(st.st_mode))
		return err("%s is a directory: give a file name", path);
	fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || !(o->f = fdopen(fd, "wb"))) {
		if (fd >= 0)
			close(fd);
		return err("cannot open %s: %s", path, strerror(errno));
	}
	o->path = xstrdup(path);
	o->tmp = NULL;
	return 1;
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

/* "DIR/.NAME.XXXXXX" for path "DIR/NAME", malloc'd. */
static char *temp_name(const char *path)
{
	char *dcopy = xstrdup(path), *bcopy = xstrdup(path), *tmp;
	const char *dir = dirname(dcopy), *base = basename(bcopy);
	size_t n = strlen(dir) + strlen(base) + 16;

	tmp = xmalloc(n);
	snprintf(tmp, n, "%s/.%s.XXXXXX", dir, base);
	free(dcopy);
	free(bcopy);
	return tmp;
}

int outfile_open(struct outfile *o, const char *path)
{
	int fd, e, special = outfile_special(o, path);
	sigset_t old;

	if (special)
		return special > 0 ? 0 : -1;
	o->path = xstrdup(path);
	o->tmp = temp_name(path);
	o->f = NULL;
	/* Known to the signal handler from the moment it exists. */
	temps_block(&old);
	fd = mkstemp(o->tmp);
	e = errno;
	if (fd >= 0)
		temps_add(o->tmp);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (fd < 0) {
		err("cannot create %s: %s", o->tmp, strerror(e));
		free(o->tmp);
		free(o->path);
		o->tmp = o->path = NULL;
		return -1;
	}
	/* mkstemp gives 0600; a profile is meant to be shared. */
	fchmod(fd, 0644);
	o->f = fdopen(fd, "wb");
	if (!o->f) {
		close(fd);
		return outfile_failed(o, "open", errno);
	}
	return 0;
}

void outfile_abort(struct outfile *o)
{
	sigset_t old;

	if (o->f)
		fclose(o->f);
	if (o->tmp) {
		temps_block(&old);
		unlink(o->tmp);
		temps_del(o->tmp);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	free(o->tmp);
	free(o->path);
	o->f = NULL;
	o->tmp = o->path = NULL;
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
	if (!o->tmp) {		/* written in place */
		free(o->path);
		o->path = NULL;
		return 0;
	}
	temps_block(&old);
	e = rename(o->tmp, o->path) ? errno : 0;
	if (!e)
		temps_del(o->tmp);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (e)
		return outfile_failed(o, "rename to", e);
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	return 0;
}

/* STREAM_MAX_MIB in bytes, or PGOPROF_STREAM_MAX_MIB's; 0 with a message
 * if that is not a number of MiB. */
static size_t stream_max(void)
{
	const char *s = getenv("PGOPROF_STREAM_MAX_MIB");
	unsigned long long mib = STREAM_MAX_MIB;
	char *end;

	if (s && *s) {
		mib = *s >= '0' && *s <= '9' ? strtoull(s, &end, 10) : 0;
		if (!mib || *end || mib > SIZE_MAX >> 22)
			return err("PGOPROF_STREAM_MAX_MIB=%s: give a positive number of MiB (default %d)",
				   s, STREAM_MAX_MIB), 0;
	}
	return (size_t)mib << 20;
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
