#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# convert --cold-cut and --line0 on an exact-count profile (record --exact)
# of a small program whose counts are known: hot() runs 5,000,000 loop
# iterations, rare() runs once, and one line of hot() is given line 0 in
# the assembly (as a compiler does for code it cannot place), so the
# wrapped offset (0 - decl line) & 0xffff is certain to be there.
#  - --cold-cut 0: rare is in the profile, the line-0 record is there;
#  - no option (--cold-cut auto: 2e-6 for exact counts written for
#    clang) and --cold-cut 1e-6: rare (its count 1 is below 1e-6 of the
#    ~4.5e7 instructions run) is left out, hot stays, stderr counts it;
#    auto cuts nothing in afdo, nor in IP samples;
#  - --cold-cut summary: the same (hot's three lines at 5e6 hold all but
#    ~10 of the 1.5e7 body counts, more than 99.9999%);
#  - --line0 drop: no line-0 record, the other lines as they were, and
#    stderr counts the instructions left out.
. "$(dirname "$0")/../lib.sh"

if ! command -v valgrind >/dev/null; then
	skip "cold" "valgrind is not installed (make deps installs it)"; exit 0
fi
need_tool cold "$CLANG" clang-16 || exit 0
D=$WORK/cold
rm -rf "$D"; mkdir -p "$D"; cd "$D" || exit 1
# hot's declaration is on line 3; the marked line (6) becomes line 0.
cat >cold.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) unsigned hot(unsigned n, unsigned s)
{
	for (unsigned i = 0; i < n; i++)
		s = s * 31 + (i ^ (s >> 3));	/* line 6: made line 0 */
	return s;
}
__attribute__((noinline)) unsigned rare(unsigned s)
{
	return s * 7 + 1;
}
int main(int argc, char **argv)
{
	unsigned s = hot(5000000, (unsigned)argc);

	s = rare(s);
	printf("%u\n", s);
	return 0;
}
EOF
$CLANG -O1 -g -gdwarf-4 -fdebug-info-for-profiling -S -o cold.s cold.c &&
	grep -q '^[[:space:]]*\.loc[[:space:]]\+[0-9]\+ 6 ' cold.s &&
	sed 's/^\([[:space:]]*\.loc[[:space:]]\+[0-9]\+\) 6 /\1 0 /' cold.s >cold0.s &&
	$CLANG -g -o cold cold0.s || { fail "cold: build (line 6 to line 0)"; exit 0; }
"$PGOPROF" record --exact -q -o cold.raw -- ./cold >cold.out 2>record.err \
	|| { fail "cold: record --exact" "$(tail -n 2 record.err | tr '\n' ' ')"; exit 0; }
conv() { # NAME RAW OPTS...: NAME.txt and NAME.err
	n=$1 r=$2; shift 2
	"$PGOPROF" convert $r --binary cold -f llvm-text -o $n.txt "$@" 2>$n.err
}
conv plain cold.raw --cold-cut 0 && conv cut cold.raw --cold-cut 1e-6 &&
	conv summary cold.raw --cold-cut summary && conv auto cold.raw &&
	conv l0 cold.raw --cold-cut 0 --line0 drop || { fail "cold: convert" "$(cat ./*.err | tail -n 3 | tr '\n' ' ')"; exit 0; }
# (0 - 3) & 0xffff
L0=65533
has_l0() { awk -v l=$L0 '/^hot:/ { on = 1; next } /^[^ ]/ { on = 0 } on && $1 ~ "^" l "[:.]" { f = 1 } END { exit !f }' "$1"; }
body() { awk '/^hot:/ { on = 1; next } /^[^ ]/ { on = 0 } on' "$1" | grep -v "^ $L0[:.]"; }

n="cold: --cold-cut 0: rare (one call in 5e6 loop iterations) and hot's line-0 record $L0 are there"
if grep -q '^rare:' plain.txt && has_l0 plain.txt; then pass "$n"; else fail "$n" "$(head -c 300 plain.txt)"; fi
for v in auto cut summary; do
	check "cold: --cold-cut ($v) leaves rare out, keeps hot, says so" sh -c \
		"! grep -q '^rare:' $v.txt && grep -q '^hot:' $v.txt &&
		 grep -q -- '--cold-cut.*: counts below [0-9]* left out: .* [1-9][0-9]* functions' $v.err"
done
body plain.txt >plain.body; body l0.txt >l0.body
if has_l0 l0.txt; then fail "cold: --line0 drop: no record at $L0" "$(grep " $L0" l0.txt)"
else pass "cold: --line0 drop: no record at $L0"; fi
check "cold: no option is --cold-cut auto, 2e-6 of the instructions for exact counts" \
	grep -q -- '--cold-cut auto (exact counts, clang): counts below [1-9]' auto.err
"$PGOPROF" convert cold.raw --binary cold -f afdo -o auto.afdo 2>afdo.err
check "cold: --cold-cut auto leaves gcc's afdo alone" sh -c \
	"test -s auto.afdo && ! grep -q -- '--cold-cut' afdo.err"
check "cold: --line0 drop: the other lines of hot as they were, the instructions left out counted" sh -c \
	"cmp plain.body l0.body && grep -q '[1-9][0-9]* instructions at line 0 left out' l0.err"
# IP samples (execution-proportional ones drawn from the exact counts,
# seeded: the same samples every run) take the other path, add_count.
if [ -x "$BUILD/bench/expsample" ] &&
	"$BUILD/bench/expsample" cold.raw -n 50000 --seed 1 -o sim.raw 2>sim.log; then
	conv simplain sim.raw && conv siml0 sim.raw --line0 drop
	if has_l0 simplain.txt && ! has_l0 siml0.txt &&
		grep -q '[1-9][0-9]* samples at line 0 left out' siml0.err &&
		! grep -q -- '--cold-cut' simplain.err; then
		pass "cold: IP samples: --line0 drop leaves the line-0 samples out; auto cuts nothing"
	else fail "cold: IP samples: --line0 drop leaves the line-0 samples out; auto cuts nothing" "$(cat siml0.err | tr '\n' ' ')"; fi
else
	skip "cold: IP samples" "no $BUILD/bench/expsample (make unit-tests builds it)"
fi
