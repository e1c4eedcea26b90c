#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The newer clangs of Debian 12 (issue 31 item 9): clang-19 (bookworm) and
# clang-22 (bookworm-security), installed by 'make deps', with pgo.mk on
# the example project (pgo/examples), as docs/pgo.md "Compilers" says:
# samples (root: pgoprof record) and exact counts with pseudo-probes (no
# root), the profile read by their llvm-profdata the same as by
# llvm-profdata-16, in extbinary and text, applied by the clang without a
# warning; a stale probe profile is dropped silently by default, and said
# with -mllvm -report-profile-staleness.  A version not installed: SKIP.
. "$(dirname "$0")/../lib.sh"

D=$WORK/pgo_clang
rm -rf "$D" && mkdir -p "$D" || exit 1
EX=$TOP/pgo/examples
before=$(ls -A "$EX")
set -- PGOPROF="$PGOPROF" PGO_FREQ=999 'PGO_TRAIN=$(PGO_BINARY) 4 >/dev/null'

# applies NAME CLANG PROFILE [FLAGS]: the clang gives main an entry count
# from PROFILE, and says nothing.
applies() {
	"$2" -O2 -g ${4:-} -fprofile-sample-use="$3" -S -emit-llvm -o "$D/$1.ll" \
		"$EX/wordfreq.c" 2>"$D/$1.err"
	check "$1: $2 applies the profile (entry count of main), no warning" sh -c \
		"grep -q '^![0-9]* = !{!\"function_entry_count\", i64 [1-9]' '$D/$1.ll' && ! test -s '$D/$1.err'"
}

# same_show NAME PROFDATA PROFILE...: every PROFILE reads the same in
# PROFDATA as the first in llvm-profdata-16 (show --sample: every count).
same_show() {
	name=$1 pd=$2; shift 2
	ref=$D/$name.ref
	if command -v "$PROFDATA" >/dev/null 2>&1; then
		"$PROFDATA" show --sample "$1" >"$ref" 2>&1
	else
		"$pd" show --sample "$1" >"$ref" 2>&1
	fi
	ok=1
	for p in "$@"; do
		"$pd" show --sample "$p" >"$D/$name.got" 2>&1 && cmp -s "$ref" "$D/$name.got" || ok=0
	done
	check "$name: $pd reads $(echo "$@" | sed "s|$D/||g") as $PROFDATA does ($(grep -c '^Function:' "$ref") functions)" \
		test $ok = 1 -a -s "$ref" -a "$(grep -c '^Function:' "$ref")" -gt 0
}

# A stale source: a line added at the top of main.
sed '/^int main/,/^{/{/^{/a\
	if (getenv("WORDFREQ_EXTRA")) puts("extra");
}' "$EX/wordfreq.c" >"$D/stale.c"
check "stale.c differs from wordfreq.c in main" sh -c "! cmp -s '$EX/wordfreq.c' '$D/stale.c'"

for v in 19 22; do
	cc=clang-$v pd=llvm-profdata-$v
	need_tool "clang-$v" "$cc" "clang-$v" || continue
	need_tool "clang-$v" "$pd" "llvm-$v" || continue

	# Samples: pgoprof record needs root.
	S=$D/sample$v
	if [ "$(id -u)" = 0 ]; then
		make -C "$EX" "$@" PGO_MODE=sample PGO_CC="$cc" PGO_DIR="$S" \
			pgo-profile pgo-build >"$S.log" 2>&1
		rc=$?
		check "$cc: make pgo-profile pgo-build, samples (rc=$rc)" test $rc -eq 0
		check "$cc: the PGO build uses the profile" grep -q -- \
			"build pgo: $cc -O2 -g -fprofile-sample-use=$S/wordfreq.extbin -fsample-profile-use-profi\$" "$S.log"
		"$PGOPROF" convert -q "$S/wordfreq.raw" --binary "$S/sampled/wordfreq" \
			-f llvm-text --call-targets calls -o "$S/wordfreq.txt"
		same_show "$cc samples" "$pd" "$S/wordfreq.extbin" "$S/wordfreq.txt"
		applies "$cc samples" "$cc" "$S/wordfreq.extbin"
		applies "$cc samples, text" "$cc" "$S/wordfreq.txt"
	else
		skip "$cc samples" "pgoprof record needs root"
	fi

	# Exact counts, probe-based (no root).
	P=$D/probes$v
	make -C "$EX" "$@" PGO_MODE=exact PGO_CC="$cc" PGO_DIR="$P" \
		pgo-profile pgo-build >"$P.log" 2>&1
	rc=$?
	if [ $rc -ne 0 ] && grep -q 'no engine' "$P.log"; then
		skip "$cc probes" "record --exact has no engine here (qemu-user or valgrind)"
		continue
	fi
	check "$cc: make pgo-profile pgo-build, exact counts with probes (rc=$rc)" test $rc -eq 0
	check "$cc: $pd reads the profile as probe-based" sh -c \
		"'$pd' show --sample --show-sec-info-only '$P/wordfreq.extbin' | grep -q 'FunctionMetadata.*Flags: {probe}'"
	"$PGOPROF" convert -q "$P/wordfreq.raw" --binary "$P/sampled/wordfreq" \
		-f llvm-text --call-targets calls -o "$P/wordfreq.txt"
	same_show "$cc probes" "$pd" "$P/wordfreq.extbin" "$P/wordfreq.txt"
	applies "$cc probes" "$cc" "$P/wordfreq.extbin" -fpseudo-probe-for-profiling

	# The sample loader on a stale probe profile: silent by default,
	# counted with -report-profile-staleness.
	"$cc" -O2 -g -fpseudo-probe-for-profiling -fprofile-sample-use="$P/wordfreq.extbin" \
		-c -o "$D/stale$v.o" "$D/stale.c" 2>"$D/stale$v.err"
	check "$cc: a stale probe profile gives no warning by default" test ! -s "$D/stale$v.err"
	"$cc" -O2 -g -fpseudo-probe-for-profiling -fprofile-sample-use="$P/wordfreq.extbin" \
		-mllvm -report-profile-staleness -c -o "$D/stale$v.o" "$D/stale.c" 2>"$D/stale$v.err"
	check "$cc: -report-profile-staleness says main's profile is invalid" \
		grep -q "^(1/[0-9]*) of functions' profile are invalid" "$D/stale$v.err"
done
check "the example directory is left as it was" test "$(ls -A "$EX")" = "$before"
