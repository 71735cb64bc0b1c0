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

xp_err xp_dcpi_read_text(const unsigned char *buf, size_t len,
                         const char *name, const xp_load_opts *o, void **out,
                         xp_diags *d)
{
	xp_dcpi *m;
	xp_lines l;
	size_t hend, ccap = 0, cap = 0, have = 0;
	uint32_t nhl;
	int in_chunk = 0, footer = 0;
	uint32_t chunk_line = 0;
	xp_err err;
	fields f;
	char msg[256];

	*out = NULL;
	if ((err = xp_dcpi_check_layout(o, name, d)) != XP_E_OK)
		return err;
	if ((m = xp_dcpi_alloc()) == NULL)
		return XP_E_NOMEM;
	xp_lines_init(&l, buf, len, name, d);
	xp_lines_next(&l);
	split(&l, &f);
	if (f.count != 2 || f.n[0] != sizeof XP_DCPI_TEXT_MAGIC - 1 ||
	    memcmp(f.s[0], XP_DCPI_TEXT_MAGIC, f.n[0]) != 0 || f.s[0] != l.line) {
		err = xp_lines_error(&l, XP_E_SYNTAX, NULL, "expected \"%s %s\"",
		                     XP_DCPI_TEXT_MAGIC, XP_DCPI_TEXT_VERSION);
		goto fail;
	}
	if (f.n[1] != 1 || f.s[1][0] != '1') {
		err = xp_lines_error(&l, XP_E_VERSION, f.s[1], "unsupported "
		                     "DCPI-TEXT version \"%.*s\" (this program "
		                     "reads version %s)", (int)f.n[1], f.s[1],
		                     XP_DCPI_TEXT_VERSION);
		goto fail;
	}
	{
		size_t start = (size_t)(l.p - l.base);
		err = xp_dcpi_parse_header(buf + start, len - start, name, 1,
		                           start, m, &hend, d);
		if (err != XP_E_OK)
			goto fail;
		nhl = 1 + (uint32_t)m->nlines;
		l.p += hend;
		l.lineno = nhl;
	}
	while (xp_lines_next(&l)) {
		uint64_t hx;
		uint32_t a, b;

		split(&l, &f);
		if (f.count == 0)
			continue;
		if (footer) {
			err = xp_lines_error(&l, XP_E_SYNTAX, f.s[0],
			                     "text after the footer line");
			goto fail;
		}
		if (f.n[0] == 5 && memcmp(f.s[0], "chunk", 5) == 0) {
			const xp_dcpi_chunk *prev;
			if (in_chunk && have < m->chunks[m->nchunks - 1].number)
				goto short_chunk;
			if (f.count != 3) {
				err = xp_lines_error(&l, XP_E_SYNTAX, f.s[0],
				                     "expected chunk 0x<offset> "
				                     "<number>");
				goto fail;
			}
			if (field_hex(f.s[1], f.n[1], &hx) != 0 ||
			    hx > UINT32_MAX) {
				err = xp_lines_error(&l, XP_E_SYNTAX, f.s[1],
				                     "bad chunk offset \"%.*s\" "
				                     "(expected 0x and at most 8 "
				                     "hex digits)", (int)f.n[1],
				                     f.s[1]);
				goto fail;
			}
			if (field_dec(f.s[2], f.n[2], &b) != 0) {
				err = xp_lines_error(&l, XP_E_SYNTAX, f.s[2],
				                     "bad chunk length \"%.*s\" "
				                     "(expected a 32-bit decimal)",
				                     (int)f.n[2], f.s[2]);
				goto fail;
			}
			prev = m->nchunks > 0 ? &m->chunks[m->nchunks - 1]
			                      : NULL;
			if (xp_dcpi_chunk_rule(m, prev, (uint32_t)hx, b, msg,
			               sizeof msg) != NULL) {
				err = xp_lines_error(&l, XP_E_SYNTAX, f.s[1], "%s",
				                     msg);
				goto fail;
			}
			if ((err = xp_dcpi_add_chunk(m, &ccap, (uint32_t)hx, b)) !=
			    XP_E_OK)
				goto fail;
			in_chunk = 1;
			have = 0;
			chunk_line = l.lineno;
			continue;
		}
		if (f.n[0] == 6 && memcmp(f.s[0], "footer", 6) == 0) {
			uint64_t addrs, samples;
			if (in_chunk && have < m->chunks[m->nchunks - 1].number)
				goto short_chunk;
			if (f.count != 3 || field_dec(f.s[1], f.n[1], &a) != 0 ||
			    field_dec(f.s[2], f.n[2], &b) != 0) {
				err = xp_lines_error(&l, XP_E_SYNTAX, f.s[0],
				                     "expected footer <addresses> "
				                     "<samples> (32-bit decimals)");
				goto fail;
			}
			xp_dcpi_footer(m, &addrs, &samples);
			if (a != addrs) {
				err = xp_lines_error(&l, XP_E_SYNTAX, f.s[1],
				                     "footer says %" PRIu32
				                     " addresses with samples, "
				                     "the chunks have %" PRIu64,
				                     a, addrs);
				goto fail;
			}
			if (samples > UINT32_MAX) {
				err = xp_lines_error(&l, XP_E_SYNTAX, f.s[2],
				                     "the chunks' samples sum to %"
				                     PRIu64 ", more than the "
				                     "footer's 32 bits hold",
				                     samples);
				goto fail;
			}
			if (b != samples) {
				err = xp_lines_error(&l, XP_E_SYNTAX, f.s[2],
				                     "footer says %" PRIu32
				                     " samples, the chunks sum to %"
				                     PRIu64, b, samples);
				goto fail;
			}
			footer = 1;
			continue;
		}
		/* A count line: 0x<offset> <count>. */
		if (!in_chunk || have == m->chunks[m->nchunks - 1].number) {
			err = xp_lines_error(&l, XP_E_SYNTAX, f.s[0],
			                     in_chunk ? "more count lines than "
			                     "the chunk's length" :
			                     "count line before the first chunk"
			                     " line");
			goto fail;
		}
		if (f.count != 2 || field_hex(f.s[0], f.n[0], &hx) != 0) {
			err = xp_lines_error(&l, XP_E_SYNTAX, f.s[0],
			                     "expected 0x<offset> <count>");
			goto fail;
		}
		{
			const xp_dcpi_chunk *c = &m->chunks[m->nchunks - 1];
			uint64_t want = (uint64_t)c->offset + have;
			if (hx != want) {
				err = xp_lines_error(&l, XP_E_SYNTAX, f.s[0],
				                     "offset 0x%" PRIx64 ", expected"
				                     " 0x%" PRIx64, hx, want);
				goto fail;
			}
		}
		if (field_dec(f.s[1], f.n[1], &a) != 0) {
			err = xp_lines_error(&l, XP_E_SYNTAX, f.s[1],
			                     "bad count \"%.*s\" (expected a "
			                     "32-bit decimal)", (int)f.n[1],
			                     f.s[1]);
			goto fail;
		}
		if (m->ncounts == cap) {
			size_t nc = cap ? cap * 2 : 64;
			uint32_t *nb = realloc(m->counts, nc * sizeof *nb);
			if (nb == NULL) {
				err = XP_E_NOMEM;
				goto fail;
			}
			m->counts = nb;
			cap = nc;
		}
		m->counts[m->ncounts++] = a;
		have++;
	}
	if (!footer) {
		/* At the line after the last one, which is empty. */
		err = xp_diag_text(d, XP_E_SYNTAX, name, l.lineno + 1, 1, len,
		                   "", 0, "missing footer line at the end");
		goto fail;
	}
	*out = m;
	return XP_E_OK;
short_chunk:
	err = xp_lines_error(&l, XP_E_SYNTAX, f.s[0], "the chunk of line %"
	                     PRIu32 " declares %" PRIu32 " counts, found %zu",
	                     chunk_line, m->chunks[m->nchunks - 1].number,
	                     have);
fail:
	xp_dcpi_free(m);
	return err;
}

