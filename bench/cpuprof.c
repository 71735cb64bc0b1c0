/*
 * bench/cpuprof.c - generator of large gperftools CPU profiles for the
 * benchmark (cpuprofile(5)).
 *
 * Usage: cpuprof [-s seed] [-f functions] [-n samples] [-x path] > FILE
 *
 * Writes a 64-bit little-endian profile of the binary format: the header,
 * records of (count, depth, PCs), the trailer and one mapping line that
 * names path (default /bench/prog) at 0x400000.  The functions are 64
 * bytes apart from 0x401000 and every PC lies inside one of them.  The
 * call chains are drawn from a pool that depends on the number of
 * functions alone, so that the profiles of several seeds share most of
 * their chains, as the profiles of several runs of one program do; seed
 * chooses which chains a profile holds and how often.  Records are
 * written until their counts add up to the number of samples, with
 * repeats of one chain as the profiler writes them when its table
 * evicts an entry.  Nothing is symbolized: a merger must add the chains
 * by their addresses.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BASE 0x400000u
#define TEXT 0x401000u
#define MAX_DEPTH 16
/* Chains in the pool per function. */
#define CHAINS_PER_FUNC 4

static uint64_t next64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static uint64_t below(uint64_t *s, uint64_t n)
{
	return next64(s) % n;
}

static void put_slots(const uint64_t *v, size_t n)
{
	unsigned char b[8 * (MAX_DEPTH + 2)];
	size_t i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < 8; k++)
			b[i * 8 + k] = (unsigned char)(v[i] >> (8 * k));
	if (fwrite(b, 8, n, stdout) != n) {
		perror("cpuprof: write");
		exit(2);
	}
}

/*
 * Chain c of the pool: a leaf and its callers, each a PC inside a
 * function; hot functions (low numbers) are chosen more often.
 */
static size_t chain(uint64_t c, uint64_t nfunc, uint64_t *pcs)
{
	uint64_t s = c * 0x2545f4914f6cdd1du + 1;
	size_t d = 1 + (size_t)below(&s, MAX_DEPTH), i;

	for (i = 0; i < d; i++) {
		uint64_t f = below(&s, nfunc);

		if (below(&s, 4) == 0)
			f = below(&s, nfunc / 16 + 1);
		pcs[i] = TEXT + f * 64 + 4 + below(&s, 14) * 4;
	}
	return d;
}

int main(int argc, char **argv)
{
	uint64_t seed = 0, nfunc = 20000, nsamples = 200000, s, done = 0;
	const char *path = "/bench/prog";
	uint64_t hdr[5] = { 0, 3, 0, 10000, 0 }, trailer[3] = { 0, 1, 0 };
	uint64_t rec[MAX_DEPTH + 2];
	int c;

	while ((c = getopt(argc, argv, "f:n:s:x:")) != -1) {
		switch (c) {
		case 'f':
			nfunc = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			nsamples = strtoull(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'x':
			path = optarg;
			break;
		default:
			fprintf(stderr, "usage: cpuprof [-s seed] [-f functions] "
				"[-n samples] [-x path]\n");
			return 2;
		}
	}
	if (nfunc == 0)
		nfunc = 1;
	s = seed * 0x9e3779b97f4a7c15u + 7;
	put_slots(hdr, 5);
	while (done < nsamples) {
		uint64_t k = below(&s, nfunc * CHAINS_PER_FUNC);
		uint64_t n = 1 + (below(&s, 8) == 0 ? below(&s, 16) : 0);

		if (below(&s, 2) == 0)
			k = below(&s, nfunc * CHAINS_PER_FUNC / 8 + 1);
		if (n > nsamples - done)
			n = nsamples - done;
		rec[0] = n;
		rec[1] = chain(k, nfunc, rec + 2);
		put_slots(rec, 2 + (size_t)rec[1]);
		done += n;
	}
	put_slots(trailer, 3);
	printf("%08x-%08llx r-xp 00000000 00:00 0 %s\n", BASE,
	       (unsigned long long)(TEXT + nfunc * 64 + 0x1000), path);
	if (fflush(stdout) != 0) {
		perror("cpuprof: write");
		return 2;
	}
	return 0;
}
