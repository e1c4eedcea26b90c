/* SPDX-License-Identifier: GPL-2.0-only */
/* Branch records -> function-sample tree (convert/lbr.c), checked against
 * llvm-profgen-16 on the same samples.
 *
 * There is no PMU with a branch stack on the test machines, so the samples
 * are synthesized (synth/walk.c): a random walk over the machine
 * code of a clang-16 binary (capstone decodes each instruction once;
 * conditional branches are taken at random, loops mostly; calls push a
 * shadow stack that returns pop; indirect calls and jumps pick a function
 * or an instruction of the same function; calls through the PLT go to a
 * pretend libc that sometimes calls back into the binary).  Every 1 to 48
 * taken branches the last 32 are a sample, written both as `perf script
 * -F ip,brstack` text (with a PERF_RECORD_MMAP2 line) for llvm-profgen and
 * into a raw profile (raw_add_range / raw_add_branch, file offsets) for
 * lbr_add.  The paths are consistent (each range is code that can run
 * straight), which is all either converter relies on.
 *
 * Hooks (tests/integration/lbr_profgen.sh, timing):
 *   test_lbr --gen BINARY SAMPLES SEED OUTDIR   write OUTDIR/perf.txt and
 *                                               OUTDIR/lbr.raw
 *   test_lbr --convert BINARY RAW OUT.txt       lbr_add -> LLVM text, with
 *                                               the time it took on stderr
 * Set LBR_KEEP=1 to keep the work directory (printed). */
#include "check.h"
#include "testutil.h"
#include "../../convert/fstree.h"
#include "../../convert/lbr.h"
#include "../../convert/llvm_text.h"
#include "../../convert/symbolize.h"
#include "../../lib/util.h"
#include "../../raw/rawprof.h"
#include "../../synth/walk.h"

#include <capstone/capstone.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CLANG "clang-16"
#define PROFGEN "/usr/lib/llvm-16/bin/llvm-profgen"
#define CFLAGS "-O2 -g -fdebug-info-for-profiling"

static char workdir[] = "/tmp/test_lbr.XXXXXX";
static int have_tools;
static char topdir[4096];

/* The test program: loops (one vectorized and unrolled: duplication
 * factors), a switch (a jump table), an inlined helper, indirect calls
 * through a table of function pointers, calls into libc (qsort calls back
 * cmp), and a large constant table (for a range longer than 64 KiB). */
static const char prog_c[] =
"#include <stdio.h>\n"
"#include <stdlib.h>\n"
"#include <string.h>\n"
"\n"
"static inline int mix(int a, int b)\n"
"{\n"
"\tint r = a * 31 + b;\n"
"\tif (r & 1)\n"
"\t\tr ^= 0x5bd1e995;\n"
"\treturn r;\n"
"}\n"
"\n"
"__attribute__((noinline)) int op_add(int a, int b) { return a + b; }\n"
"__attribute__((noinline)) int op_mul(int a, int b) { return a * b + 1; }\n"
"__attribute__((noinline)) int op_xor(int a, int b) { return (a ^ b) - 3; }\n"
"\n"
"int (*ops[3])(int, int) = { op_add, op_mul, op_xor };\n"
"const unsigned char table[80000] = { 1, 2, 3 };\n"
"\n"
"__attribute__((noinline)) int classify(int x)\n"
"{\n"
"\tswitch (x % 7) {\n"
"\tcase 0: return 11;\n"
"\tcase 1: return x * 3;\n"
"\tcase 2: return x - 5;\n"
"\tcase 3: return mix(x, 2);\n"
"\tcase 5: return 42 + table[x % 80000];\n"
"\tdefault: return -x;\n"
"\t}\n"
"}\n"
"\n"
"__attribute__((noinline)) long sum(const int *v, int n)\n"
"{\n"
"\tlong s = 0;\n"
"\tfor (int i = 0; i < n; i++)\n"
"\t\ts += v[i] * 3 + (v[i] >> 2);\n"
"\treturn s;\n"
"}\n"
"\n"
"static int cmp(const void *a, const void *b)\n"
"{\n"
"\treturn *(const int *)a - *(const int *)b;\n"
"}\n"
"\n"
"__attribute__((noinline)) int walk(int *v, int n, int k)\n"
"{\n"
"\tint acc = 0;\n"
"\tfor (int i = 0; i < n; i++) {\n"
"\t\tif (v[i] > k)\n"
"\t\t\tacc += mix(v[i], i);\n"
"\t\telse\n"
"\t\t\tacc -= ops[i % 3](v[i], k);\n"
"\t}\n"
"\treturn acc;\n"
"}\n"
"\n"
"int main(int argc, char **argv)\n"
"{\n"
"\tint v[64];\n"
"\tlong acc = 0;\n"
"\tint n = argc > 1 ? atoi(argv[1]) : 1000;\n"
"\n"
"\tfor (int i = 0; i < 64; i++)\n"
"\t\tv[i] = mix(i, n);\n"
"\tfor (int k = 0; k < n; k++) {\n"
"\t\tacc += classify(k);\n"
"\t\tacc += ops[k % 3](k, (int)acc);\n"
"\t\tacc += sum(v, 64);\n"
"\t\tacc += walk(v, 64, k);\n"
"\t}\n"
"\tqsort(v, 64, sizeof(v[0]), cmp);\n"
"\tprintf(\"%ld %d %zu\\n\", acc, v[0], strlen(argv[0]));\n"
"\treturn 0;\n"
"}\n";

/* ---- helpers ---- */

static char *path(const char *name)
{
	return test_path(workdir, name);
}

#define run test_run

static char *slurp(const char *file, size_t *len)
{
	*len = 0;
	return (char *)read_whole_file(file, len);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the samples of a walk (synth/walk.c) ---- */

#define LBR_N WALK_LBR
#define EXT_ID WALK_EXT_ID

struct gen {
	const struct elfinfo *ei;
	FILE *script;
	struct raw_profile *raw;
	uint32_t obj, ext_obj;
	uint64_t samples;
};

/* The raw profile's (object, file offset) of a runtime address. */
static int where(struct gen *g, uint64_t a, uint64_t *off)
{
	if (a >= WALK_EXT) {
		*off = a - WALK_EXT;
		return (int)g->ext_obj;
	}
	*off = a - WALK_BASE - g->ei->seg_vaddr + g->ei->seg_off;
	return (int)g->obj;
}

/* A sample as perf-script text and into the raw profile. */
static void gen_sample(void *arg, uint64_t ip, const uint64_t *from,
		       const uint64_t *to)
{
	struct gen *g = arg;

	fprintf(g->script, "%" PRIx64, ip);
	for (int i = 0; i < LBR_N; i++)
		fprintf(g->script, " 0x%" PRIx64 "/0x%" PRIx64 "/P/-/-/0",
			from[i], to[i]);
	fputc('\n', g->script);
	for (int i = 0; i < LBR_N; i++) {
		uint64_t f, t, e;
		int of = where(g, from[i], &f), ot = where(g, to[i], &t);

		raw_add_branch(&g->raw->objs[of], f, (uint32_t)ot, t, 1);
		/* The range from this branch's target to the next (newer)
		 * branch, when both ends are in one object. */
		if (i > 0 && where(g, from[i - 1], &e) == ot)
			raw_add_range(&g->raw->objs[ot], t, e, 1);
	}
	if (++g->samples % 4096 == 0) {
		/* Keep memory bounded; objects are sorted by build-ID. */
		raw_normalize(g->raw);
		g->obj = (uint32_t)raw_find_object(g->raw, g->ei->build_id,
						   (uint32_t)g->ei->build_id_len);
		g->ext_obj = (uint32_t)raw_find_object(g->raw, EXT_ID, WALK_EXT_ID_LEN);
	}
}

/* SAMPLES samples of a walk over binary: perf script text in script_path
 * and the same samples in raw (empty; two objects: the binary and a
 * pretend libc). */
static int generate(const char *binary, uint64_t samples, uint64_t seed,
		    const char *script_path, struct raw_profile *raw)
{
	struct walker *w = walk_open(binary, seed);
	struct gen g = { 0 };
	char real[4096];
	int rc;

	if (!w)
		return -1;
	g.ei = walk_elf(w);
	if (!realpath(binary, real))
		snprintf(real, sizeof(real), "%s", binary);
	g.raw = raw;
	g.obj = raw_object(raw, g.ei->build_id, (uint32_t)g.ei->build_id_len, real);
	g.ext_obj = raw_object(raw, EXT_ID, WALK_EXT_ID_LEN, WALK_EXT_PATH);
	g.script = fopen(script_path, "w");
	if (!g.script) {
		walk_close(w);
		return -1;
	}
	fprintf(g.script,
		"prog 4242 [000] 1.000000: PERF_RECORD_MMAP2 4242/4242: [0x%" PRIx64 "(0x%" PRIx64 ") @ 0x%" PRIx64 " 08:01 1234 0]: r-xp %s\n",
		(uint64_t)(WALK_BASE + (g.ei->seg_vaddr & ~(uint64_t)0xfff)),
		(uint64_t)((g.ei->seg_size + (g.ei->seg_vaddr & 0xfff) + 0xfff) & ~(uint64_t)0xfff),
		(uint64_t)(g.ei->seg_off & ~(uint64_t)0xfff), real);
	walk_run(w, samples, gen_sample, &g);
	rc = fclose(g.script) ? -1 : 0;
	raw_normalize(raw);
	walk_close(w);
	return rc;
}

/* ---- lbr_add, and the comparison ---- */

/* The pretend libc's functions, by file offset: "ext_OFFSET". */
static const char *ext_callee(void *arg, uint32_t obj, uint64_t off)
{
	static char name[8][32];
	static int k;
	char *n = name[k++ % 8];

	(void)arg;
	(void)obj;
	if (off < 0x100000)
		return NULL;	/* not a function's start */
	snprintf(n, sizeof(name[0]), "ext_%" PRIx64, off);
	return n;
}

/* lbr_add over raw's object of binary: the text profile (malloc'd). */
static char *convert(const char *binary, const struct raw_profile *raw,
		     lbr_callee_fn callee, struct lbr_stats *st, double *secs)
{
	struct symbolizer *s = sym_open(binary, NULL, 1);
	struct fs_profile p;
	const uint8_t *id;
	size_t len;
	char *text = NULL;
	int obj;
	double t0;

	if (!s)
		return NULL;
	id = sym_build_id(s, &len);
	obj = raw_find_object(raw, id, (uint32_t)len);
	fs_init(&p);
	t0 = now();
	if (!lbr_add(&p, s, raw, obj, callee, NULL, st, 0)) {
		fs_finish(&p);
		if (secs)
			*secs = now() - t0;
		text = profile_text(&p);
	}
	fs_free(&p);
	sym_close(s);
	return text;
}

static size_t split_lines(char *text, char ***lines)
{
	size_t n = 0, cap = 0;

	*lines = NULL;
	for (char *p = text, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		grow(lines, &cap, n + 1, sizeof(**lines));
		(*lines)[n++] = p;
		if (!nl)
			break;
		*nl = 0;
	}
	return n;
}

/* Compare the two texts line by line: the number of differing lines (the
 * first few printed); *explained of them are call sites where pgoprof has
 * call targets into the pretend libc that llvm-profgen cannot see. */
static size_t compare(char *ours, char *ref, size_t *nfuncs, size_t *nlines,
		      size_t *explained)
{
	char **a, **b;
	size_t na = split_lines(ours, &a), nb = split_lines(ref, &b), diff = 0;

	*nfuncs = 0;
	*nlines = nb;
	*explained = 0;
	for (size_t i = 0; i < nb; i++)
		*nfuncs += b[i][0] != ' ';
	for (size_t i = 0; i < (na > nb ? na : nb); i++) {
		const char *x = i < na ? a[i] : "(none)", *y = i < nb ? b[i] : "(none)";

		if (!strcmp(x, y))
			continue;
		diff++;
		if (na == nb && strstr(x, " ext_") && !strstr(y, " ext_") &&
		    !strncmp(x, y, (size_t)(strchr(y, ':') - y))) {
			++*explained;
			continue;
		}
		if (diff - *explained <= 8)
			printf("  line %zu: pgoprof '%s' llvm-profgen '%s'\n", i + 1, x, y);
	}
	free(a);
	free(b);
	return diff;
}

struct agreement {
	size_t funcs, lines, diff, explained;
	double t_ours, t_ref;
	struct lbr_stats st;
};

/* SAMPLES samples over binary, converted by both; with_ext: name the calls
 * into the pretend libc. */
static void agree_run(const char *binary, uint64_t samples, uint64_t seed,
		      const char *tag, int with_ext, struct agreement *ag)
{
	struct raw_profile raw;
	char script[700], ref[700], *ours, *theirs;
	size_t len;
	double t0;

	memset(ag, 0, sizeof(*ag));
	snprintf(script, sizeof(script), "%s.perf.txt", path(tag));
	snprintf(ref, sizeof(ref), "%s.profgen.txt", path(tag));
	raw_init(&raw);
	CHECK(generate(binary, samples, seed, script, &raw) == 0);
	ours = convert(binary, &raw, with_ext ? ext_callee : NULL, &ag->st, &ag->t_ours);
	CHECK(ours != NULL);
	t0 = now();
	CHECK(run(PROFGEN " --binary %s --perfscript %s --output %s --format=text 2>%s.err",
		  binary, script, ref, ref) == 0);
	ag->t_ref = now() - t0;
	theirs = slurp(ref, &len);
	CHECK(theirs != NULL);
	if (ours && theirs) {
		FILE *f = fopen(path(with_ext ? "ext.pgoprof.txt" : "last.pgoprof.txt"), "w");

		if (f) {
			fputs(ours, f);
			fclose(f);
		}
		ag->diff = compare(ours, theirs, &ag->funcs, &ag->lines, &ag->explained);
		printf("  %s: %" PRIu64 " samples; llvm-profgen: %zu functions, %zu lines; %zu lines differ (%zu: call targets in libc); ranges used %" PRIu64 " of %" PRIu64 "; lbr_add %.3f s, llvm-profgen %.3f s\n",
		       tag, samples, ag->funcs, ag->lines, ag->diff, ag->explained,
		       ag->st.range_samples, ag->st.ranges, ag->t_ours, ag->t_ref);
	}
	free(ours);
	free(theirs);
	raw_free(&raw);
}

static int build_prog(void)
{
	FILE *f = fopen(path("prog.c"), "w");

	if (!f)
		return -1;
	fputs(prog_c, f);
	fclose(f);
	return run(CLANG " " CFLAGS " -o %s %s", path("prog"), path("prog.c"));
}

/* ---- the tests ---- */

static void test_canonical_name(void)
{
	char buf[64];

	CHECK(!strcmp(lbr_canonical_name("foo", buf, sizeof(buf)), "foo"));
	CHECK(!strcmp(lbr_canonical_name("foo.llvm.123", buf, sizeof(buf)), "foo"));
	CHECK(!strcmp(lbr_canonical_name("foo.part.0", buf, sizeof(buf)), "foo"));
	CHECK(!strcmp(lbr_canonical_name("foo.part.0.llvm.7", buf, sizeof(buf)), "foo"));
	CHECK(!strcmp(lbr_canonical_name("foo.cold", buf, sizeof(buf)), "foo.cold"));
	CHECK(!strcmp(lbr_canonical_name("foo.llvm.1.cold", buf, sizeof(buf)), "foo.llvm.1.cold"));
	CHECK(!strcmp(lbr_canonical_name("foo.__uniq.12", buf, sizeof(buf)), "foo.__uniq.12"));
}

/* The test program, exactly as llvm-profgen-16 converts the same samples. */
static void test_agree_prog(void)
{
	struct agreement ag;

	agree_run(path("prog"), 3000, 1, "prog", 0, &ag);
	CHECK(ag.funcs >= 8);
	CHECK(ag.diff == 0);
	/* Every kind of branch was there. */
	CHECK(ag.st.calls > 0 && ag.st.returns > 0 && ag.st.other > 0);
	CHECK(ag.st.calls_in > 0);	/* the pretend qsort calls cmp */
	CHECK(ag.st.range_samples > ag.st.ranges / 2);
}

/* With callee names for calls into libc (through the PLT), pgoprof adds
 * their call targets, which llvm-profgen cannot see (its branch targets
 * outside the binary are dropped): the only lines that differ. */
static void test_agree_prog_ext(void)
{
	struct agreement ag;

	agree_run(path("prog"), 3000, 1, "prog_ext", 1, &ag);
	CHECK(ag.funcs >= 8);
	CHECK(ag.explained > 0);
	CHECK(ag.diff == ag.explained);
	CHECK(ag.st.calls_out > 0);
}

/* A bigger binary: pgoprof itself built by clang-16, walked from every
 * function (deeper inlining, C library calls, many jump tables). */
static void test_agree_big(void)
{
	struct agreement ag;

	FILE *m = fopen(path("stub.c"), "w");

	if (!m)
		return;
	fputs("int main(void) { return 0; }\n", m);
	fclose(m);
	/* Only the converter's sources (other parts may be half-written);
	 * their references to the rest stay unresolved: the walk does not
	 * run the code. */
	if (run("cd %s && " CLANG " " CFLAGS " -std=c11 -D_GNU_SOURCE -I%s/build -o %s "
		"convert/*.c raw/*.c lib/*.c %s -Wl,--unresolved-symbols=ignore-all "
		"-ldw -lelf -lcapstone -lz", topdir, topdir, path("big"), path("stub.c"))) {
		CHECK(!"clang-16 builds pgoprof's converter");
		return;
	}
	agree_run(path("big"), 20000, 2, "big", 0, &ag);
	CHECK(ag.funcs >= 50);
	CHECK(ag.diff == 0);
}

/* ---- hand-made branch records ---- */

/* The kind of the instruction at a: 'c'all, 'r'eturn, 'j'ump, 'b'ranch
 * (conditional), 0; *len its length, *target a direct target. */
static int kind_at(csh cs, const struct elfinfo *ei, uint64_t a, uint32_t *len,
		   uint64_t *target)
{
	const uint8_t *code = ei->img + (a - ei->seg_vaddr + ei->seg_off);
	size_t size = 16;
	cs_insn *insn = cs_malloc(cs);
	int k = 0;

	*len = 0;
	*target = 0;
	if (cs_disasm_iter(cs, &code, &size, &a, insn)) {
		const cs_x86 *x = &insn->detail->x86;

		*len = insn->size;
		if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM)
			*target = (uint64_t)x->operands[0].imm;
		k = cs_insn_group(cs, insn, CS_GRP_CALL) ? 'c'
		  : cs_insn_group(cs, insn, CS_GRP_RET) ? 'r'
		  : insn->id == X86_INS_JMP ? 'j'
		  : cs_insn_group(cs, insn, CS_GRP_JUMP) ? 'b' : 0;
	}
	cs_free(insn, 1);
	return k;
}

/* The first instruction of kind k in function f (at or after index from). */
static size_t find_kind(csh cs, const struct elfinfo *ei, const uint64_t *insns,
			size_t n, size_t from, int k)
{
	uint32_t len;
	uint64_t t;

	for (size_t i = from; i < n; i++)
		if (kind_at(cs, ei, insns[i], &len, &t) == k)
			return i;
	return n;
}

struct fixture {
	struct elfinfo ei;
	csh cs;
	struct symbolizer *sym;
	const struct load_seg *segs;
	int nsegs;
	struct raw_profile raw;
	uint32_t obj, ext;
	const struct fsym *sum, *main_, *classify, *op_add, *op_mul, *cmp;
	uint64_t *sumi, *maini, *addi, *muli, *classifyi;
	size_t nsum, nmain, nadd, nmul, nclassify;
};

static uint64_t off_of(struct fixture *fx, uint64_t vaddr)
{
	uint64_t off = UINT64_MAX;

	vaddr_to_offset(fx->segs, fx->nsegs, vaddr, &off);
	return off;
}

static int fixture_open(struct fixture *fx)
{
	memset(fx, 0, sizeof(*fx));
	if (elf_info(path("prog"), &fx->ei) || !(fx->sym = sym_open(path("prog"), NULL, 1)))
		return -1;
	fx->segs = sym_segments(fx->sym, &fx->nsegs);
	cs_open(CS_ARCH_X86, CS_MODE_64, &fx->cs);
	cs_option(fx->cs, CS_OPT_DETAIL, CS_OPT_ON);
	fx->sum = sym_named(&fx->ei, "sum");
	fx->main_ = sym_named(&fx->ei, "main");
	fx->classify = sym_named(&fx->ei, "classify");
	fx->op_add = sym_named(&fx->ei, "op_add");
	fx->op_mul = sym_named(&fx->ei, "op_mul");
	fx->cmp = sym_named(&fx->ei, "cmp");
	if (!fx->sum || !fx->main_ || !fx->classify || !fx->op_add || !fx->op_mul || !fx->cmp)
		return -1;
	fx->nsum = insns_of(fx->cs, &fx->ei, fx->sum, &fx->sumi);
	fx->nmain = insns_of(fx->cs, &fx->ei, fx->main_, &fx->maini);
	fx->nadd = insns_of(fx->cs, &fx->ei, fx->op_add, &fx->addi);
	fx->nmul = insns_of(fx->cs, &fx->ei, fx->op_mul, &fx->muli);
	fx->nclassify = insns_of(fx->cs, &fx->ei, fx->classify, &fx->classifyi);
	raw_init(&fx->raw);
	fx->obj = raw_object(&fx->raw, fx->ei.build_id, (uint32_t)fx->ei.build_id_len, "prog");
	fx->ext = raw_object(&fx->raw, (const uint8_t *)"\xee\xee\xee\xee", 4, "/pretend/libc.so.6");
	return 0;
}

static void fixture_close(struct fixture *fx)
{
	free(fx->sumi);
	free(fx->maini);
	free(fx->addi);
	free(fx->muli);
	free(fx->classifyi);
	raw_free(&fx->raw);
	sym_close(fx->sym);
	cs_close(&fx->cs);
	elf_info_free(&fx->ei);
}

static struct fsamples *find_function(struct fs_profile *p, const char *name)
{
	for (size_t i = 0; i < p->nfuncs; i++)
		if (!strcmp(p->funcs[i]->name, name))
			return p->funcs[i];
	return NULL;
}

static uint64_t target_count(const struct fsamples *f, const char *callee)
{
	uint64_t n = 0;

	for (size_t i = 0; i < f->nbody; i++)
		for (size_t j = 0; j < f->body[i].ntargets; j++)
			if (!strcmp(f->body[i].targets[j].name, callee))
				n += f->body[i].targets[j].count;
	for (size_t i = 0; i < f->ncs; i++)	/* (atoi is inlined) */
		n += target_count(f->cs[i].callee, callee);
	return n;
}

/* Each reason to drop a range, with its own count. */
static void test_drops(void)
{
	struct fixture fx;
	struct raw_object *o;
	struct fs_profile p;
	struct lbr_stats st = { 0 };
	struct fsamples *f;
	size_t jcc, call;
	uint64_t plt, len_jcc, far;
	uint32_t len;
	uint64_t t;

	if (fixture_open(&fx)) {
		CHECK(!"test program");
		return;
	}
	o = &fx.raw.objs[fx.obj];
	jcc = find_kind(fx.cs, &fx.ei, fx.sumi, fx.nsum, 0, 'b');
	call = find_kind(fx.cs, &fx.ei, fx.maini, fx.nmain, 0, 'c');
	CHECK(jcc < fx.nsum && call + 1 < fx.nmain && fx.nadd > 1 && fx.nsum > 3);
	CHECK(fx.sumi[1] - fx.sumi[0] > 1);
	kind_at(fx.cs, &fx.ei, fx.sumi[jcc], &len, &t);
	len_jcc = len;
	plt = fx.ei.plt[1][0] ? fx.ei.plt[1][0] : fx.ei.plt[0][0] + 16;
	far = fx.sum->addr + 70000;	/* in the constant table */
	CHECK(off_of(&fx, far) != UINT64_MAX);

	raw_add_range(o, off_of(&fx, fx.sumi[0]), off_of(&fx, fx.sumi[jcc]), 1000);
	raw_add_range(o, off_of(&fx, fx.sumi[0]), 0x7ffffff0, 1);
	raw_add_range(o, off_of(&fx, fx.sumi[3]), off_of(&fx, fx.sumi[1]), 2);
	raw_add_range(o, off_of(&fx, fx.sumi[0]), off_of(&fx, far), 4);
	raw_add_range(o, off_of(&fx, plt), off_of(&fx, plt), 8);
	raw_add_range(o, off_of(&fx, fx.addi[fx.nadd - 1]), off_of(&fx, fx.muli[0]), 16);
	raw_add_range(o, off_of(&fx, fx.sumi[0] + 1), off_of(&fx, fx.sumi[2]), 32);
	raw_add_range(o, off_of(&fx, fx.sumi[0]), off_of(&fx, fx.sumi[1] + 1), 128);
	raw_add_range(o, off_of(&fx, fx.maini[0]), off_of(&fx, fx.maini[call + 1]), 64);
	fs_init(&p);
	CHECK(lbr_add(&p, fx.sym, &fx.raw, (int)fx.obj, NULL, NULL, &st, 0) == 0);
	CHECK(lbr_add(&p, fx.sym, &fx.raw, 7, NULL, NULL, &st, 0) == -1);
	fs_finish(&p);
	CHECK(st.ranges == 1000 + 1 + 2 + 4 + 8 + 16 + 32 + 128 + 64);
	CHECK(st.range_samples == 1000);
	CHECK(st.dropped[LBR_DROP_NO_SEGMENT] == 1);
	CHECK(st.dropped[LBR_DROP_BACKWARDS] == 2);
	CHECK(st.dropped[LBR_DROP_TOO_LONG] == 4);
	CHECK(st.dropped[LBR_DROP_NO_FUNCTION] == 8);
	CHECK(st.dropped[LBR_DROP_CROSS_FUNCTION] == 16);
	CHECK(st.dropped[LBR_DROP_NOT_INSN] == 32 + 128);
	CHECK(st.dropped[LBR_DROP_CROSS_BRANCH] == 64);
	CHECK(st.functions == 1 && st.insns == fx.nsum);
	/* Only sum has counts: TOTAL is count x bytes; the entry's line
	 * 1000; all its lines are there, the others with 0. */
	CHECK(p.nfuncs == 1);
	f = find_function(&p, "sum");
	CHECK(f && f->total == 1000 * (fx.sumi[jcc] + len_jcc - fx.sumi[0]));
	CHECK(f && f->nbody >= 3 && f->head == 0);
	if (f) {
		uint64_t max = 0, zeros = 0;

		for (size_t i = 0; i < f->nbody; i++) {
			max = f->body[i].count > max ? f->body[i].count : max;
			zeros += !f->body[i].count;
		}
		CHECK(max == 1000 && zeros > 0);
	}
	fs_free(&p);
	fixture_close(&fx);
}

/* Calls, returns, jumps, calls into libc through the PLT, calls from
 * libc, and a branch from outside the binary's segments. */
static void test_branches(void)
{
	struct fixture fx;
	struct raw_object *o;
	struct fs_profile p;
	struct lbr_stats st = { 0 }, st2 = { 0 };
	struct fsamples *f;
	size_t i, jcc, ret;
	uint64_t call_classify = 0, call_plt = 0, plt = 0, stub_jmp = 0, t, jcc_to;
	uint32_t len, len_classify = 0;

	if (fixture_open(&fx)) {
		CHECK(!"test program");
		return;
	}
	o = &fx.raw.objs[fx.obj];
	for (i = 0; i < fx.nmain; i++) {
		if (kind_at(fx.cs, &fx.ei, fx.maini[i], &len, &t) != 'c')
			continue;
		if (t == fx.classify->addr) {
			call_classify = fx.maini[i];
			len_classify = len;
		}
		if (in_plt(&fx.ei, t) && !call_plt) {
			call_plt = fx.maini[i];
			plt = t;
		}
	}
	CHECK(call_classify && call_plt);
	for (i = 0; plt && i < 4 && !stub_jmp; i++) {	/* the stub's jump */
		uint64_t a = plt;

		for (int k = 0; k < 4 && !stub_jmp; k++) {
			int kind = kind_at(fx.cs, &fx.ei, a, &len, &t);

			if (kind == 'j' || kind == 'b')
				stub_jmp = a;
			a += len ? len : 1;
		}
	}
	CHECK(stub_jmp != 0);
	ret = find_kind(fx.cs, &fx.ei, fx.classifyi, fx.nclassify, 0, 'r');
	jcc = find_kind(fx.cs, &fx.ei, fx.sumi, fx.nsum, 0, 'b');
	CHECK(ret < fx.nclassify && jcc < fx.nsum);
	kind_at(fx.cs, &fx.ei, fx.sumi[jcc], &len, &jcc_to);

	raw_add_branch(o, off_of(&fx, call_classify), fx.obj, off_of(&fx, fx.classify->addr), 5);
	raw_add_branch(o, off_of(&fx, fx.classifyi[ret]), fx.obj,
		       off_of(&fx, call_classify + len_classify), 3);
	raw_add_branch(o, off_of(&fx, fx.sumi[jcc]), fx.obj, off_of(&fx, jcc_to), 7);
	raw_add_branch(o, off_of(&fx, call_plt), fx.obj, off_of(&fx, plt), 11);
	raw_add_branch(o, off_of(&fx, stub_jmp), fx.ext, 0x100040, 11);
	raw_add_branch(o, 0x7ffffff0, fx.obj, off_of(&fx, fx.sum->addr), 17);
	raw_add_branch(&fx.raw.objs[fx.ext], 0x500, fx.obj, off_of(&fx, fx.cmp->addr), 13);
	raw_add_branch(&fx.raw.objs[fx.ext], 0x600, fx.obj, off_of(&fx, fx.sumi[1]), 19);

	fs_init(&p);
	CHECK(lbr_add(&p, fx.sym, &fx.raw, (int)fx.obj, ext_callee, NULL, &st, 0) == 0);
	fs_finish(&p);
	CHECK(st.branches == 5 + 3 + 7 + 11 + 11 + 17);
	CHECK(st.calls == 5);
	CHECK(st.returns == 3);
	CHECK(st.calls_out == 11);
	CHECK(st.other == 7 + 11);	/* the jcc; the stub's own jump */
	CHECK(st.branches_dropped == 17);
	CHECK(st.calls_in == 13);
	CHECK(st.calls_unlocated == 0);
	CHECK(st.ranges == 0 && st.insns == 0);
	f = find_function(&p, "classify");
	CHECK(f && f->head == 5 && f->total == 0);
	f = find_function(&p, "cmp");
	CHECK(f && f->head == 13 && f->total == 0);
	f = find_function(&p, "main");
	CHECK(f && f->head == 0 && target_count(f, "classify") == 5 &&
	      target_count(f, "ext_100040") == 11);

	/* A call site's body count is at least its calls (no ranges here). */
	if (f)
		for (size_t k = 0; k < f->nbody; k++)
			CHECK(f->body[k].count >= 5);
	/* ... but not in an inlined callsite (atoi's call of strtol), as
	 * llvm-profgen 16. */
	if (f && f->ncs)
		CHECK(f->cs[0].callee->nbody && f->cs[0].callee->body[0].count == 0);
	fs_free(&p);

	/* Function starts, for the callback: DWARF, else the symbol table. */
	CHECK(sym_starts_function(fx.sym, fx.classify->addr) == 1);
	CHECK(sym_starts_function(fx.sym, fx.classifyi[1]) == 0);
	CHECK(sym_starts_function(fx.sym, plt) == 0);
	if (run("objcopy --strip-debug %s %s", path("prog"), path("prog.nodebug")) == 0) {
		struct symbolizer *nd = sym_open(path("prog.nodebug"), NULL, 0);

		CHECK(nd != NULL);
		if (nd) {
			CHECK(sym_starts_function(nd, fx.classify->addr) == 1);
			CHECK(sym_starts_function(nd, fx.classifyi[1]) == 0);
			sym_close(nd);
		}
	}

	/* Without callee names: what llvm-profgen does. */
	fs_init(&p);
	CHECK(lbr_add(&p, fx.sym, &fx.raw, (int)fx.obj, NULL, NULL, &st2, 0) == 0);
	fs_finish(&p);
	CHECK(st2.calls_out == 0 && st2.other == 7 + 11 + 11);
	f = find_function(&p, "main");
	CHECK(f && target_count(f, "ext_100040") == 0);
	fs_free(&p);
	fixture_close(&fx);
}

/* --gen BINARY SAMPLES SEED OUTDIR */
static int hook_gen(char **argv)
{
	struct raw_profile raw;
	char file[4096];
	int rc;

	raw_init(&raw);
	snprintf(file, sizeof(file), "%s/perf.txt", argv[5]);
	rc = generate(argv[2], strtoull(argv[3], NULL, 10), strtoull(argv[4], NULL, 10),
		      file, &raw);
	snprintf(file, sizeof(file), "%s/lbr.raw", argv[5]);
	if (!rc)
		rc = raw_write_file(&raw, file);
	raw_free(&raw);
	return rc ? 1 : 0;
}

/* --convert BINARY RAW OUT */
static int hook_convert(char **argv)
{
	struct raw_profile raw;
	struct lbr_stats st = { 0 };
	char *text;
	double t0 = now(), secs = 0;
	FILE *f;

	raw_init(&raw);
	if (raw_read_file(&raw, argv[3]))
		return 1;
	text = convert(argv[2], &raw, NULL, &st, &secs);
	if (!text)
		return 1;
	f = fopen(argv[4], "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		return 1;
	fprintf(stderr, "lbr_add %.3f s, with reading the raw profile and the binary %.3f s; ranges used %" PRIu64 " of %" PRIu64 "\n",
		secs, now() - t0, st.range_samples, st.ranges);
	for (int i = 0; i < LBR_DROP_MAX; i++)
		if (st.dropped[i])
			fprintf(stderr, "  %" PRIu64 " dropped: %s\n", st.dropped[i], lbr_drop_name[i]);
	free(text);
	raw_free(&raw);
	return 0;
}

int main(int argc, char **argv)
{
	int keep = getenv("LBR_KEEP") != NULL;

	progname = "test_lbr";
	if (argc == 6 && !strcmp(argv[1], "--gen"))
		return hook_gen(argv);
	if (argc == 5 && !strcmp(argv[1], "--convert"))
		return hook_convert(argv);
	if (!access("convert/lbr.c", R_OK) || !realpath(argv[0], topdir)) {
		if (!getcwd(topdir, sizeof(topdir)))
			return 1;
	} else {
		for (int up = 0; up < 3; up++)	/* build/tests/test_lbr */
			*strrchr(topdir, '/') = 0;
	}
	if (!mkdtemp(workdir)) {
		perror("mkdtemp");
		return 1;
	}
	have_tools = run(CLANG " --version >/dev/null 2>&1") == 0 &&
		     access(PROFGEN, X_OK) == 0 && build_prog() == 0;
	RUN(test_canonical_name);
	if (!have_tools) {
		printf("PASS test_lbr: clang-16 or llvm-profgen-16 missing: only the unit checks ran\n");
	} else {
		RUN(test_drops);
		RUN(test_branches);
		RUN(test_agree_prog);
		RUN(test_agree_prog_ext);
		/* Builds pgoprof's converter with clang and walks it: half a
		 * minute under load, so in make check-long only. */
		if (getenv("PGOPROF_TEST_LONG") && strcmp(getenv("PGOPROF_TEST_LONG"), "0"))
			RUN(test_agree_big);
		else
			printf("  test_agree_big: in make check-long (PGOPROF_TEST_LONG=1)\n");
		if (argc == 4 && !strcmp(argv[1], "--agree")) {
			struct agreement ag;

			agree_run(argv[2], strtoull(argv[3], NULL, 10), 7, "agree", 0, &ag);
		}
	}
	if (keep)
		printf("work directory: %s\n", workdir);
	else
		run("rm -rf %s", workdir);
	return tests_failed != 0;
}
