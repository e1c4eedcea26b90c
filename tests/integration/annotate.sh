#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pgoprof annotate (issue 31, item 3): one function's source lines with
# their self samples, and with --asm its instructions.
# - IP samples (perf script text at known addresses of tests/workloads/hot,
#   imported): 50 at hot_loop's first imul (mix, inlined at line 28), 30
#   at its entry: line 28 has 50 (62.50%), the function 80, and --asm puts
#   the 50 on the imul;
# - an exact-count profile (record --exact of tests/lbrsynth/progs/dispatch):
#   step's hottest line is line 27 with the count that report gives
#   dispatch.c:27;
# - a function that no binary has, and one without samples: status 1.
. "$(dirname "$0")/../lib.sh"

D=$WORK/annotate
rm -rf "$D"; mkdir -p "$D"; cd "$D" || exit 1
if ! $CLANG $PROF_CFLAGS -fPIC -shared -o libhot.so "$TOP/tests/workloads/libhot.c" 2>cc.err ||
   ! $CLANG $PROF_CFLAGS -fPIE -pie -o hot "$TOP/tests/workloads/hot.c" -L. -lhot 2>>cc.err; then
	fail "annotate: build hot" "$(head -n 2 cc.err | tr '\n' ' ')"; exit 0
fi
bid=$(readelf -n hot | awk '/Build ID/ { print $3 }')
set -- $(readelf -lW hot | awk '$1 == "LOAD" && /R E/ { print $2, $3 }')
off=$1 va=$2
entry=$(nm hot | awk '$3 == "hot_loop" { print $1 }')
imul=$(objdump -d --no-show-raw-insn hot | awk '/<hot_loop>:/ { m = 1 } m && /^$/ { exit }
	m && /imul/ { sub(/:.*/, ""); gsub(/ /, ""); print; exit }')
[ -n "$entry" ] && [ -n "$imul" ] || { fail "annotate: addresses of hot_loop" "entry $entry imul $imul"; exit 0; }
sample() { # COUNT ADDRESS
	i=0
	while [ $i -lt "$1" ]; do
		printf 'hot 100/100 10.%06d:     250000 cpu-clock: \n\t%16x x (y)\n\n' $((1000 + i)) $((0x555555554000 + 0x$2))
		i=$((i + 1))
	done
}
{
	printf 'hot 100/100 10.000100: PERF_RECORD_MMAP2 100/100: [0x%x(0x1000) @ %s <%s>]: r-xp %s\n' \
		$((0x555555554000 + va)) "$off" "$bid" "$D/hot"
	sample 50 "$imul"
	sample 30 "$entry"
} >hot.txt
"$PGOPROF" import -q -o hot.raw hot.txt 2>import.err
"$PGOPROF" annotate hot.raw hot_loop >ann.txt 2>ann.err; rc=$?
check "annotate hot_loop: rc=$rc, 80 self samples, line 28 (mix inlined) has 50 (62.50%)" sh -c \
	"test $rc = 0 && grep -q '^# hot_loop (.*tests/workloads/hot.c:23) in hot.raw: 80 self samples' ann.txt &&
	 grep -q '^ *50  *62.50%  *28  *	*h = mix(h, (unsigned long)i);' ann.txt"
check "annotate hot_loop: the entry's 30 at line 24 or its first line" sh -c \
	"grep -q '^ *30  *37.50%  *2[34]  ' ann.txt"
"$PGOPROF" annotate hot.raw hot_loop --asm >asm.txt 2>asm.err; rc=$?
check "annotate --asm: the 50 samples on the imul at 0x$imul" sh -c \
	"test $rc = 0 && grep -q '^ *50  *62.50%  *$imul:  imul ' asm.txt"
"$PGOPROF" annotate hot.raw no_such_fn >/dev/null 2>none.err; rc=$?
check "annotate of a function no binary has: status 1, said" sh -c \
	"test $rc = 1 && grep -q 'no binary of its objects has a function no_such_fn' none.err"
"$PGOPROF" annotate hot.raw cold_path >cold.txt 2>cold.err; rc=$?
check "annotate of a function without samples: status 1, nothing written" sh -c \
	"test $rc = 1 && grep -q 'cold_path has no samples' cold.err && ! test -s cold.txt"

if ! command -v valgrind >/dev/null; then
	skip "annotate exact" "valgrind is not installed (make deps installs it)"; exit 0
fi
$CLANG -O2 -g -o dispatch "$TOP/tests/lbrsynth/progs/dispatch.c" &&
	"$PGOPROF" record --exact -q -o d.raw -- ./dispatch 400 >/dev/null 2>rec.err ||
	{ fail "annotate: record --exact dispatch"; exit 0; }
"$PGOPROF" annotate d.raw step >step.txt 2>step.err; rc=$?
top=$(grep -v '^#' step.txt | sort -k1,1nr | head -n 1 | awk '{ print $3, $1 }')
want=$("$PGOPROF" report d.raw -n 0 | awk '$3 ~ /dispatch.c:27$/ && $4 == "step" { print $1 }')
check "annotate an exact profile: step's hottest line is 27, with report's count ($top; report $want)" sh -c \
	"test $rc = 0 && test -n '$want' && test '$top' = '27 $want'"
