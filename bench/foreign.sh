#!/bin/sh
# foreign.sh - xprof_merge of other profilers' files against their own
# tools (make bench).
#
#   gmon-8   8 gmon.out files of an 8,000-function program built with
#            gcc -pg (bench/prog.awk writes it; run 8 times with other
#            arguments): xprof_merge -e EXE  vs  gprof -s EXE gmon...
#            (target: at least 50x)
#   cpu-8    8 gperftools CPU profiles of 20,000 functions and 200,000
#            samples each (bench/cpuprof.c), merged by address:
#            xprof_merge  vs  go tool pprof -proto -symbolize=none
#            (target: at least 20x, and xprof under 100 MB of RSS)
#
# The workloads are made once, before anything is timed; each tool and
# its peer then run in turn, $BENCH_RUNS times each, pinned to one core,
# and a row prints the medians, peak RSS and the ratio peer / xprof with
# the physical references (bench/README).
#
# Environment: MERGE, BENCH_RUSAGE, BENCH_MEMCPY, BENCH_CPUPROF (make bench
# sets them), CC (default cc), GO (default go), BENCH_DIR, BENCH_RUNS,
# BENCH_CPU_SAMPLES (default 200000) and BENCH_CPU_FUNCS (default 20000).
#
# Lists of paths in variables are split into words on purpose: no path of
# the benchmark holds white space.

BENCH_NAME=bench-foreign
BENCH_TOOLS="MERGE BENCH_MEMCPY BENCH_CPUPROF"
. "$(dirname "$0")/common.sh"

: "${BENCH_CPU_SAMPLES:=200000}"
: "${BENCH_CPU_FUNCS:=20000}"
: "${GO:=go}"
cc=${CC:-cc}
command -v gprof >/dev/null 2>&1 || die "gprof not found (deps.sh --bench)"
command -v "$GO" >/dev/null 2>&1 || die "go not found (deps.sh --bench)"

w=$BENCH_DIR/foreign
mkdir -p "$w" || die "cannot create $w"
w=$(cd "$w" && pwd) || die "cannot enter $w"
awk=$(dirname "$0")/prog.awk

# The gmon.out program, built once and kept while its source is older.
echo "making the gmon.out and CPU profile workloads in $w ..."
if [ ! -x "$w/prog" ] || [ -n "$(find "$awk" -newer "$w/prog")" ]; then
	awk -v n=8000 -f "$awk" > "$w/prog.c" || die "cannot write prog.c"
	$cc -pg -O0 -o "$w/prog.tmp" "$w/prog.c" || die "cannot build prog"
	mv "$w/prog.tmp" "$w/prog" || die "cannot rename prog"
	rm -rf "$w"/gmon*
fi
gmons=
k=1
while [ $k -le 8 ]; do
	if [ ! -s "$w/gmon$k/gmon.out" ]; then
		mkdir -p "$w/gmon$k"
		(cd "$w/gmon$k" && ../prog $k)
		[ -s "$w/gmon$k/gmon.out" ] || die "prog wrote no gmon.out"
	fi
	gmons="$gmons $w/gmon$k/gmon.out"
	k=$((k + 1))
done

cpus=
k=1
while [ $k -le 8 ]; do
	f=$w/cpu$k-f$BENCH_CPU_FUNCS-n$BENCH_CPU_SAMPLES.prof
	if [ ! -s "$f" ] || [ -n "$(find "$BENCH_CPUPROF" -newer "$f")" ]; then
		"$BENCH_CPUPROF" -s $k -f "$BENCH_CPU_FUNCS" \
			-n "$BENCH_CPU_SAMPLES" -x "$w/prog" > "$f" ||
			die "cpuprof failed"
	fi
	cpus="$cpus $f"
	k=$((k + 1))
done

echo
echo "xprof_merge against gprof and go tool pprof"
describe_runs
echo "  gmon:    $(wc -c < "$w/gmon1/gmon.out") bytes per gmon.out," \
	"8,000 functions"
echo "  cpu:     $(cat $cpus | wc -c) bytes in 8 profiles of" \
	"$BENCH_CPU_FUNCS functions and $BENCH_CPU_SAMPLES samples"
echo

o=$BENCH_DIR/out
mkdir -p "$o" || die "cannot create $o"
pair gmon-8 "$o/gmon.sum" "$MERGE -q -e $w/prog -o $o/gmon.sum$gmons" \
	"$w/gmon.sum" "sh -c 'cd $w && exec gprof -s prog$gmons'"
refs "$o/gmon.sum"$gmons
row "gmon-8: 8 gmon.out  vs  gprof -s EXE gmon.out..." 50

pair cpu-8 "$o/cpu.prof" "$MERGE -q -o $o/cpu.prof$cpus" \
	"$o/cpu.pb.gz" \
	"$GO tool pprof -proto -symbolize=none -output $o/cpu.pb.gz$cpus"
refs "$o/cpu.prof"$cpus
row "cpu-8: 8 CPU profiles  vs  go tool pprof -proto -symbolize=none" 20
echo "    xprof's peak RSS under 100 MB: $(verdict "$rssa" "<=" 97656)"
rm -rf "$o" "$w/gmon.sum"
