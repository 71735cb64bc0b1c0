#!/bin/sh
# diff.sh - command line tests of xprof_diff: the cases in tests/diff/NAME/
# (cmd, stdout, stderr, status; see tests/lib/cases.sh), and -h against
# the man page's SYNOPSIS.  The case scripts see DIFF and ATOB (absolute
# paths of the tools), DATA (tests/diff/data, the shared input texts) and
# SRCDIR; they copy the inputs they need into the working directory and
# name them relatively, so that the names the tool prints do not depend
# on where the test runs.  The JSON cases compare the whole document byte
# for byte, so the expected files are the check that the output is valid
# JSON with the documented keys in their documented order.
#
# Environment: DIFF, ATOB, SRCDIR, TMPDIR (see tests/run.sh).  Arguments,
# if any, name the cases to run.  XP_DIFF_UPDATE=1 rewrites the expected
# files from the actual results (review the diff before keeping it).

set -u

SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$SRCDIR/tests/lib/cases.sh"
cases_tools diff DIFF ATOB

cases_main diff "${XP_DIFF_UPDATE:-0}" "xprof_diff=$DIFF" -- "$@"
