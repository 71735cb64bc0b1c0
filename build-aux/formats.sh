#!/bin/sh
# formats.sh LIST - writes xprof_formats.h, the public constants of the
# formats of the modules that LIST (lib/modules.list) names: for each
# line "name STEM N", XP_FMT_STEM = N and XP_FMT_STEM_TEXT = N + 1, and
# XP_FMT_COUNT_ past the largest.  Refuses (exit 1) a malformed line and
# numbers that collide with each other or with the feedback formats.
list=${1:?usage: formats.sh LIST}
sed -e 's/#.*//' "$list" | awk -v list="$list" '
NF == 0 { next }
NF != 3 || $3 !~ /^[0-9]+$/ || $2 !~ /^[A-Z][A-Z0-9_]*$/ {
	printf "formats.sh: %s: bad line: %s\n", list, $0 > "/dev/stderr"
	bad = 1; exit 1
}
{
	n = $3 + 0
	if (n < 3 || (n in used) || ((n + 1) in used)) {
		printf "formats.sh: number %d of %s is taken\n", n, $1 > "/dev/stderr"
		bad = 1; exit 1
	}
	used[n] = 1; used[n + 1] = 1
	name[++k] = $1; stem[k] = $2; num[k] = n
	if (n + 2 > count) count = n + 2
}
END {
	if (bad) exit 1
	print "/*"
	print " * xprof_formats.h - generated from lib/modules.list: the constants"
	print " * of the formats of the modules, one binary and one text form each,"
	print " * for xp_format (xprof.h).  Do not edit."
	print " */"
	print "#ifndef XPROF_FORMATS_H"
	print "#define XPROF_FORMATS_H"
	print ""
	print "#define XP_FMT_MODULES_ \\"
	for (i = 1; i <= k; i++)
		printf "\tXP_FMT_%s = %d, XP_FMT_%s_TEXT = %d, \\\n", \
		    stem[i], num[i], stem[i], num[i] + 1
	printf "\tXP_FMT_COUNT_ = %d\n", count
	print ""
	print "#endif"
}'
