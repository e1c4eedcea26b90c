/* SPDX-License-Identifier: GPL-2.0-only */
/* perf script text: the PERF_RECORD_ lines (util/event.c
 * perf_event__fprintf_mmap2, _mmap, _comm, _task, _lost): the
 * executable mappings, exec, fork, lost records (internal.h). */
#include "internal.h"

#include <inttypes.h>
#include <string.h>

#define BUILD_ID_TEXT_MAX 20	/* bytes: perf's BUILD_ID_SIZE */

/* The fields before "PERF_RECORD_" (l[0..at)): comm, pid/tid or pid,
 * [cpu], time:, each if perf script was asked for it.  The first such
 * line tells which the samples have too. */
static int learn_layout(struct ps *m, const char *l, size_t at)
{
	size_t pos = 0;
	struct tok t;
	int c = T_OTHER;

	while (ps_next_tok(l, at, &pos, &t) && (c = ps_tok_class(&t)) == T_OTHER)
		m->l_comm = 1;
	if (t.n && (c == T_PIDTID || c == T_INT)) {
		m->l_pid = c == T_PIDTID ? 1 : 2;
		if (ps_next_tok(l, at, &pos, &t))
			c = ps_tok_class(&t);
	}
	if (t.n && c == T_CPU) {
		m->l_cpu = 1;
		if (ps_next_tok(l, at, &pos, &t))
			c = ps_tok_class(&t);
	}
	if (t.n && c == T_TIME) {
		m->l_time = 1;
		ps_next_tok(l, at, &pos, &t);
	}
	if (t.n)
		return ps_fail(m, TOKF " before PERF_RECORD_ is none of the fields comm, pid/tid, [cpu], time",
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
	if (!s->bad && !ps_hex0x(t.p, t.n, &v))
		s->bad = 1;
	return v;
}

static uint32_t sc_pid(struct scan *s, char stop)
{
	struct tok t = sc_until(s, stop);
	uint32_t v = 0;

	if (!s->bad && !ps_pidnum(t.p, t.n, &v))
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
		return ps_fail(m, "not a PERF_RECORD_MMAP%s line of perf script: expected \"PID/TID: [0xSTART(0xLEN) @ PGOFF%s]: %s PATH\"",
			       v2 ? "2" : "", v2 ? " MAJ:MIN INODE GENERATION" : "", v2 ? "PROT" : "x");
	if (v2 && (prot.n != 4 || !strchr("r-", prot.p[0]) || !strchr("w-", prot.p[1]) ||
		   !strchr("x-", prot.p[2]) || !strchr("sp", prot.p[3])))
		return ps_fail(m, "mapping protection " TOKF " is not like r-xp", TOKA(prot));
	if (!v2 && (prot.n != 1 || !strchr("xr", prot.p[0])))
		return ps_fail(m, "mapping kind " TOKF " is neither x nor r", TOKA(prot));
	if (start + len < start)
		return ps_fail(m, "mapping at 0x%" PRIx64 " of 0x%" PRIx64 " bytes runs past the end of the address space",
			       start, len);
	if (hex.p) {
		if (!hex.n || hex.n % 2 || hex.n > 2 * BUILD_ID_TEXT_MAX)
			return ps_fail(m, "build-ID <%.*s> is not 1 to %d bytes in hex",
				       (int)(hex.n > 60 ? 60 : hex.n), hex.p, BUILD_ID_TEXT_MAX);
		for (idlen = 0; idlen < hex.n / 2; idlen++) {
			int hi = hexval(hex.p[2 * idlen]), lo = hexval(hex.p[2 * idlen + 1]);

			if (hi < 0 || lo < 0)
				return ps_fail(m, "build-ID <%.*s> is not 1 to %d bytes in hex",
					       (int)(hex.n > 60 ? 60 : hex.n), hex.p, BUILD_ID_TEXT_MAX);
			id[idlen] = (uint8_t)(hi << 4 | lo);
		}
	}
	m->mmaps++;
	exec = v2 ? prot.p[2] == 'x' : prot.p[0] == 'x';
	if (!exec || pid == UINT32_MAX)	/* data, or the kernel's */
		return 0;
	dso = ps_dso_id(m, path.p, path.n, 1);
	samples_add_mapping(&m->s, pid, start, len, pgoff, idlen ? id : NULL, idlen,
			    m->dsos[dso - 1]);
	samples_map(&m->s, m->all_key, start, len, pgoff, idlen ? id : NULL, idlen,
		    m->dsos[dso - 1]);
	ps_named_add(m, samples_key(&m->s, pid), dso, &(struct nmap){ start, start + len, pgoff });
	ps_named_add(m, m->all_key, dso, &(struct nmap){ start, start + len, pgoff });
	return 0;
}

int ps_record_line(struct ps *m, const char *l, size_t n, size_t at)
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
		if (c == r + sizeof(exec) - 1 || !ps_pidtid(&t, &pid))
			return ps_fail(m, "expected PERF_RECORD_COMM exec: COMM:PID/TID");
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
			return ps_fail(m, "expected PERF_RECORD_FORK(PID:TID):(PPID:PTID)");
		/* A new process starts with a copy of its parent's mappings;
		 * a new thread shares them already. */
		parent = samples_key(&m->s, ppid);
		if (pid != ppid) {
			samples_fork(&m->s, ppid, pid);
			if (parent)
				ps_named_fork(m, parent, samples_key(&m->s, pid));
		}
		return 0;
	}
	if (rn >= 17 && !memcmp(r, "PERF_RECORD_LOST ", 17)) {
		uint64_t lost;
		struct tok t = { r + 17, rn - 17 };

		if (t.n < 6 || memcmp(t.p, "lost ", 5) || !ps_decnum(t.p + 5, t.n - 5, &lost))
			return ps_fail(m, "expected PERF_RECORD_LOST lost COUNT");
		m->s.lost_records += lost;
	}
	return 0;	/* other records: nothing that counts */
}
