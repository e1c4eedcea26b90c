/* The IP-mode body-count estimators: sum, per-instruction mean, maximum,
 * each rescaled so that the total equals the samples. */
#include "check.h"
#include "../../convert/estimate.h"

static struct est_line *line(struct est_table *t, uint64_t key)
{
	for (size_t i = 0; i < t->size; i++)
		if (t->slot[i].key == key)
			return &t->slot[i];
	return NULL;
}

static void fill(struct est_table *t)
{
	est_init(t);
	/* Line 1: 4 instructions, 40 samples, all on the slow one. */
	est_add(t, 1, 0, 0x10);
	est_add(t, 1, 0, 0x11);
	est_add(t, 1, 40, 0x12);
	est_add(t, 1, 0, 0x13);
	/* Line 2: 1 instruction, 20 samples. */
	est_add(t, 2, 20, 0x20);
	/* Line 3: never sampled. */
	est_add(t, 3, 0, 0x30);
}

static void test_sum(void)
{
	struct est_table t;
	long double s;

	fill(&t);
	s = est_scale(&t, EST_SUM);
	CHECK(s == 1);
	CHECK(est_value(line(&t, 1), EST_SUM, s) == 40);
	CHECK(est_value(line(&t, 2), EST_SUM, s) == 20);
	CHECK(est_value(line(&t, 3), EST_SUM, s) == 0);
	CHECK(line(&t, 1)->vaddr == 0x12 && line(&t, 1)->ninsns == 4);
	est_free(&t);
}

static void test_mean(void)
{
	struct est_table t;
	long double s;

	fill(&t);
	/* means 10 and 20, total 30 rescaled to the 60 samples: x2 */
	s = est_scale(&t, EST_MEAN);
	CHECK(est_value(line(&t, 1), EST_MEAN, s) == 20);
	CHECK(est_value(line(&t, 2), EST_MEAN, s) == 40);
	CHECK(est_value(line(&t, 3), EST_MEAN, s) == 0);
	est_free(&t);
}

static void test_max(void)
{
	struct est_table t;
	long double s;

	fill(&t);
	s = est_scale(&t, EST_MAX);	/* 40 + 20 = 60: x1 */
	CHECK(est_value(line(&t, 1), EST_MAX, s) == 40);
	CHECK(est_value(line(&t, 2), EST_MAX, s) == 20);
	est_free(&t);
}

static void test_small_never_zero(void)
{
	struct est_table t;

	est_init(&t);
	est_add(&t, 7, 1, 1);
	for (int i = 0; i < 1000; i++)
		est_add(&t, 7, 0, 2 + (uint64_t)i);
	est_add(&t, 8, 100000, 5000);
	CHECK(est_value(line(&t, 7), EST_MEAN, est_scale(&t, EST_MEAN)) == 1);
	CHECK(estimator_by_name("mean") == EST_MEAN && estimator_by_name("x") == -1);
	est_free(&t);
}

static void test_many_lines(void)
{
	struct est_table t;
	int ok = 1;

	est_init(&t);
	for (uint64_t k = 1; k <= 100000; k++)
		est_add(&t, k, k, k);
	for (uint64_t k = 1; k <= 100000; k += 997)
		ok &= line(&t, k) && line(&t, k)->sum == k;
	CHECK(ok);
	CHECK(t.used == 100000);
	est_free(&t);
}

int main(void)
{
	RUN(test_sum);
	RUN(test_mean);
	RUN(test_max);
	RUN(test_small_never_zero);
	RUN(test_many_lines);
	return tests_failed != 0;
}
