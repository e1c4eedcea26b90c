#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pgo-validate's regression gate (pgo/gate.sh), decided on given intervals
# and Ir ratios: every mode, and auto's rule that an inconclusive wall time
# leaves the verdict to the deterministic proxy.
. "$(dirname "$0")/../lib.sh"

command -v bash >/dev/null || { fail "gate: bash" "not found"; exit 0; }

# decide GATE STRICT LO HI IR -> "fail|reason;reason"
decide() {
	bash -c '. "$1/pgo/gate.sh"; shift; pgo_gate "$1" "$2" 0.02 "$3" "$4" "$5"
		 r=$(IFS=";"; echo "${reasons[*]}"); echo "$fail|$r"' _ "$TOP" "$@"
}
# expect NAME WANT GATE STRICT LO HI IR
expect() {
	name=$1 want=$2; shift 2
	got=$(decide "$@")
	if [ "$got" = "$want" ]; then pass "gate: $name"
	else fail "gate: $name" "pgo_gate $*: got '$got', want '$want'"; fi
}

# auto: the interval contains 1, Ir 5% up -> the proxy fails it
expect "auto, time inconclusive, Ir up: FAIL" "1|instructions (Ir; wall time inconclusive)" auto 0 0.97 1.04 1.05
expect "auto, time inconclusive, Ir down: PASS" "0|" auto 0 0.97 1.04 0.93
expect "auto, Ir up within tolerance: PASS" "0|" auto 0 0.97 1.04 1.01
# a difference the interval shows decides, whatever Ir says
expect "auto, significantly faster, Ir up: PASS" "0|" auto 0 0.90 0.97 1.05
expect "auto, significantly slower, Ir down: FAIL" "1|wall time" auto 0 1.05 1.10 0.95
expect "auto, slower within tolerance, Ir up: PASS" "0|" auto 0 1.005 1.03 1.05
expect "auto without a proxy: time alone" "0|" auto 0 0.97 1.04 ""
expect "auto without a proxy, slower: FAIL" "1|wall time" auto 0 1.05 1.10 ""
expect "auto, strict, upper bound over: FAIL" "1|wall time (strict)" auto 1 0.97 1.04 0.95
# the other modes, unchanged
expect "time ignores Ir" "0|" time 0 0.97 1.04 1.05
expect "ir ignores time" "0|" ir 0 1.05 1.10 0.99
expect "ir fails on Ir" "1|instructions (Ir)" ir 0 0.90 0.95 1.05
expect "both: both reasons" "1|wall time;instructions (Ir)" both 0 1.05 1.10 1.05
expect "none never fails" "0|" none 0 1.05 1.10 1.05

# The report's first line (pgo_headline): the verdict in words, the
# instructions first; no point estimate of the time when the interval
# contains 1, since the interval beside it would contradict it.
# headline LEVEL LO HI MEDIAN IR -> the line
headline() {
	bash -c '. "$1/pgo/gate.sh"; shift; pgo_gate auto 0 0.02 "$2" "$3" "$5" && pgo_headline "$@"' _ "$TOP" "$@"
}
# hexpect NAME WANT LEVEL LO HI MEDIAN IR
hexpect() {
	name=$1 want=$2; shift 2
	got=$(headline "$@")
	if [ "$got" = "$want" ]; then pass "headline: $name"
	else fail "headline: $name" "pgo_headline $*: got '$got', want '$want'"; fi
}
hexpect "interval contains 1: no time estimate, instructions first" \
	"result: the PGO build runs 8.4% fewer instructions; wall time: no significant difference (97.9% interval: 14.0% less to 5.2% more)" \
	97.9 0.8601 1.0515 0.7642 0.916137
hexpect "interval below 1: the estimate, then the interval" \
	"result: the PGO build runs 8.4% fewer instructions; wall time: 7.8% less (95.9% interval: 4.1% to 11.0% less)" \
	95.9 0.8900 0.9590 0.9220 0.916137
hexpect "interval above 1, more instructions" \
	"result: the PGO build runs 3.0% more instructions; wall time: 4.0% more (95.9% interval: 1.0% to 7.0% more)" \
	95.9 1.0100 1.0700 1.0400 1.030000
hexpect "no proxy: the wall time alone" \
	"result: the PGO build's wall time: no significant difference (93.8% interval: 2.0% less to 30.9% more)" \
	93.8 0.9800 1.3085 1.3085 ""
hexpect "the same instruction count" \
	"result: the PGO build runs as many instructions; wall time: 2.0% less (95.9% interval: 1.0% to 3.0% less)" \
	95.9 0.9700 0.9900 0.9800 1.0000

# validate.sh's report leads with that line, under the title, and has no
# headline "speedup" (whatever the timings: this checks the layout).
V=$OUT/work/gate-validate
rm -rf "$V"
bash "$TOP/pgo/validate.sh" -q -n 4 -w 0 -T title -o "$V" -- true -- true >/dev/null 2>&1
check "report: the verdict in words is its first line" sh -c \
	"sed -n 3p '$V/report.md' | grep -q \"^result: the PGO build's wall time: \""
check "report: no speedup line" sh -c "! grep -qi speedup '$V/report.md'"
check "report: the interval, then the median of the pair ratios" grep -q \
	'^per-pair time ratio (candidate/baseline, 4 interleaved pairs): [0-9.]*% CI \[[0-9.]*, [0-9.]*\] .*; median [0-9.]*$' "$V/report.md"
