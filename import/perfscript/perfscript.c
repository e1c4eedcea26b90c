/* SPDX-License-Identifier: GPL-2.0-only */
/* perf script text -> raw profile (perfscript.h): the entry points, the
 * text's lines one by one, and the end of an import.  The lines are those
 * of tools/perf/builtin-script.c (process_event: the sample's fields;
 * perf_sample__fprintf_start: the fields before a sample or a record;
 * perf_sample__fprintf_brstack), util/evsel_fprintf.c
 * (sample__fprintf_callchain: a frame a line) and util/event.c
 * (perf_event__fprintf_mmap2, _mmap, _comm, _task, _lost); the '#' lines
 * are perf_header__fprintf_info's.  internal.h says which file reads
 * what. */
#include "internal.h"
#include "../../lib/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_BYTES (1 << 20)
#define PROBE_LINES 64

int ps_fail(struct ps *m, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (m->failed)
		return -1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (m->lineno)
		err("%s: line %zu: %s", m->name, m->lineno, msg);
	else
		err("%s: %s", m->name, msg);
	m->failed = 1;
	return -1;
}

char *ps_cstr(struct ps *m, const char *s, size_t n)
{
	grow(&m->tmp, &m->cap_tmp, n + 1, 1);
	memcpy(m->tmp, s, n);
	m->tmp[n] = '\0';
	return m->tmp;
}

static void do_line(struct ps *m, const char *l, size_t n)
{
	const char *rec;
	size_t i = 0;

	if (m->in_chain) {
		if (n && l[0] == '\t') {
			ps_add_frame(m, l, n);
			return;
		}
		while (i < n && blank(l[i]))
			i++;
		if (i == n) {	/* the end of the sample */
			ps_end_sample(m);
			return;
		}
		if (ps_entry_at(l, n, i)) {	/* its branch stack */
			if (!ps_parse_brstack(m, l, n, i))
				ps_end_sample(m);
			return;
		}
		ps_end_sample(m);
	}
	if (n && l[0] == '#') {
		ps_comment_line(m, l, n);
		return;
	}
	for (i = 0; i < n && blank(l[i]); i++)
		;
	if (i == n) {	/* the header of a sample with no fields but ip */
		m->pending_empty = 1;
		return;
	}
	if (n && l[0] == '\t') {	/* a call-chain frame */
		if (!m->pending_empty) {
			ps_fail(m, "a call-chain frame that follows no sample");
			return;
		}
		m->pending_empty = 0;
		if (ps_sample_line(m, "", 0))
			return;
		ps_add_frame(m, l, n);
		return;
	}
	m->pending_empty = 0;
	rec = memmem(l, n, "PERF_RECORD_", 12);
	if (rec)
		ps_record_line(m, l, n, (size_t)(rec - l));
	else
		ps_sample_line(m, l, n);
}

/* ---- the import ---- */

static void set_meta(struct ps *m)
{
	struct samples_info info = {
		.source = m->name, .input = "perf-script", .host = &m->host,
		.lbr = m->any_brstack,
	};
	struct samples_event *ev = xcalloc(m->nevents ? m->nevents : 1, sizeof(*ev));

	for (size_t i = 0; i < m->nevents; i++) {
		const struct event *e = &m->events[i];

		ev[i] = (struct samples_event){
			.name = e->name, .samples = e->samples, .period = e->period,
			.selected = !m->opt->event || !strcmp(e->name, m->opt->event),
			.freq = e->freq, .period_known = e->in_header,
		};
	}
	samples_meta(m->s.prof, &info, ev, m->nevents);
	free(ev);
}

static int check_end(struct ps *m)
{
	m->lineno = 0;
	if (!m->mmaps)
		return ps_fail(m, "no PERF_RECORD_MMAP lines: run perf script with --show-mmap-events");
	if (m->s.taken && !m->with_address)
		return ps_fail(m, "no sample has an address: give perf script the ip field (-F ip,...)");
	if (m->opt->event && !m->s.taken) {
		char list[512] = "";
		size_t n = 0;

		for (size_t i = 0; i < m->nevents && n < sizeof(list) - 1; i++)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
					      n ? ", " : "", m->events[i].name);
		return ps_fail(m, "no sample of an event named '%s'; its events: %s",
			       m->opt->event, n ? list : "none named");
	}
	return 0;
}

static void ps_free(struct ps *m)
{
	samples_free(&m->s);
	ps_dsos_free(m);
	free(m->tmp);
	free(m->frames);
	free(m->br);
	for (size_t i = 0; i < m->nevents; i++)
		free(m->events[i].name);
	free(m->events);
	perf_host_free(&m->host);
}

/* One pass over the text; form: how frames are printed, if known. */
static int import_pass(struct ps *m, struct raw_profile *p, int form)
{
	size_t pos = 0;

	samples_init(&m->s, p, m->opt->no_local_files);
	m->all_key = samples_space(&m->s);
	m->form = form;
	while (pos < m->len && !m->failed && !m->restart) {
		const char *l = m->buf + pos, *nl = memchr(l, '\n', m->len - pos);
		size_t n = nl ? (size_t)(nl - l) : m->len - pos;

		pos += n + (nl != NULL);
		m->lineno++;
		if (n > LINE_MAX_BYTES) {
			ps_fail(m, "longer than %d bytes", LINE_MAX_BYTES);
			break;
		}
		if (memchr(l, '\0', n)) {
			ps_fail(m, "a NUL byte: not the text of perf script");
			break;
		}
		if (n && l[n - 1] == '\r')
			n--;
		do_line(m, l, n);
	}
	if (m->failed)
		return -1;
	if (m->restart)
		return 1;
	if (m->in_chain)
		ps_end_sample(m);
	if (check_end(m))
		return -1;
	if (m->last_time > m->first_time) {	/* the header's, as perf.data's */
		m->s.tmin = m->first_time;
		m->s.tmax = m->last_time;
	}
	set_meta(m);
	samples_count(p, "import.other_event_samples", m->other_samples);
	samples_finish(&m->s);
	return 0;
}

int perfscript_import(struct raw_profile *p, const uint8_t *buf, size_t len,
		      const char *name, const struct perfdata_options *opt)
{
	static const struct perfdata_options defaults;
	struct ps m = { 0 };
	int rc;

	m.opt = opt ? opt : &defaults;
	m.name = name;
	m.buf = (const char *)buf;
	m.len = len;
	rc = import_pass(&m, p, FORM_UNKNOWN);
	if (rc > 0) {	/* frames are offsets after all: read them so */
		ps_free(&m);
		raw_free(p);
		m = (struct ps){ .opt = m.opt, .name = name, .buf = (const char *)buf, .len = len };
		rc = import_pass(&m, p, FORM_OFFSET);
	}
	ps_free(&m);
	if (rc) {
		raw_free(p);
		return -1;
	}
	return 0;
}

/* ---- detection ---- */

int perfscript_probe(const uint8_t *buf, size_t len)
{
	const char *s = (const char *)buf;
	size_t pos = 0;
	int lines = 0;

	if (!len || memchr(buf, '\0', len))
		return 0;
	while (pos < len && lines < PROBE_LINES) {
		const char *l = s + pos, *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos, i = 0;
		struct tok t;
		uint64_t v;

		pos += n + (nl != NULL);
		if (n && l[0] == '#')
			continue;
		lines++;
		if (memmem(l, n, "PERF_RECORD_", 12) || ps_frame_line(l, n))
			return 1;
		/* "IP 0xFROM/0xTO/..." of perf script -F ip,brstack */
		if (ps_next_tok(l, n, &i, &t) && ps_hexnum(t.p, t.n, &v) &&
		    ps_next_tok(l, n, &i, &t) && ps_entry_at(t.p, t.n, 0))
			return 1;
	}
	return 0;
}
