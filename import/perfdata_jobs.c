/* SPDX-License-Identifier: GPL-2.0-only */
/* The samples of a perf.data file added up by several threads
 * (perfdata_options.jobs), with the same profile as one thread gives.
 *
 * The calling thread reads the records and puts them in perf's time
 * order as alone; each sample it would decode goes instead into a batch
 * (its offset: the record stays in the window), and a full batch goes to
 * a worker thread that is free, else the calling thread adds it up
 * itself.  A worker adds its samples up into tables of its own (struct
 * samples: the aggregated branches, ranges, IPs and edges, the stacks,
 * the counters), merged into the calling thread's at the end: sums, so
 * the order does not matter, and raw_normalize() sorts the rest.  What
 * the workers read is not written while a batch is out: before an
 * address space changes (MMAP, COMM, FORK, EXIT) or the window moves,
 * the calling thread waits for every batch (pd_jobs_drain), and
 * maps_index() leaves maps_resolve() nothing to write.
 *
 * Not threaded: --call-graph dwarf files (the unwinder's caches are the
 * importer's own).  A worker that meets a bad sample, or a sample at
 * time 0 (whose place in the order changes duration_ms), stops: the
 * import is then done again on one thread (perfdata.c), which prints
 * the message a one-thread import prints. */
#include "perfdata_int.h"
#include "../lib/util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Samples a batch: large enough that handing it over costs little, small
 * enough that the last batch of a run keeps the other thread busy. */
#define BATCH 1024

struct job {
	pthread_t th;
	struct imp w;		/* the sample path's own view, see refresh() */
	struct raw_profile stacks;	/* w.s.prof: its stacks alone */
	size_t *offs, n;	/* the batch, while busy */
	int busy, redo;
};

struct pd_jobs {
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	int quit, redo;
	struct job *j;
	int nj;
	size_t *cur, n;		/* the batch being filled */
	int indexed;		/* maps_index() since the last change */
};

/* One sample record of m's window at off, as the one-thread path gives it. */
static void sample_at(struct imp *m, size_t off)
{
	struct rec rc;

	rc.off = off;
	rc.type = PERF_RECORD_SAMPLE;
	rc.misc = get16(m->buf + off + 4);
	rc.size = get16(m->buf + off + 6);
	pd_sample(m, &rc);
}

/* The worker's view of what the calling thread owns and may have
 * changed since its last batch: the window, the address spaces. */
static void refresh(struct job *j, const struct imp *m)
{
	j->w.buf = m->buf;
	j->w.s.maps = m->s.maps;
	j->w.s.keys = m->s.keys;
	j->w.s.cap_keys = m->s.cap_keys;
}

static void *worker(void *arg)
{
	struct job *j = arg;
	struct pd_jobs *J = j->w.jobs;

	pthread_mutex_lock(&J->mu);
	for (;;) {
		while (!j->busy && !J->quit)
			pthread_cond_wait(&J->work, &J->mu);
		if (!j->busy)
			break;
		pthread_mutex_unlock(&J->mu);
		for (size_t i = 0; i < j->n && !j->w.failed; i++)
			sample_at(&j->w, j->offs[i]);
		pthread_mutex_lock(&J->mu);
		j->busy = 0;
		if (j->w.failed)
			J->redo = 1;
		pthread_cond_broadcast(&J->done);
	}
	pthread_mutex_unlock(&J->mu);
	return NULL;
}

/* The batch being filled: to a free worker, else added up here. */
static void dispatch(struct imp *m)
{
	struct pd_jobs *J = m->jobs;
	struct job *j = NULL;

	if (!J->n)
		return;
	if (!J->indexed) {
		maps_index(&m->s.maps);
		J->indexed = 1;
	}
	pthread_mutex_lock(&J->mu);
	for (int i = 0; i < J->nj && !j; i++)
		if (!J->j[i].busy)
			j = &J->j[i];
	if (j) {
		size_t *t = j->offs;

		refresh(j, m);
		j->offs = J->cur;
		j->n = J->n;
		j->busy = 1;
		J->cur = t;
		pthread_cond_broadcast(&J->work);
	}
	pthread_mutex_unlock(&J->mu);
	if (!j) {	/* quiet: a failure means the import is done again */
		int quiet = m->quiet;

		m->quiet = 1;
		for (size_t i = 0; i < J->n && !m->failed; i++)
			sample_at(m, J->cur[i]);
		m->quiet = quiet;
		if (m->failed)
			J->redo = 1;
	}
	J->n = 0;
}

int pd_jobs_sample(struct imp *m, const struct rec *rc)
{
	struct pd_jobs *J = m->jobs;

	if (!J)
		return 0;
	J->cur[J->n++] = rc->off;
	if (J->n == BATCH)
		dispatch(m);
	return 1;
}

void pd_jobs_drain(struct imp *m)
{
	struct pd_jobs *J = m->jobs;
	int busy = 1;

	if (!J)
		return;
	dispatch(m);
	pthread_mutex_lock(&J->mu);
	while (busy) {
		busy = 0;
		for (int i = 0; i < J->nj; i++)
			busy |= J->j[i].busy;
		if (busy)
			pthread_cond_wait(&J->done, &J->mu);
	}
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

void pd_jobs_start(struct imp *m)
{
	struct pd_jobs *J;
	int n = m->opt->jobs - 1;

	if (n < 1 || !threadable(m))
		return;
	pd_attr_by_id(m, 0);	/* sorts the IDs, which workers then only read */
	J = xcalloc(1, sizeof(*J));
	pthread_mutex_init(&J->mu, NULL);
	pthread_cond_init(&J->work, NULL);
	pthread_cond_init(&J->done, NULL);
	J->cur = xcalloc(BATCH, sizeof(*J->cur));
	J->j = xcalloc((size_t)n, sizeof(*J->j));
	m->jobs = J;
	for (int i = 0; i < n; i++) {
		struct job *j = &J->j[i];

		j->w = *m;
		j->w.attrs = xmalloc(m->nattrs * sizeof(*m->attrs));
		memcpy(j->w.attrs, m->attrs, m->nattrs * sizeof(*m->attrs));
		for (size_t k = 0; k < m->nattrs; k++)
			j->w.attrs[k].samples = 0;
		raw_init(&j->stacks);
		samples_worker(&j->w.s, &m->s, &j->stacks);
		j->w.quiet = 1;
		j->offs = xcalloc(BATCH, sizeof(*j->offs));
		if (pthread_create(&j->th, NULL, worker, j)) {
			J->nj = i;	/* fewer threads: the same profile */
			break;
		}
		J->nj = i + 1;
	}
}

/* Stop the workers; with merge, add up what they counted into m. */
static void stop(struct imp *m, int merge)
{
	struct pd_jobs *J = m->jobs;

	pthread_mutex_lock(&J->mu);
	J->quit = 1;
	pthread_cond_broadcast(&J->work);
	pthread_mutex_unlock(&J->mu);
	for (int i = 0; i < J->nj; i++) {
		struct job *j = &J->j[i];
		struct imp *w = &j->w;

		pthread_join(j->th, NULL);
		if (merge) {
			for (size_t k = 0; k < m->nattrs; k++)
				m->attrs[k].samples += w->attrs[k].samples;
			m->unknown_id += w->unknown_id;
			m->other_samples += w->other_samples;
			m->dwarf_stacks += w->dwarf_stacks;
			m->call_stack_lbr += w->call_stack_lbr;
			m->no_ranges_filter += w->no_ranges_filter;
			samples_merge(&m->s, &w->s);
		}
	}
}

/* The threads' memory, once they stopped. */
static void jobs_free(struct pd_jobs *J)
{
	for (int i = 0; i < J->nj; i++) {
		free(J->j[i].w.attrs);
		free(J->j[i].offs);
		samples_worker_free(&J->j[i].w.s);
		raw_free(&J->j[i].stacks);
	}
	pthread_mutex_destroy(&J->mu);
	pthread_cond_destroy(&J->work);
	pthread_cond_destroy(&J->done);
	free(J->cur);
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
	redo = J->redo;
	stop(m, !m->failed && !redo);
	jobs_free(J);
	m->jobs = NULL;
	return redo;
}
