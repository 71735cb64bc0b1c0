/*
 * covfns.c - a program with functions that run and functions that never
 * do.  tests/gmon.sh builds it with gcc -pg and with gcc --coverage, at
 * -O0 and -O2, runs both the same way and checks that the function
 * coverage converted from the gmon.out equals gcov's: which functions
 * ran, and how often each was called.
 *
 * Every function is kept whole (noipa: not inlined, cloned or split), so
 * that both builds have the same functions; none is called from outside
 * the program's own text, where mcount records no call.
 */
#include <stdio.h>
#include <stdlib.h>

#define KEEP __attribute__((noipa))

static volatile unsigned sink;

KEEP unsigned leaf(unsigned x)
{
	sink += x;
	return x * 3 + 1;
}

KEEP unsigned fact(unsigned n)
{
	return n < 2 ? 1 : n * fact(n - 1);
}

KEEP unsigned twice(unsigned x)
{
	return leaf(leaf(x));
}

KEEP void report(unsigned v)
{
	printf("%u\n", v);
}

KEEP void never_called(void)
{
	sink = 1;
}

KEEP unsigned never_either(unsigned x)
{
	return leaf(x) + fact(x);
}

KEEP int error_path(const char *why)
{
	fprintf(stderr, "covfns: %s\n", why);
	return 2;
}

KEEP static unsigned never_static(unsigned x)
{
	return x ^ 0x5a5a;
}

/* Reachable only when the program is misused, so never in the tests. */
unsigned (*const unused_hook)(unsigned) = never_static;

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 100;
	unsigned acc = 0;

	if (argc > 2)
		return error_path("too many arguments");
	for (unsigned i = 0; i < n; i++)
		acc += leaf(i) + (i % 10 == 0 ? twice(i) : 0);
	acc += fact(12);
	report(acc);
	return 0;
}
