/* SPDX-License-Identifier: GPL-2.0-only */
/* The unwinder (proc/unwind.h) on this very process: a snapshot of
 * its registers and stack, taken by an assembly function, unwinds back to
 * main; bad input (garbage registers, a stack pointer in no mapping, no
 * stack, CFI that loops, unreadable files) ends with its reason.  x86-64
 * only. */
#include "check.h"
#include "capture.h"
#include "../../proc/unwind.h"
#include "../../proc/unwind_int.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* snap(regs, buf, len): the caller's registers as DWARF numbers 0..16 (rip
 * is a point inside snap, whose CFI is the default one: CFA = rsp + 8,
 * return address at [rsp]), then len bytes of stack from rsp into buf.
 * loop_snap is the same with CFI that never moves up: CFA = rsp. */
#define SNAP_BODY(pc)                                                   \
	"movq %rax, 0(%rdi)\n movq %rdx, 8(%rdi)\n movq %rcx, 16(%rdi)\n" \
	"movq %rbx, 24(%rdi)\n movq %rsi, 32(%rdi)\n movq %rdi, 40(%rdi)\n" \
	"movq %rbp, 48(%rdi)\n movq %rsp, 56(%rdi)\n movq %r8, 64(%rdi)\n" \
	"movq %r9, 72(%rdi)\n movq %r10, 80(%rdi)\n movq %r11, 88(%rdi)\n" \
	"movq %r12, 96(%rdi)\n movq %r13, 104(%rdi)\n movq %r14, 112(%rdi)\n" \
	"movq %r15, 120(%rdi)\n leaq " pc "(%rip), %rax\n" pc ":\n"       \
	"movq %rax, 128(%rdi)\n movq %rdx, %rcx\n movq %rsi, %rdi\n"      \
	"movq %rsp, %rsi\n rep movsb\n ret\n"

__asm__(".text\n.globl uw_snap\n.type uw_snap,@function\nuw_snap:\n"
	".cfi_startproc\n" SNAP_BODY("uw_snap_pc") ".cfi_endproc\n"
	".size uw_snap, .-uw_snap\n"
	".globl uw_loop_snap\n.type uw_loop_snap,@function\nuw_loop_snap:\n"
	".cfi_startproc\n.cfi_def_cfa %rsp, 0\n.cfi_offset %rip, 0\n"
	SNAP_BODY("uw_loop_pc") ".cfi_endproc\n"
	".size uw_loop_snap, .-uw_loop_snap\n");

void uw_snap(uint64_t *regs, uint8_t *buf, size_t len);
void uw_loop_snap(uint64_t *regs, uint8_t *buf, size_t len);

/* ---- this process's mappings, as the unwinder's locate() ---- */

struct map {
	uint64_t start, end, pgoff;
	uint32_t id;
	char path[256];
};

static struct map maps[256];
static int nmaps;
static uint64_t stack_top;
static int break_paths;		/* locate() gives a path that does not exist */

static void read_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], perms[8], path[256];
	uint64_t s, e, off;

	while (f && fgets(line, sizeof(line), f) && nmaps < 256) {
		path[0] = '\0';
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %255s",
			   &s, &e, perms, &off, path) < 4)
			continue;
		if (!strcmp(path, "[stack]"))
			stack_top = e;
		if (perms[2] != 'x' || path[0] != '/')
			continue;
		struct map *m = &maps[nmaps];
		*m = (struct map){ s, e, off, (uint32_t)nmaps, "" };
		snprintf(m->path, sizeof(m->path), "%s", path);
		for (int i = 0; i < nmaps; i++)	/* one ID per file */
			if (!strcmp(maps[i].path, path))
				m->id = maps[i].id;
		nmaps++;
	}
	if (f)
		fclose(f);
}

static int locate(void *arg, pid_t pid, uint64_t addr, struct unwind_file *f)
{
	(void)arg, (void)pid;
	for (int i = 0; i < nmaps; i++)
		if (addr >= maps[i].start && addr < maps[i].end) {
			*f = (struct unwind_file){
				maps[i].id + (break_paths ? 1000 : 0),
				addr - maps[i].start + maps[i].pgoff,
				break_paths ? "/nonexistent/file" : maps[i].path,
				NULL, 0 };
			return 0;
		}
	return -1;
}

/* ---- a snapshot three calls below the test ---- */

static uint8_t stack_buf[1 << 20];
static uint64_t snap_regs[UNWIND_NREGS], ra_level2, ra_level1;

__attribute__((noinline)) static void level2(int loop)
{
	size_t len = stack_top - (uint64_t)(uintptr_t)__builtin_frame_address(0);

	ra_level2 = (uint64_t)(uintptr_t)__builtin_return_address(0);
	if (len > sizeof(stack_buf))
		len = sizeof(stack_buf);
	(loop ? uw_loop_snap : uw_snap)(snap_regs, stack_buf, len);
	__asm__ volatile("" ::: "memory");	/* not a tail call */
}

__attribute__((noinline)) static void level1(int loop)
{
	ra_level1 = (uint64_t)(uintptr_t)__builtin_return_address(0);
	level2(loop);
	__asm__ volatile("" ::: "memory");
}

/* A sample of the snapshot with len bytes of its stack. */
static struct unwind_sample sample(size_t len, int whole)
{
	struct unwind_sample s = { .pid = getpid(), .tid = getpid(),
				   .regs_mask = UNWIND_ALL_REGS,
				   .stack = stack_buf, .stack_len = len,
				   .stack_whole = whole };

	memcpy(s.regs, snap_regs, sizeof(s.regs));
	return s;
}

static size_t full_len(void)
{
	return stack_top - snap_regs[UNWIND_REG_SP];
}

static uint64_t full[UNWIND_MAX_FRAMES];
static size_t nfull;

static size_t unwind(enum unwind_mode mode, const struct unwind_sample *s,
		     uint64_t *pcs, size_t max, enum unwind_end *end,
		     struct unwind_stats *st)
{
	struct unwinder *u = unwind_new(mode, locate, NULL);
	size_t n = unwind_stack(u, s, pcs, max, end);

	if (st)
		*st = *unwind_get_stats(u);
	unwind_free(u);
	return n;
}

static void test_real_stack(void)
{
	struct unwind_sample s;
	enum unwind_end end;
	uint64_t ret_snap;

	level1(0);
	s = sample(full_len(), 1);
	memcpy(&ret_snap, stack_buf, 8);	/* snap's return address */
	nfull = unwind(UNWIND_DWARF, &s, full, UNWIND_MAX_FRAMES, &end, NULL);
	CHECK(end == UNWIND_COMPLETE);
	CHECK(nfull >= 6);	/* snap level2 level1 test main libc... */
	CHECK(full[0] == snap_regs[UNWIND_REG_IP]);
	CHECK(full[1] == ret_snap);
	CHECK(full[2] == ra_level2);
	CHECK(full[3] == ra_level1);
}

/* auto: frame pointers in this binary (built with them), CFI in libc:
 * the same frames. */
static void test_auto_same_frames(void)
{
	struct unwind_sample s = sample(full_len(), 1);
	struct unwind_stats st;
	uint64_t pcs[UNWIND_MAX_FRAMES];
	enum unwind_end end;
	size_t n = unwind(UNWIND_AUTO, &s, pcs, UNWIND_MAX_FRAMES, &end, &st);

	CHECK(n == nfull && !memcmp(pcs, full, n * sizeof(*pcs)));
	CHECK(end == UNWIND_COMPLETE);
	CHECK(st.fp_steps > 0 && st.cfi_steps > 0);
}

/* The kernel's frame-pointer walk of the snapshot: from rbp, skipping
 * snap (no frame), so that it lacks the caller of the leaf. */
static size_t fp_walk(uint64_t *chain, size_t max)
{
	uint64_t sp = snap_regs[UNWIND_REG_SP], bp = snap_regs[UNWIND_REG_BP];
	size_t n = 0;

	chain[n++] = snap_regs[UNWIND_REG_IP];
	while (n < max && bp >= sp && bp + 16 <= sp + full_len()) {
		uint64_t next, ra;

		memcpy(&ra, stack_buf + (bp + 8 - sp), 8);
		memcpy(&next, stack_buf + (bp - sp), 8);
		if (!ra)
			break;
		chain[n++] = ra;
		if (next <= bp)
			break;
		bp = next;
	}
	return n;
}

/* A copy too short for the stack: dwarf stops at its end; auto goes on
 * with the kernel's chain as long as the frames keep frame pointers. */
static void test_short_copy(void)
{
	uint64_t pcs[UNWIND_MAX_FRAMES], chain[UNWIND_MAX_FRAMES];
	struct unwind_sample s = sample(64, 0);
	enum unwind_end end;
	size_t n;

	n = unwind(UNWIND_DWARF, &s, pcs, UNWIND_MAX_FRAMES, &end, NULL);
	CHECK(end == UNWIND_STACK_END && n >= 2 && n < nfull);
	CHECK(!memcmp(pcs, full, n * sizeof(*pcs)));
	s.stack_whole = 1;	/* nothing above: a read there is garbage */
	n = unwind(UNWIND_DWARF, &s, pcs, UNWIND_MAX_FRAMES, &end, NULL);
	CHECK(end == UNWIND_BAD_ADDRESS);

	s = sample(64, 0);
	s.fp_chain = chain;
	s.fp_len = fp_walk(chain, UNWIND_MAX_FRAMES);
	CHECK(s.fp_len >= 3 && chain[1] == full[2]);	/* lost the caller */
	n = unwind(UNWIND_AUTO, &s, pcs, UNWIND_MAX_FRAMES, &end, NULL);
	CHECK(n >= 5 && !memcmp(pcs, full, n * sizeof(*pcs)));
	CHECK(end == UNWIND_STACK_END || end == UNWIND_FP_END);
}

static void test_no_stack(void)
{
	struct unwind_sample s = sample(0, 0);
	uint64_t pcs[8];
	enum unwind_end end;

	CHECK(unwind(UNWIND_DWARF, &s, pcs, 8, &end, NULL) == 1);
	CHECK(end == UNWIND_NO_STACK && pcs[0] == snap_regs[UNWIND_REG_IP]);
	s = sample(full_len(), 1);
	s.regs_mask &= ~(1u << UNWIND_REG_SP);
	CHECK(unwind(UNWIND_DWARF, &s, pcs, 8, &end, NULL) == 1);
	CHECK(end == UNWIND_BAD_ADDRESS);
	CHECK(unwind(UNWIND_DWARF, &s, pcs, 0, &end, NULL) == 0);
}

static void test_max_depth(void)
{
	struct unwind_sample s = sample(full_len(), 1);
	uint64_t pcs[3];
	enum unwind_end end;

	CHECK(unwind(UNWIND_DWARF, &s, pcs, 3, &end, NULL) == 3);
	CHECK(end == UNWIND_MAX_DEPTH && !memcmp(pcs, full, sizeof(pcs)));
}

static void test_loop_cfi(void)
{
	uint64_t pcs[UNWIND_MAX_FRAMES];
	enum unwind_end end;
	struct unwind_sample s;

	level1(1);	/* the last test: it replaces the snapshot */
	s = sample(full_len(), 1);
	for (int mode = UNWIND_DWARF; mode <= UNWIND_AUTO; mode++) {
		CHECK(unwind((enum unwind_mode)mode, &s, pcs, UNWIND_MAX_FRAMES,
			     &end, NULL) == 1);
		CHECK(end == UNWIND_LOOP);
	}
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Random registers and stack bytes, some of them real code and stack
 * addresses: every unwind ends within bounds. */
static void test_garbage(void)
{
	static uint8_t junk[4096];
	uint64_t x = 88172645463325252ull, pcs[UNWIND_MAX_FRAMES];
	struct unwinder *u[2] = { unwind_new(UNWIND_DWARF, locate, NULL),
				  unwind_new(UNWIND_AUTO, locate, NULL) };
	int bad = 0;

	for (int i = 0; i < 2000; i++) {
		struct unwind_sample s = sample(sizeof(junk), i & 1);
		enum unwind_end end = UNWIND_END_MAX;

		for (size_t k = 0; k < sizeof(junk) / 8; k++) {
			uint64_t v = rnd(&x);

			if (v % 3 == 0)	/* a plausible code address */
				v = full[v % nfull] + (v >> 60);
			else if (v % 3 == 1)	/* or stack address */
				v = snap_regs[UNWIND_REG_SP] + (v >> 52);
			memcpy(junk + 8 * k, &v, 8);
		}
		s.stack = junk;
		for (int r = 0; r < UNWIND_NREGS; r++)
			if (rnd(&x) % 2)
				s.regs[r] = rnd(&x);
		if (i % 3)	/* the IP at real code: the steps read junk */
			s.regs[UNWIND_REG_IP] = full[rnd(&x) % nfull];
		if (i % 4 == 2)	/* a stack pointer in no mapping */
			s.regs[UNWIND_REG_SP] = 0x1000;
		size_t n = unwind_stack(u[i % 2], &s, pcs, UNWIND_MAX_FRAMES, &end);
		bad += n < 1 || n > UNWIND_MAX_FRAMES || end >= UNWIND_END_MAX;
	}
	CHECK(bad == 0);
	unwind_free(u[0]);
	unwind_free(u[1]);
}

/* Files that cannot be read, or are not the ones mapped: the leaf only. */
static void test_bad_files(void)
{
	struct unwind_sample s = sample(full_len(), 1);
	uint64_t pcs[8];
	enum unwind_end end;
	static const uint8_t wrong_id[20] = { 1, 2, 3 };

	break_paths = 1;
	CHECK(unwind(UNWIND_DWARF, &s, pcs, 8, &end, NULL) == 1);
	CHECK(end == UNWIND_NO_FILE);
	break_paths = 0;

	struct unwinder *u = unwind_new(UNWIND_DWARF, locate, NULL);
	struct unwind_file f;
	CHECK(!locate(NULL, 0, snap_regs[UNWIND_REG_IP], &f));
	f.build_id = wrong_id;
	f.build_id_len = sizeof(wrong_id);
	CHECK(uw_get_file(u, getpid(), &f) == NULL);
	unwind_free(u);

	s.regs[UNWIND_REG_IP] = 0x1000;	/* no mapping */
	CHECK(unwind(UNWIND_DWARF, &s, pcs, 8, &end, NULL) == 1);
	CHECK(end == UNWIND_NO_MODULE);
}

/* After new mappings the state is checked; changed files rebuild it. */
static void test_invalidate(void)
{
	struct unwinder *u = unwind_new(UNWIND_DWARF, locate, NULL);
	struct unwind_sample s = sample(full_len(), 1);
	uint64_t pcs[UNWIND_MAX_FRAMES];
	enum unwind_end end;

	unwind_stack(u, &s, pcs, UNWIND_MAX_FRAMES, &end);
	unwind_invalidate(u, s.pid);
	unwind_invalidate(u, 999999);	/* unknown: ignored */
	CHECK(unwind_stack(u, &s, pcs, UNWIND_MAX_FRAMES, &end) == nfull);
	CHECK(unwind_get_stats(u)->dwfl_builds == 1);
	break_paths = 1;	/* other file IDs: the state is rebuilt */
	unwind_invalidate(u, s.pid);
	CHECK(unwind_stack(u, &s, pcs, UNWIND_MAX_FRAMES, &end) == 1);
	CHECK(unwind_get_stats(u)->dwfl_builds == 2);
	break_paths = 0;
	unwind_free(u);
}

/* libdw that cannot be set up (here: no x86-64 ELF for the Dwfl) is an
 * error said once, and the samples keep their IP: the process goes on. */
static void test_no_dwfl(void)
{
	struct unwinder *u = unwind_new(UNWIND_DWARF, locate, NULL);
	struct unwind_sample s = sample(full_len(), 1);
	uint64_t pcs[UNWIND_MAX_FRAMES];
	enum unwind_end end;
	char msg[512];

	elf_end(u->arch_elf);
	u->arch_elf = NULL;
	capture_begin();
	CHECK(unwind_stack(u, &s, pcs, UNWIND_MAX_FRAMES, &end) == 1);
	CHECK(end == UNWIND_NO_CFI && pcs[0] == s.regs[UNWIND_REG_IP]);
	CHECK(unwind_stack(u, &s, pcs, UNWIND_MAX_FRAMES, &end) == 1);
	capture_end(msg, sizeof(msg));
	const char *said = strstr(msg, "libdw cannot unwind x86-64 here");
	CHECK(said != NULL);	/* once for both samples */
	CHECK(said && !strstr(said + 1, "libdw cannot unwind x86-64 here"));
	CHECK(unwind_get_stats(u)->dwfl_builds == 0);
	unwind_free(u);
}

static void test_keeps_fp(void)
{
	int self = open("/proc/self/exe", O_RDONLY);
	int libc = -1;

	for (int i = 0; i < nmaps; i++)
		if (strstr(maps[i].path, "/libc.so"))
			libc = open(maps[i].path, O_RDONLY);
	/* Unit tests are built with -fno-omit-frame-pointer (gcc records it
	 * in DW_AT_producer); Debian's libc without. */
	CHECK(unwind_keeps_fp(self) == 1);
	CHECK(libc >= 0 && unwind_keeps_fp(libc) == 0);
	CHECK(uw_producer_vote("GNU C17 12.2.0 -mtune=generic -O2 -fno-omit-frame-pointer") == 1);
	CHECK(uw_producer_vote("GNU C17 12.2.0 -O2 -fno-omit-frame-pointer -fomit-frame-pointer") == 0);
	CHECK(uw_producer_vote("GNU C17 12.2.0 -mtune=generic -O2") == 0);
	CHECK(uw_producer_vote("GNU C17 12.2.0 -g") == 1);	/* -O0 keeps it */
	CHECK(uw_producer_vote("Debian clang version 16.0.6") == -1);
	close(self);
	close(libc);
}

static void test_regs_from_perf(void)
{
	/* AX BX CX DX SI DI BP SP IP FLAGS ... R8..R15: all but segments. */
	uint64_t mask = 0xff01ff, vals[24];
	struct unwind_sample s = { 0 };

	for (int i = 0; i < 24; i++)
		vals[i] = 100 + (uint64_t)i;
	CHECK(unwind_regs_from_perf(&s, mask, vals) == 17);
	CHECK(s.regs_mask == UNWIND_ALL_REGS);
	CHECK(s.regs[0] == 100 && s.regs[3] == 101 && s.regs[2] == 102);
	CHECK(s.regs[1] == 103 && s.regs[6] == 106 && s.regs[7] == 107);
	CHECK(s.regs[16] == 108);	/* IP, then FLAGS skipped */
	CHECK(s.regs[8] == 109 && s.regs[15] == 116);
	CHECK(unwind_regs_from_perf(&s, 1u << 8 | 1u << 7, vals) == 2);
	CHECK(s.regs_mask == (1u << 16 | 1u << 7) && s.regs[7] == 100);
}

int main(void)
{
	read_maps();
	if (!stack_top || !nmaps) {
		printf("FAIL read /proc/self/maps\n");
		return 1;
	}
	RUN(test_real_stack);
	RUN(test_auto_same_frames);
	RUN(test_short_copy);
	RUN(test_no_stack);
	RUN(test_max_depth);
	RUN(test_garbage);
	RUN(test_bad_files);
	RUN(test_invalidate);
	RUN(test_no_dwfl);
	RUN(test_keeps_fp);
	RUN(test_regs_from_perf);
	RUN(test_loop_cfi);
	return tests_failed != 0;
}
