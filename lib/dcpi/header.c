/*
 * dcpi/header.c - the driver of the DCPI header parser: finds where the
 * header ends, runs the scanner (grammar/dcpi_header.l) and the parser
 * (grammar/dcpi_header.y) over a copy of it, and checks what a grammar
 * cannot: each known line at most once, the required lines present, the
 * ranges of the epoch's fields, numbers that fit 64 bits.  dcpi(5) lists
 * the rules; the grammar file says which are the grammar's.
 *
 * The header's bytes are kept exactly as read, so that a profile is
 * written back byte for byte: unknown lines, trailing blanks of text
 * values and the padding of the samples line included.
 */
#include <setjmp.h>
#include <stdio.h>

#include "dcpi/header.h"
#include "base/rd.h"
#include "dcpi_header.tab.h"

int xp_dh_parse(yyscan_t scanner, xp_dh_parser *P);

struct xp_dh_parser {
	jmp_buf fatal_jmp;     /* where xp_dh_fatal() unwinds to */
	xp_diags *d;
	const char *name;
	uint32_t line_base;
	uint64_t off_base;
	const char *base;      /* the scanned copy */
	const char *orig;      /* the input it was copied from */
	size_t len;
	int terminated;        /* the input has a samples line */
	int said_no_samples;   /* "no samples line" was reported */
	unsigned nerr;
	int stop;
	xp_err fatal;
	int seen_samples;
	xp_dh_loc samples_loc;
	uint32_t first_line[XP_DCPI_NKINDS];  /* 0: not seen yet */
	xp_dcpi_hline *lines;
	size_t nlines, cap;
};

static const char *const kind_names[XP_DCPI_NKINDS] = {
	[XP_DCPI_IMAGE] = "image",
	[XP_DCPI_EPOCH] = "epoch",
	[XP_DCPI_PLATFORM] = "platform",
	[XP_DCPI_EVENT] = "event",
	[XP_DCPI_PERIOD] = "period",
	[XP_DCPI_TSIZE] = "tsize",
	[XP_DCPI_CPUSPEED] = "cpuspeed",
	[XP_DCPI_CPUAMASK] = "cpuamask",
	[XP_DCPI_CPUIMPLV] = "cpuimplv",
	[XP_DCPI_CPUCOUNT] = "cpucount",
	[XP_DCPI_PATH] = "path",
	[XP_DCPI_TSTART] = "tstart",
	[XP_DCPI_VERSION] = "version",
	[XP_DCPI_UNKNOWN] = NULL,
	[XP_DCPI_SAMPLES] = "samples",
};

/* The lines every header must hold, in the specification's order. */
static const xp_dcpi_kind required[] = {
	XP_DCPI_IMAGE, XP_DCPI_EPOCH, XP_DCPI_PLATFORM, XP_DCPI_EVENT,
	XP_DCPI_PERIOD, XP_DCPI_TSIZE, XP_DCPI_CPUSPEED
};

const char *xp_dcpi_kind_name(xp_dcpi_kind k)
{
	return (unsigned)k < XP_DCPI_NKINDS ? kind_names[k] : NULL;
}

_Noreturn void xp_dh_fatal(xp_dh_parser *P, const char *msg)
{
	xp_diag_file(P->d, XP_E_NOMEM, P->name, "%s", msg);
	longjmp(P->fatal_jmp, 1);
}

int xp_dh_stopped(const xp_dh_parser *P)
{
	return P->stop;
}

void xp_dh_no_samples(xp_dh_parser *P, const xp_dh_loc *loc)
{
	if (!P->said_no_samples)
		xp_dh_report(P, loc, "no samples line ends the header");
	P->said_no_samples = 1;
}

/* The length of the line that starts at s (in the copy or the input). */
static size_t line_len(const xp_dh_parser *P, const char *s)
{
	const char *e = (s >= P->base && s <= P->base + P->len ? P->base
	                                                        : P->orig) +
	                P->len;
	const char *nl = s < e ? memchr(s, '\n', (size_t)(e - s)) : NULL;

	return (size_t)((nl != NULL ? nl : e) - s);
}

static void vreport(xp_dh_parser *P, const char *lstart, uint32_t line,
                    uint32_t col, const char *fmt, va_list ap)
{
	char msg[512];
	/* The line is shown from the input: flex holds a NUL over the
	 * copy just after the token being matched. */
	const char *text = P->orig + (lstart - P->base);

	vsnprintf(msg, sizeof msg, fmt, ap);
	xp_diag_text(P->d, XP_E_SYNTAX, P->name, P->line_base + line, col,
	             P->off_base + (uint64_t)(lstart - P->base), text,
	             line_len(P, text), "%s", msg);
	P->nerr++;
	if (xp_diags_full(P->d))
		P->stop = 1;
}

void xp_dh_report(xp_dh_parser *P, const xp_dh_loc *loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(P, loc->lstart, loc->line, loc->col, fmt, ap);
	va_end(ap);
}

/* Reports at column col of the line of loc. */
static void report_col(xp_dh_parser *P, const xp_dh_loc *loc, uint32_t col,
                       const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void report_col(xp_dh_parser *P, const xp_dh_loc *loc, uint32_t col,
                       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(P, loc->lstart, loc->line, col, fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------------ */
/* Values                                                              */
/* ------------------------------------------------------------------ */

/* Decimal digits into *v; -1 past 64 bits. */
static int dec64(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned dg = (unsigned)(s[i] - '0');
		if (x > (UINT64_MAX - dg) / 10)
			return -1;
		x = x * 10 + dg;
	}
	*v = x;
	return 0;
}

/* Hexadecimal digits into *v; -1 past 64 bits. */
static int hex64(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	for (size_t i = 0; i < n; i++) {
		if (x >> 60)
			return -1;
		x = x << 4 | (uint64_t)xp_hexval((unsigned char)s[i]);
	}
	*v = x;
	return 0;
}

static int two(const char *s)
{
	return (s[0] - '0') * 10 + (s[1] - '0');
}

int xp_dcpi_epoch(const char *s, size_t n, int64_t *t, size_t *bad_at,
                  const char **bad_what, int *bad_lo, int *bad_hi)
{
	static const int mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30,
	                               31, 30, 31 };
	int year, mon, day, hour, min, sec = 0, dim;
	size_t p;
	int64_t y, m, days;

	if (n == 10) {
		/* Two-digit years as POSIX strptime %y reads them. */
		year = two(s);
		year += year >= 69 ? 1900 : 2000;
		p = 2;
	} else {
		year = two(s) * 100 + two(s + 2);
		p = 4;
	}
	mon = two(s + p);
	day = two(s + p + 2);
	hour = two(s + p + 4);
	min = two(s + p + 6);
	if (n == 14)
		sec = two(s + p + 8);
	if (mon < 1 || mon > 12) {
		*bad_at = p, *bad_what = "month", *bad_lo = 1, *bad_hi = 12;
		return -1;
	}
	dim = mdays[mon - 1];
	if (mon == 2 && year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))
		dim = 29;
	if (day < 1 || day > dim) {
		*bad_at = p + 2, *bad_what = "day", *bad_lo = 1, *bad_hi = dim;
		return -1;
	}
	if (hour > 23) {
		*bad_at = p + 4, *bad_what = "hour", *bad_lo = 0, *bad_hi = 23;
		return -1;
	}
	if (min > 59) {
		*bad_at = p + 6, *bad_what = "minute", *bad_lo = 0, *bad_hi = 59;
		return -1;
	}
	if (sec > 59) {
		*bad_at = p + 8, *bad_what = "second", *bad_lo = 0, *bad_hi = 59;
		return -1;
	}
	/* Days since 1970-01-01 of a proleptic Gregorian date. */
	y = year - (mon <= 2);
	m = mon <= 2 ? mon + 9 : mon - 3;
	days = 365 * y + y / 4 - y / 100 + y / 400 + (153 * m + 2) / 5 + day -
	       1 - 719468;
	*t = days * 86400 + hour * 3600 + min * 60 + sec;
	return 0;
}

/* Sets the model's value of one line (already checked). */
static void set_value(xp_dcpi *m, xp_dcpi_kind k, const char *v, size_t n)
{
	uint64_t x = 0;

	switch (k) {
	case XP_DCPI_PERIOD:
		dec64(v, n, &m->period);
		break;
	case XP_DCPI_TSIZE:
		dec64(v, n, &m->tsize);
		break;
	case XP_DCPI_CPUSPEED:
		dec64(v, n, &m->cpuspeed);
		break;
	case XP_DCPI_CPUIMPLV:
		dec64(v, n, &m->cpuimplv);
		break;
	case XP_DCPI_CPUCOUNT:
		dec64(v, n, &m->cpucount);
		break;
	case XP_DCPI_TSTART:
		hex64(v, n, &m->tstart);
		break;
	case XP_DCPI_VERSION: {
		const char *dot = memchr(v, '.', n);
		if (dot == NULL)
			break;
		dec64(v, (size_t)(dot - v), &x);
		m->vmajor = (unsigned)x;
		dec64(dot + 1, n - (size_t)(dot - v) - 1, &x);
		m->vminor = (unsigned)x;
		break;
	}
	default:
		break;
	}
}

void xp_dcpi_index_lines(xp_dcpi *m)
{
	for (int k = 0; k < XP_DCPI_NKINDS; k++)
		m->line_of[k] = -1;
	m->period = m->tsize = m->cpuspeed = m->cpuimplv = m->cpucount = 0;
	m->tstart = 0;
	m->vmajor = m->vminor = 0;
	for (size_t i = 0; i < m->nlines; i++) {
		const xp_dcpi_hline *l = &m->lines[i];
		if (l->kind == XP_DCPI_UNKNOWN)
			continue;
		m->line_of[l->kind] = (long)i;
		set_value(m, l->kind, (const char *)m->hdr + l->off + l->voff,
		          l->len - l->voff);
	}
}

/* ------------------------------------------------------------------ */
/* Handlers                                                            */
/* ------------------------------------------------------------------ */

static void add_line(xp_dh_parser *P, xp_dcpi_kind k, const char *lstart,
                     const char *value)
{
	xp_dcpi_hline *l;

	if (P->nlines == P->cap) {
		size_t nc = P->cap ? P->cap * 2 : 16;
		xp_dcpi_hline *nl = realloc(P->lines, nc * sizeof *nl);
		if (nl == NULL) {
			P->fatal = XP_E_NOMEM;
			P->stop = 1;
			return;
		}
		P->lines = nl;
		P->cap = nc;
	}
	l = &P->lines[P->nlines++];
	l->kind = k;
	l->off = (size_t)(lstart - P->base);
	l->len = line_len(P, lstart);
	l->voff = value != NULL ? (size_t)(value - lstart) : l->len;
}

/* The checks of a value the grammar accepted; 0 when it is good. */
static int check_value(xp_dh_parser *P, xp_dcpi_kind k, const xp_dh_tok *val,
                       const xp_dh_loc *vloc)
{
	uint64_t x;

	switch (k) {
	case XP_DCPI_PERIOD:
	case XP_DCPI_TSIZE:
	case XP_DCPI_CPUSPEED:
	case XP_DCPI_CPUIMPLV:
	case XP_DCPI_CPUCOUNT:
		if (dec64(val->s, val->len, &x) != 0) {
			xp_dh_report(P, vloc, "%s value does not fit 64 bits",
			           kind_names[k]);
			return -1;
		}
		return 0;
	case XP_DCPI_TSTART:
		if (hex64(val->s, val->len, &x) != 0) {
			xp_dh_report(P, vloc, "tstart value does not fit 64 bits");
			return -1;
		}
		return 0;
	case XP_DCPI_VERSION: {
		const char *dot = memchr(val->s, '.', val->len);
		size_t ml = (size_t)(dot - val->s);
		if (dec64(val->s, ml, &x) != 0 || x > UINT32_MAX) {
			xp_dh_report(P, vloc, "version major number too large");
			return -1;
		}
		if (dec64(dot + 1, val->len - ml - 1, &x) != 0 ||
		    x > UINT32_MAX) {
			report_col(P, vloc, vloc->col + (uint32_t)ml + 1,
			           "version minor number too large");
			return -1;
		}
		return 0;
	}
	case XP_DCPI_EPOCH: {
		int64_t t;
		size_t at;
		const char *what;
		int lo, hi;
		if (xp_dcpi_epoch(val->s, val->len, &t, &at, &what, &lo,
		                  &hi) != 0) {
			report_col(P, vloc, vloc->col + (uint32_t)at,
			           "epoch %s %.2s out of range [%d..%d]", what,
			           val->s + at, lo, hi);
			return -1;
		}
		return 0;
	}
	default:
		return 0;
	}
}

void xp_dh_on_line(xp_dh_parser *P, const xp_dh_tok *key, const xp_dh_loc *kloc,
                 const xp_dh_tok *val, const xp_dh_loc *vloc)
{
	xp_dcpi_kind k = (xp_dcpi_kind)key->kind;

	if (k != XP_DCPI_UNKNOWN && P->first_line[k] != 0) {
		xp_dh_report(P, kloc, "duplicate %s line (first at line %u)",
		           kind_names[k], P->first_line[k]);
		return;
	}
	if (check_value(P, k, val, vloc) != 0)
		return;
	if (k != XP_DCPI_UNKNOWN)
		P->first_line[k] = P->line_base + kloc->line;
	add_line(P, k, kloc->lstart, val->s);
}

void xp_dh_on_samples(xp_dh_parser *P, const xp_dh_loc *kloc)
{
	P->seen_samples = 1;
	P->samples_loc = *kloc;
	add_line(P, XP_DCPI_SAMPLES, kloc->lstart, kloc->lstart + 7);
}

void xp_dh_on_bad_line(xp_dh_parser *P)
{
	/* Reported already; nothing to keep. */
	(void)P;
}

/* ------------------------------------------------------------------ */
/* Entry point                                                         */
/* ------------------------------------------------------------------ */

/* The length of the header region: through the first line whose first
 * word is "samples" (the scanner takes that line for the terminator
 * too), or everything when there is none (*found says which). */
static size_t header_region(const unsigned char *buf, size_t len,
                            int *found)
{
	size_t pos = 0;

	while (pos < len) {
		const unsigned char *nl = memchr(buf + pos, '\n', len - pos);
		size_t end = nl != NULL ? (size_t)(nl - buf) : len;
		size_t n = end - pos;

		if (n >= 7 && memcmp(buf + pos, "samples", 7) == 0 &&
		    (n == 7 || buf[pos + 7] == ' ' || buf[pos + 7] == '\t')) {
			*found = 1;
			return nl != NULL ? end + 1 : len;
		}
		pos = nl != NULL ? end + 1 : len;
	}
	return len;
}

/*
 * flex takes a NUL byte for the end of its buffer and, when it is not,
 * scans the whole match again up to there, so a rule whose match spans a
 * run of NULs (a word, the rest of a line) costs time quadratic in the
 * run's length.  The scanned copy therefore holds none: each NUL becomes
 * NUL_STANDIN, a byte that every rule of grammar/dcpi_header.l treats
 * exactly as it treats a NUL (it names neither; both fall in the same
 * negated classes and in "."), so the tokens are the same.  Their texts
 * are read from the input (vreport, add_line, xp_dh_input), never from
 * the copy, except those of numbers and times, which hold no NUL.
 */
#define NUL_STANDIN '\001'

static void standin_nuls(char *s, size_t n)
{
	char *e = s + n;
	while ((s = memchr(s, '\0', (size_t)(e - s))) != NULL)
		*s++ = NUL_STANDIN;
}

const char *xp_dh_input(const xp_dh_parser *P, const char *p)
{
	return P->orig + (p - P->base);
}

/* Runs the parser; kept apart so that setjmp's caller has no locals
 * that change after it. */
static int run(xp_dh_parser *P, yyscan_t sc)
{
	if (setjmp(P->fatal_jmp) != 0) {
		P->fatal = XP_E_NOMEM;
		return -1;
	}
	return xp_dh_parse(sc, P);
}

xp_err xp_dcpi_parse_header(const unsigned char *buf, size_t len,
                            const char *name, uint32_t line_base,
                            uint64_t off_base, xp_dcpi *m, size_t *end,
                            xp_diags *d)
{
	int found = 0;
	size_t hlen = header_region(buf, len, &found);
	xp_dh_parser *P;
	yyscan_t sc = NULL;
	char *copy;
	xp_err err = XP_E_OK;

	*end = 0;
	if (hlen > SIZE_MAX - 2)
		return XP_E_LIMIT;
	copy = malloc(hlen + 2);
	P = calloc(1, sizeof *P);
	if (copy == NULL || P == NULL) {
		free(copy);
		free(P);
		return XP_E_NOMEM;
	}
	if (hlen > 0)
		memcpy(copy, buf, hlen);
	copy[hlen] = copy[hlen + 1] = '\0';
	standin_nuls(copy, hlen);
	P->d = d;
	P->name = name;
	P->line_base = line_base;
	P->off_base = off_base;
	P->base = copy;
	P->orig = (const char *)buf;
	P->len = hlen;
	P->terminated = found;
	if (xp_dh_scanner_new(P, copy, hlen, &sc) != 0) {
		err = XP_E_NOMEM;
		goto out;
	}
	run(P, sc);
	if (P->fatal != XP_E_OK) {
		err = P->fatal;
		goto out;
	}
	if (P->nerr == 0 && P->seen_samples) {
		for (size_t i = 0; i < sizeof required / sizeof required[0];
		     i++) {
			if (P->first_line[required[i]] == 0)
				xp_dh_report(P, &P->samples_loc,
				           "missing %s line (required)",
				           kind_names[required[i]]);
		}
	}
	if (!found && !P->said_no_samples && !P->stop) {
		xp_dh_loc eof;
		const char *ls = copy;
		for (const char *q = copy; q < copy + hlen; q++)
			if (*q == '\n')
				ls = q + 1;
		eof.lstart = ls;
		eof.col = (uint32_t)(copy + hlen - ls) + 1;
		eof.line = 1;
		for (const char *q = copy; q < ls; q++)
			eof.line += *q == '\n';
		P->said_no_samples = 1;
		xp_dh_report(P, &eof, "no samples line ends the header");
	}
	if (P->nerr > 0 || !P->seen_samples) {
		err = XP_E_SYNTAX;
		goto out;
	}
	m->hdr = malloc(hlen);
	if (m->hdr == NULL) {
		err = XP_E_NOMEM;
		goto out;
	}
	memcpy(m->hdr, buf, hlen);
	m->hdr_len = hlen;
	m->lines = P->lines;
	m->nlines = P->nlines;
	P->lines = NULL;
	xp_dcpi_index_lines(m);
	*end = hlen;
out:
	xp_dh_scanner_free(sc);
	XP_FREE(P->lines, P, copy);
	return err;
}
