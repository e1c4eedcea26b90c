#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The PGO stage of a CI pipeline: make pgo-profile, pgo-build and
# pgo-validate in a project whose Makefile includes pgo/pgo.mk, then collect
# the profile, the raw profile and the validation report as artifacts.
# Templates that call it: ci/github-actions-pgo.yml, ci/gitlab-ci-pgo.yml.
set -u

usage() {
	cat <<USAGE
Usage: $0 [-C DIR] [-o ARTIFACTS] [--profile FILE] [--install-deps] [--] [VAR=VALUE...]

Runs in the project DIR (default: .), whose Makefile includes pgo/pgo.mk:
  1. make pgo-profile   (skipped with --profile FILE: use that compiler
                         profile, e.g. one recorded in production)
  2. make pgo-build
  3. make pgo-validate
and copies into ARTIFACTS (default: pgo-artifacts):
  the profile and the raw profile, mode.log (how the training run was
  recorded, and why), report.md, times.tsv, metrics.txt, verdict.txt,
  cachegrind.*.out, junit.xml, logs/STEP.log.

  -C DIR           the project directory
  -o ARTIFACTS     where the artifacts go (emptied first)
  --profile FILE   build with FILE instead of recording a profile
  --install-deps   first install what is missing (apt-get: pgoprof's build
                   dependencies, valgrind); without it nothing is installed
  VAR=VALUE        passed to make, e.g. PGO_RUNS=20 PGOPROF_SUDO=sudo
                   PGO_GATE=both PGO_TOLERANCE=0.03 PGO_MODE=exact

PGO_MODE=auto (pgo.mk's default) samples the training run where the
machine samples branch stacks or executions, which needs root (run as root
or pass PGOPROF_SUDO=sudo); elsewhere, and without root, it counts exactly
under callgrind (valgrind; about 40x slower).
The gate (PGO_GATE, default auto): the wall time when its interval shows
a difference, else the cachegrind proxy's instruction count (docs/pgo.md).
Exit status: 0 validated; 1 the PGO build is a regression (per PGO_GATE);
2 any other failure (a build, the recording, a crash, bad usage).
USAGE
}

die() { echo "pgo-stage: $*" >&2; exit 2; }
TOP=$(cd "$(dirname "$0")/.." && pwd)
dir=. art=pgo-artifacts profile='' install=0
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) usage; exit 0 ;;
	-C|-o|--profile)
		[ $# -ge 2 ] || die "$1 needs a value (see --help)"
		case $1 in -C) dir=$2 ;; -o) art=$2 ;; --profile) profile=$2 ;; esac
		shift 2 ;;
	--install-deps) install=1; shift ;;
	--) shift; break ;;
	*=*) break ;;
	*) usage >&2; die "unknown argument '$1'" ;;
	esac
done
for v in "$@"; do case $v in *=*) ;; *) die "not VAR=VALUE: '$v'" ;; esac; done
[ -d "$dir" ] || die "no project directory '$dir'"
if [ -n "$profile" ]; then
	[ -s "$profile" ] || die "no profile '$profile'"
	profile=$(cd "$(dirname "$profile")" && pwd)/$(basename "$profile")
	set -- "$@" "PGO_PROFILE=$profile"
fi

if [ $install = 1 ]; then
	sh "$TOP/ci/install-deps.sh" || die "ci/install-deps.sh failed"
	if ! command -v valgrind >/dev/null; then
		[ "$(id -u)" -eq 0 ] && SUDO= || SUDO=sudo
		$SUDO apt-get install -y -qq --no-install-recommends valgrind >/dev/null ||
			die "apt-get install valgrind failed"
	fi
fi
# pgo.mk finds pgoprof next to itself or on PATH; build the checkout's.
case " $* " in *" PGOPROF="*) ;; *)
	if [ ! -x "$TOP/pgoprof" ] && ! command -v pgoprof >/dev/null; then
		echo "pgo-stage: building pgoprof in $TOP" >&2
		make -C "$TOP" >&2 || die "building pgoprof failed"
	fi ;;
esac
# Without root, auto's probe is refused and the stage counts exactly.
case " $* " in *" PGOPROF_SUDO="*) ;; *)
	if [ "$(id -u)" -ne 0 ] && [ -z "$profile" ]; then
		case " $* " in
		*" PGO_MODE=sample "*) echo "pgo-stage: warning: not root and no PGOPROF_SUDO=sudo: pgoprof record will fail" >&2 ;;
		*" PGO_MODE=exact "*) ;;
		*) echo "pgo-stage: note: not root and no PGOPROF_SUDO=sudo: PGO_MODE=auto will count exactly under callgrind, not sample" >&2 ;;
		esac
	fi ;;
esac

# ARTIFACTS is emptied: only a new directory or one made by this script.
if [ -d "$art" ] && [ -n "$(ls -A "$art")" ] && [ ! -f "$art/.pgo-stage" ]; then
	die "$art is not empty and was not made by pgo-stage.sh: choose another -o"
fi
mkdir -p "$art" || die "cannot create $art"
art=$(cd "$art" && pwd)
{ rm -rf "$art" && mkdir -p "$art/logs" && : >"$art/.pgo-stage"; } || die "cannot empty $art"

# Where pgo.mk puts its files (make pgo-vars prints PGO_...=VALUE lines).
vars=$(make -s -C "$dir" "$@" pgo-vars 2>"$art/logs/pgo-vars.log") ||
	{ cat "$art/logs/pgo-vars.log" >&2; die "make pgo-vars failed in $dir: does its Makefile include pgo/pgo.mk?"; }
var() { printf '%s\n' "$vars" | sed -n "s/^$1=//p" | tail -n 1; }
raw=$(var PGO_RAW) prof=$(var PGO_PROFILE) rdir=$(var PGO_REPORT_DIR) modef=$(var PGO_MODE_FILE)

# step NAME: make NAME, output to the terminal and to logs/NAME.log.
results=
step() {
	name=$1; shift
	echo "== pgo-stage: make $name" >&2
	start=$(date +%s)
	{ make -C "$dir" "$@" "$name" 2>&1; echo $? >"$art/logs/$name.status"; } | tee "$art/logs/$name.log"
	rc=$(cat "$art/logs/$name.status"); rm -f "$art/logs/$name.status"
	results="$results$name $rc $(($(date +%s) - start))
"
	return "$rc"
}

status=0
if [ -z "$profile" ]; then
	step pgo-profile "$@" || status=2
else
	results="pgo-profile skip 0
"
fi
[ $status = 0 ] && { step pgo-build "$@" || status=2; }
if [ $status = 0 ]; then
	rm -f "$rdir/verdict.txt"
	if ! step pgo-validate "$@"; then
		# make says 2 for any failed recipe: the report tells a regression
		# from an error.
		grep -q '^verdict: FAIL' "$rdir/verdict.txt" 2>/dev/null && status=1 || status=2
	fi
fi

for s in pgo-build pgo-validate; do
	case $results in *"$s "*) ;; *) results="$results$s notrun 0
" ;; esac
done

# Artifacts.
[ -f "$prof" ] && cp "$prof" "$art/"
[ -z "$profile" ] && [ -f "$raw" ] && cp "$raw" "$art/"
[ -z "$profile" ] && [ -f "$modef.log" ] && cp "$modef.log" "$art/mode.log"
if [ -d "$rdir" ]; then
	for f in report.md times.tsv metrics.txt verdict.txt; do
		[ -f "$rdir/$f" ] && cp "$rdir/$f" "$art/"
	done
	cp "$rdir"/cachegrind.* "$art/" 2>/dev/null
fi
[ -f "$art/report.md" ] || printf '## pgo-validate\n\nno report: the stage failed before validation, see logs/.\n' >"$art/report.md"

# JUnit XML for CI test reports: one test case per step.
xml() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g'; }
{
	n=$(printf '%s' "$results" | grep -c .)
	nf=$(printf '%s' "$results" | awk '$2 != "0" && $2 != "skip" && $2 != "notrun"' | grep -c .)
	echo '<?xml version="1.0" encoding="UTF-8"?>'
	echo "<testsuite name=\"pgo\" tests=\"$n\" failures=\"$nf\">"
	printf '%s' "$results" | while read -r name rc secs; do
		printf '  <testcase classname="pgo" name="%s" time="%s">\n' "$name" "$secs"
		if [ "$rc" = skip ]; then
			echo '    <skipped message="profile given with --profile"/>'
		elif [ "$rc" = notrun ]; then
			echo '    <skipped message="not run: an earlier step failed"/>'
		elif [ "$rc" != 0 ]; then
			msg=$(grep -h '^verdict:' "$art/verdict.txt" 2>/dev/null || echo "make $name failed")
			[ "$name" = pgo-validate ] || msg="make $name failed"
			printf '    <failure message="%s">' "$(printf '%s' "$msg" | xml)"
			tail -n 40 "$art/logs/$name.log" | xml
			echo '</failure>'
		fi
		[ "$name" = pgo-validate ] && [ -f "$art/report.md" ] &&
			{ printf '    <system-out>'; xml <"$art/report.md"; echo '</system-out>'; }
		echo '  </testcase>'
	done
	echo '</testsuite>'
} >"$art/junit.xml"

case $status in
0) echo "pgo-stage: PGO build validated; artifacts in $art" >&2 ;;
1) echo "pgo-stage: FAIL: the PGO build is a regression (see $art/report.md)" >&2 ;;
*) echo "pgo-stage: FAIL: a step failed (see $art/logs/)" >&2 ;;
esac
exit $status
