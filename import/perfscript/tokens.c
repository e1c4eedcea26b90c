/* SPDX-License-Identifier: GPL-2.0-only */
/* perf script text: the numbers and tokens of a line (internal.h). */
#include "internal.h"

#include <string.h>

#include "../../lib/util.h"

int ps_hexnum(const char *s, size_t n, uint64_t *v)
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

int ps_hex0x(const char *s, size_t n, uint64_t *v)
{
	if (n == 1 && s[0] == '0') {
		*v = 0;
		return 1;
	}
	return n > 2 && s[0] == '0' && s[1] == 'x' && ps_hexnum(s + 2, n - 2, v);
}

int ps_decnum(const char *s, size_t n, uint64_t *v)
{
	return !dec_u64(s, n, v);
}

int ps_pidnum(const char *s, size_t n, uint32_t *v)
{
	uint64_t x;

	if (n == 2 && s[0] == '-' && s[1] == '1') {
		*v = UINT32_MAX;
		return 1;
	}
	if (!ps_decnum(s, n, &x) || x >= UINT32_MAX)
		return 0;
	*v = (uint32_t)x;
	return 1;
}

int ps_pidtid(const struct tok *t, uint32_t *pid)
{
	const char *slash = memchr(t->p, '/', t->n);
	uint32_t tid;

	return slash && ps_pidnum(t->p, (size_t)(slash - t->p), pid) &&
	       ps_pidnum(slash + 1, t->n - (size_t)(slash + 1 - t->p), &tid);
}

int ps_seconds(const char *s, size_t n, uint64_t *ns)
{
	const char *dot = memchr(s, '.', n);
	size_t nf = dot ? n - (size_t)(dot + 1 - s) : 0;
	uint64_t sec, frac = 0;

	if (!ps_decnum(s, dot ? (size_t)(dot - s) : n, &sec) || sec > UINT64_MAX / 1000000000 - 1 ||
	    nf > 9 || (dot && !ps_decnum(dot + 1, nf, &frac)))
		return 0;
	for (size_t i = nf; i < 9; i++)
		frac *= 10;
	*ns = sec * 1000000000 + frac;
	return 1;
}

int ps_next_tok(const char *l, size_t n, size_t *pos, struct tok *t)
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

int ps_tok_class(const struct tok *t)
{
	uint64_t v;
	uint32_t p;

	if (ps_pidtid(t, &p))
		return T_PIDTID;
	if (ps_pidnum(t->p, t->n, &p))
		return T_INT;
	if (t->n > 2 && t->p[0] == '[' && t->p[t->n - 1] == ']' &&
	    ps_decnum(t->p + 1, t->n - 2, &v))
		return T_CPU;
	if (t->n > 1 && t->p[t->n - 1] == ':' && ps_seconds(t->p, t->n - 1, &v))
		return T_TIME;
	return T_OTHER;
}

int ps_entry_at(const char *l, size_t n, size_t i)
{
	if (n - i < 4 || l[i] != '0' || l[i + 1] != 'x')
		return 0;
	for (i += 2; i < n && hexval(l[i]) >= 0; i++)
		;
	return i < n && (l[i] == '/' || l[i] == '(');
}

int ps_frame_line(const char *l, size_t n)
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

size_t ps_paren_open(const char *l, size_t end)
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
