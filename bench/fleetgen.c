/* SPDX-License-Identifier: GPL-2.0-only */
/* fleetgen: N raw profiles of one fleet, for measuring what merging them
 * costs (bench/fleet-merge.sh, docs/fleet.md).
 *
 * Each host's profile is the template (a real recording) with every count
 * drawn again around its own value (a host saw the same code, not the same
 * samples) and a tenth of its IP samples, edges and stack leaves moved to
 * one of 64 host-specific neighbours (code that only some hosts run: other
 * inputs, other library versions), so that the merged profile has more
 * distinct addresses than any one host.  META host and start_time are the
 * host's own.  Deterministic for a seed.
 *
 * Usage: fleetgen [-s SEED] -n N -o DIR TEMPLATE.raw
 * Build: make build/bench/fleetgen */
#include "../lib/util.h"
#include "../raw/rawprof.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)	/* xorshift64 */
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A count around c: c * U(0.5, 1.5), at least 1 when c was. */
static uint64_t redraw(uint64_t c)
{
	uint64_t v = (uint64_t)((double)c * (0.5 + (double)(next() % 1000) / 1000.0) + 0.5);

	return c && !v ? 1 : v;
}

/* One host's offset for a tenth of the addresses: a neighbour in 16-byte
 * steps, one of 64 per host. */
static uint64_t moved(uint64_t off, unsigned host)
{
	return next() % 10 ? off : off + 16 * (1 + host % 64);
}

static void make_host(struct raw_profile *h, const struct raw_profile *t,
		      unsigned host)
{
	char buf[64];

	raw_init(h);
	raw_merge(h, t, 1);
	snprintf(buf, sizeof(buf), "host-%05u", host);
	raw_set_meta(h, "host", buf);
	snprintf(buf, sizeof(buf), "2026-11-24T%02u:%02u:00Z", host / 60 % 24, host % 60);
	raw_set_meta(h, "start_time", buf);
	for (size_t i = 0; i < h->nobjs; i++) {
		struct raw_object *o = &h->objs[i];

		for (size_t j = 0; j < o->nips; j++) {
			o->ips[j].offset = moved(o->ips[j].offset, host);
			o->ips[j].count = redraw(o->ips[j].count);
		}
		for (size_t j = 0; j < o->nedges; j++) {
			o->edges[j].callee_offset = moved(o->edges[j].callee_offset, host);
			o->edges[j].count = redraw(o->edges[j].count);
		}
	}
	for (size_t i = 0; i < h->stacks.n; i++) {
		struct raw_stack *s = &h->stacks.v[i];

		h->stacks.frames[s->first].offset = moved(h->stacks.frames[s->first].offset, host);
		s->count = redraw(s->count);
	}
	/* leaves moved into equal stacks add up when the profile is
	 * normalized on write */
}

int main(int argc, char **argv)
{
	const char *dir = NULL;
	unsigned long n = 0;
	struct raw_profile t, h;
	int c;

	while ((c = getopt(argc, argv, "s:n:o:")) != -1) {
		switch (c) {
		case 's':
			rng = strtoull(optarg, NULL, 10) | 1;
			break;
		case 'n':
			n = strtoul(optarg, NULL, 10);
			break;
		case 'o':
			dir = optarg;
			break;
		default:
			return 2;
		}
	}
	if (!n || !dir || optind + 1 != argc) {
		fprintf(stderr, "usage: fleetgen [-s SEED] -n N -o DIR TEMPLATE.raw\n");
		return 2;
	}
	if (raw_read_file(&t, argv[optind]))
		return 1;
	mkdir(dir, 0755);
	for (unsigned i = 0; i < n; i++) {
		char path[4096];

		make_host(&h, &t, i);
		snprintf(path, sizeof(path), "%s/host-%05u.raw", dir, i);
		if (raw_write_file(&h, path))
			return 1;
		raw_free(&h);
	}
	raw_free(&t);
	return 0;
}
