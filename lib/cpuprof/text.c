/*
 * cpuprof/text.c - the lossless text form of CPU profiles (cpuprofile(5)).
 *
 *   CPUPROF-TEXT 1
 *   layout 64le                       slot size and byte order
 *   header 0 3 0 1000 0               every header slot, decimal
 *   sample 1 0x56245ce20162 0x...     count (decimal), then the PCs (hex)
 *   trailer
 *   map 7f12f1dec000-7f12f1ded000 ... one line of the mapped-objects
 *                                     text, verbatim after "map "
 *   noeol                             that text lacked a final newline
 *
 * The binary form is the text's lines in order, so a binary file goes to
 * text and back to the same bytes.
 */
#include <stdio.h>

#include "cpuprof/cpuprof.h"

static const char magic[] = "CPUPROF-TEXT 1";

int xp_cp_detect_text(const unsigned char *head, size_t len)
{
	static const char kw[] = "CPUPROF-TEXT ";
	return len >= sizeof kw - 1 && memcmp(head, kw, sizeof kw - 1) == 0;
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */
/* ------------------------------------------------------------------ */

static void put_s(xp_wbuf *w, const char *s)
{
	xp_wbuf_write(w, s, strlen(s));
}

static void put_dec(xp_wbuf *w, uint64_t v)
{
	char b[24];
	xp_wbuf_write(w, b, xp_fmt_u64(b, v));
}

static void put_hex(xp_wbuf *w, uint64_t v)
{
	char b[24] = "0x";
	xp_wbuf_write(w, b, 2 + xp_fmt_hex64(b + 2, v));
}

xp_err xp_cp_write_text(const void *m, xp_wbuf *w)
{
	const xp_cpuprof *p = m;
	/* No mapping text at all is a NULL text; no offset on it. */
	const char *s = p->text, *end = s != NULL ? s + p->textlen : s;

	put_s(w, magic);
	put_s(w, "\nlayout ");
	put_s(w, p->slot == 8 ? (p->big ? "64be" : "64le")
	                      : (p->big ? "32be" : "32le"));
	put_s(w, "\nheader");
	for (size_t i = 0; i < p->nhdr; i++) {
		put_s(w, " ");
		put_dec(w, p->hdr[i]);
	}
	put_s(w, "\n");
	for (size_t i = 0; i < p->nrec; i++) {
		const xp_cp_rec *r = &p->recs[i];
		put_s(w, "sample ");
		put_dec(w, r->count);
		for (size_t j = 0; j < r->npcs; j++) {
			put_s(w, " ");
			put_hex(w, p->pcs[r->first + j]);
		}
		put_s(w, "\n");
	}
	put_s(w, "trailer\n");
	while (p->textlen > 0 && s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t ll = (size_t)((nl != NULL ? nl : end) - s);
		put_s(w, "map ");
		xp_wbuf_write(w, s, ll);
		put_s(w, "\n");
		if (nl == NULL)
			put_s(w, "noeol\n");
		s = nl != NULL ? nl + 1 : end;
	}
	return w->err;
}

/* ------------------------------------------------------------------ */
/* Reading                                                             */
/* ------------------------------------------------------------------ */

typedef struct {
	xp_lines l;
	const char *p, *end;   /* the rest of the current line */
} tx;

static void skip_blanks(tx *t)
{
	while (t->p < t->end && (*t->p == ' ' || *t->p == '\t'))
		t->p++;
}

/* The next word of the line (NULL at its end). */
static const char *word(tx *t, size_t *len)
{
	const char *s;

	skip_blanks(t);
	s = t->p;
	while (t->p < t->end && *t->p != ' ' && *t->p != '\t')
		t->p++;
	*len = (size_t)(t->p - s);
	return *len > 0 ? s : NULL;
}

/* A number: decimal, or hexadecimal after 0x when hex. */
static xp_err number(tx *t, int hex, uint64_t max, const char *what,
                     uint64_t *v)
{
	size_t len, i = 0;
	const char *s = word(t, &len);
	unsigned base = hex ? 16 : 10;

	if (s == NULL)
		return xp_lines_error(&t->l, XP_E_SYNTAX, t->p, "expected %s",
		                      what);
	if (hex) {
		if (len < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
			return xp_lines_error(&t->l, XP_E_SYNTAX, s,
			                      "expected %s (0x and hex digits)",
			                      what);
		i = 2;
	}
	*v = 0;
	for (; i < len; i++) {
		int c = (unsigned char)s[i], dv;
		if (c >= '0' && c <= '9')
			dv = c - '0';
		else if (hex && c >= 'a' && c <= 'f')
			dv = c - 'a' + 10;
		else if (hex && c >= 'A' && c <= 'F')
			dv = c - 'A' + 10;
		else
			return xp_lines_error(&t->l, XP_E_SYNTAX, s + i,
			                      "bad digit in %s", what);
		if (*v > (max - (uint64_t)dv) / base)
			return xp_lines_error(&t->l, XP_E_SYNTAX, s,
			                      "%s does not fit in a %u-bit slot",
			                      what, max == UINT32_MAX ? 32 : 64);
		*v = *v * base + (uint64_t)dv;
	}
	return XP_E_OK;
}

/* Moves to the next line; 0 at the end of the input. */
static int next_line(tx *t)
{
	if (!xp_lines_next(&t->l))
		return 0;
	t->p = t->l.line;
	t->end = t->l.line + t->l.len;
	return 1;
}

/* The line's keyword is kw (then a blank or the end). */
static int is_kw(const tx *t, const char *kw)
{
	size_t n = strlen(kw);
	return t->l.len >= n && memcmp(t->l.line, kw, n) == 0 &&
	       (t->l.len == n || t->l.line[n] == ' ' || t->l.line[n] == '\t');
}

static xp_err end_of_line(tx *t)
{
	skip_blanks(t);
	if (t->p < t->end)
		return xp_lines_error(&t->l, XP_E_SYNTAX, t->p,
		                      "unexpected text at the end of the line");
	return XP_E_OK;
}

/* The reader's state: the line cursor, what the first lines said, and
 * the profile being read. */
typedef struct {
	tx t;
	unsigned slot;
	int big;
	uint64_t hv[CP_MAX_HDR + 2];   /* the header slots */
	size_t nh;
	xp_cpuprof *p;
	xp_buf mt;             /* the mapped-objects text */
	xp_buf pcs;            /* one sample's PCs */
} rdtext;

/* The magic line, then the layout line: slot size and byte order. */
static xp_err read_layout(rdtext *r)
{
	tx *t = &r->t;
	const char *w;
	size_t wl;

	if (!next_line(t) || t->l.len != sizeof magic - 1 ||
	    memcmp(t->l.line, magic, t->l.len) != 0)
		return xp_lines_error(&t->l, XP_E_SYNTAX, NULL,
		                      "expected \"%s\"", magic);
	if (!next_line(t) || !is_kw(t, "layout"))
		return xp_lines_error(&t->l, XP_E_SYNTAX, NULL,
		                      "expected \"layout 32le|32be|64le|64be\"");
	t->p += 6;
	w = word(t, &wl);
	if (w == NULL || wl != 4 || (memcmp(w, "32", 2) != 0 &&
	                             memcmp(w, "64", 2) != 0) ||
	    (memcmp(w + 2, "le", 2) != 0 && memcmp(w + 2, "be", 2) != 0))
		return xp_lines_error(&t->l, XP_E_SYNTAX, w != NULL ? w : t->p,
		                      "expected 32le, 32be, 64le or 64be");
	r->slot = w[0] == '3' ? 4 : 8;
	r->big = w[2] == 'b';
	return end_of_line(t);
}

/* The header line: every slot, with the binary form's rules on slots 0
 * to 3. */
static xp_err read_header(rdtext *r)
{
	tx *t = &r->t;
	uint64_t *hv = r->hv;
	xp_err err;

	if (!next_line(t) || !is_kw(t, "header"))
		return xp_lines_error(&t->l, XP_E_SYNTAX, NULL,
		                      "expected \"header\" and the header slots");
	t->p += 6;
	for (;;) {
		size_t nh = r->nh;
		skip_blanks(t);
		if (t->p == t->end)
			break;
		if (nh == CP_MAX_HDR + 2)
			return xp_lines_error(&t->l, XP_E_SYNTAX, t->p,
			                      "more than %u header slots",
			                      CP_MAX_HDR + 2);
		const char *at = t->p;
		if ((err = number(t, 0, xp_cp_slot_max(r->slot), "a header slot",
		                  &hv[nh])) != XP_E_OK)
			return err;
		if ((nh == 0 && hv[0] != 0) ||
		    (nh == 2 && hv[2] > 1) || (nh == 3 && hv[3] == 0))
			return xp_lines_error(&t->l, XP_E_SYNTAX, at, "%s",
			                      nh == 0 ? "header slot 0 must be 0" :
			                      nh == 2 ? "format version must be 0, "
			                                "or 1 for Java" :
			                      "sampling period must not be 0");
		r->nh++;
	}
	if (r->nh < 5 || hv[1] != r->nh - 2)
		return xp_lines_error(&t->l, XP_E_SYNTAX, NULL,
		                      "slot 1 must count the %s", r->nh < 5 ?
		                      "header slots after it (at least 5 "
		                      "slots in all)" :
		                      "header slots after it");
	return XP_E_OK;
}

/* A sample line after its keyword: the count and the PCs, added to p. */
static xp_err read_sample(rdtext *r)
{
	tx *t = &r->t;
	uint64_t count, pc;
	size_t n = 0;
	xp_err err;

	t->p += 6;
	r->pcs.len = 0;
	if ((err = number(t, 0, xp_cp_slot_max(r->slot), "a sample count",
	                  &count)) != XP_E_OK)
		return err;
	for (;;) {
		skip_blanks(t);
		if (t->p == t->end)
			break;
		if ((err = number(t, 1, xp_cp_slot_max(r->slot), "a PC",
		                  &pc)) != XP_E_OK)
			return err;
		if ((err = xp_buf_append(&r->pcs, &pc, sizeof pc)) != XP_E_OK)
			return err;
		n++;
	}
	if (n == 0)
		return xp_lines_error(&t->l, XP_E_SYNTAX, t->p,
		                      "a sample needs at least one PC");
	if (count == 0 && n == 1 && ((uint64_t *)r->pcs.p)[0] == 0)
		return xp_lines_error(&t->l, XP_E_SYNTAX, NULL,
		                      "a sample 0 0x0 would read back as "
		                      "the trailer");
	return xp_cp_add_record(r->p, count, (uint64_t *)r->pcs.p, n);
}

/* Sample lines up to the trailer line. */
static xp_err read_samples(rdtext *r)
{
	tx *t = &r->t;
	xp_err err;

	for (;;) {
		if (!next_line(t))
			return xp_lines_error(&t->l, XP_E_SYNTAX,
			                      t->l.line + t->l.len,
			                      "missing \"trailer\" line");
		if (is_kw(t, "trailer")) {
			t->p += 7;
			return end_of_line(t);
		}
		if (!is_kw(t, "sample"))
			return xp_lines_error(&t->l, XP_E_SYNTAX, NULL,
			                      "expected \"sample\" or \"trailer\"");
		if ((err = read_sample(r)) != XP_E_OK)
			return err;
	}
}

/* A "map" line: its text, checked as a line of the mapped objects, goes
 * to mt.  A bad line sets *bad and reading goes on, unless the
 * diagnostics are full. */
static xp_err read_map(rdtext *r, xp_err *bad)
{
	const xp_lines *l = &r->t.l;
	const char *s = l->line + (l->len > 3 ? 4 : 3);
	size_t sl = l->len - (size_t)(s - l->line), pl, col;
	const char *path, *why;
	xp_cpuprof_map m;

	if (xp_cp_line(s, sl, &m, &path, &pl, &why, &col) == CP_LINE_BAD) {
		*bad = xp_lines_error(l, XP_E_SYNTAX, s + col, "%s", why);
		if (xp_diags_full(l->d))
			return *bad;
	}
	if (xp_buf_append(&r->mt, s, sl) != XP_E_OK ||
	    xp_buf_append(&r->mt, "\n", 1) != XP_E_OK)
		return XP_E_NOMEM;
	return XP_E_OK;
}

/* The mapped-objects text after the trailer: "map" lines, perhaps ended
 * by "noeol". */
static xp_err read_maps(rdtext *r)
{
	tx *t = &r->t;
	xp_err bad = XP_E_OK, err;
	int noeol = 0;

	while (next_line(t)) {
		if (noeol)
			return xp_lines_error(&t->l, XP_E_SYNTAX, NULL,
			                      "nothing may follow \"noeol\"");
		if (t->l.len == 5 && memcmp(t->l.line, "noeol", 5) == 0) {
			if (r->mt.len == 0)
				return xp_lines_error(&t->l, XP_E_SYNTAX, NULL,
				                      "\"noeol\" needs a \"map\" "
				                      "line before it");
			r->mt.len--;   /* the newline after the last line */
			noeol = 1;
			continue;
		}
		if (!(t->l.len >= 4 && memcmp(t->l.line, "map ", 4) == 0) &&
		    !(t->l.len == 3 && memcmp(t->l.line, "map", 3) == 0))
			return xp_lines_error(&t->l, XP_E_SYNTAX, NULL,
			                      "expected \"map\" and a line of the "
			                      "mapped objects text, or \"noeol\"");
		if ((err = read_map(r, &bad)) != XP_E_OK)
			return err;
	}
	return bad;
}

/* The module's text reader: layout and header, samples, mapped objects. */
xp_err xp_cp_read_text(const unsigned char *buf, size_t len, const char *name,
                    const xp_load_opts *o, void **out, xp_diags *d)
{
	rdtext r = {0};
	xp_err err;

	*out = NULL;
	xp_lines_init(&r.t.l, buf, len, name, d);
	if ((err = read_layout(&r)) != XP_E_OK ||
	    (err = read_header(&r)) != XP_E_OK)
		return err;
	r.p = xp_cp_new(r.slot, r.big);
	if (r.p == NULL)
		return XP_E_NOMEM;
	r.p->hdr = malloc(r.nh * sizeof *r.p->hdr);
	if (r.p->hdr == NULL) {
		err = XP_E_NOMEM;
		goto fail;
	}
	memcpy(r.p->hdr, r.hv, r.nh * sizeof *r.p->hdr);
	r.p->nhdr = r.nh;
	if ((err = read_samples(&r)) != XP_E_OK ||
	    (err = read_maps(&r)) != XP_E_OK ||
	    (err = xp_cp_set_text(r.p, (const char *)r.mt.p, r.mt.len)) !=
	    XP_E_OK)
		goto fail;
	xp_buf_free(&r.mt);
	xp_buf_free(&r.pcs);
	*out = r.p;
	(void)o;
	return XP_E_OK;
fail:
	xp_buf_free(&r.mt);
	xp_buf_free(&r.pcs);
	xp_cp_free(r.p);
	return err;
}
