#!/bin/sh
# gmon.sh - tests of the gmon.out module (gmon(5)) through the tools.
#
#  - every real file of ../shared/realdata/gmon and every file of
#    tests/gmon goes to text and back to the same bytes, and its text
#    back to the same text;
#  - layouts: -L and -e settle them, a header-only file warns that the
#    layout is ambiguous, a wrong -L is refused;
#  - xprof_show prints exactly what `gprof -b -p` and `gprof -b -q` print
#    for the real files (realdata expectations) and for programs built
#    with gcc -pg at -O0 and -O2 and run here, live; for a C++ program
#    (g++ -pg), with gprof's demangled names by default and the linker's
#    with --no-demangle, as gprof --no-demangle prints them;
#  - merging the three sortbench runs (by pc and by function) gives a file
#    on which gprof prints the run123 expectations, a weight of 2 equals
#    the input twice, gprof's sum (its arcs in no order) merged with
#    itself has each arc once, and mismatched histograms are refused;
#  - the conversion to feedback of callcounts gives the expected text;
#  - the function coverage that xprof_tcov finds in the conversion of a
#    gmon.out of covfns.c (gcc -pg, -O0 and -O2) is gcov's on the same
#    program built with --coverage and run the same way, live.
#
# Prints "PASS name" or "FAIL name: why" per case; exits 1 if any failed.

. "${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib/tools.sh"


work=$(mktemp -d "$TMPDIR/gmon.XXXXXX") || exit 2
real=$SRCDIR/../shared/realdata/gmon
here=$SRCDIR/tests/gmon

# --- lossless round trips ----------------------------------------------------
for f in "$real"/*.gmon.out "$real"/*.gmon.sum "$here"/*.gmon; do
	round_trip "rt-$(basename "$f")" "$f" "$work"
done

# The text of a small file, exactly (the form gmon(5) describes).
if "$BTOA" "$here/gnu-be64-bb.gmon" - > "$work/out" 2> "$work/err" &&
    cmp -s "$work/out" "$here/gnu-be64-bb.text"; then
	pass text-exact
else
	fail text-exact "$(diff "$here/gnu-be64-bb.text" "$work/out" | head -5)"
fi

# --- layouts -------------------------------------------------------------------
"$BTOA" "$here/header-only.gmon" - > /dev/null 2> "$work/err"
if grep -q 'warning: the layout is ambiguous' "$work/err"; then
	pass layout-ambiguous-warns
else
	fail layout-ambiguous-warns "no warning: $(cat "$work/err")"
fi
if "$BTOA" -L le32 "$here/header-only.gmon" - 2> "$work/err" |
    grep -q '^layout le32$' && [ ! -s "$work/err" ]; then
	pass layout-forced
else
	fail layout-forced "$(cat "$work/err")"
fi
if "$BTOA" -e "$real/callcounts_ppc" "$real/callcounts_ppc.gmon.out" - \
    2> "$work/err" | grep -q '^layout be32$'; then
	pass layout-from-executable
else
	fail layout-from-executable "$(cat "$work/err")"
fi
"$BTOA" -L le32 "$real/callcounts.gmon.out" - > "$work/out" 2> "$work/err"
st=$?
if [ "$st" = 2 ] && [ ! -s "$work/out" ] &&
    grep -q 'offset 0x15: histogram of 4728 bins covers an empty range' \
        "$work/err"; then
	pass layout-wrong-refused
else
	fail layout-wrong-refused "status $st: $(cat "$work/err")"
fi
"$BTOA" -L xx64 "$real/callcounts.gmon.out" - > /dev/null 2> "$work/err"
if [ $? = 2 ] && grep -q "unknown layout 'xx64'" "$work/err"; then
	pass layout-unknown
else
	fail layout-unknown "$(cat "$work/err")"
fi

# --- reports against gprof's --------------------------------------------------
# check_show NAME EXE DATA: flat profile and call graph.
check_show() {
	name=$1 exe=$2 data=$3
	"$SHOW" -e "$real/$exe" "$real/$data" > "$work/p" 2> "$work/err"
	# The right executable: the check of -e says nothing.
	if cmp -s "$work/p" "$real/$name.gprof-b-p.expected.txt" &&
	    [ ! -s "$work/err" ]; then
		pass "show-flat-$name"
	else
		fail "show-flat-$name" "$(diff "$real/$name.gprof-b-p.expected.txt" \
		    "$work/p" | head -5) $(cat "$work/err")"
	fi
	"$SHOW" --call-graph -e "$real/$exe" "$real/$data" > "$work/q" \
	    2> "$work/err"
	# The call graph follows the flat profile after a form feed.
	sed '1,/^\f$/d' "$work/q" > "$work/q2"
	if cmp -s "$work/q2" "$real/$name.gprof-b-q.expected.txt"; then
		pass "show-graph-$name"
	else
		fail "show-graph-$name" "$(diff \
		    "$real/$name.gprof-b-q.expected.txt" "$work/q2" | head -5)"
	fi
}
check_show callcounts callcounts_pg callcounts.gmon.out
check_show callcounts32 callcounts_pg32 callcounts32.gmon.out
check_show callcounts_ppc callcounts_ppc callcounts_ppc.gmon.out
check_show callcounts_s390x callcounts_s390x callcounts_s390x.gmon.out
check_show sortbench sortbench_pg sortbench.gmon.out
check_show sortbench.run1 sortbench_pg sortbench.run1.gmon.out
check_show sortbench.run2 sortbench_pg sortbench.run2.gmon.out
check_show sortbench.run3 sortbench_pg sortbench.run3.gmon.out
check_show sortbench.run123.sum sortbench_pg sortbench.run123.gmon.sum
# Another executable of the same word size and byte order (i386): the
# check of -e says it is another build, and the report still comes.
"$SHOW" -e "$real/sortbench_pg32" "$real/callcounts32.gmon.out" \
    > /dev/null 2> "$work/err"
st=$?
if [ "$st" = 0 ] &&
    grep -q 'follow no call instruction there, the lowest 0x10a8: it is another build' "$work/err"; then
	pass show-other-build-32
else
	fail show-other-build-32 "status $st: $(cat "$work/err")"
fi
check_show sortbench32 sortbench_pg32 sortbench32.gmon.out

# Several files are summed first, as gprof sums the files it is given.
runs="$real/sortbench.run1.gmon.out $real/sortbench.run2.gmon.out
$real/sortbench.run3.gmon.out"
# shellcheck disable=SC2086
if "$SHOW" -e "$real/sortbench_pg" $runs > "$work/p" 2> "$work/err" &&
    cmp -s "$work/p" "$real/sortbench.run123-multi.gprof-b-p.expected.txt"; then
	pass show-three-runs
else
	fail show-three-runs "$(cat "$work/err")"
fi

if (cd "$real" && "$SHOW" --format=json --call-graph -e sortbench_pg \
    sortbench.gmon.out) > "$work/j" 2> "$work/err" &&
    cmp -s "$work/j" "$here/sortbench.json"; then
	pass show-json
else
	fail show-json "$(diff "$here/sortbench.json" "$work/j" | head -5)"
fi
"$SHOW" "$real/callcounts.gmon.out" > "$work/out" 2> "$work/err"
if [ $? = 2 ] && grep -q 'needs the executable (-e)' "$work/err"; then
	pass show-needs-executable
else
	fail show-needs-executable "$(cat "$work/err")"
fi

# --- merging ------------------------------------------------------------------
# Profiles without arcs sum to one without arcs (the sum's arc storage
# stays empty: the sanitizers once saw arithmetic on its null pointer).
rm -f "$work/h"
if "$MERGE" -L le64 -o "$work/h" "$here/header-only.gmon" \
    "$here/header-only.gmon" 2> "$work/err" &&
    cmp -s "$work/h" "$here/header-only.gmon"; then
	pass merge-no-arcs
else
	fail merge-no-arcs "$(cat "$work/err")"
fi
if command -v gprof > /dev/null 2>&1; then
	for how in pc function; do
		opt=
		[ $how = function ] && opt="--by-function -e $real/sortbench_pg"
		rm -f "$work/m"
		# shellcheck disable=SC2086
		if ! "$MERGE" $opt -o "$work/m" $runs 2> "$work/err"; then
			fail "merge-$how" "xprof_merge failed: $(cat "$work/err")"
			continue
		fi
		gprof -b -p "$real/sortbench_pg" "$work/m" > "$work/p" 2>&1
		gprof -b -q "$real/sortbench_pg" "$work/m" > "$work/q" 2>&1
		if cmp -s "$work/p" \
		        "$real/sortbench.run123-multi.gprof-b-p.expected.txt" &&
		    cmp -s "$work/q" \
		        "$real/sortbench.run123-multi.gprof-b-q.expected.txt"; then
			pass "merge-$how-gprof"
		else
			fail "merge-$how-gprof" "gprof prints otherwise on the sum"
		fi
	done
else
	fail merge-gprof "gprof is not installed (binutils)"
fi
r1=$real/sortbench.run1.gmon.out
"$MERGE" -o "$work/w2" -w "2,$r1" 2> "$work/err"
"$MERGE" -o "$work/x2" "$r1" "$r1" 2>> "$work/err"
if cmp -s "$work/w2" "$work/x2" && [ ! -s "$work/err" ]; then
	pass merge-weight
else
	fail merge-weight "a weight of 2 differs from the input twice"
fi
# gprof's sum lists the arcs of a caller in no order: the sum of it with
# itself has each arc once, at twice its count.
sum=$real/sortbench.run123.gmon.sum
"$MERGE" -o "$work/s2" "$sum" "$sum" 2> "$work/err"
"$BTOA" "$work/s2" - 2>> "$work/err" |
    awk '$1 == "arc" { print $3, $5, $7 }' | sort > "$work/got"
"$BTOA" "$sum" - 2>> "$work/err" |
    awk '$1 == "arc" { print $3, $5, 2 * $7 }' | sort > "$work/want"
if [ -s "$work/want" ] && cmp -s "$work/got" "$work/want" &&
    [ ! -s "$work/err" ]; then
	pass merge-arcs-once
else
	fail merge-arcs-once "$(diff "$work/want" "$work/got" | head -4)"
fi
rm -f "$work/m"
"$MERGE" -o "$work/m" "$real/callcounts.gmon.out" "$real/sortbench.gmon.out" \
    2> "$work/err"
if [ $? = 2 ] && [ ! -e "$work/m" ] &&
    grep -q 'sortbench.gmon.out: histogram scale differs from the merged' \
        "$work/err"; then
	pass merge-mismatch-refused
else
	fail merge-mismatch-refused "$(cat "$work/err")"
fi
rm -f "$work/m"
"$MERGE" -o "$work/m" "$real/callcounts.gmon.out" \
    "$real/callcounts_ppc.gmon.out" 2> "$work/err"
if [ $? = 2 ] && grep -q 'layout be32 differs' "$work/err"; then
	pass merge-layout-refused
else
	fail merge-layout-refused "$(cat "$work/err")"
fi

# --- feedback -----------------------------------------------------------------
rm -rf "$work/fb.profile"
if (cd "$real" && "$MERGE" --feedback -e callcounts_pg \
        -o "$work/fb.profile" callcounts.gmon.out) 2> "$work/err" &&
    "$BTOA" "$work/fb.profile" "$work/fb.text" 2>> "$work/err" &&
    cmp -s "$work/fb.text" "$here/callcounts.feedback"; then
	pass feedback
else
	fail feedback "$(cat "$work/err") $(diff "$here/callcounts.feedback" \
	    "$work/fb.text" | head -5)"
fi

# The hottest procedures of converted feedback rank by self cost: each
# sum is the samples gprof's flat profile gives the function itself (self
# seconds at 0.01 s a sample), never its calls added.
rm -rf "$work/sb.profile"
"$MERGE" --feedback -e "$real/sortbench_pg" -o "$work/sb.profile" \
    "$real/sortbench.gmon.out" 2> "$work/err"
"$SHOW" -n 1000 "$work/sb.profile" 2>> "$work/err" |
    sed -n '/^Hottest procedures/,/^$/p' |
    awk 'NF == 5 && $1 ~ /^[0-9]+$/ && $1 > 0 { print $5, $1 }' |
    sort > "$work/sb.ours"
awk 'NF == 7 && $1 ~ /^[0-9.]+$/ && $3 > 0 {
	printf "%s %d\n", $7, $3 * 100 + 0.5 }' \
    "$real/sortbench.gprof-b-p.expected.txt" | sort > "$work/sb.gprof"
if [ -s "$work/sb.gprof" ] && cmp -s "$work/sb.gprof" "$work/sb.ours" &&
    "$SHOW" "$work/sb.profile" | grep -A 2 '^Hottest procedures' |
    grep -q ' sift_down$'; then
	pass feedback-rank-self
else
	fail feedback-rank-self "$(cat "$work/err") $(diff "$work/sb.gprof" \
	    "$work/sb.ours" | head -5)"
fi

# --- live: programs built with gcc -pg and run here ----------------------------
# live NAME LEVEL COMPILER SOURCE...: built with -OLEVEL, run, and reported
# as gprof -b -p and -q report it.  At -O2 gcc inlines small functions and
# clones others (quick_rec.constprop.0 of tests/cpuprof/inline.c); gprof's
# flat profile and call graph go by the symbols, never by inlined calls
# (only its line-by-line -l names them, which xprof_show does not offer).
live() {
	name=$1-O$2 level=$2 cc=$3
	shift 3
	if ! (cd "$work" && $cc -pg -O"$level" -g -o "$name" "$@") \
	    > "$work/err" 2>&1; then
		fail "live-$name" "$cc -pg failed: $(cat "$work/err")"
		return
	fi
	rm -f "$work/gmon.out"
	(cd "$work" && "./$name" > /dev/null)
	live_compare "live-$name" "$name"
}
# live_compare CASE EXE [OPTION]: xprof_show OPTION against gprof OPTION
# on $work/gmon.out of $work/EXE.
live_compare() {
	for o in p q; do
		gprof -b -$o ${3:+"$3"} "$work/$2" "$work/gmon.out" \
		    > "$work/g.$o" 2>&1
	done
	"$SHOW" --call-graph ${3:+"$3"} -e "$work/$2" "$work/gmon.out" \
	    > "$work/s" 2> "$work/err"
	printf '\f\n' > "$work/ff"
	cat "$work/g.p" "$work/ff" "$work/g.q" > "$work/g"
	if cmp -s "$work/s" "$work/g"; then
		pass "$1"
	else
		fail "$1" "$(diff "$work/g" "$work/s" | head -5) $(cat "$work/err")"
	fi
}
# cxx_export EXE: JSON and the exports name functions as the report does:
# JSON as the text, demangled or with --no-demangle not; the leaves of the
# folded stacks are functions of gprof's flat profile, by their demangled
# names (the name column from byte 55).  (Not all of its functions with
# time: a function with half a sample shows 0.01 s there, and the export's
# whole samples may round it to none.)
cxx_export() {
	"$SHOW" --format=json --call-graph -e "$work/$1" "$work/gmon.out" \
	    > "$work/j" 2> "$work/err"
	"$SHOW" --format=json --call-graph --no-demangle -e "$work/$1" \
	    "$work/gmon.out" > "$work/jn" 2>> "$work/err"
	if grep -q '"name": "geo::detail::ping(long)"' "$work/j" &&
	    ! grep -q '_ZN3geo6detail4pingEl' "$work/j" &&
	    grep -q '"name": "_ZN3geo6detail4pingEl"' "$work/jn" &&
	    ! grep -q 'geo::' "$work/jn"; then
		pass "json-$1-names"
	else
		fail "json-$1-names" "$(cat "$work/err")"
	fi
	"$SHOW" --format=folded -e "$work/$1" "$work/gmon.out" 2> "$work/err" |
	    sed 's/ [0-9]*$//; s/.*;//' | sort -u > "$work/fold"
	gprof -b -p "$work/$1" "$work/gmon.out" |
	    awk 'NF >= 4 && $1 ~ /^[0-9.]+$/' | cut -c55- |
	    sort -u > "$work/flat"
	if [ -s "$work/flat" ] && grep -q '::' "$work/fold" &&
	    [ -z "$(comm -13 "$work/flat" "$work/fold")" ]; then
		pass "export-$1-names"
	else
		fail "export-$1-names" "$(cat "$work/err") $(diff "$work/flat" \
		    "$work/fold" | head -5)"
	fi
}
if command -v gprof > /dev/null 2>&1; then
	for level in 0 2; do
		live callcounts "$level" "$XP_CC" \
		    "$SRCDIR/../shared/realdata/src/callcounts.c"
		live cycle "$level" "$XP_CC" "$here/cycle.c"
		# 1,500 functions calling one another through a table (two
		# callees each, main all of them): one cycle of most of them,
		# many members and arcs with equal times and counts, which
		# gprof's sorts of members, parents and children leave in an
		# order of theirs.
		awk -v n=1500 -f "$SRCDIR/bench/prog.awk" > "$work/bigcycle.c"
		live bigcycle "$level" "$XP_CC" "$work/bigcycle.c"
		live inline "$level" "$XP_CC" "$SRCDIR/tests/cpuprof/inline.c"
		# C++: classes, namespaces, overloads, templates, operators,
		# an anonymous namespace, a cycle and a static helper in two
		# files; gprof prints demangled names in the orders of the
		# mangled ones.
		live cxxnames "$level" "$XP_CXX" "$here/cxxnames_a.cc" \
		    "$here/cxxnames_b.cc"
		if grep -q 'geo::detail::ping(long) <cycle 1>' "$work/s" &&
		    grep -q '(anonymous namespace)::mix(unsigned int)' "$work/s"
		then
			live_compare "live-cxxnames-O$level-no-demangle" \
			    "cxxnames-O$level" --no-demangle
			cxx_export "cxxnames-O$level"
		else
			fail "live-cxxnames-O$level-no-demangle" \
			    "no demangled names in the report"
		fi
	done
else
	fail live "gprof is not installed (binutils)"
fi

# --- live: C++ built with g++ -pg, as feedback --------------------------------
# gprof prints C++ names demangled ("shapes::spin(long)"); feedback names
# a procedure by its linker name ("_ZN6shapes4spinEl"), which the text
# can hold: the conversion of a C++ program's gmon.out goes to text and
# back to the same database bytes, its procedures are the executable's
# function symbols, and every function of gprof --no-demangle's flat
# profile is one of them.
d=$work/cxx
mkdir -p "$d"
if ! (cd "$d" && $XP_CXX -pg -O0 -g -o namespg \
    "$SRCDIR/tests/cpuprof/names.cc" && ./namespg 50 >/dev/null) \
    >"$work/err" 2>&1; then
	fail feedback-cxx-names "g++ -pg failed: $(cat "$work/err")"
elif (cd "$d" && "$MERGE" --feedback -e ./namespg -o fb gmon.out &&
    "$BTOA" fb fb.text && "$ATOB" fb.text back &&
    cmp fb/feedback back/feedback) >"$work/err" 2>&1; then
	nm --defined-only "$d/namespg" | awk '{ print $3 }' | sort -u \
	    >"$d/syms"
	awk '/^PROC: / { print $2 }' "$d/fb.text" | sort -u >"$d/procs"
	gprof -b -p --no-demangle "$d/namespg" "$d/gmon.out" |
	    awk 'NF == 7 && $1 ~ /^[0-9.]+$/ { print $7 }' | sort -u \
	    >"$d/gprof"
	bad=$(comm -23 "$d/procs" "$d/syms" | head -3)
	bad="$bad$(comm -23 "$d/gprof" "$d/procs" | head -3)"
	grep -qx _ZN6shapes4spinEd "$d/procs" || bad="$bad no spin(double)"
	if [ -z "$bad" ] && [ -s "$d/gprof" ]; then
		pass feedback-cxx-names
	else
		fail feedback-cxx-names "not linker names: $bad"
	fi
else
	fail feedback-cxx-names "$(head -n 3 "$work/err")"
fi

# Two static functions of one linker name (twin_a.c, twin_b.c): the one
# at the higher address is the procedure helper@0x<address>, so that the
# database, whose procedure names are unique in an object file, reads
# back; each keeps its own calls.
d=$work/twin
mkdir -p "$d"
if (cd "$d" && $XP_CC -pg -O0 -g -o twin "$here/twin_a.c" "$here/twin_b.c" &&
    ./twin; "$MERGE" --feedback -e ./twin -o fb gmon.out &&
    "$BTOA" fb fb.text) >"$work/err" 2>&1; then
	hi=$(nm "$d/twin" | awk '$3 == "helper" { print $1 }' | sort | tail -n 1 |
	    sed 's/^0*//')
	if grep -q '^PROC: helper ' "$d/fb.text" &&
	    grep -q "^PROC: helper@0x$hi " "$d/fb.text" &&
	    grep -q "^VP_PROC [0-9]* 3000 helper@0x$hi:./twin$" "$d/fb.text" &&
	    grep -q "^VP_PROC [0-9]* 3000 helper:./twin$" "$d/fb.text"; then
		pass feedback-twin-names
	else
		fail feedback-twin-names "$(grep helper "$d/fb.text" | head -4)"
	fi
else
	fail feedback-twin-names "$(head -n 3 "$work/err")"
fi

# --- live: function coverage from gcc -pg against gcov's ----------------------
# covfns.c built with -pg and with --coverage at -O0 and -O2, run the same
# way: the functions of covfns.c that xprof_tcov finds in the conversion of
# the gmon.out, never-run ones included, with their calls, are exactly the
# functions gcov lists with theirs ("function NAME called N" of gcov -b).
covfns() {
	opt=$1 d=$work/covfns$1
	mkdir -p "$d/pg" "$d/cov"
	if ! (cd "$d/pg" && gcc -pg "$opt" -g -o covfns "$here/covfns.c" &&
	      cd ../cov && gcc --coverage "$opt" -g -o covfns \
	          "$here/covfns.c") > "$d/err" 2>&1; then
		fail "covfns$opt" "gcc failed: $(cat "$d/err")"
		return
	fi
	(cd "$d/pg" && ./covfns 1000 > /dev/null)
	(cd "$d/cov" && ./covfns 1000 > /dev/null &&
	    gcov -b -o . "$here/covfns.c" > /dev/null 2>&1)
	awk '$1 == "function" { print $2, $4 }' "$d/cov/covfns.c.gcov" |
	    sort > "$d/gcov"
	(cd "$d/pg" && "$MERGE" --feedback -e covfns -o fb.profile gmon.out &&
	    "$TCOV" -q -x fb.profile -o /dev/null --lcov cov.info \
	        "$here/covfns.c") 2> "$d/err"
	awk -F '[:,]' '$1 == "FNDA" { print $3, $2 }' "$d/pg/cov.info" |
	    sort > "$d/ours"
	if [ -s "$d/gcov" ] && [ "$(grep -c ' 0$' "$d/gcov")" -ge 4 ] &&
	    cmp -s "$d/gcov" "$d/ours"; then
		pass "covfns$opt"
	else
		fail "covfns$opt" "$(cat "$d/err") $(diff "$d/gcov" "$d/ours")"
	fi
}
if command -v gcc > /dev/null 2>&1 && command -v gcov > /dev/null 2>&1; then
	covfns -O0
	covfns -O2
else
	fail covfns "gcc or gcov is not installed"
fi

rm -rf "$work"
exit $failed
