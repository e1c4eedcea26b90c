#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pgoprof import -j N (issue 17): the samples added up on several threads
# give byte for byte the raw profile of -j1, the one-thread path, on
# inputs that exercise what could make them differ: branch records (lbrgen,
# several thousand samples: many batches; and a file larger than the
# reading window), call chains, a perf record -g
# of several processes that start, fork, exec and map libraries while
# others are sampled (mappings that change mid-file), a sample that fails
# to decode in the middle of the file (the same message, the same exit
# status), and a sample at time 0 (which the threads leave to one
# thread).  And the default -j is the online CPUs.
. "$(dirname "$0")/../lib.sh"

LBRGEN=$TOP/build/bench/lbrgen
D=$WORK/import_jobs
mkdir -p "$D" && cd "$D" || exit 1
rm -f ./*
if ! make -s -C "$TOP" build/bench/lbrgen >build.log 2>&1; then
	fail "build lbrgen" "$(tail -n 3 build.log | tr '\n' ' ')"; exit 0
fi
if ! $CLANG -O2 -g -o dispatch "$TOP/tests/lbrsynth/progs/dispatch.c" >cc.log 2>&1 ||
   ! "$LBRGEN" -q -n 20000 -s 5 -o lbr.data dispatch >gen.log 2>&1 ||
   ! "$LBRGEN" -q --callchain -n 20000 -s 5 -o chain.data dispatch >>gen.log 2>&1 ||
   ! "$LBRGEN" -q -n 70000 -s 7 -o long.data dispatch >>gen.log 2>&1; then
	fail "make the test inputs" "$(tail -n 3 cc.log gen.log | tr '\n' ' ')"; exit 0
fi

# same_jobs NAME FILE: -j1, -j2, -j3 and -j8 give the same exit status,
# the same messages and the same bytes.
same_jobs() {
	"$PGOPROF" import -j1 -o "$2.j1.raw" "$2" >"$2.j1.out" 2>&1
	rc1=$?
	for j in 2 3 8; do
		"$PGOPROF" import -j$j -o "$2.j$j.raw" "$2" >"$2.j$j.out" 2>&1
		rc=$?
		sed "s/\.j$j\.raw/.j1.raw/" "$2.j$j.out" >"$2.j$j.msg"
		if [ $rc != $rc1 ]; then
			fail "$1" "-j$j exits $rc, -j1 $rc1: $(tail -n 1 "$2.j$j.out")"; return
		elif ! cmp -s "$2.j1.out" "$2.j$j.msg"; then
			fail "$1" "-j$j prints '$(head -c 300 "$2.j$j.msg")', -j1 '$(head -c 300 "$2.j1.out")'"; return
		elif [ $rc1 = 0 ] && ! cmp -s "$2.j1.raw" "$2.j$j.raw"; then
			fail "$1" "-j$j and -j1 write different raw profiles"; return
		elif [ $rc1 != 0 ] && [ -e "$2.j$j.raw" ]; then
			fail "$1" "-j$j failed but wrote $2.j$j.raw"; return
		fi
	done
	pass "$1"
}
counter() { "$PGOPROF" show "$1" | awk -v n="$2" '$1 == "counter" && $2 == n { print $4 }'; }

same_jobs "branch records: -j1 = -j2 = -j3 = -j8" lbr.data
n=$(counter lbr.data.j1.raw samples.taken)
if [ "$n" = 20000 ]; then pass "the branch records' 20000 samples are all counted"
else fail "the branch records' 20000 samples are all counted" "samples.taken $n"; fi
same_jobs "call chains: -j1 = -j2 = -j3 = -j8" chain.data
# 57 MB: the reading window (16 MiB) moves while batches still point
# into its old buffers (import/perfdata/jobs.c pd_jobs_window).
same_jobs "branch records over several windows: -j1 = -j2 = -j3 = -j8" long.data

# The default: as many threads as CPUs, the same profile.
"$PGOPROF" import -q -o lbr.default.raw lbr.data &&
	check "the default -j gives -j1's profile" cmp lbr.default.raw lbr.data.j1.raw
"$PGOPROF" import -j0 -o x.raw lbr.data >j0.out 2>&1
if [ $? = 2 ] && grep -q -- "-j 0: give a number of threads" j0.out; then pass "-j0 is refused"
else fail "-j0 is refused" "$(cat j0.out)"; fi

# patch FILE NTH FIELD VALUE: in lbrgen's perf.data FILE (IP, TID, TIME,
# PERIOD, BRANCH_STACK), the NTH sample's u64 FIELD (2: time, 4: the
# number of branch records) becomes VALUE.
patch() {
	python3 - "$@" <<'EOF'
import struct, sys
path, nth, field, value = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
with open(path, 'r+b') as f:
    data = f.read()
    off, size = struct.unpack_from('<QQ', data, 40)
    end, seen = off + size, 0
    while off < end:
        typ, misc, sz = struct.unpack_from('<IHH', data, off)
        if typ == 9:
            seen += 1
            if seen == nth:
                f.seek(off + 8 + 8 * field)
                f.write(struct.pack('<Q', value))
                sys.exit(0)
        off += sz
sys.exit(1)
EOF
}
if need_tool "corrupted samples" python3 python3; then
	cp lbr.data bad.data && patch bad.data 12345 4 1000000 &&
		same_jobs "a bad sample in the middle: the same message and status" bad.data
	grep -q "branch stack of 1000000 entries does not fit" bad.data.j1.out &&
		pass "the bad sample is named" ||
		fail "the bad sample is named" "$(cat bad.data.j1.out)"
	cp lbr.data zero.data && patch zero.data 15000 2 0 &&
		same_jobs "a sample at time 0 in the middle: the same profile" zero.data
fi

# Real perf record -g: processes that start (exec, mmap of their
# libraries), fork and end while others are sampled, at a high rate.
need_root "perf record -g of several processes" || exit 0
need_tool "perf record -g of several processes" perf linux-perf || exit 0
build_workloads || { fail build_workloads "clang-16 could not build tests/workloads"; exit 0; }
# About 1.2 s of CPU in five processes (hot 1 N: N rounds of 45 ms).
cat >run.sh <<EOF
"$WORK/hot" 1 8 >/dev/null & "$WORK/libcspin" 30000000 >/dev/null &
"$WORK/hot" 1 4 >/dev/null; sh -c '"$WORK/hot" 1 4 >/dev/null & wait'
"$WORK/libcspin" 20000000 >/dev/null; wait
EOF
ok=0
for try in 1 2 3 4 5 6; do
	perf record -N -q -e cpu-clock -F 10000 -g -o multi.data -- sh run.sh >/dev/null 2>perf.err &&
		{ ok=1; break; }
done
[ $ok = 1 ] || { fail "perf record -g of several processes" "$(tail -n 2 perf.err | tr '\n' ' ')"; exit 0; }
# What the file holds: samples of several processes, and mappings that
# come after samples of another process.
perf script -i multi.data --show-mmap-events -F pid,event 2>/dev/null |
	awk '/MMAP/ { if (s) late++; next } { s++; pid[$1] = 1 }
	     END { for (p in pid) np++; print s + 0, np + 0, late + 0 }' >shape.txt
read -r ns np late <shape.txt
if [ "$ns" -ge 3000 ] && [ "$np" -ge 3 ] && [ "$late" -ge 1 ]; then
	pass "perf record -g: $ns samples of $np processes, $late mappings after the first sample"
else
	fail "perf record -g: at least 3000 samples, 3 processes, mappings after samples" "$ns samples, $np processes, $late late mappings"
fi
same_jobs "perf record -g of several processes: -j1 = -j2 = -j3 = -j8" multi.data
