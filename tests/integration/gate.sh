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
