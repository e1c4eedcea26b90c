/* SPDX-License-Identifier: GPL-2.0-only */
/* proc/mappings.c: address -> (object, file offset) with shadowing,
 * through the sorted index and the unindexed newest mappings, against a
 * plain newest-first scan. */
#include "check.h"
#include "../../proc/mappings.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct ref {
	uint64_t start, end, pgoff;
	uint32_t obj;		/* MAP_NO_OBJECT: anonymous */
};

static uint64_t rs = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

/* What maps_resolve must say: the newest mapping that contains addr. */
static enum unattr_reason ref_resolve(const struct ref *r, size_t n, uint64_t addr,
				      uint32_t *obj, uint64_t *off)
{
	for (size_t i = n; i-- > 0;) {
		if (addr < r[i].start || addr >= r[i].end)
			continue;
		if (r[i].obj == MAP_NO_OBJECT)
			return UNATTR_ANON;
		*obj = r[i].obj;
		*off = addr - r[i].start + r[i].pgoff;
		return UNATTR_NONE;
	}
	return UNATTR_NO_MAPPING;
}

static int agree(struct maptable *t, const struct ref *r, size_t n, uint64_t addr)
{
	uint32_t o1 = 0, o2 = 0;
	uint64_t f1 = 0, f2 = 0;
	enum unattr_reason a = maps_resolve(t, 7, addr, &o1, &f1);
	enum unattr_reason b = ref_resolve(r, n, addr, &o2, &f2);

	if (a != b || (a == UNATTR_NONE && (o1 != o2 || f1 != f2))) {
		printf("  0x%" PRIx64 " after %zu mappings: reason %d/%d obj %u/%u off 0x%" PRIx64 "/0x%" PRIx64 "\n",
		       addr, n, a, b, o1, o2, f1, f2);
		return 0;
	}
	return 1;
}

/* Mappings added one at a time (overlapping, nested, empty, at equal
 * bounds), each followed by lookups: so both the unindexed tail and the
 * index, rebuilt many times, answer. */
static void test_random_shadowing(void)
{
	struct raw_profile prof;
	struct maptable t;
	struct ref r[3000];
	size_t bad = 0;

	raw_init(&prof);
	maps_init(&t, &prof);
	for (size_t n = 0; n < 3000; n++) {
		uint8_t id[8];
		uint64_t start = (rnd() % 4096) * 0x1000, len = (rnd() % 64) * 0x1000;

		if (n % 11 == 0)
			len = 0;
		if (n % 7 == 0 && n)
			start = r[rnd() % n].start;	/* same start as an older one */
		memcpy(id, &n, sizeof(id));
		r[n] = (struct ref){ start, start + len, rnd() % 0x100000, 0 };
		if (n % 5 == 0) {
			r[n].obj = MAP_NO_OBJECT;
			maps_add(&t, 7, start, len, r[n].pgoff, NULL, 0, "[anon:jit]", 0, 0);
		} else {
			maps_add(&t, 7, start, len, r[n].pgoff, id, sizeof(id), "/x", 0, 0);
			r[n].obj = (uint32_t)raw_find_object(&prof, id, sizeof(id));
		}
		for (int k = 0; k < 8 && bad < 5; k++) {
			uint64_t a = (rnd() % (4200 * 0x1000));

			bad += !agree(&t, r, n + 1, a);
			bad += !agree(&t, r, n + 1, r[rnd() % (n + 1)].start);
			bad += !agree(&t, r, n + 1, r[rnd() % (n + 1)].end);
			bad += !agree(&t, r, n + 1, r[rnd() % (n + 1)].end - 1);
		}
	}
	CHECK(bad == 0);
	CHECK(maps_resolve(&t, 8, 0x1000, &(uint32_t){ 0 }, &(uint64_t){ 0 }) ==
	      UNATTR_NO_MAPPING);
	maps_free(&t);
	raw_free(&prof);
}

/* A child has its parent's mappings, and its own later ones shadow them
 * in the child only. */
static void test_fork_shadow(void)
{
	struct raw_profile prof;
	struct maptable t;
	uint32_t obj = 0;
	uint64_t off = 0;

	raw_init(&prof);
	maps_init(&t, &prof);
	for (int i = 0; i < 40; i++)
		maps_add(&t, 1, 0x10000 + i * 0x1000, 0x1000, i * 0x1000,
			 (const uint8_t *)"\1\2\3\4", 4, "/a", 0, 0);
	maps_fork(&t, 1, 2);
	maps_add(&t, 2, 0x10000, 0x40000, 0, (const uint8_t *)"\5\6\7\10", 4, "/b", 0, 0);
	CHECK(maps_resolve(&t, 1, 0x12345, &obj, &off) == UNATTR_NONE && off == 0x2345);
	CHECK(maps_resolve(&t, 2, 0x12345, &obj, &off) == UNATTR_NONE && off == 0x2345 &&
	      obj == (uint32_t)raw_find_object(&prof, (const uint8_t *)"\5\6\7\10", 4));
	CHECK(maps_resolve(&t, 2, 0x38000, &obj, &off) == UNATTR_NONE && off == 0x28000);
	CHECK(maps_resolve(&t, 1, 0x37800, &obj, &off) == UNATTR_NONE && off == 0x27800 &&
	      obj == (uint32_t)raw_find_object(&prof, (const uint8_t *)"\1\2\3\4", 4));
	CHECK(maps_resolve(&t, 1, 0x38000, &obj, &off) == UNATTR_NO_MAPPING);
	maps_free(&t);
	raw_free(&prof);
}

int main(void)
{
	RUN(test_random_shadowing);
	RUN(test_fork_shadow);
	return tests_failed != 0;
}
