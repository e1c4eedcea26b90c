/* The LLVM text writer and the function-sample tree: exact text for a
 * hand-built profile, in the layout of SampleProfileWriterText. */
#include "check.h"
#include "../../convert/fstree.h"
#include "../../convert/llvm_text.h"

#include <stdlib.h>
#include <string.h>

static char *render(struct fs_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	llvm_text_write(p, f);
	fclose(f);
	return buf;
}

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
	text = render(&p);
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

int main(void)
{
	RUN(test_text_exact);
	RUN(test_total_includes_inlinees);
	RUN(test_saturation);
	RUN(test_many_functions);
	return tests_failed != 0;
}
