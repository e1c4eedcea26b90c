#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pprof out and in (docs/pprof.md), on a synthesized profile of
# tests/workloads/hot linked by lld (so that its code's ELF virtual
# addresses are not its file offsets) and libhot.so: perf script text with
# known addresses imports to a raw profile with stacks, then
# - pgoprof show --format pprof writes pprof that 'go tool pprof' reads:
#   -top -noinlines gives the self samples per function that pgoprof show
#   --binary gives for the raw profile, -traces the inline chain
#   innermost first, -raw the mapping of the PT_LOAD segment, -list a
#   function's source (Function.filename, start_line), and its
#   own symbolizer (-symbolize=force) finds the same functions;
# - pgoprof import of it gives the same stacks, IPs and edges; so does
#   the file re-encoded by 'go tool pprof -proto' (Google's encoder);
# - Go's own CPU profile (tests/workloads/gospin.go) imports and converts,
#   its callers' addresses (return address - 1) made return addresses;
# - a truncated or garbage file fails in one line naming it, writing
#   nothing; so does one of 31 M empty samples, "too large", in little
#   memory;
# - as root, a recording of hot converts and go tool pprof's top function
#   is hot_loop.
. "$(dirname "$0")/../lib.sh"

D=$WORK/pprof
rm -rf "$D"; mkdir -p "$D"; cd "$D" || exit 1

if ! $CLANG $PROF_CFLAGS -fPIC -shared -o libhot.so "$TOP/tests/workloads/libhot.c" 2>cc.err ||
   ! $CLANG $PROF_CFLAGS -fuse-ld=lld -fPIE -pie -o hot "$TOP/tests/workloads/hot.c" \
	-L. -lhot -Wl,-rpath,"$D" 2>>cc.err; then
	fail "build hot with lld" "$(head -n 2 cc.err | tr '\n' ' ')"
	exit 0
fi
bid() { readelf -n "$1" | awk '/Build ID/ { print $3 }'; }
sym() { nm "$1" | awk -v f="$2" '$3 == f { print $1 }'; }
# The address after the call to $2 in main of $1 (a return address).
after_call() {
	objdump -d --no-show-raw-insn "$1" | awk -v f="<$2>" '/<main>:/ { m = 1 } m && /^$/ { m = 0 }
		m && c { sub(/:.*/, ""); gsub(/ /, ""); print; exit } m && $NF == f { c = 1 }'
}
first_imul() {
	objdump -d --no-show-raw-insn "$1" | awk '/<hot_loop>:/ { m = 1 } m && /^$/ { exit }
		m && /imul/ { sub(/:.*/, ""); gsub(/ /, ""); print; exit }'
}
# Runtime addresses: hot at 0x555555554000, libhot.so's text page at
# 0x7f0000001000 (file page 0x1000).
rt() { printf '%x' $((0x555555554000 + 0x$1)); }
lt() { printf '%x' $((0x7f0000000000 + 0x$1)); }
stack() { # COUNT ADDRESS...
	n=$1; shift; i=0
	while [ $i -lt "$n" ]; do
		printf 'hot 100/100 10.%06d:     250000 cpu-clock: \n' $((1000 + i))
		for a in "$@"; do printf '\t%16s x (y)\n' "$a"; done
		printf '\n'; i=$((i + 1))
	done
}
leaf=$(first_imul hot) ret_hot=$(after_call hot hot_loop) ret_lib=$(after_call hot lib_mix@plt)
ret_cold=$(after_call hot cold_path) cold=$(sym hot cold_path) lib=$(sym libhot.so lib_mix)
if [ -z "$leaf" ] || [ -z "$ret_hot" ] || [ -z "$ret_lib" ] || [ -z "$ret_cold" ] || [ -z "$lib" ]; then
	fail "addresses of hot" "imul $leaf, calls $ret_hot $ret_lib $ret_cold, lib_mix $lib"
	exit 0
fi
{
	printf 'hot 100/100 10.000100: PERF_RECORD_MMAP2 100/100: [0x555555555000(0x1000) @ 0 <%s>]: r-xp %s\n' \
		"$(bid hot)" "$D/hot"
	printf 'hot 100/100 10.000200: PERF_RECORD_MMAP2 100/100: [0x7f0000001000(0x1000) @ 0x1000 <%s>]: r-xp %s\n' \
		"$(bid libhot.so)" "$D/libhot.so"
	stack 50 "$(rt "$leaf")" "$(rt "$ret_hot")"
	stack 30 "$(lt "$lib")" "$(rt "$ret_lib")"
	stack 5 "$(rt "$cold")" "$(rt "$ret_cold")"
} >hot.txt
"$PGOPROF" import -q hot.txt -o hot.raw 2>import.err
check "the synthesized profile imports, with stacks" sh -c "'$PGOPROF' show hot.raw | grep -q '^stack 50 '"

tables() { "$PGOPROF" show "$1" | grep '^object \|^  ip \|^  edge \|^stack '; }
same() { # NAME A.RAW B.RAW
	tables "$2" >"$2.t"; tables "$3" >"$3.t"
	if [ -s "$2.t" ] && cmp -s "$2.t" "$3.t"; then pass "$1 ($(grep -c '^stack' "$2.t") stacks)"
	else fail "$1" "$(diff "$2.t" "$3.t" | head -n 4 | tr '\n' ' ')"; fi
}

"$PGOPROF" show --format pprof -o hot.pb.gz hot.raw --binary hot --binary libhot.so 2>show.err; rc=$?
check "show --format pprof: rc=$rc, both objects symbolized" sh -c \
	"test $rc = 0 && grep -q '2 of 2 objects symbolized' show.err && test -s hot.pb.gz"
check "the file is gzip" sh -c "gzip -t hot.pb.gz"
"$PGOPROF" show --format pprof -o found.pb.gz hot.raw 2>found.err
check "without --binary, each object's recorded file is used (its build-ID matches)" \
	grep -q '2 of 2 objects symbolized' found.err

"$PGOPROF" import -q hot.pb.gz -o back.raw 2>back.err
same "raw -> pprof -> raw: the same stacks, IPs and edges" hot.raw back.raw

head -c 200 hot.pb.gz >truncated.pb.gz
"$PGOPROF" import -q truncated.pb.gz -o t.raw 2>t.err; rc=$?
check "a truncated gzip file: rc=$rc, one line naming it, no output" sh -c \
	"test $rc = 1 && test \$(wc -l <t.err) = 1 && grep -q 'truncated.pb.gz: truncated gzip' t.err && ! test -e t.raw"
head -c 300 /dev/urandom | tr '\012' '\377' >garbage.pb
printf '\012\377\377\377' >>garbage.pb
"$PGOPROF" import -q garbage.pb -o g.raw 2>g.err; rc=$?
check "a garbage protobuf: rc=$rc, one line naming it, no output" sh -c \
	"test $rc = 1 && test \$(wc -l <g.err) = 1 && grep -q 'garbage.pb: ' g.err && ! test -e g.raw"
gzip -dc hot.pb.gz >plain.pb
"$PGOPROF" import -q plain.pb -o plain.raw 2>/dev/null
same "uncompressed pprof imports the same" hot.raw plain.raw

# 31 M empty samples (field 2, length 0, 2 bytes each): 60 KB of gzip,
# 60 MiB of protobuf that libprotobuf-c would unpack into 3.7 GB, a
# message each.  Refused by the count before unpacking, with the peak a
# little over the inflated 60 MiB; under ulimit -v so that a regression
# fails here instead of taking the machine's memory.  The same with 8 M
# in 16 MiB of uncompressed protobuf shaped as a Profile (a string "", a
# sample type), told pprof by its content.
printf '\022\000' >pair
i=0; while [ $i -lt 19 ]; do cat pair pair >pair2 && mv pair2 pair; i=$((i + 1)); done
i=0; while [ $i -lt 60 ]; do cat pair; i=$((i + 1)); done | gzip -1 >empty.pb.gz
{ printf '\062\000\012\000'; i=0; while [ $i -lt 16 ]; do cat pair; i=$((i + 1)); done; } >empty-plain
rm -f pair
# A sanitizer build (make check SANITIZE=1) maps terabytes of shadow
# memory, so ulimit -v cannot bound it: ASan's own RSS limit does.
ASAN_LIB=$(ldd "$PGOPROF" 2>/dev/null | awk '/libasan/ { print $3 }')
bounded() { # COMMAND...: exec'd within 1 GB
	if [ -n "$ASAN_LIB" ]; then
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=1000" exec "$@"
	fi
	ulimit -v 1000000; exec "$@"
}
for f in empty.pb.gz:31 empty-plain:8; do
	m=${f#*:} f=${f%:*} rss=
	if [ -x /usr/bin/time ]; then
		(bounded /usr/bin/time -f %M -o $f.rss "$PGOPROF" import -q $f -o $f.raw 2>$f.err)
		rc=$?; rss=$(tail -n 1 $f.rss)
	else
		(bounded "$PGOPROF" import -q $f -o $f.raw 2>$f.err); rc=$?
	fi
	check "$m M empty samples in $(wc -c <$f) bytes ($f): rc=$rc, 'too large' in one line naming it, no output, peak ${rss:-unmeasured} KB" sh -c \
		"test $rc = 1 && test \$(wc -l <$f.err) = 1 && grep -q '^pgoprof import: $f: too large: [0-9]* samples' $f.err &&
		 ! test -e $f.raw && test ${rss:-0} -lt 200000"
done
rm -f empty-plain

if ! command -v go >/dev/null 2>&1; then
	echo "SKIP pprof go tool: go is not installed (Debian: golang-go)"
	exit 0
fi
export GOCACHE="$D/gocache" HOME="$D"
# Self samples per function from the symbolizer: pgoprof show --binary.
"$PGOPROF" show hot.raw --binary hot >self.txt 2>/dev/null
"$PGOPROF" show hot.raw --binary libhot.so >>self.txt 2>/dev/null
awk '$1 != "#" { n[$4] += $3 } END { for (f in n) print n[f], f }' self.txt | sort >self.top
go tool pprof -top -noinlines hot.pb.gz 2>/dev/null >top.txt
awk '$1 ~ /^[0-9]+$/ && $1 > 0 { print $1, $6 }' top.txt | sort >go.top
check "go tool pprof -top: the same self samples per function as the raw profile ($(tr '\n' ' ' <self.top))" \
	sh -c "test -s self.top && cmp self.top go.top"
# pprof's own symbolizer reads the binaries again at the mappings'
# addresses: the same functions if address - memory_start + file_offset
# is the file offset.
# pgoprof report and go tool pprof -top (inlined functions as their own
# entries) give every function the same self (flat) and total (cum)
go tool pprof -top hot.pb.gz 2>/dev/null | awk '$1 ~ /^[0-9]+$/ { print $1, $4, $6 }' | sort >go.funcs
"$PGOPROF" report hot.raw --binary hot --binary libhot.so --limit 0 2>/dev/null |
	awk '/^#/ { n++ } n == 3 && $1 ~ /^[0-9]+$/ { print $1, $3, $5 }' | sort >report.funcs
check "go tool pprof -top: the same functions, self and total, as pgoprof report ($(wc -l <report.funcs) functions)" \
	sh -c "test -s report.funcs && cmp report.funcs go.funcs"
go tool pprof -symbolize=force -top -noinlines hot.pb.gz 2>/dev/null >force.txt
awk '$1 ~ /^[0-9]+$/ && $1 > 0 { print $1, $6 }' force.txt | sort >force.top
check "go tool pprof -symbolize=force (its own symbolizer, from the mappings) agrees" \
	sh -c "test -s self.top && cmp self.top force.top"
go tool pprof -traces hot.pb.gz 2>/dev/null >traces.txt
check "go tool pprof -traces: mix inlined in hot_loop, called from main, 50 times" sh -c \
	"grep -A2 '^ *50 *mix (inline)' traces.txt | tr '\n' ' ' | tr -s ' ' | grep -q 'mix (inline) hot_loop main'"
# Functions name their file: -list shows hot_loop's source, the call of
# mix (line 28, inlined) with its 50 samples.
go tool pprof -list '^hot_loop$' hot.pb.gz 2>/dev/null >list.txt
check "go tool pprof -list hot_loop: its source from $TOP/tests/workloads/hot.c, 50 samples at line 28" sh -c \
	"grep -q 'ROUTINE.* hot_loop in $TOP/tests/workloads/hot.c' list.txt &&
	 grep -q '^ *\\. *50 *28:.*h = mix(h' list.txt"
set -- $(readelf -lW hot | awk '$1 == "LOAD" && /R E/ { print $2, $3, $6 }')
seg=$(printf '%x/%x/%x' $(($2)) $(($2 + $3)) $(($1)))
go tool pprof -raw hot.pb.gz 2>/dev/null >raw.txt
check "the Mapping of hot is its executable PT_LOAD ($seg)" sh -c \
	"grep -q \"^1: 0x$(echo "$seg" | sed 's|/|/0x|g') $D/hot $(bid hot) \\[FN\\]\\[FL\\]\\[LN\\]\\[IN\\]\" raw.txt"
go tool pprof -proto hot.pb.gz >google.pb.gz 2>/dev/null
"$PGOPROF" import -q google.pb.gz -o google.raw 2>google.err
same "go tool pprof -proto (Google's encoder) imports to the same stacks" hot.raw google.raw

# Go's own CPU profile (runtime/pprof): callers' addresses are the call's
# (return address - 1), which import makes return addresses again, so that
# convert finds the calls (edges) main.main -> main.spin.
if go build -o gospin "$TOP/tests/workloads/gospin.go" 2>go.err && ./gospin go.pb.gz; then
	"$PGOPROF" import go.pb.gz -o go.raw 2>goimp.err
	check "a Go CPU profile imports, taken as Go's (call addresses)" grep -q "written by Go's runtime/pprof" goimp.err
	"$PGOPROF" convert go.raw --binary gospin --format llvm-text -o go.txt 2>goconv.err
	n=$(fn_total go.txt main.spin)
	check "it converts: main.spin has ${n:-no} samples" test "${n:-0}" -gt 0
	calls=$(sed -n 's/.*: \([0-9]*\) of [0-9]* stack edges became call targets/\1/p' goconv.err)
	"$PGOPROF" import -q --caller-addresses return go.pb.gz -o goret.raw 2>/dev/null
	"$PGOPROF" convert goret.raw --binary gospin --format llvm-text -o /dev/null 2>goret.err
	ret=$(sed -n 's/.*: \([0-9]*\) of [0-9]* stack edges became call targets/\1/p' goret.err)
	check "its callers' edges become call targets ($calls; taken as return addresses: $ret)" \
		sh -c "test '${calls:-0}' -gt 0 && test '${ret:-0}' -lt '${calls:-0}'"
else
	fail "go build and run tests/workloads/gospin.go" "$(head -n 2 go.err | tr '\n' ' ')"
fi

if [ "$(id -u)" != 0 ]; then
	echo "SKIP pprof record: needs root for BPF"
	exit 0
fi
if ! "$PGOPROF" record -q -o rec.raw -- ./hot 1 6 >/dev/null 2>rec.err; then
	fail "pgoprof record of hot" "$(tail -n 2 rec.err | tr '\n' ' ')"
	exit 0
fi
"$PGOPROF" show -q --format pprof -o rec.pb.gz rec.raw 2>/dev/null
go tool pprof -top -noinlines rec.pb.gz 2>/dev/null >rec.top
check "a recording of hot: go tool pprof's top function is hot_loop" sh -c \
	"awk '\$1 ~ /^[0-9]/ { print \$6; exit }' rec.top | grep -qx hot_loop"
check "its type is cpu/nanoseconds (sample_freq of the recording)" grep -q '^Type: cpu' rec.top
"$PGOPROF" import -q rec.pb.gz -o rec.back.raw 2>/dev/null
same "a recording: raw -> pprof -> raw gives the same stacks" rec.raw rec.back.raw
