#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# An exact-count profile (pgoprof record --exact: single-instruction
# ranges and call edges, no IP samples, no stacks) in the viewers (issue
# 31, item 4), on tests/lbrsynth/progs/dispatch.c (main calls step 400
# times and each of op_add..op_xor 100 times):
# - show --format pprof writes each instruction's count as a sample of
#   type instructions/count: all the executions of the profile, and
#   imported back, main's self count is report's;
# - report -f step: main calls it 400 times; report -f main: its callees
#   are calls, op_add 100;
# - report --folded and --svg draw stacks estimated from the calls, said
#   on stderr and in the SVG's title: main;step has step's executions;
# - no viewer writes an empty output with status 0: a profile whose only
#   object has no binary, and one with no samples, fail in one line.
. "$(dirname "$0")/../lib.sh"

if ! command -v valgrind >/dev/null; then
	skip "viewers_exact" "valgrind is not installed (make deps installs it)"; exit 0
fi
D=$WORK/viewers_exact
rm -rf "$D"; mkdir -p "$D"; cd "$D" || exit 1
$CLANG -O2 -g -gdwarf-4 -o dispatch "$TOP/tests/lbrsynth/progs/dispatch.c" ||
	{ fail "viewers_exact: build dispatch"; exit 0; }
"$PGOPROF" record --exact -q -o d.raw -- ./dispatch 400 >/dev/null 2>rec.err ||
	{ fail "viewers_exact: record --exact" "$(tail -n 2 rec.err | tr '\n' ' ')"; exit 0; }
# The executions of the profile: the sum of its ranges' counts.
execs=$("$PGOPROF" show d.raw | awk '$1 == "range" { n += $3 } END { print n + 0 }')
# self FUNC: its self count in the report.
self() { f=$1; shift; "$PGOPROF" report "$@" --json -n 0 | tr -d ' ' | sed -n 's/.*{"name":"'"$f"'","self":\([0-9]*\),.*/\1/p' | head -n 1; }

"$PGOPROF" show --format pprof -o d.pb.gz d.raw --binary dispatch 2>pprof.err; rc=$?
check "show --format pprof: rc=$rc, all $execs executions written as samples" sh -c \
	"test $rc = 0 && test $execs -gt 10000 && grep -q 'samples ($execs counts), [1-9][0-9]* locations' pprof.err"
"$PGOPROF" import -q -o back.raw d.pb.gz 2>import.err
m1=$(self main d.raw --binary dispatch) m2=$(self main back.raw --binary dispatch)
check "imported back, main has report's self count ($m1, $m2)" sh -c "test -n '$m1' && test '$m1' -gt 0 && test '$m1' = '$m2'"
if command -v go >/dev/null 2>&1; then
	go tool pprof -top d.pb.gz >top.txt 2>&1
	check "go tool pprof -top: type instructions, total $execs" sh -c \
		"grep -q '^Type: instructions' top.txt && grep -q 'of $execs total' top.txt"
else
	skip "go tool pprof -top of the exact profile" "go is not installed (Debian: golang-go)"
fi

"$PGOPROF" report d.raw --binary dispatch -f step >step.txt 2>&1
check "report -f step: main calls it 400 times" grep -q '^ *400 100.00%  main (calls)$' step.txt
"$PGOPROF" report d.raw --binary dispatch -f main --json >main.json 2>&1
check "report -f main --json: op_add 100 calls" sh -c \
	"tr -d ' \n' <main.json | grep -q '{\"name\":\"op_add\",\"samples\":100,\"samples_pct\":[0-9.]*,\"unit\":\"calls\",\"inlined\":false}'"

s=$(self step d.raw --binary dispatch)
"$PGOPROF" report d.raw --binary dispatch --folded >d.folded 2>folded.err; rc=$?
check "report --folded: rc=$rc, said estimated, main;step has step's $s executions" sh -c \
	"test $rc = 0 && grep -q 'estimated from the calls' folded.err && grep -q ';main;step $s\$' d.folded"
"$PGOPROF" report d.raw --binary dispatch --svg d.svg 2>svg.err; rc=$?
check "report --svg: rc=$rc, its title says estimated, step drawn" sh -c \
	"test $rc = 0 && grep -q 'stacks estimated from call counts' d.svg && grep -q '>step (' d.svg"

# Only dispatch's object, its path dropped: no binary is found for it.
bid=$(readelf -n dispatch | awk '/Build ID/ { print $3 }')
"$PGOPROF" merge --keep "$bid" --strip-paths -o alone.raw d.raw 2>/dev/null
"$PGOPROF" report alone.raw >alone.txt 2>alone.err; rc=$?
check "report without the binary: rc=$rc, one line says give --binary, no report" sh -c \
	"test $rc = 1 && test \$(wc -l <alone.err) = 1 && grep -q 'nothing to report.*give --binary' alone.err && ! test -s alone.txt"
"$PGOPROF" report alone.raw --svg alone.svg 2>alone-svg.err; rc=$?
check "report --svg without the binary: rc=$rc, no SVG" sh -c "test $rc = 1 && ! test -e alone.svg"
# A perf script with a mapping and no sample: a raw profile of nothing.
printf 'p 1/1 1.0: PERF_RECORD_MMAP2 1/1: [0x1000(0x1000) @ 0 <%s>]: r-xp /x/p\n' \
	0123456789abcdef0123456789abcdef01234567 >none.txt
"$PGOPROF" import -q -o none.raw none.txt 2>/dev/null
"$PGOPROF" show --format pprof -o none.pb.gz none.raw 2>none.err; rc=$?
check "show --format pprof of a profile without samples: rc=$rc, said, no file" sh -c \
	"test $rc = 1 && grep -q 'nothing to write' none.err && ! test -e none.pb.gz"
"$PGOPROF" report none.raw >none.txt 2>none-rep.err; rc=$?
check "report of a profile without samples: rc=$rc, said" sh -c \
	"test $rc = 1 && grep -q 'nothing to report: the profile has no samples' none-rep.err"

# Samples without a line, by reason (issue 31, item 6): zero's line 3 made
# line 0 in its assembly, nodbg built without -g.
cat >nl.c <<'SRC'
__attribute__((noinline)) long zero(long x)
{
	for (long i = 0; i < 1000; i++) x = x * 3 + i; return x;
}
long nodbg(long);
volatile long sink;
int main(int argc, char **argv) { (void)argv; sink = zero(argc) + nodbg(argc); return 0; }
SRC
echo '__attribute__((noinline)) long nodbg(long x) { for (int i = 0; i < 500; i++) x = x * 5 + 2; return x; }' >nodbg.c
if $CLANG -O2 -g -gdwarf-4 -S -o nl.s nl.c && sed -i -E 's/^(\t\.loc\t[01]) 3 /\1 0 /' nl.s &&
   grep -q -E '^	\.loc	[01] 0 ' nl.s && $CLANG -O2 -c -o nodbg.o nodbg.c &&
   $CLANG -o nl nl.s nodbg.o && "$PGOPROF" record --exact -q -o nl.raw -- ./nl 2>nl.err; then
	"$PGOPROF" report nl.raw -n 3 >nl.txt 2>&1
	check "report: the samples without a line by reason: zero at line 0, nodbg without debug info" sh -c \
		"grep -q '^# the [0-9]* samples without a source line' nl.txt &&
		 grep -A1 'line table gives line 0' nl.txt | tail -n 1 | grep -q '^ *[0-9]\{3,\} .*  zero\$' &&
		 grep -A1 'without debug info (build with -g' nl.txt | tail -n 1 | grep -q '^ *[0-9]\{3,\} .*  nodbg\$'"
	"$PGOPROF" report nl.raw --json >nl.json 2>&1
	check "report --json: no_line_reasons line_0 names zero" python3 -c "
import json, sys
r = {x['reason']: x for x in json.load(open('nl.json'))['no_line_reasons']}
sys.exit(not (r['line_0']['functions'][0]['name'] == 'zero' and r['no_debug_info']['functions'][0]['name'] == 'nodbg'))"
else
	fail "build and record nl (line 0, no debug info)" "$(tail -n 2 nl.err 2>/dev/null | tr '\n' ' ')"
fi
