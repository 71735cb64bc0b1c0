#!/bin/sh
# cpuprof.sh - gperftools CPU profiles (cpuprofile(5)) through the tools:
#
#  - every real file of ../shared/realdata/gperftools and every file of
#    tests/fuzz/corpus/cpuprof goes to text and back to the same bytes,
#    and its text back to the same text;
#  - xprof_show agrees with what google-pprof --text printed for the real
#    files (exactly where the profiled machine's libraries are here), and
#    with go tool pprof on the Java profile;
#  - merging: sums, weights, --rescale, and a profile whose executable
#    was loaded elsewhere (rebased, not mixed);
#  - live: a program built with -lprofiler is profiled twice; xprof_show
#    must print what google-pprof --text (and --lines) prints, and its
#    folded stacks what google-pprof --collapsed prints, also with
#    a sample added in shared libraries, and for a C++ program; the same
#    programs and tests/cpuprof/inline.c at -O0 and at -O2, where the
#    frames of inlined calls count as google-pprof counts them; the merged
#    file must give google-pprof and go tool pprof what they give for the
#    two inputs at once; the conversion to feedback feeds xprof_diff;
#    its procedures' sums are google-pprof's flat samples, their entries
#    the cumulative ones, and the never-run functions of the executable
#    are there at 0 for xprof_tcov.
#  - canonical sums: three runs merged in any order give the same bytes;
#    real profiles too, and google-pprof --text prints for their sum what
#    it printed before the sum was canonical
#    (tests/cpuprof/canonical.google-pprof-text.expected.txt); runs
#    adding to one file at once with --accumulate lose nothing.
#
# Prints "PASS name" or "FAIL name: why" per case; exits 1 if any failed.

. "${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib/tools.sh"


work=$(mktemp -d "$TMPDIR/cpuprof.XXXXXX") || exit 2
real=$(cd "$SRCDIR/../shared/realdata/gperftools" 2>/dev/null && pwd)
here=$SRCDIR/tests/cpuprof

# --- lossless text form ---------------------------------------------------
for f in "$real"/*.prof "$real"/*.cpu "$SRCDIR"/tests/fuzz/corpus/cpuprof/*; do
	[ -f "$f" ] || continue
	n=cpuprof-roundtrip-$(basename "$f")
	case $f in
	*.text)
		if "$ATOB" "$f" "$work/rt.bin" 2>"$work/err" &&
		    "$BTOA" "$work/rt.bin" "$work/rt.text" 2>>"$work/err" &&
		    cmp -s "$f" "$work/rt.text"; then
			pass "$n"
		else
			fail "$n" "not the same text back: $(head -3 "$work/err")"
		fi
		rm -f "$work/rt.text" "$work/rt.bin"
		continue ;;
	esac
	if "$BTOA" "$f" "$work/rt.text" 2>"$work/err" &&
	    "$ATOB" "$work/rt.text" "$work/rt.bin" 2>>"$work/err" &&
	    cmp -s "$f" "$work/rt.bin" &&
	    "$BTOA" "$work/rt.bin" "$work/rt2.text" 2>>"$work/err" &&
	    cmp -s "$work/rt.text" "$work/rt2.text"; then
		pass "$n"
	else
		fail "$n" "not the same bytes back: $(head -3 "$work/err")"
	fi
	rm -f "$work/rt.text" "$work/rt.bin" "$work/rt2.text"
done
"$BTOA" "$real/fib32.prof" - 2>/dev/null | head -n 3 > "$work/head"
printf 'CPUPROF-TEXT 1\nlayout 32le\nheader 0 3 0 1000 0\n' > "$work/head.exp"
if cmp -s "$work/head" "$work/head.exp"; then
	pass cpuprof-text-header-32le
else
	fail cpuprof-text-header-32le "unexpected text header"
fi
"$BTOA" "$real/fib_s390x.prof" - 2>/dev/null | sed -n 2p > "$work/layout"
if [ "$(cat "$work/layout")" = "layout 64be" ]; then
	pass cpuprof-text-layout-64be
else
	fail cpuprof-text-layout-64be "got $(cat "$work/layout")"
fi
if "$BTOA" "$real/profile_testdata_java.cpu" - 2>/dev/null |
    grep -q '^header 0 3 1 10000 0$'; then
	pass cpuprof-text-java-header
else
	fail cpuprof-text-java-header "the Java variant's header is wrong"
fi

# --- reports of the real files --------------------------------------------
for pair in fib:fib_prof fib_nopie:fib_prof_nopie; do
	f=${pair%%:*} exe=${pair#*:}
	n=cpuprof-show-$f
	# The right executable: the check of -e says nothing.
	if "$SHOW" -e "$real/$exe" "$real/$f.prof" >"$work/show" 2>"$work/err" &&
	    cmp -s "$work/show" "$real/$f.google-pprof-text.expected.txt" &&
	    [ ! -s "$work/err" ]; then
		pass "$n"
	else
		fail "$n" "differs from google-pprof --text"
		diff "$work/show" "$real/$f.google-pprof-text.expected.txt" >&2
	fi
done
# The i386 and s390x libraries are not on this machine: their frames stay
# addresses, every other line must be google-pprof's own.
for pair in fib32:fib_prof32 fib_s390x:fib_prof_s390x; do
	f=${pair%%:*} exe=${pair#*:}
	n=cpuprof-show-$f
	exp=$real/$f.google-pprof-text.expected.txt
	if ! "$SHOW" -e "$real/$exe" "$real/$f.prof" >"$work/show" 2>"$work/err"
	then
		fail "$n" "xprof_show failed: $(cat "$work/err")"
		continue
	fi
	bad=$(grep -v ' [0-9a-f]\{8,16\}$' "$work/show" | while IFS= read -r l; do
		grep -qxF "$l" "$exp" || echo "$l"; done)
	if [ -n "$bad" ] || [ "$(wc -l < "$work/show")" != "$(wc -l < "$exp")" ]
	then
		fail "$n" "lines google-pprof did not print: $bad"
	elif [ -s "$work/err" ]; then
		fail "$n" "the right executable, yet: $(head -n 1 "$work/err")"
	else
		pass "$n"
	fi
done
# go tool pprof -top -symbolize=none on the Java profile: the same
# functions with the same flat and cumulative samples (10 ms each).
"$SHOW" "$real/profile_testdata_java.cpu" 2>"$work/err" |
	awk 'NR > 1 { print $1 * 10, $4 * 10, $6 }' | sort > "$work/java.ours"
awk 'NF == 6 && $1 != "flat" {
	f = $1; c = $4; sub(/ms$/, "", f); sub(/ms$/, "", c); print f, c, $6 }' \
	"$real/profile_testdata_java.cpu.go-pprof-top.expected.txt" |
	sort > "$work/java.go"
if [ -s "$work/java.go" ] && cmp -s "$work/java.ours" "$work/java.go"; then
	pass cpuprof-show-java
else
	fail cpuprof-show-java "differs from go tool pprof -top"
	diff "$work/java.ours" "$work/java.go" | head >&2
fi
if (cd "$real" && "$SHOW" --format=json -e fib_prof fib.prof) \
    >"$work/json" 2>"$work/err" && cmp -s "$work/json" "$here/fib.json"; then
	pass cpuprof-show-json
else
	fail cpuprof-show-json "differs from tests/cpuprof/fib.json"
	diff "$work/json" "$here/fib.json" | head >&2
fi

# --- merging --------------------------------------------------------------
cp "$real/fib.prof" "$work/a.prof"
total() { sed -n 's/^Total: \([0-9]*\) samples$/\1/p' "$1"; }
if "$MERGE" -o "$work/m.prof" "$work/a.prof" "$work/a.prof" 2>"$work/err" &&
    "$SHOW" -e "$real/fib_prof" "$work/m.prof" >"$work/s1" &&
    "$SHOW" -e "$real/fib_prof" "$work/a.prof" "$work/a.prof" >"$work/s2" &&
    cmp -s "$work/s1" "$work/s2" && [ "$(total "$work/s1")" = 678 ]; then
	pass cpuprof-merge-sum
else
	fail cpuprof-merge-sum "$(cat "$work/err")"
fi
if "$MERGE" -o "$work/w.prof" -w 3,"$work/a.prof" 2>"$work/err" &&
    "$SHOW" -e "$real/fib_prof" "$work/w.prof" >"$work/s1" &&
    [ "$(total "$work/s1")" = 1017 ]; then
	pass cpuprof-merge-weight
else
	fail cpuprof-merge-weight "$(cat "$work/err")"
fi
# A period of 2000 us: refused, or rescaled to 1000 us (counts doubled).
"$BTOA" "$work/a.prof" - | sed 's/^header 0 3 0 1000 0$/header 0 3 0 2000 0/' \
	> "$work/p2.text"
"$ATOB" "$work/p2.text" "$work/p2.prof"
"$MERGE" -o "$work/r.prof" "$work/a.prof" "$work/p2.prof" 2>"$work/err"
st=$?
printf '%s\n' "xprof_merge: $work/p2.prof: sampling period 2000 us differs from 1000 us of the profiles before it (rescale to merge)" > "$work/err.exp"
if [ "$st" = 2 ] && [ ! -e "$work/r.prof" ] && cmp -s "$work/err" "$work/err.exp"
then
	pass cpuprof-merge-period-refused
else
	fail cpuprof-merge-period-refused "status $st: $(cat "$work/err")"
fi
if "$MERGE" --rescale -o "$work/r.prof" "$work/a.prof" "$work/p2.prof" \
    2>"$work/err" && "$SHOW" -e "$real/fib_prof" "$work/r.prof" >"$work/s1" &&
    [ "$(total "$work/s1")" = 1017 ]; then
	pass cpuprof-merge-rescale
else
	fail cpuprof-merge-rescale "$(cat "$work/err")"
fi
# The same executable loaded 16 MiB higher in another process: its PCs
# must be moved back, so the sum reads like the profile twice.
"$BTOA" "$work/a.prof" - | perl -ne '
	BEGIN { ($lo, $hi, $d) = (0x56245ce1f000, 0x56245ce24000, 0x1000000) }
	if (/^sample /) {
		s/0x([0-9a-f]+)/my $v = hex($1);
		  sprintf("0x%x", $v >= $lo && $v <= $hi ? $v + $d : $v)/ge;
	} elsif (/^map ([0-9a-f]+)-([0-9a-f]+)( .*fib_prof)$/) {
		$_ = sprintf("map %x-%x%s\n", hex($1) + $d, hex($2) + $d, $3);
	}
	print' > "$work/moved.text"
"$ATOB" "$work/moved.text" "$work/moved.prof"
if "$MERGE" -o "$work/mv.prof" "$work/a.prof" "$work/moved.prof" \
    2>"$work/err" && "$SHOW" -e "$real/fib_prof" "$work/mv.prof" >"$work/s1" &&
    "$SHOW" -e "$real/fib_prof" "$work/a.prof" "$work/a.prof" >"$work/s2" &&
    cmp -s "$work/s1" "$work/s2" &&
    ! "$SHOW" -e "$real/fib_prof" "$work/moved.prof" | cmp -s - "$work/s1"
then
	pass cpuprof-merge-rebased
else
	fail cpuprof-merge-rebased "the moved executable was not rebased"
fi
if "$MERGE" -o "$work/j.prof" "$real/profile_testdata_java.cpu" \
    "$work/a.prof" 2>"$work/err"; then
	fail cpuprof-merge-java-cpp "a Java and a C++ profile were merged"
else
	pass cpuprof-merge-java-cpp
fi

# --- live: google-pprof and go tool pprof ----------------------------------
if ! command -v google-pprof >/dev/null 2>&1 ||
   ! [ -e /usr/include/gperftools/profiler.h ]; then
	fail cpuprof-live "google-pprof or libprofiler missing (build-aux/deps.sh)"
	exit 1
fi
cd "$work" || exit 2
# live_build NAME COMPILER LEVEL SOURCE: NAME built with -OLEVEL -g and
# libprofiler, or a failure.
live_build() {
	if $2 -O"$3" -g -o "$1" "$4" -Wl,--no-as-needed -lprofiler \
	    2>"$work/err"; then
		return 0
	fi
	fail "cpuprof-live-build-$1" "$(cat "$work/err")"
	return 1
}
# fibprog, built at -O0, serves the cases that need a program after the
# reports; fibprog-O2 is the same at -O2.
live_build fibprog "$XP_CC" 0 "$SRCDIR/../shared/realdata/src/fib.c" ||
	exit 1
for i in 1 2 3; do
	CPUPROFILE=$work/run$i.prof CPUPROFILE_FREQUENCY=1000 \
		./fibprog 29 >/dev/null 2>&1
done
# pprof_same NAME EXE PROFILE: xprof_show prints what google-pprof --text
# and --text --lines print (ours.txt keeps the plain report), and its
# folded stacks are google-pprof --collapsed's lines, in sorted order.
pprof_same() {
	google-pprof --collapsed "$2" "$3" 2>/dev/null | LC_ALL=C sort >pp.txt
	if "$SHOW" --format=folded -e "$2" "$3" >ours.txt 2>err &&
	    [ -s pp.txt ] && cmp -s pp.txt ours.txt; then
		pass "$1-folded"
	else
		fail "$1-folded" "differs from google-pprof --collapsed"
		diff pp.txt ours.txt | head -4 | cut -c 1-200 >&2
	fi
	for mode in --lines ""; do
		google-pprof --text $mode "$2" "$3" >pp.txt 2>/dev/null
		if "$SHOW" $mode -e "$2" "$3" >ours.txt 2>err &&
		    [ -s pp.txt ] && cmp -s pp.txt ours.txt; then
			pass "$1${mode:+-lines}"
		else
			fail "$1${mode:+-lines}" "differs from google-pprof --text $mode"
			diff pp.txt ours.txt | head >&2
		fi
	done
}

for i in 1 2; do
	pprof_same cpuprof-live-pprof-run$i ./fibprog run$i.prof
	n=cpuprof-live-roundtrip-run$i
	if "$BTOA" run$i.prof rt.text && "$ATOB" rt.text rt.prof &&
	    cmp -s rt.prof run$i.prof; then
		pass "$n"
	else
		fail "$n" "not the same bytes back"
	fi
done
# has_names NAME PATTERN...: every pattern (grep) matches in ours.txt.
has_names() {
	n=$1
	shift
	for pat in "$@"; do
		if ! grep -q -- "$pat" ours.txt; then
			fail "$n" "no $pat in: $(head -8 ours.txt)"
			return
		fi
	done
	pass "$n"
}

# A sample in libprofiler's CpuProfiler::~CpuProfiler called from libc's
# __cxa_finalize, as when a sample lands at exit: pprof names both from
# nm -D, demangled and with the symbol version.
"$BTOA" run1.prof lib.text
# exec_map PATTERN: start, file offset and path of the first executable
# mapping whose path matches.
exec_map() {
	awk -v p="$1" '$1 == "map" && $3 ~ /x/ && $NF ~ p {
		split($2, r, "-"); print r[1], $4, $NF; exit }' lib.text
}
set -- $(exec_map '/libprofiler[.]so')
pstart=$1 poff=$2 ppath=$3
set -- $(exec_map '/libc[.]so')
cstart=$1 coff=$2 cpath=$3
dtor=$(nm -D --defined-only "$ppath" 2>/dev/null |
	awk '$3 == "_ZN11CpuProfilerD1Ev" { print $1; exit }')
fin=$(nm -D --defined-only "$cpath" 2>/dev/null |
	awk '$3 ~ /^__cxa_finalize(@|$)/ { print $1; exit }')
if [ -z "$dtor" ] || [ -z "$fin" ]; then
	fail cpuprof-live-libs "no CpuProfiler::~CpuProfiler or __cxa_finalize"
else
	leaf=$(printf '%#x' $((0x$pstart - 0x$poff + 0x$dtor + 16)))
	caller=$(printf '%#x' $((0x$cstart - 0x$coff + 0x$fin + 0x46)))
	awk -v s="sample 1 $leaf $caller" '/^trailer$/ { print s } { print }' \
		lib.text > lib2.text
	if "$ATOB" lib2.text lib.prof 2>err; then
		pprof_same cpuprof-live-libs ./fibprog lib.prof
		has_names cpuprof-live-libs-names ' CpuProfiler::~CpuProfiler$' \
		    ' __cxa_finalize@@GLIBC_'
	else
		fail cpuprof-live-libs "$(cat err)"
	fi
fi

# C++: demangled, shortened names; overloads told apart by address.
if live_build namesprog "$XP_CXX" 0 "$SRCDIR/tests/cpuprof/names.cc"; then
	CPUPROFILE=$work/names.prof CPUPROFILE_FREQUENCY=1000 \
		./namesprog 300 >/dev/null 2>&1
	pprof_same cpuprof-live-cxx ./namesprog names.prof
	has_names cpuprof-live-cxx-names ' shapes::spin@[0-9a-f]*$' \
	    ' shapes::Grid::'
	# As feedback, functions go by their linker (mangled) names, which
	# the feedback text can hold: the database goes to text and back
	# to the same bytes, every procedure of the program is one of its
	# function symbols, and the two overloads of shapes::spin and the
	# two instances of Grid<T>::fill are procedures of their own.
	rm -rf cxx.profile cxx.back
	if "$MERGE" --feedback -e ./namesprog -o cxx.profile names.prof \
	    2>err && "$BTOA" cxx.profile cxx.text 2>>err &&
	    "$ATOB" cxx.text cxx.back 2>>err &&
	    cmp cxx.profile/feedback cxx.back/feedback >>err 2>&1; then
		nm --defined-only namesprog | awk '$2 ~ /^[tTwW]$/ { print $3 }' |
		    sort -u >cxx.syms
		awk '/^OBJFILE:/ { obj = substr($1, 9) }
		    /^PROC: / && obj == "./namesprog" { print $2 }' cxx.text |
		    sort -u >cxx.procs
		bad=$(comm -23 cxx.procs cxx.syms | head -3)
		for want in _ZN6shapes4spinEl _ZN6shapes4spinEd \
		    _ZN6shapes4GridIlE4fillEl _ZN6shapes4GridIdE4fillEd main; do
			grep -qx "$want" cxx.procs || bad="$bad missing $want"
		done
		if [ -z "$bad" ] && [ -s cxx.procs ]; then
			pass cpuprof-feedback-cxx-names
		else
			fail cpuprof-feedback-cxx-names "not linker names:$bad"
		fi
	else
		fail cpuprof-feedback-cxx-names "$(head -n 3 err)"
	fi
fi

# Optimised builds: at -O2 gcc inlines small functions, and google-pprof
# (addr2line -i) reports every inlined call as a frame of its own named
# "NAME (inline)", with its line, before the function that holds the
# code, whose line is that of the call.  tests/cpuprof/inline.c is a
# quicksort whose helpers are inlined; at -O2 its report must have such
# frames, or the compiler did not inline and the case proves nothing.
if live_build inline-O0 "$XP_CC" 0 "$here/inline.c"; then
	CPUPROFILE=$work/inline-O0.prof CPUPROFILE_FREQUENCY=1000 \
		./inline-O0 100 >/dev/null 2>&1
	pprof_same cpuprof-live-inline-O0 ./inline-O0 inline-O0.prof
fi
if live_build inline-O2 "$XP_CC" 2 "$here/inline.c"; then
	CPUPROFILE=$work/inline-O2.prof CPUPROFILE_FREQUENCY=1000 \
		./inline-O2 100 >/dev/null 2>&1
	pprof_same cpuprof-live-inline-O2 ./inline-O2 inline-O2.prof
	has_names cpuprof-live-inline-O2-frames '^ .* partition (inline)$' \
	    '^ .* quick_rec'
	# Every address of its functions main and quick_rec* as a leaf
	# called from main: every chain of inlined calls there is compared.
	"$BTOA" inline-O2.prof every.text
	nm -S --defined-only inline-O2 | perl -e '
	    my ($start, $off, @fn, $main);
	    open(T, "<", "every.text") or die;
	    my @t = <T>;
	    for (@t) {
	        ($start, $off) = (hex($1), hex($2))
	            if !defined $start &&
	               /^map ([0-9a-f]+)-\S+ ..x. ([0-9a-f]+) .*inline-O2$/;
	    }
	    while (<STDIN>) {
	        my ($a, $sz, $ty, $n) = split;
	        next unless $ty =~ /^[tT]$/ && $n =~ /^(main|quick_rec)/;
	        push @fn, [hex($a), hex($sz)];
	        $main = hex($a) if $n eq "main";
	    }
	    for (@t) {
	        if (/^trailer$/) {
	            for my $f (@fn) {
	                for my $a ($f->[0] .. $f->[0] + $f->[1] - 1) {
	                    printf "sample 1 0x%x 0x%x\n", $start - $off + $a,
	                        $start - $off + $main + 1;
	                }
	            }
	        }
	        print;
	    }' > every2.text
	if grep -q '^sample 1 ' every2.text &&
	    "$ATOB" every2.text every.prof 2>err; then
		pprof_same cpuprof-live-inline-O2-every ./inline-O2 every.prof
	else
		fail cpuprof-live-inline-O2-every "$(cat err)"
	fi
	# Without a symbol _fini (google-pprof's separator of addr2line's
	# answers) google-pprof does not run addr2line -i: one frame per PC.
	mv inline-O2 inline-O2.keep
	if objcopy --strip-symbol=_fini inline-O2.keep inline-O2 2>err; then
		pprof_same cpuprof-live-inline-O2-nofini ./inline-O2 every.prof
	else
		fail cpuprof-live-inline-O2-nofini "$(cat err)"
	fi
	mv inline-O2.keep inline-O2
fi
if live_build fibprog-O2 "$XP_CC" 2 "$SRCDIR/../shared/realdata/src/fib.c"
then
	for i in 1 2; do
		CPUPROFILE=$work/fib-O2-run$i.prof CPUPROFILE_FREQUENCY=1000 \
			./fibprog-O2 34 >/dev/null 2>&1
		pprof_same cpuprof-live-pprof-O2-run$i ./fibprog-O2 \
		    fib-O2-run$i.prof
	done
fi
if live_build namesprog-O2 "$XP_CXX" 2 "$SRCDIR/tests/cpuprof/names.cc"
then
	CPUPROFILE=$work/names-O2.prof CPUPROFILE_FREQUENCY=1000 \
		./namesprog-O2 300 >/dev/null 2>&1
	pprof_same cpuprof-live-cxx-O2 ./namesprog-O2 names-O2.prof
fi

"$MERGE" -o merged.prof run1.prof run2.prof 2>err
google-pprof --text ./fibprog merged.prof >pp.txt 2>/dev/null
google-pprof --text ./fibprog run1.prof run2.prof >pp2.txt 2>/dev/null
"$SHOW" -e ./fibprog run1.prof run2.prof >ours.txt 2>err
if [ -s pp.txt ] && cmp -s pp.txt ours.txt; then
	pass cpuprof-live-merged-pprof
else
	fail cpuprof-live-merged-pprof "google-pprof on the merged file differs"
	diff pp.txt ours.txt | head >&2
fi
if [ -n "$(total pp.txt)" ] && [ "$(total pp.txt)" = "$(total pp2.txt)" ]; then
	pass cpuprof-live-merged-pprof-total
else
	fail cpuprof-live-merged-pprof-total "$(total pp.txt) != $(total pp2.txt)"
fi
if command -v go >/dev/null 2>&1; then
	HOME=$work GOCACHE=$work/gocache go tool pprof -top -symbolize=local \
		fibprog merged.prof >go1.txt 2>/dev/null
	HOME=$work GOCACHE=$work/gocache go tool pprof -top -symbolize=local \
		fibprog run1.prof run2.prof >go2.txt 2>/dev/null
	if [ -s go1.txt ] && cmp -s go1.txt go2.txt; then
		pass cpuprof-live-merged-go-pprof
	else
		fail cpuprof-live-merged-go-pprof "go tool pprof differs"
		diff go1.txt go2.txt | head >&2
	fi
else
	fail cpuprof-live-merged-go-pprof "go missing (build-aux/deps.sh)"
fi

# --- canonical sums -----------------------------------------------------------
# Three runs, each with its own addresses, in any order and with weights:
# the same bytes, which google-pprof reads as xprof_show reads the runs.
"$MERGE" -o c123.prof run1.prof run2.prof run3.prof 2>err &&
    "$MERGE" -o c312.prof run3.prof run1.prof run2.prof 2>>err &&
    "$MERGE" -o c231.prof run2.prof run3.prof run1.prof 2>>err
if cmp -s c123.prof c312.prof && cmp -s c123.prof c231.prof; then
	pass cpuprof-live-canonical-order
else
	fail cpuprof-live-canonical-order "other bytes in another order: $(cat err)"
fi
if "$MERGE" -o w1.prof -w 2,run1.prof run2.prof -w 3,run3.prof 2>err &&
    "$MERGE" -o w2.prof -w 3,run3.prof -w 2,run1.prof run2.prof 2>>err &&
    cmp -s w1.prof w2.prof; then
	pass cpuprof-live-canonical-weights
else
	fail cpuprof-live-canonical-weights "other bytes in another order: $(cat err)"
fi
google-pprof --text ./fibprog c231.prof >pp3.txt 2>/dev/null
"$SHOW" -e ./fibprog run1.prof run2.prof run3.prof >ours3.txt 2>err
if [ -s pp3.txt ] && cmp -s pp3.txt ours3.txt; then
	pass cpuprof-live-canonical-pprof
else
	fail cpuprof-live-canonical-pprof "google-pprof on the sum differs"
	diff pp3.txt ours3.txt | head >&2
fi
# Real profiles: fib.prof naming its executable where it is here, the
# same loaded 16 MiB higher, fib_nopie.prof and the s390x profile, whose
# sum (fib.prof first) google-pprof --text read as the expected file.
mkdir canon && cp "$real/fib_prof" canon/fib_prof
"$BTOA" "$real/fib.prof" - |
    sed "s|/tmp/realdata/local/gperftools/fib_prof|$work/canon/fib_prof|" \
    > canon/fib.text
sed -e 's/0x56245ce2/0x56245de2/g' -e '/^map .*fib_prof$/s/56245ce/56245de/g' \
    canon/fib.text > canon/moved.text
"$ATOB" canon/fib.text canon/fib.prof && "$ATOB" canon/moved.text canon/moved.prof
set -- canon/fib.prof canon/moved.prof "$real/fib_nopie.prof" \
    "$real/fib_s390x.prof"
if "$MERGE" -o canon/a.prof "$1" "$2" "$3" "$4" 2>err &&
    "$MERGE" -o canon/b.prof "$4" "$2" "$3" "$1" 2>>err &&
    cmp -s canon/a.prof canon/b.prof; then
	pass cpuprof-canonical-order
else
	fail cpuprof-canonical-order "other bytes in another order: $(cat err)"
fi
google-pprof --text "$work/canon/fib_prof" canon/b.prof >canon/pp.txt \
    2>/dev/null
if cmp -s canon/pp.txt "$here/canonical.google-pprof-text.expected.txt"; then
	pass cpuprof-canonical-pprof
else
	fail cpuprof-canonical-pprof "google-pprof --text reads the sum otherwise"
	diff canon/pp.txt "$here/canonical.google-pprof-text.expected.txt" |
	    head >&2
fi
# Six runs adding real profiles to one file at once (--accumulate) take
# turns under its lock: the file ends as the sum of all at once.
set -- "$real/fib.prof" "$real/fib_nopie.prof" "$real/fib_s390x.prof"
for f in "$@" "$@"; do
	"$MERGE" -a -o canon/acc.prof "$f" 2>>canon/acc.err &
done
wait
if "$MERGE" -o canon/all.prof "$@" "$@" 2>err &&
    cmp -s canon/acc.prof canon/all.prof && [ ! -s canon/acc.err ]; then
	pass cpuprof-accumulate-concurrent
else
	fail cpuprof-accumulate-concurrent "not the sum: $(cat err canon/acc.err)"
fi

# --- conversion to feedback -------------------------------------------------
flat=$(awk '$6 == "fib" { print $1 }' ours.txt)
if "$MERGE" --feedback -e ./fibprog -o fb.profile run1.prof run2.prof \
    2>err && "$BTOA" fb.profile fb.text 2>>err &&
    awk '/^PROC: / { if (p) exit; p = $2 == "fib"; next }
	p && /^[0-9]+ [0-9]+$/ { s += $2 } END { print s + 0 }' \
    fb.text | grep -qx "$flat" && grep -q '^SRCFILE: .*fib\.c' fb.text; then
	pass cpuprof-feedback
else
	fail cpuprof-feedback "$(cat err)"
fi
# Sums are self cost: every procedure's sum in xprof_show of the feedback
# is its flat samples in google-pprof's report (never its cumulative ones
# added), and its entry, its first line, counts its cumulative samples.
# Only the program's own functions: a sample may land in libc, whose
# procedures the filter below leaves out.
nm --defined-only ./fibprog | awk '$2 ~ /^[tT]$/ { print $3 }' |
    sort -u > fns.txt
awk 'NF == 6 && $1 > 0 { print $6, $1 }' ours.txt | sort |
    join - fns.txt > flat.pp
awk 'NF == 6 && $4 > 0 { print $6, $4 }' ours.txt | sort > cum.pp
"$SHOW" -n 1000 fb.profile 2>err | sed -n '/^Hottest procedures/,/^$/p' |
    awk 'NF == 5 && $1 ~ /^[0-9]+$/ && $1 > 0 && $4 == "./fibprog" {
	print $5, $1 }' | sort > flat.ours
"$TCOV" -q -x fb.profile -o /dev/null --lcov fb.info \
    "$SRCDIR/../shared/realdata/src/fib.c" 2>>err
awk -F '[:,]' '$1 == "FNDA" && $2 > 0 { print $3, $2 }' fb.info |
    sort > cum.ours
if [ -s flat.pp ] && cmp -s flat.pp flat.ours &&
    join cum.pp cum.ours | awk '$2 != $3 { bad = 1 } END { exit bad }' &&
    [ "$(join cum.pp cum.ours | wc -l)" -ge 5 ]; then
	pass cpuprof-feedback-self-cost
else
	fail cpuprof-feedback-self-cost "$(cat err) $(diff flat.pp flat.ours |
	    head -5) $(join -a 1 cum.pp cum.ours | head -8)"
fi

# Every function of the executable's text is there, never-run ones at 0:
# covfns.c (tests/gmon) has five functions that its run never calls.
if $XP_CC -O0 -g -o covprof "$SRCDIR/tests/gmon/covfns.c" \
    -Wl,--no-as-needed -lprofiler 2>err &&
    CPUPROFILE=$work/cov.prof ./covprof 3000000 >/dev/null 2>&1 &&
    "$MERGE" --feedback -e ./covprof -o cov.profile cov.prof 2>err &&
    "$TCOV" -q -x cov.profile -o /dev/null --lcov cov.info \
        "$SRCDIR/tests/gmon/covfns.c" 2>>err &&
    grep -qx 'FNF:9' cov.info && grep -qx 'FNDA:0,never_called' cov.info &&
    grep -qx 'FNDA:0,never_static' cov.info; then
	pass cpuprof-feedback-never-run
else
	fail cpuprof-feedback-never-run "$(cat err) $(grep FN cov.info)"
fi

# Converted from a CPU profile, the counts are samples: xprof_tcov finds
# that in the profile directory's manifest and says so, in a warning, in
# the listing and in JSON; feedback of a compiler counts executions.
if [ -d cov.profile ] &&
    "$TCOV" -x cov.profile -o cov.tcov --json cov.json \
        "$SRCDIR/tests/gmon/covfns.c" 2>err &&
    grep -qx "xprof_tcov: cov.profile: warning: the counts are PC samples of a CPU profile, not executions: coverage is a lower bound" err &&
    grep -q '^	a line without samples may have run[.]$' cov.tcov &&
    grep -q '"counts": "samples"' cov.json &&
    "$TCOV" -q -x cov.profile -o /dev/null --json cov.json \
        "$SRCDIR/tests/gmon/covfns.c" 2>err && [ ! -s err ]; then
	pass cpuprof-feedback-sampled
else
	fail cpuprof-feedback-sampled "$(cat err; tail -3 cov.tcov)"
fi

"$DIFF" -e ./fibprog run1.prof run1.prof >/dev/null 2>err
s1=$?
# Two runs may well give the same few samples; run1 against the sum of
# both runs differs whenever run2 has a sample, and google-pprof's total
# above says it has.
"$MERGE" -o both.prof run1.prof run2.prof 2>>err
"$DIFF" -e ./fibprog run1.prof both.prof >/dev/null 2>>err
s2=$?
if [ "$s1" = 0 ] && [ "$s2" = 1 ]; then
	pass cpuprof-feedback-diff
else
	fail cpuprof-feedback-diff "exit statuses $s1 and $s2: $(cat err)"
fi

# At -O2 the procedures are the functions whose code holds the samples:
# the helpers inlined into others (nm lists no symbol of theirs) are none
# (they were once, under the names of the debugging information).
if [ -x inline-O2 ] &&
    "$MERGE" --feedback -e ./inline-O2 -o inl.profile inline-O2.prof 2>err &&
    "$BTOA" inl.profile inl.fb 2>>err; then
	bad=
	for f in partition swap before next_rand checksum; do
		nm inline-O2 | grep -q " $f\(\.\|$\)" && continue
		grep -q "^PROC: $f " inl.fb && bad="$bad $f"
	done
	if [ -n "$bad" ]; then
		fail cpuprof-feedback-inlined "inlined functions as PROCs:$bad"
	elif grep -q '^PROC: quick_rec' inl.fb; then
		pass cpuprof-feedback-inlined
	else
		fail cpuprof-feedback-inlined "no PROC quick_rec"
	fi
else
	fail cpuprof-feedback-inlined "$(cat err)"
fi

# A sample where the executable has no line information (_start, from
# crt1.o) is counted for its function but gives no source line: the
# conversion once wrote a tuple of line 0, which no reader accepts.
# (0x56245ce20065 is _start + 5 where fib.prof mapped fib_prof.)
"$BTOA" "$real/fib.prof" - |
    awk 'NR == 4 { print "sample 5 0x56245ce20065" } { print }' \
    > "$work/fib-nosrc.text"
if "$MERGE" --feedback -e "$real/fib_prof" -o "$work/nosrc.profile" \
       "$work/fib-nosrc.text" 2> "$work/err" &&
   "$BTOA" "$work/nosrc.profile" "$work/nosrc.fb" 2>> "$work/err" &&
   grep -q '^PROC: _start ' "$work/nosrc.fb"; then
	pass cpuprof-feedback-no-line
else
	fail cpuprof-feedback-no-line "$(head -n 1 "$work/err")"
fi

rm -rf "$work"
exit "$failed"
