#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The extbinary writer against the real consumers: byte-identical to
# llvm-profdata-16 (plain, --use-md5, --compress-all-sections), and clang-16
# and clang-14 produce the same IR with our extbinary as with the text
# profile.  On a hand-made profile with every feature, the unit test binary's
# hooks write and rewrite the files (see tests/unit/test_extbinary.c).
. "$(dirname "$0")/../lib.sh"

T=$TOP/build/tests/test_extbinary
CLANG14=${CLANG14:-clang}
HOT=$TOP/tests/workloads/hot.c
IRFLAGS="-O2 -g -fdebug-info-for-profiling -S -emit-llvm"

[ -x "$T" ] || { fail extbinary "no $T: run 'make unit-tests' first"; exit 0; }
mkdir -p "$WORK/extbinary" && cd "$WORK/extbinary" || exit 1
rm -f ./*

# A hand-made profile of hot.c (hot_loop with mix inlined, main calling
# hot_loop, lib_mix and cold_path), as text and as our extbinary.
check "write the demo profile" "$T" --write-demo hot.txt hot.extbin

# variant NAME TEST-HOOK-FLAGS LLVM-PROFDATA-FLAGS
variant() {
	if [ -z "$2" ]; then cp hot.extbin "ours-$1.extbin"
	else "$T" --rewrite hot.extbin "ours-$1.extbin" $2; fi
	"$PROFDATA" merge --sample --extbinary $3 -o "llvm-$1.extbin" hot.txt 2>/dev/null
	check "$1: byte-identical to llvm-profdata merge --extbinary $3" \
		cmp "ours-$1.extbin" "llvm-$1.extbin"
	# The same profile read back: llvm-profdata's text of ours and of its own.
	"$PROFDATA" merge --sample --text -o "ours-$1.txt" "ours-$1.extbin" 2>/dev/null
	"$PROFDATA" merge --sample --text -o "llvm-$1.txt" "llvm-$1.extbin" 2>/dev/null
	check "$1: llvm-profdata reads it" sh -c "test -s 'ours-$1.txt' && cmp 'ours-$1.txt' 'llvm-$1.txt'"
	# Our reader gives the text llvm-profdata gives.
	"$T" --text "ours-$1.extbin" >"read-$1.txt" 2>/dev/null
	check "$1: our reader agrees with llvm-profdata" cmp "read-$1.txt" "ours-$1.txt"
}
variant plain "" ""
variant md5 md5 --use-md5
variant zlib compress --compress-all-sections
variant md5-zlib "md5 compress" "--use-md5 --compress-all-sections"
check "plain: the text round trip is exact" cmp hot.txt read-plain.txt

# clang: the IR with our extbinary equals the IR with the text profile, and
# carries the profile (entry counts, !prof on hot_loop, branch weights).
ir() { # COMPILER PROFILE OUT
	"$1" $IRFLAGS -fprofile-sample-use="$2" -o "$3" "$HOT" 2>"$3.err" && ! grep -q warning "$3.err"
}
for cc in "$CLANG" "$CLANG14"; do
	v=$("$cc" --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p;q')
	if ! ir "$cc" hot.txt "text-$v.ll"; then
		fail "clang-$v with the text profile" "$(head -n 3 "text-$v.ll.err" | tr '\n' ' ')"
		continue
	fi
	check "clang-$v: the text profile annotates hot_loop" sh -c \
		"grep '^define.*@hot_loop' 'text-$v.ll' | grep -q '!prof' && grep -q branch_weights 'text-$v.ll'"
	for x in plain md5 zlib md5-zlib; do
		if ir "$cc" "ours-$x.extbin" "ext-$x-$v.ll"; then
			check "clang-$v: our $x extbinary gives the same IR as text" \
				cmp "text-$v.ll" "ext-$x-$v.ll"
		else
			fail "clang-$v reads our $x extbinary" "$(head -n 3 "ext-$x-$v.ll.err" | tr '\n' ' ')"
		fi
	done
done
