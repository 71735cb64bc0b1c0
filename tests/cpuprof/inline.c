/*
 * inline.c - a program for the live CPU-profile tests (tests/cpuprof.sh)
 * whose small static helpers gcc inlines at -O2: a quicksort whose
 * partition, comparison and swap end up inside the recursive quick_rec,
 * and a random-number step and a checksum that end up inside main.  At
 * -O0 nothing is inlined; at -O2 most samples fall on addresses with a
 * chain of inlined calls (addr2line -i), which google-pprof reports as
 * "(inline)" frames.
 *
 *   inline [ROUNDS]    sorts ROUNDS arrays (default 40) and prints a sum
 */
#include <stdio.h>
#include <stdlib.h>

#define N 50000

static unsigned seed = 12345;

static unsigned next_rand(void)
{
	seed = seed * 1103515245u + 12345u;
	return seed >> 8;
}

static int before(int a, int b)
{
	return a < b;
}

static void swap(int *a, int *b)
{
	int t = *a;
	*a = *b;
	*b = t;
}

static int partition(int *v, int lo, int hi)
{
	int pivot = v[hi], i = lo;

	for (int j = lo; j < hi; j++)
		if (before(v[j], pivot))
			swap(&v[i++], &v[j]);
	swap(&v[i], &v[hi]);
	return i;
}

static void quick_rec(int *v, int lo, int hi)
{
	while (lo < hi) {
		int p = partition(v, lo, hi);
		quick_rec(v, lo, p - 1);
		lo = p + 1;
	}
}

static long checksum(const int *v, int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s = s * 31 + v[i];
	return s;
}

int main(int argc, char **argv)
{
	static int v[N];
	int rounds = argc > 1 ? atoi(argv[1]) : 40;
	long sum = 0;

	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < N; i++)
			v[i] = (int)(next_rand() % 1000000);
		quick_rec(v, 0, N - 1);
		sum += checksum(v, N);
	}
	printf("%ld\n", sum);
	return 0;
}
