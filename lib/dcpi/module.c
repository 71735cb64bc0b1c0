/*
 * dcpi/module.c - the module of DCPI profiles (dcpi(5)): recognition, the
 * binary reader and writer, the lossless text form, and the model's
 * accessors (xprof_dcpi.h).
 *
 * The format (../shared/specs/dcpi-profile.txt): an ASCII header of
 * "keyword value" lines ended by a "samples" line (header.c parses
 * it), then, from the byte after that line's newline, the binary
 * section: chunks of little-endian u32 words
 *
 *     offset number count[number]
 *
 * giving the samples of the addresses tstart + offset + i, chunks in
 * strictly increasing order of offset and not overlapping, and a footer
 * of two u32: the number of addresses with samples and the sum of all
 * samples.  The footer is the last 8 bytes of the file; the chunks fill
 * exactly the bytes before it.
 *
 * The text form (dcpi(5) gives its grammar):
 *
 *     DCPI-TEXT 1
 *     <the header, byte for byte, through its samples line>
 *     chunk 0x<offset> <number>
 *     0x<offset> <count>            one line per address of the chunk
 *     ...
 *     footer <addresses with samples> <total samples>
 */
#include <inttypes.h>
#include <stdio.h>

#include "dcpi/dcpi.h"
#include "registry/module.h"
#include "base/rd.h"

static const char text_magic[] = "DCPI-TEXT";
#define TEXT_VERSION "1"

/* ------------------------------------------------------------------ */
/* The model                                                           */
/* ------------------------------------------------------------------ */

xp_dcpi *xp_dcpi_alloc(void)
{
	xp_dcpi *m = calloc(1, sizeof *m);

	if (m != NULL)
		for (int k = 0; k < XP_DCPI_NKINDS; k++)
			m->line_of[k] = -1;
	return m;
}

void xp_dcpi_free(xp_dcpi *m)
{
	if (m == NULL)
		return;
	free(m->hdr);
	free(m->lines);
	free(m->chunks);
	free(m->counts);
	free(m);
}

size_t xp_dcpi_nlines(const xp_dcpi *m)
{
	return m->nlines;
}

xp_dcpi_kind xp_dcpi_line(const xp_dcpi *m, size_t i, const char **text,
                          size_t *len)
{
	*text = (const char *)m->hdr + m->lines[i].off;
	*len = m->lines[i].len;
	return m->lines[i].kind;
}

int xp_dcpi_value(const xp_dcpi *m, xp_dcpi_kind k, const char **text,
                  size_t *len)
{
	const xp_dcpi_hline *l;

	if ((unsigned)k >= XP_DCPI_NKINDS || k == XP_DCPI_UNKNOWN ||
	    m->line_of[k] < 0)
		return -1;
	l = &m->lines[m->line_of[k]];
	*text = (const char *)m->hdr + l->off + l->voff;
	*len = l->len - l->voff;
	return 0;
}

const unsigned char *xp_dcpi_header(const xp_dcpi *m, size_t *len)
{
	*len = m->hdr_len;
	return m->hdr;
}

uint64_t xp_dcpi_period(const xp_dcpi *m)
{
	return m->period;
}

uint64_t xp_dcpi_tsize(const xp_dcpi *m)
{
	return m->tsize;
}

int xp_dcpi_tstart(const xp_dcpi *m, uint64_t *out)
{
	if (m->line_of[XP_DCPI_TSTART] < 0)
		return -1;
	*out = m->tstart;
	return 0;
}

size_t xp_dcpi_nchunks(const xp_dcpi *m)
{
	return m->nchunks;
}

void xp_dcpi_get_chunk(const xp_dcpi *m, size_t i, xp_dcpi_chunk *c)
{
	*c = m->chunks[i];
}

const uint32_t *xp_dcpi_counts(const xp_dcpi *m, size_t *n)
{
	*n = m->ncounts;
	return m->counts;
}

void xp_dcpi_footer(const xp_dcpi *m, uint64_t *addrs, uint64_t *samples)
{
	uint64_t a = 0, s = 0;

	for (size_t i = 0; i < m->ncounts; i++) {
		a += m->counts[i] != 0;
		s += m->counts[i];
	}
	*addrs = a;
	*samples = s;
}

uint32_t xp_dcpi_total_addrs(const xp_dcpi *m)
{
	uint64_t a, s;

	xp_dcpi_footer(m, &a, &s);
	return (uint32_t)a;
}

uint32_t xp_dcpi_total_samples(const xp_dcpi *m)
{
	uint64_t a, s;

	xp_dcpi_footer(m, &a, &s);
	return (uint32_t)s;
}

/* ------------------------------------------------------------------ */
/* Recognition                                                         */
/* ------------------------------------------------------------------ */

/* A DCPI header starts with one of the known keywords and a blank: the
 * first line could be an unknown one, but a file whose first line is
 * unknown cannot be told from text of any kind. */
static int detect(const unsigned char *head, size_t len)
{
	for (int k = 0; k < XP_DCPI_NKINDS; k++) {
		const char *kw = xp_dcpi_kind_name((xp_dcpi_kind)k);
		size_t n;

		if (kw == NULL || k == XP_DCPI_SAMPLES)
			continue;
		n = strlen(kw);
		if (len > n && memcmp(head, kw, n) == 0 &&
		    (head[n] == ' ' || head[n] == '\t'))
			return 1;
	}
	return 0;
}

static int detect_text(const unsigned char *head, size_t len)
{
	size_t n = sizeof text_magic - 1;

	return len > n && memcmp(head, text_magic, n) == 0 &&
	       (head[n] == ' ' || head[n] == '\t' || head[n] == '\n');
}

/* ------------------------------------------------------------------ */
/* Chunk checks, shared by both readers                                */
/* ------------------------------------------------------------------ */

/*
 * The rules of one chunk against the one before it (prev NULL for the
 * first) and tsize.  Returns NULL when it is good, else the message in
 * msg.
 */
static const char *chunk_rule(const xp_dcpi *m, const xp_dcpi_chunk *prev,
                              uint32_t off, uint32_t number, char *msg,
                              size_t size)
{
	if (number == 0) {
		snprintf(msg, size, "chunk at offset 0x%" PRIx32 " has no "
		         "counts", off);
		return msg;
	}
	if (prev != NULL && off <= prev->offset) {
		snprintf(msg, size, "chunk offset 0x%" PRIx32 " is not above "
		         "the previous chunk's 0x%" PRIx32, off, prev->offset);
		return msg;
	}
	if (prev != NULL && off < (uint64_t)prev->offset + prev->number) {
		snprintf(msg, size, "chunk at offset 0x%" PRIx32 " overlaps "
		         "the previous chunk (0x%" PRIx32 "..0x%" PRIx64 ")",
		         off, prev->offset,
		         (uint64_t)prev->offset + prev->number - 1);
		return msg;
	}
	if ((uint64_t)off + number > m->tsize) {
		snprintf(msg, size, "chunk 0x%" PRIx32 "..0x%" PRIx64 " runs "
		         "past tsize %" PRIu64, off, (uint64_t)off + number - 1,
		         m->tsize);
		return msg;
	}
	return NULL;
}

static xp_err add_chunk(xp_dcpi *m, size_t *cap, uint32_t off,
                        uint32_t number)
{
	if (m->nchunks == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		xp_dcpi_chunk *c = realloc(m->chunks, nc * sizeof *c);
		if (c == NULL)
			return XP_E_NOMEM;
		m->chunks = c;
		*cap = nc;
	}
	m->chunks[m->nchunks].offset = off;
	m->chunks[m->nchunks].number = number;
	m->chunks[m->nchunks].first = m->ncounts;
	m->nchunks++;
	return XP_E_OK;
}

/* ------------------------------------------------------------------ */
/* Binary                                                              */
/* ------------------------------------------------------------------ */

/* A -L layout: DCPI profiles have one layout, so none is accepted. */
static xp_err check_layout(const xp_load_opts *o, const char *name,
                           xp_diags *d)
{
	if (o != NULL && o->layout != NULL)
		return xp_diag_file(d, XP_E_INVAL, name,
		                    "a DCPI profile has a single layout; -L "
		                    "does not apply");
	return XP_E_OK;
}

static xp_err read_bin(const unsigned char *buf, size_t len,
                       const char *name, const xp_load_opts *o, void **out,
                       xp_diags *d)
{
	xp_dcpi *m;
	size_t hend, cend, ccap = 0;
	uint64_t addrs, samples;
	uint32_t fa, fs;
	xp_rd r;
	xp_err err;
	char msg[256];

	*out = NULL;
	if ((err = check_layout(o, name, d)) != XP_E_OK)
		return err;
	if ((m = xp_dcpi_alloc()) == NULL)
		return XP_E_NOMEM;
	err = xp_dcpi_parse_header(buf, len, name, 0, 0, m, &hend, d);
	if (err != XP_E_OK)
		goto fail;
	xp_rd_init(&r, buf, len, 0, name, d);
	r.pos = hend;
	if ((err = xp_rd_need(&r, 8, "footer")) != XP_E_OK)
		goto fail;
	cend = len - 8;
	/* First pass: check every chunk and count the counts. */
	{
		xp_dcpi_chunk prev = { 0, 0, 0 };
		int have_prev = 0;
		size_t total = 0, nch = 0;

		while (r.pos < cend) {
			size_t at = r.pos;
			uint32_t off, number;

			if (cend - r.pos < 8) {
				err = xp_rd_error(&r, XP_E_CORRUPT, at,
				                  "truncated chunk: 8 bytes needed,"
				                  " %zu left before the footer",
				                  cend - r.pos);
				goto fail;
			}
			off = xp_rd_u32(&r);
			number = xp_rd_u32(&r);
			if (chunk_rule(m, have_prev ? &prev : NULL, off, number,
			               msg, sizeof msg) != NULL) {
				err = xp_rd_error(&r, XP_E_CORRUPT, at, "%s", msg);
				goto fail;
			}
			if ((uint64_t)number * 4 > cend - r.pos) {
				err = xp_rd_error(&r, XP_E_CORRUPT, at + 4,
				                  "chunk of %" PRIu32 " counts runs "
				                  "past the end of the file (%zu "
				                  "bytes left before the footer)",
				                  number, cend - r.pos);
				goto fail;
			}
			r.pos += (size_t)number * 4;
			prev.offset = off;
			prev.number = number;
			have_prev = 1;
			total += number;
			nch++;
		}
		if (total > 0 &&
		    (m->counts = malloc(total * sizeof *m->counts)) == NULL) {
			err = XP_E_NOMEM;
			goto fail;
		}
		if (nch > 0 &&
		    (m->chunks = malloc(nch * sizeof *m->chunks)) == NULL) {
			err = XP_E_NOMEM;
			goto fail;
		}
		ccap = nch;
	}
	/* Second pass: keep them. */
	r.pos = hend;
	while (r.pos < cend) {
		uint32_t off = xp_rd_u32(&r), number = xp_rd_u32(&r);

		add_chunk(m, &ccap, off, number);
		for (uint32_t i = 0; i < number; i++)
			m->counts[m->ncounts++] = xp_rd_u32(&r);
	}
	xp_dcpi_footer(m, &addrs, &samples);
	fa = xp_rd_u32(&r);
	fs = xp_rd_u32(&r);
	if (fa != addrs) {
		err = xp_rd_error(&r, XP_E_CORRUPT, cend, "footer says %" PRIu32
		                  " addresses with samples, the chunks have %"
		                  PRIu64, fa, addrs);
		goto fail;
	}
	if (samples > UINT32_MAX) {
		err = xp_rd_error(&r, XP_E_CORRUPT, cend + 4, "the chunks' "
		                  "samples sum to %" PRIu64 ", more than the "
		                  "footer's 32 bits hold", samples);
		goto fail;
	}
	if (fs != samples) {
		err = xp_rd_error(&r, XP_E_CORRUPT, cend + 4, "footer says %"
		                  PRIu32 " samples, the chunks sum to %" PRIu64,
		                  fs, samples);
		goto fail;
	}
	*out = m;
	return XP_E_OK;
fail:
	xp_dcpi_free(m);
	return err;
}

static void put32(xp_wbuf *w, uint32_t v)
{
	unsigned char b[4];

	xp_put_le32(b, v);
	xp_wbuf_write(w, b, 4);
}

static xp_err write_bin(const void *mv, xp_wbuf *w)
{
	const xp_dcpi *m = mv;
	uint64_t addrs, samples;

	xp_wbuf_write(w, m->hdr, m->hdr_len);
	for (size_t i = 0; i < m->nchunks; i++) {
		const xp_dcpi_chunk *c = &m->chunks[i];
		put32(w, c->offset);
		put32(w, c->number);
		for (uint32_t j = 0; j < c->number; j++)
			put32(w, m->counts[c->first + j]);
	}
	xp_dcpi_footer(m, &addrs, &samples);
	put32(w, (uint32_t)addrs);
	put32(w, (uint32_t)samples);
	return w->err;
}

/* ------------------------------------------------------------------ */
/* Text                                                                */
/* ------------------------------------------------------------------ */

static xp_err write_text(const void *mv, xp_wbuf *w)
{
	const xp_dcpi *m = mv;
	uint64_t addrs, samples;
	char line[64];
	int n;

	xp_wbuf_write(w, text_magic, sizeof text_magic - 1);
	xp_wbuf_write(w, " " TEXT_VERSION "\n", 3);
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

static xp_err read_text(const unsigned char *buf, size_t len,
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
	if ((err = check_layout(o, name, d)) != XP_E_OK)
		return err;
	if ((m = xp_dcpi_alloc()) == NULL)
		return XP_E_NOMEM;
	xp_lines_init(&l, buf, len, name, d);
	xp_lines_next(&l);
	split(&l, &f);
	if (f.count != 2 || f.n[0] != sizeof text_magic - 1 ||
	    memcmp(f.s[0], text_magic, f.n[0]) != 0 || f.s[0] != l.line) {
		err = xp_lines_error(&l, XP_E_SYNTAX, NULL, "expected \"%s %s\"",
		                     text_magic, TEXT_VERSION);
		goto fail;
	}
	if (f.n[1] != 1 || f.s[1][0] != '1') {
		err = xp_lines_error(&l, XP_E_VERSION, f.s[1], "unsupported "
		                     "DCPI-TEXT version \"%.*s\" (this program "
		                     "reads version %s)", (int)f.n[1], f.s[1],
		                     TEXT_VERSION);
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
			if (chunk_rule(m, prev, (uint32_t)hx, b, msg,
			               sizeof msg) != NULL) {
				err = xp_lines_error(&l, XP_E_SYNTAX, f.s[1], "%s",
				                     msg);
				goto fail;
			}
			if ((err = add_chunk(m, &ccap, (uint32_t)hx, b)) !=
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

static void free_model(void *m)
{
	xp_dcpi_free(m);
}

const xp_module xp_module_dcpi = {
	.name = "dcpi",
	.fmt = XP_FMT_DCPI,
	.text_fmt = XP_FMT_DCPI_TEXT,
	.default_name = "dcpi.prof",
	.display = "DCPI profile",
	.display_a = "a DCPI profile",
	.text_display = "DCPI profile text",
	.text_display_a = "a DCPI profile text",
	.detect = detect,
	.detect_text = detect_text,
	.read = read_bin,
	.read_text = read_text,
	.write = write_bin,
	.write_text = write_text,
	.merge = xp_dcpi_merge,
	.to_feedback = xp_dcpi_to_feedback,
	.free = free_model,
};
