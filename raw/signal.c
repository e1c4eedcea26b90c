// SPDX-License-Identifier: GPL-2.0-only
/* The signal of a raw profile (signal.h). */
#include "signal.h"
#include "rawprof.h"

#include <string.h>

static const char *const names[] = {
	[SIGNAL_UNKNOWN] = "unknown",
	[SIGNAL_TIME] = "time",
	[SIGNAL_EXEC] = "executions",
	[SIGNAL_BRANCH] = "branch-records",
	[SIGNAL_EXACT] = "exact",
};

const char *signal_name(enum raw_signal s)
{
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : names[0];
}

enum raw_signal signal_by_name(const char *name)
{
	for (unsigned i = 1; name && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return (enum raw_signal)i;
	return SIGNAL_UNKNOWN;
}

/* perf's symbolic names (tools/perf/util/parse-events.c, event_symbols_hw
 * and event_symbols_sw) and the PMU event names of the same meaning. */
static const char *const exec_events[] = {
	"instructions", "branches", "branch-instructions", "inst_retired.any",
	"inst_retired.any_p", "inst_retired", "ex_ret_instr", "ex_ret_ops",
	"ex_ret_brn", "br_inst_retired.all_branches", "inst_retired.prec_dist",
};
static const char *const time_events[] = {
	"cpu-clock", "task-clock", "cycles", "cpu-cycles", "ref-cycles",
	"cpu_clk_unhalted.thread", "ls_not_halted_cyc", "bus-cycles",
};

static int in(const char *name, size_t len, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(list[i]) == len && !strncmp(name, list[i], len))
			return 1;
	return 0;
}

enum raw_signal signal_of_event(const char *event)
{
	if (!event)
		return SIGNAL_UNKNOWN;
	/* "cpu/instructions/pp" and "ibs_op/cnt_ctl=1/": the PMU's name
	 * is the event for IBS; for cpu/NAME/, the name between. */
	if (!strncmp(event, "cpu/", 4) || !strncmp(event, "cpu_core/", 9) ||
	    !strncmp(event, "cpu_atom/", 9))
		event = strchr(event, '/') + 1;
	size_t len = strcspn(event, ":/,");
	/* IBS op samples count dispatched ops with cnt_ctl=1, cycles
	 * without (perf-amd-ibs(1)); the first event of a list only. */
	if (len == 6 && !strncmp(event, "ibs_op", 6)) {
		const char *cc = strstr(event, "cnt_ctl=1");
		return cc && cc < event + strcspn(event, ",") ? SIGNAL_EXEC : SIGNAL_TIME;
	}
	if (in(event, len, exec_events, sizeof(exec_events) / sizeof(exec_events[0])))
		return SIGNAL_EXEC;
	if (in(event, len, time_events, sizeof(time_events) / sizeof(time_events[0])))
		return SIGNAL_TIME;
	return SIGNAL_UNKNOWN;
}

enum raw_signal raw_signal_of(const struct raw_profile *p)
{
	enum raw_signal s = signal_by_name(raw_get_meta(p, "signal"));
	const char *mode = raw_get_meta(p, "mode");

	if (s != SIGNAL_UNKNOWN)
		return s;
	if (mode && !strcmp(mode, "exact-counts"))
		return SIGNAL_EXACT;
	if (mode && (!strcmp(mode, "lbr") || !strcmp(mode, "import-lbr")))
		return SIGNAL_BRANCH;
	return signal_of_event(raw_get_meta(p, "event"));
}
