#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pgoprof import of perf script text: the text that perf script prints of
# a perf.data gives the same raw profile as the perf.data itself (IP
# samples, edges, ranges, branches, samples.taken and unattributed.*;
# META and the counters text cannot carry are left out of the
# comparison: docs/raw-format.md, "perf script text").  Call chains of
# perf record -g of tests/workloads/hot, with the documented field sets;
# branch stacks of build/bench/lbrgen (perf record -b without LBR
# hardware), as llvm-profgen reads them; the text import converts to a
# profile llvm-profdata reads; a bad line is named by its number.
. "$(dirname "$0")/../lib.sh"

need_root perfscript || exit 0
need_tool perfscript perf linux-perf || exit 0
build_workloads || { fail build_workloads "clang-16 could not build tests/workloads"; exit 0; }
D=$WORK/perfscript
mkdir -p "$D" && cd "$D" || exit 1
rm -f ./*

# perf 6.1 aborts now and then on this machine (perf record while another
# event with build-IDs is open, perf script with "stack smashing
# detected"; tests/integration/import.sh): a run that failed is retried.
retry() { for try in 1 2 3 4 5 6; do "$@" && return 0; sleep 2; done; return 1; }
# script PERF.DATA OUT ARGS...: perf script ARGS of PERF.DATA into OUT.
script() { _in=$1 _out=$2; shift 2; perf script -i "$_in" "$@" >"$_out" 2>/dev/null; }
# record OUT ARGS... -- COMMAND: perf record, and a perf script that reads it.
record() { _out=$1; shift; perf record -N -q -o "$_out" "$@" >/dev/null 2>perf.err &&
	script "$_out" /dev/null; }

# The raw profile without META and the counters text cannot carry.
tables() { "$PGOPROF" show "$1" | grep -v '^#\|^meta \|^counter duration_ms \|^counter import\.'; }
# same NAME A.RAW B.RAW WHAT: A and B have the same tables, with WHAT in them.
same() {
	tables "$2" >"$2.show"; tables "$3" >"$3.show"
	_n=$(grep -c "$4" "$2.show")
	if [ "$_n" -gt 0 ] && cmp -s "$2.show" "$3.show"; then
		pass "$1 ($_n ${4#^  } records, samples.taken $(grep '^counter samples.taken' "$2.show" | cut -d' ' -f4))"
	else
		fail "$1" "$_n ${4#^  } records; $(diff "$2.show" "$3.show" | head -n 4 | tr '\n' ' ')"
	fi
}
meta() { "$PGOPROF" show "$1" | awk -v k="$2" '$1 == "meta" && $2 == k { sub(/^meta [^ ]* = /, ""); print }'; }

# ---- (1) call chains: perf record -g ----
if retry record hot.data -e cpu-clock -g -- ../hot 1; then
	check "import the perf.data" "$PGOPROF" import -q hot.data -o data.raw
	# The documented command line, and others perf users have.
	i=0
	for fields in "pid,tid,ip,sym,dso --show-task-events" \
		      "comm,pid,tid,time,period,event,ip,sym,dso --show-task-events --header" \
		      "ip,sym,dso" "pid,ip,dso"; do
		i=$((i + 1))
		# shellcheck disable=SC2086
		if retry script hot.data hot$i.txt -F $fields --show-mmap-events; then
			"$PGOPROF" import -q hot$i.txt -o text$i.raw 2>text$i.err
			same "-F $fields: same IPs and edges as the perf.data" data.raw text$i.raw '^  edge'
		else
			fail "perf script -F $fields" "failed 3 times"
		fi
	done
	check "the text import says where it came from" sh -c \
		"test '$(meta text1.raw input)' = perf-script && test '$(meta text1.raw source)' = hot1.txt && test -z '$(meta data.raw input)'"
	check "--header gives the perf.data's host, kernel, recorder and event" sh -c \
		"for k in host kernel recorder perf_cmdline event sample_freq mode; do
			test \"\$('$PGOPROF' show data.raw | grep \"^meta \$k = \")\" = \"\$('$PGOPROF' show text2.raw | grep \"^meta \$k = \")\" || exit 1; done"
	"$PGOPROF" import -q -o stdin.raw - <hot1.txt
	same "perf script text on standard input" text1.raw stdin.raw '^  ip'
	cp hot1.txt hot1.data.txt
	check "--input-format perf-script" "$PGOPROF" import -q --input-format perf-script hot1.data.txt -o forced.raw
	"$PGOPROF" import -q --input-format perf-data hot1.txt -o wrong.raw 2>wrong.err; rc=$?
	check "--input-format perf-data of text: not a perf.data file (rc=$rc)" sh -c \
		"test $rc = 1 && grep -q 'hot1.txt: byte 0: not a perf.data file' wrong.err && ! test -e wrong.raw"

	# (3) the text import converts, and llvm-profdata reads the result.
	check "convert the text import" "$PGOPROF" convert -q text1.raw --binary ../hot -o text1.prof
	check "llvm-profdata reads it, with hot_loop" sh -c \
		"'$PROFDATA' show --sample text1.prof >text1.show && grep -q '^Function: hot_loop: [1-9]' text1.show"

	# (4) a bad line: its number and what is wrong, exit 1, no output.
	k=$(grep -n 'PERF_RECORD_MMAP2' hot1.txt | sed -n 2p | cut -d: -f1)
	awk -v k="$k" 'NR == k { sub(/ @ /, " @@ ") } { print }' hot1.txt >bad.txt
	"$PGOPROF" import bad.txt -o bad.raw 2>bad.err; rc=$?
	check "a bad MMAP2 line: 'line $k', exit 1, no output (rc=$rc)" sh -c \
		"test $rc = 1 && test \$(wc -l <bad.err) = 1 && grep -q '^pgoprof import: bad.txt: line $k: not a PERF_RECORD_MMAP2 line' bad.err && ! test -e bad.raw"
	grep -v PERF_RECORD hot1.txt >nommap.txt
	"$PGOPROF" import nommap.txt -o bad.raw 2>bad.err; rc=$?
	check "text without --show-mmap-events: says so, exit 1 (rc=$rc)" sh -c \
		"test $rc = 1 && grep -q 'nommap.txt: line 1: a sample before any PERF_RECORD_MMAP line: run perf script with --show-mmap-events' bad.err && ! test -e bad.raw"
else
	fail "perf record -g" "$(tail -n 2 perf.err | tr '\n' ' ')"
fi

# perf record --buildid-mmap: the build-IDs are in the MMAP2 lines, so no
# file of this machine is read for them.
if retry record bid.data --buildid-mmap -e cpu-clock -g -- ../hot 1 &&
   retry script bid.data bid.txt -F pid,tid,ip,sym,dso --show-mmap-events --show-task-events; then
	"$PGOPROF" import -q --no-local-files bid.data -o bid.data.raw
	"$PGOPROF" import -q --no-local-files bid.txt -o bid.text.raw
	same "build-IDs from the MMAP2 lines (--no-local-files)" bid.data.raw bid.text.raw '^  edge'
	check "no object known by its path alone" sh -c "! '$PGOPROF' show bid.text.raw | grep -q '^object .* path-md5 .*/hot '"
else
	fail "perf record --buildid-mmap" "$(tail -n 2 perf.err | tr '\n' ' ')"
fi

# ---- (2) branch stacks: lbrgen writes perf record -b files ----
LBRGEN=$TOP/build/bench/lbrgen
if make -s -C "$TOP" build/bench/lbrgen >lbrgen.log 2>&1 &&
   $CLANG -O2 -g -fdebug-info-for-profiling -o dispatch "$TOP/tests/lbrsynth/progs/dispatch.c" >cc.log 2>&1 &&
   "$LBRGEN" -q -n 2000 -s 3 -o lbr.data dispatch &&
   "$LBRGEN" -q -g -n 2000 -s 3 -o lbrcc.data dispatch; then
	"$PGOPROF" import -q lbr.data -o lbr.data.raw
	# what llvm-profgen reads
	if script lbr.data lbr.txt -F ip,brstack --show-mmap-events; then
		"$PGOPROF" import -q lbr.txt -o lbr.text.raw
		same "-F ip,brstack: same branches as the perf.data" lbr.data.raw lbr.text.raw '^  branch'
		same "-F ip,brstack: same ranges as the perf.data" lbr.data.raw lbr.text.raw '^  range'
		check "mode import-lbr" test "$(meta lbr.text.raw mode)" = import-lbr
		check "convert the branch-record text import" "$PGOPROF" convert -q lbr.text.raw --binary dispatch -o lbr.prof
		check "llvm-profdata reads it, with main" sh -c \
			"'$PROFDATA' show --sample lbr.prof >lbr.show && grep -q '^Function: main: [1-9]' lbr.show"
	else
		fail "perf script -F ip,brstack"
	fi
	if script lbr.data lbr2.txt -F pid,tid,event,ip,sym,dso,brstack --show-mmap-events; then
		"$PGOPROF" import -q lbr2.txt -o lbr2.text.raw
		same "-F pid,tid,event,ip,sym,dso,brstack: same branches" lbr.data.raw lbr2.text.raw '^  branch'
	else
		fail "perf script -F pid,tid,event,ip,sym,dso,brstack"
	fi
	"$PGOPROF" import -q lbrcc.data -o lbrcc.data.raw
	if script lbrcc.data lbrcc.txt -F pid,tid,ip,sym,dso --show-mmap-events; then
		"$PGOPROF" import -q lbrcc.txt -o lbrcc.text.raw
		same "lbrgen --callchain: same IPs and edges" lbrcc.data.raw lbrcc.text.raw '^  edge'
	else
		fail "perf script of lbrgen --callchain"
	fi
else
	fail "lbrgen" "$(tail -n 2 lbrgen.log cc.log 2>/dev/null | tr '\n' ' ')"
fi
