#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Interleaved A/B wall-clock timing of two commands.  A front end of
# pgo/validate.sh, which does the timing and the statistics, here without
# its regression gate.
set -eu

usage() {
    cat <<USAGE
Usage: $0 [-n RUNS] [-w WARMUP] -- BASELINE_CMD... -- CANDIDATE_CMD...

Runs baseline and candidate interleaved RUNS times each (default 10), in
pairs whose order alternates (A B, B A, A B ...), after WARMUP untimed pairs
(default 1), and prints a Markdown table of median/min/max wall time and
spread plus the candidate/baseline ratio of medians, the median of the
per-pair ratios with a distribution-free confidence interval, and the
speedup. Command output goes to a log that is shown only if a command fails.
The baseline command cannot contain a literal '--'; wrap it in
sh -c '...' if it needs one. Exits non-zero if any run fails. Never fails
on a slowdown: for that (and for the cachegrind proxy) use pgo/validate.sh.

Example:
    $0 -n 5 -- ./speedtest1.base --memdb -- ./speedtest1.pgo --memdb
USAGE
}

case ${1:-} in -h|--help) usage; exit 0 ;; esac
exec bash "$(dirname "$0")/../pgo/validate.sh" --gate none "$@"
