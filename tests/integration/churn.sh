#!/bin/sh
# Processes that come and go: several hundred short-lived processes of one
# binary under record -a, each a few milliseconds of CPU; at least 95% of
# their samples must be attributed to the binary by build-ID.  Also two
# processes of one PIE at different load addresses, and a binary deleted
# and replaced while it runs.
. "$(dirname "$0")/../lib.sh"

need_root churn || exit 0
cd "$WORK" || exit 1
$CLANG -O2 -g -fno-omit-frame-pointer -fPIE -pie -o burst "$TOP/tests/workloads/burst.c" ||
	{ fail "build burst"; exit 0; }

counter() { "$PGOPROF" show "$1" | awk -v n="$2" '$1 == "counter" && $2 == n { print $4 }'; }
samples_in() { "$PGOPROF" show "$1" --binary "$2" 2>/dev/null | awk 'NR > 1 { s += $3 } END { print s + 0 }'; }

"$TOP/pgoprof-record" -q -a -o churn.raw 2>/dev/null & rpid=$!
sleep 0.5
i=0; while [ $i -lt 300 ]; do ./burst; i=$((i + 1)); done
kill -INT $rpid; wait $rpid
in_burst=$(samples_in churn.raw burst)
missed=$(counter churn.raw unattributed.no_mapping)
check "record -a: 300 short processes, ${in_burst} samples attributed, ${missed:-0} without a mapping (>= 95%)" \
	sh -c "test ${in_burst:-0} -gt 0 && test \$(( ${in_burst:-0} * 100 )) -ge \$(( (${in_burst:-0} + ${missed:-0}) * 95 ))"

# Two processes of one PIE at different load addresses (ASLR): both count.
"$PGOPROF" record -q -o two.raw -- sh -c './hot 1 >/dev/null & ./hot 1 >/dev/null; wait' 2>/dev/null
one=$(samples_in hot.raw hot); two=$(samples_in two.raw hot)
check "two processes of one PIE both count (${two} vs ${one} for one)" \
	sh -c "test \$(( ${two:-0} * 10 )) -ge \$(( ${one:-1} * 17 ))"

# A binary deleted and replaced while it runs: the running one is still
# found (through /proc/PID/map_files), by its own build-ID.
cp hot hot.victim
./hot.victim 3 >/dev/null & vpid=$!
sleep 0.3
rm -f hot.victim && cp burst hot.victim
"$PGOPROF" record -q -p $vpid -d 1 -o deleted.raw 2>/dev/null
kill $vpid 2>/dev/null; wait $vpid 2>/dev/null
check "a deleted and replaced binary is attributed by its own build-ID" \
	sh -c "test \$('$PGOPROF' show deleted.raw --binary hot | awk 'NR > 1 { s += \$3 } END { print s + 0 }') -gt 100"
