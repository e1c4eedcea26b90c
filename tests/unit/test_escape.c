/* SPDX-License-Identifier: GPL-2.0-only */
/* lib/escape.c, the rule for names in text output (docs/report.md, "Names
 * in text output"): no control byte (C0, DEL, C1) nor malformed UTF-8
 * reaches a terminal, a newline or ';' cannot add a record or a frame,
 * well-formed UTF-8 and every printable ASCII byte stay as they are, and
 * escaping is one-to-one.  The LLVM text writer leaves out, and counts,
 * every name its reader would split or misread: a function named to
 * forge a profile of main adds no sample to main. */
#include "capture.h"
#include "check.h"
#include "testutil.h"
#include "../../lib/escape.h"
#include "../../convert/fstree.h"

#include <stdlib.h>
#include <string.h>

static int escapes_to(const char *in, unsigned flags, const char *want)
{
	char *got = esc_strdup(in, flags), *mem = NULL;
	size_t len;
	FILE *f = open_memstream(&mem, &len);
	int ok;

	esc_fputs(in, flags, f);
	fclose(f);
	ok = !strcmp(got, want) && !strcmp(mem, want) &&
	     esc_needed(in, flags) == !!strcmp(in, want);
	if (!ok)
		printf("  escaped \"%s\", want \"%s\"\n", got, want);
	free(got);
	free(mem);
	return ok;
}

static void test_terminal_rule(void)
{
	CHECK(escapes_to("main", 0, "main"));
	CHECK(escapes_to("", 0, ""));
	CHECK(escapes_to("ns::f(char const*, int) [clone .cold]", 0,
			 "ns::f(char const*, int) [clone .cold]"));
	CHECK(escapes_to("a;b:1 c", 0, "a;b:1 c"));
	CHECK(escapes_to("a\nb\tc\rd\\e", 0, "a\\nb\\tc\\rd\\\\e"));
	/* OSC title and CSI colour: no ESC, no BEL left. */
	CHECK(escapes_to("\033]0;x\007\033[31m", 0, "\\x1b]0;x\\x07\\x1b[31m"));
	CHECK(escapes_to("\001\037\177", 0, "\\x01\\x1f\\x7f"));
	/* UTF-8 kept (é, €, U+10FFFF); C1 controls (U+009B CSI) and 8-bit
	 * CSI, overlong, surrogate, cut and too-large forms escaped. */
	CHECK(escapes_to("\xc3\xa9\xe2\x82\xac\xf4\x8f\xbf\xbf", 0,
			 "\xc3\xa9\xe2\x82\xac\xf4\x8f\xbf\xbf"));
	CHECK(escapes_to("\xc2\x9b" "1m", 0, "\\xc2\\x9b1m"));
	CHECK(escapes_to("\x9b" "1m", 0, "\\x9b1m"));
	CHECK(escapes_to("\xc0\xaf\xed\xa0\x80", 0,
			 "\\xc0\\xaf\\xed\\xa0\\x80"));
	CHECK(escapes_to("\xe2\x82", 0, "\\xe2\\x82"));
	CHECK(escapes_to("\xf4\x90\x80\x80", 0, "\\xf4\\x90\\x80\\x80"));
	CHECK(escapes_to("\xc2\xa0", 0, "\xc2\xa0"));
	/* One-to-one: the escape of a backslash differs from a name that
	 * spells an escape. */
	CHECK(escapes_to("\\x1b", 0, "\\\\x1b"));
}

static void test_folded_and_tabs(void)
{
	CHECK(escapes_to("fake;stack 999999\nx", ESC_FOLDED,
			 "fake\\x3bstack 999999\\nx"));
	CHECK(escapes_to("a b", ESC_FOLDED, "a b"));
	CHECK(escapes_to("\tx = 1;", ESC_TABS, "\tx = 1;"));
	CHECK(escapes_to("\tx\033", ESC_TABS | ESC_FOLDED, "\tx\\x1b"));
}

static void test_llvm_text_names(void)
{
	static const char *const fit[] = {
		"main", "_ZN2ns4workEi", "_ZL3foov.llvm.12345", "foo.cold",
		"_RNvCs1234_7mycrate4main", "std::vector<int>::at", "a:1",
		"\xc3\xa9t\xc3\xa9", "x\\y", "15822663052811949562",
	};
	static const char *const unfit[] = {
		"", " main", "a b", "zz:1:1\n 0: 1", "#x", "!x", "[main]",
		"e\033[31m", "tab\t", "del\177",
	};

	for (size_t i = 0; i < sizeof(fit) / sizeof(*fit); i++)
		CHECK(!esc_llvm_text_unfit(fit[i]));
	for (size_t i = 0; i < sizeof(unfit) / sizeof(*unfit); i++)
		CHECK(esc_llvm_text_unfit(unfit[i]));
}

/* issue 27, finding 4: "zz:1:1\n 0: 1\nmain:424242:0\n 0: 424242\nyy"
 * made llvm-profdata read 424,242 samples of main. */
static void test_llvm_text_leaves_out(void)
{
	static const char forged[] = "zz:1:1\n 0: 1\nmain:424242:0\n 0: 424242\nyy";
	struct fs_profile p;
	struct fsamples *m;
	char *text, msg[1024];

	fs_init(&p);
	fs_add_body(fs_function(&p, forged), 1, 0, 9);
	m = fs_function(&p, "main");
	fs_add_body(m, 1, 0, 1);
	fs_add_target(m, 1, 0, "a b:7 main", 5);
	fs_add_target(m, 1, 0, "callee", 2);
	fs_add_body(fs_inlinee(m, 2, 0, "#inl"), 0, 0, 4);
	fs_finish(&p);
	capture_begin();
	text = profile_text(&p);
	capture_end(msg, sizeof(msg));
	CHECK(!strcmp(text, "main:5:0\n 1: 1 callee:2\n"));
	CHECK(strstr(msg, "1 functions (9 samples), 1 inlined instances (4 samples), 1 call targets (5 calls)"));
	CHECK(strstr(msg, "the first, zz:1:1\\n 0: 1\\nmain:424242:0\\n 0: 424242\\nyy,"));
	CHECK(!strchr(msg, '\033') && strchr(msg, '\n') == msg + strlen(msg) - 1);
	if (check_failed)
		printf("%s%s", text, msg);
	free(text);
	fs_free(&p);
}

int main(void)
{
	RUN(test_terminal_rule);
	RUN(test_folded_and_tabs);
	RUN(test_llvm_text_names);
	RUN(test_llvm_text_leaves_out);
	return tests_failed != 0;
}
