#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Build lbrsynth and the test programs without the top-level Makefile.
# Usage: tests/lbrsynth/build.sh [OUTDIR]   (default: tests/out/lbrsynth)
# Writes OUTDIR/lbrsynth and OUTDIR/progs/{loops,dispatch,libcall}.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUTDIR=${1:-$TOP/tests/out/lbrsynth}
CC=${CC:-cc}
CLANG=${CLANG:-clang-16}
mkdir -p "$OUTDIR/progs"
$CC -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-missing-field-initializers -O2 -g \
	-o "$OUTDIR/lbrsynth" "$TOP/tests/lbrsynth/lbrsynth.c" "$TOP/tests/lbrsynth/perfwrite.c" \
	"$TOP/proc/mappings.c" "$TOP/proc/buildid.c" \
	"$TOP/raw/rawprof.c" "$TOP/raw/rawio.c" "$TOP/raw/stacks.c" "$TOP/raw/filter.c" "$TOP/lib/util.c" "$TOP/lib/bytes.c" "$TOP/lib/md5.c" \
	-lcapstone
for p in "$TOP"/tests/lbrsynth/progs/*.c; do
	$CLANG -O2 -g -fdebug-info-for-profiling -o "$OUTDIR/progs/$(basename "$p" .c)" "$p"
done
