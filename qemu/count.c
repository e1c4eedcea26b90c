/* SPDX-License-Identifier: GPL-2.0-only */
/* The exact-count engine of `pgoprof record --exact`: a TCG plugin for
 * qemu-user (QEMU 7.2's plugin API, qemu/qemu-plugin.h) that counts every
 * execution of every translated block and so of every instruction, and
 * every call from its call site to the callee's first instruction; at the
 * end of each process image it writes qemu/count.h's file.
 *
 * Why a callback per block and not QEMU 7.2's inline counter: the inline
 * counter is one word shared by the threads (vCPUs) and loses increments
 * when two run the same block, and the callback also sees which block
 * follows a call.  It costs about 15% more than the inline add (gzip:
 * 2.6x against 3.0x native, plain QEMU 2.4x).  Most blocks take the
 * cheapest callback (on_light): a direct call's callee is known when it
 * is translated, and so is whether a direct jump can reach a function's
 * first instruction; only indirect calls and jumps, calls through PLT
 * entries and function entries need to know which block ran before
 * (lua: 2.75 s to 2.25 s, plain QEMU 1.6 s).
 *
 * Addresses: each instruction's host address (the guest's memory is the
 * host's, at guest_base) is looked up in the host's /proc/self/maps,
 * where QEMU maps the guest's files with their file offsets: so every
 * count is keyed by (file, file offset), whatever the guest base.
 *
 * Processes: a fork's child starts from zero (it inherits the parent's
 * counts); an execve is followed by exec'ing qemu-user with this plugin on
 * the new program (after writing the counts of the image it leaves), as
 * valgrind's --trace-children=yes does; a program the plugin cannot run
 * (another architecture, a script whose interpreter is one) is left to the
 * guest's own execve and is not counted (the file says so). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "qemu-plugin.h"
#include "count.h"

#include <dlfcn.h>
#include <elf.h>
#include <gelf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define CHUNK 4096		/* counters per chunk of a vCPU's table */
#define MAX_CHUNKS (1u << 15)	/* 2^27 translated blocks */
#define MAX_VCPUS (1u << 16)
#define OBJ_SHIFT 48		/* key: (object + 1) << 48 | file offset */
#define MAX_INSN 15		/* the longest instruction, bytes (x86) */

/* A translated block: its counter's index, and each instruction's key
 * (0 < key < 2^48: no file, the reason's code). */
struct tbinfo {
	uint64_t count;		/* the first thread's executions */
	const struct tbinfo *callee;	/* ... its last callee, if a call */
	uint64_t ncallee;	/* ... and how many times in a row */
	uint32_t id, n;
	uint8_t first_len, last_len;	/* bytes of the first and last */
	uint8_t call;		/* the last instruction is a call */
	uint8_t jump;		/* ... a jump (not a PLT entry's) */
	uint8_t entry;		/* the first is a function's first */
	uint8_t stub;		/* only a jump through memory (a PLT entry):
				 * a call's callee is where it goes */
	uint8_t dyn;		/* its successor decides whether it calls */
	uint8_t fixed;		/* always calls fixed_callee (its key) */
	uint64_t fixed_callee;
	uint64_t key[];
};

/* (k1, k2) -> count, open addressing; k1 = k2 = 0 is never a key: a
 * slot is free when its count is 0. */
struct tab {
	uint64_t *k1, *k2, *v;
	size_t cap, n;
};

struct vcpu {
	uint64_t *chunk[MAX_CHUNKS];
	struct tab calls;
	struct tbinfo *caller;	/* ends in a call whose callee is unseen */
	int64_t sysno;		/* the syscall in progress, and its flags */
	uint64_t sysarg;
};

struct map {
	uint64_t start, end, pgoff;
	char *path;		/* NULL: not a file */
	int readable;
};

/* The architecture's numbers (arch/ * /include/uapi/asm/unistd.h). */
struct arch {
	const char *name;
	uint16_t machine;
	int64_t nr_clone, nr_fork, nr_vfork, nr_execve, nr_execveat, nr_mmap,
		nr_munmap, nr_mremap;
	int (*is_call)(const uint8_t *b, size_t len);
	int (*is_stub)(const uint8_t *b, size_t len, size_t n);
	int (*is_jump)(const uint8_t *b, size_t len);
	/* A direct call or jump: its kind and target's displacement from
	 * the next instruction; NULL: every call and jump is followed. */
	int (*direct)(const uint8_t *b, size_t len, int64_t *rel);
	/* the first bytes of a PLT entry at b (size readable bytes) */
	int (*at_stub)(const uint8_t *b, size_t size);
};

enum { DIRECT_NONE, DIRECT_CALL, DIRECT_JMP, DIRECT_JCC };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct vcpu *vcpus[MAX_VCPUS];
static struct tbinfo **tbs;
static size_t ntbs, cap_tbs;
static char **objs;			/* object i's path */
static uint64_t **starts;		/* ... its functions' file offsets */
static size_t *nstarts;
static size_t nobjs, cap_objs;
static struct map *maps;
static size_t nmaps;
static int maps_dirty = 1;
static uint64_t guest_base;
static int have_base;
static const struct arch *arch;
static char dir[PATH_MAX], qemu_exe[PATH_MAX], spec[PATH_MAX + 64];
static uint64_t not_followed;		/* execs left to the guest */
static int skip_image;			/* skip=1: the first image is not
					 * counted (pgoprof's trampoline) */

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		fprintf(stderr, "pgoprof-count: out of memory\n");
		abort();
	}
	return p;
}

/* ---- the architectures ---- */

/* The bytes after a ModRM byte m[0] (SIB, displacement): a whole
 * instruction's length, to tell it from the part QEMU 7.2 reports of one
 * it left for the next block (see split_insn). */
static size_t modrm_extra(const uint8_t *m, size_t len)
{
	unsigned mod = m[0] >> 6, rm = m[0] & 7;
	size_t n = 0;

	if (mod == 3)
		return 0;
	if (rm == 4) {
		n = 1;
		if (len < 2)
			return 1;
		if (mod == 0 && (m[1] & 7) == 5)
			return n + 4;
	} else if (mod == 0 && rm == 5) {
		return 4;	/* RIP-relative */
	}
	return n + (mod == 1 ? 1 : mod == 2 ? 4 : 0);
}

/* x86-64: a near call, direct (E8) or indirect (FF /2), after prefixes;
 * whole (len is its length). */
static int x86_is_call(const uint8_t *b, size_t len)
{
	size_t i = 0;

	while (i < len && strchr("\x26\x2e\x36\x3e\x64\x65\x66\x67\xf0\xf2\xf3", b[i]) && b[i])
		i++;
	if (i < len && (b[i] & 0xf0) == 0x40)	/* REX */
		i++;
	if (i >= len)
		return 0;
	if (b[i] == 0xe8)
		return len == i + 5;
	return b[i] == 0xff && i + 1 < len && ((b[i + 1] >> 3) & 7) == 2 &&
	       len == i + 2 + modrm_extra(b + i + 1, len - i - 1);
}

/* A PLT entry: [endbr64] [bnd] jmp *disp32(%rip). */
static int x86_is_stub(const uint8_t *b, size_t len, size_t n)
{
	(void)n;
	if (len == 4 && !memcmp(b, "\xf3\x0f\x1e\xfa", 4))
		return 1;
	if (len && b[0] == 0xf2)
		b++, len--;
	return len == 6 && b[0] == 0xff && b[1] == 0x25;
}

static uint32_t a64_word(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

/* AArch64: BL, BLR (and its pointer-authenticated forms). */
static int a64_is_call(const uint8_t *b, size_t len)
{
	uint32_t w = len == 4 ? a64_word(b) : 0;

	return (w & 0xfc000000) == 0x94000000 || (w & 0xfffffc1f) == 0xd63f0000 ||
	       (w & 0xfefff800) == 0xd63f0800;
}

/* A PLT entry: adrp x16; ldr x17; add x16; br x17 (bti c before it). */
static int a64_is_stub(const uint8_t *b, size_t len, size_t n)
{
	return len == 4 && n <= 5 && a64_word(b) == 0xd61f0220;
}

/* x86-64: jmp (E9, EB, FF /4), jcc (7x, 0F 8x), jrcxz; after prefixes. */
static int x86_is_jump(const uint8_t *b, size_t len)
{
	size_t i = 0;

	while (i < len && b[i] && strchr("\x26\x2e\x36\x3e\x64\x65\x66\x67\xf2\xf3", b[i]))
		i++;
	if (i < len && (b[i] & 0xf0) == 0x40)
		i++;
	if (i >= len)
		return 0;
	return b[i] == 0xe9 || b[i] == 0xeb || b[i] == 0xe3 || (b[i] & 0xf0) == 0x70 ||
	       (b[i] == 0x0f && i + 1 < len && (b[i + 1] & 0xf0) == 0x80) ||
	       (b[i] == 0xff && i + 1 < len && ((b[i + 1] >> 3) & 7) == 4);
}

/* AArch64: B, B.cond, CBZ/CBNZ, TBZ/TBNZ, BR. */
static int a64_is_jump(const uint8_t *b, size_t len)
{
	uint32_t w = len == 4 ? a64_word(b) : 0;

	return len == 4 && ((w & 0xfc000000) == 0x14000000 || (w & 0xff000010) == 0x54000000 ||
			    (w & 0x7e000000) == 0x34000000 || (w & 0x7e000000) == 0x36000000 ||
			    (w & 0xfffffc1f) == 0xd61f0000);
}

static int64_t le_signed(const uint8_t *b, size_t n)
{
	uint64_t v = 0;

	for (size_t i = n; i-- > 0;)
		v = v << 8 | b[i];
	return n == 1 ? (int8_t)v : (int32_t)v;
}

/* x86-64: call rel32, jmp rel32/rel8, jcc rel8/rel32, jrcxz, whole,
 * after at most the branch-hint and bnd prefixes (an operand-size or REX
 * prefix, never emitted for these, is left to the successor). */
static int x86_direct(const uint8_t *b, size_t len, int64_t *rel)
{
	size_t i = 0;

	while (i < len && (b[i] == 0xf2 || b[i] == 0x2e || b[i] == 0x3e))
		i++;
	if (i >= len)
		return DIRECT_NONE;
	if ((b[i] == 0xe8 || b[i] == 0xe9) && len == i + 5) {
		*rel = le_signed(b + i + 1, 4);
		return b[i] == 0xe8 ? DIRECT_CALL : DIRECT_JMP;
	}
	if (b[i] == 0xeb && len == i + 2) {
		*rel = le_signed(b + i + 1, 1);
		return DIRECT_JMP;
	}
	if (((b[i] & 0xf0) == 0x70 || b[i] == 0xe3) && len == i + 2) {
		*rel = le_signed(b + i + 1, 1);
		return DIRECT_JCC;
	}
	if (b[i] == 0x0f && len == i + 6 && (b[i + 1] & 0xf0) == 0x80) {
		*rel = le_signed(b + i + 2, 4);
		return DIRECT_JCC;
	}
	return DIRECT_NONE;
}

/* The bytes x86_is_stub matches as a block's last instruction, at the
 * start of a block: [endbr64] [bnd] jmp *disp32(%rip). */
static int x86_at_stub(const uint8_t *b, size_t size)
{
	if (size >= 4 && !memcmp(b, "\xf3\x0f\x1e\xfa", 4))
		b += 4, size -= 4;
	if (size >= 1 && b[0] == 0xf2)
		b++, size--;
	return size < 2 || (b[0] == 0xff && b[1] == 0x25);
}

static const struct arch arches[] = {
	{ "x86_64", EM_X86_64, 56, 57, 58, 59, 322, 9, 11, 25, x86_is_call, x86_is_stub,
	  x86_is_jump, x86_direct, x86_at_stub },
	{ "aarch64", EM_AARCH64, 220, -1, -1, 221, 281, 222, 215, 216, a64_is_call, a64_is_stub,
	  a64_is_jump, NULL, NULL },
};

/* ---- the table ---- */

static size_t tab_slot(const struct tab *t, uint64_t k1, uint64_t k2)
{
	uint64_t h = (k1 ^ (k2 * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
	size_t i = (size_t)(h >> 17) & (t->cap - 1);

	while (t->v[i] && (t->k1[i] != k1 || t->k2[i] != k2))
		i = (i + 1) & (t->cap - 1);
	return i;
}

static void tab_add(struct tab *t, uint64_t k1, uint64_t k2, uint64_t n);

/* Room for one more key. */
static void tab_reserve(struct tab *t)
{
	if (2 * (t->n + 1) > t->cap) {
		struct tab g = { .cap = t->cap ? 2 * t->cap : 1024 };

		g.k1 = xcalloc(g.cap, 8), g.k2 = xcalloc(g.cap, 8), g.v = xcalloc(g.cap, 8);
		for (size_t j = 0; j < t->cap; j++)
			if (t->v[j])
				tab_add(&g, t->k1[j], t->k2[j], t->v[j]);
		free(t->k1), free(t->k2), free(t->v);
		*t = g;
	}
}

static void tab_add(struct tab *t, uint64_t k1, uint64_t k2, uint64_t n)
{
	size_t i;

	if (!n)
		return;
	tab_reserve(t);
	i = tab_slot(t, k1, k2);
	t->n += !t->v[i];
	t->k1[i] = k1, t->k2[i] = k2;
	t->v[i] = t->v[i] + n < n ? UINT64_MAX : t->v[i] + n;
}

/* Set (k1, k2) to v (not 0). */
static void tab_set(struct tab *t, uint64_t k1, uint64_t k2, uint64_t v)
{
	size_t i;

	tab_reserve(t);
	i = tab_slot(t, k1, k2);
	t->n += !t->v[i];
	t->k1[i] = k1, t->k2[i] = k2, t->v[i] = v;
}

static uint64_t tab_get(const struct tab *t, uint64_t k1, uint64_t k2)
{
	return t->cap ? t->v[tab_slot(t, k1, k2)] : 0;
}

static void tab_free(struct tab *t)
{
	free(t->k1), free(t->k2), free(t->v);
	memset(t, 0, sizeof(*t));
}

/* ---- where code is: /proc/self/maps of the QEMU process ---- */

static void maps_read(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[PATH_MAX + 128];
	size_t cap = 0;

	for (size_t i = 0; i < nmaps; i++)
		free(maps[i].path);
	nmaps = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perms[8] = "";
		int pos = 0;
		char *p;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms, &off, &pos) < 4 || !pos)
			continue;
		if (nmaps == cap)
			maps = realloc(maps, (cap = cap ? 2 * cap : 256) * sizeof(*maps));
		if (!maps)
			abort();
		p = line + pos;
		p[strcspn(p, "\n")] = '\0';
		maps[nmaps++] = (struct map){ s, e, off, *p == '/' ? strdup(p) : NULL,
					      perms[0] == 'r' };
	}
	if (f)
		fclose(f);
	maps_dirty = 0;
}

static const struct map *maps_find(uint64_t a)
{
	size_t lo = 0, hi = nmaps;

	while (lo < hi) {	/* the kernel lists them in address order */
		size_t mid = lo + (hi - lo) / 2;

		if (a < maps[mid].start)
			hi = mid;
		else if (a >= maps[mid].end)
			lo = mid + 1;
		else
			return &maps[mid];
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The file offsets of the functions (STT_FUNC symbols of .symtab, else
 * .dynsym) of the ELF file at path, sorted, in *v: how many. */
static size_t function_starts(const char *path, uint64_t **v)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Elf_Scn *s = NULL, *sym = NULL;
	size_t n = 0, cap = 0, nph = 0;
	GElf_Shdr sh;

	*v = NULL;
	while (e && (s = elf_nextscn(e, s)))
		if (gelf_getshdr(s, &sh) && (sh.sh_type == SHT_SYMTAB ||
		    (sh.sh_type == SHT_DYNSYM && !sym)))
			sym = s;
	if (sym && gelf_getshdr(sym, &sh) && sh.sh_entsize && !elf_getphdrnum(e, &nph)) {
		Elf_Data *d = elf_getdata(sym, NULL);

		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym st;
			GElf_Phdr ph;

			if (!gelf_getsym(d, (int)i, &st) || GELF_ST_TYPE(st.st_info) != STT_FUNC ||
			    st.st_shndx == SHN_UNDEF || !st.st_value)
				continue;
			for (size_t k = 0; k < nph; k++)
				if (gelf_getphdr(e, (int)k, &ph) && ph.p_type == PT_LOAD &&
				    st.st_value >= ph.p_vaddr && st.st_value - ph.p_vaddr < ph.p_filesz) {
					if (n == cap && !(*v = realloc(*v, (cap = cap ? 2 * cap : 256) * 8)))
						abort();
					(*v)[n++] = st.st_value - ph.p_vaddr + ph.p_offset;
					break;
				}
		}
	}
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	qsort(*v, n, sizeof(**v), cmp_u64);
	return n;
}

static uint64_t object_of(const char *path)
{
	for (size_t i = 0; i < nobjs; i++)
		if (!strcmp(objs[i], path))
			return i;
	if (nobjs == cap_objs) {
		cap_objs = cap_objs ? 2 * cap_objs : 64;
		objs = realloc(objs, cap_objs * sizeof(*objs));
		starts = realloc(starts, cap_objs * sizeof(*starts));
		nstarts = realloc(nstarts, cap_objs * sizeof(*nstarts));
		if (!objs || !starts || !nstarts)
			abort();
	}
	objs[nobjs] = strdup(path);
	nstarts[nobjs] = function_starts(path, &starts[nobjs]);
	return nobjs++;
}

/* 1 if key is a function's first instruction.  Called with lock held. */
static int is_entry(uint64_t key)
{
	uint64_t obj = (key >> OBJ_SHIFT) - 1, off = key & ((1ull << OBJ_SHIFT) - 1);

	return key >> OBJ_SHIFT && obj < nobjs && nstarts[obj] &&
	       bsearch(&off, starts[obj], nstarts[obj], sizeof(uint64_t), cmp_u64);
}

/* The key of the code at host address a: its file and file offset, or
 * why not.  Called with lock held. */
static uint64_t key_of(uint64_t a)
{
	const struct map *m = maps_dirty ? NULL : maps_find(a);
	uint64_t off;

	/* Read again only when the address is new to the table or a mapping
	 * may have been replaced (maps_dirty): not for each block of a JIT's
	 * anonymous code, which is where it was. */
	if (!m) {
		maps_read();
		m = maps_find(a);
	}
	if (!m)
		return 2;
	if (!m->path)
		return 1;
	off = a - m->start + m->pgoff;
	return off >> OBJ_SHIFT ? 2 : (object_of(m->path) + 1) << OBJ_SHIFT | off;
}

/* ---- counting ---- */

static struct vcpu *vcpu_of(unsigned v)
{
	if (v >= MAX_VCPUS)
		v = MAX_VCPUS - 1;	/* never seen: 2^16 threads at once */
	if (!vcpus[v])
		vcpus[v] = xcalloc(1, sizeof(struct vcpu));
	return vcpus[v];
}

/* A call's callee: counted in a run of the same callee, the table only
 * when it changes (most call sites have one callee). */
static void callee_seen(struct tab *calls, struct tbinfo *caller,
			const struct tbinfo *t)
{
	if (caller->callee == t) {
		caller->ncallee++;
		return;
	}
	if (caller->callee)
		tab_add(calls, caller->key[caller->n - 1], caller->callee->key[0],
			caller->ncallee);
	caller->callee = t;
	caller->ncallee = 1;
}

/* Threads after the first: counts per thread, so none is lost. */
static __attribute__((noinline)) void on_block_thread(unsigned int v,
						      struct tbinfo *t)
{
	struct vcpu *c = vcpu_of(v);
	uint64_t **ch = &c->chunk[t->id / CHUNK];

	if (!*ch)
		*ch = xcalloc(CHUNK, sizeof(uint64_t));
	(*ch)[t->id % CHUNK]++;
	if (t->stub)
		return;
	if (c->caller && (c->caller->call || t->entry))
		tab_add(&c->calls, c->caller->key[c->caller->n - 1], t->key[0], 1);
	c->caller = t->dyn ? t : NULL;
}

static struct tab calls0;		/* the first thread's calls */
static struct tbinfo *caller0;		/* a dyn block that just ran */

/* Each execution of a block that is a function's first or a dyn block.
 * The first thread (vCPU 0: the process's first thread, or a fork's
 * child) counts in the block itself. */
static void on_block(unsigned int v, void *udata)
{
	struct tbinfo *t = udata;

	if (__builtin_expect(v != 0, 0)) {
		on_block_thread(v, t);
		return;
	}
	t->count++;
	/* A call's callee; or a jump's target that is a function's first
	 * instruction (a tail call), as callgrind counts calls. */
	if (caller0 && (caller0->call || t->entry))
		callee_seen(&calls0, caller0, t);
	caller0 = t->dyn ? t : NULL;
}

/* Any other block but a PLT entry's: the hottest path, one add and a
 * test where the block before was not dyn. */
static void on_light(unsigned int v, void *udata)
{
	struct tbinfo *t = udata;

	if (__builtin_expect(v != 0, 0)) {
		on_block_thread(v, t);
		return;
	}
	t->count++;
	if (__builtin_expect(caller0 != NULL, 0)) {
		if (caller0->call)
			callee_seen(&calls0, caller0, t);
		caller0 = NULL;
	}
}

/* A PLT entry: the call goes on to its target. */
static void on_stub(unsigned int v, void *udata)
{
	struct tbinfo *t = udata;

	if (__builtin_expect(v != 0, 0)) {
		on_block_thread(v, t);
		return;
	}
	t->count++;
}

static struct tab firsts;	/* first instruction's key -> its length */
static struct tab suspects;	/* last instruction's key -> its block */

/* QEMU 7.2 ends a block before an instruction that crosses into the
 * next page, and starts the next block with it; but the plugin's view of
 * the first block still lists the instruction, with the length decoded
 * when the crossing was found (gzip: "je" at page offset 0xffc, 2 of its
 * 6 bytes), and that block never runs it.  So a last instruction that
 * may cross (it starts less than MAX_INSN bytes before a page end) is
 * such a part when a block starts at the same address with a longer
 * first instruction: whichever of the two is translated first, the first
 * block loses it.  Called with lock held. */
static void split_insn(struct tbinfo *t, uint64_t last_vaddr)
{
	uint64_t first = t->key[0], last = t->key[t->n - 1], v;

	if (first >> OBJ_SHIFT) {
		tab_set(&firsts, first, 0, t->first_len);
		if ((v = tab_get(&suspects, first, 0))) {
			struct tbinfo *s = (struct tbinfo *)(uintptr_t)v;

			if (s->n > 1 && s->key[s->n - 1] == first && t->first_len > s->last_len)
				s->n--;
		}
	}
	if (t->n < 2 || (last_vaddr & 4095) + MAX_INSN <= 4096 || !(last >> OBJ_SHIFT))
		return;
	v = tab_get(&firsts, last, 0);
	if (v > t->last_len)
		t->n--;
	else if (!v)
		tab_set(&suspects, last, 0, (uintptr_t)t);
}

/* Where the code at guest address va is: its key, and 1 if a block
 * there may be a PLT entry (or its bytes cannot be read).  Called with
 * lock held. */
static int target_of(uint64_t va, uint64_t *key)
{
	uint64_t h = va + guest_base;
	const struct map *m;

	*key = key_of(h);
	m = maps_find(h);
	return !m || !m->readable ||
	       arch->at_stub((const uint8_t *)(uintptr_t)h, m->end - h < 16 ? m->end - h : 16);
}

/* Whether a block's successor must be seen to count its calls (dyn), or
 * its call is fixed (a direct call, or a direct jump to a function's
 * first instruction: the callee is known at translation), or it never
 * calls (a direct jump that cannot reach a function's first
 * instruction).  A PLT entry at the target, whose callee is where it
 * goes, leaves it to the successor.  The successors of a block that is
 * not dyn need not look for a caller: why on_light is cheap.  Called
 * with lock held. */
static void classify(struct tbinfo *t, const uint8_t *last, size_t len, uint64_t last_va)
{
	int64_t rel = 0;
	int kind = arch->direct ? arch->direct(last, len, &rel) : DIRECT_NONE;
	uint64_t next = last_va + len, to = next + (uint64_t)rel, key, fkey;

	t->dyn = t->call || t->jump;
	if (!t->dyn || kind == DIRECT_NONE || target_of(to, &key))
		return;
	if (kind == DIRECT_CALL || (kind == DIRECT_JMP && is_entry(key))) {
		t->fixed = 1;
		t->fixed_callee = key;
		t->dyn = 0;
	} else if (kind == DIRECT_JMP || (kind == DIRECT_JCC && !is_entry(key) &&
					  !target_of(next, &fkey) && !is_entry(fkey))) {
		t->dyn = 0;
	}
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), len = 0;
	struct tbinfo *t;
	const uint8_t *last = NULL;

	(void)id;
	if (!n)
		return;
	t = xcalloc(1, sizeof(*t) + n * sizeof(uint64_t));
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t h = (uint64_t)(uintptr_t)qemu_plugin_insn_haddr(insn);

		if (!have_base) {
			guest_base = h - qemu_plugin_insn_vaddr(insn);
			have_base = 1;
		}
		t->key[i] = key_of(h);
		last = qemu_plugin_insn_data(insn);
		len = qemu_plugin_insn_size(insn);
	}
	t->n = (uint32_t)n;
	t->first_len = (uint8_t)qemu_plugin_insn_size(qemu_plugin_tb_get_insn(tb, 0));
	t->last_len = (uint8_t)len;
	split_insn(t, qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, n - 1)));
	t->call = arch->is_call(last, len);
	t->stub = !t->call && arch->is_stub(last, len, n);
	t->jump = !t->call && !t->stub && arch->is_jump(last, len);
	t->entry = is_entry(t->key[0]);
	classify(t, last, len, qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, n - 1)));
	if (ntbs / CHUNK >= MAX_CHUNKS) {	/* never seen: 2^27 blocks */
		pthread_mutex_unlock(&lock);
		free(t);
		return;
	}
	t->id = (uint32_t)ntbs;
	if (ntbs == cap_tbs && !(tbs = realloc(tbs, (cap_tbs = cap_tbs ? 2 * cap_tbs : 4096) * sizeof(*tbs))))
		abort();
	tbs[ntbs++] = t;
	pthread_mutex_unlock(&lock);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, t->stub ? on_stub :
					     t->entry || t->dyn ? on_block : on_light,
					     QEMU_PLUGIN_CB_NO_REGS, t);
}

/* Forget every count: a fork's child, or an image that was written. */
static void reset(void)
{
	for (size_t v = 0; v < MAX_VCPUS; v++) {
		struct vcpu *c = vcpus[v];

		if (!c)
			continue;
		for (size_t k = 0; k < MAX_CHUNKS; k++)
			if (c->chunk[k])
				memset(c->chunk[k], 0, CHUNK * sizeof(uint64_t));
		tab_free(&c->calls);
		c->caller = NULL;
	}
	for (size_t i = 0; i < ntbs; i++)
		tbs[i]->count = 0, tbs[i]->callee = NULL, tbs[i]->ncallee = 0;
	tab_free(&calls0);
	caller0 = NULL;
	not_followed = 0;
}

/* ---- the count file ---- */

static int cmp_keys(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) :
	       x[1] != y[1] ? (x[1] < y[1] ? -1 : 1) : 0;
}

/* t's entries as (k1, k2, count) triples, sorted: the same file for the
 * same run, whatever the order of translation. */
static uint64_t *tab_sorted(const struct tab *t)
{
	uint64_t *v = xcalloc(t->n ? 3 * t->n : 1, sizeof(uint64_t));
	size_t k = 0;

	for (size_t i = 0; i < t->cap; i++)
		if (t->v[i]) {
			v[3 * k] = t->k1[i], v[3 * k + 1] = t->k2[i], v[3 * k + 2] = t->v[i];
			k++;
		}
	qsort(v, t->n, 3 * sizeof(uint64_t), cmp_keys);
	return v;
}

static void put_key(FILE *f, uint64_t key)
{
	fprintf(f, " %llu %llx", (unsigned long long)(key >> OBJ_SHIFT) - 1,
		(unsigned long long)(key & ((1ull << OBJ_SHIFT) - 1)));
}

static void write_counts(FILE *f, const struct tab *insns, const struct tab *calls)
{
	uint64_t *iv = tab_sorted(insns), *cv = tab_sorted(calls);
	uint64_t why[3] = { 0 }, lost = 0;

	fprintf(f, "%s\npid %d\n", COUNT_MAGIC, (int)getpid());
	for (size_t i = 0; i < nobjs; i++)
		fprintf(f, "object %zu %s\n", i, objs[i]);
	for (size_t i = 0; i < insns->n; i++) {
		if (iv[3 * i] >> OBJ_SHIFT) {
			fputs("insn", f);
			put_key(f, iv[3 * i]);
			fprintf(f, " %llu\n", (unsigned long long)iv[3 * i + 2]);
		} else {
			why[iv[3 * i] < 3 ? iv[3 * i] : 2] += iv[3 * i + 2];
		}
	}
	for (size_t i = 0; i < calls->n; i++) {
		if (!(cv[3 * i] >> OBJ_SHIFT) || !(cv[3 * i + 1] >> OBJ_SHIFT)) {
			lost += cv[3 * i + 2];
			continue;
		}
		fputs("call", f);
		put_key(f, cv[3 * i]);
		put_key(f, cv[3 * i + 1]);
		fprintf(f, " %llu\n", (unsigned long long)cv[3 * i + 2]);
	}
	if (why[1])
		fprintf(f, "unattributed %s %llu\n", COUNT_WHY_ANON, (unsigned long long)why[1]);
	if (why[2])
		fprintf(f, "unattributed %s %llu\n", COUNT_WHY_NOMAP, (unsigned long long)why[2]);
	if (lost)
		fprintf(f, "calls.unattributed %llu\n", (unsigned long long)lost);
	if (not_followed)
		fprintf(f, "exec.not_followed %llu\n", (unsigned long long)not_followed);
	fputs("end\n", f);
	free(iv);
	free(cv);
}

/* Every vCPU's counts, added up by instruction and by call. */
static void dump(void)
{
	struct tab insns = { 0 }, calls = { 0 };
	char path[PATH_MAX + 64];
	FILE *f = NULL;
	int fd = -1;

	if (skip_image) {
		skip_image = 0;
		return;
	}
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < ntbs; i++) {
		const struct tbinfo *t = tbs[i];

		for (uint32_t k = 0; t->count && k < t->n; k++)
			tab_add(&insns, t->key[k], 0, t->count);
		if (t->fixed && t->count)
			tab_add(&calls, t->key[t->n - 1], t->fixed_callee, t->count);
		if (t->callee)
			tab_add(&calls, t->key[t->n - 1], t->callee->key[0], t->ncallee);
	}
	for (size_t i = 0; i < calls0.cap; i++)
		if (calls0.v[i])
			tab_add(&calls, calls0.k1[i], calls0.k2[i], calls0.v[i]);
	for (size_t v = 0; v < MAX_VCPUS; v++) {
		const struct vcpu *c = vcpus[v];

		if (!c)
			continue;
		for (size_t i = 0; i < ntbs; i++) {
			const uint64_t *ch = c->chunk[i / CHUNK];
			uint64_t n = ch ? ch[i % CHUNK] : 0;

			for (uint32_t k = 0; n && k < tbs[i]->n; k++)
				tab_add(&insns, tbs[i]->key[k], 0, n);
			if (tbs[i]->fixed && n)
				tab_add(&calls, tbs[i]->key[tbs[i]->n - 1],
					tbs[i]->fixed_callee, n);
		}
		for (size_t i = 0; i < c->calls.cap; i++)
			if (c->calls.v[i])
				tab_add(&calls, c->calls.k1[i], c->calls.k2[i],
					c->calls.v[i]);
	}
	for (unsigned seq = 0; fd < 0 && seq < 1000; seq++) {
		snprintf(path, sizeof(path), "%s/%s%d.%u", dir, COUNT_FILE_PREFIX,
			 (int)getpid(), seq);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd >= 0 && (f = fdopen(fd, "w"))) {
		write_counts(f, &insns, &calls);
		if (fclose(f))
			fprintf(stderr, "pgoprof-count: %s: %s\n", path, strerror(errno));
	} else {
		fprintf(stderr, "pgoprof-count: cannot write %s: %s\n", path, strerror(errno));
	}
	pthread_mutex_unlock(&lock);
	tab_free(&insns);
	tab_free(&calls);
}

static void on_exit_(qemu_plugin_id_t id, void *udata)
{
	(void)id, (void)udata;
	dump();
}

/* ---- processes ---- */

/* The guest's NULL-terminated vector of pointers at guest address g, as
 * host pointers (64-bit guests only).  NULL if too long. */
static char **guest_vector(uint64_t g)
{
	const uint64_t *v = (const uint64_t *)(uintptr_t)(g + guest_base);
	size_t n = 0;
	char **h;

	if (!g)
		return xcalloc(1, sizeof(char *));
	while (v[n] && n < 1 << 20)
		n++;
	h = xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		h[i] = (char *)(uintptr_t)(v[i] + guest_base);
	return h;
}

/* 1 if path is an ELF file this QEMU runs. */
static int runs_here(const char *path)
{
	unsigned char h[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return 0;
	ok = read(fd, h, sizeof(h)) == (ssize_t)sizeof(h) && !memcmp(h, ELFMAG, SELFMAG) &&
	     h[EI_CLASS] == ELFCLASS64 && h[EI_DATA] == ELFDATA2LSB &&
	     (uint16_t)(h[18] | h[19] << 8) == arch->machine;
	close(fd);
	return ok;
}

/* A "#!" script's interpreter and its one optional argument, split as
 * the kernel does (fs/binfmt_script.c).  0, or -1 if path is no script. */
static int script(const char *path, char *buf, size_t size, char **interp, char **arg)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);
	char *p;

	if (fd >= 0)
		close(fd);
	if (n < 3 || buf[0] != '#' || buf[1] != '!')
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	for (p = buf + 2; *p == ' ' || *p == '\t'; p++)
		;
	*interp = p;
	p += strcspn(p, " \t");
	*arg = NULL;
	if (*p) {
		*p++ = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		for (char *e = p + strlen(p); e > p && (e[-1] == ' ' || e[-1] == '\t'); )
			*--e = '\0';
		*arg = *p ? p : NULL;
	}
	return **interp ? 0 : -1;
}

/* execve(path, argv, envp) of the guest, followed: write this image's
 * counts and exec QEMU with this plugin on the new program.  Returns if
 * that cannot be done, and the guest's own execve then runs. */
static void follow_exec(uint64_t gpath, uint64_t gargv, uint64_t genvp)
{
	const char *path = (const char *)(uintptr_t)(gpath + guest_base);
	char line[PATH_MAX + 256], self[64], *interp = NULL, *arg = NULL;
	char **argv, **envp, **nargv;
	size_t n = 0, k = 0;

	if (!have_base || !gpath)
		return;
	/* The guest's own program, not QEMU (which /proc/self/exe is here). */
	snprintf(self, sizeof(self), "/proc/%d/exe", (int)getpid());
	if (!strcmp(path, "/proc/self/exe") || !strcmp(path, self))
		path = qemu_plugin_path_to_binary();
	if (!path || access(path, X_OK))
		return;
	if (!runs_here(path) &&
	    (script(path, line, sizeof(line), &interp, &arg) || !runs_here(interp))) {
		not_followed++;	/* its execve replaces this image */
		dump();
		reset();
		return;
	}
	argv = guest_vector(gargv);
	envp = guest_vector(genvp);
	while (argv[n])
		n++;
	nargv = xcalloc(n + 10, sizeof(char *));
	nargv[k++] = qemu_exe;
	nargv[k++] = "-plugin";
	nargv[k++] = spec;
	nargv[k++] = "-0";
	if (interp) {		/* as the kernel: interp [arg] path argv[1..] */
		nargv[k++] = interp;
		nargv[k++] = interp;
		if (arg)
			nargv[k++] = arg;
		nargv[k++] = (char *)path;
	} else {
		nargv[k++] = n ? argv[0] : (char *)path;
		nargv[k++] = (char *)path;
	}
	for (size_t i = 1; i < n; i++)
		nargv[k++] = argv[i];
	dump();
	reset();
	execve(qemu_exe, nargv, envp);
	free(nargv), free(argv), free(envp);
}

static void on_syscall(qemu_plugin_id_t id, unsigned int v, int64_t num,
		       uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
		       uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8)
{
	struct vcpu *c = vcpu_of(v);

	(void)id, (void)a5, (void)a6, (void)a7, (void)a8;
	c->sysno = num;
	c->sysarg = a1;
	if (num == arch->nr_execve) {
		follow_exec(a1, a2, a3);
	} else if (num == arch->nr_execveat) {
		/* Not followed (a directory file descriptor, fexecve): the
		 * counts so far are written, the program runs uncounted. */
		not_followed++;
		dump();
		reset();
	}
	/* A mapping that can replace code already looked up. */
	else if (num == arch->nr_munmap || num == arch->nr_mremap ||
		 (num == arch->nr_mmap && (a4 & 0x10 /* MAP_FIXED */)))
		__atomic_store_n(&maps_dirty, 1, __ATOMIC_RELAXED);
}

static void on_syscall_ret(qemu_plugin_id_t id, unsigned int v, int64_t num,
			   int64_t ret)
{
	(void)id, (void)v;
	/* 0 from fork, vfork or a clone is the child process: a thread does
	 * not return through here (QEMU starts it in its loop). */
	if (!ret && (num == arch->nr_fork || num == arch->nr_vfork ||
		     num == arch->nr_clone)) {
		pthread_mutex_lock(&lock);
		reset();
		pthread_mutex_unlock(&lock);
	}
}

static void on_vcpu_init(qemu_plugin_id_t id, unsigned int v)
{
	(void)id;
	vcpu_of(v)->caller = NULL;	/* an index reused by a new thread */
}

/* Arguments: dir=DIR (required): where the count files go; skip=1: do
 * not write the first process image's counts. */
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	Dl_info self;
	ssize_t n;

	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (!strcmp(info->target_name, arches[i].name))
			arch = &arches[i];
	if (!arch || info->system_emulation) {
		fprintf(stderr, "pgoprof-count: %s %s emulation is not supported (x86_64 and aarch64 user mode are)\n",
			info->target_name, info->system_emulation ? "system" : "user");
		return -1;
	}
	for (int i = 0; i < argc; i++)
		if (!strncmp(argv[i], "dir=", 4))
			snprintf(dir, sizeof(dir), "%s", argv[i] + 4);
		else if (!strcmp(argv[i], "skip=1"))
			skip_image = 1;
	n = readlink("/proc/self/exe", qemu_exe, sizeof(qemu_exe) - 1);
	if (!dir[0] || n <= 0 || !dladdr((void *)qemu_plugin_install, &self)) {
		fprintf(stderr, "pgoprof-count: give dir=DIR (pgoprof record --exact does)\n");
		return -1;
	}
	qemu_exe[n] = '\0';
	snprintf(spec, sizeof(spec), "%s,dir=%s", self.dli_fname, dir);
	elf_version(EV_CURRENT);
	qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
	qemu_plugin_register_vcpu_syscall_ret_cb(id, on_syscall_ret);
	qemu_plugin_register_atexit_cb(id, on_exit_, NULL);
	return 0;
}
