#!/bin/sh
# run.sh - xprof's tools against llvm-profdata, side by side (make bench).
#
# The generator writes one program's counters in two forms from the same
# procedures: xprof's feedback text (gen) and LLVM's text profile format
# (gen -l), for run 0 and for the training runs 1 to 7 (gen -r K).  Every
# workload is made once, before anything is timed; then each tool and its
# peer run in turn, A B A B ..., $BENCH_RUNS times each, pinned to one
# core when taskset exists, and each row prints the medians, the peak RSS
# of both, the ratio peer time / xprof time against its target, and the
# physical references (bench/README):
#
#   atob       xprof_atob -j 1 TEXT DIR   llvm-profdata merge TEXT -o P
#   atob -j 2  xprof_atob -j 2 TEXT DIR, both on two cores
#   btoa       xprof_btoa DIR FILE        llvm-profdata merge --text P -o T
#   merge-8    xprof_merge of 8 runs      llvm-profdata merge --num-threads=1
#   merge-100  xprof_merge of 100 runs (no peer: GB/s of database input)
#   merge-100 -j 2   the same on two threads and two cores against -j 1
#   diff       xprof_diff A B             llvm-profdata overlap A B
#   show       xprof_show -n 10 DIR       llvm-profdata show --topn=10
#                                         --detailed-summary P
#
# and the absolute targets that still hold: atob >= 250 MB/s of text with
# a peak RSS <= 2x its database, btoa >= 500 MB/s, merge's peak RSS
# independent of the number of inputs, and btoa giving back the text.
#
# A missed target is reported, not an error: the exit status is 0 unless
# something failed (a tool exited non-zero, the round trip differs, -j 2
# gives other bytes than -j 1, the measuring tools are missing).
#
# Environment (make bench sets the tools):
#   ATOB, BTOA, MERGE, DIFF, SHOW   the tools
#   LLVM_PROFDATA   the peer, default llvm-profdata
#   BENCH_GEN       the text generator (bench/gen.c)
#   BENCH_RUSAGE    bench/rusage.c built, to measure time and peak RSS;
#                   else GNU time (/usr/bin/time)
#   BENCH_MEMCPY    bench/memcpy.c built
#   BENCH_DIR       scratch directory, default build/bench-data
#   BENCH_MB        size of the feedback text in MiB, default 100
#   BENCH_SEED      generator seed, default 1
#   BENCH_RUNS      runs per tool and per peer, default 5
#
# Lists of paths in variables are split into words on purpose: no path of
# the benchmark holds white space.

BENCH_NAME=bench
BENCH_TOOLS="ATOB BTOA MERGE DIFF SHOW BENCH_GEN BENCH_MEMCPY"
. "$(dirname "$0")/common.sh"

: "${LLVM_PROFDATA:=llvm-profdata}"
command -v "$LLVM_PROFDATA" >/dev/null 2>&1 ||
	die "$LLVM_PROFDATA not found (make bench installs it: deps.sh --bench)"
L=$LLVM_PROFDATA

# The workloads: texts of both forms, a database and an indexed profile
# of every run, all made before the first measurement.
w=$BENCH_DIR/s$BENCH_SEED-m$BENCH_MB
mkdir -p "$w" || die "cannot create $w"
echo "making the workloads in $w ..."
k=0
while [ $k -le 7 ]; do
	gen_file "$w/run$k.text" -s "$BENCH_SEED" -m "$BENCH_MB" -r $k
	gen_file "$w/run$k.llvm" -s "$BENCH_SEED" -m "$BENCH_MB" -r $k -l
	if [ ! -s "$w/db$k/feedback" ] ||
	   [ -n "$(find "$w/run$k.text" "$ATOB" -newer "$w/db$k/feedback")" ]; then
		rm -rf "$w/db$k"
		"$ATOB" "$w/run$k.text" "$w/db$k" || die "xprof_atob failed"
	fi
	"$L" merge "$w/run$k.llvm" -o "$w/run$k.prof" ||
		die "llvm-profdata merge failed"
	k=$((k + 1))
done
text=$w/run0.text
text_bytes=$(wc -c < "$text")
text_bytes=$((text_bytes + 0))
counters=$(grep -c '^[0-9]' "$text")
db_bytes=$(wc -c < "$w/db0/feedback")
db_bytes=$((db_bytes + 0))
list8=$w/merge-8.list
list100=$w/merge-100.list
: > "$list8"
: > "$list100"
profs8=
k=0
while [ $k -le 7 ]; do
	echo "$w/db$k/feedback" >> "$list8"
	profs8="$profs8 $w/run$k.prof"
	k=$((k + 1))
done
i=0
while [ $i -lt 100 ]; do
	echo "$w/db$((i % 8))/feedback" >> "$list100"
	i=$((i + 1))
done
in8=$(cat "$list8")
in100=$(cat "$list100")
bytes8=$(cat $in8 | wc -c)
bytes100=$(cat $in100 | wc -c)

echo
echo "xprof against llvm-profdata ($(readlink -f "$(command -v "$L")"))"
model=$(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo 2>/dev/null)
echo "  cpu:     $(echo "$model" | head -n 1)"
describe_runs
echo "  text:    $text_bytes bytes, $counters counters;" \
	"LLVM text $(wc -c < "$w/run0.llvm") bytes"
echo "  ratio:   peer time / xprof time, of the medians"
echo

o=$BENCH_DIR/out
mkdir -p "$o" || die "cannot create $o"

pair atob "$o/atob" "$ATOB -j 1 $text $o/atob" \
	"$o/atob.prof" "$L merge $w/run0.llvm -o $o/atob.prof"
refs "$o/atob/feedback" "$text"
row "atob: text -> database  vs  llvm-profdata merge TEXT -o P" 3
am=$(mbps "$text_bytes" "$ta")
ar=$(quot $((rssa * 1024)) "$db_bytes")
echo "    $(dec 1 "$am") MB/s of text (target >= 250: $(verdict "$am" ">=" 250));" \
	"peak RSS $(dec 2 "$ar") x database (target <= 2x: $(verdict "$ar" "<=" 2))"

# The same conversion on two threads (-j 2), it and the peer pinned to
# the same two cores, in turn; the database must be the bytes of -j 1.
# The references are the atob row's (the same input and output).
if [ -n "$pin2" ]; then
	pin1=$pin
	pin=$pin2
	pair atob-j "$o/atob2" "$ATOB -j 2 $text $o/atob2" \
		"$o/atob.prof" "$L merge $w/run0.llvm -o $o/atob.prof"
	pin=$pin1
	cmp -s "$o/atob/feedback" "$o/atob2/feedback" ||
		die "xprof_atob -j 2 and -j 1 give other bytes"
	row "atob -j 2: text -> database on 2 threads  vs  llvm-profdata merge TEXT -o P (cores ${pin2#taskset -c })" 5
	echo "    $(dec 1 "$(mbps "$text_bytes" "$ta")") MB/s of text; the same bytes as -j 1"
else
	echo "atob -j 2: skipped, fewer than two cores to pin to"
fi

pair btoa "" "$BTOA $w/db0 $o/btoa.text" \
	"" "$L merge --text $w/run0.prof -o $o/btoa.llvm"
refs "$o/btoa.text" "$w/db0/feedback"
row "btoa: database -> text file  vs  llvm-profdata merge --text P -o T" 2
bm=$(mbps "$text_bytes" "$ta")
echo "    $(dec 1 "$bm") MB/s of text (target >= 500: $(verdict "$bm" ">=" 500))"
if cmp -s "$text" "$o/btoa.text"; then
	echo "    round trip: btoa gives back the generated text byte for byte"
	trip=0
else
	echo "    round trip: btoa output DIFFERS from the generated text"
	trip=1
fi

pair merge-8 "$o/merge" "$MERGE -q -j 1 -o $o/merge @$list8" \
	"$o/merge.prof" "$L merge --num-threads=1 -o $o/merge.prof$profs8"
refs "$o/merge/feedback" $in8
row "merge-8: 8 runs  vs  llvm-profdata merge --num-threads=1 (indexed)" 3
rss8=$rssa
echo "    peak RSS: xprof <= llvm-profdata: $(verdict "$rssa" "<=" "$rssb");" \
	"$(dec 1 "$(mbps "$bytes8" "$ta")") MB/s of database input"

pair merge-100 "$o/merge" "$MERGE -q -j 1 -o $o/merge @$list100" "" ""
refs "$o/merge/feedback" $in100
g100=$(quot "$(mbps "$bytes100" "$ta")" 1000)
echo "merge-100: 100 runs (no peer)"
printf '    xprof %8.3f s %8s MiB | %s GB/s of database input  ' \
	"$ta" "$(mib "$rssa")" "$(dec 2 "$g100")"
echo "target >= 2 GB/s: $(verdict "$g100" ">=" 2)"
show_refs
lim=$(awk -v a="$rss8" 'BEGIN { print a * 1.1 + 4096 }')
vr=$(verdict "$rssa" "<=" "$lim")
echo "    peak RSS independent of the number of inputs (100 vs 8): $vr"

# The same merge on two threads (-j 2), pinned to two cores, against -j 1
# on the same two cores, in turn; the outputs must be the same bytes.
if [ -n "$pin2" ]; then
	pin1=$pin
	pin=$pin2
	pair merge-100-j "$o/merge2" "$MERGE -q -j 2 -o $o/merge2 @$list100" \
		"$o/merge" "$MERGE -q -j 1 -o $o/merge @$list100"
	pin=$pin1
	cmp -s "$o/merge/feedback" "$o/merge2/feedback" ||
		die "xprof_merge -j 2 and -j 1 give other bytes"
	rj=$(quot "$tb" "$ta")
	echo "merge-100 -j 2: 100 runs on 2 threads  vs  -j 1 (both on cores" \
		"${pin2#taskset -c })"
	printf '    -j 2 %8.3f s %8s MiB | -j 1 %8.3f s %8s MiB | ' \
		"$ta" "$(mib "$rssa")" "$tb" "$(mib "$rssb")"
	printf 'ratio %6sx  target >= 1.7x on this 2-core machine: %s\n' \
		"$(dec 2 "$rj")" "$(verdict "$rj" ">=" 1.7)"
	echo "    the same bytes as -j 1"
else
	echo "merge-100 -j 2: skipped, fewer than two cores to pin to"
fi

allow=1
pair diff "" "$DIFF $w/db0 $w/db1" "" "$L overlap $w/run0.prof $w/run1.prof"
allow=0
"$DIFF" "$w/db0" "$w/db1" > "$o/diff.out"
refs "$o/diff.out" "$w/db0/feedback" "$w/db1/feedback"
row "diff: two runs  vs  llvm-profdata overlap A B" 2

pair show "" "$SHOW -n 10 $w/db0" \
	"" "$L show --topn=10 --detailed-summary $w/run0.prof"
"$SHOW" -n 10 "$w/db0" > "$o/show.out" || die "xprof_show failed"
refs "$o/show.out" "$w/db0/feedback"
row "show: top 10  vs  llvm-profdata show --topn=10 --detailed-summary" 2

rm -rf "$o"
exit $trip
