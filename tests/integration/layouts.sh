#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Binaries of every common layout, as other machines build them, recorded
# every way pgoprof takes in: ld.bfd and lld, PIE and not (ET_DYN and
# ET_EXEC), -z separate-code (code on pages of its own, after a read-only
# first segment) and -z noseparate-code (code on the same file pages as
# the ELF header or read-only data: ld.bfd before 2.31, lld's default),
# each with a shared library of the same linker and layout.  Each is
# recorded by pgoprof record, perf record -g and perf record --buildid-mmap
# -g (imported with --no-local-files: the IDs come from MMAP2 alone), and
# each profile converts with its binary and library: the hot functions have
# their samples and the samples fall in functions; clang-16 applies each
# binary's profile (of the first kind).  readelf proves that each binary
# has the layout it is named for.
#
# One recording of each kind runs all the binaries at once (perf record
# alone takes more than a second to start here; one recording a binary
# would not fit the time of make check).  Their build-IDs, and the
# directories of the libraries (all named libhot.so), keep them apart.
. "$(dirname "$0")/../lib.sh"

D=$WORK/layouts
rm -rf "$D"; mkdir -p "$D"; cd "$D" || exit 1
SRC=$TOP/tests/workloads

# The build-ID styles of the full layout matrix (sha1: 20 bytes; the
# other styles are buildids.sh's).
STYLES="sha1"
# LD PIE SEP STYLE, one binary a line: the full matrix in each style;
# lld's own default layout (PIE, noseparate-code) with its 8-byte fast ID
# recorded for real (perf --buildid-mmap puts 8 bytes in MMAP2); and two
# layouts without a build-ID (--build-id=none): pgoprof record names them
# by content, perf's records by path (their libraries, all libhot.so,
# are told apart by convert --recorded-path).
CONFIGS=$(for style in $STYLES; do for ld in bfd lld; do for pie in pie nopie; do
	for sep in separate-code noseparate-code; do echo $ld $pie $sep $style; done; done; done; done
	echo lld pie noseparate-code fast
	echo lld pie noseparate-code none
	echo bfd nopie separate-code none)

# layout ELF: "TYPE CODE FLAGS": TYPE from the ELF header (DYN, EXEC);
# CODE "separate" when the executable PT_LOAD starts on a page of its own
# (not at offset 0, where the ELF header is) and the next PT_LOAD on a
# later page, else "shared"; FLAGS the PT_LOADs' flags in order (R,RE,RW).
layout() {
	type=$(readelf -h "$1" | awk '$1 == "Type:" { print $2 }')
	# offset, flags (without blanks), alignment of each PT_LOAD
	readelf -lW "$1" | awk '$1 == "LOAD" { f = ""; for (i = 7; i < NF; i++) f = f $i; print $2, f, $NF }' >"$1.loads"
	code=shared; flags=; next=
	while read -r off f align; do
		flags=${flags:+$flags,}$f
		if [ "$next" = 1 ]; then
			[ $((off % align)) -eq 0 ] || code=shared
			next=
		fi
		case $f in *E*)
			[ $((off)) -ne 0 ] && [ $((off % align)) -eq 0 ] && code=separate
			next=1 ;;
		esac
	done <"$1.loads"
	echo "$type $code $flags"
}

# Build: libraries lib-LD-SEP-STYLE/libhot.so, executables
# hot-LD-PIE-SEP-STYLE linked with the library of their layout.
# The sources are compiled once (PIE, not PIE, the library), each
# layout is a link of those objects.
for o in "hot-pie -fPIE hot" "hot-nopie -fno-pie hot" "libhot -fPIC libhot"; do
	set -- $o
	$CLANG $PROF_CFLAGS $2 -c -o $1.o "$SRC/$3.c" 2>$1.cc.err ||
		{ fail "compile $3.c $2" "$(head -n 2 $1.cc.err | tr '\n' ' ')"; exit 0; }
done
BINS= LIBS=
echo "$CONFIGS" >configs
while read -r ld pie sep style; do
	lf="-fuse-ld=$ld -Wl,--build-id=$style -Wl,-z,$sep"
	want=shared; [ $sep = separate-code ] && want=separate
	lib=lib-$ld-$sep-$style
	if [ ! -d $lib ]; then
		mkdir -p $lib
		if ! $CLANG -shared $lf -o $lib/libhot.so libhot.o 2>$lib.cc.err; then
			fail "build $lib/libhot.so" "$(head -n 2 $lib.cc.err | tr '\n' ' ')"
			continue
		fi
		set -- $(layout $lib/libhot.so)
		check "$lib/libhot.so is $1, its code on pages $2 ($3)" \
			test "$1 $2" = "DYN $want"
		LIBS="$LIBS $lib"
	fi
	b=hot-$ld-$pie-$sep-$style
	pf=-pie; type=DYN
	[ $pie = nopie ] && { pf=-no-pie; type=EXEC; }
	if ! $CLANG $pf $lf -o $b hot-$pie.o -L$lib -lhot -Wl,-rpath,"$D/$lib" 2>$b.cc.err; then
		fail "build $b" "$(head -n 2 $b.cc.err | tr '\n' ' ')"
		continue
	fi
	set -- $(layout $b)
	check "$b is $1, its code on pages $2 ($3)" test "$1 $2" = "$type $want"
	BINS="$BINS $b"
done <configs
[ -n "$BINS" ] || { fail "layouts" "no binary could be built"; exit 0; }

# run-all KIND: every binary at once (hot 1 6: 6 rounds, 0.25 s of CPU);
# their exit
# statuses in BIN.KIND.rc.
cat >run-all <<'EOF'
#!/bin/sh
kind=$1; shift
for b in "$@"; do
	( ./$b 1 6 >$b.$kind.out 2>&1; echo $? >$b.$kind.rc ) &
done
wait
EOF
chmod +x run-all

# perf 6.1 aborts now and then here ("stack smashing detected"; more often
# while another perf event with build-IDs is open on the machine, as a
# pgoprof recording's): a failed perf record is run again, up to six
# times in all (as import.sh does).
perf_rec() {
	for try in 1 2 3 4 5 6; do
		perf record -N -q -e cpu-clock -g "$@" >/dev/null 2>perf.err && return 0
		sleep 2
	done
	return 1
}

KINDS=
if [ "$(id -u)" = 0 ]; then
	if "$PGOPROF" record -q -o rec.raw -- ./run-all rec $BINS 2>rec.err; then
		KINDS="$KINDS rec"; pass "pgoprof record of all the binaries"
	else
		fail "pgoprof record" "$(tail -n 2 rec.err | tr '\n' ' ')"
	fi
else
	pass "pgoprof record: needs root for BPF (skipped)"
fi
if ! command -v perf >/dev/null 2>&1; then
	pass "perf record: perf is not installed (skipped)"
else
	if perf_rec -o g.data -- ./run-all g $BINS; then
		KINDS="$KINDS g"
	elif [ "$(id -u)" != 0 ]; then
		pass "perf record -g: fails without root here (skipped): $(tail -n 1 perf.err)"
	else
		fail "perf record -g" "$(tail -n 2 perf.err | tr '\n' ' ')"
	fi
	if ! perf record -h 2>&1 | grep -q -e --buildid-mmap; then
		pass "perf record --buildid-mmap: this perf has no such option (skipped)"
	elif perf_rec --buildid-mmap -o bm.data -- ./run-all bm $BINS; then
		KINDS="$KINDS bm"
	elif [ "$(id -u)" != 0 ]; then
		pass "perf record --buildid-mmap: fails without root here (skipped): $(tail -n 1 perf.err)"
	else
		fail "perf record --buildid-mmap -g" "$(tail -n 2 perf.err | tr '\n' ' ')"
	fi
fi
IMPORTED=
for k in $KINDS; do
	case $k in
	rec)	IMPORTED="$IMPORTED $k"; continue ;;
	g)	opt=; what="perf record -g" ;;
	bm)	opt=--no-local-files; what="perf record --buildid-mmap -g (--no-local-files)" ;;
	esac
	if "$PGOPROF" import -q $opt -o $k.raw $k.data 2>$k.import.err; then
		pass "pgoprof import of $what"; IMPORTED="$IMPORTED $k"
	else
		fail "pgoprof import of $what" "$(tail -n 2 $k.import.err | tr '\n' ' ')"
	fi
done
KINDS=$IMPORTED
FIRST=$(echo $KINDS | cut -d' ' -f1)

# attributed CONVERT.ERR: the share, in per cent, of the binary's samples
# that convert attributed to functions ("N attributed to F functions (P%)").
attributed() { sed -n 's/.* attributed to .* functions* (\([0-9]*\)[.0-9]*%).*/\1/p' "$1" | head -n 1; }
# total PROFILE: the samples of all its functions (column 0 "name:TOTAL:HEAD").
total() { awk -F: '/^[^ ]/ { s += $2 } END { print s + 0 }' "$1"; }

# Each recording, each binary and its library.  Each process runs hot 1 6
# whole: hot_loop is about 90% of the executable's CPU time (about 200
# samples at 999 Hz, 1000 at perf's 4000 Hz), lib_mix nearly all of the
# library's; so hot_loop under half of the executable's samples, or under
# 90% of the samples in functions, would take a mapping that is wrong
# (samples at the wrong addresses), not bad luck: with p = 0.9 and n =
# 200 a share under 0.5 has a chance below 1e-27 (Hoeffding).  (PLT and
# startup code, outside functions, take a few samples in a thousand.)
for k in $KINDS; do
	case $k in rec) what="pgoprof record" ;; g) what="perf -g" ;; bm) what="perf --buildid-mmap" ;; esac
	for b in $BINS; do
		if [ "$(cat $b.$k.rc 2>/dev/null)" != 0 ]; then
			fail "$b ($what): the workload failed" "$(tail -n 1 $b.$k.out 2>/dev/null)"; continue
		fi
		if ! "$PGOPROF" convert $k.raw --binary $b --format llvm-text -o $b.$k.prof 2>$b.$k.conv; then
			fail "$b ($what): convert" "$(grep -v '^pgoprof convert:   ' $b.$k.conv | tail -n 2 | tr '\n' ' ')"
			continue
		fi
		hot=$(fn_total $b.$k.prof hot_loop); all=$(total $b.$k.prof); att=$(attributed $b.$k.conv)
		check "$b ($what): hot_loop has ${hot:-no} of $all samples, ${att:-?}% in functions" \
			test "${hot:-0}" -gt 0 -a $((${hot:-0} * 2)) -ge "$all" -a "${att:-0}" -ge 90
		# clang-16 on the first kind's profiles (the time of make check).
		[ $k = $FIRST ] || continue
		"$CLANG" -O2 -g -fdebug-info-for-profiling -fprofile-sample-use=$b.$k.prof -S -emit-llvm \
			-o $b.$k.ll "$SRC/hot.c" 2>$b.$k.clang.err
		check "$b ($what): clang-16 applies the profile to hot_loop" sh -c \
			"grep '^define.*@hot_loop' $b.$k.ll | grep -q '!prof' && ! grep -q warning $b.$k.clang.err"
	done
	# A library: the samples of the two processes (pie, nopie) that load it.
	for lib in $LIBS; do
		if ! "$PGOPROF" convert $k.raw --binary $lib/libhot.so --format llvm-text \
			--recorded-path "$D/$lib/libhot.so" -o $lib.$k.prof 2>$lib.$k.conv; then
			fail "$lib/libhot.so ($what): convert" "$(grep -v '^pgoprof convert:   ' $lib.$k.conv | tail -n 2 | tr '\n' ' ')"
			continue
		fi
		mix=$(fn_total $lib.$k.prof lib_mix); att=$(attributed $lib.$k.conv)
		check "$lib/libhot.so ($what): lib_mix has ${mix:-no} samples, ${att:-?}% in functions" \
			test "${mix:-0}" -gt 0 -a "${att:-0}" -ge 90
	done
done
