#!/bin/sh
# exe.sh - the executable given with -e against what a profile records
# (cpuprofile(5), gmon(5), dcpi(5): THE EXECUTABLE), with programs built
# and profiled here:
#
#  - CPU profiles of a position-independent program built with -lprofiler:
#    the right executable gives no warning; /bin/ls (another program) and
#    xprof_show itself are refused by every tool that takes -e, with no
#    output file; a build with one function more before the others (the
#    same file name) warns that the return addresses follow no call, one
#    with a function of several pages more that the code segment differs,
#    naming the build id that readelf -n reads;
#  - without -e, the conversion to feedback names PCs by file and offset:
#    a run compared with itself loaded 16 MiB higher is the same, two runs
#    share their procedures, and no procedure is named by an address;
#  - gmon.out of a program built with -pg: the same, the other build
#    showing in the histogram's range;
#  - DCPI: an image that holds none of the profile's addresses is refused.
#
# Prints "PASS name" or "FAIL name: why" per case; exits 1 if any failed.

. "${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib/tools.sh"

work=$(mktemp -d "$TMPDIR/exe.XXXXXX") || exit 2
cd "$work" || exit 2
src=$SRCDIR/../shared/realdata/src

# quiet NAME CMD...: CMD succeeds and says nothing on stderr.
quiet() {
	n=$1
	shift
	if "$@" > out 2> err && ! [ -s err ]; then
		pass "$n"
	else
		fail "$n" "status $?: $(head -3 err)"
	fi
}

# refuses NAME OUTFILE PATTERN CMD...: CMD exits 2, writes no OUTFILE and
# its stderr matches PATTERN (grep -E).
refuses() {
	n=$1 o=$2 pat=$3
	shift 3
	"$@" > out 2> err
	st=$?
	if [ "$st" != 2 ]; then
		fail "$n" "exit status $st, not 2: $(head -3 err)"
	elif [ -n "$o" ] && [ -e "$o" ]; then
		fail "$n" "an output file was written"
	elif ! grep -Eq -- "$pat" err; then
		fail "$n" "no /$pat/ in: $(head -3 err)"
	else
		pass "$n"
	fi
}

# warns NAME PATTERN CMD...: CMD exits 0 and warns as PATTERN says.
warns() {
	n=$1 pat=$2
	shift 2
	"$@" > out 2> err
	st=$?
	if [ "$st" != 0 ]; then
		fail "$n" "exit status $st: $(head -3 err)"
	elif ! grep -Eq -- "$pat" err; then
		fail "$n" "no /$pat/ in: $(head -3 err)"
	else
		pass "$n"
	fi
}

# --- CPU profiles ------------------------------------------------------------
if ! [ -e /usr/include/gperftools/profiler.h ]; then
	fail exe-cpuprof "libprofiler missing (build-aux/deps.sh)"
elif ! $XP_CC -O0 -g -fPIE -pie -o fibprog "$src/fib.c" \
    -Wl,--no-as-needed -lprofiler 2> err; then
	fail exe-cpuprof-build "$(cat err)"
else
	for i in 1 2; do
		CPUPROFILE=$work/run$i.prof CPUPROFILE_FREQUENCY=1000 \
			./fibprog 29 > /dev/null 2>&1
	done
	quiet exe-cpuprof-right "$SHOW" -e ./fibprog run1.prof
	quiet exe-cpuprof-right-diff "$DIFF" -e ./fibprog run1.prof run1.prof
	# Another program: no PC of the profile in its code or functions.
	notexe='is not the executable that was profiled: none of the [0-9]+ sampled PCs'
	for exe in /bin/ls "$SHOW"; do
		b=${exe##*/}
		refuses exe-cpuprof-other-$b-show "" \
		    "run1.prof: $exe $notexe" "$SHOW" -e "$exe" run1.prof
		if grep -q "run1.prof: warning: the profile maps no file named $b; the program it profiled is $work/fibprog\$" err; then
			pass exe-cpuprof-other-$b-path
		else
			fail exe-cpuprof-other-$b-path "$(head -3 err)"
		fi
		refuses exe-cpuprof-other-$b-diff "" "$notexe" \
		    "$DIFF" -e "$exe" run1.prof run2.prof
		refuses exe-cpuprof-other-$b-merge fb.profile "$notexe" \
		    "$MERGE" --feedback -e "$exe" -o fb.profile run1.prof
	done
	refuses exe-cpuprof-missing "" "^xprof_show: $work/nonexistent: " \
	    "$SHOW" -e "$work/nonexistent" run1.prof
	# The same file name, another build: one small function before the
	# others moves them all.
	mkdir b2 b3
	{ echo 'int first_fn(int x) { return x * 3 + 1; }'; cat "$src/fib.c"
	} > b2/fib.c
	{ cat "$src/fib.c"
	  echo 'int big_fn(int x) { __asm__(".skip 20000, 0x90"); return x; }'
	} > b3/fib.c
	if $XP_CC -O0 -g -fPIE -pie -o b2/fibprog b2/fib.c \
	       -Wl,--no-as-needed -lprofiler 2> err &&
	   $XP_CC -O0 -g -fPIE -pie -o b3/fibprog b3/fib.c \
	       -Wl,--no-as-needed -lprofiler 2>> err; then
		warns exe-cpuprof-build-calls "run1.prof: warning: [0-9]+ of the [0-9]+ return addresses in b2/fibprog \(.*\) follow no call instruction there" \
		    "$SHOW" -e b2/fibprog run1.prof
		warns exe-cpuprof-build-segment "run1.prof: warning: the profile maps $work/fibprog at .* but the code segment of b3/fibprog \(build id [0-9a-f]+\) is 0x[0-9a-f]+ bytes" \
		    "$SHOW" -e b3/fibprog run1.prof
		# The build id is the one readelf -n reads.
		id=$(readelf -n b3/fibprog 2>/dev/null |
		    awk '/Build ID:/ { print $3; exit }')
		if [ -n "$id" ] && grep -q "(build id $id)" err; then
			pass exe-cpuprof-build-id
		else
			fail exe-cpuprof-build-id "readelf says '$id': $(head -2 err)"
		fi
	else
		fail exe-cpuprof-build "$(cat err)"
	fi

	# Without -e: names by file and offset.  run1 loaded 16 MiB higher
	# is the same profile.  (Numbers in awk are doubles: exact to 2^53,
	# and printf's %x is not, so hex is written by hand.)
	"$BTOA" run1.prof run1.text
	awk -v d=16777216 '
	function hex(s,   v, i) { v = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	function tohex(v, w,   s, q) { s = ""
		while (v > 0 || length(s) < w) { q = int(v / 16)
			s = substr("0123456789abcdef", v - 16 * q + 1, 1) s; v = q }
		return s }
	function mv(s,   v) { v = hex(s)
		return v >= lo && v <= hi ? "0x" tohex(v + d, 1) : s }
	NR == FNR { if ($1 == "map" && $NF ~ /\/fibprog$/) { split($2, r, "-")
			if (!lo || hex(r[1]) < lo) lo = hex(r[1])
			if (hex(r[2]) > hi) hi = hex(r[2]) }
		next }
	$1 == "sample" { for (i = 3; i <= NF; i++) $i = mv($i) }
	$1 == "map" && $NF ~ /\/fibprog$/ { split($2, r, "-")
		$2 = tohex(hex(r[1]) + d, length(r[1])) "-" \
		     tohex(hex(r[2]) + d, length(r[2])) }
	{ print }' run1.text run1.text > moved.text
	"$ATOB" moved.text moved.prof 2> err
	if "$DIFF" run1.prof moved.prof > out 2>> err; then
		pass exe-cpuprof-offsets-moved
	else
		fail exe-cpuprof-offsets-moved "$(head -3 err) $(sed -n 3,8p out)"
	fi
	# Two runs share the program's procedures, named by offset (a sample
	# may land in a library that the other run has none in).
	"$DIFF" run1.prof run2.prof > out 2> err
	if [ $? -le 1 ] && ! [ -s err ] &&
	    grep -q "^object files: [1-9][0-9]* in both," out &&
	    grep -Eq "^procedures: [1-9][0-9]* in both" out &&
	    grep -q " fibprog+0x[0-9a-f]*\$" out &&
	    ! grep -Eq "\[unknown\]| [0-9a-f]{12,}\$" out; then
		pass exe-cpuprof-offsets-runs
	else
		fail exe-cpuprof-offsets-runs "$(head -3 err) $(sed -n 3,12p out)"
	fi
fi

# --- gmon.out ------------------------------------------------------------------
mkdir g g2
if ! command -v gprof > /dev/null 2>&1 ||
   ! $XP_CC -pg -O1 -g -o g/cc "$src/callcounts.c" 2> err; then
	fail exe-gmon-build "gprof missing or gcc -pg failed: $(head -3 err)"
else
	(cd g && ./cc > /dev/null)
	quiet exe-gmon-right "$SHOW" -e g/cc g/gmon.out
	refuses exe-gmon-other-show "" \
	    "g/gmon.out: /bin/ls is not the executable that was profiled: none of the [0-9]+ recorded PCs" \
	    "$SHOW" -e /bin/ls g/gmon.out
	refuses exe-gmon-other-merge fb.profile "is not the executable" \
	    "$MERGE" --feedback -e /bin/ls -o fb.profile g/gmon.out
	{ echo 'int first_fn(int x) { return x * 3 + 1; }'
	  cat "$src/callcounts.c"; } > g2/cc.c
	if $XP_CC -pg -O1 -g -o g2/cc g2/cc.c 2> err; then
		warns exe-gmon-build "g/gmon.out: warning: the histogram covers 0x[0-9a-f]+-0x[0-9a-f]+, but g2/cc \(build id [0-9a-f]+\) runs from 0x[0-9a-f]+ \(__executable_start\) to 0x[0-9a-f]+ \(etext\)" \
		    "$SHOW" -e g2/cc g/gmon.out
	else
		fail exe-gmon-build "$(head -3 err)"
	fi
fi

# --- DCPI --------------------------------------------------------------------
GEN=$XP_BUILD/tests/dcpigen
if ! [ -x "$GEN" ] ||
   ! gcc -g -O0 -o hot "$SRCDIR/tests/dcpi/hot.c" 2> err; then
	fail exe-dcpi "no $GEN, or hot.c does not build: $(head -3 err)"
else
	hot=$(nm hot | awk '$3 == "hot" { print $1 }')
	"$GEN" -t "$hot" -P "$work/hot" -S 0x4:5 -S 0x20:3 > p.prof
	quiet exe-dcpi-right "$SHOW" -e hot p.prof
	# 0x100000 past hot: in no function of hot, nor of a small program.
	"$GEN" -t 100000 -P "$work/hot" -S 0x4:5 > far.prof
	refuses exe-dcpi-other "" \
	    "far.prof: hot is not the executable that was profiled: none of the 5 samples" \
	    "$SHOW" -e hot far.prof
	cp hot hot2
	warns exe-dcpi-path "p.prof: warning: the profile's path line names $work/hot, not a file named hot2" \
	    "$SHOW" -e hot2 p.prof
fi

cd / && rm -rf "$work"
exit $failed
