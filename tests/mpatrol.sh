#!/bin/sh
# mpatrol.sh - the mpatrol module through the tools (mpatrol(5)):
#  - every real file of ../shared/realdata/mpatrol goes to text and back to
#    the same bytes, and its text back to the same text;
#  - xprof_show prints exactly what mprof printed for it: the default
#    tables, --call-graph (mprof -v), --lines --call-graph -n 0 (mprof
#    -a -v -n0) and --counts (mprof -c; unit/mpatrol checks the same
#    rows through the library);
#  - the JSON report of test.out (tests/mpatrol/test.json);
#  - merges: a run summed with itself, with a copy whose call sites are
#    renumbered and whose program moved (matched by symbol path, so the
#    sums agree), profiles with different bounds refused, the sum that
#    xprof_show makes of two files, xprof_diff on the conversion;
#  - the conversion to feedback as a database: it reads back, and its
#    procedures rank by the bytes each allocated itself;
#  - layouts: an ambiguous file refused, then read with -L (the broken
#    files of tests/bad/mpatrol are checked by tests/bad.sh).
#
# Environment: ATOB, BTOA, SRCDIR, TMPDIR (see tests/run.sh); MERGE, DIFF
# and SHOW default to the tools of the build.

set -u

SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
XP_O=${XP_O:-$SRCDIR}
. "${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib/tools.sh"
cd "$SRCDIR" || exit 2
REAL=$SRCDIR/../shared/realdata/mpatrol
DATA=$SRCDIR/tests/mpatrol
BAD=$SRCDIR/tests/bad/mpatrol
work=$(mktemp -d "${TMPDIR:-/tmp}/mpatrol.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT


# check NAME EXPECTED ACTUAL: the files must be equal.
check() {
	if cmp -s "$2" "$3"; then
		pass "$1"
	else
		diff -u "$2" "$3" | head -20 | sed "s/^/    [$1] /" >&2
		fail "$1" "output differs from $(basename "$2")"
	fi
}

if [ ! -d "$REAL" ]; then
	fail mpatrol-realdata "$REAL is missing"
	exit 1
fi

# --- round trips -------------------------------------------------------
for f in test.out cc1.out mptest1.mpatrol.out; do
	n=${f%%.*}
	if "$BTOA" "$REAL/$f" "$work/$n.text" 2>"$work/err" &&
	    "$ATOB" "$work/$n.text" "$work/$n.bin" 2>>"$work/err" &&
	    cmp -s "$REAL/$f" "$work/$n.bin"; then
		pass "mpatrol-roundtrip-$n"
	else
		fail "mpatrol-roundtrip-$n" "binary -> text -> binary: $(head -2 "$work/err")"
	fi
	if "$BTOA" "$work/$n.bin" "$work/$n.text2" 2>"$work/err" &&
	    cmp -s "$work/$n.text" "$work/$n.text2"; then
		pass "mpatrol-text-roundtrip-$n"
	else
		fail "mpatrol-text-roundtrip-$n" "text -> binary -> text differs"
	fi
done
case $(head -n 2 "$work/test.text") in
"MPATROL-TEXT 1
layout be32") pass mpatrol-layout-be32 ;;
*) fail mpatrol-layout-be32 "test.out is not read as be32" ;;
esac
case $(sed -n 2p "$work/mptest1.text") in
"layout le64") pass mpatrol-layout-le64 ;;
*) fail mpatrol-layout-le64 "mptest1 is not read as le64" ;;
esac

# --- reports against mprof -----------------------------------------------
for f in test.out cc1.out mptest1.mpatrol.out; do
	n=${f%%.*}
	"$SHOW" "$REAL/$f" > "$work/$n.show" 2>"$work/err"
	check "mpatrol-show-$n" "$REAL/$n.mprof.expected.txt" "$work/$n.show"
	"$SHOW" --call-graph "$REAL/$f" > "$work/$n.show-v" 2>"$work/err"
	check "mpatrol-show-call-graph-$n" "$REAL/$n.mprof-v.expected.txt" \
	    "$work/$n.show-v"
	"$SHOW" --lines --call-graph -n 0 "$REAL/$f" > "$work/$n.show-avn" \
	    2>"$work/err"
	check "mpatrol-show-lines-depth0-$n" \
	    "$REAL/$n.mprof-a-v-n0.expected.txt" "$work/$n.show-avn"
	"$SHOW" --counts "$REAL/$f" > "$work/$n.show-c" 2>"$work/err"
	check "mpatrol-show-counts-$n" "$REAL/$n.mprof-c.expected.txt" \
	    "$work/$n.show-c"
done
# The text form gives the same report.
"$SHOW" --call-graph "$work/cc1.text" > "$work/cc1.show-text" 2>"$work/err"
check mpatrol-show-from-text "$REAL/cc1.mprof-v.expected.txt" \
    "$work/cc1.show-text"
(cd "$work" && cp "$REAL/test.out" . &&
    "$SHOW" --format=json --call-graph --lines test.out) \
    > "$work/test.json" 2>"$work/err"
check mpatrol-show-json "$DATA/test.json" "$work/test.json"

# --- merges --------------------------------------------------------------
"$MERGE" --text -o "$work/twice.text" "$REAL/test.out" "$REAL/test.out" \
    2>"$work/err"
check mpatrol-merge-twice "$DATA/twice.text" "$work/twice.text"
"$MERGE" --text -o "$work/renum.text" "$REAL/test.out" \
    "$DATA/renumbered.text" 2>"$work/err"
check mpatrol-merge-by-symbol-path "$DATA/twice.text" "$work/renum.text"
"$MERGE" --text -o "$work/w.text" -w 2,"$REAL/test.out" 2>"$work/err"
check mpatrol-merge-weight "$DATA/twice.text" "$work/w.text"
"$SHOW" "$REAL/test.out" "$REAL/test.out" > "$work/sum.show" 2>"$work/err"
"$SHOW" "$work/twice.text" > "$work/twice.show" 2>>"$work/err"
check mpatrol-show-sums-files "$work/twice.show" "$work/sum.show"
sed 's/^bounds 32 256 2048$/bounds 16 256 2048/' "$DATA/renumbered.text" \
    > "$work/b16.text"
(cd "$work" && cp "$REAL/test.out" . &&
    "$MERGE" -o out.mp test.out b16.text) > "$work/out" 2>"$work/err"
st=$?
printf '%s\n' "xprof_merge: b16.text: allocation bounds 16, 256, 2048 differ from the 32, 256, 2048 of the profiles before it; such profiles cannot be summed" \
    > "$work/err.want"
if [ "$st" = 2 ] && [ ! -e "$work/out.mp" ] &&
    cmp -s "$work/err" "$work/err.want"; then
	pass mpatrol-merge-bounds-differ
else
	fail mpatrol-merge-bounds-differ "status $st: $(cat "$work/err")"
fi
"$DIFF" "$REAL/test.out" "$DATA/renumbered.text" > /dev/null 2>"$work/err"
st=$?
[ "$st" = 0 ] && pass mpatrol-diff-same ||
	fail mpatrol-diff-same "status $st: $(head -2 "$work/err")"
"$DIFF" "$REAL/test.out" "$work/twice.text" > /dev/null 2>"$work/err"
st=$?
[ "$st" = 1 ] && pass mpatrol-diff-differ ||
	fail mpatrol-diff-differ "status $st: $(head -2 "$work/err")"

# The conversion to feedback, written as a database: it reads back, and its
# procedures rank by the bytes each allocated itself, as mprof's direct
# allocation table does (xmalloc: 506021 bytes).
rm -rf "$work/cc1.profile"
if "$MERGE" --feedback -o "$work/cc1.profile" "$REAL/cc1.out" \
        2>"$work/err" &&
    "$BTOA" "$work/cc1.profile" "$work/cc1.fb" 2>>"$work/err" &&
    "$SHOW" -n 1 "$work/cc1.profile" 2>>"$work/err" |
    grep -A 2 '^Hottest procedures' | grep -q '^ *506021 .* xmalloc$'; then
	pass mpatrol-feedback
else
	fail mpatrol-feedback "$(cat "$work/err")"
fi

# --- layouts ---------------------------------------------------------------
if "$BTOA" -L le32 "$BAD/ambiguous.out" "$work/amb32.text" 2>"$work/err" &&
    [ "$(sed -n 2p "$work/amb32.text")" = "layout le32" ] &&
    "$BTOA" -L le64 "$BAD/ambiguous.out" "$work/amb64.text" 2>"$work/err" &&
    [ "$(sed -n 2p "$work/amb64.text")" = "layout le64" ] &&
    "$ATOB" "$work/amb64.text" "$work/amb64.out" 2>"$work/err" &&
    cmp -s "$BAD/ambiguous.out" "$work/amb64.out"; then
	pass mpatrol-forced-layout
else
	fail mpatrol-forced-layout "$(head -2 "$work/err")"
fi
(cd "$BAD" && "$BTOA" -L be16 ambiguous.out "$work/x.text") 2>"$work/err"
st=$?
printf '%s\n' 'xprof_btoa: ambiguous.out: unknown layout "be16": expected be32, le32, be64 or le64, optionally followed by p32 or p64' \
    > "$work/err.want"
if [ "$st" = 2 ] && cmp -s "$work/err" "$work/err.want"; then
	pass mpatrol-bad-layout-option
else
	fail mpatrol-bad-layout-option "status $st: $(cat "$work/err")"
fi
# A forced layout that does not fit says so at the offset.
(cd "$BAD" && "$BTOA" -L be64 closing-magic.out "$work/x.text") 2>"$work/err"
st=$?
printf '%s\n' 'xprof_btoa: closing-magic.out: offset 0x4: endianness word is 4294977596, not 1 (layout be64)' \
    > "$work/err.want"
if [ "$st" = 2 ] && cmp -s "$work/err" "$work/err.want"; then
	pass mpatrol-wrong-forced-layout
else
	fail mpatrol-wrong-forced-layout "status $st: $(cat "$work/err")"
fi

exit $failed
