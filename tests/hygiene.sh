#!/bin/sh
# hygiene.sh - checks the rules the library keeps that a compiler and the
# object files can prove: it compiles warning-free, holds no mutable
# global state, and never prints or ends the process.
#
# Cases:
#   warnings lib/D/X.c        lib/D/X.c compiles with the build's flags plus
#                             -Werror (-std=c11 -Wall -Wextra and more)
#   warnings gen/X.c          the same for the generated grammar code, with
#                             the few warnings the Makefile relaxes for it
#   no mutable globals X.o    no symbol in .data, .bss, thread-local or
#                             common storage.  nm marks read-only tables
#                             of pointers ('static const char *const t[]')
#                             as 'd' because in position-independent code
#                             they sit in .data.rel.ro, which is read-only
#                             once relocated; objdump names the section, so
#                             those are told apart from writable data
#   no output or exit X.o     no reference to stdio output, stdout/stderr,
#                             exit/abort or assert (which aborts)
#   libbfd confined           lib/symbolize/symbolize.c is the only source
#                             file that includes bfd.h
#   namespace                 every global symbol libxprof.a defines starts
#                             with xp_ or XP_ (the flex and bison code too),
#                             so a program linked with it meets no other
#                             name of ours
#
# The object checks look at $XP_O/lib/libxprof.a.  Under the sanitizers
# (XP_SANITIZE=1) the instrumented objects carry the sanitizers' own data
# and calls, and without optimization dead code stays (see below), so then
# the checks look at the objects this script compiled itself with the
# plain flags and -O2 instead.

. "${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib/tools.sh"
: "${XP_CFLAGS=-O2 -g}"
: "${XP_XCFLAGS:=-std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter -Ilib -I$XP_BUILD/gen}"
cd "$SRCDIR" || exit 2

objdir=$TMPDIR/hygiene
mkdir -p "$objdir" || exit 2

# Compiler warnings ---------------------------------------------------------

# The flags of this build without its sanitizer options, which are not
# what this check is about and would only slow it down.
cflags=
for f in $XP_CFLAGS; do
	case $f in
	-fsanitize*|-fno-sanitize*) ;;
	*) cflags="$cflags $f" ;;
	esac
done
# Flow-based warnings (maybe-uninitialized and the like) need optimization;
# the last -O wins, so this one holds whatever the build used.
cflags="$cflags -O2"

# compile CASE SRC OBJ EXTRA...: compiles with -Werror, reports the case.
compile() {
	case_name=$1 src=$2 obj=$3
	shift 3
	# The flag lists are split into words on purpose.
	# shellcheck disable=SC2086
	if out=$($XP_CC $XP_XCFLAGS "$@" -Werror $cflags -c -o "$obj" "$src" 2>&1)
	then
		pass "$case_name"
	else
		fail "$case_name: compiler output follows"
		echo "$out" | head -n 30
	fi
}

nsrc=0
# Several folders have a merge.c: objects are named after folder and file.
for src in lib/*/*.c; do
	[ -f "$src" ] || continue
	nsrc=$((nsrc + 1))
	obj=$(echo "${src#lib/}" | tr / _)
	compile "warnings $src" "$src" "$objdir/${obj%.c}.o"
done
[ "$nsrc" -gt 0 ] || fail "warnings: no lib/*/*.c found"

for src in "$XP_BUILD"/gen/*.c; do
	[ -f "$src" ] || continue
	compile "warnings gen/$(basename "$src")" "$src" \
	    "$objdir/$(basename "$src" .c).o" \
	    -Wno-unused-function -Wno-sign-compare -Wno-missing-prototypes \
	    -Igrammar
done

# libbfd: one file of the library speaks to it, so that the rest builds
# and reads the same without knowing its types.
users=$(grep -l '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]bfd\.h[>"]' \
	lib/*.h lib/*/*.c lib/*/*.h grammar/* common/* atob/*.c btoa/*.c \
	merge/*.c diff/*.c show/*.c tcov/*.c 2>/dev/null |
	grep -v '^lib/symbolize/symbolize\.c$')
if [ -z "$users" ]; then
	pass "libbfd confined"
else
	fail "libbfd confined: bfd.h included by" $users
fi

# Objects -----------------------------------------------------------------

# gcc keeps unreferenced static functions when it does not optimize, and
# the flex skeleton always defines yy_fatal_error(), which prints and
# exits, even when the scanner replaces every use of it; so objects built
# without optimization are not judged either, for dead code.
opt=-O0
for f in $XP_CFLAGS; do
	case $f in
	-O*) opt=$f ;;
	esac
done

lib=$XP_O/lib/libxprof.a
if [ "${XP_SANITIZE:-}" = 1 ] || [ "$opt" = -O0 ]; then
	objs=$(ls "$objdir"/*.o 2>/dev/null)
else
	if [ ! -f "$lib" ]; then
		fail "library: $lib is missing"
		exit 1
	fi
	# Members of one name (merge.o of several folders) are taken out one
	# by one, each as FOLDER-N_NAME.
	rm -rf "$objdir/ar" && mkdir "$objdir/ar" || exit 2
	for m in $(ar t "$lib" | sort | uniq -c | awk '{ print $1 ":" $2 }'); do
		k=1
		while [ "$k" -le "${m%%:*}" ]; do
			mkdir -p "$objdir/ar/$k" &&
			(cd "$objdir/ar/$k" && ar xN "$k" "$lib" "${m#*:}") &&
			mv "$objdir/ar/$k/${m#*:}" "$objdir/ar/$k-${m#*:}" ||
			    { fail "library: ar x $lib ${m#*:}"; exit 1; }
			k=$((k + 1))
		done
	done
	objs=$(ls "$objdir"/ar/*.o 2>/dev/null)
fi

# Namespace: the archive's defined global symbols, each once.
# AddressSanitizer adds one __odr_asan.NAME for every global NAME it
# instruments; NAME itself is checked, so those are not counted.
if [ -f "$lib" ]; then
	others=$(nm -g --defined-only "$lib" | awk 'NF == 3 { print $3 }' |
		grep -v '^xp_' | grep -v '^XP_' | grep -v '^__odr_asan\.xp_' |
		sort -u | tr '\n' ' ')
	if [ -z "$others" ]; then
		pass "namespace"
	else
		fail "namespace: global symbols without xp_: $others"
	fi
else
	fail "namespace: $lib is missing"
fi
[ -n "$objs" ] || fail "library: no object files to check"

# Symbols that mean output to a stream, the standard streams themselves, or
# ending the process.  The _chk names are what _FORTIFY_SOURCE turns the
# printf family into.
forbidden='printf fprintf vprintf vfprintf dprintf vdprintf puts fputs
putchar putc fputc putw fwrite perror psignal psiginfo fflush
__printf_chk __fprintf_chk __vprintf_chk __vfprintf_chk __dprintf_chk
__vdprintf_chk __fwrite_chk
stdout stderr stdin _IO_stdout _IO_stderr
exit _exit _Exit quick_exit abort __assert_fail __assert_perror_fail
__assert err errx warn warnx verr verrx vwarn vwarnx error error_at_line
syslog vsyslog'

for obj in $objs; do
	name=$(basename "$obj")

	# Writable storage: .data, .bss and their sub-sections, thread-local
	# data and common symbols, but not .data.rel.ro (see above) and not
	# section or file symbols (flag 'd' or 'f').
	writable=$(objdump -t "$obj" | awk -F '\t' '
		NF >= 2 {
			n = split($1, w, " ")
			sec = w[n]
			flags = substr($1, length(w[1]) + 2, 7)
			if (flags ~ /[df]/) next
			if (sec ~ /^\.data\.rel\.ro/) next
			if (sec ~ /^(\.data|\.bss|\.tdata|\.tbss|\*COM\*)/) {
				split($2, s, " ")
				printf "%s%s (%s)", sep, s[2], sec
				sep = ", "
			}
		}')
	if [ -z "$writable" ]; then
		pass "no mutable globals $name"
	else
		fail "no mutable globals $name: $writable"
	fi

	# The flex scanner's skeleton points its unused default input and
	# output streams at stdin and stdout when a scan starts; the scanner
	# reads from memory and never touches them, so only those two
	# references are accepted, and only in the scanner.
	allowed=
	case $name in
	*.lex.o) allowed=' stdin stdout ' ;;
	esac
	bad=
	for sym in $(nm -u "$obj" | awk '{ print $NF }' | sed 's/@.*//'); do
		for f in $forbidden; do
			[ "$sym" = "$f" ] || continue
			case $allowed in
			*" $sym "*) ;;
			*) bad="$bad $sym" ;;
			esac
		done
	done
	if [ -z "$bad" ]; then
		pass "no output or exit $name"
	else
		fail "no output or exit $name: references$bad"
	fi
done

exit $failed
