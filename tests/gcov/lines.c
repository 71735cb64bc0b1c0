/* lines.c - a program for the line counts of gcov(5)'s conversion to
 * feedback: loops on one line, branches, a switch, a backward goto and
 * a function that is never called. */
#include <stdio.h>
#include <stdlib.h>

static int never(int x)
{
	return x * 3;
}

static int classify(int v)
{
	if (v < 0)
		return -1;
	else if (v == 0)
		return 0;
	return 1;
}

static int digits(unsigned n)
{
	int d = 0;
again:
	d++;
	if ((n /= 10) > 0)
		goto again;
	return d;
}

int main(int argc, char **argv)
{
	int sum = 0, i, n = argc > 1 ? atoi(argv[1]) : 3;

	for (i = 0; i < n; i++) { if (i % 3) sum += i; else sum -= classify(i - 2); }
	for (i = 0; i < n; i++)
		for (int j = 0; j < i; j++) sum += j & 1 ? 1 : 2;
	switch (argc) {
	case 1:
		sum += 1;
		break;
	case 2:
		sum += digits((unsigned)n);
		/* fall through */
	default:
		sum *= 2;
	}
	while (n > 0)
		n /= 2;
	if (argc > 5)
		sum += never(argc);
	printf("%d\n", sum);
	return 0;
}
