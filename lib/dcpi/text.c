/*
 * dcpi/text.c - the lossless text form of DCPI profiles (dcpi(5), TEXT
 * FORM), written and read back: the header's lines as they are, then one
 * line per chunk with its samples.  The chunks pass the same rules as in
 * the binary reader (xp_dcpi_chunk_rule, module.c).
 */
#include <inttypes.h>
#include <stdio.h>

#include "dcpi/dcpi.h"
#include "base/rd.h"

xp_err xp_dcpi_write_text(const void *mv, xp_wbuf *w)
{
	const xp_dcpi *m = mv;
	uint64_t addrs, samples;
	char line[64];
	int n;

	xp_wbuf_write(w, XP_DCPI_TEXT_MAGIC, sizeof XP_DCPI_TEXT_MAGIC - 1);
	xp_wbuf_write(w, " " XP_DCPI_TEXT_VERSION "\n", 3);
	xp_wbuf_write(w, m->hdr, m->hdr_len);
	for (size_t i = 0; i < m->nchunks; i++) {
		const xp_dcpi_chunk *c = &m->chunks[i];
		n = snprintf(line, sizeof line, "chunk 0x%" PRIx32 " %" PRIu32
		             "\n", c->offset, c->number);
		xp_wbuf_write(w, line, (size_t)n);
		for (uint32_t j = 0; j < c->number; j++) {
			n = snprintf(line, sizeof line, "0x%" PRIx64 " %" PRIu32
			             "\n", (uint64_t)c->offset + j,
			             m->counts[c->first + j]);
			xp_wbuf_write(w, line, (size_t)n);
		}
	}
	xp_dcpi_footer(m, &addrs, &samples);
	n = snprintf(line, sizeof line, "footer %" PRIu64 " %" PRIu64 "\n",
	             addrs, samples);
	xp_wbuf_write(w, line, (size_t)n);
	return w->err;
}

/* The fields of a sample line: at most 3, split at runs of blanks. */
typedef struct {
	const char *s[4];
	size_t n[4];
	int count;
} fields;

static void split(const xp_lines *l, fields *f)
{
	const char *p = l->line, *e = l->line + l->len;

	f->count = 0;
	while (p < e) {
		const char *q;
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		if (p == e)
			break;
		q = p;
		while (q < e && *q != ' ' && *q != '\t')
			q++;
		if (f->count == 4)
			break;
		f->s[f->count] = p;
		f->n[f->count] = (size_t)(q - p);
		f->count++;
		p = q;
	}
}

/* A decimal u32 field; -1 when it is not one. */
static int field_dec(const char *s, size_t n, uint32_t *v)
{
	uint64_t x = 0;

	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		x = x * 10 + (uint64_t)(s[i] - '0');
		if (x > UINT32_MAX)
			return -1;
	}
	*v = (uint32_t)x;
	return 0;
}

/* A 0x-prefixed hexadecimal field of at most 64 bits. */
static int field_hex(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	if (n < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return -1;
	for (size_t i = 2; i < n; i++) {
		int c = (unsigned char)s[i], dg;
		if (c >= '0' && c <= '9')
			dg = c - '0';
		else if (c >= 'a' && c <= 'f')
			dg = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			dg = c - 'A' + 10;
		else
			return -1;
		if (x >> 60)
			return -1;
		x = x << 4 | (uint64_t)dg;
	}
	*v = x;
	return 0;
}

/* The reader's state: the line cursor and its fields, the profile being
 * read and where its chunks stand. */
typedef struct {
	xp_lines l;
	fields f;              /* the current line's */
	xp_dcpi *m;
	size_t ccap, cap;      /* room for chunks and for counts */
	size_t have;           /* count lines of the last chunk so far */
	int in_chunk, footer;
	uint32_t chunk_line;   /* the line of the last chunk */
} rdtext;

/* The first line, "DCPI-TEXT 1", then the header as dcpi(5) gives it. */
static xp_err read_head(rdtext *r, const unsigned char *buf, size_t len)
{
	xp_lines *l = &r->l;
	const fields *f = &r->f;
	size_t start, hend;
	xp_err err;

	xp_lines_next(l);
	split(l, &r->f);
	if (f->count != 2 || f->n[0] != sizeof XP_DCPI_TEXT_MAGIC - 1 ||
	    memcmp(f->s[0], XP_DCPI_TEXT_MAGIC, f->n[0]) != 0 ||
	    f->s[0] != l->line)
		return xp_lines_error(l, XP_E_SYNTAX, NULL, "expected \"%s %s\"",
		                      XP_DCPI_TEXT_MAGIC, XP_DCPI_TEXT_VERSION);
	if (f->n[1] != 1 || f->s[1][0] != '1')
		return xp_lines_error(l, XP_E_VERSION, f->s[1], "unsupported "
		                      "DCPI-TEXT version \"%.*s\" (this program "
		                      "reads version %s)", (int)f->n[1], f->s[1],
		                      XP_DCPI_TEXT_VERSION);
	start = (size_t)(l->p - l->base);
	err = xp_dcpi_parse_header(buf + start, len - start, l->name, 1,
	                           start, r->m, &hend, l->d);
	if (err != XP_E_OK)
		return err;
	l->p += hend;
	l->lineno = 1 + (uint32_t)r->m->nlines;
	return XP_E_OK;
}

/* Whether the last chunk still lacks count lines. */
static int chunk_short(const rdtext *r)
{
	return r->in_chunk && r->have < r->m->chunks[r->m->nchunks - 1].number;
}

/* The error for a chunk cut short by the current line. */
static xp_err short_chunk(const rdtext *r)
{
	return xp_lines_error(&r->l, XP_E_SYNTAX, r->f.s[0], "the chunk of "
	                      "line %" PRIu32 " declares %" PRIu32 " counts, "
	                      "found %zu", r->chunk_line,
	                      r->m->chunks[r->m->nchunks - 1].number, r->have);
}

/* A chunk line: chunk 0x<offset> <number>, under the binary form's rules. */
static xp_err read_chunk(rdtext *r)
{
	const xp_lines *l = &r->l;
	const fields *f = &r->f;
	const xp_dcpi_chunk *prev;
	uint64_t hx;
	uint32_t b;
	char msg[256];
	xp_err err;

	if (chunk_short(r))
		return short_chunk(r);
	if (f->count != 3)
		return xp_lines_error(l, XP_E_SYNTAX, f->s[0], "expected chunk "
		                      "0x<offset> <number>");
	if (field_hex(f->s[1], f->n[1], &hx) != 0 || hx > UINT32_MAX)
		return xp_lines_error(l, XP_E_SYNTAX, f->s[1], "bad chunk offset "
		                      "\"%.*s\" (expected 0x and at most 8 hex "
		                      "digits)", (int)f->n[1], f->s[1]);
	if (field_dec(f->s[2], f->n[2], &b) != 0)
		return xp_lines_error(l, XP_E_SYNTAX, f->s[2], "bad chunk length "
		                      "\"%.*s\" (expected a 32-bit decimal)",
		                      (int)f->n[2], f->s[2]);
	prev = r->m->nchunks > 0 ? &r->m->chunks[r->m->nchunks - 1] : NULL;
	if (xp_dcpi_chunk_rule(r->m, prev, (uint32_t)hx, b, msg,
	                       sizeof msg) != NULL)
		return xp_lines_error(l, XP_E_SYNTAX, f->s[1], "%s", msg);
	if ((err = xp_dcpi_add_chunk(r->m, &r->ccap, (uint32_t)hx, b)) !=
	    XP_E_OK)
		return err;
	r->in_chunk = 1;
	r->have = 0;
	r->chunk_line = l->lineno;
	return XP_E_OK;
}

/* The footer line: footer <addresses> <samples>, which must agree with
 * the chunks. */
static xp_err read_footer(rdtext *r)
{
	const xp_lines *l = &r->l;
	const fields *f = &r->f;
	uint64_t addrs, samples;
	uint32_t a, b;

	if (chunk_short(r))
		return short_chunk(r);
	if (f->count != 3 || field_dec(f->s[1], f->n[1], &a) != 0 ||
	    field_dec(f->s[2], f->n[2], &b) != 0)
		return xp_lines_error(l, XP_E_SYNTAX, f->s[0], "expected footer "
		                      "<addresses> <samples> (32-bit decimals)");
	xp_dcpi_footer(r->m, &addrs, &samples);
	if (a != addrs)
		return xp_lines_error(l, XP_E_SYNTAX, f->s[1], "footer says %"
		                      PRIu32 " addresses with samples, the "
		                      "chunks have %" PRIu64, a, addrs);
	if (samples > UINT32_MAX)
		return xp_lines_error(l, XP_E_SYNTAX, f->s[2], "the chunks' "
		                      "samples sum to %" PRIu64 ", more than the "
		                      "footer's 32 bits hold", samples);
	if (b != samples)
		return xp_lines_error(l, XP_E_SYNTAX, f->s[2], "footer says %"
		                      PRIu32 " samples, the chunks sum to %"
		                      PRIu64, b, samples);
	r->footer = 1;
	return XP_E_OK;
}

/* A count line of the last chunk: 0x<offset> <count>. */
static xp_err read_count(rdtext *r)
{
	const xp_lines *l = &r->l;
	const fields *f = &r->f;
	xp_dcpi *m = r->m;
	uint64_t hx, want;
	uint32_t a;

	if (!r->in_chunk || r->have == m->chunks[m->nchunks - 1].number)
		return xp_lines_error(l, XP_E_SYNTAX, f->s[0], r->in_chunk ?
		                      "more count lines than the chunk's length" :
		                      "count line before the first chunk line");
	if (f->count != 2 || field_hex(f->s[0], f->n[0], &hx) != 0)
		return xp_lines_error(l, XP_E_SYNTAX, f->s[0],
		                      "expected 0x<offset> <count>");
	want = (uint64_t)m->chunks[m->nchunks - 1].offset + r->have;
	if (hx != want)
		return xp_lines_error(l, XP_E_SYNTAX, f->s[0], "offset 0x%"
		                      PRIx64 ", expected 0x%" PRIx64, hx, want);
	if (field_dec(f->s[1], f->n[1], &a) != 0)
		return xp_lines_error(l, XP_E_SYNTAX, f->s[1], "bad count "
		                      "\"%.*s\" (expected a 32-bit decimal)",
		                      (int)f->n[1], f->s[1]);
	if (xp_grow(&m->counts, &r->cap, m->ncounts,
	            sizeof *m->counts) != XP_E_OK)
		return XP_E_NOMEM;
	m->counts[m->ncounts++] = a;
	r->have++;
	return XP_E_OK;
}

/* The module's text reader: the head, then chunk, count and footer
 * lines. */
xp_err xp_dcpi_read_text(const unsigned char *buf, size_t len,
                         const char *name, const xp_load_opts *o, void **out,
                         xp_diags *d)
{
	rdtext r = {0};
	const fields *f = &r.f;
	xp_err err;

	*out = NULL;
	if ((err = xp_dcpi_check_layout(o, name, d)) != XP_E_OK)
		return err;
	if ((r.m = xp_dcpi_alloc()) == NULL)
		return XP_E_NOMEM;
	xp_lines_init(&r.l, buf, len, name, d);
	if ((err = read_head(&r, buf, len)) != XP_E_OK)
		goto fail;
	while (xp_lines_next(&r.l)) {
		split(&r.l, &r.f);
		if (f->count == 0)
			continue;
		if (r.footer) {
			err = xp_lines_error(&r.l, XP_E_SYNTAX, f->s[0],
			                     "text after the footer line");
			goto fail;
		}
		if (f->n[0] == 5 && memcmp(f->s[0], "chunk", 5) == 0)
			err = read_chunk(&r);
		else if (f->n[0] == 6 && memcmp(f->s[0], "footer", 6) == 0)
			err = read_footer(&r);
		else
			err = read_count(&r);
		if (err != XP_E_OK)
			goto fail;
	}
	if (!r.footer) {
		/* At the line after the last one, which is empty. */
		err = xp_diag_text(d, XP_E_SYNTAX, name, r.l.lineno + 1, 1, len,
		                   "", 0, "missing footer line at the end");
		goto fail;
	}
	*out = r.m;
	return XP_E_OK;
fail:
	xp_dcpi_free(r.m);
	return err;
}
