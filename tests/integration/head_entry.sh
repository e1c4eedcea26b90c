#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# HEAD of IP samples (docs/convert.md, section 7): the samples at the
# function's entry location, not those of code inlined at the entry's
# line.  outer() is written on one line, so its entry code and the loop of
# the always_inline spin() share its first line; it is entered 100 times
# and runs 10^7 loop iterations.  leaf() is entered 2,000,000 times and
# has no loop.  The samples are execution-proportional ones drawn by
# build/bench/expsample (seeded) from an exact-count recording, so they
# are the same on every run.
#  - outer's HEAD is at most 1% of its TOTAL (the rule before counted all
#    of spin's samples: HEAD = TOTAL);
#  - leaf's HEAD is at least a quarter of its TOTAL (its entry line is
#    half of its code).
. "$(dirname "$0")/../lib.sh"

need_tool head_entry "$CLANG" clang-16 || exit 0
need_expsample head_entry || exit 0
D=$WORK/head_entry
rm -rf "$D"; mkdir -p "$D"; cd "$D" || exit 1
cat >h.c <<'C'
#include <stdio.h>
volatile unsigned seen;
static inline __attribute__((always_inline)) unsigned spin(unsigned n, unsigned s)
{
	for (unsigned i = 0; i < n; i++)
		s = s * 31 + (i ^ (s >> 3));
	return s;
}
__attribute__((noinline)) unsigned outer(unsigned n, unsigned s) { seen++; s = spin(n, s); seen++; return s; }
__attribute__((noinline)) unsigned leaf(unsigned s)
{
	seen++;
	return s * 7 + 1;
}
int main(int argc, char **argv)
{
	unsigned s = (unsigned)argc;

	(void)argv;
	for (int k = 0; k < 100; k++)
		s = outer(100000, s);
	for (int k = 0; k < 2000000; k++)
		s = leaf(s);
	printf("%u\n", s);
	return 0;
}
C
$CLANG -O2 -g -gdwarf-4 -fdebug-info-for-profiling -o h h.c || { fail "head_entry: build"; exit 0; }
"$PGOPROF" record --exact -q -o exact.raw -- ./h >/dev/null 2>record.err ||
	{ fail "head_entry: record --exact" "$(tail -n 2 record.err | tr '\n' ' ')"; exit 0; }
"$XS" exact.raw -n 200000 --seed 1 -o ip.raw 2>/dev/null || { fail "head_entry: expsample"; exit 0; }
"$PGOPROF" convert -q ip.raw --binary h -f llvm-text -o ip.txt ||
	{ fail "head_entry: convert"; exit 0; }
# head FUNC: "TOTAL HEAD" of FUNC's top-level line
head_of() { awk -F: -v f="$1" '$1 == f { print $2, $3 }' ip.txt; }

set -- $(head_of outer)
check "head_entry: code inlined at the entry's line is not counted as entries (outer $*)" \
	test -n "$1" -a "$1" -gt 1000 -a "$(( ${2:-0} * 100 ))" -le "$1"
set -- $(head_of leaf)
check "head_entry: a function entered often has its entry samples as HEAD (leaf $*)" \
	test -n "$1" -a "$1" -gt 1000 -a "$(( ${2:-0} * 4 ))" -ge "$1"
