/* SPDX-License-Identifier: GPL-2.0-only */
/* perf.data -> raw profile: the entry points, the error line, META and
 * the counters.  Layouts: tools/perf/Documentation/
 * perf.data-file-format.txt, tools/perf/util/header.c (file header, attrs,
 * feature sections, HEADER_BUILD_ID with PERF_RECORD_MISC_BUILD_ID_SIZE),
 * tools/perf/util/session.c and ordered-events.c (record order), and
 * include/uapi/linux/perf_event.h (records, sample layout, sample_id_all).
 * internal.h says which file reads what. */
#include "internal.h"
#include "../../lib/escape.h"
#include "../../lib/util.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "NAME: byte OFF: message", once. */
int pd_fail(struct imp *m, size_t off, const char *fmt, ...)
{
	struct rbuf r;
	char msg[256];
	va_list ap;

	if (m->failed)
		return -1;
	/* With threads, a sample before this record may have failed. */
	if (!m->quiet && pd_jobs_fail(m))
		m->quiet = 1;
	m->failed = 1;
	if (m->quiet)
		return -1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rb_init(&r, m->buf, m->len, m->name);
	r.pos = off;
	rb_fail(&r, "%s", msg);
	return -1;
}

/* A reader over [off, end) of the file, with absolute offsets. */
void pd_reader(struct imp *m, struct rbuf *r, size_t off, size_t end)
{
	rb_init(r, m->buf, end, m->name);
	r->pos = off;
	r->quiet = m->quiet;
}

int pd_check_reader(struct imp *m, const struct rbuf *r)
{
	if (r->failed)
		m->failed = 1;
	return r->failed ? -1 : 0;
}

/* [off, off+size) inside the file?  field is where the pair is stored. */
int pd_check_section(struct imp *m, size_t field, uint64_t off,
		     uint64_t size, const char *what)
{
	if (off > m->len || size > m->len - off)
		return pd_fail(m, field, "%s (offset %" PRIu64 ", %" PRIu64
			       " bytes) runs past the end of the file (%zu bytes)",
			       what, off, size, m->len);
	return 0;
}

static void set_meta(struct imp *m)
{
	struct samples_info info = {
		.source = m->name, .host = &m->host,
	};
	struct samples_event *ev = xcalloc(m->nattrs, sizeof(*ev));

	for (size_t i = 0; i < m->nattrs; i++) {
		const struct pattr *a = &m->attrs[i];

		ev[i] = (struct samples_event){
			.name = a->name, .samples = a->samples, .period = a->period,
			.selected = a->selected, .freq = !!(a->flags & A_FREQ),
			.period_known = 1,
			.lbr = (a->sample_type & PERF_SAMPLE_BRANCH_STACK) &&
			       (a->branch_type & PERF_SAMPLE_BRANCH_ANY) && !(a->branch_type & PERF_SAMPLE_BRANCH_CALL_STACK),
		};
	}
	samples_meta(m->s.prof, &info, ev, m->nattrs);
	free(ev);
}

/* The counters of perf.data's own; samples_finish() writes the others. */
static void set_counters(struct imp *m)
{
	struct raw_profile *p = m->s.prof;

	/* duration_ms: feature SAMPLE_TIME, else the samples' times */
	if (m->have_sample_time && m->last_time > m->first_time) {
		m->s.tmin = m->first_time;
		m->s.tmax = m->last_time;
	}
	samples_count(p, "import.unknown_records", m->unknown_records);
	samples_count(p, "import.unknown_event_id", m->unknown_id);
	samples_count(p, "import.other_event_samples", m->other_samples);
	samples_count(p, "import.user_stack_not_unwound", m->dwarf_stacks);
	samples_count(p, "import.user_regs_foreign_arch", m->foreign_regs + m->regs32);
	samples_count(p, "import.lbr_call_stack_not_used", m->call_stack_lbr);
	/* As pgoprof-record --call-graph dwarf: why each unwind ended. */
	for (int i = 0; m->unwound && i < UNWIND_END_MAX; i++) {
		char name[64];

		snprintf(name, sizeof(name), "unwind.%s", unwind_end_name[i]);
		raw_add_counter(p, name, m->unwind_ends[i]);
	}
	samples_count(p, "import.mmap2_build_id_flag_ignored", m->bad_build_id_flag);
	samples_count(p, "import.branch_filter_no_ranges", m->no_ranges_filter);
}

int perfdata_probe(const uint8_t *buf, size_t len)
{
	return len >= 8 && (!memcmp(buf, "PERFILE2", 8) ||
			    !memcmp(buf, "2ELIFREP", 8) ||
			    !memcmp(buf, "PERFFILE", 8));
}

static void imp_free(struct imp *m)
{
	for (size_t i = 0; i < m->nattrs; i++)
		free(m->attrs[i].name);
	free(m->attrs);
	free(m->ids);
	perf_host_free(&m->host);
	unwind_free(m->uw);
	pd_jobs_finish(m);	/* the error path: the threads stop */
	samples_free(&m->s);
	free(m->q);
	free(m->win);
}

/* The events' names (EVENT_DESC, EVENT_UPDATE, else perf's default) and
 * which of them --event selects: 0, or -1 after the message (no event of
 * that name). */
static int select_events(struct imp *m, size_t data_off, size_t data_end)
{
	int selected = 0;

	for (size_t i = 0; i < m->nattrs; i++)
		if (!m->attrs[i].name)
			m->attrs[i].name = pd_default_name(&m->attrs[i]);
	if (m->event_updates)
		pd_scan_event_names(m, data_off, data_end);
	for (size_t i = 0; i < m->nattrs; i++) {
		m->attrs[i].selected = !m->opt->event ||
				       !strcmp(m->opt->event, m->attrs[i].name);
		selected += m->attrs[i].selected;
	}
	if (!selected && m->quiet) {	/* one pass: tried again with two */
		m->failed = 1;
		return -1;
	}
	if (!selected) {
		char list[512] = "";

		for (size_t i = 0; i < m->nattrs; i++)
			esc_cat(list, sizeof(list), i ? ", " : "", m->attrs[i].name);
		err("%s: no event named '%s'; its events: %s", m->name,
		    m->opt->event, list);
		m->failed = 1;
		return -1;
	}
	return 0;
}

/* Can the data section be read in one pass (m->one_pass)?  What pass 1
 * looks for (pd_scan_records) is then met in pass 2 instead, where it
 * is too late: the import stops, silently, and is done again in two
 * passes (import(), return 2).  Not for a pipe (the attributes are in
 * its data), nor a file perf did not finish (its warning would be
 * printed twice), nor --call-graph dwarf (the unwinder's messages). */
static int one_pass_ok(const struct imp *m)
{
	if (m->pipe || m->unfinished)
		return 0;
	for (size_t i = 0; i < m->nattrs; i++)
		if (m->attrs[i].sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER))
			return 0;
	return 1;
}

/* The magic, the file header and, in two passes, pass 1.  0, or -1
 * after the message. */
static int read_header(struct imp *m, size_t *data_off, size_t *data_end,
		       int one_pass)
{
	uint64_t magic;

	if (m->len < 8)
		return pd_fail(m, 0, "truncated: need 8 bytes for the magic, %zu left", m->len);
	magic = get64(m->buf);
	if (magic == PERF_MAGIC2_SWAPPED)
		return pd_fail(m, 0, "a big-endian perf.data file; this pgoprof reads little-endian ones");
	if (magic != PERF_MAGIC2)
		return pd_fail(m, 0, !memcmp(m->buf, "PERFFILE", 8) ?
			       "perf.data version 1 (PERFFILE); this pgoprof reads version 2 (PERFILE2)" :
			       "not a perf.data file (bad magic)");
	if (pd_read_file_header(m, data_off, data_end))
		return -1;
	/* From here on, a failure of one pass is not printed: the import
	 * is done again in two, which prints it. */
	m->one_pass = one_pass && one_pass_ok(m);
	m->quiet = m->one_pass;
	if (!m->one_pass && pd_scan_records(m, *data_off, *data_end))
		return -1;
	if (!m->nattrs)
		return pd_fail(m, m->pipe ? 0 : 24, "no event attributes in the file");
	return 0;
}

/* One import into p with these options, in one pass over the data if
 * one_pass (and the file allows): 0, -1 after the message, 1 if the
 * threads met a sample that one thread must add up (jobs.c), or
 * 2 if the one pass met what needs two: after 1 and 2, p is emptied and
 * nothing was printed.  *warned: the unfinished file's warnings printed
 * (PD_WARNED_*, in and out). */
static int import(struct raw_profile *p, const uint8_t *buf, size_t len,
		  const char *name, const struct perfdata_options *opt,
		  int *warned, int one_pass)
{
	struct imp m = { 0 };
	size_t data_off = 0, data_end = 0;
	int redo = 0;

	m.opt = opt;
	m.buf = buf;
	m.len = len;
	m.name = name;
	m.warned = *warned;
	samples_init(&m.s, p, m.opt->no_local_files);
	if (m.opt->jobs > 1)	/* -j1: this thread alone, as --help says */
		m.s.agg.prefault_min = AGG_PREFAULT_MIN;
	if (read_header(&m, &data_off, &data_end, one_pass) ||
	    select_events(&m, data_off, data_end))
		goto out;
	m.ordered = !!(m.attrs[0].flags & A_SAMPLE_ID_ALL);
	for (size_t i = 0; i < m.nattrs; i++)
		m.build_id_attr |= !!(m.attrs[i].flags & A_BUILD_ID);
	pd_jobs_start(&m);
	if (pd_process_records(&m, data_off, data_end) || (redo = pd_jobs_finish(&m)))
		goto out;
	m.quiet = 0;
	/* Its file IDs are object indices, which raw_drop_empty_objects
	 * renumbers. */
	unwind_free(m.uw);
	m.uw = NULL;
	pd_report_foreign_regs(&m);
	set_meta(&m);
	set_counters(&m);
	samples_finish(&m.s);
out:
	redo |= pd_jobs_finish(&m);
	*warned = m.warned;
	imp_free(&m);
	if (m.failed || redo) {
		raw_free(p);
		return m.one_pass ? 2 : redo ? 1 : -1;
	}
	return 0;
}

int perfdata_import(struct raw_profile *p, const uint8_t *buf, size_t len,
		    const char *name, const struct perfdata_options *opt)
{
	static const struct perfdata_options defaults;
	struct perfdata_options one;
	int warned = 0, r;

	if (!opt)
		opt = &defaults;
	/* Threads and one pass only into an empty profile, which a redo can
	 * empty again. */
	if (p->nobjs || p->nmeta || p->ncounters || p->stacks.n) {
		one = *opt;
		one.jobs = 1;
		return import(p, buf, len, name, &one, &warned, 0);
	}
	r = import(p, buf, len, name, opt, &warned, 1);
	if (r == 2)
		r = import(p, buf, len, name, opt, &warned, 0);
	if (r <= 0)
		return r;
	one = *opt;
	one.jobs = 1;
	return import(p, buf, len, name, &one, &warned, 0);
}
