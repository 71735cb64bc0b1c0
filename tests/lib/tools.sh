# tools.sh - sourced by the test scripts that are not command line case
# sets (the format modules' tests/gmon.sh, cpuprof.sh, dcpi.sh,
# mpatrol.sh, gcov.sh, gcov-write.sh, and bad.sh, db.sh, text.sh,
# buildaux.sh, hygiene.sh, install.sh): where the tools are, and the
# PASS/FAIL lines of tests/run.sh.
#
# Every variable keeps a value the environment gives it (tests/run.sh and
# make check give them all); the defaults suit a plain `make` run from
# the source tree.  pass NAME and fail NAME [WHY] print one result; fail
# also sets $failed, which the script returns at its end.  refused checks
# how a tool turned down a bad input; round_trip the lossless round trip
# of a binary file through its text form.

: "${SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${XP_O:=$SRCDIR}"
: "${XP_BUILD:=$XP_O/build}"
: "${ATOB:=$XP_O/atob/xprof_atob}"
: "${BTOA:=$XP_O/btoa/xprof_btoa}"
: "${MERGE:=$XP_O/merge/xprof_merge}"
: "${DIFF:=$XP_O/diff/xprof_diff}"
: "${SHOW:=$XP_O/show/xprof_show}"
: "${TCOV:=$XP_O/tcov/xprof_tcov}"
: "${TMPDIR:=/tmp}"
: "${XP_CC:=cc}"
: "${XP_CXX:=c++}"

failed=0
pass() { echo "PASS $1"; }
fail() {
	if [ $# -gt 1 ]; then echo "FAIL $1: $2"; else echo "FAIL $1"; fi
	failed=1
}

# refused NAME STATUS OUT ERR WANT: the verdict on a bad input, which must
# give exit status 2, no file OUT, and on stderr (saved in ERR) exactly
# what the file WANT holds.
refused() {
	if [ ! -f "$5" ]; then
		fail "$1" "${5##*/} is missing"
	elif [ "$2" != 2 ]; then
		fail "$1" "exit status $2, not 2"
	elif [ -e "$3" ]; then
		fail "$1" "an output file was written"
	elif ! cmp -s "$4" "$5"; then
		diff -u "$5" "$4" | sed "s/^/    [$1] /" >&2
		fail "$1" "stderr differs from ${5##*/}"
	else
		pass "$1"
	fi
}

# round_trip NAME FILE WORK: FILE goes to text (xprof_btoa) and back to
# the same bytes (xprof_atob), and its text back to the same text; WORK
# is a scratch directory.
round_trip() {
	rm -f "$3/t1" "$3/b1" "$3/t2"
	if ! "$BTOA" "$2" "$3/t1" 2> "$3/err"; then
		fail "$1" "xprof_btoa failed: $(cat "$3/err")"
	elif ! "$ATOB" "$3/t1" "$3/b1" 2> "$3/err"; then
		fail "$1" "xprof_atob failed: $(cat "$3/err")"
	elif ! cmp -s "$2" "$3/b1"; then
		fail "$1" "binary -> text -> binary differs"
	elif ! "$BTOA" "$3/b1" "$3/t2" 2> "$3/err" ||
	     ! cmp -s "$3/t1" "$3/t2"; then
		fail "$1" "text -> binary -> text differs"
	else
		pass "$1"
	fi
}
