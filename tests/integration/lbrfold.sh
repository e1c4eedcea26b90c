#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The branch-stack rule (docs/raw-format.md section 3.4) has two homes:
# the kernel side of pgoprof-record (bpf/record.bpf.c fold_branches, with
# the collector's collector/lbrcollect.c) and pgoprof import
# (import/samples.c samples_add_branches).  tests/lbrfold runs the same
# synthesized branch stacks (3 processes at other addresses, 1 to 32
# records, a sample repeated, ranges across mappings and into no mapping)
# through both; their branches, ranges and unattributed counts must be
# the same, also when the maps are too small and the spill ring takes the
# rest.  No LBR needed: the fold runs by BPF_PROG_TEST_RUN.
. "$(dirname "$0")/../lib.sh"

need_root "lbrfold: the BPF fold against import" || exit 0
D=$WORK/lbrfold
mkdir -p "$D" && cd "$D" || exit 1
[ -x "$BUILD/lbrfold" ] || { fail "lbrfold" "$BUILD/lbrfold is missing: make unit-tests builds it"; exit 0; }

# The branches, ranges and their unattributed counters of a raw profile,
# one a line, sorted, objects named by build-ID instead of index.
rule_tables() {
	"$PGOPROF" show "$1" >"$1.show" || return 1
	awk 'NR == FNR { if ($1 == "object") id[$2] = $4; next }
	     $1 == "object" { cur = id[$2]; next }
	     $1 == "counter" && ($2 == "branches.unattributed" ||
				 $2 == "ranges.unattributed") { print; next }
	     $1 == "range" { print cur, $0; next }
	     $1 == "branch" { split($4, t, ":")
			      print cur, $1, $2, "->", id[t[1]] ":" t[2], $5 }' \
		"$1.show" "$1.show" | sort >"$1.rule"
}

# CASE [--map-entries N]: both sides, compared (lbrfold prints the BPF
# side's counters in CASE.out).  check() sets name: this uses c.
both() {
	c=$1; shift
	rm -f "$c.raw" "$c.perf.data" "$c.imported.raw"
	"$BUILD/lbrfold" "$@" "$c" >"$c.out" 2>"$c.err" ||
		{ fail "$c: lbrfold" "$(tail -n 3 "$c.err" | tr '\n' ' ')"; return 1; }
	"$PGOPROF" import -q "$c.perf.data" -o "$c.imported.raw" 2>"$c.import.err" ||
		{ fail "$c: import" "$(tail -n 3 "$c.import.err" | tr '\n' ' ')"; return 1; }
	if ! rule_tables "$c.raw" || ! rule_tables "$c.imported.raw"; then
		fail "$c: show"; return 1
	fi
	nb=$(grep -c ' branch ' "$c.raw.rule")
	nr=$(grep -c ' range ' "$c.raw.rule")
	check "$c: the BPF fold gives import's branches and ranges ($nb branches, $nr ranges)" \
		cmp "$c.raw.rule" "$c.imported.raw.rule"
	# Not vacuous: records in both objects, and unattributed ones.
	nobj=$(awk '$1 != "counter" { print $1 }' "$c.raw.rule" | sort -u | wc -l)
	nun=$(grep -c '^counter' "$c.raw.rule")
	check "$c: branches and ranges of 2 objects, both unattributed counters" \
		test "$nb" -ge 500 -a "$nr" -ge 100 -a "$nobj" -eq 2 -a "$nun" -eq 2
}

if both maps; then
	check "maps: nothing spilled or lost" grep -q ' spilled 0 lost 0$' maps.out
fi
# Maps of 64 entries: most records go through the spill ring.
if both spill --map-entries 64; then
	check "spill: records spilled, none lost" sh -c \
		"grep -q ' lost 0\$' spill.out && ! grep -q ' spilled 0 ' spill.out"
	check "spill: the same tables as with maps big enough" cmp spill.raw.rule maps.raw.rule
fi
