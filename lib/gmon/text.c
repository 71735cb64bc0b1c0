/*
 * gmon/text.c - the lossless text form of gmon.out (gmon(5)).
 *
 *   GMON-TEXT 1
 *   layout le64
 *   header gnu spare 000000000000000000000000
 *   hist low_pc 0x0 high_pc 0x1278 bins 1184 rate 100 dimen "seconds" abbrev "s"
 *   bin 35 1
 *   arc from_pc 0x11e0 self_pc 0x1149 count 2000
 *   bb
 *   block 0x1149 5
 *
 * One record per line in file order; "bin" lines (the bins that are not
 * zero, by increasing index) follow their "hist" line, "block" lines
 * their "bb" line.  Old BSD files have "header bsd ncnt N" or "header
 * bsd44 ncnt N rate R spare HEX", exactly one "hist" line without rate,
 * dimen and abbrev, "arc" lines and at most one "trailing HEX" line.
 * Numbers are decimal or 0x hexadecimal; blank lines and lines starting
 * with '#' are ignored.  The writer gives the canonical form: addresses
 * in hex, counts in decimal, single spaces.
 */
#include <stdio.h>

#include "gmon/gmon.h"

static const char keyword[] = "GMON-TEXT";

int xp_gmon_detect_text(const unsigned char *head, size_t len)
{
	return xp_text_keyword(head, len, keyword);
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */
/* ------------------------------------------------------------------ */

static void puts_w(xp_wbuf *w, const char *s)
{
	xp_wbuf_write(w, s, strlen(s));
}

static void hex_w(xp_wbuf *w, const unsigned char *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		char b[2] = { digits[p[i] >> 4], digits[p[i] & 15] };
		xp_wbuf_write(w, b, 2);
	}
}

/* A quoted string of raw bytes, trailing NULs left out. */
static void str_w(xp_wbuf *w, const unsigned char *p, size_t n)
{
	while (n > 0 && p[n - 1] == 0)
		n--;
	xp_wbuf_write(w, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\')
			xp_wbuf_write(w, &p[i], 1);
		else
			xp_wbuf_printf(w, "\\x%02x", p[i]);
	}
	xp_wbuf_write(w, "\"", 1);
}

static void bins_w(xp_wbuf *w, const xp_gmon_hist *h)
{
	for (uint32_t i = 0; i < h->n_bins; i++)
		if (h->bins[i] != 0)
			xp_wbuf_printf(w, "bin %u %u\n", i, h->bins[i]);
}

xp_err xp_gmon_write_text(const void *m, xp_wbuf *w)
{
	const xp_gmon *g = m;

	xp_wbuf_printf(w, "%s 1\nlayout %s\n", keyword,
	         xp_gmon_layout_name(g->big, g->addr_bytes));
	if (g->flavor == XP_GMON_GNU) {
		puts_w(w, "header gnu spare ");
		hex_w(w, g->spare, 12);
		puts_w(w, "\n");
	} else if (g->flavor == XP_GMON_BSD) {
		xp_wbuf_printf(w, "header bsd ncnt %u\n", g->ncnt);
	} else {
		xp_wbuf_printf(w, "header bsd44 ncnt %u rate %u spare ", g->ncnt,
		         g->hists[0].prof_rate);
		hex_w(w, g->spare, 12);
		puts_w(w, "\n");
	}
	for (size_t i = 0; i < g->n_recs; i++) {
		const xp_gmon_rec *rc = &g->recs[i];

		if (rc->type == XP_GMON_HIST) {
			const xp_gmon_hist *h = &g->hists[rc->index];
			xp_wbuf_printf(w, "hist low_pc 0x%llx high_pc 0x%llx bins %u",
			         (unsigned long long)h->low_pc,
			         (unsigned long long)h->high_pc, h->n_bins);
			if (g->flavor == XP_GMON_GNU) {
				xp_wbuf_printf(w, " rate %u dimen ", h->prof_rate);
				str_w(w, h->dimen, 15);
				puts_w(w, " abbrev ");
				str_w(w, &h->abbrev, 1);
			}
			puts_w(w, "\n");
			bins_w(w, h);
		} else if (rc->type == XP_GMON_ARC) {
			const xp_gmon_arc *a = &g->arcs[rc->index];
			xp_wbuf_printf(w, "arc from_pc 0x%llx self_pc 0x%llx count "
			         "%llu\n", (unsigned long long)a->from_pc,
			         (unsigned long long)a->self_pc,
			         (unsigned long long)a->count);
		} else {
			puts_w(w, "bb\n");
			for (size_t k = 0; k < rc->n; k++) {
				const xp_gmon_bb *b = &g->bbs[rc->index + k];
				xp_wbuf_printf(w, "block 0x%llx %llu\n",
				         (unsigned long long)b->addr,
				         (unsigned long long)b->count);
			}
		}
	}
	if (g->n_trailing > 0) {
		puts_w(w, "trailing ");
		hex_w(w, g->trailing, g->n_trailing);
		puts_w(w, "\n");
	}
	return w->err;
}

/* ------------------------------------------------------------------ */
/* Reading                                                             */
/* ------------------------------------------------------------------ */

typedef struct {
	xp_lines *l;
	const char *p, *end;   /* what is left of the line */
} tok;

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static void skip_blanks(tok *t)
{
	while (t->p < t->end && is_blank(*t->p))
		t->p++;
}

/* The next word (up to a blank); *len 0 at the end of the line. */
static const char *word(tok *t, size_t *len)
{
	const char *s;

	skip_blanks(t);
	s = t->p;
	while (t->p < t->end && !is_blank(*t->p))
		t->p++;
	*len = (size_t)(t->p - s);
	return s;
}

static int word_is(const char *s, size_t len, const char *kw)
{
	return len == strlen(kw) && memcmp(s, kw, len) == 0;
}

static xp_err expect(tok *t, const char *kw)
{
	size_t len;
	const char *s = word(t, &len);

	if (word_is(s, len, kw))
		return XP_E_OK;
	return xp_lines_error(t->l, XP_E_SYNTAX, s, "expected '%s'", kw);
}

/* A number, decimal or 0x hex, at most max. */
static xp_err number(tok *t, const char *what, uint64_t max, uint64_t *out)
{
	size_t len;
	const char *s = word(t, &len);
	uint64_t v = 0;

	if (len == 0)
		return xp_lines_error(t->l, XP_E_SYNTAX, s, "expected %s", what);
	int bad = xp_parse_u64(s, len, &v);
	if (bad < 0)
		return xp_lines_error(t->l, XP_E_SYNTAX, s, "%s is not a number",
		                      what);
	if (bad > 0 || v > max)
		return xp_lines_error(t->l, XP_E_SYNTAX, s,
		                      "%s is too large (at most %llu)", what,
		                      (unsigned long long)max);
	*out = v;
	return XP_E_OK;
}

static xp_err kw_number(tok *t, const char *kw, uint64_t max, uint64_t *out)
{
	xp_err err = expect(t, kw);
	return err != XP_E_OK ? err : number(t, kw, max, out);
}

/* Hex digits into bytes: exactly n bytes, or any number when n is 0
 * (then *out is malloc'd and *got its length). */
static xp_err hexbytes(tok *t, const char *what, unsigned char *fixed,
                       size_t n, unsigned char **out, size_t *got)
{
	size_t len;
	const char *s = word(t, &len);
	unsigned char *p = fixed;

	if (len == 0 || len % 2 != 0 || (n != 0 && len != 2 * n))
		return xp_lines_error(t->l, XP_E_SYNTAX, s,
		                      n ? "expected %s: %zu hex digits"
		                        : "expected %s: pairs of hex digits%.0zu",
		                      what, 2 * n);
	if (n == 0) {
		p = malloc(len / 2);
		if (p == NULL)
			return XP_E_NOMEM;
	}
	for (size_t i = 0; i < len; i += 2) {
		int hi = xp_hexval(s[i]), lo = xp_hexval(s[i + 1]);
		if (hi < 0 || lo < 0) {
			if (n == 0)
				free(p);
			return xp_lines_error(t->l, XP_E_SYNTAX, s + i + (hi >= 0),
			                      "%s: not a hex digit", what);
		}
		p[i / 2] = (unsigned char)(hi << 4 | lo);
	}
	if (n == 0) {
		*out = p;
		*got = len / 2;
	}
	return XP_E_OK;
}

/* A quoted string of at most max bytes into buf, NUL padded. */
static xp_err qstring(tok *t, const char *what, unsigned char *buf,
                      size_t max)
{
	const char *s;
	size_t n = 0;

	skip_blanks(t);
	s = t->p;
	memset(buf, 0, max);
	if (t->p >= t->end || *t->p != '"')
		return xp_lines_error(t->l, XP_E_SYNTAX, s,
		                      "expected %s: a quoted string", what);
	t->p++;
	for (;;) {
		unsigned char c;

		if (t->p >= t->end)
			return xp_lines_error(t->l, XP_E_SYNTAX, s,
			                      "unterminated string");
		c = (unsigned char)*t->p;
		if (c == '"') {
			t->p++;
			break;
		}
		if (c == '\\') {
			const char *e = t->p;
			if (t->p + 1 < t->end &&
			    (t->p[1] == '"' || t->p[1] == '\\')) {
				c = (unsigned char)t->p[1];
				t->p += 2;
			} else if (t->p + 3 < t->end && t->p[1] == 'x' &&
			           xp_hexval(t->p[2]) >= 0 && xp_hexval(t->p[3]) >= 0) {
				c = (unsigned char)(xp_hexval(t->p[2]) << 4 |
				                    xp_hexval(t->p[3]));
				t->p += 4;
			} else {
				return xp_lines_error(t->l, XP_E_SYNTAX, e,
				                      "bad escape (\\\", \\\\ or "
				                      "\\xNN)");
			}
		} else if (c < 0x20 || c >= 0x7f) {
			return xp_lines_error(t->l, XP_E_SYNTAX, t->p,
			                      "byte 0x%02x must be written \\x%02x",
			                      c, c);
		} else {
			t->p++;
		}
		if (n == max)
			return xp_lines_error(t->l, XP_E_SYNTAX, s,
			                      "%s is longer than %zu bytes", what,
			                      max);
		buf[n++] = c;
	}
	if (t->p < t->end && !is_blank(*t->p))
		return xp_lines_error(t->l, XP_E_SYNTAX, t->p,
		                      "expected a blank after the string");
	return XP_E_OK;
}

static xp_err end_of_line(tok *t)
{
	size_t len;
	const char *s = word(t, &len);

	if (len == 0)
		return XP_E_OK;
	return xp_lines_error(t->l, XP_E_SYNTAX, s, "unexpected '%.*s'",
	                      (int)(len > 40 ? 40 : len), s);
}

/* Moves to the next line that is not blank or a comment. */
static int next_line(xp_lines *l, tok *t)
{
	while (xp_lines_next(l)) {
		size_t i = 0;
		while (i < l->len && is_blank(l->line[i]))
			i++;
		if (i == l->len || l->line[i] == '#')
			continue;
		t->l = l;
		t->p = l->line;
		t->end = l->line + l->len;
		return 1;
	}
	return 0;
}

typedef struct {
	xp_gmon *g;
	xp_gmon_hist *hist;      /* the histogram whose bins follow */
	int64_t last_bin;
	int in_bb;
	int trailing_seen;
} tstate;

static xp_err parse_hist(tok *t, tstate *st)
{
	xp_gmon *g = st->g;
	xp_gmon_hist h;
	uint64_t lo, hi, n, rate = 0;
	uint64_t amax = xp_gmon_word_max(g->addr_bytes);
	const char *at = t->p;
	xp_err err;

	memset(&h, 0, sizeof h);
	if (g->flavor != XP_GMON_GNU && g->n_recs > 0)
		return xp_lines_error(t->l, XP_E_SYNTAX, at, "a BSD file has "
		                      "exactly one histogram, first");
	if ((err = kw_number(t, "low_pc", amax, &lo)) ||
	    (err = kw_number(t, "high_pc", amax, &hi)) ||
	    (err = kw_number(t, "bins", UINT32_MAX, &n)))
		return err;
	if (g->flavor == XP_GMON_GNU) {
		if ((err = kw_number(t, "rate", UINT32_MAX, &rate)) ||
		    (err = expect(t, "dimen")) ||
		    (err = qstring(t, "dimen", h.dimen, 15)) ||
		    (err = expect(t, "abbrev")) ||
		    (err = qstring(t, "abbrev", &h.abbrev, 1)))
			return err;
	} else {
		uint32_t hdr = g->flavor == XP_GMON_BSD
		               ? XP_GMON_BSD_HDR(g->addr_bytes)
		               : XP_GMON_BSD44_HDR(g->addr_bytes);
		rate = g->hists == NULL ? 0 : 0;
		if (g->ncnt < hdr || (g->ncnt - hdr) / 2 != n)
			return xp_lines_error(t->l, XP_E_SYNTAX, at,
			                      "bins must be %u: what the header's "
			                      "ncnt %u leaves after its %u bytes",
			                      g->ncnt >= hdr ? (g->ncnt - hdr) / 2
			                                     : 0, g->ncnt, hdr);
	}
	if ((err = end_of_line(t)) != XP_E_OK)
		return err;
	if (hi < lo || (hi == lo && (n > 0 || g->flavor != XP_GMON_GNU)))
		return xp_lines_error(t->l, XP_E_SYNTAX, at,
		                      "histogram range is %s",
		                      hi < lo ? "inverted" : "empty");
	h.low_pc = lo;
	h.high_pc = hi;
	h.n_bins = (uint32_t)n;
	h.prof_rate = (uint32_t)rate;
	if (n > (uint64_t)(SIZE_MAX / 2))
		return xp_lines_error(t->l, XP_E_LIMIT, at, "too many bins");
	h.bins = calloc(n ? (size_t)n : 1, sizeof *h.bins);
	if (h.bins == NULL)
		return XP_E_NOMEM;
	if ((err = xp_gmon_add_hist(g, &h)) != XP_E_OK)
		return err;
	st->hist = &g->hists[g->n_hists - 1];
	st->last_bin = -1;
	return XP_E_OK;
}

static xp_err parse_line(tok *t, tstate *st)
{
	xp_gmon *g = st->g;
	uint64_t amax = xp_gmon_word_max(g->addr_bytes);
	size_t len;
	const char *s = word(t, &len);
	xp_err err;

	if (st->trailing_seen)
		return xp_lines_error(t->l, XP_E_SYNTAX, s,
		                      "nothing may follow 'trailing'");
	if (word_is(s, len, "hist")) {
		st->in_bb = 0;
		return parse_hist(t, st);
	}
	if (word_is(s, len, "bin")) {
		uint64_t i, v;
		if (st->hist == NULL)
			return xp_lines_error(t->l, XP_E_SYNTAX, s,
			                      "'bin' outside a histogram");
		if ((err = number(t, "bin index", UINT32_MAX, &i)))
			return err;
		if (i >= st->hist->n_bins || (int64_t)i <= st->last_bin)
			return xp_lines_error(t->l, XP_E_SYNTAX, s + 4,
			                      i >= st->hist->n_bins
			                      ? "bin index %llu is not below %llu"
			                      : "bin index %llu is not above the "
			                        "previous one%.0llu",
			                      (unsigned long long)i,
			                      (unsigned long long)st->hist->n_bins);
		if ((err = number(t, "bin count", UINT16_MAX, &v)) ||
		    (err = end_of_line(t)))
			return err;
		st->hist->bins[i] = (uint16_t)v;
		st->last_bin = (int64_t)i;
		return XP_E_OK;
	}
	st->hist = NULL;
	if (word_is(s, len, "arc")) {
		xp_gmon_arc a;
		st->in_bb = 0;
		if (g->flavor != XP_GMON_GNU && g->n_recs == 0)
			return xp_lines_error(t->l, XP_E_SYNTAX, s, "a BSD file "
			                      "starts with its histogram");
		if ((err = kw_number(t, "from_pc", amax, &a.from_pc)) ||
		    (err = kw_number(t, "self_pc", amax, &a.self_pc)) ||
		    (err = kw_number(t, "count", xp_gmon_arc_max(g),
		                     &a.count)) ||
		    (err = end_of_line(t)))
			return err;
		return xp_gmon_add_arc(g, &a);
	}
	if (word_is(s, len, "bb")) {
		if (g->flavor != XP_GMON_GNU)
			return xp_lines_error(t->l, XP_E_SYNTAX, s, "BSD files "
			                      "have no basic-block records");
		if ((err = end_of_line(t)))
			return err;
		st->in_bb = 1;
		return xp_gmon_add_bbrec(g);
	}
	if (word_is(s, len, "block")) {
		xp_gmon_bb b;
		if (!st->in_bb)
			return xp_lines_error(t->l, XP_E_SYNTAX, s,
			                      "'block' outside a 'bb' record");
		if (g->recs[g->n_recs - 1].n == UINT32_MAX)
			return xp_lines_error(t->l, XP_E_LIMIT, s,
			                      "more than %u blocks in a record",
			                      UINT32_MAX);
		if ((err = number(t, "block address", amax, &b.addr)) ||
		    (err = number(t, "block count", amax, &b.count)) ||
		    (err = end_of_line(t)))
			return err;
		return xp_gmon_add_bb(g, &b);
	}
	if (word_is(s, len, "trailing")) {
		unsigned char *p = NULL;
		size_t n = 0;
		if (g->flavor == XP_GMON_GNU)
			return xp_lines_error(t->l, XP_E_SYNTAX, s, "only BSD "
			                      "files have trailing bytes");
		if (g->n_recs == 0)
			return xp_lines_error(t->l, XP_E_SYNTAX, s, "a BSD file "
			                      "starts with its histogram");
		if ((err = hexbytes(t, "trailing bytes", NULL, 0, &p, &n)))
			return err;
		if (n >= 3 * (size_t)g->addr_bytes) {
			free(p);
			return xp_lines_error(t->l, XP_E_SYNTAX, s,
			                      "%zu trailing bytes would be an arc",
			                      n);
		}
		if ((err = end_of_line(t))) {
			free(p);
			return err;
		}
		err = xp_gmon_set_trailing(g, p, n);
		free(p);
		st->trailing_seen = 1;
		return err;
	}
	return xp_lines_error(t->l, XP_E_SYNTAX, s, "unknown record '%.*s' "
	                      "(hist, bin, arc, bb, block or trailing)",
	                      (int)(len > 40 ? 40 : len), s);
}

xp_err xp_gmon_read_text(const unsigned char *buf, size_t len,
                         const char *name, const xp_load_opts *o,
                         void **out, xp_diags *d)
{
	xp_lines l;
	tok t;
	tstate st;
	xp_gmon *g = NULL;
	xp_err err;
	size_t wl;
	const char *w;
	uint64_t v;
	int big;
	unsigned ab;
	xp_gmon_flavor fl;

	*out = NULL;
	memset(&st, 0, sizeof st);
	xp_lines_init(&l, buf, len, name, d);
	if (!next_line(&l, &t))
		return xp_diag_file(d, XP_E_SYNTAX, name, "empty text");
	if ((err = expect(&t, keyword)) ||
	    (err = number(&t, "version", UINT32_MAX, &v)))
		return err;
	if (v != 1)
		return xp_lines_error(&l, XP_E_VERSION, NULL,
		                      "unsupported %s version %llu (this "
		                      "program reads 1)", keyword,
		                      (unsigned long long)v);
	if ((err = end_of_line(&t)))
		return err;

	if (!next_line(&l, &t))
		return xp_diag_file(d, XP_E_SYNTAX, name, "missing 'layout' line");
	if ((err = expect(&t, "layout")))
		return err;
	w = word(&t, &wl);
	{
		char lay[8] = "";
		if (wl < sizeof lay)
			memcpy(lay, w, wl);
		if (wl >= sizeof lay ||
		    xp_gmon_parse_layout(lay, &big, &ab) != 0)
			return xp_lines_error(&l, XP_E_SYNTAX, w, "expected a "
			                      "layout: le32, le64, be32 or be64");
	}
	if ((err = end_of_line(&t)))
		return err;
	if (o != NULL && o->layout != NULL) {
		int fb;
		unsigned fa;
		if (xp_gmon_parse_layout(o->layout, &fb, &fa) != 0)
			return xp_diag_file(d, XP_E_INVAL, name,
			                    "unknown layout '%s' (le32, le64, "
			                    "be32 or be64)", o->layout);
		if (fb != big || fa != ab)
			return xp_lines_error(&l, XP_E_INVAL, w, "the text says "
			                      "%s, -L says %s",
			                      xp_gmon_layout_name(big, ab),
			                      o->layout);
	}

	if (!next_line(&l, &t))
		return xp_diag_file(d, XP_E_SYNTAX, name, "missing 'header' line");
	if ((err = expect(&t, "header")))
		return err;
	w = word(&t, &wl);
	if (word_is(w, wl, "gnu"))
		fl = XP_GMON_GNU;
	else if (word_is(w, wl, "bsd"))
		fl = XP_GMON_BSD;
	else if (word_is(w, wl, "bsd44"))
		fl = XP_GMON_BSD44;
	else
		return xp_lines_error(&l, XP_E_SYNTAX, w,
		                      "expected gnu, bsd or bsd44");
	g = xp_gmon_new(big, ab, fl);
	if (g == NULL)
		return XP_E_NOMEM;
	st.g = g;
	if (fl != XP_GMON_GNU) {
		if ((err = kw_number(&t, "ncnt", UINT32_MAX, &v)))
			goto fail;
		g->ncnt = (uint32_t)v;
	}
	if (fl == XP_GMON_BSD44) {
		if ((err = kw_number(&t, "rate", UINT32_MAX, &v)))
			goto fail;
		st.last_bin = (int64_t)v;  /* the rate, until the hist line */
	}
	if (fl != XP_GMON_BSD &&
	    ((err = expect(&t, "spare")) ||
	     (err = hexbytes(&t, "spare", g->spare, 12, NULL, NULL))))
		goto fail;
	if ((err = end_of_line(&t)))
		goto fail;
	{
		uint64_t bsd_rate = (uint64_t)st.last_bin;
		while (next_line(&l, &t)) {
			if ((err = parse_line(&t, &st)) != XP_E_OK)
				goto fail;
		}
		if (fl != XP_GMON_GNU) {
			if (g->n_hists == 0) {
				err = xp_diag_file(d, XP_E_SYNTAX, name,
				                   "a BSD file needs its 'hist' "
				                   "line");
				goto fail;
			}
			g->hists[0].prof_rate = fl == XP_GMON_BSD44
			                        ? (uint32_t)bsd_rate : 0;
		}
	}
	*out = g;
	return XP_E_OK;
fail:
	xp_gmon_free(g);
	return err;
}
