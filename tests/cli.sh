#!/bin/sh
# cli.sh - command line tests of xprof_atob and xprof_btoa: the cases in
# tests/cli/NAME/ (cmd, stdout, stderr, status; see tests/lib/cases.sh),
# and -h of each tool against its man page's SYNOPSIS.  The case scripts
# see ATOB and BTOA (absolute paths of the tools) and DATA (tests/cli/data).
#
# Environment: ATOB, BTOA, SRCDIR, TMPDIR (see tests/run.sh).  Arguments,
# if any, name the cases to run.  XP_CLI_UPDATE=1 rewrites the expected
# files from the actual results (review the diff before keeping it).

set -u

SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$SRCDIR/tests/lib/cases.sh"
cases_tools cli ATOB BTOA

cases_main cli "${XP_CLI_UPDATE:-0}" "xprof_atob=$ATOB" "xprof_btoa=$BTOA" \
	-- "$@"
