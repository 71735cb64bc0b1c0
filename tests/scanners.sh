#!/bin/sh
# scanners.sh - every tool that scans text reads a large bad input in time
# linear in its size: 10 MB of NUL bytes and 10 MB of other junk (0xff
# bytes, one line), alone and after a valid start (a feedback text header,
# a feedback text section, the first line of a DCPI header), go through
# xprof_atob, xprof_merge, xprof_show and xprof_diff (feedback text) and
# xprof_btoa (DCPI profile).  Each must exit with status 2 within
# `timeout 10` and print exactly the expected first diagnostic line.
#
# A flex rule whose match spans NUL bytes costs time quadratic in the
# length of the run (flex rescans the match at each NUL), so a few hundred
# kilobytes took minutes; these inputs catch any such rule.
#
# Environment: ATOB, BTOA, MERGE, SHOW, DIFF, TMPDIR (see tests/run.sh).
# Prints "PASS name" or "FAIL name: why" per case; exits 1 if any failed.

. "${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib/tools.sh"

work=$(mktemp -d "$TMPDIR/scanners.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2

SIZE=10485760
HDR='PROFILE-FEEDBACK-DATA: 4.4 1 0 0 0\n'
SEC='OBJFILE:a.o 0 0 0 0 0x0 0\n'
# Twenty and forty 0xff bytes: how diagnostics quote a junk token.
FF10=$(printf '\377\377\377\377\377\377\377\377\377\377')
FF20=$FF10$FF10
FF40=$FF20$FF20

# make_input NAME BYTE PREFIX: PREFIX (printf format), then SIZE bytes of
# BYTE (an octal escape for tr).
make_input() {
	{ printf "$3"; head -c "$SIZE" /dev/zero | tr '\000' "$2"; } > "$1"
}

make_input nul '\000' ''
make_input junk '\377' ''
make_input hdr-nul '\000' "$HDR"
make_input hdr-junk '\377' "$HDR"
make_input sec-nul '\000' "$HDR$SEC"
make_input sec-junk '\377' "$HDR$SEC"
make_input dcpi-nul '\000' 'image 0badcafe\n'
make_input dcpi-junk '\377' 'image 0badcafe\n'

# check NAME WANT TOOL ARGS...: runs the tool under timeout 10; wants exit
# status 2 and WANT as the first line of stderr.
check() {
	name=$1 want=$2
	shift 2
	timeout 10 "$@" > out 2> err
	st=$?
	first=$(head -n 1 err)
	if [ "$st" = 124 ]; then
		fail "$name" "no answer within 10 s"
	elif [ "$st" != 2 ]; then
		fail "$name" "exit status $st, not 2"
	elif [ "$first" != "$want" ]; then
		fail "$name" "first diagnostic: $first"
	else
		pass "$name"
	fi
}

bad_nul='unexpected NUL byte, expecting PROFILE-FEEDBACK-DATA:'
bad_junk="unexpected \"$FF40...\", expecting PROFILE-FEEDBACK-DATA:"
check atob-nul "xprof_atob: nul:1:1: $bad_nul" "$ATOB" nul p1
check atob-junk "xprof_atob: junk:1:1: $bad_junk" "$ATOB" junk p2

# After a header and after a section, every tool that reads the text.
hdr_nul='unexpected NUL byte, expecting end of header or a name'
hdr_junk="unknown data type \"$FF20\" (expecting tcovd, objfd or tcovsd)"
sec_nul='unexpected NUL byte'
sec_junk="unexpected \"$FF40...\""
for f in hdr-nul hdr-junk sec-nul sec-junk; do
	case $f in
	hdr-nul) msg="$f:2:1: $hdr_nul" ;;
	hdr-junk) msg="$f:2:1: $hdr_junk" ;;
	sec-nul) msg="$f:3:1: $sec_nul" ;;
	sec-junk) msg="$f:3:1: $sec_junk" ;;
	esac
	check "atob-$f" "xprof_atob: $msg" "$ATOB" "$f" "p-$f"
	check "merge-$f" "xprof_merge: $msg" "$MERGE" -o "m-$f" "$f"
	check "show-$f" "xprof_show: $msg" "$SHOW" "$f"
	check "diff-$f" "xprof_diff: $msg" "$DIFF" "$f" "$f"
done

# The DCPI header scanner: the junk after the first line is one word, the
# keyword of an unknown header line, which lacks its value.
col=$((SIZE + 1))
check btoa-dcpi-nul \
    "xprof_btoa: dcpi-nul:2:$col: unexpected end of file, expecting a blank" \
    "$BTOA" dcpi-nul t1
check btoa-dcpi-junk \
    "xprof_btoa: dcpi-junk:2:$col: unexpected end of file, expecting a blank" \
    "$BTOA" dcpi-junk t2

exit $failed
