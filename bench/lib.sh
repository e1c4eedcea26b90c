# SPDX-License-Identifier: GPL-2.0-only
# Shell pieces the bench/ scripts share (POSIX sh; sourced, never run).
#   . "$(dirname "$0")/lib.sh"

# The median of the numbers on stdin, one a line; lines "fail" (a run that
# failed) are left out; "fail" if nothing is left.
median() {
    grep -v '^fail$' | sort -g | awk '{ a[NR] = $1 }
        END { if (!NR) print "fail"; else if (NR % 2) print a[(NR + 1) / 2]
              else printf "%.6g\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# apt-get update once per script run (again after ensure_debsrc).
apt_updated=
apt_update() { [ -n "$apt_updated" ] || { apt-get update -qq; apt_updated=1; }; }

need_pkg() { # COMMAND PACKAGE: install PACKAGE unless COMMAND exists
    command -v "$1" >/dev/null 2>&1 && return 0
    apt_update
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
}

# apt-get source needs a deb-src entry; Debian 12 images ship only
# 'Types: deb' in deb822 form, so mirror the main archive's stanza (the
# first; the second is debian-security) as deb-src.  $1 names the caller
# in messages.
ensure_debsrc() {
    grep -rqsE '^[[:space:]]*(deb-src|Types:.*deb-src)' \
        /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null && return 0
    main=/etc/apt/sources.list.d/debian.sources
    [ -f "$main" ] || { echo "$1: no deb-src entry and no $main to copy from; add a deb-src line for Debian's main archive to /etc/apt/sources.list and rerun" >&2; exit 1; }
    awk 'BEGIN{RS=""; ORS="\n"} NR==1{print; exit}' "$main" \
        | sed 's/^Types:.*/Types: deb-src/' \
        > /etc/apt/sources.list.d/pgoprof-src.sources
    echo "$1: added /etc/apt/sources.list.d/pgoprof-src.sources" >&2
    apt_updated=
}

# fetch_debsrc CALLER PACKAGE DEST FILE: 'apt-get source PACKAGE' into DEST
# (as root: adds a deb-src entry and dpkg-dev where missing) and print the
# directory it unpacked, DEST/PACKAGE-*, which must hold FILE:
#   dir=$(fetch_debsrc fetch-foo foo "$DEST" foo.c)
fetch_debsrc() {
    [ "$(id -u)" -eq 0 ] || { echo "$1: first fetch needs root (apt-get); rerun as root or fetch by hand into $3" >&2; exit 1; }
    ensure_debsrc "$1"
    apt_update
    need_pkg dpkg-source dpkg-dev
    mkdir -p "$3"
    (cd "$3" && apt-get source -qq "$2") >&2 \
        || { echo "$1: apt-get source $2 failed; check 'apt-get update' output and the deb-src entry" >&2; exit 1; }
    d=$(find "$3" -mindepth 1 -maxdepth 1 -type d -name "$2-*" | head -n 1)
    [ -n "$d" ] && [ -f "$d/$4" ] || { echo "$1: apt-get source left no $2-*/$4 in $3" >&2; exit 1; }
    echo "$d"
}

# head_corpus CALLER OUT KB FILE...: the first KB KiB of the FILEs, one
# after another, to OUT (through OUT.tmp); fails when they hold less.
# Expand a FILE glob under LC_ALL=C, for one order on every machine.
head_corpus() {
    hc_who=$1 hc_out=$2 hc_kb=$3
    shift 3
    case $hc_kb in ''|*[!0-9]*) echo "$hc_who: KB must be a positive integer, got '$hc_kb'" >&2; exit 1 ;; esac
    cat "$@" | head -c $((hc_kb * 1024)) >"$hc_out.tmp"
    [ "$(wc -c <"$hc_out.tmp")" -eq $((hc_kb * 1024)) ] \
        || { rm -f "$hc_out.tmp"; echo "$hc_who: the sources hold less than $hc_kb KiB" >&2; exit 1; }
    mv "$hc_out.tmp" "$hc_out"
}
