#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Bad input: one line on stderr naming the file, a non-zero exit, and no
# output file (nor temporary) left behind.
. "$(dirname "$0")/../lib.sh"

build_workloads || { fail build_workloads "clang-16 could not build tests/workloads"; exit 0; }
cd "$WORK" || exit 1
mkdir -p bad && cd bad || exit 1
rm -f ./* ./.[!.]*

# A raw profile to damage: recorded if we can, else written by merge of
# a recorded one from the other test; without root, build one by hand is
# not possible, so fall back to the other test's output.
# (Only a recording of this build of hot: tests/out/work outlives a run.)
if [ -f ../hot.raw ] && [ ../hot.raw -nt ../hot ]; then cp ../hot.raw good.raw
elif [ "$(id -u)" = 0 ]; then "$PGOPROF" record -q -o good.raw -- ../hot 1 >/dev/null
fi
[ -f good.raw ] || { fail "bad input tests" "no raw profile (needs root to record one)"; exit 0; }

# expect_error NAME FILE-TO-MENTION COMMAND...
expect_error() {
	name=$1; mention=$2; shift 2
	"$@" >/dev/null 2>err.txt; rc=$?
	lines=$(wc -l <err.txt)
	left=$(ls -A | grep -v -e '^err.txt$' -e '^good.raw$' -e '^trunc.raw$' -e '^nodebug$' -e '^other$' -e '^other.debug$' -e '^magic.raw$')
	if [ $rc -ne 0 ] && [ "$lines" -eq 1 ] && grep -q -- "$mention" err.txt && [ -z "$left" ]; then
		pass "$name"
	else
		fail "$name" "rc=$rc lines=$lines left='$left' msg='$(cat err.txt)'"
	fi
	rm -f out.prof
}

head -c 100 good.raw >trunc.raw
expect_error "truncated raw profile" "trunc.raw: byte" "$PGOPROF" convert trunc.raw --binary ../hot -o out.prof
printf 'NOTAPROFILE.....' >magic.raw
expect_error "wrong magic" "magic.raw: byte 0" "$PGOPROF" convert magic.raw --binary ../hot -o out.prof

# The same program rebuilt differently: a different build-ID.
$CLANG $PROF_CFLAGS -DOTHER_BUILD -fPIE -pie -o other "$TOP/tests/workloads/hot.c" \
	-L.. -lhot -Wl,-rpath,..
id=$(readelf -n other | awk '/Build ID/ { print $3 }')
expect_error "build-ID mismatch names both IDs" "$id" "$PGOPROF" convert good.raw --binary other -o out.prof
check "mismatch message names the recorded ID" sh -c \
	"grep -q \"\$(readelf -n ../hot | awk '/Build ID/ { print \$3 }')\" err.txt"

objcopy --strip-debug ../hot nodebug
expect_error "binary without debug info" "nodebug: no debug info" "$PGOPROF" convert good.raw --binary nodebug -o out.prof
objcopy --only-keep-debug other other.debug
expect_error "debug file of another build" "other.debug has build-ID" "$PGOPROF" convert good.raw --binary nodebug --debug-binary other.debug -o out.prof
expect_error "missing raw profile" "missing.raw" "$PGOPROF" convert missing.raw --binary ../hot -o out.prof
expect_error "missing binary" "missing-binary" "$PGOPROF" convert good.raw --binary missing-binary -o out.prof
expect_error "missing file to merge" "missing.raw" "$PGOPROF" merge -o out.prof good.raw missing.raw
expect_error "show of a truncated profile" "trunc.raw" "$PGOPROF" show trunc.raw
expect_error "unknown format" "llvm-nope" "$PGOPROF" convert good.raw --binary ../hot --format llvm-nope -o out.prof
