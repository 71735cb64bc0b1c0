#!/bin/sh
# tcov.sh - command line tests of xprof_tcov: the cases in tests/tcov/NAME/
# (cmd, stdout, stderr, status; see tests/lib/cases.sh), and -h against
# the man page's SYNOPSIS.  The case scripts see TCOV, ATOB and BTOA
# (absolute paths of the tools) and DATA (tests/tcov/data: the sources
# prog.c and util.h, the feedback text prog.text that maps them from
# /build/src, and its split into compilation data (prog.objfd.text) and
# two run time data files (prog.tcovd.text, then prog.tcovd2.text with
# every count doubled)).  The cases copy what they need into their
# working directory and give the sources a modification time before that
# of the profile data (touch -d), so that the newer-source warning shows
# only where a case wants it.  The expected listings are the exact .tcov
# files; the lcov cases run genhtml (Debian package lcov) on the
# tracefile, which must pass without a word on standard error.
#
# Environment: TCOV, ATOB, BTOA, SRCDIR, TMPDIR (see tests/run.sh).
# Arguments, if any, name the cases to run.  XP_TCOV_UPDATE=1 rewrites
# the expected files from the actual results (review the diff before
# keeping it).

set -u
# xprof_tcov reads the profile below these when they are set.
unset SUN_PROFDATA_DIR TCOVDIR

SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$SRCDIR/tests/lib/cases.sh"
cases_tools tcov TCOV ATOB BTOA

cases_main tcov "${XP_TCOV_UPDATE:-0}" "xprof_tcov=$TCOV" -- "$@"
