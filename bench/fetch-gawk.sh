#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Fetch Debian's gawk source package into DESTDIR/src and configure it
# once (config.h), for the gawk that bench/quality.sh builds with plain
# compiler commands and runs on bench/gawk-bench.awk.
set -eu

usage() {
    cat <<USAGE
Usage: $0 [DESTDIR]
       $0 --cg-corpus FILE KB

Fetches Debian's gawk source with 'apt-get source' into DESTDIR (default:
<repo>/bench/work/gawk) and runs its configure once, without the optional
libraries (--disable-mpfr --without-readline --without-libsigsegv-prefix
--disable-pma --disable-nls --disable-extensions), so that DESTDIR/src
holds the sources with Debian's patches applied and a config.h that any
C compiler can use: gawk is built from the top directory's .c files
(awkgram.c and command.c come generated) and support/'s. Needs root the
first time (a deb-src entry, dpkg-dev). Does nothing if already done.

--cg-corpus FILE KB writes the first KB KiB of gawk's own C sources (the
top directory's .c files in name order) to FILE: text of another kind
than fetch-bzip2.sh's generated corpus, the same bytes for one Debian
version of the package.
USAGE
}

die() { echo "fetch-gawk: $*" >&2; exit 1; }

REPO=$(cd "$(dirname "$0")/.." && pwd)

case "${1:-}" in
    -h|--help) usage; exit 0 ;;
    --cg-corpus)
        [ $# -eq 3 ] || { usage >&2; exit 2; }
        S=$REPO/bench/work/gawk/src
        [ -f "$S/awkgram.c" ] || die "no gawk source in $S: run $0 first"
        . "$REPO/bench/lib.sh"
        export LC_ALL=C
        head_corpus fetch-gawk "$2" "$3" "$S"/*.c
        exit 0 ;;
esac
[ $# -le 1 ] || { usage >&2; exit 2; }

DEST=${1:-$REPO/bench/work/gawk}
SRC=$DEST/src

report() { echo "gawk source:    $SRC"; }

# configure: config.h, once (config.status writes it near its end; a
# failed run removes it, so its presence means a finished configure).
configure() {
    [ -f "$SRC/config.h" ] && [ -f "$SRC/config.status" ] && return 0
    echo "fetch-gawk: configuring $SRC (once)" >&2
    (cd "$SRC" && ./configure --disable-mpfr --without-readline --without-libsigsegv-prefix \
        --disable-pma --disable-nls --disable-extensions >configure.out 2>&1) \
        || { rm -f "$SRC/config.h"; die "configure failed in $SRC (see $SRC/configure.out)"; }
    ! grep -qE '^#define (HAVE_MPFR|HAVE_LIBREADLINE|HAVE_LIBSIGSEGV|USE_PERSISTENT_MALLOC) ' "$SRC/config.h" \
        || { rm -f "$SRC/config.h"; die "configure enabled an optional library in $SRC/config.h"; }
}

if [ -f "$SRC/awkgram.c" ] && [ -f "$SRC/support/regex.c" ]; then
    configure
    report
    exit 0
fi
. "$REPO/bench/lib.sh"
dir=$(fetch_debsrc fetch-gawk gawk "$DEST" awkgram.c)
ln -sfn "$(basename "$dir")" "$SRC"
configure
report
