#!/bin/sh
# deps.sh - checks that the tools and headers xprof needs are present.
#
#   deps.sh --build     check what `make` needs to build the library and
#                       the tools; report what is missing, install nothing
#   deps.sh --install   check what the build and the test suite need; when
#                       something is missing, install it with apt-get if
#                       running as root, otherwise name the command to run
#   deps.sh --bench     the same for the build and the benchmark's peers
#                       (make bench)
#
# Each need is a command or a file, paired with the Debian package that
# provides it.  Exit status: 0 all present, 1 something is missing.

mode=${1:---build}
case $mode in
--build|--install|--bench) ;;
*) echo "usage: deps.sh [--build | --install | --bench]" >&2; exit 2 ;;
esac

# The first word of $CC is the compiler's command ("gcc -m32" runs gcc).
cc_cmd=${CC:-cc}
cc_cmd=${cc_cmd%% *}

# "what package" lines: a command name, or a path starting with /.
build_needs="
$cc_cmd gcc
/usr/include/stdio.h libc6-dev
make make
flex flex
bison bison
ar binutils
/usr/include/bfd.h binutils-dev
/usr/include/zlib.h zlib1g-dev
"
# The test suite compares files byte for byte (cmp, diff), dumps and
# patches binary files (od, dd), inspects the library's symbols (nm,
# objdump), drops a symbol from a test program (objcopy), bounds every test's time (timeout), counts with awk, and
# gives a tool a terminal (script) or a slow input (mkfifo); genhtml
# renders the lcov tracefiles of xprof_tcov and xmllint validates its
# Cobertura and SonarQube exports; the CPU profile tests compare
# with google-pprof and go tool pprof on programs (C and C++) they build
# with -lprofiler; GNU make and ninja run the merge plans; strace kills a
# tool at a chosen system call (tests/hostile.sh); rhash computes the
# CRC-32C that merge manifests record and jq reads their JSON; make
# check-asan runs the suite built by clang too; the gmon.out tests compare
# the function coverage of a gcc -pg run with gcov's on the same program;
# callgrind_annotate reads xprof_show's callgrind exports; the GCC
# coverage tests build with every release whose files lib/gcov reads
# (gcc-11, gcc-12) and compare with that release's gcov-tool and
# gcov-dump;
# the differential coverage tests make their patches with git diff;
# the LLVM profile tests build a program with clang
# -fprofile-instr-generate and -fprofile-generate and compare merges with
# llvm-profdata's.
test_needs="
cmp diffutils
diff diffutils
od coreutils
dd coreutils
timeout coreutils
mktemp coreutils
mkfifo coreutils
script bsdutils
nm binutils
objdump binutils
objcopy binutils
awk mawk
genhtml lcov
xmllint libxml2-utils
google-pprof google-perftools
c++ g++
/usr/include/gperftools/profiler.h libgoogle-perftools-dev
go golang-go
ninja ninja-build
strace strace
rhash rhash
jq jq
clang clang
llvm-profdata llvm
gcov gcc
callgrind_annotate valgrind
gcov-tool gcc
gcov-dump gcc
gcc-11 gcc-11
gcc-12 gcc-12
gcov-tool-11 gcc-11
gcov-tool-12 gcc-12
gcov-dump-12 gcc-12
git git
"

# --- bench: the peers make bench measures each tool against ---
# llvm-profdata (LLVM's text and indexed profiles: atob, btoa, merge,
# diff, show), gprof (gmon.out merging), google-pprof and go tool pprof
# (CPU profile merging); gcc -pg builds the gmon.out program.
bench_needs="
llvm-profdata llvm
gprof binutils
google-pprof google-perftools
go golang-go
"
# --- end of bench ---

needs=$build_needs
[ "$mode" = --install ] && needs="$build_needs$test_needs"
[ "$mode" = --bench ] && needs="$build_needs$bench_needs"

# Prints the packages whose command or file is missing, each once.
missing() {
	echo "$needs" | while read -r what pkg; do
		[ -n "$what" ] || continue
		case $what in
		/*) [ -e "$what" ] && continue ;;
		*) command -v "$what" >/dev/null 2>&1 && continue ;;
		esac
		echo "$pkg"
	done
}

pkgs=$(missing | sort -u | tr '\n' ' ')
pkgs=${pkgs% }
[ -z "$pkgs" ] && exit 0

if [ "$mode" != --build ] && [ "$(id -u)" = 0 ] &&
   command -v apt-get >/dev/null 2>&1; then
	echo "xprof: installing missing build dependencies: $pkgs"
	export DEBIAN_FRONTEND=noninteractive
	# The word splitting of $pkgs is wanted: one argument per package.
	# shellcheck disable=SC2086
	if apt-get update && apt-get install -y --no-install-recommends $pkgs
	then
		still=$(missing | sort -u | tr '\n' ' ')
		still=${still% }
		[ -z "$still" ] && exit 0
		echo "xprof: still missing after apt-get install: $still" >&2
	fi
	exit 1
fi

echo "xprof: missing build dependencies; run: sudo apt-get install -y $pkgs" >&2
exit 1
