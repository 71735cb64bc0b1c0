#!/bin/sh
# scale.sh - how each tool's cost grows with its work (make bench).
#
# Every tool runs on 1x, 4x and 16x of its workload: feedback texts of
# BENCH_SCALE_MB, 4 and 16 times as many MiB (default 2, 8 and 32), made
# by the generator, their databases and, for xprof_tcov, the source files
# their SRCFILE sections name (bench/src.awk; about 1,300 files at 16x).
# It prints the median time of $BENCH_RUNS runs at each size and the
# fitted exponent log(t16/t1) / log(w16/w1), where w is the work: bytes of
# text (atob, btoa), bytes of database input (merge of 4 runs, diff,
# show) or lines of source (tcov).  w16/w1 is about 16.  Linear cost
# gives 1; the target is at most 1.1.  For merge it also fits its peak
# RSS to the bytes of its output (the target is the same).
#
# Environment: ATOB, BTOA, MERGE, DIFF, SHOW, TCOV, BENCH_GEN,
# BENCH_RUSAGE, BENCH_MEMCPY (make bench sets them), BENCH_DIR,
# BENCH_SEED, BENCH_RUNS and BENCH_SCALE_MB (default 2).
#
# Lists of paths in variables are split into words on purpose: no path of
# the benchmark holds white space.

BENCH_NAME=bench-scale
BENCH_TOOLS="ATOB BTOA MERGE DIFF SHOW TCOV BENCH_GEN"
. "$(dirname "$0")/common.sh"

: "${BENCH_SCALE_MB:=2}"

w=$BENCH_DIR/scale
mkdir -p "$w" || die "cannot create $w"
w=$(cd "$w" && pwd) || die "cannot enter $w"
srcawk=$(dirname "$0")/src.awk

# The workloads of the three sizes, made before anything is timed.
echo "making the scaling workloads in $w ..."
for x in 1 4 16; do
	mb=$(awk -v a="$BENCH_SCALE_MB" -v x=$x 'BEGIN { print a * x }')
	d=$w/x$x-s$BENCH_SEED-m$mb
	eval "d$x=\$d"
	mkdir -p "$d" || die "cannot create $d"
	k=0
	while [ $k -le 3 ]; do
		gen_file "$d/run$k.text" -s "$BENCH_SEED" -m "$mb" -r $k
		if [ ! -s "$d/db$k/feedback" ] ||
		   [ -n "$(find "$d/run$k.text" "$ATOB" -newer "$d/db$k/feedback")" ]
		then
			rm -rf "$d/db$k"
			"$ATOB" "$d/run$k.text" "$d/db$k" || die "xprof_atob failed"
		fi
		k=$((k + 1))
	done
	if [ ! -s "$d/src.list" ] || [ "$d/run0.text" -nt "$d/src.list" ]; then
		rm -rf "$d/src"
		awk -v root="$d/src" -f "$srcawk" "$d/run0.text" \
			> "$d/src.list" || die "cannot write the source files"
	fi
done

# bytes FILE...: their total size.
bytes() {
	cat "$@" | wc -c
}

# scale TOOL: the medians t1, t4, t16 and the peak RSS m1, m4, m16 of the
# command scale_cmd (a function of the size's directory) at each size.
scale() {
	for x in 1 4 16; do
		eval "d=\$d$x"
		pair "scale-$1" "$BENCH_DIR/scale.out" "$(scale_cmd "$d")" "" ""
		eval "t$x=\$ta m$x=\$rssa"
	done
	rm -rf "$BENCH_DIR/scale.out"
}

# fit C1 C16 W1 W16: the exponent of the cost C over the work W.
fit() {
	awk -v a="$1" -v b="$2" -v u="$3" -v v="$4" 'BEGIN {
		ok = a > 0 && b > 0 && u > 0 && v > u
		printf "%.6f", ok ? log(b / a) / log(v / u) : 0 }'
}

# line TOOL UNIT W1 W4 W16: prints the tool's row from t1, t4, t16.
line() {
	e=$(fit "$t1" "$t16" "$3" "$5")
	printf '  %-6s %6.3f s %6.3f s %7.3f s  (%s %s, %s, %s)' \
		"$1" "$t1" "$t4" "$t16" "$2" "$3" "$4" "$5"
	echo "  exponent $(dec 2 "$e")  target <= 1.1: $(verdict "$e" "<=" 1.1)"
}

echo
echo "Cost against work: median seconds at 1x, 4x and 16x"
describe_runs
echo "  exponent: log(t16/t1) / log(w16/w1), w the work in the unit shown"
echo

o=$BENCH_DIR/scale.out
scale_cmd() { echo "$ATOB $1/run0.text $o"; }
scale atob
line atob "bytes of text" $(bytes "$d1/run0.text") \
	$(bytes "$d4/run0.text") $(bytes "$d16/run0.text")

scale_cmd() { echo "$BTOA $1/db0 $o"; }
scale btoa
line btoa "bytes of text" $(bytes "$d1/run0.text") \
	$(bytes "$d4/run0.text") $(bytes "$d16/run0.text")

scale_cmd() { echo "$MERGE -q -o $o $1/db0 $1/db1 $1/db2 $1/db3"; }
scale merge
in1=$(bytes "$d1"/db[0-3]/feedback)
in16=$(bytes "$d16"/db[0-3]/feedback)
line merge "bytes of input" "$in1" $(bytes "$d4"/db[0-3]/feedback) "$in16"
"$MERGE" -q -o "$o" "$d1"/db[0-3] && out1=$(bytes "$o/feedback")
rm -rf "$o"
"$MERGE" -q -o "$o" "$d16"/db[0-3] && out16=$(bytes "$o/feedback")
rm -rf "$o"
e=$(fit "$m1" "$m16" "$out1" "$out16")
printf '  %-6s peak RSS %s, %s, %s MiB (bytes of output %s, %s)' \
	merge "$(mib "$m1")" "$(mib "$m4")" "$(mib "$m16")" "$out1" "$out16"
echo "  exponent $(dec 2 "$e")  target <= 1.1: $(verdict "$e" "<=" 1.1)"

allow=1
scale_cmd() { echo "$DIFF $1/db0 $1/db1"; }
scale diff
allow=0
line diff "bytes of input" $(bytes "$d1"/db[01]/feedback) \
	$(bytes "$d4"/db[01]/feedback) $(bytes "$d16"/db[01]/feedback)

scale_cmd() { echo "$SHOW -n 10 $1/db0"; }
scale show
line show "bytes of input" $(bytes "$d1/db0/feedback") \
	$(bytes "$d4/db0/feedback") $(bytes "$d16/db0/feedback")

scale_cmd() {
	echo "$TCOV -q -o $o -p /build $1/src/build -x $1/db0" \
		"$(tr '\n' ' ' < "$1/src.list")"
}
scale tcov
line tcov "lines of source" $(cat $(cat "$d1/src.list") | wc -l) \
	$(cat $(cat "$d4/src.list") | wc -l) $(cat $(cat "$d16/src.list") | wc -l)
echo "  tcov at 16x: $(wc -l < "$d16/src.list") source files"
