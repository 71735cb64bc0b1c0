/*
 * fmt.c - number formatting and float parsing for the text forms.
 *
 * Integers are formatted by hand (two digits at a time) because writing
 * text is dominated by them.  Floats are written as the shortest %g text
 * that reads back to the same bits, and read with strtof/strtod under the
 * "C" locale so that a program that called setlocale() still reads and
 * writes '.' as the decimal point.
 */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233"
	"34353637383940414243444546474849505152535455565758596061626364656667"
	"6869707172737475767778798081828384858687888990919293949596979899";

/* The 32-bit case: most fields are ids and small counts, and 32-bit
 * division by a constant is cheaper than 64-bit. */
static inline size_t fmt_u32(char *p, uint32_t v)
{
	size_t n = v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4
	         : v < 100000 ? 5 : v < 1000000 ? 6 : v < 10000000 ? 7
	         : v < 100000000 ? 8 : v < 1000000000 ? 9 : 10;
	char *q = p + n;
	while (v >= 100) {
		uint32_t r = v % 100;
		v /= 100;
		q -= 2;
		memcpy(q, digits2 + 2 * r, 2);
	}
	if (v >= 10)
		memcpy(q - 2, digits2 + 2 * v, 2);
	else
		q[-1] = (char)('0' + v);
	return n;
}

size_t xp_fmt_u64(char *p, uint64_t v)
{
	if (v <= UINT32_MAX)
		return fmt_u32(p, (uint32_t)v);
	/* Split off the low eight digits so that the rest is 32-bit work;
	 * v < 2^64 has at most 20 digits, so the high part may itself need
	 * one more split. */
	uint64_t hi = v / 100000000;
	uint32_t lo = (uint32_t)(v % 100000000);
	size_t n = xp_fmt_u64(p, hi);
	char *q = p + n + 8;
	for (int i = 0; i < 4; i++) {
		uint32_t r = lo % 100;
		lo /= 100;
		q -= 2;
		memcpy(q, digits2 + 2 * r, 2);
	}
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
 * Runs under the "C" numeric locale for the calling thread only, and
 * restores the thread's locale afterwards.  When no locale object can be
 * made (out of memory) the current locale is used.
 */
typedef struct {
	locale_t c, old;
} clocale_guard;

static void c_locale_enter(clocale_guard *g)
{
	g->c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
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

/*
 * Whether a value printed with a precision reads back to the same bits is
 * monotonic in the precision, so the shortest one is found by bisection:
 * four or five conversions instead of up to seventeen.
 */
size_t xp_fmt_float(char *p, float v)
{
	if (isnan(v) || isinf(v))
		return fmt_special(p, v);
	/* %g output is at most 24 bytes at these precisions; the buffer is
	 * sized for what the compiler cannot know. */
	char tmp[320];
	clocale_guard g;
	c_locale_enter(&g);
	int lo = 1, hi = 9;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		snprintf(tmp, sizeof tmp, "%.*g", mid, (double)v);
		float back = strtof(tmp, NULL);
		if (memcmp(&back, &v, sizeof v) == 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	int n = snprintf(tmp, sizeof tmp, "%.*g", lo, (double)v);
	c_locale_leave(&g);
	memcpy(p, tmp, (size_t)n);
	return (size_t)n;
}

size_t xp_fmt_double(char *p, double v)
{
	if (isnan(v) || isinf(v))
		return fmt_special(p, v);
	char tmp[320];
	clocale_guard g;
	c_locale_enter(&g);
	int lo = 1, hi = 17;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		snprintf(tmp, sizeof tmp, "%.*g", mid, v);
		double back = strtod(tmp, NULL);
		if (memcmp(&back, &v, sizeof v) == 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	int n = snprintf(tmp, sizeof tmp, "%.*g", lo, v);
	c_locale_leave(&g);
	memcpy(p, tmp, (size_t)n);
	return (size_t)n;
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

int xp_parse_double(const char *s, size_t len, double *out)
{
	char buf[512];
	if (!token(buf, sizeof buf, s, len))
		return -1;
	clocale_guard g;
	c_locale_enter(&g);
	char *end;
	errno = 0;
	double v = strtod(buf, &end);
	int e = errno;
	c_locale_leave(&g);
	if (end != buf + len)
		return -1;
	if (isnan(v)) {
		/* Payloads are not kept: every NaN is the default quiet NaN
		 * with the sign it was written with. */
		v = buf[0] == '-' ? -NAN : NAN;
	} else if (e == ERANGE && isinf(v)) {
		return 1;
	}
	*out = v;
	return 0;
}

int xp_parse_float(const char *s, size_t len, float *out)
{
	char buf[512];
	if (!token(buf, sizeof buf, s, len))
		return -1;
	clocale_guard g;
	c_locale_enter(&g);
	char *end;
	errno = 0;
	float v = strtof(buf, &end);
	int e = errno;
	c_locale_leave(&g);
	if (end != buf + len)
		return -1;
	if (isnan(v)) {
		v = buf[0] == '-' ? -NAN : NAN;
	} else if (e == ERANGE && isinf(v)) {
		return 1;
	}
	*out = v;
	return 0;
}
