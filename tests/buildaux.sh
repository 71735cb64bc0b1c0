#!/bin/sh
# buildaux.sh - tests of the scripts the Makefile runs: the dependency
# check (build-aux/deps.sh), the demo (build-aux/demo.sh) and the public
# format constants made from lib/modules.list (build-aux/formats.sh).
#
# deps.sh is run with stand-ins for id and apt-get first on PATH, so that
# both the root and the non-root paths are taken without installing
# anything; a compiler that does not exist (CC=...) is the missing need.
#
# Environment: ATOB, BTOA, SRCDIR, TMPDIR (see tests/run.sh).
# Prints "PASS name" or "FAIL name: why" per case; exits 1 if any failed.

. "${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib/tools.sh"
cd "$SRCDIR" || exit 2

work=$TMPDIR/buildaux
rm -rf "$work"
mkdir -p "$work/bin" || exit 2

# Stand-ins: id reports $FAKE_UID; apt-get logs its arguments.
cat > "$work/bin/id" <<'EOF'
#!/bin/sh
echo "${FAKE_UID:-1000}"
EOF
cat > "$work/bin/apt-get" <<EOF
#!/bin/sh
echo "apt-get \$*" >> "$work/apt.log"
EOF
chmod +x "$work/bin/id" "$work/bin/apt-get"
fakepath=$work/bin:$PATH
nocc=xprof-no-such-compiler

# expect CASE STATUS STDOUT STDERR: compares the last run's results.
expect() {
	why=
	[ "$st" = "$2" ] || why="$why exit status $st, want $2;"
	[ "$(cat "$work/out")" = "$3" ] || why="$why stdout '$(cat "$work/out")';"
	[ "$(cat "$work/err")" = "$4" ] || why="$why stderr '$(cat "$work/err")';"
	if [ -z "$why" ]; then pass "$1"; else fail "$1:$why"; fi
}

# Everything present: nothing said, status 0.
sh build-aux/deps.sh --build > "$work/out" 2> "$work/err"
st=$?
expect "deps --build with everything present" 0 "" ""

# Not root: the exact command to run, status 1, nothing installed.
rm -f "$work/apt.log"
PATH=$fakepath FAKE_UID=1000 CC="$nocc -O2" sh build-aux/deps.sh --install \
    > "$work/out" 2> "$work/err"
st=$?
expect "deps --install as a user names the apt-get command" 1 "" \
    "xprof: missing build dependencies; run: sudo apt-get install -y gcc"
if [ -e "$work/apt.log" ]; then
	fail "deps --install as a user runs no apt-get: it ran $(cat "$work/apt.log")"
else
	pass "deps --install as a user runs no apt-get"
fi

# Plain make never installs, even as root.
PATH=$fakepath FAKE_UID=0 CC=$nocc sh build-aux/deps.sh --build \
    > "$work/out" 2> "$work/err"
st=$?
expect "deps --build as root only reports" 1 "" \
    "xprof: missing build dependencies; run: sudo apt-get install -y gcc"
if [ -e "$work/apt.log" ]; then
	fail "deps --build as root runs no apt-get: it ran $(cat "$work/apt.log")"
else
	pass "deps --build as root runs no apt-get"
fi

# Root: apt-get update once, then install the package; the stand-in
# installs nothing, so the script must notice the need is still unmet.
PATH=$fakepath FAKE_UID=0 CC=$nocc sh build-aux/deps.sh --install \
    > "$work/out" 2> "$work/err"
st=$?
want_log="apt-get update
apt-get install -y --no-install-recommends gcc"
if [ "$st" = 1 ] && [ "$(cat "$work/apt.log" 2>/dev/null)" = "$want_log" ] &&
   grep -qx "xprof: installing missing build dependencies: gcc" "$work/out" &&
   grep -qx "xprof: still missing after apt-get install: gcc" "$work/err"
then
	pass "deps --install as root runs apt-get update and install"
else
	fail "deps --install as root runs apt-get update and install:" \
	    "status $st, apt-get calls: $(cat "$work/apt.log" 2>/dev/null)"
fi

# The demo runs every step on the bundled example: the weighted merge of
# the three runs, a listing of main.c, and the text coming back unchanged.
xp_o=${XP_O:-$(dirname "$(dirname "$ATOB")")}
if sh build-aux/demo.sh "$xp_o" examples/wc "$work/demo" \
    > "$work/out" 2>&1 && grep -q 'are identical' "$work/out" &&
   grep -q '##### -> static int usage(void)' "$work/out" &&
   grep -q '^       7932 -> 	for (char line' "$work/out" &&
   cmp -s examples/wc/run1.text "$work/demo/run1.text"; then
	pass "demo of examples/wc"
else
	fail "demo of examples/wc: $(tail -n 3 "$work/out")"
fi

# A text that is valid but not canonical comes back different, and the
# demo must say so with a non-zero status.
cp -R examples/wc "$work/spaced" &&
sed 's/^max 1204$/max  1204/' examples/wc/run1.text > "$work/spaced/run1.text"
if sh build-aux/demo.sh "$xp_o" "$work/spaced" "$work/demo2" \
    > "$work/out" 2>&1; then
	fail "demo fails when the text comes back different: it exited 0"
elif grep -q 'differs from' "$work/out"; then
	pass "demo fails when the text comes back different"
else
	fail "demo fails when the text comes back different: $(tail -n 3 "$work/out")"
fi

# Fuzz runs stop on undefined behaviour and reach long and slow inputs:
# fuzz-run.sh, given a stand-in target that writes down how it was run.
mkdir -p "$work/fz" "$work/fzsrc"
cat > "$work/fz/fuzz_x" <<'EOF'
#!/bin/sh
printf '%s\n' "$@" > "$(dirname "$0")/args"
printf '%s\n' "$UBSAN_OPTIONS" > "$(dirname "$0")/ubsan"
EOF
chmod +x "$work/fz/fuzz_x"
: > "$work/fzsrc/fuzz_x.c"
if sh build-aux/fuzz-run.sh "$work/fz" 1 "$work/fzsrc/fuzz_x.c" \
    > "$work/out" 2>&1 &&
   grep -qx -- '-max_len=1048576' "$work/fz/args" &&
   grep -qx -- '-timeout=5' "$work/fz/args" &&
   grep -q 'halt_on_error=1' "$work/fz/ubsan"; then
	pass "fuzz-run: undefined behaviour halts, 1 MiB inputs, 5 s timeout"
else
	fail "fuzz-run: undefined behaviour halts, 1 MiB inputs, 5 s timeout:" \
	    "$(cat "$work/fz/args" "$work/fz/ubsan" 2>&1 | tr '\n' ' ')"
fi
# The fuzz build recovers from nothing.
if ${MAKE:-make} --no-print-directory -n fuzz 2>/dev/null |
   grep -q -- '-fno-sanitize-recover=all'; then
	pass "fuzz build without sanitizer recovery"
else
	fail "fuzz build without sanitizer recovery:" \
	    "make -n fuzz shows no -fno-sanitize-recover=all"
fi

# --- formats.sh: the public format constants from lib/modules.list ------
# The numbers are the library's interface: they never change.  COUNT_
# is past the largest number of the list.
count=$(sed -e 's/#.*//' lib/modules.list |
        awk 'NF == 3 && $3 + 2 > c { c = $3 + 2 } END { print c }')
sh build-aux/formats.sh lib/modules.list > "$work/formats.h" 2> "$work/err"
if [ ! -s "$work/err" ] &&
    grep -q 'XP_FMT_GMON = 3, XP_FMT_GMON_TEXT = 4,' "$work/formats.h" &&
    grep -q 'XP_FMT_CPUPROF = 5, XP_FMT_CPUPROF_TEXT = 6,' "$work/formats.h" &&
    grep -q 'XP_FMT_DCPI = 7, XP_FMT_DCPI_TEXT = 8,' "$work/formats.h" &&
    grep -q 'XP_FMT_MPATROL = 9, XP_FMT_MPATROL_TEXT = 10,' "$work/formats.h" &&
    grep -q 'XP_FMT_GCOV = 11, XP_FMT_GCOV_TEXT = 12,' "$work/formats.h" &&
    grep -q 'XP_FMT_LLVM = 13, XP_FMT_LLVM_TEXT = 14,' "$work/formats.h" &&
    grep -q "XP_FMT_COUNT_ = $count\$" "$work/formats.h"; then
	pass formats-list
else
	fail formats-list "$(cat "$work/err" "$work/formats.h" | head -5)"
fi
# A new module is one line; a number that is taken, or a bad line, is
# refused.
{ cat lib/modules.list; echo "example EXAMPLE $count"; } > "$work/new.list"
if sh build-aux/formats.sh "$work/new.list" 2>/dev/null |
    grep -q "XP_FMT_EXAMPLE = $count, XP_FMT_EXAMPLE_TEXT = $((count + 1)), \\\\\$" &&
    sh build-aux/formats.sh "$work/new.list" |
    grep -q "XP_FMT_COUNT_ = $((count + 2))\$"
then
	pass formats-new-module
else
	fail formats-new-module "$(sh build-aux/formats.sh "$work/new.list" 2>&1)"
fi
{ cat lib/modules.list; echo "example EXAMPLE 8"; } > "$work/taken.list"
printf 'example example 11\n' > "$work/lower.list"
if ! sh build-aux/formats.sh "$work/taken.list" >/dev/null 2>"$work/err" &&
    grep -q 'number 8 of example is taken' "$work/err" &&
    ! sh build-aux/formats.sh "$work/lower.list" >/dev/null 2>"$work/err" &&
    grep -q 'bad line: example example 11' "$work/err"; then
	pass formats-refused
else
	fail formats-refused "$(cat "$work/err")"
fi

rm -rf "$work"
exit $failed
