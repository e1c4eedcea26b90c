# SPDX-License-Identifier: GPL-2.0-only
# Workloads, builds and the cachegrind proxy that bench/pgo-compare.sh and
# bench/quality.sh share (bash; sourced, never run).  bench/lib.sh holds
# the POSIX-sh pieces that the fetch scripts use too; this file needs bash
# (arrays), so it is a file of its own.
#
# The caller sets: REPO (the checkout), PGOPROF, WROOT (work directory),
# jobs (parallel jobs), fresh (non-empty: ignore caches), and defines
# die MSG and step MSG.  Per workload x compiler it sets WL (one of
# WORKLOADS), CC (clang, gcc), CCBIN (clang-16, gcc-12) and W (that pair's work
# directory, with bin/ prof/ logs/) before calling these functions.
#
#   . "$REPO/bench/workloads.sh"
#   wl_setup

. "$REPO/bench/lib.sh"

# wl_setup: what every run needs: root (pgoprof record), valgrind, the
# compilers, a built pgoprof; makes WROOT and its path absolute
wl_setup() {
    [ "$(id -u)" -eq 0 ] || die "pgoprof record needs root; rerun as root"
    if ! command -v valgrind >/dev/null; then
        step "installing valgrind (apt-get)"
        need_pkg valgrind valgrind || die "valgrind not found and apt-get install valgrind failed"
    fi
    local t
    for t in clang-16 gcc-12 llvm-profdata-16 objcopy; do
        command -v "$t" >/dev/null || die "$t not found (apt-get install clang-16 llvm-16 gcc-12 binutils)"
    done
    if [ ! -x "$PGOPROF" ] || [ ! -x "$REPO/pgoprof-record" ]; then
        step "building pgoprof"
        make -C "$REPO" >&2 || die "make failed in $REPO"
    fi
    mkdir -p "$WROOT"
    WROOT=$(cd "$WROOT" && pwd)
}

# ---------------------------------------------------------------- helpers

md5() { md5sum "$@" | cut -c1-32; }

# Parallel job pool: run CMD... in the background, at most $jobs at once.
# pool_wait waits for all and fails if any failed.
pool_n=0 pool_fail=0
pool_run() {
    if [ "$pool_n" -ge "$jobs" ]; then
        wait -n || pool_fail=$((pool_fail + 1))
        pool_n=$((pool_n - 1))
    fi
    "$@" &
    pool_n=$((pool_n + 1))
}
pool_wait() {
    while [ "$pool_n" -gt 0 ]; do
        wait -n || pool_fail=$((pool_fail + 1))
        pool_n=$((pool_n - 1))
    done
    local f=$pool_fail
    pool_fail=0
    [ "$f" -eq 0 ] || die "$f background job(s) failed (see the logs in $W/logs)"
}

# ---------------------------------------------------------------- workloads

WORKLOADS="sqlite bzip2 lua zstd gawk"
SQLITE_SRC=${SQLITE_DIR:-$REPO/bench/work/sqlite}/src
BZIP2_SRC=$REPO/bench/work/bzip2/src
LUA_SRC=$REPO/bench/work/lua/src
ZSTD_SRC=$REPO/bench/work/zstd/src
GAWK_SRC=$REPO/bench/work/gawk/src
SQLITE_TRAIN=(--memdb --size 100)
SQLITE_CG=(--memdb --size 10)
BZ_TRAIN_MB=10 BZ_CG_MB=2
LUA_TRAIN=16 LUA_CG=1    # rounds of bench/lua-bench.lua
# zstd is trained and measured on different inputs at different levels:
# trained at -3 (double-fast match finder) on the generated text corpus,
# measured at -19 (btultra2, the optimal parser: code the training run
# never executes) on zstd's own C sources, then decompressed (Ir added)
ZSTD_TRAIN_MB=32 ZSTD_TRAIN_LEVEL=3 ZSTD_CG_KB=256 ZSTD_CG_LEVEL=19
# gawk runs bench/gawk-bench.awk on the generated corpus (training, with
# its log lines) and on gawk's own C sources (cachegrind), in C.UTF-8
GAWK_TRAIN_MB=4 GAWK_CG_KB=512
GAWK_ENV=(env LC_ALL=C.UTF-8)

wl_prepare() {
    case $WL in
        sqlite) "$REPO/bench/fetch-sqlite.sh" ${SQLITE_DIR:+"$SQLITE_DIR"} >/dev/null ;;
        bzip2)
            "$REPO/bench/fetch-bzip2.sh" >/dev/null
            local d=$WROOT/bzip2-data
            mkdir -p "$d"
            [ -s "$d/train.txt" ] || "$REPO/bench/fetch-bzip2.sh" --corpus "$d/train.txt" "$BZ_TRAIN_MB"
            [ -s "$d/cg.txt" ] || "$REPO/bench/fetch-bzip2.sh" --corpus "$d/cg.txt" "$BZ_CG_MB" ;;
        lua) "$REPO/bench/fetch-lua.sh" >/dev/null ;;
        zstd|gawk)
            "$REPO/bench/fetch-$WL.sh" >/dev/null
            local d=$WROOT/$WL-data mb kb
            case $WL in
                zstd) mb=$ZSTD_TRAIN_MB kb=$ZSTD_CG_KB ;;
                gawk) mb=$GAWK_TRAIN_MB kb=$GAWK_CG_KB ;;
            esac
            mkdir -p "$d"
            [ -s "$d/train.txt" ] || "$REPO/bench/fetch-bzip2.sh" --corpus "$d/train.txt" "$mb"
            [ -s "$d/cg.txt" ] || "$REPO/bench/fetch-$WL.sh" --cg-corpus "$d/cg.txt" "$kb" ;;
    esac
}

# wl_defines: what a workload's build adds for the benchmark's sake (in the
# build cache's key).  Lua seeds its string hash from the time and from
# addresses (luai_makeseed, lstate.c): its Ir varied by 0.3% from run to
# run of one binary; a fixed seed makes it the same every run.
wl_defines() {
    case $WL in
        lua) echo "-Dluai_makeseed(L)=0u" ;;
    esac
}

# wl_build OUT CC FLAGS...
wl_build() {
    local o=$1 cc=$2
    shift 2
    case $WL in
        sqlite) "$REPO/bench/build-speedtest.sh" "$o" "$cc" "$@" ;;
        bzip2)
            (set -x; "$cc" -D_FILE_OFFSET_BITS=64 "$@" -o "$o" \
                "$BZIP2_SRC"/{blocksort,huffman,crctable,randtable,compress,decompress,bzlib,bzip2}.c) ;;
        lua)    # the interpreter: every file of src/ but the compiler luac.c
            local srcs=() f
            for f in "$LUA_SRC"/*.c; do [ "${f##*/}" = luac.c ] || srcs+=("$f"); done
            (set -x; "$cc" -std=gnu99 -DLUA_COMPAT_5_3 -DLUA_USE_POSIX $(wl_defines) "$@" -o "$o" "${srcs[@]}" -lm) ;;
        zstd)   # programs/Makefile's zstd-small (no bench, dictionary builder,
                # legacy formats, threads), with the amd64 Huffman decoder
            local z=$ZSTD_SRC
            (set -x; "$cc" -DZSTD_NOBENCH -DZSTD_NODICT -DZSTD_NOTRACE -DZSTD_LEGACY_SUPPORT=0 \
                -I"$z/lib" -I"$z/lib/common" "$@" -o "$o" \
                "$z"/lib/common/*.c "$z"/lib/compress/*.c "$z"/lib/decompress/*.c \
                "$z"/lib/decompress/huf_decompress_amd64.S \
                "$z"/programs/{zstdcli,util,timefn,fileio,fileio_asyncio}.c) ;;
        gawk)   # Makefile.am's base_sources and support/'s, with its DEFS
            local g=$GAWK_SRC
            (set -x; "$cc" -DDEFPATH='".:/usr/share/awk"' -DDEFLIBPATH='"/usr/lib/gawk"' \
                -DSHLIBEXT='"so"' -DHAVE_CONFIG_H -DGAWK -DLOCALEDIR='"/usr/share/locale"' \
                -I"$g" -I"$g/support" "$@" -o "$o" \
                "$g"/{array,awkgram,builtin,cint_array,command,debug,eval,ext,field,floatcomp}.c \
                "$g"/{gawkapi,gawkmisc,int_array,io,main,mpfr,msg,node,profile,re,replace}.c \
                "$g"/{str_array,symbol,version}.c \
                "$g"/support/{dfa,getopt,getopt1,localeinfo,random,regex}.c \
                "$g"/support/malloc/dynarray_*.c -lm) ;;
    esac
}

# wl_train_cmd BIN: sets TRAIN=(the training run's command line)
wl_train_cmd() {
    case $WL in
        sqlite) TRAIN=("$1" "${SQLITE_TRAIN[@]}") ;;
        bzip2) TRAIN=(sh -c '"$0" -9 -c "$1" > "$2" && "$0" -d -c "$2" > /dev/null'
                      "$1" "$WROOT/bzip2-data/train.txt" "$W/train.bz2") ;;
        lua) TRAIN=("$1" "$REPO/bench/lua-bench.lua" "$LUA_TRAIN") ;;
        zstd) TRAIN=(sh -c '"$0" -q -"$3" -c "$1" > "$2" && "$0" -q -d -c "$2" > /dev/null'
                     "$1" "$WROOT/zstd-data/train.txt" "$W/train.zst" "$ZSTD_TRAIN_LEVEL") ;;
        gawk) TRAIN=("${GAWK_ENV[@]}" "$1" -f "$REPO/bench/gawk-bench.awk" "$WROOT/gawk-data/train.txt") ;;
    esac
}
wl_train_desc() {
    case $WL in
        sqlite) echo "speedtest1 ${SQLITE_TRAIN[*]}" ;;
        bzip2) echo "bzip2 -9 -c of a generated ${BZ_TRAIN_MB} MiB text corpus, then bzip2 -d -c of the result" ;;
        lua) echo "lua bench/lua-bench.lua $LUA_TRAIN" ;;
        zstd) echo "zstd -$ZSTD_TRAIN_LEVEL -c of a generated ${ZSTD_TRAIN_MB} MiB text corpus, then zstd -d -c of the result" ;;
        gawk) echo "gawk -f bench/gawk-bench.awk on a generated ${GAWK_TRAIN_MB} MiB text corpus (LC_ALL=C.UTF-8)" ;;
    esac
}
wl_cg_desc() {
    case $WL in
        sqlite) echo "speedtest1 ${SQLITE_CG[*]}" ;;
        bzip2) echo "bzip2 -9 -c of a ${BZ_CG_MB} MiB corpus + bzip2 -d -c of its .bz2 (Ir added)" ;;
        lua) echo "lua bench/lua-bench.lua $LUA_CG (output checked)" ;;
        zstd) echo "zstd -$ZSTD_CG_LEVEL -c of the first $ZSTD_CG_KB KiB of zstd's C sources + zstd -d -c of its .zst (Ir added; outputs checked)" ;;
        gawk) echo "gawk -f bench/gawk-bench.awk on the first $GAWK_CG_KB KiB of gawk's C sources (output checked)" ;;
    esac
}

# cg_ir BIN: executed instructions of the reduced workload, under cachegrind
cg_ir() {
    local b=$1 nd=$1.nodbg sum=0 ir
    objcopy --strip-debug "$b" "$nd"
    local vg=(valgrind --tool=cachegrind --cache-sim=no --branch-sim=no --cachegrind-out-file=/dev/null)
    case $WL in
        sqlite)
            ir=$("${vg[@]}" "$nd" "${SQLITE_CG[@]}" 2>&1 >/dev/null | awk '/ I +refs:/ { gsub(/,/, "", $NF); print $NF }')
            sum=$ir ;;
        bzip2)
            local c=$WROOT/bzip2-data/cg.txt
            ir=$("${vg[@]}" "$nd" -9 -c "$c" 2>&1 >"$b.cg.bz2" | awk '/ I +refs:/ { gsub(/,/, "", $NF); print $NF }')
            cmp -s "$b.cg.bz2" "$W/cg.ref.bz2" || { echo "cg_ir: $b compressed differently from the baseline" >&2; return 1; }
            sum=$ir
            ir=$("${vg[@]}" "$nd" -d -c "$W/cg.ref.bz2" 2>&1 >"$b.cg.out" | awk '/ I +refs:/ { gsub(/,/, "", $NF); print $NF }')
            cmp -s "$b.cg.out" "$c" || { echo "cg_ir: $b decompressed wrongly" >&2; return 1; }
            rm -f "$b.cg.bz2" "$b.cg.out"
            sum=$((sum + ir)) ;;
        lua)
            ir=$("${vg[@]}" "$nd" "$REPO/bench/lua-bench.lua" "$LUA_CG" 2>&1 >"$b.cg.out" | awk '/ I +refs:/ { gsub(/,/, "", $NF); print $NF }')
            if [ -s "$W/cg.ref.out" ]; then
                cmp -s "$b.cg.out" "$W/cg.ref.out" || { echo "cg_ir: $b printed other results than the baseline" >&2; return 1; }
            fi
            rm -f "$b.cg.out"
            sum=$ir ;;
        zstd)
            local z=$WROOT/zstd-data/cg.txt
            ir=$("${vg[@]}" "$nd" -q -"$ZSTD_CG_LEVEL" -c "$z" 2>&1 >"$b.cg.zst" | awk '/ I +refs:/ { gsub(/,/, "", $NF); print $NF }')
            cmp -s "$b.cg.zst" "$W/cg.ref.zst" || { echo "cg_ir: $b compressed differently from the baseline" >&2; return 1; }
            sum=$ir
            ir=$("${vg[@]}" "$nd" -q -d -c "$W/cg.ref.zst" 2>&1 >"$b.cg.out" | awk '/ I +refs:/ { gsub(/,/, "", $NF); print $NF }')
            cmp -s "$b.cg.out" "$z" || { echo "cg_ir: $b decompressed wrongly" >&2; return 1; }
            rm -f "$b.cg.zst" "$b.cg.out"
            sum=$((sum + ir)) ;;
        gawk)
            ir=$("${GAWK_ENV[@]}" "${vg[@]}" "$nd" -f "$REPO/bench/gawk-bench.awk" "$WROOT/gawk-data/cg.txt" 2>&1 >"$b.cg.out" \
                 | awk '/ I +refs:/ { gsub(/,/, "", $NF); print $NF }')
            cmp -s "$b.cg.out" "$W/cg.ref.out" || { echo "cg_ir: $b printed other results than the baseline" >&2; return 1; }
            rm -f "$b.cg.out"
            sum=$ir ;;
    esac
    rm -f "$nd"
    [[ $sum =~ ^[0-9]+$ ]] && [ "$sum" -gt 0 ] || { echo "cg_ir: no Ir for $b" >&2; return 1; }
    echo "$sum"
}

# ---------------------------------------------------------------- profiles

# The compiler input as pgo.mk makes it (for $CC), with its defaults (PGO_FORMAT_clang / PGO_FORMAT_gcc,
# PGO_USE_CFLAGS_*), and the LLVM text that 'pgoprof compare' reads;
# conv_opts E: with --estimator E instead (auto: convert's own choice)
conv_opts() {
    local e=${1:-sum} t
    case $CC in clang) t=calls ;; gcc) t=stack ;; esac
    EST=(--call-targets "$t")
    [ "$e" = auto ] || EST=(--estimator "$e" "${EST[@]}")
    case $CC in
        clang) CONV=(--format llvm-extbinary "${EST[@]}"); EXT=prof ;;
        gcc) CONV=(--format afdo "${EST[@]}" --gcc-version 12); EXT=afdo ;;
    esac
}
# pgo_mk_value NAME [VAR=VALUE...]: the value of pgo/pgo.mk's variable
# NAME, with the variables given set.
pgo_mk_value() {
    local name=$1
    shift
    make -s -f "$REPO/pgo/pgo.mk" --eval "pgo-bench-value: ; @echo \$($name)" \
        pgo-bench-value "$@"
}

# use_flags PROFILE: sets USE ($profi: clang's -fsample-profile-use-profi
# or empty).  gcc's are pgo.mk's own (PGO_USE_CFLAGS_gcc: the unroller
# back off, the tracer off where there is no profile), read from there so
# that the bench measures what pgo.mk builds.
use_flags() {
    case $CC in
        clang) USE=(-O2 -g -fprofile-sample-use="$1" $profi) ;;
        gcc) local f
             f=$(pgo_mk_value PGO_USE_CFLAGS_gcc PGO_PROFILE="$1") || die "pgo/pgo.mk: no PGO_USE_CFLAGS_gcc"
             read -ra USE <<<"-O2 -g $f" ;;
    esac
}

# ---------------------------------------------------------------- builds

# build NAME KEYEXTRA FLAGS...: $W/bin/NAME with $CCBIN FLAGS, unless the
# cached build has the same key (compiler, flags, KEYEXTRA).
build() {
    local name=$1 extra=$2
    shift 2
    local b=$W/bin/$name key="$CCBIN $(wl_defines) $* | $extra"
    if [ -z "$fresh" ] && [ -x "$b" ] && [ "$(cat "$b.key" 2>/dev/null)" = "$key" ]; then
        return 0
    fi
    rm -f "$b" "$b.key" "$b.ir"
    if ! wl_build "$b" "$CCBIN" "$@" >"$W/logs/build-$name.log" 2>&1; then
        tail -n 20 "$W/logs/build-$name.log" >&2
        echo "build $name failed, see $W/logs/build-$name.log" >&2
        return 1
    fi
    echo "$key" >"$b.key"
}

# measure_ir NAME: $W/bin/NAME.ir, cached by the binary's checksum
measure_ir() {
    local b=$W/bin/$1 sum
    sum=$(md5 "$b")
    if [ -z "$fresh" ] && [ -s "$b.ir" ] && [ "$(sed -n 2p "$b.ir")" = "$sum" ]; then
        return 0
    fi
    local ir
    ir=$(cg_ir "$b" 2>"$W/logs/cg-$1.log") || { cat "$W/logs/cg-$1.log" >&2; return 1; }
    printf '%s\n%s\n' "$ir" "$sum" >"$b.ir"
}

# The instrumented PGO build: generate, train once, use. Both builds go to
# the same path, because gcc names its .gcda files after the output.
build_instr() {
    local d=$W/instr key gen use
    mkdir -p "$d"
    case $CC in
        clang) gen=(-O2 -g -fprofile-instr-generate) ;;
        gcc) gen=(-O2 -g -fprofile-generate) ;;
    esac
    key="$CCBIN $(wl_defines) ${gen[*]} | $(wl_train_desc)"
    if [ -z "$fresh" ] && [ -x "$W/bin/instr" ] && [ "$(cat "$d/gen.key" 2>/dev/null)" = "$key" ]; then
        return 0
    fi
    step "$WL/$CC: instrumented build, training run, profile-use build"
    rm -rf "$d"/*
    wl_build "$d/prog" "$CCBIN" "${gen[@]}" >"$W/logs/build-instr-gen.log" 2>&1 \
        || { tail -n 20 "$W/logs/build-instr-gen.log" >&2; die "instrumented build failed"; }
    wl_train_cmd "$d/prog"
    (cd "$d" && LLVM_PROFILE_FILE=$d/%p.profraw "${TRAIN[@]}" >/dev/null) \
        || die "instrumented training run failed"
    case $CC in
        clang)
            llvm-profdata-16 merge -o "$d/prog.profdata" "$d"/*.profraw || die "llvm-profdata merge failed"
            use=(-O2 -g -fprofile-instr-use="$d/prog.profdata") ;;
        gcc)
            ls "$d"/*.gcda >/dev/null 2>&1 || die "the gcc training run wrote no .gcda in $d"
            use=(-O2 -g -fprofile-use -Wmissing-profile) ;;
    esac
    rm -f "$d/prog"
    wl_build "$d/prog" "$CCBIN" "${use[@]}" >"$W/logs/build-instr.log" 2>&1 \
        || { tail -n 20 "$W/logs/build-instr.log" >&2; die "profile-use build failed"; }
    ! grep -q 'warning:.*\[-Wmissing-profile\]' "$W/logs/build-instr.log" \
        || die "gcc found no profile for some file: see $W/logs/build-instr.log"
    mv "$d/prog" "$W/bin/instr"
    echo "$key" >"$d/gen.key"
    echo "$CCBIN ${use[*]}" >"$W/bin/instr.key"
    rm -f "$W/bin/instr.ir"
}


# wl_ref BIN: the reference output that cg_ir checks the others against,
# from the baseline build (run once per workload x compiler)
wl_ref() {
    case $WL in
        bzip2) "$1" -9 -c "$WROOT/bzip2-data/cg.txt" >"$W/cg.ref.bz2" ;;
        lua) "$1" "$REPO/bench/lua-bench.lua" "$LUA_CG" >"$W/cg.ref.out" ;;
        zstd) "$1" -q -"$ZSTD_CG_LEVEL" -c "$WROOT/zstd-data/cg.txt" >"$W/cg.ref.zst" ;;
        gawk) "${GAWK_ENV[@]}" "$1" -f "$REPO/bench/gawk-bench.awk" "$WROOT/gawk-data/cg.txt" >"$W/cg.ref.out" ;;
    esac
}
