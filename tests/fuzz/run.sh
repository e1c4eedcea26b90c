#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Build the fuzz targets (tests/fuzz/fuzz.mk) into build/fuzz/ and run each
# for SECONDS (default 60), one after the other, on its corpus
# tests/fuzz/corpus/<target>/ (made by seeds.sh when empty; new inputs are
# added to it) and its regression inputs tests/fuzz/regress/<target>/.
# Prints one summary line per target; exit status 1 if any target crashed
# (its input: build/fuzz/artifacts/<target>/, log: build/fuzz/logs/).
# Usage: tests/fuzz/run.sh [SECONDS] [TARGET...]  (default: every target
# of fuzz.mk's FUZZ_TARGETS)
# Environment: FUZZ_CC (default: clang-16, else clang, whichever has
# libFuzzer), FUZZ_FLAGS (more libFuzzer flags, e.g. -jobs=2, or
# -runs=N, which may end a target before SECONDS).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
SECS=${1:-60}
[ $# -gt 0 ] && shift
# Default: every target of fuzz.mk.
TARGETS=${*:-$(make -s --no-print-directory -f tests/fuzz/fuzz.mk fuzz-targets)}
[ -n "$TARGETS" ] || { echo "fuzz: no targets (make -f tests/fuzz/fuzz.mk fuzz-targets)" >&2; exit 2; }
B=build/fuzz

# The first compiler that links a libFuzzer program.
has_libfuzzer() {
	printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' |
		"$1" -x c -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1
}
if [ -z "${FUZZ_CC:-}" ]; then
	for c in clang-16 clang; do
		if command -v $c >/dev/null && has_libfuzzer $c; then FUZZ_CC=$c; break; fi
	done
fi
if [ -z "${FUZZ_CC:-}" ]; then
	echo "fuzz: no clang with libFuzzer (Debian: apt-get install clang-16 libclang-rt-16-dev)" >&2
	exit 2
fi

for t in $TARGETS; do
	if [ -z "$(ls -A "tests/fuzz/corpus/$t" 2>/dev/null)" ]; then
		echo "fuzz: making seed corpora (tests/fuzz/seeds.sh)" >&2
		sh tests/fuzz/seeds.sh
		break
	fi
done

mkdir -p $B/logs
if ! make -s -f tests/fuzz/fuzz.mk -j2 FUZZ_CC="$FUZZ_CC" \
	$(for t in $TARGETS; do echo $B/fuzz_$t; done) >$B/logs/build.log 2>&1; then
	cat $B/logs/build.log >&2
	echo "fuzz: build failed" >&2
	exit 2
fi

crashed=0
total=0
for t in $TARGETS; do
	corpus=tests/fuzz/corpus/$t
	art=$B/artifacts/$t
	log=$B/logs/$t.log
	mkdir -p "$corpus" "$art"
	seeds=
	[ -d tests/fuzz/regress/$t ] && seeds=tests/fuzz/regress/$t
	t0=$(cut -d' ' -f1 /proc/uptime)
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	"$B/fuzz_$t" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 \
		-malloc_limit_mb=512 -close_fd_mask=3 -print_final_stats=1 \
		-artifact_prefix="$art/" ${FUZZ_FLAGS:-} "$corpus" $seeds \
		</dev/null >"$log" 2>&1
	rc=$?
	secs=$(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.0f", b - a }')
	execs=$(awk '/^stat::number_of_executed_units:/ { n = $2 } END { print n + 0 }' "$log")
	new=$(awk '/^stat::new_units_added:/ { n = $2 } END { print n + 0 }' "$log")
	files=$(ls "$corpus" | wc -l)
	total=$((total + execs))
	if [ $rc -eq 0 ]; then
		echo "fuzz_$t: $execs executions in $secs s, $new new inputs ($files in corpus), no crash"
	else
		crashed=1
		what=$(grep -m 1 -E '^(==[0-9]+== ?ERROR|SUMMARY|.*runtime error)' "$log" | cut -c 1-160)
		input=$(sed -n 's/.*Test unit written to \(.*\)/\1/p' "$log" | tail -n 1)
		echo "fuzz_$t: CRASH after $execs executions in $secs s: ${what:-exit status $rc}; input: ${input:-none} (log: $log)"
	fi
done
echo "fuzz: $total executions in all"
exit $crashed
