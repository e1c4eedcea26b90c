#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Samples in the kernel by one rule in pgoprof record and pgoprof import
# (issue 31 item 5): each is counted in unattributed.kernel and, when its
# user stack is known, kept as a stack under the kernel mark, which
# report and diff show as [kernel].  A syscall-heavy program
# (tests/workloads/syscalls.c) under perf record -g, perf record
# --call-graph dwarf and pgoprof record: in each profile the [kernel]
# stacks are the kernel samples, counted the same way, so that diff's
# [kernel] row is the difference of the two runs' kernel shares and
# nothing else.  The assertions hold whatever the samples happen to be.
. "$(dirname "$0")/../lib.sh"

need_root import_kernel || exit 0
need_tool import_kernel perf linux-perf || exit 0
mkdir -p "$WORK/import_kernel" && cd "$WORK/import_kernel" || exit 1
rm -f ./*
gcc -O2 -g -fno-omit-frame-pointer -o syscalls "$TOP/tests/workloads/syscalls.c" ||
	{ fail gcc "gcc could not build tests/workloads/syscalls.c"; exit 0; }

counter() { "$PGOPROF" show "$1" | awk -v c="$2" '$1 == "counter" && $2 == c { print $4 + 0; f = 1 } END { if (!f) print 0 }'; }
# The samples in stacks whose leaf is the kernel mark, and in all stacks.
kstacks() { "$PGOPROF" show "$1" | awk '$1 == "stack" && $3 == "kernel" { n += $2 } END { print n + 0 }'; }
allstacks() { "$PGOPROF" show "$1" | awk '$1 == "stack" { n += $2 } END { print n + 0 }'; }

# perf 6.1 aborts now and then (see import.sh): six tries.
perf_rec() { # OUT ARGS...
	out=$1; shift
	for try in 1 2 3 4 5 6; do
		perf record -N -q -e cpu-clock -F 999 -o "$out" "$@" -- ./syscalls >/dev/null 2>perf.err &&
			perf script -i "$out" >"$out.txt" 2>/dev/null && return 0
		sleep 2
	done
	return 1
}

# perf record -g: what perf script prints of the file says which samples
# are in the kernel (leaf address ffff...) and which of them have user
# frames: the import must count the first and stack the second.
if ! perf_rec fp.data -g; then
	fail "perf record -g" "$(tail -n 2 perf.err | tr '\n' ' ')"; exit 0
fi
check "import perf record -g" "$PGOPROF" import -q fp.data -o fp.raw
set -- $(awk 'function flush() { if (nf && k) { n++; if (u) nu++ } nf = k = u = 0 }
	/^\t/ { nf++; if (nf == 1) k = ($1 ~ /^ffff/ && length($1) == 16); else if ($1 !~ /^ffff/ && $1 != "0") u = 1; next }
	{ flush() } END { flush(); print n + 0, nu + 0 }' fp.data.txt)
kall=$1 kuser=$2
check "perf script: $kall samples in the kernel, $kuser with user frames" test "$kuser" -gt 0
check "import: unattributed.kernel is perf's kernel samples ($(counter fp.raw unattributed.kernel) = $kall)" \
	test "$(counter fp.raw unattributed.kernel)" -eq "$kall"
check "import: [kernel] stacks are those with a user stack ($(kstacks fp.raw) = $kuser)" \
	test "$(kstacks fp.raw)" -eq "$kuser"
check "report shows them as [kernel]" sh -c \
	"'$PGOPROF' report -n 0 fp.raw | awk '\$NF == \"[kernel]\" && \$1 == $kuser { f = 1 } END { exit !f }'"
# --call-graph dwarf: the kernel samples' user registers (those that
# entered the kernel) and stack are unwound as for a user sample.
if perf_rec dwarf.data --call-graph dwarf; then
	check "import --call-graph dwarf" "$PGOPROF" import -q dwarf.data -o dwarf.raw
	dk=$(counter dwarf.raw unattributed.kernel); ds=$(kstacks dwarf.raw)
	check "dwarf import: $ds of $dk kernel samples unwound under [kernel]" \
		test "$dk" -gt 0 -a "$ds" -le "$dk" -a $((ds * 10)) -ge $((dk * 9))
else
	fail "perf record --call-graph dwarf" "$(tail -n 2 perf.err | tr '\n' ' ')"
fi

# pgoprof record of the same program: its kernel samples are stacks under
# the same mark (but those whose user stack was dropped or not copied,
# which it counts).
if ! "$PGOPROF" record -q -o rec.raw -- ./syscalls >/dev/null 2>rec.err; then
	fail "pgoprof record" "$(tail -n 1 rec.err)"; exit 0
fi
rk=$(counter rec.raw unattributed.kernel); rs=$(kstacks rec.raw)
rmiss=$(($(counter rec.raw kernel_stacks.dropped) + $(counter rec.raw unwind.no_stack)))
check "record: [kernel] stacks are its kernel samples ($rs of $rk, $rmiss without a stack)" \
	test "$rk" -gt 0 -a "$rs" -le "$rk" -a "$rs" -ge $((rk - rmiss))

# diff: the [kernel] row of each side is its kernel share (kernel stacks
# over all stacks, to 0.01%); before, the import's was 0.00%.
"$PGOPROF" diff rec.raw fp.raw >diff.txt 2>diff.err ||
	fail "pgoprof diff" "$(tail -n 1 diff.err)"
got=$(awk '$4 == "[kernel]" { sub(/%/, "", $1); sub(/%/, "", $2); print $1, $2 }' diff.txt)
want=$(awk -v a="$rs" -v na="$(allstacks rec.raw)" -v b="$kuser" -v nb="$(allstacks fp.raw)" \
	'BEGIN { printf "%.2f %.2f\n", 100 * a / na, 100 * b / nb }')
check "diff's [kernel] row is each side's kernel share (${got:-none}; want $want)" \
	test "$got" = "$want"
