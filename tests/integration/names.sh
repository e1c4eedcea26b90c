#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Names that try to forge (issue 27, finding 4): a binary whose functions
# are named with a newline, ':', ';', a space and terminal escapes, and a
# raw profile whose META value holds a newline and ESC.  The LLVM text
# profile gives main no forged samples (llvm-profdata reads it), the
# folded stacks no forged frame or count (read as flamegraph.pl reads
# them), and no text output puts ESC or BEL on the terminal or splits a
# line (docs/report.md, "Names in text output").
. "$(dirname "$0")/../lib.sh"

D=$WORK/names
mkdir -p "$D" && cd "$D" || exit 1
rm -rf ./*
need_tool names "$CLANG" clang-16 || exit 0

FORGED='zz:1:1\n 0: 1\nmain:424242:0\n 0: 424242\nyy'
cat >forge.c <<C
#include <stdlib.h>

__attribute__((noinline)) unsigned long forged(unsigned long n)
	__asm__("$FORGED");
__attribute__((noinline)) unsigned long fake(unsigned long n)
	__asm__("fake;stack 999999\\n\\033]0;pwned\\007\\033[31mred");

__attribute__((noinline)) unsigned long forged(unsigned long n)
{
	unsigned long h = 1;

	for (unsigned long i = 0; i < n; i++)
		h = h * 6364136223846793005ul + i;
	return h;
}

__attribute__((noinline)) unsigned long fake(unsigned long n)
{
	unsigned long h = 3;

	for (unsigned long i = 0; i < n; i++)
		h = h * 6364136223846793005ul + i;
	return h;
}

volatile unsigned long out;

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;

	out = forged(n) + fake(n);
	return 0;
}
C
if ! $CLANG $PROF_CFLAGS -fPIE -pie -o forge forge.c; then
	fail "names: build forge.c"; exit 0
fi

# The file offset (decimal) of the first symbol whose name starts with $2.
symoff() {
	_v=$(nm "$1" | awk -v f="$2" 'index($3, f) == 1 { print $1; exit }')
	[ -n "$_v" ] || return 0
	readelf -lW "$1" | awk '$1 == "LOAD" && / E / { print $2, $3, $6 }' |
	while read -r _o _a _n; do
		[ $((0x$_v)) -ge $((_a)) ] && [ $((0x$_v)) -lt $((_a + _n)) ] &&
			echo $((0x$_v - _a + _o))
	done
}
addr() { printf '%x' $((0x555555554000 + $1)); }
# perf script text: 3 samples in each forged function under main, 1 in
# main: 7 samples.
id=$(readelf -nW forge | awk '/Build ID:/ { print $NF }')
zz=$(symoff forge 'zz:1:1'); fk=$(symoff forge 'fake;stack'); mn=$(symoff forge main)
if [ -z "$id" ] || [ -z "$zz" ] || [ -z "$fk" ] || [ -z "$mn" ]; then
	fail "names: build-ID and offsets of the forged functions in forge"; exit 0
fi
# The input's name becomes META source: a newline and ESC in it.
IN=$(printf 'in\nmeta forged = 1\033[2J.txt')
{
	echo "forge 100/100 10.000000: PERF_RECORD_COMM exec: forge:100/100"
	echo "forge 100/100 10.000100: PERF_RECORD_MMAP2 100/100: [0x$(addr 0)(0x100000) @ 0 <$id>]: r-xp $D/forge"
	for i in 1 2 3; do
		for f in $zz $fk; do
			printf 'forge 100/100 10.00%d000:     250000 cpu-clock: \n' "$i"
			printf '\t    %s x (%s)\n\t    %s main (%s)\n\n' \
				"$(addr $((f + 4)))" "$D/forge" "$(addr $((mn + 4)))" "$D/forge"
		done
	done
	printf 'forge 100/100 10.009000:     250000 cpu-clock: \n\t    %s main (%s)\n\n' \
		"$(addr $mn)" "$D/forge"
} >"$IN"
if ! check "names: import" "$PGOPROF" import -q "$IN" -o forge.raw; then
	exit 0
fi

# ---- LLVM text: the forged names are left out, and said ----
# --unsampled omit: the counts in samples, as the checks count them
"$PGOPROF" convert -q forge.raw --binary forge --format llvm-text --unsampled omit -o forge.prof 2>conv.err
check "names: LLVM text has main alone" sh -c "test \"\$(grep -c '^[^ ]' forge.prof)\" = 1 && grep -qx 'main:1:1' forge.prof"
check "names: the names left out are counted, escaped" grep -Fq \
	'left out of the LLVM text profile for names it cannot carry: 2 functions (6 samples); the first, fake;stack 999999\n\x1b]0;pwned\x07\x1b[31mred,' conv.err
if need_tool "names: llvm-profdata" "$PROFDATA" llvm-16; then
	"$PROFDATA" show --sample --all-functions forge.prof >pd.txt 2>&1
	check "names: llvm-profdata reads main with 1 sample, nothing forged" sh -c \
		"grep -q '^Function: main: 1, 1, 1 sampled lines' pd.txt && ! grep -q 424242 pd.txt &&
		 test \"\$(grep -c '^Function: ' pd.txt)\" = 1"
	# extbinary stores names with their length: it keeps them whole.
	"$PGOPROF" convert -q forge.raw --binary forge --unsampled omit -o forge.extbin 2>/dev/null
	"$PROFDATA" show --sample --all-functions forge.extbin >pdx.txt 2>&1
	check "names: extbinary keeps the names, main not forged" sh -c \
		"grep -q '^Function: main: 1, 1, 1 sampled lines' pdx.txt && grep -q '^Function: zz:1:1\$' pdx.txt &&
		 test \"\$(grep -c '^Function: ' pdx.txt)\" = 3"
fi

# ---- folded stacks, read as flamegraph.pl reads them ----
"$PGOPROF" report --folded forge.raw --binary forge >forge.folded 2>folded.err
check "names: folded stacks: 3 stacks, 7 samples, at most 2 frames" python3 -c "
import re, sys
n = total = 0
for line in open('forge.folded', 'rb').read().decode().split('\n')[:-1]:
    # flamegraph.pl: the count after the last space; frames split at ';'
    m = re.match(r'^(.*)\s+?(\d+(?:\.\d*)?)$', line)
    frames = m.group(1).split(';')
    n += 1; total += int(m.group(2))
    assert len(frames) <= 2 and frames[0] == 'main', line
    assert not re.search(r'[\x00-\x1f\x7f]', line), line
sys.exit(not (n == 3 and total == 7))"
check "names: folded frame escaped" grep -Fqx \
	'main;fake\x3bstack 999999\n\x1b]0\x3bpwned\x07\x1b[31mred 3' forge.folded

# ---- text for terminals: no control byte, no line added ----
# no_ctl FILE: FILE has no byte below 0x20 but newline and tab (a source
# line's indentation), nor DEL.
CTL=$(printf '[\001-\010\013-\037\177]')
no_ctl() { ! LC_ALL=C grep -q "$CTL" "$1"; }
"$PGOPROF" report forge.raw --binary forge --source >rep.txt 2>&1
check "names: report text: no control bytes" no_ctl rep.txt
check "names: report text: the forged function is one line" grep -Fq \
	"  zz:1:1\n 0: 1\nmain:424242:0\n 0: 424242\nyy" rep.txt
"$PGOPROF" report forge.raw --binary forge -f main >repf.txt 2>&1
check "names: report -f main: no control bytes" no_ctl repf.txt
check "names: report -f takes the name as printed" sh -c \
	"'$PGOPROF' report forge.raw --binary forge -f '$FORGED' | grep -q '^# function zz:1:1'"
"$PGOPROF" diff forge.raw forge.raw --binary forge >diff.txt 2>&1
check "names: diff: no control bytes" no_ctl diff.txt
"$PGOPROF" show forge.raw >show.txt 2>&1
check "names: show: no control bytes" no_ctl show.txt
check "names: show: META source one escaped line" sh -c \
	"grep -Fqx 'meta source = in\\nmeta forged = 1\\x1b[2J.txt' show.txt && ! grep -q '^meta forged' show.txt"
"$PGOPROF" show forge.raw --binary forge >showb.txt 2>&1
check "names: show --binary: no control bytes" no_ctl showb.txt
check "names: show --binary: 3 functions, one line each" sh -c "test \"\$(grep -vc '^#' showb.txt)\" = 3"
if [ -e forge.extbin ]; then
	"$PGOPROF" show forge.extbin >showx.txt 2>showx.err
	check "names: show of extbinary as LLVM text: main alone, the rest said" sh -c \
		"no_ctl() { ! LC_ALL=C grep -q '$CTL' \"\$1\"; }; no_ctl showx.txt && no_ctl showx.err &&
		 test \"\$(grep -c '^[^ ]' showx.txt)\" = 1 && grep -q '2 functions (6 samples)' showx.err"
fi

# ---- an object path with ESC and ';', without a build-ID ----
P=$(printf '%s/x\033[31m;y' "$D")
{
	echo "t 100/100 10.000000: PERF_RECORD_COMM exec: t:100/100"
	echo "t 100/100 10.000100: PERF_RECORD_MMAP2 100/100: [0x7f0000000000(0x1000) @ 0 08:01 1234 0]: r-xp $P"
	printf 't 100/100 10.001000:     250000 cpu-clock: \n\t    7f0000000010 x (%s)\n\n' "$P"
} >path.txt
"$PGOPROF" import path.txt -o path.raw >pimp.out 2>pimp.err
check "names: import's message escapes the path" sh -c \
	"no_ctl() { ! LC_ALL=C grep -q '$CTL' \"\$1\"; }; no_ctl pimp.err && grep -Fq '$D/x\\x1b[31m;y' pimp.err"
"$PGOPROF" report path.raw >prep.txt 2>&1
"$PGOPROF" show path.raw >pshow.txt 2>&1
"$PGOPROF" report --folded path.raw >pfold.txt 2>&1
check "names: report, show, folded escape the path" sh -c \
	"no_ctl() { ! LC_ALL=C grep -q '$CTL' \"\$1\"; }; no_ctl prep.txt && no_ctl pshow.txt && no_ctl pfold.txt &&
	 grep -Fq '  [$D/x\\x1b[31m;y]' prep.txt && grep -Fq 'path $D/x\\x1b[31m;y samples' pshow.txt &&
	 grep -Fqx '[$D/x\\x1b[31m\\x3by+0x10] 1' pfold.txt"
