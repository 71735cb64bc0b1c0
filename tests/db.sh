#!/bin/sh
# db.sh - tests of the feedback database through the tools.
#
#  - tests/data/db: small.text must become exactly the bytes worked out
#    by hand in small.hex, and go back to small.text;
#  - tests/bad/db: base.text must become base.db (the base of the
#    corrupted files); mkbad, rebuilt from source, must make exactly the
#    committed corrupted files; and xprof_btoa must reject each of them
#    with exit status 2, no output, and exactly the stderr in
#    <case>.db.err (the convention of tests/bad.sh);
#  - atob(btoa(d)) == d for the valid databases.
#
# Prints "PASS name" or "FAIL name: why" per case; exits 1 if any failed.

. "${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib/tools.sh"

work=$(mktemp -d "$TMPDIR/db.XXXXXX") || exit 2
data=$SRCDIR/tests/data/db
bad=$SRCDIR/tests/bad/db

# The hex listing to bytes: drop comments, keep the hex digit pairs.
# perl is part of every Debian system (perl-base is essential).
unhex() {
	perl -ne 's/#.*//; s/\s+//g; print pack("H*", $_)' "$1"
}

# --- the hand-worked database -------------------------------------------
unhex "$data/small.hex" > "$work/small.db"
rm -rf "$work/small.profile"
if ! "$ATOB" "$data/small.text" "$work/small.profile" 2> "$work/err"; then
	fail db-hand-worked "xprof_atob failed: $(cat "$work/err")"
elif ! cmp -s "$work/small.db" "$work/small.profile/feedback"; then
	fail db-hand-worked "atob output differs from small.hex: $(cmp \
	    "$work/small.db" "$work/small.profile/feedback" 2>&1)"
else
	pass db-hand-worked
fi
if "$BTOA" "$work/small.profile" - > "$work/small.out" 2> "$work/err" &&
    cmp -s "$work/small.out" "$data/small.text"; then
	pass db-hand-worked-back-to-text
else
	fail db-hand-worked-back-to-text "btoa did not give small.text back"
fi

# --- the base of the corrupted files -------------------------------------
rm -rf "$work/base.profile"
if "$ATOB" "$bad/base.text" "$work/base.profile" 2> "$work/err" &&
    cmp -s "$work/base.profile/feedback" "$bad/base.db"; then
	pass db-bad-base-current
else
	fail db-bad-base-current "xprof_atob base.text differs from base.db"
fi

# --- atob(btoa(d)) == d ---------------------------------------------------
for db in "$work/small.db" "$bad/base.db"; do
	name=db-roundtrip-$(basename "$db" .db)
	rm -rf "$work/rt.profile" "$work/rt2.profile"
	mkdir "$work/rt.profile"
	cp "$db" "$work/rt.profile/feedback"
	if "$BTOA" "$work/rt.profile" "$work/rt.text" 2> "$work/err" &&
	    "$ATOB" "$work/rt.text" "$work/rt2.profile" 2>> "$work/err" &&
	    cmp -s "$db" "$work/rt2.profile/feedback"; then
		pass "$name"
	else
		fail "$name" "not the same bytes: $(cat "$work/err")"
	fi
done

# --- the corrupted files are what mkbad makes -----------------------------
lib=$XP_O/lib/libxprof.a
mkdir -p "$work/gen"
# Built with this build's flags: under the sanitizers the library needs
# them at link time.
if ! $XP_CC -std=c11 -D_GNU_SOURCE ${XP_CFLAGS:-} ${XP_LDFLAGS:-} \
    -I"$SRCDIR/lib" -I"$XP_BUILD/gen" -o "$work/mkbad" "$bad/mkbad.c" \
    "$lib" ${XP_LIBS:-} \
    2> "$work/err"; then
	fail db-bad-generated "cannot build mkbad: $(head -3 "$work/err")"
elif ! "$work/mkbad" "$bad/base.db" "$work/gen"; then
	fail db-bad-generated "mkbad failed"
else
	why=
	for f in "$work/gen"/*.db; do
		n=$(basename "$f")
		cmp -s "$f" "$bad/$n" || why="$why $n"
	done
	for f in "$bad"/*.db; do
		n=$(basename "$f")
		[ "$n" = base.db ] && continue
		[ -e "$work/gen/$n" ] || why="$why $n(stale)"
	done
	if [ -z "$why" ]; then
		pass db-bad-generated
	else
		fail db-bad-generated "differ from mkbad's output:$why"
	fi
fi

# --- every corrupted file is rejected exactly -----------------------------
# Each runs in its own directory, so the message names p.profile.
for f in "$bad"/*.db; do
	n=$(basename "$f" .db)
	[ "$n" = base ] && continue
	name=db-bad-$n
	d=$work/case.$n
	mkdir -p "$d/p.profile"
	cp "$f" "$d/p.profile/feedback"
	(cd "$d" && "$BTOA" p.profile - > out 2> err)
	status=$?
	if [ ! -f "$bad/$n.db.err" ]; then
		fail "$name" "no $n.db.err"
	elif [ "$status" != 2 ]; then
		fail "$name" "exit status $status, expected 2"
	elif [ -s "$d/out" ]; then
		fail "$name" "wrote to stdout"
	elif ! cmp -s "$d/err" "$bad/$n.db.err"; then
		fail "$name" "stderr: $(head -c 300 "$d/err")"
	elif [ "$(ls -A "$d/p.profile")" != feedback ]; then
		fail "$name" "left files behind: $(ls -A "$d/p.profile")"
	else
		pass "$name"
	fi
done

# --- concurrent writers through the tools --------------------------------
# Eight xprof_atob runs at once into one directory: eight objfd files, then
# eight replacements of feedback, of which exactly one must win whole.
par=$work/par.profile
i=0
while [ $i -lt 8 ]; do
	{
		echo "PROFILE-FEEDBACK-DATA: 4.4 1 0 0 0 objfd"
		echo "OBJFILE:/obj/$i.o 1 $i 0 0 0x$i 0"
		echo "PROC: f 0x1 1 0 0 1 0 0 0"
		echo "1 $i"
	} > "$work/objfd$i.text"
	{
		echo "PROFILE-FEEDBACK-DATA: 4.4 1 0 0 0"
		echo "OBJFILE:/same.o 1 $i 0 0 0x0 0"
		echo "PROC: f 0x1 $((i + 1)) 0 0 1 0 0 0"
		k=1
		while [ $k -le $((i + 1)) ]; do
			echo "$k $i"
			k=$((k + 1))
		done
	} > "$work/fb$i.text"
	i=$((i + 1))
done
# atob_parallel PREFIX: runs xprof_atob on $work/PREFIX0..7.text into
# $par, all at once; sets why to the failure, if any.
atob_parallel() {
	pids=
	i=0
	while [ $i -lt 8 ]; do
		"$ATOB" "$work/$1$i.text" "$par" 2> "$work/par$i.err" &
		pids="$pids $!"
		i=$((i + 1))
	done
	st=0
	for p in $pids; do wait "$p" || st=1; done
	why=
	[ "$st" = 0 ] || why="an xprof_atob failed: $(cat "$work"/par*.err)"
}

atob_parallel objfd
i=0
while [ $i -lt 8 ] && [ -z "$why" ]; do
	"$BTOA" -t objfd "/obj/$i.o" "$par" "$work/back$i.text" 2> "$work/err" &&
	    cmp -s "$work/back$i.text" "$work/objfd$i.text" ||
	    why="objfd of /obj/$i.o: $(cat "$work/err")"
	i=$((i + 1))
done
n=$(ls -A "$par/objfd" | wc -l)
[ -n "$why" ] || [ "$n" = 8 ] || why="$n files in objfd, expected 8"
if [ -z "$why" ]; then pass db-parallel-objfd; else fail db-parallel-objfd "$why"; fi

atob_parallel fb
if [ -z "$why" ]; then
	"$BTOA" "$par" "$work/fb.out" 2> "$work/err" || why=$(cat "$work/err")
fi
if [ -z "$why" ]; then
	why="the result is none of the inputs"
	i=0
	while [ $i -lt 8 ]; do
		cmp -s "$work/fb.out" "$work/fb$i.text" && why=
		i=$((i + 1))
	done
fi
left=$(ls -A "$par" | tr '\n' ' ')
[ -n "$why" ] || [ "$left" = "feedback objfd " ] ||
    why="unexpected files: $left"
if [ -z "$why" ]; then pass db-parallel-feedback; else fail db-parallel-feedback "$why"; fi

[ "$failed" = 0 ] && rm -rf "$work"
exit "$failed"
