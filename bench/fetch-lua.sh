#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Fetch Debian's lua5.4 source package into DESTDIR/src (the interpreter
# that bench/quality.sh builds and runs on bench/lua-bench.lua).
set -eu

usage() {
    cat <<USAGE
Usage: $0 [DESTDIR]

Fetches Debian's lua5.4 source with 'apt-get source' into DESTDIR
(default: <repo>/bench/work/lua); afterwards DESTDIR/src is Lua's src/
directory with Debian's patches applied (lua.c, lapi.c, lvm.c, ...; build
the interpreter from every .c file but luac.c). Needs root the first time
(a deb-src entry, dpkg-dev). Does nothing if already fetched.
USAGE
}

case "${1:-}" in -h|--help) usage; exit 0 ;; esac
[ $# -le 1 ] || { usage >&2; exit 2; }

REPO=$(cd "$(dirname "$0")/.." && pwd)
DEST=${1:-$REPO/bench/work/lua}
SRC=$DEST/src

report() { echo "lua source:     $SRC"; }

# Debian's luaconf.h includes a header that debian/rules writes at build
# time (the multiarch triplet in the C module search path).
multiarch() {
    h=$SRC/lua5.4-deb-multiarch.h
    [ -f "$h" ] && return 0
    t=$(gcc -print-multiarch 2>/dev/null || true)
    printf '#define DEB_HOST_MULTIARCH "%s"\n' "${t:-x86_64-linux-gnu}" >"$h"
}

if [ -f "$SRC/lvm.c" ] && [ -f "$SRC/lua.c" ]; then
    multiarch
    report
    exit 0
fi
. "$REPO/bench/lib.sh"
dir=$(fetch_debsrc fetch-lua lua5.4 "$DEST" src/lvm.c)
ln -sfn "$(basename "$dir")/src" "$SRC"
multiarch
report
