/*
 * base/numfmt.c - number formatting and float parsing for the text forms.
 *
 * Integers are formatted by hand (looked up below 1000, eight digits at
 * a time above, internal.h) because writing text is dominated by them.
 * Floats are written as the shortest %g text that reads back to the same
 * bits: short decimals and normal values whose significand is no power
 * of 2 are found with integer arithmetic (the powers of ten it needs are
 * a table made at build time, build-aux/genpow10.c), the others with
 * printf and strtod.  They are read with strtof/strtod under the "C"
 * locale so that a program that called setlocale() still reads and
 * writes '.' as the decimal point.
 */
#include <errno.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/internal.h"

#include "pow10_table.h"

/* The entry of xp_digits3 for v < 1000. */
#define D3(v)                                                             \
	((v) < 10 ? (uint32_t)('0' + (v)) | 1u << 24                      \
	 : (v) < 100 ? (uint32_t)('0' + (v) / 10) |                       \
	                   (uint32_t)('0' + (v) % 10) << 8 | 2u << 24     \
	 : (uint32_t)('0' + (v) / 100) |                                  \
	       (uint32_t)('0' + (v) / 10 % 10) << 8 |                     \
	       (uint32_t)('0' + (v) % 10) << 16 | 3u << 24)
#define D3x10(v)                                                          \
	D3(v), D3((v) + 1), D3((v) + 2), D3((v) + 3), D3((v) + 4),        \
	D3((v) + 5), D3((v) + 6), D3((v) + 7), D3((v) + 8), D3((v) + 9)
#define D3x100(v)                                                         \
	D3x10(v), D3x10((v) + 10), D3x10((v) + 20), D3x10((v) + 30),      \
	D3x10((v) + 40), D3x10((v) + 50), D3x10((v) + 60),                \
	D3x10((v) + 70), D3x10((v) + 80), D3x10((v) + 90)

const uint32_t xp_digits3[1000] = {
	D3x100(0), D3x100(100), D3x100(200), D3x100(300), D3x100(400),
	D3x100(500), D3x100(600), D3x100(700), D3x100(800), D3x100(900),
};

size_t xp_fmt_u64_big(char *p, uint64_t v)
{
	/* Blocks of eight digits below a head of at most four (v < 2^64 has
	 * at most 20 digits); only the head drops its leading zeros. */
	uint64_t head = v / 100000000;
	uint32_t lo = (uint32_t)(v % 100000000);
	size_t n;

	if (head < 100000000) {
		n = xp_fmt_upto8(p, (uint32_t)head);
	} else {
		n = xp_fmt_upto8(p, (uint32_t)(head / 100000000));
		xp_put_le64((unsigned char *)p + n,
		            xp_digits8((uint32_t)(head % 100000000)) +
		            0x3030303030303030u);
		n += 8;
	}
	xp_put_le64((unsigned char *)p + n,
	            xp_digits8(lo) + 0x3030303030303030u);
	return n + 8;
}

size_t xp_fmt_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p = '-';
		return 1 + xp_fmt_u64(p + 1, (uint64_t)0 - (uint64_t)v);
	}
	return xp_fmt_u64(p, (uint64_t)v);
}

size_t xp_fmt_hex64(char *p, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	int n = 1;
	while (n < 16 && (v >> (4 * n)))
		n++;
	for (int i = 0; i < n; i++)
		p[i] = hex[(v >> (4 * (n - 1 - i))) & 15];
	return (size_t)n;
}

/*
 * Runs under the "C" locale for the calling thread only, and restores
 * the thread's locale afterwards.  The whole "C" locale is asked for
 * because the C library hands that one out without making anything.
 * When no locale object can be had the current locale is used.
 */
typedef struct {
	locale_t c, old;
} clocale_guard;

static void c_locale_enter(clocale_guard *g)
{
	g->c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	g->old = g->c ? uselocale(g->c) : (locale_t)0;
}

static void c_locale_leave(clocale_guard *g)
{
	if (g->c) {
		uselocale(g->old);
		freelocale(g->c);
	}
}

static size_t fmt_special(char *p, double v)
{
	const char *s = isnan(v) ? (signbit(v) ? "-nan" : "nan")
	                         : (signbit(v) ? "-inf" : "inf");
	size_t n = strlen(s);
	memcpy(p, s, n);
	return n;
}

/* Number of significant digits in %g output (its mantissa's digits,
 * leading zeros not counted; trailing ones too when notrail). */
static int sig_digits(const char *s, int notrail)
{
	int n = 0, lead = 1, zeros = 0;
	for (; *s && *s != 'e'; s++) {
		if (*s < '0' || *s > '9')
			continue;
		if (lead && *s == '0')
			continue;
		lead = 0;
		n++;
		zeros = *s == '0' ? zeros + 1 : 0;
	}
	if (notrail)
		n -= zeros;
	return n ? n : 1;
}

/* Whether the text s reads back to exactly v (a float when is_float). */
static int reads_back(const char *s, double v, int is_float)
{
	if (is_float) {
		float back = strtof(s, NULL), f = (float)v;
		return memcmp(&back, &f, sizeof f) == 0;
	}
	double back = strtod(s, NULL);
	return memcmp(&back, &v, sizeof v) == 0;
}

/* Prints v with precision prec into tmp; returns 1 when it reads back to
 * the same bits (float when is_float). */
static int round_trips(char *tmp, size_t cap, int prec, double v, int is_float)
{
	snprintf(tmp, cap, "%.*g", prec, v);
	return reads_back(tmp, v, is_float);
}

/*
 * The smallest precision whose %g text reads back to exactly v.  Printed
 * with the full precision (9 digits for a float, 17 for a double) every
 * value reads back, and whether a precision reads back is monotonic in
 * the precision.
 *
 * For a normal value the text at the guaranteed precision (6 digits for
 * a float, 15 for a double) settles it when it reads back: the value's
 * rounding interval is narrower than the gap between decimals of that
 * many digits, so the shortest text that reads back is that one without
 * its trailing zeros.  When it does not, the answer lies above it.
 * Subnormal values have wider intervals and are found by bisection.
 */
static int shortest_prec(char *tmp, size_t cap, double v, int is_float)
{
	const int full = is_float ? 9 : 17, dig = is_float ? 6 : 15;
	const double min_normal = is_float ? FLT_MIN : DBL_MIN;

	if (v == 0 || fabs(v) >= min_normal) {
		if (round_trips(tmp, cap, dig, v, is_float))
			return sig_digits(tmp, 1);
		for (int prec = dig + 1; prec < full; prec++)
			if (round_trips(tmp, cap, prec, v, is_float))
				return prec;
		return full;
	}
	snprintf(tmp, cap, "%.*g", full, v);
	int lo = 1, hi = sig_digits(tmp, 0);
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (round_trips(tmp, cap, mid, v, is_float))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * The %g text of the decimal (neg ? -1 : 1) * m / 10^k with precision
 * its number of significant digits (m > 0).
 */
static size_t put_decimal(char *p, int neg, uint64_t m, int k)
{
	char d[24], *q = p;

	while (m % 10 == 0) {
		m /= 10;
		k--;
	}
	int n = (int)xp_fmt_u64(d, m), x = n - 1 - k;   /* x: the exponent */

	if (neg)
		*q++ = '-';
	if (x < -4 || x >= n) {
		*q++ = d[0];
		if (n > 1) {
			*q++ = '.';
			memcpy(q, d + 1, (size_t)n - 1);
			q += n - 1;
		}
		*q++ = 'e';
		*q++ = x < 0 ? '-' : '+';
		x = x < 0 ? -x : x;
		if (x < 10)
			*q++ = '0';
		q += xp_fmt_u64(q, (uint64_t)x);
	} else if (x < 0) {
		memcpy(q, "0.0000", (size_t)(1 - x));
		q += 1 - x;
		memcpy(q, d, (size_t)n);
		q += n;
	} else {
		memcpy(q, d, (size_t)x + 1);
		q += x + 1;
		if (n > x + 1) {
			*q++ = '.';
			memcpy(q, d + x + 1, (size_t)(n - x - 1));
			q += n - x - 1;
		}
	}
	return (size_t)(q - p);
}

/*
 * The usual values, those that a decimal of at most 15 significant
 * digits (6 for a float) reads back to, without printf: 0.5, -736.625,
 * 123.456.  Two such decimals lie further apart than the values that
 * read back to one double (float), so the one that reads back is the
 * only one, has the smallest precision, and is what %g prints at that
 * precision.  It is m / 10^k for the first k at which m, the integer
 * nearest to |v| * 10^k, reads back; m and 10^k (k <= 22, 10 for a
 * float) are exact, so that their quotient, rounded once, is what
 * strtod (strtof) makes of the decimal.  Returns 0 when v is not such a
 * value.
 */
static size_t fmt_short(char *p, double v, int is_float)
{
#if FLT_EVAL_METHOD == 0
	static const double pow10[23] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21,
		1e22,
	};
	const double lim = is_float ? 1e6 : 1e15;
	const int kmax = is_float ? 10 : 22;
	double a = fabs(v);

	if (v == 0) {
		memcpy(p, "-0", 2);
		return signbit(v) ? 2 : (*p = '0', 1);
	}
	for (int k = 0; k <= kmax; k++) {
		double t = a * pow10[k];
		if (t >= lim)
			break;
		/* t + 0.5 is exact below 2^51. */
		uint64_t m = (uint64_t)(t + 0.5);
		if (m == 0)
			continue;
		if (is_float ? (float)m / (float)pow10[k] == (float)a
		             : (double)m / pow10[k] == a)
			return put_decimal(p, signbit(v) != 0, m, k);
	}
#else
	(void)p, (void)v, (void)is_float;
#endif
	return 0;
}

/*
 * The other normal values, with one snprintf: v's digits at the full
 * precision (%e), rounded by hand to each precision from the guaranteed
 * one up until the decimal reads back, as shortest_prec searches.
 * Rounding the printed digits to fewer gives what printf would, unless
 * the digits dropped are a 5 and zeros: v may then lie on either side
 * of the tie, and 0 is returned for printf to decide.  The text is
 * printed with as many digits as it has, as %g prints it at the
 * precision found: at the guaranteed one without its trailing zeros,
 * above it there are none (the decimal would have read back one
 * precision lower).  Runs under the "C" locale.
 */
static size_t fmt_rounded(char *p, double v, int is_float)
{
	const int full = is_float ? 9 : 17, dig = is_float ? 6 : 15;
	char e[40], txt[40];
	int neg = signbit(v) != 0;

	/* e: "d.dd...de[+-]x", full digits. */
	snprintf(e, sizeof e, "%.*e", full - 1, fabs(v));
	char d[17];
	d[0] = e[0];
	memcpy(d + 1, e + 2, (size_t)full - 1);
	const char *q = e + full + 2;
	int x = 0, xneg = *q++ == '-';
	while (*q >= '0' && *q <= '9')
		x = 10 * x + (*q++ - '0');
	if (xneg)
		x = -x;

	uint64_t m = 0;
	for (int i = 0; i < dig; i++)
		m = 10 * m + (uint64_t)(d[i] - '0');
	for (int prec = dig; prec < full; prec++) {
		int rest = 0;
		for (int i = prec + 1; i < full; i++)
			rest |= d[i] != '0';
		if (d[prec] == '5' && !rest)
			return 0;
		size_t n = put_decimal(txt, neg, m + (d[prec] >= '5'),
		                       prec - 1 - x);
		txt[n] = '\0';
		if (reads_back(txt, v, is_float)) {
			memcpy(p, txt, n);
			return n;
		}
		m = 10 * m + (uint64_t)(d[prec] - '0');
	}
	return put_decimal(p, neg, m, full - 1 - x);
}

/* floor(x / 2^s), also for x < 0. */
static inline int floor_shr(int64_t x, int s)
{
	return (int)(x >= 0 ? x >> s : -((-x + ((int64_t)1 << s) - 1) >> s));
}

/* floor(q log10 2) and floor(e log2 10) for the exponents of doubles,
 * in fixed point (build-aux/genpow10.c checks them for each). */
static inline int flog10pow2(int q)
{
	return floor_shr((int64_t)q * 661971961083, 41);
}

static inline int flog2pow10(int e)
{
	return floor_shr((int64_t)e * 913124641741, 38);
}

/*
 * g * cp / 2^127 for g = g1 * 2^63 + g0 (g0, cp below 2^63), rounded
 * down, with the lowest bit set when the bits dropped are not all 0.
 */
static inline uint64_t rop(uint64_t g1, uint64_t g0, uint64_t cp)
{
	const uint64_t m63 = ((uint64_t)1 << 63) - 1;
	unsigned __int128 x = (unsigned __int128)g0 * cp;
	unsigned __int128 y = (unsigned __int128)g1 * cp;
	uint64_t z = ((uint64_t)y >> 1) + (uint64_t)(x >> 64);
	uint64_t vbp = (uint64_t)(y >> 64) + (z >> 63);

	return vbp | (((z & m63) + m63) >> 63);
}

/*
 * The shortest decimal m * 10^e that reads back to c * 2^q, for the
 * significand c (hidden bit included, not a power of 2) and exponent q
 * of a normal double or float: Giulietti's Schubfach.  With
 * k = floor(q log10 2), the value and the two ends of its rounding
 * interval (half an ulp either side, included when c is even, as a
 * reader rounds ties to even) are computed times 10^-k in fixed point
 * with two fractional bits, from the table's 10^-k rounded up to 126
 * bits.  The interval holds at most one multiple of 10^(k+1); when it
 * holds one, that is the answer (its trailing zeros go when it is
 * printed), and otherwise the one or two multiples of 10^k around the
 * value that it holds, the nearer of two, ties to the even one.  When c
 * is no power of 2, the interval is symmetric, so the answer is also
 * what rounding the value to as many significant digits gives, as %g
 * does.
 */
static uint64_t schubfach(uint64_t c, int q, int *e)
{
	int out = (int)(c & 1);
	uint64_t cb = c << 2, cbr = cb + 2, cbl = cb - 2;
	int k = flog10pow2(q);
	int h = q + flog2pow10(-k) + 2;
	const uint64_t *g = xp_pow10_g[k - XP_POW10_KMIN];
	uint64_t vb = rop(g[0], g[1], cb << h);
	uint64_t vbl = rop(g[0], g[1], cbl << h);
	uint64_t vbr = rop(g[0], g[1], cbr << h);
	uint64_t s = vb >> 2;

	*e = k;
	if (s >= 100) {
		uint64_t sp10 = s / 10 * 10, tp10 = sp10 + 10;
		int upin = vbl + out <= sp10 << 2;
		int wpin = (tp10 << 2) + out <= vbr;
		if (upin != wpin)
			return upin ? sp10 : tp10;
	}
	uint64_t t = s + 1;
	int uin = vbl + out <= s << 2;
	int win = (t << 2) + out <= vbr;
	if (uin != win)
		return uin ? s : t;
	uint64_t mid = (s + t) << 1;
	return vb < mid || (vb == mid && (s & 1) == 0) ? s : t;
}

/*
 * The shortest text of a normal v whose significand is not a power of 2,
 * without printf; 0 for the other values (subnormal, or a power of 2,
 * whose rounding interval is wider above than below, so that the
 * shortest decimal in it need not be what %g rounds to).
 */
static size_t fmt_exact(char *p, double v, int is_float)
{
	uint64_t c;
	int q, bq, e;

	if (is_float) {
		float f = (float)v;
		uint32_t bits;
		memcpy(&bits, &f, sizeof bits);
		bq = (int)(bits >> 23 & 0xff);
		c = bits & 0x7fffff;
		if (bq == 0 || c == 0)
			return 0;
		c |= (uint64_t)1 << 23;
		q = bq - 150;
	} else {
		uint64_t bits;
		memcpy(&bits, &v, sizeof bits);
		bq = (int)(bits >> 52 & 0x7ff);
		c = bits & (((uint64_t)1 << 52) - 1);
		if (bq == 0 || c == 0)
			return 0;
		c |= (uint64_t)1 << 52;
		q = bq - 1075;
	}
	uint64_t m = schubfach(c, q, &e);
	return put_decimal(p, signbit(v) != 0, m, -e);
}

/* The shortest %g text that reads back to exactly v. */
static size_t fmt_shortest(char *p, double v, int is_float)
{
	/* %g output is at most 24 bytes at these precisions; the buffer is
	 * sized for what the compiler cannot know. */
	char tmp[320];
	size_t n = fmt_short(p, v, is_float);
	if (n != 0)
		return n;
	if ((n = fmt_exact(p, v, is_float)) != 0)
		return n;
	clocale_guard g;
	c_locale_enter(&g);
	if (fabs(v) >= (is_float ? FLT_MIN : DBL_MIN))
		n = fmt_rounded(p, v, is_float);
	if (n == 0) {
		n = (size_t)snprintf(tmp, sizeof tmp, "%.*g",
		                     shortest_prec(tmp, sizeof tmp, v, is_float),
		                     v);
		memcpy(p, tmp, n);
	}
	c_locale_leave(&g);
	return n;
}

size_t xp_fmt_float(char *p, float v)
{
	if (isnan(v) || isinf(v))
		return fmt_special(p, v);
	return fmt_shortest(p, (double)v, 1);
}

size_t xp_fmt_double(char *p, double v)
{
	if (isnan(v) || isinf(v))
		return fmt_special(p, v);
	return fmt_shortest(p, v, 0);
}

size_t xp_fmt_fixed01(char *p, double v, int d)
{
	static const uint64_t pow10[18] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
		1000000000, 10000000000, 100000000000, 1000000000000,
		10000000000000, 100000000000000, 1000000000000000,
		10000000000000000, 100000000000000000};
	int ex;
	double f = frexp(v, &ex);                 /* v = f * 2^ex */
	uint64_t m = (uint64_t)ldexp(f, 53), q = 0; /* v = m * 2^(ex-53) */
	int s = 53 - ex;
	char frac[24];

	/* m * 10^d is below 2^110; from s = 128 on (v below 2^-75) it is
	 * below half a unit of the last decimal: 0. */
	if (m != 0 && s < 128) {
		unsigned __int128 n = (unsigned __int128)m * pow10[d];
		unsigned __int128 r = n & (((unsigned __int128)1 << s) - 1);
		unsigned __int128 half = (unsigned __int128)1 << (s - 1);
		q = (uint64_t)(n >> s);
		q += r > half || (r == half && (q & 1));
	}
	size_t k = xp_fmt_u64(frac, q % pow10[d]);
	p[0] = (char)('0' + q / pow10[d]);
	p[1] = '.';
	memset(p + 2, '0', (size_t)d - k);
	memcpy(p + 2 + d - k, frac, k);
	p[d + 2] = '\0';
	return (size_t)d + 2;
}

/* strtof (f) or strtod (d) in the "C" locale; errno is theirs. */
static void c_strto(const char *s, char **end, float *f, double *d)
{
	locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	errno = 0;
	if (f != NULL)
		*f = c ? strtof_l(s, end, c) : strtof(s, end);
	else
		*d = c ? strtod_l(s, end, c) : strtod(s, end);
	int e = errno;
	if (c)
		freelocale(c);
	errno = e;
}

/* Copies a token into a NUL-terminated buffer; 0 if it is too long. */
static int token(char *buf, size_t cap, const char *s, size_t len)
{
	if (len == 0 || len >= cap)
		return 0;
	memcpy(buf, s, len);
	buf[len] = 0;
	/* strtod skips leading white space; a field never has any. */
	return !(buf[0] == ' ' || buf[0] == '\t');
}

/* xp_parse_float (f) or xp_parse_double (d). */
static int parse_num(const char *s, size_t len, float *f, double *d)
{
	char buf[512], *end;
	float fv = 0;
	double dv = 0;

	if (!token(buf, sizeof buf, s, len))
		return -1;
	c_strto(buf, &end, f != NULL ? &fv : NULL, &dv);
	int e = errno;
	if (end != buf + len)
		return -1;
	if (f != NULL)
		dv = fv;
	if (isnan(dv)) {
		/* Payloads are not kept: every NaN is the default quiet NaN
		 * with the sign it was written with. */
		dv = buf[0] == '-' ? -NAN : NAN;
		fv = buf[0] == '-' ? -NAN : NAN;
	} else if (e == ERANGE && isinf(dv)) {
		return 1;
	}
	if (f != NULL)
		*f = fv;
	else
		*d = dv;
	return 0;
}

int xp_parse_double(const char *s, size_t len, double *out)
{
	return parse_num(s, len, NULL, out);
}

int xp_parse_float(const char *s, size_t len, float *out)
{
	return parse_num(s, len, out, NULL);
}
