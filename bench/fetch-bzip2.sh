#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Fetch Debian's bzip2 source package into DESTDIR/src, and generate the
# deterministic text corpora that bench/pgo-compare.sh compresses.
set -eu

usage() {
    cat <<USAGE
Usage: $0 [DESTDIR]
       $0 --corpus FILE MB

Fetches Debian's bzip2 source with 'apt-get source' into DESTDIR
(default: <repo>/bench/work/bzip2); afterwards DESTDIR/src contains the
bzip2 sources with Debian's patches applied (bzip2.c, bzlib.c, blocksort.c,
compress.c, decompress.c, huffman.c, crctable.c, randtable.c). Needs root
the first time (a deb-src entry, dpkg-dev). Does nothing if already fetched.

--corpus FILE MB writes a deterministic generated text corpus of about MB
MiB to FILE (English-like Zipf-distributed words from a generated
vocabulary, punctuation, and some log-like lines with numbers). The same
MB gives the same bytes on every machine with a POSIX awk.
USAGE
}

die() { echo "fetch-bzip2: $*" >&2; exit 1; }

# The corpus generator. Its own LCG (Park-Miller, exact in doubles), not
# awk's rand(), so that mawk and gawk write the same bytes.
corpus() {
    awk -v mb="$2" '
    function rnd() { seed = (seed * 48271) % 2147483647; return seed / 2147483647 }
    BEGIN {
        seed = 12345; target = mb * 1048576; nv = 20000
        letters = "etaoinshrdlcumwfgypbvkjxqz"
        for (i = 1; i <= nv; i++) {
            len = 2 + int(rnd() * rnd() * 10); w = ""
            for (j = 0; j < len; j++) w = w substr(letters, 1 + int(26 * rnd() * rnd()), 1)
            vocab[i] = w
        }
        out = 0
        while (out < target) {
            if (rnd() < 0.08) {
                s = sprintf("2023-%02d-%02d %02d:%02d:%02d host%d pid=%d status=%d bytes=%d",
                    1 + int(rnd() * 12), 1 + int(rnd() * 28), int(rnd() * 24), int(rnd() * 60),
                    int(rnd() * 60), int(rnd() * 50), int(rnd() * 65536),
                    200 + 100 * int(rnd() * 4), int(rnd() * 1000000))
                print s; out += length(s) + 1; continue
            }
            nw = 4 + int(rnd() * 14); s = ""
            for (j = 0; j < nw; j++) {
                k = int(exp(rnd() * log(nv))); if (k < 1) k = 1   # P(k) ~ 1/k
                w = vocab[k]
                if (j == 0) w = toupper(substr(w, 1, 1)) substr(w, 2)
                s = s (j ? " " : "") w
                if (rnd() < 0.07 && j < nw - 1) s = s ","
            }
            s = s (rnd() < 0.1 ? "?" : ".")
            print s; out += length(s) + 1
        }
    }' > "$1.tmp" && mv "$1.tmp" "$1"
}

case "${1:-}" in
    -h|--help) usage; exit 0 ;;
    --corpus)
        [ $# -eq 3 ] || { usage >&2; exit 2; }
        case $3 in ''|*[!0-9]*) die "MB must be a positive integer, got '$3'" ;; esac
        corpus "$2" "$3"
        exit 0 ;;
esac
[ $# -le 1 ] || { usage >&2; exit 2; }

REPO=$(cd "$(dirname "$0")/.." && pwd)
DEST=${1:-$REPO/bench/work/bzip2}
SRC=$DEST/src

report() { echo "bzip2 source:   $SRC"; }

if [ -f "$SRC/bzip2.c" ] && [ -f "$SRC/blocksort.c" ]; then
    report
    exit 0
fi
. "$REPO/bench/lib.sh"
dir=$(fetch_debsrc fetch-bzip2 bzip2 "$DEST" bzip2.c)
ln -sfn "$(basename "$dir")" "$SRC"
report
