#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Build SQLite's speedtest1 benchmark from the amalgamation.
set -eu

usage() {
    cat <<USAGE
Usage: $0 OUT CC [CFLAGS...]

Compiles speedtest1.c + sqlite3.c into executable OUT with compiler CC and
the given flags, e.g.
    $0 /tmp/speedtest1 clang-16 -O2 -g
Fetches the sqlite source first (bench/fetch-sqlite.sh) if needed.
Set SQLITE_DIR to use an already fetched tree (default: bench/work/sqlite).
USAGE
}

case "${1:-}" in -h|--help) usage; exit 0 ;; esac
[ $# -ge 2 ] || { usage >&2; exit 2; }

OUT=$1 CC=$2
shift 2

HERE=$(cd "$(dirname "$0")" && pwd)
DEST=${SQLITE_DIR:-$HERE/work/sqlite}
SRC=$DEST/src

command -v "$CC" >/dev/null 2>&1 \
    || { echo "build-speedtest: compiler '$CC' not found; install it (e.g. apt-get install clang-16)" >&2; exit 1; }

if [ ! -f "$SRC/sqlite3.c" ] || [ ! -f "$SRC/test/speedtest1.c" ]; then
    "$HERE/fetch-sqlite.sh" "$DEST" >&2
fi

# Single-threaded, no dlopen: keeps the profile about SQLite itself and
# drops the libdl/pthread dependency. SQLITE_OS_KV_OPTIONAL is what
# sqlite's own Makefile adds for speedtest1. User flags go last so they win.
set -x
"$CC" -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_OS_KV_OPTIONAL \
    -I"$SRC" "$@" \
    -o "$OUT" "$SRC/test/speedtest1.c" "$SRC/sqlite3.c" -lm
