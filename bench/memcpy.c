/*
 * bench/memcpy.c - the time of one memcpy of N bytes, a physical
 * reference for the benchmark: no tool that writes N bytes can be faster
 * than moving them once through memory.
 *
 * Usage: memcpy BYTES
 *
 * Both buffers are touched before the clock starts, so that page faults
 * are not counted; it prints the median of five copies in seconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS 5

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	size_t n;
	char *src, *dst;
	double t[REPS];
	int i;

	if (argc != 2) {
		fprintf(stderr, "usage: memcpy BYTES\n");
		return 2;
	}
	n = (size_t)strtoull(argv[1], NULL, 10);
	if (n == 0)
		n = 1;
	src = malloc(n);
	dst = malloc(n);
	if (src == NULL || dst == NULL) {
		fprintf(stderr, "memcpy: out of memory\n");
		return 2;
	}
	memset(src, 0x5a, n);
	memset(dst, 0, n);
	for (i = 0; i < REPS; i++) {
		double t0 = now();

		memcpy(dst, src, n);
		t[i] = now() - t0;
		/* Keeps the copy from being optimised away. */
		src[(size_t)i % n] ^= dst[n - 1 - (size_t)i % n];
	}
	qsort(t, REPS, sizeof t[0], cmp);
	printf("%.6f\n", t[REPS / 2]);
	return 0;
}
