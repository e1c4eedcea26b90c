/* SPDX-License-Identifier: GPL-2.0-only */
/* The GCC AutoFDO (.afdo) writer and reader: round trips in every layout,
 * the exact bytes GCC reads, GCC's view of names (cut at '.', C4/D4),
 * discriminator folding, llvm-profdata-16 as a second reader, and bad input
 * (every truncation, byte flips, crafted records) under ASan and UBSan.
 *
 * With arguments it is a tool for tests/integration/afdo.sh:
 *   test_afdo --text-to-afdo IN.txt OUT.afdo 1|2|llvm
 *   test_afdo --afdo-to-text IN.afdo
 *   test_afdo --raw-v2 OUT.afdo FUNC HEAD RECORD...
 *     a version-2 file of one function written byte by byte here, not by
 *     afdo_write: its records reach GCC exactly as given, in that order (no
 *     folding).  RECORD: OFF[.DISC]:COUNT (a line of FUNC) or
 *     OFF[.DISC]@CALLEE/OFF:COUNT[,OFF:COUNT]... (an inlined callsite). */
#include "check.h"
#include "testutil.h"
#include "../../convert/afdo.h"
#include "../../convert/fstree.h"
#include "../../convert/llvm_text.h"
#include "../../lib/util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef AFDO_VERSION_LLVM
#define AFDO_VERSION_LLVM 0x3430372a	/* "*704": LLVM's GCC-format reader */
#endif

/* ---- helpers ---- */

static uint8_t *write_mem(const struct fs_profile *p, int version, size_t *len,
			  int *rc)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	*rc = afdo_write(p, version, 0, f);
	fclose(f);
	return (uint8_t *)buf;
}

/* stderr to a temporary file while many error lines are expected. */
static int saved_stderr = -1;
static FILE *captured;

static void quiet_begin(void)
{
	fflush(stderr);
	captured = tmpfile();
	saved_stderr = dup(2);
	dup2(fileno(captured), 2);
}

/* Restore stderr; the captured text (malloc'd) if want_text. */
static char *quiet_end(int want_text)
{
	char *text = NULL;
	long n;

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	if (want_text) {
		n = ftell(captured);
		text = calloc(1, (size_t)(n > 0 ? n : 0) + 1);
		rewind(captured);
		if (n > 0 && fread(text, 1, (size_t)n, captured) != (size_t)n)
			text[0] = '\0';
	}
	fclose(captured);
	return text;
}

/* p written by the afdo writer (fs_finish'ed first, notes kept off
 * stdout), read back, as text; malloc'd. */
static char *written_text(struct fs_profile *p, int version)
{
	struct fs_profile q;
	uint8_t *buf;
	size_t len;
	int rc;
	char *b;

	fs_finish(p);
	quiet_begin();
	buf = write_mem(p, version, &len, &rc);
	free(quiet_end(0));
	CHECK(rc == 0);
	fs_init(&q);
	CHECK(buf && afdo_read(&q, buf, len, "mem") == 0);
	b = profile_text(&q);
	free(buf);
	fs_free(&q);
	return b;
}

/* Whether p, written as version and read back, reads as want (the text
 * of profile_text); says what it read where not.  p is finished first
 * and still the caller's. */
static int check_written(struct fs_profile *p, int version, const char *want)
{
	char *b = written_text(p, version);
	int same = b && !strcmp(b, want);

	CHECK(same);
	if (!same)
		printf("version %#x, written and read back:\n%s--- want\n%s",
		       version, b ? b : "(nothing)\n", want);
	free(b);
	return same;
}

/* build's profile, written for GCC (version 2), reads as want_gcc; its
 * text as written for LLVM's variant is returned (malloc'd) for the
 * caller's checks of what stays as it was there. */
static char *gcc_then_llvm(void (*build)(struct fs_profile *),
			   const char *want_gcc)
{
	struct fs_profile p;
	char *b;

	build(&p);
	check_written(&p, 2, want_gcc);
	fs_free(&p);
	build(&p);
	b = written_text(&p, AFDO_VERSION_LLVM);
	fs_free(&p);
	return b;
}

/* The profile every round trip starts from: inlined callsites three deep,
 * call targets, several functions.  No discriminators and no '.' in names,
 * so that GCC's view of it is the same tree. */
static void build_sample(struct fs_profile *p)
{
	struct fsamples *f, *in, *deep;

	fs_init(p);
	f = fs_function(p, "main");
	f->head = 4;
	fs_add_body(f, 0, 0, 4);
	fs_add_body(f, 1, 0, 5);
	fs_add_body(f, 3, 0, 1200);
	fs_add_target(f, 4, 0, "work", 900);
	fs_add_target(f, 4, 0, "other", 100);
	fs_add_body(f, 4, 0, 1000);
	in = fs_inlinee(f, 5, 0, "inl");
	fs_add_body(in, 1, 0, 20);
	fs_add_body(in, 2, 0, 7);
	fs_add_target(in, 2, 0, "work", 7);
	deep = fs_inlinee(in, 2, 0, "deep");
	fs_add_body(deep, 0, 0, 6);
	fs_add_body(fs_inlinee(deep, 1, 0, "deeper"), 3, 0, 2);
	fs_add_body(fs_inlinee(f, 5, 0, "inl2"), 0, 0, 9);
	f = fs_function(p, "work");
	f->head = 900;
	fs_add_body(f, 0, 0, 900);
	fs_add_body(f, 1, 0, 45000);
	fs_add_body(f, 2, 0, 44100);
	f = fs_function(p, "other");
	f->head = 100;
	fs_add_body(f, 0, 0, 100);
	fs_add_body(fs_function(p, "zero"), 1, 0, 0);
	fs_finish(p);
}

static void check_round_trip(int version)
{
	struct fs_profile p;
	char *a;

	build_sample(&p);
	a = profile_text(&p);
	check_written(&p, version, a);
	free(a);
	fs_free(&p);
}

/* ---- tests ---- */

static void test_round_trip_v2(void) { check_round_trip(2); }
static void test_round_trip_v1(void) { check_round_trip(1); }
static void test_round_trip_llvm(void) { check_round_trip(AFDO_VERSION_LLVM); }

/* LLVM's reader keeps discriminators and does its own name
 * canonicalization: the '*704' variant keeps both. */
static void test_round_trip_llvm_discriminators(void)
{
	struct fs_profile p;
	struct fsamples *f;
	char *a;

	fs_init(&p);
	f = fs_function(&p, "f");
	fs_add_body(f, 2, 0, 10);
	fs_add_body(f, 2, 1, 1000);
	fs_add_body(f, 2, 3, 990);
	fs_add_target(f, 3, 7, "g", 5);
	fs_add_body(fs_inlinee(f, 4, 2, "h.llvm.77"), 1, 1, 8);
	fs_add_body(fs_function(&p, "f.cold"), 9, 0, 3);
	fs_add_body(fs_function(&p, "_ZN1AC4Ev"), 1, 0, 3);
	fs_finish(&p);
	a = profile_text(&p);
	check_written(&p, AFDO_VERSION_LLVM, a);
	free(a);
	fs_free(&p);
}

/* For GCC (versions 1 and 2) the discriminators of a line fold into one
 * record: the min of the body counts (GCC gives the line's count to every
 * block of the line; too low is repaired by the block's other lines, too
 * high is not), the sum of call targets and of inlined instances. */
static void test_fold_discriminators(void)
{
	static const char want[] =
		"f:36:0\n"
		" 2: 10\n"
		" 3: 5 g:12\n"
		" 4: h:21\n"
		"  1: 21\n";
	struct fs_profile p;
	struct fsamples *f;

	for (int v = 1; v <= 2; v++) {
		fs_init(&p);
		f = fs_function(&p, "f");
		fs_add_body(f, 2, 0, 10);
		fs_add_body(f, 2, 1, 1000);
		fs_add_body(f, 2, 3, 990);
		fs_add_body(f, 3, 1, 5);
		fs_add_target(f, 3, 1, "g", 5);
		fs_add_target(f, 3, 2, "g", 7);
		fs_add_body(fs_inlinee(f, 4, 1, "h"), 1, 0, 8);
		fs_add_body(fs_inlinee(f, 4, 2, "h"), 1, 0, 13);
		check_written(&p, v, want);
		fs_free(&p);
	}
}

/* GCC cuts every name at its first '.': foo.cold, foo.part.0 and foo are
 * one function for it, and the name table must hold "foo" once, or one
 * entry hides the other.  Their counts add up. */
static void test_name_cutting_merges(void)
{
	static const char want[] =
		"foo:140:12\n"
		" 1: 10\n"
		" 2: 30 bar:25\n"
		" 7: 100\n"
		"main:6:1\n"
		" 1: 1 foo:5\n"
		" 2: baz:5\n"
		"  1: 5\n";
	struct fs_profile p, q;
	struct fsamples *f;
	uint8_t *buf;
	size_t len;
	int rc;
	char *b;

	fs_init(&p);
	f = fs_function(&p, "foo");
	f->head = 10;
	fs_add_body(f, 1, 0, 10);
	fs_add_body(f, 2, 0, 20);
	fs_add_target(f, 2, 0, "bar", 20);
	f = fs_function(&p, "foo.cold");
	fs_add_body(f, 7, 0, 100);
	f = fs_function(&p, "foo.part.0");
	f->head = 2;
	fs_add_body(f, 2, 0, 10);
	fs_add_target(f, 2, 0, "bar.llvm.1234", 5);
	f = fs_function(&p, "main");
	f->head = 1;
	fs_add_body(f, 1, 0, 1);
	fs_add_target(f, 1, 0, "foo.constprop.0", 3);
	fs_add_target(f, 1, 0, "foo", 2);
	fs_add_body(fs_inlinee(f, 2, 0, "baz.isra.0"), 1, 0, 2);
	fs_add_body(fs_inlinee(f, 2, 0, "baz"), 1, 0, 3);
	fs_finish(&p);
	buf = write_mem(&p, 2, &len, &rc);
	CHECK(rc == 0);
	fs_init(&q);
	CHECK(afdo_read(&q, buf, len, "mem") == 0);
	b = profile_text(&q);
	CHECK(!strcmp(b, want));
	if (strcmp(b, want))
		printf("%s", b);
	/* Each name once in the table: "", bar, baz, foo, main. */
	CHECK(memmem(buf, len, "foo\0", 4) == memmem(buf, len, "foo", 3));
	free(b);
	free(buf);
	fs_free(&p);
	fs_free(&q);
}

/* Function caller, run n times, with foo's head inlined at line, which
 * calls the clone foo.part.0 each time. */

static void add_split_head(struct fs_profile *p, const char *caller,
			   uint32_t line, uint64_t n)
{
	struct fsamples *f = fs_function(p, caller), *in;

	f->head = 1;
	fs_add_body(f, 1, 0, n);
	in = fs_inlinee(f, line, 0, "foo");
	fs_add_body(in, 1, 0, n);
	fs_add_body(in, 2, 0, n);
	fs_add_target(in, 2, 0, "foo.part.0", n);
}

static void build_split_heads(struct fs_profile *p)
{
	struct fsamples *f, *in;

	fs_init(p);
	p->split = xmalloc(sizeof(*p->split));
	p->split[0] = xstrdup("foo");
	p->nsplit = 1;
	f = fs_function(p, "foo.part.0");
	f->head = 40;
	fs_add_body(f, 5, 0, 400);
	fs_add_body(f, 6, 0, 4000);
	fs_add_target(f, 6, 0, "bar", 4000);
	add_split_head(p, "a", 2, 10);
	add_split_head(p, "b", 3, 30);
	f = fs_function(p, "c");
	f->head = 1;
	fs_add_body(f, 1, 0, 5);
	in = fs_inlinee(f, 4, 0, "foo");
	fs_add_body(in, 1, 0, 5);
	fs_add_body(in, 7, 0, 5);
}

/* ipa-split: foo's head is inlined into a and b and calls the clone
 * foo.part.0, which has the body.  For GCC each inlined head that calls
 * the clone gets the clone's profile, scaled by its share of the calls
 * (a 10 of 40, b 30 of 40); c's whole inlined copy of foo calls no clone
 * and stays as it is, and so does every instance in the LLVM variant. */
static void test_split_heads_completed(void)
{
	static const char want_gcc[] =
		"foo:4400:40\n"
		" 5: 400\n"
		" 6: 4000 bar:4000\n"
		"b:3390:1\n"
		" 1: 30\n"
		" 3: foo:3360\n"
		"  1: 30\n"
		"  2: 30 foo:30\n"
		"  5: 300\n"
		"  6: 3000 bar:3000\n"
		"a:1130:1\n"
		" 1: 10\n"
		" 2: foo:1120\n"
		"  1: 10\n"
		"  2: 10 foo:10\n"
		"  5: 100\n"
		"  6: 1000 bar:1000\n"
		"c:15:1\n"
		" 1: 5\n"
		" 4: foo:10\n"
		"  1: 5\n"
		"  7: 5\n";
	char *b = gcc_then_llvm(build_split_heads, want_gcc);

	/* LLVM: a's foo keeps its two lines */
	CHECK(b && strstr(b, " 2: foo:20\n  1: 10\n  2: 10 foo.part.0:10\n") != NULL);
	free(b);
}

static void build_split_part(struct fs_profile *p)
{
	struct fsamples *f, *in;

	fs_init(p);
	f = fs_function(p, "f");
	f->head = 10;
	fs_add_body(f, 1, 0, 10);
	fs_add_body(f, 5, 0, 7);
	in = fs_inlinee(f, 0, 0, "f");
	fs_add_body(in, 5, 0, 3);
	fs_add_body(in, 6, 0, 100);
	fs_add_target(in, 6, 0, "bar", 100);
	in = fs_inlinee(in, 9, 0, "f");	/* a real call: kept */
	fs_add_body(in, 9, 0, 7);
	f = fs_function(p, "g");
	f->head = 1;
	fs_add_body(f, 1, 0, 2);
	in = fs_inlinee(f, 2, 0, "f");
	fs_add_body(in, 1, 0, 4);
	in = fs_inlinee(in, 0, 0, "f");
	fs_add_body(in, 6, 0, 56);
}

/* ipa-split's part inlined back into its function: GCC's DWARF makes it
 * f inlined into f at line offset 0, where the source has no call.  For
 * GCC it is written as f's own lines (a line in both adds up), at the top
 * level and inside an inlined f alike; LLVM's variant keeps it. */
static void test_split_part_refolded(void)
{
	static const char want_gcc[] =
		"f:127:10\n"
		" 1: 10\n"
		" 5: 10\n"
		" 6: 100 bar:100\n"
		" 9: f:7\n"
		"  9: 7\n"
		"g:62:1\n"
		" 1: 2\n"
		" 2: f:60\n"
		"  1: 4\n"
		"  6: 56\n";
	char *b = gcc_then_llvm(build_split_part, want_gcc);

	CHECK(b && strstr(b, " 0: f:") != NULL);
	free(b);
}

static void set_size(struct fs_profile *p, const char *name, uint64_t bytes)
{
	p->fn_names = xrealloc(p->fn_names, (p->nfn + 1) * sizeof(*p->fn_names));
	p->fn_bytes = xrealloc(p->fn_bytes, (p->nfn + 1) * sizeof(*p->fn_bytes));
	p->fn_names[p->nfn] = xstrdup(name);
	p->fn_bytes[p->nfn++] = bytes;
}

static void build_hot_calls(struct fs_profile *p)
{
	struct fsamples *f, *in;

	fs_init(p);
	f = fs_function(p, "top");
	f->head = 1;
	fs_add_body(f, 1, 0, 1000);
	in = fs_inlinee(f, 2, 0, "mid");
	fs_add_body(in, 1, 0, 40);
	fs_add_body(in, 2, 0, 40);
	fs_add_target(in, 2, 0, "leaf", 40);
	fs_add_body(in, 3, 0, 40);
	fs_add_target(in, 3, 0, "big", 40);
	f = fs_function(p, "leaf");
	f->head = 320;
	fs_add_body(f, 1, 0, 320);
	fs_add_body(f, 2, 0, 80);
	fs_add_body(f, 4, 0, 600);
	fs_add_target(f, 4, 0, "leaf", 600);
	f = fs_function(p, "big");
	f->head = 40;
	fs_add_body(f, 1, 0, 500);
	f = fs_function(p, "cold");
	f->head = 1;
	fs_add_body(f, 1, 0, 1);
	fs_add_target(f, 1, 0, "leaf", 1);
	set_size(p, "big", 4096);
	set_size(p, "cold", 16);
	set_size(p, "leaf", 64);
	set_size(p, "mid", 64);
	set_size(p, "top", 256);
}

/* Hot calls of small functions become inlined instances for GCC, with the
 * callee's profile times the call's share of its entries (leaf: 40 of
 * 320); the instance the call was in gets a profile of its own (mid,
 * inlined into top only; its entries, its first line's 40).  A call
 * below the 99% hot count (cold's: the count is 40 here), a big callee
 * and a recursive call stay calls; for LLVM, nothing changes. */
static void test_hot_calls_inlined(void)
{
	static const char want_gcc[] =
		"top:1245:1\n"
		" 1: 1000\n"
		" 2: mid:245\n"
		"  1: 40\n"
		"  2: 40 leaf:40\n"
		"  3: 40 big:40\n"
		"  2: leaf:125\n"
		"   1: 40\n"
		"   2: 10\n"
		"   4: 75 leaf:75\n"
		"leaf:1000:320\n"
		" 1: 320\n"
		" 2: 80\n"
		" 4: 600 leaf:600\n"
		"big:500:40\n"
		" 1: 500\n"
		"mid:245:40\n"
		" 1: 40\n"
		" 2: 40 leaf:40\n"
		" 3: 40 big:40\n"
		" 2: leaf:125\n"
		"  1: 40\n"
		"  2: 10\n"
		"  4: 75 leaf:75\n"
		"cold:1:1\n"
		" 1: 1 leaf:1\n";
	char *b = gcc_then_llvm(build_hot_calls, want_gcc);

	CHECK(b && strstr(b, "leaf:125") == NULL && strstr(b, "\nmid:") == NULL);
	free(b);
}

/* A hot call at the bottom of an inline chain as deep as the reader
 * takes stays a call: written as inlined, the file would be one that
 * afdo_read (and pgoprof show) refuses. */
static void test_hot_call_too_deep(void)
{
	struct fs_profile p;
	struct fsamples *f;
	char name[16], *b;

	fs_init(&p);
	f = fs_function(&p, "top");
	f->head = 1;
	set_size(&p, "leaf", 64);
	for (int i = 0; i < 61; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		f = fs_inlinee(f, 1, 0, name);
		fs_add_body(f, 2, 0, 100);
	}
	fs_add_target(f, 2, 0, "leaf", 100);
	f = fs_function(&p, "leaf");
	f->head = 100;
	fs_add_body(f, 1, 0, 100);
	fs_inlinee(f, 3, 0, "inner");
	fs_add_body(f->cs[0].callee, 1, 0, 100);
	b = written_text(&p, 2);
	CHECK(b && !strstr(b, "2: leaf:"));
	free(b);
	fs_free(&p);
}

/* GCC bug 64346: the C4/D4 names of the debug info become C2/D2. */
static void test_ctor_dtor_names(void)
{
	static const char *const cases[][2] = {
		{ "_ZN1AC4Ev", "_ZN1AC2Ev" },
		{ "_ZN3FooD4Ev", "_ZN3FooD2Ev" },
		{ "_ZN1AC4EPKc", "_ZN1AC2EPKc" },
		{ "_ZN1AC4EPKcRKS2_", "_ZN1AC2EPKcRKS2_" },
		{ "_ZN2ns3BarC4Eii", "_ZN2ns3BarC2Eii" },
		{ "_ZNSt6vectorIiSaIiEEC4Ev", "_ZNSt6vectorIiSaIiEEC2Ev" },
		{ "_ZN1BILi5EEC4Ev", "_ZN1BILi5EEC2Ev" },
		{ "_ZN4XC4EC4Ev", "_ZN4XC4EC2Ev" },	/* class "XC4E" */
		{ "_ZN4XC4E3fooEv", "_ZN4XC4E3fooEv" },	/* not a ctor */
		{ "_ZN1AC1Ev", "_ZN1AC1Ev" },
		{ "_ZN1AD0Ev", "_ZN1AD0Ev" },
		{ "_Z2C4v", "_Z2C4v" },
		{ "C4E", "C4E" },
		{ "_ZN1AC4Ev.cold", "_ZN1AC2Ev" },
	};
	struct fs_profile p, q;
	uint8_t *buf;
	size_t len;
	int rc;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fs_init(&p);
		fs_add_body(fs_function(&p, cases[i][0]), 1, 0, 1);
		fs_finish(&p);
		buf = write_mem(&p, 2, &len, &rc);
		fs_init(&q);
		CHECK(rc == 0 && afdo_read(&q, buf, len, "mem") == 0);
		CHECK(q.nfuncs == 1 && !strcmp(q.funcs[0]->name, cases[i][1]));
		if (q.nfuncs == 1 && strcmp(q.funcs[0]->name, cases[i][1]))
			printf("  %s -> %s, want %s\n", cases[i][0],
			       q.funcs[0]->name, cases[i][1]);
		free(buf);
		fs_free(&p);
		fs_free(&q);
	}
}

static uint32_t word(const uint8_t *b, size_t at)
{
	uint32_t v;

	memcpy(&v, b + at, 4);
	return v;
}

/* The exact bytes of a one-function profile, version 2: byte-counted
 * strings with their NUL, no padding; "" first. */
static void test_bytes_v2(void)
{
	static const uint8_t want[] = {
		'a', 'd', 'c', 'g', 2, 0, 0, 0, 0, 0, 0, 0,
		0x00, 0, 0, 0xaa, 4, 0, 0, 0,		/* names: 15 bytes, 4 words */
		2, 0, 0, 0,
		1, 0, 0, 0, 0,				/* "" */
		2, 0, 0, 0, 'f', 0,			/* "f" */
		0x00, 0, 0, 0xac, 10, 0, 0, 0,		/* functions: 10 words */
		1, 0, 0, 0,
		3, 0, 0, 0, 0, 0, 0, 0,			/* head */
		1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,	/* "f", 1 position, 0 callsites */
		0, 0, 2, 0, 0, 0, 0, 0,			/* offset 2 << 16, no targets */
		5, 0, 0, 0, 0, 0, 0, 0,			/* count */
		0x00, 0, 0, 0xae, 0, 0, 0, 0, 0, 0, 0, 0,	/* no modules */
	};
	struct fs_profile p;
	struct fsamples *f;
	uint8_t *buf;
	size_t len;
	int rc;

	fs_init(&p);
	f = fs_function(&p, "f");
	f->head = 3;
	fs_add_body(f, 2, 0, 5);
	fs_finish(&p);
	buf = write_mem(&p, 2, &len, &rc);
	CHECK(rc == 0);
	CHECK(len == sizeof(want) && !memcmp(buf, want, len));
	if (len != sizeof(want) || memcmp(buf, want, len))
		for (size_t i = 0; i < len; i++)
			printf("%02x%s", buf[i], i % 16 == 15 ? "\n" : " ");
	free(buf);
	fs_free(&p);
}

/* Version 1 and '*704': strings counted in words, NUL-padded; '*704' is
 * what LLVM's hasFormat wants to see ("adcg*704"); version 1 ends with
 * the working set GCC 5..8 read. */
static void test_bytes_v1(void)
{
	struct fs_profile p;
	struct fsamples *f;
	uint8_t *buf;
	size_t len;
	int rc;

	fs_init(&p);
	f = fs_function(&p, "abcd");
	fs_add_body(f, 1, 2, 7);
	fs_finish(&p);
	buf = write_mem(&p, AFDO_VERSION_LLVM, &len, &rc);
	CHECK(rc == 0 && len > 40);
	CHECK(!memcmp(buf, "adcg*704\0\0\0\0", 12));
	CHECK(word(buf, 12) == 0xaa000000 && word(buf, 20) == 2);
	CHECK(word(buf, 24) == 1 && word(buf, 28) == 0);	/* "" in one word */
	CHECK(word(buf, 32) == 2 && !memcmp(buf + 36, "abcd\0\0\0\0", 8));
	CHECK(word(buf, 16) == 6);	/* count + 2 + 3 words */
	CHECK(word(buf, 44) == 0xac000000);
	CHECK(word(buf, 52) == 1);
	/* head, name 1, 1 position, 0 callsites, offset 1 << 16 | 2 */
	CHECK(word(buf, 64) == 1 && word(buf, 68) == 1 && word(buf, 76) == 0x10002);
	free(buf);

	buf = write_mem(&p, 1, &len, &rc);
	CHECK(rc == 0);
	CHECK(!memcmp(buf, "adcg\1\0\0\0\0\0\0\0", 12));
	/* ... module grouping, then the working set: 128 x 3 words. */
	CHECK(len > 12 + 3 * 128 * 4 + 8);
	if (len > 1560) {
		size_t ws = len - (8 + 128 * 12);

		CHECK(word(buf, ws) == 0xaf000000 && word(buf, ws + 4) == 384);
		CHECK(word(buf, ws - 12) == 0xae000000);
		/* one record of 7: every share is covered by it */
		CHECK(word(buf, ws + 8) == 1 && word(buf, ws + 12) == 7);
	}
	free(buf);
	fs_free(&p);
}

static void test_unknown_version(void)
{
	struct fs_profile p;
	uint8_t *buf;
	size_t len;
	int rc;

	build_sample(&p);
	quiet_begin();
	buf = write_mem(&p, 3, &len, &rc);
	free(quiet_end(1));
	CHECK(rc == -1);
	free(buf);
	fs_free(&p);
}

/* gcov_type is signed 64-bit and each function sums its counts: the
 * writer refuses what GCC would see as negative. */
static void test_counts_gcc_cannot_take(void)
{
	struct fs_profile p;
	struct fsamples *f;
	uint8_t *buf;
	size_t len;
	int rc;
	char *msg;

	fs_init(&p);
	f = fs_function(&p, "f");
	fs_add_body(f, 1, 0, (uint64_t)INT64_MAX - 1);
	fs_add_body(f, 2, 0, 1);
	fs_finish(&p);
	buf = write_mem(&p, 2, &len, &rc);
	CHECK(rc == 0);		/* exactly INT64_MAX: fine */
	free(buf);
	fs_add_body(fs_inlinee(f, 3, 0, "g"), 1, 0, 1);
	fs_finish(&p);
	quiet_begin();
	buf = write_mem(&p, 2, &len, &rc);
	msg = quiet_end(1);
	CHECK(rc == -1 && strstr(msg, "scale") && count_lines(msg) == 1);
	free(msg);
	free(buf);
	fs_free(&p);

	fs_init(&p);
	f = fs_function(&p, "f");
	fs_add_target(f, 1, 0, "a", (uint64_t)INT64_MAX);
	fs_add_target(f, 1, 0, "b", 1);
	fs_finish(&p);
	quiet_begin();
	buf = write_mem(&p, 2, &len, &rc);
	free(quiet_end(1));
	CHECK(rc == -1);
	free(buf);
	fs_free(&p);
}

/* Offsets and discriminators are 16 bits in the file: what does not fit
 * is left out (with one warning), the rest written. */
static void test_wide_locations_left_out(void)
{
	struct fs_profile p, q;
	struct fsamples *f;
	uint8_t *buf;
	size_t len;
	int rc;
	char *msg, *b;

	fs_init(&p);
	f = fs_function(&p, "f");
	fs_add_body(f, 1, 0, 3);
	fs_add_body(f, 70000, 0, 5);
	fs_add_body(f, 2, 70000, 5);
	fs_add_body(fs_inlinee(f, 80000, 0, "g"), 1, 0, 5);
	fs_finish(&p);
	quiet_begin();
	buf = write_mem(&p, AFDO_VERSION_LLVM, &len, &rc);
	msg = quiet_end(1);
	CHECK(rc == 0 && strstr(msg, "3 records left out") && count_lines(msg) == 1);
	fs_init(&q);
	CHECK(afdo_read(&q, buf, len, "mem") == 0);
	b = profile_text(&q);
	CHECK(!strcmp(b, "f:3:0\n 1: 3\n"));
	free(b);
	free(msg);
	free(buf);
	fs_free(&p);
	fs_free(&q);
}

/* Inlining 70 deep: the writer keeps 64 levels, which the reader takes. */
static void test_deep_tree_written(void)
{
	struct fs_profile p, q;
	struct fsamples *f;
	uint8_t *buf;
	size_t len;
	int rc, depth = 0;

	fs_init(&p);
	f = fs_function(&p, "f");
	for (int i = 0; i < 70; i++) {
		fs_add_body(f, 1, 0, 1);
		f = fs_inlinee(f, 2, 0, "g");
	}
	fs_finish(&p);
	quiet_begin();
	buf = write_mem(&p, 2, &len, &rc);
	free(quiet_end(1));
	CHECK(rc == 0);
	fs_init(&q);
	CHECK(afdo_read(&q, buf, len, "mem") == 0);
	for (f = q.nfuncs ? q.funcs[0] : NULL; f && f->ncs; f = f->cs[0].callee)
		depth++;
	CHECK(depth == 63);
	free(buf);
	fs_free(&p);
	fs_free(&q);
}

static void test_detect(void)
{
	CHECK(afdo_detect((const uint8_t *)"adcg\2\0\0\0", 8));
	CHECK(afdo_detect((const uint8_t *)"adcg*704", 8));
	CHECK(afdo_detect((const uint8_t *)"gcda\0\0\0\2", 8));	/* big-endian */
	CHECK(afdo_detect((const uint8_t *)"adcg\3\0\0\0", 8));	/* reported later */
	CHECK(!afdo_detect((const uint8_t *)"adcg*22B", 8));	/* a .gcda */
	CHECK(!afdo_detect((const uint8_t *)"adcg:1:1\n 1: 1\n", 16));	/* text */
	CHECK(!afdo_detect((const uint8_t *)"PGOPROF\0", 8));
	CHECK(!afdo_detect((const uint8_t *)"adc", 3));
}

/* A hand-made file, word by word, for crafted bad input. */
struct raw {
	uint8_t b[4096];
	size_t n;
};

static void rw32(struct raw *r, uint32_t v)
{
	memcpy(r->b + r->n, &v, 4);
	r->n += 4;
}

static void rw64(struct raw *r, uint64_t v)
{
	rw32(r, (uint32_t)v);
	rw32(r, (uint32_t)(v >> 32));
}

static void rstr2(struct raw *r, const char *s)
{
	rw32(r, (uint32_t)strlen(s) + 1);
	memcpy(r->b + r->n, s, strlen(s) + 1);
	r->n += strlen(s) + 1;
}

/* Header and the names "", "f", "g" (version 2); the function section
 * header with n functions. */
static void raw_start(struct raw *r, uint32_t nfuncs)
{
	r->n = 0;
	rw32(r, 0x67636461);
	rw32(r, 2);
	rw32(r, 0);
	rw32(r, 0xaa000000);
	rw32(r, 0);
	rw32(r, 3);
	rstr2(r, "");
	rstr2(r, "f");
	rstr2(r, "g");
	rw32(r, 0xac000000);
	rw32(r, 0);
	rw32(r, nfuncs);
}

/* One error line naming the file and the byte; p left empty. */
static void expect_bad(const struct raw *r, const char *what, size_t at)
{
	struct fs_profile p;
	char want[64], *msg;
	int rc;

	fs_init(&p);
	quiet_begin();
	rc = afdo_read(&p, r->b, r->n, "crafted.afdo");
	msg = quiet_end(1);
	snprintf(want, sizeof(want), "crafted.afdo: byte %zu: ", at);
	CHECK(rc == -1 && p.nfuncs == 0 && p.funcs == NULL);
	CHECK(count_lines(msg) == 1 && strstr(msg, want) && strstr(msg, what));
	if (!(count_lines(msg) == 1 && strstr(msg, want) && strstr(msg, what)))
		printf("  got: %s  want: %s... %s\n", msg, want, what);
	free(msg);
	fs_free(&p);
}

static void test_crafted_bad_input(void)
{
	struct raw r;
	size_t at;

	/* a good one first */
	raw_start(&r, 1);
	rw64(&r, 1);
	rw32(&r, 1); rw32(&r, 1); rw32(&r, 1);
	rw32(&r, 1 << 16); rw32(&r, 1); rw64(&r, 5);
	rw32(&r, 7); rw64(&r, 2); rw64(&r, 5);
	rw32(&r, 3 << 16);
	rw32(&r, 2); rw32(&r, 1); rw32(&r, 0);
	rw32(&r, 0); rw32(&r, 0); rw64(&r, 4);
	{
		struct fs_profile p;
		char *t;

		fs_init(&p);
		CHECK(afdo_read(&p, r.b, r.n, "crafted.afdo") == 0);
		t = profile_text(&p);
		CHECK(!strcmp(t, "f:9:1\n 1: 5 g:5\n 3: g:4\n  0: 4\n"));
		free(t);
		fs_free(&p);
	}

	/* function name index out of range */
	raw_start(&r, 1);
	rw64(&r, 1);
	at = r.n;
	rw32(&r, 3); rw32(&r, 0); rw32(&r, 0);
	expect_bad(&r, "function name index 3 out of range", at);

	/* index 0: the empty name (GCC asserts index > 0) */
	raw_start(&r, 1);
	rw64(&r, 1);
	at = r.n;
	rw32(&r, 0); rw32(&r, 0); rw32(&r, 0);
	expect_bad(&r, "empty name", at);

	/* call target index out of range (a u64) */
	raw_start(&r, 1);
	rw64(&r, 1);
	rw32(&r, 1); rw32(&r, 1); rw32(&r, 0);
	rw32(&r, 0); rw32(&r, 1); rw64(&r, 5);
	at = r.n;
	rw32(&r, 7); rw64(&r, 1ull << 32 | 1); rw64(&r, 5);
	expect_bad(&r, "call target name index 4294967297 out of range", at + 4);

	/* a histogram type that is not an indirect call */
	raw_start(&r, 1);
	rw64(&r, 1);
	rw32(&r, 1); rw32(&r, 1); rw32(&r, 0);
	rw32(&r, 0); rw32(&r, 1); rw64(&r, 5);
	at = r.n;
	rw32(&r, 3); rw64(&r, 1); rw64(&r, 5);
	expect_bad(&r, "value profile type 3", at);

	/* counts GCC reads as negative */
	raw_start(&r, 1);
	at = r.n;
	rw64(&r, 1ull << 63);
	rw32(&r, 1); rw32(&r, 0); rw32(&r, 0);
	expect_bad(&r, "overflows", at);
	raw_start(&r, 1);
	rw64(&r, 1);
	rw32(&r, 1); rw32(&r, 1); rw32(&r, 0);
	rw32(&r, 0); rw32(&r, 0);
	at = r.n;
	rw64(&r, UINT64_MAX);
	expect_bad(&r, "overflows", at);

	/* counts of records that cannot fit in what is left */
	raw_start(&r, 1);
	rw64(&r, 1);
	rw32(&r, 1); rw32(&r, 0xffffffff); rw32(&r, 0);
	expect_bad(&r, "cannot fit", r.n - 8);
	raw_start(&r, 0xffffffff);
	expect_bad(&r, "cannot fit", r.n - 4);

	/* nesting past 64 */
	raw_start(&r, 1);
	rw64(&r, 1);
	rw32(&r, 1); rw32(&r, 0); rw32(&r, 1);
	for (int d = 1; d < 100; d++) {
		if (d == 64)	/* read by the 64th instance down */
			at = r.n;
		rw32(&r, 1 << 16);
		rw32(&r, 2); rw32(&r, 0); rw32(&r, d < 99);
	}
	expect_bad(&r, "nested deeper than 64", at);

	/* a string of length 0 (gcov_read_string gives NULL: GCC crashes) */
	r.n = 0;
	rw32(&r, 0x67636461); rw32(&r, 2); rw32(&r, 0);
	rw32(&r, 0xaa000000); rw32(&r, 0); rw32(&r, 1);
	at = r.n;
	rw32(&r, 0);
	rw32(&r, 0xac000000); rw32(&r, 0); rw32(&r, 0);
	expect_bad(&r, "length 0", at);

	/* a string without its NUL */
	r.n = 0;
	rw32(&r, 0x67636461); rw32(&r, 2); rw32(&r, 0);
	rw32(&r, 0xaa000000); rw32(&r, 0); rw32(&r, 1);
	at = r.n;
	rw32(&r, 2); r.b[r.n++] = 'a'; r.b[r.n++] = 'b';
	rw32(&r, 0xac000000); rw32(&r, 0); rw32(&r, 0);
	expect_bad(&r, "NUL", at);

	/* wrong magic, unknown version, wrong section tag, modules */
	raw_start(&r, 0);
	r.b[0] = 'x';
	expect_bad(&r, "magic", 0);
	raw_start(&r, 0);
	r.b[4] = 3;
	expect_bad(&r, "version", 4);
	raw_start(&r, 0);
	r.b[12] = 1;
	expect_bad(&r, "name table", 12);
	raw_start(&r, 0);
	rw32(&r, 0xae000000); rw32(&r, 0); rw32(&r, 2);
	expect_bad(&r, "modules", r.n - 4);
	raw_start(&r, 0);
	rw32(&r, 0xae000000); rw32(&r, 0); rw32(&r, 0);
	rw32(&r, 0xaf000000); rw32(&r, 1000);
	expect_bad(&r, "working set", r.n - 4);
	raw_start(&r, 0);
	rw32(&r, 0xae000000); rw32(&r, 0); rw32(&r, 0);
	rw32(&r, 0xaf000000); rw32(&r, 1); rw32(&r, 0); rw32(&r, 9);
	expect_bad(&r, "unknown data", r.n - 4);
}

/* Every truncation and byte flips of real files: -1 and an empty p, or a
 * success; never a sanitizer report. */
static void fuzz_one(const uint8_t *good, size_t len, int *fails)
{
	struct fs_profile p;
	uint8_t *copy = malloc(len);
	char *full;
	int rc;

	fs_init(&p);
	CHECK(afdo_read(&p, good, len, "fuzz") == 0);
	full = profile_text(&p);
	fs_free(&p);
	for (size_t n = 0; n < len; n++) {
		/* an exact copy of the prefix, so ASan sees reads past it */
		uint8_t *t = malloc(n ? n : 1);

		memcpy(t, good, n);
		fs_init(&p);
		rc = afdo_read(&p, t, n, "fuzz");
		if (rc == 0) {
			/* only where the optional trailer starts */
			char *s = profile_text(&p);

			if (strcmp(s, full))
				(*fails)++;
			free(s);
		} else if (p.nfuncs || p.funcs) {
			(*fails)++;
		}
		fs_free(&p);
		free(t);
	}
	for (size_t i = 0; i < len; i++) {
		static const uint8_t flips[] = { 0x01, 0x80, 0xff, 0x10 };

		for (size_t k = 0; k < sizeof(flips); k++) {
			memcpy(copy, good, len);
			copy[i] ^= flips[k];
			fs_init(&p);
			rc = afdo_read(&p, copy, len, "fuzz");
			if (rc != 0 && (p.nfuncs || p.funcs))
				(*fails)++;
			fs_free(&p);
		}
	}
	free(full);
	free(copy);
}

static void test_truncations_and_flips(void)
{
	static const int versions[] = { 1, 2, AFDO_VERSION_LLVM };
	struct fs_profile p;
	int fails = 0;

	build_sample(&p);
	quiet_begin();
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		size_t len;
		int rc;
		uint8_t *buf = write_mem(&p, versions[i], &len, &rc);

		fuzz_one(buf, len, &fails);
		free(buf);
	}
	free(quiet_end(0));
	CHECK(fails == 0);
	fs_free(&p);
}

/* llvm-profdata-16 reads the '*704' file (SampleProfileReaderGCC) and
 * shows the same profile as it shows for our text of the same tree. */
static int run_show(const char *file, const char *out)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "llvm-profdata-16 show --sample %s >%s 2>&1",
		 file, out);
	return system(cmd);
}

static char *slurp(const char *path)
{
	size_t len;
	uint8_t *b = read_whole_file(path, &len);

	return (char *)b;
}

static void test_llvm_profdata_reads_it(void)
{
	char dir[] = "/tmp/test_afdo.XXXXXX", txt[64], afdo[64], o1[64], o2[64];
	struct fs_profile p;
	struct fsamples *f;
	FILE *fp;
	int rc;
	char *a, *b;

	if (!mkdtemp(dir)) {
		CHECK(0);
		return;
	}
	snprintf(txt, sizeof(txt), "%s/p.txt", dir);
	snprintf(afdo, sizeof(afdo), "%s/p.afdo", dir);
	snprintf(o1, sizeof(o1), "%s/show.txt", dir);
	snprintf(o2, sizeof(o2), "%s/show.afdo", dir);
	build_sample(&p);
	f = fs_function(&p, "main");
	fs_add_body(f, 6, 3, 77);		/* discriminators survive */
	fs_add_target(f, 6, 3, "work", 70);
	fs_finish(&p);
	fp = fopen(txt, "w");
	CHECK(fp && llvm_text_write(&p, fp) == 0);
	if (fp)
		fclose(fp);
	fp = fopen(afdo, "w");
	CHECK(fp && afdo_write(&p, AFDO_VERSION_LLVM, 0, fp) == 0);
	if (fp)
		fclose(fp);
	rc = run_show(txt, o1);
	CHECK(rc == 0);
	rc = run_show(afdo, o2);
	CHECK(rc == 0);
	a = slurp(o1);
	b = slurp(o2);
	CHECK(a && b && strstr(b, "Function: main: 2330, 4, 5 sampled lines"));
	CHECK(a && b && !strcmp(a, b));
	if (a && b && (strcmp(a, b) || !strstr(b, "main: 2330, 4, 5 sampled")))
		printf("--- text\n%s--- afdo\n%s", a, b);
	free(a);
	free(b);
	fs_free(&p);
	unlink(txt); unlink(afdo); unlink(o1); unlink(o2);
	rmdir(dir);
}

/* ---- tool mode for the integration test ---- */

static int tool_text_to_afdo(const char *in, const char *out, const char *v)
{
	struct fs_profile p;
	size_t len;
	uint8_t *buf = read_whole_file(in, &len);
	int version = !strcmp(v, "llvm") ? AFDO_VERSION_LLVM : atoi(v);
	FILE *f;
	int rc;

	if (!buf)
		return 1;
	fs_init(&p);
	rc = llvm_text_read(&p, (const char *)buf, len, in);
	free(buf);
	if (rc)
		return 1;
	f = fopen(out, "w");
	if (!f)
		return err("%s: cannot create", out), 1;
	rc = afdo_write(&p, version, 0, f);
	if (fclose(f))
		rc = -1;
	fs_free(&p);
	return rc ? 1 : 0;
}

static int tool_afdo_to_text(const char *in)
{
	struct fs_profile p;
	size_t len;
	uint8_t *buf = read_whole_file(in, &len);
	int rc;

	if (!buf)
		return 1;
	fs_init(&p);
	rc = afdo_read(&p, buf, len, in);
	free(buf);
	if (!rc)
		rc = llvm_text_write(&p, stdout);
	fs_free(&p);
	return rc ? 1 : 0;
}

/* OFF[.DISC] -> offset word; *end past it. */
static int parse_loc(const char *s, char **end, uint32_t *off)
{
	unsigned long line = strtoul(s, end, 10), disc = 0;

	if (**end == '.')
		disc = strtoul(*end + 1, end, 10);
	if (line > 0xffff || disc > 0xffff)
		return -1;
	*off = (uint32_t)(line << 16 | disc);
	return 0;
}

/* ARGS: OUT FUNC HEAD RECORD...; a RECORD is OFF[.DISC]:COUNT, a body
 * line, or OFF[.DISC]@CALLEE/OFF:COUNT[,OFF:COUNT...], an inlined callsite
 * with its body lines.  Names: "", FUNC, then the callees in order. */
static int tool_raw_v2(int argc, char **argv)
{
	struct raw r = { .n = 0 };
	uint32_t npos = 0, ncs = 0, nnames = 2;
	FILE *f;

	if (argc < 3)
		return 2;
	for (int i = 3; i < argc; i++) {
		if (strchr(argv[i], '@'))
			ncs++, nnames++;
		else
			npos++;
	}
	rw32(&r, 0x67636461); rw32(&r, 2); rw32(&r, 0);
	rw32(&r, 0xaa000000); rw32(&r, 0); rw32(&r, nnames);
	rstr2(&r, "");
	rstr2(&r, argv[1]);
	for (int i = 3; i < argc; i++) {
		char *at = strchr(argv[i], '@'), *slash;

		if (!at)
			continue;
		if (!(slash = strchr(at, '/')))
			return 2;
		*slash = '\0';
		rstr2(&r, at + 1);
		*slash = '/';
	}
	rw32(&r, 0xac000000); rw32(&r, 0); rw32(&r, 1);
	rw64(&r, strtoull(argv[2], NULL, 0));
	rw32(&r, 1); rw32(&r, npos); rw32(&r, ncs);
	for (int pass = 0; pass < 2; pass++) {
		uint32_t callee = 2;

		for (int i = 3; i < argc && r.n < sizeof(r.b) - 64; i++) {
			char *e;
			uint32_t off;
			int is_cs = strchr(argv[i], '@') != NULL;

			if (is_cs != pass)
				continue;
			if (parse_loc(argv[i], &e, &off))
				return 2;
			rw32(&r, off);
			if (!is_cs) {
				if (*e != ':')
					return 2;
				rw32(&r, 0);
				rw64(&r, strtoull(e + 1, NULL, 10));
				continue;
			}
			{
				char *list = strchr(e, '/') + 1, *q;
				uint32_t n = 1;

				for (q = list; *q; q++)
					n += *q == ',';
				rw32(&r, callee++);
				rw32(&r, n);
				rw32(&r, 0);
				for (q = list; n--; q = e + 1) {
					if (parse_loc(q, &e, &off) || *e != ':')
						return 2;
					rw32(&r, off);
					rw32(&r, 0);
					rw64(&r, strtoull(e + 1, &e, 10));
				}
			}
		}
	}
	rw32(&r, 0xae000000); rw32(&r, 0); rw32(&r, 0);
	f = fopen(argv[0], "w");
	if (!f || fwrite(r.b, 1, r.n, f) != r.n || fclose(f))
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	progname = "test_afdo";
	if (argc == 5 && !strcmp(argv[1], "--text-to-afdo"))
		return tool_text_to_afdo(argv[2], argv[3], argv[4]);
	if (argc == 3 && !strcmp(argv[1], "--afdo-to-text"))
		return tool_afdo_to_text(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "--raw-v2"))
		return tool_raw_v2(argc - 2, argv + 2);
	if (argc > 1) {
		fprintf(stderr, "usage: test_afdo [--text-to-afdo IN OUT 1|2|llvm | --afdo-to-text IN | --raw-v2 OUT FUNC HEAD RECORD...]\n");
		return 2;
	}
	RUN(test_round_trip_v2);
	RUN(test_round_trip_v1);
	RUN(test_round_trip_llvm);
	RUN(test_round_trip_llvm_discriminators);
	RUN(test_fold_discriminators);
	RUN(test_name_cutting_merges);
	RUN(test_split_heads_completed);
	RUN(test_split_part_refolded);
	RUN(test_hot_calls_inlined);
	RUN(test_hot_call_too_deep);
	RUN(test_ctor_dtor_names);
	RUN(test_bytes_v2);
	RUN(test_bytes_v1);
	RUN(test_unknown_version);
	RUN(test_counts_gcc_cannot_take);
	RUN(test_wide_locations_left_out);
	RUN(test_deep_tree_written);
	RUN(test_detect);
	RUN(test_crafted_bad_input);
	RUN(test_truncations_and_flips);
	RUN(test_llvm_profdata_reads_it);
	return tests_failed ? 1 : 0;
}
