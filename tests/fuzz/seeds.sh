#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Seed corpora for the fuzz targets, from pgoprof's own outputs:
#   tests/fuzz/corpus/<target>/   (git-ignored; kept between runs, where
#   libFuzzer also adds what it finds)
# Usage: tests/fuzz/seeds.sh
# Needs: ./pgoprof (built by 'make' if missing), clang-16, llvm-profdata-16;
# lld for the aarch64 seed;
# uses when there: perf (perf.data and perf script seeds), root (a BPF
# recording), tests/lbrsynth (a branch-record raw profile and perf.data,
# no root), valgrind (callgrind seeds: pgoprof record --exact).
# A seed that cannot be made is left out with a note on stderr.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
CORPUS=$TOP/tests/fuzz/corpus
W=$TOP/tests/out/fuzz-seeds
PGOPROF=$TOP/pgoprof
CLANG=${CLANG:-clang-16}
PROFDATA=${PROFDATA:-llvm-profdata-16}
SRC=$TOP/tests/fuzz/seed_prog.c

note() { echo "seeds: $*" >&2; }
# put TARGET FILE [NAME]: copy FILE into the corpus of TARGET.
put() {
	[ -s "$2" ] || { note "no $2 for $1"; return 0; }
	cp "$2" "$CORPUS/$1/${3:-$(basename "$2")}"
}

mkdir -p "$W"
for t in $(make -s --no-print-directory -C "$TOP" -f tests/fuzz/fuzz.mk fuzz-targets); do
	mkdir -p "$CORPUS/$t"
done
cd "$W" || exit 1
rm -rf ./*

if [ ! -x "$PGOPROF" ]; then
	make -C "$TOP" pgoprof >make.log 2>&1 || note "cannot build pgoprof (make.log): no profile seeds"
fi

# ---- ELF: small binaries of each kind the readers meet ----
CFLAGS="-O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer"
# lld makes the smallest files and links aarch64; else the system linker.
tiny() { # NAME CLANG-FLAGS...
	name=$1; shift
	for ld in -fuse-ld=lld ""; do
		$CLANG $CFLAGS -DSEED_NOSTDLIB -nostdlib $ld -Wl,--build-id=sha1 \
			"$@" -o "$name" "$SRC" 2>>clang.log && return 0
	done
	note "could not build $name (clang.log)"
}
tiny tiny-x86_64 -static
tiny tiny-pie -fPIE -pie
tiny tiny-i386 --target=i386-linux-gnu -static
tiny tiny-aarch64 --target=aarch64-linux-gnu -static
tiny tiny-nobuildid -static -Wl,--build-id=none
$CLANG $CFLAGS -fPIE -pie -o prog "$SRC" 2>>clang.log || note "could not build prog (clang.log)"
$CLANG $CFLAGS -fPIC -shared -o libprog.so "$SRC" 2>>clang.log || note "could not build libprog.so"
if [ -f tiny-x86_64 ]; then
	objcopy --only-keep-debug tiny-x86_64 tiny.debug
	objcopy --strip-all tiny-x86_64 tiny-stripped
	objcopy --compress-debug-sections=zlib tiny-x86_64 tiny-zdebug
fi
for f in tiny-x86_64 tiny-pie tiny-i386 tiny-aarch64 tiny-nobuildid tiny.debug \
	 tiny-stripped tiny-zdebug prog libprog.so; do
	put elf "$f"
done

# ---- raw profiles: branch records (lbrsynth), stacks (BPF, as root) ----
if sh "$TOP/tests/lbrsynth/build.sh" "$W/lbrsynth" >lbrsynth.log 2>&1 &&
   "$W/lbrsynth/lbrsynth" -q -n 1009 --skip-startup -o lbr -- "$W/lbrsynth/progs/loops" 300 \
	>/dev/null 2>>lbrsynth.log; then
	put raw lbr.raw
	put perfdata lbr.perf.data
else
	note "lbrsynth failed (lbrsynth.log): no branch-record seeds"
fi
if [ "$(id -u)" = 0 ] && [ -x "$PGOPROF" ] && [ -f prog ]; then
	"$PGOPROF" record -q -F 20000 --call-graph fp -o stack-fp.raw -- ./prog 3000000 >/dev/null 2>record.log
	"$PGOPROF" record -q -F 20000 -o stack-auto.raw -- ./prog 3000000 >/dev/null 2>>record.log
	put raw stack-fp.raw
	put raw stack-auto.raw
else
	note "not root (or no pgoprof): no recorded stack profile seed"
fi
if [ -f stack-fp.raw ] && [ -f lbr.raw ]; then
	"$PGOPROF" merge -o merged.raw stack-fp.raw lbr.raw 2>>record.log && put raw merged.raw
fi
# pprof: a recorded stack profile written as pprof, gzipped and not.
if [ -f stack-fp.raw ] &&
   "$PGOPROF" show -q --format pprof -o stack-fp.pb.gz stack-fp.raw --binary prog 2>>record.log; then
	put pprof stack-fp.pb.gz
	gzip -dc stack-fp.pb.gz >stack-fp.pb && put pprof stack-fp.pb
fi

# ---- perf.data: file and pipe mode, frame-pointer and DWARF call graphs ----
# perf 6.1 on a newer kernel often dies at the end of a recording while it
# collects build-IDs (a failed assertion in util/build-id.c, then a stack
# smash): try again, then with build-IDs in the MMAP2 records instead
# (--buildid-mmap), then without build-IDs (-B).
perf_rec() { # OUT PERF-RECORD-ARGS...
	out=$1; shift
	for how in -N -N --buildid-mmap -B; do
		if [ "$out" = - ]; then
			perf record -q $how "$@" -o - -- ./prog 1000000 2>>perf.log >pipe.data && return 0
		else
			perf record -q $how "$@" -o "$out" -- ./prog 1000000 >/dev/null 2>>perf.log && return 0
		fi
	done
	rm -f "$out"
	note "perf record $* failed (perf.log)"
}
if command -v perf >/dev/null && [ -f prog ]; then
	perf_rec fp.data -e cpu-clock -g
	perf_rec dwarf.data -e cpu-clock --call-graph dwarf,1024 -c 2000000
	perf_rec - -e cpu-clock -g
	perf_rec plain.data -e cpu-clock:u -c 500000
	perf_rec two.data -e cpu-clock -e task-clock -g
	perf_rec mmap-buildid.data --buildid-mmap -e cpu-clock:u -g
	[ -f fp.data ] && perf inject -b -i fp.data -o fp-buildid.data 2>>perf.log
	[ -f pipe.data ] && perf inject -b -i - -o - <pipe.data >pipe-buildid.data 2>>perf.log
	for f in fp.data dwarf.data pipe.data plain.data two.data mmap-buildid.data \
		 fp-buildid.data pipe-buildid.data; do
		put perfdata "$f"
	done
else
	note "no perf: perf.data seeds only from lbrsynth"
fi

# ---- perf script text: of the perf.data above, with the fields of
# pgoprof-import(1) and llvm-profgen's; perf script may die now and then
# (tests/integration/perfscript.sh): once more ----
pscript() { # PERF.DATA OUT PERF-SCRIPT-ARGS...
	in=$1 out=$2; shift 2
	[ -f "$in" ] || return 0
	for try in 1 2; do
		perf script -i "$in" "$@" >"$out" 2>>perf.log && { put perfscript "$out"; return 0; }
	done
	note "perf script -i $in $* failed (perf.log)"
}
if command -v perf >/dev/null; then
	pscript fp.data fp.txt -F pid,tid,ip,sym,dso --show-mmap-events --show-task-events
	pscript two.data two.txt -F comm,pid,tid,time,period,event,ip,sym,dso \
		--show-mmap-events --show-task-events --header
	pscript plain.data plain.txt -F ip,sym,dso --show-mmap-events
	pscript mmap-buildid.data buildid.txt -F pid,ip,dso --show-mmap-events
	pscript lbr.perf.data lbr.txt -F ip,brstack --show-mmap-events
	pscript lbr.perf.data lbr-fields.txt -F pid,tid,event,ip,sym,dso,brstack --show-mmap-events
fi

# ---- callgrind output: pgoprof record --exact of prog, one process, two
# (fork) and two threads, each file a seed; and valgrind's other layouts
# (jumps, lines, no compression) ----
if [ -x "$PGOPROF" ] && command -v valgrind >/dev/null && [ -f prog ]; then
	for how in single fork thread; do
		"$PGOPROF" record --exact --engine callgrind -q --keep-counts cg-$how -o cg-$how.raw \
			-- ./prog 2000 $how >/dev/null 2>>exact.log ||
			note "pgoprof record --exact ./prog 2000 $how failed (exact.log)"
		k=0
		for f in cg-$how/*/callgrind.out.*; do
			k=$((k + 1))
			[ -f "$f" ] && put callgrind "$f" $how-$k.out
		done
	done
	vg() { # OUT VALGRIND-OPTIONS...
		out=$1; shift
		valgrind -q --tool=callgrind --dump-instr=yes --callgrind-out-file="$out" \
			"$@" ./prog 500 >/dev/null 2>>exact.log && put callgrind "$out"
	}
	vg jumps.out --collect-jumps=yes
	vg plain.out --compress-strings=no --compress-pos=no --dump-line=no
else
	note "no valgrind (or no pgoprof): no callgrind seeds"
fi

# ---- the qemu engine's count files: record --exact of prog, one
# process, two (fork) and two threads ----
if [ -x "$PGOPROF" ] && [ "$("$PGOPROF" record --exact --print-engine 2>/dev/null)" = qemu ] && [ -f prog ]; then
	for how in single fork thread; do
		"$PGOPROF" record --exact --engine qemu -q --keep-counts qc-$how -o qc-$how.raw \
			-- ./prog 2000 $how >/dev/null 2>>exact.log ||
			note "pgoprof record --exact --engine qemu ./prog 2000 $how failed (exact.log)"
		k=0
		for f in qc-$how/*/count.*; do
			k=$((k + 1))
			[ -f "$f" ] && put qemucount "$f" $how-$k.count
		done
	done
else
	note "no qemu engine (qemu-user, pgoprof-count.so): no count file seeds"
fi

# pgoprof import's raw profiles (its output is a raw profile like any other);
# those of the shortest perf script texts are a few hundred bytes, where
# a mutation reaches a count or a section size more often (with the bug
# of issue 27's finding 8 put back, fuzz_raw found it in 2 runs of 6
# without them, after 139 k and 488 k executions, and in 2 runs of 2 with
# them, after 20 k and 985 k)
if [ -x "$PGOPROF" ] && "$PGOPROF" import -h >/dev/null 2>&1; then
	for f in fp dwarf; do
		[ -f $f.data ] && "$PGOPROF" import -q --no-local-files -o import-$f.raw $f.data 2>>import.log &&
			put raw import-$f.raw
	done
	for f in plain buildid; do
		[ -f $f.txt ] && "$PGOPROF" import -q --no-local-files -o import-$f-txt.raw $f.txt 2>>import.log &&
			put raw import-$f-txt.raw
	done
fi

# ---- compiler profiles: written by pgoprof, and by hand ----
cat >hand.prof <<'PROF'
# a hand-written LLVM text profile
main:1200:3
 0: 3
 1: 100 work:90 other:10
 2.1: 50
 3: work:600
  1: 200
  2.3: 300 mix:7
  4: inl:100
   0: 100
 !CFGChecksum: 1234
work:500:90
 0: 90
 65535: 5
PROF
printf 'f:10:1\r\n 1: 10 g:4\r\n 2: g:3\r\n  1: 3\r\n' >crlf.prof
printf '_Z3fooILi1EEvv.llvm.123:7:0\n 1: 7\n' >suffix.prof
put llvm_text hand.prof
put llvm_text crlf.prof
put llvm_text suffix.prof
[ -x "$PGOPROF" ] || { note "no pgoprof: no converted profiles"; }
if [ -x "$PGOPROF" ] && [ -f lbr.raw ]; then
	"$PGOPROF" convert -q lbr.raw --binary "$W/lbrsynth/progs/loops" --format llvm-text -o lbr.prof
	put llvm_text lbr.prof
fi
if [ -x "$PGOPROF" ] && [ -f stack-fp.raw ]; then
	"$PGOPROF" convert -q stack-fp.raw --binary prog --format llvm-text -o stack.prof
	put llvm_text stack.prof
fi
if [ -x "$PGOPROF" ]; then
	for p in hand lbr stack; do
		[ -f $p.prof ] || continue
		"$PGOPROF" merge -f llvm-extbinary -o $p.extbin $p.prof && put llvm_extbinary $p.extbin
		"$PGOPROF" merge -f llvm-extbinary --md5-names -o $p-md5.extbin $p.prof && put llvm_extbinary $p-md5.extbin
		"$PGOPROF" merge -f llvm-extbinary --compress -o $p-z.extbin $p.prof && put llvm_extbinary $p-z.extbin
		for v in 1 2 llvm; do
			"$PGOPROF" merge -f afdo --afdo-version $v -o $p-v$v.afdo $p.prof 2>/dev/null &&
				put afdo $p-v$v.afdo
		done
	done
fi
if command -v "$PROFDATA" >/dev/null; then
	"$PROFDATA" merge --sample --extbinary -o hand-llvm.extbin hand.prof 2>>profdata.log &&
		put llvm_extbinary hand-llvm.extbin
	"$PROFDATA" merge --sample --extbinary --compress-all-sections -o hand-llvmz.extbin hand.prof \
		2>>profdata.log && put llvm_extbinary hand-llvmz.extbin
	"$PROFDATA" merge --sample --extbinary --use-md5 -o hand-llvm-md5.extbin hand.prof \
		2>>profdata.log && put llvm_extbinary hand-llvm-md5.extbin
	"$PROFDATA" merge --sample --gcc -o hand-gcc.afdo hand.prof 2>>profdata.log &&
		put afdo hand-gcc.afdo
fi

# ---- command lines: NUL-separated arguments, as the tests give them ----
args() { # NAME ARG...: one seed
	name=$1; shift
	printf '%s\0' "$@" >"$CORPUS/cmdline/$name"
}
args convert hot.raw --binary hot --format llvm-text -o hot.prof
args convert-debug -q hot.raw -b hot.stripped -g hot.debug -f llvm-extbinary --md5-names --compress
args convert-afdo hot.raw --binary=hot --format=afdo --afdo-version=llvm --gcc-version 11
args convert-est hot.raw -bhot -e max -omax.prof --estimator=sum --quiet
args convert-bad hot.raw --binary hot --format llvm-nope --gcc-version=3 -e median
args convert-dashes -- -b --binary hot.raw
args record -F 999 -c 10007 -m lbr --call-graph dwarf,4096 -p 1 -d 1.5 -o out.raw -- true
