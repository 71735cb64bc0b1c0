#!/bin/sh
# text.sh - the feedback text parser through xprof_atob and xprof_btoa.
#
#   roundtrip-NAME   tests/data/text/NAME.txt is canonical: atob then btoa
#                    gives it back byte for byte.
#   noncanon-NAME    tests/data/noncanon/NAME.txt is valid but not
#                    canonical: atob then btoa gives NAME.canon.
#
# The broken texts of tests/bad/text are checked by tests/bad.sh.
#
# Environment: ATOB, BTOA, SRCDIR, TMPDIR (see tests/run.sh).
# Prints "PASS name" or "FAIL name: why" per case; exits 1 if any failed.

set -u

. "${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib/tools.sh"

# btoa_args CANONICAL_TEXT: the -t option (and object file) that reads
# back the data the text holds, from its canonical header line.
btoa_args() {
	type=$(head -n 1 "$1" | awk '{ t = $NF }
		t == "tcovd" || t == "objfd" || t == "tcovsd" { print t }')
	case $type in
	'') echo "-t feedback" ;;
	objfd)
		obj=$(grep -m 1 '^OBJFILE:' "$1" | sed 's/^OBJFILE:\([^ ]*\) .*/\1/')
		echo "-t objfd $obj" ;;
	*) echo "-t $type" ;;
	esac
}

# through TEXT CANON NAME: atob TEXT, btoa back, compare with CANON.
through() {
	dir=$TMPDIR/$3.profile
	out=$TMPDIR/$3.out
	rm -rf "$dir"
	if ! "$ATOB" "$1" "$dir" 2>"$TMPDIR/$3.err"; then
		fail "$3" "xprof_atob failed: $(head -n 1 "$TMPDIR/$3.err")"
		return
	fi
	# The object file path of objfd is one word (the corpus has no
	# blanks in paths), so word splitting is what is wanted here.
	# shellcheck disable=SC2046
	if ! "$BTOA" $(btoa_args "$2") "$dir" "$out" 2>"$TMPDIR/$3.err"; then
		fail "$3" "xprof_btoa failed: $(head -n 1 "$TMPDIR/$3.err")"
		return
	fi
	if cmp -s "$out" "$2"; then
		pass "$3"
	else
		fail "$3" "output differs from $(basename "$2")"
	fi
}

n=0
for f in "$SRCDIR"/tests/data/text/*.txt; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	name=$(basename "$f" .txt)
	through "$f" "$f" "roundtrip-$name"
done
[ "$n" -gt 0 ] || fail roundtrip "no texts in tests/data/text"

n=0
for f in "$SRCDIR"/tests/data/noncanon/*.txt; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	name=$(basename "$f" .txt)
	canon=${f%.txt}.canon
	if [ ! -f "$canon" ]; then
		fail "noncanon-$name" "no $name.canon"
		continue
	fi
	if cmp -s "$f" "$canon"; then
		fail "noncanon-$name" "the text is already canonical"
		continue
	fi
	through "$f" "$canon" "noncanon-$name"
done
[ "$n" -gt 0 ] || fail noncanon "no texts in tests/data/noncanon"

exit $failed
