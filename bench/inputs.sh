#!/bin/sh
# inputs.sh - xprof_merge of many small inputs through a list file
# (make bench): 1,000, 10,000 and 100,000 of them, the median time and
# the peak RSS of $BENCH_RUNS runs at each count.
#
# Two kinds of inputs, each a file of its own: feedback texts of a few
# procedures each, taken from a program of 1,000 (input i holds 10 of
# them, with counts from i; every one is added record by record), and
# databases of one layout (a run of a 1,000-procedure program; they are
# added by their counts, xprof_merge(1), PERFORMANCE).  The target: time
# linear in the number of inputs, log(t100k/t10k) / log(10) <= 1.1, and
# memory flat, the peak RSS at 100,000 within 10% and 4 MiB of that at
# 10,000.  Every run also proves that no descriptor leaks: it runs under
# a limit of 64 open files.
#
# Environment: MERGE, ATOB, BENCH_RUSAGE (make bench sets them),
# BENCH_DIR, BENCH_RUNS, and BENCH_INPUTS_MAX (default 100000; the counts
# are it, a tenth and a hundredth of it).

BENCH_NAME=bench-inputs
BENCH_TOOLS="MERGE ATOB"
. "$(dirname "$0")/common.sh"

: "${BENCH_INPUTS_MAX:=100000}"
n3=$BENCH_INPUTS_MAX
n2=$((n3 / 10))
n1=$((n3 / 100))
[ "$n1" -gt 0 ] || die "BENCH_INPUTS_MAX must be at least 100"

w=$BENCH_DIR/inputs-$n3
mkdir -p "$w" || die "cannot create $w"
w=$(cd "$w" && pwd) || die "cannot enter $w"

# The texts: t/NNNNNN.text, made by one awk.
echo "making $n3 texts and $n3 databases in $w ..."
if [ ! -s "$w/texts.list" ]; then
	rm -rf "$w/t"
	mkdir -p "$w/t" || die "cannot create $w/t"
	awk -v n="$n3" -v dir="$w/t" 'BEGIN {
		for (i = 0; i < n; i++) {
			f = sprintf("%s/%06d.text", dir, i)
			print "PROFILE-FEEDBACK-DATA: 4.3 1 0 1" > f
			print "OBJFILE:/build/src/app.o 10 1 0 0 0x1 0" > f
			for (k = 0; k < 10; k++) {
				p = (i * 7 + k * 101) % 1000
				printf "PROC: fn_%04d 0x%x 1 0 0 %d 0 0 0\n", p, p + 1,
				    k + 1 > f
				printf "1 %d\n", (i * 31 + k) % 977 > f
			}
			close(f)
			print f > (dir "/../texts.list.tmp")
		}
	}' || die "cannot write the texts"
	mv "$w/texts.list.tmp" "$w/texts.list" || die "cannot rename the list"
fi

# The databases: two runs of one program (same layout, other counts),
# written one after the other into one stream and cut apart, d/NNNNNN.
if [ ! -s "$w/dbs.list" ]; then
	rm -rf "$w/d" "$w/run"*
	mkdir -p "$w/d" || die "cannot create $w/d"
	for r in 1 2; do
		awk -v r=$r 'BEGIN {
			print "PROFILE-FEEDBACK-DATA: 4.3 1 0 1"
			print "OBJFILE:/build/src/app.o 1000 1 0 0 0x1 0"
			for (p = 0; p < 1000; p++) {
				printf "PROC: fn_%04d 0x%x 1 0 0 %d 0 0 0\n", p, p + 1,
				    p + 1
				printf "1 %d\n", (p * 13 + r * 7) % 1009
			}
		}' > "$w/run$r.text" || die "cannot write run$r.text"
		"$ATOB" "$w/run$r.text" "$w/run$r" || die "xprof_atob failed"
	done
	size=$(wc -c < "$w/run1/feedback")
	[ "$size" -eq "$(wc -c < "$w/run2/feedback")" ] ||
		die "the two runs' databases differ in size"
	awk -v n="$n3" -v a="$w/run1/feedback" -v b="$w/run2/feedback" \
		'BEGIN { for (i = 0; i < n; i++) print (i % 2) ? b : a }' |
		xargs cat > "$w/all.db" || die "cannot write all.db"
	(cd "$w/d" && split -a 6 -d -b "$size" ../all.db "") ||
		die "cannot split all.db"
	rm -f "$w/all.db"
	ls "$w/d" | sed "s|^|$w/d/|" > "$w/dbs.list.tmp" &&
		mv "$w/dbs.list.tmp" "$w/dbs.list" || die "cannot list the databases"
fi
for kind in texts dbs; do
	for n in $n1 $n2 $n3; do
		head -n "$n" "$w/$kind.list" > "$w/$kind.$n.list"
	done
done

o=$BENCH_DIR/inputs.out
# runs KIND: the medians t1, t2, t3 and peak RSS m1, m2, m3 at the counts.
runs() {
	i=0
	for n in $n1 $n2 $n3; do
		i=$((i + 1))
		pair "inputs-$1-$n" "$o" \
			"sh -c 'ulimit -n 64 && exec $MERGE -j 1 -q -o $o @$w/$1.$n.list'" \
			"" ""
		eval "t$i=\$ta m$i=\$rssa"
	done
	rm -rf "$o"
}

# line KIND: the row of a kind from t1..t3 and m1..m3.
line() {
	e=$(awk -v a="$t2" -v b="$t3" 'BEGIN {
		printf "%.6f", (a > 0 && b > 0) ? log(b / a) / log(10) : 0 }')
	flat=$(awk -v a="$m2" -v b="$m3" 'BEGIN {
		print (b <= a * 1.1 || b <= a + 4096) ? "met" : "MISSED" }')
	printf '  %-6s time   %8.3f s %8.3f s %8.3f s  (%.1f, %.1f, %.1f us an input)\n' \
		"$1" "$t1" "$t2" "$t3" \
		"$(awk -v t="$t1" -v n="$n1" 'BEGIN { print t / n * 1e6 }')" \
		"$(awk -v t="$t2" -v n="$n2" 'BEGIN { print t / n * 1e6 }')" \
		"$(awk -v t="$t3" -v n="$n3" 'BEGIN { print t / n * 1e6 }')"
	echo "         exponent log(t$n3/t$n2)/log(10) $(dec 2 "$e")  target <= 1.1:" \
		"$(verdict "$e" "<=" 1.1)"
	printf '         peak RSS %6s MiB %6s MiB %6s MiB  flat (%s within 10%% or 4 MiB of %s): %s\n' \
		"$(mib "$m1")" "$(mib "$m2")" "$(mib "$m3")" "$n3" "$n2" "$flat"
}

echo
echo "Many small inputs: xprof_merge -j 1 -o DIR @LIST of $n1, $n2 and $n3 inputs"
describe_runs
echo "  limit:   64 open files (ulimit -n)"
echo
runs texts
line texts
runs dbs
line dbs
