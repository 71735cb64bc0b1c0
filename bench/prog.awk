# prog.awk - writes the C source of the gmon.out benchmark's program
# (bench/foreign.sh): n functions (awk -v n=N, default 8000) that call one
# another through a table, and a main that calls them in an order its
# argument chooses, so that runs with other arguments give other
# histograms and other call counts over the same arcs.
#
# Each function has one call site with two possible callees, chosen by a
# bit of its argument: about 2n arcs, within what glibc's mcount records
# for a text of this size (the arc table is a share of the text, and the
# arithmetic that pads each function keeps the text large enough).
BEGIN {
	if (n == "")
		n = 8000
	print "#include <stdlib.h>"
	print "typedef unsigned (*fn)(unsigned, int);"
	print "extern fn ft[];"
	for (i = 0; i < n; i++) {
		printf "unsigned f%d(unsigned x, int d)\n{\n", i
		printf "\tunsigned y = x * %du + %du;\n", 2 * i + 1, i
		printf "\ty ^= y >> 7;\n\ty *= 0x9e3779b1u;\n\ty ^= y >> 13;\n"
		printf "\ty += y << 3;\n\ty ^= y >> 11;\n\ty *= %du;\n", 4 * i + 3
		printf "\tif (d > 0)\n"
		printf "\t\ty += ft[(%du + (x & 1) * 97) %% %du](y >> 3, d - 1);\n",
			i + 1, n
		printf "\treturn y;\n}\n"
	}
	print "fn ft[] = {"
	for (i = 0; i < n; i++)
		printf "\tf%d,\n", i
	print "};"
	print "int main(int argc, char **argv)\n{"
	print "\tunsigned seed = argc > 1 ? (unsigned)atoi(argv[1]) : 0, s = 0, k;"
	print "\tfor (k = 0; k < 200000; k++)"
	printf "\t\ts += ft[(k * 2654435761u + seed * 40503u) %% %du]", n
	print "(k ^ seed, 4);"
	print "\treturn (int)(s & 1);\n}"
}
