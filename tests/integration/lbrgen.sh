#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/lbrgen: synthesized branch-record samples (the random walk of
# synth/walk.c) as a perf.data file, for conversion benchmarks.  The
# readers of perf record -b files must read it: pgoprof import (the same raw
# profile as lbrgen's own --raw), perf script (every sample with 32
# branches) and AutoFDO's create_llvm_prof / create_gcov when installed.
# With --callchain, stack samples of the same walk, as perf record -g
# writes them: the same readers (AutoFDO with --use_lbr=false), and
# pgoprof convert of the import names the program's functions.
. "$(dirname "$0")/../lib.sh"

LBRGEN=$TOP/build/bench/lbrgen
D=$WORK/lbrgen
N=2000
mkdir -p "$D" && cd "$D" || exit 1
if ! make -s -C "$TOP" build/bench/lbrgen >"$D/build.log" 2>&1; then
	fail "build lbrgen" "$(tail -n 3 "$D/build.log" | tr '\n' ' ')"; exit 0
fi
# DWARF 4: AutoFDO 0.19 reads no DWARF 5 (its profile comes out empty).
if ! $CLANG -O2 -g -gdwarf-4 -fdebug-info-for-profiling -o dispatch \
	"$TOP/tests/lbrsynth/progs/dispatch.c" >"$D/cc.log" 2>&1; then
	fail "build the test program" "$(tail -n 3 "$D/cc.log" | tr '\n' ' ')"; exit 0
fi
rm -f d.perf.data d.raw again.perf.data

check "lbrgen writes $N samples" "$LBRGEN" -q -n $N -s 3 -o d.perf.data --raw d.raw dispatch
check "the same seed gives the same file" sh -c \
	"'$LBRGEN' -q -n $N -s 3 -o again.perf.data dispatch && cmp d.perf.data again.perf.data"

# pgoprof import: the raw profile of lbrgen --raw (objects, IPs, ranges,
# branches; and the sample count).
counter() { "$PGOPROF" show "$1" | awk -v n="$2" '$1 == "counter" && $2 == n { print $4 }'; }
# The objects and their tables, without meta data and counters.
tables() { "$PGOPROF" show "$1" | grep -v '^meta\|^counter\|^#'; }
if "$PGOPROF" import -q d.perf.data -o d.imported.raw >import.log 2>&1; then
	pass "pgoprof import reads the perf.data"
	tables d.raw >d.direct.show
	tables d.imported.raw >d.imported.show
	check "import equals lbrgen --raw ($(grep -c '^  branch' d.direct.show) branches, $(grep -c '^  range' d.direct.show) ranges)" \
		sh -c "cmp d.direct.show d.imported.show && grep -q '^  range' d.direct.show"
	check "import took $N samples" test "$(counter d.imported.raw samples.taken)" = $N -a \
		"$(counter d.raw samples.taken)" = $N
else
	fail "pgoprof import reads the perf.data" "$(tail -n 2 import.log | tr '\n' ' ')"
fi

# perf script: every sample, 32 branch records each.
if command -v perf >/dev/null 2>&1; then
	perf script -F ip,brstack --show-mmap-events -i d.perf.data >d.script.txt 2>d.script.err
	got=$(awk '!/PERF_RECORD/ && NF == 33 { n++ } END { print n + 0 }' d.script.txt)
	check "perf script prints $N samples of 32 branches ($got)" test "$got" -eq $N -a \
		"$(grep -vc PERF_RECORD d.script.txt)" -eq $N
	check "perf script shows the MMAP2 of the binary and the pretend libc" sh -c \
		"grep -q 'PERF_RECORD_MMAP2 .*/dispatch\$' d.script.txt && grep -q 'PERF_RECORD_MMAP2 .*/pretend/libc.so.6\$' d.script.txt"
else
	pass "perf script: perf is not installed (skipped)"
fi

# AutoFDO (Debian package autofdo): quipper reads the perf.data.
if command -v create_llvm_prof >/dev/null 2>&1; then
	rm -f d.afdo.txt
	create_llvm_prof --binary=dispatch --profile=d.perf.data --format=text \
		--out=d.afdo.txt >afdo.log 2>&1
	check "create_llvm_prof writes a profile that names main and step" sh -c \
		"test -s d.afdo.txt && grep -q '^main:[1-9]' d.afdo.txt && grep -q '^step:[1-9]' d.afdo.txt"
else
	pass "create_llvm_prof: not installed (skipped)"
fi
if command -v create_gcov >/dev/null 2>&1; then
	rm -f d.gcov
	create_gcov --binary=dispatch --profile=d.perf.data --gcov=d.gcov \
		-gcov_version=2 >gcov.log 2>&1
	check "create_gcov writes a profile" test -s d.gcov
else
	pass "create_gcov: not installed (skipped)"
fi

# --callchain: frame-pointer call chains (PERF_CONTEXT_USER, the ip, the
# return addresses), no branch stack.
rm -f c.perf.data c.raw c.again.perf.data c.imported.raw c.txt
check "lbrgen --callchain writes $N samples" "$LBRGEN" -q --callchain -n $N -s 3 \
	-o c.perf.data --raw c.raw dispatch
check "--callchain: the same seed gives the same file" sh -c \
	"'$LBRGEN' -q -g -n $N -s 3 -o c.again.perf.data dispatch && cmp c.perf.data c.again.perf.data"
if "$PGOPROF" import -q c.perf.data -o c.imported.raw >c.import.log 2>&1; then
	pass "--callchain: pgoprof import reads the perf.data"
	tables c.raw >c.direct.show
	tables c.imported.raw >c.imported.show
	check "--callchain: import equals lbrgen --raw ($(grep -c '^  ip' c.direct.show) IPs, $(grep -c '^  edge' c.direct.show) edges)" \
		sh -c "cmp c.direct.show c.imported.show && grep -q '^  edge' c.direct.show && ! grep -q '^  branch\|^  range' c.direct.show"
	check "--callchain: import took $N samples" test "$(counter c.imported.raw samples.taken)" = $N -a \
		"$(counter c.raw samples.taken)" = $N
	"$PGOPROF" convert -q c.imported.raw --binary dispatch -f llvm-text -o c.txt >c.convert.log 2>&1
	check "--callchain: pgoprof convert names main, step and an op_ called from main" sh -c \
		"grep -q '^main:[1-9]' c.txt && grep -q '^step:[1-9]' c.txt && grep -q '^ [0-9.]*: [0-9]* .*op_' c.txt"
else
	fail "--callchain: pgoprof import reads the perf.data" "$(tail -n 2 c.import.log | tr '\n' ' ')"
fi
if command -v perf >/dev/null 2>&1; then
	# perf script: each sample a header line, then its chain, a frame a
	# line (the ip and the callers), then an empty line.
	perf script -i c.perf.data >c.script.txt 2>c.script.err
	got=$(grep -c 'cycles:u:' c.script.txt)
	check "--callchain: perf script prints $N samples ($got)" test "$got" -eq $N
	check "--callchain: perf script shows call chains through main" sh -c \
		"grep -A1 'cycles:u:' c.script.txt | grep -q ' step+0x' && grep -q '^	 *[0-9a-f]* main+0x' c.script.txt && test \$(grep -c '^	' c.script.txt) -gt $N"
	perf script -F ip,sym -i c.perf.data >c.ipsym.txt 2>c.ipsym.err
	check "--callchain: perf script -F ip,sym reads it" sh -c \
		"test \$(grep -c . c.ipsym.txt) -gt $N && grep -q ' main\$' c.ipsym.txt"
else
	pass "--callchain: perf script: perf is not installed (skipped)"
fi
if command -v create_llvm_prof >/dev/null 2>&1; then
	rm -f c.afdo.txt
	create_llvm_prof --use_lbr=false --binary=dispatch --profile=c.perf.data \
		--format=text --out=c.afdo.txt >c.afdo.log 2>&1
	check "--callchain: create_llvm_prof --use_lbr=false writes a profile that names main" sh -c \
		"test -s c.afdo.txt && grep -q '^main:[1-9]' c.afdo.txt"
else
	pass "--callchain: create_llvm_prof: not installed (skipped)"
fi
if command -v create_gcov >/dev/null 2>&1; then
	rm -f c.gcov
	create_gcov --use_lbr=false --binary=dispatch --profile=c.perf.data \
		--gcov=c.gcov -gcov_version=2 >c.gcov.log 2>&1
	check "--callchain: create_gcov --use_lbr=false writes a profile" test -s c.gcov
else
	pass "--callchain: create_gcov: not installed (skipped)"
fi

# --callchain through callbacks: qsort's calls of cmp go through the
# pretend libc, whose return address is in the chain between cmp and main.
if $CLANG -O2 -g -gdwarf-4 -fno-inline -o callback "$TOP/tests/lbrgen/callback.c" \
	>cb.cc.log 2>&1 &&
   "$LBRGEN" -q -g -n $N -s 5 -o cb.perf.data --raw cb.raw callback &&
   "$PGOPROF" import -q cb.perf.data -o cb.imported.raw >cb.import.log 2>&1; then
	tables cb.raw >cb.direct.show
	tables cb.imported.raw >cb.imported.show
	check "--callchain with callbacks: import equals lbrgen --raw, pretend-libc return addresses have edges" \
		sh -c "cmp cb.direct.show cb.imported.show && grep -q '^object [0-9]* .*/pretend/libc.so.6 .* edges [1-9]' cb.direct.show"
	if command -v perf >/dev/null 2>&1; then
		perf script -i cb.perf.data >cb.script.txt 2>/dev/null
		check "--callchain with callbacks: perf script shows cmp <- pretend libc <- main" sh -c \
			"grep -A3 'cycles:u:' cb.script.txt | grep -A2 ' cmp+0x' | grep -A1 'pretend/libc.so.6' | grep -q ' main+0x'"
	fi
else
	fail "--callchain with callbacks" "$(tail -n 2 cb.cc.log cb.import.log 2>/dev/null | tr '\n' ' ')"
fi

# Bad arguments: exit 1, a message naming the file, no output.
rm -f none.perf.data
"$LBRGEN" -q -n 10 -o none.perf.data "$D/no-such-binary" >bad.out 2>bad.err
rc=$?
check "a missing binary: exit 1, named, no output" sh -c \
	"test $rc -eq 1 && grep -q no-such-binary bad.err && test ! -e none.perf.data"
"$LBRGEN" -q -n 10 -o none.perf.data "$TOP/tests/lbrsynth/progs/dispatch.c" >bad.out 2>bad.err
rc=$?
check "not an ELF file: exit 1, named, no output" sh -c \
	"test $rc -eq 1 && grep -q dispatch.c bad.err && test ! -e none.perf.data"
"$LBRGEN" -q -n ten -o none.perf.data dispatch >bad.out 2>bad.err
rc=$?
check "a bad sample count: exit 1, no output" sh -c "test $rc -eq 1 && test ! -e none.perf.data"
"$LBRGEN" -q -n 10 -o "$D/no-such-dir/x.perf.data" dispatch >bad.out 2>bad.err
rc=$?
check "an unwritable output: exit 1, named" sh -c "test $rc -eq 1 && grep -q no-such-dir bad.err"
check "lbrgen --help" sh -c "'$LBRGEN' --help | grep -q '^usage: lbrgen'"
