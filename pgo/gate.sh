# SPDX-License-Identifier: GPL-2.0-only
# pgo_gate: the regression gate of pgo/validate.sh, one rule in one place
# (sourced; bash).  docs/pgo.md section 5 explains the modes.
#
# pgo_gate GATE STRICT TOL LO HI [IR_RATIO]
#   GATE      auto, time, ir, both or none
#   STRICT    1: the time gate also fails when HI > 1 + TOL
#   TOL       the slowdown allowed, a fraction (0.02 = 2%)
#   LO, HI    the confidence interval of the candidate/baseline time ratio
#   IR_RATIO  candidate/baseline instructions under cachegrind; empty when
#             no proxy ran
# Sets fail (0 or 1), reasons (the regressions found, an array),
# time_verdict and ir_verdict (one line each for the report; ir_verdict is
# empty without IR_RATIO), and time_dir: faster, slower (the interval
# excludes 1) or none (it contains 1), for pgo_headline.
#
# auto: a time difference that the interval shows (it excludes 1) decides;
# an inconclusive one (the interval contains 1) leaves it to the
# deterministic proxy, so a noisy runner cannot pass a build that executes
# more instructions.  Without a proxy, auto is time.

_gate_gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

pgo_gate() {
    local gate=$1 strict=$2 tol=$3 lo=$4 hi=$5 ir=${6:-} limit sig=1
    limit=$(awk -v t="$tol" 'BEGIN { printf "%.6f", 1 + t }')
    fail=0 reasons=() ir_verdict=
    if _gate_gt "$lo" "$limit"; then
        time_verdict="slower: the whole CI is above 1 + tolerance ($limit)" time_dir=slower
        case $gate in time|both|auto) fail=1; reasons+=("wall time") ;; esac
    elif _gate_gt 1 "$hi"; then
        time_verdict="faster: the whole CI is below 1" time_dir=faster
    elif _gate_gt "$lo" 1; then
        time_verdict="slower, within the tolerance (CI lower bound $lo <= $limit)" time_dir=slower
    else
        time_verdict="no significant difference (the CI contains 1)" time_dir=none
        sig=0
    fi
    if [ "$strict" = 1 ] && [ $fail = 0 ] && _gate_gt "$hi" "$limit"; then
        time_verdict="$time_verdict; strict: a slowdown beyond $limit is not ruled out (CI upper bound $hi)"
        case $gate in time|both|auto) fail=1; reasons+=("wall time (strict)") ;; esac
    fi
    [ -n "$ir" ] || return 0
    if ! _gate_gt "$ir" "$limit"; then
        ir_verdict="Ir ratio $ir <= $limit"
        return 0
    fi
    ir_verdict="more instructions: Ir ratio $ir > $limit"
    case $gate in
    ir|both) fail=1; reasons+=("instructions (Ir)") ;;
    auto) [ $sig = 1 ] || { fail=1; reasons+=("instructions (Ir; wall time inconclusive)"); } ;;
    esac
}

# pgo_headline LEVEL LO HI MEDIAN [IR_RATIO], after pgo_gate (it reads
# time_dir): prints the report's first line, the verdict in words: the
# change in instructions (IR_RATIO, candidate/baseline), then the wall
# time's, with its LEVEL% interval [LO, HI] of the time ratio.  The point
# estimate MEDIAN is given only when the interval excludes 1: a "+30%"
# that the interval beside it contradicts is what a reader remembers.
pgo_headline() {
    awk -v level="$1" -v lo="$2" -v hi="$3" -v med="$4" -v ir="${5:-}" -v dir="$time_dir" '
        function pct(r) { r = (r - 1) * 100; return sprintf("%.1f%%", r < 0 ? -r : r) }
        function word(r) { return r < 1 ? "less" : "more" }
        BEGIN {
            iv = level "% interval: "
            if (dir == "none")
                t = "no significant difference (" iv pct(lo) " " word(lo) " to " pct(hi) " " word(hi) ")"
            else if (dir == "faster")
                t = pct(med) " less (" iv pct(hi) " to " pct(lo) " less)"
            else
                t = pct(med) " more (" iv pct(lo) " to " pct(hi) " more)"
            if (ir == "") { print "result: the PGO build'"'"'s wall time: " t; exit }
            d = (ir - 1) * 100
            i = d <= -0.05 ? sprintf("%.1f%% fewer", -d) : d >= 0.05 ? sprintf("%.1f%% more", d) : "as many"
            print "result: the PGO build runs " i " instructions; wall time: " t
        }'
}
