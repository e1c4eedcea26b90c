#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The branch-record synthesizer (tests/lbrsynth): single-stepped test
# programs give LBR-like samples as a raw profile, a perf.data file and
# perf-script text, plus exact instruction counts.  The real consumers
# (perf script, llvm-profgen-16, pgoprof show) must read them, the three
# must agree, and the exact counts must match the programs' known counts.
. "$(dirname "$0")/../lib.sh"

PROFGEN=${PROFGEN:-/usr/lib/llvm-16/bin/llvm-profgen}
D=$WORK/lbrsynth
if ! CLANG=$CLANG sh "$TOP/tests/lbrsynth/build.sh" "$D" >"$OUT/lbrsynth-build.log" 2>&1; then
	fail "build lbrsynth" "$(tail -n 3 "$OUT/lbrsynth-build.log" | tr '\n' ' ')"
	exit 0
fi
pass "build lbrsynth and its test programs"
cd "$D" || exit 1

# hex -> number, for mawk (no strtonum).
AWKHEX='function hex(s,  i, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v }'

# exec_seg BIN: "p_offset p_vaddr" (decimal) of the first executable PT_LOAD.
exec_seg() {
	readelf -lW "$1" | awk "$AWKHEX"'$1 == "LOAD" && / R E / { print hex($2), hex($3); exit }'
}
# sym_off BIN SYM: file offset (decimal) of a symbol (in the exec segment).
sym_off() {
	set -- "$1" "$2" $(exec_seg "$1")
	nm "$1" | awk "$AWKHEX"'$3 == "'"$2"'" { print hex($1) - '"$4"' + '"$3"'; exit }'
}
# truth BIN: "offset count" (decimal) of BIN's instructions in P.truth.txt.
truth() {
	awk "$AWKHEX"'$1 == "object" { o = $3; next } /^#/ { next }
		{ n = split(o, p, "/") } p[n] == "'"$1"'" { print hex($1), $2 }' "$1.truth.txt"
}
# count_at BIN OFFSET: exact execution count of the instruction at OFFSET.
count_at() { truth "$1" | awk -v o="$2" '$1 == o { c = $2 } END { print c + 0 }'; }
counter() { "$PGOPROF" show "$1" | awk -v n="$2" '$1 == "counter" && $2 == n { print $4 }'; }

# run NAME ARGS...: the program untraced and traced; same output and status.
run() {
	prog=$1; shift
	"./progs/$prog" "$@" >"$prog.expected"; want=$?
	./lbrsynth -n 1009 -o "$prog" $SYNTH_OPTS -- "./progs/$prog" "$@" >"$prog.out" 2>"$prog.err"; rc=$?
	sed 's/^/    /' "$prog.err"
	if [ $rc -eq $want ] && cmp -s "$prog.out" "$prog.expected"; then
		pass "$prog: traced run gives the program's output and status"
	else
		fail "$prog: traced run" "status $rc (want $want): $(tail -n 2 "$prog.err" | tr '\n' ' ')"
		return 1
	fi
}

# The checks every program gets.
common() { # NAME FUNCTION-WITH-SAMPLES
	prog=$1
	check "$prog: all outputs written" test -s "$prog.raw" -a -s "$prog.perf.data" \
		-a -s "$prog.script.txt" -a -s "$prog.truth.raw" -a -s "$prog.truth.txt"

	# perf reads the perf.data and prints exactly our perf-script text.
	perf script --show-mmap-events -F ip,brstack -i "$prog.perf.data" >"$prog.perf.txt" 2>"$prog.perf.err"
	check "$prog: perf script reads the perf.data" test -s "$prog.perf.txt"
	check "$prog: perf script prints our perf-script text byte for byte" cmp "$prog.perf.txt" "$prog.script.txt"
	check "$prog: perf.data samples have 32-entry branch stacks" sh -c \
		"awk 'NF == 33 { n++ } END { exit !n }' '$prog.perf.txt'"

	# llvm-profgen accepts the text and makes a profile with samples.
	check "$prog: llvm-profgen reads the perf-script text" \
		"$PROFGEN" --binary "progs/$prog" --perfscript "$prog.script.txt" --format=text --output "$prog.prof"
	check "$prog: llvm-profgen profile has $2 with samples" sh -c \
		"awk -F: '/^[^ ]/ && \$1 == \"$2\" && \$2 > 0 { n++ } END { exit !n }' '$prog.prof'"

	# pgoprof reads the raw profiles.
	check "$prog: pgoprof show reads the raw profile" sh -c \
		"'$PGOPROF' show '$prog.raw' >'$prog.raw.txt' && grep -q '^meta mode = lbr-synth' '$prog.raw.txt'"
	check "$prog: pgoprof show reads the ground truth" sh -c \
		"'$PGOPROF' show '$prog.truth.raw' >'$prog.truth.show' && grep -q '^meta mode = exact-counts' '$prog.truth.show'"
	nsamp=$(grep -vc PERF_RECORD "$prog.script.txt")
	taken=$(counter "$prog.raw" samples.taken)
	check "$prog: samples.taken ($taken) = samples in the text ($nsamp)" test "${taken:-0}" -eq "$nsamp" -a "$nsamp" -gt 0
	attributed=$(awk '$1 == "object" { s += $8 } END { print s + 0 }' "$prog.raw.txt")
	unattr=$(awk '$1 == "counter" && $2 ~ /^unattributed\./ { s += $4 } END { print s + 0 }' "$prog.raw.txt")
	check "$prog: samples.taken = IP samples ($attributed) + unattributed ($unattr)" \
		test "$taken" -eq $((attributed + unattr))
	insns=$(counter "$prog.truth.raw" instructions)
	sum=$(awk '$1 == "range" { s += $3 } END { print s + 0 }' "$prog.truth.show")
	uninsn=$(awk '$1 == "counter" && $2 ~ /^instructions\.unattributed\./ { s += $4 } END { print s + 0 }' "$prog.truth.show")
	check "$prog: exact counts add up to the instructions retired ($insns)" \
		test "${insns:-0}" -gt 0 -a "${insns:-0}" -eq $((sum + uninsn))

	# The same samples through both paths: every range and branch that
	# llvm-profgen derives (in the binary) has our raw profile's count.
	# llvm-profgen's offsets are from the first executable segment.
	"$PROFGEN" --binary "progs/$prog" --perfscript "$prog.script.txt" --skip-symbolization \
		--output "$prog.unsym" 2>/dev/null
	set -- $(exec_seg "progs/$prog")
	awk "$AWKHEX"'
		FNR == 1 { f++ }
		f == 1 && $1 == "object" { n = split($6, p, "/"); mine = p[n] == "'"$prog"'"; if (mine) idx = $2 }
		f == 1 && mine && $1 == "range" { split($2, a, "-")
			r[hex(a[1]) - '"$1"' " " hex(a[2]) - '"$1"'] = $3 }
		f == 1 && mine && $1 == "branch" { split($4, t, ":")
			if (t[1] == idx) b[hex($2) - '"$1"' " " hex(t[2]) - '"$1"'] = $5 }
		f == 2 && /^[0-9]+$/ { sec++; next }
		f == 2 && sec == 1 { split($0, x, /[-:]/); k = hex(x[1]) " " hex(x[2]); n1++
			if (r[k] != x[3]) { bad++; if (bad < 4) print "range", $0, "ours", r[k] } }
		f == 2 && sec == 2 && $0 !~ /^ffffffff/ { split($0, x, /->|:/); k = hex(x[1]) " " hex(x[2]); n2++
			if (b[k] != x[3]) { bad++; if (bad < 4) print "branch", $0, "ours", b[k] } }
		END { print n1 + 0, "ranges", n2 + 0, "branches", bad + 0, "differ"; exit bad || !n1 }
	' "$prog.raw.txt" "$prog.unsym" >"$prog.agree" 2>&1
	check "$prog: llvm-profgen's ranges and branches = the raw profile's ($(tail -n 1 "$prog.agree"))" \
		sh -c "awk 'END { exit \$5 != 0 || \$1 == 0 }' '$prog.agree'"
}

# 1. loops, traced from the first instruction of the dynamic loader.
ITERS=3000
SYNTH_OPTS=
if run loops $ITERS; then
	common loops body
	off=$(sym_off progs/loops body)
	check "loops: body() entry ran exactly $ITERS times" test "$(count_at loops "$off")" -eq $ITERS
	# Line counts by the max-per-line rule: the LOOP-BODY line ran ITERS times.
	line=$(grep -n '/\* LOOP-BODY \*/' "$TOP/tests/lbrsynth/progs/loops.c" | cut -d: -f1)
	set -- $(exec_seg progs/loops)
	truth loops | awk -v d=$(($2 - $1)) '{ printf "%x %d\n", $1 + d, $2 }' >loops.vaddr
	cut -d' ' -f1 loops.vaddr | addr2line -e progs/loops | sed 's/ (discriminator [0-9]*)//' |
		paste -d' ' - loops.vaddr |
		awk '{ if ($3 > m[$1]) m[$1] = $3 } END { for (l in m) print l, m[l] }' >loops.lines
	got=$(awk -v l="loops.c:$line" '{ n = split($1, p, "/") } p[n] == l { print $2 }' loops.lines)
	check "loops: exact count of the LOOP-BODY line (${got:-none}) = $ITERS" test "${got:-0}" -eq $ITERS
	check "loops: ld.so startup was traced" sh -c "grep -q '^object .*/ld-linux' loops.truth.txt"
fi

# 2. dispatch: a jump table and an indirect call; the loader runs untraced.
SYNTH_OPTS=--skip-startup
if run dispatch 2000; then
	common dispatch step
	check "dispatch: step() entry ran exactly 2000 times" \
		test "$(count_at dispatch "$(sym_off progs/dispatch step)")" -eq 2000
	for f in op_add op_sub op_mul op_xor; do
		check "dispatch: $f (called indirectly) ran exactly 500 times" \
			test "$(count_at dispatch "$(sym_off progs/dispatch $f)")" -eq 500
	done
	check "dispatch: the indirect calls are IND_CALL branches" grep -q '/IND_CALL ' dispatch.script.txt
	# ld.so still runs (lazy binding, exit), but not its ~100k-instruction startup.
	ldso=$(awk '$1 == "object" { o = $3; next } /^#/ { next } o ~ /ld-linux/ { s += $2 } END { print s + 0 }' dispatch.truth.txt)
	check "dispatch: --skip-startup left out ld.so's startup ($ldso ld.so instructions)" test "$ldso" -lt 30000
fi

# 3. libcall: calls into libc, and libc's qsort calling back.
if run libcall 10; then
	common libcall main
	calls=$(awk '{ print $2 }' libcall.expected)
	check "libcall: cmp_long (called from libc) ran exactly as often as it counted ($calls)" \
		test "$(count_at libcall "$(sym_off progs/libcall cmp_long)")" -eq "${calls:-0}"
	check "libcall: libc.so.6 has branches and exact counts" sh -c \
		"grep -q '^object .*/libc.so.6' libcall.truth.txt && grep -q 'path .*/libc.so.6 .* branches [1-9]' libcall.raw.txt"
fi
