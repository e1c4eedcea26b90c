/* SPDX-License-Identifier: GPL-2.0-only */
/* The sampler ladder of pgoprof-record (collector/probe.c): the decision
 * for each kind of machine, from the answers its kernel gives to the
 * probes (errnos as arch/x86/events/amd/{brs,lbr,ibs}.c,
 * arch/x86/events/core.c and drivers/perf/arm_brbe.c return them), and
 * the perf_event_attr of each event. */
#include "check.h"
#include "../../collector/probe.h"

#include <errno.h>
#include <string.h>

#define NT PROBE_NOT_TRIED
#define NOPMU PROBE_NO_PMU

/* One kind of machine: what its probes return, what auto takes. */
struct machine {
	const char *name;
	enum cpu_vendor vendor;
	int ibs_type, ibs_cnt_ctl, ibs_kernel;
	/* BRSTACK, AMD_BRS, INSN_PPP, INSN_PP, INSN_P, IBS_OP, INSN, BRANCHES, CPU_CLOCK */
	int err[LEV_MAX];
	int mode;			/* auto's */
	enum ladder_event ev;
	const char *says;		/* in the line of the choice */
	int exec_mode;			/* --mode exec's */
	enum ladder_event exec_ev;
};

static const struct machine machines[] = {
	{ "no PMU (this VM: cpu-clock only)", VENDOR_AMD, -1, -1, 0,
	  { ENOENT, ENOENT, ENOENT, ENOENT, ENOENT, NOPMU, ENOENT, ENOENT, 0 },
	  MODE_STACK, LEV_CPU_CLOCK, "mode stack: no branch records here, nor", -1, 0 },
	{ "vPMU without LBR (GCP C4, AWS, VMware vPMC)", VENDOR_INTEL, -1, -1, 0,
	  { EOPNOTSUPP, NT, EOPNOTSUPP, EOPNOTSUPP, EOPNOTSUPP, NOPMU, 0, 0, 0 },
	  MODE_EXEC, LEV_INSN, "mode exec: no branch records here; sampling instructions (executions",
	  MODE_EXEC, LEV_INSN },
	{ "vPMU with branches only", VENDOR_INTEL, -1, -1, 0,
	  { EOPNOTSUPP, NT, EOPNOTSUPP, EOPNOTSUPP, EOPNOTSUPP, NOPMU, ENOENT, 0, 0 },
	  MODE_EXEC, LEV_BRANCHES, "sampling branches", MODE_EXEC, LEV_BRANCHES },
	{ "Intel with LBR and PEBS", VENDOR_INTEL, -1, -1, 0,
	  { 0, NT, 0, 0, 0, NOPMU, 0, 0, 0 },
	  MODE_LBR, LEV_BRSTACK, "mode lbr: the CPU has Intel LBR; sampling cycles",
	  MODE_EXEC, LEV_INSN_PPP },
	{ "Intel without prec_dist (precise_ip 2 at most)", VENDOR_INTEL, -1, -1, 0,
	  { 0, NT, EOPNOTSUPP, 0, 0, NOPMU, 0, 0, 0 },
	  MODE_LBR, LEV_BRSTACK, "Intel LBR", MODE_EXEC, LEV_INSN_PP },
	{ "AMD Zen 2 with IBS, no BRS", VENDOR_AMD, 11, 19, 0,
	  { EOPNOTSUPP, EOPNOTSUPP, ENOENT, ENOENT, ENOENT, 0, 0, 0, 0 },
	  MODE_EXEC, LEV_IBS_OP, "sampling ibs_op (executions", MODE_EXEC, LEV_IBS_OP },
	{ "AMD Zen 2, a kernel whose IBS cannot exclude the kernel", VENDOR_AMD, 11, 19, 1,
	  { EOPNOTSUPP, EOPNOTSUPP, ENOENT, ENOENT, ENOENT, 0, 0, 0, 0 },
	  MODE_EXEC, LEV_IBS_OP, "cannot exclude the kernel", MODE_EXEC, LEV_IBS_OP },
	{ "AMD, ibs_op without cnt_ctl (kernel before its format)", VENDOR_AMD, 11, -1, 0,
	  { EOPNOTSUPP, EOPNOTSUPP, ENOENT, ENOENT, ENOENT, PROBE_NO_CNT_CTL, 0, 0, 0 },
	  MODE_EXEC, LEV_INSN, "sampling instructions", MODE_EXEC, LEV_INSN },
	{ "AMD Zen 3 with BRS", VENDOR_AMD, 11, 19, 0,
	  { EINVAL, 0, ENOENT, ENOENT, ENOENT, 0, 0, 0, 0 },
	  MODE_LBR, LEV_AMD_BRS, "mode lbr: the CPU has AMD BRS, Zen 3; sampling ex_ret_brn_tkn",
	  MODE_EXEC, LEV_IBS_OP },
	{ "AMD Zen 4 (LbrExtV2)", VENDOR_AMD, 11, 19, 0,
	  { 0, EINVAL, ENOENT, ENOENT, ENOENT, 0, 0, 0, 0 },
	  MODE_LBR, LEV_BRSTACK, "AMD LbrExtV2, Zen 4; sampling cycles", MODE_EXEC, LEV_IBS_OP },
	{ "Arm with BRBE", VENDOR_ARM, -1, -1, 0,
	  { 0, NT, EOPNOTSUPP, EOPNOTSUPP, EOPNOTSUPP, NOPMU, 0, 0, 0 },
	  MODE_LBR, LEV_BRSTACK, "Arm BRBE", MODE_EXEC, LEV_INSN },
	{ "Arm without BRBE (Graviton, Ampere)", VENDOR_ARM, -1, -1, 0,
	  { EOPNOTSUPP, NT, EOPNOTSUPP, EOPNOTSUPP, EOPNOTSUPP, NOPMU, 0, 0, 0 },
	  MODE_EXEC, LEV_INSN, "sampling instructions", MODE_EXEC, LEV_INSN },
	/* Privileges: the first answer that matters decides, and a refusal
	 * is never taken for "not here". */
	{ "no privileges (perf_event_paranoid, no CAP_PERFMON)", VENDOR_INTEL, -1, -1, 0,
	  { EACCES, NT, EACCES, EACCES, EACCES, NOPMU, EACCES, EACCES, EACCES },
	  -1, 0, "cannot probe for cycles (EACCES, permission denied): run as root or grant CAP_PERFMON",
	  -1, 0 },
	{ "no branch stack, instructions refused for privileges", VENDOR_INTEL, -1, -1, 0,
	  { ENOENT, NT, EPERM, EPERM, EPERM, NOPMU, EPERM, EPERM, 0 },
	  -1, 0, "cannot probe for instructions:ppp (EPERM", -1, 0 },
	{ "IBS refused for privileges, instructions there", VENDOR_AMD, 11, 19, 0,
	  { EOPNOTSUPP, EOPNOTSUPP, ENOENT, ENOENT, ENOENT, EACCES, 0, 0, 0 },
	  -1, 0, "cannot probe for ibs_op (EACCES", -1, 0 },
};

static void check_machine(const struct machine *m)
{
	struct ladder_probe p = { .vendor = m->vendor, .ibs_type = m->ibs_type,
				  .ibs_cnt_ctl = m->ibs_cnt_ctl, .ibs_kernel = m->ibs_kernel };
	struct ladder_report r;
	enum ladder_event ev = LEV_MAX;
	int mode;

	memcpy(p.err, m->err, sizeof(p.err));
	mode = ladder_decide(MODE_AUTO, -1, &p, &ev, &r);
	printf("  %s: auto -> %d %s\n", m->name, mode, mode < 0 ? "-" : ladder_event_name(ev));
	CHECK(mode == m->mode);
	CHECK(mode < 0 || ev == m->ev);
	CHECK(strstr(r.why, m->says));
	/* One line per rung, each saying what was tried. */
	for (int i = 0; i < 3; i++)
		CHECK(!strncmp(r.rung[i], "rung ", 5) && !strchr(r.rung[i], '\n'));
	if (mode >= 0)
		CHECK(strstr(r.rung[mode == MODE_LBR ? 0 : mode == MODE_EXEC ? 1 : 2], "taken: "));
	ev = LEV_MAX;
	mode = ladder_decide(MODE_EXEC, -1, &p, &ev, &r);
	CHECK(mode == m->exec_mode);
	CHECK(mode < 0 || ev == m->exec_ev);
	CHECK(strstr(r.rung[0], "not tried (--mode exec)"));
}

static void test_machines(void)
{
	for (size_t i = 0; i < sizeof(machines) / sizeof(machines[0]); i++)
		check_machine(&machines[i]);
}

/* The messages of a mode that is not there name what was tried. */
static void test_refusals(void)
{
	struct ladder_probe p = { .vendor = VENDOR_AMD, .ibs_type = -1, .ibs_cnt_ctl = -1 };
	struct ladder_report r;
	enum ladder_event ev;
	const int none[LEV_MAX] = { ENOENT, ENOENT, ENOENT, ENOENT, ENOENT, NOPMU,
				    ENOENT, ENOENT, 0 };

	memcpy(p.err, none, sizeof(none));
	CHECK(ladder_decide(MODE_EXEC, -1, &p, &ev, &r) == -1);
	CHECK(strstr(r.why, "--mode exec: this CPU or VM offers no execution-proportional event ("));
	CHECK(strstr(r.why, "instructions:ppp, instructions:pp, instructions:p (precise): ENOENT"));
	CHECK(strstr(r.why, "ibs_op (AMD IBS, dispatched ops): no ibs_op PMU"));
	CHECK(strstr(r.why, "instructions, branches: ENOENT") && strstr(r.why, "--mode stack"));
	CHECK(ladder_decide(MODE_LBR, -1, &p, &ev, &r) == -1);
	CHECK(strstr(r.why, "--mode lbr: this CPU or VM offers no branch records (cycles (AMD LbrExtV2, Zen 4): ENOENT"));
	CHECK(strstr(r.why, "ex_ret_brn_tkn (AMD BRS, Zen 3): ENOENT"));
	CHECK(strstr(r.rung[1], "not tried (--mode lbr)"));
	/* --event: only that event; the others are not looked at. */
	p.err[LEV_INSN] = 0;
	CHECK(ladder_decide(MODE_EXEC, LEV_IBS_OP, &p, &ev, &r) == -1);
	CHECK(strstr(r.why, "--event ibs_op: not on this CPU or VM"));
	CHECK(ladder_decide(MODE_EXEC, LEV_INSN, &p, &ev, &r) == MODE_EXEC && ev == LEV_INSN);
	CHECK(strstr(r.why, "mode exec (asked for): sampling instructions"));
	/* --mode stack probes nothing and never fails. */
	for (int e = 0; e < LEV_MAX; e++)
		p.err[e] = PROBE_NOT_TRIED;
	CHECK(ladder_decide(MODE_STACK, -1, &p, &ev, &r) == MODE_STACK && ev == LEV_CPU_CLOCK);
	CHECK(!r.rung[0][0] && strstr(r.why, "mode stack (asked for)"));
	/* A lower rung's refusal does not hide a higher rung's event. */
	memcpy(p.err, none, sizeof(none));
	p.err[LEV_BRSTACK] = 0;
	p.err[LEV_INSN] = EACCES;
	CHECK(ladder_decide(MODE_AUTO, -1, &p, &ev, &r) == MODE_LBR);
	CHECK(strstr(r.rung[1], "not needed"));
}

static void test_attr(void)
{
	struct perf_event_attr a;
	struct ladder_probe p = { .ibs_type = 11, .ibs_cnt_ctl = 19 };

	lbr_attr(&a, 999, 0, 0);
	CHECK(a.type == PERF_TYPE_HARDWARE && a.config == PERF_COUNT_HW_CPU_CYCLES);
	CHECK(a.freq == 1 && a.sample_freq == 999);
	CHECK(a.sample_type & PERF_SAMPLE_BRANCH_STACK);
	CHECK(a.branch_sample_type == (PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY));
	CHECK(a.exclude_kernel);
	lbr_attr(&a, 999, 200003, 0);
	CHECK(!a.freq && a.sample_period == 200003);
	/* AMD BRS: retired taken branches at a fixed period above its 16
	 * entries, even given -F (amd_brs_hw_config). */
	ladder_attr(&a, LEV_AMD_BRS, &p, 999, 0);
	CHECK(a.type == PERF_TYPE_RAW && a.config == 0xc4);
	CHECK(!a.freq && a.sample_period > 16 && (a.sample_type & PERF_SAMPLE_BRANCH_STACK));
	/* Execution events: a fixed prime period, the precise level named. */
	ladder_attr(&a, LEV_INSN_PPP, &p, 999, 0);
	CHECK(a.type == PERF_TYPE_HARDWARE && a.config == PERF_COUNT_HW_INSTRUCTIONS);
	CHECK(a.precise_ip == 3 && !a.freq && a.sample_period == exec_period(999, 0));
	CHECK(!(a.sample_type & PERF_SAMPLE_BRANCH_STACK) && a.exclude_kernel);
	ladder_attr(&a, LEV_INSN_P, &p, 999, 0);
	CHECK(a.precise_ip == 1);
	ladder_attr(&a, LEV_INSN, &p, 999, 123457);
	CHECK(a.precise_ip == 0 && a.sample_period == 123457);
	ladder_attr(&a, LEV_BRANCHES, &p, 999, 0);
	CHECK(a.config == PERF_COUNT_HW_BRANCH_INSTRUCTIONS && a.precise_ip == 0);
	/* IBS op: the sysfs type, cnt_ctl's bit, a multiple of 16. */
	ladder_attr(&a, LEV_IBS_OP, &p, 999, 0);
	CHECK(a.type == 11 && a.config == 1ull << 19 && a.sample_period % 16 == 0);
	CHECK(a.exclude_kernel && !a.exclude_hv && !a.freq);
	p.ibs_kernel = 1;
	ladder_attr(&a, LEV_IBS_OP, &p, 999, 0);
	CHECK(!a.exclude_kernel);
	/* cpu-clock as before: freq mode, or -c nanoseconds. */
	ladder_attr(&a, LEV_CPU_CLOCK, &p, 4999, 0);
	CHECK(a.type == PERF_TYPE_SOFTWARE && a.config == PERF_COUNT_SW_CPU_CLOCK);
	CHECK(a.freq && a.sample_freq == 4999);
	ladder_attr(&a, LEV_CPU_CLOCK, &p, 4999, 20000);
	CHECK(!a.freq && a.sample_period == 20000);
}

static int prime(unsigned long long n)
{
	for (unsigned long long d = 2; d * d <= n; d++)
		if (n % d == 0)
			return 0;
	return n > 1;
}

static void test_period(void)
{
	unsigned long rates[] = { 1, 99, 999, 4999, 9999, 100000 };

	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		unsigned long long n = exec_period(rates[i], 0), m = exec_period(rates[i], 1);

		CHECK(prime(n) && n >= EXEC_RATE / rates[i] && n >= 1009);
		CHECK(n < EXEC_RATE / rates[i] + 1000 || n < 2000);
		CHECK(m % 16 == 0 && prime(m / 16));
	}
	CHECK(exec_period(999, 0) == 2002009);	/* the first prime >= 2e9 / 999 */
}

static void test_names(void)
{
	CHECK(mode_by_name("auto") == MODE_AUTO && mode_by_name("lbr") == MODE_LBR &&
	      mode_by_name("exec") == MODE_EXEC && mode_by_name("stack") == MODE_STACK &&
	      mode_by_name("x") == -1);
	CHECK(ladder_event_by_name("instructions") == LEV_INSN);
	CHECK(ladder_event_by_name("instructions:pp") == LEV_INSN_PP);
	CHECK(ladder_event_by_name("ibs_op") == LEV_IBS_OP);
	CHECK(ladder_event_by_name("ibs_op/cnt_ctl=1/") == LEV_IBS_OP);
	CHECK(ladder_event_by_name("branches") == LEV_BRANCHES);
	CHECK(ladder_event_by_name("cpu-clock") == -1 && ladder_event_by_name("cycles") == -1);
	CHECK(!strcmp(ladder_event_name(LEV_INSN_PPP), "instructions:ppp"));
	CHECK(!strcmp(ladder_event_name(LEV_CPU_CLOCK), "cpu-clock"));
}

int main(void)
{
	RUN(test_machines);
	RUN(test_refusals);
	RUN(test_attr);
	RUN(test_period);
	RUN(test_names);
	return tests_failed != 0;
}
