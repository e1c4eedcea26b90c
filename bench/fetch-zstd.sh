#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Fetch Debian's zstd source package (libzstd) into DESTDIR/src: the zstd
# command that bench/quality.sh builds from lib/ and programs/.
set -eu

usage() {
    cat <<USAGE
Usage: $0 [DESTDIR]
       $0 --cg-corpus FILE KB

Fetches Debian's zstd source (source package libzstd) with 'apt-get
source' into DESTDIR (default: <repo>/bench/work/zstd); afterwards
DESTDIR/src is the source tree with Debian's patches applied (lib/common,
lib/compress, lib/decompress, programs/zstdcli.c, ...). Needs root the
first time (a deb-src entry, dpkg-dev). Does nothing if already fetched.

--cg-corpus FILE KB writes the first KB KiB of zstd's own C sources
(lib/compress, lib/decompress, lib/common, programs; each directory's
files in name order) to FILE: text of another kind than fetch-bzip2.sh's
generated corpus, the same bytes for one Debian version of the package.
USAGE
}

die() { echo "fetch-zstd: $*" >&2; exit 1; }

REPO=$(cd "$(dirname "$0")/.." && pwd)

case "${1:-}" in
    -h|--help) usage; exit 0 ;;
    --cg-corpus)
        [ $# -eq 3 ] || { usage >&2; exit 2; }
        S=$REPO/bench/work/zstd/src
        [ -f "$S/lib/zstd.h" ] || die "no zstd source in $S: run $0 first"
        . "$REPO/bench/lib.sh"
        export LC_ALL=C
        head_corpus fetch-zstd "$2" "$3" "$S"/lib/compress/*.c "$S"/lib/decompress/*.c \
            "$S"/lib/common/*.c "$S"/programs/*.c
        exit 0 ;;
esac
[ $# -le 1 ] || { usage >&2; exit 2; }

DEST=${1:-$REPO/bench/work/zstd}
SRC=$DEST/src

report() { echo "zstd source:    $SRC"; }

if [ -f "$SRC/lib/zstd.h" ] && [ -f "$SRC/programs/zstdcli.c" ]; then
    report
    exit 0
fi
. "$REPO/bench/lib.sh"
dir=$(fetch_debsrc fetch-zstd libzstd "$DEST" programs/zstdcli.c)
ln -sfn "$(basename "$dir")" "$SRC"
report
