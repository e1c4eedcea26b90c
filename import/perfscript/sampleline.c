/* SPDX-License-Identifier: GPL-2.0-only */
/* perf script text: a sample's lines (builtin-script.c process_event,
 * perf_sample__fprintf_brstack; util/evsel_fprintf.c
 * sample__fprintf_callchain): its fields, its ip, call chain and branch
 * stack, and what it adds to the profile, by import/samples.c's rules
 * (internal.h). */
#include "internal.h"
#include "../../proc/stackdepth.h"	/* MAX_STACK_DEPTH: the kernel's stack depth */
#include "../../lib/util.h"

#include <stdio.h>
#include <string.h>

void ps_add_frame(struct ps *m, const char *l, size_t n)
{
	size_t pos = 0, end, open;
	struct tok t;
	uint64_t v;
	uint32_t dso = 0;

	if (!ps_frame_line(l, n) || (ps_next_tok(l, n, &pos, &t), !ps_hexnum(t.p, t.n, &v))) {
		ps_next_tok(l, n, &(size_t){ 0 }, &t);
		ps_fail(m, "call-chain frame " TOKF " does not start with an address of 1 to 16 hex digits",
			TOKA(t));
		return;
	}
	for (end = n; end > pos && blank(l[end - 1]); end--)
		;
	/* " (dso)" last: a '(' after a blank (a symbol's own parentheses
	 * follow its name), or " (inlined)" for a frame of an inlined
	 * function that perf adds, which the perf.data does not have. */
	if (end > pos && l[end - 1] == ')' && (open = ps_paren_open(l, end)) != SIZE_MAX &&
	    blank(l[open - 1])) {
		if (end - open == 9 && !memcmp(l + open, "(inlined)", 9))
			return;
		dso = ps_dso_id(m, l + open + 1, end - open - 2, 0);
	}
	grow(&m->frames, &m->cap_frames, m->nframes + 1, sizeof(*m->frames));
	m->frames[m->nframes++] = (struct frame){ v, dso };
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

/* "0xHEX" and, with the dso field, "(dso)" after it. */
static int entry_addr(const char *l, size_t n, size_t *pos, uint64_t *v)
{
	size_t i = *pos + 2, s = i;

	if (!ps_entry_at(l, n, *pos) && !(n - *pos > 2 && l[*pos] == '0' && l[*pos + 1] == 'x'))
		return 0;
	while (i < n && hexval(l[i]) >= 0)
		i++;
	if (!ps_hexnum(l + s, i - s, v))
		return 0;
	if (i < n && l[i] == '(') {
		int depth = 0;

		for (; i < n; i++) {
			depth += l[i] == '(';
			depth -= l[i] == ')';
			if (!depth)
				break;
		}
		if (i == n)
			return 0;
		i++;
	}
	*pos = i;
	return 1;
}

int ps_parse_brstack(struct ps *m, const char *l, size_t n, size_t pos)
{
	for (;;) {
		size_t at;
		uint64_t from, to;

		while (pos < n && blank(l[pos]))
			pos++;
		if (pos == n)
			return 0;
		at = pos;
		if (!entry_addr(l, n, &pos, &from) || pos == n || l[pos] != '/' ||
		    (pos++, !entry_addr(l, n, &pos, &to)) ||
		    (pos < n && l[pos] != '/' && !blank(l[pos]))) {
			struct tok t = { l + at, 0 };

			while (at + t.n < n && !blank(l[at + t.n]))
				t.n++;
			return ps_fail(m, "branch entry " TOKF " is not 0xFROM/0xTO/...: give perf script -F brstack (not brstacksym)",
				       TOKA(t));
		}
		while (pos < n && !blank(l[pos]))
			pos++;
		grow(&m->br, &m->cap_br, 16 * (m->nbr + 1), 1);
		put64(m->br + 16 * m->nbr, from);
		put64(m->br + 16 * m->nbr + 8, to);
		m->nbr++;
	}
}

void ps_end_sample(struct ps *m)
{
	uint64_t ips[MAX_STACK_DEPTH], leaf;
	size_t nips = 0;
	int chained;
	int32_t key;

	m->in_chain = 0;
	if (!m->selected) {
		m->other_samples++;
		goto out;
	}
	m->s.taken++;
	if (m->has_time)
		samples_time(&m->s, m->time);
	key = m->has_pid ? samples_key(&m->s, m->pid) : m->all_key;
	if (!m->has_ip && !m->nframes) {
		m->s.no_user_stack++;
		goto branches;
	}
	m->with_address++;
	leaf = m->has_ip ? m->ip : m->frames[0].v;
	for (size_t i = 0; i < m->nframes && nips < MAX_STACK_DEPTH; i++) {
		uint64_t a = ps_frame_addr(m, key, &m->frames[i]);

		if (kernel_addr(a) && nips)
			break;
		if (!kernel_addr(a))
			ips[nips++] = a;
	}
	/* Kernel samples (as in pgoprof-record): no user IP, the user stack
	 * that entered the kernel under the kernel mark; their branch
	 * records are not used. */
	if (kernel_addr(leaf)) {
		samples_add_kernel(&m->s, key, ips, nips);
		goto out;
	}
	chained = nips > 0;
	if (!nips)
		ips[nips++] = m->ip;
	samples_add_stack(&m->s, key, ips, nips, chained);
branches:
	if (m->nbr) {
		samples_add_branches(&m->s, key, m->br, m->nbr, 16, 1);
		m->any_brstack = 1;
	}
out:
	m->nframes = 0;
	m->nbr = 0;
	m->has_ip = 0;
}

/* The fields before a sample's own (comm, pid, cpu, time), as the
 * PERF_RECORD lines show them. */
struct prefix {
	uint32_t pid;
	int has_pid, has_time;
	uint64_t time;
};

/* 0, or -1 with why it is not such fields in why[0..wn). */
static int read_prefix(const struct ps *m, const char *l, size_t n, size_t *pos,
		       struct prefix *f, char *why, size_t wn)
{
	static const char fields[] = " (perf script fields read: comm, pid, tid, cpu, time, period, event, ip, sym, symoff, dso, brstack)";
	int anchor = m->l_pid == 1 ? T_PIDTID : m->l_pid ? T_INT :
		     m->l_cpu ? T_CPU : m->l_time ? T_TIME : -1;
	size_t p = *pos, save;
	struct tok t = { l, 0 };

	if (m->l_comm) {	/* the comm may hold blanks */
		if (!ps_next_tok(l, n, &p, &t)) {
			snprintf(why, wn, "expected the comm field, as in the PERF_RECORD lines%s", fields);
			return -1;
		}
		save = p;
		while (anchor >= 0 && ps_next_tok(l, n, &save, &t) && ps_tok_class(&t) != anchor)
			p = save;
	}
	if (m->l_pid) {
		if (!ps_next_tok(l, n, &p, &t) || ps_tok_class(&t) != (m->l_pid == 1 ? T_PIDTID : T_INT)) {
			snprintf(why, wn, "expected %s as in the PERF_RECORD lines, not " TOKF "%s",
				 m->l_pid == 1 ? "PID/TID" : "the pid", TOKA(t), fields);
			return -1;
		}
		if (m->l_pid == 1)
			ps_pidtid(&t, &f->pid);
		else
			ps_pidnum(t.p, t.n, &f->pid);
		f->has_pid = 1;
	}
	if (m->l_cpu && (!ps_next_tok(l, n, &p, &t) || ps_tok_class(&t) != T_CPU)) {
		snprintf(why, wn, "expected [CPU] as in the PERF_RECORD lines, not " TOKF "%s",
			 TOKA(t), fields);
		return -1;
	}
	if (m->l_time) {
		if (!ps_next_tok(l, n, &p, &t) || ps_tok_class(&t) != T_TIME) {
			snprintf(why, wn, "expected the time as in the PERF_RECORD lines, not " TOKF "%s",
				 TOKA(t), fields);
			return -1;
		}
		f->has_time = ps_seconds(t.p, t.n - 1, &f->time);
	}
	*pos = p;
	return 0;
}

/* "IP 0xFROM/0xTO/..." alone: a sample of perf script -F ip,brstack. */
static int lbr_sample(const char *l, size_t n)
{
	size_t i = 0;
	struct tok t;
	uint64_t v;

	return ps_next_tok(l, n, &i, &t) && ps_hexnum(t.p, t.n, &v) &&
	       ps_next_tok(l, n, &i, &t) && ps_entry_at(t.p, t.n, 0);
}

/* The fields of a sample before its address: those of read_prefix(), then
 * period and event. */
static int sample_fields(struct ps *m, const char *l, size_t n, size_t *pos)
{
	struct prefix f = { 0 };
	size_t p = 0, save;
	struct tok t, e;
	struct event *ev;
	char why[512];
	uint64_t v;

	if (read_prefix(m, l, n, &p, &f, why, sizeof(why))) {
		/* Branch-stack samples written for llvm-profgen may have
		 * no fields though the PERF_RECORD_MMAP2 lines have some
		 * (llvm-profgen reads them so): no pid. */
		if (!lbr_sample(l, n) || m->opt->event)
			return ps_fail(m, "%s", why);
		p = 0;
	}
	m->has_pid = f.has_pid;
	m->pid = f.pid;
	m->has_time = f.has_time;
	m->time = f.time;
	/* period (before event only), then "event:" */
	save = p;
	if (ps_next_tok(l, n, &save, &t) && ps_decnum(t.p, t.n, &v) &&
	    ps_next_tok(l, n, &(size_t){ save }, &e) && e.p[e.n - 1] == ':')
		p = save;
	save = p;
	if (ps_next_tok(l, n, &save, &t) && t.p[t.n - 1] == ':') {
		ev = ps_event_get(m, t.p, t.n - 1);
		p = save;
	} else {
		ev = ps_only_header_event(m);
		if (!ev && m->opt->event)
			return ps_fail(m, "--event needs the event field (perf script -F ...,event)");
	}
	m->selected = !m->opt->event || !strcmp(ev->name, m->opt->event);
	if (ev && m->selected)
		ev->samples++;
	*pos = p;
	return 0;
}

/* The flags of a branch entry, "/P/-/" (predicted, not in a transaction),
 * in the text between a sample's ip and its branch stack: its entries are
 * not in hex (brstacksym). */
static int brstack_flags(const char *s, size_t n)
{
	for (size_t i = 0; i + 5 <= n; i++)
		if (s[i] == '/' && strchr("PM-", s[i + 1]) && s[i + 2] == '/' &&
		    strchr("X-", s[i + 3]) && s[i + 4] == '/')
			return 1;
	return 0;
}

int ps_sample_line(struct ps *m, const char *l, size_t n)
{
	size_t pos = 0, at;
	struct tok t;

	if (!m->mmaps)
		return ps_fail(m, "a sample before any PERF_RECORD_MMAP line: run perf script with --show-mmap-events");
	if (sample_fields(m, l, n, &pos))
		return -1;
	at = pos;
	if (!ps_next_tok(l, n, &at, &t)) {	/* its call chain follows */
		m->in_chain = 1;
		return 0;
	}
	if (ps_entry_at(t.p, t.n, 0))	/* a branch stack, no ip */
		return ps_parse_brstack(m, l, n, pos) ? -1 : (ps_end_sample(m), 0);
	if (!ps_hexnum(t.p, t.n, &m->ip))
		return ps_fail(m, "expected the sample's address (hex), not " TOKF, TOKA(t));
	m->has_ip = 1;
	/* sym and (dso), then the branch stack, if any */
	for (pos = at; pos < n && !(blank(l[pos - 1]) && ps_entry_at(l, n, pos)); pos++)
		;
	if (brstack_flags(l + at, pos - at))
		return ps_fail(m, "branch entries by symbol (brstacksym): give perf script -F brstack");
	if (ps_parse_brstack(m, l, n, pos))
		return -1;
	ps_end_sample(m);
	return 0;
}
