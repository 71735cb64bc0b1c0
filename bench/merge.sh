#!/bin/sh
# merge.sh - the benchmark of xprof_merge (make bench).
#
# Eight training runs of one program: the generator's text of about
# 100 MB (build/bench-data's, reused when present) is run 0, and
# `gen -r K` gives runs 1 to 7, the same program with other counts and
# now and then another value profile value.  Each text becomes a feedback
# database with xprof_atob.  It then times, pinned to one core when
# taskset exists:
#
#   merge-8       xprof_merge of the 8 databases
#   merge-100     xprof_merge of 100 databases (the 8 listed over and
#                 over in a list file)
#   merge-8-mix   the 8 databases, every other one in another layout
#                 (xprof_merge's canonical order instead of the text's),
#                 so that no input has the layout of the one before it
#   merge-1       one database: xprof_merge alone, its input added record
#                 by record (no target; for the cost of a first input)
#
# each $BENCH_RUNS times (default 5), and prints the best time, the
# throughput in MB/s of database input (1 MB = 10^6 bytes), the peak RSS,
# and the targets: at least 1000 MB/s, and a peak RSS for 100 inputs no
# larger than for 8 (within 10%, plus 4 MiB of slack).  Inputs with the
# layout of one before them are checked and added by their counts alone
# (xprof_merge(1), PERFORMANCE); merge-8-mix shows that two layouts in
# turn keep that speed, and merge-1 what an input of a new layout costs.
#
# A missed target is reported, not an error: the exit status is 0 unless
# something failed.
#
# Environment (make bench sets the first four):
#   ATOB, MERGE     the tools
#   BENCH_GEN       the text generator (bench/gen.c)
#   BENCH_RUSAGE    bench/rusage.c built (make bench sets it), to measure
#                   time and peak RSS; else GNU time (/usr/bin/time)
#   BENCH_DIR       scratch directory, default build/bench-data
#   BENCH_MB        size of the text in MiB, default 100
#   BENCH_SEED      generator seed, default 1
#   BENCH_RUNS      runs per measurement, default 5

BENCH_NAME=bench-merge
BENCH_TOOLS="ATOB MERGE BENCH_GEN"
. "$(dirname "$0")/common.sh"

make_text
dbs=$BENCH_DIR/merge-runs

# The databases are remade when the text or the tools are newer.
if [ ! -s "$dbs/mix8/feedback" ] ||
   [ -n "$(find "$text" "$ATOB" "$MERGE" "$BENCH_GEN" -newer "$dbs/mix8/feedback")" ]; then
	echo "making 8 databases of training runs from $text ..."
	rm -rf "$dbs"
	mkdir -p "$dbs" || die "cannot create $dbs"
	"$ATOB" "$text" "$dbs/db1" || die "xprof_atob failed"
	k=2
	while [ $k -le 8 ]; do
		"$BENCH_GEN" -s "$BENCH_SEED" -m "$BENCH_MB" -r $((k - 1)) \
			> "$dbs/run.text" || die "generator failed"
		"$ATOB" "$dbs/run.text" "$dbs/db$k" || die "xprof_atob failed"
		k=$((k + 1))
	done
	rm -f "$dbs/run.text"
	# The same runs, every other one in canonical order.
	k=1
	while [ $k -le 8 ]; do
		if [ $((k % 2)) -eq 0 ]; then
			"$MERGE" -q -o "$dbs/mix$k" "$dbs/db$k" ||
				die "xprof_merge failed"
		else
			ln -s "db$k" "$dbs/mix$k" || die "cannot link $dbs/mix$k"
		fi
		k=$((k + 1))
	done
fi
db_bytes=$(wc -c < "$dbs/db1/feedback")
db_bytes=$((db_bytes + 0))

list8=$BENCH_DIR/merge-8.list
list100=$BENCH_DIR/merge-100.list
listmix=$BENCH_DIR/merge-8-mix.list
: > "$list8"
: > "$listmix"
k=1
while [ $k -le 8 ]; do
	echo "$dbs/db$k/feedback" >> "$list8"
	echo "$dbs/mix$k/feedback" >> "$listmix"
	k=$((k + 1))
done
: > "$list100"
i=0
while [ $i -lt 100 ]; do
	echo "$dbs/db$((i % 8 + 1))/feedback" >> "$list100"
	i=$((i + 1))
done
# list_bytes LIST: the bytes of the files it lists.
list_bytes() {
	lb=0
	while read -r f; do lb=$((lb + $(wc -c < "$f"))); done < "$1"
	echo "$lb"
}
in8=$(list_bytes "$list8")
in100=$(list_bytes "$list100")
inmix=$(list_bytes "$listmix")
in1=$db_bytes

echo "xprof_merge benchmark"
describe_runs
echo "  one database:  $db_bytes bytes ($(mib $((db_bytes / 1024))) MiB)"

runs merge-8 "$BENCH_DIR/merge-out" "$MERGE" -q -o "$BENCH_DIR/merge-out" "@$list8"
t8=$best rss8=$rss
runs merge-100 "$BENCH_DIR/merge-out" "$MERGE" -q -o "$BENCH_DIR/merge-out" "@$list100"
t100=$best rss100=$rss
runs merge-8-mix "$BENCH_DIR/merge-out" "$MERGE" -q -o "$BENCH_DIR/merge-out" "@$listmix"
tmix=$best rssmix=$rss
runs merge-1 "$BENCH_DIR/merge-out" "$MERGE" -q -o "$BENCH_DIR/merge-out" "$dbs/db1"
t1=$best rss1=$rss
rm -rf "$BENCH_DIR/merge-out"

r8=$(mbps "$in8" "$t8")
r100=$(mbps "$in100" "$t100")
rmix=$(mbps "$inmix" "$tmix")
r1=$(mbps "$in1" "$t1")
printf '  merge-8:     %8.3f s  %7s MB/s of database input  peak RSS %s MiB\n' \
	"$t8" "$r8" "$(mib "$rss8")"
printf '  merge-100:   %8.3f s  %7s MB/s of database input  peak RSS %s MiB\n' \
	"$t100" "$r100" "$(mib "$rss100")"
printf '  merge-8-mix: %8.3f s  %7s MB/s of database input  peak RSS %s MiB\n' \
	"$tmix" "$rmix" "$(mib "$rssmix")"
printf '  merge-1:     %8.3f s  %7s MB/s of database input  peak RSS %s MiB\n' \
	"$t1" "$r1" "$(mib "$rss1")"
v8=$(verdict "$r8" ">=" 1000)
v100=$(verdict "$r100" ">=" 1000)
vmix=$(verdict "$rmix" ">=" 1000)
vr=$(awk -v a="$rss8" -v b="$rss100" 'BEGIN { print (b + 0 <= a * 1.1 + 4096) ? "met" : "MISSED" }')
echo "  target: >= 1000 MB/s on one core: merge-8 $v8, merge-100 $v100, merge-8-mix $vmix"
echo "  target: peak RSS independent of the number of inputs (100 vs 8): $vr"
