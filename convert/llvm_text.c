/* SPDX-License-Identifier: GPL-2.0-only */
#include "llvm_text.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/escape.h"
#include "../lib/util.h"

static void write_loc(FILE *f, int indent, uint32_t line, uint32_t disc)
{
	fprintf(f, "%*s%" PRIu32, indent, "", line);
	if (disc)
		fprintf(f, ".%" PRIu32, disc);
	fputs(": ", f);
}

/* What the writer left out for names the format cannot carry, by kind:
 * [0] functions, [1] inlined instances, [2] call targets. */
struct unfit {
	uint64_t n[3], samples[3];
	const char *first, *why;	/* the first such name and its reason */
};

/* 1 (counted in u) if name cannot be written as an LLVM text name. */
static int unfit(struct unfit *u, int kind, const char *name, uint64_t samples)
{
	const char *why = esc_llvm_text_unfit(name);

	if (!why)
		return 0;
	u->n[kind]++;
	u->samples[kind] = sat_add64(u->samples[kind], samples);
	if (!u->first)
		u->first = name, u->why = why;
	return 1;
}

static void write_node(const struct fsamples *s, FILE *f, int indent,
		       int probes, struct unfit *u)
{
	fprintf(f, "%s:%" PRIu64, s->name, s->total);
	if (indent == 0)
		fprintf(f, ":%" PRIu64, s->head);
	fputc('\n', f);
	for (size_t i = 0; i < s->nbody; i++) {
		const struct fs_body *b = &s->body[i];

		write_loc(f, indent + 1, b->line, b->disc);
		fprintf(f, "%" PRIu64, b->count);
		for (size_t j = 0; j < b->ntargets; j++)
			if (!unfit(u, 2, b->targets[j].name, b->targets[j].count))
				fprintf(f, " %s:%" PRIu64, b->targets[j].name,
					b->targets[j].count);
		fputc('\n', f);
	}
	for (size_t i = 0; i < s->ncs; i++) {
		const struct fsamples *c = s->cs[i].callee;

		if (unfit(u, 1, c->name, c->total))
			continue;
		write_loc(f, indent + 1, s->cs[i].line, s->cs[i].disc);
		write_node(c, f, indent + 1, probes, u);
	}
	/* Metadata comes last in a function (SampleProfileWriterText). */
	if (probes)
		fprintf(f, "%*s!CFGChecksum: %" PRIu64 "\n", indent + 1, "",
			s->checksum);
}

/* One line on standard error for what unfit() counted. */
static void report_unfit(const struct unfit *u)
{
	static const char *const kind[3] = {
		"functions (%" PRIu64 " samples)",
		"inlined instances (%" PRIu64 " samples)",
		"call targets (%" PRIu64 " calls)",
	};
	char what[256], *first;
	size_t n = 0;

	if (!u->first)
		return;
	for (int k = 0; k < 3; k++) {
		if (!u->n[k])
			continue;
		n += (size_t)snprintf(what + n, sizeof(what) - n, "%s%" PRIu64 " ",
				      n ? ", " : "", u->n[k]);
		n += (size_t)snprintf(what + n, sizeof(what) - n, kind[k],
				      u->samples[k]);
	}
	first = esc_strdup(u->first, 0);
	warnx("warning: left out of the LLVM text profile for names it cannot carry: %s; the first, %s, %s (docs/report.md, \"Names in text output\"; llvm-extbinary keeps them)",
	      what, first, u->why);
	free(first);
}

int llvm_text_write(const struct fs_profile *p, FILE *f)
{
	struct unfit u = { { 0 } };

	for (size_t i = 0; i < p->nfuncs; i++)
		if (!unfit(&u, 0, p->funcs[i]->name, p->funcs[i]->total))
			write_node(p->funcs[i], f, 0, p->probe_based, &u);
	report_unfit(&u);
	return ferror(f) ? -1 : 0;
}

#define MAX_DEPTH 64

struct text_reader {
	const char *name;
	size_t lineno;
	struct fsamples *stack[MAX_DEPTH + 1];	/* inline stack by depth */
	int depth;				/* entries in stack */
};

static int text_err(struct text_reader *r, const char *what)
{
	return err("%s: line %zu: %s", r->name, r->lineno, what);
}

/* A decimal u64 from [s, e): all digits, no overflow (lib's dec_u64). */
static int parse_u64(const char *s, const char *e, uint64_t *v)
{
	return dec_u64(s, (size_t)(e - s), v);
}

/* "name:N" with the count after the last ':'. */
static int split_name_count(const char *s, const char *e, char **name,
			    uint64_t *n)
{
	const char *c = e;

	while (c > s && c[-1] != ':')
		c--;
	if (c <= s + 1 || parse_u64(c, e, n))
		return -1;
	*name = xmalloc((size_t)(c - 1 - s) + 1);
	memcpy(*name, s, (size_t)(c - 1 - s));
	(*name)[c - 1 - s] = '\0';
	return 0;
}

static int parse_header(struct text_reader *r, struct fs_profile *p,
			const char *s, const char *e)
{
	const char *c2 = e, *c1;
	uint64_t total, head;
	char *name;

	if (*s == '[')
		return text_err(r, "context-sensitive profiles are not supported");
	while (c2 > s && c2[-1] != ':')
		c2--;
	c1 = c2 - 1;
	while (c1 > s && c1[-1] != ':')
		c1--;
	if (c2 <= s || c1 <= s + 1 || parse_u64(c2, e, &head) ||
	    parse_u64(c1, c2 - 1, &total))
		return text_err(r, "expected NAME:TOTAL:HEAD");
	name = xmalloc((size_t)(c1 - 1 - s) + 1);
	memcpy(name, s, (size_t)(c1 - 1 - s));
	name[c1 - 1 - s] = '\0';
	r->stack[0] = fs_function(p, name);
	r->stack[0]->total = sat_add64(r->stack[0]->total, total);
	r->stack[0]->head = sat_add64(r->stack[0]->head, head);
	r->depth = 1;
	free(name);
	return 0;
}

/* " OFF[.DISC]: N [t:n]..." or " OFF[.DISC]: callee:TOTAL" at depth d. */
static int parse_body(struct text_reader *r, int d, const char *s, const char *e)
{
	const char *colon = memchr(s, ':', (size_t)(e - s)), *dot, *t;
	uint64_t line, disc = 0, n;
	struct fsamples *f;
	char *name;

	if (d > r->depth || d > MAX_DEPTH)
		return text_err(r, d > MAX_DEPTH ? "nesting too deep" :
				   "indented deeper than its enclosing profile");
	r->depth = d;
	f = r->stack[d - 1];
	if (!colon || colon + 1 >= e || colon[1] != ' ' || colon + 2 >= e ||
	    colon[2] == ' ')
		return text_err(r, "expected exactly \": \" after the location");
	dot = memchr(s, '.', (size_t)(colon - s));
	if (parse_u64(s, dot ? dot : colon, &line) || line > 0xffff ||
	    (dot && (parse_u64(dot + 1, colon, &disc) || disc > UINT32_MAX)))
		return text_err(r, "bad location (LINE_OFFSET[.DISCRIMINATOR])");
	s = colon + 2;
	for (t = s; t < e && *t != ' '; t++)
		;
	if (!parse_u64(s, t, &n)) {
		fs_add_body(f, (uint32_t)line, (uint32_t)disc, n);
		for (s = t; s < e; s = t) {
			while (s < e && *s == ' ')
				s++;
			for (t = s; t < e && *t != ' '; t++)
				;
			if (s == t)
				break;
			if (split_name_count(s, t, &name, &n))
				return text_err(r, "bad call target (expected NAME:COUNT)");
			fs_add_target(f, (uint32_t)line, (uint32_t)disc, name, n);
			free(name);
		}
		return 0;
	}
	if (split_name_count(s, e, &name, &n))
		return text_err(r, "expected a count or CALLEE:TOTAL");
	f = fs_inlinee(f, (uint32_t)line, (uint32_t)disc, name);
	f->total = sat_add64(f->total, n);
	free(name);
	r->stack[d] = f;
	r->depth = d + 1;
	return 0;
}

/* "!CFGChecksum: N" at depth d: the checksum of the profile it ends (a
 * probe-based profile); other metadata ("!Attributes:") is skipped. */
static int parse_meta(struct text_reader *r, struct fs_profile *p, int d,
		      const char *s, const char *e)
{
	static const char key[] = "!CFGChecksum: ";
	size_t n = sizeof(key) - 1;
	uint64_t v;

	if ((size_t)(e - s) < n || memcmp(s, key, n))
		return 0;
	if (d < 1 || d > r->depth)
		return text_err(r, "!CFGChecksum outside a profile");
	if (parse_u64(s + n, e, &v))
		return text_err(r, "bad !CFGChecksum (expected a number)");
	r->stack[d - 1]->checksum = v;
	p->probe_based = 1;
	return 0;
}

int llvm_text_read(struct fs_profile *p, const char *buf, size_t len,
		   const char *name)
{
	struct text_reader r = { .name = name };
	const char *s = buf, *end = buf + len;

	p->totals_given = 1;
	while (s < end) {
		const char *e = memchr(s, '\n', (size_t)(end - s)), *t = s;
		int d = 0, rc = 0;

		if (!e)
			e = end;
		r.lineno++;
		if (e > s && e[-1] == '\r')
			e--;
		while (t < e && *t == ' ')
			t++, d++;
		if (t == e || *t == '#')
			;	/* blank, comment */
		else if (*t == '!')
			rc = parse_meta(&r, p, d, t, e);
		else if (memchr(s, '\0', (size_t)(e - s)))
			rc = text_err(&r, "NUL byte in a text profile");
		else if (d == 0)
			rc = parse_header(&r, p, t, e);
		else if (!r.depth)
			rc = text_err(&r, "body line before any function");
		else
			rc = parse_body(&r, d, t, e);
		if (rc) {
			fs_free(p);
			return -1;
		}
		s = (e < end && *e == '\r') ? e + 2 : e + 1;
	}
	fs_finish(p);
	return 0;
}

int llvm_text_detect(const uint8_t *buf, size_t len)
{
	const char *s = (const char *)buf, *end = s + len;
	int colons = 0;

	while (s < end && (*s == '#' || *s == '\n')) {
		const char *e = memchr(s, '\n', (size_t)(end - s));

		s = e ? e + 1 : end;
	}
	for (; s < end && *s != '\n'; s++) {
		if (*s == ':')
			colons++;
		else if ((unsigned char)*s < 0x20 && *s != '\r')
			return 0;
	}
	return colons >= 2 && (const char *)buf < end && buf[0] != ' ';
}
