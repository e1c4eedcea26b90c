/* SPDX-License-Identifier: GPL-2.0-only */
/* The report's aggregation (report/): self and total samples under
 * recursion, inlined code credited to the inlined function, demangled
 * C++ names, folded stacks, compiler profiles and diffs.  Raw profiles
 * are synthesized with the raw API, at file offsets computed from small
 * programs built here with clang-16 and g++ (SKIP without them).
 * sym_source_line: a report's file and line, the file name absolute
 * though the compiler was given a relative one. */
#include "check.h"
#include "../../proc/elfaddr.h"
#include "../../convert/formats.h"
#include "../../convert/llvm_text.h"
#include "../../convert/symbolize.h"
#include "../../lib/util.h"
#include "../../raw/rawprof.h"
#include "../../report/demangle.h"
#include "../../report/diff.h"
#include "../../report/folded.h"
#include "../../report/funcs.h"
#include "../../report/syms.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char workdir[] = "/tmp/test_report.XXXXXX";
static char cprog[300], cxxprog[300];
static int have_c, have_cxx;

/* Line 2 is all of inl: any address of its code has line 2. */
static const char c_source[] =
"static int sink;\n"
"static inline __attribute__((always_inline)) int inl(int x) { for (int i = 0; i < x; i++) sink += i * x; return sink; }\n"
"__attribute__((noinline)) int outer(int n) { int s = 0; for (int i = 0; i < n; i++) s += inl(i); return s; }\n"
"__attribute__((noinline)) int leaf2(int n) { return n * 7 + sink; }\n"
"__attribute__((noinline)) int rec(int n) { return n ? rec(n - 1) + leaf2(n) : 0; }\n"
"int main(int argc, char **argv) { (void)argv; return outer(argc) + rec(argc); }\n";

static const char cxx_source[] =
"namespace ns { __attribute__((noinline)) int work(int x) { return x * 3; } }\n"
"int main(int argc, char **) { return ns::work(argc); }\n";

static int build(const char *cc, const char *src, const char *ext, char *out)
{
	char path[300], cmd[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/prog%s", workdir, ext);
	snprintf(out, 300, "%s/prog%s.bin", workdir, ext);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s -O2 -g -Wl,--build-id -o %s %s >/dev/null 2>&1",
		 cc, out, path);
	return system(cmd) ? -1 : 0;
}

/* A program's symbolizer and the file offsets of its functions. */
struct prog {
	struct symbolizer *s;
	const struct load_seg *segs;
	int nseg;
};

static int prog_open(struct prog *g, const char *path)
{
	g->s = sym_open(path, NULL, 1);
	if (!g->s)
		return -1;
	g->segs = sym_segments(g->s, &g->nseg);
	return 0;
}

/* The file offset of function name's entry (UINT64_MAX if none). */
static uint64_t entry(struct prog *g, const char *name)
{
	long fn = sym_function_by_name(g->s, name);
	uint64_t off;

	if (fn < 0 || vaddr_to_offset(g->segs, g->nseg, sym_function_entry(g->s, fn), &off))
		return UINT64_MAX;
	return off;
}

/* The first address of outer whose inline chain is outer, inl, at inl's
 * line 2 (line offset 0 from its first line; some rows have line 0). */
static uint64_t inl_vaddr;
static struct prog *inl_prog;

static void find_inl(uint64_t vaddr, uint32_t len, void *arg)
{
	struct sym_result r;

	(void)len;
	(void)arg;
	if (!inl_vaddr && sym_lookup(inl_prog->s, vaddr, &r) == SYM_OK &&
	    r.nframes == 2 && !strcmp(r.frames[0].name, "outer") &&
	    !strcmp(r.frames[1].name, "inl") && r.frames[1].line_offset == 0)
		inl_vaddr = vaddr;
}

static uint64_t inl_offset(struct prog *g)
{
	uint64_t off;

	inl_prog = g;
	inl_vaddr = 0;
	sym_function_insns(g->s, sym_function_by_name(g->s, "outer"), find_inl, NULL);
	if (!inl_vaddr || vaddr_to_offset(g->segs, g->nseg, inl_vaddr, &off))
		return UINT64_MAX;
	return off;
}

static void add(struct raw_profile *p, uint64_t count, int n, ...)
{
	struct raw_frame f[16];
	va_list ap;

	va_start(ap, n);
	for (int i = 0; i < n; i++) {
		f[i].obj = va_arg(ap, uint32_t);
		f[i].offset = va_arg(ap, uint64_t);
	}
	va_end(ap);
	raw_add_stack(p, f, (uint32_t)n, count);
}

/* The profile of the C program described at the top of tests below.
 * stacks: whole stacks; else the same leaves as IP samples. */
static int c_profile(struct raw_profile *p, int stacks)
{
	struct prog g;
	uint8_t id[RAW_BUILD_ID_MAX];
	const uint8_t *bid;
	size_t len = 0;
	uint32_t o, x;
	uint64_t rec, leaf2, mn, inl;

	if (prog_open(&g, cprog))
		return -1;
	bid = sym_build_id(g.s, &len);
	if (bid && len <= sizeof(id))
		memcpy(id, bid, len);
	rec = entry(&g, "rec");
	leaf2 = entry(&g, "leaf2");
	mn = entry(&g, "main");
	inl = inl_offset(&g);
	sym_close(g.s);
	CHECK(bid && rec != UINT64_MAX && leaf2 != UINT64_MAX && mn != UINT64_MAX);
	CHECK(inl != UINT64_MAX);
	raw_init(p);
	o = raw_object(p, id, (uint32_t)len, cprog);
	x = raw_object(p, (const uint8_t *)"\x01\x02\x03\x04\x05\x06\x07\x08", 8,
		       "/nonexistent/libx.so");
	o = raw_find_object(p, id, (uint32_t)len);	/* objects were sorted */
	x = raw_find_object(p, (const uint8_t *)"\x01\x02\x03\x04\x05\x06\x07\x08", 8);
	if (!stacks) {
		raw_add_ip(&p->objs[o], rec, 3);
		raw_add_ip(&p->objs[o], inl, 7);
		raw_add_ip(&p->objs[x], 0x1234, 1);
		return 0;
	}
	/* Return addresses are looked up at offset - 1: entry + 1 is in
	 * the function. */
	add(p, 3, 3, o, rec, o, rec + 1, o, mn + 1);
	add(p, 5, 4, o, leaf2, o, rec + 1, o, rec + 1, o, mn + 1);
	add(p, 2, 1, o, mn);
	add(p, 7, 2, o, inl, o, mn + 1);
	add(p, 4, 3, RAW_FRAME_KERNEL, (uint64_t)0, o, leaf2 + 1, o, mn + 1);
	add(p, 1, 2, x, (uint64_t)0x1234, o, mn + 1);
	add(p, 6, 1, RAW_FRAME_UNKNOWN, (uint64_t)0);
	return 0;
}

static const struct rep_func *func(const struct rep_model *m, const char *name)
{
	long i = rep_model_func(m, name);

	return i < 0 ? NULL : &m->funcs[i];
}

static uint64_t pair(const struct rep_model *m, const char *a, const char *b,
		     int inlined)
{
	long x = rep_model_func(m, a), y = rep_model_func(m, b);

	for (size_t i = 0; x >= 0 && y >= 0 && i < m->nedges; i++)
		if (m->edges[i].caller == (size_t)x && m->edges[i].callee == (size_t)y &&
		    m->edges[i].inlined == inlined)
			return m->edges[i].count;
	return 0;
}

#define SELF_TOTAL(m, name, s, t)                                          \
	do {                                                               \
		const struct rep_func *f_ = func(m, name);                 \
		CHECK(f_ != NULL);                                         \
		CHECK(f_ && f_->self == (s));                              \
		CHECK(f_ && f_->total == (t));                             \
	} while (0)

/* Self, total, pairs; recursion counted once per stack; inlined code is
 * inl's, with outer (not main) as its caller.  Binaries by --binary and
 * by the recorded path give the same. */
static void test_stacks_model(void)
{
	for (int given = 0; given < 2 && have_c; given++) {
		struct raw_profile p;
		struct strtab names;
		struct rep_model m;
		struct rep_syms *s;
		const char *bins[] = { cprog };

		if (c_profile(&p, 1))
			return;
		strtab_init(&names);
		s = rep_syms_open(&p, "t.raw", bins, given, 0, &names);
		CHECK(s != NULL);
		if (!s)
			return;
		rep_model_init(&m, &names);
		rep_model_add_raw(&m, s);
		CHECK(m.has_total);
		CHECK(m.samples == 28);
		SELF_TOTAL(&m, "rec", 3, 8);
		SELF_TOTAL(&m, "leaf2", 5, 9);
		SELF_TOTAL(&m, "main", 2, 22);
		SELF_TOTAL(&m, "inl", 7, 7);
		SELF_TOTAL(&m, "outer", 0, 7);
		SELF_TOTAL(&m, REP_KERNEL, 4, 4);
		SELF_TOTAL(&m, REP_UNKNOWN, 6, 6);
		SELF_TOTAL(&m, "[/nonexistent/libx.so]", 1, 1);
		CHECK(pair(&m, "main", "rec", 0) == 8);
		CHECK(pair(&m, "rec", "rec", 0) == 8);
		CHECK(pair(&m, "rec", "leaf2", 0) == 5);
		CHECK(pair(&m, "main", "leaf2", 0) == 4);
		CHECK(pair(&m, "main", "outer", 0) == 7);
		CHECK(pair(&m, "outer", "inl", 1) == 7);
		CHECK(pair(&m, "main", "inl", 0) == 0);
		/* inl is all of line 2 of prog.c. */
		rep_model_sort_lines(&m);
		{
			int found = 0;

			for (size_t i = 0; i < m.nlines; i++) {
				const struct rep_line *l = &m.lines[i];

				if (!strcmp(l->func, "inl")) {
					found++;
					CHECK(l->line == 2 && l->count == 7);
					CHECK(strstr(l->file, "/prog.c") != NULL);
				}
			}
			CHECK(found == 1);
		}
		{
			const char *first;

			CHECK(rep_syms_unnamed(s, &first) == 1);
			CHECK(first && !strcmp(first, "/nonexistent/libx.so"));
		}
		rep_model_free(&m);
		rep_syms_close(s);
		strtab_free(&names);
		raw_free(&p);
	}
}

static char *folded_text(const struct rep_folded_set *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);

	rep_folded_write(f, mf);
	fclose(mf);
	return buf;
}

static void test_folded(void)
{
	static const char want[] =
		"[unknown] 6\n"
		"main 2\n"
		"main;[/nonexistent/libx.so+0x1234] 1\n"
		"main;leaf2;[kernel] 4\n"
		"main;outer;inl 7\n"
		"main;rec;rec 3\n"
		"main;rec;rec;leaf2 5\n";
	struct raw_profile p;
	struct strtab names;
	struct rep_syms *s;
	struct rep_folded_set f;
	char *text;

	if (!have_c || c_profile(&p, 1))
		return;
	strtab_init(&names);
	s = rep_syms_open(&p, "t.raw", NULL, 0, REP_OFFSETS, &names);
	CHECK(s && rep_folded_build(s, &f) == 0);
	if (!s)
		return;
	text = folded_text(&f);
	if (strcmp(text, want))
		printf("  folded:\n%s  wanted:\n%s", text, want);
	CHECK(!strcmp(text, want));
	CHECK(f.samples == 28);
	/* As data: names root first. */
	CHECK(f.n == 7 && f.v[4].depth == 3 && !strcmp(f.v[4].names[0], "main") &&
	      !strcmp(f.v[4].names[2], "inl") && f.v[4].count == 7);
	free(text);
	rep_folded_free(&f);
	rep_syms_close(s);
	strtab_free(&names);
	raw_free(&p);
}

/* Without stacks: self from the IP samples (inlined code still inl's),
 * total not known, no folded stacks. */
static void test_no_stacks(void)
{
	struct raw_profile p;
	struct strtab names;
	struct rep_model m;
	struct rep_syms *s;
	struct rep_folded_set f;

	if (!have_c || c_profile(&p, 0))
		return;
	strtab_init(&names);
	s = rep_syms_open(&p, "t.raw", NULL, 0, 0, &names);
	CHECK(s != NULL);
	if (!s)
		return;
	rep_model_init(&m, &names);
	rep_model_add_raw(&m, s);
	CHECK(!m.has_total);
	CHECK(m.samples == 11);
	CHECK(func(&m, "rec") && func(&m, "rec")->self == 3);
	CHECK(func(&m, "inl") && func(&m, "inl")->self == 7);
	CHECK(func(&m, "outer") && func(&m, "outer")->self == 0);
	CHECK(pair(&m, "outer", "inl", 1) == 7);
	CHECK(rep_folded_build(s, &f) == -1);
	rep_model_free(&m);
	rep_syms_close(s);
	strtab_free(&names);
	raw_free(&p);
}

static void test_demangle(void)
{
	char *d = rep_demangle("_ZN2ns4workEi");

	CHECK(d && !strcmp(d, "ns::work(int)"));
	free(d);
	CHECK(rep_demangle("main") == NULL);
	CHECK(rep_demangle("[kernel]") == NULL);
	for (int raw = 0; raw < 2 && have_cxx; raw++) {
		struct raw_profile p;
		struct strtab names;
		struct rep_model m;
		struct rep_syms *s;
		struct prog g;
		const uint8_t *id;
		size_t len;
		uint64_t work;
		uint32_t o;

		if (prog_open(&g, cxxprog)) {
			CHECK(0);
			return;
		}
		id = sym_build_id(g.s, &len);
		work = entry(&g, "_ZN2ns4workEi");
		CHECK(work != UINT64_MAX);
		raw_init(&p);
		o = raw_object(&p, id, (uint32_t)len, cxxprog);
		raw_add_ip(&p.objs[o], work, 9);
		sym_close(g.s);	/* owned id: after raw_object copied it */
		strtab_init(&names);
		s = rep_syms_open(&p, "t.raw", NULL, 0, raw ? REP_NO_DEMANGLE : 0, &names);
		CHECK(s != NULL);
		rep_model_init(&m, &names);
		if (s)
			rep_model_add_raw(&m, s);
		CHECK(m.nfuncs == 1 && m.funcs[0].self == 9);
		CHECK(m.nfuncs == 1 && !strcmp(m.funcs[0].name,
					       raw ? "_ZN2ns4workEi" : "ns::work(int)"));
		rep_model_free(&m);
		rep_syms_close(s);
		strtab_free(&names);
		raw_free(&p);
	}
}

/* An LLVM text profile: its inline instances and call targets. */
static void test_compiler_profile(void)
{
	static const char text[] =
		"main:100:1\n"
		" 1: 10\n"
		" 2: 5 foo:20\n"
		" 3: bar:60\n"
		"  1: 50\n"
		"  2: baz:10\n"
		"   1: 10\n"
		"bar:30:0\n"
		" 1: 30\n"
		"rec:40:1\n"
		" 1: 10\n"
		" 2: rec:30\n"
		"  1: 30\n"
		"_ZN2ns4workEi:8:0\n"
		" 1: 8\n";
	struct fs_profile p;
	struct strtab names;
	struct rep_model m;

	fs_init(&p);
	CHECK(llvm_text_read(&p, text, sizeof(text) - 1, "t.prof") == 0);
	strtab_init(&names);
	rep_model_init(&m, &names);
	rep_model_add_fs(&m, &p, 1);
	CHECK(m.has_total && m.from_fs);
	CHECK(m.samples == 178);
	SELF_TOTAL(&m, "main", 15, 100);
	SELF_TOTAL(&m, "bar", 80, 90);
	SELF_TOTAL(&m, "baz", 10, 10);
	SELF_TOTAL(&m, "rec", 40, 40);
	SELF_TOTAL(&m, "ns::work(int)", 8, 8);
	SELF_TOTAL(&m, "foo", 0, 0);
	CHECK(pair(&m, "main", "foo", 0) == 20);
	CHECK(pair(&m, "main", "bar", 1) == 60);
	CHECK(pair(&m, "bar", "baz", 1) == 10);
	CHECK(pair(&m, "rec", "rec", 1) == 30);
	rep_model_sort_lines(&m);
	CHECK(m.nlines >= 1 && !strcmp(m.lines[0].func, "bar") &&
	      m.lines[0].line == 1 && m.lines[0].count == 80 && !m.lines[0].file);
	rep_model_free(&m);
	strtab_free(&names);
	fs_free(&p);
}

static void stack1(struct rep_model *m, const char *name, uint64_t n)
{
	struct rep_sframe f = { strtab_get(m->names, name), NULL, 0, 0 };

	rep_model_add_stack(m, &f, 1, n);
}

/* Shares of each profile's own samples, sorted by the size of the
 * change. */
static void test_diff(void)
{
	struct strtab names;
	struct rep_model a, b;
	struct rep_diff d;

	strtab_init(&names);
	rep_model_init(&a, &names);
	rep_model_init(&b, &names);
	stack1(&a, "f", 30);
	stack1(&a, "g", 70);
	stack1(&b, "f", 120);
	stack1(&b, "g", 60);
	stack1(&b, "h", 20);
	rep_diff(&a, &b, &d);
	CHECK(d.nfuncs == 3);
	CHECK(d.nfuncs == 3 && !strcmp(d.funcs[0].key, "g") &&
	      !strcmp(d.funcs[1].key, "f") && !strcmp(d.funcs[2].key, "h"));
	CHECK(d.nfuncs == 3 && d.funcs[1].a == 30 && d.funcs[1].b == 120 &&
	      d.funcs[1].share_a == 0.3 && d.funcs[1].share_b == 0.6);
	CHECK(d.nfuncs == 3 && d.funcs[2].share_a == 0 && d.funcs[2].share_b == 0.1);
	rep_diff_free(&d);
	rep_model_free(&a);
	rep_model_free(&b);
	strtab_free(&names);
}
/* A program for the samples without a line: zero's line 3 is made line
 * 0 in its assembly (as compilers write it for code of no one line),
 * nodbg is built without -g. */
static const char nl_main[] =
"__attribute__((noinline)) long zero(long x)\n"
"{\n"
"	x = x * 3 + 1; return x * x;\n"
"}\n"
"long nodbg(long);\n"
"int main(int argc, char **argv) { (void)argv; return (int)(zero(argc) + nodbg(argc)); }\n";
static const char nl_nodbg[] =
"__attribute__((noinline)) long nodbg(long x) { return x * 5 + 2; }\n";

static int build_nl(char *out, size_t size)
{
	char cmd[2048];
	FILE *f;

	snprintf(out, size, "%s/nl.bin", workdir);
	snprintf(cmd, sizeof(cmd), "%s/nl.c", workdir);
	if (!(f = fopen(cmd, "w")))
		return -1;
	fputs(nl_main, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s/nodbg.c", workdir);
	if (!(f = fopen(cmd, "w")))
		return -1;
	fputs(nl_nodbg, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "cd %s && clang-16 -O2 -g -S -o nl.s nl.c && "
		 "sed -i -E 's/^(\t\\.loc\t[01]) 3 /\\1 0 /' nl.s && grep -q -E '^\t\\.loc\t[01] 0 ' nl.s && "
		 "clang-16 -O2 -c -o nodbg.o nodbg.c && "
		 "clang-16 -Wl,--build-id -o nl.bin nl.s nodbg.o >/dev/null 2>&1",
		 workdir);
	return system(cmd) ? -1 : 0;
}

/* The address of symbol name in bin, by nm; 0 if none. */
static uint64_t nm_addr(const char *bin, const char *name)
{
	char cmd[512], line[512], sym[256], type;
	unsigned long long a = 0, v;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm %s", bin);
	if (!(f = popen(cmd, "r")))
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &v, &type, sym) == 3 && !strcmp(sym, name))
			a = v;
	pclose(f);
	return a;
}

/* The first instruction of zero at line 0. */
static void find_line0(uint64_t vaddr, uint32_t len, void *arg)
{
	struct sym_result r;
	uint64_t *found = arg;

	(void)len;
	if (!*found && sym_lookup(inl_prog->s, vaddr, &r) == SYM_OK &&
	    r.frames[r.nframes - 1].line == 0)
		*found = vaddr;
}

/* Samples without a line, by reason and function (issue 31, item 6):
 * 4 in the kernel, 5 at zero's line 0, 3 in nodbg (no debug info), 2 in
 * no mapping, 1 in an object without a binary; 7 with a line. */
static void test_no_line_reasons(void)
{
	char bin[300];
	struct prog g;
	struct raw_profile p;
	struct strtab names;
	struct rep_model m;
	struct rep_syms *s;
	const uint8_t *bid;
	uint8_t id[RAW_BUILD_ID_MAX];
	size_t len = 0;
	uint64_t v0 = 0, l0, nod, mn;
	uint32_t o, x;

	if (build_nl(bin, sizeof(bin)) || prog_open(&g, bin)) {
		printf("SKIP test_no_line_reasons: clang-16 could not build the program\n");
		return;
	}
	inl_prog = &g;
	sym_function_insns(g.s, sym_function_by_name(g.s, "zero"), find_line0, &v0);
	bid = sym_build_id(g.s, &len);
	CHECK(bid && len <= sizeof(id) && v0);
	if (bid && len <= sizeof(id))
		memcpy(id, bid, len);
	CHECK(!vaddr_to_offset(g.segs, g.nseg, v0, &l0));
	/* nodbg has no DWARF: its address from the symbol table */
	CHECK(entry(&g, "nodbg") == UINT64_MAX);
	CHECK(!vaddr_to_offset(g.segs, g.nseg, nm_addr(bin, "nodbg"), &nod));
	mn = entry(&g, "main");
	sym_close(g.s);
	raw_init(&p);
	raw_object(&p, id, (uint32_t)len, bin);
	raw_object(&p, (const uint8_t *)"\x01\x02\x03\x04\x05\x06\x07\x08", 8,
		   "/nonexistent/libx.so");
	o = raw_find_object(&p, id, (uint32_t)len);
	x = raw_find_object(&p, (const uint8_t *)"\x01\x02\x03\x04\x05\x06\x07\x08", 8);
	add(&p, 4, 2, RAW_FRAME_KERNEL, (uint64_t)0, o, mn + 1);
	add(&p, 5, 2, o, l0, o, mn + 1);
	add(&p, 3, 2, o, nod, o, mn + 1);
	add(&p, 2, 1, RAW_FRAME_UNKNOWN, (uint64_t)0);
	add(&p, 1, 2, x, (uint64_t)0x1234, o, mn + 1);
	add(&p, 7, 1, o, mn);
	strtab_init(&names);
	s = rep_syms_open(&p, "nl.raw", NULL, 0, 0, &names);
	CHECK(s != NULL);
	if (s) {
		rep_model_init(&m, &names);
		rep_model_add_raw(&m, s);
		CHECK(m.samples == 22 && m.no_line == 15);
		CHECK(m.no_line_by[REP_NOLINE_KERNEL] == 4);
		CHECK(m.no_line_by[REP_NOLINE_LINE0] == 5);
		CHECK(m.no_line_by[REP_NOLINE_NO_DEBUG] == 3);
		CHECK(m.no_line_by[REP_NOLINE_UNKNOWN] == 2);
		CHECK(m.no_line_by[REP_NOLINE_NO_BINARY] == 1);
		rep_model_sort_nolines(&m);
		for (size_t i = 0; i < m.nnolines; i++) {
			const struct rep_noline_ent *e = &m.nolines[i];

			if (e->why == REP_NOLINE_LINE0)
				CHECK(!strcmp(e->func, "zero") && e->count == 5);
			if (e->why == REP_NOLINE_NO_DEBUG)
				CHECK(!strcmp(e->func, "nodbg") && e->count == 3);
		}
		rep_model_free(&m);
		rep_syms_close(s);
	}
	strtab_free(&names);
	raw_free(&p);
}

/* The c program compiled in workdir as "sub/prog.c": line 3 at outer's
 * entry, line 2 in the code of inl inlined there, in the file
 * WORKDIR/sub/prog.c; no line at address 0 or past the code. */
static void test_source_line(void)
{
	char src[300], bin[300], cmd[1024], want[320];
	struct prog g;
	uint32_t line = 99;
	const char *file;
	FILE *f;

	snprintf(src, sizeof(src), "%s/sub/prog.c", workdir);
	snprintf(bin, sizeof(bin), "%s/sub.bin", workdir);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/sub", workdir);
	if (system(cmd) || !(f = fopen(src, "w"))) {
		CHECK(!"cannot write sub/prog.c");
		return;
	}
	fputs(c_source, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cd %s && clang-16 -O2 -g -o sub.bin sub/prog.c >/dev/null 2>&1",
		 workdir);
	if (system(cmd) || prog_open(&g, bin)) {
		CHECK(!"cannot build or open sub.bin");
		return;
	}
	snprintf(want, sizeof(want), "%s/sub/prog.c", workdir);
	file = sym_source_line(g.s, sym_function_entry(g.s, sym_function_by_name(g.s, "outer")), &line);
	CHECK(file && !strcmp(file, want) && line == 3);
	CHECK(inl_offset(&g) != UINT64_MAX);
	file = sym_source_line(g.s, inl_vaddr, &line);
	CHECK(file && !strcmp(file, want) && line == 2);
	line = 99;
	CHECK(!sym_source_line(g.s, 0, &line) && line == 99);
	CHECK(!sym_source_line(g.s, UINT64_MAX - 1, &line) && line == 99);
	sym_close(g.s);
}

int main(void)
{
	char cmd[400];

	progname = "test_report";
	if (!mkdtemp(workdir)) {
		perror("mkdtemp");
		return 1;
	}
	have_c = !build("clang-16", c_source, ".c", cprog);
	have_cxx = !build("g++", cxx_source, ".cc", cxxprog);
	if (have_c) {
		RUN(test_stacks_model);
		RUN(test_folded);
		RUN(test_no_stacks);
		RUN(test_source_line);
	} else {
		printf("SKIP test_stacks_model, test_folded, test_no_stacks: clang-16 could not build the test program\n");
	}
	if (!have_cxx)
		printf("SKIP test_demangle of a binary: g++ could not build the test program\n");
	RUN(test_no_line_reasons);
	RUN(test_demangle);
	RUN(test_compiler_profile);
	RUN(test_diff);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", workdir);
	if (system(cmd))
		return 1;
	return tests_failed != 0;
}
