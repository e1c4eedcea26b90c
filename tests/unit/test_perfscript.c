/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof import of perf script text (import/perfscript/): lines of each
 * form that perf script prints (PERF_RECORD_MMAP2/MMAP/COMM/FORK/LOST, one
 * line samples, call chains as DSO offsets and as addresses, branch stacks,
 * '#' header lines) give the IP samples, edges, ranges, branches and
 * counters worked out here by hand; bad lines give one line
 * "PROGRAM: NAME: line N: what is wrong", and an emptied profile;
 * truncations and byte changes of the good texts import or fail cleanly
 * (ASan; PGOPROF_TEST_LONG=1: every one of them). */
#include "check.h"
#include "capture.h"
#include "../../import/perfscript/perfscript.h"
#include "../../lib/util.h"
#include "../../raw/rawprof.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXE_ID "1111111111111111111111111111111111111111"
#define LIB_ID "2222222222222222222222222222222222222222"
#define BIG_ID "3333333333333333"

/* ---- running the importer with its messages captured ---- */

static char errbuf[4096];

static int import_capture(struct raw_profile *p, const char *text,
			  size_t len, const struct perfdata_options *opt)
{
	int rc;

	capture_begin();
	raw_init(p);
	rc = perfscript_import(p, (const uint8_t *)text, len, "t.txt", opt);
	capture_end(errbuf, sizeof(errbuf));
	return rc;
}

static int import_text(struct raw_profile *p, const char *text,
		       const struct perfdata_options *opt)
{
	return import_capture(p, text, strlen(text), opt);
}

/* The counters and tables of p, as pgoprof show prints them (no META). */
static char *tables(const struct raw_profile *p)
{
	char *buf = NULL, *out, *o;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	raw_print(p, f);
	fclose(f);
	out = o = xmalloc(len + 1);
	for (const char *l = buf; *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) + 1 : strlen(l);

		if (strncmp(l, "meta ", 5) && l[0] != '#') {
			memcpy(o, l, n);
			o += n;
		}
		l += n;
	}
	*o = '\0';
	free(buf);
	return out;
}

static int same_tables(const struct raw_profile *p, const char *want)
{
	char *got = tables(p);
	int ok = !strcmp(got, want);

	if (!ok)
		printf("  got:\n%s  want:\n%s", got, want);
	free(got);
	return ok;
}

static const char *meta(const struct raw_profile *p, const char *key)
{
	const char *v = raw_get_meta(p, key);

	return v ? v : "(none)";
}

/* ---- call chains ---- */

static const char mmaps[] =
	"swapper     0/0         0.000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1276508) @ 0xffffffff81000000]: x [kernel.kallsyms]_text\n"
	"exe 100/100 10.000000: PERF_RECORD_COMM exec: exe:100/100\n"
	"exe 100/100 10.000100: PERF_RECORD_MMAP2 100/100: [0x555555555000(0x2000) @ 0x1000 <" EXE_ID ">]: r-xp /t/exe\n"
	"exe 100/100 10.000150: PERF_RECORD_MMAP2 100/100: [0x555555557000(0x1000) @ 0x3000 <" EXE_ID ">]: r--p /t/exe\n"
	"exe 100/100 10.000200: PERF_RECORD_MMAP2 100/100: [0x7f0000001000(0x10000) @ 0x1000 <" LIB_ID ">]: r-xp /t/lib.so\n"
	"exe 100/100 10.000300: PERF_RECORD_MMAP2 100/100: [0x7f0000100000(0x2000) @ 0 00:00 0 0]: r-xp [vdso]\n";

/* Four samples: exe <- exe <- lib; one in the kernel; one in [vdso];
 * one outside every mapping.  Objects: exe (0), lib (1). */
static const char chain_want[] =
	"counter duration_ms = 3\n"
	"counter edges.unattributed = 1\n"
	"counter samples.lost = 0\n"
	"counter samples.taken = 4\n"
	"counter sideband.lost = 0\n"
	"counter unattributed.anonymous = 1\n"
	"counter unattributed.kernel = 1\n"
	"counter unattributed.no_mapping = 1\n"
	"object 0 build-id " EXE_ID " path /t/exe samples 1 ips 1 edges 1 ranges 0 branches 0\n"
	"  ip 0x1200 1\n"
	"  edge 0x1300 -> 0:0x1200 1\n"
	"object 1 build-id " LIB_ID " path /t/lib.so samples 0 ips 0 edges 2 ranges 0 branches 0\n"
	"  edge 0x2000 -> 0:0x12ff 1\n"
	/* the kernel sample's user IP is no return address: no -1 */
	"  edge 0x2010 -> 0:0x1300 1\n"
	/* whole stacks: the user one, the kernel sample's user stack under
	 * the kernel mark (as pgoprof-record keeps it), the anonymous leaf
	 * whose chain stops there, and the unmapped leaf under main */
	"stack 1 0:0x1200 0:0x1300 1:0x2000\n"
	"stack 1 kernel 0:0x1300 1:0x2010\n"
	"stack 1 unknown\n"
	"stack 1 unknown 0:0x1300\n";

/* perf 6.3 and older: user frames as offsets into their DSO. */
static const char chain_offsets[] =
	"exe 100/100 10.001000:     250000 cpu-clock: \n"
	"\t            1200 leaf+0x10 (/t/exe)\n"
	"\t            1300 main+0x20 (/t/exe)\n"
	"\t            2000 __libc_start_main (/t/lib.so)\n"
	"\t               0 [unknown] ([unknown])\n"
	"\n"
	"exe 100/100 10.002000:     250000 cpu-clock: \n"
	"\tffffffff81000100 do_syscall ([kernel.kallsyms])\n"
	"\tffffffff81000200 entry_SYSCALL_64 ([kernel.kallsyms])\n"
	"\t            1300 main (/t/exe)\n"
	"\t            2010 __libc_start_main (/t/lib.so)\n"
	"\n"
	"exe 100/100 10.003000:     250000 cpu-clock: \n"
	"\t             100 __vdso_clock_gettime ([vdso])\n"
	"\t            1300 main (/t/exe)\n"
	"\n"
	"exe 100/100 10.0040:     250000 cpu-clock: \n"
	"\t    7fff00000000 [unknown] ([unknown])\n"
	"\n";

/* perf 6.4 and later: addresses; an inlined frame perf adds; a symbol
 * with parentheses. */
static const char chain_addresses[] =
	"exe 100/100 10.001000:     250000 cpu-clock: \n"
	"\t    555555555200 mix (inlined)\n"
	"\t    555555555200 leaf(int) (/t/exe)\n"
	"\t    555555555300 main (/t/exe)\n"
	"\t    7f0000002000 __libc_start_main (/t/lib.so)\n"
	"\t               0 [unknown] ([unknown])\n"
	"\n"
	"exe 100/100 10.002000:     250000 cpu-clock: \n"
	"\tffffffff81000100 do_syscall ([kernel.kallsyms])\n"
	"\tffffffff81000200 entry_SYSCALL_64 ([kernel.kallsyms])\n"
	"\t    555555555300 main (/t/exe)\n"
	"\t    7f0000002010 __libc_start_main (/t/lib.so)\n"
	"\n"
	"exe 100/100 10.003000:     250000 cpu-clock: \n"
	"\t    7f0000100100 __vdso_clock_gettime ([vdso])\n"
	"\t    555555555300 main (/t/exe)\n"
	"\n"
	"exe 100/100 10.004000:     250000 cpu-clock: \n"
	"\t    7fff00000000 [unknown] ([unknown])\n"
	"\n";

static char *cat(const char *a, const char *b)
{
	char *s = xmalloc(strlen(a) + strlen(b) + 1);

	strcpy(s, a);
	strcat(s, b);
	return s;
}

static void test_call_chains(void)
{
	static const char header[] =
		"# ========\n"
		"# hostname : h1\n"
		"# os release : 6.1.0\n"
		"# perf version : 6.1.192\n"
		"# arch : x86_64\n"
		"# cmdline : /usr/bin/perf record -g ./exe \n"
		"# event : name = cpu-clock, , id = { 1 }, type = 1, size = 128, { sample_period, sample_freq } = 4000, sample_type = IP|TID, freq = 1, sample_id_all = 1\n"
		"# time of first sample : 10.001000\n"
		"# time of last sample : 12.004000\n"
		"# ========\n";
	const char *bodies[] = { chain_offsets, chain_addresses };
	struct raw_profile p;

	for (int i = 0; i < 2; i++) {
		char *a = cat(mmaps, bodies[i]), *t = cat(header, a);

		CHECK(import_text(&p, a, NULL) == 0);
		CHECK(same_tables(&p, chain_want));
		CHECK(!strcmp(meta(&p, "input"), "perf-script"));
		CHECK(!strcmp(meta(&p, "source"), "t.txt"));
		CHECK(!strcmp(meta(&p, "mode"), "import-stack"));
		CHECK(!strcmp(meta(&p, "event"), "cpu-clock"));
		CHECK(!strcmp(meta(&p, "signal"), "time"));
		CHECK(!strcmp(meta(&p, "host"), "(none)"));
		raw_free(&p);
		/* --header: what perf.data's header gives */
		CHECK(import_text(&p, t, NULL) == 0);
		CHECK(!strcmp(meta(&p, "host"), "h1"));
		CHECK(!strcmp(meta(&p, "kernel"), "Linux 6.1.0 x86_64"));
		CHECK(!strcmp(meta(&p, "recorder"), "perf 6.1.192"));
		CHECK(!strcmp(meta(&p, "perf_cmdline"), "/usr/bin/perf record -g ./exe"));
		CHECK(!strcmp(meta(&p, "sample_freq"), "4000"));
		CHECK(raw_get_counter(&p, "duration_ms") == 2003);
		raw_free(&p);
		free(a);
		free(t);
	}
}

/* Fields: none but ip (an empty line heads each sample), pid alone, comm
 * with blanks and cpu; and no pid: one address space of every mapping. */
static void test_field_sets(void)
{
	static const char only_ip[] =
		"PERF_RECORD_MMAP2 100/100: [0x555555555000(0x2000) @ 0x1000 <" EXE_ID ">]: r-xp /t/exe\n"
		"PERF_RECORD_MMAP2 200/200: [0x565555555000(0x2000) @ 0x1000 <" EXE_ID ">]: r-xp /t/exe\n"
		"\n"
		"\t    555555555200\n"
		"\t    555555555300\n"
		"\n"
		"\n"
		"\t    565555555200\n"
		"\n";
	static const char pid_only[] =
		"    0 PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1276508) @ 0xffffffff81000000]: x [kernel.kallsyms]_text\n"
		"  100 PERF_RECORD_MMAP 100/100: [0x555555555000(0x2000) @ 0x1000]: x /t/exe\n"
		"  100 PERF_RECORD_MMAP 100/100: [0x555555600000(0x2000) @ 0]: r /t/data\n"
		"  100      555555555200 leaf (/t/exe)\n";
	static const char comm_cpu[] =
		"    Web Content   100/101   [001]    10.000001: PERF_RECORD_MMAP2 100/101: [0x555555555000(0x2000) @ 0x1000 <" EXE_ID ">]: r-xp /t/exe\n"
		"    Web Content   100/101   [001]    10.000002:     250000 cpu-clock:      555555555200 leaf+0x0 (/t/exe)\n"
		"kworker/0:1 0/0 [000] 10.000003: PERF_RECORD_MMAP2 -1/0: [0xffffffff81000000(0x1000) @ 0 00:00 0 0]: r-xp [kernel]\n";
	struct perfdata_options nlf = { .no_local_files = 1 };
	struct raw_profile p;

	CHECK(import_text(&p, only_ip, NULL) == 0);
	CHECK(same_tables(&p,
		"counter samples.lost = 0\n"
		"counter samples.taken = 2\n"
		"counter sideband.lost = 0\n"
		"counter unattributed.kernel = 0\n"
		"object 0 build-id " EXE_ID " path /t/exe samples 2 ips 1 edges 1 ranges 0 branches 0\n"
		"  ip 0x1200 2\n"
		"  edge 0x1300 -> 0:0x1200 1\n"
		"stack 1 0:0x1200\n"
		"stack 1 0:0x1200 0:0x1300\n"));
	raw_free(&p);
	/* no build-ID, no local file: known by its path */
	CHECK(import_text(&p, pid_only, &nlf) == 0);
	CHECK(p.nobjs == 1 && p.objs[0].id_kind == RAW_ID_PATH &&
	      !strcmp(p.objs[0].path, "/t/exe") && p.objs[0].nips == 1 &&
	      p.objs[0].ips[0].offset == 0x1200);
	raw_free(&p);
	CHECK(import_text(&p, comm_cpu, NULL) == 0);
	CHECK(same_tables(&p,
		"counter samples.lost = 0\n"
		"counter samples.taken = 1\n"
		"counter sideband.lost = 0\n"
		"counter unattributed.kernel = 0\n"
		"object 0 build-id " EXE_ID " path /t/exe samples 1 ips 1 edges 0 ranges 0 branches 0\n"
		"  ip 0x1200 1\n"));
	raw_free(&p);
}

/* ---- processes ---- */

static void test_processes(void)
{
	static const char text[] =
		"100/100 PERF_RECORD_MMAP2 100/100: [0x555555555000(0x2000) @ 0x1000 <" EXE_ID ">]: r-xp /t/exe\n"
		"100/100 PERF_RECORD_FORK(101:101):(100:100)\n"
		"100/102 PERF_RECORD_FORK(100:102):(100:100)\n"
		"101/101 \n"
		"\t    555555555200 leaf (/t/exe)\n"
		"\n"
		"100/102 \n"
		"\t            1210 leaf (/t/exe)\n"
		"\n"
		"101/101 PERF_RECORD_COMM exec: a:b:101/101\n"
		"101/101 \n"
		"\t    555555555200 leaf (/t/exe)\n"
		"\n"
		"100/100 PERF_RECORD_LOST lost 5\n"
		"100/100 PERF_RECORD_EXIT(100:100):(1:1)\n"
		"100/100 PERF_RECORD_SWITCH OUT\n";
	struct raw_profile p;

	CHECK(import_text(&p, text, NULL) == 0);
	CHECK(same_tables(&p,
		"counter samples.lost = 5\n"
		"counter samples.taken = 8\n"
		"counter sideband.lost = 5\n"
		"counter unattributed.kernel = 0\n"
		"counter unattributed.no_mapping = 1\n"
		"object 0 build-id " EXE_ID " path /t/exe samples 2 ips 2 edges 0 ranges 0 branches 0\n"
		"  ip 0x1200 1\n"
		"  ip 0x1210 1\n"
		"stack 1 0:0x1200\n"
		"stack 1 0:0x1210\n"
		"stack 1 unknown\n"));
	raw_free(&p);
}

/* ---- branch stacks ---- */

static const char lbr_want[] =
	"counter samples.lost = 0\n"
	"counter samples.taken = 1\n"
	"counter sideband.lost = 0\n"
	"counter unattributed.kernel = 0\n"
	"object 0 build-id " EXE_ID " path /t/exe samples 1 ips 1 edges %s ranges 2 branches 2\n"
	"  ip 0x1200 1\n"
	"%s"
	"  range 0x1100-0x1210 1\n"
	"  range 0x1200-0x1280 1\n"
	"  branch 0x1210 -> 0:0x1300 1\n"
	"  branch 0x1280 -> 0:0x1100 1\n"
	"object 1 build-id " LIB_ID " path /t/lib.so samples 0 ips 0 edges 0 ranges 0 branches 1\n"
	"  branch 0x1100 -> 0:0x1200 1\n"
	"%s";

static void test_branch_stacks(void)
{
	static const char maps[] =
		"PERF_RECORD_MMAP2 100/100: [0x555555555000(0x2000) @ 0x1000 <" EXE_ID ">]: r-xp /t/exe\n"
		"PERF_RECORD_MMAP2 100/100: [0x7f0000001000(0x10000) @ 0x1000 <" LIB_ID ">]: r-xp /t/lib.so\n";
	/* what llvm-profgen reads: perf script -F ip,brstack */
	static const char profgen[] =
		"     555555555200 0x555555555210/0x555555555300/P/-/-/0/  0x555555555280/0x555555555100/P/-/-/0/  0x7f0000001100/0x555555555200/P/-/-/0\n";
	/* -F ip,sym,dso,brstack: the dso after each address */
	static const char with_dso[] =
		"     555555555200 leaf+0x0 (/t/exe) 0x555555555210(/t/exe)/0x555555555300(/t/exe)/P/-/-/0/  0x555555555280(/t/exe)/0x555555555100(/t/exe)/P/-/-/0/COND  0x7f0000001100(/t/lib.so)/0x555555555200(/t/exe)/M/-/-/7/\n";
	/* perf record -b -g: the call chain, then the branch stack */
	static const char hybrid[] =
		"\n"
		"\t            1200 leaf (/t/exe)\n"
		"\t            1300 main (/t/exe)\n"
		" 0x555555555210/0x555555555300/P/-/-/0/  0x555555555280/0x555555555100/P/-/-/0/  0x7f0000001100/0x555555555200/P/-/-/0/\n";
	/* written for llvm-profgen (tests/unit/test_lbr.c --gen): fields
	 * before the PERF_RECORD lines only */
	static const char fields_maps[] =
		"prog 100 [000] 1.000000: PERF_RECORD_MMAP2 100/100: [0x555555555000(0x2000) @ 0x1000 <" EXE_ID ">]: r-xp /t/exe\n"
		"prog 100 [000] 1.000000: PERF_RECORD_MMAP2 100/100: [0x7f0000001000(0x10000) @ 0x1000 <" LIB_ID ">]: r-xp /t/lib.so\n";
	const char *bodies[] = { profgen, with_dso, hybrid, profgen };
	struct raw_profile p;
	char want[2048];

	for (int i = 0; i < 4; i++) {
		char *t = cat(i == 3 ? fields_maps : maps, bodies[i]);

		snprintf(want, sizeof(want), lbr_want, i == 2 ? "1" : "0",
			 i == 2 ? "  edge 0x1300 -> 0:0x1200 1\n" : "",
			 i == 2 ? "stack 1 0:0x1200 0:0x1300\n" : "");
		CHECK(import_text(&p, t, NULL) == 0);
		CHECK(same_tables(&p, want));
		CHECK(!strcmp(meta(&p, "mode"), "import-lbr"));
		CHECK(!strcmp(meta(&p, "signal"), "branch-records"));
		raw_free(&p);
		free(t);
	}
}

/* ---- call-chain frames that are both an address and an offset ---- */

static void test_ambiguous_frames(void)
{
	/* a non-PIE binary at 0x401000 with 5 MiB of code: 0x401234 is an
	 * address and an offset; 0x2000 only an offset, 0x880000 only an
	 * address.  The file decides by its other frames. */
	static const char map[] =
		"100/100 PERF_RECORD_MMAP2 100/100: [0x401000(0x500000) @ 0x1000 <" BIG_ID ">]: r-xp /t/big\n";
	static const char offsets[] =
		"100/100 \n\t          401234 f (/t/big)\n\n"
		"100/100 \n\t            2000 g (/t/big)\n\n";
	static const char addresses[] =
		"100/100 \n\t          401234 f (/t/big)\n\n"
		"100/100 \n\t          880000 g (/t/big)\n\n";
	struct raw_profile p;
	char *t = cat(map, offsets);

	CHECK(import_text(&p, t, NULL) == 0);
	CHECK(p.nobjs == 1 && p.objs[0].nips == 2 &&
	      p.objs[0].ips[0].offset == 0x2000 && p.objs[0].ips[1].offset == 0x401234);
	raw_free(&p);
	free(t);
	t = cat(map, addresses);
	CHECK(import_text(&p, t, NULL) == 0);
	CHECK(p.nobjs == 1 && p.objs[0].nips == 2 &&
	      p.objs[0].ips[0].offset == 0x1234 && p.objs[0].ips[1].offset == 0x480000);
	raw_free(&p);
	free(t);
}

/* ---- --event ---- */

static void test_events(void)
{
	static const char text[] =
		"100/100 PERF_RECORD_MMAP2 100/100: [0x555555555000(0x2000) @ 0x1000 <" EXE_ID ">]: r-xp /t/exe\n"
		"100/100 cycles:u:      555555555200\n"
		"100/100 instructions:u:      555555555210\n"
		"100/100 instructions:u:      555555555220\n";
	struct perfdata_options ins = { .event = "instructions:u" };
	struct perfdata_options none = { .event = "branches" };
	struct raw_profile p;

	CHECK(import_text(&p, text, NULL) == 0);
	CHECK(raw_get_counter(&p, CNT_SAMPLES) == 3);
	CHECK(!strcmp(meta(&p, "event"), "cycles:u,instructions:u"));
	raw_free(&p);
	CHECK(import_text(&p, text, &ins) == 0);
	CHECK(raw_get_counter(&p, CNT_SAMPLES) == 2 &&
	      raw_get_counter(&p, "import.other_event_samples") == 1);
	CHECK(!strcmp(meta(&p, "event"), "instructions:u"));
	CHECK(!strcmp(meta(&p, "signal"), "executions"));
	raw_free(&p);
	CHECK(import_text(&p, text, &none) == -1);
	CHECK(!strcmp(errbuf, "test_perfscript: t.txt: no sample of an event named 'branches'; "
			      "its events: cycles:u, instructions:u\n"));
	CHECK(p.nobjs == 0 && p.nmeta == 0 && p.ncounters == 0);
}

/* ---- bad lines ---- */

static const struct bad {
	const char *text, *msg;
} bad[] = {
	{ "PERF_RECORD_MMAP2 100/100: [0x1000 @ 0]: r-xp /x\n",
	  "line 1: not a PERF_RECORD_MMAP2 line of perf script: expected \"PID/TID: [0xSTART(0xLEN) @ PGOFF MAJ:MIN INODE GENERATION]: PROT PATH\"" },
	{ "PERF_RECORD_MMAP2 100/100: [0x1000(0x1000) @ 0 08:01 5 0]: rwz /x\n",
	  "line 1: mapping protection 'rwz' is not like r-xp" },
	{ "PERF_RECORD_MMAP 100/100: [0x1000(0x1000) @ 0]: w /x\n",
	  "line 1: mapping kind 'w' is neither x nor r" },
	{ "PERF_RECORD_MMAP2 100/100: [0x1000(0x1000) @ 0 <12x4>]: r-xp /x\n",
	  "line 1: build-ID <12x4> is not 1 to 20 bytes in hex" },
	{ "PERF_RECORD_MMAP2 100/100: [0xfffffffffffff000(0x2000) @ 0 08:01 5 0]: r-xp /x\n",
	  "line 1: mapping at 0xfffffffffffff000 of 0x2000 bytes runs past the end of the address space" },
	{ "PERF_RECORD_MMAP2 x/100: [0x1000(0x1000) @ 0 08:01 5 0]: r-xp /x\n",
	  "line 1: not a PERF_RECORD_MMAP2 line of perf script: expected \"PID/TID: [0xSTART(0xLEN) @ PGOFF MAJ:MIN INODE GENERATION]: PROT PATH\"" },
	{ "     555555555200\n",
	  "line 1: a sample before any PERF_RECORD_MMAP line: run perf script with --show-mmap-events" },
	{ "PERF_RECORD_MMAP 100/100: [0x1000(0x1000) @ 0]: x /x\n\t  1234 f (/x)\n",
	  "line 2: a call-chain frame that follows no sample" },
	{ "PERF_RECORD_MMAP 100/100: [0x1000(0x1000) @ 0]: x /x\n\n\t  12zz34 f (/x)\n",
	  "line 3: call-chain frame '12zz34' does not start with an address of 1 to 16 hex digits" },
	{ "PERF_RECORD_MMAP 100/100: [0x1000(0x1000) @ 0]: x /x\n\n\t  12345678901234567 f (/x)\n",
	  "line 3: call-chain frame '12345678901234567' does not start with an address of 1 to 16 hex digits" },
	{ "PERF_RECORD_MMAP 100/100: [0x1000(0x1000) @ 0]: x /x\n     1200 0x1210/zz/P/-/-/0\n",
	  "line 2: branch entry '0x1210/zz/P/-/-/0' is not 0xFROM/0xTO/...: give perf script -F brstack (not brstacksym)" },
	{ "PERF_RECORD_MMAP 100/100: [0x1000(0x1000) @ 0]: x /x\n     1200 main+0x10/foo+0x0/P/-/-/0\n",
	  "line 2: branch entries by symbol (brstacksym): give perf script -F brstack" },
	{ "PERF_RECORD_MMAP 100/100: [0x1000(0x1000) @ 0]: x /x\n     main\n",
	  "line 2: expected the sample's address (hex), not 'main'" },
	{ "100/100 PERF_RECORD_MMAP 100/100: [0x1000(0x1000) @ 0]: x /x\n100 1200\n",
	  "line 2: expected PID/TID as in the PERF_RECORD lines, not '100' (perf script fields read: comm, pid, tid, cpu, time, period, event, ip, sym, symoff, dso, brstack)" },
	{ "100/100 1.0: PERF_RECORD_MMAP 100/100: [0x1000(0x1000) @ 0]: x /x\n100/100 x.5: 1200\n",
	  "line 2: expected the time as in the PERF_RECORD lines, not 'x.5:' (perf script fields read: comm, pid, tid, cpu, time, period, event, ip, sym, symoff, dso, brstack)" },
	{ "100/100 zz PERF_RECORD_MMAP 100/100: [0x1000(0x1000) @ 0]: x /x\n",
	  "line 1: 'zz' before PERF_RECORD_ is none of the fields comm, pid/tid, [cpu], time" },
	{ "PERF_RECORD_FORK(1:1)\n", "line 1: expected PERF_RECORD_FORK(PID:TID):(PPID:PTID)" },
	{ "PERF_RECORD_LOST lost many\n", "line 1: expected PERF_RECORD_LOST lost COUNT" },
	{ "PERF_RECORD_COMM exec: 5/5\n", "line 1: expected PERF_RECORD_COMM exec: COMM:PID/TID" },
	{ "PERF_RECORD_MMAP 100/100: [0x1000(0x1000) @ 0]: x /x\n1200\0\n",
	  "line 2: a NUL byte: not the text of perf script" },
	{ "# only a header\n", "no PERF_RECORD_MMAP lines: run perf script with --show-mmap-events" },
	{ "100/100 PERF_RECORD_MMAP 100/100: [0x1000(0x1000) @ 0]: x /x\n100/100 \n\n",
	  "no sample has an address: give perf script the ip field (-F ip,...)" },
};

static void test_bad_lines(void)
{
	struct perfdata_options ev = { .event = "cycles" };
	struct raw_profile p;
	char want[1024];

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		size_t len = strlen(bad[i].text);

		if (strstr(bad[i].msg, "NUL"))
			len += 2;
		snprintf(want, sizeof(want), "test_perfscript: t.txt: %s\n", bad[i].msg);
		CHECK(import_capture(&p, bad[i].text, len, NULL) == -1);
		if (strcmp(errbuf, want))
			printf("  bad[%zu]: got %s  want %s", i, errbuf, want);
		CHECK(!strcmp(errbuf, want));
		CHECK(p.nobjs == 0 && p.nmeta == 0 && p.ncounters == 0);
	}
	CHECK(import_text(&p, "PERF_RECORD_MMAP 100/100: [0x1000(0x1000) @ 0]: x /x\n     1200\n", &ev) == -1);
	CHECK(!strcmp(errbuf, "test_perfscript: t.txt: line 2: --event needs the event field (perf script -F ...,event)\n"));
	{	/* a line longer than 1 MiB */
		size_t n = (1 << 20) + 100;
		char *t = xmalloc(n + 1);

		memset(t, ' ', n);
		t[n - 1] = '\n';
		t[n] = '\0';
		CHECK(import_text(&p, t, NULL) == -1);
		CHECK(!strcmp(errbuf, "test_perfscript: t.txt: line 1: longer than 1048576 bytes\n"));
		free(t);
	}
}

/* ---- detection ---- */

static void test_probe(void)
{
	static const char frames[] = "# comment\n\n\t    555555555200 f (/t/exe)\n";
	static const char lbr[] = "     555555555200 0x555555555210/0x555555555300/P/-/-/0\n";
	static const char data[] = "PERFILE2\0\0\0\0";
	static const char prose[] = "A text that speaks of\nnothing perf prints.\n";

	CHECK(perfscript_probe((const uint8_t *)mmaps, strlen(mmaps)));
	CHECK(perfscript_probe((const uint8_t *)frames, strlen(frames)));
	CHECK(perfscript_probe((const uint8_t *)lbr, strlen(lbr)));
	CHECK(!perfscript_probe((const uint8_t *)data, sizeof(data)));
	CHECK(!perfscript_probe((const uint8_t *)prose, strlen(prose)));
	CHECK(!perfscript_probe((const uint8_t *)"", 0));
}

/* ---- damaged texts: clean failures or imports, never a crash ---- */

static int long_tests;

/* Every cut of text, and changes of its bytes to characters that matter
 * to the parser: by default every third cut and every fifth byte changed
 * to the first eight of them (a few seconds under ASan);
 * PGOPROF_TEST_LONG=1: all. */
static void damage(const char *text, int *tried, int *ok, int *failed)
{
	static const char repl[] = "\t\n /0x(:)[]<>-f9\0";
	size_t len = strlen(text), nrepl = long_tests ? sizeof(repl) - 1 : 8;
	size_t step_cut = long_tests ? 1 : 3, step_at = long_tests ? 1 : 5;
	char *t = xmalloc(len + 1);
	struct raw_profile p;

	for (size_t cut = 0; cut < len; cut += step_cut) {
		int rc = import_capture(&p, text, cut, NULL);

		(*tried)++;
		*ok += rc == 0;
		*failed += rc != 0 && strchr(errbuf, '\n') == errbuf + strlen(errbuf) - 1;
		raw_free(&p);
	}
	for (size_t at = 0; at < len; at += step_at)
		for (size_t r = 0; r < nrepl; r++) {
			int rc;

			memcpy(t, text, len);
			t[at] = repl[r];
			rc = import_capture(&p, t, len, NULL);
			(*tried)++;
			*ok += rc == 0;
			*failed += rc != 0 && strchr(errbuf, '\n') == errbuf + strlen(errbuf) - 1;
			raw_free(&p);
		}
	free(t);
}

static void test_damaged(void)
{
	int tried = 0, ok = 0, failed = 0;
	char *a = cat(mmaps, chain_offsets);
	char *b = cat(mmaps, chain_addresses);

	damage(a, &tried, &ok, &failed);
	damage(b, &tried, &ok, &failed);
	printf("  %d damaged texts (%s): %d imported, %d failed with one line\n",
	       tried, long_tests ? "all cuts and changes" :
	       "every third cut, every fifth byte; PGOPROF_TEST_LONG=1: all",
	       ok, failed);
	CHECK(ok + failed == tried);
	free(a);
	free(b);
}

int main(void)
{
	progname = "test_perfscript";
	long_tests = getenv("PGOPROF_TEST_LONG") && strcmp(getenv("PGOPROF_TEST_LONG"), "0");
	RUN(test_call_chains);
	RUN(test_field_sets);
	RUN(test_processes);
	RUN(test_branch_stacks);
	RUN(test_ambiguous_frames);
	RUN(test_events);
	RUN(test_bad_lines);
	RUN(test_probe);
	RUN(test_damaged);
	return tests_failed ? 1 : 0;
}
