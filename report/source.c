/* SPDX-License-Identifier: GPL-2.0-only */
/* Source files by path, read whole on first use. */
#include "source.h"
#include "../lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct src_file {
	char *path;
	char *text;		/* NULL: not readable */
	char **line;		/* line[i]: the start of line i + 1 */
	size_t nlines;
};

struct rep_sources {
	struct src_file *v;
	size_t n, cap;
};

struct rep_sources *rep_sources_new(void)
{
	return xcalloc(1, sizeof(struct rep_sources));
}

void rep_sources_free(struct rep_sources *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].path);
		free(s->v[i].text);
		free(s->v[i].line);
	}
	free(s->v);
	free(s);
}

/* Read f->path into lines; newlines become NULs. */
static void load(struct src_file *f)
{
	FILE *fp = fopen(f->path, "r");
	struct stat st;
	size_t len, cap = 0;

	if (!fp)
		return;
	if (fstat(fileno(fp), &st) || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > REP_SOURCE_MAX) {
		fclose(fp);
		return;
	}
	f->text = xmalloc((size_t)st.st_size + 1);
	len = fread(f->text, 1, (size_t)st.st_size, fp);
	fclose(fp);
	f->text[len] = '\0';
	for (char *p = f->text; p < f->text + len;) {
		char *nl = memchr(p, '\n', (size_t)(f->text + len - p));

		grow(&f->line, &cap, f->nlines + 1, sizeof(*f->line));
		f->line[f->nlines++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
}

const char *rep_source_line(struct rep_sources *s, const char *file,
			    uint32_t line)
{
	struct src_file *f = NULL;

	for (size_t i = 0; i < s->n && !f; i++)
		if (!strcmp(s->v[i].path, file))
			f = &s->v[i];
	if (!f) {
		grow(&s->v, &s->cap, s->n + 1, sizeof(*s->v));
		f = &s->v[s->n++];
		memset(f, 0, sizeof(*f));
		f->path = xstrdup(file);
		load(f);
	}
	if (!f->text || !line || line > f->nlines)
		return NULL;
	return f->line[line - 1];
}
