/* SPDX-License-Identifier: GPL-2.0-only */
/* perf script text: the mapped file names, and the mappings of each in
 * each address space, for call-chain frames that perf 6.3 and older print
 * as offsets into their dso (internal.h). */
#include "internal.h"
#include "../../lib/util.h"

#include <stdlib.h>
#include <string.h>

uint32_t ps_dso_id(struct ps *m, const char *s, size_t n, int add)
{
	char *c = ps_cstr(m, s, n);
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

void ps_named_add(struct ps *m, int32_t key, uint32_t dso,
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

void ps_named_fork(struct ps *m, int32_t parent, int32_t child)
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
				ps_named_add(m, child, g->dso, &m->named[i].m[j]);
	}
}

uint64_t ps_frame_addr(struct ps *m, int32_t key, const struct frame *f)
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

void ps_dsos_free(struct ps *m)
{
	for (size_t i = 0; i < m->cap_named; i++)
		free(m->named[i].m);
	free(m->named);
	strmap_free(&m->dso_index);
	for (size_t i = 0; i < m->ndsos; i++)
		free(m->dsos[i]);
	free(m->dsos);
}
