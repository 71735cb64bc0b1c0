#!/bin/sh
# bad.sh - every bad input of every format, one convention:
#
#   tests/bad/FORMAT/FILE       a broken file (texts end in .text or .txt)
#   tests/bad/FORMAT/FILE.err   exactly what the tool prints on stderr
#
# The tool that reads FILE's form is run from tests/bad/FORMAT, so that
# messages name FILE as it is: xprof_atob for a text, xprof_btoa for a
# binary file, each with an output operand in a scratch directory.  It
# must exit with status 2, print nothing on stdout, write no output and
# print exactly FILE.err.  tests/bad/db holds databases, which are read
# from a profile directory: tests/db.sh checks them the same way, and
# generated bad inputs (tests/dcpi.sh's dcpigen cases) name their
# expected stderr NAME.err likewise.
#
# Environment: ATOB, BTOA, SRCDIR, TMPDIR (see tests/run.sh).
# XP_BAD_UPDATE=1 rewrites the .err files from the actual results (review
# the diff before keeping it).
# Prints "PASS name" or "FAIL name: why" per case; exits 1 if any failed.

. "${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib/tools.sh"

work=$(mktemp -d "$TMPDIR/bad.XXXXXX") || exit 2
n=0
for dir in "$SRCDIR"/tests/bad/*/; do
	fmt=$(basename "$dir")
	[ "$fmt" = db ] && continue
	for f in "$dir"*; do
		b=$(basename "$f")
		case $b in
		*.err) continue ;;
		*.text|*.txt) tool=$ATOB ;;
		*) tool=$BTOA ;;
		esac
		n=$((n + 1))
		rm -rf "$work/out"
		(cd "$dir" && "$tool" "$b" "$work/out") >"$work/stdout" \
			2>"$work/err"
		st=$?
		[ "${XP_BAD_UPDATE:-0}" = 1 ] && cp "$work/err" "$f.err"
		if [ -s "$work/stdout" ]; then
			fail "bad-$fmt-$b" "output on stdout"
		else
			refused "bad-$fmt-$b" "$st" "$work/out" "$work/err" \
				"$f.err"
		fi
	done
done
[ "$n" -gt 0 ] || fail bad "no files in tests/bad"
rm -rf "$work"
exit $failed
