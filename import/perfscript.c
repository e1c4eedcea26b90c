/* SPDX-License-Identifier: GPL-2.0-only */
/* perf script text -> raw profile (perfscript.h).  The lines are those of
 * tools/perf/builtin-script.c (process_event: the sample's fields;
 * perf_sample__fprintf_start: the fields before a sample or a record;
 * perf_sample__fprintf_brstack), util/evsel_fprintf.c
 * (sample__fprintf_callchain: a frame a line) and util/event.c
 * (perf_event__fprintf_mmap2, _mmap, _comm, _task, _lost); the '#' lines
 * are perf_header__fprintf_info's.  What the samples become is decided by
 * import/samples.c, as for perf.data. */
#include <linux/types.h>
#include "../proc/stackdepth.h"	/* MAX_STACK_DEPTH: the kernel's stack depth */
#include "perfscript.h"
#include "samples.h"
#include "../lib/util.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_BYTES (1 << 20)
#define BUILD_ID_TEXT_MAX 20	/* bytes: perf's BUILD_ID_SIZE */
#define PROBE_LINES 64

static int kernel_addr(uint64_t a)
{
	return (int64_t)a < 0;
}

/* How the call-chain frames of user objects are printed: perf 6.3 and
 * older print the DSO offset (map__map_ip), later perf the address. */
enum { FORM_UNKNOWN, FORM_ADDRESS, FORM_OFFSET };

/* The mappings of one file (dso) in one address space, for frames
 * printed as offsets into it. */
struct nmap {
	uint64_t start, end, pgoff;
};

struct named {
	int32_t key;		/* the address space; 0: free slot */
	uint32_t dso;		/* index + 1 into dsos */
	struct nmap *m;
	size_t n, cap;
};

struct frame {
	uint64_t v;		/* as printed */
	uint32_t dso;		/* index + 1 into dsos, 0: none or not mapped */
};

struct event {
	char *name;
	uint64_t samples, period;
	int freq, in_header;
};

struct tok {
	const char *p;
	size_t n;
};

struct ps {
	struct samples s;
	const struct perfdata_options *opt;
	const char *name;
	const char *buf;
	size_t len, lineno;
	int failed, restart;
	int form, guessed;	/* FORM_*; an ambiguous frame read as address */

	/* The fields before PERF_RECORD_ and before a sample's own, as the
	 * first PERF_RECORD line shows them. */
	int layout, l_comm, l_pid, l_cpu, l_time;
	uint64_t mmaps;		/* PERF_RECORD_MMAP lines */
	int32_t all_key;	/* every mapping: samples without pid */

	struct named *named;
	size_t cap_named, nnamed;
	struct strmap dso_index;	/* mapped file names */
	char **dsos;
	size_t ndsos, cap_dsos;
	char *tmp;		/* a NUL-terminated copy of part of a line */
	size_t cap_tmp;

	/* the sample being read */
	int in_chain, pending_empty;
	int selected, has_pid, has_ip, has_time;
	uint32_t pid;
	uint64_t ip, time;
	struct frame *frames;
	size_t nframes, cap_frames;
	uint8_t *br;		/* branch entries: from, to as LE u64 */
	size_t nbr, cap_br;
	uint64_t with_address;	/* samples with an ip or frames */
	int any_brstack;

	struct event *events;
	size_t nevents, cap_events;
	struct perf_host host;	/* the '#' lines of --header */
	uint64_t first_time, last_time;	/* '#' time of first/last sample */
	uint64_t other_samples;
};

/* "NAME: line N: message", once. */
static int fail(struct ps *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail(struct ps *m, const char *fmt, ...)
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

/* s[0..n) NUL-terminated, in m's scratch buffer (valid until the next call). */
static char *cstr(struct ps *m, const char *s, size_t n)
{
	grow(&m->tmp, &m->cap_tmp, n + 1, 1);
	memcpy(m->tmp, s, n);
	m->tmp[n] = '\0';
	return m->tmp;
}

/* A token for messages: at most 60 bytes of it. */
#define TOKF "'%.*s%s'"
#define TOKA(t) (int)((t).n > 60 ? 60 : (t).n), (t).p, (t).n > 60 ? "..." : ""

/* ---- numbers and tokens ---- */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* 1 to 16 hex digits, nothing else. */
static int hexnum(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	if (!n || n > 16)
		return 0;
	for (size_t i = 0; i < n; i++) {
		int d = hexval(s[i]);

		if (d < 0)
			return 0;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return 1;
}

/* printf's %#x: "0x" and hex digits, or "0". */
static int hex0x(const char *s, size_t n, uint64_t *v)
{
	if (n == 1 && s[0] == '0') {
		*v = 0;
		return 1;
	}
	return n > 2 && s[0] == '0' && s[1] == 'x' && hexnum(s + 2, n - 2, v);
}

/* Decimal digits, at most UINT64_MAX. */
static int decnum(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' ||
		    x > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return 0;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return 1;
}

/* A pid or tid: decimal, or -1 (perf's "no process"), as a u32. */
static int pidnum(const char *s, size_t n, uint32_t *v)
{
	uint64_t x;

	if (n == 2 && s[0] == '-' && s[1] == '1') {
		*v = UINT32_MAX;
		return 1;
	}
	if (!decnum(s, n, &x) || x >= UINT32_MAX)
		return 0;
	*v = (uint32_t)x;
	return 1;
}

/* "PID/TID" */
static int pidtid(const struct tok *t, uint32_t *pid)
{
	const char *slash = memchr(t->p, '/', t->n);
	uint32_t tid;

	return slash && pidnum(t->p, (size_t)(slash - t->p), pid) &&
	       pidnum(slash + 1, t->n - (size_t)(slash + 1 - t->p), &tid);
}

/* "SECONDS.FRACTION" (up to 9 digits) as ns. */
static int seconds(const char *s, size_t n, uint64_t *ns)
{
	const char *dot = memchr(s, '.', n);
	size_t nf = dot ? n - (size_t)(dot + 1 - s) : 0;
	uint64_t sec, frac = 0;

	if (!decnum(s, dot ? (size_t)(dot - s) : n, &sec) || sec > UINT64_MAX / 1000000000 - 1 ||
	    nf > 9 || (dot && !decnum(dot + 1, nf, &frac)))
		return 0;
	for (size_t i = nf; i < 9; i++)
		frac *= 10;
	*ns = sec * 1000000000 + frac;
	return 1;
}

static int blank(char c)
{
	return c == ' ' || c == '\t';
}

static int next_tok(const char *l, size_t n, size_t *pos, struct tok *t)
{
	size_t i = *pos;

	while (i < n && blank(l[i]))
		i++;
	t->p = l + i;
	while (i < n && !blank(l[i]))
		i++;
	t->n = (size_t)(l + i - t->p);
	*pos = i;
	return t->n > 0;
}

enum { T_OTHER, T_PIDTID, T_INT, T_CPU, T_TIME };

/* What a field before a sample or record can be. */
static int tok_class(const struct tok *t)
{
	uint64_t v;
	uint32_t p;

	if (pidtid(t, &p))
		return T_PIDTID;
	if (pidnum(t->p, t->n, &p))
		return T_INT;
	if (t->n > 2 && t->p[0] == '[' && t->p[t->n - 1] == ']' &&
	    decnum(t->p + 1, t->n - 2, &v))
		return T_CPU;
	if (t->n > 1 && t->p[t->n - 1] == ':' && seconds(t->p, t->n - 1, &v))
		return T_TIME;
	return T_OTHER;
}

/* An entry of a branch stack starts here: "0xHEX/" or "0xHEX(". */
static int entry_at(const char *l, size_t n, size_t i)
{
	if (n - i < 4 || l[i] != '0' || l[i + 1] != 'x')
		return 0;
	for (i += 2; i < n && hexval(l[i]) >= 0; i++)
		;
	return i < n && (l[i] == '/' || l[i] == '(');
}

/* A call-chain frame: a tab, blanks, an address, then a blank or the end. */
static int frame_line(const char *l, size_t n)
{
	size_t i = 1;

	if (!n || l[0] != '\t')
		return 0;
	while (i < n && l[i] == ' ')
		i++;
	if (i == n || hexval(l[i]) < 0)
		return 0;
	while (i < n && hexval(l[i]) >= 0)
		i++;
	return i == n || blank(l[i]);
}

/* Where "(...)" closing at l[end - 1] opens, or n if it does not. */
static size_t paren_open(const char *l, size_t end)
{
	int depth = 0;

	for (size_t i = end; i-- > 0;) {
		if (l[i] == ')')
			depth++;
		else if (l[i] == '(' && !--depth)
			return i;
	}
	return SIZE_MAX;
}

/* ---- file names and their mappings ---- */

/* The index + 1 of a mapped file name; 0 if no mapping has it (add: make one). */
static uint32_t dso_id(struct ps *m, const char *s, size_t n, int add)
{
	char *c = cstr(m, s, n);
	uint32_t i;

	if (strmap_find(&m->dso_index, c, &i))
		return i + 1;
	if (!add)
		return 0;
	grow(&m->dsos, &m->cap_dsos, m->ndsos + 1, sizeof(*m->dsos));
	m->dsos[m->ndsos] = xstrdup(c);
	strmap_put(&m->dso_index, c, (uint32_t)m->ndsos);
	return (uint32_t)++m->ndsos;
}

static size_t named_hash(int32_t key, uint32_t dso, size_t cap)
{
	uint64_t h = ((uint64_t)(uint32_t)key << 32 | dso) * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h ^ h >> 29) & (cap - 1);
}

static struct named *named_slot(struct named *t, size_t cap, int32_t key,
				uint32_t dso)
{
	size_t i = named_hash(key, dso, cap);

	while (t[i].key && (t[i].key != key || t[i].dso != dso))
		i = (i + 1) & (cap - 1);
	return &t[i];
}

/* Room for n more groups at a load of at most 1/2. */
static void named_reserve(struct ps *m, size_t n)
{
	size_t cap = m->cap_named ? m->cap_named : 64;
	struct named *t;

	if (2 * (m->nnamed + n) <= m->cap_named)
		return;
	while (2 * (m->nnamed + n) > cap)
		cap *= 2;
	t = xcalloc(cap, sizeof(*t));
	for (size_t i = 0; i < m->cap_named; i++)
		if (m->named[i].key)
			*named_slot(t, cap, m->named[i].key, m->named[i].dso) = m->named[i];
	free(m->named);
	m->named = t;
	m->cap_named = cap;
}

static struct named *named_get(struct ps *m, int32_t key, uint32_t dso)
{
	struct named *g;

	if (!m->cap_named)
		return NULL;
	g = named_slot(m->named, m->cap_named, key, dso);
	return g->key ? g : NULL;
}

static void named_add(struct ps *m, int32_t key, uint32_t dso,
		      const struct nmap *e)
{
	struct named *g;

	named_reserve(m, 1);
	g = named_slot(m->named, m->cap_named, key, dso);
	if (!g->key) {
		g->key = key;
		g->dso = dso;
		m->nnamed++;
	}
	grow(&g->m, &g->cap, g->n + 1, sizeof(*g->m));
	g->m[g->n++] = *e;
}

/* A new process: a copy of its parent's named mappings. */
static void named_fork(struct ps *m, int32_t parent, int32_t child)
{
	size_t n = 0, cap;

	for (size_t i = 0; i < m->cap_named; i++)
		n += m->named[i].key == parent;
	named_reserve(m, n);
	cap = m->cap_named;
	for (size_t i = 0; i < cap; i++) {
		const struct named *g = &m->named[i];

		if (g->key == parent)
			for (size_t j = 0; j < g->n; j++)
				named_add(m, child, g->dso, &m->named[i].m[j]);
	}
}

/* The address of a call-chain frame printed as v: the address itself, or
 * an offset into the mappings of its dso in address space key, whichever
 * the mappings allow.  If both do (a non-PIE binary loaded low, larger
 * than its load address), the form of the other frames of the file
 * decides; before any decided, it is read as an address, and the import
 * starts again if the file later turns out to print offsets. */
static uint64_t frame_addr(struct ps *m, int32_t key, const struct frame *f)
{
	const struct named *g;
	int as_addr = 0, as_off = 0, form;
	uint64_t from_off = 0;

	if (!f->dso || kernel_addr(f->v) || !key || !(g = named_get(m, key, f->dso)))
		return f->v;
	for (size_t i = g->n; i-- > 0;) {	/* later mappings shadow earlier */
		const struct nmap *e = &g->m[i];

		as_addr |= f->v >= e->start && f->v < e->end;
		if (!as_off && f->v >= e->pgoff && f->v - e->pgoff < e->end - e->start) {
			as_off = 1;
			from_off = e->start + (f->v - e->pgoff);
		}
	}
	if (as_addr && as_off) {
		if (m->form == FORM_UNKNOWN)
			m->guessed = 1;
		return m->form == FORM_OFFSET ? from_off : f->v;
	}
	if (!as_addr && !as_off)
		return f->v;
	form = as_off ? FORM_OFFSET : FORM_ADDRESS;
	if (m->form == FORM_UNKNOWN) {
		m->form = form;
		m->restart = form == FORM_OFFSET && m->guessed;
	}
	return as_off ? from_off : f->v;
}

/* ---- events ---- */

static struct event *event_get(struct ps *m, const char *name, size_t n)
{
	for (size_t i = 0; i < m->nevents; i++)
		if (strlen(m->events[i].name) == n && !memcmp(m->events[i].name, name, n))
			return &m->events[i];
	grow(&m->events, &m->cap_events, m->nevents + 1, sizeof(*m->events));
	m->events[m->nevents] = (struct event){ .name = xstrdup(cstr(m, name, n)) };
	return &m->events[m->nevents++];
}

/* The only event the header names, or NULL. */
static struct event *only_header_event(struct ps *m)
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

/* ---- '#' lines: perf script --header ---- */

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
	e = event_get(m, v + 7, (size_t)((q ? q : end) - (v + 7)));
	e->in_header = 1;
	if ((p = find(v, n, pf))) {
		p += sizeof(pf) - 1;
		for (q = p; q < end && *q >= '0' && *q <= '9'; q++)
			;
		if (decnum(p, (size_t)(q - p), &x))
			e->period = x;
	}
	e->freq = find(v, n, ", freq = 1") != NULL;
}

static void comment_line(struct ps *m, const char *l, size_t n)
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
		seconds(v, vn, &m->first_time);
	else if (kn == 19 && !memcmp(k, "time of last sample", 19))
		seconds(v, vn, &m->last_time);
}

/* ---- PERF_RECORD lines ---- */

/* The fields before "PERF_RECORD_" (l[0..at)): comm, pid/tid or pid,
 * [cpu], time:, each if perf script was asked for it.  The first such
 * line tells which the samples have too. */
static int learn_layout(struct ps *m, const char *l, size_t at)
{
	size_t pos = 0;
	struct tok t;
	int c = T_OTHER;

	while (next_tok(l, at, &pos, &t) && (c = tok_class(&t)) == T_OTHER)
		m->l_comm = 1;
	if (t.n && (c == T_PIDTID || c == T_INT)) {
		m->l_pid = c == T_PIDTID ? 1 : 2;
		if (next_tok(l, at, &pos, &t))
			c = tok_class(&t);
	}
	if (t.n && c == T_CPU) {
		m->l_cpu = 1;
		if (next_tok(l, at, &pos, &t))
			c = tok_class(&t);
	}
	if (t.n && c == T_TIME) {
		m->l_time = 1;
		next_tok(l, at, &pos, &t);
	}
	if (t.n)
		return fail(m, TOKF " before PERF_RECORD_ is none of the fields comm, pid/tid, [cpu], time",
			    TOKA(t));
	m->layout = 1;
	return 0;
}

/* A little scanner for the fixed text of a record. */
struct scan {
	const char *p;
	size_t n, i;
	int bad;
};

static void sc_lit(struct scan *s, const char *lit)
{
	size_t k = strlen(lit);

	if (s->bad || s->n - s->i < k || memcmp(s->p + s->i, lit, k))
		s->bad = 1;
	else
		s->i += k;
}

/* The text up to (not including) stop, or to the end if stop is 0. */
static struct tok sc_until(struct scan *s, char stop)
{
	struct tok t = { s->p + s->i, 0 };

	while (!s->bad && s->i < s->n && s->p[s->i] != stop)
		s->i++, t.n++;
	if (stop && s->i == s->n)
		s->bad = 1;
	return t;
}

static uint64_t sc_hex0x(struct scan *s, const char *stops)
{
	struct tok t = { s->p + s->i, 0 };
	uint64_t v = 0;

	while (!s->bad && s->i < s->n && !strchr(stops, s->p[s->i]))
		s->i++, t.n++;
	if (!s->bad && !hex0x(t.p, t.n, &v))
		s->bad = 1;
	return v;
}

static uint32_t sc_pid(struct scan *s, char stop)
{
	struct tok t = sc_until(s, stop);
	uint32_t v = 0;

	if (!s->bad && !pidnum(t.p, t.n, &v))
		s->bad = 1;
	return v;
}

/* " PID/TID: [0xSTART(0xLEN) @ PGOFF MAJ:MIN INO GEN]: PROT PATH" (MMAP2,
 * or "@ PGOFF <BUILD-ID>]"), " PID/TID: [0xSTART(0xLEN) @ PGOFF]: x PATH"
 * (MMAP; 'r' for data). */
static int mmap_line(struct ps *m, const char *r, size_t n, int v2)
{
	struct scan s = { r, n, 0, 0 };
	uint8_t id[BUILD_ID_TEXT_MAX];
	uint32_t pid, idlen = 0, dso;
	uint64_t start, len, pgoff;
	struct tok prot, path, hex = { 0 };
	int exec;

	sc_lit(&s, " ");
	pid = sc_pid(&s, '/');
	sc_lit(&s, "/");
	sc_pid(&s, ':');
	sc_lit(&s, ": [");
	start = sc_hex0x(&s, "(");
	sc_lit(&s, "(");
	len = sc_hex0x(&s, ")");
	sc_lit(&s, ") @ ");
	pgoff = sc_hex0x(&s, v2 ? " " : "]");
	if (v2) {
		sc_lit(&s, " ");
		if (!s.bad && s.i < n && r[s.i] == '<') {
			sc_lit(&s, "<");
			hex = sc_until(&s, '>');
			sc_lit(&s, ">");
		} else {
			sc_until(&s, ']');
		}
	}
	sc_lit(&s, "]: ");
	prot = sc_until(&s, ' ');
	sc_lit(&s, " ");
	path = sc_until(&s, 0);
	if (s.bad || !path.n || !prot.n)
		return fail(m, "not a PERF_RECORD_MMAP%s line of perf script: expected \"PID/TID: [0xSTART(0xLEN) @ PGOFF%s]: %s PATH\"",
			    v2 ? "2" : "", v2 ? " MAJ:MIN INODE GENERATION" : "", v2 ? "PROT" : "x");
	if (v2 && (prot.n != 4 || !strchr("r-", prot.p[0]) || !strchr("w-", prot.p[1]) ||
		   !strchr("x-", prot.p[2]) || !strchr("sp", prot.p[3])))
		return fail(m, "mapping protection " TOKF " is not like r-xp", TOKA(prot));
	if (!v2 && (prot.n != 1 || !strchr("xr", prot.p[0])))
		return fail(m, "mapping kind " TOKF " is neither x nor r", TOKA(prot));
	if (start + len < start)
		return fail(m, "mapping at 0x%" PRIx64 " of 0x%" PRIx64 " bytes runs past the end of the address space",
			    start, len);
	if (hex.p) {
		if (!hex.n || hex.n % 2 || hex.n > 2 * BUILD_ID_TEXT_MAX)
			return fail(m, "build-ID <%.*s> is not 1 to %d bytes in hex",
				    (int)(hex.n > 60 ? 60 : hex.n), hex.p, BUILD_ID_TEXT_MAX);
		for (idlen = 0; idlen < hex.n / 2; idlen++) {
			int hi = hexval(hex.p[2 * idlen]), lo = hexval(hex.p[2 * idlen + 1]);

			if (hi < 0 || lo < 0)
				return fail(m, "build-ID <%.*s> is not 1 to %d bytes in hex",
					    (int)(hex.n > 60 ? 60 : hex.n), hex.p, BUILD_ID_TEXT_MAX);
			id[idlen] = (uint8_t)(hi << 4 | lo);
		}
	}
	m->mmaps++;
	exec = v2 ? prot.p[2] == 'x' : prot.p[0] == 'x';
	if (!exec || pid == UINT32_MAX)	/* data, or the kernel's */
		return 0;
	dso = dso_id(m, path.p, path.n, 1);
	samples_add_mapping(&m->s, pid, start, len, pgoff, idlen ? id : NULL, idlen,
			    m->dsos[dso - 1]);
	samples_map(&m->s, m->all_key, start, len, pgoff, idlen ? id : NULL, idlen,
		    m->dsos[dso - 1]);
	named_add(m, samples_key(&m->s, pid), dso, &(struct nmap){ start, start + len, pgoff });
	named_add(m, m->all_key, dso, &(struct nmap){ start, start + len, pgoff });
	return 0;
}

static int record_line(struct ps *m, const char *l, size_t n, size_t at)
{
	static const char exec[] = "PERF_RECORD_COMM exec: ";
	const char *r = l + at;
	size_t rn = n - at;

	if (!m->layout && learn_layout(m, l, at))
		return -1;
	if (rn >= 17 && !memcmp(r, "PERF_RECORD_MMAP2", 17))
		return mmap_line(m, r + 17, rn - 17, 1);
	if (rn >= 16 && !memcmp(r, "PERF_RECORD_MMAP", 16) && (rn == 16 || r[16] == ' '))
		return mmap_line(m, r + 16, rn - 16, 0);
	if (rn >= sizeof(exec) - 1 && !memcmp(r, exec, sizeof(exec) - 1)) {
		/* "COMM:PID/TID": the comm may hold ':' */
		const char *c = r + rn;
		struct tok t;
		uint32_t pid;

		while (c > r && c[-1] != ':')
			c--;
		t = (struct tok){ c, rn - (size_t)(c - r) };
		if (c == r + sizeof(exec) - 1 || !pidtid(&t, &pid))
			return fail(m, "expected PERF_RECORD_COMM exec: COMM:PID/TID");
		samples_exec(&m->s, pid);
		return 0;
	}
	if (rn >= 17 && !memcmp(r, "PERF_RECORD_FORK(", 17)) {
		struct scan s = { r, rn, 17, 0 };
		uint32_t pid, ppid;
		int32_t parent;

		pid = sc_pid(&s, ':');
		sc_lit(&s, ":");
		sc_pid(&s, ')');
		sc_lit(&s, "):(");
		ppid = sc_pid(&s, ':');
		sc_lit(&s, ":");
		sc_pid(&s, ')');
		sc_lit(&s, ")");
		if (s.bad || s.i != rn)
			return fail(m, "expected PERF_RECORD_FORK(PID:TID):(PPID:PTID)");
		/* A new process starts with a copy of its parent's mappings;
		 * a new thread shares them already. */
		parent = samples_key(&m->s, ppid);
		if (pid != ppid) {
			samples_fork(&m->s, ppid, pid);
			if (parent)
				named_fork(m, parent, samples_key(&m->s, pid));
		}
		return 0;
	}
	if (rn >= 17 && !memcmp(r, "PERF_RECORD_LOST ", 17)) {
		uint64_t lost;
		struct tok t = { r + 17, rn - 17 };

		if (t.n < 6 || memcmp(t.p, "lost ", 5) || !decnum(t.p + 5, t.n - 5, &lost))
			return fail(m, "expected PERF_RECORD_LOST lost COUNT");
		m->s.lost_records += lost;
	}
	return 0;	/* other records: nothing that counts */
}

/* ---- samples ---- */

static void add_frame(struct ps *m, const char *l, size_t n)
{
	size_t pos = 0, end, open;
	struct tok t;
	uint64_t v;
	uint32_t dso = 0;

	if (!frame_line(l, n) || (next_tok(l, n, &pos, &t), !hexnum(t.p, t.n, &v))) {
		next_tok(l, n, &(size_t){ 0 }, &t);
		fail(m, "call-chain frame " TOKF " does not start with an address of 1 to 16 hex digits",
		     TOKA(t));
		return;
	}
	for (end = n; end > pos && blank(l[end - 1]); end--)
		;
	/* " (dso)" last: a '(' after a blank (a symbol's own parentheses
	 * follow its name), or " (inlined)" for a frame of an inlined
	 * function that perf adds, which the perf.data does not have. */
	if (end > pos && l[end - 1] == ')' && (open = paren_open(l, end)) != SIZE_MAX &&
	    blank(l[open - 1])) {
		if (end - open == 9 && !memcmp(l + open, "(inlined)", 9))
			return;
		dso = dso_id(m, l + open + 1, end - open - 2, 0);
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

	if (!entry_at(l, n, *pos) && !(n - *pos > 2 && l[*pos] == '0' && l[*pos + 1] == 'x'))
		return 0;
	while (i < n && hexval(l[i]) >= 0)
		i++;
	if (!hexnum(l + s, i - s, v))
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

/* The branch stack at l[pos..n): "0xFROM/0xTO/FLAGS" entries, newest
 * first, separated by blanks (perf script -F brstack). */
static int parse_brstack(struct ps *m, const char *l, size_t n, size_t pos)
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
			return fail(m, "branch entry " TOKF " is not 0xFROM/0xTO/...: give perf script -F brstack (not brstacksym)",
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

/* The sample read so far goes into the profile. */
static void end_sample(struct ps *m)
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
		uint64_t a = frame_addr(m, key, &m->frames[i]);

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
		if (!next_tok(l, n, &p, &t)) {
			snprintf(why, wn, "expected the comm field, as in the PERF_RECORD lines%s", fields);
			return -1;
		}
		save = p;
		while (anchor >= 0 && next_tok(l, n, &save, &t) && tok_class(&t) != anchor)
			p = save;
	}
	if (m->l_pid) {
		if (!next_tok(l, n, &p, &t) || tok_class(&t) != (m->l_pid == 1 ? T_PIDTID : T_INT)) {
			snprintf(why, wn, "expected %s as in the PERF_RECORD lines, not " TOKF "%s",
				 m->l_pid == 1 ? "PID/TID" : "the pid", TOKA(t), fields);
			return -1;
		}
		if (m->l_pid == 1)
			pidtid(&t, &f->pid);
		else
			pidnum(t.p, t.n, &f->pid);
		f->has_pid = 1;
	}
	if (m->l_cpu && (!next_tok(l, n, &p, &t) || tok_class(&t) != T_CPU)) {
		snprintf(why, wn, "expected [CPU] as in the PERF_RECORD lines, not " TOKF "%s",
			 TOKA(t), fields);
		return -1;
	}
	if (m->l_time) {
		if (!next_tok(l, n, &p, &t) || tok_class(&t) != T_TIME) {
			snprintf(why, wn, "expected the time as in the PERF_RECORD lines, not " TOKF "%s",
				 TOKA(t), fields);
			return -1;
		}
		f->has_time = seconds(t.p, t.n - 1, &f->time);
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

	return next_tok(l, n, &i, &t) && hexnum(t.p, t.n, &v) &&
	       next_tok(l, n, &i, &t) && entry_at(t.p, t.n, 0);
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
			return fail(m, "%s", why);
		p = 0;
	}
	m->has_pid = f.has_pid;
	m->pid = f.pid;
	m->has_time = f.has_time;
	m->time = f.time;
	/* period (before event only), then "event:" */
	save = p;
	if (next_tok(l, n, &save, &t) && decnum(t.p, t.n, &v) &&
	    next_tok(l, n, &(size_t){ save }, &e) && e.p[e.n - 1] == ':')
		p = save;
	save = p;
	if (next_tok(l, n, &save, &t) && t.p[t.n - 1] == ':') {
		ev = event_get(m, t.p, t.n - 1);
		p = save;
	} else {
		ev = only_header_event(m);
		if (!ev && m->opt->event)
			return fail(m, "--event needs the event field (perf script -F ...,event)");
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

static int sample_line(struct ps *m, const char *l, size_t n)
{
	size_t pos = 0, at;
	struct tok t;

	if (!m->mmaps)
		return fail(m, "a sample before any PERF_RECORD_MMAP line: run perf script with --show-mmap-events");
	if (sample_fields(m, l, n, &pos))
		return -1;
	at = pos;
	if (!next_tok(l, n, &at, &t)) {	/* its call chain follows */
		m->in_chain = 1;
		return 0;
	}
	if (entry_at(t.p, t.n, 0))	/* a branch stack, no ip */
		return parse_brstack(m, l, n, pos) ? -1 : (end_sample(m), 0);
	if (!hexnum(t.p, t.n, &m->ip))
		return fail(m, "expected the sample's address (hex), not " TOKF, TOKA(t));
	m->has_ip = 1;
	/* sym and (dso), then the branch stack, if any */
	for (pos = at; pos < n && !(blank(l[pos - 1]) && entry_at(l, n, pos)); pos++)
		;
	if (brstack_flags(l + at, pos - at))
		return fail(m, "branch entries by symbol (brstacksym): give perf script -F brstack");
	if (parse_brstack(m, l, n, pos))
		return -1;
	end_sample(m);
	return 0;
}

static void do_line(struct ps *m, const char *l, size_t n)
{
	const char *rec;
	size_t i = 0;

	if (m->in_chain) {
		if (n && l[0] == '\t') {
			add_frame(m, l, n);
			return;
		}
		while (i < n && blank(l[i]))
			i++;
		if (i == n) {	/* the end of the sample */
			end_sample(m);
			return;
		}
		if (entry_at(l, n, i)) {	/* its branch stack */
			if (!parse_brstack(m, l, n, i))
				end_sample(m);
			return;
		}
		end_sample(m);
	}
	if (n && l[0] == '#') {
		comment_line(m, l, n);
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
			fail(m, "a call-chain frame that follows no sample");
			return;
		}
		m->pending_empty = 0;
		if (sample_line(m, "", 0))
			return;
		add_frame(m, l, n);
		return;
	}
	m->pending_empty = 0;
	rec = memmem(l, n, "PERF_RECORD_", 12);
	if (rec)
		record_line(m, l, n, (size_t)(rec - l));
	else
		sample_line(m, l, n);
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
		return fail(m, "no PERF_RECORD_MMAP lines: run perf script with --show-mmap-events");
	if (m->s.taken && !m->with_address)
		return fail(m, "no sample has an address: give perf script the ip field (-F ip,...)");
	if (m->opt->event && !m->s.taken) {
		char list[512] = "";
		size_t n = 0;

		for (size_t i = 0; i < m->nevents && n < sizeof(list) - 1; i++)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
					      n ? ", " : "", m->events[i].name);
		return fail(m, "no sample of an event named '%s'; its events: %s",
			    m->opt->event, n ? list : "none named");
	}
	return 0;
}

static void ps_free(struct ps *m)
{
	samples_free(&m->s);
	for (size_t i = 0; i < m->cap_named; i++)
		free(m->named[i].m);
	free(m->named);
	strmap_free(&m->dso_index);
	for (size_t i = 0; i < m->ndsos; i++)
		free(m->dsos[i]);
	free(m->dsos);
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
			fail(m, "longer than %d bytes", LINE_MAX_BYTES);
			break;
		}
		if (memchr(l, '\0', n)) {
			fail(m, "a NUL byte: not the text of perf script");
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
		end_sample(m);
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
		if (memmem(l, n, "PERF_RECORD_", 12) || frame_line(l, n))
			return 1;
		/* "IP 0xFROM/0xTO/..." of perf script -F ip,brstack */
		if (next_tok(l, n, &i, &t) && hexnum(t.p, t.n, &v) &&
		    next_tok(l, n, &i, &t) && entry_at(t.p, t.n, 0))
			return 1;
	}
	return 0;
}
