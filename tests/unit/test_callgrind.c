/* SPDX-License-Identifier: GPL-2.0-only */
/* import/callgrind.c: callgrind's compressed positions and names, calls
 * that are not costs, PLT stubs carried on to their callees, counts by
 * reason, and a clean error for each kind of bad input.  The object is
 * this test program itself (its build-ID and PT_LOAD segments). */
#include "capture.h"
#include "check.h"
#include "testutil.h"
#include "../../proc/elfaddr.h"
#include "../../import/callgrind.h"
#include "../../lib/util.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

static char self[PATH_MAX];
static struct load_seg *segs;
static int nsegs;
static uint64_t text;	/* an ELF virtual address in the executable segment */

static uint64_t off_of(uint64_t vaddr)
{
	uint64_t off = 0;

	CHECK(vaddr_to_offset(segs, nsegs, vaddr, &off) == 0);
	return off;
}

static int import(struct raw_profile *p, const char *text_in)
{
	struct callgrind *cg;
	int rc;

	raw_init(p);
	cg = callgrind_new(p);
	rc = callgrind_add(cg, (const uint8_t *)text_in, strlen(text_in), "t.out");
	callgrind_finish(cg);
	raw_normalize(p);
	return rc;
}

static uint64_t range_count(const struct raw_object *o, uint64_t off)
{
	for (size_t i = 0; i < o->nranges; i++)
		if (o->ranges[i].begin == off && o->ranges[i].end == off)
			return o->ranges[i].count;
	return 0;
}

static const char header[] =
	"# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\n"
	"cmd: ./t\npositions: instr line\nevents: Ir\n";

static void test_counts_and_calls(void)
{
	char buf[PATH_MAX + 2048];
	struct raw_profile p;
	const struct raw_object *o;

	/* main: 3 instructions, a call (whose own line is no cost and does
	 * not move the position the next line is compressed against), and
	 * the first instruction again in another context (summed). */
	snprintf(buf, sizeof(buf),
		 "%s\nob=(1) %s\nfl=(1) t.c\nfn=(1) main\n"
		 "%#llx 10 5\n+4 * 5\n+3 +1 5\n"
		 "cfn=(2) callee\ncalls=5 %#llx 20\n* * 500\n"
		 "+2 * 5\n"
		 "fn=(2)\n%#llx 20 100\n+1 * 100\n"
		 "fn=(3) 'other context'\n%#llx 10 1\n"
		 "ob=(2) ???\nfn=(4) 0x0000000004001040 [PLT]\n0x4001040 0 7\n"
		 "ob=(3) /usr/libexec/valgrind/vgpreload_core-amd64-linux.so\nfn=(5) x\n0x1000 0 3\n",
		 header, self, (unsigned long long)text,
		 (unsigned long long)text + 0x40, (unsigned long long)text + 0x40,
		 (unsigned long long)text);
	CHECK(import(&p, buf) == 0);
	CHECK(p.nobjs == 1);
	if (p.nobjs != 1)
		return;
	o = &p.objs[0];
	CHECK(o->id_kind == RAW_ID_BUILD_ID);
	CHECK(range_count(o, off_of(text)) == 6);
	CHECK(range_count(o, off_of(text + 4)) == 5);
	CHECK(range_count(o, off_of(text + 7)) == 5);
	CHECK(range_count(o, off_of(text + 9)) == 5);	/* +2 from +7 */
	CHECK(range_count(o, off_of(text + 0x40)) == 100);
	CHECK(range_count(o, off_of(text + 0x41)) == 100);
	CHECK(o->nbranches == 1 && o->branches[0].from == off_of(text + 7) &&
	      o->branches[0].to == off_of(text + 0x40) && o->branches[0].count == 5);
	CHECK(raw_get_counter(&p, "instructions") == 6 + 15 + 200);
	CHECK(raw_get_counter(&p, "instructions.unattributed.unknown_object") == 7);
	CHECK(raw_get_counter(&p, "instructions.unattributed.valgrind") == 3);
	CHECK(raw_get_counter(&p, "processes") == 1);
	CHECK(!strcmp(raw_get_meta(&p, "mode"), "exact-counts"));
	CHECK(!strcmp(raw_get_meta(&p, "target"), "./t"));
	raw_free(&p);
}

/* A call into a PLT stub (valgrind: in "???", named "ADDR [PLT]") goes on
 * to the stub's callees in proportion: 1 to the resolver, 9 to the
 * function, from the call site. */
static void test_plt(void)
{
	char buf[PATH_MAX + 2048];
	struct raw_profile p;
	const struct raw_object *o;

	snprintf(buf, sizeof(buf),
		 "%s\nob=(1) %s\nfn=(1) main\n%#llx 10 10\n"
		 "cob=(2) ???\ncfn=(2) 0x0000000000109040 [PLT]\ncalls=10 0x109040 0\n* * 900\n"
		 "ob=(2)\nfn=(2)\n0x109040 0 10\n"
		 "cob=(1)\ncfn=(3) resolver\ncalls=1 %#llx 0\n0x109040 0 50\n"
		 "cob=(1)\ncfn=(4) strlen\ncalls=9 %#llx 0\n0x109040 0 90\n",
		 header, self, (unsigned long long)text,
		 (unsigned long long)text + 0x10, (unsigned long long)text + 0x20);
	CHECK(import(&p, buf) == 0);
	CHECK(p.nobjs == 1);
	if (p.nobjs != 1)
		return;
	o = &p.objs[0];
	CHECK(o->nbranches == 2);
	CHECK(o->nbranches == 2 && o->branches[0].from == off_of(text) &&
	      o->branches[0].to == off_of(text + 0x10) && o->branches[0].count == 1);
	CHECK(o->nbranches == 2 && o->branches[1].to == off_of(text + 0x20) &&
	      o->branches[1].count == 9);
	CHECK(raw_get_counter(&p, "branches.unattributed") == 0);
	raw_free(&p);
}

/* Issue 27, finding 1: "cob=(1) b" defines ID 1 again (ob= and cob=
 * share a table) while ob= still refers to the name it had; the cost
 * line then looks ob= up.  ASan: heap-use-after-free in get_file() when
 * a redefinition freed that name.  ob= keeps naming /x/spin; fn= (read
 * by the call) keeps g after cfn= redefines ID 2, and fl= IDs are
 * redefined too. */
static void test_name_redefined(void)
{
	static const char in[] =
		"# callgrind format\npositions: instr\nevents: Ir\n"
		"ob=(1) /x/spin\nfn=(1) f\ncob=(1) /x/args\n0x1130 1\n"
		"fl=(1) a.c\nfn=(2) g\nfl=(1) b.c\ncfn=(2) h\n"
		"calls=1 0x2000\n0x1134 9\n0x1138 2\n";
	struct raw_profile p;

	CHECK(import(&p, in) == 0);
	CHECK(raw_get_counter(&p, "instructions.unattributed.no_file") == 3);
	CHECK(raw_get_counter(&p, "branches.unattributed") == 1);
	raw_free(&p);
}

/* Names in parentheses that are no "(ID)" are names: valgrind
 * --compress-strings=no writes "fn=(below main)". */
static void test_uncompressed_parens(void)
{
	static const char in[] =
		"# callgrind format\npositions: instr\nevents: Ir\n"
		"ob=???\nfn=(below main)\n0x10 1\nfn=(2)x\n0x14 2\n"
		"fn=(3) (below main)\n0x18 4\nfn=(3)\n0x1c 8\n";
	struct raw_profile p;

	CHECK(import(&p, in) == 0);
	CHECK(raw_get_counter(&p, "instructions.unattributed.unknown_object") == 15);
	raw_free(&p);
}

/* ob= naming a FIFO (or a device) is not even opened: opening a FIFO
 * releases a writer waiting for a reader (then reading it would take its
 * bytes), opening a device can act (a watchdog starts).  inotify sees
 * every open.  Its costs count as no_file. */
static void test_special_file(void)
{
	char dir[] = "/tmp/test_callgrind.XXXXXX", fifo[64], in[256];
	struct inotify_event ev[4];
	struct raw_profile p;
	int in_fd = inotify_init1(IN_NONBLOCK);

	CHECK(mkdtemp(dir) != NULL);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	CHECK(mkfifo(fifo, 0600) == 0);
	CHECK(in_fd >= 0 && inotify_add_watch(in_fd, fifo, IN_OPEN) >= 0);
	snprintf(in, sizeof(in), "positions: instr\nevents: Ir\nob=%s\nfn=f\n0x1000 5\n",
		 fifo);
	CHECK(import(&p, in) == 0);
	CHECK(raw_get_counter(&p, "instructions.unattributed.no_file") == 5);
	CHECK(read(in_fd, ev, sizeof(ev)) == -1);	/* no IN_OPEN */
	raw_free(&p);
	close(in_fd);
	unlink(fifo);
	rmdir(dir);
}

/* Issue 27, finding 6: counts add up saturating, as the other importers
 * do (2^64-1 + 2^64-1 + 5 once gave 3), in each counter. */
static void test_counts_saturate(void)
{
	char buf[PATH_MAX + 2048];
	struct raw_profile p;

	snprintf(buf, sizeof(buf),
		 "%s\nob=(1) %s\nfn=(1) main\n"
		 "%#llx 1 18446744073709551615\n+1 1 18446744073709551615\n+1 1 5\n"
		 "ob=(2) ???\nfn=(2) x\n0x10 1 18446744073709551615\n0x11 1 7\n"
		 "cfn=(3) 0x0000000000109040 [PLT]\ncalls=18446744073709551615 0x109040 0\n0x12 1 0\n"
		 "cfn=(3)\ncalls=3 0x109040 0\n0x12 1 0\n",
		 header, self, (unsigned long long)text);
	CHECK(import(&p, buf) == 0);
	CHECK(raw_get_counter(&p, "instructions") == UINT64_MAX);
	CHECK(raw_get_counter(&p, "instructions.unattributed.unknown_object") == UINT64_MAX);
	CHECK(raw_get_counter(&p, "branches.unattributed") == UINT64_MAX);
	raw_free(&p);
}

/* Issue 27, finding 6: a PLT stub whose callees were all called 0 times
 * gives no proportion to share its callers' calls by (0/0, then NaN cast
 * to an integer: UBSan with -fsanitize=float-cast-overflow): they count
 * as unattributed.  And a share of 2^64-1 calls (by two callees called
 * 2^64-1 times each), which is 2^64 as a double, stays in range. */
static void test_plt_zero_calls(void)
{
	char buf[PATH_MAX + 2048];
	struct raw_profile p;
	const struct raw_object *o;

	snprintf(buf, sizeof(buf),
		 "%s\nob=(1) %s\nfn=(1) main\n%#llx 10 10\n"
		 "cob=(2) ???\ncfn=(2) 0x0000000000109040 [PLT]\ncalls=10 0x109040 0\n* * 900\n"
		 "cob=(2)\ncfn=(5) 0x0000000000109050 [PLT]\ncalls=18446744073709551615 0x109050 0\n+4 * 900\n"
		 "ob=(2)\nfn=(2)\n0x109040 0 10\n"
		 "cob=(1)\ncfn=(3) resolver\ncalls=0 %#llx 0\n0x109040 0 50\n"
		 "cob=(1)\ncfn=(4) strlen\ncalls=0 %#llx 0\n0x109040 0 90\n"
		 "fn=(5)\n0x109050 0 10\n"
		 "cob=(1)\ncfn=(3)\ncalls=18446744073709551615 %#llx 0\n0x109050 0 90\n"
		 "cob=(1)\ncfn=(4)\ncalls=18446744073709551615 %#llx 0\n0x109050 0 90\n",
		 header, self, (unsigned long long)text,
		 (unsigned long long)text + 0x10, (unsigned long long)text + 0x20,
		 (unsigned long long)text + 0x10, (unsigned long long)text + 0x20);
	CHECK(import(&p, buf) == 0);
	CHECK(raw_get_counter(&p, "branches.unattributed") == 10);
	CHECK(p.nobjs == 1);
	if (p.nobjs != 1)
		return;
	o = &p.objs[0];
	/* the first callee of the two (in an order not fixed) takes all */
	CHECK(o->nbranches == 1 && o->branches[0].from == off_of(text + 4) &&
	      (o->branches[0].to == off_of(text + 0x10) ||
	       o->branches[0].to == off_of(text + 0x20)) &&
	      o->branches[0].count == UINT64_MAX);
	raw_free(&p);
}

/* Each bad input: -1 and no crash (messages go to stderr). */
/* IDs are dense in callgrind's numbering: one far past the names defined
 * is refused before a table is grown for it (a line of 20 bytes made 128
 * MB), one within the slack is taken. */
static void test_sparse_ids(void)
{
	static const char far[] =
		"positions: instr\nevents: Ir\nfn=(1) a\nfn=(16777215) x\n0x10 1\n";
	static const char near[] =
		"positions: instr\nevents: Ir\nob=???\nfn=(1) a\nfn=(4000) x\n0x10 1\nfn=(1)\n0x14 2\n";
	struct raw_profile p;
	char msg[512];

	capture_begin();
	CHECK(import(&p, far) == -1);
	capture_end(msg, sizeof(msg));
	CHECK(strstr(msg, "line 4: name ID 16777215 defined after only 1 names") != NULL);
	raw_free(&p);
	CHECK(import(&p, near) == 0);
	CHECK(raw_get_counter(&p, "instructions.unattributed.unknown_object") == 3);
	raw_free(&p);
}

static void test_bad_input(void)
{
	static const char *const bad[] = {
		"positions: line\nevents: Ir\nfn=main\n10 5\n",	/* no --dump-instr */
		"positions: instr line\nevents: Dr\nfn=main\n0x10 1 5\n",
		"positions: instr line\nevents: Ir\nfn=(7)\n0x10 1 5\n",	/* ID before use */
		"positions: instr line\nevents: Ir\nfn=(99999999) f\n0x10 1 5\n",
		"positions: instr line\nevents: Ir\nfn=main\nzz 1 5\n",
		"positions: instr line\nevents: Ir\nfn=main\n0x10\n",	/* one position */
		"positions: instr line\nevents: Ir\nfn=main\n0x10 1 x\n",
		"positions: instr line\nevents: Ir\ncalls=x 0x10 1\n",
		"version: 2\npositions: instr\nevents: Ir\n0x10 1\n",
		"positions: instr\nevents: Ir\n",	/* no costs */
	};
	struct raw_profile p;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		CHECK(import(&p, bad[i]) == -1);
		raw_free(&p);
	}
	CHECK(callgrind_probe((const uint8_t *)header, sizeof(header) - 1));
	CHECK(!callgrind_probe((const uint8_t *)"PGORAW\0\0", 8));
}

int main(void)
{
	if ((nsegs = test_self_segments(self, &segs)) < 1) {
		printf("FAIL cannot read %s\n", self);
		return 1;
	}
	text = segs[0].vaddr + 0x100;	/* executable segments come first */
	RUN(test_counts_and_calls);
	RUN(test_plt);
	RUN(test_name_redefined);
	RUN(test_uncompressed_parens);
	RUN(test_special_file);
	RUN(test_counts_saturate);
	RUN(test_plt_zero_calls);
	RUN(test_sparse_ids);
	RUN(test_bad_input);
	free(segs);
	return tests_failed != 0;
}
