/* SPDX-License-Identifier: GPL-2.0-only */
/* callgrind output -> exact-count raw profile; see callgrind.h. */
#include "callgrind.h"
#include "objfile.h"
#include "../proc/elfaddr.h"
#include "../lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_NAME_ID (1u << 24)	/* name compression IDs above are garbage */
#define MAX_POS 4		/* subpositions: instr, line, bb, ... */

/* Where an address is: the object and file offset, or why not. */
struct where {
	int ok;
	enum objfile_why why;
	uint32_t obj;
	uint64_t off;
};

/* A call into a PLT stub, and a call made by one: joined at the end of
 * the file (the stub is named by its function name, "ADDR [PLT]"). */
struct plt_call {
	char *stub;
	struct where at;	/* the call site, or the stub's callee */
	uint64_t count;
};

/* callgrind numbers the names of a table 1, 2, 3... in the order it
 * defines them (callgrind/dump.c), so an ID far past the definitions read
 * is garbage: refused, rather than a table of 2^24 entries for a line of
 * 20 bytes.  The slack leaves room for files that other tools renumber. */
#define NAME_ID_SLACK 65536

/* A name compression table: ID -> name.  The names point into the text
 * of the file being read, never copies: a spec that defines an ID again
 * ("cob=(1) b" after "ob=(1) a": ob= and cob= share a table) then cannot
 * free the name that ob= still refers to. */
struct names {
	const char **v;
	size_t n;
	size_t defined;		/* definitions read: IDs are dense */
};

struct callgrind {
	struct raw_profile *p;
	struct objfiles files;
	uint64_t instructions, unattr[OBJ_WHY_MAX], branches_unattr;
};

/* The state of one file being read. */
struct cg_read {
	struct callgrind *cg;
	const char *name;
	size_t line;
	int npos, instr_at, ir_at, body;
	struct names obs, fls, fns;	/* name compression tables */
	const char *ob, *cob, *fn, *cfn;
	uint64_t last[MAX_POS];
	int call_pending;		/* the next cost line is a call's */
	int jump_pending;		/* ... is a jump's source: no cost */
	uint64_t call_count;
	struct where call_to;
	struct plt_call *in, *out;	/* calls into PLT stubs, and by them */
	size_t nin, cap_in, nout, cap_out;
};

static int fail(struct cg_read *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail(struct cg_read *r, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = verr_line(r->name, r->line, fmt, ap);
	va_end(ap);
	return rc;
}

/* ---- objects ---- */

static struct where locate(struct cg_read *r, const char *ob, uint64_t addr)
{
	struct objfile *f = objfile_get(&r->cg->files, ob ? ob : "");
	struct where w = { 0, f->why, 0, 0 };

	if (!f->usable)
		return w;
	if (vaddr_to_offset(f->segs, f->nsegs, addr, &w.off)) {
		w.why = OBJ_NO_SEGMENT;
		return w;
	}
	w.ok = 1;
	w.obj = f->obj;
	return w;
}

/* ---- lines ---- */

/* A name spec's value: "(ID) name" defines ID, "(ID)" refers to it,
 * anything else is an uncompressed name, "(below main)" too
 * (--compress-strings=no; callgrind_annotate reads them so).  The name is
 * in v (the file's text, which outlives the read); NULL after a message
 * if malformed. */
static const char *name_of(struct cg_read *r, struct names *t, const char *v)
{
	char *end;
	unsigned long id;

	if (v[0] != '(' || v[1] < '0' || v[1] > '9')
		return v;
	errno = 0;
	id = strtoul(v + 1, &end, 10);
	if (*end != ')' || (end[1] && end[1] != ' '))
		return v;
	if (errno || id >= MAX_NAME_ID) {
		fail(r, "name ID too large in '%s'", v);
		return NULL;
	}
	v = end + 1;
	while (*v == ' ')
		v++;
	if (!*v && (id >= t->n || !t->v[id])) {
		fail(r, "name ID %lu is used before it is defined", id);
		return NULL;
	}
	if (id > t->defined + NAME_ID_SLACK) {
		fail(r, "name ID %lu defined after only %zu names: not callgrind's numbering",
		     id, t->defined);
		return NULL;
	}
	if (id >= t->n) {
		size_t n = t->n;

		grow(&t->v, &t->n, id + 1, sizeof(*t->v));
		memset(t->v + n, 0, (t->n - n) * sizeof(*t->v));
	}
	if (*v) {
		t->defined += !t->v[id];
		t->v[id] = v;
	}
	return t->v[id];
}

/* A number: decimal or 0x hex, all of the token.  Returns 0 or -1. */
static int number(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return (errno || *end) ? -1 : 0;
}

/* Subpositions of a cost, call or jump line: absolute, "+N", "-N" or
 * "*", each against last[] (fprint_pos in callgrind/dump.c).  Moves *s
 * past them.  Returns 0 or -1 after a message. */
static int positions(struct cg_read *r, char **s, uint64_t *pos)
{
	for (int i = 0; i < r->npos; i++) {
		char *tok = strsep(s, " \t");
		uint64_t d;

		if (!tok || !*tok)
			return fail(r, "%d positions expected, %d found", r->npos, i);
		if (!strcmp(tok, "*"))
			pos[i] = r->last[i];
		else if ((*tok == '+' || *tok == '-') && !number(tok + 1, &d))
			pos[i] = *tok == '+' ? r->last[i] + d : r->last[i] - d;
		else if (!number(tok, &d))
			pos[i] = d;
		else
			return fail(r, "bad position '%s'", tok);
	}
	return 0;
}

/* The Ir cost after the positions: the ir_at'th number; 0 if absent. */
static int ir_cost(struct cg_read *r, char *s, uint64_t *ir)
{
	int i = 0;

	*ir = 0;
	while (s && *s) {
		char *tok = strsep(&s, " \t");

		if (!*tok)
			continue;
		if (i++ == r->ir_at)
			return number(tok, ir) ? fail(r, "bad cost '%s'", tok) : 0;
	}
	return 0;
}

static int is_plt(const char *fn)
{
	size_t n = fn ? strlen(fn) : 0;

	return n >= 5 && !strcmp(fn + n - 5, "[PLT]");
}

static void add_plt(struct plt_call **v, size_t *n, size_t *cap,
		    const char *stub, struct where at, uint64_t count)
{
	grow(v, cap, *n + 1, sizeof(**v));
	(*v)[(*n)++] = (struct plt_call){ xstrdup(stub), at, count };
}

static void add_branch(struct callgrind *cg, struct where from,
		       struct where to, uint64_t count)
{
	if (from.ok && to.ok)
		raw_add_branch(&cg->p->objs[from.obj], from.off, to.obj, to.off,
			       count);
	else
		cg->branches_unattr = sat_add64(cg->branches_unattr, count);
}

/* A cost line: an instruction's count; or, after calls=, the call's own
 * line, which gives the call site and leaves last[] alone. */
static int cost_line(struct cg_read *r, char *s)
{
	uint64_t pos[MAX_POS], ir;
	struct where w;

	if (positions(r, &s, pos))
		return -1;
	if (r->jump_pending) {
		r->jump_pending = 0;
		return 0;
	}
	if (ir_cost(r, s, &ir))
		return -1;
	w = locate(r, r->ob, pos[r->instr_at]);
	if (r->call_pending) {
		r->call_pending = 0;
		if (is_plt(r->cfn))	/* into a stub: joined at the end */
			add_plt(&r->in, &r->nin, &r->cap_in, r->cfn, w,
				r->call_count);
		else if (is_plt(r->fn))	/* the stub's callee */
			add_plt(&r->out, &r->nout, &r->cap_out, r->fn,
				r->call_to, r->call_count);
		else
			add_branch(r->cg, w, r->call_to, r->call_count);
		return 0;
	}
	memcpy(r->last, pos, sizeof(pos));
	if (!ir)
		return 0;
	if (w.ok) {
		raw_add_range(&r->cg->p->objs[w.obj], w.off, w.off, ir);
		r->cg->instructions = sat_add64(r->cg->instructions, ir);
	} else {
		r->cg->unattr[w.why] = sat_add64(r->cg->unattr[w.why], ir);
	}
	return 0;
}

/* The header has said what cost lines hold. */
static int ready(struct cg_read *r)
{
	if (r->instr_at < 0)
		return fail(r, "the positions have no instruction addresses: run callgrind with --dump-instr=yes");
	if (r->ir_at < 0)
		return fail(r, "no 'events:' line that counts instructions (Ir) before the costs");
	return 0;
}

/* calls=COUNT TARGET: the callee's first instruction, in cob= (else this
 * function's object); the call's own line follows. */
static int calls_line(struct cg_read *r, char *v)
{
	char *tok = strsep(&v, " \t");
	uint64_t pos[MAX_POS];

	if (ready(r))
		return -1;
	if (!tok || number(tok, &r->call_count))
		return fail(r, "bad call count in calls=");
	while (v && (*v == ' ' || *v == '\t'))
		v++;
	if (positions(r, &v, pos))
		return -1;
	r->call_to = locate(r, r->cob ? r->cob : r->ob, pos[r->instr_at]);
	r->call_pending = 1;
	r->cob = NULL;
	return 0;
}

/* "KEY=VALUE" lines of the body.  Returns 0, 1 if not one, or -1. */
static int spec_line(struct cg_read *r, char *line)
{
	char *eq = strchr(line, '=');
	const char *key = line, *n;
	char *v;

	if (!eq || eq == line || strspn(line, "abcdefghijklmnopqrstuvwxyz") != (size_t)(eq - line))
		return 1;
	*eq = '\0';
	v = eq + 1;
	if (!strcmp(key, "calls"))
		return calls_line(r, v);
	if (!strcmp(key, "ob") || !strcmp(key, "cob")) {
		if (!(n = name_of(r, &r->obs, v)))
			return -1;
		*(key[0] == 'c' ? &r->cob : &r->ob) = n;
	} else if (!strcmp(key, "fn") || !strcmp(key, "cfn")) {
		if (!(n = name_of(r, &r->fns, v)))
			return -1;
		*(key[0] == 'c' ? &r->cfn : &r->fn) = n;
		if (key[0] == 'f')
			r->cob = NULL;
	} else if (!strcmp(key, "fl") || !strcmp(key, "fi") || !strcmp(key, "fe") ||
		   !strcmp(key, "cfi") || !strcmp(key, "cfl") || !strcmp(key, "jfi")) {
		if (!name_of(r, &r->fls, v))
			return -1;
	} else if (!strcmp(key, "jump") || !strcmp(key, "jcnd")) {
		r->call_pending = 0;	/* their second line: no cost */
		r->jump_pending = 1;
	} else if (!strcmp(key, "jfn")) {
		if (!name_of(r, &r->fns, v))
			return -1;
	}
	/* other keys (totals=, ln=, ...) carry nothing used here */
	return 0;
}

/* Index of word in the space-separated list, or -1. */
static int word_index(const char *list, const char *word)
{
	size_t n = strlen(word);
	int i = 0;

	for (const char *p = list; *p; i++) {
		p += strspn(p, " \t");
		if (!*p)
			break;
		if (!strncmp(p, word, n) && (p[n] == ' ' || p[n] == '\t' || !p[n]))
			return i;
		p += strcspn(p, " \t");
	}
	return -1;
}

/* "key: value" lines.  Returns 0, 1 if not one, or -1. */
static int header_line(struct cg_read *r, char *line)
{
	char *colon = strchr(line, ':');
	char *v;

	if (!colon || colon == line ||
	    strspn(line, "abcdefghijklmnopqrstuvwxyz") != (size_t)(colon - line))
		return 1;
	*colon = '\0';
	v = colon + 1 + strspn(colon + 1, " \t");
	if (!strcmp(line, "positions")) {
		r->npos = 0;
		for (char *p = v; *p; r->npos++) {
			p += strspn(p, " \t");
			if (!*p)
				break;
			p += strcspn(p, " \t");
		}
		r->instr_at = word_index(v, "instr");
		if (r->instr_at < 0 || r->npos > MAX_POS)
			return fail(r, "positions '%s' have no instruction addresses: run callgrind with --dump-instr=yes", v);
	} else if (!strcmp(line, "events")) {
		if ((r->ir_at = word_index(v, "Ir")) < 0)
			return fail(r, "events '%s' do not count instructions (Ir)", v);
	} else if (!strcmp(line, "creator")) {
		raw_set_meta(r->cg->p, "recorder", v);
	} else if (!strcmp(line, "cmd")) {
		if (!raw_get_meta(r->cg->p, "target"))
			raw_set_meta(r->cg->p, "target", v);
	} else if (!strcmp(line, "version") && strcmp(v, "1")) {
		return fail(r, "callgrind format version %s; this pgoprof reads version 1", v);
	}
	return 0;
}

static int read_line(struct cg_read *r, char *line)
{
	int rc;

	if (!*line || *line == '#')
		return 0;
	if ((rc = header_line(r, line)) <= 0)
		return rc;
	if ((rc = spec_line(r, line)) <= 0) {
		r->body = 1;
		return rc;
	}
	if (ready(r))
		return -1;
	r->body = 1;
	return cost_line(r, line);
}

static int cmp_plt(const void *a, const void *b)
{
	const struct plt_call *x = a, *y = b;

	return strcmp(x->stub, y->stub);
}

/* part/total of count, rounded down (part <= total, total > 0).  In
 * double: the product can need 128 bits.  A double of 2^64 - 1 is 2^64,
 * which no uint64_t holds (and casting it is UB). */
static uint64_t share(uint64_t count, uint64_t part, uint64_t total)
{
	double x = (double)count * ((double)part / (double)total);

	return x >= 0x1p64 ? UINT64_MAX : (uint64_t)x;
}

/* Each call into a PLT stub goes on to the stub's callees, its count
 * shared in proportion to theirs (the last takes the rounding), so that
 * the call site names the function it reached.  Callees called 0 times
 * in all give no proportion: the calls are unattributed, as are those
 * of a stub that never left. */
static void join_plt(struct cg_read *r)
{
	sort(r->out, r->nout, sizeof(*r->out), cmp_plt);
	for (size_t i = 0; i < r->nin; i++) {
		const struct plt_call *c = &r->in[i];
		struct plt_call *o = r->nout ? bsearch(c, r->out, r->nout,
						     sizeof(*r->out), cmp_plt) : NULL;
		size_t a = 0, b = 0;
		uint64_t total = 0, left = c->count;

		if (o) {
			for (a = (size_t)(o - r->out); a > 0 && !cmp_plt(&r->out[a - 1], c); a--)
				;
			for (b = (size_t)(o - r->out); b < r->nout && !cmp_plt(&r->out[b], c); b++)
				total = sat_add64(total, r->out[b].count);
		}
		if (!total) {	/* nothing reached, that we know of */
			r->cg->branches_unattr = sat_add64(r->cg->branches_unattr, c->count);
			continue;
		}
		for (size_t k = a; k < b; k++) {
			uint64_t n = k + 1 == b ? left :
				share(c->count, r->out[k].count, total);

			n = n > left ? left : n;
			left -= n;
			if (n)
				add_branch(r->cg, c->at, r->out[k].at, n);
		}
	}
}

static void read_free(struct cg_read *r)
{
	struct names *t[] = { &r->obs, &r->fls, &r->fns };

	for (size_t k = 0; k < ARRAY_SIZE(t); k++)
		free(t[k]->v);
	for (size_t i = 0; i < r->nin; i++)
		free(r->in[i].stub);
	for (size_t i = 0; i < r->nout; i++)
		free(r->out[i].stub);
	free(r->in);
	free(r->out);
}

int callgrind_add(struct callgrind *cg, const uint8_t *buf, size_t len,
		  const char *name)
{
	struct cg_read r = { .cg = cg, .name = name, .npos = 1,
			     .instr_at = -1, .ir_at = -1 };
	char *text = xmalloc(len + 1), *s = text, *line;
	int rc = 0;

	memcpy(text, buf, len);
	text[len] = '\0';
	if (memchr(buf, '\0', len))
		rc = err("%s: byte %zu: a NUL byte: not callgrind output", name,
			 (size_t)((const uint8_t *)memchr(buf, '\0', len) - buf));
	while (!rc && (line = strsep(&s, "\n"))) {
		size_t n = strlen(line);

		r.line++;
		if (n && line[n - 1] == '\r')
			line[n - 1] = '\0';
		rc = read_line(&r, line);
	}
	if (!rc && !r.body)
		rc = err("%s: no costs: not callgrind output, or empty", name);
	if (!rc) {
		join_plt(&r);
		raw_add_counter(cg->p, "processes", 1);
	}
	read_free(&r);
	free(text);
	return rc;
}

struct callgrind *callgrind_new(struct raw_profile *p)
{
	struct callgrind *cg = xcalloc(1, sizeof(*cg));

	elf_version(EV_CURRENT);
	cg->p = p;
	cg->files.p = p;
	raw_set_meta(p, "mode", "exact-counts");
	raw_set_meta(p, "event", "Ir");
	return cg;
}

void callgrind_finish(struct callgrind *cg)
{
	if (!cg)
		return;
	raw_add_counter(cg->p, "instructions", cg->instructions);
	for (int i = 0; i < OBJ_WHY_MAX; i++)
		if (cg->unattr[i]) {
			char name[64];

			snprintf(name, sizeof(name), "instructions.unattributed.%s",
				 objfile_why_name[i]);
			raw_add_counter(cg->p, name, cg->unattr[i]);
		}
	if (cg->branches_unattr)
		raw_add_counter(cg->p, "branches.unattributed", cg->branches_unattr);
	objfiles_free(&cg->files);
	free(cg);
}

int callgrind_probe(const uint8_t *buf, size_t len)
{
	static const char magic[] = "# callgrind format";
	const char *s = (const char *)buf;

	if (len >= sizeof(magic) - 1 && !memcmp(buf, magic, sizeof(magic) - 1))
		return 1;
	/* Without the first line (older callgrind): its first header lines. */
	return len >= 10 && !memcmp(s, "version: 1", 10) &&
	       memmem(buf, len < 256 ? len : 256, "creator: callgrind", 18);
}
