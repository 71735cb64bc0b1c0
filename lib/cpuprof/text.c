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

xp_err xp_cp_read_text(const unsigned char *buf, size_t len, const char *name,
                    const xp_load_opts *o, void **out, xp_diags *d)
{
	xp_cpuprof *p = NULL;
	xp_buf mt = {0}, pcs = {0};
	uint64_t hv[CP_MAX_HDR + 2];
	size_t nh = 0, wl;
	unsigned slot;
	int big, noeol = 0;
	xp_err err = XP_E_SYNTAX;
	const char *w;
	tx t;

	*out = NULL;
	xp_lines_init(&t.l, buf, len, name, d);
	if (!next_line(&t) || t.l.len != sizeof magic - 1 ||
	    memcmp(t.l.line, magic, t.l.len) != 0)
		return xp_lines_error(&t.l, XP_E_SYNTAX, NULL,
		                      "expected \"%s\"", magic);
	if (!next_line(&t) || !is_kw(&t, "layout"))
		return xp_lines_error(&t.l, XP_E_SYNTAX, NULL,
		                      "expected \"layout 32le|32be|64le|64be\"");
	t.p += 6;
	w = word(&t, &wl);
	if (w == NULL || wl != 4 || (memcmp(w, "32", 2) != 0 &&
	                             memcmp(w, "64", 2) != 0) ||
	    (memcmp(w + 2, "le", 2) != 0 && memcmp(w + 2, "be", 2) != 0))
		return xp_lines_error(&t.l, XP_E_SYNTAX, w != NULL ? w : t.p,
		                      "expected 32le, 32be, 64le or 64be");
	slot = w[0] == '3' ? 4 : 8;
	big = w[2] == 'b';
	if ((err = end_of_line(&t)) != XP_E_OK)
		return err;
	if (!next_line(&t) || !is_kw(&t, "header"))
		return xp_lines_error(&t.l, XP_E_SYNTAX, NULL,
		                      "expected \"header\" and the header slots");
	t.p += 6;
	for (;;) {
		skip_blanks(&t);
		if (t.p == t.end)
			break;
		if (nh == CP_MAX_HDR + 2)
			return xp_lines_error(&t.l, XP_E_SYNTAX, t.p,
			                      "more than %u header slots",
			                      CP_MAX_HDR + 2);
		const char *at = t.p;
		if ((err = number(&t, 0, xp_cp_slot_max(slot), "a header slot",
		                  &hv[nh])) != XP_E_OK)
			return err;
		if ((nh == 0 && hv[0] != 0) ||
		    (nh == 2 && hv[2] > 1) || (nh == 3 && hv[3] == 0))
			return xp_lines_error(&t.l, XP_E_SYNTAX, at, "%s",
			                      nh == 0 ? "header slot 0 must be 0" :
			                      nh == 2 ? "format version must be 0, "
			                                "or 1 for Java" :
			                      "sampling period must not be 0");
		nh++;
	}
	if (nh < 5 || hv[1] != nh - 2)
		return xp_lines_error(&t.l, XP_E_SYNTAX, NULL,
		                      "slot 1 must count the %s", nh < 5 ?
		                      "header slots after it (at least 5 "
		                      "slots in all)" :
		                      "header slots after it");
	p = xp_cp_new(slot, big);
	if (p == NULL)
		return XP_E_NOMEM;
	p->hdr = malloc(nh * sizeof *p->hdr);
	if (p->hdr == NULL) {
		err = XP_E_NOMEM;
		goto fail;
	}
	memcpy(p->hdr, hv, nh * sizeof *p->hdr);
	p->nhdr = nh;

	/* Samples up to the trailer. */
	for (;;) {
		if (!next_line(&t)) {
			err = xp_lines_error(&t.l, XP_E_SYNTAX, t.l.line + t.l.len,
			                     "missing \"trailer\" line");
			goto fail;
		}
		if (is_kw(&t, "trailer")) {
			t.p += 7;
			if ((err = end_of_line(&t)) != XP_E_OK)
				goto fail;
			break;
		}
		if (!is_kw(&t, "sample")) {
			err = xp_lines_error(&t.l, XP_E_SYNTAX, NULL,
			                     "expected \"sample\" or \"trailer\"");
			goto fail;
		}
		t.p += 6;
		uint64_t count, pc;
		size_t n = 0;
		pcs.len = 0;
		if ((err = number(&t, 0, xp_cp_slot_max(slot), "a sample count",
		                  &count)) != XP_E_OK)
			goto fail;
		for (;;) {
			skip_blanks(&t);
			if (t.p == t.end)
				break;
			if ((err = number(&t, 1, xp_cp_slot_max(slot), "a PC",
			                  &pc)) != XP_E_OK)
				goto fail;
			if ((err = xp_buf_append(&pcs, &pc, sizeof pc)) !=
			    XP_E_OK)
				goto fail;
			n++;
		}
		if (n == 0) {
			err = xp_lines_error(&t.l, XP_E_SYNTAX, t.p,
			                     "a sample needs at least one PC");
			goto fail;
		}
		if (count == 0 && n == 1 && ((uint64_t *)pcs.p)[0] == 0) {
			err = xp_lines_error(&t.l, XP_E_SYNTAX, NULL,
			                     "a sample 0 0x0 would read back as "
			                     "the trailer");
			goto fail;
		}
		if ((err = xp_cp_add_record(p, count, (uint64_t *)pcs.p, n)) !=
		    XP_E_OK)
			goto fail;
	}

	/* The mapped-objects text. */
	while (next_line(&t)) {
		if (noeol) {
			err = xp_lines_error(&t.l, XP_E_SYNTAX, NULL,
			                     "nothing may follow \"noeol\"");
			goto fail;
		}
		if (t.l.len == 5 && memcmp(t.l.line, "noeol", 5) == 0) {
			if (mt.len == 0) {
				err = xp_lines_error(&t.l, XP_E_SYNTAX, NULL,
				                     "\"noeol\" needs a \"map\" "
				                     "line before it");
				goto fail;
			}
			mt.len--;   /* the newline after the last line */
			noeol = 1;
			continue;
		}
		if (!(t.l.len >= 4 && memcmp(t.l.line, "map ", 4) == 0) &&
		    !(t.l.len == 3 && memcmp(t.l.line, "map", 3) == 0)) {
			err = xp_lines_error(&t.l, XP_E_SYNTAX, NULL,
			                     "expected \"map\" and a line of the "
			                     "mapped objects text, or \"noeol\"");
			goto fail;
		}
		{
			const char *s = t.l.line + (t.l.len > 3 ? 4 : 3);
			size_t sl = t.l.len - (size_t)(s - t.l.line), pl, col;
			const char *path, *why;
			xp_cpuprof_map m;

			if (xp_cp_line(s, sl, &m, &path, &pl, &why, &col) ==
			    CP_LINE_BAD) {
				err = xp_lines_error(&t.l, XP_E_SYNTAX, s + col,
				                     "%s", why);
				if (xp_diags_full(d))
					goto fail;
			}
			if (xp_buf_append(&mt, s, sl) != XP_E_OK ||
			    xp_buf_append(&mt, "\n", 1) != XP_E_OK) {
				err = XP_E_NOMEM;
				goto fail;
			}
		}
	}
	if (err != XP_E_OK)
		goto fail;
	if ((err = xp_cp_set_text(p, (const char *)mt.p, mt.len)) != XP_E_OK)
		goto fail;
	xp_buf_free(&mt);
	xp_buf_free(&pcs);
	*out = p;
	(void)o;
	return XP_E_OK;
fail:
	xp_buf_free(&mt);
	xp_buf_free(&pcs);
	xp_cp_free(p);
	return err;
}
