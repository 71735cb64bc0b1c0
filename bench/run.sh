#!/bin/sh
# run.sh - the benchmark of xprof_atob and xprof_btoa (make bench).
#
# It generates a large valid feedback text (about 100 MB, about a million
# counters; kept in $BENCH_DIR and reused while the generator is
# unchanged), then times, pinned to one core when taskset exists:
#
#   atob   xprof_atob TEXT DIR      text to profile directory
#   btoa   xprof_btoa DIR OUT       profile directory back to text
#
# each $BENCH_RUNS times (default 3), and prints for each the best time,
# the throughput in MB/s of text (1 MB = 10^6 bytes), the peak RSS, the
# size of the database written, and the targets of the project next to
# the figures: atob at least 250 MB/s (150 MB/s at the very least), btoa
# at least 500 MB/s, atob's peak RSS at most twice the database size.  It
# also checks that btoa gives back the generated text byte for byte.
#
# A missed target is reported, not an error: the exit status is 0 unless
# something failed (a tool exited non-zero, the output differs from the
# input, or the measuring tools are missing).
#
# Environment (make bench sets the first three):
#   ATOB, BTOA      the tools
#   BENCH_GEN       the text generator (bench/gen.c)
#   BENCH_RUSAGE    bench/rusage.c built, to measure time and peak RSS;
#                   GNU time (/usr/bin/time) is used when it is not set
#   BENCH_DIR       scratch directory, default build/bench-data
#   BENCH_MB        size of the text in MiB, default 100
#   BENCH_SEED      generator seed, default 1
#   BENCH_RUNS      runs per tool, default 3

: "${BENCH_DIR:=build/bench-data}"
: "${BENCH_MB:=100}"
: "${BENCH_SEED:=1}"
: "${BENCH_RUNS:=3}"

die() {
	echo "bench: $*" >&2
	exit 2
}

for v in ATOB BTOA BENCH_GEN; do
	eval "p=\${$v:-}"
	if [ -z "$p" ] || [ ! -x "$p" ]; then
		die "$v not set or not executable (make bench sets it)"
	fi
done

# The measuring command: "<measure> OUTFILE command..." writes
# "<seconds> <peak RSS KiB>" to OUTFILE and keeps the command's status.
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

# Pin every run to one core: the first one this process may use.
pin=
cpu=
if command -v taskset >/dev/null 2>&1; then
	cpu=$(taskset -pc $$ 2>/dev/null | sed -n 's/.*: *\([0-9][0-9]*\).*/\1/p')
	if [ -n "$cpu" ] && taskset -c "$cpu" true 2>/dev/null; then
		pin="taskset -c $cpu"
	else
		cpu=
	fi
fi

mkdir -p "$BENCH_DIR" || die "cannot create $BENCH_DIR"
text=$BENCH_DIR/gen-s$BENCH_SEED-m$BENCH_MB.text
profdir=$BENCH_DIR/atob.profile
out=$BENCH_DIR/btoa.text
meas=$BENCH_DIR/measure.txt

# The generated text is reused while it is newer than the generator.
if [ ! -s "$text" ] || [ -n "$(find "$BENCH_GEN" -newer "$text")" ]; then
	echo "generating $BENCH_MB MiB of feedback text (seed $BENCH_SEED) ..."
	"$BENCH_GEN" -s "$BENCH_SEED" -m "$BENCH_MB" > "$text.tmp" ||
		die "generator failed"
	mv "$text.tmp" "$text" || die "cannot rename $text.tmp"
fi
text_bytes=$(wc -c < "$text") || die "cannot read $text"
text_bytes=$((text_bytes + 0))
counters=$(grep -c '^[0-9]' "$text")

# runs NAME COMMAND...: runs the command BENCH_RUNS times; sets best
# (seconds, the least) and rss (KiB, the largest).  The command's output
# goes to $BENCH_DIR/NAME.log, shown when it fails.
runs() {
	r_name=$1
	shift
	best=
	rss=0
	i=0
	while [ "$i" -lt "$BENCH_RUNS" ]; do
		i=$((i + 1))
		[ "$r_name" = atob ] && rm -rf "$profdir"
		# The pin command is split into words on purpose.
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

# verdict VALUE OP LIMIT: "met" or "missed".
verdict() {
	awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN {
		ok = (op == ">=") ? (v + 0 >= l + 0) : (v + 0 <= l + 0)
		print ok ? "met" : "MISSED" }'
}

mbps() {
	awk -v b="$1" -v s="$2" 'BEGIN { printf "%.1f", (s > 0) ? b / s / 1e6 : 0 }'
}

mib() {
	awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'
}

echo "xprof benchmark"
echo "  cpu:     $(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo 2>/dev/null | head -n 1)"
if [ -n "$cpu" ]; then
	echo "  pinned:  core $cpu (taskset)"
else
	echo "  pinned:  no (taskset not available)"
fi
echo "  measure: $how, best of $BENCH_RUNS runs, peak RSS the largest"
echo "  text:    $text, $text_bytes bytes, $counters counters"

runs atob "$ATOB" "$text" "$profdir"
atob_s=$best
atob_rss=$rss
db_bytes=$(find "$profdir" -type f -exec cat {} + | wc -c)
db_bytes=$((db_bytes + 0))

runs btoa "$BTOA" "$profdir" "$out"
btoa_s=$best
btoa_rss=$rss

atob_mbps=$(mbps "$text_bytes" "$atob_s")
btoa_mbps=$(mbps "$text_bytes" "$btoa_s")
db_mib=$(mib $((db_bytes / 1024)))
ratio=$(awk -v r="$atob_rss" -v d="$db_bytes" 'BEGIN { printf "%.2f", (d > 0) ? r * 1024 / d : 0 }')

a1=$(verdict "$atob_mbps" ">=" 250)
a2=$(verdict "$atob_mbps" ">=" 150)
b1=$(verdict "$btoa_mbps" ">=" 500)
r1=$(verdict "$ratio" "<=" 2)

echo
echo "  database:  $db_bytes bytes ($db_mib MiB)"
printf '  atob:  %8.3f s  %7s MB/s  (target >= 250 MB/s: %s; >= 150 MB/s: %s)\n' \
	"$atob_s" "$atob_mbps" "$a1" "$a2"
printf '         peak RSS %s MiB = %s x database  (target <= 2x: %s)\n' \
	"$(mib "$atob_rss")" "$ratio" "$r1"
printf '  btoa:  %8.3f s  %7s MB/s  (target >= 500 MB/s: %s)\n' \
	"$btoa_s" "$btoa_mbps" "$b1"
printf '         peak RSS %s MiB\n' "$(mib "$btoa_rss")"

if cmp -s "$text" "$out"; then
	echo "  round trip: btoa output equals the generated text, byte for byte"
	exit 0
fi
echo "  round trip: btoa output DIFFERS from the generated text:"
cmp "$text" "$out" 2>&1 | sed 's/^/    /'
exit 1
