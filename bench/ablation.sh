#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The converter's rules on and off (issue 14): bench/quality.sh once per
# variant on the same recordings, then one table of Ir against -O2 and the
# fraction of the exact-count profile's reduction, per program x compiler.
set -euo pipefail

usage() {
    cat <<USAGE
Usage: $0 [-w W[,W]] [-c C[,C]] [-F HZ] [-R K] [-o FILE] [VARIANT...]

Runs 'bench/quality.sh -F HZ -R K -V NAME -X OPTS' for each variant (the
recordings, baseline, instrumented and exact builds are shared and cached
in bench/work/quality; a variant's builds are cached by its profiles), then
writes a Markdown table: one row per variant, per program x compiler the
median Ir change against -O2 over the K recordings, its spread, and the
fraction of the exact-count profile's reduction; the body overlap with the
exact profile ('pgoprof compare').

Variants (NAME: its options; all by default; defaults: pgo.mk's, as
bench/quality.sh builds them without -V):
$(for v in "${!VARIANTS[@]}"; do printf '  %-18s %s\n' "$v" "${VARIANTS[$v]}"; done | sort)

Options:
  -w, -c       programs and compilers, as bench/quality.sh (default all)
  -F HZ        the sampling rate (default 9999, pgo.mk's)
  -R K         recordings per variant (default 3)
  -o FILE      the Markdown (default bench/results/ablation.md; '-': stdout)
  -h, --help   this text
USAGE
}

# NAME -> quality.sh options (after -V NAME)
declare -A VARIANTS=(
    [defaults]=""
    [naive]="-X --estimator=sum --call-targets=stack"
    [sum-calls]="-X --estimator=sum --call-targets=calls"
    [sum-none]="-X --estimator=sum --call-targets=none"
    [sum-noprofi]="--no-profi -X --estimator=sum --call-targets=stack"
    [mean-stack]="-X --estimator=mean --call-targets=stack"
    [max-stack]="-X --estimator=max --call-targets=stack"
    [mean-calls]="-X --estimator=mean --call-targets=calls"
    [block-capped]="-X --estimator=block-capped --call-targets=calls"
    [flow-calls]="-X --estimator=flow --call-targets=calls"
    [flow-stack]="-X --estimator=flow --call-targets=stack"
    [flow-none]="-X --estimator=flow --call-targets=none"
    [flow-calls-noprofi]="--no-profi -X --estimator=flow --call-targets=calls"
)

die() { echo "ablation: $*" >&2; exit 1; }
REPO=$(cd "$(dirname "$0")/.." && pwd)
w=all c=all hz=9999 nrep=3 out=$REPO/bench/results/ablation.md sel=()
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        -w|-c|-F|-R|-o)
            [ $# -ge 2 ] || die "$1 needs a value (see --help)"
            case $1 in -w) w=$2 ;; -c) c=$2 ;; -F) hz=$2 ;; -R) nrep=$2 ;; -o) out=$2 ;; esac
            shift 2 ;;
        -*) usage >&2; die "unknown option '$1'" ;;
        *) [ -n "${VARIANTS[$1]+x}" ] || die "unknown variant '$1' (see --help)"; sel+=("$1"); shift ;;
    esac
done
[ ${#sel[@]} -gt 0 ] || mapfile -t sel < <(printf '%s\n' "${!VARIANTS[@]}" | sort)

# The option strings use '=' so that quality.sh's -X gets one word each.
tmp=$REPO/bench/work/quality/ablation	# each variant's quality.sh output
mkdir -p "$tmp"
for v in "${sel[@]}"; do
    read -ra extra <<<"${VARIANTS[$v]}"
    xo=() rest=()
    for ((i = 0; i < ${#extra[@]}; i++)); do
        if [ "${extra[i]}" = -X ]; then
            i=$((i + 1))
            while [ $i -lt ${#extra[@]} ] && [ "${extra[i]}" != --no-profi ]; do
                xo+=("${extra[i]}"); i=$((i + 1))
            done
            i=$((i - 1))
        else
            rest+=("${extra[i]}")
        fi
    done
    echo "== ablation $(date +%T): variant $v" >&2
    vopt=(-V "$v")
    [ "$v" = defaults ] && vopt=()	# the names of a plain quality.sh run
    bash "$REPO/bench/quality.sh" -w "$w" -c "$c" -F "$hz" -R "$nrep" -n 0 \
        "${vopt[@]}" ${xo[@]:+-X "${xo[*]}"} "${rest[@]}" -o "$tmp/$v.md" >"$tmp/$v.log" 2>&1 ||
        { tail -n 20 "$tmp/$v.log" >&2; die "quality.sh failed for variant $v"; }
done

# In the output, the notes written by hand start at this line and are kept.
NOTES_MARK='<!-- notes: written by hand, kept when bench/ablation.sh rewrites this file -->'

# "### bzip2, clang-16" sections; the row "| sampled HZ Hz (median ..." has
# | samples | Ir | Ir vs -O2 | spread | of exact | body | head | target |
cells() { # FILE -> "wl-cc med spread frac body" lines
    awk -v hz="$hz" '
        /^### / { sub(/^### /, ""); sub(/, /, "-"); cell = $0 }
        index($0, "| sampled " hz " Hz") == 1 {
            n = split($0, f, "|")
            printf "%s %s %s %s %s\n", cell, f[5], f[6], f[7], f[8]
        }' "$1" | sed 's/  */ /g'
}
{
    echo "## Converter ablation at $hz Hz ($(date -u +%F), pgoprof $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?'))"
    echo
    echo "Command: \`bench/ablation.sh -F $hz -R $nrep${sel:+ ${sel[*]}}\`; each variant is \`bench/quality.sh -V NAME\` with its options on the same $nrep recordings per program x compiler."
    echo "Cells: median Ir vs -O2 over the recordings [min..max] (fraction of the exact-count profile's reduction; body overlap with it)."
    echo
    cols=$(for v in "${sel[@]}"; do cells "$tmp/$v.md" | awk '{ print $1 }'; done | awk '!s[$0]++')
    printf '| variant | options |'; for k in $cols; do printf ' %s |' "$k"; done; echo
    printf '|---|---|'; for k in $cols; do printf -- '---|'; done; echo
    for v in "${sel[@]}"; do
        printf '| %s | `%s` |' "$v" "${VARIANTS[$v]:-(pgo.mk defaults)}"
        for k in $cols; do
            cells "$tmp/$v.md" | awk -v k="$k" '$1 == k { printf " %s [%s] (%s; %s) |", $2, $3, $4, $5; f = 1 } END { if (!f) printf " |" }'
        done
        echo
    done
    # what was written by hand below the marker stays
    [ "$out" = - ] || [ ! -f "$out" ] || awk -v m="$NOTES_MARK" 'index($0, m) == 1 { p = 1 } p' "$out"
} >"$tmp/table.md"
if [ "$out" = - ]; then cat "$tmp/table.md"; else mkdir -p "$(dirname "$out")"; mv "$tmp/table.md" "$out"; echo "ablation: wrote $out" >&2; fi
