#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Fetch Debian's sqlite3 source package and make sure the amalgamation
# (sqlite3.c, sqlite3.h) and test/speedtest1.c exist in DESTDIR/src.
set -eu

usage() {
    cat <<USAGE
Usage: $0 [DESTDIR]

Fetches Debian's sqlite3 source with 'apt-get source' into DESTDIR
(default: <repo>/bench/work/sqlite) and prepares the amalgamation.
Afterwards DESTDIR/src contains sqlite3.c, sqlite3.h and test/speedtest1.c.
Needs root (or sudo-less apt) the first time, to add a deb-src entry and
install dpkg-dev/tcl if missing. Does nothing if already fetched.
USAGE
}

case "${1:-}" in -h|--help) usage; exit 0 ;; esac
[ $# -le 1 ] || { usage >&2; exit 2; }

REPO=$(cd "$(dirname "$0")/.." && pwd)
DEST=${1:-$REPO/bench/work/sqlite}
SRC=$DEST/src

die() { echo "fetch-sqlite: $*" >&2; exit 1; }

report() {
    echo "sqlite source:  $SRC"
    echo "amalgamation:   $SRC/sqlite3.c $SRC/sqlite3.h"
    echo "speedtest1:     $SRC/test/speedtest1.c"
}

if [ -f "$SRC/sqlite3.c" ] && [ -f "$SRC/sqlite3.h" ] && [ -f "$SRC/test/speedtest1.c" ]; then
    report
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    die "first fetch needs root (apt-get); rerun as root or fetch by hand into $DEST"
fi

. "$REPO/bench/lib.sh"
if [ ! -d "$SRC" ]; then
    dir=$(fetch_debsrc fetch-sqlite sqlite3 "$DEST" test/speedtest1.c)
    ln -sfn "$(basename "$dir")" "$SRC"
fi

# Debian's tree is the canonical source, not the amalgamation tarball:
# sqlite3.c has to be generated, which takes tclsh.
if [ ! -f "$SRC/sqlite3.c" ]; then
    need_pkg tclsh tcl
    (cd "$SRC" && ./configure --quiet >/dev/null && make -s sqlite3.c >/dev/null) \
        || die "generating the amalgamation failed in $SRC; try '(cd $SRC && ./configure && make sqlite3.c)' to see why"
fi

report
