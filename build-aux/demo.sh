#!/bin/sh
# demo.sh - what `make demo` shows: the job of a build pipeline, on the
# bundled example.
#
#   demo.sh O EXAMPLE_DIR WORKDIR
#
# O is where the tools were built ($O/atob/xprof_atob, ...).  EXAMPLE_DIR
# holds the sources of a small word counter (main.c, count.c, util.h) and
# the feedback texts of three training runs of it (run1.text, run2.text,
# run3.text).  The demo stores each run as a profile directory, merges the
# three with a weight, shows the hottest code, lists a source file with its
# counts, compares two runs, and last takes the merged profile to text and
# back and checks that nothing was lost.  Every command is printed before it
# runs; everything it writes goes below WORKDIR.
#
# Exit status 0 when every step worked and the round trip gave back the
# same bytes, 1 otherwise.

set -u
o=$1
ex=$2
work=$3
atob=$o/atob/xprof_atob
btoa=$o/btoa/xprof_btoa
merge=$o/merge/xprof_merge
show=$o/show/xprof_show
tcov=$o/tcov/xprof_tcov
diff=$o/diff/xprof_diff

# Prints a command, then runs it with its output indented.  Returns the
# command's exit status.
run() {
	echo "  \$ $*"
	"$@" > "$work/out" 2>&1
	st=$?
	sed 's/^/    /' "$work/out"
	return $st
}

step() {
	echo
	echo "$*"
}

size() {
	wc -c < "$1" | tr -d ' '
}

fail() {
	echo "demo: $*"
	exit 1
}

rm -rf "$work" && mkdir -p "$work" || exit 2

echo "xprof demo: the word counter of $ex (main.c, count.c, util.h),"
echo "profiled in three training runs of different inputs."

step "1. Each training run's feedback text goes into a profile directory:"
for r in run1 run2 run3; do
	run "$atob" "$ex/$r.text" "$work/$r.profile" ||
	    fail "xprof_atob $ex/$r.text failed"
done
echo "  (each holds one checksummed database of" \
     "$(size "$work/run1.profile/feedback") bytes or so)"

step "2. The runs are merged into one profile; run1, the typical input,"
echo "   counts twice:"
run "$merge" -o "$work/merged.profile" -w "2,$work/run1.profile" \
    "$work/run2.profile" "$work/run3.profile" || fail "xprof_merge failed"

step "3. Where the merged runs spent their counts:"
run "$show" -n 3 "$work/merged.profile" || fail "xprof_show failed"

step "4. main.c with the count of each line (##### never ran):"
run "$tcov" -p /home/dev/wc "$ex" -o - -x "$work/merged.profile" \
    "$ex/main.c" || fail "xprof_tcov failed"

step "5. How alike the smallest and the largest run are (exit status 1:"
echo "   they differ):"
run "$diff" -n 1 "$work/run2.profile" "$work/run3.profile"
[ $? -le 1 ] || fail "xprof_diff failed"

step "6. The merged profile as text and back, byte for byte:"
run "$btoa" "$work/merged.profile" "$work/merged.text" ||
    fail "xprof_btoa failed"
run "$atob" "$work/merged.text" "$work/again.profile" ||
    fail "xprof_atob of the merged text failed"
run cmp "$work/merged.profile/feedback" "$work/again.profile/feedback" ||
    fail "the database read back from text differs"
run "$btoa" "$work/run1.profile" "$work/run1.text" ||
    fail "xprof_btoa failed"
if ! run cmp "$ex/run1.text" "$work/run1.text"; then
	echo "demo: the text read back differs from $ex/run1.text"
	diff -u "$ex/run1.text" "$work/run1.text" | head -40
	exit 1
fi
echo "  $ex/run1.text ($(size "$ex/run1.text") bytes) and $work/run1.text"
echo "  are identical: text -> profile database -> text lost nothing."
