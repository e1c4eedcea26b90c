#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The -h and bad-usage contract of every command (cli/cmds.h, pgoprof(1)
# "Common options" and "EXIT STATUS"): -h prints the usage on standard
# output and nothing on standard error, status 0, and standard output that
# cannot be written is status 1 with its message; an unknown option prints
# "pgoprof COMMAND: unrecognized option" and the usage on standard error
# and nothing on standard output, status 2; so does a missing argument
# (without the option line) and a bad option value (its one message).
. "$(dirname "$0")/../lib.sh"
T=$WORK/usage
rm -rf "$T" && mkdir -p "$T" || exit 1

# run NAME ARGS...: pgoprof ARGS with stdin from /dev/null; $rc, $T/out, $T/err.
run() {
	shift
	"$PGOPROF" "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
}

# verdict NAME WHY: pass when WHY is empty.
verdict() {
	if [ -z "$2" ]; then pass "$1"; else fail "$1" "$2"; fi
}

# help NAME USAGE ARGS...: status 0, stdout's first line starts with USAGE,
# stderr empty.
help() {
	name=$1 use=$2; shift 2
	run "$name" "$@"
	why=
	[ $rc = 0 ] || why="status $rc, want 0"
	head -n 1 "$T/out" | grep -qF "$use" || why="$why; stdout: $(head -c 80 "$T/out")"
	[ -s "$T/err" ] && why="$why; stderr: $(head -n 1 "$T/err")"
	verdict "$name" "$why"
}

# bad NAME FIRST USAGE ARGS...: status 2, stdout empty, stderr's first line
# starts with FIRST and a line starts with USAGE (USAGE "": none needed).
bad() {
	name=$1 first=$2 use=$3; shift 3
	run "$name" "$@"
	why=
	[ $rc = 2 ] || why="status $rc, want 2"
	[ -s "$T/out" ] && why="$why; stdout: $(head -c 80 "$T/out")"
	head -n 1 "$T/err" | grep -qF "$first" || why="$why; stderr: $(head -n 1 "$T/err")"
	[ -z "$use" ] || grep -q "^$use" "$T/err" || why="$why; no usage on stderr"
	verdict "$name" "$why"
}

# full NAME ARGS...: -h to /dev/full: status 1, "cannot write standard output".
full() {
	name=$1; shift
	"$PGOPROF" "$@" >/dev/full 2>"$T/err" </dev/null
	rc=$?
	if [ $rc = 1 ] && grep -q "cannot write standard output" "$T/err"; then pass "$name"
	else fail "$name" "status $rc, want 1: $(head -n 1 "$T/err")"; fi
}

help "pgoprof -h" "usage: pgoprof COMMAND" -h
help "pgoprof help" "usage: pgoprof COMMAND" help
bad "pgoprof without a command" "usage: pgoprof COMMAND" "usage: pgoprof" 
bad "pgoprof NOSUCH" "pgoprof: 'nosuch' is not a pgoprof command" "" nosuch
full "pgoprof -h >/dev/full" -h

for c in convert show merge import check compare report annotate diff \
	 "record --exact"; do
	# shellcheck disable=SC2086
	set -- $c
	use="usage: pgoprof $*"
	help "$* -h" "$use" "$@" -h
	help "$* --help" "$use" "$@" --help
	bad "$* --no-such-option" "pgoprof $1: unrecognized option '--no-such-option'" \
	    "$use" "$@" --no-such-option
	bad "$* -Z" "pgoprof $1: invalid option -- 'Z'" "$use" "$@" -Z
	full "$* -h >/dev/full" "$@" -h
done

# Missing arguments: the usage (import and record --exact say what is
# missing first).
for c in convert show merge check compare report annotate diff; do
	bad "$c without arguments" "usage: pgoprof $c" "usage: pgoprof $c" "$c"
done
bad "import without arguments" "pgoprof import: give the perf.data file" \
    "usage: pgoprof import" import
bad "record --exact without a command" "pgoprof record: --exact: give the command to run" \
    "usage: pgoprof record --exact" record --exact

# Bad values: one message, status 2.
bad "report --sort NOSUCH" "pgoprof report: --sort nosuch: give self or total" "" \
    report --sort nosuch p.raw
bad "diff -n -1" "pgoprof diff: --limit -1: give a count" "" diff -n -1 a.raw b.raw
bad "check --hot 200" "pgoprof check: --hot 200: give a percentage from 0 to 100" "" \
    check --binary x --hot 200 p.raw
bad "merge -w FILE=0" "pgoprof merge: --weight a.raw=0: give FILE=N" "" \
    merge -o o.raw -w a.raw=0 a.raw
bad "merge -w for a file not merged" "pgoprof merge: --weight b.raw=...: b.raw is not among the files to merge" "" \
    merge -o o.raw -w b.raw=2 a.raw
bad "convert --estimator NOSUCH" "pgoprof convert: --estimator nosuch" "" \
    convert --estimator nosuch --binary x p.raw
bad "convert --unsampled NOSUCH" "pgoprof convert: --unsampled nosuch: give auto, floor or omit" "" \
    convert --unsampled nosuch --binary x p.raw
bad "import --input-format NOSUCH" "pgoprof import: --input-format nosuch: give perf-data, perf-script, callgrind or pprof" "" \
    import --input-format nosuch -o o.raw p.data
bad "record --exact --engine NOSUCH" "pgoprof record: --engine nosuch" "" \
    record --exact --engine nosuch -- true

# record runs pgoprof-record (collector/), whose usage is its own.
help "record -h" "usage: pgoprof-record" record -h
bad "record --no-such-option" "pgoprof-record: unrecognized option '--no-such-option'" \
    "usage: pgoprof-record" record --no-such-option
bad "record without a command" "usage: pgoprof-record" "usage: pgoprof-record" record
rm -rf "$T"
