/*
 * junk.c - writes bytes for tests/hostile.sh: junk N SEED [PREFIX] writes
 * PREFIX (if given, then a newline) and N bytes: all NUL when SEED is 0,
 * otherwise a xorshift64 stream from SEED, the same on every machine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	static unsigned char buf[65536];
	unsigned long long n;
	uint64_t x;

	if (argc < 3)
		return 2;
	n = strtoull(argv[1], NULL, 10);
	x = strtoull(argv[2], NULL, 10);
	if (argc > 3)
		printf("%s\n", argv[3]);
	while (n > 0) {
		size_t k = n < sizeof buf ? (size_t)n : sizeof buf;

		for (size_t i = 0; i < k; i++) {
			if (x != 0) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
			}
			buf[i] = (unsigned char)(x >> 24);
		}
		if (fwrite(buf, 1, k, stdout) != k)
			return 1;
		n -= k;
	}
	return fflush(stdout) != 0;
}
