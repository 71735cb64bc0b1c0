#!/bin/sh
# dcpi.sh - tests of DCPI profiles (dcpi(5)) through the tools.
#
#  - tests/dcpi/small.hex: a profile worked out by hand must give exactly
#    small.text, and small.text those bytes back;
#  - good.list: every profile dcpigen makes from those arguments is read,
#    goes to text and back to the same bytes, and its text to binary and
#    back to the same text (one case per rule of the grammar it accepts);
#  - bad.list: every invalid profile dcpigen makes on purpose is rejected
#    by xprof_btoa with exit status 2, exactly bad/NAME.err on stderr, no
#    output file, and an existing output file left alone (the broken
#    texts of tests/bad/dcpi are checked by tests/bad.sh);
#  - merges (xprof_merge) and their refusals, exact texts in expect/;
#  - conversion to feedback (every function of the image's text, never-run
#    ones at zero, as xprof_tcov sees them; sums that are samples only)
#    and the xprof_show report, on an executable
#    built here with cc -g and a profile whose offsets fall in its
#    functions (expected outputs in expect/, the build directory's path
#    replaced by @DIR@).
#
# The report's procedures are also what go tool pprof -top reads in the
# pprof export, and folded stacks are refused.
#
# Environment: ATOB, BTOA, MERGE, SHOW, TCOV, XP_BUILD, SRCDIR, TMPDIR
# (see tests/run.sh).  XP_DCPI_UPDATE=1 rewrites the expected files from
# the actual results (review the diff before keeping it).
# Prints "PASS name" or "FAIL name: why" per case; exits 1 if any failed.

. "${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib/tools.sh"
: "${XP_DCPI_UPDATE:=0}"


GEN=$XP_BUILD/tests/dcpigen
data=$SRCDIR/tests/dcpi
work=$(mktemp -d "$TMPDIR/dcpi.XXXXXX") || exit 2

if [ ! -x "$GEN" ]; then
	fail dcpigen "$GEN was not built"
	exit 1
fi

# check_expect NAME FILE EXPECTED: compares, or updates under
# XP_DCPI_UPDATE=1.
check_expect() {
	if [ "$XP_DCPI_UPDATE" = 1 ]; then
		cp "$2" "$3"
	fi
	if [ ! -f "$3" ]; then
		fail "$1" "$(basename "$3") missing"
	elif cmp -s "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "differs from $(basename "$3")"
		diff -u "$3" "$2" | head -20 >&2
	fi
}

# gen FILE ARGS: runs dcpigen with the arguments of a list line.
gen() {
	out=$1
	shift
	eval "set -- $*"
	"$GEN" "$@" > "$out"
}

# --- the hand-worked profile ------------------------------------------------
perl -ne 's/#.*//; s/\s+//g; print pack("H*", $_)' "$data/small.hex" \
    > "$work/small.prof"
if "$BTOA" "$work/small.prof" "$work/small.text" 2> "$work/err" &&
    cmp -s "$work/small.text" "$data/small.text"; then
	pass dcpi-hand-worked-to-text
else
	fail dcpi-hand-worked-to-text "not small.text: $(cat "$work/err")"
fi
if "$ATOB" "$data/small.text" "$work/small2.prof" 2> "$work/err" &&
    cmp -s "$work/small2.prof" "$work/small.prof"; then
	pass dcpi-hand-worked-to-binary
else
	fail dcpi-hand-worked-to-binary "not small.hex: $(cat "$work/err")"
fi
# The default output names: dcpi.text and dcpi.prof.
mkdir -p "$work/defaults"
if (cd "$work/defaults" && "$BTOA" ../small.prof && "$ATOB" dcpi.text) \
    2> "$work/err" && cmp -s "$work/defaults/dcpi.prof" "$work/small.prof"
then
	pass dcpi-default-names
else
	fail dcpi-default-names "$(cat "$work/err")"
fi

# --- valid profiles: both round trips ------------------------------------
while IFS='|' read -r name args; do
	case $name in ''|'#'*) continue ;; esac
	p=$work/good-$name.prof
	if ! gen "$p" "$args"; then
		fail "dcpi-good-$name" "dcpigen failed"
		continue
	fi
	why=
	"$BTOA" "$p" "$p.text" 2> "$work/err" || why="btoa: $(head -3 "$work/err")"
	[ -n "$why" ] || "$ATOB" "$p.text" "$p.2" 2> "$work/err" ||
	    why="atob: $(head -3 "$work/err")"
	[ -n "$why" ] || cmp -s "$p" "$p.2" || why="binary round trip differs"
	[ -n "$why" ] || "$BTOA" "$p.2" "$p.text2" 2> "$work/err" ||
	    why="btoa again: $(head -3 "$work/err")"
	[ -n "$why" ] || cmp -s "$p.text" "$p.text2" || why="text round trip differs"
	if [ -z "$why" ]; then pass "dcpi-good-$name"; else fail "dcpi-good-$name" "$why"; fi
done < "$data/good.list"

# --- invalid profiles -------------------------------------------------------
nbad=0
while IFS='|' read -r name args; do
	case $name in ''|'#'*) continue ;; esac
	nbad=$((nbad + 1))
	d=$work/bad.$name
	mkdir -p "$d"
	if ! gen "$d/$name.prof" "$args"; then
		fail "dcpi-bad-$name" "dcpigen failed"
		continue
	fi
	echo keep > "$d/old.text"
	(cd "$d" && "$BTOA" "$name.prof" new.text > out 2> err)
	st1=$?
	(cd "$d" && "$BTOA" "$name.prof" old.text > out2 2> err2)
	st2=$?
	exp=$data/bad/$name.err
	[ "$XP_DCPI_UPDATE" = 1 ] && cp "$d/err" "$exp"
	if [ ! -f "$exp" ]; then
		fail "dcpi-bad-$name" "no bad/$name.err"
	elif [ "$st1" != 2 ] || [ "$st2" != 2 ]; then
		fail "dcpi-bad-$name" "exit status $st1/$st2, expected 2"
	elif ! cmp -s "$d/err" "$exp"; then
		fail "dcpi-bad-$name" "stderr: $(head -c 300 "$d/err")"
	elif [ -s "$d/out" ] || [ -e "$d/new.text" ]; then
		fail "dcpi-bad-$name" "wrote output"
	elif [ "$(cat "$d/old.text")" != keep ]; then
		fail "dcpi-bad-$name" "overwrote an existing output"
	else
		pass "dcpi-bad-$name"
	fi
done < "$data/bad.list"
n=$(ls "$data/bad" | wc -l)
if [ "$n" = "$nbad" ]; then
	pass dcpi-bad-no-stale
else
	fail dcpi-bad-no-stale "$n files in bad/, $nbad cases in bad.list"
fi

# --- invalid texts ----------------------------------------------------------
# --- -L does not apply ------------------------------------------------------
(cd "$work" && "$BTOA" -L le32 small.prof - > out 2> err)
st=$?
if [ "$st" = 2 ] && [ "$(cat "$work/err")" = "xprof_btoa: small.prof: a DCPI profile has a single layout; -L does not apply" ]; then
	pass dcpi-layout-refused
else
	fail dcpi-layout-refused "status $st: $(cat "$work/err")"
fi

# --- detection: a first line that is not a known keyword ------------------
printf 'frobnicate 1\nsamples\n' > "$work/unknown-first.prof"
(cd "$work" && "$BTOA" unknown-first.prof - > out 2> err)
st=$?
if [ "$st" = 2 ] && [ "$(cat "$work/err")" = "xprof_btoa: unknown-first.prof: not a profile directory or a feedback database" ]; then
	pass dcpi-detect-needs-known-keyword
else
	fail dcpi-detect-needs-known-keyword "status $st: $(cat "$work/err")"
fi

# --- merges ---------------------------------------------------------------
m=$work/merge
mkdir -p "$m"
gen "$m/a.prof" "-S 0x10:1,2,3 -S 0x20:5 -H 'extra one'"
gen "$m/b.prof" "-S 0x12:10,10 -S 0x14:1 -S 0x30:2 -H 'extra two' -H 'extra one'"
gen "$m/img.prof" "-i 00001A2B3C4D -S 0x10:1"
gen "$m/other-image.prof" "-i 99 -S 0x10:1"
gen "$m/other-event.prof" "-E 'retired instructions' -S 0x10:1"
gen "$m/other-tsize.prof" "-S 0x10:1 -T 4096"
gen "$m/tstart.prof" "-S 0x10:1 -t 400000"
gen "$m/big.prof" "-S 0x10:4294967295"
# merge_case NAME EXPECTED-STATUS ARGS...: runs xprof_merge in $m and
# compares the text of the result (or stderr) with expect/merge-NAME.
merge_case() {
	name=$1 want=$2
	shift 2
	rm -f "$m/out.prof"
	(cd "$m" && "$MERGE" -o out.prof "$@" > out 2> err)
	st=$?
	if [ "$st" != "$want" ]; then
		fail "dcpi-merge-$name" "exit status $st: $(cat "$m/err")"
		return
	fi
	if [ "$want" = 0 ]; then
		"$BTOA" "$m/out.prof" "$m/out.text" 2> "$m/err2"
		check_expect "dcpi-merge-$name" "$m/out.text" \
		    "$data/expect/merge-$name.text"
	else
		check_expect "dcpi-merge-$name" "$m/err" \
		    "$data/expect/merge-$name.err"
	fi
}
merge_case union 0 a.prof b.prof
merge_case self 0 a.prof a.prof
merge_case weight 0 -w 2.5,a.prof
merge_case same-image-id 0 a.prof img.prof
merge_case other-image 2 a.prof other-image.prof
merge_case other-event 2 a.prof other-event.prof
merge_case other-tsize 2 a.prof other-tsize.prof
merge_case other-tstart 2 a.prof tstart.prof
merge_case overflow 2 big.prof a.prof
# Merging is associative: (a + b) + a == a + (b + a).
(cd "$m" && "$MERGE" -o ab.prof a.prof b.prof && "$MERGE" -o ab_a.prof \
    ab.prof a.prof && "$MERGE" -o ba.prof b.prof a.prof &&
    "$MERGE" -o a_ba.prof a.prof ba.prof) 2> "$m/err"
if cmp -s "$m/ab_a.prof" "$m/a_ba.prof"; then
	pass dcpi-merge-associative
else
	fail dcpi-merge-associative "$(cat "$m/err")"
fi

# --- conversion to feedback and the report --------------------------------
f=$work/fb
mkdir -p "$f"
cp "$data/hot.c" "$f/hot.c"
# The expected reports were worked out for the code gcc makes of hot.c
# at -O0, so gcc builds it whatever compiler built the tools.
if ! (cd "$f" && gcc -g -O0 -fno-inline -o hot hot.c) 2> "$f/err"; then
	fail dcpi-feedback "cannot build hot.c: $(head -3 "$f/err")"
else
	# Offsets relative to tstart 0x1000 below the first function.
	addr() { nm "$f/hot" | awk -v s="$1" '$3 == s { print $1 }'; }
	hot=$((0x$(addr hot)))
	cold=$((0x$(addr cold)))
	ts=$(( (hot < cold ? hot : cold) - 0x100 ))
	tsx=$(printf '%x' "$ts")
	gen "$f/p.prof" "-t $tsx -P $f/hot -S 0x10:7 \
	    -S $((hot - ts + 4)):5,0,3,0,0,0,0,0,0,0,0,0,0,2 \
	    -S $((hot - ts + 24)):10,1 -S $((cold - ts + 2)):4"
	# show_case NAME ARGS...: xprof_show's stdout and stderr, with the
	# directory replaced, against expect/show-NAME.out.
	show_case() {
		name=$1
		shift
		(cd "$f" && "$SHOW" "$@" > out 2>&1)
		echo "status $?" >> "$f/out"
		sed "s|$f|@DIR@|g" "$f/out" > "$f/out.sed"
		check_expect "dcpi-show-$name" "$f/out.sed" \
		    "$data/expect/show-$name.out"
	}
	show_case report -e hot p.prof
	show_case path-line p.prof
	show_case lines -n 2 --lines -e hot p.prof
	show_case json --format=json --lines -e hot p.prof
	show_case summed -e hot p.prof p.prof
	show_case call-graph --call-graph -e hot p.prof
	# The pprof export: go tool pprof -top gives every procedure of the
	# report with its samples, and the samples in procedures in all.
	(cd "$f" && "$SHOW" -n 100 -e hot p.prof > report 2>/dev/null &&
	    "$SHOW" --format=pprof -o p.pb.gz -e hot p.prof 2>/dev/null)
	awk '/^Hottest procedures/ { p = 1; getline; next } /^$/ { p = 0 }
	    p { print $1, $4 } /^in procedures:/ { print "total", $3 }' \
	    "$f/report" | LC_ALL=C sort > "$f/want"
	go tool pprof -top -nodefraction=0 "$f/p.pb.gz" 2>/dev/null | awk '
	    p { print $1, $6 } $1 == "flat" { p = 1 }
	    /^Showing nodes/ { print "total", $8 }' | LC_ALL=C sort > "$f/got"
	if [ "$(wc -l < "$f/want")" -gt 1 ] && cmp -s "$f/want" "$f/got"; then
		pass dcpi-export-pprof
	else
		fail dcpi-export-pprof "go tool pprof -top differs from the report"
		diff "$f/want" "$f/got" >&2
	fi
	(cd "$f" && "$SHOW" --format=folded -e hot p.prof > out 2>&1)
	echo "status $?" >> "$f/out"
	if [ "$(cat "$f/out")" = "xprof_show: p.prof: a DCPI profile has no \
call stacks to fold
status 2" ]; then
		pass dcpi-export-folded-refused
	else
		fail dcpi-export-folded-refused "$(cat "$f/out")"
	fi
	gen "$f/nopath.prof" "-S 0x10:7"
	show_case no-image nopath.prof
	gen "$f/notstart.prof" "-S 0x10:7"
	show_case no-tstart -e hot notstart.prof
	# The feedback database, back to text.
	(cd "$f" && rm -rf p.profile && "$MERGE" --feedback -e hot -o p.profile \
	    p.prof && "$BTOA" p.profile fb.text) > "$f/out" 2>&1
	sed "s|$f|@DIR@|g" "$f/fb.text" > "$f/fb.sed"
	check_expect dcpi-feedback-text "$f/fb.sed" "$data/expect/feedback.text"
	# Coverage of the conversion: main, never sampled, is there at 0;
	# the hottest procedure's sum is its own samples, 21.
	(cd "$f" && "$TCOV" -q -x p.profile -o /dev/null --lcov cov.info \
	    hot.c && "$SHOW" -n 1 p.profile) > "$f/out" 2>&1
	if grep -qx 'FNDA:0,main' "$f/cov.info" &&
	    grep -qx 'FNDA:21,hot' "$f/cov.info" &&
	    grep -qx 'FNF:3' "$f/cov.info" && grep -qx 'FNH:2' "$f/cov.info" &&
	    grep -A 2 '^Hottest procedures' "$f/out" | grep -q '^ *21 .* hot$'
	then
		pass dcpi-feedback-coverage
	else
		fail dcpi-feedback-coverage "$(cat "$f/out" "$f/cov.info")"
	fi
fi

rm -rf "$work"
exit $failed
