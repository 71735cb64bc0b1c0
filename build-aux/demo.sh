#!/bin/sh
# demo.sh - the round trip that `make demo` shows.
#
#   demo.sh ATOB BTOA EXAMPLE.text WORKDIR
#
# Converts a feedback text into a fresh profile directory with xprof_atob,
# converts that back to text with xprof_btoa and compares the result with
# the original byte for byte.  Every command is printed before it runs.
# Exit status 0 when the texts are identical, 1 otherwise.

set -u
atob=$1
btoa=$2
example=$3
work=$4

# Prints a command, then runs it.
run() {
	echo "\$ $*"
	"$@"
}

size() {
	wc -c < "$1" | tr -d ' '
}

# Counts the lines of the example that start with a keyword.
count() {
	grep -c "^$1" "$example"
}

echo "xprof demo: $example round trip"
echo "  $(count OBJFILE:) object files, $(count 'PROC:') procedures," \
     "$(count PROGRAM:) program, $(count SRCFILE:) source files," \
     "$(count SRCLINE:) source lines"
echo

rm -rf "$work" && mkdir -p "$work" || exit 2
profile=$work/wc.profile
text=$work/wc.text

run "$atob" "$example" "$profile" || {
	echo "demo: xprof_atob failed"; exit 1; }
echo "  wrote profile directory $profile:"
for f in "$profile"/* "$profile"/*/*; do
	[ -f "$f" ] && echo "    $f: $(size "$f") bytes"
done
echo

run "$btoa" "$profile" "$text" || {
	echo "demo: xprof_btoa failed"; exit 1; }
echo "  wrote $text: $(size "$text") bytes"
echo

run cmp "$example" "$text" || {
	echo "demo: the text read back differs from $example"
	diff -u "$example" "$text" | head -40
	exit 1
}
echo "  $example ($(size "$example") bytes) and $text are identical:"
echo "  text -> profile database -> text lost nothing."
