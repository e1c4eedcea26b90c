/* SPDX-License-Identifier: GPL-2.0-only */
/* Small helpers shared by both programs: allocation that cannot fail
 * silently, error messages with the program name, and output files that
 * appear whole or not at all. */
#ifndef PGOPROF_UTIL_H
#define PGOPROF_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Set once by main(); prefixes every message. */
extern const char *progname;

/* Print "progname: message" on stderr.  err() returns -1 so callers can
 * write "return err(...)". */
int err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* err() of "FILE: line N: message", the form of every text input's
 * errors; the va_list form, for a reader's own fail(). */
int verr_line(const char *file, size_t line, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* Print like err() and exit(status). */
void die(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/* Allocation that exits with a message when memory runs out: a profile
 * half-built is worse than none. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* n bytes (uninitialized) for a large buffer or table touched all over:
 * from 2 MiB on, in 2 MiB pages where the kernel gives them
 * (MADV_HUGEPAGE), which a first touch and the TLB pay for once per 2 MiB
 * instead of per 4 KiB.  Freed with free(). */
void *xmalloc_huge(size_t n);
/* Grow *arr (of *cap elements of elem bytes) so that index need-1 fits. */
void grow(void *arr, size_t *cap, size_t need, size_t elem);
/* qsort/bsearch comparator of an array of C strings (char *), by strcmp. */
int cmp_cstr(const void *a, const void *b);
/* grow() under a byte budget, as budget_grow counts it: 0 when index
 * need-1 fits (grown or not), or -1, *arr, *cap and *bytes unchanged,
 * when the grown array would take *bytes over max_bytes. */
int try_grow(void *arr, size_t *cap, size_t need, size_t elem,
	     size_t *bytes, size_t max_bytes);
/* The one rule of the byte budgets (pgoprof-record --mem-budget): an
 * array of old bytes, counted in *bytes, may grow to new bytes if *bytes
 * + new is at most max_bytes, since both are held while the entries
 * move; *bytes then counts new in place of old.  Returns 0, or -1 with
 * *bytes unchanged. */
int budget_grow(size_t *bytes, size_t max_bytes, size_t old, size_t new);

/* A size in MiB from the environment variable var, as bytes in *bytes:
 * 1 when it is set to a positive number of MiB, 0 when unset or empty
 * (*bytes untouched), -1 after a message naming var and its value. */
int env_mib(const char *var, uint64_t *bytes);

/* qsort that accepts an empty (NULL) array, which qsort itself may not,
 * and returns at once from a sorted one. */
void sort(void *base, size_t n, size_t size,
	  int (*cmp)(const void *, const void *));

/* a + b, or UINT64_MAX if the sum does not fit: counts from outside
 * input stop at the top rather than wrap to a small number. */
static inline uint64_t sat_add64(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* a * b, or UINT64_MAX if the product does not fit (weights times
 * counts when profiles are merged or scaled). */
static inline uint64_t sat_mul64(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* The decimal number in s[0..n) as *v: one digit or more, digits only
 * (no sign, space or "0x"; leading zeros allowed), at most UINT64_MAX.
 * Returns 0, or -1 with *v unchanged when s is empty, holds another
 * character or overflows.  s need not be NUL-terminated. */
int dec_u64(const char *s, size_t n, uint64_t *v);

/* Hex text of a build-ID: out must hold 2*len+1 bytes. */
void hex_string(char *out, const uint8_t *id, size_t len);

/* An output file written to "DIR/.NAME.XXXXXX" and renamed over NAME by
 * outfile_commit(), so that readers never see a half-written profile.
 * outfile_abort() removes the temporary.  Both return -1 with a message
 * naming the file on failure (full disk, read-only directory).  The path
 * obeys the output rule of lib/outpath.h, pgoprof-record's too: as root,
 * no symbolic link in the directory part; no link, directory, or another
 * user's file in a sticky directory at PATH.  A device or FIFO (/dev/null)
 * is written in place; a FIFO that no process reads is refused at once.
 * While a temporary exists, SIGHUP, SIGINT and SIGTERM remove it before
 * they end the process (those signals the program leaves at their
 * default action; one it ignores or catches is left alone), and so does
 * exit(): an interrupted or failed run leaves no ".NAME.XXXXXX" behind. */
struct outfile {
	char *path;
	char *tmp;		/* "DIR/.NAME.XXXXXX"; NULL: written in place */
	FILE *f;
	int dirfd;		/* DIR, held open from outfile_open() on */
	char *base;		/* NAME */
	const char *tmpname;	/* tmp's last component */
};
int outfile_open(struct outfile *o, const char *path);
int outfile_commit(struct outfile *o);
void outfile_abort(struct outfile *o);
/* For a writer that failed on o->f: outfile_abort(), and "cannot write
 * PATH: REASON" (the reason of the failed write, or none if o->f has no
 * write error: the writer then said what went wrong).  Returns -1. */
int outfile_fail(struct outfile *o);

/* The most read from an input that is not a regular file (a pipe, a FIFO,
 * a device, standard input), in MiB: its size is not known before reading,
 * and /dev/zero has none.  The environment variable PGOPROF_STREAM_MAX_MIB
 * overrides it. */
#define STREAM_MAX_MIB 1024
/* How much read_input() reads before it asks its probe. */
#define INPUT_HEAD 65536

/* Whether head (the first len bytes of a file: INPUT_HEAD, or all of a
 * shorter file) may begin a file of a format the caller reads: 1 or 0. */
typedef int input_probe(const uint8_t *head, size_t len);

/* Read a file ("-": standard input) into memory: malloc'd, *len bytes,
 * NUL-terminated one byte past the end for text parsers.  With a probe,
 * the first INPUT_HEAD bytes are read first; if probe says no, reading
 * stops there and only those bytes are returned, for the caller's parser
 * to reject with its own message (so that /dev/zero is not read until
 * memory runs out).  Input that is not a regular file is read up to
 * STREAM_MAX_MIB.  Returns NULL with a message naming the file on error
 * (cannot open or read it, too large). */
uint8_t *read_input(const char *path, size_t *len, input_probe *probe);
/* How messages name an input: path, or "standard input" for "-". */
const char *input_name(const char *path);
/* read_input() without a probe. */
uint8_t *read_whole_file(const char *path, size_t *len);
/* The directory of this program's executable (/proc/self/exe), in buf:
 * where pgoprof finds pgoprof-record and its qemu plugin.  0 or -1. */
int exe_dir(char *buf, size_t size);

/* After writing to standard output: flush it; if that or an earlier write
 * failed, print "cannot write standard output: REASON" (once a process)
 * and return -1, else 0.  Call it right after the writes, while errno
 * still tells why one failed. */
int stdout_flush(void);
/* stdout_flush(), then close standard output: for the end of main().
 * Returns 0, or -1 with the message printed. */
int stdout_close(void);

#endif
