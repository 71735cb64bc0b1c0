#!/bin/sh
# llvm.sh - tests of the LLVM text profile module (llvm(5)) through the
# tools, on profiles of a real compiler: tests/llvm/words.c is built here
# with clang -fprofile-instr-generate (front-end counters) and with
# clang -fprofile-generate (IR counters, indirect-call and memory-size
# value sites), run with three different inputs, and each raw profile
# is turned into a .proftext by llvm-profdata merge --text.  Then:
#
#  - every .proftext goes to the text form and back to the same bytes,
#    llvm-profdata reads the text form as the file, and a non-canonical
#    .proftext comes back as llvm-profdata writes it;
#  - xprof_merge with weights gives the bytes of llvm-profdata merge
#    -weighted-input on the same inputs, and what llvm-profdata show
#    --all-functions --counts prints of it equals what it prints of
#    llvm-profdata's merge of the raw profiles and of its indexed
#    .profdata; the inputs in any order give the same bytes;
#  - --mode=max and --mode=min against weighted sums, records whose
#    counters differ (the one with more counters is kept, with a
#    warning), the IR and front-end flags mixed (a warning);
#  - --accumulate: eight runs adding to one .proftext at once give the
#    merge of all their inputs (and llvm-profdata's), a missing file is
#    created, a corrupt one is left as it was;
#  - the conversion to feedback: xprof_show's totals are those of
#    llvm-profdata show, xprof_diff tells runs apart, and xprof_merge
#    --feedback writes a profile directory; the exports are refused.
#
# Prints "PASS name" or "FAIL name: why" per case; exits 1 if any failed.

. "${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib/tools.sh"

work=$(mktemp -d "$TMPDIR/llvm.XXXXXX") || exit 2
here=$SRCDIR/tests/llvm
cd "$work" || exit 2

# --- real profiles: build, run three times, to text ------------------------
cp "$here/words.c" . || exit 2
inputs1="a bb ccccc dddddddddd eeeeeeee"
inputs2="hello world of profiles"
inputs3="x yy zzz"
built=1
for kind in fe ir; do
	case $kind in
	fe) flags=-fprofile-instr-generate ;;
	ir) flags=-fprofile-generate ;;
	esac
	if ! clang -O1 $flags -o "words-$kind" words.c 2> err; then
		fail "build-$kind" "clang $flags failed: $(cat err)"
		built=0
		continue
	fi
	for r in 1 2 3; do
		eval "args=\$inputs$r"
		LLVM_PROFILE_FILE=$kind$r.profraw "./words-$kind" $args \
			> /dev/null &&
		llvm-profdata merge --text "$kind$r.profraw" \
			-o "$kind$r.proftext" 2> err ||
			{ fail "run-$kind$r" "$(cat err)"; built=0; }
	done
done
[ "$built" = 1 ] || { rm -rf "$work"; exit 1; }
pass build-and-run
if grep -q '^:ir$' ir1.proftext && grep -q IPVK_MemOPSize ir1.proftext &&
    grep -q IPVK_IndirectCallTarget ir1.proftext &&
    ! grep -q '^:' fe1.proftext; then
	pass real-profiles-shape
else
	fail real-profiles-shape "no IR flag or no value sites in ir1.proftext"
fi

# show FILE: what llvm-profdata show prints of its counts.
show() {
	llvm-profdata show --all-functions --counts "$1" 2>&1
}

# --- lossless round trips ----------------------------------------------------
for f in fe1 fe2 fe3 ir1 ir2 ir3; do
	rm -f "$f.text" "$f.back"
	if ! "$BTOA" "$f.proftext" "$f.text" 2> err ||
	   ! "$ATOB" "$f.text" "$f.back" 2> err; then
		fail "rt-$f" "$(cat err)"
	elif ! cmp -s "$f.proftext" "$f.back"; then
		fail "rt-$f" "binary -> text -> binary differs"
	elif [ "$(head -n 1 "$f.text")" != "# LLVM-PROFTEXT 1" ] ||
	     ! tail -n +2 "$f.text" | cmp -s - "$f.proftext"; then
		fail "rt-$f" "the text form is not the file after its keyword"
	elif ! llvm-profdata merge --text "$f.text" -o "$f.llvm" 2> err ||
	     ! cmp -s "$f.llvm" "$f.proftext"; then
		fail "rt-$f" "llvm-profdata does not read the text form as the file"
	else
		pass "rt-$f"
	fi
done

# A .proftext as a person writes it: comments, a hex hash, CRLF, records
# out of order; it comes back as llvm-profdata writes it.
printf '# hand made\r\n:IR\r\nzeta\r\n0x10\r\n1\r\n7\r\n\r\nalpha\r\n010\r\n2\r\n1\r\n2\r\n1\r\n1\r\n1\r\n1\r\n8:3\r\n' \
	> hand.proftext
if "$BTOA" hand.proftext hand.text 2> err && "$ATOB" hand.text hand.back 2>> err &&
    llvm-profdata merge --text hand.proftext -o hand.llvm 2>> err &&
    cmp -s hand.back hand.llvm; then
	pass canonical-form
else
	fail canonical-form "$(cat err; diff hand.llvm hand.back | head -5)"
fi

# --- merging against llvm-profdata -------------------------------------------
# merged NAME WANT GOT: the merge's bytes and llvm-profdata show's view.
merged() {
	if ! cmp -s "$2" "$3"; then
		fail "$1" "not the bytes of llvm-profdata merge: $(diff "$2" "$3" | head -4)"
	elif [ "$(show "$2")" != "$(show "$3")" ]; then
		fail "$1" "llvm-profdata show differs"
	else
		pass "$1"
	fi
}
for kind in fe ir; do
	llvm-profdata merge --text $kind'1.proftext' \
		-weighted-input=3,$kind'2.proftext' $kind'3.proftext' \
		-o "$kind-llvm.proftext" 2> err || fail "merge-$kind" "$(cat err)"
	"$MERGE" -o "$kind-xp.proftext" $kind'1.proftext' \
		-w 3,$kind'2.proftext' $kind'3.proftext' 2> err ||
		fail "merge-$kind" "$(cat err)"
	merged "merge-$kind-weighted" "$kind-llvm.proftext" "$kind-xp.proftext"

	# The same counts from the raw profiles and through the indexed
	# form: llvm-profdata bridges both.
	llvm-profdata merge --text -o "$kind-raw.proftext" $kind'1.profraw' \
		-weighted-input=3,$kind'2.profraw' $kind'3.profraw' 2> err
	llvm-profdata merge -o "$kind.profdata" $kind'1.profraw' \
		-weighted-input=3,$kind'2.profraw' $kind'3.profraw' 2>> err
	llvm-profdata merge --text "$kind.profdata" -o "$kind-idx.proftext" \
		2>> err
	if cmp -s "$kind-raw.proftext" "$kind-xp.proftext" &&
	    cmp -s "$kind-idx.proftext" "$kind-xp.proftext"; then
		pass "merge-$kind-raw-and-indexed"
	else
		fail "merge-$kind-raw-and-indexed" "$(cat err)"
	fi

	# Canonical: any order of the inputs, and merging in a tree.
	"$MERGE" -o "$kind-perm.proftext" $kind'3.proftext' \
		-w 3,$kind'2.proftext' $kind'1.proftext' 2> err
	"$MERGE" -o "$kind-part.proftext" $kind'3.proftext' $kind'1.proftext'
	"$MERGE" -o "$kind-tree.proftext" -w 3,$kind'2.proftext' \
		"$kind-part.proftext"
	if cmp -s "$kind-xp.proftext" "$kind-perm.proftext" &&
	    cmp -s "$kind-xp.proftext" "$kind-tree.proftext"; then
		pass "merge-$kind-canonical"
	else
		fail "merge-$kind-canonical" "the order of the inputs shows"
	fi
done
llvm-profdata merge --text ir1.proftext ir2.proftext ir3.proftext \
	-o ir-sum-llvm.proftext
"$MERGE" -o ir-sum-xp.proftext ir2.proftext ir3.proftext ir1.proftext
merged merge-ir-value-sites ir-sum-llvm.proftext ir-sum-xp.proftext
"$MERGE" -o one.proftext ir1.proftext && cmp -s one.proftext ir1.proftext &&
	pass merge-one-input || fail merge-one-input "one input is not kept"

# --- accumulating under a lock ----------------------------------------------------
# Eight runs add to one file at once, some with weights or two inputs:
# they take turns under its lock, so the file ends as the merge of every
# input at once, and as llvm-profdata's merge of them.
rm -f acc.proftext acc.proftext.lock
set -- ir1.proftext ir2.proftext ir3.proftext "-w 2,ir1.proftext" \
    "ir2.proftext ir3.proftext" ir3.proftext ir1.proftext "-w 3,ir2.proftext"
i=0
for a in "$@"; do
	i=$((i + 1))
	{ "$MERGE" -q -a -o acc.proftext $a; echo $? > "acc-status$i"; } &
done
wait
"$MERGE" -o all.proftext $* 2> err
# Whole inputs, not weights: llvm-profdata adds the values that a site
# first sees in a weighted input unweighted (llvm(5), MERGING).
llvm-profdata merge --text -o all-llvm.proftext ir1.proftext ir1.proftext \
	ir1.proftext ir1.proftext ir2.proftext ir2.proftext ir2.proftext \
	ir2.proftext ir2.proftext ir3.proftext ir3.proftext ir3.proftext 2>> err
if [ "$(cat acc-status*)" != "$(printf '0\n0\n0\n0\n0\n0\n0\n0')" ]; then
	fail accumulate-concurrent "exit statuses $(cat acc-status* | tr '\n' ' ')"
elif cmp -s acc.proftext all.proftext && cmp -s acc.proftext all-llvm.proftext
then
	pass accumulate-concurrent
else
	fail accumulate-concurrent "not the merge of every input: $(cat err)"
fi
set --
# A missing file is created; a corrupt one stops the run (exit 2) and
# stays as it was, as does the run's input.
rm -f new.proftext
"$MERGE" -a -o new.proftext fe1.proftext 2> err && cmp -s new.proftext fe1.proftext &&
	pass accumulate-creates || fail accumulate-creates "$(cat err)"
{ cat fe1.proftext; echo x; } > corrupt.proftext
cp corrupt.proftext corrupt.keep
"$MERGE" -a -o corrupt.proftext fe2.proftext 2> err; st=$?
if [ "$st" = 2 ] && cmp -s corrupt.proftext corrupt.keep &&
    grep -q '^xprof_merge: corrupt.proftext:[0-9]*:[0-9]*: ' err; then
	pass accumulate-corrupt-untouched
else
	fail accumulate-corrupt-untouched "status $st: $(cat err)"
fi

# --- modes ---------------------------------------------------------------------
llvm-profdata merge --text -weighted-input=2,fe1.proftext -o fe1x2.proftext
"$MERGE" -o max.proftext --mode=max fe1.proftext -w 2,fe1.proftext
"$MERGE" -o min.proftext --mode=min -w 2,fe1.proftext fe1.proftext
if cmp -s max.proftext fe1x2.proftext && cmp -s min.proftext fe1.proftext; then
	pass merge-modes
else
	fail merge-modes "max is not the larger or min not the smaller input"
fi
"$MERGE" -o max2.proftext --mode=max fe1.proftext fe2.proftext fe3.proftext
"$MERGE" -o sum2.proftext fe1.proftext fe2.proftext fe3.proftext
if ! cmp -s max2.proftext sum2.proftext &&
    [ "$(grep -c . max2.proftext)" = "$(grep -c . sum2.proftext)" ]; then
	pass merge-mode-max-differs
else
	fail merge-mode-max-differs "the maximum is the sum"
fi

# --- mismatches ------------------------------------------------------------------
printf 'main\n1\n1\n5\n' > a1.proftext
printf 'main\n1\n2\n5\n6\n' > a2.proftext
printf ':ir\nmain\n1\n1\n5\n' > ir-main.proftext
"$MERGE" -o m12.proftext a1.proftext a2.proftext 2> err12
"$MERGE" -o m21.proftext a2.proftext a1.proftext 2> err21
if cmp -s m12.proftext m21.proftext && grep -q '^6$' m12.proftext &&
    grep -q 'warning: main (hash 1): 2 counters, the merged profile.s 1: kept the input.s' err12 &&
    grep -q 'warning: main (hash 1): 1 counters, the merged profile.s 2: kept the merged profile.s' err21; then
	pass merge-counter-mismatch
else
	fail merge-counter-mismatch "$(cat err12 err21)"
fi
"$MERGE" -o fe-ir.proftext a1.proftext ir-main.proftext 2> err
llvm-profdata merge --text a1.proftext ir-main.proftext -o fe-ir.llvm
if cmp -s fe-ir.proftext fe-ir.llvm &&
    grep -q 'warning: an IR-level profile merged with a front-end one' err; then
	pass merge-fe-with-ir
else
	fail merge-fe-with-ir "$(cat err)"
fi

# --- conversion to feedback ----------------------------------------------------
# The sum of every counter and the number of records, as llvm-profdata
# shows them, against xprof_show's totals.
totals=$(show fe-xp.proftext | awk '
	/Function count:/ { s += $3 }
	/Block counts:/ { gsub(/[][,]/, " "); for (i = 3; i <= NF; i++) s += $i }
	/Total functions:/ { n = $3 }
	END { printf "procedures: %d\nsum of counts: %d\n", n, s }')
if "$SHOW" fe-xp.proftext > showout 2> err &&
    [ "$(grep -e '^procedures:' -e '^sum of counts:' showout)" = "$totals" ]; then
	pass feedback-show-totals
else
	fail feedback-show-totals "$(cat err) want $totals"
fi
"$DIFF" fe1.proftext fe1.text > /dev/null 2>&1; st1=$?
"$DIFF" fe1.proftext fe2.proftext > /dev/null 2>&1; st2=$?
if [ "$st1" = 0 ] && [ "$st2" = 1 ]; then
	pass feedback-diff
else
	fail feedback-diff "exit statuses $st1 and $st2, not 0 and 1"
fi
if "$MERGE" -o fb.profile --feedback fe1.proftext fe2.proftext 2> err &&
    "$BTOA" fb.profile fb.text 2>> err && grep -q '^PROC: main 0x' fb.text; then
	pass feedback-profile-directory
else
	fail feedback-profile-directory "$(cat err)"
fi

# No stacks, no call graph: the exports are refused, not crashed on.
"$SHOW" --format=folded fe1.proftext > out 2> err; st=$?
if [ "$st" = 2 ] && [ ! -s out ] &&
    grep -q 'an LLVM profile has no call stacks or call graph to export' err
then
	pass export-refused
else
	fail export-refused "status $st: $(cat err)"
fi

cd / && [ "${XP_KEEP:-0}" = 1 ] || rm -rf "$work"
exit $failed
