#!/bin/sh
# run.sh - runs the whole test suite and counts its results.
#
#   tests/run.sh        (make check runs it with the environment below)
#
# It runs every tests/*.sh script but itself and every unit test program
# built from tests/unit/*.c ($XP_BUILD/tests/NAME).  Each prints one line
# per case, "PASS name" or "FAIL name: why", and exits non-zero when a case
# failed.  This script counts those lines over the whole suite, lists the
# failures and ends with the line "N passed, N failed"; its exit status is
# 1 when anything failed.
#
# A test that exits non-zero without a FAIL line, prints no result at all,
# or runs past $XP_TEST_TIMEOUT seconds (default 300) counts as one failure:
# a crash or a hang must never pass unnoticed.
#
# Environment given to every test (defaults suit a plain `make` in the
# source tree):
#   ATOB, BTOA   paths of xprof_atob and xprof_btoa
#   XP_O         the output directory (make O=...)
#   XP_BUILD     the build directory, $XP_O/build
#   SRCDIR       the root of the source tree; tests run from there
#   TMPDIR       a fresh scratch directory, one per test, removed when the
#                whole suite passed and kept for a look otherwise
# and, from make: MAKE, XP_CC, XP_CFLAGS, XP_LDFLAGS, XP_XCFLAGS (the
# compiler and flags of this build), XP_LIBS, XP_SANITIZE (1 under
# make check-asan).

here=$(cd "$(dirname "$0")" && pwd) || exit 2
: "${SRCDIR:=$(dirname "$here")}"
: "${XP_O:=$SRCDIR}"
: "${XP_BUILD:=$XP_O/build}"
: "${ATOB:=$XP_O/atob/xprof_atob}"
: "${BTOA:=$XP_O/btoa/xprof_btoa}"
: "${XP_TEST_TIMEOUT:=300}"
export SRCDIR XP_O XP_BUILD ATOB BTOA
export MAKE XP_CC XP_CFLAGS XP_LDFLAGS XP_XCFLAGS XP_LIBS XP_SANITIZE
# xprof_tcov looks for profiles below these (Sun's tcov environment).
unset SUN_PROFDATA_DIR TCOVDIR

cd "$SRCDIR" || exit 2
# The real profilers' files and what the real readers print for them live
# in ../shared/realdata beside the source tree; without them most format
# tests would fail one by one with messages about missing files.
if [ ! -d "$SRCDIR/../shared/realdata" ]; then
	echo "xprof test suite: $SRCDIR/../shared/realdata is missing: the" \
	     "tests compare with the real readers' output on the files there;" \
	     "put the shared folder beside the source tree" >&2
	exit 2
fi
mkdir -p "$XP_BUILD/tests" || exit 2
scratch=$(mktemp -d "$XP_BUILD/tests/run.XXXXXX") || exit 2
# Tests must not read from the terminal, whoever runs the suite.
exec </dev/null

child=
trap '[ -n "$child" ] && kill -TERM "$child" 2>/dev/null; exit 130' INT TERM HUP

total_pass=0
total_fail=0
failures=$scratch/failures
: > "$failures"

# The interpreter named on a script's #! line (sh when there is none), so
# that a script runs the same whether or not it is executable.
interpreter() {
	line=$(head -n 1 "$1")
	case $line in
	'#!'*) echo "${line#\#!}" ;;
	*) echo sh ;;
	esac
}

# run_one NAME COMMAND...: runs one test, counts its results and records
# its failures.
run_one() {
	name=$1
	shift
	base=$(basename "$name")
	work=$scratch/$base.tmp
	log=$scratch/$base.log
	mkdir -p "$work"
	# timeout runs the test in a process group of its own, so that a hung
	# test's children go with it; waiting from the background lets an
	# interrupt of this script reach that group too (see the trap).
	TMPDIR=$work timeout -k 10 "$XP_TEST_TIMEOUT" "$@" > "$log" 2>&1 &
	child=$!
	wait "$child"
	status=$?
	child=
	pass=$(grep -c '^PASS\( \|$\)' "$log")
	fail=$(grep -c '^FAIL\( \|$\)' "$log")
	grep '^FAIL\( \|$\)' "$log" | sed "s|^|$name: |" >> "$failures"
	why=
	if [ "$status" = 124 ] || [ "$status" = 137 ]; then
		why="timed out after ${XP_TEST_TIMEOUT}s"
	elif [ "$status" != 0 ] && [ "$fail" = 0 ]; then
		why="exit status $status without a FAIL line"
	elif [ "$pass" = 0 ] && [ "$fail" = 0 ]; then
		why="printed no PASS or FAIL line"
	fi
	if [ -n "$why" ]; then
		echo "$name: FAIL $base: $why" >> "$failures"
		fail=$((fail + 1))
	fi
	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail))
	if [ "$fail" = 0 ]; then
		printf '  ok    %-32s %5d passed\n' "$name" "$pass"
	else
		printf '  FAILED %-31s %5d passed, %d failed  (log: %s)\n' \
		    "$name" "$pass" "$fail" "$log"
		# The lines that are not results usually say what went wrong:
		# diffs, sanitizer reports, messages of a crashed tool.  The
		# FAIL lines themselves are listed once, at the end.
		grep -v '^\(PASS\|FAIL\)\( \|$\)' "$log" | head -n 40 |
		    sed 's/^/        | /'
	fi
}

echo "xprof test suite: tools in $XP_O, scratch in $scratch"
for t in tests/*.sh; do
	[ -f "$t" ] || continue
	[ "$t" = tests/run.sh ] && continue
	# The interpreter line is split into words on purpose ("env bash").
	# shellcheck disable=SC2046
	run_one "$t" $(interpreter "$t") "$t"
done
for src in tests/unit/*.c; do
	[ -f "$src" ] || continue
	name=$(basename "$src" .c)
	bin=$XP_BUILD/tests/$name
	if [ -x "$bin" ]; then
		run_one "unit/$name" "$bin"
	else
		echo "unit/$name: FAIL $name: $bin was not built" >> "$failures"
		printf '  FAILED %-31s (not built)\n' "unit/$name"
		total_fail=$((total_fail + 1))
	fi
done

if [ "$total_fail" != 0 ]; then
	echo
	echo "failures:"
	sed 's/^/  /' "$failures"
	echo "(logs and scratch files kept in $scratch)"
else
	rm -rf "$scratch"
fi
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ] && [ "$total_pass" != 0 ]
