#!/bin/sh
# merge.sh - command line tests of xprof_merge: the cases in
# tests/merge/NAME/ (cmd, stdout, stderr, status; see tests/lib/cases.sh),
# and -h against the man page's SYNOPSIS.  The case scripts see MERGE,
# ATOB, BTOA and SHOW (absolute paths of the tools), DATA
# (tests/merge/data) and GEN (the generator of bench/gen.c, when it was
# built).
#
# Environment: MERGE, ATOB, BTOA, SHOW, SRCDIR, TMPDIR, XP_BUILD (see
# tests/run.sh).  Arguments, if any, name the cases to run.
# XP_MERGE_UPDATE=1 rewrites the expected files from the actual results
# (review the diff before keeping it).

set -u

SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$SRCDIR/tests/lib/cases.sh"
cases_tools merge MERGE ATOB BTOA SHOW
GEN=
if [ -n "${XP_BUILD:-}" ] && [ -x "$XP_BUILD/bench/gen" ]; then
	GEN=$(abspath "$XP_BUILD/bench/gen")
fi
export GEN

cases_main merge "${XP_MERGE_UPDATE:-0}" "xprof_merge=$MERGE" -- "$@"
