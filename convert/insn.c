/* SPDX-License-Identifier: GPL-2.0-only */
/* Two capstone handles: one with instruction details (groups, operands)
 * for the questions that need them, one without for whole-function walks,
 * which then look a kind up by instruction id (detail decoding is several
 * times slower). */
#include "insn.h"
#include "../lib/util.h"

#include <capstone/capstone.h>
#include <dlfcn.h>
#include <elf.h>
#include <stdlib.h>

/* capstone is loaded when the first decoder is opened, not when pgoprof
 * starts: relocating its tables cost every pgoprof command ~370 page
 * faults (12-19 ms here), `pgoprof record` too, which decodes nothing
 * (bench/results/collector-startup.md).  Its soname is its API's major
 * version (capstone's CMakeLists.txt, SOVERSION), the one of the header
 * compiled against. */
#define CS_STR2(x) #x
#define CS_STR(x) CS_STR2(x)
#define CAPSTONE_SONAME "libcapstone.so." CS_STR(CS_API_MAJOR)

static struct {
	__typeof__(cs_open) *open;
	__typeof__(cs_option) *option;
	__typeof__(cs_malloc) *malloc;
	__typeof__(cs_free) *free;
	__typeof__(cs_close) *close;
	__typeof__(cs_disasm_iter) *disasm_iter;
	__typeof__(cs_insn_group) *insn_group;
} cs;

/* capstone's name from lib, or NULL after a message. */
static void *cs_sym(void *lib, const char *name)
{
	void *f = dlsym(lib, name);

	if (!f)
		err("%s: no %s: %s", CAPSTONE_SONAME, name, dlerror());
	return f;
}

/* Loads capstone once: 0, or -1 after one message (and again at the next
 * call, which tries again).  capstone decodes every instruction that
 * convert reads, so the caller fails; pgoprof without it was refused by
 * the dynamic loader before. */
static int load_capstone(void)
{
	void *lib;

	if (cs.open)
		return 0;
	lib = dlopen(CAPSTONE_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return err("cannot load capstone, to decode instructions: %s", dlerror());
	if (!(cs.option = cs_sym(lib, "cs_option")) ||
	    !(cs.malloc = cs_sym(lib, "cs_malloc")) ||
	    !(cs.free = cs_sym(lib, "cs_free")) ||
	    !(cs.close = cs_sym(lib, "cs_close")) ||
	    !(cs.disasm_iter = cs_sym(lib, "cs_disasm_iter")) ||
	    !(cs.insn_group = cs_sym(lib, "cs_insn_group")) ||
	    !(cs.open = cs_sym(lib, "cs_open"))) {	/* last: the mark of a load */
		dlclose(lib);
		return -1;
	}
	return 0;
}

struct insn_dec {
	csh cs;			/* with instruction details (groups) */
	csh cs_fast;		/* without: for whole-function walks */
	int x86;
	cs_insn *insn;		/* decoded by cs, for one-instruction queries */
	cs_insn *insn_fast;	/* decoded by cs_fast, likewise */
	/* An instruction's kind by capstone id, 1 + INSN_* once known
	 * (0 not yet): the groups it tests depend on the id alone. */
	uint8_t *kind_by_id;
	size_t nkind_by_id;
};

int insn_open(unsigned e_machine, struct insn_dec **out)
{
	cs_arch arch = e_machine == EM_X86_64 ? CS_ARCH_X86 : CS_ARCH_ARM64;
	cs_mode mode = e_machine == EM_X86_64 ? CS_MODE_64 : CS_MODE_ARM;
	struct insn_dec *d;

	*out = NULL;
	if (e_machine != EM_X86_64 && e_machine != EM_AARCH64)
		return 0;
	if (load_capstone())
		return -1;
	d = xcalloc(1, sizeof(*d));
	if (cs.open(arch, mode, &d->cs) != CS_ERR_OK) {
		free(d);
		return 0;
	}
	cs.option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	if (cs.open(arch, mode, &d->cs_fast) != CS_ERR_OK) {
		cs.close(&d->cs);
		free(d);
		return 0;
	}
	d->x86 = e_machine == EM_X86_64;
	d->insn = cs.malloc(d->cs);
	d->insn_fast = cs.malloc(d->cs_fast);
	d->nkind_by_id = d->x86 ? X86_INS_ENDING : ARM64_INS_ENDING;
	d->kind_by_id = xcalloc(d->nkind_by_id, 1);
	*out = d;
	return 0;
}

void insn_close(struct insn_dec *d)
{
	if (!d)
		return;
	cs.free(d->insn, 1);
	cs.free(d->insn_fast, 1);
	cs.close(&d->cs);
	cs.close(&d->cs_fast);
	free(d->kind_by_id);
	free(d);
}

/* The kind of an instruction decoded with details. */
static unsigned detailed_kind(struct insn_dec *d, const cs_insn *insn)
{
	if (d->x86) {
		const cs_x86 *x = &insn->detail->x86;

		if (insn->id == X86_INS_JMP)
			return x->op_count == 1 && x->operands[0].type == X86_OP_IMM
				       ? INSN_JUMP : INSN_BRANCH;
	} else {
		switch (insn->id) {
		case ARM64_INS_BL:
		case ARM64_INS_BLR:
			return INSN_CALL;
		case ARM64_INS_RET:
			return INSN_RET;
		case ARM64_INS_B:
			return insn->detail->arm64.cc == ARM64_CC_INVALID ||
			       insn->detail->arm64.cc == ARM64_CC_AL
				       ? INSN_JUMP : INSN_BRANCH;
		}
	}
	if (cs.insn_group(d->cs, insn, CS_GRP_CALL))
		return INSN_CALL;
	if (cs.insn_group(d->cs, insn, CS_GRP_RET) ||
	    cs.insn_group(d->cs, insn, CS_GRP_IRET))
		return INSN_RET;
	if (cs.insn_group(d->cs, insn, CS_GRP_JUMP))
		return INSN_BRANCH;
	return INSN_NONE;
}

/* The kind of an instruction decoded without details (at code): by its id
 * once one of that id has been decoded with details; again with details
 * where the kind depends on the operands (a direct or indirect jump). */
static unsigned fast_kind(struct insn_dec *d, const cs_insn *insn,
			  const uint8_t *code)
{
	unsigned id = insn->id;
	int by_operands = d->x86 ? id == X86_INS_JMP : id == ARM64_INS_B;
	size_t left = insn->size;
	uint64_t a = insn->address;
	unsigned kind;

	if (id < d->nkind_by_id && d->kind_by_id[id])
		return d->kind_by_id[id] - 1u;
	if (!cs.disasm_iter(d->cs, &code, &left, &a, d->insn))
		return INSN_NONE;	/* not reached: it decoded */
	kind = detailed_kind(d, d->insn);
	if (!by_operands && id < d->nkind_by_id)
		d->kind_by_id[id] = (uint8_t)(kind + 1);
	return kind;
}

/* INSN_REPEAT for an x86 instruction whose legacy prefixes (Intel SDM
 * vol. 2, 2.1.1) hold F2 or F3 and whose opcode, after an optional REX
 * prefix, is a one-byte string operation: ins/outs 6C-6F, movs A4-A5,
 * cmps A6-A7, stos AA-AB, lods AC-AD, scas AE-AF.  By bytes, not by
 * capstone's id: its ids do not tell SSE's movsd (F2 0F 10) from the
 * string movsd, and "rep ret" (F3 C3) is a return. */
static unsigned x86_repeat(const uint8_t *b, size_t n)
{
	int rep = 0;
	size_t i = 0;

	for (; i < n; i++) {
		if (b[i] == 0xf2 || b[i] == 0xf3)
			rep = 1;
		else if (b[i] != 0x66 && b[i] != 0x67 && b[i] != 0xf0 &&
			 b[i] != 0x2e && b[i] != 0x36 && b[i] != 0x3e &&
			 b[i] != 0x26 && b[i] != 0x64 && b[i] != 0x65)
			break;
	}
	if (i < n && (b[i] & 0xf0) == 0x40)
		i++;
	if (!rep || i >= n)
		return 0;
	return (b[i] >= 0x6c && b[i] <= 0x6f) || (b[i] >= 0xa4 && b[i] <= 0xa7) ||
	       (b[i] >= 0xaa && b[i] <= 0xaf) ? INSN_REPEAT : 0;
}

static unsigned walk_kind(struct insn_dec *d, const cs_insn *insn,
			  const uint8_t *code)
{
	unsigned kind = fast_kind(d, insn, code);

	return d->x86 ? kind | x86_repeat(code, insn->size) : kind;
}

unsigned insn_kind(struct insn_dec *d, const uint8_t *code, size_t left,
		   uint64_t addr, uint32_t *len)
{
	*len = 0;
	if (!cs.disasm_iter(d->cs_fast, &code, &left, &addr, d->insn_fast))
		return INSN_NONE;
	*len = d->insn_fast->size;
	return walk_kind(d, d->insn_fast, code - d->insn_fast->size);
}

uint32_t insn_text(struct insn_dec *d, const uint8_t *code, size_t left,
		   uint64_t addr, char *buf, size_t size)
{
	cs_insn *in = d->insn_fast;

	if (!cs.disasm_iter(d->cs_fast, &code, &left, &addr, in)) {
		snprintf(buf, size, "(bad)");
		return 0;
	}
	snprintf(buf, size, "%s%s%s", in->mnemonic, in->op_str[0] ? " " : "",
		 in->op_str);
	return in->size;
}

int insn_call_before(struct insn_dec *d, const uint8_t *end, size_t before,
		     uint64_t addr)
{
	int found = 0;

	/* x86 calls are 2 to 15 bytes (with prefixes); aarch64 BL/BLR are 4. */
	for (int len = d->x86 ? 2 : 4; len <= (d->x86 ? 15 : 4) && !found; len++) {
		const uint8_t *code = end - len;
		size_t left = (size_t)len;
		uint64_t a = addr - len;

		if (before < (size_t)len)
			break;
		if (cs.disasm_iter(d->cs, &code, &left, &a, d->insn))
			found = d->insn->size == len &&
				cs.insn_group(d->cs, d->insn, CS_GRP_CALL);
	}
	return found;
}

uint64_t insn_branch_target(struct insn_dec *d, const uint8_t *code,
			    size_t left, uint64_t addr)
{
	uint64_t target = UINT64_MAX;

	if (!cs.disasm_iter(d->cs, &code, &left, &addr, d->insn) ||
	    !cs.insn_group(d->cs, d->insn, CS_GRP_JUMP))
		return UINT64_MAX;
	/* The target is the (last) immediate operand: x86 jmp/jcc have one,
	 * aarch64 cbz/tbz put it after the register and bit. */
	if (d->x86) {
		const cs_x86 *x = &d->insn->detail->x86;

		for (int i = 0; i < x->op_count; i++)
			if (x->operands[i].type == X86_OP_IMM)
				target = (uint64_t)x->operands[i].imm;
	} else {
		const cs_arm64 *x = &d->insn->detail->arm64;

		for (int i = 0; i < x->op_count; i++)
			if (x->operands[i].type == ARM64_OP_IMM)
				target = (uint64_t)x->operands[i].imm;
	}
	return target;
}

uint64_t insn_walk(struct insn_dec *d, const uint8_t *code, size_t left,
		   uint64_t addr, int with_kind,
		   void (*cb)(uint64_t addr, uint32_t len, unsigned kind,
			      void *arg),
		   void *arg, size_t *n)
{
	/* Its own instruction: cb may ask single-instruction questions. */
	cs_insn *insn = cs.malloc(d->cs_fast);

	while (cs.disasm_iter(d->cs_fast, &code, &left, &addr, insn)) {
		cb(insn->address, insn->size,
		   with_kind ? walk_kind(d, insn, code - insn->size) : INSN_NONE,
		   arg);
		(*n)++;
	}
	cs.free(insn, 1);
	return addr;
}
