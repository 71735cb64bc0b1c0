#!/bin/sh
# merge.sh - the benchmark of xprof_merge (make bench).
#
# From a generated feedback text of about 100 MB (build/bench-data's,
# reused when present) it makes a feedback database with xprof_atob, then
# 7 more databases of the same program with other counts (the first
# weighted by 2..8 with xprof_merge -w), the situation of many training
# runs of one binary.  It then times, pinned to one core when taskset
# exists:
#
#   merge-8     xprof_merge of the 8 databases
#   merge-100   xprof_merge of 100 databases (the 8 listed over and
#               over in a list file)
#
# each $BENCH_RUNS times (default 5), and prints the best time, the
# throughput in MB/s of database input (1 MB = 10^6 bytes), the peak RSS,
# and the targets: at least 1000 MB/s, and a peak RSS for 100 inputs no
# larger than for 8 (within 10%, plus 4 MiB of slack).
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
dbs=$BENCH_DIR/merge-dbs

# The databases are remade when the text or the tools are newer.
if [ ! -s "$dbs/db8/feedback" ] ||
   [ -n "$(find "$text" "$ATOB" "$MERGE" -newer "$dbs/db8/feedback")" ]; then
	echo "making 8 databases from $text ..."
	rm -rf "$dbs"
	mkdir -p "$dbs" || die "cannot create $dbs"
	"$ATOB" "$text" "$dbs/db1" || die "xprof_atob failed"
	k=2
	while [ $k -le 8 ]; do
		"$MERGE" -q -o "$dbs/db$k" -w "$k,$dbs/db1/feedback" ||
			die "xprof_merge -w failed"
		k=$((k + 1))
	done
fi
db_bytes=$(wc -c < "$dbs/db1/feedback")
db_bytes=$((db_bytes + 0))

list8=$BENCH_DIR/merge-8.list
list100=$BENCH_DIR/merge-100.list
k=1
: > "$list8"
while [ $k -le 8 ]; do
	echo "$dbs/db$k/feedback" >> "$list8"
	k=$((k + 1))
done
: > "$list100"
i=0
while [ $i -lt 100 ]; do
	echo "$dbs/db$((i % 8 + 1))/feedback" >> "$list100"
	i=$((i + 1))
done
in8=0
while read -r f; do in8=$((in8 + $(wc -c < "$f"))); done < "$list8"
in100=0
while read -r f; do in100=$((in100 + $(wc -c < "$f"))); done < "$list100"

echo "xprof_merge benchmark"
describe_runs
echo "  one database:  $db_bytes bytes ($(mib $((db_bytes / 1024))) MiB)"

runs merge-8 "$BENCH_DIR/merge-out" "$MERGE" -q -o "$BENCH_DIR/merge-out" "@$list8"
t8=$best rss8=$rss
runs merge-100 "$BENCH_DIR/merge-out" "$MERGE" -q -o "$BENCH_DIR/merge-out" "@$list100"
t100=$best rss100=$rss
rm -rf "$BENCH_DIR/merge-out"

r8=$(mbps "$in8" "$t8")
r100=$(mbps "$in100" "$t100")
printf '  merge-8:   %8.3f s  %7s MB/s of database input  peak RSS %s MiB\n' \
	"$t8" "$r8" "$(mib "$rss8")"
printf '  merge-100: %8.3f s  %7s MB/s of database input  peak RSS %s MiB\n' \
	"$t100" "$r100" "$(mib "$rss100")"
v8=$(verdict "$r8" ">=" 1000)
v100=$(verdict "$r100" ">=" 1000)
vr=$(awk -v a="$rss8" -v b="$rss100" 'BEGIN { print (b + 0 <= a * 1.1 + 4096) ? "met" : "MISSED" }')
echo "  target: >= 1000 MB/s on one core: merge-8 $v8, merge-100 $v100"
echo "  target: peak RSS independent of the number of inputs (100 vs 8): $vr"
