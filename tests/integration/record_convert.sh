#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Record real processes with BPF, convert, and hand the profile to the real
# consumers (llvm-profdata-16, clang-16).
. "$(dirname "$0")/../lib.sh"

need_root record_convert || exit 0
build_workloads || { fail build_workloads "clang-16 could not build tests/workloads"; exit 0; }
cd "$WORK" || exit 1

if ! "$PGOPROF" record -q -o hot.raw -- ./hot 1 >hot.out 2>record.err; then
	fail record "$(cat record.err)"; exit 0
fi
pass record
taken=$("$PGOPROF" show hot.raw | awk '$2 == "samples.taken" { print $4 }')
# cpu-clock samples come with the target's CPU time, not with the wall
# clock (load does not lower them) nor with a fixed count (a fast machine
# runs hot 1 in a quarter of the time of a slow one): so the recording
# must have at least half the samples that the rate and hot 1's CPU time
# (measured alone; recording only adds to it) call for.
freq=$("$PGOPROF" show hot.raw | awk '$2 == "sample_freq" { print $4 }')
cpu=$(cpu_ms ./hot 1); want=$(( ${freq:-999} * ${cpu:-0} / 2000 ))
check "record took samples (${taken:-0} >= $want: half of ${freq:-?} Hz x $cpu ms of CPU)" \
	test "${taken:-0}" -ge "$want" -a "$want" -gt 0
check "record stored the mode and event" sh -c \
	"'$PGOPROF' show hot.raw | grep -q '^meta mode = stack-fp' && '$PGOPROF' show hot.raw | grep -q '^meta event = cpu-clock'"

check convert "$PGOPROF" convert -q hot.raw --binary hot --format llvm-text -o hot.prof
check "llvm-profdata reads the profile" "$PROFDATA" show --sample hot.prof

# The hot function carries most of the binary's samples.
hot=$(fn_total hot.prof hot_loop); all=$(awk -F: '/^[^ ]/ { s += $2 } END { print s }' hot.prof)
check "hot_loop has most samples (${hot:-0} of ${all:-0})" test $((${hot:-0} * 10)) -ge $((${all:-1} * 7))
check "functions sorted by total" sh -c "head -n 1 hot.prof | grep -q '^hot_loop:'"

# mix() is always inlined into hot_loop: a nested call-site profile.
check "inlined code is a nested call site" sh -c \
	"awk '/^[^ ]/ { f = \$0 } f ~ /^hot_loop:/ && /^ [0-9.]+: mix:[0-9]+\$/ { n++ } END { exit !n }' hot.prof"
# main calls hot_loop: a call target from the stacks.
check "call targets from stack edges" sh -c \
	"awk '/^[^ ]/ { f = \$0 } f ~ /^main:/ && / hot_loop:[1-9]/ { n++ } END { exit !n }' hot.prof"

# --call-targets calls: a single callee's count is its call line's count
# (at least 1), not the samples taken under it.
check "call targets as call counts" sh -c \
	"'$PGOPROF' convert -q hot.raw --binary hot --format llvm-text --call-targets calls -o hot-calls.prof &&
	 awk '/^[^ ]/ { f = \$0 } f ~ /^main:/ && NF == 3 && \$3 ~ /^hot_loop:/ {
	      split(\$3, t, \":\"); want = \$2 > 0 ? \$2 : 1; n++; if (t[2] != want) bad++ }
	      END { exit !(n && !bad) }' hot-calls.prof"
check "the flow estimator: hot_loop first" sh -c \
	"'$PGOPROF' convert -q hot.raw --binary hot --format llvm-text --estimator flow | head -n 1 | grep -q '^hot_loop:'"

# clang reads it and annotates the IR.
"$CLANG" -O2 -g -fdebug-info-for-profiling -fprofile-sample-use=hot.prof -S -emit-llvm \
	-o hot.ll "$TOP/tests/workloads/hot.c" 2>clang.err
check "clang-16 accepts the profile without warnings" sh -c "test -s hot.ll && ! grep -q warning clang.err"
check "clang-16 emits function_entry_count" grep -q function_entry_count hot.ll
check "clang-16 annotates hot_loop with !prof" sh -c "grep '^define.*@hot_loop' hot.ll | grep -q '!prof'"
check "clang-16 emits branch weights" grep -q branch_weights hot.ll

# A stripped binary with its separate debug file gives the same profile.
objcopy --only-keep-debug hot hot.debug && objcopy --strip-debug hot hot.stripped
check "convert a stripped binary with --debug-binary" sh -c \
	"'$PGOPROF' convert -q hot.raw --binary hot.stripped --debug-binary hot.debug --format llvm-text | cmp - hot.prof"

# A shared library: samples of libhot.so belong to it, by build-ID.
check "convert a shared library" "$PGOPROF" convert -q hot.raw --binary libhot.so --format llvm-text -o libhot.prof
check "the library's hot function is first" sh -c "head -n 1 libhot.prof | grep -q '^lib_mix:'"

# PIE: the top sample's file offset maps to an ELF vaddr inside hot_loop.
check "hot is a PIE" sh -c "readelf -h hot | grep -q 'DYN'"
check_top_sample() { # NAME BINARY FUNCTION RAW
	top=$("$PGOPROF" show "$4" --binary "$2" | awk 'NR > 1 && $3 > max { max = $3; l = $0 } END { print l }')
	set -- "$1" "$2" "$3" "$4" $top
	vaddr=$6; func=$8
	# The symbol's start and size from the ELF itself, not from pgoprof.
	range=$( (nm -S --defined-only "$2"; nm -S --defined-only -D "$2") 2>/dev/null |
		awk -v f="$3" '{ sub(/@.*/, "", $4) } $4 == f { print $1, $2; exit }')
	set -- "$1" "$2" "$3" "${func:-none}" "${vaddr:-0}" ${range:-0 0}
	# An internal alias (libc's __random_r, from libc6-dbg) is the same
	# function: the address range decides.
	case $4 in *"$3") alias=$4 ;; *) alias= ;; esac
	if [ "$alias" = "$4" ] && [ $(($5)) -ge $((0x$6)) ] && [ $(($5)) -lt $((0x$6 + 0x$7)) ]; then
		pass "$1"
	else
		fail "$1" "top sample at vaddr $5 in '$4', expected in $3 at 0x$6 size 0x$7"
	fi
}
check_top_sample "PIE sample maps to the right vaddr" hot hot_loop hot.raw

# libc: a sample in libc.so.6 maps to the right file offset and vaddr.
LIBC=$(ldd ./libcspin | awk '/libc.so/ { print $3 }')
if "$PGOPROF" record -q -o libc.raw -- ./libcspin >/dev/null 2>record.err; then
	check_top_sample "libc sample maps to the right vaddr" "$LIBC" random_r libc.raw
else
	fail "record libcspin" "$(cat record.err)"
fi

# -p PID: attach to a running process, once it runs hot (wait_exe), and
# kept running until the recording is done (hot 3 could end first, or
# before the recorder is set up, on a fast or a loaded machine).
./hot 1000 >/dev/null & pid=$!
wait_exe $pid hot
check "record -p PID -d" "$PGOPROF" record -q -p $pid -d 1 -o pid.raw
kill $pid 2>/dev/null; wait $pid 2>/dev/null
check "record -p finds hot_loop" sh -c "'$PGOPROF' convert -q pid.raw --binary hot --format llvm-text | head -n 1 | grep -q '^hot_loop:'"

# -a: the whole system, with our process among others.
./hot 1000 >/dev/null & pid=$!
wait_exe $pid hot
check "record -a -d" "$PGOPROF" record -q -a -d 1 -o all.raw
kill $pid 2>/dev/null; wait $pid 2>/dev/null
check "record -a finds hot_loop" sh -c "'$PGOPROF' convert -q all.raw --binary hot --format llvm-text | head -n 1 | grep -q '^hot_loop:'"

# merge is exact: a profile merged with itself has every count doubled.
check "merge" "$PGOPROF" merge -o twice.raw hot.raw hot.raw
"$PGOPROF" show hot.raw | awk '$1 == "ip" { print $2, $3 * 2 }' >ips.expected
"$PGOPROF" show twice.raw | awk '$1 == "ip" { print $2, $3 }' >ips.got
check "merge doubles every IP count" cmp ips.expected ips.got
"$PGOPROF" merge -o weighted.raw --weight hot.raw=3 hot.raw
check "merge --weight multiplies" sh -c "test \$('$PGOPROF' show weighted.raw | awk '\$2 == \"samples.taken\" { print \$4 }') -eq $((taken * 3))"

# The compiler formats from a real recording, proven by their consumers.
check "convert to extbinary (the default)" "$PGOPROF" convert -q hot.raw --binary hot -o hot.extbin
for v in "plain||" "md5|--md5-names|--use-md5" "compress|--compress|--compress-all-sections"; do
	name=${v%%|*}; rest=${v#*|}; ours=${rest%%|*}; theirs=${rest#*|}
	"$PGOPROF" convert -q hot.raw --binary hot $ours -o "hot-$name.extbin"
	"$PROFDATA" merge --sample --extbinary $theirs -o "ref-$name.extbin" hot.prof
	check "extbinary ($name) byte-identical to llvm-profdata merge of our text" \
		cmp "hot-$name.extbin" "ref-$name.extbin"
done
"$PROFDATA" show --sample hot.prof >show-text.txt
"$PROFDATA" show --sample hot.extbin >show-ext.txt
check "llvm-profdata show: extbinary prints as the text profile" cmp show-text.txt show-ext.txt
check "pgoprof show prints extbinary as our text" sh -c "'$PGOPROF' show hot.extbin | cmp - hot.prof"
"$CLANG" -O2 -g -fdebug-info-for-profiling -fprofile-sample-use=hot.extbin -S -emit-llvm \
	-o hot-ext.ll "$TOP/tests/workloads/hot.c" 2>clang-ext.err
check "clang-16: same IR from extbinary as from text" sh -c \
	"grep -q function_entry_count hot-ext.ll && diff hot.ll hot-ext.ll >/dev/null"
clang -O2 -g -fdebug-info-for-profiling -fprofile-sample-use=hot.extbin -S -emit-llvm \
	-o hot-14.ll "$TOP/tests/workloads/hot.c" 2>clang-14.err
check "clang-14 reads our extbinary" sh -c "grep '^define.*@hot_loop' hot-14.ll | grep -q '!prof'"
check "merge of extbinary with itself doubles every count" sh -c \
	"'$PGOPROF' merge -o twice.extbin hot.extbin hot.extbin &&
	 '$PGOPROF' show twice.extbin | head -n 1 | grep -q \"^hot_loop:$((hot * 2)):\""
check "text -> extbinary -> text is the identity" sh -c \
	"'$PGOPROF' merge -f llvm-extbinary -o rt.extbin hot.prof && '$PGOPROF' show rt.extbin | cmp - hot.prof"

# SIGINT ends a recording with a valid profile; a failing command's status
# is passed on (the profile is still written).
"$TOP/pgoprof-record" -q -a -o sigint.raw & rpid=$!
./hot 1000 >/dev/null & hpid=$!
wait_recording $rpid; sleep 0.5; kill -INT $rpid; wait $rpid; rc=$?
kill $hpid 2>/dev/null; wait $hpid 2>/dev/null
check "SIGINT writes a valid profile (rc=$rc)" sh -c "test $rc -eq 0 && '$PGOPROF' show sigint.raw | grep -q '^counter samples.taken'"
rm -f exit.raw
"$PGOPROF" record -q -o exit.raw -- sh -c 'exit 3'; rc=$?
check "record passes on the command's exit status (rc=$rc)" sh -c "test $rc -eq 3 && test -s exit.raw"
"$PGOPROF" record -q -o nocmd.raw -- ./no-such-command 2>nocmd.err; rc=$?
check "record of a missing command fails (rc=$rc)" sh -c "test $rc -eq 127 && grep -q 'no-such-command' nocmd.err"

# GCC: a gcc-12 build recorded, converted to .afdo, read by gcc -fauto-profile.
gcc -O2 -g -fno-omit-frame-pointer -o hotgcc "$TOP/tests/workloads/hot.c" -L. -lhot -Wl,-rpath,"$WORK"
if "$PGOPROF" record -q -o hotgcc.raw -- ./hotgcc 1 >/dev/null; then
	# --unsampled omit: the counts as sampled, so that gcc's block counts
	# are the file's (the floor's count 1 joins gcc's flow sums;
	# unsampled.sh tests it)
	check "convert a gcc binary to .afdo" "$PGOPROF" convert -q hotgcc.raw --binary hotgcc --format afdo --unsampled omit -o hotgcc.afdo
	rm -rf gccdump && mkdir gccdump
	gcc -O2 -fauto-profile=hotgcc.afdo -fdump-ipa-afdo -dumpdir gccdump/ -c \
		"$TOP/tests/workloads/hot.c" -o gccdump/hot.o 2>gcc-afdo.err
	check "gcc-12 -fauto-profile reads it without warnings" sh -c "test -f gccdump/hot.o && ! test -s gcc-afdo.err"
	# GCC gives a block the largest count of its statements: the hottest
	# line of hot_loop (with mix inlined) must appear as a block count.
	want=$("$PGOPROF" show hotgcc.afdo | awk '/^[^ ]/ { f = $0 } f ~ /^hot_loop:/ && /^ +[0-9.]+: [0-9]+$/ { if ($2 > m) m = $2 } END { print m + 0 }')
	got=$(awk '/^[^ ].*hot_loop \(/ { f = 1 } f && /\[count: [0-9]+\]/ { gsub(/[^0-9]/, "", $NF); if ($NF + 0 > m) m = $NF + 0 } /^}/ { f = 0 } END { print m + 0 }' gccdump/*afdo 2>/dev/null)
	check "gcc annotates hot_loop with the profile's count (want $want, got $got)" test "$want" -gt 0 -a "$want" = "$got"
	check ".afdo for LLVM (--afdo-version llvm) reads in llvm-profdata" sh -c \
		"'$PGOPROF' convert -q hotgcc.raw --binary hotgcc --format afdo --afdo-version llvm -o hotgcc.llvm.afdo &&
		 '$PROFDATA' show --sample hotgcc.llvm.afdo | grep -q 'Function: hot_loop'"
else
	fail "record a gcc build"
fi

# pgoprof check: a profile against the binary it came from, and against
# the program after edits that move hot_loop's lines or rename it.
check "check: the profile fits its own binary" sh -c "'$PGOPROF' check --binary hot --min-fit 99 hot.extbin | grep -q '^fit: 100.0%'"
sed '/^__attribute__((noinline)) unsigned long hot_loop/,/^}/ s|^\(\t\th = mix\)|\n\n\n\1|' \
	"$TOP/tests/workloads/hot.c" >moved.c
$CLANG $PROF_CFLAGS -o moved moved.c -L. -lhot -Wl,-rpath,"$WORK"
"$PGOPROF" check --binary moved --min-fit 90 hot.extbin >check-moved.txt; rc=$?
check "check: moved lines lower the fit and fail the threshold (rc=$rc)" sh -c \
	"test $rc -eq 1 && grep -q 'changed: hot_loop' check-moved.txt"
sed 's/hot_loop/hot_loop_renamed/g' "$TOP/tests/workloads/hot.c" >renamed.c
$CLANG $PROF_CFLAGS -o renamed renamed.c -L. -lhot -Wl,-rpath,"$WORK"
"$PGOPROF" check --binary renamed hot.extbin >check-renamed.txt; rc=$?
check "check: a renamed function is missing (rc=$rc)" sh -c \
	"test $rc -eq 1 && grep -q '1 missing from the binary' check-renamed.txt"
check "check: a raw profile of another build is refused" sh -c \
	"! '$PGOPROF' check --binary moved hot.raw >/dev/null"

# Branch-record mode: where perf itself has no branch stack (this VM),
# --mode lbr must fail in one line, auto must fall back and say so; and
# the LBR BPF program passes the verifier even here (it is loaded).
if perf record -q -b -o /dev/null true >/dev/null 2>&1; then has_lbr=1; else has_lbr=0; fi
"$PGOPROF" record -q --mode lbr -o lbr.raw -- true 2>lbr.err; rc=$?
if [ $has_lbr = 0 ]; then
	check "--mode lbr without branch records: one line, exit 1 (rc=$rc)" sh -c \
		"test $rc -eq 1 && test \$(wc -l <lbr.err) -eq 1 && grep -q 'no branch records' lbr.err && ! test -e lbr.raw"
	"$PGOPROF" record -o auto.raw -- true 2>auto.err
	check "--mode auto falls back to stack and says why" grep -q 'mode stack: no branch records here' auto.err
else
	check "--mode lbr records branch records" sh -c "test $rc -eq 0 && '$PGOPROF' show lbr.raw | grep -q '^meta mode = lbr'"
fi
# pgoprof-record loads only the sampling program it uses; the verifier
# sees them all, the LBR ones too, in tests/integration/fpcount.sh.
"$TOP/pgoprof-record" -q -a -o verifier.raw 2>/dev/null & rpid=$!
wait_recording $rpid
check "the program of --call-graph auto is loaded, the LBR one is not" sh -c \
	"bpftool prog show | grep -q 'name on_stack_sample ' && ! bpftool prog show | grep -q on_lbr_sample"
kill -INT $rpid; wait $rpid
