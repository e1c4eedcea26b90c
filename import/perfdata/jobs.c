/* SPDX-License-Identifier: GPL-2.0-only */
/* The samples of a perf.data file added up by several threads
 * (perfdata_options.jobs), with the same profile as one thread gives.
 *
 * The calling thread only reads the records and puts them in perf's time
 * order as alone; each sample it would decode goes instead into a batch
 * (a pointer to the record in the window: no copy), and a full batch is
 * queued for the worker threads (jobs of them), which add it up into
 * tables of their own (struct samples: the aggregated branches, ranges,
 * IPs and edges, the stacks, the counters), merged into the calling
 * thread's at the end: sums, so the order does not matter, and
 * raw_normalize() sorts the rest.  The workers share the keys out
 * (aggshare.h): each counts in its large table only the keys of its
 * share and posts the others to their owner, so that the tables are
 * joined at the end without a merge.  A ring of batches (several a worker)
 * lets the reader run ahead while the workers add up, and the workers
 * take batches while the reader reads: neither waits for the other but
 * when the ring is full or empty.  When the window moves
 * (order.c), it moves into another buffer of a small pool
 * (pd_jobs_window): the old one stays as it is until the batches that
 * point into it are added up.  What the workers read of the calling
 * thread's (the address spaces) is not written while a batch is out:
 * before an address space changes (MMAP, COMM, FORK, EXIT) the calling
 * thread waits for every batch (pd_jobs_drain), and maps_index() leaves
 * maps_resolve() nothing to write.
 *
 * Not threaded: --call-graph dwarf files (the unwinder's caches are the
 * importer's own).  A worker that meets a bad sample, or a sample at
 * time 0 (whose place in the order changes duration_ms), stops: the
 * import is then done again on one thread (perfdata.c), which prints
 * the message a one-thread import prints. */
#include "internal.h"
#include "../aggshare.h"
#include "../../lib/util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Samples a batch: large enough that handing it over costs little,
 * small enough that the last batches keep every worker busy. */
#define BATCH 1024
/* Batches in the ring for each worker, besides the one being filled. */
#define RING 3
/* Window buffers: the reader's, and the one that batches still read.  A
 * window holds many batches (16 MiB: 20,000 samples of perf record -b),
 * more than the ring: when the window moves again, the batches of the
 * one before are added up, or nearly. */
#define WINDOWS 2

struct batch {
	const uint8_t *rec[BATCH];	/* sample records, in their turn */
	size_t n;
	int win;		/* the window they are in, or -1 */
	struct batch *next;	/* in the free list or the queue */
};

/* A buffer of the window, and the batches queued or being added up
 * that point into it. */
struct winbuf {
	uint8_t *b;
	size_t cap;
	int refs;
};

struct job {
	pthread_t th;
	struct pd_jobs *J;
	struct imp w;		/* the sample path's own view, see refresh() */
	struct raw_profile stacks;	/* w.s.prof: its stacks alone */
};

struct pd_jobs {
	pthread_mutex_t mu;
	pthread_cond_t work;	/* a batch is queued, or quit */
	pthread_cond_t space;	/* a batch or window is free, a worker idle */
	struct aggshare *share;	/* the workers' keys */
	struct batch *free, *head, *tail;	/* free list; the queue */
	int busy;		/* workers adding up a batch */
	int quit, redo;
	int waiting_work, waiting_space;
	struct imp *m;		/* the calling thread's: refresh(), flushes */
	struct job *j;
	int nj;
	struct batch *ring, *cur;	/* all batches; the one being filled */
	int nb;
	struct winbuf win[WINDOWS];	/* win[0]: the window at the start */
	int nwin, curwin;	/* curwin: m->win's, or -1 (no window) */
	int indexed;		/* maps_index() since the last change */
};

/* The worker's view of what the calling thread owns and may have
 * changed since the worker's last batch: the address spaces.  Under
 * J->mu, while no batch of an older address space is out. */
static void refresh(struct job *j, const struct imp *m)
{
	j->w.s.maps = m->s.maps;
	j->w.s.keys = m->s.keys;
	j->w.s.cap_keys = m->s.cap_keys;
}

/* Add up the sample records of b, as the one-thread path would. */
static void add_batch(struct imp *w, const struct batch *b)
{
	struct rec rc;

	for (size_t i = 0; i < b->n && !w->failed; i++) {
		w->buf = b->rec[i];
		rc.off = 0;
		rc.type = PERF_RECORD_SAMPLE;
		rc.misc = get16(w->buf + 4);
		rc.size = get16(w->buf + 6);
		w->len = rc.size;
		pd_sample(w, &rc);
	}
}

static void *worker(void *arg)
{
	struct job *j = arg;
	struct pd_jobs *J = j->J;

	pthread_mutex_lock(&J->mu);
	for (;;) {
		struct batch *b;

		while (!J->head && !J->quit) {
			J->waiting_work++;
			pthread_cond_wait(&J->work, &J->mu);
			J->waiting_work--;
		}
		if (!J->head)
			break;
		b = J->head;
		J->head = b->next;
		J->busy++;
		refresh(j, J->m);
		pthread_mutex_unlock(&J->mu);
		if (!j->w.failed)	/* after a failure, only empty the queue */
			add_batch(&j->w, b);
		/* What the others posted: a batch's worth at most, a few
		 * chunks. */
		aggtab_receive(&j->w.s.agg);
		pthread_mutex_lock(&J->mu);
		J->busy--;
		if (b->win >= 0)
			J->win[b->win].refs--;
		b->next = J->free;
		J->free = b;
		if (j->w.failed)
			J->redo = 1;
		if (J->waiting_space)
			pthread_cond_signal(&J->space);
	}
	pthread_mutex_unlock(&J->mu);
	return NULL;
}

/* Under J->mu: wait for the workers until done(J). */
static void wait_space(struct pd_jobs *J, int (*done)(const struct pd_jobs *))
{
	while (!done(J)) {
		J->waiting_space++;
		pthread_cond_wait(&J->space, &J->mu);
		J->waiting_space--;
	}
}

static int have_free(const struct pd_jobs *J)
{
	return J->free != NULL;
}

static int idle(const struct pd_jobs *J)
{
	return !J->head && !J->busy;
}

/* The batch being filled goes to the queue (if it holds records), and a
 * free one, when there is one again, is the next to fill. */
static void push(struct imp *m)
{
	struct pd_jobs *J = m->jobs;
	struct batch *b = J->cur;

	if (b && b->n && !J->indexed) {
		maps_index(&m->s.maps);
		J->indexed = 1;
	}
	pthread_mutex_lock(&J->mu);
	if (b && b->n) {
		b->win = J->curwin;
		if (b->win >= 0)
			J->win[b->win].refs++;
		b->next = NULL;
		if (J->head)
			J->tail->next = b;
		else
			J->head = b;
		J->tail = b;
		if (J->waiting_work)
			pthread_cond_signal(&J->work);
		b = NULL;
	}
	if (!b) {
		wait_space(J, have_free);
		b = J->free;
		J->free = b->next;
		b->n = 0;
	}
	J->cur = b;
	/* A worker failed: the import is done again on one thread, which
	 * prints the message; the rest of the file need not be read. */
	if (J->redo)
		m->failed = 1;
	pthread_mutex_unlock(&J->mu);
}

int pd_jobs_sample(struct imp *m, const struct rec *rc)
{
	struct pd_jobs *J = m->jobs;
	struct batch *b;

	if (!J)
		return 0;
	b = J->cur;
	b->rec[b->n++] = m->buf + rc->off;
	if (b->n == BATCH)
		push(m);
	return 1;
}

/* Under J->mu: a window buffer other than the reader's that no batch
 * reads, or -1. */
static int unread_window(const struct pd_jobs *J)
{
	for (int i = 0; i < J->nwin; i++)
		if (i != J->curwin && !J->win[i].refs)
			return i;
	return -1;
}

static int window_free(const struct pd_jobs *J)
{
	return unread_window(J) >= 0;
}

uint8_t *pd_jobs_window(struct imp *m, size_t cap)
{
	struct pd_jobs *J = m->jobs;
	struct winbuf *w;
	int i;

	push(m);	/* its records are in the old window */
	pthread_mutex_lock(&J->mu);
	i = unread_window(J);
	if (i < 0 && J->nwin < WINDOWS)
		i = J->nwin++;
	if (i < 0) {
		wait_space(J, window_free);
		i = unread_window(J);
	}
	pthread_mutex_unlock(&J->mu);
	w = &J->win[i];
	if (w->cap < cap) {	/* only this thread touches a free one */
		free(w->b);
		w->b = xmalloc_huge(cap);
		w->cap = cap;
	}
	J->curwin = i;
	return w->b;
}

void pd_jobs_drain(struct imp *m)
{
	struct pd_jobs *J = m->jobs;

	if (!J)
		return;
	push(m);
	pthread_mutex_lock(&J->mu);
	wait_space(J, idle);
	pthread_mutex_unlock(&J->mu);
}

int pd_jobs_fail(struct imp *m)
{
	if (!m->jobs)
		return 0;
	pd_jobs_drain(m);
	return m->jobs->redo;
}

void pd_jobs_change(struct imp *m)
{
	if (!m->jobs)
		return;
	pd_jobs_drain(m);
	m->jobs->indexed = 0;
}

/* Can this file's samples be added up by several threads? */
static int threadable(const struct imp *m)
{
	for (size_t i = 0; i < m->nattrs; i++)
		if (m->attrs[i].sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER))
			return 0;
	return 1;
}

/* Worker i's view of the import: m's, with counters and tables of its
 * own. */
static void job_init(struct job *j, struct pd_jobs *J, const struct imp *m)
{
	j->J = J;
	j->w = *m;
	j->w.attrs = xmalloc(m->nattrs * sizeof(*m->attrs));
	memcpy(j->w.attrs, m->attrs, m->nattrs * sizeof(*m->attrs));
	for (size_t k = 0; k < m->nattrs; k++)
		j->w.attrs[k].samples = 0;
	raw_init(&j->stacks);
	samples_worker(&j->w.s, &m->s, &j->stacks);
	aggtab_share(&j->w.s.agg, J->share, (unsigned)(j - J->j));
	j->w.quiet = 1;
}

static void jobs_free(struct pd_jobs *J);

void pd_jobs_start(struct imp *m)
{
	struct pd_jobs *J;
	int n = m->opt->jobs;

	if (n < 2 || !threadable(m))
		return;
	pd_attr_by_id(m, 0);	/* sorts the IDs, which workers then only read */
	J = xcalloc(1, sizeof(*J));
	pthread_mutex_init(&J->mu, NULL);
	pthread_cond_init(&J->work, NULL);
	pthread_cond_init(&J->space, NULL);
	J->m = m;
	J->share = aggshare_new((unsigned)n, m->opt->share_chunk);
	J->curwin = -1;
	if (m->win) {	/* the pool owns the window until the end */
		J->win[0] = (struct winbuf){ .b = m->win, .cap = m->win_cap };
		J->nwin = 1;
		J->curwin = 0;
	}
	J->nb = RING * n + 1;
	J->ring = xcalloc((size_t)J->nb, sizeof(*J->ring));
	for (int i = 0; i < J->nb; i++) {
		J->ring[i].next = J->free;
		J->free = &J->ring[i];
	}
	J->j = xcalloc((size_t)n, sizeof(*J->j));
	m->jobs = J;
	for (int i = 0; i < n; i++) {
		job_init(&J->j[i], J, m);
		if (pthread_create(&J->j[i].th, NULL, worker, &J->j[i])) {
			samples_worker_free(&J->j[i].w.s);
			raw_free(&J->j[i].stacks);
			free(J->j[i].w.attrs);
			break;	/* fewer threads: the same profile */
		}
		J->nj = i + 1;
	}
	/* No batch is out yet: the keys are shared among the threads that
	 * run. */
	J->share->n = (unsigned)J->nj;
	if (!J->nj) {	/* no thread at all: this one adds up */
		jobs_free(J);
		m->jobs = NULL;
		return;
	}
	push(m);	/* the first batch to fill */
}

/* Stop the workers, once they emptied the queue. */
static void stop(struct pd_jobs *J)
{
	pthread_mutex_lock(&J->mu);
	J->quit = 1;
	pthread_cond_broadcast(&J->work);
	pthread_mutex_unlock(&J->mu);
	for (int i = 0; i < J->nj; i++)
		pthread_join(J->j[i].th, NULL);
}

/* Add up what the stopped workers counted into m: the largest table
 * first, which m's takes over when it has none (samples_merge), so that
 * the emit gathers the smaller ones into it (aggtab_take). */
static void merge(struct imp *m)
{
	struct pd_jobs *J = m->jobs;
	int first = 0;

	for (int i = 1; i < J->nj; i++)
		if (samples_aggregated(&J->j[i].w.s) > samples_aggregated(&J->j[first].w.s))
			first = i;
	for (int n = 0; n < J->nj; n++) {
		int i = n == 0 ? first : n == first ? 0 : n;
		struct imp *w = &J->j[i].w;

		for (size_t k = 0; k < m->nattrs; k++)
			m->attrs[k].samples += w->attrs[k].samples;
		m->unknown_id += w->unknown_id;
		m->other_samples += w->other_samples;
		m->dwarf_stacks += w->dwarf_stacks;
		m->call_stack_lbr += w->call_stack_lbr;
		m->no_ranges_filter += w->no_ranges_filter;
		samples_merge(&m->s, &w->s);
		samples_worker_free(&w->s);	/* lower peak memory */
	}
}

/* The threads' memory, once they stopped. */
static void jobs_free(struct pd_jobs *J)
{
	for (int i = 0; i < J->nj; i++) {
		free(J->j[i].w.attrs);
		samples_worker_free(&J->j[i].w.s);
		raw_free(&J->j[i].stacks);
	}
	for (int i = 0; i < J->nwin; i++)
		if (J->win[i].b != J->m->win)
			free(J->win[i].b);
	pthread_mutex_destroy(&J->mu);
	pthread_cond_destroy(&J->work);
	pthread_cond_destroy(&J->space);
	aggshare_free(J->share);
	free(J->ring);
	free(J->j);
	free(J);
}

int pd_jobs_finish(struct imp *m)
{
	struct pd_jobs *J = m->jobs;
	int redo;

	if (!J)
		return 0;
	if (!m->failed)
		pd_jobs_drain(m);
	stop(J);
	redo = J->redo;
	if (!m->failed && !redo)
		merge(m);
	jobs_free(J);
	m->jobs = NULL;
	return redo;
}
