#!/bin/sh
# gcov-write.sh - GCC data files written from feedback (gcov(5), DATA FROM
# FEEDBACK; xprof_merge --gcda), live with each release lib/gcov reads:
#
#  - round trip (gcc-11, gcc-12): the data of a --coverage program run
#    once, converted to feedback by xprof_merge --feedback and written
#    back by xprof_merge --gcda, is the same bytes (from the profile
#    directory to a file, from its text to standard output); the
#    program's next run merges into it as into its own data, giving the
#    bytes of the original data merged twice;
#  - sums (gcc-12): two programs (objects obj/sub/lines.o, obj/small.o)
#    run with different inputs into three GCOV_PREFIX trees, each tree
#    converted to feedback, the three merged as feedback with weights and
#    written as a tree of data files, have per gcov-dump -l the functions
#    and counters of the trees' data files merged by xprof_merge with the
#    same weights (only the summary differs: one run); on two threads,
#    with --sparse (the functions it drops come back as zeros) and with
#    the notes found beside the object files' paths instead of by -e, the
#    same bytes; one object file goes to a file, or into an existing
#    directory under its path;
#  - gcc-12 -fprofile-use -Werror=coverage-mismatch -Wall builds without a
#    word with the data written for a --coverage program and for an -O2
#    -fprofile-generate one (whose value profiles are not written), and
#    refuses the latter for another version of the source (so that the
#    check can fail).
#
# Prints "PASS name" or "FAIL name: why" per case; exits 1 if any failed.

. "${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib/tools.sh"
. "$SRCDIR/tests/lib/gcov.sh"

work=$(mktemp -d "$TMPDIR/gcov-write.XXXXXX") || exit 2
here=$SRCDIR/tests/gcov

# gcov-dump -l of data file $2 (release $1) without the file name and the
# summary: its functions and counters.
dump() {
	"gcov-dump-$1" -l "$2" | sed 's/^[^:]*://' | grep -v OBJECT_SUMMARY
}

# --- round trip -----------------------------------------------------------
round_trip_gcda() {
	v=$1 d=$work/rt-$v
	mkdir -p "$d" && cp "$here/lines.c" "$d/" || return
	if ! (cd "$d" && "gcc-$v" --coverage -O0 -o prog lines.c &&
	      ./prog 3 x -5) > "$d/build.out" 2>&1; then
		fail "round-trip-$v" "$(tail -3 "$d/build.out")"
		return
	fi
	gcda=$(cd "$d" && ls ./*.gcda) gcda=${gcda#./}
	cp "$d/$gcda" "$d/orig.gcda"
	if (cd "$d" && "$MERGE" --feedback -o fb "$gcda" &&
	    "$MERGE" --gcda -o back.gcda fb && "$BTOA" fb fb.text &&
	    "$MERGE" --gcda -o - fb.text > out.gcda) 2> "$d/err" &&
	    cmp -s "$d/back.gcda" "$d/orig.gcda" &&
	    cmp -s "$d/out.gcda" "$d/orig.gcda"; then
		pass "round-trip-$v"
	else
		fail "round-trip-$v" "$(cat "$d/err")"
	fi
	# The program finds its own data: its checksum and records.
	cp "$d/back.gcda" "$d/$gcda"
	if (cd "$d" && ./prog 3 x -5 > /dev/null 2> run.err &&
	    "$MERGE" -o twice.gcda orig.gcda orig.gcda) 2> "$d/err" &&
	    [ ! -s "$d/run.err" ] && cmp -s "$d/$gcda" "$d/twice.gcda"; then
		pass "round-trip-$v-next-run"
	else
		fail "round-trip-$v-next-run" "$(cat "$d/run.err" "$d/err")"
	fi
}

# --- sums -----------------------------------------------------------------
sums() {
	d=$work/sums o=$work/sums/obj
	mkdir -p "$o" || return
	if ! (gcov_two_programs "$o" && gcov_run_into "$d/r1" "$o" lines 5 &&
	      gcov_run_into "$d/r1" "$o" small a &&
	      gcov_run_into "$d/r2" "$o" lines 9 x &&
	      gcov_run_into "$d/r3" "$o" lines -3 0 &&
	      gcov_run_into "$d/r3" "$o" small a b c) \
	    > "$d/build.out" 2>&1 || [ ! -f "$d/r3/small.gcda" ]; then
		fail sums "$(tail -3 "$d/build.out")"
		return
	fi
	for r in r1 r2 r3; do
		"$MERGE" --feedback -e "$o" -o "$d/$r.fb" "$d/$r" 2>> "$d/err"
	done
	"$MERGE" -o "$d/ref" -w "2,$d/r1" -w "3,$d/r2" "$d/r3" 2>> "$d/err"
	if "$MERGE" --gcda -e "$o" -o "$d/out" -w "2,$d/r1.fb" \
	        -w "3,$d/r2.fb" "$d/r3.fb" 2>> "$d/err" &&
	    dump 12 "$d/out/sub/lines.gcda" > "$d/got" &&
	    dump 12 "$d/out/small.gcda" >> "$d/got" &&
	    dump 12 "$d/ref/sub/lines.gcda" > "$d/want" &&
	    dump 12 "$d/ref/small.gcda" >> "$d/want" &&
	    grep -q 'COUNTERS arcs' "$d/want" && cmp -s "$d/want" "$d/got"
	then
		pass sums-as-data-merged
	else
		fail sums-as-data-merged "$(cat "$d/err"; diff "$d/want" \
		    "$d/got" | head -5)"
	fi
	# The same bytes on two threads, with --sparse, and with the notes
	# beside the object files' paths (from the object directory).
	for how in jobs sparse beside; do
		rm -rf "$d/$how"
		case $how in
		jobs) set -- -j 2 -e "$o" ;;
		sparse) set -- --sparse -e "$o" ;;
		beside) set -- ;;
		esac
		if (cd "$o" && "$MERGE" --gcda "$@" -o "$d/$how" \
		        -w "2,$d/r1.fb" -w "3,$d/r2.fb" "$d/r3.fb") \
		        2> "$d/err" &&
		    cmp -s "$d/$how/sub/lines.gcda" "$d/out/sub/lines.gcda" &&
		    cmp -s "$d/$how/small.gcda" "$d/out/small.gcda"; then
			pass "sums-$how"
		else
			fail "sums-$how" "$(cat "$d/err")"
		fi
	done
	# One object file: a file, or into an existing directory.
	mkdir -p "$d/one"
	if "$MERGE" --gcda -e "$o" -o "$d/one.gcda" "$d/r2.fb" 2> "$d/err" &&
	    "$MERGE" --gcda -e "$o" -o "$d/one" "$d/r2.fb" 2>> "$d/err" &&
	    cmp -s "$d/one.gcda" "$d/r2/sub/lines.gcda" &&
	    cmp -s "$d/one/sub/lines.gcda" "$d/r2/sub/lines.gcda"; then
		pass sums-one-object
	else
		fail sums-one-object "$(cat "$d/err")"
	fi
	# What the compiler takes.
	cp "$d/out/sub/lines.gcda" "$o/sub/lines.gcda"
	if (cd "$o" && gcc-12 -O0 -fprofile-use -Werror=coverage-mismatch \
	        -Wall -c -o sub/lines.o sub/lines.c) > "$d/use.out" 2>&1 &&
	    [ ! -s "$d/use.out" ]; then
		pass sums-profile-use
	else
		fail sums-profile-use "$(head -3 "$d/use.out")"
	fi
}

# --- an -O2 -fprofile-generate program ---------------------------------------
# Its value profiles are not written; the compiler takes the arcs alone.
pgo() {
	d=$work/pgo
	mkdir -p "$d" && cp "$here/vp.c" "$d/" || return
	if ! (cd "$d" && gcc-12 -O2 -fprofile-generate -ftest-coverage \
	        -o prog vp.c && ./prog && ./prog a b c) > "$d/build.out" 2>&1
	then
		fail pgo "$(tail -3 "$d/build.out")"
		return
	fi
	gcda=$(cd "$d" && ls ./*.gcda) gcda=${gcda#./}
	if (cd "$d" && "$MERGE" --feedback -o fb "$gcda" &&
	    "$MERGE" --gcda -o w.gcda -w 2,fb fb && "$BTOA" w.gcda w.text &&
	    "$BTOA" "$gcda" orig.text) 2> "$d/err" &&
	    grep -q '^counters indirect_call' "$d/orig.text" &&
	    ! grep -q '^counters [^a]' "$d/w.text" &&
	    [ "$(grep -c '^counters arcs' "$d/w.text")" = \
	      "$(grep -c '^counters arcs' "$d/orig.text")" ]; then
		pass pgo-arcs-only
	else
		fail pgo-arcs-only "$(cat "$d/err")"
	fi
	cp "$d/w.gcda" "$d/$gcda"
	obj=${gcda%.gcda}
	if (cd "$d" && gcc-12 -O2 -fprofile-use -Werror=coverage-mismatch \
	        -Wall -c -o "$obj.o" vp.c) > "$d/use.out" 2>&1 &&
	    [ ! -s "$d/use.out" ]; then
		pass pgo-profile-use
	else
		fail pgo-profile-use "$(head -3 "$d/use.out")"
	fi
	cp "$here/small.c" "$d/vp.c"
	if (cd "$d" && gcc-12 -O2 -fprofile-use -Werror=coverage-mismatch \
	        -c -o "$obj.o" vp.c) > "$d/use2.out" 2>&1; then
		fail pgo-profile-use-control "gcc took the data of another source"
	else
		pass pgo-profile-use-control
	fi
}

for v in 11 12; do
	if command -v "gcc-$v" > /dev/null; then
		round_trip_gcda "$v"
	else
		fail "round-trip-$v" "gcc-$v is missing (build-aux/deps.sh)"
	fi
done
if command -v gcc-12 > /dev/null && command -v gcov-dump-12 > /dev/null
then
	sums
	pgo
else
	fail sums "gcc-12 or gcov-dump-12 is missing (build-aux/deps.sh)"
fi

rm -rf "$work"
exit $failed
