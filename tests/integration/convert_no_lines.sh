#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A binary whose samples get no line (here: .debug_line removed; in the
# field, a line table libdw cannot read, such as the discriminators of
# some -fpseudo-probe-for-profiling builds): convert must not write a
# profile of heads only, which reads as code that never ran, but fail,
# say why, and leave no output.  IP samples and exact counts, each
# checked against the same binary with its line table.
. "$(dirname "$0")/../lib.sh"

need_tool convert_no_lines gcc gcc || exit 0
need_tool convert_no_lines objcopy binutils || exit 0
need_expsample convert_no_lines || exit 0
D=$WORK/convert_no_lines
rm -rf "$D" && mkdir -p "$D" && cd "$D" || exit 1

gcc -O2 -g -o split "$TOP/tests/workloads/split.c" || { fail "convert_no_lines: gcc"; exit 0; }
objcopy --remove-section .debug_line split split-nl ||
	{ fail "convert_no_lines: objcopy --remove-section .debug_line"; exit 0; }
"$PGOPROF" record --exact -q -o exact.raw -- ./split 30 >/dev/null 2>record.err ||
	{ fail "convert_no_lines: record --exact" "$(tail -n 2 record.err | tr '\n' ' ')"; exit 0; }
"$XS" exact.raw -n 5000 --seed 1 -o ip.raw 2>xs.err ||
	{ fail "convert_no_lines: expsample" "$(tail -n 2 xs.err | tr '\n' ' ')"; exit 0; }

for raw in ip exact; do
	"$PGOPROF" convert $raw.raw --binary split -f llvm-text -o $raw.txt 2>$raw.ok.err
	rc=$?
	check "$raw: with its line table, convert writes a profile with lines (rc=$rc)" sh -c \
		"test $rc -eq 0 && grep -q '^ [0-9]*: [1-9]' $raw.txt"
	"$PGOPROF" convert $raw.raw --binary split-nl -f llvm-text -o $raw.nl.txt 2>$raw.nl.err
	rc=$?
	check "$raw: without lines, convert fails, says so and writes nothing (rc=$rc)" sh -c \
		"test $rc -eq 1 && ! test -e $raw.nl.txt &&
		 grep -q 'no sample of split-nl could be given a function and a line' $raw.nl.err"
done
check "exact: the instructions without a line are counted in the report" \
	grep -q 'instructions in the ranges. functions left out: without line information' exact.nl.err
check "ip: the samples without a line are counted in the report" \
	grep -q 'samples dropped: without line information' ip.nl.err
