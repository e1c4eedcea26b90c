/* SPDX-License-Identifier: GPL-2.0-only */
/* The random walk that synthesizes branch records: walk.h. */
#include "walk.h"
#include "../lib/util.h"
#include "../proc/buildid.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the binary, as the walker sees it ---- */

static int cmp_fsym(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

int elf_info(const char *file, struct elfinfo *ei)
{
	int fd = open(file, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx, nph;
	uint32_t idlen;
	int rc = -1;

	memset(ei, 0, sizeof(*ei));
	if (fd < 0)
		return -1;
	if (!buildid_read_fd(fd, ei->build_id, sizeof(ei->build_id), &idlen))
		ei->build_id_len = idlen;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) || elf_getphdrnum(elf, &nph))
		goto out;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X) && !ei->seg_size) {
			ei->seg_vaddr = ph.p_vaddr;
			ei->seg_off = ph.p_offset;
			ei->seg_size = ph.p_filesz;
		}
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".plt"))
			ei->plt[0][0] = sh.sh_addr, ei->plt[0][1] = sh.sh_addr + sh.sh_size;
		if (name && !strcmp(name, ".plt.sec"))
			ei->plt[1][0] = sh.sh_addr, ei->plt[1][1] = sh.sh_addr + sh.sh_size;
		if (sh.sh_type == SHT_SYMTAB) {
			Elf_Data *d = elf_getdata(scn, NULL);
			size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;

			for (size_t i = 0; d && i < n; i++) {
				GElf_Sym s;

				if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
				    !s.st_size || !s.st_value)
					continue;
				grow(&ei->syms, &ei->cap_syms, ei->nsyms + 1, sizeof(*ei->syms));
				ei->syms[ei->nsyms++] = (struct fsym){
					s.st_value, s.st_size,
					xstrdup(elf_strptr(elf, sh.sh_link, s.st_name)) };
			}
		}
	}
	qsort(ei->syms, ei->nsyms, sizeof(*ei->syms), cmp_fsym);
	{
		size_t n;
		char *raw = elf_rawfile(elf, &n);

		ei->img = xmalloc(n);
		memcpy(ei->img, raw, n);
		ei->size = n;
	}
	rc = ei->seg_size && ei->nsyms ? 0 : -1;
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

void elf_info_free(struct elfinfo *ei)
{
	for (size_t i = 0; i < ei->nsyms; i++)
		free(ei->syms[i].name);
	free(ei->syms);
	free(ei->img);
}

const struct fsym *sym_at(const struct elfinfo *ei, uint64_t a)
{
	size_t lo = 0, hi = ei->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ei->syms[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && a < ei->syms[lo - 1].addr + ei->syms[lo - 1].size)
		return &ei->syms[lo - 1];
	return NULL;
}

const struct fsym *sym_named(const struct elfinfo *ei, const char *name)
{
	for (size_t i = 0; i < ei->nsyms; i++)
		if (!strcmp(ei->syms[i].name, name))
			return &ei->syms[i];
	return NULL;
}

int in_plt(const struct elfinfo *ei, uint64_t a)
{
	return (a >= ei->plt[0][0] && a < ei->plt[0][1]) ||
	       (a >= ei->plt[1][0] && a < ei->plt[1][1]);
}

int in_text(const struct elfinfo *ei, uint64_t a)
{
	return a >= ei->seg_vaddr && a < ei->seg_vaddr + ei->seg_size;
}

/* The instructions of a function symbol: n addresses in *addr. */
size_t insns_of(csh cs, const struct elfinfo *ei, const struct fsym *s,
		uint64_t **addr)
{
	const uint8_t *code = ei->img + (s->addr - ei->seg_vaddr + ei->seg_off);
	size_t size = s->size, n = 0, cap = 0;
	uint64_t a = s->addr;
	cs_insn *insn = cs_malloc(cs);

	*addr = NULL;
	while (cs_disasm_iter(cs, &code, &size, &a, insn)) {
		grow(addr, &cap, n + 1, sizeof(**addr));
		(*addr)[n++] = insn->address;
	}
	cs_free(insn, 1);
	return n;
}


/* ---- decoded instructions, once each ---- */

enum dkind {
	D_UNKNOWN,	/* not decoded yet */
	D_BAD,		/* capstone cannot decode it */
	D_STOP,		/* ud2, hlt, int3 */
	D_CALL,
	D_RET,
	D_JMP,
	D_JCC,		/* another jump with an immediate target */
	D_OTHER,
};

#define F_IMM 1		/* one immediate operand: the target */
#define F_JUMP 2	/* in capstone's jump group */

struct dinsn {
	int32_t rel;	/* immediate target - address */
	uint8_t size, kind, flags;
};

struct fcache {		/* the instructions of a function symbol */
	uint64_t *addr;
	size_t n;
	int done;
};

/* ---- the walk ---- */

struct frame {
	uint64_t ret;
	int ext;	/* returns into the pretend libc */
};

struct walker {
	struct elfinfo ei;
	csh cs;
	cs_insn *insn;
	struct dinsn *dc;	/* by offset in the executable segment */
	struct fcache *fc;	/* by symbol index */
	uint64_t rng;
	uint64_t pc;
	struct frame stack[64];
	int depth;
	uint64_t from[WALK_LBR], to[WALK_LBR];	/* ring; head is the newest */
	int head, nlbr;
	uint64_t taken, next_sample, samples, max_samples;
	const struct fsym **callbacks, **indirect, **starts;
	size_t ncallbacks, nindirect, nstarts;
	uint64_t steps;
	walk_sink_fn sink;
	void *arg;
	/* Stack samples (walk_run_stacks): the sample decided at a taken
	 * branch is given at the next one, at an instruction of the code that
	 * ran straight between them (picked by rng2, which leaves the walk's
	 * own rng alone) with the shadow stack of that code. */
	walk_stack_fn stack_sink;
	int pending;
	uint64_t pending_to, rng2;
};

/* The instruction at a (in the executable segment), decoded at first use
 * with at most 16 bytes up to the segment's end. */
static const struct dinsn *decode(struct walker *w, uint64_t a)
{
	const struct elfinfo *ei = &w->ei;
	struct dinsn *d = &w->dc[a - ei->seg_vaddr];
	const uint8_t *code;
	size_t size;
	uint64_t pc = a;
	const cs_x86 *x;
	int64_t rel = 0;

	if (d->kind != D_UNKNOWN)
		return d;
	code = ei->img + (a - ei->seg_vaddr + ei->seg_off);
	size = ei->seg_vaddr + ei->seg_size - a;
	if (size > 16)
		size = 16;
	if (!cs_disasm_iter(w->cs, &code, &size, &pc, w->insn)) {
		d->kind = D_BAD;
		return d;
	}
	d->size = (uint8_t)w->insn->size;
	x = &w->insn->detail->x86;
	if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
		rel = (int64_t)((uint64_t)x->operands[0].imm - a);
		d->flags |= F_IMM;
	}
	if (cs_insn_group(w->cs, w->insn, CS_GRP_JUMP))
		d->flags |= F_JUMP;
	switch (w->insn->id) {
	case X86_INS_UD2:
	case X86_INS_HLT:
	case X86_INS_INT3:
		d->kind = D_STOP;
		return d;
	}
	if (cs_insn_group(w->cs, w->insn, CS_GRP_CALL))
		d->kind = D_CALL;
	else if (cs_insn_group(w->cs, w->insn, CS_GRP_RET))
		d->kind = D_RET;
	else if (w->insn->id == X86_INS_JMP)
		d->kind = D_JMP;
	else if ((d->flags & (F_JUMP | F_IMM)) == (F_JUMP | F_IMM))
		d->kind = D_JCC;
	else
		d->kind = D_OTHER;
	if (rel != (int32_t)rel)	/* a target 2 GiB away: not code */
		d->kind = D_BAD;
	d->rel = (int32_t)rel;
	return d;
}

/* xorshift64: the walk's own numbers (rng) and the stack samples' (rng2). */
static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint64_t rnd(struct walker *w)
{
	return xorshift(&w->rng);
}

static int chance(struct walker *w, unsigned percent)
{
	return rnd(w) % 100 < percent;
}

static uint64_t runtime(uint64_t a)
{
	return a >= WALK_EXT ? a : a + WALK_BASE;
}

/* The instructions from a up to and with b, one after the other, when a..b
 * is code in the executable segment of at most 4096 of them: their count,
 * else 0.  With pick below the count, *at gets the pick'th (from 0). */
static size_t straight(struct walker *w, uint64_t a, uint64_t b, size_t pick,
		       uint64_t *at)
{
	size_t n = 0;

	while (a <= b && in_text(&w->ei, a) && n < 4096) {
		const struct dinsn *d = decode(w, a);

		if (d->kind == D_BAD)
			return 0;
		if (n == pick)
			*at = a;
		n++;
		if (a == b)
			return n;
		a += d->size;
	}
	return 0;
}

/* The pending stack sample, at the taken branch from from: the code from
 * the previous branch's target to from ran with the shadow stack as it is
 * now (every take() comes before the stack changes of its branch). */
static void stack_sample(struct walker *w, uint64_t from)
{
	uint64_t ret[sizeof(w->stack) / sizeof(w->stack[0])], ip = from;
	size_t n;

	w->pending = 0;
	if (w->pending_to >= WALK_EXT) {
		ip = w->pending_to;	/* in the pretend libc */
	} else if ((n = straight(w, w->pending_to, from, SIZE_MAX, &ip))) {
		straight(w, w->pending_to, from, xorshift(&w->rng2) % n, &ip);
	}
	for (int i = 0; i < w->depth; i++)
		ret[i] = runtime(w->stack[w->depth - 1 - i].ret);
	w->stack_sink(w->arg, runtime(ip), ret, (size_t)w->depth);
}

static void sample(struct walker *w)
{
	uint64_t from[WALK_LBR], to[WALK_LBR];

	if (w->stack_sink) {
		w->samples++;
		w->pending = 1;
		w->pending_to = w->to[w->head];
		return;
	}

	for (int i = 0; i < WALK_LBR; i++) {	/* newest first */
		int k = (w->head - i + WALK_LBR) % WALK_LBR;

		from[i] = runtime(w->from[k]);
		to[i] = runtime(w->to[k]);
	}
	w->samples++;
	w->sink(w->arg, runtime(w->pc), from, to);
}

/* The taken branch from -> to.  Callers change the shadow stack after it
 * (so that a stack sample sees the stack of the code before the branch). */
static void take(struct walker *w, uint64_t from, uint64_t to)
{
	if (w->pending)
		stack_sample(w, from);
	w->head = (w->head + 1) % WALK_LBR;
	w->from[w->head] = from;
	w->to[w->head] = to;
	if (w->nlbr < WALK_LBR)
		w->nlbr++;
	w->taken++;
	if (w->nlbr == WALK_LBR && w->taken >= w->next_sample &&
	    w->samples < w->max_samples) {
		sample(w);
		w->next_sample = w->taken + 1 + rnd(w) % 48;
	}
}

static uint64_t ext_addr(struct walker *w)
{
	return WALK_EXT + 0x10 * (1 + rnd(w) % 0x8000);
}

/* The pretend libc function that the PLT stub at a calls: one for each
 * stub, as the dynamic linker binds it. */
static uint64_t ext_function(const struct elfinfo *ei, uint64_t a)
{
	return WALK_EXT + 0x100000 + (a - ei->seg_vaddr) * 16;
}

uint64_t walk_ext_end(const struct walker *w)
{
	return ext_function(&w->ei, w->ei.seg_vaddr + w->ei.seg_size);
}

/* Leave from pc (to the pretend libc, as when the program exits or an
 * interrupt comes) and start again at the entry of a random function. */
static void restart(struct walker *w)
{
	const struct fsym *s = w->starts[rnd(w) % w->nstarts];

	take(w, w->pc, ext_addr(w));
	w->depth = 0;
	w->steps = 0;
	take(w, ext_addr(w), s->addr);
	w->pc = s->addr;
}

/* In the pretend libc, called from our code: call back into the binary,
 * or return to the frame on top of the stack. */
static void ext_continue(struct walker *w)
{
	if (w->ncallbacks && w->depth < 60 && chance(w, 40)) {
		const struct fsym *cb = w->callbacks[rnd(w) % w->ncallbacks];

		take(w, ext_addr(w), cb->addr);
		w->stack[w->depth++] = (struct frame){ ext_addr(w), 1 };
		w->pc = cb->addr;
		return;
	}
	/* to the frame of our call site */
	take(w, ext_addr(w), w->stack[w->depth - 1].ret);
	w->depth--;
	w->pc = w->stack[w->depth].ret;
}

/* The jump of the PLT stub at target (after endbr64), within its first 16
 * bytes; else target. */
static uint64_t stub_jump(struct walker *w, uint64_t target)
{
	for (uint64_t a = target; a < target + 16 && in_text(&w->ei, a);) {
		const struct dinsn *d = decode(w, a);

		if (d->kind == D_BAD || a + d->size > target + 16)
			break;
		if (d->flags & F_JUMP)
			return a;
		a += d->size;
	}
	return target;
}

/* A call (or a tail call when ret is 0) from pc to the PLT stub at target:
 * through the stub's jump into the pretend libc. */
static void call_ext(struct walker *w, uint64_t target, uint64_t ret)
{
	const struct fsym *caller = sym_at(&w->ei, w->pc);
	/* noreturn (exit, abort), or too deep: start again after it */
	int noreturn = ret && (!caller || ret >= caller->addr + caller->size ||
			       w->depth >= 60);
	uint64_t j;

	take(w, w->pc, target);
	j = stub_jump(w, target);
	w->pc = j;
	if (ret)	/* the stub and the pretend libc run with it */
		w->stack[w->depth++] = (struct frame){ ret, 0 };
	take(w, j, ext_function(&w->ei, target));
	if (!ret) {		/* a tail call: return for the caller */
		if (!w->depth) {
			restart(w);
			return;
		}
		take(w, ext_addr(w), w->stack[w->depth - 1].ret);
		w->depth--;
		w->pc = w->stack[w->depth].ret;
		if (w->stack[w->depth].ext)
			ext_continue(w);
		return;
	}
	if (noreturn) {
		restart(w);
		return;
	}
	ext_continue(w);
}

/* A random instruction of the function around pc (an indirect jump's
 * target: a jump table's case).  The function's instructions are listed
 * once, as insns_of() lists them. */
static uint64_t random_insn(struct walker *w)
{
	const struct fsym *s = sym_at(&w->ei, w->pc);
	struct fcache *f;

	if (!s)
		return 0;
	f = &w->fc[s - w->ei.syms];
	if (!f->done) {
		size_t cap = 0;
		uint64_t end = s->addr + s->size;

		f->done = 1;
		for (uint64_t a = s->addr; a < end && in_text(&w->ei, a);) {
			const struct dinsn *d = decode(w, a);

			if (d->kind == D_BAD || a + d->size > end)
				break;
			grow(&f->addr, &cap, f->n + 1, sizeof(*f->addr));
			f->addr[f->n++] = a;
			a += d->size;
		}
	}
	if (!f->n)
		return 0;
	return f->addr[rnd(w) % f->n];
}

static void step(struct walker *w)
{
	uint64_t pc = w->pc, target, next;
	const struct dinsn *d;

	if (!in_text(&w->ei, pc) || in_plt(&w->ei, pc) || ++w->steps > 100000) {
		restart(w);
		return;
	}
	d = decode(w, pc);
	next = pc + d->size;
	target = d->flags & F_IMM ? pc + (uint64_t)(int64_t)d->rel : 0;
	switch (d->kind) {
	case D_BAD:
	case D_STOP:
		restart(w);
		return;
	case D_CALL:
		if (!(d->flags & F_IMM))
			target = w->indirect[rnd(w) % w->nindirect]->addr;
		if (in_plt(&w->ei, target) || !in_text(&w->ei, target)) {
			call_ext(w, target, next);
			return;
		}
		if (w->depth >= 60) {	/* too deep: skip the call */
			w->pc = next;
			return;
		}
		take(w, pc, target);
		w->stack[w->depth++] = (struct frame){ next, 0 };
		w->pc = target;
		return;
	case D_RET:
		if (!w->depth) {
			restart(w);
			return;
		}
		take(w, pc, w->stack[w->depth - 1].ret);
		w->depth--;
		w->pc = w->stack[w->depth].ret;
		if (w->stack[w->depth].ext)
			ext_continue(w);
		return;
	case D_JMP:
		if (!(d->flags & F_IMM))
			target = random_insn(w);
		if (!target || !in_text(&w->ei, target)) {
			restart(w);
		} else if (in_plt(&w->ei, target)) {
			call_ext(w, target, 0);
		} else {
			take(w, pc, target);
			w->pc = target;
		}
		return;
	case D_JCC:
		if (chance(w, target <= pc ? 80 : 50)) {
			take(w, pc, target);
			w->pc = target;
		} else {
			w->pc = next;
		}
		return;
	default:
		w->pc = next;
	}
}

struct walker *walk_open(const char *binary, uint64_t seed)
{
	struct walker *w = xcalloc(1, sizeof(*w));
	struct elfinfo *ei = &w->ei;
	const struct fsym *m;

	if (elf_info(binary, ei)) {
		err("%s: cannot read it, or no executable segment or no symbols", binary);
		elf_info_free(ei);
		free(w);
		return NULL;
	}
	w->rng = seed * 2654435761u + 88172645463325252ULL;
	w->rng2 = w->rng ^ 0x9e3779b97f4a7c15ULL;
	w->next_sample = WALK_LBR;
	/* Functions: callbacks (cmp) for the pretend libc, indirect call
	 * targets (op_*, else any), starting points (main in the test
	 * program, else any). */
	w->callbacks = xcalloc(ei->nsyms, sizeof(*w->callbacks));
	w->indirect = xcalloc(ei->nsyms, sizeof(*w->indirect));
	w->starts = xcalloc(ei->nsyms + 1, sizeof(*w->starts));
	for (size_t i = 0; i < ei->nsyms; i++) {
		const struct fsym *s = &ei->syms[i];

		if (in_plt(ei, s->addr) || !in_text(ei, s->addr))
			continue;
		if (!strcmp(s->name, "cmp"))
			w->callbacks[w->ncallbacks++] = s;
		if (!strncmp(s->name, "op_", 3))
			w->indirect[w->nindirect++] = s;
		if (s->name[0] != '_')
			w->starts[w->nstarts++] = s;
	}
	if (!w->nindirect)
		for (size_t i = 0; i < ei->nsyms; i++)
			if (in_text(ei, ei->syms[i].addr) && !in_plt(ei, ei->syms[i].addr))
				w->indirect[w->nindirect++] = &ei->syms[i];
	m = sym_named(ei, "main");
	if (m && sym_named(ei, "classify")) {
		w->starts[0] = m;
		w->nstarts = 1;
	}
	if (!w->nstarts || !w->nindirect ||
	    ei->seg_off + ei->seg_size > ei->size) {
		err("%s: no function to start a walk at", binary);
		walk_close(w);
		return NULL;
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &w->cs) != CS_ERR_OK ||
	    cs_option(w->cs, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK) {
		err("%s: cannot open capstone for x86-64", binary);
		walk_close(w);
		return NULL;
	}
	w->insn = cs_malloc(w->cs);
	/* Untouched pages of these stay unallocated. */
	w->dc = xcalloc(ei->seg_size, sizeof(*w->dc));
	w->fc = xcalloc(ei->nsyms, sizeof(*w->fc));
	w->pc = w->starts[0]->addr;
	take(w, ext_addr(w), w->pc);
	return w;
}

const struct elfinfo *walk_elf(const struct walker *w)
{
	return &w->ei;
}

void walk_run(struct walker *w, uint64_t samples, walk_sink_fn sink, void *arg)
{
	w->sink = sink;
	w->arg = arg;
	w->stack_sink = NULL;
	w->max_samples = w->samples + samples;
	while (w->samples < w->max_samples)
		step(w);
}

void walk_run_stacks(struct walker *w, uint64_t samples, walk_stack_fn sink,
		     void *arg)
{
	w->stack_sink = sink;
	w->arg = arg;
	w->max_samples = w->samples + samples;
	while (w->samples < w->max_samples || w->pending)
		step(w);
	w->stack_sink = NULL;
}

void walk_close(struct walker *w)
{
	if (!w)
		return;
	if (w->insn)
		cs_free(w->insn, 1);
	if (w->cs)
		cs_close(&w->cs);
	for (size_t i = 0; w->fc && i < w->ei.nsyms; i++)
		free(w->fc[i].addr);
	free(w->fc);
	free(w->dc);
	free(w->callbacks);
	free(w->indirect);
	free(w->starts);
	elf_info_free(&w->ei);
	free(w);
}
