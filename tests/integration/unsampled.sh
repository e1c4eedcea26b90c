#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# --unsampled (docs/convert.md, section 10): the lines of a sampled
# function that got no sample.  step() runs 3,000,000 times; its line
# "sink = s ^ 0x5a5a" runs once and its line "sink = 0" never.  2,000
# execution-proportional samples are drawn (seeded, so the same on every
# run) by build/bench/expsample from an exact-count recording: the rare
# lines get none.
#  - afdo (auto: floor): both lines are in step's profile with count 1,
#    a sample counts 100, and convert says so in one line;
#  - LLVM text (auto): the same; afdo with --unsampled omit: neither
#    line;
#  - exact counts with --unsampled floor: left off, in one line;
#  - mix()'s if line holds a hot branch and one that never runs, each its
#    own discriminator, and GCC folds a line's discriminators by their
#    minimum: execution samples floor the discriminator that got no sample
#    (it ran rarely), time samples (the same ones, marked signal=time) do
#    not (skid leaves hot blocks without samples), so the line keeps its
#    count;
#  - gcc reads the floored profile without a warning.
. "$(dirname "$0")/../lib.sh"

GCC=${GCC:-gcc}
need_tool unsampled "$GCC" gcc || exit 0
need_expsample unsampled || exit 0
D=$WORK/unsampled
rm -rf "$D"; mkdir -p "$D"; cd "$D" || exit 1
cat >u.c <<'C'
#include <stdio.h>
volatile unsigned sink;
__attribute__((noinline)) unsigned step(unsigned i)
{
	unsigned s = i * 2654435761u;
	if (i == 12345)
		sink = s ^ 0x5a5a;
	if (i == 0xffffffffu)
		sink = 0;
	return s >> 7;
}
__attribute__((noinline)) unsigned mix(unsigned i)
{
	unsigned s = i * 2654435761u;
	if (i & 1) s = s * 3 + (s >> 5); else if (i == 77777) sink = s;
	return s >> 3;
}
int main(void)
{
	unsigned s = 0;

	for (unsigned i = 0; i < 3000000; i++)
		s += step(i) + mix(i);
	printf("%u\n", s);
	return 0;
}
C
# Line offsets from step's first line (line 3).
RARE=4 NEVER=6 HOT=2
"$GCC" -O2 -g -o u u.c || { fail "unsampled: build"; exit 0; }
"$PGOPROF" record --exact -q -o exact.raw -- ./u >/dev/null 2>record.err ||
	{ fail "unsampled: record --exact" "$(tail -n 2 record.err | tr '\n' ' ')"; exit 0; }
"$XS" exact.raw -n 2000 --seed 1 -o ip.raw 2>/dev/null || { fail "unsampled: expsample"; exit 0; }
"$PGOPROF" convert ip.raw --binary u -f afdo -o floor.afdo 2>floor.err ||
	{ fail "unsampled: convert" "$(tail -n 2 floor.err | tr '\n' ' ')"; exit 0; }
"$PGOPROF" convert -q ip.raw --binary u -f afdo --unsampled omit -o omit.afdo &&
"$PGOPROF" convert -q ip.raw --binary u -f llvm-text -o ip.txt &&
"$PGOPROF" merge -f llvm-text -o floor.txt floor.afdo &&
"$PGOPROF" merge -f llvm-text -o omit.txt omit.afdo ||
	{ fail "unsampled: convert or merge"; exit 0; }

# count FILE OFFSET [FUNC]: FUNC's (step's) top-level body count at
# OFFSET (empty: none)
count() {
	awk -v o="$2" -v fn="${3:-step}" '/^[^ ]/ { f = index($0, fn ":") == 1 }
		f && $1 == o ":" { print $2; exit }' "$1"
}

check "unsampled: afdo floors a line that ran once without a sample ($(count floor.txt $RARE))" \
	test "$(count floor.txt $RARE)" = 1
check "unsampled: afdo floors a line that never ran ($(count floor.txt $NEVER))" \
	test "$(count floor.txt $NEVER)" = 1
h=$(count floor.txt $HOT) o=$(count omit.txt $HOT)
check "unsampled: afdo counts hundredths of a sample (hot line: $h against $o samples)" \
	test -n "$h" -a -n "$o" -a "$(( ${h:-0} - 100 * ${o:-0} ))" -le 100 -a "$(( 100 * ${o:-0} - ${h:-0} ))" -le 100
check "unsampled: convert says what the floor did" \
	grep -q "unsampled floor: a sample counts 100; [1-9][0-9]* lines" floor.err
check "unsampled: --unsampled omit leaves the lines out" \
	test -z "$(count omit.txt $RARE)$(count omit.txt $NEVER)" -a -n "$(count omit.txt $HOT)"
check "unsampled: LLVM formats floor them too" \
	test "$(count ip.txt $RARE)" = 1 -a "$(count ip.txt $NEVER)" = 1

"$XS" exact.raw -n 2000 --seed 1 --meta signal=time --meta event=cpu-clock -o time.raw 2>/dev/null &&
"$PGOPROF" convert -q ip.raw --binary u -f llvm-text --unsampled floor -o floor-llvm.txt &&
"$PGOPROF" convert -q time.raw --binary u -f llvm-text --unsampled floor -o time-llvm.txt &&
"$PGOPROF" convert -q time.raw --binary u -f afdo -o time.afdo &&
"$PGOPROF" convert -q time.raw --binary u -f llvm-text -o time-auto.txt &&
"$PGOPROF" merge -f llvm-text -o time.txt time.afdo &&
"$PGOPROF" convert -q exact.raw --binary u -f llvm-text -o exact.txt ||
	{ fail "unsampled: convert by signal"; exit 0; }
# mix's "if" line (offset 3): a discriminator that never ran in the exact
# profile (what the checks are about), and the lowest count of the line's
# discriminators in a floored profile
never=$(awk '/^[^ ]/ { f = /^mix:/ } f && /^ 3\.[0-9]+: 0$/' exact.txt | wc -l)
lowest() {
	awk '/^[^ ]/ { f = /^mix:/ } f && /^ 3(\.[0-9]+)?: / { sub(":", "", $2); if (m == "" || $2 + 0 < m) m = $2 + 0 } END { print m }' "$1"
}
check "unsampled: mix's if line has a discriminator that never ran ($never)" \
	test "$never" -ge 1
check "unsampled: execution samples floor an unsampled discriminator beside a sampled one ($(lowest floor-llvm.txt))" \
	test "$(lowest floor-llvm.txt)" = 1
check "unsampled: ... and afdo's folded line gets the floor ($(count floor.txt 3 mix))" \
	test "$(count floor.txt 3 mix)" = 1
check "unsampled: time samples floor no discriminator beside a sampled one ($(lowest time-llvm.txt))" \
	test "$(lowest time-llvm.txt)" -gt 1
check "unsampled: ... and afdo's folded line keeps its samples ($(count time.txt 3 mix))" \
	test "$(count time.txt 3 mix)" -gt 100
check "unsampled: time samples still floor a line without any sample ($(count time.txt $NEVER))" \
	test "$(count time.txt $NEVER)" = 1
check "unsampled: LLVM formats floor such lines from time samples too" \
	test "$(count time-auto.txt $NEVER)" = 1

"$PGOPROF" convert exact.raw --binary u -f afdo --unsampled floor -o exact.afdo 2>exact.err &&
"$PGOPROF" convert -q exact.raw --binary u -f afdo -o exact-auto.afdo 2>/dev/null
rc=$?
check "unsampled: --unsampled floor on exact counts is left off (exit $rc, the same profile)" \
	sh -c "test $rc = 0 && cmp -s exact.afdo exact-auto.afdo"
check "unsampled: ... and convert says so" grep -q "unsampled floor left off: the profile has exact counts" exact.err

"$GCC" -O2 -fauto-profile=floor.afdo -c -o u.o u.c 2>gcc.err
check "unsampled: gcc reads the floored profile without a warning" \
	test $? = 0 -a ! -s gcc.err
