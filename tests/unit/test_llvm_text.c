/* SPDX-License-Identifier: GPL-2.0-only */
/* The LLVM text writer and the function-sample tree: exact text for a
 * hand-built profile, in the layout of SampleProfileWriterText. */
#include "check.h"
#include "testutil.h"
#include "../../convert/fstree.h"
#include "../../convert/llvm_text.h"

#include <stdlib.h>
#include <string.h>

static void test_text_exact(void)
{
	struct fs_profile p;
	struct fsamples *f, *in;
	char *text;

	fs_init(&p);
	f = fs_function(&p, "main");
	fs_add_body(f, 3, 0, 10);
	fs_add_body(f, 1, 0, 5);
	fs_add_body(f, 3, 0, 2);		/* adds up */
	fs_add_target(f, 4, 2, "foo", 7);
	fs_add_target(f, 4, 2, "bar", 9);	/* sorted by count */
	fs_add_target(f, 4, 2, "baz", 7);	/* then by name */
	f->head = 4;
	in = fs_inlinee(f, 5, 0, "inl");
	fs_add_body(in, 1, 3, 20);
	fs_add_body(fs_inlinee(in, 2, 0, "deep"), 0, 0, 6);
	fs_add_body(fs_function(&p, "other"), 0, 0, 1);
	fs_add_body(fs_function(&p, "aaa"), 0, 0, 1);	/* ties: by name */
	fs_finish(&p);
	text = profile_text(&p);
	CHECK(!strcmp(text,
		      "main:43:4\n"
		      " 1: 5\n"
		      " 3: 12\n"
		      " 4.2: 0 bar:9 baz:7 foo:7\n"
		      " 5: inl:26\n"
		      "  1.3: 20\n"
		      "  2: deep:6\n"
		      "   0: 6\n"
		      "aaa:1:0\n"
		      " 0: 1\n"
		      "other:1:0\n"
		      " 0: 1\n"));
	if (check_failed)
		printf("%s", text);
	free(text);
	fs_free(&p);
}

static void test_total_includes_inlinees(void)
{
	struct fs_profile p;
	struct fsamples *f;

	fs_init(&p);
	f = fs_function(&p, "f");
	fs_add_body(fs_inlinee(f, 1, 0, "g"), 0, 0, 100);
	fs_add_body(f, 2, 0, 1);
	fs_add_body(fs_function(&p, "h"), 0, 0, 50);
	fs_finish(&p);
	CHECK(p.nfuncs == 2);
	CHECK(!strcmp(p.funcs[0]->name, "f"));
	CHECK(p.funcs[0]->total == 101);
	CHECK(p.funcs[1]->total == 50);
	fs_free(&p);
}

static void test_saturation(void)
{
	struct fs_profile p;
	struct fsamples *f;

	fs_init(&p);
	f = fs_function(&p, "f");
	fs_add_body(f, 1, 0, UINT64_MAX - 1);
	fs_add_body(f, 1, 0, 5);
	fs_add_body(f, 2, 0, 5);
	fs_finish(&p);
	CHECK(f->body[0].count == UINT64_MAX);
	CHECK(f->total == UINT64_MAX);
	fs_free(&p);
}

static void test_many_functions(void)
{
	struct fs_profile p;
	char name[32];

	fs_init(&p);
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "fn%d", i);
		fs_add_body(fs_function(&p, name), 0, 0, (uint64_t)i);
	}
	for (int i = 0; i < 5000; i += 7) {
		snprintf(name, sizeof(name), "fn%d", i);
		fs_add_body(fs_function(&p, name), 1, 0, 1);
	}
	fs_finish(&p);
	CHECK(p.nfuncs == 5000);
	CHECK(!strcmp(p.funcs[0]->name, "fn4998"));	/* 4998 + 1 */
	CHECK(p.funcs[0]->total == 4999);
	CHECK(fs_function(&p, "fn7")->total == 8);
	fs_free(&p);
}

static const char sample_text[] =
	"main:43:4\n"
	" 1: 5\n"
	" 3: 12\n"
	" 4.2: 0 bar:9 baz:7 foo:7\n"
	" 5: inl:26\n"
	"  1.3: 20\n"
	"  2: deep:6\n"
	"   0: 6\n"
	"aaa:1:0\n"
	" 0: 1\n";

static void test_read_round_trip(void)
{
	struct fs_profile p;
	char *text;

	fs_init(&p);
	CHECK(llvm_text_read(&p, sample_text, strlen(sample_text), "mem") == 0);
	text = profile_text(&p);
	CHECK(!strcmp(text, sample_text));
	free(text);
	fs_free(&p);
}

/* llvm-profgen's TOTAL is not the sum of the body: it is kept. */
static void test_read_keeps_totals(void)
{
	static const char in[] = "# comment\nf:1000:3\n !CFGChecksum: 7\n 1: 5\n";
	struct fs_profile p;

	fs_init(&p);
	CHECK(llvm_text_read(&p, in, strlen(in), "mem") == 0);
	CHECK(p.nfuncs == 1 && p.funcs[0]->total == 1000 && p.funcs[0]->head == 3);
	fs_free(&p);
}

static void test_read_merges_duplicates(void)
{
	static const char in[] = "f:5:1\n 1: 5\nf:7:2\n 1: 3\n 2: 4 g:2\n";
	struct fs_profile p;

	fs_init(&p);
	CHECK(llvm_text_read(&p, in, strlen(in), "mem") == 0);
	CHECK(p.nfuncs == 1 && p.funcs[0]->total == 12 && p.funcs[0]->head == 3);
	CHECK(p.funcs[0]->nbody == 2 && p.funcs[0]->body[0].count == 8);
	fs_free(&p);
}

/* A function's head and total, and an inline instance's total, met
 * twice add up to UINT64_MAX at most, never wrap. */
static void test_read_saturates(void)
{
	static const char in[] =
		"f:18446744073709551615:18446744073709551614\n 1: 5\n"
		" 2: g:18446744073709551615\n  1: 5\n"
		"f:3:2\n 1: 3\n 2: g:2\n  1: 1\n";
	struct fs_profile p;
	const struct fsamples *f;

	fs_init(&p);
	CHECK(llvm_text_read(&p, in, strlen(in), "mem") == 0);
	f = p.nfuncs == 1 ? p.funcs[0] : NULL;
	CHECK(f && f->total == UINT64_MAX && f->head == UINT64_MAX);
	CHECK(f && f->ncs == 1 && f->cs[0].callee->total == UINT64_MAX);
	fs_free(&p);
}

static void test_read_errors(void)
{
	static const char *const bad[] = {
		"f:1\n",			/* no head */
		"f:x:1\n",			/* not a number */
		" 1: 5\n",			/* body before a function */
		"f:1:1\n 1:  5\n",		/* two spaces after the colon */
		"f:1:1\n 1 5\n",		/* no colon */
		"f:1:1\n 1: 5 g\n",		/* target without a count */
		"f:1:1\n   1: 5\n",		/* indented too deep */
		"f:1:1\n 99999: 5\n",		/* line offset over 16 bits */
		"f:1:1\n 1: 99999999999999999999\n",	/* u64 overflow */
		"[main:1 @ f]:1:1\n",		/* context-sensitive */
	};
	struct fs_profile p;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fs_init(&p);
		CHECK(llvm_text_read(&p, bad[i], strlen(bad[i]), "bad") == -1);
		CHECK(p.nfuncs == 0);
		fs_free(&p);
	}
}

static void test_read_deep_nesting(void)
{
	char buf[70 * 80];
	size_t n = 0;
	struct fs_profile p;

	n += (size_t)sprintf(buf, "f:1:1\n");
	for (int d = 1; d < 70; d++)
		n += (size_t)sprintf(buf + n, "%*s1: g:1\n", d, "");
	fs_init(&p);
	CHECK(llvm_text_read(&p, buf, n, "deep") == -1);
	fs_free(&p);
}

static void test_merge_doubles(void)
{
	struct fs_profile p, m;
	char *a, *b;

	fs_init(&p);
	fs_init(&m);
	CHECK(llvm_text_read(&p, sample_text, strlen(sample_text), "mem") == 0);
	fs_merge(&m, &p, 1);
	fs_merge(&m, &p, 1);
	fs_finish(&m);
	a = profile_text(&m);
	fs_free(&m);
	fs_init(&m);
	fs_merge(&m, &p, 2);
	fs_finish(&m);
	b = profile_text(&m);
	CHECK(!strcmp(a, b));
	CHECK(!strncmp(a, "main:86:8\n 1: 10\n", 17));
	free(a);
	free(b);
	fs_free(&m);
	fs_free(&p);
}

/* --cold-cut: counts below the threshold go, zero records stay with their
 * function, and an inlinee or function with nothing left goes whole. */
static void test_cold_cut(void)
{
	struct fs_profile p;
	struct fsamples *f, *g;
	struct fs_cut st;
	char *text;

	fs_init(&p);
	f = fs_function(&p, "hot");
	f->head = 3;
	fs_add_body(f, 1, 0, 100);
	fs_add_body(f, 2, 0, 9);		/* below 10: goes (and rare 0, cold 0) */
	fs_add_body(f, 3, 0, 0);		/* never ran: stays */
	fs_add_body(f, 4, 0, 10);		/* at 10: stays */
	fs_add_target(f, 4, 0, "big", 10);
	fs_add_target(f, 4, 0, "tiny", 2);	/* goes */
	fs_add_body(fs_inlinee(f, 5, 0, "cold"), 0, 0, 4);	/* goes */
	fs_add_body(fs_inlinee(f, 6, 0, "warm"), 0, 0, 50);
	g = fs_function(&p, "rare");
	g->head = 1;
	fs_add_body(g, 0, 0, 5);
	fs_add_body(g, 1, 0, 0);
	fs_finish(&p);
	CHECK(fs_cut_below(&p, 10, &st) == 1);
	CHECK(st.body == 3 && st.targets == 1 && st.inlinees == 1 && st.functions == 1);
	text = profile_text(&p);
	CHECK(!strcmp(text,
		      "hot:160:3\n"
		      " 1: 100\n"
		      " 3: 0\n"
		      " 4: 10 big:10\n"
		      " 6: warm:50\n"
		      "  0: 50\n"));
	if (check_failed)
		printf("%s", text);
	free(text);
	CHECK(fs_cut_below(&p, 0, &st) == 0 && st.body == 0);	/* off */
	fs_free(&p);
}

/* LLVM's detailed summary: the count at which the running sum from the
 * largest down first reaches cutoff/10^6 of the total. */
static void test_summary_count(void)
{
	struct fs_profile p;
	struct fsamples *f;

	fs_init(&p);
	CHECK(fs_summary_count(&p, 999999) == 0);
	f = fs_function(&p, "f");
	fs_add_body(f, 1, 0, 999990);
	fs_add_body(f, 2, 0, 8);
	fs_add_body(f, 3, 0, 1);
	fs_add_body(f, 4, 0, 1);
	fs_add_body(fs_inlinee(f, 5, 0, "g"), 0, 0, 0);
	fs_finish(&p);
	/* total 1,000,000: 999,990 + 8 = 999,998 < 999,999, + 1 reaches it */
	CHECK(fs_summary_count(&p, 999999) == 1);
	CHECK(fs_summary_count(&p, 999990) == 999990);
	CHECK(fs_summary_count(&p, 999998) == 8);
	fs_free(&p);
}

int main(void)
{
	RUN(test_read_round_trip);
	RUN(test_read_keeps_totals);
	RUN(test_read_merges_duplicates);
	RUN(test_read_saturates);
	RUN(test_read_errors);
	RUN(test_read_deep_nesting);
	RUN(test_merge_doubles);
	RUN(test_text_exact);
	RUN(test_total_includes_inlinees);
	RUN(test_saturation);
	RUN(test_many_functions);
	RUN(test_cold_cut);
	RUN(test_summary_count);
	return tests_failed != 0;
}
