#!/bin/sh
# mkseeds.sh - rebuilds tests/fuzz/corpus/db from the valid texts of
# tests/fuzz/corpus/text: one database per valid text, and broken
# variants of one of them (truncated, a byte changed in the header, the
# directory, a table and the string table, trailing garbage, a wrong
# magic).  The replay driver also tries every input with its checksum
# repaired, so changed bytes reach the checks behind the checksum.
#
#   ATOB=path/to/xprof_atob sh tests/fuzz/mkseeds.sh
set -eu
: "${ATOB:?ATOB must name xprof_atob}"
here=$(cd "$(dirname "$0")" && pwd)
out=$here/corpus/db
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xprof-seeds.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

rm -f "$out"/*.db
mkdir -p "$out"
for t in "$here"/corpus/text/ok_*.text; do
	n=$(basename "$t" .text)
	n=${n#ok_}
	rm -rf "$tmp/p"
	"$ATOB" "$t" "$tmp/p"
	for f in $(cd "$tmp/p" && find . -type f | LC_ALL=C sort); do
		cp "$tmp/p/$f" "$out/ok_$n.db"
	done
done

base=$out/ok_feedback.db
size=$(wc -c <"$base")
poke() { # poke NAME OFFSET BYTE: a copy of base with one byte replaced
	cp "$base" "$out/bad_$1.db"
	printf "$3" | dd of="$out/bad_$1.db" bs=1 seek="$2" conv=notrunc \
		2>/dev/null
}
: >"$out/bad_empty.db"
head -c 8 "$base" >"$out/bad_magic_only.db"
head -c 64 "$base" >"$out/bad_header_only.db"
head -c 300 "$base" >"$out/bad_truncated_dir.db"
head -c $((size - 1)) "$base" >"$out/bad_truncated_last.db"
{ cat "$base"; printf 'x'; } >"$out/bad_trailing_byte.db"
poke magic 0 'Y'
poke version 8 '\002'
poke type 12 '\007'
poke minor 20 '\005'
poke crc 40 '\377'
poke dir_offset 80 '\377'
poke dir_count 88 '\003'
poke table_byte $((size / 2)) '\377'
poke string_byte $((size - 3)) 'Z'
