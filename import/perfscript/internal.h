/* SPDX-License-Identifier: GPL-2.0-only */
/* The perf script importer's own header: the state its files share and
 * the functions they call of each other.  Not for use outside
 * import/perfscript/: the rest of the tree includes perfscript.h alone.
 *
 * The files, one idea each:
 *   perfscript.c  the entry points: the lines of the text, one pass or
 *                 two, META, the end checks and the probe
 *   tokens.c      numbers and tokens of a line
 *   dsos.c        mapped file names and their mappings, for frames
 *                 printed as offsets into them
 *   events.c      the events, and the '#' lines of perf script --header
 *   records.c     the PERF_RECORD_ lines: mappings, exec, fork, lost
 *   sampleline.c  a sample's lines: its fields, call chain and branch
 *                 stack, then what it adds to the profile
 * What the samples become is import/samples.c's, as for perf.data. */
#ifndef PGOPROF_PERFSCRIPT_INT_H
#define PGOPROF_PERFSCRIPT_INT_H

#include <stddef.h>
#include <stdint.h>
#include "perfscript.h"
#include "../samples.h"
#include "../../lib/strmap.h"

/* An address in the kernel's half. */
static inline int kernel_addr(uint64_t a)
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

/* A token for messages: at most 60 bytes of it. */
#define TOKF "'%.*s%s'"
#define TOKA(t) (int)((t).n > 60 ? 60 : (t).n), (t).p, (t).n > 60 ? "..." : ""

static inline int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static inline int blank(char c)
{
	return c == ' ' || c == '\t';
}

enum { T_OTHER, T_PIDTID, T_INT, T_CPU, T_TIME };

/* ---- perfscript.c ---- */

/* "NAME: line N: message" on stderr (without the line when m->lineno is
 * 0), once per import: later calls only return; sets m->failed.
 * Returns -1. */
int ps_fail(struct ps *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* s[0..n) NUL-terminated, in m's scratch buffer (valid until the next
 * call). */
char *ps_cstr(struct ps *m, const char *s, size_t n);

/* ---- tokens.c: each 1 if the text is one, the value in *v, else 0 ---- */

/* 1 to 16 hex digits, nothing else. */
int ps_hexnum(const char *s, size_t n, uint64_t *v);
/* printf's %#x: "0x" and hex digits, or "0". */
int ps_hex0x(const char *s, size_t n, uint64_t *v);
/* Decimal digits, at most UINT64_MAX: lib's dec_u64, 1 if it parsed. */
int ps_decnum(const char *s, size_t n, uint64_t *v);
/* A pid or tid: decimal, or -1 (perf's "no process"), as a u32. */
int ps_pidnum(const char *s, size_t n, uint32_t *v);
/* "PID/TID": the pid. */
int ps_pidtid(const struct tok *t, uint32_t *pid);
/* "SECONDS.FRACTION" (up to 9 digits) as ns. */
int ps_seconds(const char *s, size_t n, uint64_t *ns);
/* The next blank-separated token of l[*pos..n) into t, *pos after it;
 * 0 if there is none. */
int ps_next_tok(const char *l, size_t n, size_t *pos, struct tok *t);
/* What a field before a sample or record can be: T_*. */
int ps_tok_class(const struct tok *t);
/* An entry of a branch stack starts at l[i]: "0xHEX/" or "0xHEX(". */
int ps_entry_at(const char *l, size_t n, size_t i);
/* A call-chain frame: a tab, blanks, an address, then a blank or the end. */
int ps_frame_line(const char *l, size_t n);
/* Where "(...)" closing at l[end - 1] opens, or SIZE_MAX if it does not. */
size_t ps_paren_open(const char *l, size_t end);

/* ---- dsos.c ---- */

/* The index + 1 of a mapped file name; 0 if no mapping has it (add: make
 * one). */
uint32_t ps_dso_id(struct ps *m, const char *s, size_t n, int add);
/* Mapping e of file dso in address space key. */
void ps_named_add(struct ps *m, int32_t key, uint32_t dso,
		  const struct nmap *e);
/* A new process: a copy of its parent's named mappings. */
void ps_named_fork(struct ps *m, int32_t parent, int32_t child);
/* The address of a call-chain frame printed as f->v: the address itself,
 * or an offset into the mappings of its dso in address space key,
 * whichever the mappings allow.  If both do (a non-PIE binary loaded
 * low, larger than its load address), the form of the other frames of
 * the file decides; before any decided, it is read as an address, and
 * m->restart asks for the import to start again if the file later turns
 * out to print offsets. */
uint64_t ps_frame_addr(struct ps *m, int32_t key, const struct frame *f);
/* The file names and mappings go. */
void ps_dsos_free(struct ps *m);

/* ---- events.c ---- */

/* The event named name[0..n), a new one if m has none of that name. */
struct event *ps_event_get(struct ps *m, const char *name, size_t n);
/* The only event the header names, or NULL. */
struct event *ps_only_header_event(struct ps *m);
/* A '#' line of perf script --header: the host, the events, the times
 * of the first and last sample; other lines are skipped. */
void ps_comment_line(struct ps *m, const char *l, size_t n);

/* ---- records.c ---- */

/* A PERF_RECORD_ line, the record's name at l[at]: MMAP and MMAP2 (the
 * executable mappings), COMM exec, FORK and LOST; others are skipped.
 * The first one tells which fields precede the samples' own.  0, or -1
 * after ps_fail(). */
int ps_record_line(struct ps *m, const char *l, size_t n, size_t at);

/* ---- sampleline.c ---- */

/* The first line of a sample: its fields, then its ip and branch stack
 * (the sample then ends), or nothing more (its call chain follows).  0,
 * or -1 after ps_fail(). */
int ps_sample_line(struct ps *m, const char *l, size_t n);
/* A line of the call chain of the sample being read. */
void ps_add_frame(struct ps *m, const char *l, size_t n);
/* The branch stack at l[pos..n): "0xFROM/0xTO/FLAGS" entries, newest
 * first, separated by blanks (perf script -F brstack).  0, or -1 after
 * ps_fail(). */
int ps_parse_brstack(struct ps *m, const char *l, size_t n, size_t pos);
/* The sample read so far goes into the profile. */
void ps_end_sample(struct ps *m);

#endif
