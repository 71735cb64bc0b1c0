#!/bin/sh
# export.sh - xprof_show's exports (xprof_show(1), EXPORTS) read by their
# real consumers, on the real files of ../shared/realdata:
#
#  - folded stacks of the CPU profiles are google-pprof --collapsed's
#    lines, sorted; those of a gmon.out and an mpatrol profile add up to
#    the report's total;
#  - callgrind_annotate reads the callgrind exports of CPU profiles,
#    gmon.out, mpatrol and feedback, and its PROGRAM TOTALS are the
#    report's;
#  - go tool pprof -top and -raw read the pprof exports of CPU profiles,
#    gmon.out (samples and calls), mpatrol and feedback with the report's
#    totals, names and per-function figures (DCPI: tests/dcpi.sh);
#  - refusals write nothing, -o replaces its file atomically, and the
#    same input gives the same bytes.
#
# Prints "PASS name" or "FAIL name: why" per case; exits 1 if any failed.

. "${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib/tools.sh"

work=$(mktemp -d "$TMPDIR/export.XXXXXX") || exit 2
# Without links (pwd -P): google-pprof takes the executable's mapping for
# the program only when its path is the program's absolute path with
# every link resolved (Cwd::abs_path), and ../shared may be a link.
real=$(cd "$SRCDIR/../shared/realdata" 2>/dev/null && pwd -P)
cd "$work" || exit 2

# same NAME A B [WHY]: a case that passes when files A and B are equal.
same() {
	if [ -s "$2" ] && cmp -s "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "${4:-differs}"
		diff "$2" "$3" | head -6 | cut -c 1-200 >&2
	fi
}

# go_top FILE ARGS...: "flat cum name" of every row of go tool pprof
# -top (all nodes), sorted.
go_top() {
	gt_file=$1
	shift
	go tool pprof -top -nodefraction=0 -edgefraction=0 "$@" "$gt_file" \
	    2>/dev/null | awk 'p { n = $6; for (i = 7; i <= NF; i++)
	        n = n " " $i; print $1, $4, n } $1 == "flat" { p = 1 }' |
	    LC_ALL=C sort
}

# raw_total FILE K: the sum of the K-th value of go tool pprof -raw's
# samples.
raw_total() {
	go tool pprof -raw "$1" 2>/dev/null | awk -v k="$2" '
	    /^Samples:/ { s = 1; getline; next }
	    /^Locations/ { s = 0 }
	    s && /:/ { t += $k } END { printf "%.0f\n", t }'
}

# raw_names FILE: the function names of go tool pprof -raw's locations.
raw_names() {
	go tool pprof -raw "$1" 2>/dev/null | awk '
	    /^Locations/ { s = 1; next } /^Mappings/ { s = 0 }
	    s && $1 ~ /^[0-9]+:$/ { print $4 } s && $1 !~ /:$/ { print $1 }' |
	    LC_ALL=C sort -u
}

# cg_totals FILE: callgrind_annotate's PROGRAM TOTALS, without commas.
cg_totals() {
	callgrind_annotate "$1" 2>/dev/null |
	    awk '/PROGRAM TOTALS/ { for (i = 1; i <= NF; i++)
	        if ($i ~ /^[0-9,]+$/) { gsub(",", "", $i); printf "%s ", $i }
	        print ""; exit }'
}

if ! command -v go >/dev/null 2>&1 ||
   ! command -v callgrind_annotate >/dev/null 2>&1 ||
   ! command -v google-pprof >/dev/null 2>&1; then
	fail export-tools "go, callgrind_annotate or google-pprof missing" \
	    "(build-aux/deps.sh)"
	exit 1
fi

# --- CPU profiles -----------------------------------------------------------
# The files name where their executables were; the text form moves them
# here, so that google-pprof reads the same executable as xprof_show.
gp=$real/gperftools
for pair in fib:fib_prof fib_nopie:fib_prof_nopie fib32:fib_prof32 \
    fib_s390x:fib_prof_s390x; do
	f=${pair%%:*} exe=$gp/${pair#*:}
	"$BTOA" "$gp/$f.prof" - |
	    sed "s|/tmp/realdata/local/[a-z]*/|$gp/|" | "$ATOB" - "$f.prof"
	google-pprof --collapsed "$exe" "$f.prof" 2>/dev/null |
	    LC_ALL=C sort > pp.txt
	"$SHOW" --format=folded -e "$exe" "$f.prof" > ours.txt 2>err
	same "export-folded-cpu-$f" pp.txt ours.txt \
	    "not google-pprof --collapsed's lines"
	# callgrind: the totals of the report (samples, and times the
	# 1 ms period in nanoseconds).
	total=$("$SHOW" -e "$exe" "$f.prof" | awk 'NR == 1 { print $2 }')
	"$SHOW" --format=callgrind -e "$exe" "$f.prof" > cg.out 2>err
	echo "$total $((total * 1000000)) " > want
	cg_totals cg.out > got
	same "export-callgrind-cpu-$f" want got "callgrind_annotate's totals"
	# pprof: every function with the report's flat and cumulative
	# samples, and the same total.
	"$SHOW" --format=pprof -o pp.pb.gz -e "$exe" "$f.prof" 2>err
	go_top pp.pb.gz > got
	"$SHOW" -e "$exe" "$f.prof" | awk 'NR > 1 { n = $6
	    for (i = 7; i <= NF; i++) n = n " " $i; print $1, $4, n }' |
	    LC_ALL=C sort > want
	same "export-pprof-cpu-$f-top" want got "go tool pprof -top differs"
	echo "$total" > want
	raw_total pp.pb.gz 1 > got
	same "export-pprof-cpu-$f-raw" want got "go tool pprof -raw's total"
	"$SHOW" -e "$exe" "$f.prof" | awk 'NR > 1 { print $6 }' |
	    LC_ALL=C sort -u > want
	raw_names pp.pb.gz > got
	same "export-pprof-cpu-$f-raw-names" want got \
	    "go tool pprof -raw's functions"
done

# --- gmon.out ---------------------------------------------------------------
gm=$real/gmon
exe=$gm/sortbench_pg
"$SHOW" --call-graph -e "$exe" "$gm/sortbench.gmon.out" > report 2>err
# Samples: the flat profile's cumulative seconds of its last line, at
# 0.01 s a sample; calls: the call graph's "N" or "N+M".
samples=$(awk '/^ *[0-9.]+ +[0-9.]+ +[0-9.]+/ && !g { t = $2 }
    /Call graph/ { g = 1 } END { printf "%.0f\n", t * 100 }' report)
awk '/^\[/ { c = $5; n = split(c, a, "+"); s = a[1] + (n > 1 ? a[2] : 0)
    if (c ~ /^[0-9+]+$/ && s > 0) print s, $6 }' report | LC_ALL=C sort \
    > calls.want
"$SHOW" --format=folded -e "$exe" "$gm/sortbench.gmon.out" > folded 2>err
echo "$samples" > want
awk '{ t += $NF } END { print t }' folded > got
same export-folded-gmon-total want got "the chains' samples"
if grep -q '^main;quick_sort;partition;swap [0-9]*$' folded; then
	pass export-folded-gmon-chains
else
	fail export-folded-gmon-chains "no main;quick_sort;partition;swap"
fi
# A cycle: callcounts with f1 calling f2 back and some samples.  Each
# function's chains add up to the self time live gprof gives it, and the
# members of the cycle sit below its frame, below the cycle's caller.
"$BTOA" "$gm/callcounts.gmon.out" - | awk '{ print }
    /^hist/ { print "bin 1144 10"; print "bin 1148 20"; print "bin 1156 5" }
    /^arc from_pc 0x1080/ { print "arc from_pc 0x11e4 self_pc 0x11fa count 5" }' |
    "$ATOB" - cyc.gmon.out
"$SHOW" --format=folded -e "$gm/callcounts_pg" cyc.gmon.out > folded 2>err
awk '{ c = $NF; sub(/ [0-9]+$/, ""); n = split($0, a, ";"); t[a[n]] += c }
    END { for (f in t) print f, t[f] }' folded | LC_ALL=C sort > got
gprof -b -p "$gm/callcounts_pg" cyc.gmon.out 2>/dev/null | awk '
    $3 ~ /^[0-9.]+$/ && $3 > 0 { l = $0; sub(/ <cycle [0-9]+>$/, "", l)
    n = split(l, w, " "); printf "%s %.0f\n", w[n], $3 * 100 }' |
    LC_ALL=C sort > want
same export-folded-gmon-cycle-self want got "not gprof's self time"
if [ "$(grep -c '^main;f3;<cycle 1 as a whole>;f[12] [0-9]*$' folded)" = 2 ]
then
	pass export-folded-gmon-cycle
else
	fail export-folded-gmon-cycle "no chains through the cycle: $(cat folded)"
fi
"$SHOW" --format=callgrind -e "$exe" "$gm/sortbench.gmon.out" > cg.out
echo "$samples $((samples * 10000000)) " > want
cg_totals cg.out > got
same export-callgrind-gmon want got "callgrind_annotate's totals"
awk '/^cfn=/ { f = substr($0, 5) } /^calls=/ { split($1, a, "=")
    c[f] += a[2] } END { for (f in c) print c[f], f }' cg.out |
    LC_ALL=C sort > calls.got
same export-callgrind-gmon-calls calls.want calls.got \
    "calls= differ from the call graph's"
"$SHOW" --format=pprof -o g.pb.gz -e "$exe" "$gm/sortbench.gmon.out"
echo "$samples" > want
raw_total g.pb.gz 1 > got
same export-pprof-gmon-raw want got "go tool pprof -raw's samples"
go_top g.pb.gz -sample_index=calls | awk '$1 > 0 { print $1, $3 }' |
    LC_ALL=C sort > calls.got
same export-pprof-gmon-calls calls.want calls.got \
    "go tool pprof -top's calls differ from the call graph's"
awk '/^ *[0-9.]+ +[0-9.]+ +[0-9.]+/ && !g && $3 > 0 { print $NF }
    /Call graph/ { g = 1 }' report | LC_ALL=C sort > want
go_top g.pb.gz -sample_index=samples | awk '$1 > 0 { print $3 }' |
    LC_ALL=C sort > got
same export-pprof-gmon-names want got "functions with samples differ"

# --- mpatrol ----------------------------------------------------------------
mp=$real/mpatrol/mptest1.mpatrol.out
"$SHOW" "$mp" > report 2>err
# The bins' total line: count, bytes.
set -- $(awk '$1 == "total" { print $2, $3; exit }' report)
count=$1 bytes=$2
"$SHOW" --format=folded "$mp" | awk '{ t += $NF } END { print t }' > got
echo "$bytes" > want
same export-folded-mpatrol-bytes want got "the stacks' bytes"
"$SHOW" --format=folded --counts "$mp" | awk '{ t += $NF } END { print t }' \
    > got
echo "$count" > want
same export-folded-mpatrol-counts want got "the stacks' allocations"
"$SHOW" --format=callgrind "$mp" > cg.out
echo "$count $bytes " > want
cg_totals cg.out > got
same export-callgrind-mpatrol want got "callgrind_annotate's totals"
"$SHOW" --format=pprof -o m.pb.gz "$mp"
printf '%s\n%s\n' "$count" "$bytes" > want
{ raw_total m.pb.gz 1; raw_total m.pb.gz 2; } > got
same export-pprof-mpatrol-raw want got "go tool pprof -raw's totals"
# The direct allocations: bytes per function.
awk '/DIRECT ALLOCATIONS/ { d = 1 } d && $NF != "total" && $NF != "function" &&
    $1 ~ /^[0-9]+$/ && NF >= 4 { print $1 "B", $NF } /MEMORY LEAKS/ { d = 0 }' \
    report | LC_ALL=C sort > want
go_top m.pb.gz -unit=byte | awk '$1 != "0" { print $1, $3 }' > got
same export-pprof-mpatrol-top want got "go tool pprof -top's functions"

# --- feedback ---------------------------------------------------------------
fbt=$SRCDIR/examples/wc/run1.text
"$SHOW" -n 100 "$fbt" > report
sum=$(awk '/^sum of counts:/ { print $4 }' report)
"$SHOW" --format=pprof -o f.pb.gz "$fbt"
echo "$sum" > want
raw_total f.pb.gz 1 > got
same export-pprof-feedback-raw want got "go tool pprof -raw's total"
awk '/^Hottest procedures/ { p = 1; getline; next } /^$/ { p = 0 }
    p && $1 > 0 { print $1, $NF }' report | LC_ALL=C sort > want
go_top f.pb.gz | awk '$1 > 0 { print $1, $3 }' > got
same export-pprof-feedback-top want got "go tool pprof -top's procedures"
"$SHOW" --format=callgrind "$fbt" > cg.out
echo "$sum " > want
cg_totals cg.out > got
same export-callgrind-feedback want got "callgrind_annotate's total"

# --- refusals, the output file, determinism --------------------------------
# refuse NAME WANT ARGS...: xprof_show ARGS -o out fails with status 2,
# the message WANT and no file out.
refuse() {
	n=$1 want=$2
	shift 2
	rm -f out
	"$SHOW" "$@" -o out > /dev/null 2> err
	st=$?
	if [ "$st" = 2 ] && [ ! -e out ] && [ "$(cat err)" = "$want" ]; then
		pass "$n"
	else
		fail "$n" "status $st, stderr: $(cat err)"
	fi
}
refuse export-refuse-folded-feedback \
    "xprof_show: $fbt: a feedback profile has no call stacks to fold" \
    --format=folded "$fbt"
refuse export-refuse-counts-cpu \
    "xprof_show: fib.prof: a CPU profile has no allocation counts" \
    --format=pprof --counts -e "$gp/fib_prof" fib.prof
refuse export-refuse-gmon-no-exe \
    "xprof_show: $gm/sortbench.gmon.out: a gmon.out report needs the executable (-e)" \
    --format=callgrind "$gm/sortbench.gmon.out"
"$SHOW" -o out "$fbt" > /dev/null 2> err
if [ $? = 2 ] && [ ! -e out ] && grep -q "names the file of an export" err
then
	pass export-refuse-o-text
else
	fail export-refuse-o-text "-o with the text summary: $(head -1 err)"
fi
"$SHOW" --format=pprof -n 3 "$fbt" > out 2> err
if [ $? = 2 ] && [ ! -s out ] && grep -q "no meaning for an export" err; then
	pass export-refuse-n
else
	fail export-refuse-n "-n with an export: $(head -1 err)"
fi
echo old > out
"$SHOW" --format=folded "$fbt" -o out 2> /dev/null
if [ "$(cat out)" = old ]; then
	pass export-refuse-keeps-file
else
	fail export-refuse-keeps-file "a refused export changed the file"
fi
"$SHOW" --format=pprof -e "$gp/fib_prof" fib.prof > a.pb.gz
"$SHOW" --format=pprof -e "$gp/fib_prof" fib.prof -o b.pb.gz
"$SHOW" --format=pprof -e "$gp/fib_prof" fib.prof fib.prof > c.pb.gz
same export-pprof-same-bytes a.pb.gz b.pb.gz "-o and stdout differ"
if ! cmp -s a.pb.gz c.pb.gz && [ "$(raw_total c.pb.gz 1)" = \
    "$(($(raw_total a.pb.gz 1) * 2))" ]; then
	pass export-pprof-summed
else
	fail export-pprof-summed "the sum of two files is not twice one"
fi

rm -rf "$work"
exit $failed
