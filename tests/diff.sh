#!/bin/sh
# diff.sh - command line tests of xprof_diff.
#
# Each folder tests/diff/NAME/ holds one case:
#   cmd     a shell script, run with sh in a fresh empty working directory
#           with standard input from /dev/null;
#   stdout  its exact expected standard output;
#   stderr  its exact expected standard error;
#   status  its expected exit status (a number and a newline).
# The scripts see DIFF and ATOB (absolute paths of the tools) and DATA
# (tests/diff/data, the shared input texts); they copy the inputs they
# need into the working directory and name them relatively, so that the
# names the tool prints do not depend on where the test runs.  The JSON
# cases compare the whole document byte for byte, so the expected files
# are the check that the output is valid JSON with the documented keys in
# their documented order.
#
# Besides the cases, the output of -h must be the SYNOPSIS of
# docs/xprof_diff.1, line for line.
#
# Environment: DIFF, ATOB, SRCDIR, TMPDIR (see tests/run.sh).  Arguments,
# if any, name the cases to run.  XP_DIFF_UPDATE=1 rewrites the expected
# files from the actual results (review the diff before keeping it).
#
# Prints "PASS name" or "FAIL name: why" per case; exits 1 if any failed.

set -u

: "${DIFF:?DIFF must name xprof_diff}"
: "${ATOB:?ATOB must name xprof_atob}"
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
TMPDIR=${TMPDIR:-/tmp}
TOOL=xprof_diff
TOOLPATH=$DIFF
CASES_NAME=diff
UPDATE=${XP_DIFF_UPDATE:-0}

abspath() {
	case $1 in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s/%s\n' "$(pwd)" "$1" ;;
	esac
}

TOOLPATH=$(abspath "$TOOLPATH")
DIFF=$TOOLPATH
ATOB=$(abspath "$ATOB")
SRCDIR=$(abspath "$SRCDIR")
CASES=$SRCDIR/tests/$CASES_NAME
DATA=$CASES/data
export ATOB DATA DIFF

work=$(mktemp -d "$TMPDIR/xprof-$CASES_NAME.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM

pass=0
fail=0

report_fail() {
	echo "FAIL $1: $2"
	fail=$((fail + 1))
}

# Compares one expected file with the actual output; shows the difference
# on standard error so that the one-line-per-case output stays clean.
check_file() {
	name=$1 what=$2 expected=$3 actual=$4
	if [ ! -f "$expected" ]; then
		echo "$what: expected file missing"
		return 1
	fi
	if ! cmp -s "$expected" "$actual"; then
		echo "$what differs"
		diff -u "$expected" "$actual" | sed "s/^/    [$name] /" >&2
		return 1
	fi
	return 0
}

run_case() {
	dir=$1
	name=$CASES_NAME-$(basename "$dir")
	cwd=$work/$name/cwd
	out=$work/$name/stdout
	err=$work/$name/stderr
	mkdir -p "$cwd"
	(cd "$cwd" && sh "$dir/cmd" </dev/null >"$out" 2>"$err")
	echo $? >"$work/$name/status"
	if [ "$UPDATE" = 1 ]; then
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

# The SYNOPSIS of a man page as plain lines: the .nf block after .SH
# SYNOPSIS, with font escapes removed and \- turned into -.
synopsis() {
	sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$1" |
		sed -e '/^\./d' -e 's/\\f[BIRP]//g' -e 's/\\-/-/g'
}

check_synopsis() {
	name=$CASES_NAME-synopsis
	if [ ! -f "$SRCDIR/docs/$TOOL.1" ]; then
		report_fail "$name" "docs/$TOOL.1 missing"
		return
	fi
	synopsis "$SRCDIR/docs/$TOOL.1" >"$work/$name.man"
	"$TOOLPATH" -h | sed -e 's/^usage: //' -e 's/^       //' \
		>"$work/$name.usage"
	if [ ! -s "$work/$name.man" ]; then
		report_fail "$name" "no SYNOPSIS found in docs/$TOOL.1"
	elif cmp -s "$work/$name.man" "$work/$name.usage"; then
		echo "PASS $name"
		pass=$((pass + 1))
	else
		diff -u "$work/$name.man" "$work/$name.usage" |
			sed "s/^/    [$name] /" >&2
		report_fail "$name" "usage() differs from the man page SYNOPSIS"
	fi
}

if [ ! -x "$TOOLPATH" ]; then
	report_fail "$CASES_NAME" "$TOOLPATH was not built"
elif [ $# -gt 0 ]; then
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

echo "$CASES_NAME: $pass passed, $fail failed" >&2
[ "$fail" -eq 0 ]
