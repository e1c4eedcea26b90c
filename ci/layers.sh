#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The layering check: no #include "..." goes up a layer.  Usage:
#   sh ci/layers.sh [TOP]        (TOP: the source tree, default this one)
# Exit status 0 when every include goes down (or stays in its directory);
# 1 with one line per include that goes up or sideways,
#   FILE:LINE: includes "INC" (LAYER DIR) from layer DIR
# naming the file, the line and the include; 2 for bad usage.
#
# The layers, low to high, are TOP/layers.txt's, one rank a line (a file
# may include its own directory and any lower rank; top-level headers such
# as version.h rank with the lowest; a folder's sub-folders, such as
# import/perfdata/, are of its layer).
# bpf/ is the kernel side, outside the ranks: only collector/ and proc/
# include its headers, and it includes nothing of user space but what
# EXCEPTIONS lists.  qemu/ is the exact-count plugin, loaded into
# qemu-user: likewise outside, only import/ includes its header (the count
# file's format), and it includes nothing of the tree.  tests/, bench/, pgo/, third_party/ and generated files
# (an include that names no file of the tree, such as record.skel.h or
# pprof/profile.pb-c.h from build/) are not checked.
set -u
TOP=${1:-$(cd "$(dirname "$0")/.." && pwd)}
[ $# -le 1 ] && [ -d "$TOP" ] || { echo "usage: sh ci/layers.sh [TOP]" >&2; exit 2; }
cd "$TOP" || exit 2
[ -r layers.txt ] || { echo "ci/layers.sh: no layers.txt under $TOP" >&2; exit 2; }

# Includes allowed against the rules, one a line: FILE INCLUDED-FILE, then
# why (both paths from TOP).
EXCEPTIONS='
bpf/record.h proc/stackdepth.h  the kernel stack depth (PERF_MAX_STACK_DEPTH), one #define shared by the BPF program and user space
'

RANKED=$(sed 's/#.*//' layers.txt)
DIRS="$(echo $RANKED) bpf qemu"
files=$(find $DIRS -name '*.[ch]' 2>/dev/null | sort)
[ -n "$files" ] || { echo "ci/layers.sh: no sources under $TOP" >&2; exit 2; }

# awk reads: the exceptions, the list of the tree's files, then grep's
# FILE:LINE:TEXT of every #include "...".
printf '%s\n' "$EXCEPTIONS" >"${TMPDIR:-/tmp}/layers.$$.exc"
find . -type f ! -path './.git/*' | sed 's|^\./||' >"${TMPDIR:-/tmp}/layers.$$.files"
# shellcheck disable=SC2086
grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' $files |
awk -v excf="${TMPDIR:-/tmp}/layers.$$.exc" -v listf="${TMPDIR:-/tmp}/layers.$$.files" \
    -v layf=layers.txt '
function rank(d) {
	if (d == "") return 0	# top-level headers
	return d in ranks ? ranks[d] : -1	# -1: bpf and the unranked
}
# dir/inc with "." and ".." resolved; "" if it leaves the tree.
function resolve(dir, inc,    n, p, out, k, i, s) {
	n = split(dir "/" inc, p, "/")
	k = 0
	for (i = 1; i <= n; i++) {
		if (p[i] == "" || p[i] == ".") continue
		if (p[i] == "..") { if (k == 0) return ""; k--; continue }
		out[++k] = p[i]
	}
	s = ""
	for (i = 1; i <= k; i++) s = s (i > 1 ? "/" : "") out[i]
	return s
}
BEGIN {
	while ((getline l < layf) > 0) {
		sub(/#.*/, "", l)
		if ((n = split(l, w, " ")) == 0) continue
		for (i = 1; i <= n; i++) ranks[w[i]] = nrank
		nrank++
	}
	while ((getline l < excf) > 0)
		if (split(l, f, " ") >= 2) exc[f[1] " " f[2]] = 1
	while ((getline l < listf) > 0) exists[l] = 1
	bad = 0
}
{
	# FILE:LINE:TEXT
	file = $0; sub(/:.*/, "", file)
	rest = substr($0, length(file) + 2)
	line = rest; sub(/:.*/, "", line)
	inc = rest; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
	# The layer of a file is its top folder (import/perfdata/: import/).
	fdir = file; sub(/\/[^\/]*$/, "", fdir)
	dir = file; sub(/\/.*/, "", dir)
	target = resolve(fdir, inc)
	if (target == "" || !(target in exists)) next	# generated
	tdir = target ~ /\// ? target : ""
	sub(/\/.*/, "", tdir)
	if (tdir == dir || (file " " target) in exc) next
	why = ""
	if (tdir == "bpf") {
		if (dir != "collector" && dir != "proc")
			why = "the kernel side: only collector/ and proc/ include it"
	} else if (dir == "bpf")
		why = "user space, and bpf/ is the kernel side"
	else if (tdir == "qemu") {
		if (dir != "import")
			why = "the qemu plugin: only import/ includes it"
	} else if (dir == "qemu")
		why = "pgoprof, and qemu/ is a plugin of qemu-user"
	else if (rank(tdir) < 0)
		why = "not a layer"
	else if (rank(tdir) > rank(dir))
		why = "a higher layer than " dir "/"
	else if (rank(tdir) == rank(dir))
		why = "a layer of the same rank as " dir "/"
	if (why == "") next
	printf "%s:%s: includes \"%s\": %s is %s\n", file, line, inc,
	       tdir == "" ? "the top level" : tdir "/", why
	bad = 1
}
END { exit bad }'
rc=$?
rm -f "${TMPDIR:-/tmp}/layers.$$.exc" "${TMPDIR:-/tmp}/layers.$$.files"
exit $rc
