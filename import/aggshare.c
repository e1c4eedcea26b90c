/* SPDX-License-Identifier: GPL-2.0-only */
/* The post between the threads of an import (aggshare.h): chunks of
 * counted keys, an inbox for each table, and a pool so that a chunk is
 * allocated (and its pages faulted in) once, not once a post. */
#include "aggshare.h"
#include "../lib/util.h"

#include <stdlib.h>

struct aggshare *aggshare_new(unsigned n, size_t chunk)
{
	struct aggshare *s = xcalloc(1, sizeof(*s));

	pthread_mutex_init(&s->mu, NULL);
	s->n = n;
	s->chunk = chunk ? chunk : AGGSHARE_CHUNK;
	s->inbox = xcalloc(n, sizeof(*s->inbox));
	return s;
}

static void free_list(struct agg_chunk *c)
{
	while (c) {
		struct agg_chunk *next = c->next;

		free(c);
		c = next;
	}
}

void aggshare_free(struct aggshare *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->n; i++)
		free_list(s->inbox[i]);
	free_list(s->pool);
	pthread_mutex_destroy(&s->mu);
	free(s->inbox);
	free(s);
}

struct agg_chunk *aggshare_chunk(struct aggshare *s)
{
	struct agg_chunk *c;

	pthread_mutex_lock(&s->mu);
	c = s->pool;
	if (c)
		s->pool = c->next;
	pthread_mutex_unlock(&s->mu);
	if (!c)
		c = xmalloc(sizeof(*c) + s->chunk * sizeof(c->e[0]));
	c->next = NULL;
	c->n = 0;
	return c;
}

void aggshare_post(struct aggshare *s, unsigned to, struct agg_chunk *c)
{
	pthread_mutex_lock(&s->mu);
	c->next = s->inbox[to];
	s->inbox[to] = c;
	pthread_mutex_unlock(&s->mu);
}

struct agg_chunk *aggshare_take(struct aggshare *s, unsigned to)
{
	struct agg_chunk *c;

	pthread_mutex_lock(&s->mu);
	c = s->inbox[to];
	s->inbox[to] = NULL;
	pthread_mutex_unlock(&s->mu);
	return c;
}

void aggshare_recycle(struct aggshare *s, struct agg_chunk *list)
{
	struct agg_chunk *last = list;

	if (!list)
		return;
	while (last->next)
		last = last->next;
	pthread_mutex_lock(&s->mu);
	last->next = s->pool;
	s->pool = list;
	pthread_mutex_unlock(&s->mu);
}
