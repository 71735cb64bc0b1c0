# setup.sh - the inputs of the differential coverage cases (diff-*),
# sourced by their cmd in its fresh working directory.  Besides the
# files of DATA it makes:
#   old.c      prog.c as it was before a change: without lines 11 and 12,
#              line 29 with a comment, and after line 19 a function
#              gone() that the change removed (old line 19 to 23);
#   base.text  the coverage of a run of old.c (tcovsd, one block per
#              line, its count after the line number below), so that
#              against it prog.c's lines fall in every category but UIC
#              and UBC;
#   srcdata    a function that writes such a tcovsd text for source
#              file $1 from "line count" pairs on its standard input.
cp "$DATA"/* . || exit 1
sed -e '11,12d' -e '29s|never();|never(); /* rarely */|' -e '19a\
\
static int gone(int x)\
{\
	return x;\
}' prog.c > old.c
srcdata() {
	awk -v path="$1" 'BEGIN { n = 0 } { l[n] = $1; c[n] = $2; n++ }
	END {
		print "PROFILE-FEEDBACK-DATA: 4.4 0 0 0 1 tcovsd"
		print "SRCFILE: " path " " n
		for (i = 0; i < n; i++) {
			print "SRCLINE: " l[i] ":1 1"
			print "B" l[i] " " c[i] " f:/build/src/prog.o"
		}
	}'
}
printf '%s\n' "3 0" "6 30" "7 30" "8 0" "9 28" "10 0" "11 24" "15 1" \
	"16 1" "20 5" "21 0" "25 1" "26 1" "27 1" "29 31" "30 30" "31 1" \
	"32 1" "33 1" "34 0" "35 1" "36 1" | srcdata /build/src/prog.c \
	> base.text
touch -d 2001-01-01T00:00:00Z prog.c util.h old.c
