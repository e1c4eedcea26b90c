/* SPDX-License-Identifier: GPL-2.0-only */
/* import/qemucount.c: the qemu engine's count files (qemu/count.h) into
 * an exact-count raw profile: instructions at their file offsets, calls
 * as taken branches, counters by reason, processes by PID across an
 * execve's files, and a clean error naming the line for each kind of bad
 * input.  The object is this test program itself. */
#include "capture.h"
#include "check.h"
#include "testutil.h"
#include "../../proc/elfaddr.h"
#include "../../import/qemucount.h"
#include "../../lib/util.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char self[PATH_MAX];
static uint64_t text_off;	/* a file offset in the executable segment */

static int import(struct raw_profile *p, const char *const *files, int n)
{
	struct qemucount *q;
	int rc = 0;

	raw_init(p);
	q = qemucount_new(p);
	for (int i = 0; i < n && !rc; i++)
		rc = qemucount_add(q, (const uint8_t *)files[i], strlen(files[i]), "count.1.0");
	qemucount_finish(q);
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

static void test_counts_calls_processes(void)
{
	char a[PATH_MAX + 512], b[PATH_MAX + 512];
	const char *files[] = { a, b };
	struct raw_profile p;

	/* One process: the image before an execve and the one after. */
	snprintf(a, sizeof(a), "pgoprof-count 1\npid 7\nobject 0 %s\n"
		 "insn 0 %llx 5\ninsn 0 %llx 3\ncall 0 %llx 0 %llx 2\n"
		 "unattributed anonymous 9\ncalls.unattributed 4\nend\n", self,
		 (unsigned long long)text_off, (unsigned long long)text_off + 4,
		 (unsigned long long)text_off + 4, (unsigned long long)text_off + 16);
	snprintf(b, sizeof(b), "pgoprof-count 1\npid 7\nobject 0 %s\n"
		 "insn 0 %llx 1\nexec.not_followed 1\nend\n", self,
		 (unsigned long long)text_off);
	CHECK(import(&p, files, 2) == 0);
	CHECK(p.nobjs == 1);
	if (p.nobjs == 1) {
		const struct raw_object *o = &p.objs[0];

		CHECK(range_count(o, text_off) == 6);
		CHECK(range_count(o, text_off + 4) == 3);
		CHECK(o->nbranches == 1 && o->branches[0].from == text_off + 4 &&
		      o->branches[0].to == text_off + 16 && o->branches[0].count == 2);
	}
	CHECK(raw_get_counter(&p, "instructions") == 9);
	CHECK(raw_get_counter(&p, "instructions.unattributed.anonymous") == 9);
	CHECK(raw_get_counter(&p, "branches.unattributed") == 4);
	CHECK(raw_get_counter(&p, "processes") == 1);
	CHECK(raw_get_counter(&p, "processes.not_followed") == 1);
	CHECK(!strcmp(raw_get_meta(&p, "mode"), "exact-counts"));
	raw_free(&p);
}

/* A file at a path that is not ELF here, and an offset in no PT_LOAD. */
static void test_unattributed_by_reason(void)
{
	char a[PATH_MAX + 512];
	const char *files[] = { a };
	struct raw_profile p;

	snprintf(a, sizeof(a), "pgoprof-count 1\npid 1\nobject 0 /dev/null\nobject 1 %s\n"
		 "insn 0 10 5\ninsn 1 7fffffffff 2\ncall 0 10 1 %llx 3\nend\n",
		 self, (unsigned long long)text_off);
	CHECK(import(&p, files, 1) == 0);
	CHECK(raw_get_counter(&p, "instructions.unattributed.no_file") == 5);
	CHECK(raw_get_counter(&p, "instructions.unattributed.no_segment") == 2);
	CHECK(raw_get_counter(&p, "branches.unattributed") == 3);
	CHECK(raw_get_counter(&p, "instructions") == 0);
	raw_free(&p);
}

static void bad(const char *text, const char *want)
{
	char msg[1024];
	const char *files[] = { text };
	struct raw_profile p;
	int rc;

	capture_begin();
	rc = import(&p, files, 1);
	capture_end(msg, sizeof(msg));
	CHECK(rc == -1);
	if (!strstr(msg, want)) {
		printf("  for %s: got '%s', want '%s'\n", text, msg, want);
		CHECK(0);
	}
	raw_free(&p);
}

static void test_bad_input(void)
{
	bad("pgoprof-count 2\nend\n", "count.1.0: line 1: not a pgoprof-count 1 file");
	bad("pgoprof-count 1\npid 1\ninsn 0 10 5\nend\n", "line 3: object 0 is not defined");
	bad("pgoprof-count 1\nobject 1 /x\nend\n", "line 2: object 1 out of order (expected 0)");
	bad("pgoprof-count 1\nobject 0 rel\nend\n", "line 2: object 0 has no absolute path");
	bad("pgoprof-count 1\nobject 0 /x\ninsn 0 zz 5\nend\n", "line 3: 'zz' is not a hex number");
	bad("pgoprof-count 1\nobject 0 /x\ninsn 0 10 -5\nend\n", "line 3: a number is missing");
	bad("pgoprof-count 1\nobject 0 /x\ninsn 0 10 5 6\nend\n", "line 3: more than 3 fields after insn");
	bad("pgoprof-count 1\nobject 0 /x\ncall 0 10 0\nend\n", "line 3: a number is missing");
	bad("pgoprof-count 1\nunattributed jit 5\nend\n", "line 2: unknown reason 'jit'");
	bad("pgoprof-count 1\nbogus 5\nend\n", "line 2: unknown line 'bogus'");
	bad("pgoprof-count 1\nend\ninsn 0 1 1\n", "line 3: text after the end line");
	bad("pgoprof-count 1\npid 1\n", "no end line: the process was killed while writing it");
	{	/* a NUL byte: strlen would stop at it */
		static const char nul[] = "pgoprof-count 1\nend\0\n";
		struct raw_profile p;
		struct qemucount *q;
		char msg[512];
		int rc;

		raw_init(&p);
		q = qemucount_new(&p);
		capture_begin();
		rc = qemucount_add(q, (const uint8_t *)nul, sizeof(nul) - 1, "count.1.0");
		capture_end(msg, sizeof(msg));
		qemucount_finish(q);
		CHECK(rc == -1 && strstr(msg, "count.1.0: byte 19: a NUL byte"));
		raw_free(&p);
	}
}

int main(void)
{
	struct load_seg *segs;

	if (test_self_segments(self, &segs) < 1) {
		printf("FAIL cannot read %s\n", self);
		return 1;
	}
	text_off = segs[0].offset + 0x100;	/* executable segments come first */
	free(segs);
	RUN(test_counts_calls_processes);
	RUN(test_unattributed_by_reason);
	RUN(test_bad_input);
	return tests_failed != 0;
}
