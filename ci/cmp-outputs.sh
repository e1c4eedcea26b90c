#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Byte-identity check for a refactoring: two pgoprof binaries run the same
# commands on the inputs make check leaves in tests/out/work (every raw
# profile: show, merge, report --folded and --json, convert in each
# format against the test workload hot; every perf.data: import), and
# every stdout, stderr, exit status and output file must be the same.
#   bash ci/cmp-outputs.sh OLD_PGOPROF NEW_PGOPROF [WORKDIR]
# Build OLD from the commit before the change (git worktree add).  Prints
# one DIFF line per difference and "N commands, N differences"; exit 1 if
# any.  WORKDIR (default a temporary directory) keeps both sides' files.
set -u
[ $# -ge 2 ] || { echo "usage: bash ci/cmp-outputs.sh OLD NEW [WORKDIR]" >&2; exit 2; }
OLD=$1 NEW=$2
TOP=$(cd "$(dirname "$0")/.." && pwd)
W=$TOP/tests/out/work
[ -d "$W" ] || { echo "cmp-outputs: $W is missing: run make check first" >&2; exit 2; }
O=${3:-$(mktemp -d)}
rm -rf "$O/a" "$O/b"
mkdir -p "$O/a" "$O/b"
n=0 bad=0

side() { # a|b BINARY TAG ARGS...
	local s=$1 bin=$2 tag=$3
	shift 3
	"$bin" "${@//@OUT@/$O/$s/$tag.out}" >"$O/$s/$tag.stdout" 2>"$O/$s/$tag.stderr"
	echo "exit $?" >>"$O/$s/$tag.stdout"
	# Messages name the output file: the same name on both sides.
	sed -i "s|$O/$s/|OUT/|g" "$O/$s/$tag.stdout" "$O/$s/$tag.stderr"
}

run() { # TAG ARGS...
	local tag=$1
	shift
	side a "$OLD" "$tag" "$@"
	side b "$NEW" "$tag" "$@"
	n=$((n + 1))
	for f in stdout stderr out; do
		[ -e "$O/a/$tag.$f" ] || [ -e "$O/b/$tag.$f" ] || continue
		cmp -s "$O/a/$tag.$f" "$O/b/$tag.$f" ||
			{ echo "DIFF $tag.$f: pgoprof $*"; bad=$((bad + 1)); }
	done
}

i=0
while IFS= read -r r; do
	i=$((i + 1))
	run "show$i" show "$r"
	run "merge$i" merge -o @OUT@ "$r" "$r"
	run "folded$i" report "$r" --binary "$W/hot" --folded
	run "json$i" report "$r" --binary "$W/hot" --json
	for f in llvm-text llvm-extbinary afdo; do
		run "$f$i" convert "$r" --binary "$W/hot" -f "$f" -o @OUT@
	done
done < <(find "$W/" -name '*.raw' | sort)
while IFS= read -r d; do
	i=$((i + 1))
	run "import$i" import -q -o @OUT@ "$d"
done < <(find "$W/" -name '*.data' | sort)
echo "$n commands, $bad differences"
[ "$bad" -eq 0 ]
