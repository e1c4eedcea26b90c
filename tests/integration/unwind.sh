#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Call graphs without frame pointers: pgoprof record --call-graph
# auto|fp|dwarf on gcc builds with and without frame pointers, whose hot
# leaf has no frame; samples in libc (built without frame pointers); a
# stack deeper than the copy; threads; the counters; dropped privileges.
. "$(dirname "$0")/../lib.sh"

need_root unwind || exit 0
cd "$WORK" || exit 1
W=$TOP/tests/workloads
# gcc 12 -O2: no frame pointers; with -fno-omit-frame-pointer, still none
# in leaf functions.
gcc -O2 -g -o lc_nofp "$W/leafcall.c" -lpthread &&
gcc -O2 -g -fno-omit-frame-pointer -o lc_fp "$W/leafcall.c" -lpthread &&
gcc -O2 -g -fno-omit-frame-pointer -o libcspin_fp "$W/libcspin.c" &&
gcc -O2 -g -fno-omit-frame-pointer -o libcsort_fp "$W/libcsort.c" ||
	{ fail build "gcc could not build the workloads"; exit 0; }

rec() { # CALL_GRAPH RAW COMMAND...
	cg=$1 raw=$2; shift 2
	"$PGOPROF" record -q --call-graph "$cg" -o "$raw" -- "$@" >/dev/null 2>"$raw.err"
}

# The raw profile with numbers in decimal, for awk (mawk has no strtonum):
# "ip OBJ OFF COUNT", "edge OBJ RET CALLEE_OBJ CALLEE_OFF COUNT",
# "object OBJ PATH", "counter NAME VALUE".
flat() {
	"$PGOPROF" show "$1" | awk '
	function hex(s,   i, v) { sub(/^0x/, "", s); s = tolower(s); v = 0
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	$1 == "object" { o = $2; print "object", o, $6 }
	$1 == "counter" { print "counter", $2, $4 }
	$1 == "ip" { print "ip", o, hex($2), $3 }
	$1 == "edge" { split($4, t, ":"); print "edge", o, hex($2), t[1], hex(t[2]), $5 }'
}

# "START END" of a function (file offsets equal vaddrs in gcc's PIE text).
range() { nm -S --defined-only "$1" | awk -v f="$2" '
	function hex(s,   i, v) { s = tolower(s); v = 0
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	$4 == f { print hex($1), hex($1) + hex($2); exit }'; }

# "SAMPLES CALLED": the IP samples in LEAF of BIN, and the edges into them
# from a call in CALLER of BIN.
leaf_caller() { # RAW BIN LEAF CALLER
	set -- "$1" "$(cd "$(dirname "$2")" && pwd)/$(basename "$2")" "$(range "$2" "$3")" "$(range "$2" "$4")"
	flat "$1" | awk -v bin="$2" -v leaf="$3" -v caller="$4" '
	BEGIN { split(leaf, l, " "); split(caller, c, " ") }
	$1 == "object" && $3 == bin { me = $2 }
	$1 == "ip" && $2 == me && $3 >= l[1] && $3 < l[2] { ip += $4 }
	$1 == "edge" && $2 == me && $4 == me && $5 >= l[1] && $5 < l[2] &&
		$3 >= c[1] && $3 < c[2] { n += $6 }
	END { print ip + 0, n + 0 }'
}

pct_ok() { # GOOD ALL PERCENT
	[ "$2" -gt 0 ] && [ $(($1 * 100)) -ge $(($2 * $3)) ]
}

# 1. The lost leaf caller, with and without frame pointers in the binary.
for b in lc_nofp lc_fp; do
	for cg in fp auto dwarf; do
		rec $cg $b.$cg.raw ./$b 300000 || fail "record $b --call-graph $cg" "$(cat $b.$cg.raw.err)"
	done
	set -- $(leaf_caller $b.fp.raw $b hot_leaf caller_a); fp_ip=$1 fp_ok=$2
	for cg in auto dwarf; do
		set -- $(leaf_caller $b.$cg.raw $b hot_leaf caller_a)
		check "$b --call-graph $cg: hot_leaf samples with caller_a as caller: $2 of $1 (fp: $fp_ok of $fp_ip)" \
			pct_ok "$2" "$1" 95
	done
done

# The same, from the converted profile: caller_a's call site of hot_leaf
# carries (nearly) all of hot_leaf's samples.
"$PGOPROF" convert -q lc_nofp.auto.raw --binary lc_nofp --format llvm-text -o lc_nofp.prof
total=$(fn_total lc_nofp.prof hot_leaf)
site=$(awk '/^[^ ]/ { f = $0 } f ~ /^caller_a:/ { for (i = 2; i <= NF; i++) if ($i ~ /^hot_leaf:/) { sub(/^hot_leaf:/, "", $i); n += $i } } END { print n + 0 }' lc_nofp.prof)
check "converted: caller_a calls hot_leaf with $site of its ${total:-0} samples" pct_ok "$site" "${total:-0}" 95

# 2. libc (no frame pointers) back into main: random_r called from main;
# qsort's merge sort, which calls back cmp_long.
libc_from_main() { # RAW BIN: "SAMPLES_UNDER_MAIN_CALLS CALLED_FROM_MAIN"
	bin="$(pwd)/$2"
	set -- "$1" "$bin" "$(range "$2" main)" "$(range "$2" cmp_long)"
	flat "$1" | awk -v bin="$2" -v main="$3" -v cmp="$4" '
	BEGIN { split(main, m, " "); split(cmp, c, " ") }
	$1 == "object" { path[$2] = $3 }
	$1 == "ip" { ips[$2] += $4; if (path[$2] == bin && $3 >= c[1] && $3 < c[2]) cmpn += $4 }
	# Callee objects may come later in the file: decide at the end.
	$1 == "edge" && path[$2] == bin && $3 >= m[1] && $3 < m[2] { to[$4] += $6 }
	END { for (o in ips) if (path[o] ~ /libc\.so/) lib += ips[o]
		for (o in to) if (path[o] ~ /libc\.so/) n += to[o]
		print lib + cmpn, n + 0 }'
}
for w in libcspin_fp libcsort_fp; do
	case $w in libcspin_fp) arg=60000000 ;; *) arg=30 ;; esac
	for cg in fp auto dwarf; do
		rec $cg $w.$cg.raw ./$w $arg || fail "record $w --call-graph $cg" "$(cat $w.$cg.raw.err)"
	done
	set -- $(libc_from_main $w.fp.raw $w); fp_all=$1 fp_ok=$2
	for cg in auto dwarf; do
		set -- $(libc_from_main $w.$cg.raw $w)
		check "$w --call-graph $cg: samples in libc calls that unwind to main: $2 of $1 (fp: $fp_ok of $fp_all)" \
			pct_ok "$2" "$1" 95
	done
done

# 3. A stack deeper than the 8 KiB copy (115 frames of 80 bytes, fewer
# than the 127 frames kept): dwarf
# stops at the copy's end and says so; auto goes on with the kernel's
# frame-pointer walk, back to main.
rec dwarf deep.dwarf.raw ./lc_fp deep 115 200000
rec auto deep.auto.raw ./lc_fp deep 115 200000
stack_end=$(flat deep.dwarf.raw | awk '$2 == "unwind.stack_end" { print $3 }')
set -- $(leaf_caller deep.dwarf.raw lc_fp hot_leaf caller_a)
check "deep stack, dwarf: ends at the copy (unwind.stack_end ${stack_end:-0} of $1)" pct_ok "${stack_end:-0}" "$1" 90
set -- $(leaf_caller deep.auto.raw lc_fp descend main)
all=$(leaf_caller deep.auto.raw lc_fp hot_leaf caller_a | cut -d' ' -f1)
chain=$(flat deep.auto.raw | awk '$2 == "unwinder.fp_chain_frames" { print $3 }')
check "deep stack, auto: main reached through the kernel's chain ($2 of $all; ${chain:-0} frames from it)" \
	sh -c "[ $(( $2 * 100 )) -ge $(( all * 90 )) ] && [ ${chain:-0} -gt 0 ]"
# Of this recording's own samples: the auto recording's count (as
# before) differs with the CPU time each run got (443 against 523 under
# load: 433 reached main, 87% of the other's count).
rec dwarf,65528 deep.big.raw ./lc_fp deep 115 200000
set -- $(leaf_caller deep.big.raw lc_fp descend main)
big=$(leaf_caller deep.big.raw lc_fp hot_leaf caller_a | cut -d' ' -f1)
check "deep stack, dwarf,65528: the bigger copy reaches main ($2 of $big)" pct_ok "$2" "$big" 90

# 4. Thread stacks (mappings of their own).
rec auto thr.raw ./lc_nofp threads 150000
set -- $(leaf_caller thr.raw lc_nofp hot_leaf caller_a)
check "threads, auto: $2 of $1 with their caller" pct_ok "$2" "$1" 95

# 5. Counters, and the accounting identity of docs/raw-format.md.
for r in lc_nofp.auto.raw lc_fp.dwarf.raw libcsort_fp.auto.raw; do
	flat $r | awk '
	$1 == "counter" { c[$2] = $3 } $1 == "ip" { ip += $4 }
	END { u = 0; for (k in c) if (k ~ /^unattributed\./) u += c[k]
		w = 0; for (k in c) if (k ~ /^unwind\./) w += c[k]
		ok = c["samples.taken"] == ip + u + c["samples.lost"] && w > 0 &&
		     ("lost.ringbuf" in c) && ("stack_copy.short" in c) &&
		     ("unwinder.time_us" in c)
		printf "%s taken %d = ips %d + unattributed %d + lost %d; unwound %d\n",
			ok ? "ok" : "bad", c["samples.taken"], ip, u, c["samples.lost"], w }' >$r.sum
	check "$r: counters present, $(cut -d' ' -f2- $r.sum)" grep -q '^ok' $r.sum
done
check "meta call_graph" sh -c "'$PGOPROF' show lc_nofp.auto.raw | grep -q '^meta call_graph = auto,8192' &&
	'$PGOPROF' show lc_nofp.fp.raw | grep -q '^meta call_graph = fp' &&
	'$PGOPROF' show lc_nofp.dwarf.raw | grep -q '^meta call_graph = dwarf,8192'"

# 6. Bad options, and privileges: unwinding runs with every capability
# dropped but CAP_DAC_READ_SEARCH (bit 2), and no_new_privs.
for bad in dwarf,0 dwarf,99999 fp,8192 lbr "dwarf,12x"; do
	"$PGOPROF" record -q --call-graph "$bad" -o bad.raw -- true 2>bad.err; rc=$?
	check "--call-graph $bad is refused (rc=$rc)" sh -c "test $rc -eq 2 && grep -q 'call-graph' bad.err"
done
# The status is read once the recorder has set up (wait_recording), not
# after a guessed sleep; the command runs until the recorder is stopped.
"$TOP/pgoprof-record" -q -o caps.raw -- sleep 60 >/dev/null 2>&1 & rpid=$!
wait_recording $rpid
caps=$(awk '/^CapEff|^CapPrm|^NoNewPrivs/ { printf "%s%s ", $1, $2 }' /proc/$rpid/status 2>/dev/null)
kill -INT $rpid; wait $rpid
check "pgoprof-record drops privileges while it records ($caps)" sh -c \
	"echo '$caps' | grep -q 'CapPrm:0000000000000004 CapEff:0000000000000004 NoNewPrivs:1'"
check "the profile is written after the drop" "$PGOPROF" show caps.raw

# A sample in the kernel is unattributed.kernel, but the task's saved user
# registers (bpf_task_pt_regs) still unwind: the call site that led into
# the kernel gets the call target.
gcc -O2 -g -o syscalls "$TOP/tests/workloads/syscalls.c"
"$PGOPROF" record -q --call-graph auto -o syscalls.raw -- ./syscalls >/dev/null 2>&1
kern=$("$PGOPROF" show syscalls.raw | awk '$2 == "unattributed.kernel" { print $4 }')
tgt=$("$PGOPROF" convert -q syscalls.raw --binary syscalls -f llvm-text |
	awk '/^do_syscalls:/ { f = 1; next } /^[^ ]/ { f = 0 } f { for (i = 3; i <= NF; i++) if ($i ~ /getppid:/) { split($i, a, ":"); t += a[2] } } END { print t + 0 }')
check "kernel samples give call edges (getppid target $tgt, kernel samples ${kern:-0})" \
	sh -c "test ${kern:-0} -gt 50 && test \$(( $tgt * 10 )) -ge \$(( ${kern:-0} * 8 ))"
