#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A/B validation of a PGO build against its baseline: interleaved wall-time
# pairs with distribution-free statistics, a deterministic cachegrind proxy,
# a Markdown report and a regression gate.  Used by pgo/pgo.mk
# (make pgo-validate) and by bench/ab-time.sh.  Needs bash, awk, objcopy;
# valgrind for the proxy.  See docs/pgo.md.
set -u
export LC_ALL=C

usage() {
    cat <<USAGE
Usage: $0 [OPTIONS] --baseline BIN --candidate BIN [--] COMMAND
       $0 [OPTIONS] -- BASELINE_CMD... -- CANDIDATE_CMD...

Runs the baseline and the candidate interleaved RUNS times each, in pairs
whose order alternates (AB BA AB ...), after WARMUP untimed pairs, and
reports the verdict in words first (instructions, then wall time with its
interval), then median, min, max and spread (IQR/median) of the wall
times, and the median of the per-pair time ratios candidate/baseline with
a distribution-free confidence interval (order statistics).

First form: COMMAND is one shell command (sh -c) that runs the program as
"\$PGO_BINARY"; it runs once with PGO_BINARY=BIN of each side.  In this form
the cachegrind proxy (--proxy) can run too.  Second form (bench/ab-time.sh):
two argument vectors; the baseline cannot contain a literal '--'.

  -n RUNS          timed pairs (default 10)
  -w WARMUP        untimed pairs first (default 1)
  -t TOLERANCE     slowdown allowed before the gate fails, as a fraction of
                   the baseline (default 0.02 = 2%)
  -c LEVEL         confidence level in percent (default 95)
  -p, --proxy CMD  also run CMD (like COMMAND, with \$PGO_BINARY; give it a
                   reduced input) once per side under valgrind --tool=cachegrind
                   --cache-sim=yes --branch-sim=yes, on an objcopy --strip-debug
                   copy of each BIN, and report instructions (Ir), I1 misses,
                   branches and mispredictions
  -g, --gate MODE  what fails the run (exit 1): auto (default), time, ir,
                   both, none
                     time: the CI's lower bound of the time ratio is above
                           1 + TOLERANCE (the candidate is slower beyond noise)
                     ir:   the proxy's Ir ratio is above 1 + TOLERANCE
                     auto: time when its CI excludes 1 (a significant
                           difference decides), else ir; time alone
                           without --proxy
  -s, --strict     time gate also fails when the CI's upper bound is above
                   1 + TOLERANCE (a slowdown beyond TOLERANCE is not ruled out)
  -o DIR           write report.md, times.tsv, metrics.txt, verdict.txt and
                   the cachegrind files (cachegrind.*.out, logs) into DIR
  -T TITLE         report heading
  -q               no per-run progress on stderr

Exit status: 0 pass, 1 regression (per --gate), 2 usage error or a failed
command.
USAGE
}

die() { echo "validate: $*" >&2; exit 2; }

runs=10 warmup=1 tol=0.02 level=95 proxy='' gate=auto strict=0 outdir='' title='' quiet=0
base_bin='' cand_bin=''
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        -n|-w|-t|-c|-p|--proxy|-g|--gate|-o|-T|--baseline|--candidate)
            [ $# -ge 2 ] || die "$1 needs a value (see --help)"
            case $1 in
                -n) runs=$2 ;; -w) warmup=$2 ;; -t) tol=$2 ;; -c) level=$2 ;;
                -p|--proxy) proxy=$2 ;; -g|--gate) gate=$2 ;; -o) outdir=$2 ;;
                -T) title=$2 ;; --baseline) base_bin=$2 ;; --candidate) cand_bin=$2 ;;
            esac
            shift 2 ;;
        -s|--strict) strict=1; shift ;;
        -q) quiet=1; shift ;;
        --) shift; break ;;
        -*) usage >&2; die "unknown option '$1'" ;;
        *) break ;;
    esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer, got '$runs'"
[[ $warmup =~ ^[0-9]+$ ]] || die "WARMUP must be a non-negative integer, got '$warmup'"
[[ $tol =~ ^[0-9]*\.?[0-9]+$ ]] || die "TOLERANCE must be a non-negative number, got '$tol'"
[[ $level =~ ^[0-9]*\.?[0-9]+$ ]] && awk -v l="$level" 'BEGIN { exit !(l > 0 && l < 100) }' ||
    die "LEVEL must be a percentage between 0 and 100, got '$level'"
case $gate in auto|time|ir|both|none) ;; *) die "--gate must be auto, time, ir, both or none, got '$gate'" ;; esac

# The two commands, as argument vectors.
if [ -n "$base_bin$cand_bin" ]; then
    [ -n "$base_bin" ] && [ -n "$cand_bin" ] || die "--baseline and --candidate go together"
    [ $# -gt 0 ] || die "missing COMMAND (see --help)"
    cmd="$*"
    for b in "$base_bin" "$cand_bin"; do [ -x "$b" ] || die "no executable '$b'"; done
    base_bin=$(cd "$(dirname "$base_bin")" && pwd)/$(basename "$base_bin")
    cand_bin=$(cd "$(dirname "$cand_bin")" && pwd)/$(basename "$cand_bin")
    base=(env "PGO_BINARY=$base_bin" sh -c "$cmd")
    cand=(env "PGO_BINARY=$cand_bin" sh -c "$cmd")
    base_label=$base_bin cand_label=$cand_bin
else
    [ -z "$proxy" ] || die "--proxy needs the --baseline/--candidate form"
    base=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do base+=("$1"); shift; done
    [ $# -gt 0 ] || die "missing '--' between baseline and candidate commands (see --help)"
    shift
    cand=("$@")
    [ ${#base[@]} -gt 0 ] || die "empty baseline command (see --help)"
    [ ${#cand[@]} -gt 0 ] || die "empty candidate command (see --help)"
    base_label="${base[*]}" cand_label="${cand[*]}"
fi
case $gate in ir|both) [ -n "$proxy" ] || die "--gate $gate needs --proxy" ;; esac

# Work files: in -o DIR, else in a temporary directory removed at exit.
if [ -n "$outdir" ]; then
    mkdir -p "$outdir" || die "cannot create $outdir"
    W=$(cd "$outdir" && pwd)
    rm -f "$W"/cachegrind.* "$W"/report.md "$W"/verdict.txt "$W"/metrics.txt
    trap 'rm -f "$W"/base.nodebug "$W"/cand.nodebug "$W"/base.cachegrind.sh "$W"/cand.cachegrind.sh "$W/run.log"' EXIT
else
    W=$(mktemp -d) || die "mktemp failed"
    trap 'rm -rf "$W"' EXIT
fi
log=$W/run.log

# One run; prints nothing, sets $us to the wall time in microseconds.
# Aborts the script (status 2) when the command fails.
us=0
time_one() {
    local t0 t1 rc=0
    t0=${EPOCHREALTIME/./}
    "$@" >"$log" 2>&1 || rc=$?
    t1=${EPOCHREALTIME/./}
    if [ $rc -ne 0 ]; then
        { echo "validate: command failed with exit code $rc: $*"; tail -n 20 "$log"; } >&2
        exit 2
    fi
    us=$((t1 - t0))
}

load0=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null)
# Interleaved pairs; the order alternates so that neither side always runs
# second (warm caches, frequency ramps).
for ((i = 0; i < warmup; i++)); do
    time_one "${base[@]}"; time_one "${cand[@]}"
done
printf 'pair\torder\tbaseline_s\tcandidate_s\n' >"$W/times.tsv"
for ((i = 1; i <= runs; i++)); do
    if ((i % 2)); then
        time_one "${base[@]}"; tb=$us; time_one "${cand[@]}"; tc=$us; order=AB
    else
        time_one "${cand[@]}"; tc=$us; time_one "${base[@]}"; tb=$us; order=BA
    fi
    sb=$(printf '%d.%06d' $((tb / 1000000)) $((tb % 1000000)))
    sc=$(printf '%d.%06d' $((tc / 1000000)) $((tc % 1000000)))
    printf '%d\t%s\t%s\t%s\n' "$i" "$order" "$sb" "$sc" >>"$W/times.tsv"
    [ $quiet = 1 ] || echo "run $i/$runs: baseline ${sb}s candidate ${sc}s" >&2
done

# Statistics (awk, no sort(1) needed): "key value" lines.
#   median/min/max, q1/q3 (linear interpolation) and IQR/median per side;
#   per-pair ratios r_i = candidate_i / baseline_i, their median, and the
#   distribution-free CI of that median: [r_(k), r_(n+1-k)] with the largest
#   k such that 2 P(Bin(n, 1/2) <= k-1) <= 1 - LEVEL/100; its exact coverage
#   is 1 - 2 P(Bin(n, 1/2) <= k-1).  With too few pairs for LEVEL, k = 1
#   (min and max of the ratios) and the lower coverage is reported.
stats=$(awk -F'\t' -v level="$level" '
    function isort(a, n,   i, j, v) {
        for (i = 2; i <= n; i++) { v = a[i]; for (j = i - 1; j >= 1 && a[j] > v; j--) a[j + 1] = a[j]; a[j + 1] = v }
    }
    function q(a, n, p,   h, l) { h = (n - 1) * p + 1; l = int(h); return l >= n ? a[n] : a[l] + (h - l) * (a[l + 1] - a[l]) }
    function side(name, a, n,   m) {
        isort(a, n); m = q(a, n, 0.5)
        printf "%s_median %.6f\n%s_min %.6f\n%s_max %.6f\n", name, m, name, a[1], name, a[n]
        printf "%s_iqr_pct %.2f\n", name, (m > 0 ? 100 * (q(a, n, 0.75) - q(a, n, 0.25)) / m : 0)
        printf "%s_range_pct %.2f\n", name, (m > 0 ? 100 * (a[n] - a[1]) / m : 0)
        return m
    }
    NR > 1 { n++; b[n] = $3; c[n] = $4; r[n] = $3 > 0 ? $4 / $3 : 1 }
    END {
        mb = side("base", b, n); mc = side("cand", c, n)
        printf "ratio_of_medians %.6f\n", (mb > 0 ? mc / mb : 1)
        isort(r, n); printf "ratio_median %.6f\n", q(r, n, 0.5)
        alpha = 1 - level / 100
        # cdf[j] = P(Bin(n, 1/2) <= j), pmf computed in logs (no underflow).
        lp = n * log(0.5); cum = exp(lp); cdf[0] = cum
        for (j = 1; j <= n; j++) { lp += log((n - j + 1) / j); cum += exp(lp); cdf[j] = cum }
        k = 1
        while (k + 1 <= n + 1 - (k + 1) && 2 * cdf[k] <= alpha) k++
        printf "ci_k %d\nci_n %d\n", k, n
        printf "ci_low %.6f\nci_high %.6f\n", r[k], r[n + 1 - k]
        printf "ci_level %.1f\n", 100 * (1 - 2 * cdf[k - 1])
    }' "$W/times.tsv")
declare -A S
while read -r k v; do S[$k]=$v; done <<<"$stats"

# The deterministic proxy: one cachegrind run per side.
declare -A CG
cg_sum() { # SIDE: sums the summary lines of all cachegrind.SIDE.*.out
    awk '/^events:/ { n = split($0, e, " ") } /^summary:/ { for (i = 2; i <= n; i++) s[e[i]] += $i }
        END { printf "%.0f %.0f %.0f %.0f\n", s["Ir"], s["I1mr"], s["Bc"] + s["Bi"], s["Bcm"] + s["Bim"] }' \
        "$W"/cachegrind."$1".*.out
}
proxy_note=
if [ -n "$proxy" ]; then
    if ! command -v valgrind >/dev/null; then
        proxy_note="skipped: valgrind not found (apt-get install valgrind)"
        case $gate in ir|both) die "--gate $gate: $proxy_note" ;; esac
    else
        for s in base cand; do
            [ $s = base ] && bin=$base_bin || bin=$cand_bin
            # valgrind 3.19 cannot read clang-16's DWARF 5: same code, no debug info.
            objcopy --strip-debug "$bin" "$W/$s.nodebug" || die "objcopy --strip-debug $bin failed"
            cat >"$W/$s.cachegrind.sh" <<EOF
#!/bin/sh
exec valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes \\
    --cachegrind-out-file='$W/cachegrind.$s.%p.out' '$W/$s.nodebug' "\$@"
EOF
            chmod +x "$W/$s.cachegrind.sh"
            [ $quiet = 1 ] || echo "cachegrind: $s" >&2
            if ! PGO_BINARY=$W/$s.cachegrind.sh sh -c "$proxy" >"$W/cachegrind.$s.log" 2>&1; then
                tail -n 20 "$W/cachegrind.$s.log" >&2
                die "proxy command failed under cachegrind ($s), see above"
            fi
            ls "$W"/cachegrind.$s.*.out >/dev/null 2>&1 ||
                die "proxy command never ran \"\$PGO_BINARY\" (no cachegrind output for $s)"
            read -r CG[${s}_ir] CG[${s}_i1] CG[${s}_br] CG[${s}_bm] <<<"$(cg_sum $s)"
        done
    fi
fi

# Verdict (pgo/gate.sh: the rule, tested by tests/integration/gate.sh).
. "$(dirname "$0")/gate.sh"
if [ -n "${CG[base_ir]:-}" ]; then
    S[ir_ratio]=$(awk -v a="${CG[cand_ir]}" -v b="${CG[base_ir]}" 'BEGIN { printf "%.6f", (b > 0 ? a / b : 1) }')
fi
lo=${S[ci_low]} hi=${S[ci_high]}
pgo_gate "$gate" "$strict" "$tol" "$lo" "$hi" "${S[ir_ratio]:-}"

# Report.
spd() { awk -v r="$1" 'BEGIN { printf "%+.2f%%", (r > 0 ? (1 / r - 1) * 100 : 0) }'; } # ratio -> speedup
mdcmd() { local s="$*"; printf "\`%s\`" "${s//|/\\|}"; }
num() { echo "$1" | sed ':a; s/\B[0-9]\{3\}\>/,&/; ta'; }   # 1234567 -> 1,234,567
ch() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%+.2f%%", (a / b - 1) * 100; else print "n/a" }'; }
f4() { awk -v x="$1" 'BEGIN { printf "%.4f", x }'; }

report() {
    [ -z "$title" ] || { echo "## $title"; echo; }
    pgo_headline "${S[ci_level]}" "$lo" "$hi" "${S[ratio_median]}" "${S[ir_ratio]:-}"
    echo
    [ -z "${cmd:-}" ] || { echo "command: $(mdcmd "$cmd") with \`\$PGO_BINARY\` = each binary"; echo; }
    echo "| | binary / command | runs | median s | min s | max s | spread (IQR/median) |"
    echo "|---|---|---:|---:|---:|---:|---:|"
    echo "| baseline | $(mdcmd "$base_label") | $runs | $(f4 "${S[base_median]}") | $(f4 "${S[base_min]}") | $(f4 "${S[base_max]}") | ${S[base_iqr_pct]}% |"
    echo "| candidate | $(mdcmd "$cand_label") | $runs | $(f4 "${S[cand_median]}") | $(f4 "${S[cand_min]}") | $(f4 "${S[cand_max]}") | ${S[cand_iqr_pct]}% |"
    echo
    # The interval first; the point estimates are details (the headline
    # gives one only when the interval excludes 1).
    echo "per-pair time ratio (candidate/baseline, $runs interleaved pairs): ${S[ci_level]}% CI [$(f4 "$lo"), $(f4 "$hi")] (order statistics ${S[ci_k]} and $((runs + 1 - S[ci_k])) of $runs, distribution-free); median $(f4 "${S[ratio_median]}")"
    echo "details: ratio of the medians $(f4 "${S[ratio_of_medians]}") (ignores the pairing)"
    awk -v l="${S[ci_level]}" -v w="$level" 'BEGIN { if (l + 0.05 < w) printf "note: %d pairs give at most %.1f%% confidence; run more for %s%%\n", '"$runs"', l, w }'
    if [ -n "$proxy" ]; then
        echo
        echo "### deterministic proxy: cachegrind"
        echo
        echo "command: $(mdcmd "$proxy") (\`valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes\`, debug info stripped)"
        echo
        if [ -n "$proxy_note" ]; then
            echo "$proxy_note"
        else
            echo "| | instructions (Ir) | I1 misses | branches | mispredicts |"
            echo "|---|---:|---:|---:|---:|"
            echo "| baseline | $(num "${CG[base_ir]}") | $(num "${CG[base_i1]}") | $(num "${CG[base_br]}") | $(num "${CG[base_bm]}") |"
            echo "| candidate | $(num "${CG[cand_ir]}") | $(num "${CG[cand_i1]}") | $(num "${CG[cand_br]}") | $(num "${CG[cand_bm]}") |"
            echo "| change | $(ch "${CG[cand_ir]}" "${CG[base_ir]}") | $(ch "${CG[cand_i1]}" "${CG[base_i1]}") | $(ch "${CG[cand_br]}" "${CG[base_br]}") | $(ch "${CG[cand_bm]}" "${CG[base_bm]}") |"
            echo
            echo "Ir is the primary proxy; I1 misses and mispredicts (cachegrind's simple models) are secondary."
        fi
    fi
    echo
    echo "host: $(uname -n), $(nproc 2>/dev/null) CPUs, Linux $(uname -r); load average ${load0:-?} before the runs, $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?') after"
    echo "wall time: $time_verdict"
    [ -z "$ir_verdict" ] || echo "instructions: $ir_verdict"
    [ -n "$ir_verdict" ] || [ "$gate" != auto ] ||
        echo "instructions: no proxy ran; gate auto looked at the wall time alone"
    if [ "$gate" = none ]; then
        echo "verdict: none (no gate)"
    elif [ $fail = 1 ]; then
        echo "verdict: FAIL (regression in $(IFS=,; r="${reasons[*]}"; echo "${r//,/, }"); gate $gate, tolerance $tol)"
    else
        echo "verdict: PASS (gate $gate, tolerance $tol)"
    fi
}
report >"$W/report.md" || die "internal error while writing the report"
cat "$W/report.md"

if [ -n "$outdir" ]; then
    {
        echo "pgo_time_baseline_median_seconds ${S[base_median]}"
        echo "pgo_time_candidate_median_seconds ${S[cand_median]}"
        echo "pgo_time_ratio ${S[ratio_median]}"
        echo "pgo_time_ratio_ci_low $lo"
        echo "pgo_time_ratio_ci_high $hi"
        echo "pgo_speedup_percent $(spd "${S[ratio_median]}" | tr -d '%+')"
        if [ -n "${CG[base_ir]:-}" ]; then
            echo "pgo_ir_ratio ${S[ir_ratio]}"
            echo "pgo_i1_misses_ratio $(awk -v a="${CG[cand_i1]}" -v b="${CG[base_i1]}" 'BEGIN { printf "%.6f", (b > 0 ? a / b : 1) }')"
            echo "pgo_mispredicts_ratio $(awk -v a="${CG[cand_bm]}" -v b="${CG[base_bm]}" 'BEGIN { printf "%.6f", (b > 0 ? a / b : 1) }')"
        fi
        echo "pgo_regression $fail"
    } >"$W/metrics.txt"
    grep '^verdict:' "$W/report.md" >"$W/verdict.txt"
fi
exit $fail
