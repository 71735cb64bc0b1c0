#!/bin/sh
# install.sh - checks `make install` and `make uninstall` into a DESTDIR.
#
# Installs into a scratch DESTDIR with PREFIX=/usr/local, checks that every
# file landed with the right mode, that the installed tools round-trip the
# bundled example, that pkg-config (when present) finds the library through
# the installed xprof.pc, that a small program compiles and links against
# the installed header and library and works, and that uninstall removes
# every installed file.

. "${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib/tools.sh"
: "${MAKE:=make}"
cd "$SRCDIR" || exit 2

dest=$TMPDIR/dest
prefix=/usr/local
root=$dest$prefix
rm -rf "$dest"

# The same output directory and flags as the build under test, so that
# install finds everything up to date and copies exactly what was tested.
mk() {
	$MAKE --no-print-directory -C "$SRCDIR" O="$XP_O" NODEPS=1 \
	    CFLAGS="${XP_CFLAGS:--O2 -g}" LDFLAGS="${XP_LDFLAGS:-}" \
	    PREFIX="$prefix" DESTDIR="$dest" "$@"
}

if out=$(mk install 2>&1); then
	pass "make install"
else
	fail "make install: output follows"
	echo "$out" | tail -n 20
	exit 1
fi

# check_file PATH MODE: an installed file and its permission bits.
check_file() {
	if [ ! -f "$root/$1" ]; then
		fail "installed $1: missing"
	elif [ "$(stat -c %a "$root/$1")" != "$2" ]; then
		fail "installed $1: mode $(stat -c %a "$root/$1"), want $2"
	else
		pass "installed $1"
	fi
}

for tool in xprof_atob xprof_btoa xprof_merge xprof_diff xprof_show \
    xprof_tcov; do
	check_file "bin/$tool" 755
done
check_file lib/libxprof.a 644
for h in lib/xprof*.h; do
	check_file "include/$(basename "$h")" 644
done
check_file lib/pkgconfig/xprof.pc 644
for page in docs/*.1; do
	[ -f "$page" ] && check_file "share/man/man1/$(basename "$page")" 644
done
for page in docs/*.5; do
	[ -f "$page" ] && check_file "share/man/man5/$(basename "$page")" 644
done
for h in lib/xprof*.h; do
	b=$(basename "$h")
	if cmp -s "$h" "$root/include/$b"; then
		pass "installed header is $h"
	else
		fail "installed header is $h: they differ"
	fi
	# Each public header stands alone: a file that includes only it
	# compiles from the installed tree.
	printf '#include <%s>\nint xp_header_check_%s;\n' "$b" \
		"$(echo "$b" | tr -c 'a-z0-9\n' _)" >"$TMPDIR/alone.c"
	# shellcheck disable=SC2086
	if out=$($XP_CC -std=c11 -Wall -Wextra -Werror ${XP_CFLAGS:-} \
	    -I"$root/include" -c -o "$TMPDIR/alone.o" "$TMPDIR/alone.c" 2>&1)
	then
		pass "installed $b compiles on its own"
	else
		fail "installed $b compiles on its own:"
		echo "$out" | head -n 10
	fi
done

# The installed tools do the demo's round trip.
work=$TMPDIR/roundtrip
mkdir -p "$work"
if "$root/bin/xprof_atob" examples/wc/run1.text "$work/wc.profile" &&
   "$root/bin/xprof_btoa" "$work/wc.profile" "$work/wc.text" &&
   cmp -s examples/wc/run1.text "$work/wc.text"; then
	pass "installed tools round-trip examples/wc/run1.text"
else
	fail "installed tools round-trip examples/wc/run1.text"
fi

# The .pc file: its prefix, and what pkg-config makes of it.
pc=$root/lib/pkgconfig/xprof.pc
if grep -qx "prefix=$prefix" "$pc" && grep -q '^Libs: .*-lxprof' "$pc" &&
   grep -q "^Version: $(sed -n 's/^#define XP_VERSION_STRING "\(.*\)"/\1/p' lib/xprof.h)\$" "$pc"
then
	pass "xprof.pc prefix, version and libs"
else
	fail "xprof.pc prefix, version and libs: got:"
	cat "$pc"
fi

flags="-I$root/include -L$root/lib -lxprof"
if command -v pkg-config >/dev/null 2>&1; then
	want="-I$prefix/include -L$prefix/lib -lxprof"
	got=$(PKG_CONFIG_PATH=$root/lib/pkgconfig pkg-config --cflags --libs xprof)
	# pkg-config leaves out directories the compiler searches anyway.
	got_norm=$(echo "$got" | tr -s ' ' | sed 's/ *$//')
	if [ "$got_norm" = "$want" ] || [ "$got_norm" = "-L$prefix/lib -lxprof" ]
	then
		pass "pkg-config --cflags --libs xprof"
	else
		fail "pkg-config --cflags --libs xprof: got '$got', want '$want'"
	fi
	# Moved to the DESTDIR, the same file gives the flags to build with.
	flags=$(PKG_CONFIG_PATH=$root/lib/pkgconfig pkg-config \
	    --define-variable=prefix="$root" --cflags --libs xprof)
	case $flags in
	*"-L$root/lib"*) pass "pkg-config --define-variable=prefix" ;;
	*) fail "pkg-config --define-variable=prefix: got '$flags'" ;;
	esac
fi

# A program that uses only the installed header and library: it parses a
# small feedback text from memory and writes it back unchanged.
cat > "$TMPDIR/user.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xprof.h>

static const char text[] =
	"PROFILE-FEEDBACK-DATA: 4.4 1 0 0 0\n"
	"OBJFILE:/tmp/a.o 1 1 2 1 0x1f 1\n"
	"PROC: f 0xa 1 0 0 1 1 0 0\n"
	"1 42\n"
	"B1: 1\n";

int main(void)
{
	xp_diags *d = xp_diags_new(0);
	xp_fb *fb = NULL;
	char *out = NULL;
	size_t len = 0, i;
	int same = 0;
	xp_err e;

	if (d == NULL)
		return 2;
	e = xp_text_parse_mem(text, sizeof text - 1, "user", NULL, &fb, d);
	for (i = 0; i < xp_diags_count(d); i++) {
		char *msg = xp_diag_format(xp_diags_get(d, i), "user");
		fputs(msg ? msg : "out of memory\n", stdout);
		free(msg);
	}
	if (e == XP_E_OK && xp_text_write_mem(fb, &out, &len) == XP_E_OK)
		same = len == sizeof text - 1 && memcmp(out, text, len) == 0;
	printf("%s: %s\n", xp_errname(e), same ? "same text" : "differs");
	free(out);
	xp_fb_free(fb);
	xp_diags_free(d);
	return same ? 0 : 1;
}
EOF
# The flag lists are split into words on purpose.
# shellcheck disable=SC2086
if out=$($XP_CC -std=c11 ${XP_CFLAGS:-} -o "$TMPDIR/user" "$TMPDIR/user.c" \
    $flags ${XP_LDFLAGS:-} ${XP_LIBS:-} 2>&1); then
	pass "compile and link against the installed header and library"
	got=$("$TMPDIR/user" 2>&1)
	if [ "$got" = "XP_E_OK: same text" ]; then
		pass "program linked with the installed library runs"
	else
		fail "program linked with the installed library runs: got '$got'"
	fi
else
	fail "compile and link against the installed header and library:"
	echo "$out" | head -n 20
fi

if out=$(mk uninstall 2>&1); then
	left=$(find "$dest" -type f)
	if [ -z "$left" ]; then
		pass "make uninstall removes every installed file"
	else
		fail "make uninstall removes every installed file; left:" $left
	fi
else
	fail "make uninstall: output follows"
	echo "$out" | tail -n 20
fi

rm -rf "$dest"
exit $failed
