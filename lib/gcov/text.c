/*
 * gcov/text.c - the lossless text form of GCC's coverage files (gcov(5)),
 * a readable dump in the manner of gcov-dump -l that reads back to the
 * same bytes:
 *
 *   GCOV-TEXT 1
 *   notes le B22* stamp 0x12e84e72 checksum 0x0
 *   cwd "/tmp/build"
 *   unexecuted-blocks 1
 *   function ident 108032747 lineno 0xa6ce6dc0 cfg 0xef4a3fa9 name "main" artificial 0 source "t.c" start 5:5 end 16:1
 *   blocks 4
 *   arcs 0 2:fall
 *   arcs 2 3:fall 1:tree,fake
 *   lines 2 "t.c" 5 7 -
 *   end
 *
 *   GCOV-TEXT 1
 *   data le B22* stamp 0x12e84e72 checksum 0xaa90bc99
 *   summary runs 1 sum_max 3
 *   function ident 108032747 lineno 0xa6ce6dc0 cfg 0xef4a3fa9
 *   counters arcs 1 1 2 3 2 1
 *   counters interval zero 4
 *   function placeholder
 *   end
 *
 * One line per record in file order.  The header line gives the kind,
 * byte order (le, be), version (its four characters, or 0x and eight
 * hex digits), stamp and, for GCC 12 on, checksum.  A string is quoted
 * (\", \\ and \xNN escapes) or "-" when the file gives it as absent.
 * Arc flags are tree, fake, fall and any other bits as 0x hex, joined
 * by commas.  LINES items are line numbers, file names, and "-" (the
 * absent name that ends a block).  Counters are signed decimals, as
 * gcov-dump prints them; "zero N" stands for N counters written as
 * all zero.  "record TAG HEX" keeps a record of a tag this program does
 * not know, "end" the zero tag that ends most files.  Numbers are
 * decimal or 0x hex; blank lines and lines starting with '#' are
 * ignored.  The writer gives the canonical form.
 */
#include <inttypes.h>
#include <stdio.h>

#include "gcov/gcov.h"

static const char keyword[] = "GCOV-TEXT";

int xp_gcov_detect_text(const unsigned char *head, size_t len)
{
	return xp_text_keyword(head, len, keyword);
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */
/* ------------------------------------------------------------------ */

static void put_qstr(xp_wbuf *w, const char *s)
{
	if (s == NULL) {
		xp_wbuf_write(w, " -", 2);
		return;
	}
	xp_wbuf_write(w, " \"", 2);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\')
			xp_wbuf_write(w, p, 1);
		else
			xp_wbuf_printf(w, "\\x%02x", *p);
	}
	xp_wbuf_write(w, "\"", 1);
}

static void put_flags(xp_wbuf *w, uint32_t f)
{
	static const char *const names[] = { "tree", "fake", "fall" };
	const char *sep = ":";

	for (unsigned b = 0; b < 3; b++)
		if (f & 1u << b) {
			xp_wbuf_printf(w, "%s%s", sep, names[b]);
			sep = ",";
		}
	if (f & ~7u)
		xp_wbuf_printf(w, "%s0x%x", sep, f & ~7u);
}

static void put_version(xp_wbuf *w, uint32_t v)
{
	char c[4];
	int ok = 1;

	for (int i = 0; i < 4; i++) {
		c[i] = (char)(v >> (24 - 8 * i));
		ok &= c[i] > 0x20 && c[i] < 0x7f && c[i] != '"';
	}
	if (ok)
		xp_wbuf_write(w, c, 4);
	else
		xp_wbuf_printf(w, "0x%08x", v);
}

static void put_function(xp_wbuf *w, const xp_gcov *g, const xp_gcov_fn *f,
                         const xp_gcov_layout *lay)
{
	if (f->placeholder) {
		xp_wbuf_printf(w, "function placeholder\n");
		return;
	}
	xp_wbuf_printf(w, "function ident %u lineno 0x%x cfg 0x%x", f->ident,
	               f->lineno_checksum, f->cfg_checksum);
	if (g->kind == XP_GCOV_NOTES) {
		xp_wbuf_printf(w, " name");
		put_qstr(w, f->name);
		xp_wbuf_printf(w, " artificial %u source", f->artificial);
		put_qstr(w, f->source);
		xp_wbuf_printf(w, " start %u:%u end %u", f->start_line,
		               f->start_column, f->end_line);
		if (lay->end_column)
			xp_wbuf_printf(w, ":%u", f->end_column);
	}
	xp_wbuf_write(w, "\n", 1);
}

static void put_rec(xp_wbuf *w, const xp_gcov *g, const xp_gcov_rec *rc,
                    const xp_gcov_layout *lay)
{
	switch (rc->type) {
	case XP_GCOV_FUNCTION:
		put_function(w, g, &g->fns[rc->index], lay);
		return;
	case XP_GCOV_BLOCKS:
		xp_wbuf_printf(w, "blocks %u\n", rc->a);
		return;
	case XP_GCOV_ARCS:
		xp_wbuf_printf(w, "arcs %u", rc->a);
		for (size_t i = 0; i < rc->n; i++) {
			xp_wbuf_printf(w, " %u", g->arcs[rc->index + i].dest);
			put_flags(w, g->arcs[rc->index + i].flags);
		}
		break;
	case XP_GCOV_LINES:
		xp_wbuf_printf(w, "lines %u", rc->a);
		for (size_t i = 0; i < rc->n; i++) {
			const xp_gcov_item *it = &g->items[rc->index + i];
			if (it->line)
				xp_wbuf_printf(w, " %u", it->line);
			else
				put_qstr(w, it->file);
		}
		break;
	case XP_GCOV_SUMMARY:
		xp_wbuf_printf(w, "summary runs %u sum_max %llu\n", rc->a,
		               (unsigned long long)rc->b);
		return;
	case XP_GCOV_COUNTERS:
		xp_wbuf_printf(w, "counters %s", lay->counters[rc->a].name);
		if (rc->zero)
			xp_wbuf_printf(w, " zero %zu", rc->n);
		for (size_t i = 0; !rc->zero && i < rc->n; i++)
			xp_wbuf_printf(w, " %" PRId64,
			               (int64_t)g->values[rc->index + i]);
		break;
	default:
		xp_wbuf_printf(w, "record 0x%08x ", rc->tag);
		for (size_t i = 0; i < rc->n; i++)
			xp_wbuf_printf(w, "%02x", g->raw[rc->index + i]);
		if (rc->n == 0)
			xp_wbuf_write(w, "-", 1);
		break;
	}
	xp_wbuf_write(w, "\n", 1);
}

xp_err xp_gcov_write_text(const void *m, xp_wbuf *w)
{
	const xp_gcov *g = m;
	const xp_gcov_layout *lay = xp_gcov_layout_get(g);

	xp_wbuf_printf(w, "%s 1\n%s %s ", keyword,
	               g->kind == XP_GCOV_NOTES ? "notes" : "data",
	               g->big ? "be" : "le");
	put_version(w, g->version);
	xp_wbuf_printf(w, " stamp 0x%x", g->stamp);
	if (lay->checksum)
		xp_wbuf_printf(w, " checksum 0x%x", g->checksum);
	xp_wbuf_write(w, "\n", 1);
	if (g->kind == XP_GCOV_NOTES) {
		xp_wbuf_printf(w, "cwd");
		put_qstr(w, g->cwd);
		xp_wbuf_printf(w, "\nunexecuted-blocks %u\n",
		               g->unexecuted_blocks);
	}
	for (size_t i = 0; i < g->n_recs; i++)
		put_rec(w, g, &g->recs[i], lay);
	if (g->end)
		xp_wbuf_printf(w, "end\n");
	return w->err;
}

/* ------------------------------------------------------------------ */
/* Reading                                                             */
/* ------------------------------------------------------------------ */

/* The parser's state: the line being read and the model being built. */
typedef struct {
	xp_lines *l;
	const char *p, *end;   /* what is left of the line */
	const char *at;        /* where the last token started */
	xp_gcov *g;
	const xp_gcov_layout *lay;
	int ended;             /* "end" was read */
} tp;

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* The next token (*n 0 at the end of the line); quoted strings are
 * one token, quotes included. */
static const char *token(tp *t, size_t *n)
{
	const char *s;

	while (t->p < t->end && blank(*t->p))
		t->p++;
	s = t->at = t->p;
	if (t->p < t->end && *t->p == '"') {
		for (t->p++; t->p < t->end && *t->p != '"'; t->p++)
			if (*t->p == '\\' && t->p + 1 < t->end)
				t->p++;
		if (t->p < t->end)
			t->p++;
	} else {
		while (t->p < t->end && !blank(*t->p))
			t->p++;
	}
	*n = (size_t)(t->p - s);
	return s;
}

static int is(const char *s, size_t n, const char *kw)
{
	return n == strlen(kw) && memcmp(s, kw, n) == 0;
}

static xp_err err_at(tp *t, const char *at, const char *fmt, const char *a)
{
	return xp_lines_error(t->l, XP_E_SYNTAX, at, fmt, a);
}

static xp_err keyword_is(tp *t, const char *kw)
{
	size_t n;
	const char *s = token(t, &n);

	return is(s, n, kw) ? XP_E_OK : err_at(t, s, "expected '%s'", kw);
}

/* An unsigned number up to max. */
static xp_err unum(tp *t, const char *what, uint64_t max, uint64_t *v)
{
	size_t n;
	const char *s = token(t, &n);
	int bad;

	if (n == 0)
		return err_at(t, s, "expected %s", what);
	bad = xp_parse_u64(s, n, v);
	if (bad < 0)
		return err_at(t, s, "%s is not a number", what);
	if (bad > 0 || *v > max)
		return err_at(t, s, "%s is too large", what);
	return XP_E_OK;
}

static xp_err u32kw(tp *t, const char *kw, uint32_t *v)
{
	uint64_t x;
	xp_err err;

	if ((kw != NULL && (err = keyword_is(t, kw))) ||
	    (err = unum(t, kw != NULL ? kw : "a number", UINT32_MAX, &x)))
		return err;
	*v = (uint32_t)x;
	return XP_E_OK;
}

/* A signed 64-bit counter. */
static xp_err counter(tp *t, uint64_t *v)
{
	size_t n;
	const char *s = token(t, &n);
	int neg = n > 0 && *s == '-';
	uint64_t x;
	int bad;

	if (n == (size_t)neg)
		return err_at(t, s, "expected %s", "a counter");
	bad = xp_parse_u64(s + neg, n - neg, &x);
	if (bad < 0)
		return err_at(t, s, "%s is not a number", "counter");
	if (bad > 0 || x > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
		return err_at(t, s, "%s is out of the range of a 64-bit "
		              "signed integer", "counter");
	*v = neg ? (uint64_t)0 - x : x;
	return XP_E_OK;
}

/* A quoted string or "-" (absent) at the token s of n bytes. */
static xp_err qstr_at(tp *t, const char *s, size_t n, const char *what,
                      const char **out)
{
	char *buf;
	size_t k = 0;
	xp_err err = XP_E_OK;

	*out = NULL;
	if (is(s, n, "-"))
		return XP_E_OK;
	if (n < 2 || s[0] != '"' || s[n - 1] != '"')
		return err_at(t, s, "expected %s: a quoted string or -", what);
	if ((buf = malloc(n)) == NULL)
		return XP_E_NOMEM;
	for (size_t i = 1; i + 1 < n && err == XP_E_OK; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\\' && i + 2 < n && (s[i + 1] == '"' ||
		                               s[i + 1] == '\\')) {
			c = (unsigned char)s[++i];
		} else if (c == '\\' && i + 4 < n && s[i + 1] == 'x' &&
		           xp_hexval(s[i + 2]) >= 0 && xp_hexval(s[i + 3]) >= 0) {
			c = (unsigned char)(xp_hexval(s[i + 2]) << 4 |
			                    xp_hexval(s[i + 3]));
			i += 3;
		} else if (c == '\\' || c < 0x20 || c >= 0x7f) {
			err = err_at(t, s + i, "%s: bad escape or byte (\\\", "
			             "\\\\ or \\xNN)", what);
		}
		if (c == 0 && err == XP_E_OK)
			err = err_at(t, s + i, "%s: a string holds no NUL", what);
		buf[k++] = (char)c;
	}
	if (err == XP_E_OK && (*out = xp_gcov_strdup(t->g, buf, k)) == NULL)
		err = XP_E_NOMEM;
	free(buf);
	return err;
}

static xp_err qstr(tp *t, const char *kw, const char **out)
{
	size_t n;
	const char *s;
	xp_err err;

	if (kw != NULL && (err = keyword_is(t, kw)))
		return err;
	s = token(t, &n);
	return qstr_at(t, s, n, kw, out);
}

static xp_err eol(tp *t)
{
	size_t n;
	const char *s = token(t, &n);

	if (n == 0)
		return XP_E_OK;
	return xp_lines_error(t->l, XP_E_SYNTAX, s, "unexpected '%.*s'",
	                      (int)(n > 40 ? 40 : n), s);
}

/* "line:column" into two words. */
static xp_err position(tp *t, const char *kw, uint32_t *line, uint32_t *col)
{
	size_t n;
	const char *s, *c;
	uint64_t a, b = 0;
	xp_err err;

	if ((err = keyword_is(t, kw)))
		return err;
	s = token(t, &n);
	c = memchr(s, ':', n);
	if (n == 0 || xp_parse_u64(s, c ? (size_t)(c - s) : n, &a) != 0 ||
	    a > UINT32_MAX || (c == NULL) != (col == NULL) ||
	    (c != NULL && (xp_parse_u64(c + 1, n - (size_t)(c + 1 - s), &b) ||
	                   b > UINT32_MAX)))
		return err_at(t, s, col ? "expected %s: LINE:COLUMN"
		                        : "expected %s: LINE", kw);
	*line = (uint32_t)a;
	if (col != NULL)
		*col = (uint32_t)b;
	return XP_E_OK;
}

static xp_err parse_function(tp *t, xp_gcov_rec *rc)
{
	xp_gcov_fn f;
	size_t n;
	const char *s = token(t, &n);
	xp_err err;

	memset(&f, 0, sizeof f);
	t->p = s;
	if (is(s, n, "placeholder")) {
		token(t, &n);
		if (t->g->kind != XP_GCOV_DATA)
			return err_at(t, s, "only %s have placeholders",
			              "data files");
		f.placeholder = 1;
	} else if ((err = u32kw(t, "ident", &f.ident)) ||
	           (err = u32kw(t, "lineno", &f.lineno_checksum)) ||
	           (err = u32kw(t, "cfg", &f.cfg_checksum))) {
		return err;
	}
	if (!f.placeholder && t->g->kind == XP_GCOV_NOTES &&
	    ((err = qstr(t, "name", &f.name)) ||
	     (err = u32kw(t, "artificial", &f.artificial)) ||
	     (err = qstr(t, "source", &f.source)) ||
	     (err = position(t, "start", &f.start_line, &f.start_column)) ||
	     (err = position(t, "end", &f.end_line, t->lay->end_column
	                                          ? &f.end_column : NULL))))
		return err;
	return xp_gcov_add_fn(t->g, &f, &rc->index);
}

static xp_err parse_arc(tp *t, const char *s, size_t n)
{
	const char *c = memchr(s, ':', n), *e = s + n;
	uint64_t v;
	xp_gcov_arc a = { 0, 0 };

	if (xp_parse_u64(s, c ? (size_t)(c - s) : n, &v) || v > UINT32_MAX)
		return err_at(t, s, "expected %s: BLOCK[:FLAGS]", "an arc");
	a.dest = (uint32_t)v;
	for (const char *p = c ? c + 1 : e; p < e;) {
		const char *q = memchr(p, ',', (size_t)(e - p));
		size_t k = q ? (size_t)(q - p) : (size_t)(e - p);
		if (is(p, k, "tree"))
			a.flags |= XP_GCOV_ARC_ON_TREE;
		else if (is(p, k, "fake"))
			a.flags |= XP_GCOV_ARC_FAKE;
		else if (is(p, k, "fall"))
			a.flags |= XP_GCOV_ARC_FALL;
		else if (k > 2 && p[0] == '0' && p[1] == 'x' &&
		         !xp_parse_u64(p, k, &v) && v <= UINT32_MAX &&
		         (v & 7) == 0)
			a.flags |= (uint32_t)v;
		else
			return err_at(t, p, "unknown arc flag (%s or 0x "
			              "hex of other bits)", "tree, fake, fall");
		p += k + (q != NULL);
	}
	return xp_gcov_add_arc(t->g, &a);
}

/* The items of an ARCS, LINES or COUNTERS line into rc. */
static xp_err parse_list(tp *t, xp_gcov_rec *rc)
{
	size_t n;
	const char *s;
	xp_err err;

	if (rc->type != XP_GCOV_COUNTERS && (err = u32kw(t, NULL, &rc->a)))
		return err;
	rc->index = rc->type == XP_GCOV_ARCS ? t->g->n_arcs
	          : rc->type == XP_GCOV_LINES ? t->g->n_items : t->g->n_values;
	for (s = token(t, &n); n > 0; s = token(t, &n), rc->n++) {
		uint64_t v = 0;
		if (rc->type == XP_GCOV_ARCS) {
			err = parse_arc(t, s, n);
		} else if (rc->type == XP_GCOV_LINES && (*s == '"' ||
		                                        is(s, n, "-"))) {
			xp_gcov_item it = { 0, NULL };
			if ((err = qstr_at(t, s, n, "file name", &it.file)) ==
			    XP_E_OK)
				err = xp_gcov_add_item(t->g, &it);
		} else {
			t->p = s;
			if (rc->type == XP_GCOV_LINES) {
				xp_gcov_item it = { 0, NULL };
				if ((err = u32kw(t, NULL, &it.line)) == XP_E_OK &&
				    it.line == 0)
					err = err_at(t, s, "line 0 is %s",
					             "not a line");
				if (err == XP_E_OK)
					err = xp_gcov_add_item(t->g, &it);
			} else if ((err = counter(t, &v)) == XP_E_OK) {
				err = xp_gcov_add_value(t->g, v);
			}
		}
		if (err != XP_E_OK)
			return err;
	}
	return XP_E_OK;
}

static xp_err parse_counters(tp *t, xp_gcov_rec *rc)
{
	size_t n;
	const char *s = token(t, &n);
	uint64_t v;
	xp_err err;

	for (rc->a = 0; rc->a < t->lay->n_counters; rc->a++)
		if (is(s, n, t->lay->counters[rc->a].name))
			break;
	if (rc->a == t->lay->n_counters)
		return err_at(t, s, "unknown kind of counter (%s, ...)",
		              "arcs, interval, pow2, topn");
	rc->tag = XP_GCOV_TAG_COUNTER(rc->a);
	s = token(t, &n);
	if (!is(s, n, "zero")) {
		t->p = s;
		return parse_list(t, rc);
	}
	/* As many as a negative length of 32 bits can say: 2^31 bytes, or
	 * words, of counters of 8 bytes (2 words). */
	if ((err = unum(t, "number of counters",
	                0x80000000u / (t->lay->bytes ? 8 : 2), &v)))
		return err;
	rc->zero = 1;
	rc->n = (size_t)v;
	rc->index = t->g->n_values;
	return XP_E_OK;
}

static xp_err parse_raw(tp *t, xp_gcov_rec *rc)
{
	size_t n;
	const char *s;
	xp_err err;

	if ((err = u32kw(t, NULL, &rc->tag)))
		return err;
	if (rc->tag == 0 || xp_gcov_rectype_of(t->lay, t->g->kind, rc->tag) !=
	    XP_GCOV_UNKNOWN)
		return err_at(t, t->at, "tag %s is not an unknown tag",
		              "0x0 or a known one");
	s = token(t, &n);
	rc->index = t->g->n_raw;
	if (is(s, n, "-"))
		return XP_E_OK;
	if (n % 2 != 0 || (!t->lay->bytes && n % 8 != 0))
		return err_at(t, s, "expected %s", t->lay->bytes
		              ? "pairs of hex digits" : "hex words");
	for (size_t i = 0; i < n; i += 2, rc->n++) {
		int hi = xp_hexval(s[i]), lo = xp_hexval(s[i + 1]);
		if (hi < 0 || lo < 0)
			return err_at(t, s + i, "%s", "not a hex digit");
		unsigned char b = (unsigned char)(hi << 4 | lo);
		if ((err = xp_gcov_add_raw(t->g, &b, 1)))
			return err;
	}
	return XP_E_OK;
}

/* The records a kind of file holds, by keyword. */
static xp_err parse_line(tp *t)
{
	size_t n;
	const char *s = token(t, &n);
	int notes = t->g->kind == XP_GCOV_NOTES;
	xp_gcov_rec rc;
	xp_err err;

	memset(&rc, 0, sizeof rc);
	if (t->ended)
		return err_at(t, s, "nothing may follow '%s'", "end");
	if (is(s, n, "end")) {
		t->ended = 1;
		t->g->end = 1;
		return eol(t);
	}
	if (is(s, n, "function")) {
		rc.type = XP_GCOV_FUNCTION;
		err = parse_function(t, &rc);
	} else if (notes && is(s, n, "blocks")) {
		rc.type = XP_GCOV_BLOCKS;
		err = u32kw(t, NULL, &rc.a);
	} else if (notes && (is(s, n, "arcs") || is(s, n, "lines"))) {
		rc.type = *s == 'a' ? XP_GCOV_ARCS : XP_GCOV_LINES;
		err = parse_list(t, &rc);
	} else if (!notes && is(s, n, "summary")) {
		uint64_t v;
		rc.type = XP_GCOV_SUMMARY;
		if ((err = u32kw(t, "runs", &rc.a)) == XP_E_OK &&
		    (err = keyword_is(t, "sum_max")) == XP_E_OK &&
		    (err = unum(t, "sum_max", UINT32_MAX, &v)) == XP_E_OK)
			rc.b = v;
	} else if (!notes && is(s, n, "counters")) {
		rc.type = XP_GCOV_COUNTERS;
		err = parse_counters(t, &rc);
	} else if (is(s, n, "record")) {
		rc.type = XP_GCOV_UNKNOWN;
		err = parse_raw(t, &rc);
	} else {
		return err_at(t, s, "unknown record (%s)", notes
		              ? "function, blocks, arcs, lines, record or end"
		              : "summary, function, counters, record or end");
	}
	if (err != XP_E_OK || (err = eol(t)) != XP_E_OK)
		return err;
	if (rc.type == XP_GCOV_FUNCTION)
		rc.tag = XP_GCOV_TAG_FUNCTION;
	else if (rc.type == XP_GCOV_BLOCKS)
		rc.tag = XP_GCOV_TAG_BLOCKS;
	else if (rc.type == XP_GCOV_ARCS)
		rc.tag = XP_GCOV_TAG_ARCS;
	else if (rc.type == XP_GCOV_LINES)
		rc.tag = XP_GCOV_TAG_LINES;
	else if (rc.type == XP_GCOV_SUMMARY)
		rc.tag = XP_GCOV_TAG_SUMMARY;
	return xp_gcov_add_rec(t->g, &rc);
}

/* Moves to the next line that is not blank or a comment. */
static int next(tp *t)
{
	while (xp_lines_next(t->l)) {
		const char *p = t->l->line, *e = p + t->l->len;
		while (p < e && blank(*p))
			p++;
		if (p == e || *p == '#')
			continue;
		t->p = t->l->line;
		t->end = e;
		return 1;
	}
	return 0;
}

/* The version: four characters, or 0x and hex digits. */
static xp_err version(tp *t, uint32_t *v)
{
	size_t n;
	const char *s = token(t, &n);
	uint64_t x;

	if (n == 4 && !(s[0] == '0' && s[1] == 'x')) {
		*v = (uint32_t)(unsigned char)s[0] << 24 |
		     (uint32_t)(unsigned char)s[1] << 16 |
		     (uint32_t)(unsigned char)s[2] << 8 | (unsigned char)s[3];
		return XP_E_OK;
	}
	if (n > 2 && s[0] == '0' && s[1] == 'x' && !xp_parse_u64(s, n, &x) &&
	    x <= UINT32_MAX) {
		*v = (uint32_t)x;
		return XP_E_OK;
	}
	return err_at(t, s, "expected %s: four characters or 0x hex",
	              "the version");
}

/* The lines before the records. */
static xp_err parse_header(tp *t, const char *name, xp_diags *d)
{
	size_t n;
	const char *s, *vat;
	uint32_t v;
	unsigned mj, mn;
	int kind, big;
	xp_err err;

	if (!next(t))
		return xp_diag_file(d, XP_E_SYNTAX, name, "empty text");
	if ((err = keyword_is(t, keyword)) || (err = u32kw(t, NULL, &v)))
		return err;
	if (v != 1)
		return xp_lines_error(t->l, XP_E_VERSION, t->at, "unsupported "
		                      "%s version %u (this program reads 1)",
		                      keyword, v);
	if ((err = eol(t)))
		return err;
	if (!next(t))
		return xp_diag_file(d, XP_E_SYNTAX, name, "missing header line");
	s = token(t, &n);
	if ((kind = is(s, n, "notes") ? 0 : is(s, n, "data") ? 1 : -1) < 0)
		return err_at(t, s, "expected %s", "notes or data");
	s = token(t, &n);
	if ((big = is(s, n, "le") ? 0 : is(s, n, "be") ? 1 : -1) < 0)
		return err_at(t, s, "expected %s", "a byte order: le or be");
	if ((err = version(t, &v)))
		return err;
	vat = t->at;
	if ((t->lay = xp_gcov_layout_of(v, &mj, &mn)) == NULL)
		return xp_lines_error(t->l, XP_E_VERSION, vat, "version "
		                      "0x%08x is GCC %u.%u's, not of %s", v, mj,
		                      mn, xp_gcov_releases());
	if ((t->g = xp_gcov_new((xp_gcov_kind)kind, big, v)) == NULL)
		return XP_E_NOMEM;
	t->g->end = 0;
	if ((err = u32kw(t, "stamp", &t->g->stamp)) ||
	    (t->lay->checksum && (err = u32kw(t, "checksum",
	                                      &t->g->checksum))) ||
	    (err = eol(t)))
		return err;
	if (kind != XP_GCOV_NOTES)
		return XP_E_OK;
	if (!next(t))
		return xp_diag_file(d, XP_E_SYNTAX, name, "missing 'cwd' line");
	if ((err = qstr(t, "cwd", &t->g->cwd)) || (err = eol(t)))
		return err;
	if (!next(t))
		return xp_diag_file(d, XP_E_SYNTAX, name,
		                    "missing 'unexecuted-blocks' line");
	if ((err = u32kw(t, "unexecuted-blocks",
	                 &t->g->unexecuted_blocks)) || (err = eol(t)))
		return err;
	return XP_E_OK;
}

xp_err xp_gcov_read_text(const unsigned char *buf, size_t len,
                         const char *name, const xp_load_opts *o,
                         void **out, xp_diags *d)
{
	xp_lines l;
	tp t;
	xp_err err;

	*out = NULL;
	memset(&t, 0, sizeof t);
	t.l = &l;
	xp_lines_init(&l, buf, len, name, d);
	if (o != NULL && o->layout != NULL)
		return xp_diag_file(d, XP_E_INVAL, name, "GCC's coverage files "
		                    "say their layout; -L does not apply");
	if ((err = parse_header(&t, name, d)) != XP_E_OK)
		goto fail;
	while (next(&t))
		if ((err = parse_line(&t)) != XP_E_OK)
			goto fail;
	if ((t.g->path = xp_gcov_strdup(t.g, name, strlen(name))) == NULL) {
		err = XP_E_NOMEM;
		goto fail;
	}
	*out = t.g;
	return XP_E_OK;
fail:
	xp_gcov_free(t.g);
	return err;
}
