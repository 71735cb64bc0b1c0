/*
 * fmt.c - unit tests of the float formatting of the text forms
 * (lib/base/numfmt.c): xp_fmt_double and xp_fmt_float must give the %g text of
 * the smallest precision that reads back to the same bits.  Checked
 * against a plain search over every precision, for chosen values
 * (subnormals, powers of ten, the largest and smallest) and for many
 * random bit patterns, and for the values that short decimals read back
 * to, which are printed without printf.  Integers (xp_fmt_u64,
 * xp_fmt_i64) are checked against printf around every power of ten and
 * at random.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "base/internal.h"
#include "unit.h"

/* The plain search: precisions 1, 2, ... until one reads back. */
static void shortest(char *out, size_t cap, double v, int is_float)
{
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(out, cap, "%.*g", prec, v);
		if (is_float) {
			float b = strtof(out, NULL), f = (float)v;
			if (memcmp(&b, &f, sizeof f) == 0)
				return;
		} else {
			double b = strtod(out, NULL);
			if (memcmp(&b, &v, sizeof v) == 0)
				return;
		}
	}
}

static int same_double(double v)
{
	char want[64], got[64];
	shortest(want, sizeof want, v, 0);
	got[xp_fmt_double(got, v)] = '\0';
	if (strcmp(want, got) != 0)
		printf("  %a: %s, want %s\n", v, got, want);
	return strcmp(want, got) == 0;
}

static int same_float(float v)
{
	char want[64], got[64];
	shortest(want, sizeof want, v, 1);
	got[xp_fmt_float(got, v)] = '\0';
	if (strcmp(want, got) != 0)
		printf("  %a: %s, want %s\n", (double)v, got, want);
	return strcmp(want, got) == 0;
}

static uint64_t next(uint64_t *s)
{
	/* splitmix64 */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void test_chosen(void)
{
	static const double d[] = {
		0.0, -0.0, 1.0, 0.1, 0.3, 1e23, 9007199254740993.0, 1200.0,
		177.197, -736.625, 5e-324, -4.9406564584124654e-324,
		2.2250738585072014e-308, 2.2250738585072009e-308, 1e-310,
		1.7976931348623157e308, 123456789012345678.0, 1e15, 1e16,
		1e17, 0.000123, 3.0e-5,
		/* Ties at a shorter precision: printf decides. */
		123456789012345.5, -1234567890123456.5, 0.1234567890123455,
	};
	static const float f[] = {
		0.0f, 1.0f, 0.1f, 3.4028235e38f, 1.17549435e-38f, 1e-45f,
		1.4e-45f, 5.8774718e-39f, -9.860335e-27f, 16777217.0f, 100.0f,
		0.3f, 1234567.5f, -12345.6875f,
	};
	for (size_t i = 0; i < sizeof d / sizeof *d; i++)
		CHECK(same_double(d[i]));
	for (size_t i = 0; i < sizeof f / sizeof *f; i++)
		CHECK(same_float(f[i]));
}

static void test_random(void)
{
	uint64_t s = 20261121;
	int bad = 0;

	for (int i = 0; i < 40000 && bad < 5; i++) {
		uint64_t bits = next(&s);
		uint32_t fbits = (uint32_t)next(&s);
		double v;
		float f;
		/* Every other value subnormal or small, where the rule is
		 * different. */
		if (i & 1)
			bits &= 0x800fffffffffffffull;
		if (i & 2)
			fbits &= 0x807fffffu;
		memcpy(&v, &bits, sizeof v);
		memcpy(&f, &fbits, sizeof f);
		if (!isnan(v) && !isinf(v) && !same_double(v))
			bad++;
		if (!isnan(f) && !isinf(f) && !same_float(f))
			bad++;
	}
	CHECK(bad == 0);
}

/* The text of v, and no byte written past the number's eighth (or
 * its last when it is longer). */
static int same_u64(uint64_t v)
{
	char want[32], got[32];
	snprintf(want, sizeof want, "%" PRIu64, v);
	memset(got, '#', sizeof got);
	size_t n = xp_fmt_u64(got, v);
	for (size_t i = n > 8 ? n : 8; i < sizeof got; i++)
		if (got[i] != '#') {
			printf("  %s: byte %zu written\n", want, i);
			return 0;
		}
	got[n] = '\0';
	if (strcmp(want, got) != 0)
		printf("  %s, want %s\n", got, want);
	return strcmp(want, got) == 0;
}

static int same_i64(int64_t v)
{
	char want[32], got[32];
	snprintf(want, sizeof want, "%" PRId64, v);
	got[xp_fmt_i64(got, v)] = '\0';
	return strcmp(want, got) == 0;
}

static void test_integers(void)
{
	uint64_t p = 1, s = 7;

	CHECK(same_u64(0));
	CHECK(same_u64(UINT32_MAX));
	CHECK(same_u64((uint64_t)UINT32_MAX + 1));
	CHECK(same_u64(UINT64_MAX));
	CHECK(same_i64(INT64_MIN));
	CHECK(same_i64(-1));
	for (int k = 0; k < 20; k++, p *= 10) {
		CHECK(same_u64(p - 1));
		CHECK(same_u64(p));
		CHECK(same_u64(p + 1));
	}
	for (int i = 0; i < 100000; i++) {
		uint64_t v = next(&s) >> (next(&s) % 64);
		CHECK(same_u64(v));
		CHECK(same_i64((int64_t)v));
	}
}

/*
 * Values that short decimals read back to, m / 10^k (and m * 10^k),
 * which are printed without printf: every number of digits and every
 * exponent form, up to the limits of 15 digits (6 for a float).
 */
static void test_short_decimals(void)
{
	uint64_t s = 4242;
	int bad = 0;

	for (int i = 0; i < 200000 && bad < 5; i++) {
		int digits = 1 + (int)(next(&s) % 17), k = (int)(next(&s) % 30);
		uint64_t m = next(&s) % 100000000000000000ull, p = 1;
		for (int j = 0; j < digits; j++)
			p *= 10;
		m %= p;
		double v = (double)m, t = 1;
		for (int j = 0; j < k; j++)
			t *= 10;
		v = (i & 1) ? v / t : v * t;
		if (i & 2)
			v = -v;
		if (!same_double(v) || !same_float((float)v))
			bad++;
	}
	CHECK(bad == 0);
	CHECK(same_double(999999999999999.0));
	CHECK(same_double(99999999999999.9));
	CHECK(same_double(0.000999999999999999));
	CHECK(same_double(1e-22));
	CHECK(same_double(1.5e-23));
	CHECK(same_float(999999.0f));
	CHECK(same_float(9999999.0f));
	CHECK(same_float(1e-10f));
	CHECK(same_float(-0.0f));
}

int main(void)
{
	RUN(test_integers);
	RUN(test_chosen);
	RUN(test_random);
	RUN(test_short_decimals);
	return unit_done();
}
