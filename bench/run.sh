#!/bin/sh
# run.sh - the benchmark of xprof_atob and xprof_btoa (make bench).
#
# It generates a large valid feedback text (about 100 MB, about a million
# counters; kept in $BENCH_DIR and reused while the generator is
# unchanged), then times, pinned to one core when taskset exists:
#
#   atob   xprof_atob TEXT DIR      text to profile directory
#   btoa   xprof_btoa DIR OUT       profile directory back to text
#   btoa   xprof_btoa DIR /dev/null the same without filling a new file
#
# each $BENCH_RUNS times (default 5), and prints for each the best time,
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
# Environment (make bench sets the first four):
#   ATOB, BTOA      the tools
#   BENCH_GEN       the text generator (bench/gen.c)
#   BENCH_RUSAGE    bench/rusage.c built (make bench sets it), to measure
#                   time and peak RSS; else GNU time (/usr/bin/time)
#   BENCH_DIR       scratch directory, default build/bench-data
#   BENCH_MB        size of the text in MiB, default 100
#   BENCH_SEED      generator seed, default 1
#   BENCH_RUNS      runs per tool, default 5

BENCH_NAME=bench
BENCH_TOOLS="ATOB BTOA BENCH_GEN"
. "$(dirname "$0")/common.sh"

profdir=$BENCH_DIR/atob.profile
out=$BENCH_DIR/btoa.text

make_text
text_bytes=$(wc -c < "$text") || die "cannot read $text"
text_bytes=$((text_bytes + 0))
counters=$(grep -c '^[0-9]' "$text")

echo "xprof benchmark"
echo "  cpu:     $(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo 2>/dev/null | head -n 1)"
describe_runs
echo "  text:    $text, $text_bytes bytes, $counters counters"

runs atob "$profdir" "$ATOB" "$text" "$profdir"
atob_s=$best
atob_rss=$rss
db_bytes=$(find "$profdir" -type f -exec cat {} + | wc -c)
db_bytes=$((db_bytes + 0))

runs btoa "" "$BTOA" "$profdir" "$out"
btoa_s=$best
btoa_rss=$rss

atob_mbps=$(mbps "$text_bytes" "$atob_s")
btoa_mbps=$(mbps "$text_bytes" "$btoa_s")

# The same conversion into /dev/null: the part of btoa's time that is its
# own, without the kernel's cost of filling a new 100 MB file.
runs btoa-null "" "$BTOA" "$profdir" /dev/null
null_s=$best
null_mbps=$(mbps "$text_bytes" "$null_s")
db_mib=$(mib $((db_bytes / 1024)))
ratio=$(awk -v r="$atob_rss" -v d="$db_bytes" 'BEGIN { printf "%.2f", (d > 0) ? r * 1024 / d : 0 }')

a1=$(verdict "$atob_mbps" ">=" 250)
a2=$(verdict "$atob_mbps" ">=" 150)
b1=$(verdict "$btoa_mbps" ">=" 500)
b2=$(verdict "$null_mbps" ">=" 500)
r1=$(verdict "$ratio" "<=" 2)

echo
echo "  database:  $db_bytes bytes ($db_mib MiB)"
printf '  atob:  %8.3f s  %7s MB/s  (target >= 250 MB/s: %s; >= 150 MB/s: %s)\n' \
	"$atob_s" "$atob_mbps" "$a1" "$a2"
printf '         peak RSS %s MiB = %s x database  (target <= 2x: %s)\n' \
	"$(mib "$atob_rss")" "$ratio" "$r1"
printf '  btoa:  %8.3f s  %7s MB/s  (target >= 500 MB/s: %s)\n' \
	"$btoa_s" "$btoa_mbps" "$b1"
printf '  btoa:  %8.3f s  %7s MB/s  into /dev/null (target >= 500 MB/s: %s)\n' \
	"$null_s" "$null_mbps" "$b2"
printf '         peak RSS %s MiB\n' "$(mib "$btoa_rss")"

if cmp -s "$text" "$out"; then
	echo "  round trip: btoa output equals the generated text, byte for byte"
	exit 0
fi
echo "  round trip: btoa output DIFFERS from the generated text:"
cmp "$text" "$out" 2>&1 | sed 's/^/    /'
exit 1
