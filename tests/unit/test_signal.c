/* SPDX-License-Identifier: GPL-2.0-only */
/* The signal of a raw profile: from its META `signal`, else from the mode
 * and the perf event name, as perf and pgoprof-record write them. */
#include "check.h"
#include "../../raw/rawprof.h"
#include "../../raw/signal.h"

#include <string.h>

static void test_names(void)
{
	for (int s = SIGNAL_UNKNOWN; s <= SIGNAL_EXACT; s++)
		CHECK(signal_by_name(signal_name((enum raw_signal)s)) == s);
	CHECK(signal_by_name(NULL) == SIGNAL_UNKNOWN);
	CHECK(signal_by_name("exec") == SIGNAL_UNKNOWN);
	CHECK(!strcmp(signal_name((enum raw_signal)99), "unknown"));
}

static void test_events(void)
{
	const char *exec[] = { "instructions", "instructions:u", "instructions:ppp",
			       "cpu/instructions/pp", "ibs_op/cnt_ctl=1/", "ibs_op/cnt_ctl=1,l3missonly=0/",
			       "branches:u", "inst_retired.any", "instructions:u,cycles:u" };
	const char *time[] = { "cpu-clock", "cpu-clock:ppp", "task-clock", "cycles",
			       "cycles:u", "cpu/cycles/", "ref-cycles", "ibs_op", "ibs_op//",
			       "ibs_op/cnt_ctl=0/", "ibs_op//,instructions:u,x/cnt_ctl=1/" };
	const char *unknown[] = { "r00c0", "", "instruction", "cyclesx", "sched:sched_switch" };

	for (size_t i = 0; i < sizeof(exec) / sizeof(exec[0]); i++)
		CHECK(signal_of_event(exec[i]) == SIGNAL_EXEC);
	for (size_t i = 0; i < sizeof(time) / sizeof(time[0]); i++)
		CHECK(signal_of_event(time[i]) == SIGNAL_TIME);
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
		CHECK(signal_of_event(unknown[i]) == SIGNAL_UNKNOWN);
	CHECK(signal_of_event(NULL) == SIGNAL_UNKNOWN);
}

static enum raw_signal of(const char *signal, const char *mode, const char *event)
{
	struct raw_profile p;
	enum raw_signal s;

	raw_init(&p);
	if (signal)
		raw_set_meta(&p, "signal", signal);
	if (mode)
		raw_set_meta(&p, "mode", mode);
	if (event)
		raw_set_meta(&p, "event", event);
	s = raw_signal_of(&p);
	raw_free(&p);
	return s;
}

static void test_profile(void)
{
	/* The key wins over what mode and event would say. */
	CHECK(of("executions", "stack-fp", "cpu-clock") == SIGNAL_EXEC);
	/* Profiles written before the key. */
	CHECK(of(NULL, "exact-counts", NULL) == SIGNAL_EXACT);
	CHECK(of(NULL, "lbr", "cycles") == SIGNAL_BRANCH);
	CHECK(of(NULL, "import-lbr", "cycles:u") == SIGNAL_BRANCH);
	CHECK(of(NULL, "stack-fp", "cpu-clock") == SIGNAL_TIME);
	CHECK(of(NULL, "import-stack", "instructions:pp") == SIGNAL_EXEC);
	CHECK(of(NULL, NULL, NULL) == SIGNAL_UNKNOWN);
	CHECK(of("nonsense", NULL, "cpu-clock") == SIGNAL_TIME);
}

int main(void)
{
	RUN(test_names);
	RUN(test_events);
	RUN(test_profile);
	return tests_failed != 0;
}
