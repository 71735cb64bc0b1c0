/*
 * fmt.c - unit tests of the float formatting of the text forms
 * (lib/base/numfmt.c): xp_fmt_double and xp_fmt_float must give the %g text of
 * the smallest precision that reads back to the same bits.  Checked
 * against a plain search over every precision, for chosen values
 * (subnormals, powers of ten, the largest and smallest) and for many
 * random bit patterns, and for the values that short decimals read back
 * to, and for the normal values that are printed from the shortest
 * decimal in their rounding interval, both without printf.  Integers (xp_fmt_u64,
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

/*
 * Normal values whose significand is no power of 2 are printed without
 * printf, from the shortest decimal in their rounding interval: at the
 * ends of the exponent range, next to powers of 2, with few and with
 * all significand bits, and at random.
 */
static void test_exact(void)
{
	static const double d[] = {
		2.2250738585072019e-308, 4.4501477170144023e-308,
		1.7976931348623155e308, 1.7976931348623157e308,
		9007199254740991.0, 9007199254740994.0, 1e308, 1e-307,
		-1.2346032067294202e+103, 4.9406564584124654e-308,
		0.30000000000000004, 2.9999999999999996, 123456789012345680.0,
	};
	static const float f[] = {
		1.1754945e-38f, 1.1754946e-38f, 3.4028233e38f, 3.4028235e38f,
		3.2555567e-20f, 16777215.0f, 16777218.0f, 0.1f, 1e-37f,
	};
	for (size_t i = 0; i < sizeof d / sizeof *d; i++) {
		CHECK(same_double(d[i]));
		CHECK(same_double(nextafter(d[i], 0)));
		CHECK(same_double(-nextafter(d[i], INFINITY)));
	}
	for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
		CHECK(same_float(f[i]));
		CHECK(same_float(nextafterf(f[i], 0)));
		CHECK(same_float(-nextafterf(f[i], INFINITY)));
	}
	/* Next to every power of 2 of every exponent. */
	int bad = 0;
	for (int x = -1021; x <= 1023 && bad < 5; x += 3) {
		double p2 = ldexp(1.0, x);
		bad += !same_double(nextafter(p2, INFINITY));
		bad += !same_double(nextafter(p2, 0));
	}
	for (int x = -125; x <= 127 && bad < 5; x++) {
		float p2 = ldexpf(1.0f, x);
		bad += !same_float(nextafterf(p2, INFINITY));
		bad += !same_float(nextafterf(p2, 0));
	}
	/* Random normal values, some with their low significand bits
	 * cleared (short decimals) or set. */
	uint64_t s = 20261126;
	for (int i = 0; i < 60000 && bad < 5; i++) {
		uint64_t bits = next(&s);
		uint32_t fbits = (uint32_t)next(&s);
		int cut = (int)(next(&s) % 52);
		if (i % 3 == 1) {
			bits &= ~((1ull << cut) - 1);
			fbits &= ~((1u << cut % 23) - 1);
		} else if (i % 3 == 2) {
			bits |= (1ull << cut) - 1;
			fbits |= (1u << cut % 23) - 1;
		}
		double v;
		float fl;
		memcpy(&v, &bits, sizeof v);
		memcpy(&fl, &fbits, sizeof fl);
		if (isfinite(v) && !same_double(v))
			bad++;
		if (isfinite(fl) && !same_float(fl))
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
	RUN(test_exact);
	return unit_done();
}
