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
	    -artifact_prefix="$bindir/crashes/$name-" "$work"; then
		echo "fuzz-run: $name FAILED; see $bindir/crashes/"
		status=1
	fi
done
exit $status
