#!/bin/sh
# gen.sh - round trips of generated feedback texts.
#
# The benchmark's generator (bench/gen.c, built as $XP_BUILD/bench/gen)
# writes valid canonical texts of any size.  Here it makes small ones of
# every data type and shape, with different seeds, and each must survive
#
#   xprof_atob TEXT DIR; xprof_btoa [-t TYPE] DIR OUT     OUT == TEXT
#   xprof_atob OUT DIR2                                   DIR2 == DIR
#
# byte for byte, and xprof_atob -j 2, -j 3 and -j 8 (the text parsed on
# threads) must give the database of -j 1; a broken text, the messages of
# -j 1.  One more case checks that the generator is deterministic
# (same seed, same text; another seed, another text), which the benchmark's
# cache relies on.  Another merges three training runs (gen -r) of several
# MiB: the database xprof_merge writes as it goes, through several of its
# writer's buffers, must be the one xprof_atob makes of its --text output,
# and a write that fails half way must leave nothing behind.  The last
# merges databases of runs and of profiles merged from runs, two layouts
# in turns, as merging the texts does.
#
# Environment: ATOB, BTOA, MERGE, DIFF, XP_BUILD, TMPDIR (see tests/run.sh).
# Prints "PASS name" or "FAIL name: why" per case; exits 1 if any failed.

set -u

: "${ATOB:?ATOB must name xprof_atob}"
: "${BTOA:?BTOA must name xprof_btoa}"
: "${MERGE:?MERGE must name xprof_merge}"
: "${DIFF:?DIFF must name xprof_diff}"
: "${XP_BUILD:?XP_BUILD must name the build directory}"
: "${TMPDIR:=/tmp}"

GEN=$XP_BUILD/bench/gen
work=$TMPDIR/gen
failed=0

pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failed=1; }

if [ ! -x "$GEN" ]; then
	echo "FAIL gen: generator not built: $GEN"
	exit 1
fi
rm -rf "$work"
mkdir -p "$work" || exit 2

# same_tree A B: the files of two profile directories are identical.
same_tree() {
	(cd "$1" && find . -type f | sort) > "$work/ta" || return 1
	(cd "$2" && find . -type f | sort) > "$work/tb" || return 1
	cmp -s "$work/ta" "$work/tb" || return 1
	while read -r f; do
		cmp -s "$1/$f" "$2/$f" || return 1
	done < "$work/ta"
}

# roundtrip NAME TYPE GEN-OPTIONS...: one generated text through both tools.
roundtrip() {
	name=$1 type=$2
	shift 2
	d=$work/$name
	mkdir -p "$d" || exit 2
	if ! "$GEN" "$@" > "$d/in.text" 2> "$d/gen.err"; then
		fail "$name: generator failed: $(head -n 1 "$d/gen.err")"
		return
	fi
	if ! head -n 1 "$d/in.text" | grep -q '^PROFILE-FEEDBACK-DATA: 4\.[34] '; then
		fail "$name: generator wrote no header"
		return
	fi
	if ! "$ATOB" -j 1 "$d/in.text" "$d/p1" > "$d/atob.out" 2>&1; then
		fail "$name: xprof_atob rejected the text: $(head -n 3 "$d/atob.out" | tr '\n' ' ')"
		return
	fi
	for j in 2 3 8; do
		if ! "$ATOB" -j $j "$d/in.text" "$d/pj" > "$d/atob.out" 2>&1 ||
		   ! same_tree "$d/p1" "$d/pj"; then
			fail "$name: -j $j differs from -j 1"
			return
		fi
		rm -rf "$d/pj"
	done
	case $type in
	feedback) set -- ;;
	objfd) set -- -t objfd /build/src/module_0/file_0.o ;;
	*) set -- -t "$type" ;;
	esac
	if ! "$BTOA" "$@" "$d/p1" "$d/out.text" > "$d/btoa.out" 2>&1; then
		fail "$name: xprof_btoa failed: $(head -n 3 "$d/btoa.out" | tr '\n' ' ')"
		return
	fi
	if ! cmp -s "$d/in.text" "$d/out.text"; then
		fail "$name: btoa(atob(text)) differs from text: $(cmp "$d/in.text" "$d/out.text" 2>&1)"
		return
	fi
	if ! "$ATOB" "$d/out.text" "$d/p2" > "$d/atob2.out" 2>&1; then
		fail "$name: xprof_atob rejected btoa's output"
		return
	fi
	if ! same_tree "$d/p1" "$d/p2"; then
		fail "$name: atob(btoa(db)) differs from db"
		return
	fi
	pass "$name"
	rm -rf "$d"
}

roundtrip "gen feedback seed 1" feedback -s 1 -n 400
roundtrip "gen feedback seed 2 interleaved" feedback -s 2 -n 3000 -i
roundtrip "gen feedback seed 3 2 MiB" feedback -s 3 -m 2
roundtrip "gen tcovd seed 4" tcovd -s 4 -n 1500 -t tcovd
roundtrip "gen tcovsd seed 5 interleaved" tcovsd -s 5 -n 1500 -t tcovsd -i
roundtrip "gen objfd seed 6" objfd -s 6 -n 1500 -t objfd
roundtrip "gen version 4.3 seed 7" feedback -s 7 -n 1500 -3
roundtrip "gen feedback seed 8 tiny" feedback -s 8 -n 1

# Errors on threads: a generated text broken in one place (a line deep
# in it, a path that two sections share, the header's counts) gives on
# two and four threads the messages and the status of one.
errors_on_threads() {
	d=$work/errors
	mkdir -p "$d" || exit 2
	"$GEN" -s 14 -m 2 > "$d/in.text" || {
		fail "gen errors on threads: generator failed"
		return
	}
	n=$(wc -l < "$d/in.text")
	first=$(grep -m 1 '^OBJFILE:' "$d/in.text" | sed 's/^OBJFILE:\([^ ]*\) .*/\1/')
	last=$(grep '^OBJFILE:' "$d/in.text" | tail -n 1 | sed 's/^OBJFILE:\([^ ]*\) .*/\1/')
	sed "$((n * 3 / 4))s/.*/x y z/" "$d/in.text" > "$d/line.text"
	sed "s|^OBJFILE:$last |OBJFILE:$first |" "$d/in.text" > "$d/dup.text"
	sed '1s/^\(PROFILE-FEEDBACK-DATA: 4.4 [0-9]*\) [0-9]*/\1 9999/' \
		"$d/in.text" > "$d/count.text"
	for t in line dup count; do
		if cmp -s "$d/in.text" "$d/$t.text"; then
			fail "gen errors on threads, $t: the text did not change"
			continue
		fi
		"$ATOB" -j 1 "$d/$t.text" "$d/p" > "$d/out1" 2> "$d/err1"
		st1=$?
		ok=1
		for j in 2 4; do
			"$ATOB" -j $j "$d/$t.text" "$d/p" > "$d/outj" 2> "$d/errj"
			stj=$?
			if [ "$st1" -ne 2 ] || [ "$stj" -ne "$st1" ] ||
			   ! cmp -s "$d/err1" "$d/errj" || [ -e "$d/p" ]; then
				fail "gen errors on threads, $t: -j $j gives status $stj and $(head -n 1 "$d/errj"), -j 1 $st1 and $(head -n 1 "$d/err1")"
				ok=0
			fi
		done
		[ $ok = 1 ] && pass "gen errors on threads, $t"
	done
	rm -rf "$d"
}
errors_on_threads

# Merged runs: written record by record, as the text gives them.
runs() {
	d=$work/runs
	mkdir -p "$d" || exit 2
	for r in 0 1 2; do
		"$GEN" -s 9 -m 13 -r $r > "$d/run$r.text" || {
			fail "gen merged runs: generator failed"
			return
		}
	done
	"$ATOB" "$d/run1.text" "$d/db1" > "$d/err" 2>&1 || {
		fail "gen merged runs: xprof_atob failed"
		return
	}
	if ! "$MERGE" -o "$d/m" "$d/run0.text" "$d/db1" "$d/run2.text" \
	        > "$d/err" 2>&1 ||
	   ! "$MERGE" --text -o "$d/m.text" "$d/run0.text" "$d/db1" \
	        "$d/run2.text" > "$d/err" 2>&1 ||
	   ! "$ATOB" "$d/m.text" "$d/m2" > "$d/err" 2>&1; then
		fail "gen merged runs: $(head -n 3 "$d/err" | tr '\n' ' ')"
		return
	fi
	# The merge keeps its manifest beside the database; atob keeps none.
	if [ "$(wc -c < "$d/m/feedback")" -lt 8388608 ]; then
		fail "gen merged runs: the database is smaller than 8 MiB"
	elif ! rm "$d/m/feedback.manifest" || ! same_tree "$d/m" "$d/m2"; then
		fail "gen merged runs: the merged database is not atob of its text"
	else
		pass "gen merged runs"
	fi
	# A database of 2 MiB or more is mapped with the advice of huge
	# pages (xprof_db(5)): read whole, it gives the same answers.
	if ! "$BTOA" "$d/m" "$d/back.text" > "$d/err" 2>&1 ||
	   ! cmp -s "$d/back.text" "$d/m.text"; then
		fail "gen merged runs, btoa of the large database: $(head -n 3 "$d/err" | tr '\n' ' ')"
	elif ! "$DIFF" -s "$d/m" "$d/m2" > "$d/err" 2>&1; then
		fail "gen merged runs, diff of two large databases: $(head -n 3 "$d/err" | tr '\n' ' ')"
	else
		pass "gen merged runs, large databases read back"
	fi
	# Writing fails half way (a file size limit below the database's
	# size): exit status 2, the reason, and no file left behind.
	(
		ulimit -f 8192
		trap '' XFSZ
		"$MERGE" -q -o "$d/f" "$d/run0.text" "$d/db1" "$d/run2.text"
	) > "$d/err" 2>&1
	st=$?
	if [ "$st" -ne 2 ]; then
		fail "gen merged runs, file too large: status $st"
	elif ! grep -q "f/feedback: cannot write: File too large" "$d/err"; then
		fail "gen merged runs, file too large: $(head -n 3 "$d/err" | tr '\n' ' ')"
	elif [ -n "$(ls -A "$d/f" 2>/dev/null)" ]; then
		fail "gen merged runs, file too large: left $(ls -A "$d/f")"
	else
		pass "gen merged runs, file too large"
	fi
	rm -rf "$d"
}
runs

# Runs and profiles merged from runs, databases of two layouts, in turns:
# the merger keeps both, and the result is that of merging the texts.
layouts() {
	d=$work/layouts
	mkdir -p "$d" || exit 2
	for r in 0 1 2; do
		if ! "$GEN" -s 13 -m 3 -r $r > "$d/run$r.text" ||
		   ! "$ATOB" "$d/run$r.text" "$d/db$r" > "$d/err" 2>&1 ||
		   ! "$MERGE" -o "$d/m$r" "$d/db$r" > "$d/err" 2>&1; then
			fail "gen two layouts: $(head -n 3 "$d/err" | tr '\n' ' ')"
			return
		fi
	done
	if ! "$MERGE" --text -o "$d/a.text" "$d/db0" "$d/m1" "$d/db2" "$d/m0" \
	        "$d/db1" "$d/m2" -w 3,"$d/db1" > "$d/err" 2>&1 ||
	   ! "$MERGE" --text -o "$d/b.text" "$d/run0.text" "$d/run1.text" \
	        -w 2,"$d/run2.text" -w 4,"$d/run1.text" "$d/run0.text" \
	        > "$d/err2" 2>&1; then
		fail "gen two layouts: $(cat "$d/err" "$d/err2" | head -n 3 | tr '\n' ' ')"
	elif grep -q dropped "$d/err" || ! cmp -s "$d/err" "$d/err2"; then
		fail "gen two layouts: $(cat "$d/err" "$d/err2" | head -n 3 | tr '\n' ' ')"
	elif ! cmp -s "$d/a.text" "$d/b.text"; then
		fail "gen two layouts: the result differs from the texts' merge"
	else
		pass "gen two layouts"
	fi
	rm -rf "$d"
}
layouts

# Two databases of one layout are compared side by side, record for
# record; two texts are joined by name and id.  The reports must be the
# same.  B is A with the last digit of every odd counter's value dropped:
# the overlaps are well below 1, the generator's procedures have their
# counter ids in any order, and some object files and the whole profile
# have sums of 2^64 or more, which the report shows saturated.
overlaps() {
	d=$work/overlaps
	mkdir -p "$d" || exit 2
	if ! "$GEN" -s 9 -m 3 > "$d/a.text" ||
	   ! awk '/^[0-9]+ [0-9]+$/ && $1 % 2 && length($2) > 1 {
			$2 = substr($2, 1, length($2) - 1) } { print }' \
	        "$d/a.text" > "$d/b.text" ||
	   ! "$ATOB" "$d/a.text" "$d/pa" > "$d/err" 2>&1 ||
	   ! "$ATOB" "$d/b.text" "$d/pb" > "$d/err" 2>&1; then
		fail "gen overlaps: $(head -n 3 "$d/err" | tr '\n' ' ')"
		return
	fi
	ok=1
	for f in text json; do
		(cd "$d" && "$DIFF" -v --format=$f pa pb > db.$f)
		(cd "$d" && "$DIFF" -v --format=$f a.text b.text |
			sed '1,3s/a\.text/pa/; 1,3s/b\.text/pb/' > texts.$f)
		if ! cmp -s "$d/db.$f" "$d/texts.$f"; then
			fail "gen overlaps: --format=$f: the databases' report is not the texts'"
			ok=0
		fi
	done
	if [ $ok = 1 ] &&
	   ! grep -q '^overlap: 0\.[0-8]' "$d/db.text"; then
		fail "gen overlaps: the overlap is not below 0.9"
		ok=0
	fi
	if [ $ok = 1 ] &&
	   [ "$(grep -c ' 18446744073709551615 .*\.o$' "$d/db.text")" -lt 2 ]; then
		fail "gen overlaps: fewer than two object files with saturated sums"
		ok=0
	fi
	[ $ok = 1 ] && pass "gen overlaps"
	rm -rf "$d"
}
overlaps

# Determinism.
if "$GEN" -s 11 -n 2000 > "$work/a.text" &&
   "$GEN" -s 11 -n 2000 > "$work/b.text" &&
   "$GEN" -s 12 -n 2000 > "$work/c.text"; then
	if ! cmp -s "$work/a.text" "$work/b.text"; then
		fail "gen deterministic: the same seed gave two texts"
	elif cmp -s "$work/a.text" "$work/c.text"; then
		fail "gen deterministic: two seeds gave the same text"
	else
		pass "gen deterministic"
	fi
else
	fail "gen deterministic: generator failed"
fi

[ "$failed" -eq 0 ] && rm -rf "$work"
exit "$failed"
