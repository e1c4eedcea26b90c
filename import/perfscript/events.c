/* SPDX-License-Identifier: GPL-2.0-only */
/* perf script text: the events (of the '# event' lines and the samples'
 * event fields), and the other '#' lines of perf script --header
 * (perf_header__fprintf_info): host, kernel, perf version, command line,
 * sample times (internal.h). */
#include "internal.h"
#include "../../lib/util.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct event *ps_event_get(struct ps *m, const char *name, size_t n)
{
	for (size_t i = 0; i < m->nevents; i++)
		if (strlen(m->events[i].name) == n && !memcmp(m->events[i].name, name, n))
			return &m->events[i];
	grow(&m->events, &m->cap_events, m->nevents + 1, sizeof(*m->events));
	m->events[m->nevents] = (struct event){ .name = xstrdup(ps_cstr(m, name, n)) };
	return &m->events[m->nevents++];
}

struct event *ps_only_header_event(struct ps *m)
{
	struct event *e = NULL;

	for (size_t i = 0; i < m->nevents; i++) {
		if (!m->events[i].in_header)
			continue;
		if (e)
			return NULL;
		e = &m->events[i];
	}
	return e;
}

static char *dup_trimmed(const char *s, size_t n)
{
	while (n && blank(s[n - 1]))
		n--;
	while (n && blank(*s))
		s++, n--;
	{
		char *d = xmalloc(n + 1);

		memcpy(d, s, n);
		d[n] = '\0';
		return d;
	}
}

static const char *find(const char *s, size_t n, const char *what)
{
	return memmem(s, n, what, strlen(what));
}

/* "# event : name = NAME, ..., { sample_period, sample_freq } = N, ..., freq = 1, ..." */
static void header_event(struct ps *m, const char *v, size_t n)
{
	static const char pf[] = "{ sample_period, sample_freq } = ";
	const char *end = v + n, *p, *q;
	struct event *e;
	uint64_t x;

	if (n < 7 || memcmp(v, "name = ", 7))
		return;
	q = find(v + 7, n - 7, ",");
	e = ps_event_get(m, v + 7, (size_t)((q ? q : end) - (v + 7)));
	e->in_header = 1;
	if ((p = find(v, n, pf))) {
		p += sizeof(pf) - 1;
		for (q = p; q < end && *q >= '0' && *q <= '9'; q++)
			;
		if (ps_decnum(p, (size_t)(q - p), &x))
			e->period = x;
	}
	e->freq = find(v, n, ", freq = 1") != NULL;
}

void ps_comment_line(struct ps *m, const char *l, size_t n)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "hostname", offsetof(struct ps, host.hostname) },
		{ "os release", offsetof(struct ps, host.osrelease) },
		{ "arch", offsetof(struct ps, host.arch) },
		{ "perf version", offsetof(struct ps, host.version) },
		{ "cmdline", offsetof(struct ps, host.cmdline) },
	};
	const char *sep = find(l, n, " : ");
	size_t kn, vn;
	const char *k, *v;

	if (n < 2 || l[1] != ' ' || !sep)
		return;
	k = l + 2;
	kn = (size_t)(sep - k);
	v = sep + 3;
	vn = n - (size_t)(v - l);
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (strlen(keys[i].key) == kn && !memcmp(k, keys[i].key, kn)) {
			char **dst = (char **)((char *)m + keys[i].off);

			free(*dst);
			*dst = dup_trimmed(v, vn);
			return;
		}
	if (kn == 5 && !memcmp(k, "event", 5))
		header_event(m, v, vn);
	else if (kn == 20 && !memcmp(k, "time of first sample", 20))
		ps_seconds(v, vn, &m->first_time);
	else if (kn == 19 && !memcmp(k, "time of last sample", 19))
		ps_seconds(v, vn, &m->last_time);
}
