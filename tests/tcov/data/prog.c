/* prog.c - a small program for the xprof_tcov tests. */
#include <stdio.h>
#include "util.h"

static int classify(int n)
{
	if (n % 15 == 0)
		return 3;
	if (n % 5 == 0)
		return 2;
	if (n % 3 == 0)
		return 1;
	return 0;
}

static void never(void)
{
	puts("never");
}

int main(int argc, char **argv)
{
	int counts[4] = {0, 0, 0, 0};
	int i;

	for (i = 1; i <= 30; i++)
		counts[classify(i)]++;
	if (argc > 5)
		never();
	printf("%d %d %d %d\n", counts[0], counts[1], counts[2],
	       counts[3]);
	return twice(counts[0]) > 0 ? 0 : 1;
}
