# common.sh - what the benchmark scripts share (sourced by bench/run.sh,
# bench/foreign.sh and bench/scale.sh): defaults, the measuring command,
# pinning to one core, the generated texts, runs of a tool against its
# peer in turn, medians, the physical references and number formatting.
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
elif [ -x /usr/bin/time ] &&
     /usr/bin/time -f '%e %M' -o /dev/null true 2>/dev/null; then
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

# The rows that measure threads are pinned to two cores instead: the first
# two this process may use (pin2 stays empty when it has fewer).
pin2=
if [ -n "$cpu" ]; then
	cpus=$(taskset -pc $$ | sed 's/.*: *//' | tr , '\n' |
	    awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }' |
	    head -n 2 | paste -sd, -)
	case $cpus in
	*,*) taskset -c "$cpus" true 2>/dev/null && pin2="taskset -c $cpus" ;;
	esac
fi

mkdir -p "$BENCH_DIR" || die "cannot create $BENCH_DIR"

# gen_file FILE ARGUMENT...: FILE written by the generator with those
# arguments, reused while it is newer than the generator.
gen_file() {
	g_file=$1
	shift
	if [ ! -s "$g_file" ] || [ -n "$(find "$BENCH_GEN" -newer "$g_file")" ]
	then
		"$BENCH_GEN" "$@" > "$g_file.tmp" || die "generator failed"
		mv "$g_file.tmp" "$g_file" || die "cannot rename $g_file.tmp"
	fi
}

# once NAME CLEAN COMMAND: runs the command (a string, split into words
# by the shell; it may hold redirections of its own) once, pinned, after
# removing the path CLEAN (if not empty); sets t (seconds) and m (peak RSS,
# KiB).  Standard output goes to /dev/null, standard error to
# $BENCH_DIR/NAME.log, shown when the command fails: when it exits with a
# status other than 0 and $allow (xprof_diff's 1 for "they differ").
once() {
	o_name=$1 o_clean=$2 o_cmd=$3
	[ -n "$o_clean" ] && rm -rf "$o_clean"
	eval "measure \"\$BENCH_DIR/\$o_name.measure\" $pin $o_cmd" \
		> /dev/null 2> "$BENCH_DIR/$o_name.log"
	o_st=$?
	if [ "$o_st" -ne 0 ] && [ "$o_st" -ne "${allow:-0}" ]; then
		cat "$BENCH_DIR/$o_name.log" >&2
		die "$o_name failed: $o_cmd"
	fi
	read -r t m < "$BENCH_DIR/$o_name.measure" ||
		die "no measurement for $o_name"
}

# median "T1 T2 ...": the median of the numbers.
median() {
	echo "$1" | tr ' ' '\n' | sed '/^$/d' | sort -g | awk '
		{ a[NR] = $1 }
		END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# pair NAME CLEAN_A CMD_A CLEAN_B CMD_B: the tool (A) and its peer (B) in
# turn, A B A B ..., BENCH_RUNS times each, so that a change of the
# machine's load falls on both alike; sets ta and tb (median seconds) and
# rssa and rssb (the largest peak RSS, KiB).  An empty CMD_B runs A alone.
pair() {
	p_name=$1 p_ca=$2 p_a=$3 p_cb=$4 p_b=$5
	p_ta='' p_tb='' rssa=0 rssb=0 p_i=0
	while [ "$p_i" -lt "$BENCH_RUNS" ]; do
		p_i=$((p_i + 1))
		once "$p_name" "$p_ca" "$p_a"
		p_ta="$p_ta $t"
		[ "$m" -gt "$rssa" ] && rssa=$m
		[ -n "$p_b" ] || continue
		once "$p_name-peer" "$p_cb" "$p_b"
		p_tb="$p_tb $t"
		[ "$m" -gt "$rssb" ] && rssb=$m
	done
	ta=$(median "$p_ta")
	tb=
	[ -n "$p_b" ] && tb=$(median "$p_tb")
	return 0
}

# refs OUTFILE INFILE...: the physical references of a row, each the
# median of BENCH_RUNS runs: reading the inputs from the page cache (cat
# into /dev/null), writing a new file of OUTFILE's bytes (dd), and one
# memcpy of OUTFILE's size (bench/memcpy.c); sets rin, rout and rcpy.
refs() {
	r_out=$1
	shift
	r_tin='' r_tout='' r_i=0
	r_bytes=$(wc -c < "$r_out")
	while [ "$r_i" -lt "$BENCH_RUNS" ]; do
		r_i=$((r_i + 1))
		once ref-read "" "cat $*"
		r_tin="$r_tin $t"
		once ref-write "$BENCH_DIR/ref.out" \
			"dd if=$r_out of=$BENCH_DIR/ref.out bs=1M status=none"
		r_tout="$r_tout $t"
	done
	rm -f "$BENCH_DIR/ref.out"
	rin=$(median "$r_tin")
	rout=$(median "$r_tout")
	rcpy=$("$BENCH_MEMCPY" "$r_bytes") || die "memcpy failed"
}

# quot A B: A / B, 0 when B is 0.  Figures are judged as computed and
# rounded only to be printed (dec): a ratio of 1.695 misses 1.7.
quot() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", (b > 0) ? a / b : 0 }'
}

# dec N X: X with N decimals, to print.
dec() {
	awk -v n="$1" -v x="$2" 'BEGIN { printf "%.*f", n, x }'
}

# show_refs: the references of a row, from rin, rout and rcpy (refs).
show_refs() {
	printf '    references: read input %.3f s, write output %.3f s, ' \
		"$rin" "$rout"
	printf 'memcpy output %.3f s\n' "$rcpy"
}

# row TITLE TARGET: prints a row from ta, tb, rssa, rssb (pair) and rin,
# rout, rcpy (refs): the medians, the ratio peer/xprof against TARGET
# (at least that many times) and the references; sets v (the verdict).
row() {
	rt=$(quot "$tb" "$ta")
	v=$(verdict "$rt" ">=" "$2")
	printf '%s\n' "$1"
	printf '    xprof %8.3f s %8s MiB | peer %8.3f s %8s MiB | ' \
		"$ta" "$(mib "$rssa")" "$tb" "$(mib "$rssb")"
	printf 'ratio %6sx  target >= %sx: %s\n' "$(dec 2 "$rt")" "$2" "$v"
	show_refs
}

# verdict VALUE OP LIMIT: "met" or "MISSED" (OP is >= or <=).
verdict() {
	awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN {
		ok = (op == ">=") ? (v + 0 >= l + 0) : (v + 0 <= l + 0)
		print ok ? "met" : "MISSED" }'
}

# mbps BYTES SECONDS: MB/s (unrounded, as quot).
mbps() {
	awk -v b="$1" -v s="$2" 'BEGIN { printf "%.6f", (s > 0) ? b / s / 1e6 : 0 }'
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
	echo "  measure: $how, median of $BENCH_RUNS runs (tool and peer in" \
		"turn), peak RSS the largest"
}
