#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A function GCC split (ipa-split): tests/workloads/split.c's sum_slow,
# whose head gcc -O2 inlines into use_a and use_b and whose body becomes
# sum_slow.part.0.  GCC 12 early-inlines what the profile shows inlined,
# the whole function, before it splits: the .afdo writer must give each
# inlined head the body's counts (convert/afdo.c, docs/convert.md), or
# the hot loop is compiled as never run.  Exact counts (record --exact),
# converted for GCC and for LLVM, which keeps the heads as they are.
. "$(dirname "$0")/../lib.sh"

need_tool afdo_split gcc gcc || exit 0
D=$WORK/afdo_split
rm -rf "$D" && mkdir -p "$D" && cd "$D" || exit 1
SRC=$TOP/tests/workloads/split.c

gcc -O2 -g -o split "$SRC" || { fail "afdo_split: gcc -O2 -g split.c"; exit 0; }
check "gcc -O2 split sum_slow (sum_slow.part.0, its head inlined)" sh -c \
	"nm split | grep -q ' sum_slow\.part\.0\$' && ! nm split | grep -q ' sum_slow\$'"
"$PGOPROF" record --exact -q -o split.raw -- ./split 300 >split.out 2>record.err ||
	{ fail "afdo_split: record --exact" "$(tail -n 2 record.err | tr '\n' ' ')"; exit 0; }
"$PGOPROF" convert split.raw --binary split --format afdo --gcc-version 12 \
	-o split.afdo 2>convert.err
rc=$?
check "convert --format afdo exits 0 and says how many heads it completed (rc=$rc)" sh -c \
	"test $rc -eq 0 && grep -q 'note: 2 inlined heads of functions GCC split' convert.err"
"$PGOPROF" merge -f llvm-text -o gcc.txt split.afdo 2>/dev/null
"$PGOPROF" convert split.raw --binary split --format llvm-text -q -o llvm.txt 2>/dev/null

# Offsets from sum_slow's declaration line.
decl=$(grep -n '^static long sum_slow' "$SRC" | cut -d: -f1)
loop=$(( $(grep -n 's += (long)v\[i\] \* v\[i\];' "$SRC" | cut -d: -f1) - decl ))
head=$(( $(grep -n 'if (__builtin_expect(n == cache_n, 1))' "$SRC" | cut -d: -f1) - decl ))
# count of offset OFF in the instance of sum_slow inlined into FUNCTION,
# itself top level or inlined (gcc -O2 inlines use_a and use_b into main)
inst() { awk -v f="$2" -v o="$3" '
	BEGIN { fd = sd = -1 }
	{ match($0, /^ */); d = RLENGTH }
	d <= fd { fd = sd = -1 }
	d <= sd { sd = -1 }
	fd < 0 && ($1 ~ "^" f ":" || $2 ~ "^" f ":") { fd = d; next }
	fd >= 0 && sd < 0 && d == fd + 1 && $2 ~ /^sum_slow:/ { sd = d; next }
	sd >= 0 && d == sd + 1 && $1 == o ":" { print $2; exit }' "$1"; }
for fn in use_a use_b; do
	h=$(inst gcc.txt $fn $head) l=$(inst gcc.txt $fn $loop)
	check "gcc: $fn's inlined sum_slow has its loop, 256 to 455 times its head ($l, $h)" \
		test "${h:-0}" -gt 0 -a "${l:-0}" -ge $(( ${h:-0} * 256 )) -a "${l:-0}" -le $(( ${h:-0} * 455 ))
	check "llvm: $fn's inlined sum_slow is the head alone" sh -c \
		"test -n '$(inst llvm.txt $fn $head)' && test -z '$(inst llvm.txt $fn $loop)'"
done
check "gcc -fauto-profile reads the profile" gcc -O2 -g -fauto-profile=split.afdo \
	-Werror=coverage-mismatch -o split.pgo "$SRC"
