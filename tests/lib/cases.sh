# cases.sh - the harness of the tools' command line tests, sourced by
# tests/cli.sh, merge.sh, diff.sh and show.sh.
#
# Each folder tests/SET/NAME/ holds one case:
#   cmd     a shell script, run with sh in a fresh empty working directory
#           with standard input from /dev/null;
#   stdout  its exact expected standard output;
#   stderr  its exact expected standard error;
#   status  its expected exit status (a number and a newline).
# The scripts see the tools' absolute paths and DATA (tests/SET/data, the
# shared inputs) in their environment.  Every message of the tools names
# files the way the script did, so relative names keep the expected output
# independent of where the test runs.
#
# Besides the cases, usage() is tied to the man pages: the output of -h
# must be the SYNOPSIS of the tool's page, line for line.
#
# Prints "PASS name" or "FAIL name: why" per case.

# An absolute form of a path.
abspath() {
	case $1 in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s/%s\n' "$(pwd)" "$1" ;;
	esac
}

# cases_tools SET VAR...: each VAR (ATOB, SHOW, ...) must name a tool; it
# is made absolute and exported, with SRCDIR and DATA (tests/SET/data, the
# case scripts' shared inputs).  Exits 2 when one is not set.
cases_tools() {
	cases_set_=$1
	shift
	SRCDIR=$(abspath "$SRCDIR")
	DATA=$SRCDIR/tests/$cases_set_/data
	export SRCDIR DATA
	for v in "$@"; do
		eval "p=\${$v:-}"
		if [ -z "$p" ]; then
			echo "$v must name a tool" >&2
			exit 2
		fi
		eval "$v=\$(abspath \"\$p\")"
		export "$v"
	done
}

cases_fail() {
	echo "FAIL $1: $2"
	cases_nfail=$((cases_nfail + 1))
}

cases_pass() {
	echo "PASS $1"
	cases_npass=$((cases_npass + 1))
}

# Compares one expected file with the actual output; shows the difference
# on standard error so that the one-line-per-case output stays clean.
cases_check_file() {
	name=$1 what=$2 expected=$3 actual=$4
	if [ ! -f "$expected" ]; then
		echo "$what: expected file missing"
		return 1
	fi
	if ! cmp -s "$expected" "$actual"; then
		echo "$what differs"
		diff -u "$expected" "$actual" | head -40 |
			sed "s/^/    [$name] /" >&2
		return 1
	fi
	return 0
}

cases_run_one() {
	dir=$1
	name=$cases_set-$(basename "$dir")
	cwd=$cases_work/$name/cwd
	out=$cases_work/$name/stdout
	err=$cases_work/$name/stderr
	mkdir -p "$cwd"
	(cd "$cwd" && sh "$dir/cmd" </dev/null >"$out" 2>"$err")
	echo $? >"$cases_work/$name/status"
	if [ "$cases_update" = 1 ]; then
		cp "$out" "$dir/stdout"
		cp "$err" "$dir/stderr"
		cp "$cases_work/$name/status" "$dir/status"
	fi
	why=
	for f in status stdout stderr; do
		if ! msg=$(cases_check_file "$name" "$f" "$dir/$f" \
		           "$cases_work/$name/$f"); then
			why=${why:+$why, }$msg
		fi
	done
	if [ -n "$why" ]; then
		cases_fail "$name" "$why"
	else
		cases_pass "$name"
	fi
}

# The SYNOPSIS of a man page as plain lines: the .nf block after .SH
# SYNOPSIS, with font escapes removed and \- turned into -.
cases_synopsis() {
	sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$1" |
		sed -e '/^\./d' -e 's/\\f[BIRP]//g' -e 's/\\-/-/g'
}

# The options a man page's OPTIONS section documents, one per line and
# sorted: every -X and --long-name in the tags of its .TP paragraphs.
cases_man_options() {
	sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$1" |
		sed -n '/^\.TP/{n;p;}' | sed -e 's/\\f[BIRP]//g' \
		-e 's/\\-/-/g' | grep -o -e '--[a-z][a-z-]*' -e '-[A-Za-z]\b' |
		sort -u
}

# The options of -h's option lines (those after the usage, each starting
# with blanks and an option), one per line and sorted.
cases_help_options() {
	sed -n '/^$/,$p' | grep '^  *-' | sed -e 's/^  *//' -e 's/   .*//' |
		grep -o -e '--[a-z][a-z-]*' -e '-[A-Za-z]\b' | sort -u
}

# Checks that TOOL -h (at PATH) prints the SYNOPSIS of docs/TOOL.1 (up to
# its first blank line; "usage: " before the first line and the others
# lined up), then one line for each option that the page's OPTIONS
# section documents, and that --help prints the same.
cases_check_synopsis() {
	tool=$1 path=$2
	name=$cases_set-synopsis-$tool
	if [ ! -f "$SRCDIR/docs/$tool.1" ]; then
		cases_fail "$name" "docs/$tool.1 missing"
		return
	fi
	cases_synopsis "$SRCDIR/docs/$tool.1" >"$cases_work/$name.man"
	"$path" -h >"$cases_work/$name.help"
	sed -e '/^$/,$d' -e 's/^usage: //' -e 's/^       //' \
		"$cases_work/$name.help" >"$cases_work/$name.usage"
	cases_man_options "$SRCDIR/docs/$tool.1" >"$cases_work/$name.mopts"
	cases_help_options <"$cases_work/$name.help" >"$cases_work/$name.hopts"
	if ! "$path" --help | cmp -s - "$cases_work/$name.help"; then
		cases_fail "$name" "--help differs from -h"
	elif [ ! -s "$cases_work/$name.hopts" ]; then
		cases_fail "$name" "-h lists no options"
	elif ! cmp -s "$cases_work/$name.mopts" "$cases_work/$name.hopts"; then
		diff -u "$cases_work/$name.mopts" "$cases_work/$name.hopts" |
			sed "s/^/    [$name] /" >&2
		cases_fail "$name" "-h's options differ from the man page OPTIONS"
	elif [ ! -s "$cases_work/$name.man" ]; then
		cases_fail "$name" "no SYNOPSIS found in docs/$tool.1"
	elif cmp -s "$cases_work/$name.man" "$cases_work/$name.usage"; then
		cases_pass "$name"
	else
		diff -u "$cases_work/$name.man" "$cases_work/$name.usage" |
			sed "s/^/    [$name] /" >&2
		cases_fail "$name" "usage() differs from the man page SYNOPSIS"
	fi
}

# cases_main SET UPDATE TOOL=PATH... -- [CASE...]
# Runs the cases of tests/SET (all, or the named ones) and, when all run,
# the synopsis checks of the tools named before "--".  UPDATE=1 rewrites
# the expected files from the actual results (review the diff before
# keeping it).  Returns 1 if anything failed.
cases_main() {
	cases_set=$1 cases_update=$2
	shift 2
	cases_npass=0 cases_nfail=0
	cases_dir=$SRCDIR/tests/$cases_set
	cases_work=$(mktemp -d "${TMPDIR:-/tmp}/xprof-$cases_set.XXXXXX") ||
		exit 2
	trap 'rm -rf "$cases_work"' EXIT INT TERM

	tools=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		tools="$tools $1"
		shift
	done
	[ $# -gt 0 ] && shift

	missing=
	for t in $tools; do
		[ -x "${t#*=}" ] || missing="$missing ${t#*=}"
	done
	if [ -n "$missing" ]; then
		cases_fail "$cases_set" "not built:$missing"
	elif [ $# -gt 0 ]; then
		for n in "$@"; do
			if [ -f "$cases_dir/$n/cmd" ]; then
				cases_run_one "$cases_dir/$n"
			else
				cases_fail "$n" "no such case"
			fi
		done
	else
		for t in $tools; do
			cases_check_synopsis "${t%%=*}" "${t#*=}"
		done
		for d in "$cases_dir"/*/; do
			d=${d%/}
			[ -f "$d/cmd" ] && cases_run_one "$d"
		done
	fi
	echo "$cases_set: $cases_npass passed, $cases_nfail failed" >&2
	[ "$cases_nfail" -eq 0 ]
}
