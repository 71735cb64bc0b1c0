/*
 * compare.c - unit tests of the comparison and summary computations:
 * overlap scores and cover counts checked against values worked out by
 * hand, and the comparison of small profiles (matching, one-sided
 * procedures, order independence, per-level overlaps).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xprof.h"
#include "unit.h"

#define NEAR(x, y) (fabs((x) - (y)) < 1e-9)

static void test_overlap(void)
{
	/* min(.1,.2) + min(.6,.6) + min(.3,.2) = .9 */
	uint64_t a[] = {10, 60, 30}, b[] = {20, 60, 20};
	CHECK(NEAR(xp_overlap(a, b, 3), 0.9));
	CHECK(NEAR(xp_overlap(b, a, 3), 0.9));
	/* Proportional vectors overlap exactly 1, whatever the rounding of
	 * thirds would give. */
	uint64_t c[] = {1, 1, 1}, d[] = {7, 7, 7};
	CHECK(xp_overlap(c, d, 3) == 1.0);
	/* Disjoint supports: 0. */
	uint64_t e[] = {5, 0}, f[] = {0, 9};
	CHECK(xp_overlap(e, f, 2) == 0.0);
	/* Sums of 0: both 1, one side 0. */
	uint64_t z[] = {0, 0};
	CHECK(xp_overlap(z, z, 2) == 1.0);
	CHECK(xp_overlap(z, e, 2) == 0.0);
	CHECK(xp_overlap(e, z, 2) == 0.0);
	CHECK(xp_overlap(NULL, NULL, 0) == 1.0);
	/* 1/4 vs 3/4 against 3/4 vs 1/4: .25 + .25 */
	uint64_t g[] = {1, 3}, h[] = {3, 1};
	CHECK(NEAR(xp_overlap(g, h, 2), 0.5));
	/* Counts near 2^64 neither overflow nor lose proportionality. */
	uint64_t big[] = {UINT64_MAX, UINT64_MAX}, one[] = {1, 1};
	CHECK(xp_overlap(big, one, 2) == 1.0);
	/* Shares 2/3 and 1/3 of a sum past 2^64 against 1/2 and 1/2. */
	uint64_t big2[] = {UINT64_MAX, UINT64_MAX / 2 + 1};
	CHECK(NEAR(xp_overlap(big2, one, 2), 0.5 + 1.0 / 3));
}

/* A 320-bit number in 32-bit limbs, least significant first: the
 * reference arithmetic of the overlap, made apart from the library's. */
typedef struct {
	uint32_t w[10];
} ref;

/* r += x * y * 2^(32 * at), x below 2^64, y below 2^128. */
static void ref_addmul(ref *r, uint64_t x, unsigned __int128 y, int at)
{
	uint32_t xs[2] = {(uint32_t)x, (uint32_t)(x >> 32)};

	for (int i = 0; i < 2; i++) {
		uint64_t carry = 0;
		for (int j = 0; at + i + j < 10; j++) {
			uint64_t yj = j < 4 ? (uint32_t)(y >> (32 * j)) : 0;
			uint64_t t = (uint64_t)xs[i] * yj + r->w[at + i + j] + carry;
			r->w[at + i + j] = (uint32_t)t;
			carry = t >> 32;
		}
	}
}

static int ref_cmp(const ref *x, const ref *y)
{
	for (int i = 9; i >= 0; i--)
		if (x->w[i] != y->w[i])
			return x->w[i] < y->w[i] ? -1 : 1;
	return 0;
}

/* x as a long double, within about 2^-63 of it. */
static long double ref_ld(const ref *x)
{
	long double v = 0;

	for (int i = 9; i >= 0; i--)
		v = v * 4294967296.0L + x->w[i];
	return v;
}

/*
 * The overlap is the exact sum of min(a_i * sum_b, b_i * sum_a) over
 * sum_a * sum_b, divided once: against that fraction worked out here
 * with other arithmetic, for sums below 2^64 and past it, with counts
 * of every size and some zeros.  It is below 1 whenever the vectors are
 * not proportional, and the same whatever the order of the counters.
 */
static void test_overlap_exact(void)
{
	enum { N = 1500 };
	static uint64_t a[N], b[N], ra[N], rb[N];
	uint64_t seed = 0x9e3779b97f4a7c15u;

	for (unsigned round = 0; round < 60; round++) {
		unsigned bits = 1 + round % 64;
		unsigned __int128 sa = 0, sb = 0;

		for (size_t i = 0; i < N; i++) {
			a[i] = unit_next(&seed) >> (64 - bits);
			b[i] = i % 5 == 0 ? a[i] : unit_next(&seed) >> (64 - bits);
			if (i % 11 == 0)
				(i % 2 ? a : b)[i] = 0;
		}
		/* Not proportional: a share on one side only. */
		a[0] = 0;
		b[0] = 1;
		for (size_t i = 0; i < N; i++) {
			sa += a[i];
			sb += b[i];
		}
		ref num, den, p, q;
		memset(&num, 0, sizeof num);
		for (size_t i = 0; i < N; i++) {
			memset(&p, 0, sizeof p);
			memset(&q, 0, sizeof q);
			ref_addmul(&p, a[i], sb, 0);
			ref_addmul(&q, b[i], sa, 0);
			if (ref_cmp(&p, &q) <= 0)
				ref_addmul(&num, a[i], sb, 0);
			else
				ref_addmul(&num, b[i], sa, 0);
		}
		memset(&den, 0, sizeof den);
		ref_addmul(&den, (uint64_t)sa, sb, 0);
		ref_addmul(&den, (uint64_t)(sa >> 64), sb, 2);
		CHECK(ref_cmp(&num, &den) < 0);
		double want = (double)(ref_ld(&num) / ref_ld(&den));
		double got = xp_overlap(a, b, N);
		CHECK(got < 1.0);
		CHECK(fabs(got - want) <= 0x1p-60 + 0x1p-52 * want);
		/* Reversed, the same bits. */
		for (size_t i = 0; i < N; i++) {
			ra[i] = a[N - 1 - i];
			rb[i] = b[N - 1 - i];
		}
		CHECK(xp_overlap(ra, rb, N) == got);
	}
	/* Shares that differ by one part in 2^64 are not the same: below 1. */
	uint64_t x[] = {UINT64_MAX, UINT64_MAX - 1}, y[] = {UINT64_MAX - 1,
	                                                    UINT64_MAX};
	CHECK(xp_overlap(x, y, 2) < 1.0);
	/* Proportional with sums past 2^64: exactly 1. */
	uint64_t u[] = {UINT64_MAX, UINT64_MAX, 3}, v[] = {UINT64_MAX,
	                                                    UINT64_MAX, 3};
	CHECK(xp_overlap(u, v, 3) == 1.0);
}
/* The overlap's text as printf gives it: "%.6f", then more decimals
 * while it reads 1 for a value below 1. */
static void overlap_ref(char *buf, double v)
{
	snprintf(buf, XP_OVERLAP_LEN, "%.6f", v);
	for (int d = 7; v < 1.0 && buf[0] == '1' && d <= 17; d++)
		snprintf(buf, XP_OVERLAP_LEN, "%.*f", d, v);
}

static int overlap_text_ok(double v)
{
	char got[XP_OVERLAP_LEN], want[XP_OVERLAP_LEN];
	overlap_ref(want, v);
	if (strcmp(xp_fmt_overlap(got, v), want) == 0)
		return 1;
	fprintf(stderr, "overlap %a: \"%s\", printf \"%s\"\n", v, got, want);
	return 0;
}

/*
 * xp_fmt_overlap() against printf: the ends, the values next to 1 (which
 * take every number of decimals up to 17), halfway cases of six to
 * seventeen decimals (k / 2^n, exact in binary), values that round up to
 * the next decimal, and random values of every exponent.
 */
static void test_overlap_text(void)
{
	uint64_t seed = 0x243f6a8885a308d3u;
	int bad = 0;

	bad += !overlap_text_ok(0.0);
	bad += !overlap_text_ok(1.0);
	bad += !overlap_text_ok(0x1p-1074);
	bad += !overlap_text_ok(0x1p-1022);
	bad += !overlap_text_ok(5e-7);
	bad += !overlap_text_ok(4.999999999999999e-7);
	bad += !overlap_text_ok(0.9999995);
	for (int k = 1; k <= 2000; k++) {
		bad += !overlap_text_ok(1.0 - k * 0x1p-53);
		bad += !overlap_text_ok(1.0 - (double)k * k * k * 0x1p-53);
	}
	for (int n = 1; n <= 60; n++)
		for (int j = 0; j < 200; j++) {
			uint64_t k = unit_next(&seed) % ((uint64_t)1 << (n < 53 ? n : 53));
			bad += !overlap_text_ok(ldexp((double)(2 * k + 1), -n - 1));
		}
	for (int d = 6; d <= 17; d++)
		for (int j = 0; j < 500; j++) {
			/* Just below and above a decimal of d places. */
			double x = (double)(unit_next(&seed) % 1000000) / 1e6;
			bad += !overlap_text_ok(nextafter(x, 0.0));
			bad += !overlap_text_ok(nextafter(x, 1.0));
		}
	for (int i = 0; i < 200000; i++) {
		uint64_t r = unit_next(&seed);
		double u = (double)(r >> 11) * 0x1p-53;
		bad += !overlap_text_ok(u);
		bad += !overlap_text_ok(ldexp(u, -(int)(unit_next(&seed) % 80)));
	}
	CHECK(bad == 0);
	/* Out of range: printf's own text. */
	char buf[XP_OVERLAP_LEN];
	CHECK_STR(xp_fmt_overlap(buf, -0.0), "-0.000000");
	CHECK_STR(xp_fmt_overlap(buf, 1.5), "1.500000");
}


static void test_cover(void)
{
	uint64_t v[] = {60, 50, 40, 30, 10}; /* total 190 */
	uint64_t min = 99;

	/* 90% of 190 = 171: 60+50+40 = 150 < 171 <= 180. */
	CHECK_EQ(xp_cover_count(v, 5, 900000, &min), 4);
	CHECK_EQ(min, 30);
	/* 99% = 188.1: needs all five. */
	CHECK_EQ(xp_cover_count(v, 5, 990000, &min), 5);
	CHECK_EQ(min, 10);
	/* Exactly at the boundary: 60/190 is not 30%, 110/190 is 57.89%. */
	CHECK_EQ(xp_cover_count(v, 5, 315789, NULL), 1);
	CHECK_EQ(xp_cover_count(v, 5, 315790, NULL), 2);
	/* A share reached exactly counts: 50% of {50, 50} is one. */
	uint64_t w[] = {50, 50};
	CHECK_EQ(xp_cover_count(w, 2, 500000, &min), 1);
	CHECK_EQ(min, 50);
	CHECK_EQ(xp_cover_count(w, 2, 500001, NULL), 2);
	/* A total of 0 needs nothing. */
	uint64_t z[] = {0, 0};
	CHECK_EQ(xp_cover_count(z, 2, 900000, &min), 0);
	CHECK_EQ(min, 0);
	CHECK_EQ(xp_cover_count(NULL, 0, 999000, &min), 0);
	/* Sums beyond 2^64 are exact: 3 * (2^64-1) total; 2/3 < 90%. */
	uint64_t m[] = {UINT64_MAX, UINT64_MAX, UINT64_MAX};
	CHECK_EQ(xp_cover_count(m, 3, 900000, NULL), 3);
	CHECK_EQ(xp_cover_count(m, 3, 666666, NULL), 2);
	CHECK_EQ(xp_cover_count(m, 3, 666667, NULL), 3);
}

static xp_fb *parse(const char *text)
{
	xp_diags *d = xp_diags_new(0);
	xp_fb *fb = NULL;
	CHECK(xp_text_parse_mem(text, strlen(text), "t", NULL, &fb, d) ==
	      XP_E_OK);
	xp_diags_free(d);
	return fb;
}

static const char text_a[] =
	"PROFILE-FEEDBACK-DATA: 4.4 2 0 0 0\n"
	"OBJFILE:m.o 2 1 0 0 0x1 0\n"
	"PROC: p 0x5 3 0 0 1 0 0 0\n1 10\n2 60\n3 30\n"
	"PROC: q 0x6 1 0 0 2 0 0 0\n1 50\n"
	"OBJFILE:u.o 1 1 0 0 0x2 0\n"
	"PROC: r 0x7 1 0 0 1 0 0 0\n1 40\n";

/* The same content in another order. */
static const char text_a2[] =
	"PROFILE-FEEDBACK-DATA: 4.4 2 0 0 0\n"
	"OBJFILE:u.o 1 1 0 0 0x2 0\n"
	"PROC: r 0x7 1 0 0 1 0 0 0\n1 40\n"
	"OBJFILE:m.o 2 1 0 0 0x1 0\n"
	"PROC: q 0x6 1 0 0 2 0 0 0\n1 50\n"
	"PROC: p 0x5 3 0 0 1 0 0 0\n3 30\n1 10\n2 60\n";

/* p changes, q goes, s comes, r doubles, r's signature changes. */
static const char text_b[] =
	"PROFILE-FEEDBACK-DATA: 4.4 2 0 0 0\n"
	"OBJFILE:m.o 2 1 0 0 0x1 0\n"
	"PROC: p 0x5 3 0 0 1 0 0 0\n1 20\n2 60\n3 20\n"
	"PROC: s 0x8 1 0 0 2 0 0 0\n1 30\n"
	"OBJFILE:u.o 1 1 0 0 0x2 0\n"
	"PROC: r 0x9 1 0 0 1 0 0 0\n1 80\n";

static void test_cmp_equal(void)
{
	xp_fb *a = parse(text_a), *a2 = parse(text_a2);
	xp_cmp *c = NULL;
	if (!a || !a2)
		goto out;
	CHECK(xp_cmp_new(a, a2, &c) == XP_E_OK);
	if (!c)
		goto out;
	CHECK(xp_cmp_equal(c));
	CHECK(xp_cmp_total(c)->overlap == 1.0);
	CHECK_EQ(xp_cmp_total(c)->n_matched, 5);
	CHECK_EQ(xp_cmp_total(c)->n_differ, 0);
	CHECK_EQ(xp_cmp_n_procs(c), 3);
	CHECK_EQ(xp_cmp_n_notes(c), 0);
out:
	xp_cmp_free(c);
	xp_fb_free(a);
	xp_fb_free(a2);
}

static void test_cmp_differ(void)
{
	xp_fb *a = parse(text_a), *b = parse(text_b);
	xp_cmp *c = NULL;
	if (!a || !b)
		goto out;
	CHECK(xp_cmp_new(a, b, &c) == XP_E_OK);
	if (!c)
		goto out;
	CHECK(!xp_cmp_equal(c));
	const xp_cmp_entry *t = xp_cmp_total(c);
	CHECK_EQ_U64(t->sum_a, 190);
	CHECK_EQ_U64(t->sum_b, 210);
	/* Whole profile: p1 min(10/190, 20/210) = 10/190; p2 min(60/190,
	 * 60/210) = 60/210; p3 min(30/190, 20/210) = 20/210; r min(40/190,
	 * 80/210) = 40/190; q and s one-sided: 0. */
	CHECK(NEAR(t->overlap, 50.0 / 190 + 80.0 / 210));
	/* m.o: A 150, B 130: 10/150 + 60/150 + 20/130. */
	CHECK_EQ(xp_cmp_n_objfiles(c), 2);
	const xp_cmp_entry *m = xp_cmp_objfile(c, 0);
	CHECK_STR(m->objfile, "m.o");
	CHECK(NEAR(m->overlap, 70.0 / 150 + 20.0 / 130));
	CHECK(m->diff & XP_CMP_PROCS);
	const xp_cmp_entry *u = xp_cmp_objfile(c, 1);
	CHECK(u->overlap == 1.0);
	CHECK(u->diff & XP_CMP_SIGNATURE);
	/* Procedures in (object file, name) order: p, q, s, r. */
	CHECK_EQ(xp_cmp_n_procs(c), 4);
	const xp_cmp_entry *p = xp_cmp_proc(c, 0), *q = xp_cmp_proc(c, 1);
	const xp_cmp_entry *s = xp_cmp_proc(c, 2), *r = xp_cmp_proc(c, 3);
	CHECK_STR(p->name, "p");
	CHECK_STR(q->name, "q");
	CHECK_STR(s->name, "s");
	CHECK_STR(r->name, "r");
	CHECK(NEAR(p->overlap, 0.9));
	CHECK(p->diff == XP_CMP_COUNTERS);
	CHECK(q->in_a && !q->in_b && q->overlap == 0.0);
	CHECK(!s->in_a && s->in_b);
	CHECK(r->diff == (XP_CMP_SIGNATURE | XP_CMP_COUNTERS));
	CHECK(r->overlap == 1.0);
	CHECK(NEAR(xp_cmp_relative(r), 1.0));
	CHECK_EQ(t->n_matched, 4);
	CHECK_EQ(t->n_differ, 3);

	/* Rankings: only p and r are on both sides; p's sum is unchanged. */
	size_t *idx = NULL, n = 0;
	CHECK(xp_cmp_top(c, XP_RANK_ABSOLUTE, 10, &idx, &n) == XP_E_OK);
	CHECK_EQ(n, 1);
	if (n == 1)
		CHECK_EQ(idx[0], 3);
	free(idx);
	CHECK(xp_cmp_top(c, XP_RANK_OVERLAP, 10, &idx, &n) == XP_E_OK);
	CHECK_EQ(n, 1);
	if (n == 1)
		CHECK_EQ(idx[0], 0);
	free(idx);
	CHECK(xp_cmp_top(c, XP_RANK_OVERLAP, 0, &idx, &n) == XP_E_OK);
	CHECK_EQ(n, 0);
	free(idx);

	/* Counter listing of p: ids 1..3 on both sides. */
	xp_cmp_counter *v = NULL;
	CHECK(xp_cmp_counters(c, 0, &v, &n) == XP_E_OK);
	CHECK_EQ(n, 3);
	if (n == 3) {
		CHECK(v[0].id == 1 && v[0].a == 10 && v[0].b == 20);
		CHECK(v[2].id == 3 && v[2].a == 30 && v[2].b == 20);
	}
	free(v);
	/* Of q: A only. */
	CHECK(xp_cmp_counters(c, 1, &v, &n) == XP_E_OK);
	CHECK_EQ(n, 1);
	if (n == 1)
		CHECK(v[0].in_a && !v[0].in_b && v[0].a == 50 && v[0].b == 0);
	free(v);
out:
	xp_cmp_free(c);
	xp_fb_free(a);
	xp_fb_free(b);
}

static void test_relative(void)
{
	xp_cmp_entry e = {0};
	CHECK(xp_cmp_relative(&e) == 0.0);
	e.sum_b = 5;
	CHECK(isinf(xp_cmp_relative(&e)));
	e.sum_a = 10;
	CHECK(NEAR(xp_cmp_relative(&e), -0.5));
	e.sum_b = 0;
	CHECK(NEAR(xp_cmp_relative(&e), -1.0));
}

/* The order xp_cmp_top() documents, spelled out: larger key first, then
 * larger absolute change, then earlier entry. */
typedef struct {
	double key;
	uint64_t abs;
	size_t i;
} topref;

static int topref_cmp(const void *x, const void *y)
{
	const topref *a = x, *b = y;
	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	if (a->abs != b->abs)
		return a->abs > b->abs ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* Rankings of 300 procedures with many ties, for counts from 1 to more
 * than there are: each the start of the whole sorted list. */
static void test_cmp_top_many(void)
{
	enum { P = 300 };
	static char ta[P * 48 + 128], tb[P * 48 + 128];
	static topref all[P];
	uint64_t seed = 12345;
	size_t la, lb;

	la = (size_t)sprintf(ta, "PROFILE-FEEDBACK-DATA: 4.4 1 0 0 0\n"
	                         "OBJFILE:m.o %d 1 0 0 0x1 0\n", P);
	lb = (size_t)sprintf(tb, "%s", ta);
	for (int k = 0; k < P; k++) {
		/* Few values, so that keys and changes tie. */
		unsigned a1 = (unsigned)(unit_next(&seed) % 4),
		         a2 = (unsigned)(unit_next(&seed) % 3),
		         b1 = k % 7 == 0 ? a1 : (unsigned)(unit_next(&seed) % 4),
		         b2 = k % 5 == 0 ? a2 : (unsigned)(unit_next(&seed) % 3);
		la += (size_t)sprintf(ta + la, "PROC: p%03d 0x5 2 0 0 %d 0 0 0\n"
		                      "1 %u\n2 %u\n", k, k + 1, a1, a2);
		lb += (size_t)sprintf(tb + lb, "PROC: p%03d 0x5 2 0 0 %d 0 0 0\n"
		                      "1 %u\n2 %u\n", k, k + 1, b1, b2);
	}
	xp_fb *a = parse(ta), *b = parse(tb);
	xp_cmp *c = NULL;
	if (!a || !b || xp_cmp_new(a, b, &c) != XP_E_OK || !c) {
		CHECK(0);
		goto out;
	}
	CHECK_EQ(xp_cmp_n_procs(c), P);
	for (int by = XP_RANK_ABSOLUTE; by <= XP_RANK_OVERLAP; by++) {
		size_t k = 0;
		for (size_t i = 0; i < xp_cmp_n_procs(c); i++) {
			const xp_cmp_entry *e = xp_cmp_proc(c, i);
			uint64_t d = e->sum_b > e->sum_a ? e->sum_b - e->sum_a
			                                 : e->sum_a - e->sum_b;
			if (by == XP_RANK_OVERLAP ? e->overlap >= 1.0 : d == 0)
				continue;
			double key = by == XP_RANK_ABSOLUTE   ? 0
			             : by == XP_RANK_RELATIVE ? fabs(xp_cmp_relative(e))
			                                      : -e->overlap;
			all[k++] = (topref){key, d, i};
		}
		CHECK(k > 20 && k < P);
		qsort(all, k, sizeof *all, topref_cmp);
		static const size_t ns[] = {0, 1, 7, 64, 150, 299, 300, 1000};
		for (size_t m = 0; m < sizeof ns / sizeof ns[0]; m++) {
			size_t *idx = NULL, n = 0, want = ns[m] < k ? ns[m] : k;
			CHECK(xp_cmp_top(c, (xp_cmp_rank)by, ns[m], &idx, &n) ==
			      XP_E_OK);
			CHECK_EQ(n, want);
			for (size_t j = 0; j < n && j < want; j++)
				CHECK_EQ(idx[j], all[j].i);
			free(idx);
		}
	}
out:
	xp_cmp_free(c);
	xp_fb_free(a);
	xp_fb_free(b);
}

static void test_summary(void)
{
	xp_fb *a = parse(text_a);
	xp_summary *s = NULL;
	if (!a)
		return;
	CHECK(xp_summary_new(a, 2, &s) == XP_E_OK);
	if (s) {
		const xp_totals *t = xp_summary_totals(s);
		CHECK_EQ_U64(t->sum, 190);
		CHECK_EQ_U64(t->max, 60);
		CHECK_EQ(t->n_procs, 3);
		CHECK_EQ(t->n_counters, 5);
		CHECK_EQ(xp_summary_n_hot_procs(s), 2);
		CHECK_STR(xp_summary_hot_proc(s, 0)->name, "p");
		CHECK_STR(xp_summary_hot_proc(s, 1)->name, "q");
		/* No block records: no hot blocks. */
		CHECK_EQ(xp_summary_n_hot_blocks(s), 0);
		/* Procedure sums 100, 50, 40: 90% of 190 needs all three;
		 * counters 60, 50, 40, 30, 10 need four. */
		CHECK_EQ(xp_summary_n_covers(s), 3);
		const xp_cover *cv = xp_summary_cover(s, 0);
		CHECK_EQ(cv->cutoff_ppm, 900000);
		CHECK_EQ(cv->n_procs, 3);
		CHECK_EQ_U64(cv->min_proc_sum, 40);
		CHECK_EQ(cv->n_counters, 4);
		CHECK_EQ_U64(cv->min_count, 30);
		/* 50% of procedure sums: 100 of 190 reaches 95. */
		CHECK_EQ(xp_cover_count((uint64_t[]){100, 50, 40}, 3, 500000,
		                        NULL), 1);
	}
	xp_summary_free(s);
	xp_fb_free(a);
}

/* The summary of the 10 hottest of a feedback text, NULL when it cannot
 * be made; *fb is the profile (NULL when the text is refused), to be
 * freed after the summary. */
static xp_summary *summarize(const char *text, xp_fb **fb)
{
	xp_summary *s = NULL;

	*fb = parse(text);
	if (*fb != NULL)
		CHECK(xp_summary_new(*fb, 10, &s) == XP_E_OK);
	return s;
}

/* Ties are broken by name: equal sums list in byte-wise name order. */
static void test_summary_ties(void)
{
	static const char text[] =
		"PROFILE-FEEDBACK-DATA: 4.4 1 0 0 0\n"
		"OBJFILE:x.o 3 1 0 0 0x1 0\n"
		"PROC: zz 0x5 1 0 0 1 1 0 0\n1 7\nB1: 1\n"
		"PROC: aa 0x5 1 0 0 2 1 0 0\n1 7\nB1: 1\n"
		"PROC: mm 0x5 1 0 0 3 1 0 0\n1 7\nB1: 1\n";
	xp_fb *fb;
	xp_summary *s = summarize(text, &fb);
	if (s) {
		CHECK_EQ(xp_summary_n_hot_procs(s), 3);
		CHECK_STR(xp_summary_hot_proc(s, 0)->name, "aa");
		CHECK_STR(xp_summary_hot_proc(s, 1)->name, "mm");
		CHECK_STR(xp_summary_hot_proc(s, 2)->name, "zz");
		CHECK_EQ(xp_summary_n_hot_blocks(s), 3);
		CHECK_STR(xp_summary_hot_block(s, 0)->proc, "aa");
		CHECK_EQ(xp_summary_hot_block(s, 0)->line, 0);
		CHECK(xp_summary_hot_block(s, 0)->srcfile == NULL);
	}
	xp_summary_free(s);
	xp_fb_free(fb);
}

/* Blocks find their counters by id when the counters are out of order. */
static void test_summary_block_ids(void)
{
	static const char text[] =
		"PROFILE-FEEDBACK-DATA: 4.4 1 0 0 0\n"
		"OBJFILE:x.o 2 1 0 0 0x1 0\n"
		"PROC: p 0x5 4 0 0 1 4 0 0\n3 30\n1 10\n4 5\n2 60\n"
		"B1: 1\nB2: 2\nB3: 3\nB4: 0\n"
		"PROC: q 0x5 2 0 0 2 2 0 0\n2 20\n1 40\nB1: 2\nB2: 1\n";
	static const struct {
		const char *proc;
		uint32_t block;
		uint64_t count;
	} want[] = {{"p", 2, 60}, {"q", 2, 40}, {"p", 3, 30}, {"q", 1, 20},
	            {"p", 1, 10}};
	xp_fb *fb;
	xp_summary *s = summarize(text, &fb);
	if (s) {
		CHECK_EQ(xp_summary_n_hot_blocks(s), 5);
		for (size_t i = 0; i < 5 && i < xp_summary_n_hot_blocks(s); i++) {
			const xp_sum_block *b = xp_summary_hot_block(s, i);
			CHECK_STR(b->proc, want[i].proc);
			CHECK_EQ(b->block, want[i].block);
			CHECK_EQ_U64(b->count, want[i].count);
		}
	}
	xp_summary_free(s);
	xp_fb_free(fb);
}

static int desc_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a < b) - (a > b);
}

/* A value of distribution kind for the covers test. */
static uint64_t cover_value(int kind, uint64_t *rs)
{
	uint64_t r = unit_next(rs);

	switch (kind) {
	case 0: /* any magnitude, a tenth zeros */
		return r % 10 == 0 ? 0 : unit_next(rs) >> (r % 64);
	case 1: /* all equal */
		return 1;
	case 2: /* a narrow band: one bucket, differing in low bits */
		return 1000000 + r % 7;
	case 3: /* near 2^64: procedure sums saturate */
		return UINT64_MAX - r % 1000;
	case 4: /* a few huge among many small */
		return r % 1000 == 0 ? (uint64_t)1 << 50 : r % 300;
	case 5: /* one large value over and over */
		return (uint64_t)3 << 40;
	default: /* values that share their top bits, with ties */
		return ((uint64_t)1 << 62) + (r % 5) * ((uint64_t)1 << 20) +
		       r % 3;
	}
}

/*
 * The covers of a summary, found without sorting, against sorting every
 * count and xp_cover_count(), on profiles of many counters whose values
 * fall in few or many buckets of the selection.
 */
static void test_summary_covers(void)
{
	enum { NPROC = 300, MAXCNT = 60 };
	uint64_t rs = 0x9e3779b97f4a7c15u;

	for (int kind = 0; kind <= 6; kind++) {
		xp_fbb *b = xp_fbb_new(XP_DT_FEEDBACK, 4, 0);
		uint64_t *vals = malloc(NPROC * MAXCNT * sizeof *vals);
		uint64_t psums[NPROC];
		size_t nv = 0;
		xp_objfile o = {0};
		xp_fb *fb = NULL;
		xp_summary *s = NULL;
		int e = 0;

		if (!b || !vals) {
			CHECK(0);
			xp_fbb_free(b);
			free(vals);
			return;
		}
		o.path = unit_str(b, "c.o");
		e |= xp_fbb_begin_objfile(b, &o);
		for (uint32_t i = 0; i < NPROC; i++) {
			char name[32];
			xp_proc p = {0};
			uint32_t n = (uint32_t)(unit_next(&rs) % MAXCNT);

			snprintf(name, sizeof name, "p%u", i);
			p.name = unit_str(b, name);
			p.proc_id = i + 1;
			e |= xp_fbb_begin_proc(b, &p);
			psums[i] = 0;
			for (uint32_t j = 0; j < n; j++) {
				uint64_t v = cover_value(kind, &rs);
				e |= xp_fbb_add_counter(b, j + 1, v);
				psums[i] = psums[i] + v < psums[i] ? UINT64_MAX
				                                   : psums[i] + v;
				if (v != 0)
					vals[nv++] = v;
			}
		}
		CHECK(e == 0);
		CHECK(xp_fbb_finish(b, &fb) == XP_E_OK);
		if (fb != NULL)
			CHECK(xp_summary_new(fb, 10, &s) == XP_E_OK);
		qsort(vals, nv, sizeof *vals, desc_u64);
		qsort(psums, NPROC, sizeof *psums, desc_u64);
		for (size_t i = 0; s != NULL && i < xp_summary_n_covers(s); i++) {
			const xp_cover *cv = xp_summary_cover(s, i);
			uint64_t min;

			CHECK_EQ_U64(cv->n_counters,
			             xp_cover_count(vals, nv, cv->cutoff_ppm, &min));
			CHECK_EQ_U64(cv->min_count, min);
			CHECK_EQ_U64(cv->n_procs, xp_cover_count(psums, NPROC,
			                                         cv->cutoff_ppm,
			                                         &min));
			CHECK_EQ_U64(cv->min_proc_sum, min);
		}
		xp_summary_free(s);
		xp_fb_free(fb);
		xp_fbb_free(b);
		free(vals);
	}
}

int main(void)
{
	RUN(test_overlap);
	RUN(test_overlap_exact);
	RUN(test_overlap_text);
	RUN(test_cover);
	RUN(test_relative);
	RUN(test_cmp_equal);
	RUN(test_cmp_differ);
	RUN(test_cmp_top_many);
	RUN(test_summary);
	RUN(test_summary_ties);
	RUN(test_summary_covers);
	RUN(test_summary_block_ids);
	return unit_done();
}
