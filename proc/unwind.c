/* SPDX-License-Identifier: GPL-2.0-only */
/* The unwinder (unwind.h).  libdw's frame API does the CFI steps: one
 * Dwfl per process, attached once (dwfl_attach_state) with callbacks that
 * serve the current sample's registers and stack copy; modules are
 * reported lazily, as frames reach them, from the caller's locate().  In
 * auto mode a CFI segment hands over to a frame-pointer segment at the
 * first frame above the leaf whose function sets up a frame pointer (in a
 * file that keeps them), and back at the first frame whose function does
 * not; a frame-pointer step that looks wrong is redone by CFI.
 * Sources: elfutils libdwfl/libdwfl.h (Dwfl_Thread_Callbacks),
 * libdwfl/frame_unwind.c (what a step reads and when it stops). */
#include "unwind.h"
#include "unwind_int.h"
#include "../lib/md5.h"
#include "../lib/util.h"

#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PROCS 64		/* Dwfl states kept (least recently used go) */
#define MAX_FILE_ID (1u << 24)
#define MAX_MODS_TRIED 256	/* per process: modules reported or refused */

const char *const unwind_end_name[UNWIND_END_MAX] = {
	[UNWIND_COMPLETE] = "complete",
	[UNWIND_STACK_END] = "stack_end",
	[UNWIND_NO_STACK] = "no_stack",
	[UNWIND_NO_MODULE] = "no_module",
	[UNWIND_NO_FILE] = "no_file",
	[UNWIND_NO_CFI] = "no_cfi",
	[UNWIND_BAD_ADDRESS] = "bad_address",
	[UNWIND_LOOP] = "loop",
	[UNWIND_MAX_DEPTH] = "max_depth",
	[UNWIND_FP_END] = "fp_end",
};

/* The state of one unwind_stack call. */
struct uw_run {
	struct unwinder *u;
	struct uw_proc *p;
	const struct unwind_sample *s;
	uint64_t regs[UNWIND_NREGS];	/* first frame of the CFI segment */
	uint32_t mask;
	uint64_t *pcs;
	size_t n, max;
	uint64_t sp;		/* stack pointer of the last frame */
	size_t k;		/* fp_chain entries matched by our frames */
	int k_last;		/* the last frame matched fp_chain[k - 1] */
	int first;		/* the segment's first frame is already in pcs */
	int ended;
	enum unwind_end end;
	enum unwind_end mem_end;	/* why a read of this step failed */
	int mem_failed;
	int to_fp;		/* the CFI segment stopped to walk frame pointers */
	uint64_t bp;		/* frame pointer of the last frame */
	int bp_known;
};

/* ---- files ---- */

static int file_matches(int fd, Elf *elf, const struct unwind_file *f)
{
	uint8_t d[MD5_DIGEST_LEN];
	const void *id;
	ssize_t n;

	if (elf_kind(elf) != ELF_K_ELF)
		return 0;
	if (!f->build_id)
		return 1;
	if (f->build_id_is_md5)
		return f->build_id_len == sizeof(d) && !md5_fd(fd, UINT64_MAX, d) &&
		       !memcmp(d, f->build_id, sizeof(d));
	n = dwelf_elf_gnu_build_id(elf, &id);
	return n == (ssize_t)f->build_id_len && !memcmp(id, f->build_id, (size_t)n);
}

static int try_open(struct uw_file *uf, const char *path,
		    const struct unwind_file *f)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;

	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || !file_matches(fd, elf, f)) {
		elf_end(elf);
		close(fd);
		return -1;
	}
	uf->fd = fd;
	uf->elf = elf;
	uf->path = xstrdup(path);
	return 0;
}

struct uw_file *uw_get_file(struct unwinder *u, pid_t pid,
				const struct unwind_file *f)
{
	struct uw_file *uf;
	char alt[4200];

	if (f->id >= MAX_FILE_ID)
		return NULL;
	if (f->id >= u->nfiles) {
		size_t n = u->nfiles;

		grow(&u->files, &u->nfiles, (size_t)f->id + 1, sizeof(*u->files));
		memset(u->files + n, 0, (u->nfiles - n) * sizeof(*u->files));
	}
	uf = &u->files[f->id];
	if (uf->state == 0) {
		uf->state = -1;
		uf->keeps_fp = -1;
		if (f->path && f->path[0] == '/') {
			snprintf(alt, sizeof(alt), "/proc/%d/root%s", (int)pid, f->path);
			if (!try_open(uf, f->path, f) || !try_open(uf, alt, f))
				uf->state = 1;
		}
	}
	return uf->state == 1 ? uf : NULL;
}

/* The ELF virtual address of file offset off: the PT_LOAD that holds
 * it maps p_offset to p_vaddr. */
static int file_vaddr(Elf *elf, uint64_t off, uint64_t *vaddr)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    off >= ph.p_offset && off - ph.p_offset < ph.p_filesz) {
			*vaddr = off - ph.p_offset + ph.p_vaddr;
			return 0;
		}
	return -1;
}

/* Whether frame pointers may be walked from the code at file offset off
 * (at a call, so after any prologue): the file keeps them and the
 * function there sets one up. */
static int frame_keeps_fp(struct uw_file *uf, uint64_t off)
{
	uint64_t vaddr;

	if (uf->keeps_fp < 0) {
		uf->nfuncs = uw_elf_funcs(uf->elf, &uf->funcs);
		uf->keeps_fp = uw_elf_keeps_fp(uf->elf, uf->funcs, uf->nfuncs);
	}
	return uf->keeps_fp && !file_vaddr(uf->elf, off, &vaddr) &&
	       uw_funcs_frame(uf->funcs, uf->nfuncs, vaddr) == 1;
}

/* ---- per-process Dwfl ---- */

static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			Dwarf_Addr base, const char *file_name,
			const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	/* .eh_frame is in the file itself; a search for debug files (or a
	 * download through debuginfod) would cost more than it gives. */
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

/* Not convert/symbolize.c's Dwfl (one offline file and its DWARF): a
 * live process's modules, unwound by their own CFI, no debug files. */
static const Dwfl_Callbacks dwfl_callbacks = {
	.find_debuginfo = no_debuginfo,
};

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	(void)dwfl, (void)arg, (void)thread_arg;
	return 0;	/* threads are only named, never listed */
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
	(void)dwfl, (void)tid;
	*thread_arg = arg;
	return true;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct uw_run *r = ((struct uw_proc *)arg)->run;

	if (r->mask == UNWIND_ALL_REGS)
		return dwfl_thread_state_registers(thread, 0, UNWIND_NREGS, r->regs);
	for (int i = 0; i < UNWIND_NREGS; i++)
		if ((r->mask >> i & 1) &&
		    !dwfl_thread_state_registers(thread, i, 1, &r->regs[i]))
			return false;
	return true;
}

static int read_copy(const struct unwind_sample *s, uint64_t addr,
		     uint64_t *val)
{
	uint64_t sp = s->regs[UNWIND_REG_SP];

	if (addr < sp || addr - sp > s->stack_len || s->stack_len - (addr - sp) < 8)
		return -1;
	memcpy(val, s->stack + (addr - sp), 8);
	return 0;
}

/* A read outside the copy: from the file behind an executable mapping
 * (code, read-only data), else a failure with its reason. */
static int read_elsewhere(struct uw_run *r, uint64_t addr, uint64_t *val)
{
	const struct unwind_sample *s = r->s;
	uint64_t top = s->regs[UNWIND_REG_SP] + s->stack_len;
	struct unwind_file f = { 0 };
	struct uw_file *uf;

	if (!r->u->locate(r->u->arg, s->pid, addr, &f) &&
	    (uf = uw_get_file(r->u, s->pid, &f)) &&
	    pread(uf->fd, val, 8, (off_t)f.offset) == 8)
		return 0;
	r->mem_failed = 1;
	r->mem_end = addr >= top && !s->stack_whole && s->stack_len ?
		     UNWIND_STACK_END : UNWIND_BAD_ADDRESS;
	return -1;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			   void *arg)
{
	struct uw_run *r = ((struct uw_proc *)arg)->run;
	uint64_t v;

	(void)dwfl;
	if (read_copy(r->s, addr, &v) && read_elsewhere(r, addr, &v))
		return false;
	*result = v;
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
};

/* A new Dwfl for p.  Returns 0, or -1 with p->dwfl NULL when libelf or
 * libdw cannot be set up (out of memory, or libdw without its x86-64
 * backend): its samples then keep their IP only (unwind_stack), and the
 * first failure of the unwinder says so on stderr. */
static int proc_reset(struct unwinder *u, struct uw_proc *p)
{
	const char *why = NULL;

	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->nmods = 0;
	p->stale = 0;
	p->dwfl = u->arch_elf ? dwfl_begin(&dwfl_callbacks) : NULL;
	if (!u->arch_elf)
		why = "libelf cannot describe x86-64";
	else if (!p->dwfl)
		why = dwfl_errmsg(-1);
	else if (!dwfl_attach_state(p->dwfl, u->arch_elf, p->pid, &thread_callbacks, p))
		why = dwfl_errmsg(-1);
	if (!why) {
		u->st.dwfl_builds++;
		return 0;
	}
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = NULL;
	if (!u->said_no_dwfl++)
		err("libdw cannot unwind x86-64 here (%s): stacks that need CFI keep their sampled IP only (unwind.no_cfi)", why);
	return -1;
}

static void proc_free(struct uw_proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	free(p->mods);
	free(p);
}

static void evict_oldest(struct unwinder *u)
{
	struct uw_proc **oldest = NULL;

	for (size_t b = 0; b < ARRAY_SIZE(u->procs); b++)
		for (struct uw_proc **pp = &u->procs[b]; *pp; pp = &(*pp)->next)
			if (!oldest || (*pp)->used < (*oldest)->used)
				oldest = pp;
	if (oldest) {
		struct uw_proc *p = *oldest;

		*oldest = p->next;
		proc_free(p);
		u->nprocs--;
	}
}

static struct uw_proc **proc_slot(struct unwinder *u, pid_t pid)
{
	struct uw_proc **pp = &u->procs[(uint32_t)pid % ARRAY_SIZE(u->procs)];

	while (*pp && (*pp)->pid != pid)
		pp = &(*pp)->next;
	return pp;
}

/* After new mappings: keep the Dwfl if every module it has still sits
 * where it was (same file, same offset), else start over. */
static void proc_check(struct unwinder *u, struct uw_proc *p)
{
	for (size_t i = 0; i < p->nmods; i++) {
		struct unwind_file f;
		const struct uw_mod *m = &p->mods[i];

		if (u->locate(u->arg, p->pid, m->addr, &f) || f.id != m->id ||
		    f.offset != m->offset) {
			proc_reset(u, p);
			return;
		}
	}
	p->stale = 0;
}

static struct uw_proc *get_proc(struct unwinder *u, pid_t pid)
{
	struct uw_proc **pp = proc_slot(u, pid), *p = *pp;

	if (!p) {
		if (u->nprocs >= MAX_PROCS) {
			evict_oldest(u);
			pp = proc_slot(u, pid);
		}
		p = *pp = xcalloc(1, sizeof(*p));
		p->pid = pid;
		u->nprocs++;
		proc_reset(u, p);
	} else if (p->stale) {
		proc_check(u, p);
	}
	p->used = ++u->clock;
	return p;
}

void unwind_invalidate(struct unwinder *u, pid_t pid)
{
	struct uw_proc *p = *proc_slot(u, pid);

	if (p)
		p->stale = 1;
}

/* ---- modules ---- */

static const struct uw_mod *tried_module(const struct uw_proc *p,
					 uint32_t id, uint64_t addr,
					 uint64_t offset)
{
	for (size_t i = 0; i < p->nmods; i++)
		if (p->mods[i].id == id &&
		    p->mods[i].addr - p->mods[i].offset == addr - offset)
			return &p->mods[i];
	return NULL;
}

static int report_module(struct uw_proc *p, struct uw_file *uf,
			 uint64_t addr, uint64_t offset)
{
	const char *base = strrchr(uf->path, '/');
	uint64_t vaddr, bias;
	int fd;
	Dwfl_Module *m = NULL;

	if (file_vaddr(uf->elf, offset, &vaddr))
		return -1;
	bias = addr - vaddr;
	fd = dup(uf->fd);
	if (fd < 0)
		return -1;
	/* The callbacks may run between two steps of an unwind: libdw looks
	 * the module up again for every step. */
	dwfl_report_begin_add(p->dwfl);
	m = dwfl_report_elf(p->dwfl, base ? base + 1 : uf->path, uf->path, fd,
			    bias, true);
	dwfl_report_end(p->dwfl, NULL, NULL);
	if (!m)
		close(fd);	/* on success libdw owns it */
	return m ? 0 : -1;
}

/* Make sure the module that holds addr is known to the process's Dwfl.
 * Returns its file and sets *off to addr's file offset (for the
 * frame-pointer verdict), or returns NULL with *why. */
static struct uw_file *need_module(struct uw_run *r, uint64_t addr,
				   enum unwind_end *why, uint64_t *off)
{
	struct uw_proc *p = r->p;
	struct unwind_file f;
	struct uw_file *uf;
	const struct uw_mod *m;

	if (r->u->locate(r->u->arg, r->s->pid, addr, &f)) {
		*why = UNWIND_NO_MODULE;
		return NULL;
	}
	uf = uw_get_file(r->u, r->s->pid, &f);
	*why = UNWIND_NO_FILE;
	*off = f.offset;
	if (!uf || dwfl_addrmodule(p->dwfl, addr))
		return uf;
	m = tried_module(p, f.id, addr, f.offset);
	if (m)
		return m->ok ? uf : NULL;
	if (p->nmods >= MAX_MODS_TRIED)
		return NULL;
	grow(&p->mods, &p->cap_mods, p->nmods + 1, sizeof(*p->mods));
	p->mods[p->nmods] = (struct uw_mod){ addr, f.offset, f.id,
					     !report_module(p, uf, addr, f.offset) };
	return p->mods[p->nmods++].ok ? uf : NULL;
}

/* ---- the walk ---- */

static void finish(struct uw_run *r, enum unwind_end why)
{
	if (!r->ended) {
		r->ended = 1;
		r->end = why;
	}
}

/* Append a frame; 0, or -1 when the array is full (ended). */
static int push_frame(struct uw_run *r, uint64_t pc)
{
	const struct unwind_sample *s = r->s;

	if (r->n >= r->max) {
		finish(r, UNWIND_MAX_DEPTH);
		return -1;
	}
	r->pcs[r->n++] = pc;
	/* The kernel's walk skips frames (a leaf without a frame) but never
	 * reorders them: follow it to know where it goes on. */
	r->k_last = r->k < s->fp_len && s->fp_chain[r->k] == pc;
	r->k += r->k_last;
	return 0;
}

/* In auto mode: does a frame above the leaf, whose code is at file
 * offset off of uf, hand over to frame pointers? */
static int wants_fp(struct uw_run *r, struct uw_file *uf, uint64_t off)
{
	return r->u->mode == UNWIND_AUTO && uf && frame_keeps_fp(uf, off);
}

/* libdw calls this for every frame, before it steps from it.  A frame
 * above the leaf holds a return address: its code is at pc - 1, where
 * libdw looks for its module and CFI.  The first frame of a segment is
 * already in pcs (the leaf, or a frame found by frame pointers, whose IP
 * was given as pc - 1 since libdw takes a first frame's pc as is). */
static int cb_frame(Dwfl_Frame *st, void *arg)
{
	struct uw_run *r = arg;
	int first = r->first;
	Dwarf_Addr pc;
	Dwarf_Word sp, bp = 0;
	enum unwind_end why;
	struct uw_file *uf;
	uint64_t off;

	r->first = 0;
	r->mem_failed = 0;
	if (!dwfl_frame_pc(st, &pc, NULL) || dwfl_frame_reg(st, UNWIND_REG_SP, &sp)) {
		finish(r, UNWIND_NO_CFI);
		return DWARF_CB_ABORT;
	}
	if (!first) {
		if (sp <= r->sp) {
			finish(r, UNWIND_LOOP);
			return DWARF_CB_ABORT;
		}
		r->u->st.cfi_steps++;
		if (push_frame(r, pc))
			return DWARF_CB_ABORT;
	}
	r->sp = sp;
	r->bp_known = !dwfl_frame_reg(st, UNWIND_REG_BP, &bp);
	r->bp = bp;
	uf = need_module(r, first ? pc : pc - 1, &why, &off);
	if (!uf) {
		/* JIT code, [vdso], an unreadable file or garbage: libdw would
		 * guess on by frame pointers, and a guess can land in real
		 * code. */
		finish(r, why);
		return DWARF_CB_ABORT;
	}
	if (!first && r->bp_known && wants_fp(r, uf, off)) {
		r->to_fp = 1;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

/* Why libdw stopped, when no callback said: the last frame's module is
 * missing, or a read failed, or there is no CFI for it.  Code without CFI
 * where %rbp is 0 is the outermost frame: the kernel starts a process with
 * %rbp 0 (the entry of ld.so has no CFI). */
static enum unwind_end classify(struct uw_run *r)
{
	uint64_t pc = r->pcs[r->n - 1];
	uint64_t addr = r->n == 1 ? pc : pc - 1, off;
	enum unwind_end why;

	if (!dwfl_addrmodule(r->p->dwfl, addr) && !need_module(r, addr, &why, &off))
		return why;
	if (r->mem_failed)
		return r->mem_end;
	return r->bp_known && r->bp == 0 ? UNWIND_COMPLETE : UNWIND_NO_CFI;
}

/* Unwind by CFI from r->regs.  Returns 1 if frame pointers take over. */
static int cfi_segment(struct uw_run *r)
{
	pid_t tid = r->s->tid > 0 ? r->s->tid : r->s->pid;
	int e;

	r->first = 1;
	r->to_fp = 0;
	r->p->run = r;
	e = dwfl_getthread_frames(r->p->dwfl, tid, cb_frame, r);
	r->p->run = NULL;
	if (r->to_fp)
		return 1;
	/* libdw takes a return address it could not read for an undefined
	 * one, which marks the outermost frame: a failed read says which. */
	if (e == 0)
		finish(r, r->mem_failed ? r->mem_end : UNWIND_COMPLETE);
	else if (!r->ended)
		finish(r, classify(r));
	return 0;
}

/* Beyond the copy, the kernel's walk goes on: take its frames after the
 * ones we have matched, as long as they come from functions with frame
 * pointers (after a frame without, the next entry is not to be trusted). */
static void splice_fp_chain(struct uw_run *r)
{
	const struct unwind_sample *s = r->s;
	struct unwind_file f;
	struct uw_file *uf;

	if (!r->k_last || r->k >= s->fp_len) {
		finish(r, r->k_last ? UNWIND_FP_END : UNWIND_STACK_END);
		return;
	}
	while (r->k < s->fp_len) {
		uint64_t pc = s->fp_chain[r->k];

		if (push_frame(r, pc))
			return;
		r->u->st.fp_chain_frames++;
		if (r->u->locate(r->u->arg, s->pid, pc - 1, &f) ||
		    !(uf = uw_get_file(r->u, s->pid, &f)) ||
		    !frame_keeps_fp(uf, f.offset)) {
			finish(r, UNWIND_STACK_END);
			return;
		}
	}
	finish(r, UNWIND_FP_END);
}

/* CFI takes over at a frame above the leaf of which only pc (a return
 * address), sp and bp are known.  libdw takes a first frame's pc as
 * exact: give it pc - 1, inside the call. */
static int to_cfi(struct uw_run *r, uint64_t pc, uint64_t sp, uint64_t bp)
{
	r->mask = 1u << UNWIND_REG_IP | 1u << UNWIND_REG_SP | 1u << UNWIND_REG_BP;
	r->regs[UNWIND_REG_IP] = pc - 1;
	r->regs[UNWIND_REG_SP] = sp;
	r->regs[UNWIND_REG_BP] = bp;
	return 2;
}

/* One frame-pointer step from the last frame, whose frame pointer is
 * r->bp: 1 to go on, 0 when the walk ended, 2 when CFI takes over (the
 * new frame's function has no frame pointer, or the step looks wrong: then
 * CFI redoes it). */
static int fp_step(struct uw_run *r)
{
	uint64_t bp = r->bp, ra, next_bp, sp = bp + 16, off;
	uint64_t pc = r->pcs[r->n - 1], top = r->s->regs[UNWIND_REG_SP] + r->s->stack_len;
	enum unwind_end why;
	struct uw_file *uf;

	if (bp == 0) {
		finish(r, UNWIND_COMPLETE);	/* _start clears %rbp */
		return 0;
	}
	if (bp < r->sp)		/* not a frame of this stack */
		return to_cfi(r, pc, r->sp, bp);
	if (read_copy(r->s, bp + 8, &ra) || read_copy(r->s, bp, &next_bp)) {
		if (r->s->stack_whole || bp + 16 <= top)
			return to_cfi(r, pc, r->sp, bp);
		splice_fp_chain(r);
		return 0;
	}
	if (ra == 0) {
		finish(r, UNWIND_COMPLETE);
		return 0;
	}
	uf = need_module(r, ra - 1, &why, &off);
	if (!uf)		/* let CFI find (and name) the end */
		return to_cfi(r, pc, r->sp, bp);
	if (push_frame(r, ra))
		return 0;
	r->u->st.fp_steps++;
	r->sp = sp;
	r->bp = next_bp;
	return wants_fp(r, uf, off) ? 1 : to_cfi(r, ra, sp, next_bp);
}

/* Walk frame pointers; 1 if CFI takes over again. */
static int fp_segment(struct uw_run *r)
{
	int e;

	while ((e = fp_step(r)) == 1)
		;
	return e == 2;
}

size_t unwind_stack(struct unwinder *u, const struct unwind_sample *s,
		    uint64_t *pcs, size_t max, enum unwind_end *end)
{
	struct uw_run r = { .u = u, .s = s, .pcs = pcs, .max = max };
	uint32_t need = 1u << UNWIND_REG_IP | 1u << UNWIND_REG_SP;

	u->st.samples++;
	*end = UNWIND_MAX_DEPTH;
	if (max == 0)
		return 0;
	memcpy(r.regs, s->regs, sizeof(r.regs));
	r.mask = s->regs_mask & UNWIND_ALL_REGS;
	pcs[r.n++] = s->regs[UNWIND_REG_IP];
	if (s->fp_chain && s->fp_len && s->fp_chain[0] == pcs[0])
		r.k = r.k_last = 1;
	if ((r.mask & need) != need)
		finish(&r, UNWIND_BAD_ADDRESS);
	else if (!s->stack_len || !s->stack)
		finish(&r, UNWIND_NO_STACK);
	else if (!(r.p = get_proc(u, s->pid))->dwfl)
		finish(&r, UNWIND_NO_CFI);	/* proc_reset failed */
	while (!r.ended && cfi_segment(&r) && fp_segment(&r))
		;
	u->st.frames += r.n;
	*end = r.end;
	return r.n;
}

/* ---- the unwinder ---- */

static void make_arch_elf(struct unwinder *u)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)u->arch_image;

	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(*eh);
	elf_version(EV_CURRENT);
	/* NULL only when out of memory: proc_reset then says so. */
	u->arch_elf = elf_memory((char *)u->arch_image, sizeof(u->arch_image));
}

struct unwinder *unwind_new(enum unwind_mode mode, unwind_locate_fn locate,
			    void *arg)
{
	struct unwinder *u = xcalloc(1, sizeof(*u));

	u->mode = mode;
	u->locate = locate;
	u->arg = arg;
	make_arch_elf(u);
	return u;
}

void unwind_free(struct unwinder *u)
{
	if (!u)
		return;
	for (size_t b = 0; b < ARRAY_SIZE(u->procs); b++)
		for (struct uw_proc *p = u->procs[b], *next; p; p = next) {
			next = p->next;
			proc_free(p);
		}
	for (size_t i = 0; i < u->nfiles; i++)
		if (u->files[i].state == 1) {
			elf_end(u->files[i].elf);
			close(u->files[i].fd);
			free(u->files[i].path);
			free(u->files[i].funcs);
		}
	free(u->files);
	elf_end(u->arch_elf);
	free(u);
}

const struct unwind_stats *unwind_get_stats(const struct unwinder *u)
{
	return &u->st;
}

size_t unwind_regs_from_perf(struct unwind_sample *s, uint64_t mask,
			     const uint64_t *vals)
{
	/* enum perf_event_x86_regs: AX BX CX DX SI DI BP SP IP FLAGS CS SS DS
	 * ES FS GS R8..R15, as DWARF register numbers (-1: none). */
	static const int dwarf[24] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, -1, -1, -1,
				       -1, -1, -1, -1, 8, 9, 10, 11, 12, 13,
				       14, 15 };
	size_t n = 0;

	s->regs_mask = 0;
	for (int bit = 0; bit < 64; bit++) {
		if (!(mask >> bit & 1))
			continue;
		if (bit < 24 && dwarf[bit] >= 0) {
			s->regs[dwarf[bit]] = vals[n];
			s->regs_mask |= 1u << dwarf[bit];
		}
		n++;
	}
	return n;
}
