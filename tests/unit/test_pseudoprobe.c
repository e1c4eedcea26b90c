// SPDX-License-Identifier: GPL-2.0-only
/* convert/pseudoprobe.c on a real clang-16 binary (-fpseudo-probe-for-
 * profiling): the decoded probes against llvm-profgen-16's listing of the
 * same binary (--show-pseudo-probe), a probe-based profile from made-up
 * exact counts, and its checksums through both LLVM writers and readers
 * (and llvm-profdata-16, when it is there). */
#include "check.h"
#include "testutil.h"
#include "../../convert/pseudoprobe.h"
#include "../../convert/llvm_extbinary.h"
#include "../../convert/llvm_text.h"
#include "../../lib/util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CLANG "clang-16"
#define PROFGEN "llvm-profgen-16"
#define PROFDATA "llvm-profdata-16"

static char workdir[] = "/tmp/pgoprof-test-pseudoprobe-XXXXXX";

/* sq is inlined into f; f is called from main (a direct call probe); g
 * is called through a pointer (an indirect call probe). */
static const char prog[] =
	"static int sq(int x) { return x > 3 ? x * x : x + 1; }\n"
	"__attribute__((noinline)) int f(int n)\n"
	"{ int s = 0; for (int i = 0; i < n; i++) s += sq(i); return s; }\n"
	"__attribute__((noinline)) int g(int x) { return x * 3; }\n"
	"int (*volatile gp)(int) = g;\n"
	"int main(int argc, char **argv)\n"
	"{ (void)argv; return (f(argc * 10) + gp(argc)) & 1; }\n";

static char *path(const char *name)
{
	return test_path(workdir, name);
}

#define run test_run

static int build(void)
{
	FILE *f = fopen(path("p.c"), "w");

	if (!f)
		return -1;
	fputs(prog, f);
	fclose(f);
	return run(CLANG " -O2 -g -fpseudo-probe-for-profiling -o %s %s 2>/dev/null",
		   path("p"), path("p.c"));
}

static const char *type_name(int t)
{
	return t == PP_BLOCK ? "Block" : t == PP_DIRECT_CALL ? "DirectCall"
	       : "IndirectCall";
}

/* "ADDR FUNC INDEX TYPE[ CONTEXT]" per probe: CONTEXT is the inline chain
 * as llvm-profgen prints it after "Inlined: ", "@ caller:site ...",
 * outermost first; none for a top-level function's probe. */
static void write_ours(const struct pseudo_probes *pp, FILE *o)
{
	for (size_t i = 0; i < pp->nprobes; i++) {
		const struct pp_probe *p = &pp->probes[i];
		const struct pp_node *n = &pp->nodes[p->node];
		char ctx[2048] = "";
		size_t len = 0;

		{
			uint32_t chain[64];
			int k = 0;

			for (int32_t c = (int32_t)p->node; c >= 0 && k < 64;
			     c = pp->nodes[c].parent)
				chain[k++] = (uint32_t)c;
			for (int j = k - 1; j > 0; j--) {
				const struct pp_node *child = &pp->nodes[chain[j - 1]];

				len += (size_t)snprintf(ctx + len, sizeof(ctx) - len,
					" @ %s:%u",
					pp_desc_of(pp, pp->nodes[chain[j]].guid)->name,
					child->site);
			}
		}
		fprintf(o, "%lx %s %u %s%s\n", (unsigned long)p->vaddr,
			pp_desc_of(pp, n->guid)->name, p->index,
			type_name(p->type), ctx);
	}
}

static void test_read_against_profgen(void)
{
	struct pseudo_probes pp = { 0 };
	FILE *o;

	CHECK(pp_read(&pp, path("p")) == 0);
	CHECK(pp.nprobes > 0 && pp.ndesc >= 3 && pp.unplaced == 0);
	o = fopen(path("ours.txt"), "w");
	if (!o) {
		CHECK(!"open ours.txt");
		pp_free(&pp);
		return;
	}
	write_ours(&pp, o);
	fclose(o);
	pp_free(&pp);
	if (run("command -v " PROFGEN " >/dev/null 2>&1")) {
		printf("  (" PROFGEN " missing: probes not compared)\n");
		return;
	}
	/* Its listing: probes, then the instruction at their address. */
	CHECK(run(PROFGEN " --binary %s --show-disassembly-only --show-pseudo-probe "
		  "--perfscript /dev/null --output /dev/null 2>/dev/null | awk '"
		  "/\\[Probe\\]:/ { c = \"\"; i = index($0, \"Inlined: \"); "
		  "if (i) { c = substr($0, i + 9); sub(/ +$/, \"\", c); c = \" \" c } "
		  "p[n++] = $3 \" \" $5 \" \" $7 c; next } "
		  "/^ *[0-9a-f]+:\\t/ { a = $1; sub(/:$/, \"\", a); "
		  "for (k = 0; k < n; k++) print a, p[k]; n = 0 }' | sort -u >%s",
		  path("p"), path("theirs.txt")) == 0);
	CHECK(run("sort -u %s >%s", path("ours.txt"), path("ours.sorted")) == 0);
	CHECK(run("test -s %s && cmp -s %s %s", path("theirs.txt"),
		  path("ours.sorted"), path("theirs.txt")) == 0);
}

/* The probes of node `fn` (a top-level function by name). */
static const struct pp_probe *find_probe(const struct pseudo_probes *pp,
					 const char *fn, uint32_t index,
					 int top)
{
	for (size_t i = 0; i < pp->nprobes; i++) {
		const struct pp_node *n = &pp->nodes[pp->probes[i].node];

		if (pp->probes[i].index == index && (n->parent < 0) == top &&
		    !strcmp(pp_desc_of(pp, n->guid)->name, fn))
			return &pp->probes[i];
	}
	return NULL;
}

/* The number of distinct probe indices of inline-tree node `node`. */
static size_t distinct_indices(const struct pseudo_probes *pp, uint32_t node)
{
	size_t n = 0;

	for (size_t i = 0; i < pp->nprobes; i++) {
		int seen = 0;

		if (pp->probes[i].node != node)
			continue;
		for (size_t j = 0; j < i; j++)
			if (pp->probes[j].node == node &&
			    pp->probes[j].index == pp->probes[i].index)
				seen = 1;
		n += !seen;
	}
	return n;
}

/* The number of body records of f with a non-zero count. */
static size_t nonzero(const struct fsamples *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->nbody; i++)
		n += f->body[i].count != 0;
	return n;
}

static void test_profile(void)
{
	struct pseudo_probes pp = { 0 };
	struct raw_profile raw = { 0 };
	struct raw_object ob = { 0 };
	struct fs_profile prof;
	struct pp_stats st;
	struct load_seg seg = { .offset = 0, .filesz = 1ull << 40,
				.vaddr = 0, .memsz = 1ull << 40 };
	const struct pp_probe *fe, *me, *mc, *se;
	struct fsamples *f, *m, *s;
	char *text;

	fs_init(&prof);
	CHECK(pp_read(&pp, path("p")) == 0);
	fe = find_probe(&pp, "f", 1, 1);
	me = find_probe(&pp, "main", 1, 1);
	mc = NULL;
	for (size_t i = 0; i < pp.nprobes; i++)
		if (pp.probes[i].type == PP_DIRECT_CALL &&
		    !strcmp(pp_desc_of(&pp, pp.nodes[pp.probes[i].node].guid)->name, "main"))
			mc = &pp.probes[i];
	se = NULL;
	for (size_t i = 0; i < pp.nprobes; i++)
		if (pp.nodes[pp.probes[i].node].parent >= 0)
			se = &pp.probes[i];
	CHECK(fe && me && mc && se);
	if (!fe || !me || !mc || !se)
		goto out;
	/* Exact counts as record --exact writes them: one single-instruction
	 * range per executed instruction (file offsets; the made-up segment
	 * maps them 1:1), calls as branches. */
	ob.ranges = xcalloc(3, sizeof(*ob.ranges));
	ob.ranges[0] = (struct raw_range){ fe->vaddr, fe->vaddr, 7 };
	ob.ranges[1] = (struct raw_range){ me->vaddr, me->vaddr, 1 };
	ob.ranges[2] = (struct raw_range){ se->vaddr, se->vaddr, 70 };
	ob.nranges = 3;
	ob.branches = xcalloc(1, sizeof(*ob.branches));
	ob.branches[0] = (struct raw_branch){ mc->vaddr, 0, fe->vaddr, 7 };
	ob.nbranches = 1;
	raw.objs = &ob;
	raw.nobjs = 1;
	pp_add(&prof, &pp, &raw, 0, &seg, 1, NULL, NULL, &st);
	fs_finish(&prof);
	CHECK(prof.probe_based);
	CHECK(st.insns == 78 && st.calls == 7 && st.calls_used == 7);
	f = fs_function(&prof, "f");
	m = fs_function(&prof, "main");
	CHECK(f->head == 7 && m->head == 1);
	CHECK(f->checksum && f->checksum == pp_desc_of(&pp, pp.nodes[fe->node].guid)->hash);
	CHECK(m->checksum == pp_desc_of(&pp, pp.nodes[me->node].guid)->hash);
	/* The inlinee sits at its call probe in f, with its own checksum. */
	CHECK(f->ncs == 1);
	if (f->ncs == 1) {
		s = f->cs[0].callee;
		CHECK(f->cs[0].line == pp.nodes[se->node].site && f->cs[0].disc == 0);
		CHECK(s->checksum == pp_desc_of(&pp, pp.nodes[se->node].guid)->hash);
		CHECK(s->nbody == distinct_indices(&pp, se->node));
		CHECK(s->total == 70 * nonzero(s));
	}
	/* f ran: each of its probes has a record, 0 where no range held it,
	 * so that clang reads them as cold, not as unknown. */
	CHECK(f->nbody == distinct_indices(&pp, fe->node));
	CHECK(nonzero(f) >= 1 && nonzero(f) < f->nbody);
	CHECK(st.probes_zero > 0 &&
	      st.probes_zero == f->nbody - nonzero(f) + m->nbody - nonzero(m) +
	      (f->ncs ? f->cs[0].callee->nbody - nonzero(f->cs[0].callee) : 0));
	/* g did not run: no profile, not a profile of zeros. */
	CHECK(fs_find(&prof, "g") == NULL);
	/* main's call probe: the call target, its body count from no range. */
	{
		int found = 0;

		for (size_t i = 0; i < m->nbody; i++)
			if (m->body[i].line == mc->index && m->body[i].ntargets == 1 &&
			    !strcmp(m->body[i].targets[0].name, "f") &&
			    m->body[i].targets[0].count == 7)
				found = 1;
		CHECK(found);
	}
	text = profile_text(&prof);
	CHECK(strstr(text, "!CFGChecksum: ") != NULL);
	CHECK(text && count_lines(text) > 4);
	free(text);
	free(ob.ranges);
	free(ob.branches);
out:
	fs_free(&prof);
	pp_free(&pp);
}

/* The checksums through text and extbinary, ours and llvm-profdata's. */
static void test_formats(void)
{
	static const char src[] =
		"f:30:3\n 1: 3\n 2: 10\n 3: 10 g:7\n 4: h:7\n  1: 7\n"
		"  !CFGChecksum: 555\n !CFGChecksum: 1234\ng:7:7\n 1: 7\n"
		" !CFGChecksum: 99\n";
	struct fs_profile p, q;
	char *t1, *t2, *buf = NULL;
	size_t len = 0;
	FILE *f;

	fs_init(&p);
	fs_init(&q);
	CHECK(llvm_text_read(&p, src, sizeof(src) - 1, "src") == 0);
	CHECK(p.probe_based && fs_function(&p, "f")->checksum == 1234);
	t1 = profile_text(&p);
	CHECK(t1 && !strcmp(t1, src));
	f = open_memstream(&buf, &len);
	CHECK(llvm_extbinary_write(&p, NULL, f) == 0);
	fclose(f);
	CHECK(llvm_extbinary_read(&q, (const uint8_t *)buf, len, "ext") == 0);
	CHECK(q.probe_based);
	t2 = profile_text(&q);
	CHECK(t2 && !strcmp(t1, t2));
	if (!run("command -v " PROFDATA " >/dev/null 2>&1")) {
		FILE *o = fopen(path("ours.extbin"), "w");

		if (o) {
			fwrite(buf, 1, len, o);
			fclose(o);
		}
		/* llvm-profdata reads ours as we wrote it. */
		CHECK(run(PROFDATA " merge --sample --text %s -o %s 2>/dev/null",
			  path("ours.extbin"), path("back.txt")) == 0);
		CHECK(run("printf '%%s' '%s' | cmp -s - %s", src, path("back.txt")) == 0);
	}
	free(t1);
	free(t2);
	free(buf);
	fs_free(&p);
	fs_free(&q);
}

/* A truncated .pseudo_probe is an error naming the section and byte; a
 * binary without probes is 1. */
static void test_damaged(void)
{
	struct pseudo_probes pp = { 0 };

	CHECK(run("objcopy --dump-section .pseudo_probe=%s %s && "
		  "head -c -3 %s >%s && objcopy --update-section .pseudo_probe=%s %s %s",
		  path("pp.bin"), path("p"), path("pp.bin"), path("pp.cut"),
		  path("pp.cut"), path("p"), path("p.cut")) == 0);
	CHECK(access(path("p.cut"), R_OK) == 0);
	CHECK(pp_read(&pp, path("p.cut")) == -1);
	pp_free(&pp);
	CHECK(run(CLANG " -O2 -g -o %s %s 2>/dev/null", path("plain"), path("p.c")) == 0);
	CHECK(pp_read(&pp, path("plain")) == 1 && pp.nprobes == 0);
	pp_free(&pp);
}

int main(void)
{
	if (!mkdtemp(workdir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_formats);
	if (run(CLANG " --version >/dev/null 2>&1") || build()) {
		printf("SKIP test_read_against_profgen, test_profile, test_damaged: " CLANG " missing or could not build the test program\n");
	} else {
		RUN(test_read_against_profgen);
		RUN(test_profile);
		RUN(test_damaged);
	}
	run("rm -rf %s", workdir);
	return tests_failed ? 1 : 0;
}
