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
# each $BENCH_RUNS times (default 3), and prints the best time, the
# throughput in MB/s of database input (1 MB = 10^6 bytes), the peak RSS,
# and the targets: at least 1000 MB/s, and a peak RSS for 100 inputs no
# larger than for 8 (within 10%, plus 4 MiB of slack).
#
# A missed target is reported, not an error: the exit status is 0 unless
# something failed.
#
# Environment (make bench sets the first three):
#   ATOB, MERGE     the tools
#   BENCH_GEN       the text generator (bench/gen.c)
#   BENCH_RUSAGE    bench/rusage.c built; default build/bench/rusage when
#                   present, else GNU time (/usr/bin/time)
#   BENCH_DIR       scratch directory, default build/bench-data
#   BENCH_MB        size of the text in MiB, default 100
#   BENCH_SEED      generator seed, default 1
#   BENCH_RUNS      runs per measurement, default 3

: "${BENCH_DIR:=build/bench-data}"
: "${BENCH_MB:=100}"
: "${BENCH_SEED:=1}"
: "${BENCH_RUNS:=3}"

die() {
	echo "bench-merge: $*" >&2
	exit 2
}

for v in ATOB MERGE BENCH_GEN; do
	eval "p=\${$v:-}"
	if [ -z "$p" ] || [ ! -x "$p" ]; then
		die "$v not set or not executable (make bench sets it)"
	fi
done

if [ -z "${BENCH_RUSAGE:-}" ] && [ -x build/bench/rusage ]; then
	BENCH_RUSAGE=build/bench/rusage
fi
if [ -n "${BENCH_RUSAGE:-}" ] && [ -x "$BENCH_RUSAGE" ]; then
	measure() {
		m_out=$1
		shift
		"$BENCH_RUSAGE" -o "$m_out" "$@"
	}
	how="wait4 (bench/rusage)"
elif [ -x /usr/bin/time ] && /usr/bin/time -f '%e %M' -o /dev/null true 2>/dev/null; then
	measure() {
		m_out=$1
		shift
		/usr/bin/time -f '%e %M' -o "$m_out" "$@"
	}
	how="GNU time, 10 ms resolution"
else
	die "need BENCH_RUSAGE (bench/rusage built) or GNU time in /usr/bin/time"
fi

pin=
if command -v taskset >/dev/null 2>&1; then
	cpu=$(taskset -pc $$ 2>/dev/null | sed -n 's/.*: *\([0-9][0-9]*\).*/\1/p')
	if [ -n "$cpu" ] && taskset -c "$cpu" true 2>/dev/null; then
		pin="taskset -c $cpu"
	fi
fi

mkdir -p "$BENCH_DIR" || die "cannot create $BENCH_DIR"
text=$BENCH_DIR/gen-s$BENCH_SEED-m$BENCH_MB.text
dbs=$BENCH_DIR/merge-dbs
meas=$BENCH_DIR/merge-measure.txt

if [ ! -s "$text" ]; then
	echo "generating $BENCH_MB MiB of feedback text (seed $BENCH_SEED) ..."
	"$BENCH_GEN" -s "$BENCH_SEED" -m "$BENCH_MB" > "$text.tmp" ||
		die "generator failed"
	mv "$text.tmp" "$text" || die "cannot rename $text.tmp"
fi

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

runs() {
	r_name=$1
	shift
	best=
	rss=0
	i=0
	while [ "$i" -lt "$BENCH_RUNS" ]; do
		i=$((i + 1))
		rm -rf "$BENCH_DIR/merge-out"
		# shellcheck disable=SC2086
		if ! measure "$meas" $pin "$@" > "$BENCH_DIR/$r_name.log" 2>&1; then
			cat "$BENCH_DIR/$r_name.log" >&2
			die "$r_name failed: $*"
		fi
		read -r t m < "$meas" || die "no measurement for $r_name"
		best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
		[ "$m" -gt "$rss" ] && rss=$m
	done
}

mbps() {
	awk -v b="$1" -v s="$2" 'BEGIN { printf "%.1f", (s > 0) ? b / s / 1e6 : 0 }'
}

mib() {
	awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'
}

echo "xprof_merge benchmark"
echo "  measured with: $how${pin:+, $pin}"
echo "  one database:  $db_bytes bytes ($(mib $((db_bytes / 1024))) MiB)"

runs merge-8 "$MERGE" -q -o "$BENCH_DIR/merge-out" "@$list8"
t8=$best rss8=$rss
runs merge-100 "$MERGE" -q -o "$BENCH_DIR/merge-out" "@$list100"
t100=$best rss100=$rss
rm -rf "$BENCH_DIR/merge-out"

r8=$(mbps "$in8" "$t8")
r100=$(mbps "$in100" "$t100")
echo "  merge-8:   ${t8} s  $r8 MB/s of database input  peak RSS $(mib "$rss8") MiB"
echo "  merge-100: ${t100} s  $r100 MB/s of database input  peak RSS $(mib "$rss100") MiB"
v8=$(awk -v r="$r8" 'BEGIN { print (r + 0 >= 1000) ? "met" : "MISSED" }')
v100=$(awk -v r="$r100" 'BEGIN { print (r + 0 >= 1000) ? "met" : "MISSED" }')
vr=$(awk -v a="$rss8" -v b="$rss100" 'BEGIN { print (b + 0 <= a * 1.1 + 4096) ? "met" : "MISSED" }')
echo "  target: >= 1000 MB/s on one core: merge-8 $v8, merge-100 $v100"
echo "  target: peak RSS independent of the number of inputs (100 vs 8): $vr"
