/*
 * mpatrol/text.c - the lossless text form of mpatrol profiles: writing
 * it, recognising it and reading it back.  mpatrol(5) gives the grammar;
 * in short, one keyword line per field or record, in file order:
 *
 *   MPATROL-TEXT 1
 *   layout be32
 *   version 10300
 *   bounds 32 256 2048
 *   bins 1024
 *   bin 2 9 0                  (size, allocations, deallocations)
 *   large 0 0                  (when bins > 0)
 *   profiles 1
 *   profile 1 alloc A A A A bytes B B B B free C C C C freed D D D D
 *   callsites 1
 *   callsite 1 parent 0 addr 0x13e38 symbol 1 name 1 profile 1
 *   symbols 1
 *   symbol 1 0x13dd4
 *   strings 8
 *   string 0 ""
 *   string 1 "_start"
 *   end
 *
 * Bins that count nothing are left out.  Blank lines and lines that
 * begin with '#' are ignored after the first line.
 */
#include <inttypes.h>
#include <stdio.h>

#include "mpatrol/mpatrol.h"
#include "base/rd.h"

static const char keyword[] = "MPATROL-TEXT ";

int xp_mp_detect_text(const unsigned char *head, size_t len)
{
	size_t kl = sizeof keyword - 1;
	return len >= kl && memcmp(head, keyword, kl) == 0;
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */
/* ------------------------------------------------------------------ */

/* Bytes p[0..n) as a quoted string. */
static void put_str(xp_wbuf *w, const char *p, size_t n)
{
	xp_wbuf_write(w, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		char e[8];

		if (c == '"' || c == '\\') {
			e[0] = '\\';
			e[1] = (char)c;
			xp_wbuf_write(w, e, 2);
		} else if (c >= 0x20 && c < 0x7f) {
			xp_wbuf_write(w, &p[i], 1);
		} else {
			snprintf(e, sizeof e, "\\x%02x", c);
			xp_wbuf_write(w, e, 4);
		}
	}
	xp_wbuf_write(w, "\"\n", 2);
}

static void put_four(xp_wbuf *w, const char *label, const uint64_t v[4])
{
	xp_wbuf_printf(w, " %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64, label,
	    v[0], v[1], v[2], v[3]);
}

xp_err xp_mp_write_text(const void *mv, xp_wbuf *w)
{
	const xp_mpatrol *m = mv;
	size_t off;

	xp_wbuf_printf(w, "%s1\n", keyword);
	xp_wbuf_printf(w, "layout %s\n", xp_mpatrol_layout_name(m));
	xp_wbuf_printf(w, "version %" PRIu64 "\n", m->version);
	xp_wbuf_printf(w, "bounds %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", m->sbound,
	    m->mbound, m->lbound);
	xp_wbuf_printf(w, "bins %zu\n", m->nbins);
	for (size_t i = 0; i < m->nbins; i++)
		if (m->acounts[i] != 0 || m->dcounts[i] != 0)
			xp_wbuf_printf(w, "bin %zu %" PRIu64 " %" PRIu64 "\n", i + 1,
			    m->acounts[i], m->dcounts[i]);
	if (m->nbins > 0)
		xp_wbuf_printf(w, "large %" PRIu64 " %" PRIu64 "\n", m->atotals,
		    m->dtotals);
	xp_wbuf_printf(w, "profiles %zu\n", m->ndata);
	for (size_t i = 0; i < m->ndata; i++) {
		const xp_mpatrol_data *dt = &m->data[i];
		xp_wbuf_printf(w, "profile %" PRIu64, dt->index);
		put_four(w, "alloc", dt->acount);
		put_four(w, "bytes", dt->atotal);
		put_four(w, "free", dt->dcount);
		put_four(w, "freed", dt->dtotal);
		xp_wbuf_write(w, "\n", 1);
	}
	xp_wbuf_printf(w, "callsites %zu\n", m->nsites);
	for (size_t i = 0; i < m->nsites; i++) {
		const xp_mpatrol_site *s = &m->sites[i];
		xp_wbuf_printf(w, "callsite %" PRIu64 " parent %" PRIu64 " addr 0x%" PRIx64
		    " symbol %" PRIu64 " name %" PRIu64 " profile %" PRIu64 "\n",
		    s->index, s->parent, s->addr, s->symbol, s->name, s->data);
	}
	xp_wbuf_printf(w, "symbols %zu\n", m->nsyms);
	for (size_t i = 0; i < m->nsyms; i++)
		xp_wbuf_printf(w, "symbol %zu 0x%" PRIx64 "\n", i + 1, m->syms[i]);
	xp_wbuf_printf(w, "strings %zu\n", m->strtab_len);
	off = 0;
	while (off < m->strtab_len) {
		const char *s = m->strtab + off;
		const char *nul = memchr(s, '\0', m->strtab_len - off);
		size_t n = nul != NULL ? (size_t)(nul - s) : m->strtab_len - off;

		xp_wbuf_printf(w, "%s %zu ", nul != NULL ? "string" : "rest", off);
		put_str(w, s, n);
		off += n + (nul != NULL);
	}
	xp_wbuf_printf(w, "end\n");
	return w->err;
}

/* ------------------------------------------------------------------ */
/* Reading                                                             */
/* ------------------------------------------------------------------ */

/* Where a record was read, for the diagnostics of xp_mp_check(). */
typedef struct {
	uint32_t lineno;
	uint64_t off;
	const char *line;
	size_t len;
	const char *fld[6];   /* by MP_F_* */
} rec_pos;

typedef struct {
	xp_lines l;
	const char *cur;      /* the scanning position in the line */
	const char *end;
	int eof;
	xp_mp_layout lay;
} tp;

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Moves to the next line that is not blank or a comment; 0 at the end. */
static int next_line(tp *t)
{
	while (xp_lines_next(&t->l)) {
		const char *p = t->l.line, *e = p + t->l.len;
		while (p < e && is_blank(*p))
			p++;
		if (p == e || *p == '#')
			continue;
		t->cur = t->l.line;
		t->end = t->l.line + t->l.len;
		return 1;
	}
	t->eof = 1;
	t->cur = t->end = t->l.line + t->l.len;
	return 0;
}

/* The next token of the line (NULL at its end). */
static const char *token(tp *t, size_t *n)
{
	const char *s;

	while (t->cur < t->end && is_blank(*t->cur))
		t->cur++;
	if (t->cur == t->end)
		return NULL;
	s = t->cur;
	while (t->cur < t->end && !is_blank(*t->cur))
		t->cur++;
	*n = (size_t)(t->cur - s);
	return s;
}

static xp_err err_at(tp *t, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static xp_err err_at(tp *t, const char *at, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return xp_lines_error(&t->l, XP_E_SYNTAX, at, "%s", msg);
}

/* Expects the keyword kw as the first token of a new line. */
static xp_err expect_line(tp *t, const char *kw)
{
	const char *s;
	size_t n;

	if (!next_line(t))
		return err_at(t, t->end, "unexpected end of text: expected "
		              "'%s'", kw);
	s = token(t, &n);
	if (s == NULL || n != strlen(kw) || memcmp(s, kw, n) != 0)
		return err_at(t, s, "expected '%s'", kw);
	return XP_E_OK;
}

/* Expects the keyword kw as the next token of the line. */
static xp_err expect_word(tp *t, const char *kw)
{
	size_t n;
	const char *s = token(t, &n);

	if (s == NULL)
		return err_at(t, t->end, "expected '%s'", kw);
	if (n != strlen(kw) || memcmp(s, kw, n) != 0)
		return err_at(t, s, "expected '%s'", kw);
	return XP_E_OK;
}

/* A number (decimal, or hexadecimal after 0x) no larger than max. */
static xp_err number(tp *t, uint64_t max, const char *what, uint64_t *v,
                     const char **at)
{
	size_t n;
	const char *s = token(t, &n);
	uint64_t x = 0;

	if (s == NULL)
		return err_at(t, t->end, "expected %s", what);
	if (at != NULL)
		*at = s;
	int bad = xp_parse_u64(s, n, &x);
	if (bad < 0)
		return err_at(t, s, "expected %s, not '%.*s'", what,
		              (int)(n > 40 ? 40 : n), s);
	if (bad > 0)
		return err_at(t, s, "%s does not fit in 64 bits", what);
	if (x > max)
		return err_at(t, s, "%s %" PRIu64 " does not fit in %u bytes",
		              what, x, max == UINT32_MAX ? 4u : 8u);
	*v = x;
	return XP_E_OK;
}

static xp_err int_field(tp *t, const char *what, uint64_t *v,
                        const char **at)
{
	return number(t, xp_mp_max(t->lay.isz), what, v, at);
}

static xp_err end_of_line(tp *t)
{
	size_t n;
	const char *s = token(t, &n);

	if (s != NULL)
		return err_at(t, s, "unexpected '%.*s' at the end of the line",
		              (int)(n > 40 ? 40 : n), s);
	return XP_E_OK;
}

/* "KEYWORD N" with a count. */
static xp_err count_line(tp *t, const char *kw, uint64_t *n)
{
	xp_err err = expect_line(t, kw);

	if (err == XP_E_OK)
		err = number(t, xp_mp_max(t->lay.isz), "a count", n, NULL);
	if (err == XP_E_OK)
		err = end_of_line(t);
	return err;
}

/* A quoted string at the end of the line, appended to b. */
static xp_err quoted(tp *t, xp_buf *b)
{
	const char *p = t->cur;

	while (p < t->end && is_blank(*p))
		p++;
	if (p == t->end || *p != '"')
		return err_at(t, p, "expected a quoted string");
	p++;
	for (;;) {
		char c;

		if (p == t->end)
			return err_at(t, p, "unterminated string");
		c = *p;
		if (c == '"')
			break;
		if (c == '\\') {
			int hi, lo;
			if (p + 1 < t->end && (p[1] == '"' || p[1] == '\\')) {
				c = p[1];
				p += 2;
			} else if (p + 3 < t->end && p[1] == 'x' &&
			           (hi = xp_hexval(p[2])) >= 0 &&
			           (lo = xp_hexval(p[3])) >= 0) {
				c = (char)(hi << 4 | lo);
				if (c == '\0')
					return err_at(t, p, "a NUL inside a "
					              "string: end the string "
					              "there");
				p += 4;
			} else {
				return err_at(t, p, "invalid escape: use \\\\, "
				              "\\\" or \\xHH");
			}
		} else if ((unsigned char)c < 0x20 || c == 0x7f) {
			return err_at(t, p, "control character in a string: "
			              "write it as \\xHH");
		} else {
			p++;
		}
		if (xp_buf_append(b, &c, 1) != XP_E_OK)
			return XP_E_NOMEM;
	}
	t->cur = p + 1;
	return end_of_line(t);
}

/* The reader's state: the scanner, the model it fills and where each of
 * the model's records was read. */
typedef struct {
	tp *t;
	xp_mpatrol *m;
	rec_pos *dpos, *spos;   /* by record, as m->data and m->sites */
} pstate;

/* The first line: the keyword and the version of the text form. */
static xp_err magic_line(pstate *p)
{
	tp *t = p->t;
	uint64_t v;
	const char *at;
	xp_err err;

	if (!xp_lines_next(&t->l))
		return err_at(t, NULL, "empty text");
	t->cur = t->l.line;
	t->end = t->l.line + t->l.len;
	if ((err = expect_word(t, "MPATROL-TEXT")) != XP_E_OK)
		return err;
	if ((err = number(t, UINT64_MAX, "a version", &v, &at)) != XP_E_OK)
		return err;
	if (v != 1)
		return xp_lines_error(&t->l, XP_E_VERSION, at,
		                      "unsupported text version %" PRIu64
		                      " (this program reads version 1)", v);
	return end_of_line(t);
}

/* "layout NAME": the byte order and sizes that bound every number after it. */
static xp_err layout_line(pstate *p)
{
	tp *t = p->t;
	const char *s;
	size_t n;
	char lb[16];
	xp_err err;

	if ((err = expect_line(t, "layout")) != XP_E_OK)
		return err;
	if ((s = token(t, &n)) == NULL)
		return err_at(t, t->end, "expected a layout");
	if (n >= sizeof lb)
		n = sizeof lb - 1;
	memcpy(lb, s, n);
	lb[n] = '\0';
	if (xp_mp_layout_parse(lb, &t->lay) != 0)
		return err_at(t, s, "unknown layout '%s': expected be32, "
		              "le32, be64 or le64, optionally followed by "
		              "p32 or p64", lb);
	if ((err = end_of_line(t)) != XP_E_OK)
		return err;
	p->m->big_endian = t->lay.big;
	p->m->int_size = t->lay.isz;
	p->m->ptr_size = t->lay.psz;
	return XP_E_OK;
}

/* "version V": the version of mpatrol that wrote the profile. */
static xp_err version_line(pstate *p)
{
	xp_err err;

	if ((err = expect_line(p->t, "version")) != XP_E_OK ||
	    (err = int_field(p->t, "a version", &p->m->version, NULL)) !=
	    XP_E_OK)
		return err;
	return end_of_line(p->t);
}

/* "bounds S M L": the three allocation bounds. */
static xp_err bounds_line(pstate *p)
{
	tp *t = p->t;
	uint64_t b3[3];
	xp_err err;

	if ((err = expect_line(t, "bounds")) != XP_E_OK)
		return err;
	for (int i = 0; i < 3; i++)
		if ((err = int_field(t, "an allocation bound", &b3[i], NULL)) !=
		    XP_E_OK)
			return err;
	if ((err = end_of_line(t)) != XP_E_OK)
		return err;
	p->m->sbound = b3[0];
	p->m->mbound = b3[1];
	p->m->lbound = b3[2];
	return XP_E_OK;
}

/* "bins N": the number of bins, and zeroed counts for each. */
static xp_err bins_line(pstate *p)
{
	tp *t = p->t;
	xp_mpatrol *m = p->m;
	uint64_t v;
	const char *at;
	xp_err err;

	if ((err = expect_line(t, "bins")) != XP_E_OK ||
	    (err = int_field(t, "a bin count", &v, &at)) != XP_E_OK)
		return err;
	if (v > XP_MPATROL_MAX_BINS)
		return err_at(t, at, "%" PRIu64 " bins exceed the limit of %zu",
		              v, XP_MPATROL_MAX_BINS);
	if ((err = end_of_line(t)) != XP_E_OK)
		return err;
	m->nbins = (size_t)v;
	if (m->nbins > 0) {
		m->acounts = calloc(m->nbins, sizeof *m->acounts);
		m->dcounts = calloc(m->nbins, sizeof *m->dcounts);
		if (m->acounts == NULL || m->dcounts == NULL)
			return XP_E_NOMEM;
	}
	return XP_E_OK;
}

/* The rest of "bin SIZE A D" after its keyword; *last is the size before. */
static xp_err bin_line(pstate *p, uint64_t *last)
{
	tp *t = p->t;
	xp_mpatrol *m = p->m;
	uint64_t v;
	const char *at;
	xp_err err;

	if ((err = int_field(t, "a bin size", &v, &at)) != XP_E_OK)
		return err;
	if (v == 0 || v > m->nbins)
		return err_at(t, at, "bin size %" PRIu64 " out of range 1..%zu",
		              v, m->nbins);
	if (v <= *last)
		return err_at(t, at, "bin %" PRIu64 " after bin %" PRIu64
		              ": bins go in increasing order", v, *last);
	*last = v;
	if ((err = int_field(t, "an allocation count", &m->acounts[v - 1],
	                     NULL)) != XP_E_OK ||
	    (err = int_field(t, "a deallocation count", &m->dcounts[v - 1],
	                     NULL)) != XP_E_OK)
		return err;
	return end_of_line(t);
}

/* The rest of "large A D" after its keyword: the totals beyond the bins. */
static xp_err large_line(pstate *p)
{
	xp_err err;

	if ((err = int_field(p->t, "a large allocation total",
	                     &p->m->atotals, NULL)) != XP_E_OK ||
	    (err = int_field(p->t, "a large deallocation total",
	                     &p->m->dtotals, NULL)) != XP_E_OK)
		return err;
	return end_of_line(p->t);
}

/* The bin lines, "large" when there are bins, then "profiles N" (*cnt). */
static xp_err bin_lines(pstate *p, uint64_t *cnt)
{
	tp *t = p->t;
	size_t nbins = p->m->nbins, n;
	uint64_t last = 0;
	const char *s;
	xp_err err;

	for (;;) {
		if (!next_line(t))
			return err_at(t, t->end, "unexpected end of text: "
			              "expected '%s'", nbins ? "large"
			                                     : "profiles");
		s = token(t, &n);
		if (n != 3 || memcmp(s, "bin", 3) != 0)
			break;
		if ((err = bin_line(p, &last)) != XP_E_OK)
			return err;
	}
	if (nbins > 0) {
		if (n != 5 || memcmp(s, "large", 5) != 0)
			return err_at(t, s, "expected 'bin' or 'large'");
		if ((err = large_line(p)) != XP_E_OK)
			return err;
		if (!next_line(t))
			return err_at(t, t->end, "unexpected end of text: "
			              "expected 'profiles'");
		s = token(t, &n);
	}
	if (n != 8 || memcmp(s, "profiles", 8) != 0)
		return err_at(t, s, nbins ? "expected 'profiles'"
		                          : "expected 'bin' or 'profiles'");
	if ((err = int_field(t, "a count", cnt, NULL)) != XP_E_OK)
		return err;
	return end_of_line(t);
}

/* Room for record n in *pos, which has as many places as *recs (cap). */
static xp_err grow_rec(void **recs, size_t *cap, size_t n, size_t sz,
                       rec_pos **pos)
{
	rec_pos *rp;

	if (xp_grow(recs, cap, n, sz))
		return XP_E_NOMEM;
	rp = realloc(*pos, *cap * sizeof **pos);
	if (rp == NULL)
		return XP_E_NOMEM;
	*pos = rp;
	return XP_E_OK;
}

/* Notes where the current line is, for the diagnostics of xp_mp_check(). */
static void set_pos(rec_pos *rp, const tp *t)
{
	rp->lineno = t->l.lineno;
	rp->off = t->l.off;
	rp->line = t->l.line;
	rp->len = t->l.len;
}

/* "profile I alloc .. bytes .. free .. freed ..", four counts each;
 * *cap is the room in m->data and dpos. */
static xp_err profile_line(pstate *p, size_t *cap)
{
	static const char *const labels[4] = { "alloc", "bytes", "free",
	                                       "freed" };
	tp *t = p->t;
	xp_mpatrol *m = p->m;
	xp_mpatrol_data *dt;
	rec_pos *rp;
	xp_err err;

	if ((err = expect_line(t, "profile")) != XP_E_OK)
		return err;
	if ((err = grow_rec((void **)&m->data, cap, m->ndata, sizeof *m->data,
	                    &p->dpos)) != XP_E_OK)
		return err;
	rp = &p->dpos[m->ndata];
	dt = &m->data[m->ndata];
	memset(dt, 0, sizeof *dt);
	set_pos(rp, t);
	if ((err = int_field(t, "a profile index", &dt->index,
	                     &rp->fld[MP_F_INDEX])) != XP_E_OK)
		return err;
	for (int k = 0; k < 4; k++) {
		uint64_t *a = k == 0 ? dt->acount : k == 1 ? dt->atotal
		            : k == 2 ? dt->dcount : dt->dtotal;
		if ((err = expect_word(t, labels[k])) != XP_E_OK)
			return err;
		for (int j = 0; j < 4; j++)
			if ((err = int_field(t, "a count", &a[j], NULL)) !=
			    XP_E_OK)
				return err;
	}
	if ((err = end_of_line(t)) != XP_E_OK)
		return err;
	m->ndata++;
	return XP_E_OK;
}

/* "callsite I parent P addr A symbol S name N profile D"; *cap is the
 * room in m->sites and spos. */
static xp_err callsite_line(pstate *p, size_t *cap)
{
	static const char *const names[6] = { NULL, "parent", "addr",
	                                      "symbol", "name", "profile" };
	tp *t = p->t;
	xp_mpatrol *m = p->m;
	xp_mpatrol_site *st;
	rec_pos *rp;
	uint64_t *f[6];
	xp_err err;

	if ((err = expect_line(t, "callsite")) != XP_E_OK)
		return err;
	if ((err = grow_rec((void **)&m->sites, cap, m->nsites,
	                    sizeof *m->sites, &p->spos)) != XP_E_OK)
		return err;
	rp = &p->spos[m->nsites];
	st = &m->sites[m->nsites];
	memset(st, 0, sizeof *st);
	set_pos(rp, t);
	f[MP_F_INDEX] = &st->index;
	f[MP_F_PARENT] = &st->parent;
	f[MP_F_ADDR] = &st->addr;
	f[MP_F_SYMBOL] = &st->symbol;
	f[MP_F_NAME] = &st->name;
	f[MP_F_DATA] = &st->data;
	for (int k = 0; k < 6; k++) {
		if (names[k] != NULL &&
		    (err = expect_word(t, names[k])) != XP_E_OK)
			return err;
		err = number(t, xp_mp_max(k == MP_F_ADDR ? t->lay.psz
		                                      : t->lay.isz),
		             k == MP_F_ADDR ? "an address" : "a number",
		             f[k], &rp->fld[k]);
		if (err != XP_E_OK)
			return err;
	}
	if ((err = end_of_line(t)) != XP_E_OK)
		return err;
	m->nsites++;
	return XP_E_OK;
}

/* "symbol I 0xADDR", where I must be want; *cap is the room in m->syms. */
static xp_err symbol_line(pstate *p, uint64_t want, size_t *cap)
{
	tp *t = p->t;
	xp_mpatrol *m = p->m;
	uint64_t v;
	const char *at;
	xp_err err;

	if ((err = expect_line(t, "symbol")) != XP_E_OK ||
	    (err = int_field(t, "a symbol index", &v, &at)) != XP_E_OK)
		return err;
	if (v != want)
		return err_at(t, at, "symbol %" PRIu64 " where symbol %" PRIu64
		              " was expected", v, want);
	if (xp_grow(&m->syms, cap, m->nsyms, sizeof *m->syms))
		return XP_E_NOMEM;
	if ((err = number(t, xp_mp_max(t->lay.psz), "an address",
	                  &m->syms[m->nsyms], NULL)) != XP_E_OK ||
	    (err = end_of_line(t)) != XP_E_OK)
		return err;
	m->nsyms++;
	return XP_E_OK;
}

/* "string OFF "..."" (NUL-terminated) or "rest OFF "..."" (the table's
 * unterminated tail), appended to str; cnt is the table's size. */
static xp_err string_line(pstate *p, xp_buf *str, uint64_t cnt)
{
	tp *t = p->t;
	const char *s, *at;
	size_t n;
	uint64_t v;
	int rest;
	xp_err err;

	if (!next_line(t))
		return err_at(t, t->end, "unexpected end of text: the strings "
		              "hold %zu of %" PRIu64 " bytes", str->len, cnt);
	s = token(t, &n);
	rest = n == 4 && memcmp(s, "rest", 4) == 0;
	if (!rest && !(n == 6 && memcmp(s, "string", 6) == 0))
		return err_at(t, s, "expected 'string' or 'rest'");
	if ((err = number(t, UINT64_MAX, "an offset", &v, &at)) != XP_E_OK)
		return err;
	if (v != str->len)
		return err_at(t, at, "string at offset %" PRIu64 " where "
		              "offset %zu was expected", v, str->len);
	if ((err = quoted(t, str)) != XP_E_OK)
		return err;
	if (!rest && (err = xp_buf_append(str, "", 1)) != XP_E_OK)
		return err;
	if (str->len > cnt)
		return err_at(t, s, "the strings hold %zu bytes, more than "
		              "the %" PRIu64 " of the table", str->len, cnt);
	if (rest && str->len != cnt)
		return err_at(t, s, "'rest' must end the table (%zu of %"
		              PRIu64 " bytes)", str->len, cnt);
	return XP_E_OK;
}

/* "strings N" and the string lines that fill the N bytes of the table. */
static xp_err strings_section(pstate *p)
{
	xp_buf str = { 0 };
	uint64_t cnt;
	xp_err err;

	if ((err = count_line(p->t, "strings", &cnt)) != XP_E_OK)
		return err;
	while (str.len < cnt) {
		if ((err = string_line(p, &str, cnt)) != XP_E_OK) {
			xp_buf_free(&str);
			return err;
		}
	}
	p->m->strtab = (char *)str.p;
	p->m->strtab_len = str.len;
	return XP_E_OK;
}

/* "end", and nothing but blank lines and comments after it. */
static xp_err end_line(pstate *p)
{
	tp *t = p->t;
	xp_err err;

	if ((err = expect_line(t, "end")) != XP_E_OK ||
	    (err = end_of_line(t)) != XP_E_OK)
		return err;
	if (next_line(t))
		return err_at(t, t->cur, "text after 'end'");
	return XP_E_OK;
}

/* The whole text, section by section in file order. */
static xp_err parse(pstate *p)
{
	uint64_t cnt;
	size_t cap;
	xp_err err;

	if ((err = magic_line(p)) != XP_E_OK ||
	    (err = layout_line(p)) != XP_E_OK ||
	    (err = version_line(p)) != XP_E_OK ||
	    (err = bounds_line(p)) != XP_E_OK ||
	    (err = bins_line(p)) != XP_E_OK ||
	    (err = bin_lines(p, &cnt)) != XP_E_OK)
		return err;
	cap = 0;
	for (uint64_t i = 0; i < cnt; i++)
		if ((err = profile_line(p, &cap)) != XP_E_OK)
			return err;
	if ((err = count_line(p->t, "callsites", &cnt)) != XP_E_OK)
		return err;
	cap = 0;
	for (uint64_t i = 0; i < cnt; i++)
		if ((err = callsite_line(p, &cap)) != XP_E_OK)
			return err;
	if ((err = count_line(p->t, "symbols", &cnt)) != XP_E_OK)
		return err;
	cap = 0;
	for (uint64_t i = 0; i < cnt; i++)
		if ((err = symbol_line(p, i + 1, &cap)) != XP_E_OK)
			return err;
	if ((err = strings_section(p)) != XP_E_OK)
		return err;
	return end_line(p);
}

xp_err xp_mp_read_text(const unsigned char *buf, size_t len, const char *name,
                    const xp_load_opts *o, void **out, xp_diags *d)
{
	xp_mpatrol *m = calloc(1, sizeof *m);
	xp_mp_fail f;
	xp_err err;
	tp t;
	pstate p = { &t, m, NULL, NULL };

	*out = NULL;
	if (m == NULL)
		return XP_E_NOMEM;
	memset(&t, 0, sizeof t);
	xp_lines_init(&t.l, buf, len, name, d);
	err = parse(&p);
	if (err == XP_E_OK && (err = xp_mp_check(m, &f)) == XP_E_CORRUPT) {
		const rec_pos *rp = f.at == MP_AT_DATA ? &p.dpos[f.rec]
		                  : &p.spos[f.rec];
		const char *at = rp->fld[f.field];
		err = xp_diag_text(d, XP_E_SYNTAX, name, rp->lineno,
		                   (uint32_t)(at - rp->line) + 1, rp->off,
		                   rp->line, rp->len, "%s", f.msg);
	}
	free(p.dpos);
	free(p.spos);
	if (err != XP_E_OK) {
		xp_mp_free(m);
		return err;
	}
	*out = m;
	return XP_E_OK;
}
