/* SPDX-License-Identifier: GPL-2.0-only */
/* The rules that the importers of perf's output share (samples.h): address
 * spaces, mappings to objects, stacks and branch stacks to the tables of a
 * raw profile, and the counters of what could not be attributed. */
#include "samples.h"
#include "../proc/buildid.h"
#include "../lib/util.h"
#include "../raw/signal.h"
#include "../raw/stackcut.h"
#include "../version.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct samples_pidkey {
	uint32_t pid;
	int32_t key;	/* 0: free slot */
};

/* ---- process keys: a pid names a new address space after fork or exec ---- */

static struct samples_pidkey *pid_slot(const struct samples *m, uint32_t pid)
{
	size_t i;

	if (!m->cap_keys)
		return NULL;
	for (i = (pid * 2654435761u) & (m->cap_keys - 1); m->keys[i].key;
	     i = (i + 1) & (m->cap_keys - 1))
		if (m->keys[i].pid == pid)
			return &m->keys[i];
	return &m->keys[i];
}

int32_t samples_key(const struct samples *m, uint32_t pid)
{
	struct samples_pidkey *s = pid_slot(m, pid);

	return s ? s->key : 0;
}

int32_t samples_exec(struct samples *m, uint32_t pid)
{
	struct samples_pidkey *s;

	if (2 * (m->nkeys_used + 1) > m->cap_keys) {
		struct samples_pidkey *old = m->keys;
		size_t oldcap = m->cap_keys;

		m->cap_keys = oldcap ? oldcap * 2 : 256;
		m->keys = xcalloc(m->cap_keys, sizeof(*m->keys));
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].key)
				*pid_slot(m, old[i].pid) = old[i];
		free(old);
	}
	s = pid_slot(m, pid);
	if (!s->key)
		m->nkeys_used++;
	s->pid = pid;
	s->key = --m->next_key;
	return s->key;
}


int32_t samples_space(struct samples *m)
{
	return --m->next_key;
}

void samples_fork(struct samples *m, uint32_t parent, uint32_t child)
{
	int32_t from = samples_key(m, parent);
	int32_t to = samples_exec(m, child);

	if (from)
		maps_fork(&m->maps, from, to);
}

/* ---- mappings ---- */

void samples_header_build_id(struct samples *m, const char *path,
			     const uint8_t *id, uint32_t len, int32_t pid,
			     int unsized)
{
	struct samples_bid b = { .len = len, .pid = pid, .unsized = unsized };
	uint32_t old;

	if (len > sizeof(b.id))
		len = b.len = sizeof(b.id);
	memcpy(b.id, id, len);
	/* The host's entry (pid -1) wins over a guest machine's. */
	if (!strmap_find(&m->bid_index, path, &old) ||
	    (m->bids[old].pid != -1 && pid == -1)) {
		grow(&m->bids, &m->cap_bids, m->nbids + 1, sizeof(*m->bids));
		m->bids[m->nbids] = b;
		strmap_put(&m->bid_index, path, (uint32_t)m->nbids++);
	}
}

/* The build-ID of the file at path on this machine (cached); len 0 if none. */
static const struct samples_bid *local_build_id(struct samples *m, const char *path)
{
	uint32_t i;
	struct samples_bid b = { 0 };
	struct stat st;
	int fd;

	if (strmap_find(&m->file_index, path, &i))
		return &m->fids[i];
	/* Only a regular file: never wait on a FIFO or read a device that a
	 * crafted input names. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd >= 0) {
		if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
		    buildid_read_fd(fd, b.id, sizeof(b.id), &b.len))
			b.len = 0;
		close(fd);
	}
	grow(&m->fids, &m->cap_fids, m->nfids + 1, sizeof(*m->fids));
	m->fids[m->nfids] = b;
	strmap_put(&m->file_index, path, (uint32_t)m->nfids);
	return &m->fids[m->nfids++];
}

static const struct samples_bid *header_build_id(struct samples *m, const char *path)
{
	static const char deleted[] = " (deleted)";
	size_t n = strlen(path), d = sizeof(deleted) - 1;
	uint32_t i;

	if (strmap_find(&m->bid_index, path, &i))
		return &m->bids[i];
	if (n > d && !strcmp(path + n - d, deleted)) {
		char *p = xstrdup(path);
		int found;

		p[n - d] = '\0';
		found = strmap_find(&m->bid_index, p, &i);
		free(p);
		if (found)
			return &m->bids[i];
	}
	return NULL;
}

void samples_map(struct samples *m, int32_t key, uint64_t start, uint64_t len,
		 uint64_t pgoff, const uint8_t *id, uint32_t idlen,
		 const char *path)
{
	/* As pgoprof-record: the MMAP2 build-ID whatever the path; a path
	 * that does not start with '/' ([vdso], [anon:...]) is anonymous. */
	if (!(id && idlen) && path[0] == '/') {
		const struct samples_bid *b = header_build_id(m, path), *l;

		if ((!b || b->unsized) && !m->no_local_files) {
			l = local_build_id(m, path);
			/* The file here has the whole of an ID cut short. */
			if (l->len && (!b || raw_same_build_id(b->id, b->len, l->id, l->len)))
				b = l;
		}
		if (b) {
			id = b->id;
			idlen = b->len;
		} else {	/* known by its path alone: convert --binary
				 * matches it by file name, as perf's peers do */
			maps_add_object(&m->maps, key, start, len, pgoff,
					raw_path_object(m->prof, path), path);
			return;
		}
	}
	maps_add(&m->maps, key, start, len, pgoff, id && idlen ? id : NULL,
		 id ? idlen : 0, path, 0, 0);
}

void samples_add_mapping(struct samples *m, uint32_t pid, uint64_t start,
			 uint64_t len, uint64_t pgoff, const uint8_t *id,
			 uint32_t idlen, const char *path)
{
	int32_t key;

	if (pid == UINT32_MAX)	/* the kernel and its modules */
		return;
	key = samples_key(m, pid);
	if (!key)
		key = samples_exec(m, pid);
	samples_map(m, key, start, len, pgoff, id, idlen, path);
}

enum unattr_reason samples_resolve(const struct samples *m, int32_t key,
				   uint64_t addr, uint32_t *obj, uint64_t *off)
{
	if (!key)
		return UNATTR_NO_MAPPING;
	return maps_resolve(&m->maps, key, addr, obj, off);
}

/* The last two spans that one sample's addresses resolved in: most of a
 * sample's addresses fall in one or two mappings (a program and a
 * library), so that most resolve here, without a look-up.  For one
 * sample only: the mappings do not change while it is added. */
struct spans {
	struct maps_span s[2];
};

/* resolve_in() of an address that c does not hold: a look-up, whose
 * answer c then holds. */
static enum unattr_reason resolve_slow(const struct samples *m, int32_t key,
				       struct spans *c, uint64_t addr,
				       uint32_t *obj, uint64_t *off)
{
	struct maps_span sp;
	enum unattr_reason r;

	if (!key)
		return UNATTR_NO_MAPPING;
	r = maps_resolve_span(&m->maps, key, addr, obj, off, &sp);
	if (sp.end > sp.start) {
		c->s[1] = c->s[0];
		c->s[0] = sp;
	}
	return r;
}

/* samples_resolve(), through c. */
static inline enum unattr_reason resolve_in(const struct samples *m, int32_t key,
					    struct spans *c, uint64_t addr,
					    uint32_t *obj, uint64_t *off)
{
	for (int i = 0; i < 2; i++)
		if (addr - c->s[i].start < c->s[i].end - c->s[i].start) {
			*obj = c->s[i].obj;
			*off = addr + c->s[i].delta;
			return UNATTR_NONE;
		}
	return resolve_slow(m, key, c, addr, obj, off);
}

/* ips[0..n) resolved in address space key into fr (at most
 * RAW_STACK_DEPTH_MAX frames), after the kernel mark for a sample in the
 * kernel; a 0 above the leaf ends the stack.  An address in no object is
 * RAW_FRAME_UNKNOWN, and for the leaf of a user sample its reason is
 * counted (unattributed.REASON).  Returns the number of frames. */
static uint32_t resolve_stack(struct samples *m, int32_t key, const uint64_t *ips,
			      size_t n, int kernel, struct raw_frame *fr)
{
	struct spans c = { 0 };
	uint32_t nf = 0;

	if (kernel)
		fr[nf++] = (struct raw_frame){ RAW_FRAME_KERNEL, 0 };
	for (size_t i = 0; i < n && nf < RAW_STACK_DEPTH_MAX && (i == 0 || ips[i]); i++) {
		struct raw_frame *f = &fr[nf++];
		enum unattr_reason r = resolve_in(m, key, &c, ips[i], &f->obj, &f->offset);

		if (r == UNATTR_NONE)
			continue;
		*f = (struct raw_frame){ RAW_FRAME_UNKNOWN, 0 };
		if (i == 0 && !kernel)
			m->unattr[r]++;
	}
	return nf;
}

/* The stack rule (raw/stackcut.h, as raw_add_sampled_stack() applies it)
 * over fr[0..nf), its IP sample and edges counted once each, in
 * batches. */
static void cut_stack(struct samples *m, const struct raw_frame *fr, uint32_t nf)
{
	struct agg_centry batch[AGG_BATCH];
	size_t nb = 0;
	uint64_t callee;

	for (uint32_t i = 0; i < nf; i++) {
		switch (raw_stack_cut(fr, i, RAW_FRAME_KERNEL, &callee)) {
		case RAW_CUT_IP:
			aggtab_add_one(&m->agg, batch, &nb, &(struct agg_entry){
					.a = fr[0].offset, .obj = fr[0].obj, .kind = AGG_IP });
			break;
		case RAW_CUT_EDGE:
			aggtab_add_one(&m->agg, batch, &nb, &(struct agg_entry){
					.a = fr[i].offset, .b = callee, .obj = fr[i].obj,
					.obj2 = fr[i - 1].obj, .kind = AGG_EDGE });
			break;
		case RAW_CUT_LOST:
			m->edges_unattr++;
			break;
		case RAW_CUT_NONE:
			break;
		}
		if (nb == AGG_BATCH) {
			aggtab_add_batch(&m->agg, batch, nb);
			nb = 0;
		}
	}
	aggtab_add_batch(&m->agg, batch, nb);
}

/* One sample's stack, as pgoprof-record's (collector/record.c
 * add_stack()): resolved, then cut by the stack rule; the whole is a
 * stack of the profile if whole (LBR samples need no frames). */
static void add_stack(struct samples *m, int32_t key, const uint64_t *ips,
		      size_t n, int whole, int kernel)
{
	struct raw_frame fr[RAW_STACK_DEPTH_MAX];
	uint32_t nf = resolve_stack(m, key, ips, n, kernel, fr);

	cut_stack(m, fr, nf);
	if (whole)
		raw_add_stack(m->prof, fr, nf, 1);
}

void samples_add_stack(struct samples *m, int32_t key, const uint64_t *ips,
		       size_t n, int whole)
{
	add_stack(m, key, ips, n, whole, 0);
}

void samples_add_kernel(struct samples *m, int32_t key, const uint64_t *ips,
			size_t n)
{
	m->kernel++;
	if (n)
		add_stack(m, key, ips, n, 1, 1);
}

/* The taken branches of a branch stack (newest first) and, with ranges,
 * the fall-through range [e[i].to, e[i-1].from] from each branch's target
 * to the next newer branch's source, which ran once between the two
 * (bpf/record.bpf.c fold_branches() does the same in the kernel;
 * tests/integration/lbrfold.sh holds the two to the same result,
 * docs/raw-format.md section 3.4).  Each address is resolved once; the
 * counts go in batches. */
void samples_add_branches(struct samples *m, int32_t key, const uint8_t *e,
			  size_t nr, size_t stride, int ranges)
{
	struct agg_centry batch[2 * AGG_BATCH];
	size_t nb = 0;
	uint32_t po = 0;	/* the newer branch's source, resolved */
	uint64_t poff = 0, pfrom = 0;
	int pok = 0;
	struct spans c = { 0 };

	for (size_t i = 0; i < nr; i++) {
		uint64_t from = get64(e + stride * i), to = get64(e + stride * i + 8);
		uint32_t fo = 0, to_obj = 0;
		uint64_t foff = 0, toff = 0;
		int fok = resolve_in(m, key, &c, from, &fo, &foff) == UNATTR_NONE;
		int tok = resolve_in(m, key, &c, to, &to_obj, &toff) == UNATTR_NONE;

		if (fok && tok)
			aggtab_add_one(&m->agg, batch, &nb, &(struct agg_entry){ .a = foff, .b = toff,
					.obj = fo, .obj2 = to_obj, .kind = AGG_BRANCH });
		else
			m->branches_unattr++;
		/* Both ends in one mapping: one object, and the same distance
		 * in the file as in memory. */
		if (i > 0 && ranges) {
			if (tok && pok && to_obj == po && poff - toff == pfrom - to)
				aggtab_add_one(&m->agg, batch, &nb, &(struct agg_entry){
						.a = toff, .b = poff, .obj = to_obj, .kind = AGG_RANGE });
			else
				m->ranges_unattr++;
		}
		po = fo, poff = foff, pfrom = from, pok = fok;
		if (nb > 2 * AGG_BATCH - 2) {
			aggtab_add_batch(&m->agg, batch, nb);
			nb = 0;
		}
	}
	aggtab_add_batch(&m->agg, batch, nb);
}


void samples_time(struct samples *m, uint64_t t)
{
	if (!m->tmin || t < m->tmin)
		m->tmin = t;
	if (t > m->tmax)
		m->tmax = t;
}

/* ---- the end of an import ---- */

void samples_count(struct raw_profile *p, const char *name, uint64_t n)
{
	if (n)
		raw_add_counter(p, name, n);
}

/* import writes a reason only when it has samples. */
static void count_unattributed(struct raw_profile *p, const char *reason,
			       uint64_t n)
{
	if (n)
		raw_add_unattributed(p, reason, n);
}

static void set_counters(struct samples *m)
{
	struct raw_profile *p = m->prof;
	uint64_t lost = m->lost_records + m->lost_samples;

	raw_add_counter(p, CNT_SAMPLES, m->taken + lost);
	raw_add_counter(p, CNT_LOST, lost);
	raw_add_counter(p, CNT_UNATTR "kernel", m->kernel);
	for (int r = UNATTR_NONE + 1; r < UNATTR_MAX; r++)
		count_unattributed(p, unattr_name[r], m->unattr[r]);
	count_unattributed(p, "guest", m->guest);
	count_unattributed(p, "no_user_stack", m->no_user_stack);
	samples_count(p, "edges.unattributed", m->edges_unattr);
	samples_count(p, "branches.unattributed", m->branches_unattr);
	samples_count(p, "ranges.unattributed", m->ranges_unattr);
	raw_add_counter(p, "sideband.lost", m->lost_records);
	if (m->tmax > m->tmin)
		raw_add_counter(p, "duration_ms", (m->tmax - m->tmin) / 1000000);
}

/* Objects of the final profile whose build-ID came only from a file on
 * this machine, not from the input. */
static void count_local_ids(struct samples *m)
{
	uint64_t n = 0;

	for (size_t i = 0; i < m->prof->nobjs; i++) {
		const struct raw_object *o = &m->prof->objs[i];
		int local = 0, recorded = 0;

		if (o->id_kind != RAW_ID_BUILD_ID)
			continue;
		for (size_t j = 0; j < m->nfids && !local; j++)
			local = m->fids[j].len == o->build_id_len &&
				!memcmp(m->fids[j].id, o->build_id, o->build_id_len);
		for (size_t j = 0; j < m->nbids && local && !recorded; j++)
			recorded = raw_same_build_id(m->bids[j].id, m->bids[j].len,
						     o->build_id, o->build_id_len);
		n += local && !recorded;
	}
	samples_count(m->prof, "import.build_id_from_file", n);
}

void perf_host_free(struct perf_host *h)
{
	free(h->hostname);
	free(h->osrelease);
	free(h->version);
	free(h->arch);
	free(h->cmdline);
	*h = (struct perf_host){ 0 };
}

/* META host, kernel, recorder and perf_cmdline, where h knows them. */
static void host_meta(struct raw_profile *p, const struct perf_host *h)
{
	char buf[1024];

	if (h->hostname)
		raw_set_meta(p, "host", h->hostname);
	if (h->osrelease) {
		snprintf(buf, sizeof(buf), "Linux %s%s%s", h->osrelease,
			 h->arch ? " " : "", h->arch ? h->arch : "");
		raw_set_meta(p, "kernel", buf);
	}
	if (h->version) {
		snprintf(buf, sizeof(buf), "perf %s", h->version);
		raw_set_meta(p, "recorder", buf);
	}
	if (h->cmdline)
		raw_set_meta(p, "perf_cmdline", h->cmdline);
}

void samples_meta(struct raw_profile *p, const struct samples_info *info,
		  const struct samples_event *ev, size_t nev)
{
	const struct samples_event *first = NULL;
	char buf[1024];
	size_t n = 0;
	int lbr = info->lbr, any = 0;

	raw_set_meta(p, "tool", "pgoprof " PGOPROF_VERSION);
	raw_set_meta(p, "source", info->source);
	if (info->input)
		raw_set_meta(p, "input", info->input);
	if (info->host)
		host_meta(p, info->host);
	/* The selected events that gave samples, else the first selected. */
	buf[0] = '\0';
	for (size_t i = 0; i < nev; i++)
		any |= ev[i].selected && ev[i].samples;
	for (size_t i = 0; i < nev; i++) {
		const struct samples_event *e = &ev[i];

		if (!e->selected || (!e->samples && (any || first)))
			continue;
		if (!first)
			first = e;
		if (n < sizeof(buf) - 1)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s",
					      n ? "," : "", e->name);
		if (n > sizeof(buf) - 1)
			n = sizeof(buf) - 1;
		lbr |= e->lbr;
	}
	/* What the counts measure (raw/signal.h), from the events' names. */
	enum raw_signal sig = lbr ? SIGNAL_BRANCH : first ? signal_of_event(buf) : SIGNAL_UNKNOWN;

	if (sig != SIGNAL_UNKNOWN)
		raw_set_meta(p, "signal", signal_name(sig));
	if (first) {
		raw_set_meta(p, "event", buf);
		if (first->period_known) {
			snprintf(buf, sizeof(buf), "%" PRIu64, first->period);
			raw_set_meta(p, first->freq ? "sample_freq" : "sample_period", buf);
		}
	}
	raw_set_meta(p, "mode", lbr ? "import-lbr" : "import-stack");
}

void samples_finish(struct samples *m)
{
	aggtab_emit(&m->agg, m->prof);
	set_counters(m);
	raw_drop_empty_objects(m->prof);
	count_local_ids(m);
	if (m->prof->nobjs)	/* raw_normalize() memcpy()s from a NULL objs otherwise */
		raw_normalize(m->prof);
}

void samples_init(struct samples *m, struct raw_profile *p, int no_local_files)
{
	memset(m, 0, sizeof(*m));
	m->prof = p;
	m->no_local_files = no_local_files;
	aggtab_init(&m->agg);
	maps_init(&m->maps, p);
}

void samples_worker(struct samples *w, const struct samples *main,
		    struct raw_profile *stacks)
{
	*w = *main;
	w->prof = stacks;
	w->taken = w->lost_records = w->lost_samples = 0;
	w->kernel = w->guest = w->no_user_stack = 0;
	w->tmin = w->tmax = 0;
	memset(w->unattr, 0, sizeof(w->unattr));
	w->edges_unattr = w->branches_unattr = w->ranges_unattr = 0;
	aggtab_init(&w->agg);
}

void samples_worker_free(struct samples *w)
{
	aggtab_free(&w->agg);
}

size_t samples_aggregated(const struct samples *s)
{
	return aggtab_keys(&s->agg);
}

void samples_merge(struct samples *dst, struct samples *w)
{
	const struct raw_stacks *st = &w->prof->stacks;

	dst->taken += w->taken;
	dst->kernel += w->kernel;
	dst->guest += w->guest;
	dst->no_user_stack += w->no_user_stack;
	/* samples_time() of every sample, no time being 0 (import/perfdata/jobs.c) */
	if (w->tmin && (!dst->tmin || w->tmin < dst->tmin))
		dst->tmin = w->tmin;
	if (w->tmax > dst->tmax)
		dst->tmax = w->tmax;
	for (int r = 0; r < UNATTR_MAX; r++)
		dst->unattr[r] += w->unattr[r];
	dst->edges_unattr += w->edges_unattr;
	dst->branches_unattr += w->branches_unattr;
	dst->ranges_unattr += w->ranges_unattr;
	aggtab_take(&dst->agg, &w->agg);
	for (size_t i = 0; i < st->n; i++)
		raw_add_stack(dst->prof, &st->frames[st->v[i].first], st->v[i].depth,
			      st->v[i].count);
}

void samples_free(struct samples *m)
{
	strmap_free(&m->bid_index);
	strmap_free(&m->file_index);
	free(m->bids);
	free(m->fids);
	maps_free(&m->maps);
	free(m->keys);
	aggtab_free(&m->agg);
	memset(m, 0, sizeof(*m));
}
