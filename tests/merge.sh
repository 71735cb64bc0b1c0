#!/bin/sh
# merge.sh - command line tests of xprof_merge.
#
# Each folder tests/merge/NAME/ holds one case:
#   cmd     a shell script, run with sh in a fresh empty working directory
#           with standard input from /dev/null;
#   stdout  its exact expected standard output;
#   stderr  its exact expected standard error;
#   status  its expected exit status (a number and a newline).
# The scripts see MERGE, ATOB and BTOA (absolute paths of the tools), DATA
# (tests/merge/data, the shared inputs) and GEN (the generator of
# bench/gen.c, when it was built).  Messages name files the way the script
# did, so relative names keep the expected output independent of where the
# test runs.
#
# Besides the cases, a check ties usage() to the man page: the output of
# -h must be the SYNOPSIS of docs/xprof_merge.1, line for line.
#
# Environment: MERGE, ATOB, BTOA, SRCDIR, TMPDIR, XP_BUILD (see
# tests/run.sh).  Arguments, if any, name the cases to run.
# XP_MERGE_UPDATE=1 rewrites the expected files from the actual results
# (review the diff before keeping it).
#
# Prints "PASS name" or "FAIL name: why" per case; exits 1 if any failed.

set -u

: "${MERGE:?MERGE must name xprof_merge}"
: "${ATOB:?ATOB must name xprof_atob}"
: "${BTOA:?BTOA must name xprof_btoa}"
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
TMPDIR=${TMPDIR:-/tmp}

abspath() {
	case $1 in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s/%s\n' "$(pwd)" "$1" ;;
	esac
}

MERGE=$(abspath "$MERGE")
ATOB=$(abspath "$ATOB")
BTOA=$(abspath "$BTOA")
SRCDIR=$(abspath "$SRCDIR")
CASES=$SRCDIR/tests/merge
DATA=$CASES/data
GEN=
if [ -n "${XP_BUILD:-}" ] && [ -x "$XP_BUILD/bench/gen" ]; then
	GEN=$(abspath "$XP_BUILD/bench/gen")
fi
export MERGE ATOB BTOA DATA GEN

work=$(mktemp -d "$TMPDIR/xprof-merge.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM

pass=0
fail=0

report_fail() {
	echo "FAIL $1: $2"
	fail=$((fail + 1))
}

check_file() {
	name=$1 what=$2 expected=$3 actual=$4
	if [ ! -f "$expected" ]; then
		echo "$what: expected file missing"
		return 1
	fi
	if ! cmp -s "$expected" "$actual"; then
		echo "$what differs"
		diff -u "$expected" "$actual" | head -40 |
			sed "s/^/    [$name] /" >&2
		return 1
	fi
	return 0
}

run_case() {
	dir=$1
	name=$(basename "$dir")
	cwd=$work/$name/cwd
	out=$work/$name/stdout
	err=$work/$name/stderr
	mkdir -p "$cwd"
	(cd "$cwd" && sh "$dir/cmd" </dev/null >"$out" 2>"$err")
	echo $? >"$work/$name/status"
	if [ "${XP_MERGE_UPDATE:-0}" = 1 ]; then
		cp "$out" "$dir/stdout"
		cp "$err" "$dir/stderr"
		cp "$work/$name/status" "$dir/status"
	fi
	why=
	for f in status stdout stderr; do
		if ! msg=$(check_file "$name" "$f" "$dir/$f" "$work/$name/$f"); then
			why=${why:+$why, }$msg
		fi
	done
	if [ -n "$why" ]; then
		report_fail "$name" "$why"
	else
		echo "PASS $name"
		pass=$((pass + 1))
	fi
}

synopsis() {
	sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$1" |
		sed -e '/^\./d' -e 's/\\f[BIRP]//g' -e 's/\\-/-/g'
}

check_synopsis() {
	name=synopsis-xprof_merge
	synopsis "$SRCDIR/docs/xprof_merge.1" >"$work/$name.man"
	"$MERGE" -h | sed -e 's/^usage: //' -e 's/^       //' >"$work/$name.usage"
	if [ ! -s "$work/$name.man" ]; then
		report_fail "$name" "no SYNOPSIS found in docs/xprof_merge.1"
	elif cmp -s "$work/$name.man" "$work/$name.usage"; then
		echo "PASS $name"
		pass=$((pass + 1))
	else
		diff -u "$work/$name.man" "$work/$name.usage" |
			sed "s/^/    [$name] /" >&2
		report_fail "$name" "usage() differs from the man page SYNOPSIS"
	fi
}

if [ $# -gt 0 ]; then
	for n in "$@"; do
		if [ -f "$CASES/$n/cmd" ]; then
			run_case "$CASES/$n"
		else
			report_fail "$n" "no such case"
		fi
	done
else
	check_synopsis
	for d in "$CASES"/*/; do
		d=${d%/}
		[ -f "$d/cmd" ] && run_case "$d"
	done
fi

echo "merge: $pass passed, $fail failed" >&2
[ "$fail" -eq 0 ]
