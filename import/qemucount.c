/* SPDX-License-Identifier: GPL-2.0-only */
/* The qemu engine's count files -> exact-count raw profile; see
 * qemucount.h.  The format is qemu/count.h's. */
#include "qemucount.h"
#include "objfile.h"
#include "../qemu/count.h"
#include "../lib/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct qemucount {
	struct raw_profile *p;
	struct objfiles files;
	uint64_t instructions, unattr[OBJ_WHY_MAX], anon, nomap;
	uint64_t branches_unattr, not_followed;
	uint64_t *pids;		/* the processes seen, sorted */
	size_t npids, cap_pids;
};

/* One file being read: its object numbers -> files.paths. */
struct qc_read {
	struct qemucount *q;
	const char *name;
	size_t line;
	char **paths;
	size_t npaths, cap;
};

static int fail(struct qc_read *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail(struct qc_read *r, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = verr_line(r->name, r->line, fmt, ap);
	va_end(ap);
	return rc;
}

/* The next space-separated token of *s as a number in base (all of it). */
static int number(struct qc_read *r, char **s, int base, uint64_t *v)
{
	char *t = strsep(s, " "), *end;

	if (!t || !*t || *t == '-' || *t == '+')
		return fail(r, "a number is missing");
	errno = 0;
	*v = strtoull(t, &end, base);
	if (errno || *end)
		return fail(r, "'%s' is not a %s number", t, base == 16 ? "hex" : "decimal");
	return 0;
}

/* Object n, offset off of the file: where it is in the profile. */
static int locate(struct qc_read *r, uint64_t n, uint64_t off, uint32_t *obj,
		  enum objfile_why *why)
{
	struct objfile *f;
	uint64_t vaddr;

	if (n >= r->npaths)
		return fail(r, "object %" PRIu64 " is not defined", n), -2;
	f = objfile_get(&r->q->files, r->paths[n]);
	*why = f->usable ? OBJ_NO_SEGMENT : f->why;
	if (!f->usable || offset_to_vaddr(f->segs, f->nsegs, off, &vaddr))
		return -1;
	*obj = f->obj;
	return 0;
}

static int object_line(struct qc_read *r, char *s)
{
	uint64_t n;
	char *path;

	if (number(r, &s, 10, &n))
		return -1;
	if (n != r->npaths)
		return fail(r, "object %" PRIu64 " out of order (expected %zu)", n, r->npaths);
	path = s;
	if (!path || *path != '/')
		return fail(r, "object %" PRIu64 " has no absolute path", n);
	grow(&r->paths, &r->cap, r->npaths + 1, sizeof(*r->paths));
	r->paths[r->npaths++] = path;
	return 0;
}

static int insn_line(struct qc_read *r, char *s)
{
	uint64_t n, off, count;
	enum objfile_why why;
	uint32_t obj;
	int rc;

	if (number(r, &s, 10, &n) || number(r, &s, 16, &off) || number(r, &s, 10, &count))
		return -1;
	if (s)
		return fail(r, "more than 3 fields after insn");
	if ((rc = locate(r, n, off, &obj, &why)) == -2)
		return -1;
	if (rc) {
		r->q->unattr[why] = sat_add64(r->q->unattr[why], count);
	} else {
		raw_add_range(&r->q->p->objs[obj], off, off, count);
		r->q->instructions = sat_add64(r->q->instructions, count);
	}
	return 0;
}

static int call_line(struct qc_read *r, char *s)
{
	uint64_t n, off, m, to, count;
	enum objfile_why why;
	uint32_t obj, to_obj;
	int a, b;

	if (number(r, &s, 10, &n) || number(r, &s, 16, &off) ||
	    number(r, &s, 10, &m) || number(r, &s, 16, &to) ||
	    number(r, &s, 10, &count))
		return -1;
	if (s)
		return fail(r, "more than 5 fields after call");
	if ((a = locate(r, n, off, &obj, &why)) == -2 ||
	    (b = locate(r, m, to, &to_obj, &why)) == -2)
		return -1;
	if (a || b)
		r->q->branches_unattr = sat_add64(r->q->branches_unattr, count);
	else
		raw_add_branch(&r->q->p->objs[obj], off, to_obj, to, count);
	return 0;
}

/* unattributed REASON COUNT, calls.unattributed COUNT,
 * exec.not_followed COUNT. */
static int other_line(struct qc_read *r, const char *key, char *s)
{
	uint64_t v, *to = NULL;

	if (!strcmp(key, "unattributed")) {
		char *why = strsep(&s, " ");

		if (why && !strcmp(why, COUNT_WHY_ANON))
			to = &r->q->anon;
		else if (why && !strcmp(why, COUNT_WHY_NOMAP))
			to = &r->q->nomap;
		else
			return fail(r, "unknown reason '%s'", why ? why : "");
	} else if (!strcmp(key, "calls.unattributed")) {
		to = &r->q->branches_unattr;
	} else if (!strcmp(key, "exec.not_followed")) {
		to = &r->q->not_followed;
	} else {
		return fail(r, "unknown line '%s'", key);
	}
	if (number(r, &s, 10, &v))
		return -1;
	if (s)
		return fail(r, "more fields after %s", key);
	*to = sat_add64(*to, v);
	return 0;
}

/* pid PID: a process is counted once, however many images it ran. */
static int pid_line(struct qc_read *r, char *s)
{
	struct qemucount *q = r->q;
	uint64_t pid;
	size_t i = 0;

	if (number(r, &s, 10, &pid))
		return -1;
	while (i < q->npids && q->pids[i] < pid)
		i++;
	if (i < q->npids && q->pids[i] == pid)
		return 0;
	grow(&q->pids, &q->cap_pids, q->npids + 1, sizeof(*q->pids));
	memmove(q->pids + i + 1, q->pids + i, (q->npids - i) * sizeof(*q->pids));
	q->pids[i] = pid;
	q->npids++;
	return 0;
}

static int read_line(struct qc_read *r, char *line, int *ended)
{
	char *key = strsep(&line, " ");

	if (*ended)
		return fail(r, "text after the end line");
	if (r->line == 1)
		return strcmp(key, "pgoprof-count") || !line || strcmp(line, "1") ?
		       fail(r, "not a pgoprof-count 1 file") : 0;
	if (!strcmp(key, "pid"))
		return pid_line(r, line);
	if (!strcmp(key, "object"))
		return object_line(r, line);
	if (!strcmp(key, "insn"))
		return insn_line(r, line);
	if (!strcmp(key, "call"))
		return call_line(r, line);
	if (!strcmp(key, "end") && !line) {
		*ended = 1;
		return 0;
	}
	return other_line(r, key, line);
}

int qemucount_add(struct qemucount *q, const uint8_t *buf, size_t len,
		  const char *name)
{
	struct qc_read r = { .q = q, .name = name };
	char *text = xmalloc(len + 1), *s = text, *line;
	int rc = 0, ended = 0;

	memcpy(text, buf, len);
	text[len] = '\0';
	if (memchr(buf, '\0', len))
		rc = err("%s: byte %zu: a NUL byte: not a count file", name,
			 (size_t)((const uint8_t *)memchr(buf, '\0', len) - buf));
	while (!rc && (line = strsep(&s, "\n"))) {
		r.line++;
		if (!*line && !s)	/* after the last newline */
			break;
		rc = read_line(&r, line, &ended);
	}
	if (!rc && !ended)
		rc = err("%s: no end line: the process was killed while writing it", name);
	free(r.paths);
	free(text);
	return rc;
}

struct qemucount *qemucount_new(struct raw_profile *p)
{
	struct qemucount *q = xcalloc(1, sizeof(*q));

	q->p = p;
	q->files.p = p;
	raw_set_meta(p, "mode", "exact-counts");
	raw_set_meta(p, "event", "Ir");
	return q;
}

static void counter(struct raw_profile *p, const char *name, uint64_t v)
{
	if (v)
		raw_add_counter(p, name, v);
}

void qemucount_finish(struct qemucount *q)
{
	char name[64];

	if (!q)
		return;
	for (int i = 0; i < OBJ_WHY_MAX; i++) {
		snprintf(name, sizeof(name), "instructions.unattributed.%s",
			 objfile_why_name[i]);
		counter(q->p, name, q->unattr[i]);
	}
	counter(q->p, "instructions.unattributed." COUNT_WHY_ANON, q->anon);
	counter(q->p, "instructions.unattributed." COUNT_WHY_NOMAP, q->nomap);
	raw_add_counter(q->p, "instructions", q->instructions);
	counter(q->p, "branches.unattributed", q->branches_unattr);
	counter(q->p, "processes.not_followed", q->not_followed);
	raw_add_counter(q->p, "processes", q->npids);
	objfiles_free(&q->files);
	free(q->pids);
	free(q);
}

int qemucount_is_file(const char *name)
{
	return !strncmp(name, COUNT_FILE_PREFIX, strlen(COUNT_FILE_PREFIX));
}
