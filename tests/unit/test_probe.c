/* SPDX-License-Identifier: GPL-2.0-only */
/* The mode decision of pgoprof-record for every answer the kernel can give
 * to the branch-stack probe, and the probe's perf_event_attr. */
#include "check.h"
#include "../../collector/probe.h"

#include <errno.h>
#include <string.h>

static void test_decide(void)
{
	char why[512];

	CHECK(decide_mode(MODE_AUTO, 0, why, sizeof(why)) == MODE_LBR);
	CHECK(strstr(why, "mode lbr"));
	CHECK(decide_mode(MODE_LBR, 0, why, sizeof(why)) == MODE_LBR);
	/* No PMU (VMs), no branch stack, filter or period refused: fall back. */
	int fallback[] = { ENOENT, EOPNOTSUPP, EINVAL, ENODEV };
	for (size_t i = 0; i < sizeof(fallback) / sizeof(fallback[0]); i++) {
		CHECK(decide_mode(MODE_AUTO, fallback[i], why, sizeof(why)) == MODE_STACK);
		CHECK(strstr(why, "mode stack") && strstr(why, strerror(fallback[i])));
		CHECK(decide_mode(MODE_LBR, fallback[i], why, sizeof(why)) == -1);
		CHECK(strstr(why, "--mode lbr") && strstr(why, "--mode stack"));
	}
	/* Privileges: never hidden behind a fallback. */
	CHECK(decide_mode(MODE_AUTO, EACCES, why, sizeof(why)) == -1);
	CHECK(strstr(why, "CAP_PERFMON"));
	CHECK(decide_mode(MODE_AUTO, EPERM, why, sizeof(why)) == -1);
	/* --mode stack never probes and never fails. */
	CHECK(decide_mode(MODE_STACK, ENOENT, why, sizeof(why)) == MODE_STACK);
	CHECK(decide_mode(MODE_STACK, 0, why, sizeof(why)) == MODE_STACK);
}

static void test_attr(void)
{
	struct perf_event_attr a;

	lbr_attr(&a, 999, 0, 0);
	CHECK(a.type == PERF_TYPE_HARDWARE && a.config == PERF_COUNT_HW_CPU_CYCLES);
	CHECK(a.freq == 1 && a.sample_freq == 999);
	CHECK(a.sample_type & PERF_SAMPLE_BRANCH_STACK);
	CHECK(a.branch_sample_type == (PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY));
	CHECK(a.exclude_kernel);
	lbr_attr(&a, 999, 200003, 0);
	CHECK(!a.freq && a.sample_period == 200003);
	/* AMD BRS: retired taken branches at a fixed period, even given -F. */
	lbr_attr(&a, 999, 0, 1);
	CHECK(a.type == PERF_TYPE_RAW && a.config == 0xc4);
	CHECK(!a.freq && a.sample_period > 0);
	CHECK(mode_by_name("auto") == MODE_AUTO && mode_by_name("lbr") == MODE_LBR &&
	      mode_by_name("stack") == MODE_STACK && mode_by_name("x") == -1);
}

int main(void)
{
	RUN(test_decide);
	RUN(test_attr);
	return tests_failed != 0;
}
