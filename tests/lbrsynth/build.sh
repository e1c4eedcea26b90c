#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# lbrsynth and its test programs, copied to OUTDIR for a test to run there.
# Usage: tests/lbrsynth/build.sh [OUTDIR]   (default: tests/out/lbrsynth)
# Writes OUTDIR/lbrsynth and OUTDIR/progs/{loops,dispatch,libcall}.  The
# top-level Makefile builds them (make lbrsynth, which make check runs
# first): into $BUILD when tests/run.sh gives it, else into build/ here.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUTDIR=${1:-$TOP/tests/out/lbrsynth}
if [ -z "${BUILD:-}" ]; then
	BUILD=$TOP/build
	make -s -C "$TOP" lbrsynth LBRSYNTH_CLANG="${CLANG:-clang-16}"
fi
mkdir -p "$OUTDIR/progs"
cp "$BUILD/lbrsynth" "$OUTDIR/lbrsynth"
cp "$BUILD"/lbrsynth-progs/* "$OUTDIR/progs/"
