#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pgoprof record --exact: the command under either engine (qemu-user with
# pgoprof's plugin, valgrind's callgrind) gives the exact count of every
# instruction and call.  Checked against a second,
# independent ground truth, tests/lbrsynth (ptrace single-stepping): every
# instruction of the program's .text has the same count, every call site
# the same number of calls (calls through the PLT included, carried on to
# the function reached).  And: byte-identical profiles run after run, the
# processes a command starts, the command's status, the profile read by
# llvm-profdata, and clang 16's DWARF 5 (valgrind 3.19 cannot read it)
# said in one line.
. "$(dirname "$0")/../lib.sh"

if ! command -v valgrind >/dev/null; then
	echo "SKIP exact: valgrind is not installed (make deps installs it)"; exit 0
fi
# Both engines, each against the same ground truth.
ENGINES=callgrind
if command -v qemu-x86_64 >/dev/null && [ "$(uname -m)" = x86_64 ]; then
	ENGINES="callgrind qemu"
else
	echo "SKIP exact: the qemu engine: qemu-x86_64 is not installed (make deps installs qemu-user)"
fi
D=$WORK/exact
rm -rf "$D"; mkdir -p "$D"; cd "$D" || exit 1
if ! CLANG=$CLANG sh "$TOP/tests/lbrsynth/build.sh" "$D" >build.log 2>&1; then
	fail "exact: build lbrsynth" "$(tail -n 3 build.log | tr '\n' ' ')"; exit 0
fi
AWKHEX='function hex(s,  i, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v }'
# ranges BIN RAW: "offset count" of BIN's single-instruction ranges in
# its .text (file offsets = addresses in these PIEs' first segments).
ranges() {
	set -- "$1" "$2" $(readelf -SW "$1" | awk "$AWKHEX"'$2 == ".text" { print hex($5), hex($5) + hex($6) }')
	"$PGOPROF" show "$2" | awk "$AWKHEX"' $1 == "object" { on = ($6 == "'"$D/$1"'") }
		on && $1 == "range" { split($2, r, "-"); o = hex(r[1])
			if (o >= '"$3"' && o < '"$4"') print o, $3 }' | sort
}
# calls BIN RAW: "call-site calls" of BIN: its branches summed by source.
calls() {
	"$PGOPROF" show "$2" | awk "$AWKHEX"' $1 == "object" { on = ($6 == "'"$D/$1"'") }
		on && $1 == "branch" { s[hex($2)] += $5 } END { for (k in s) print k, s[k] }' | sort
}

for run in "loops 3000" "dispatch 2000" "libcall 10"; do
	set -- $run; prog=$1; shift
	$CLANG -O2 -g -gdwarf-4 -fdebug-info-for-profiling -o $prog \
		"$TOP/tests/lbrsynth/progs/$prog.c" || { fail "exact: build $prog"; continue; }
	./$prog "$@" >$prog.expected; want=$?
	./lbrsynth -q --skip-startup -o $prog.synth -- ./$prog "$@" >/dev/null 2>&1
	ranges $prog $prog.synth.truth.raw >$prog.truth.ranges
	calls $prog $prog.synth.truth.raw >$prog.truth.calls
	for engine in $ENGINES; do
	"$PGOPROF" record --exact --engine $engine -q -o $prog.$engine.raw -- ./$prog "$@" >$prog.out 2>$prog.err; rc=$?
	check "exact $prog, $engine: the command's output and status ($rc)" sh -c \
		"test $rc = $want && cmp -s $prog.out $prog.expected"
	ranges $prog $prog.$engine.raw >$prog.exact.ranges
	n=$(wc -l <$prog.truth.ranges)
	check "exact $prog, $engine: all $n instructions of .text have lbrsynth's exact counts" sh -c \
		"test $n -gt 20 && cmp $prog.exact.ranges $prog.truth.ranges"
	calls $prog $prog.$engine.raw >$prog.exact.calls
	n=$(wc -l <$prog.exact.calls)
	check "exact $prog, $engine: the $n call sites make lbrsynth's numbers of calls" sh -c \
		"test $n -gt 0 && test -z \"\$(join $prog.exact.calls $prog.truth.calls | awk '\$2 != \$3')\" &&
		 test \$(join $prog.exact.calls $prog.truth.calls | wc -l) = $n"
	done
	cp $prog.callgrind.raw $prog.raw
	# The same environment (libc takes other paths for /dev/null); one
	# program is enough for the time of make check.
	for engine in $ENGINES; do
		[ $prog = dispatch ] || break
		"$PGOPROF" record --exact --engine $engine -q -o $prog.again.raw -- ./$prog "$@" >$prog.out 2>&1
		check "exact $prog, $engine: a second run gives the same bytes" cmp $prog.$engine.raw $prog.again.raw
	done
	"$PGOPROF" convert -q $prog.raw --binary $prog -o $prog.extbin 2>/dev/null
	check "exact $prog: llvm-profdata reads the converted profile" "$PROFDATA" show --sample $prog.extbin
done

# libc is reached through the PLT: the call site names libc's function.
libc_calls=$("$PGOPROF" show libcall.raw | awk '$1 == "object" { on = ($6 == "'"$D/libcall"'"); me = $2 }
	on && $1 == "branch" { split($4, t, ":"); if (t[1] != me) n += $5 } END { print n + 0 }')
check "exact libcall: calls through the PLT reach other objects (libc): $libc_calls calls" \
	test "$libc_calls" -gt 10

# The processes a command starts, and its exit status.
"$PGOPROF" record --exact --engine callgrind -o two.raw --callgrind-out cg -- sh -c "./loops 10 >/dev/null; ./dispatch 10 >/dev/null; exit 3" 2>two.err; rc=$?
check "exact: the command's exit status is pgoprof's (rc=$rc), the profile written" sh -c \
	"test $rc = 3 && test -s two.raw && grep -q 'exited with status 3' two.err"
check "exact: every process counted (sh and two programs)" sh -c \
	"'$PGOPROF' show two.raw | grep -q 'counter processes = 3'"
check "exact: each program of the command has its counts" sh -c \
	"'$PGOPROF' show two.raw | grep -q 'path $D/loops ' && '$PGOPROF' show two.raw | grep -q 'path $D/dispatch '"
check "exact: --callgrind-out keeps callgrind's files in a new directory in DIR" sh -c "ls cg/pgoprof-exact.*/callgrind.out.* | wc -l | grep -qx 3"
"$PGOPROF" import -o imported.raw cg/pgoprof-exact.*/callgrind.out.* 2>import.err
check "import of callgrind's files: the profile record --exact wrote (but META)" sh -c \
	"test -n \"\$('$PGOPROF' show two.raw | grep -v '^meta')\" &&
	 test \"\$('$PGOPROF' show two.raw | grep -v '^meta')\" = \"\$('$PGOPROF' show imported.raw | grep -v '^meta')\" &&
	 grep -q 'instructions of 3 processes' import.err"
"$PGOPROF" import -o one.raw --input-format callgrind loops.raw 2>bad.err; rc=$?
check "import --input-format callgrind of another file: rc 1, said (rc=$rc)" sh -c \
	"test $rc = 1 && test ! -e one.raw && test -s bad.err"
check "exact: progress said, with the cost" grep -q "20-100x slower" two.err

# clang 16's DWARF 5 of two units stops valgrind 3.19: said in one line
# with the fix.
$CLANG -O2 -g -o dwarf5 "$TOP/tests/workloads/hot.c" "$TOP/tests/workloads/libhot.c"
"$PGOPROF" record --exact --engine callgrind -q -o dwarf5.raw -- ./dwarf5 0 >/dev/null 2>dwarf5.err; rc=$?
if grep -q "debug info" dwarf5.err; then
	check "exact: a binary valgrind cannot read: rc 1, -gdwarf-4 named, no profile (rc=$rc)" sh -c \
		"test $rc = 1 && grep -q -- -gdwarf-4 dwarf5.err && test ! -e dwarf5.raw"
else	# a valgrind that reads DWARF 5 profiles it
	check "exact: a clang DWARF 5 binary is profiled by this valgrind" test -s dwarf5.raw
fi

# pgoprof compare: an exact profile against itself and against a sampled
# profile of the same run's binary in another format.
"$PGOPROF" convert -q dispatch.raw --binary dispatch -f llvm-text -o dispatch.txt 2>/dev/null
"$PGOPROF" compare dispatch.txt dispatch.extbin >same.txt 2>&1
check "compare: a profile against itself in another format: overlap 1" sh -c \
	"grep -q '^body    1.0000' same.txt && grep -q '^head    1.0000' same.txt && grep -q 'functions 6 in A, 6 in B, 6 in both' same.txt"
"$PGOPROF" convert -q loops.raw --binary loops -f llvm-text -o loops.txt 2>/dev/null
"$PGOPROF" compare loops.txt dispatch.txt >diff.txt 2>&1
check "compare: profiles of two programs share almost nothing ($(head -n 1 diff.txt))" grep -q '^body    0.00' diff.txt
"$PGOPROF" compare dispatch.raw dispatch.txt >raw.txt 2>&1; rc=$?
check "compare: a raw profile is refused with the convert command (rc=$rc)" sh -c \
	"test $rc = 1 && grep -q 'pgoprof convert dispatch.raw --binary' raw.txt"

# An output that cannot be written fails before the long run.
"$PGOPROF" record --exact -o "$D/no/such/dir/x.raw" -- ./loops 10 >/dev/null 2>noout.err; rc=$?
check "exact: an unwritable -o fails at once, the command not run (rc=$rc)" sh -c \
	"test $rc = 1 && grep -q 'cannot open the directory' noout.err && ! grep -q 'under callgrind' noout.err"
"$PGOPROF" compare -n 0 -l 3 loops.txt dispatch.txt >lines.txt 2>&1
check "compare -l 3: the three lines whose share differs most" sh -c \
	"test \$(grep -c '^  *[0-9.]*%  *[0-9.]*%  [a-z_]*@[0-9]*\.[0-9]' lines.txt) = 3"
