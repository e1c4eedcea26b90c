/* SPDX-License-Identifier: GPL-2.0-only */
/* Instruction kinds (convert/insn.c), on hand-assembled x86-64 bytes:
 * the REP string flag (INSN_REPEAT) is set by the prefix and the opcode
 * together, never by an F2/F3 byte that is part of another instruction. */
#include "check.h"
#include "../../convert/insn.h"

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

static struct insn_dec *dec;

/* The kind of the instruction in bytes b (n of them), and that it decodes
 * to all n bytes. */
static unsigned kind_of(const uint8_t *b, size_t n)
{
	uint32_t len = 0;
	unsigned k = insn_kind(dec, b, n, 0x1000, &len);

	CHECK(len == n);
	return k;
}

#define KIND(...) kind_of((const uint8_t[]){ __VA_ARGS__ }, \
			  sizeof((const uint8_t[]){ __VA_ARGS__ }))

static void test_repeat(void)
{
	CHECK(KIND(0xf3, 0x48, 0xab) == INSN_REPEAT);		/* rep stosq */
	CHECK(KIND(0xf3, 0xa4) == INSN_REPEAT);			/* rep movsb */
	CHECK(KIND(0xf3, 0x48, 0xa5) == INSN_REPEAT);		/* rep movsq */
	CHECK(KIND(0x66, 0xf3, 0xab) == INSN_REPEAT);		/* rep stosw */
	CHECK(KIND(0xf2, 0xae) == INSN_REPEAT);			/* repne scasb */
	CHECK(KIND(0xf3, 0xa6) == INSN_REPEAT);			/* repe cmpsb */
	CHECK(KIND(0xf3, 0xac) == INSN_REPEAT);			/* rep lodsb */
}

static void test_not_repeat(void)
{
	CHECK(KIND(0x48, 0xab) == INSN_NONE);			/* stosq */
	CHECK(KIND(0xa4) == INSN_NONE);				/* movsb */
	CHECK(KIND(0xf3, 0xc3) == INSN_RET);			/* rep ret */
	CHECK(KIND(0xf2, 0x0f, 0x10, 0xc1) == INSN_NONE);	/* movsd %xmm1,%xmm0 */
	CHECK(KIND(0xf3, 0x0f, 0xb8, 0xc0) == INSN_NONE);	/* popcnt %eax,%eax */
	CHECK(KIND(0xf3, 0x90) == INSN_NONE);			/* pause */
	CHECK(KIND(0xf3, 0x0f, 0x1e, 0xfa) == INSN_NONE);	/* endbr64 */
}

static unsigned walked[8];
static size_t nwalked;

static void record(uint64_t addr, uint32_t len, unsigned kind, void *a)
{
	(void)addr; (void)len; (void)a;
	if (nwalked < 8)
		walked[nwalked] = kind;
	nwalked++;
}

static void test_walk_kinds(void)
{
	static const uint8_t code[] = { 0x48, 0x89, 0xf1, 0x31, 0xc0,
					0xf3, 0x48, 0xab, 0xc3 };
	size_t n = 0;

	insn_walk(dec, code, sizeof(code), 0x1000, 1, record, NULL, &n);
	CHECK(n == 4 && nwalked == 4);
	CHECK(walked[0] == INSN_NONE && walked[1] == INSN_NONE);
	CHECK(walked[2] == INSN_REPEAT);
	CHECK(walked[3] == INSN_RET);
}

int main(void)
{
	if (insn_open(EM_X86_64, &dec) || !dec) {
		printf("SKIP test_insn: capstone cannot decode x86-64\n");
		return 0;
	}
	RUN(test_repeat);
	RUN(test_not_repeat);
	RUN(test_walk_kinds);
	insn_close(dec);
	return tests_failed != 0;
}
