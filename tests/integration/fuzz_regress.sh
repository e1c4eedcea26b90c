#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every input that once crashed a fuzz target (tests/fuzz/regress/TARGET/)
# runs again through that target, built with ASan and UBSan: with libFuzzer
# when a clang has it (build/fuzz/fuzz_TARGET FILE runs one input), else
# with the plain driver tests/fuzz/driver.c (build/fuzz/plain/fuzz_TARGET).
# One PASS/FAIL line per file.  FUZZ_PLAIN=1 uses the plain driver anyway.
. "$(dirname "$0")/../lib.sh"
cd "$TOP" || exit 1
REGRESS=tests/fuzz/regress
LOG=$OUT/fuzz_regress
mkdir -p "$LOG"

targets=
for d in "$REGRESS"/*/; do
	[ -d "$d" ] && [ -n "$(ls -A "$d")" ] && targets="$targets $(basename "$d")"
done
if [ -z "$targets" ]; then
	pass "fuzz regression inputs: none yet"
	exit 0
fi

has_libfuzzer() {
	printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' |
		"$1" -x c -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1
}
FUZZ_CC=${FUZZ_CC:-}
[ "${FUZZ_PLAIN:-0}" = 1 ] && FUZZ_CC=none
if [ -z "$FUZZ_CC" ]; then
	for c in clang-16 clang; do
		if command -v $c >/dev/null && has_libfuzzer $c; then FUZZ_CC=$c; break; fi
	done
fi
[ "$FUZZ_CC" = none ] && FUZZ_CC=
if [ -n "$FUZZ_CC" ]; then
	how="libFuzzer ($FUZZ_CC)"
	bins=$(for t in $targets; do echo build/fuzz/fuzz_$t; done)
	dir=build/fuzz
	set -- FUZZ_CC="$FUZZ_CC"
else
	how="the plain driver (${FUZZ_PLAIN_CC:-cc})"
	bins=$(for t in $targets; do echo build/fuzz/plain/fuzz_$t; done)
	dir=build/fuzz/plain
	set --
fi
if ! make -s -f tests/fuzz/fuzz.mk -j2 "$@" $bins >"$LOG/build.log" 2>&1; then
	fail "build the fuzz targets with $how" "$(tail -n 3 "$LOG/build.log" | tr '\n' ' ')"
	exit 0
fi
pass "build the fuzz targets with $how"

for t in $targets; do
	for f in "$REGRESS/$t"/*; do
		[ -f "$f" ] || continue
		name="$t/$(basename "$f")"
		log="$LOG/$t-$(basename "$f").log"
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
			timeout 30 "$dir/fuzz_$t" -timeout=10 -rss_limit_mb=2048 \
			-malloc_limit_mb=512 "$f" </dev/null >"$log" 2>&1
		rc=$?
		if [ $rc -eq 0 ]; then
			pass "fuzz regression $name"
		else
			why=$(grep -m 1 -E '(==[0-9]+== ?ERROR|runtime error|SUMMARY|fuzz check failed)' "$log" | cut -c 1-200)
			[ $rc -eq 124 ] && why="timed out after 30 s"
			fail "fuzz regression $name" "${why:-exit status $rc} (log: $log)"
		fi
	done
done
