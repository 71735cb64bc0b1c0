/*
 * dcpi/module.c - the module of DCPI profiles (dcpi(5)): recognition, the
 * binary reader and writer, the chunk rules both readers apply, and the
 * model's accessors (xprof_dcpi.h).  The text form is in text.c.
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
	XP_FREE(m->hdr, m->lines, m->chunks, m->counts, m);
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
static int xp_dcpi_detect(const unsigned char *head, size_t len)
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

static int xp_dcpi_detect_text(const unsigned char *head, size_t len)
{
	size_t n = sizeof XP_DCPI_TEXT_MAGIC - 1;

	return len > n && memcmp(head, XP_DCPI_TEXT_MAGIC, n) == 0 &&
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
const char *xp_dcpi_chunk_rule(const xp_dcpi *m, const xp_dcpi_chunk *prev,
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

xp_err xp_dcpi_add_chunk(xp_dcpi *m, size_t *cap, uint32_t off,
                         uint32_t number)
{
	if (xp_grow(&m->chunks, cap, m->nchunks,
	            sizeof *m->chunks) != XP_E_OK)
		return XP_E_NOMEM;
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
xp_err xp_dcpi_check_layout(const xp_load_opts *o, const char *name,
                            xp_diags *d)
{
	if (o != NULL && o->layout != NULL)
		return xp_diag_file(d, XP_E_INVAL, name,
		                    "a DCPI profile has a single layout; -L "
		                    "does not apply");
	return XP_E_OK;
}

static xp_err xp_dcpi_read(const unsigned char *buf, size_t len,
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
	if ((err = xp_dcpi_check_layout(o, name, d)) != XP_E_OK)
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
			if (xp_dcpi_chunk_rule(m, have_prev ? &prev : NULL, off, number,
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

		xp_dcpi_add_chunk(m, &ccap, off, number);
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

static xp_err xp_dcpi_write(const void *mv, xp_wbuf *w)
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

/* Samples, and the addresses that have any. */
static void xp_dcpi_totals(const void *model, xp_prof_totals *t)
{
	size_t n;
	const uint32_t *c = xp_dcpi_counts(model, &n);
	uint64_t samples = 0, addrs = 0;

	for (size_t i = 0; i < n; i++) {
		samples += c[i];
		addrs += c[i] != 0;
	}
	xp_prof_total(t, "samples", samples);
	xp_prof_total(t, "addresses", addrs);
}

static void xp_dcpi_free_model(void *m)
{
	xp_dcpi_free(m);
}

const xp_module xp_module_dcpi = {
	XP_MODULE_NAMES("dcpi", DCPI, "dcpi.prof", "DCPI profile", "a"),
	.sampled = 1,
	XP_MODULE_ENTRIES(xp_dcpi),
	.report_takes = XP_REPORT_LINES,
	.report_of = "the report of a DCPI profile",
	.check_exe = xp_dcpi_check_exe,
};
