#!/bin/sh
# hostile.sh - the tools in hostile surroundings: killed half way, given
# descriptors they share with their caller, inputs that change under
# them, full disks, lists that name nothing.  Each case is a defect that
# once did harm, run the way it was found.
#
# Cases:
#   stdout flags after a kill   xprof_btoa DIR - into a regular file that
#                               the calling shell goes on writing to,
#                               killed at its first write (strace injects
#                               the signal): the shell's next unaligned
#                               write must still work, so the tool must
#                               never have set O_DIRECT on the caller's
#                               open file
#   no fcntl on stdout          the same for xprof_btoa and xprof_merge
#                               --text -o -: strace sees no F_SETFL on
#                               descriptor 1
#   stale temporary             xprof_atob into a profile directory,
#                               killed between naming its new file and
#                               renaming it over the old one, leaves
#                               .feedback.HEX.tmp and the old data; the
#                               next write into the directory removes the
#                               temporary (xprof_atob and xprof_merge -a)
#   killed between the database and its manifest
#                               xprof_merge killed between renaming its
#                               database and its manifest: xprof_show
#                               --manifest refuses the old manifest
#   changed while read: TOOL    a database that shrinks to nothing while
#                               xprof_btoa or xprof_merge reads it (an
#                               LD_PRELOAD shim, tests/hostile/shrink.c,
#                               truncates every file right after it is
#                               mapped): exit status 2 and "FILE: file
#                               changed while it was being read", not a
#                               death by SIGBUS; xprof_merge writes nothing
#   changed while read again: HOW
#                               a database of the first input's layout,
#                               which xprof_merge checks in one pass and
#                               then reads in part again (its value
#                               profiles; its counts too when weighted
#                               or with --mode=max), is truncated, or
#                               rewritten in place with a VP_PROC value
#                               of another procedure or another run's
#                               counts, right after the first pass (an
#                               LD_PRELOAD shim, tests/hostile/rewrite.c):
#                               exit status 2, "file changed while it was
#                               being read", nothing written (it once
#                               merged the new value or counts unchecked)
#   out of memory: TOOL         every allocation of a run of xprof_diff
#                               (texts, and databases of one layout),
#                               xprof_merge, xprof_show, xprof_btoa and
#                               xprof_atob fails in turn (an LD_PRELOAD
#                               shim, tests/hostile/failalloc.c): exit
#                               status 0, 1 or 2, never a signal
#                               (xprof_diff once freed a pointer it had
#                               never set); not under the sanitizers,
#                               whose allocator the shim cannot replace
#   long bad line: FORMAT       a 1 MB bad line of a feedback text and a
#                               100,000-byte bad line of a DCPI header
#                               give a diagnostic of a few hundred bytes
#                               (a window around the column), not the line
#   linear: WHAT                10 MB of NUL bytes and 10 MB of junk
#                               (tests/hostile/junk.c), alone and after
#                               the first line of every text form and of a
#                               DCPI header, to every tool that scans them:
#                               exit status 2 within `timeout 10` (a run
#                               of 100 KB of NULs took 9 s when scanning
#                               was quadratic), and a file without line
#                               ends past 64 MiB is refused at once
#   full disk: TOOL             xprof_atob and xprof_merge writing a new
#                               profile directory, xprof_btoa a new text,
#                               on a full file system (a 512 KiB tmpfs)
#                               fail with exit status 2 and leave nothing
#                               behind; an existing directory keeps its
#                               data, an existing text file its text
#                               (needs root to mount; without root the
#                               cases say so)
#
# Environment: ATOB, BTOA, MERGE, SHOW, DIFF, XP_BUILD, XP_CC, XP_SANITIZE,
# TMPDIR (see tests/run.sh).
# Prints "PASS name" or "FAIL name: why" per case; exits 1 if any failed.

set -u

. "${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib/tools.sh"

# LeakSanitizer cannot work in a process that strace traces; the traced
# runs below are not about leaks.
traced() {
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace "$@"
}

GEN=$XP_BUILD/bench/gen
work=$TMPDIR/hostile
rm -rf "$work"
mkdir -p "$work" || exit 2

if ! command -v strace >/dev/null 2>&1; then
	echo "FAIL hostile: strace is missing (build-aux/deps.sh installs it)"
	exit 1
fi
if [ ! -x "$GEN" ]; then
	echo "FAIL hostile: generator not built: $GEN"
	exit 1
fi

# A profile whose text is a few MB: several of the writer's blocks.
"$GEN" -s 5 -n 20000 > "$work/g.text" &&
"$ATOB" "$work/g.text" "$work/g.profile" || {
	echo "FAIL hostile: cannot make the test profile"
	exit 1
}

# --- the caller's open file -------------------------------------------------

# The group's standard output is one open file description that the shell
# keeps; the tool is killed at its first write(2).
{
	traced -f -o /dev/null -e trace=write \
	    -e inject=write:signal=SIGKILL:when=1 "$BTOA" "$work/g.profile" -
	echo after
} > "$work/out.txt" 2> "$work/err.txt"
if [ "$(tail -n 1 "$work/out.txt")" = after ] &&
   ! grep -q 'write error' "$work/err.txt"; then
	pass "stdout flags after a kill"
else
	fail "stdout flags after a kill" \
	    "the shell could not write after the tool: $(tail -n 1 "$work/err.txt")"
fi

# no_setfl NAME WANT COMMAND...: the command, its stdout a regular file,
# makes no F_SETFL on descriptor 1 and writes what the file WANT holds.
no_setfl() {
	name=$1 want=$2
	shift 2
	traced -f -o "$work/trace" -e trace=fcntl "$@" > "$work/out.txt" \
	    2> "$work/err.txt"
	st=$?
	if [ "$st" != 0 ]; then
		fail "$name" "exit status $st: $(head -n 1 "$work/err.txt")"
	elif grep -q 'fcntl(1, F_SETFL' "$work/trace"; then
		fail "$name" "$(grep 'fcntl(1, F_SETFL' "$work/trace" | head -n 1)"
	elif ! cmp -s "$want" "$work/out.txt"; then
		fail "$name" "the text written differs"
	else
		pass "$name"
	fi
}
no_setfl "no fcntl on stdout: xprof_btoa DIR -" "$work/g.text" \
    "$BTOA" "$work/g.profile" -
"$MERGE" --text -o "$work/merged.text" "$work/g.profile" ||
    fail "xprof_merge --text" "exit status $?"
no_setfl "no fcntl on stdout: xprof_merge --text -o -" "$work/merged.text" \
    "$MERGE" --text -o - "$work/g.profile"

# --- killed between naming and renaming --------------------------------

# stale NAME DIR COMMAND...: a temporary left in DIR by a killed writer is
# gone after COMMAND, and DIR holds the data COMMAND wrote.
stale() {
	name=$1 dir=$2
	shift 2
	"$ATOB" "$work/small.text" "$dir" || { fail "$name" "setup"; return; }
	traced -f -o /dev/null -e trace=renameat,renameat2 \
	    -e inject=renameat,renameat2:signal=SIGKILL "$ATOB" "$work/g.text" \
	    "$dir" 2> /dev/null
	left=$(cd "$dir" && ls -A | grep -c '^\.feedback\.[0-9a-f]*\.tmp$')
	if [ "$left" != 1 ]; then
		fail "$name" "the killed run left $left temporaries, not 1"
		return
	fi
	"$BTOA" "$dir" "$work/kept.text" &&
	cmp -s "$work/kept.text" "$work/small.text" ||
	    { fail "$name" "the old data did not survive the kill"; return; }
	"$@" > "$work/out.txt" 2>&1 || {
		fail "$name" "exit status $?: $(head -n 1 "$work/out.txt")"
		return
	}
	if (cd "$dir" && ls -A | grep -q '\.tmp$'); then
		fail "$name" "the temporary is still there: $(ls -A "$dir")"
	else
		pass "$name"
	fi
}
"$GEN" -s 9 -n 50 > "$work/small.text"
stale "stale temporary: xprof_atob" "$work/st1.profile" \
    "$ATOB" "$work/small.text" "$work/st1.profile"
stale "stale temporary: xprof_merge -a" "$work/st2.profile" \
    "$MERGE" -a -o "$work/st2.profile" "$work/small.text"

# --- killed between the database and its manifest -------------------------

# xprof_merge renames its new database into place, then the manifest that
# describes it.  Killed between the two, it leaves the new database beside
# the old manifest, which readers must see is another database's; the next
# merge into the directory writes both again.
between() {
	dir=$work/mf.profile
	"$MERGE" -o "$dir" "$work/small.text" || { fail "$1" "setup"; return; }
	traced -f -o /dev/null -e trace=renameat,renameat2 \
	    -e inject=renameat,renameat2:signal=SIGKILL:when=2 \
	    "$MERGE" -o "$dir" "$work/g.text" 2> /dev/null
	"$MERGE" --text -o "$work/new.text" "$work/g.text" &&
	"$BTOA" "$dir" "$work/now.text" || { fail "$1" "setup"; return; }
	"$SHOW" --manifest "$dir" > /dev/null 2> "$work/err.txt"
	st=$?
	if ! cmp -s "$work/new.text" "$work/now.text"; then
		fail "$1" "the new database is not in place"
	elif [ "$st" != 2 ] ||
	     ! grep -q 'describes another database' "$work/err.txt"; then
		fail "$1" "the old manifest was taken for the new database's"
	elif ! "$MERGE" -o "$dir" "$work/g.text" ||
	     ! "$SHOW" --manifest "$dir" > /dev/null; then
		fail "$1" "the next merge did not write both"
	else
		pass "$1"
	fi
}
between "killed between the database and its manifest: xprof_merge"

# --- an input that shrinks while it is read -------------------------------

# refused NAME STATUS: a run that read $work/x.db or y.db as it changed
# ended with STATUS 2, said so of the file, and wrote no m.profile.
refused() {
	if [ "$2" != 2 ]; then
		fail "$1" "exit status $2, not 2"
	elif ! grep -Eqx "xprof_[a-z]+: ($work/)?[xy]\.db: file changed while it was being read" "$work/err.txt"; then
		fail "$1" "$(head -n 1 "$work/err.txt")"
	elif [ -e "$work/m.profile" ]; then
		fail "$1" "an output was written"
	else
		pass "$1"
	fi
}

if "$XP_CC" -shared -fPIC -o "$work/shrink.so" \
    "$SRCDIR/tests/hostile/shrink.c" -ldl 2> "$work/cc.err"; then
	# changed NAME COMMAND...: the command reads $work/x.db, which the
	# shim empties once it is mapped.
	changed() {
		name=$1
		shift
		cp "$work/g.profile/feedback" "$work/x.db" &&
		cp "$work/g.profile/feedback" "$work/y.db" || exit 2
		(cd "$work" &&
		 ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
		 LD_PRELOAD="$work/shrink.so" "$@") > "$work/out.txt" \
		    2> "$work/err.txt"
		refused "$name" $?
	}
	changed "changed while read: xprof_btoa" "$BTOA" x.db out.text
	changed "changed while read: xprof_merge" "$MERGE" -o m.profile y.db \
	    x.db
else
	fail "changed while read" "cannot build the shim: $(head -n 1 "$work/cc.err")"
fi

# --- an input that changes between the check and the second read ----------

# A program large enough that its database does not fit the reader's
# window (512 KiB), and the same database with the last VP_PROC value
# naming the procedure of the first instead.
"$GEN" -s 7 -n 10000 > "$work/v.text" &&
awk '/^VP_PROC/ && !first { first = $4 } /^VP_PROC/ { last = NR }
     { line[NR] = $0 }
     END { for (i = 1; i <= NR; i++) {
		if (i == last) {
			split(line[i], f, " ")
			line[i] = f[1] " " f[2] " " f[3] " " first
		}
		print line[i] } }' "$work/v.text" > "$work/v2.text" &&
"$ATOB" "$work/v.text" "$work/v.profile" &&
"$ATOB" "$work/v2.text" "$work/v2.profile" || exit 2
if "$XP_CC" -shared -fPIC -o "$work/rewrite.so" \
    "$SRCDIR/tests/hostile/rewrite.c" -ldl 2> "$work/cc.err"; then
	# again HOW WITH [ARGUMENTS...]: merges v.profile and x.db (or the
	# ARGUMENTS), x.db a copy of v.profile, which the shim rewrites
	# with WITH (empty: truncates) after the first pass.
	again() {
		how=$1 with=$2
		shift 2
		[ $# -gt 0 ] || set -- v.profile x.db
		cp "$work/v.profile/feedback" "$work/x.db" || exit 2
		rm -rf "$work/m.profile"
		(cd "$work" &&
		 ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
		 XP_REWRITE=/x.db XP_REWRITE_WITH="$with" \
		 LD_PRELOAD="$work/rewrite.so" "$MERGE" -j 1 -o m.profile \
		     "$@") > "$work/out.txt" 2> "$work/err.txt"
		refused "changed while read again: $how" $?
	}
	again truncated ""
	again "another VP_PROC value" "$work/v2.profile/feedback"
	# Counts that are not combined as they are checked (at a weight
	# other than 1, or a maximum with counts in it already) are read
	# again too: another run's, of the same layout, are refused.
	"$GEN" -s 7 -n 10000 -r 1 > "$work/r1.text" &&
	"$ATOB" "$work/r1.text" "$work/r1.profile" || exit 2
	again "other counts, weighted" "$work/r1.profile/feedback" \
	    -w 2,v.profile -w 2,x.db
	again "other counts, maximum" "$work/r1.profile/feedback" \
	    --mode=max v.profile v.profile x.db
else
	fail "changed while read again" "cannot build the shim: $(head -n 1 "$work/cc.err")"
fi

# --- memory that runs out ---------------------------------------------------

if [ "${XP_SANITIZE:-}" = 1 ]; then
	:
elif "$XP_CC" -shared -fPIC -o "$work/failalloc.so" \
    "$SRCDIR/tests/hostile/failalloc.c" 2> "$work/cc.err"; then
	D=$SRCDIR/tests/diff/data
	"$ATOB" "$D/a.text" "$work/oa" && "$ATOB" "$D/a-counts.text" "$work/ob" ||
	    exit 2
	# oom NAME COMMAND...: the command run with its 1st, 2nd...
	# allocation failing, until the shim says none had that number.
	oom() {
		name=$1
		shift
		n=1
		while :; do
			rm -rf "$work/oom.out"
			XP_FAIL_ALLOC=$n LD_PRELOAD="$work/failalloc.so" "$@" \
			    > /dev/null 2> "$work/err.txt"
			st=$?
			if [ "$st" -gt 2 ]; then
				fail "out of memory: $name" "allocation $n: exit status $st"
				return
			fi
			grep -q "^failalloc: not reached" "$work/err.txt" && break
			if [ "$n" -ge 5000 ]; then
				fail "out of memory: $name" "more than 5000 allocations"
				return
			fi
			n=$((n + 1))
		done
		pass "out of memory: $name"
	}
	oom "xprof_diff, texts" "$DIFF" "$D/a.text" "$D/a-counts.text"
	oom "xprof_diff, one layout" "$DIFF" "$work/oa" "$work/ob"
	oom "xprof_merge" "$MERGE" -j 1 -o "$work/oom.out" "$work/oa" \
	    "$work/ob" "$D/a.text"
	oom "xprof_show" "$SHOW" "$work/oa"
	oom "xprof_btoa" "$BTOA" "$work/oa" "$work/oom.out"
	oom "xprof_atob" "$ATOB" -j 1 "$D/a.text" "$work/oom.out"
else
	fail "out of memory" "cannot build the shim: $(head -n 1 "$work/cc.err")"
fi

# --- a long bad line ------------------------------------------------------

# small_error NAME COMMAND...: exit status 2 and under 1 KiB on stderr.
small_error() {
	name=$1
	shift
	"$@" > /dev/null 2> "$work/err.txt"
	st=$?
	size=$(wc -c < "$work/err.txt")
	if [ "$st" != 2 ]; then
		fail "$name" "exit status $st, not 2"
	elif [ "$size" -ge 1024 ]; then
		fail "$name" "$size bytes on stderr"
	else
		pass "$name"
	fi
}
awk 'BEGIN {
	printf "PROFILE-FEEDBACK-DATA: 4.4 1 0 0 0\n"
	printf "OBJFILE:/o.o 1 0 0 1 0x1 1\n"
	s = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	for (i = 0; i < 16000; i++) printf "%s", s
	printf "\n"
}' > "$work/long.text"
small_error "long bad line: feedback text" "$ATOB" "$work/long.text" \
    "$work/long.profile"
if "$XP_BUILD/tests/dcpigen" -i "0bad$(awk 'BEGIN {
	for (i = 0; i < 1000; i++) printf "cccccccccccccccccccccccccccccccccccc"
	}')zz" > "$work/long.dcpi" 2> /dev/null; then
	small_error "long bad line: DCPI header" "$BTOA" "$work/long.dcpi" -
else
	fail "long bad line: DCPI header" "dcpigen failed"
fi

# --- scanning time is linear in the input ---------------------------------

# linear NAME COMMAND...: exit status 2 within 10 seconds.
linear() {
	name=$1
	shift
	timeout 10 "$@" > /dev/null 2> "$work/err.txt"
	st=$?
	if [ "$st" = 124 ]; then
		fail "linear: $name" "still running after 10 s"
	elif [ "$st" != 2 ]; then
		fail "linear: $name" "exit status $st, not 2"
	else
		pass "linear: $name"
	fi
}
if "$XP_CC" -o "$work/junk" "$SRCDIR/tests/hostile/junk.c" \
    2> "$work/cc.err"; then
	mb10=10000000
	for seed in 0 7; do
		what=NULs
		[ "$seed" = 0 ] || what=junk
		"$work/junk" $mb10 $seed > "$work/j"
		linear "$what: xprof_atob" "$ATOB" "$work/j" "$work/jp"
		linear "$what: xprof_btoa" "$BTOA" "$work/j" -
		linear "$what: xprof_show" "$SHOW" "$work/j"
		linear "$what: xprof_diff" "$DIFF" "$work/j" "$work/j"
		linear "$what: xprof_merge" "$MERGE" -o "$work/jm" "$work/j"
		linear "$what: xprof_atob -" sh -c '"$1" - "$2" < "$3"' sh \
		    "$ATOB" "$work/jp" "$work/j"
		"$work/junk" $mb10 $seed \
		    "PROFILE-FEEDBACK-DATA: 4.4 1 0 0 0" > "$work/j"
		linear "$what after a header: xprof_atob" "$ATOB" "$work/j" \
		    "$work/jp"
		linear "$what after a header: xprof_merge" "$MERGE" --text \
		    -o - "$work/j"
		linear "$what after a header: xprof_show" "$SHOW" "$work/j"
		linear "$what after a header: xprof_diff" "$DIFF" "$work/j" \
		    "$work/j"
		linear "$what after a header: xprof_merge -" sh -c \
		    '"$1" --text -o - - < "$2"' sh "$MERGE" "$work/j"
		for form in GMON-TEXT CPUPROF-TEXT DCPI-TEXT MPATROL-TEXT; do
			"$work/junk" $mb10 $seed "$form 1" > "$work/j"
			linear "$what after $form: xprof_atob" "$ATOB" \
			    "$work/j" "$work/jo"
		done
		# A DCPI header: its first line, then the bytes.
		"$work/junk" $mb10 $seed "image 0badcafe" > "$work/j"
		linear "$what in a DCPI header: xprof_btoa" "$BTOA" "$work/j" -
	done
	# No line end in 100 MB: refused once a line passes 64 MiB.
	"$work/junk" 100000000 0 > "$work/j"
	linear "100 MB without a line end" "$ATOB" "$work/j" "$work/jp"
	if grep -q 'line longer than 64 MiB' "$work/err.txt"; then
		pass "100 MB without a line end: the message"
	else
		fail "100 MB without a line end: the message" \
		    "$(head -n 1 "$work/err.txt")"
	fi
	rm -f "$work/j"
else
	fail "linear" "cannot build the junk writer: $(head -n 1 "$work/cc.err")"
fi

# --- a full file system ---------------------------------------------------

full=$work/full
mkdir -p "$full"
if [ "$(id -u)" != 0 ] ||
   ! mount -t tmpfs -o size=512k tmpfs "$full" 2> /dev/null; then
	echo "NOTE hostile: full disk cases not run: mounting a tmpfs needs root"
else
	for tool in atob merge btoa; do
		case $tool in
		atob) "$ATOB" "$work/g.text" "$full/new.profile" ;;
		merge) "$MERGE" -o "$full/new.profile" "$work/g.profile" ;;
		btoa) "$BTOA" "$work/g.profile" "$full/new.profile" ;;
		esac > "$work/out.txt" 2> "$work/err.txt"
		st=$?
		if [ "$st" != 2 ]; then
			fail "full disk: xprof_$tool" "exit status $st, not 2"
		elif [ -e "$full/new.profile" ]; then
			fail "full disk: xprof_$tool" "new.profile was left behind"
		elif ! grep -q 'No space left on device' "$work/err.txt"; then
			fail "full disk: xprof_$tool" "$(head -n 1 "$work/err.txt")"
		else
			pass "full disk: xprof_$tool"
		fi
	done
	# An existing directory stays, with its data.
	"$ATOB" "$work/small.text" "$full/old.profile" &&
	"$ATOB" "$work/g.text" "$full/old.profile" 2> /dev/null
	if [ $? = 2 ] && "$BTOA" "$full/old.profile" "$work/kept.text" &&
	   cmp -s "$work/kept.text" "$work/small.text"; then
		pass "full disk: an existing directory keeps its data"
	else
		fail "full disk: an existing directory keeps its data" \
		    "$(ls -A "$full" 2>&1)"
	fi
	# An existing text file stays, with its text.
	"$ATOB" "$work/small.text" "$work/small.profile" &&
	"$BTOA" "$work/small.profile" "$full/old.text" &&
	"$BTOA" "$work/g.profile" "$full/old.text" 2> "$work/err.txt"
	if [ $? = 2 ] && cmp -s "$full/old.text" "$work/small.text" &&
	   [ "$(ls -A "$full" | grep -c tmp)" = 0 ] &&
	   grep -q 'old.text: cannot write: No space left on device' \
	       "$work/err.txt"; then
		pass "full disk: an existing text file keeps its text"
	else
		fail "full disk: an existing text file keeps its text" \
		    "$(head -n 1 "$work/err.txt"; ls -A "$full" 2>&1)"
	fi
	umount "$full"
fi

rm -rf "$work"
exit $failed
