/* main.c - the word counter of the xprof demo: counts the lines, words
 * and characters of its standard input, as wc(1) does. */
#include <stdio.h>

#include "count.h"

static int usage(void)
{
	return fputs("usage: wc < FILE\n", stderr), 2;
}
/* The profile's blocks of main: its entry, the loop test, the call. */
int main(int argc, char **argv)
{
	for (char line[4096]; fgets(line, sizeof line, stdin) != NULL;)
		count_line(line);
	return argc > 1 ? usage() : (report(argv[0]), 0);
}
