# common.sh - what the benchmark scripts share (sourced by bench/run.sh
# and bench/merge.sh): defaults, the measuring command, pinning to one
# core, the generated text, best-of-N runs and number formatting.
#
# Before sourcing, a script sets BENCH_NAME (for messages) and
# BENCH_TOOLS (the environment variables that must name executables).

: "${BENCH_DIR:=build/bench-data}"
: "${BENCH_MB:=100}"
: "${BENCH_SEED:=1}"
: "${BENCH_RUNS:=5}"

die() {
	echo "$BENCH_NAME: $*" >&2
	exit 2
}

for v in $BENCH_TOOLS; do
	eval "p=\${$v:-}"
	if [ -z "$p" ] || [ ! -x "$p" ]; then
		die "$v not set or not executable (make bench sets it)"
	fi
done

# The measuring command: "measure OUTFILE command..." writes "<seconds>
# <peak RSS KiB>" to OUTFILE and keeps the command's status.
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

# Every run is pinned to one core: the first one this process may use.
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

# The generated text, reused while it is newer than the generator.
make_text() {
	if [ ! -s "$text" ] || [ -n "$(find "$BENCH_GEN" -newer "$text")" ]; then
		echo "generating $BENCH_MB MiB of feedback text (seed $BENCH_SEED) ..."
		"$BENCH_GEN" -s "$BENCH_SEED" -m "$BENCH_MB" > "$text.tmp" ||
			die "generator failed"
		mv "$text.tmp" "$text" || die "cannot rename $text.tmp"
	fi
}

# runs NAME CLEAN COMMAND...: runs the command BENCH_RUNS times, removing
# the path CLEAN (if not empty) before each run; sets best (seconds, the
# least) and rss (KiB, the largest).  The command's output goes to
# $BENCH_DIR/NAME.log, shown when it fails.
runs() {
	r_name=$1 r_clean=$2
	shift 2
	best=
	rss=0
	r_i=0
	while [ "$r_i" -lt "$BENCH_RUNS" ]; do
		r_i=$((r_i + 1))
		[ -n "$r_clean" ] && rm -rf "$r_clean"
		# The pin command is split into words on purpose.
		# shellcheck disable=SC2086
		if ! measure "$BENCH_DIR/$r_name.measure" $pin "$@" \
		        > "$BENCH_DIR/$r_name.log" 2>&1; then
			cat "$BENCH_DIR/$r_name.log" >&2
			die "$r_name failed: $*"
		fi
		read -r t m < "$BENCH_DIR/$r_name.measure" ||
			die "no measurement for $r_name"
		best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
		[ "$m" -gt "$rss" ] && rss=$m
	done
}

# verdict VALUE OP LIMIT: "met" or "MISSED" (OP is >= or <=).
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

# How the runs were made, for the report's header.
describe_runs() {
	if [ -n "$cpu" ]; then
		echo "  pinned:  core $cpu (taskset)"
	else
		echo "  pinned:  no (taskset not available)"
	fi
	echo "  measure: $how, best of $BENCH_RUNS runs, peak RSS the largest"
}
