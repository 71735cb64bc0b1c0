# gcov.sh - sourced by tests/gcov.sh and tests/gcov-write.sh (after
# tools.sh): two programs built with gcc-12 --coverage from objects in
# two folders, and their runs into trees of data files as GCOV_PREFIX
# makes them.

# gcov_two_programs OBJ: OBJ/lines from OBJ/sub/lines.o and OBJ/small from
# OBJ/small.o (tests/gcov/lines.c and small.c); fails as the build does.
gcov_two_programs() {
	mkdir -p "$1/sub" && cp "$SRCDIR/tests/gcov/lines.c" "$1/sub/" &&
	cp "$SRCDIR/tests/gcov/small.c" "$1/" &&
	(cd "$1" && gcc-12 --coverage -c -o sub/lines.o sub/lines.c &&
	 gcc-12 --coverage -c -o small.o small.c &&
	 gcc-12 --coverage -o lines sub/lines.o &&
	 gcc-12 --coverage -o small small.o)
}

# gcov_run_into TREE OBJ PROG [ARG...]: runs OBJ/PROG, its data files
# going into TREE under their paths relative to OBJ.
gcov_run_into() {
	tree_=$1 obj_=$2
	shift 2
	(cd "$obj_" && GCOV_PREFIX=$tree_ \
	 GCOV_PREFIX_STRIP=$(printf '%s' "$obj_" | tr -cd / | wc -c) "./$@")
}
