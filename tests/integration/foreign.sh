#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pgoprof import of a perf.data recorded on another architecture: the
# user registers of --call-graph dwarf samples (x86-64's layout only, in
# proc/unwind.c) are not unwound, one line says so, the samples are
# counted in import.user_regs_foreign_arch, and their IP samples are the
# same as those of the file recorded here.  The foreign file is a real
# perf record --call-graph dwarf file whose HEADER_ARCH ("uname -m" of the
# recording host, tools/perf/util/header.c write_arch) is patched.
. "$(dirname "$0")/../lib.sh"

need_root foreign || exit 0
need_tool foreign perf linux-perf || exit 0
mkdir -p "$WORK/foreign" && cd "$WORK/foreign" || exit 1
rm -f ./*

# The u64 (u4: u32) at byte $2 of file $1.
u64() { od -An -t "${3:-u8}" -j "$2" -N "${4:-8}" "$1" | tr -d ' '; }
# patch_arch PERF.DATA ARCH: the HEADER_ARCH string (feature bit 6; the
# feature sections follow the data, one {offset, size} per set bit of the
# bitmap at byte 72, perf.data-file-format.txt) becomes ARCH, in place.
patch_arch() {
	data_end=$(($(u64 "$1" 40) + $(u64 "$1" 48)))
	bits=$(u64 "$1" 72)
	[ $((bits >> 6 & 1)) = 1 ] || return 1
	n=0
	for b in 0 1 2 3 4 5; do n=$((n + (bits >> b & 1))); done
	sec=$(u64 "$1" $((data_end + 16 * n)))
	[ ${#2} -lt "$(u64 "$1" "$sec" u4 4)" ] || return 1
	printf '%s\0' "$2" | dd of="$1" bs=1 seek=$((sec + 4)) conv=notrunc 2>/dev/null
}
counter() { "$PGOPROF" show "$1" | awk -v c="$2" '$1 == "counter" && $2 == c { print $4 }'; }
unwound() { "$PGOPROF" show "$1" | awk '$1 == "counter" && $2 ~ /^unwind\./ { n += $4 } END { print n + 0 }'; }
# Objects by build-ID, not index: unwinding adds objects (libc, reached
# only through call edges) that shift the indexes of the others.
ips() { "$PGOPROF" show "$1" | awk '$1 == "object" { o = $4 } $1 == "ip" { print o, $2, $3 }'; }

gcc -O2 -g -o lc_nofp "$TOP/tests/workloads/leafcall.c" -lpthread ||
	{ fail build "gcc could not build tests/workloads/leafcall.c"; exit 0; }
ok=0
for try in 1 2 3 4 5 6; do	# perf 6.1 aborts while another build-ID event is open
	perf record -N -q -e cpu-clock --call-graph dwarf -o here.data -- ./lc_nofp 100000 \
		>/dev/null 2>perf.err && ok=1 && break
	sleep 2
done
[ $ok = 1 ] || { fail "perf record --call-graph dwarf" "$(tail -n 2 perf.err | tr '\n' ' ')"; exit 0; }
cp here.data arm.data
check "patch HEADER_ARCH to aarch64" patch_arch arm.data aarch64

"$PGOPROF" import -q here.data -o here.raw 2>here.err
"$PGOPROF" import -q arm.data -o arm.raw 2>arm.err; rc=$?
here=$(unwound here.raw)
check "x86_64 file: its dwarf samples are unwound ($here), no warning" \
	test "$here" -gt 0 -a ! -s here.err -a -z "$(counter here.raw import.user_regs_foreign_arch)"
check "aarch64 file: imported (rc=$rc)" test $rc = 0 -a -s arm.raw
expect="pgoprof import: arm.data was recorded on aarch64: the user registers of its $here --call-graph dwarf samples are not unwound here (x86_64 only); their IP samples and call chains are kept"
check "aarch64 file: one line says so: $(cat arm.err)" test "$(cat arm.err)" = "$expect"
check "aarch64 file: import.user_regs_foreign_arch $(counter arm.raw import.user_regs_foreign_arch) = $here" \
	test "$(counter arm.raw import.user_regs_foreign_arch)" = "$here"
check "aarch64 file: nothing unwound" test "$(unwound arm.raw)" = 0
ips here.raw >here.ips
ips arm.raw >arm.ips
check "aarch64 file: the same $(wc -l <here.ips) IP samples as the x86_64 file" \
	sh -c "test -s here.ips && cmp -s here.ips arm.ips"
check "aarch64 file: meta kernel names aarch64" \
	sh -c "'$PGOPROF' show arm.raw | grep -q '^meta kernel = Linux .* aarch64$'"
