/*
 * dcpi.c - unit tests of the DCPI module through the library: the model's
 * accessors on the hand-worked profile, and every prefix and many
 * one-byte mutations of it (binary and text) through xp_prof_open_mem,
 * with the lossless promise checked whenever one is accepted: a binary
 * input is written back byte for byte, and a text's model gives the same
 * binary as the text written from it.  Run from the source tree (as
 * tests/run.sh does) and under the sanitizers by make check-asan.
 */
#include <stdlib.h>

#include "unit.h"
#include "xprof.h"
#include "xprof_dcpi.h"

static xp_prof *open_mem(const unsigned char *b, size_t n)
{
	xp_diags *d = xp_diags_new(0);
	xp_prof *p = NULL;

	xp_prof_open_mem(b, n, "t", NULL, &p, d);
	xp_diags_free(d);
	return p;
}

static void test_accessors(void)
{
	size_t n, len, nc;
	unsigned char *b =
	    (unsigned char *)unit_slurp("tests/fuzz/corpus/dcpi/small.prof", &n);
	xp_prof *p;
	const xp_dcpi *m;
	const char *v;
	const uint32_t *c;
	uint64_t ts;
	xp_dcpi_chunk ch;

	CHECK(b != NULL);
	if (b == NULL)
		return;
	p = open_mem(b, n);
	CHECK(p != NULL);
	if (p != NULL) {
		CHECK_EQ(xp_prof_format(p), XP_FMT_DCPI);
		m = xp_prof_model(p);
		CHECK_EQ(xp_dcpi_nlines(m), 11);
		CHECK_EQ(xp_dcpi_line(m, 10, &v, &len), XP_DCPI_SAMPLES);
		CHECK(len == 9 && memcmp(v, "samples  ", 9) == 0);
		CHECK_EQ(xp_dcpi_line(m, 9, &v, &len), XP_DCPI_UNKNOWN);
		CHECK_EQ(xp_dcpi_value(m, XP_DCPI_IMAGE, &v, &len), 0);
		CHECK(len == 8 && memcmp(v, "0badcafe", 8) == 0);
		CHECK_EQ(xp_dcpi_value(m, XP_DCPI_PATH, &v, &len), -1);
		CHECK_EQ(xp_dcpi_tsize(m), 64);
		CHECK_EQ(xp_dcpi_period(m), 62000);
		CHECK_EQ(xp_dcpi_tstart(m, &ts), 0);
		CHECK_EQ_U64(ts, 0x120000000ull);
		CHECK_EQ(xp_dcpi_nchunks(m), 2);
		xp_dcpi_get_chunk(m, 1, &ch);
		CHECK_EQ(ch.offset, 0x10);
		CHECK_EQ(ch.number, 2);
		CHECK_EQ(ch.first, 3);
		c = xp_dcpi_counts(m, &nc);
		CHECK_EQ(nc, 5);
		CHECK(c[0] == 1 && c[1] == 0 && c[2] == 2 && c[3] == 5 &&
		      c[4] == 6);
		CHECK_EQ(xp_dcpi_total_addrs(m), 4);
		CHECK_EQ(xp_dcpi_total_samples(m), 14);
		CHECK(xp_dcpi_header(m, &len) != NULL && len == 172);
	}
	xp_prof_free(p);
	free(b);
}

/* The promise for one accepted input. */
static int lossless(const unsigned char *in, size_t n, int text)
{
	xp_prof *p = open_mem(in, n), *q = NULL;
	unsigned char *bin = NULL, *txt = NULL, *bin2 = NULL;
	size_t bl, tl, bl2;
	int ok = 1;

	if (p == NULL)
		return 1;
	if (xp_prof_write_mem(p, 0, &bin, &bl) != XP_E_OK ||
	    xp_prof_write_mem(p, 1, &txt, &tl) != XP_E_OK)
		ok = 0;
	else if (!text && (bl != n || memcmp(bin, in, n) != 0))
		ok = 0;
	else if ((q = open_mem(txt, tl)) == NULL ||
	         xp_prof_write_mem(q, 0, &bin2, &bl2) != XP_E_OK ||
	         bl2 != bl || memcmp(bin, bin2, bl) != 0)
		ok = 0;
	xp_prof_free(p);
	xp_prof_free(q);
	free(bin);
	free(txt);
	free(bin2);
	return ok;
}

static void mutate(const char *path, int text)
{
	static const unsigned char vals[] = { 0, 0xff, ' ', '\t', '\n', '0',
	                                      'x', 'f', '9', 's' };
	size_t n, bad = 0, accepted = 0;
	unsigned char *b = (unsigned char *)unit_slurp(path, &n);

	CHECK(b != NULL);
	if (b == NULL)
		return;
	CHECK(lossless(b, n, text));
	for (size_t k = 0; k < n; k++) {
		xp_prof *p = open_mem(b, k);
		if (p != NULL)
			accepted++;
		xp_prof_free(p);
		bad += !lossless(b, k, text);
	}
	for (size_t k = 0; k < n; k++) {
		unsigned char old = b[k];
		for (size_t v = 0; v < sizeof vals; v++) {
			b[k] = vals[v];
			bad += !lossless(b, n, text);
		}
		b[k] = (unsigned char)(old + 1);
		bad += !lossless(b, n, text);
		b[k] = old;
	}
	CHECK_EQ(bad, 0);
	/* No proper prefix of a binary profile is one: the footer is the
	 * last 8 bytes.  Of a text, only the one without the final newline
	 * is. */
	CHECK_EQ(accepted, text ? 1 : 0);
	free(b);
}

static void test_mutations_binary(void)
{
	mutate("tests/fuzz/corpus/dcpi/small.prof", 0);
}

static void test_mutations_text(void)
{
	mutate("tests/dcpi/small.text", 1);
}

static void test_merge_refusal_keeps_acc(void)
{
	size_t n;
	unsigned char *b =
	    (unsigned char *)unit_slurp("tests/fuzz/corpus/dcpi/small.prof", &n);
	xp_prof *a, *c, *acc = NULL;
	xp_diags *d = xp_diags_new(0);
	unsigned char *before = NULL, *after = NULL;
	size_t lb = 0, la = 0;

	CHECK(b != NULL && d != NULL);
	if (b == NULL || d == NULL) {
		free(b);
		xp_diags_free(d);
		return;
	}
	a = open_mem(b, n);
	b[6] = '1';   /* image 1badcafe: another image */
	c = open_mem(b, n);
	CHECK(a != NULL && c != NULL);
	if (a != NULL && c != NULL) {
		CHECK_EQ(xp_prof_merge(&acc, a, 1.0, NULL, "a", d), XP_E_OK);
		xp_prof_write_mem(acc, 0, &before, &lb);
		CHECK_EQ(xp_prof_merge(&acc, c, 1.0, NULL, "c", d), XP_E_INVAL);
		xp_prof_write_mem(acc, 0, &after, &la);
		CHECK(lb == la && memcmp(before, after, lb) == 0);
		CHECK(la == n);
	}
	free(before);
	free(after);
	xp_prof_free(a);
	xp_prof_free(c);
	xp_prof_free(acc);
	xp_diags_free(d);
	free(b);
}

int main(void)
{
	RUN(test_accessors);
	RUN(test_mutations_binary);
	RUN(test_mutations_text);
	RUN(test_merge_refusal_keeps_acc);
	return unit_done();
}
