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

/* Number of significant digits in %g output (its mantissa's digits,
 * leading zeros not counted). */
static int sig_digits(const char *s)
{
	int n = 0, lead = 1;
	for (; *s && *s != 'e'; s++) {
		if (*s < '0' || *s > '9')
			continue;
		if (lead && *s == '0')
			continue;
		lead = 0;
		n++;
	}
	return n ? n : 1;
}

/* Prints v with precision prec into tmp; returns 1 when it reads back to
 * the same bits (float when is_float). */
static int round_trips(char *tmp, size_t cap, int prec, double v, int is_float)
{
	snprintf(tmp, cap, "%.*g", prec, v);
	if (is_float) {
		float back = strtof(tmp, NULL), f = (float)v;
		return memcmp(&back, &f, sizeof f) == 0;
	}
	double back = strtod(tmp, NULL);
	return memcmp(&back, &v, sizeof v) == 0;
}

/*
 * The shortest %g text that reads back to exactly v.  Printed with the
 * full precision (9 digits for a float, 17 for a double) every value
 * reads back; when that text has d < full significant digits, the
 * shortest has at most d (the digits after were zeros).  Otherwise the
 * shortest is nearly always full-1 or full, so those are tried first.
 * Whether a precision reads back is monotonic in the precision, so what
 * remains is found by bisection.
 */
static size_t fmt_shortest(char *p, double v, int is_float)
{
	/* %g output is at most 24 bytes at these precisions; the buffer is
	 * sized for what the compiler cannot know. */
	char tmp[320];
	const int full = is_float ? 9 : 17;
	clocale_guard g;
	c_locale_enter(&g);
	snprintf(tmp, sizeof tmp, "%.*g", full, v);
	int d = sig_digits(tmp);
	int lo = 1, hi = d < full ? d : full;
	if (hi == full) {
		if (!round_trips(tmp, sizeof tmp, full - 1, v, is_float))
			lo = hi = full;
		else if (!round_trips(tmp, sizeof tmp, full - 2, v, is_float))
			lo = hi = full - 1;
		else
			hi = full - 2;
	}
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (round_trips(tmp, sizeof tmp, mid, v, is_float))
			hi = mid;
		else
			lo = mid + 1;
	}
	int n = snprintf(tmp, sizeof tmp, "%.*g", lo, v);
	c_locale_leave(&g);
	memcpy(p, tmp, (size_t)n);
	return (size_t)n;
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
