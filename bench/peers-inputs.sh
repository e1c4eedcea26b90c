#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 13's table: recordings as other machines make them (binaries of
# ld.bfd and lld, build-IDs of 20 and 8 bytes and none, an old perf's
# zero-padded header build-ID, perf record -g stack samples, branch
# records, perf script text), each given to pgoprof (import + convert;
# after, and before with -b/-B) and to the peers (perf script +
# llvm-profgen-16; AutoFDO's create_llvm_prof).  Each cell: whether a
# profile came out, the hot function's count and the number of functions
# in it, or the line the tool said when it failed.  Root (perf record).
set -u

usage() {
    cat <<USAGE
Usage: $0 [-a PGOPROF] [-b PGOPROF | -B REV] [-n SAMPLES] [-o OUT.md]

  -a PGOPROF   the pgoprof of the "after" column (default: this tree's,
               built with make)
  -b PGOPROF   the pgoprof of the "before" column (a built binary)
  -B REV       build the "before" pgoprof from git revision REV in a
               worktree under bench/work/peers/ (removed once built; the
               program is kept there as pgoprof-REV)
               Without -b and -B there is no "before" column.
  -n SAMPLES   synthesized samples a branch-record input (default 20000)
  -o OUT       Markdown output (default bench/results/issue13-peers.md;
               - = stdout)

Inputs and outputs are kept in bench/work/peers/ (each cell's profile and
stderr: ID.TOOL.prof, ID.TOOL.err).  Example, the table of issue 13:
    bench/peers-inputs.sh -B 12d1cb7
USAGE
}

HERE=$(cd "$(dirname "$0")" && pwd) REPO=$(cd "$HERE/.." && pwd)
AFTER=$REPO/pgoprof BEFORE= BEFORE_REV= N=20000
OUT=$REPO/bench/results/issue13-peers.md
while getopts a:b:B:n:o:h o; do
    case $o in
        a) AFTER=$OPTARG ;; b) BEFORE=$OPTARG ;; B) BEFORE_REV=$OPTARG ;;
        n) N=$OPTARG ;; o) OUT=$OPTARG ;; h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
    esac
done
die() { echo "peers-inputs: $*" >&2; exit 1; }
CLANG=clang-16
PROFGEN=/usr/lib/llvm-16/bin/llvm-profgen
CLP=create_llvm_prof
# perf script's fields for stack samples as text (issue 13: "perf script
# -F ip,sym,... with call chains"); branch records take llvm-profgen's.
STACK_FIELDS=pid,tid,ip,sym,dso
LBR_FIELDS=ip,brstack
for c in perf $CLANG "$PROFGEN" $CLP; do
    command -v "$c" >/dev/null || die "$c missing (make deps: linux-perf, clang-16, llvm-16, autofdo)"
done
[ "$(id -u)" = 0 ] || die "perf record needs root here"
W=$REPO/bench/work/peers
mkdir -p "$W"
case $AFTER in /*) ;; *) AFTER=$PWD/$AFTER ;; esac
make -s -C "$REPO" pgoprof build/bench/lbrgen >&2 || die "make failed"
LBRGEN=$REPO/build/bench/lbrgen

if [ -n "$BEFORE_REV" ]; then
    BEFORE_NAME=$(git -C "$REPO" rev-parse --short "$BEFORE_REV") || die "no revision $BEFORE_REV"
    BEFORE=$W/pgoprof-$BEFORE_NAME
    if [ ! -x "$BEFORE" ]; then
        BT=$W/before-$BEFORE_NAME
        git -C "$REPO" worktree add --detach "$BT" "$BEFORE_NAME" >&2 || die "git worktree add $BEFORE_REV"
        make -C "$BT" -j2 pgoprof >"$W/before-build.log" 2>&1 || die "build of $BEFORE_REV failed: $W/before-build.log"
        cp "$BT/pgoprof" "$BEFORE"
        git -C "$REPO" worktree remove --force "$BT"
    fi
elif [ -n "$BEFORE" ]; then
    case $BEFORE in /*) ;; *) BEFORE=$PWD/$BEFORE ;; esac
    BEFORE_NAME=$BEFORE
fi
# The last commit that changed pgoprof's code (tests and bench/ left out)
AFTER_NAME="$(git -C "$REPO" log -1 --format=%h -- . ':!tests' ':!bench' ':!docs') (HEAD $(git -C "$REPO" rev-parse --short HEAD))"
git -C "$REPO" diff --quiet HEAD -- . ':!tests' ':!bench' ':!docs' 2>/dev/null || AFTER_NAME="$AFTER_NAME + uncommitted changes"
[ "$AFTER" = "$REPO/pgoprof" ] || AFTER_NAME="$AFTER"
cd "$W" || exit 1
rm -f ./*.data ./*.txt ./*.prof ./*.err ./*.raw ./*.data.err

# The binaries: tests/workloads/hot.c + libhot.c in one PIE (hot_loop is
# its hot function), DWARF 4 because AutoFDO 0.19 reads no DWARF 5.
CFLAGS="-O2 -g -gdwarf-4 -fdebug-info-for-profiling -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"
HOT=hot_loop
build() { # NAME LINK-FLAGS...
    local b=$1; shift
    $CLANG $CFLAGS "$@" -o "$b" "$REPO/tests/workloads/hot.c" "$REPO/tests/workloads/libhot.c" ||
        die "cannot build $b"
}
build bfd-sha1 -fuse-ld=bfd -Wl,--build-id=sha1
build lld-sha1 -fuse-ld=lld -Wl,--build-id=sha1
build lld-sep-sha1 -fuse-ld=lld -Wl,--build-id=sha1 -Wl,-z,separate-code
build lld-fast -fuse-ld=lld -Wl,--build-id=fast
build lld-none -fuse-ld=lld -Wl,--build-id=none
build bfd-none -fuse-ld=bfd -Wl,--build-id=none
linking() { case $1 in
    bfd-sha1) echo 'ld.bfd, `--build-id=sha1` (20 bytes; `-z separate-code`, its default)' ;;
    lld-sha1) echo 'lld, `--build-id=sha1` (lld'"'"'s default layout: code shares a file page with read-only data)' ;;
    lld-sep-sha1) echo 'lld, `--build-id=sha1`, `-z separate-code`' ;;
    lld-fast) echo 'lld, `--build-id=fast` (8 bytes)' ;;
    lld-none) echo 'lld, `--build-id=none`' ;;
    bfd-none) echo 'ld.bfd, `--build-id=none`' ;;
    esac; }

# The inputs: ID BINARY KIND [SOURCE], KIND one of
#   g        perf record -e cpu-clock -g of "BINARY 1" (real stack samples)
#   lbr      build/bench/lbrgen: synthesized branch records (perf record -b)
#   old      the same, --old-build-ids: no build-ID in MMAP2, the header's
#            zero-padded to 20 bytes without a size (perf before 5.x)
#   txt-lbr  perf script -F $LBR_FIELDS --show-mmap-events of SOURCE
#   txt-g    perf script -F $STACK_FIELDS --show-mmap-events of SOURCE
INPUTS="bfd-sha1.g bfd-sha1 g
bfd-sha1.lbr bfd-sha1 lbr
lld-sha1.g lld-sha1 g
lld-sha1.lbr lld-sha1 lbr
lld-sep-sha1.g lld-sep-sha1 g
lld-sep-sha1.lbr lld-sep-sha1 lbr
lld-fast.g lld-fast g
lld-fast.lbr lld-fast lbr
lld-fast.old lld-fast old
lld-none.g lld-none g
lld-none.lbr lld-none lbr
bfd-none.g bfd-none g
bfd-none.lbr bfd-none lbr
bfd-sha1.lbr.txt bfd-sha1 txt-lbr bfd-sha1.lbr
lld-none.lbr.txt lld-none txt-lbr lld-none.lbr
bfd-sha1.g.txt bfd-sha1 txt-g bfd-sha1.g"
describe() { # KIND SOURCE
    case $1 in
        g) echo 'real `perf record -e cpu-clock -g` stack samples' ;;
        lbr) echo "synthesized branch records (lbrgen, $N samples)" ;;
        old) echo "synthesized branch records, old perf's build-IDs (lbrgen --old-build-ids: header ID zero-padded to 20 bytes, 8-byte note)" ;;
        txt-lbr) echo "\`perf script -F $LBR_FIELDS --show-mmap-events\` text of \`$2\`" ;;
        txt-g) echo "\`perf script -F $STACK_FIELDS --show-mmap-events\` text of \`$2\`" ;;
    esac; }

# perf 6.1 aborts now and then here ("stack smashing detected"; more often
# while another perf event with build-IDs is open on the machine, as a
# pgoprof recording's): up to 5 tries.
perf_rec() {
    local try
    for try in 1 2 3 4 5; do
        perf record -N -q -e cpu-clock -g -o "$1" -- "./$2" 1 >/dev/null 2>"$1.err" && return 0
        sleep 2
    done
    return 1
}
while read -r id bin kind src; do
    case $kind in
        g) perf_rec "$id.data" "$bin" || die "perf record of $bin: $(tail -n 1 "$id.data.err")" ;;
        lbr) "$LBRGEN" -q -n "$N" -s 1 -o "$id.data" "$bin" || die "lbrgen $bin" ;;
        old) "$LBRGEN" -q -n "$N" -s 1 --old-build-ids -o "$id.data" "$bin" || die "lbrgen $bin" ;;
        txt-lbr) perf script -F $LBR_FIELDS --show-mmap-events -i "$src.data" >"$id" 2>"$id.script.err" ||
                     perf script -F $LBR_FIELDS --show-mmap-events -i "$src.data" >"$id" 2>"$id.script.err" ;;
        txt-g) perf script -F $STACK_FIELDS --show-mmap-events -i "$src.data" >"$id" 2>"$id.script.err" ||
                   perf script -F $STACK_FIELDS --show-mmap-events -i "$src.data" >"$id" 2>"$id.script.err" ;;
    esac
done <<<"$INPUTS"

# A cell, from a text profile and the tool's stderr.
md() { sed -e "s|$W/||g" -e 's/|/\\|/g' | cut -c 1-400; }
glog() { # AutoFDO's glog lines: the last error (E) or fatal (F), prefix cut
    grep -a '^[EF][0-9]\{8\} ' "$1" | tail -n 1 | sed 's/^[EF][0-9]* [0-9:.]* *[0-9]* //'; }
funcs() { grep -ac '^[A-Za-z_][A-Za-z0-9_.]*:[0-9][0-9]*:[0-9][0-9]*$' "$1"; }
cell() { # PROFILE ERR RC [ERRLINE]
    local prof=$1 err=$2 rc=$3 line=${4:-} h n
    [ -n "$line" ] || line=$(grep -av '^ *$' "$err" 2>/dev/null | tail -n 1)
    if [ "$rc" = 0 ] && [ -s "$prof" ] && [ "$(funcs "$prof")" -gt 0 ]; then
        h=$(awk -F: -v f=$HOT '$1 == f && /^[^ ]/ { print $2; exit }' "$prof")
        n=$(funcs "$prof")
        if [ -n "$h" ]; then printf 'yes: %s %s, %s functions' $HOT "$h" "$n"
        else printf 'yes, without %s: %s functions' $HOT "$n"; fi
        [ -n "$line" ] && printf ' (says: %s)' "$(echo "$line" | md)"
    elif [ "$rc" = 0 ]; then
        printf 'no: empty profile, exit 0'
        [ -n "$line" ] && printf ' (%s)' "$(echo "$line" | md)"
    else
        printf 'no (exit %s): %s' "$rc" "$(echo "${line:-no message}" | md)"
    fi
}

run_pgoprof() { # TAG PGOPROF ID BINARY INPUT
    local tag=$1 p=$2 id=$3 bin=$4 in=$5 rc
    rm -f "$id.$tag.raw" "$id.$tag.prof"
    "$p" import -q -o "$id.$tag.raw" "$in" 2>"$id.$tag.err"; rc=$?
    if [ $rc = 0 ]; then
        "$p" convert -q "$id.$tag.raw" --binary "$bin" --format llvm-text -o "$id.$tag.prof" 2>"$id.$tag.err"; rc=$?
    fi
    cell "$id.$tag.prof" "$id.$tag.err" $rc
}
run_profgen() { # ID BINARY KIND
    local id=$1 bin=$2 kind=$3 text=$1.pg.txt rc=0
    rm -f "$id.profgen.prof"
    case $kind in
        txt-*) text=$id ;;
        *) perf script -F $LBR_FIELDS --show-mmap-events -i "$id.data" >"$text" 2>"$id.profgen.err" ||
               perf script -F $LBR_FIELDS --show-mmap-events -i "$id.data" >"$text" 2>"$id.profgen.err" || rc=$? ;;
    esac
    if [ $rc = 0 ]; then
        "$PROFGEN" --binary "$bin" --perfscript "$text" --output "$id.profgen.prof" --format=text 2>"$id.profgen.err"; rc=$?
    fi
    [ "$text" = "$id" ] || rm -f "$text"
    cell "$id.profgen.prof" "$id.profgen.err" $rc
}
run_clp() { # ID BINARY KIND
    local id=$1 bin=$2 kind=$3 opt= rc
    case $kind in
        txt-*) printf 'n/a: reads perf.data only'; return ;;
        g) opt=--use_lbr=false ;;
    esac
    rm -f "$id.clp.prof"
    $CLP $opt --binary="$bin" --profile="$id.data" --out="$id.clp.prof" --format=text 2>"$id.clp.err"; rc=$?
    cell "$id.clp.prof" "$id.clp.err" $rc "$(glog "$id.clp.err")"
}

{
    echo "# Issue 13: recordings from other machines, pgoprof and the peers"
    echo
    echo "Made by \`bench/peers-inputs.sh${BEFORE_REV:+ -B $BEFORE_REV}\` on $(date -u +%F) ($(uname -r), $(nproc) CPUs). After: pgoprof at $AFTER_NAME.${BEFORE:+ Before: pgoprof at $BEFORE_NAME.} Peers: perf $(perf version | awk '{ print $3 }') (\`perf script\`) + llvm-profgen-16 ($("$PROFGEN" --version 2>/dev/null | grep -o 'version [0-9.]*' | head -n 1)); create_llvm_prof (AutoFDO $(dpkg-query -W -f='${Version}' autofdo 2>/dev/null))."
    echo
    echo "Every binary is tests/workloads/hot.c + libhot.c in one PIE, \`$CLANG $CFLAGS\` (DWARF 4: AutoFDO 0.19 reads no DWARF 5); its hot function is \`$HOT\`. A cell says whether a profile came out and then \`$HOT\`'s total and the number of functions in it (counts of different tools are not in the same units: create_llvm_prof counts otherwise), or the tool's last line when it failed (\"empty profile, exit 0\": the tool said it succeeded and wrote no function)."
    echo
    printf '| input | binary |%s pgoprof after | perf script + llvm-profgen-16 | create_llvm_prof |\n' "${BEFORE:+ pgoprof before |}"
    printf '|---|---|%s---|---|---|\n' "${BEFORE:+---|}"
    while read -r id bin kind src; do
        in=$id.data
        case $kind in txt-*) in=$id ;; esac
        b=
        [ -n "$BEFORE" ] && b=" $(run_pgoprof before "$BEFORE" "$id" "$bin" "$in") |"
        a=$(run_pgoprof after "$AFTER" "$id" "$bin" "$in")
        printf '| %s | %s |%s %s | %s | %s |\n' "$(describe "$kind" "$src")" "$(linking "$bin")" \
            "$b" "$a" "$(run_profgen "$id" "$bin" "$kind")" "$(run_clp "$id" "$bin" "$kind")"
    done <<<"$INPUTS"
    echo
    echo "## Commands"
    echo
    echo "- inputs: \`perf record -N -q -e cpu-clock -g -o ID.data -- ./BINARY 1\` (up to 5 tries: perf 6.1 aborts now and then here); \`build/bench/lbrgen -q -n $N -s 1 [--old-build-ids] -o ID.data BINARY\`; text: \`perf script -F $LBR_FIELDS --show-mmap-events -i ID.data\` (branch records) or \`perf script -F $STACK_FIELDS --show-mmap-events -i ID.data\` (stack samples)."
    echo "- pgoprof: \`pgoprof import -q -o ID.raw INPUT\` then \`pgoprof convert -q ID.raw --binary BINARY --format llvm-text\`."
    echo "- llvm-profgen: \`perf script -F $LBR_FIELDS --show-mmap-events -i ID.data\` (the text input as it is), then \`llvm-profgen --binary BINARY --perfscript TEXT --format=text\`."
    echo "- create_llvm_prof: \`create_llvm_prof --binary=BINARY --profile=ID.data --format=text\`, with \`--use_lbr=false\` for stack samples; it reads perf.data only (its \`--profiler=text\` is AutoFDO's own format, not perf script text)."
    echo
    echo "## Notes"
    echo
    echo "- The rows of lld with \`--build-id=sha1\`, in its default layout and with \`-z separate-code\`, tell a tool's trouble with lld's layout (code on a file page shared with read-only data, mapped from file offset 0) from its trouble with a build-ID of 8 bytes or none; ld.bfd without a build-ID tells the missing build-ID from lld's layout."
    echo "- Stack samples: llvm-profgen needs branch records (\`-F ip,brstack\` prints none for them); create_llvm_prof takes them with \`--use_lbr=false\`."
    echo "- Synthesized branch records (build/bench/lbrgen) follow a random walk over the binary's code, not a run of it: the three tools get the same walk, and hot_loop's count is the walk's, not the program's."
    echo "- Before is 12d1cb7, the commit before issue 13's work. Rerun: \`bench/peers-inputs.sh -B REV\` (REV: the \"before\" revision; the default output is this file; \`-a PGOPROF\` takes another \"after\" build). Each cell's profile and stderr stay in bench/work/peers/ as ID.TOOL.prof and ID.TOOL.err; STACK_FIELDS and LBR_FIELDS at the top of the script are the \`perf script\` fields of the text rows."
} >"$OUT.tmp" || die "cannot write $OUT.tmp"
if [ "$OUT" = - ]; then cat "$OUT.tmp"; rm -f "$OUT.tmp"; else mv "$OUT.tmp" "$OUT"; echo "peers-inputs: wrote $OUT" >&2; fi
