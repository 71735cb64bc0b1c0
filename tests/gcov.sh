#!/bin/sh
# gcov.sh - tests of the GCC coverage module (gcov(5)) through the tools.
#
#  - every file of tests/gcov (GCC 11 and 12, notes and data, coverage
#    and value profiles) goes to text and back to the same bytes, and its
#    text back to the same text; a big-endian file made from the text
#    reads back with the same records, and big-endian data converted to
#    feedback is written back by xprof_merge --gcda as the same bytes;
#  - the text of a small data file is exactly tests/gcov/small12-gcda.text;
#  - data of another compilation, and notes, are not merged; a record
#    of no bytes is merged as it is;
#  - live, for each GCC installed of the releases the module reads
#    (gcc-11, gcc-12): two runs of a coverage build (--coverage -O0) and
#    of a PGO build (-O2 -fprofile-generate, with value profiles), each
#    in its own directory, merged by xprof_merge give the bytes that
#    gcov-tool merge of that release gives; weights act as repeated
#    inputs; gcc -fprofile-use -Werror=coverage-mismatch builds with the
#    weighted sum without a word, and refuses the data of another
#    version of the source (so that the check can fail);
#  - live, for each of those releases: programs built with --coverage and
#    run with different inputs (tests/gcov/lines.c: loops on one line,
#    branches, a switch, a goto, a function never called), converted to
#    feedback by xprof_merge --feedback, give in xprof_tcov's lcov export
#    the line and function counts of gcov -j on the same data.
#
# Prints "PASS name" or "FAIL name: why" per case; exits 1 if any failed.

. "${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib/tools.sh"
. "$SRCDIR/tests/lib/gcov.sh"

work=$(mktemp -d "$TMPDIR/gcov.XXXXXX") || exit 2
here=$SRCDIR/tests/gcov

# --- lossless round trips ----------------------------------------------------
for f in "$here"/*.gcda "$here"/*.gcno; do
	round_trip "rt-$(basename "$f")" "$f" "$work"
done

if "$BTOA" "$here/small12.gcda" - > "$work/out" 2> "$work/err" &&
    cmp -s "$work/out" "$here/small12-gcda.text"; then
	pass text-exact
else
	fail text-exact "$(diff "$here/small12-gcda.text" "$work/out" | head -5)"
fi

# Big-endian: the same records in the other byte order.
for f in small11.gcno small12.gcno vp12.gcda; do
	"$BTOA" "$here/$f" - | sed '2s/ le / be /' > "$work/be.text"
	if "$ATOB" "$work/be.text" "$work/be.bin" 2> "$work/err" &&
	    [ "$(od -An -c -N4 "$work/be.bin" | tr -d ' ')" = \
	      "gc$(echo "$f" | sed 's/.*\.gc\(..\)$/\1/')" ] &&
	    "$BTOA" "$work/be.bin" - > "$work/be2.text" 2>> "$work/err" &&
	    cmp -s "$work/be.text" "$work/be2.text"; then
		pass "big-endian-$f"
	else
		fail "big-endian-$f" "$(cat "$work/err")"
	fi
done

# Data written back from feedback (--gcda) takes the byte order of the
# notes: a big-endian compilation's data, converted to feedback, comes
# back as the same bytes, with its notes found beside it or named by -e.
mkdir -p "$work/be"
for e in gcno gcda; do
	"$BTOA" "$here/small12.$e" - | sed '2s/ le / be /' > "$work/be/s.$e.text"
	"$ATOB" "$work/be/s.$e.text" "$work/be/small.$e"
done
if (cd "$work/be" && "$MERGE" --feedback -o fb small.gcda &&
    "$MERGE" --gcda -o back.gcda fb &&
    "$MERGE" --gcda -e small.gcno -o - fb > back-e.gcda) 2> "$work/err" &&
    [ "$(od -An -c -N4 "$work/be/back.gcda" | tr -d ' ')" = gcda ] &&
    cmp -s "$work/be/back.gcda" "$work/be/small.gcda" &&
    cmp -s "$work/be/back-e.gcda" "$work/be/small.gcda"; then
	pass gcda-from-feedback-big-endian
else
	fail gcda-from-feedback-big-endian "$(cat "$work/err")"
fi

# Counts past the fields of GCC data are kept at their largest value,
# with one warning: an arc counter at 2^63 - 1, sum_max at 2^32 - 1.
(cd "$work/be" && "$MERGE" --gcda --scale=4e18 -o - fb 2> clamp.err |
    "$BTOA" - -) > "$work/clamp.text" 2>> "$work/be/clamp.err"
if grep -q '^summary runs 1 sum_max 4294967295$' "$work/clamp.text" &&
    grep -q ' 9223372036854775807' "$work/clamp.text" &&
    ! grep -q '9223372036854775808\|1[0-9]\{19\}' "$work/clamp.text" &&
    [ "$(cat "$work/be/clamp.err")" = \
      "xprof_merge: small.gcda: warning: 4 counts left the range of their field and were kept at its largest value" ]; then
	pass gcda-from-feedback-clamped
else
	fail gcda-from-feedback-clamped "$(cat "$work/be/clamp.err")"
fi

# Data of two compilations, or notes, are not merged.
"$MERGE" -o "$work/x.gcda" "$here/small12.gcda" "$here/vp12.gcda" \
    2> "$work/err"
st=$?
if [ "$st" = 2 ] && [ ! -e "$work/x.gcda" ] &&
    grep -q 'vp12.gcda: .*not the same compilation' "$work/err"; then
	pass merge-other-compilation-refused
else
	fail merge-other-compilation-refused "status $st: $(cat "$work/err")"
fi
"$MERGE" -o "$work/x.gcda" "$here/small12.gcno" 2> "$work/err"
st=$?
if [ "$st" = 2 ] && [ ! -e "$work/x.gcda" ] &&
    grep -q 'holds no counts to merge' "$work/err"; then
	pass merge-notes-refused
else
	fail merge-notes-refused "status $st: $(cat "$work/err")"
fi

# A record of an unknown tag with no bytes (the first record of its
# kind, tests/fuzz/corpus/gcov/empty-record.gcda) is written and merged
# as it is; the sanitizers stopped at its empty bytes once.
er=$SRCDIR/tests/fuzz/corpus/gcov/empty-record.gcda
if "$MERGE" -o "$work/er.gcda" "$er" "$er" 2> "$work/err" &&
    "$BTOA" "$work/er.gcda" "$work/er.text" 2>> "$work/err" &&
    grep -qx 'record 0x00000003 -' "$work/er.text" &&
    grep -q '^summary runs 2 ' "$work/er.text" && [ ! -s "$work/err" ]; then
	pass merge-empty-record
else
	fail merge-empty-record "$(cat "$work/err")"
fi

# Conversion to feedback: data without its notes, or with the notes of
# another compilation, is refused, and nothing is written.
cp "$here/small12.gcda" "$work/alone.gcda"
"$MERGE" --feedback -o "$work/x.fb" "$work/alone.gcda" 2> "$work/err"
st=$?
if [ "$st" = 2 ] && [ ! -e "$work/x.fb" ] &&
    grep -q "alone.gcno: .*No such file" "$work/err"; then
	pass convert-notes-missing
else
	fail convert-notes-missing "status $st: $(cat "$work/err")"
fi
"$MERGE" --feedback -e "$here/small11.gcno" -o "$work/x.fb" \
    "$here/small12.gcda" 2> "$work/err"
st=$?
if [ "$st" = 2 ] && [ ! -e "$work/x.fb" ] &&
    grep -q 'small12.gcda: stamp .*not the same compilation' "$work/err"
then
	pass convert-other-notes-refused
else
	fail convert-other-notes-refused "status $st: $(cat "$work/err")"
fi
# Notes alone: every count zero; notes with data beside them: its counts.
cp "$here/small12.gcno" "$work/solo.gcno"
cp "$here/small12.gcno" "$work/alone.gcno"
"$SHOW" "$work/solo.gcno" > "$work/solo.out" 2> "$work/err"
"$SHOW" "$work/alone.gcno" > "$work/alone.out" 2>> "$work/err"
if grep -q '^procedures: 2$' "$work/solo.out" &&
    grep -q '^sum of counts: 0$' "$work/solo.out" &&
    grep -q '^sum of counts: [1-9]' "$work/alone.out"; then
	pass convert-notes-alone
else
	fail convert-notes-alone "$(cat "$work/err" "$work/solo.out")"
fi

# --- live: merges against gcov-tool, and gcc -fprofile-use -------------------
# One release: build $1 (coverage or pgo) with gcc-$2, run it twice into
# a/ and twice (other inputs) into b/, and compare the merges.
live() {
	kind=$1 v=$2 cc=gcc-$2 tool=gcov-tool-$2
	d=$work/$kind-$v
	if ! command -v "$cc" > /dev/null || ! command -v "$tool" > /dev/null
	then
		fail "$kind-$v" "$cc or $tool is missing (build-aux/deps.sh)"
		return
	fi
	mkdir -p "$d/a" "$d/b" "$d/use" || return
	if [ "$kind" = coverage ]; then
		src=small.c other=vp.c opt=-O0 flags=--coverage
	else
		src=vp.c other=small.c opt=-O2 flags=-fprofile-generate
	fi
	cp "$here/$src" "$d/" &&
	(cd "$d" && $cc $opt $flags -o prog "$src" > "$d/build.err" 2>&1 &&
	 GCOV_PREFIX=$d/a GCOV_PREFIX_STRIP=99 ./prog &&
	 GCOV_PREFIX=$d/a GCOV_PREFIX_STRIP=99 ./prog x y z &&
	 GCOV_PREFIX=$d/b GCOV_PREFIX_STRIP=99 ./prog p) > /dev/null 2>&1
	gcda=$(cd "$d/a" 2>/dev/null && ls *.gcda 2>/dev/null)
	if [ -z "$gcda" ] || [ ! -f "$d/b/$gcda" ]; then
		fail "$kind-$v" "no data written: $(cat "$d/build.err")"
		return
	fi
	# Two inputs: gcov-tool's bytes.
	"$tool" merge "$d/a" "$d/b" -o "$d/tool" > /dev/null 2>&1
	if "$MERGE" -o "$d/sum.gcda" "$d/a/$gcda" "$d/b/$gcda" \
	        2> "$d/err" && cmp -s "$d/sum.gcda" "$d/tool/$gcda"; then
		pass "$kind-$v-merge-as-gcov-tool"
	else
		fail "$kind-$v-merge-as-gcov-tool" "$(cat "$d/err")"
	fi
	# Weights: as the inputs repeated.
	"$MERGE" -o "$d/w.gcda" -w "2,$d/a/$gcda" -w "3,$d/b/$gcda" 2> "$d/err"
	"$MERGE" -o "$d/r.gcda" "$d/a/$gcda" "$d/a/$gcda" "$d/b/$gcda" \
	    "$d/b/$gcda" "$d/b/$gcda" 2>> "$d/err"
	if [ -s "$d/w.gcda" ] && cmp -s "$d/w.gcda" "$d/r.gcda" &&
	    ! cmp -s "$d/w.gcda" "$d/sum.gcda"; then
		pass "$kind-$v-weights"
	else
		fail "$kind-$v-weights" "$(cat "$d/err")"
	fi
	# The compiler takes the weighted sum, and refuses it for another
	# program (so that the check can fail).
	# Without a directory, -fprofile-use reads OBJECT.gcda beside the
	# object (the name the instrumented link gave the data).
	obj=${gcda%.gcda}
	cp "$d/w.gcda" "$d/$gcda"
	if (cd "$d" && $cc $opt -fprofile-use -Werror=coverage-mismatch \
	        -Wall -c -o "$obj.o" "$src") > "$d/use.out" 2>&1 &&
	    [ ! -s "$d/use.out" ]; then
		pass "$kind-$v-profile-use"
	else
		fail "$kind-$v-profile-use" "$(head -3 "$d/use.out")"
	fi
	cp "$here/$other" "$d/$src"
	if (cd "$d" && $cc $opt -fprofile-use -Werror=coverage-mismatch \
	        -c -o "$obj.o" "$src") > "$d/use2.out" 2>&1; then
		fail "$kind-$v-profile-use-control" "gcc took the data of" \
		    "another source"
	else
		pass "$kind-$v-profile-use-control"
	fi
}

# --- live: conversion to feedback against gcov -j -----------------------------
# gcov's JSON (gcov -j -t) of data file $1 as lcov lines: per function
# FNDA:count,name, per line DA:line,count; sorted.
gcov_lines() {
	"$2" -j -t "$1" 2> /dev/null | jq -r '.files[] |
	    (.functions[] | "FNDA:\(.execution_count),\(.name)"),
	    (.lines[] | "DA:\(.line_number),\(.count)")' | sort
}

# Builds tests/gcov/$2 with gcc-$1 --coverage, runs it with each of the
# other arguments as its command line, and compares the line and
# function counts of xprof_tcov on the data converted by xprof_merge
# --feedback with gcov's; also with the data of the runs merged by
# xprof_merge, and with the notes given by -e (a directory).
convert() {
	v=$1 src=$2
	d=$work/conv-$v-${src%.c}
	shift 2
	mkdir -p "$d/obj" "$d/run" || return
	cp "$here/$src" "$d/obj/" &&
	(cd "$d/obj" && gcc-$v --coverage -O0 -o prog "$src") \
	    > "$d/build.err" 2>&1
	for args in "$@"; do
		# shellcheck disable=SC2086
		(cd "$d/obj" && ./prog $args &&
		 GCOV_PREFIX=$d/run GCOV_PREFIX_STRIP=99 ./prog $args) \
		    > /dev/null 2>&1
	done
	gcda=$(cd "$d/obj" 2>/dev/null && ls ./*.gcda 2>/dev/null)
	gcda=${gcda#./}
	if [ -z "$gcda" ]; then
		fail "convert-$v-$src" "no data: $(cat "$d/build.err")"
		return
	fi
	(cd "$d/obj" && gcov_lines "$gcda" "gcov-$v") > "$d/want"
	if (cd "$d/obj" && "$MERGE" --feedback -o fb "$gcda" &&
	    "$TCOV" -q -x fb -o /dev/null --lcov cov.info "$src") \
	        2> "$d/err" &&
	    grep -E '^(DA|FNDA):' "$d/obj/cov.info" | sort > "$d/got" &&
	    [ -s "$d/want" ] && cmp -s "$d/want" "$d/got"; then
		pass "convert-$v-$src"
	else
		fail "convert-$v-$src" "$(cat "$d/err"; diff "$d/want" \
		    "$d/got" | head -5)"
	fi
	# The runs' data merged elsewhere, the notes named by -e.
	if (cd "$d/obj" && "$MERGE" --feedback -e . -o fb2 "$d/run/$gcda" &&
	    "$TCOV" -q -x fb2 -o /dev/null --lcov cov2.info "$src") \
	        2> "$d/err" &&
	    grep -E '^(DA|FNDA):' "$d/obj/cov2.info" | sort |
	    cmp -s "$d/want" -; then
		pass "convert-$v-$src-notes-by-e"
	else
		fail "convert-$v-$src-notes-by-e" "$(cat "$d/err")"
	fi
}

for v in 11 12; do
	live coverage "$v"
	live pgo "$v"
	convert "$v" lines.c "" "12" "0 a b" "-4 x y z w v"
	convert "$v" small.c "" "a b c"
done

# --- live: trees of data files as GCOV_PREFIX writes them ---------------------
# Two programs of objects in obj/ and obj/sub/, run into trees r1 (lines
# 5, small) and r2 (lines 9), and in place (lines 5, lines 9 twice,
# small): r1 + 2 x r2 is the data of the runs in place, file by file; a
# file in r1 only is r1's; --feedback -e obj gives gcov's counts; a bad
# file leaves the output unwritten; --accumulate adds into the tree,
# locked without a lock file.
trees() {
	d=$work/trees
	o=$d/obj
	mkdir -p "$o" || return
	if ! (gcov_two_programs "$o" && gcov_run_into "$d/r1" "$o" lines 5 &&
	      gcov_run_into "$d/r1" "$o" small a &&
	      gcov_run_into "$d/r2" "$o" lines 9 &&
	      cd "$o" && ./lines 5 && ./lines 9 && ./lines 9 && ./small a) \
	    > "$d/build.out" 2>&1 || [ ! -f "$d/r2/sub/lines.gcda" ]; then
		fail trees "$(tail -3 "$d/build.out")"
		return
	fi
	if "$MERGE" -o "$d/out" -w "2,$d/r2" "$d/r1" 2> "$d/err" &&
	    cmp -s "$d/out/sub/lines.gcda" "$o/sub/lines.gcda" &&
	    cmp -s "$d/out/small.gcda" "$d/r1/small.gcda"; then
		pass trees-weighted
	else
		fail trees-weighted "$(cat "$d/err")"
	fi
	(cd "$o" && for f in sub/lines.gcda small.gcda; do
		gcov_lines "$f" gcov-12; done) | sort > "$d/want"
	if "$MERGE" --feedback -e "$o" -o "$d/fb" -w "2,$d/r2" "$d/r1" \
	        2> "$d/err" &&
	    (cd "$o" && "$TCOV" -q -x "$d/fb" -o /dev/null --lcov "$d/cov.info" \
	        sub/lines.c small.c) 2>> "$d/err" &&
	    grep -E '^(DA|FNDA):' "$d/cov.info" | sort | cmp -s "$d/want" -
	then
		pass trees-feedback
	else
		fail trees-feedback "$(cat "$d/err")"
	fi
	cp -R "$d/r2" "$d/bad" && printf 'junk' >> "$d/bad/sub/lines.gcda"
	"$MERGE" -o "$d/out2" "$d/r1" "$d/bad" 2> "$d/err"
	st=$?
	if [ "$st" = 2 ] && [ ! -e "$d/out2" ] &&
	    grep -q "bad/sub/lines.gcda: " "$d/err"; then
		pass trees-bad-input
	else
		fail trees-bad-input "status $st: $(cat "$d/err")"
	fi
	"$MERGE" -a -o "$d/acc" "$d/r1" 2> "$d/err" &&
	    "$MERGE" -a -o "$d/acc" "$d/r2" 2>> "$d/err" &&
	    "$MERGE" -a -o "$d/acc" "$d/r2" 2>> "$d/err"
	# The tree is locked as a directory is: no lock file in or beside it.
	if cmp -s "$d/acc/sub/lines.gcda" "$o/sub/lines.gcda" &&
	    [ -z "$(find "$d" -name '*.lock')" ]; then
		pass trees-accumulate
	else
		fail trees-accumulate "$(cat "$d/err")"
	fi
}
if command -v gcc-12 > /dev/null && command -v gcov-12 > /dev/null; then
	trees
else
	fail trees "gcc-12 or gcov-12 is missing (build-aux/deps.sh)"
fi

rm -rf "$work"
exit $failed
