#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
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

void grow(void *arr, size_t *cap, size_t need, size_t elem)
{
	void **p = arr;
	size_t n = *cap;

	if (need <= n)
		return;
	while (n < need)
		n = n ? 2 * n : 16;
	if (n > SIZE_MAX / elem)
		die(1, "out of memory (array of %zu elements)", n);
	*p = xrealloc(*p, n * elem);
	*cap = n;
}

void sort(void *base, size_t n, size_t size,
	  int (*cmp)(const void *, const void *))
{
	if (n > 1)
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

int outfile_open(struct outfile *o, const char *path)
{
	char *dcopy, *bcopy;
	const char *dir, *base;
	size_t n;
	int fd, special = outfile_special(o, path);

	if (special)
		return special > 0 ? 0 : -1;
	dcopy = xstrdup(path);
	bcopy = xstrdup(path);
	dir = dirname(dcopy);
	base = basename(bcopy);
	n = strlen(dir) + strlen(base) + 16;

	o->path = xstrdup(path);
	o->tmp = xmalloc(n);
	snprintf(o->tmp, n, "%s/.%s.XXXXXX", dir, base);
	free(dcopy);
	free(bcopy);
	o->f = NULL;
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		err("cannot create %s: %s", o->tmp, strerror(errno));
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
		outfile_abort(o);
		return err("cannot open %s: %s", path, strerror(errno));
	}
	return 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->f)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	o->f = NULL;
	o->tmp = o->path = NULL;
}

int outfile_commit(struct outfile *o)
{
	/* fsync fails on devices and FIFOs, which have nothing to sync. */
	int bad = ferror(o->f) | fflush(o->f) | (o->tmp && fsync(fileno(o->f)));

	if (bad) {
		int e = errno;
		char *p = xstrdup(o->path);

		outfile_abort(o);
		err("cannot write %s: %s", p, strerror(e ? e : EIO));
		free(p);
		return -1;
	}
	if (fclose(o->f)) {
		int e = errno;
		char *p = xstrdup(o->path);

		o->f = NULL;
		outfile_abort(o);
		err("cannot write %s: %s", p, strerror(e));
		free(p);
		return -1;
	}
	o->f = NULL;
	if (!o->tmp) {		/* written in place */
		free(o->path);
		o->path = NULL;
		return 0;
	}
	if (rename(o->tmp, o->path)) {
		int e = errno;
		char *p = xstrdup(o->path);

		outfile_abort(o);
		err("cannot rename to %s: %s", p, strerror(e));
		free(p);
		return -1;
	}
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	return 0;
}

uint8_t *read_whole_file(const char *path, size_t *len)
{
	int is_stdin = !strcmp(path, "-");
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f) {
		err("cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	do {
		grow(&buf, &cap, n + 65536 + 1, 1);
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
	} while (got > 0);
	if (ferror(f)) {
		err("cannot read %s: %s", is_stdin ? "standard input" : path,
		    strerror(errno));
		if (!is_stdin)
			fclose(f);
		free(buf);
		return NULL;
	}
	if (!is_stdin)
		fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}
