#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pgoprof report and diff: usage and bad input; deterministic reports of
# an LLVM text profile and of a raw profile with stacks synthesized as
# perf script text at offsets taken from a real binary; and, as root, a
# real recording, checked only for facts that do not depend on where
# samples land.
. "$(dirname "$0")/../lib.sh"

D=$WORK/report
mkdir -p "$D" && cd "$D" || exit 1
rm -f ./*
json_ok() { python3 -m json.tool "$1" >/dev/null; }
command -v python3 >/dev/null 2>&1 || json_ok() { jq . "$1" >/dev/null; }

# status WANT COMMAND...: COMMAND exits with status WANT.
status() { _w=$1; shift; "$@" >out.txt 2>err.txt; [ $? -eq "$_w" ]; }

# ---- usage and bad input ----
check "report --help" sh -c "'$PGOPROF' report --help | grep -q '^usage: pgoprof report'"
check "diff --help" sh -c "'$PGOPROF' diff --help | grep -q '^usage: pgoprof diff'"
check "report without a profile: status 2" status 2 "$PGOPROF" report
check "report --sort bad: status 2" status 2 "$PGOPROF" report --sort nope x.prof
check "report --limit bad: status 2" status 2 "$PGOPROF" report --limit -1 x.prof
check "diff with one profile: status 2" status 2 "$PGOPROF" diff x.prof
check "report of a missing file: status 1, named" sh -c \
	"! '$PGOPROF' report missing.raw 2>err.txt; test \$? -eq 0 && grep -q 'missing.raw' err.txt &&
	 '$PGOPROF' report missing.raw >/dev/null 2>&1; test \$? -eq 1"
printf 'not a profile\n' >junk.txt
check "report of a file that is no profile: status 1" status 1 "$PGOPROF" report junk.txt

# ---- an LLVM text profile: exact numbers ----
cat >t.prof <<'PROF'
main:100:1
 1: 10
 2: 5 foo:20
 3: bar:60
  1: 50
  2: baz:10
   1: 10
bar:30:0
 1: 30
_ZN2ns4workEi:8:0
 1: 8
PROF
"$PGOPROF" report t.prof >t.txt 2>t.err
check "report of LLVM text: bar first, self 80, total 90" \
	sh -c "grep -v '^#' t.txt | head -n 1 | awk '{ exit !(\$1 == 80 && \$3 == 90 && \$5 == \"bar\") }'"
check "inlined bar is shown under main" grep -q ' bar  \[inlined into main\]$' t.txt
check "C++ names demangled" grep -q ' ns::work(int)$' t.txt
check "--no-demangle keeps linkage names" sh -c "'$PGOPROF' report --no-demangle t.prof | grep -q ' _ZN2ns4workEi\$'"
check "--sort total: main first" sh -c \
	"'$PGOPROF' report --sort total t.prof | grep -v '^#' | head -n 1 | awk '{ exit !(\$3 == 100 && \$5 == \"main\") }'"
check "--limit 1 lists one function" sh -c \
	"'$PGOPROF' report --limit 1 t.prof | awk '/^# functions/ { f = 1; next } /^#/ { next } f && NF { n++ } /^\$/ { f = 0 } END { exit n != 1 }'"
"$PGOPROF" report --json t.prof >t.json 2>t.err
check "--json parses" json_ok t.json
check "--json: samples and the first function" python3 -c "
import json, sys
j = json.load(open('t.json'))
f = j['functions'][0]
sys.exit(not (j['schema'] == 'pgoprof-report/1' and j['samples'] == 138 and j['total_known']
	      and f['name'] == 'bar' and f['self'] == 80 and f['total'] == 90
	      and f['inlined_into'] == ['main']))"
"$PGOPROF" report --json -f main t.prof >f.json 2>f.err
check "--function main: callees from call targets and inline instances" python3 -c "
import json, sys
c = {e['name']: (e['samples'], e['inlined']) for e in json.load(open('f.json'))['function']['callees']}
sys.exit(c != {'bar': (60, True), 'foo': (20, False)})"
check "--function of an unknown name: status 1" status 1 "$PGOPROF" report -f nosuch t.prof
check "--folded of a compiler profile: status 1, says why" sh -c \
	"! '$PGOPROF' report --folded t.prof 2>err.txt && grep -q 'folded stacks need a raw profile' err.txt"
sed 's/^bar:30:0/bar:130:0/; s/^ 1: 30$/ 1: 130/' t.prof >u.prof
"$PGOPROF" diff --json t.prof u.prof >d.json 2>d.err
check "diff --json parses" json_ok d.json
check "diff: bar's share changed most" python3 -c "
import json, sys
f = json.load(open('d.json'))['functions'][0]
sys.exit(not (f['name'] == 'bar' and f['a'] == 80 and f['b'] == 180))"

# ---- a raw profile with stacks, from perf script text ----
# synth BIN OUT: perf script text of BIN mapped at 0x555555554000 (build-ID
# in the MMAP2 line): 5 samples in cold_path called from main, 2 in main.
synth() {
	_id=$(readelf -nW "$1" | awk '/Build ID:/ { print $NF }')
	_cold=$(off "$1" cold_path); _main=$(off "$1" main)
	[ -n "$_id" ] && [ -n "$_cold" ] && [ -n "$_main" ] || return 1
	echo "hot 100/100 10.000000: PERF_RECORD_COMM exec: hot:100/100" >"$2"
	echo "hot 100/100 10.000100: PERF_RECORD_MMAP2 100/100: [0x$(addr 0)(0x100000) @ 0 <$_id>]: r-xp $1" >>"$2"
	for i in 1 2 3 4 5; do
		printf 'hot 100/100 10.00%d000:     250000 cpu-clock: \n' $i
		printf '\t    %s cold_path (%s)\n\t    %s main (%s)\n\n' \
			"$(addr $_cold)" "$1" "$(addr $((_main + 1)))" "$1"
	done >>"$2"
	for i in 6 7; do
		printf 'hot 100/100 10.00%d000:     250000 cpu-clock: \n' $i
		printf '\t    %s main (%s)\n\n' "$(addr $_main)" "$1"
	done >>"$2"
}
# off BIN SYMBOL: the file offset (decimal) of SYMBOL: its address in the
# executable segment (readelf -l: LOAD offset vaddr paddr filesz ...).
off() {
	_v=$(nm "$1" | awk -v f="$2" '$3 == f { print $1 }')
	[ -n "$_v" ] || return 0
	readelf -lW "$1" | awk '$1 == "LOAD" && / E / { print $2, $3, $6 }' |
	while read -r _o _a _n; do
		[ $((0x$_v)) -ge $((_a)) ] && [ $((0x$_v)) -lt $((_a + _n)) ] &&
			echo $((0x$_v - _a + _o))
	done
}
addr() { printf '%x' $((0x555555554000 + $1)); }

if ! build_workloads; then
	echo "SKIP report raw: clang-16 could not build tests/workloads"
elif ! synth "$WORK/hot" synth.txt; then
	fail "report raw: build-ID and offsets of cold_path and main in $WORK/hot"
elif check "import synthesized stacks" "$PGOPROF" import -q synth.txt -o synth.raw; then
	BIN=$WORK/hot
	check "--folded: exact lines" sh -c \
		"'$PGOPROF' report --folded synth.raw --binary '$BIN' >synth.folded && printf 'main 2\nmain;cold_path 5\n' | cmp - synth.folded"
	# --svg draws the folded stacks: main 7 wide, cold_path 5 on it (the
	# layout itself is tests/unit/test_flame.c's and flame.sh's business)
	check "--svg: an SVG with the two frames and their samples" sh -c \
		"'$PGOPROF' report synth.raw --binary '$BIN' --svg synth.svg &&
		 python3 -c 'import xml.dom.minidom, sys; xml.dom.minidom.parse(sys.argv[1])' synth.svg &&
		 grep -q '<title>main (7 samples, 100' synth.svg && grep -q '<title>cold_path (5 samples, 71' synth.svg"
	check "--svg with --json: usage error (2)" sh -c \
		"'$PGOPROF' report synth.raw --binary '$BIN' --svg x.svg --json >/dev/null 2>&1; test \$? -eq 2 && test ! -e x.svg"
	check "report: cold_path self 5, main total 7" sh -c \
		"'$PGOPROF' report synth.raw --binary '$BIN' >synth.out &&
		 grep -Eq '^ +5 +71.43% +5 +71.43%  cold_path\$' synth.out &&
		 grep -Eq '^ +2 +28.57% +7 +100.00%  main\$' synth.out"
	check "report: the binary found at its recorded path" sh -c \
		"'$PGOPROF' report synth.raw | cmp - synth.out"
	# The entry of cold_path: its line in hot.c, and that line's text.
	"$PGOPROF" report --source synth.raw --binary "$BIN" >src.txt 2>src.err
	where=$(awk '$4 == "cold_path" { print $3; exit }' src.txt)
	text=$(awk '$4 == "cold_path" { getline; sub(/^ *\| /, ""); print; exit }' src.txt)
	ln=${where##*:}
	check "report --source: cold_path's line ($where) and its text" sh -c \
		"test '${where%:*}' = '$TOP/tests/workloads/hot.c' &&
		 test \"\$(sed -n '${ln:-0}p' '$TOP/tests/workloads/hot.c')\" = '$text'"
	check "report -f cold_path: main is the caller" sh -c \
		"'$PGOPROF' report -f cold_path synth.raw --binary '$BIN' | grep -Eq '^ +5 +71.43%  main\$'"
	"$PGOPROF" report --json synth.raw --binary "$BIN" >synth.json 2>synth.err
	check "--json of a raw profile parses" json_ok synth.json
	check "diff of a raw profile with itself: no change" sh -c \
		"'$PGOPROF' diff --json synth.raw synth.raw --binary '$BIN' >sd.json &&
		 python3 -c \"import json, sys; sys.exit(any(r['change_pct'] for r in json.load(open('sd.json'))['functions']))\""
	# A binary whose source is gone: the report says so.
	cp "$TOP/tests/workloads/hot.c" gone.c &&
		$CLANG $PROF_CFLAGS -fPIE -pie -o gone gone.c -L"$WORK" -lhot -Wl,-rpath,"$WORK" && rm gone.c &&
		synth "$D/gone" gone.txt && "$PGOPROF" import -q gone.txt -o gone.raw
	check "report --source: a source not found is said" sh -c \
		"'$PGOPROF' report --source gone.raw --binary gone | grep -q '| (source not found: $D/gone.c)'"
fi

cat >busy.c <<'C'
#include <stdlib.h>

__attribute__((noinline)) unsigned long busy(unsigned long n)
{
	unsigned long h = 1;

	for (unsigned long i = 0; i < n; i++)
		h = h * 6364136223846793005ul + i;
	return h;
}

volatile unsigned long out;

int main(int argc, char **argv)
{
	out = busy(argc > 1 ? strtoul(argv[1], NULL, 10) : 400000000ul);
	return 0;
}
C
if ! $CLANG $PROF_CFLAGS -o busy busy.c; then
	fail "report: build busy.c"; exit 0
fi

# ---- a raw profile without stacks: pgoprof record --exact (callgrind's
# exact counts as ranges: each instruction weighs its executions) ----
if ! command -v valgrind >/dev/null 2>&1; then
	echo "SKIP report exact: valgrind is not installed"
elif check "record --exact (no stacks)" "$PGOPROF" record --exact -q -o exact.raw -- ./busy 1000000; then
	"$PGOPROF" report exact.raw >exact.txt 2>exact.err
	check "no stacks: the header says totals are not known" grep -q 'instruction executions .*; no stacks: totals are not known' exact.txt
	# busy(1000000) runs its loop of at least one instruction 10^6 times.
	check "no stacks: busy is the top function, self only, >= 10^6 executions" sh -c \
		"grep -v '^#' exact.txt | head -n 1 | awk '{ exit !(NF == 3 && \$3 == \"busy\" && \$1 >= 1000000) }'"
	check "no stacks: --folded estimates stacks from the calls, says so; main calls busy" sh -c \
		"'$PGOPROF' report --folded exact.raw >exact.folded 2>err.txt && grep -q 'has no stacks: folded stacks estimated from the calls' err.txt && grep -q ';main;busy [0-9]*\$' exact.folded"
	check "no stacks: --sort total fails with status 1" status 1 "$PGOPROF" report --sort total exact.raw
	"$PGOPROF" report --json exact.raw >exact.json 2>exact.err
	check "no stacks: --json has total null" python3 -c "
import json, sys
j = json.load(open('exact.json'))
sys.exit(j['total_known'] or j['functions'][0]['total'] is not None)"
fi

# ---- a real recording (root) ----
if [ "$(id -u)" != 0 ]; then
	echo "SKIP report record: pgoprof record needs root for BPF"
	exit 0
fi
if ! "$PGOPROF" record -q -o busy.raw -- ./busy >/dev/null 2>record.err; then
	fail "report record" "$(cat record.err)"; exit 0
fi
stacks=$("$PGOPROF" show busy.raw | awk '$1 == "stack" { s += $2 } END { print s + 0 }')
check "recorded stacks ($stacks samples)" test "$stacks" -gt 0
check "the busy function is the top function" sh -c \
	"'$PGOPROF' report busy.raw | grep -v '^#' | head -n 1 | grep -q ' busy\$'"
check "folded counts sum to the stack samples" sh -c \
	"'$PGOPROF' report --folded busy.raw | awk '{ s += \$NF } END { exit s != $stacks }'"
"$PGOPROF" report --json busy.raw >busy.json 2>busy.err
check "--json of a recording parses, samples = stack samples" python3 -c "
import json, sys
sys.exit(json.load(open('busy.json'))['samples'] != $stacks)"
