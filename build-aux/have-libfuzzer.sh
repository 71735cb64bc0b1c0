#!/bin/sh
# have-libfuzzer.sh - tells whether a compiler can build libFuzzer targets.
#
#   have-libfuzzer.sh [CC]      (default: clang)
#
# Compiles and links an empty fuzz target with -fsanitize=fuzzer and the
# sanitizers the fuzz build uses.  Exit status 0 when that works.

cc=${1:-clang}
command -v "${cc%% *}" >/dev/null 2>&1 || exit 1
dir=$(mktemp -d "${TMPDIR:-/tmp}/xprof-fuzzcheck.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cat > "$dir/t.c" <<'SRC'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return data != NULL && size > 0 ? 0 : 0;
}
SRC
$cc -fsanitize=fuzzer,address,undefined -o "$dir/t" "$dir/t.c" >/dev/null 2>&1
