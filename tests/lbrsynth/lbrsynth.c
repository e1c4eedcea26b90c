/* SPDX-License-Identifier: GPL-2.0-only */
/* lbrsynth: a branch-record synthesizer for machines without LBR.
 *
 * It runs a command under ptrace and single-steps every user-space
 * instruction of its (single) thread.  A taken branch is a branch
 * instruction (capstone decodes each instruction once) after which the
 * program counter is not the next instruction.  The last 32 taken branches
 * are kept in a ring, like an LBR with the USER|ANY filter, and every PERIOD
 * retired instructions a sample is taken: the ring, newest first, plus the
 * current instruction pointer.  The samples are written as
 *
 *   PREFIX.raw         pgoprof raw profile (RANGES, BRANCHES, IP samples)
 *   PREFIX.perf.data   a perf.data file (instructions:u, BRANCH_STACK)
 *   PREFIX.script.txt  the text that "perf script --show-mmap-events
 *                      -F ip,brstack -i PREFIX.perf.data" prints, which is
 *                      the input of llvm-profgen --perfscript
 *
 * and, because every instruction is seen, the ground truth:
 *
 *   PREFIX.truth.raw   raw profile: one single-instruction range per executed
 *                      instruction with its exact count, and every taken
 *                      branch with its exact count
 *   PREFIX.truth.txt   the same counts as text, per object
 *
 * All addresses in the raw profiles are file offsets in objects named by
 * build-ID, as in docs/raw-format.md.
 *
 * Test tool only: x86-64, one thread (threads and children that the program
 * starts run untraced).  Slow: every instruction costs a debug trap and two
 * context switches, 20-40 thousand instructions a second on the Firecracker
 * VM this was written on (PTRACE_SINGLEBLOCK is no faster there: the VM does
 * not virtualize BTF, so it traps on every instruction too).  Keep traced
 * programs near 1e5-1e6 instructions; --skip-startup saves the ~1e5 of the
 * dynamic loader.
 */
#include "../../raw/rawprof.h"
#include "../../proc/mappings.h"
#include "../../lib/util.h"
#include "../../synth/perfwrite.h"

#include <capstone/capstone.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LBR_DEPTH 32

/* ---- instruction cache: runtime address -> length, kind, exact count ---- */

enum kind {
	K_NONE,		/* not a branch */
	K_COND,		/* jcc, jrcxz, loop: taken when the PC moves elsewhere */
	K_JMP,		/* direct jmp */
	K_IND_JMP,
	K_CALL,
	K_IND_CALL,
	K_RET,
	K_SYSCALL,	/* syscall/sysenter/int: not recorded (user-only LBR) */
};

/* perf_branch_entry.type of each kind (PERF_BR_*) */
static const uint8_t perf_br_type[] = {
	[K_NONE] = PERF_BR_UNKNOWN, [K_COND] = PERF_BR_COND,
	[K_JMP] = PERF_BR_UNCOND, [K_IND_JMP] = PERF_BR_IND,
	[K_CALL] = PERF_BR_CALL, [K_IND_CALL] = PERF_BR_IND_CALL,
	[K_RET] = PERF_BR_RET, [K_SYSCALL] = PERF_BR_SYSCALL,
};
/* How perf 6.1 prints them (tools/perf/util/branch.c branch_type_name). */
static const char *const perf_br_name[] = {
	[PERF_BR_UNKNOWN] = "-", [PERF_BR_COND] = "COND",
	[PERF_BR_UNCOND] = "UNCOND", [PERF_BR_IND] = "IND",
	[PERF_BR_CALL] = "CALL", [PERF_BR_IND_CALL] = "IND_CALL",
	[PERF_BR_RET] = "RET", [PERF_BR_SYSCALL] = "SYSCALL",
};

struct insn {
	uint64_t addr;
	uint64_t count;		/* times retired (exact) */
	uint8_t len;
	uint8_t kind;
	uint8_t unknown;	/* capstone could not decode it: len from a step */
};

struct icache {
	struct insn *v;		/* entries, stable indices */
	size_t n, cap;
	uint32_t *slot;		/* open addressing: index + 1, 0 = empty */
	size_t nslot;
};

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static void ic_rehash(struct icache *c, size_t nslot)
{
	free(c->slot);
	c->slot = xcalloc(nslot, sizeof(*c->slot));
	c->nslot = nslot;
	for (size_t i = 0; i < c->n; i++) {
		size_t h = hash64(c->v[i].addr) & (nslot - 1);

		while (c->slot[h])
			h = (h + 1) & (nslot - 1);
		c->slot[h] = (uint32_t)i + 1;
	}
}

/* Index of addr, or -1. */
static long ic_find(const struct icache *c, uint64_t addr)
{
	if (!c->nslot)
		return -1;
	for (size_t h = hash64(addr) & (c->nslot - 1);; h = (h + 1) & (c->nslot - 1)) {
		uint32_t s = c->slot[h];

		if (!s)
			return -1;
		if (c->v[s - 1].addr == addr)
			return s - 1;
	}
}

static size_t ic_add(struct icache *c, struct insn in)
{
	if ((c->n + 1) * 2 > c->nslot)
		ic_rehash(c, c->nslot ? c->nslot * 2 : 4096);
	grow(&c->v, &c->cap, c->n + 1, sizeof(*c->v));
	c->v[c->n] = in;
	size_t h = hash64(in.addr) & (c->nslot - 1);
	while (c->slot[h])
		h = (h + 1) & (c->nslot - 1);
	c->slot[h] = (uint32_t)c->n + 1;
	return c->n++;
}

static void ic_clear(struct icache *c)
{
	free(c->v);
	free(c->slot);
	memset(c, 0, sizeof(*c));
}

/* ---- exact taken-branch counts: (from, to) -> count ---- */

struct bcount {
	uint64_t from, to, count;
};

struct bmap {
	struct bcount *v;	/* open addressing; from == 0 is empty */
	size_t n, nslot;
};

static void bm_add(struct bmap *m, uint64_t from, uint64_t to, uint64_t k)
{
	if ((m->n + 1) * 2 > m->nslot) {
		struct bmap old = *m;

		m->nslot = old.nslot ? old.nslot * 2 : 4096;
		m->v = xcalloc(m->nslot, sizeof(*m->v));
		m->n = 0;
		for (size_t i = 0; i < old.nslot; i++)
			if (old.v[i].from)
				bm_add(m, old.v[i].from, old.v[i].to, old.v[i].count);
		free(old.v);
	}
	size_t h = hash64(from * 31 + to) & (m->nslot - 1);
	while (m->v[h].from && (m->v[h].from != from || m->v[h].to != to))
		h = (h + 1) & (m->nslot - 1);
	if (!m->v[h].from) {
		m->v[h].from = from;
		m->v[h].to = to;
		m->n++;
	}
	m->v[h].count += k;
}

/* ---- executable mappings and the events perf would have recorded ---- */

struct xmap {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min, prot, flags;
	char *path;
	uint8_t build_id[20];
	uint8_t build_id_len;
};

struct mmap_event {
	uint64_t time;
	struct xmap m;
};

struct sample {
	uint64_t time, ip;
	uint32_t nbr;
	struct pw_branch br[LBR_DEPTH];
};

/* ---- the tracer's state ---- */

static struct {
	pid_t pid;
	int memfd;
	csh cs;
	uint64_t period;
	int quiet, verbose;

	struct raw_profile mapprof;	/* objects known to the maptable */
	struct maptable maps;
	struct xmap *x;			/* current executable mappings */
	size_t nx, cap_x;

	struct icache ic;
	struct bmap bm;

	struct pw_branch ring[LBR_DEPTH];
	unsigned ring_head, ring_n;

	uint64_t retired;		/* instructions retired */
	uint64_t discontinuities;	/* PC moved without a branch */
	uint64_t rescans;
	uint64_t undecodable;		/* instructions capstone did not know */

	struct raw_profile prof;	/* samples */
	struct raw_profile truth;	/* exact counts */

	struct sample *samples;
	size_t nsamples, cap_samples;
	struct mmap_event *mev;
	size_t nmev, cap_mev;
} T;

/* Object index obj of the maptable's profile, in profile dst. */
static uint32_t obj_in(struct raw_profile *dst, uint32_t obj)
{
	const struct raw_object *o = &T.mapprof.objs[obj];

	return raw_object(dst, o->build_id, o->build_id_len, o->path);
}

static void count_unattr(struct raw_profile *p, const char *prefix,
			 enum unattr_reason r, uint64_t k)
{
	char name[96];

	snprintf(name, sizeof(name), "%s%s", prefix, unattr_name[r]);
	raw_add_counter(p, name, k);
}

/* The current executable mapping holding addr, or NULL. */
static const struct xmap *xmap_of(uint64_t addr)
{
	for (size_t i = 0; i < T.nx; i++)
		if (addr >= T.x[i].start && addr < T.x[i].end)
			return &T.x[i];
	return NULL;
}

/* Move the exact counts gathered so far into the truth profile, resolved
 * with the mappings they ran in. */
static void flush_counts(void)
{
	for (size_t i = 0; i < T.ic.n; i++) {
		const struct insn *in = &T.ic.v[i];
		uint32_t obj;
		uint64_t off;
		enum unattr_reason r;

		if (!in->count)
			continue;
		r = maps_resolve(&T.maps, T.pid, in->addr, &obj, &off);
		if (r == UNATTR_NONE) {
			uint32_t k = obj_in(&T.truth, obj);

			raw_add_range(&T.truth.objs[k], off, off, in->count);
		}
		else
			count_unattr(&T.truth, "instructions.unattributed.", r,
				     in->count);
	}
	for (size_t i = 0; i < T.bm.nslot; i++) {
		const struct bcount *b = &T.bm.v[i];
		uint32_t fo, to;
		uint64_t foff, toff;

		if (!b->from)
			continue;
		if (maps_resolve(&T.maps, T.pid, b->from, &fo, &foff) == UNATTR_NONE &&
		    maps_resolve(&T.maps, T.pid, b->to, &to, &toff) == UNATTR_NONE) {
			uint32_t f = obj_in(&T.truth, fo), t = obj_in(&T.truth, to);

			raw_add_branch(&T.truth.objs[f], foff, t, toff, b->count);
		} else {
			raw_add_counter(&T.truth, "branches.unattributed", b->count);
		}
	}
	ic_clear(&T.ic);
	free(T.bm.v);
	memset(&T.bm, 0, sizeof(T.bm));
}

static int same_xmap(const struct xmap *a, const struct xmap *b)
{
	return a->start == b->start && a->end == b->end && a->pgoff == b->pgoff &&
	       a->ino == b->ino && a->maj == b->maj && a->min == b->min &&
	       a->prot == b->prot && !strcmp(a->path, b->path);
}

/* Read /proc/PID/maps again: the maptable for attribution, and an MMAP2
 * event for each executable mapping that is new since the last scan. */
static int rescan(uint64_t time)
{
	char path[64], line[4096 + 256];
	struct xmap *nx = NULL;
	size_t n = 0, cap = 0;
	FILE *f;

	T.rescans++;
	flush_counts();
	maps_free(&T.maps);
	maps_init(&T.maps, &T.mapprof);
	if (maps_scan_proc(&T.maps, T.pid) < 0)
		return -1;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)T.pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		struct xmap m = { 0 };
		char perms[8];
		int name_at = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64
				 " %x:%x %" SCNu64 " %n",
			   &m.start, &m.end, perms, &m.pgoff, &m.maj, &m.min,
			   &m.ino, &name_at) < 7 || perms[2] != 'x')
			continue;
		if (m.start >= 0x800000000000ULL)
			continue;	/* [vsyscall]: the kernel reports no mmap */
		line[strcspn(line, "\n")] = '\0';
		m.path = xstrdup(line + name_at);
		m.prot = (perms[0] == 'r' ? PROT_READ : 0) |
			 (perms[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC;
		m.flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
		uint32_t obj;
		uint64_t off;
		if (maps_resolve(&T.maps, T.pid, m.start, &obj, &off) == UNATTR_NONE) {
			const struct raw_object *o = &T.mapprof.objs[obj];

			m.build_id_len = o->build_id_len > 20 ? 20 : o->build_id_len;
			memcpy(m.build_id, o->build_id, m.build_id_len);
		}
		grow(&nx, &cap, n + 1, sizeof(*nx));
		nx[n++] = m;
	}
	fclose(f);

	for (size_t i = 0; i < n; i++) {
		int seen = 0;

		for (size_t j = 0; j < T.nx && !seen; j++)
			seen = same_xmap(&nx[i], &T.x[j]);
		if (seen)
			continue;
		grow(&T.mev, &T.cap_mev, T.nmev + 1, sizeof(*T.mev));
		T.mev[T.nmev] = (struct mmap_event){ time, nx[i] };
		T.mev[T.nmev].m.path = xstrdup(nx[i].path);
		T.nmev++;
	}
	for (size_t j = 0; j < T.nx; j++)
		free(T.x[j].path);
	free(T.x);
	T.x = nx;
	T.nx = n;
	T.cap_x = cap;
	return 0;
}

/* Decode the instruction at addr (once). */
static size_t insn_at(uint64_t addr)
{
	long i = ic_find(&T.ic, addr);
	uint8_t code[16];
	ssize_t got = -1;
	cs_insn *ci = NULL;
	struct insn in = { .addr = addr, .len = 1, .kind = K_NONE, .unknown = 1 };

	if (i >= 0)
		return (size_t)i;
	/* The last instruction of a mapping may be followed by no page. */
	for (size_t want = sizeof(code); want > 0 && got <= 0; want--)
		got = pread(T.memfd, code, want, (off_t)addr);
	if (got > 0 && cs_disasm(T.cs, code, (size_t)got, addr, 1, &ci) == 1) {
		const cs_detail *d = ci->detail;
		int ind = d->x86.op_count > 0 &&
			  d->x86.operands[0].type != X86_OP_IMM;

		in.len = (uint8_t)ci->size;
		in.unknown = 0;
		for (int g = 0; g < d->groups_count; g++) {
			switch (d->groups[g]) {
			case X86_GRP_JUMP:
				if (ci->id == X86_INS_JMP || ci->id == X86_INS_LJMP)
					in.kind = ind ? K_IND_JMP : K_JMP;
				else
					in.kind = K_COND;
				break;
			case X86_GRP_CALL:
				in.kind = ind ? K_IND_CALL : K_CALL;
				break;
			case X86_GRP_RET:
			case X86_GRP_IRET:
				in.kind = K_RET;
				break;
			case X86_GRP_INT:
				in.kind = K_SYSCALL;
				break;
			}
		}
		if (ci->id == X86_INS_SYSCALL || ci->id == X86_INS_SYSENTER)
			in.kind = K_SYSCALL;
		cs_free(ci, 1);
	} else {
		/* capstone 4 lacks some AVX-512 instructions (glibc's
		 * string functions use them): no branches, so the first
		 * step over one tells its length. */
		T.undecodable++;
		if (T.verbose) {
			char hex[3 * sizeof(code) + 1] = "";

			for (ssize_t k = 0; k < got; k++)
				sprintf(hex + 3 * k, " %02x", code[k]);
			warnx("capstone cannot decode 0x%" PRIx64 ":%s", addr, hex);
		}
	}
	return ic_add(&T.ic, in);
}

/* ---- samples ---- */

static void take_sample(uint64_t ip)
{
	struct sample *s;
	uint32_t obj, fobj, tobj;
	uint64_t off, foff, toff;
	enum unattr_reason r;

	grow(&T.samples, &T.cap_samples, T.nsamples + 1, sizeof(*T.samples));
	s = &T.samples[T.nsamples++];
	s->time = T.retired;
	s->ip = ip;
	s->nbr = T.ring_n;
	for (unsigned i = 0; i < T.ring_n; i++)	/* newest first */
		s->br[i] = T.ring[(T.ring_head + LBR_DEPTH - 1 - i) % LBR_DEPTH];

	/* The raw profile, attributed with the mappings of this moment. */
	raw_add_counter(&T.prof, CNT_SAMPLES, 1);
	r = maps_resolve(&T.maps, T.pid, ip, &obj, &off);
	if (r == UNATTR_NONE) {
		uint32_t k = obj_in(&T.prof, obj);

		raw_add_ip(&T.prof.objs[k], off, 1);
	} else
		count_unattr(&T.prof, CNT_UNATTR, r, 1);
	for (uint32_t i = 0; i < s->nbr; i++) {
		const struct pw_branch *b = &s->br[i];

		if (maps_resolve(&T.maps, T.pid, b->from, &fobj, &foff) == UNATTR_NONE &&
		    maps_resolve(&T.maps, T.pid, b->to, &tobj, &toff) == UNATTR_NONE) {
			uint32_t f = obj_in(&T.prof, fobj), t = obj_in(&T.prof, tobj);

			raw_add_branch(&T.prof.objs[f], foff, t, toff, 1);
		} else {
			raw_add_counter(&T.prof, "branches.unattributed", 1);
		}
		if (i == 0)
			continue;
		/* Straight-line code from this branch's target to the
		 * next (newer) branch's source, both in one mapping. */
		uint64_t begin = b->to, end = s->br[i - 1].from;
		const struct xmap *m = xmap_of(begin);

		if (begin <= end && m && end < m->end &&
		    maps_resolve(&T.maps, T.pid, begin, &fobj, &foff) == UNATTR_NONE &&
		    maps_resolve(&T.maps, T.pid, end, &tobj, &toff) == UNATTR_NONE &&
		    fobj == tobj) {
			uint32_t k = obj_in(&T.prof, fobj);

			raw_add_range(&T.prof.objs[k], foff, toff, 1);
		} else
			raw_add_counter(&T.prof, "ranges.unattributed", 1);
	}
}

/* ---- tracing ---- */

static int is_map_syscall(long nr)
{
	return nr == SYS_mmap || nr == SYS_mprotect || nr == SYS_munmap ||
	       nr == SYS_mremap || nr == SYS_execve || nr == SYS_execveat ||
	       nr == SYS_shmat || nr == SYS_shmdt || nr == SYS_pkey_mprotect ||
	       nr == SYS_remap_file_pages;
}

/* AT_ENTRY of the traced program, from its auxiliary vector. */
static uint64_t auxv_entry(pid_t pid)
{
	char path[64];
	Elf64_auxv_t a;
	uint64_t entry = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while (read(fd, &a, sizeof(a)) == sizeof(a) && a.a_type != AT_NULL)
		if (a.a_type == AT_ENTRY)
			entry = a.a_un.a_val;
	close(fd);
	return entry;
}

/* Run the dynamic loader at full speed up to the program's entry point:
 * an int3 there, PTRACE_CONT, then the byte back and the PC one back. */
static int run_to_entry(void)
{
	uint64_t entry = auxv_entry(T.pid);
	struct user_regs_struct regs;
	uint8_t orig, trap = 0xcc;
	int st;

	if (!entry || pread(T.memfd, &orig, 1, (off_t)entry) != 1 ||
	    pwrite(T.memfd, &trap, 1, (off_t)entry) != 1)
		return err("cannot set a breakpoint at the entry point: %s",
			   strerror(errno));
	if (ptrace(PTRACE_CONT, T.pid, 0, 0) < 0 || waitpid(T.pid, &st, 0) < 0)
		return err("ptrace: %s", strerror(errno));
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP)
		return err("the program did not reach its entry point");
	if (ptrace(PTRACE_GETREGS, T.pid, 0, &regs) < 0 || regs.rip != entry + 1)
		return err("stopped at 0x%llx, not at the entry point", regs.rip);
	regs.rip = entry;
	if (pwrite(T.memfd, &orig, 1, (off_t)entry) != 1 ||
	    ptrace(PTRACE_SETREGS, T.pid, 0, &regs) < 0)
		return err("cannot remove the breakpoint: %s", strerror(errno));
	return 0;
}

/* Single-step to the end.  Returns the wait status of the traced process. */
static int trace(uint64_t pc)
{
	size_t cur = insn_at(pc);
	struct user_regs_struct regs;
	int st, sig = 0;

	for (;;) {
		if (ptrace(PTRACE_SINGLESTEP, T.pid, 0, (void *)(long)sig) < 0)
			die(1, "PTRACE_SINGLESTEP: %s", strerror(errno));
		sig = 0;
		if (waitpid(T.pid, &st, 0) < 0)
			die(1, "waitpid: %s", strerror(errno));
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			T.ic.v[cur].count++;	/* exit_group, or a fatal fault */
			T.retired++;
			return st;
		}
		if (WSTOPSIG(st) != SIGTRAP) {
			sig = WSTOPSIG(st);	/* deliver it on the next step */
			continue;
		}
		if (ptrace(PTRACE_GETREGS, T.pid, 0, &regs) < 0)
			die(1, "PTRACE_GETREGS: %s", strerror(errno));

		struct insn *in = &T.ic.v[cur];
		uint64_t to = regs.rip, next;

		/* A rep-prefixed string instruction traps after each
		 * iteration with the PC unchanged: not retired yet. */
		if (to == in->addr && in->kind == K_NONE)
			continue;
		if (in->unknown && to > in->addr && to - in->addr <= 15) {
			in->len = (uint8_t)(to - in->addr);
			in->unknown = 0;
		}
		next = in->addr + in->len;
		in->count++;
		T.retired++;
		if (in->kind != K_NONE && in->kind != K_SYSCALL &&
		    (in->kind != K_COND || to != next)) {
			struct pw_branch *b = &T.ring[T.ring_head];

			b->from = in->addr;
			b->to = to;
			b->type = perf_br_type[in->kind];
			T.ring_head = (T.ring_head + 1) % LBR_DEPTH;
			if (T.ring_n < LBR_DEPTH)
				T.ring_n++;
			bm_add(&T.bm, in->addr, to, 1);
		} else if (to != next) {
			T.discontinuities++;	/* signal, sigreturn, exec */
		}
		if (in->kind == K_SYSCALL && is_map_syscall((long)regs.orig_rax))
			if (rescan(T.retired) < 0)
				die(1, "cannot read the mappings of process %d", (int)T.pid);
		if (T.retired % T.period == 0)
			take_sample(to);
		cur = insn_at(to);
	}
}

/* ---- output: perf.data (synth/perfwrite.c) and its perf-script text ---- */

static void perf_mmap2(struct pwbuf *b, FILE *txt, const struct mmap_event *e)
{
	const struct xmap *m = &e->m;
	struct pw_map pm = { m->start, m->end - m->start, m->pgoff, m->ino,
			     m->maj, m->min, m->prot, m->flags, m->path,
			     m->build_id_len ? m->build_id : NULL, m->build_id_len };
	char id[41] = "";

	pw_mmap2(b, (uint32_t)T.pid, &pm, e->time);
	if (m->build_id_len)
		hex_string(id, m->build_id, m->build_id_len);

	/* tools/perf/util/event.c perf_event__fprintf_mmap2 ("%#" of 0 is
	 * "0"), after perf script's empty field prefix. */
	fprintf(txt, "PERF_RECORD_MMAP2 %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64,
		(int)T.pid, (int)T.pid, m->start, m->end - m->start, m->pgoff);
	if (m->build_id_len)
		fprintf(txt, " <%s>]", id);
	else
		fprintf(txt, " %02x:%02x %" PRIu64 " %" PRIu64 "]", m->maj, m->min,
			m->ino, (uint64_t)0);
	fprintf(txt, ": %c%c%c%c %s\n", m->prot & PROT_READ ? 'r' : '-',
		m->prot & PROT_WRITE ? 'w' : '-', m->prot & PROT_EXEC ? 'x' : '-',
		m->flags & MAP_SHARED ? 's' : 'p', m->path);
}

static void perf_sample(struct pwbuf *b, FILE *txt, const struct sample *s)
{
	pw_sample(b, (uint32_t)T.pid, s->ip, s->time, T.period, s->br, s->nbr);
	/* perf script: ip as " %16" PRIx64, then " 0xFROM/0xTO/P/-/-/0/TYPE "
	 * per entry (builtin-script.c, perf 6.1). */
	fprintf(txt, " %16" PRIx64, s->ip);
	for (uint32_t i = 0; i < s->nbr; i++) {
		const struct pw_branch *br = &s->br[i];

		fprintf(txt, " 0x%" PRIx64 "/0x%" PRIx64 "/P/-/-/0/%s ", br->from,
			br->to, perf_br_name[br->type]);
	}
	fputc('\n', txt);
}

static int write_perf(const char *data_path, const char *txt_path,
		      const char *comm)
{
	struct perf_event_attr attr;
	struct pwbuf b = { 0 };
	struct outfile od, ot;
	uint64_t data_off, hdr[10];
	size_t ci = 0, si = 0;

	if (outfile_open(&od, data_path) < 0)
		return -1;
	if (outfile_open(&ot, txt_path) < 0) {
		outfile_abort(&od);
		return -1;
	}

	pw_lbr_attr(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
		    T.period, 1);
	data_off = pw_file_header(&b, &attr);
	/* PERF_RECORD_COMM, so that perf knows the process. */
	pw_comm(&b, (uint32_t)T.pid, comm, 0);

	/* Mapping events and samples in time order (mappings first). */
	while (ci < T.nmev || si < T.nsamples) {
		if (ci < T.nmev && (si == T.nsamples ||
				    T.mev[ci].time <= T.samples[si].time))
			perf_mmap2(&b, ot.f, &T.mev[ci++]);
		else
			perf_sample(&b, ot.f, &T.samples[si++]);
	}
	pw_features(&b, data_off, NULL, 0, hdr);
	memcpy(b.p + 24, hdr, sizeof(hdr));
	if (fwrite(b.p, 1, b.n, od.f) != b.n) {
		free(b.p);
		outfile_abort(&od);
		outfile_abort(&ot);
		return err("cannot write %s", data_path);
	}
	free(b.p);
	if (outfile_commit(&od) < 0) {
		outfile_abort(&ot);
		return -1;
	}
	return outfile_commit(&ot);
}

/* ---- output: ground truth as text ---- */

static int cmp_range(const void *a, const void *b)
{
	const struct raw_range *x = a, *y = b;

	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

static int write_truth_text(const char *path)
{
	struct outfile o;
	char id[2 * RAW_BUILD_ID_MAX + 1];

	if (outfile_open(&o, path) < 0)
		return -1;
	fprintf(o.f, "# lbrsynth ground truth: exact execution count of every "
		"user-space instruction\n# instructions %" PRIu64 "\n", T.retired);
	for (size_t i = 0; i < T.truth.nobjs; i++) {
		struct raw_object *ob = &T.truth.objs[i];

		hex_string(id, ob->build_id, ob->build_id_len);
		fprintf(o.f, "object %s %s\n", id, ob->path ? ob->path : "");
		sort(ob->ranges, ob->nranges, sizeof(*ob->ranges), cmp_range);
		for (size_t j = 0; j < ob->nranges; j++)
			fprintf(o.f, "0x%" PRIx64 " %" PRIu64 "\n",
				ob->ranges[j].begin, ob->ranges[j].count);
	}
	return outfile_commit(&o);
}

/* ---- main ---- */

static void usage(FILE *f)
{
	fprintf(f,
"usage: lbrsynth [-n PERIOD] [-o PREFIX] [--skip-startup] [--no-aslr] [-q|-v]\n"
"                -- COMMAND [ARGS...]\n"
"Single-step COMMAND and synthesize LBR samples: every PERIOD instructions\n"
"(default 10007) the last %d taken branches and the IP.  Writes\n"
"PREFIX.raw, PREFIX.perf.data, PREFIX.script.txt (perf script -F ip,brstack\n"
"text for llvm-profgen), PREFIX.truth.raw and PREFIX.truth.txt (exact\n"
"instruction counts).  PREFIX defaults to \"lbrsynth\".\n"
"  --skip-startup  run the dynamic loader untraced, up to the entry point\n"
"  --no-aslr       run COMMAND without address-space randomization\n",
		LBR_DEPTH);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "period", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "skip-startup", no_argument, NULL, 'S' },
		{ "no-aslr", no_argument, NULL, 'R' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *prefix = "lbrsynth";
	int skip_startup = 0, no_aslr = 0, c, st;
	char *end, path[4096], target[512] = "", val[64];
	struct user_regs_struct regs;
	double t0, t1;

	progname = "lbrsynth";
	T.period = 10007;
	while ((c = getopt_long(argc, argv, "+n:o:qvh", lopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			errno = 0;
			T.period = strtoull(optarg, &end, 10);
			if (errno || *end || !T.period)
				die(2, "bad period '%s'", optarg);
			break;
		case 'o': prefix = optarg; break;
		case 'S': skip_startup = 1; break;
		case 'R': no_aslr = 1; break;
		case 'q': T.quiet = 1; break;
		case 'v': T.verbose = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &T.cs) != CS_ERR_OK ||
	    cs_option(T.cs, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK)
		die(1, "cannot open capstone");

	T.pid = fork();
	if (T.pid < 0)
		die(1, "fork: %s", strerror(errno));
	if (T.pid == 0) {
		if (no_aslr)
			personality(ADDR_NO_RANDOMIZE);
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "lbrsynth: cannot run %s: %s\n", argv[optind],
			strerror(errno));
		_exit(127);
	}
	if (waitpid(T.pid, &st, 0) < 0)
		die(1, "waitpid: %s", strerror(errno));
	if (WIFEXITED(st))
		return WEXITSTATUS(st);		/* exec failed; the child said why */
	if (!WIFSTOPPED(st))
		die(127, "cannot run %s", argv[optind]);
	ptrace(PTRACE_SETOPTIONS, T.pid, 0, (void *)(long)PTRACE_O_EXITKILL);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)T.pid);
	T.memfd = open(path, O_RDWR | O_CLOEXEC);
	if (T.memfd < 0)
		die(1, "cannot open %s: %s", path, strerror(errno));

	raw_init(&T.prof);
	raw_init(&T.truth);
	raw_init(&T.mapprof);
	maps_init(&T.maps, &T.mapprof);
	if (skip_startup && run_to_entry() < 0) {
		kill(T.pid, SIGKILL);
		return 1;
	}
	if (rescan(0) < 0 || ptrace(PTRACE_GETREGS, T.pid, 0, &regs) < 0)
		die(1, "cannot inspect process %d", (int)T.pid);

	t0 = now();
	st = trace(regs.rip);
	t1 = now();
	flush_counts();

	for (int i = optind; i < argc; i++) {
		size_t n = strlen(target);

		snprintf(target + n, sizeof(target) - n, "%s%s", n ? " " : "", argv[i]);
	}
	for (int k = 0; k < 2; k++) {
		struct raw_profile *p = k ? &T.truth : &T.prof;

		raw_set_meta(p, "tool", "lbrsynth (pgoprof tests)");
		raw_set_meta(p, "event", "instructions:u");
		raw_set_meta(p, "target", target);
		raw_add_counter(p, "instructions", T.retired);
		raw_add_counter(p, "duration_ms", (uint64_t)((t1 - t0) * 1000));
	}
	snprintf(val, sizeof(val), "%" PRIu64, T.period);
	raw_set_meta(&T.prof, "mode", "lbr-synth");
	raw_set_meta(&T.prof, "sample_period", val);
	raw_add_counter(&T.prof, CNT_SAMPLES, 0);
	raw_add_counter(&T.prof, CNT_LOST, 0);
	raw_set_meta(&T.truth, "mode", "exact-counts");

	int rc = 0;
	snprintf(path, sizeof(path), "%s.raw", prefix);
	rc |= raw_write_file(&T.prof, path);
	snprintf(path, sizeof(path), "%s.truth.raw", prefix);
	rc |= raw_write_file(&T.truth, path);
	snprintf(path, sizeof(path), "%s.truth.txt", prefix);
	rc |= write_truth_text(path);
	char txt[4096];
	snprintf(path, sizeof(path), "%s.perf.data", prefix);
	snprintf(txt, sizeof(txt), "%s.script.txt", prefix);
	rc |= write_perf(path, txt, argv[optind]);

	size_t distinct = 0;
	for (size_t i = 0; i < T.truth.nobjs; i++)
		distinct += T.truth.objs[i].nranges;
	if (!T.quiet)
		fprintf(stderr,
			"lbrsynth: %" PRIu64 " instructions in %.2f s (%.0f/s), "
			"%zu samples, %zu distinct instructions (%" PRIu64
			" unknown to capstone), %" PRIu64 " map rescans, %" PRIu64
			" discontinuities\n",
			T.retired, t1 - t0, T.retired / (t1 - t0 > 0 ? t1 - t0 : 1),
			T.nsamples, distinct, T.undecodable, T.rescans,
			T.discontinuities);
	if (rc)
		return 1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}
