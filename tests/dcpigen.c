/*
 * dcpigen - writes DCPI profiles (dcpi(5)) for the tests: valid ones of
 * any size, from a seed, and invalid ones on purpose.
 *
 *   dcpigen [options] > profile
 *
 * Header:
 *   -i ID        image id (default 1a2b3c4d)
 *   -E EVENT     event line's value (default "cycles")
 *   -t HEX       add "tstart HEX"
 *   -P PATH      add "path PATH"
 *   -H LINE      add LINE (verbatim) before the samples line; repeatable
 *   -D KEYWORD   leave out the line of KEYWORD (image, epoch, ...,
 *                samples)
 *   -R 'KW VAL'  replace the value of KW's line by VAL (verbatim)
 *   -p N         N blanks after "samples" (default: align the binary
 *                section to 4 bytes)
 * Samples:
 *   -s SEED      seed of the random chunks (default 1)
 *   -n N         N random chunks (default 3)
 *   -l LEN       random chunk lengths in [1..LEN] (default 8)
 *   -z MAX       random counts in [0..MAX] (default 100; a quarter 0)
 *   -g GAP       random gaps between chunks in [0..GAP] (default 16)
 *   -o OFF       the first chunk's offset (default 0x40)
 *   -S OFF:C,C.. an explicit chunk (replaces the random ones);
 *                repeatable, offsets in any base strtoul takes
 *   -T TSIZE     tsize (default: the end of the last chunk rounded up to
 *                a multiple of 64, plus 64)
 * Faults (-B), one at a time:
 *   order           the second chunk's offset is set to the first's
 *   overlap         the second chunk starts at the first's last address
 *   past-tsize      tsize is set one below the end of the last chunk
 *   past-eof        the last chunk's number claims 1000 more counts
 *   empty-chunk     a chunk of no counts is added after the last
 *   truncated-chunk 4 stray bytes before the footer
 *   footer-addrs    the footer's address count is one too high
 *   footer-samples  the footer's sample total is one too high
 *   footer-overflow two counts of 0xffffffff (the total overflows)
 *   short-footer    the footer's second word is missing
 *
 * Exit status 0, or 2 for a bad option.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
	uint32_t off, n;
	uint32_t *c;
} chunk;

static uint64_t rng = 1;

static uint32_t rnd(uint32_t n)
{
	/* xorshift64*: deterministic for a seed on every platform. */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return n ? (uint32_t)((rng * 2685821657736338717ull) >> 33) % n : 0;
}

static void put32(uint32_t v)
{
	unsigned char b[4] = { (unsigned char)v, (unsigned char)(v >> 8),
	                       (unsigned char)(v >> 16),
	                       (unsigned char)(v >> 24) };
	fwrite(b, 1, 4, stdout);
}

static void usage(void)
{
	fprintf(stderr, "usage: dcpigen [-i ID] [-E EVENT] [-t HEX] [-P PATH] "
	        "[-H LINE] [-D KW] [-R 'KW VAL'] [-p N] [-s SEED] [-n N] "
	        "[-l LEN] [-z MAX] [-g GAP] [-o OFF] [-S OFF:C,...] "
	        "[-T TSIZE] [-B FAULT]\n");
	exit(2);
}

#define MAXL 64

int main(int argc, char **argv)
{
	const char *image = "1a2b3c4d", *event = "cycles", *tstart = NULL;
	const char *path = NULL, *fault = NULL;
	const char *extra[MAXL], *drop[MAXL], *repl[MAXL];
	int nextra = 0, ndrop = 0, nrepl = 0, pad = -1, opt;
	unsigned long nch = 3, maxlen = 8, maxc = 100, gap = 16;
	unsigned long first = 0x40;
	unsigned long long tsize = 0;
	int have_tsize = 0;
	chunk *ch = NULL;
	size_t nc = 0, cap = 0;
	char *hdr;
	size_t hlen = 0, hcap = 1 << 16;

	while ((opt = getopt(argc, argv, "B:D:E:g:H:i:l:n:o:p:P:R:s:S:t:T:z:"))
	       != -1) {
		switch (opt) {
		case 'B': fault = optarg; break;
		case 'D': if (ndrop < MAXL) drop[ndrop++] = optarg; break;
		case 'E': event = optarg; break;
		case 'g': gap = strtoul(optarg, NULL, 0); break;
		case 'H': if (nextra < MAXL) extra[nextra++] = optarg; break;
		case 'i': image = optarg; break;
		case 'l': maxlen = strtoul(optarg, NULL, 0); break;
		case 'n': nch = strtoul(optarg, NULL, 0); break;
		case 'o': first = strtoul(optarg, NULL, 0); break;
		case 'p': pad = atoi(optarg); break;
		case 'P': path = optarg; break;
		case 'R': if (nrepl < MAXL) repl[nrepl++] = optarg; break;
		case 's': rng = strtoull(optarg, NULL, 0) * 2 + 1; break;
		case 'S': {
			char *p = optarg, *e;
			chunk c;
			c.off = (uint32_t)strtoul(p, &e, 0);
			if (*e != ':')
				usage();
			c.n = 0;
			c.c = NULL;
			p = e + 1;
			for (;;) {
				uint32_t v = (uint32_t)strtoul(p, &e, 0);
				if (e == p)
					usage();
				c.c = realloc(c.c, (c.n + 1) * sizeof *c.c);
				c.c[c.n++] = v;
				if (*e != ',')
					break;
				p = e + 1;
			}
			if (nc == cap) {
				cap = cap ? cap * 2 : 8;
				ch = realloc(ch, cap * sizeof *ch);
			}
			ch[nc++] = c;
			nch = 0;
			break;
		}
		case 't': tstart = optarg; break;
		case 'T': tsize = strtoull(optarg, NULL, 0); have_tsize = 1; break;
		case 'z': maxc = strtoul(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (optind != argc || maxlen == 0)
		usage();
	/* Random chunks. */
	if (nch > 0) {
		uint64_t off = first;
		ch = calloc(nch, sizeof *ch);
		for (unsigned long i = 0; i < nch; i++) {
			chunk *c = &ch[nc++];
			c->off = (uint32_t)off;
			c->n = 1 + rnd((uint32_t)maxlen);
			c->c = malloc(c->n * sizeof *c->c);
			for (uint32_t j = 0; j < c->n; j++)
				c->c[j] = rnd(4) == 0 ? 0 : rnd((uint32_t)maxc + 1);
			off += c->n + rnd((uint32_t)gap + 1);
		}
	}
	if (fault != NULL && strcmp(fault, "footer-overflow") == 0 && nc > 0) {
		ch[0].c[0] = 0xffffffffu;
		ch[nc - 1].c[ch[nc - 1].n - 1] = 0xffffffffu;
	}
	if (fault != NULL && nc >= 2 && strcmp(fault, "order") == 0)
		ch[1].off = ch[0].off;
	if (fault != NULL && nc >= 2 && strcmp(fault, "overlap") == 0)
		ch[1].off = ch[0].off + ch[0].n - 1;
	if (!have_tsize) {
		uint64_t end = nc ? (uint64_t)ch[nc - 1].off + ch[nc - 1].n : 0;
		tsize = (end + 63) / 64 * 64 + 64;
	}
	if (fault != NULL && strcmp(fault, "past-tsize") == 0 && nc > 0)
		tsize = (uint64_t)ch[nc - 1].off + ch[nc - 1].n - 1;

	/* The header. */
	{
		char tsz[32];
		const char *lines[16][2] = {
			{ "image", image }, { "epoch", "2601151230" },
			{ "platform", "x86_64 Linux 6.1" }, { "event", event },
			{ "period", "62000" }, { "tsize", NULL },
			{ "cpuspeed", "2400" }, { "cpucount", "4" },
			{ "tstart", tstart }, { "path", path },
		};
		int nl = 10;
		snprintf(tsz, sizeof tsz, "%llu", tsize);
		lines[5][1] = tsz;
		hdr = malloc(hcap);
		for (int i = 0; i < nl; i++) {
			const char *v = lines[i][1];
			int skip = v == NULL;
			for (int k = 0; k < ndrop; k++)
				if (strcmp(drop[k], lines[i][0]) == 0)
					skip = 1;
			for (int k = 0; k < nrepl; k++) {
				size_t kl = strlen(lines[i][0]);
				if (strncmp(repl[k], lines[i][0], kl) == 0 &&
				    repl[k][kl] == ' ')
					v = repl[k] + kl + 1, skip = 0;
			}
			if (skip)
				continue;
			hlen += (size_t)snprintf(hdr + hlen, hcap - hlen,
			                         "%s %s\n", lines[i][0], v);
		}
		for (int k = 0; k < nextra; k++)
			hlen += (size_t)snprintf(hdr + hlen, hcap - hlen, "%s\n",
			                         extra[k]);
		int nosamples = 0;
		for (int k = 0; k < ndrop; k++)
			nosamples |= strcmp(drop[k], "samples") == 0;
		if (!nosamples) {
			hlen += (size_t)snprintf(hdr + hlen, hcap - hlen,
			                         "samples");
			if (pad < 0)
				pad = (int)((4 - (hlen + 1) % 4) % 4);
			for (int i = 0; i < pad; i++)
				hdr[hlen++] = ' ';
			hdr[hlen++] = '\n';
		}
		fwrite(hdr, 1, hlen, stdout);
	}
	/* The binary section. */
	{
		uint64_t addrs = 0, total = 0;
		for (size_t i = 0; i < nc; i++) {
			uint32_t n = ch[i].n;
			if (fault != NULL && strcmp(fault, "past-eof") == 0 &&
			    i == nc - 1)
				n += 1000;
			put32(ch[i].off);
			put32(n);
			for (uint32_t j = 0; j < ch[i].n; j++) {
				put32(ch[i].c[j]);
				addrs += ch[i].c[j] != 0;
				total += ch[i].c[j];
			}
		}
		if (fault != NULL && strcmp(fault, "empty-chunk") == 0) {
			put32(nc ? ch[nc - 1].off + ch[nc - 1].n + 8 : 0);
			put32(0);
		}
		if (fault != NULL && strcmp(fault, "truncated-chunk") == 0)
			put32(0x1000);
		if (fault != NULL && strcmp(fault, "footer-addrs") == 0)
			addrs++;
		if (fault != NULL && strcmp(fault, "footer-samples") == 0)
			total++;
		put32((uint32_t)addrs);
		if (fault == NULL || strcmp(fault, "short-footer") != 0)
			put32((uint32_t)total);
	}
	for (size_t i = 0; i < nc; i++)
		free(ch[i].c);
	free(ch);
	free(hdr);
	return fflush(stdout) == 0 ? 0 : 2;
}
