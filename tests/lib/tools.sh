# tools.sh - sourced by the test scripts of the format modules
# (tests/gmon.sh, cpuprof.sh, dcpi.sh, mpatrol.sh): where the tools are,
# and the PASS/FAIL lines of tests/run.sh.
#
# Every variable keeps a value the environment gives it (tests/run.sh and
# make check give them all); the defaults suit a plain `make` run from
# the source tree.  pass NAME and fail NAME WHY print one result; fail
# also sets $failed, which the script returns at its end.

: "${SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${XP_O:=$SRCDIR}"
: "${XP_BUILD:=$XP_O/build}"
: "${ATOB:=$XP_O/atob/xprof_atob}"
: "${BTOA:=$XP_O/btoa/xprof_btoa}"
: "${MERGE:=$XP_O/merge/xprof_merge}"
: "${DIFF:=$XP_O/merge/xprof_diff}"
: "${SHOW:=$XP_O/merge/xprof_show}"
: "${TMPDIR:=/tmp}"
: "${XP_CC:=cc}"
: "${XP_CXX:=c++}"

failed=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; failed=1; }
