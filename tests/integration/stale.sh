#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pgoprof check on a profile carried across commits (issue 31, item 1):
# what the profile's line offsets meant in the recorded build against
# what they mean in the new one.  tests/workloads/stale.c recorded with
# exact counts (no sampling luck), then built again:
# - from an identical copy in another directory (gcc-12 and clang-16: new
#   build-IDs, same lines): every function unchanged, status 0; and
#   the same source built with the profile (-fauto-profile,
#   -fprofile-sample-use): hot unchanged, status 0;
# - with 4 comment lines in hot's loop: hot shifted by 4 lines, status 1
#   (0 with --allow-stale); the new build still has code at every old
#   offset of the loop body;
# - with 3 of hot's lines rewritten and one added: hot rewritten, status 1;
# - with pseudo-probes (clang): a new branch changes hot's CFG checksum
#   (rewritten, status 1), comment lines do not (probes are not lines).
. "$(dirname "$0")/../lib.sh"

D=$WORK/stale
rm -rf "$D"; mkdir -p "$D/same" "$D/new"; cd "$D" || exit 1
need_tool "stale: gcc" gcc gcc || exit 0
if ! command -v qemu-x86_64 >/dev/null 2>&1 && ! command -v valgrind >/dev/null 2>&1; then
	skip "stale" "record --exact needs qemu-user or valgrind ('make deps' installs them)"
	exit 0
fi
SRC=$TOP/tests/workloads/stale.c
cp "$SRC" w.c
cp "$SRC" same/w.c
sed '/^\t\th \*= 16777619u;/a\		/* a\n\t\t * comment\n\t\t * of four\n\t\t */' w.c >shift.c
sed 's/^\t\ta += h >> 3;/\t\ta += h >> 4;\n\t\tc -= a;/; s/^\t\tc ^= b >> 7;/\t\tc ^= (b >> 7) * 5;/; s/^\t\tb += a \* 3;/\t\tb -= a * 9;/' w.c >rewrite.c
sed 's/^\t\tc += b \* 7;/\t\tc += b * 7;\n\t\tif (c \& 0x100)\n\t\t\tb ^= c;/' w.c >branch.c
cmp -s w.c shift.c || cmp -s w.c rewrite.c || cmp -s w.c branch.c &&
	{ fail "stale: the edits of stale.c apply"; exit 0; }

# build CC FLAGS SUFFIX: oldSUFFIX/app (recorded), sameSUFFIX/app (built in
# same/), shift, rewrite, branch.
build() {
	mkdir -p "old$3" &&
	$1 $2 -o "old$3/app" w.c && mkdir -p "same$3" && (cd same && $1 $2 -o "../same$3/app" w.c) &&
	$1 $2 -o "shift$3" shift.c && $1 $2 -o "rewrite$3" rewrite.c &&
	$1 $2 -o "branch$3" branch.c
}
# verdict NAME STATUS PATTERN CHECK-ARGS...: check exits with STATUS and
# prints a line that matches PATTERN.
verdict() {
	name=$1 want=$2 pat=$3; shift 3
	"$PGOPROF" check "$@" >out.txt 2>err.txt; rc=$?
	if [ $rc -eq "$want" ] && grep -q -- "$pat" out.txt; then pass "stale: $name (rc=$rc)"
	else fail "stale: $name (rc=$rc, want $want)" "$(cat out.txt err.txt | head -n 4 | tr '\n' ' ')"; fi
}

for cc in gcc clang; do
	if [ $cc = gcc ]; then CC=gcc FL="-O2 -g" FMT=afdo
	else CC=$CLANG FL="-O2 -g -fdebug-info-for-profiling" FMT=llvm-text; fi
	build "$CC" "$FL" "-$cc" 2>cc.err || { fail "stale: $cc builds" "$(head -n 2 cc.err)"; continue; }
	"$PGOPROF" record --exact -q -o $cc.raw -- ./old-$cc/app >/dev/null 2>rec.err &&
	"$PGOPROF" convert -q $cc.raw --binary old-$cc/app -f $FMT -o $cc.prof 2>conv.err ||
		{ fail "stale: $cc: record --exact and convert" "$(cat rec.err conv.err | head -n 2)"; continue; }
	# An identical rebuild elsewhere: another build-ID, the same lines.
	if cmp -s old-$cc/app same-$cc/app; then
		fail "stale: $cc: the copy in another directory builds another binary"
	fi
	verdict "$cc: identical rebuild, raw profile (recorded path): hot unchanged" 0 \
		'^  hot: unchanged' --binary same-$cc/app $cc.raw
	check "stale: $cc: identical rebuild: warm unchanged, nothing stale" sh -c \
		"grep -q '^  warm: unchanged' out.txt && ! grep -q ': shifted\|: rewritten\|: missing' out.txt"
	verdict "$cc: identical rebuild, $FMT --recorded-binary: unchanged" 0 \
		'0 shifted, 0 rewritten, 0 missing' --binary same-$cc/app --recorded-binary old-$cc/app $cc.prof
	# The same source built with the profile: code layout and some
	# instructions differ, the lines do not.
	if [ $cc = gcc ]; then USE=-fauto-profile=$cc.prof; else USE=-fprofile-sample-use=$cc.prof; fi
	if $CC $FL $USE -o pgo-$cc w.c 2>cc.err; then
		verdict "$cc: a build of the same source with the profile: hot unchanged" 0 \
			'^  hot: unchanged' --binary pgo-$cc --recorded-binary old-$cc/app $cc.prof
	else
		fail "stale: $cc: build with the profile" "$(head -n 2 cc.err)"
	fi
	# 4 comment lines: hot's loop body moves by 4.
	verdict "$cc: 4 lines inserted: hot shifted by 4 lines, re-keyable" 1 \
		'^  hot: shifted by 4 lines from offset [0-9]* .*: re-keyable, every' \
		--binary shift-$cc --recorded-binary old-$cc/app $cc.prof
	verdict "$cc: the same from the raw profile" 1 '^  hot: shifted by 4 lines' \
		--binary shift-$cc --recorded-binary old-$cc/app $cc.raw
	verdict "$cc: --allow-stale: status 0" 0 '^stale: allowed' \
		--binary shift-$cc --recorded-binary old-$cc/app --allow-stale --min-fit 0 $cc.prof
	verdict "$cc: a rewritten loop body: hot rewritten" 1 '^  hot: rewritten' \
		--binary rewrite-$cc --recorded-binary old-$cc/app $cc.prof
done

# Without the recorded binary the old measure stays, and says its limit.
verdict "without --recorded-binary: the limit is said" 1 '^note: without the binary' \
	--binary shift-clang clang.prof

# Pseudo-probes: CFG checksums.
FL="-O2 -g -fdebug-info-for-profiling -fpseudo-probe-for-profiling"
if build "$CLANG" "$FL" -probe 2>cc.err &&
   "$PGOPROF" record --exact -q -o probe.raw -- ./old-probe/app >/dev/null 2>rec.err &&
   "$PGOPROF" convert -q probe.raw --binary old-probe/app --probes on -f llvm-text -o probe.prof 2>conv.err; then
	verdict "probes: a new branch changes hot's checksum: rewritten" 1 \
		'^  hot: rewritten .*CFG checksum' --binary branch-probe probe.prof
	verdict "probes: comment lines keep the checksum: unchanged" 0 \
		'^  hot: unchanged' --binary shift-probe probe.prof
else
	fail "stale: probes: build, record and convert" "$(cat cc.err rec.err conv.err | head -n 2)"
fi
