#!/bin/sh
# fuzz-run.sh - runs each libFuzzer target for a while on its corpus.
#
#   fuzz-run.sh BINDIR SECONDS tests/fuzz/fuzz_NAME.c ...
#
# Each target BINDIR/fuzz_NAME starts from a working corpus seeded with
# tests/fuzz/corpus/NAME (or tests/fuzz/corpus when there is no such
# folder), tests/data and tests/bad; new inputs it finds stay in the working
# corpus (BINDIR/corpus/NAME), never in the source tree.  Crashing inputs
# are written to BINDIR/crashes/.  Exit status 1 if any target failed.
#
# A run fails on the first finding of any sanitizer: undefined behaviour
# halts (UBSAN_OPTIONS=halt_on_error=1, and the targets are built with
# -fno-sanitize-recover=all) and leaves its input in crashes/ like a
# crash.  Inputs may be as long as FUZZ_MAX_LEN bytes (default 1 MiB), so
# that long lines and runs of bytes are within reach, and one that takes
# longer than FUZZ_TIMEOUT seconds (default 5) is a finding too: a slow
# input is a bug of its own.

: "${FUZZ_MAX_LEN:=1048576}"
: "${FUZZ_TIMEOUT:=5}"
UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
ASAN_OPTIONS="abort_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS ASAN_OPTIONS

bindir=$1
secs=$2
shift 2
status=0
mkdir -p "$bindir/crashes" || exit 2
for src in "$@"; do
	name=$(basename "$src" .c)
	short=${name#fuzz_}
	work=$bindir/corpus/$name
	mkdir -p "$work" || exit 2
	# A per-target corpus folder replaces the shared one.
	corpus=tests/fuzz/corpus
	[ -d "$corpus/$short" ] && corpus=$corpus/$short
	for seed in "$corpus" tests/data tests/bad; do
		[ -d "$seed" ] || continue
		# Folders may nest; the seed's path keeps copies apart.
		find "$seed" -type f | while read -r f; do
			cp "$f" "$work/$(echo "$f" | tr / _)"
		done
	done
	echo "fuzz-run: $name for ${secs}s on $work"
	if ! "$bindir/$name" -max_total_time="$secs" -print_final_stats=1 \
	    -max_len="$FUZZ_MAX_LEN" -timeout="$FUZZ_TIMEOUT" \
	    -artifact_prefix="$bindir/crashes/$name-" "$work"; then
		echo "fuzz-run: $name FAILED; see $bindir/crashes/"
		status=1
	fi
done
exit $status
