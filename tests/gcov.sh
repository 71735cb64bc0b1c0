#!/bin/sh
# gcov.sh - tests of the GCC coverage module (gcov(5)) through the tools.
#
#  - every file of tests/gcov (GCC 11 and 12, notes and data, coverage
#    and value profiles) goes to text and back to the same bytes, and its
#    text back to the same text; a big-endian file made from the text
#    reads back with the same records;
#  - the text of a small data file is exactly tests/gcov/small12-gcda.text;
#  - data of another compilation, and notes, are not merged;
#  - live, for each GCC installed of the releases the module reads
#    (gcc-11, gcc-12): two runs of a coverage build (--coverage -O0) and
#    of a PGO build (-O2 -fprofile-generate, with value profiles), each
#    in its own directory, merged by xprof_merge give the bytes that
#    gcov-tool merge of that release gives; weights act as repeated
#    inputs; gcc -fprofile-use -Werror=coverage-mismatch builds with the
#    weighted sum without a word, and refuses the data of another
#    version of the source (so that the check can fail).
#
# Prints "PASS name" or "FAIL name: why" per case; exits 1 if any failed.

. "${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib/tools.sh"

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

for v in 11 12; do
	live coverage "$v"
	live pgo "$v"
done

rm -rf "$work"
exit $failed
