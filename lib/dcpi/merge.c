/*
 * dcpi/merge.c - sums DCPI profiles of one image (dcpi(5), MERGING).
 *
 * Profiles are summed only when they sample the same thing: the same
 * image id (compared as a hexadecimal number), the same event line, the
 * same tsize and the same tstart (or none on both).  The sum covers the
 * union of the address ranges of the inputs; a chunk starts wherever a
 * chunk of either input starts or where covered addresses resume after a
 * gap, so that a profile merged with itself keeps its chunks.  The header
 * is the first profile's, followed by the unknown lines of the others
 * that it does not hold yet; the footer is always recomputed when the
 * profile is written.
 */
#include <inttypes.h>
#include <stdio.h>

#include "dcpi/dcpi.h"

/* Compares two hexadecimal ids as numbers. */
static int same_hex(const char *a, size_t na, const char *b, size_t nb)
{
	while (na > 1 && *a == '0')
		a++, na--;
	while (nb > 1 && *b == '0')
		b++, nb--;
	if (na != nb)
		return 0;
	for (size_t i = 0; i < na; i++) {
		int x = (unsigned char)a[i], y = (unsigned char)b[i];
		if (x >= 'A' && x <= 'F')
			x += 'a' - 'A';
		if (y >= 'A' && y <= 'F')
			y += 'a' - 'A';
		if (x != y)
			return 0;
	}
	return 1;
}

static xp_err refuse(xp_diags *d, const char *name, const char *what,
                     const xp_dcpi *a, const xp_dcpi *b, xp_dcpi_kind k)
{
	const char *va = "", *vb = "";
	size_t la = 0, lb = 0;

	if (xp_dcpi_value(a, k, &va, &la) != 0)
		va = "(none)", la = 6;
	if (xp_dcpi_value(b, k, &vb, &lb) != 0)
		vb = "(none)", lb = 6;
	return xp_diag_file(d, XP_E_INVAL, name, "cannot merge DCPI profiles "
	                    "of different %s: %.*s here, %.*s in the first",
	                    what, (int)lb, vb, (int)la, va);
}

static xp_err check_same(const xp_dcpi *a, const xp_dcpi *b,
                         const char *name, xp_diags *d)
{
	const char *va, *vb;
	size_t la, lb;

	xp_dcpi_value(a, XP_DCPI_IMAGE, &va, &la);
	xp_dcpi_value(b, XP_DCPI_IMAGE, &vb, &lb);
	if (!same_hex(va, la, vb, lb))
		return refuse(d, name, "images", a, b, XP_DCPI_IMAGE);
	xp_dcpi_value(a, XP_DCPI_EVENT, &va, &la);
	xp_dcpi_value(b, XP_DCPI_EVENT, &vb, &lb);
	if (la != lb || memcmp(va, vb, la) != 0)
		return refuse(d, name, "events", a, b, XP_DCPI_EVENT);
	if (a->tsize != b->tsize)
		return refuse(d, name, "text sizes", a, b, XP_DCPI_TSIZE);
	if ((a->line_of[XP_DCPI_TSTART] < 0) !=
	        (b->line_of[XP_DCPI_TSTART] < 0) ||
	    a->tstart != b->tstart)
		return refuse(d, name, "text starts", a, b, XP_DCPI_TSTART);
	return XP_E_OK;
}

/* count * weight, rounded; -1 past 32 bits. */
static int scale(uint32_t c, double weight, uint64_t *out)
{
	double x;

	if (weight == 1.0) {
		*out = c;
		return 0;
	}
	/* Truncating a positive value after adding 0.5 rounds it. */
	x = (double)c * weight + 0.5;
	if (!(x < 4294967296.0))
		return -1;
	*out = (uint64_t)x;
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

/* The chunks and counts of a + b * weight, into r. */
static xp_err sum_chunks(const xp_dcpi *a, const xp_dcpi *b, double weight,
                         xp_dcpi *r, const char *name, xp_diags *d)
{
	size_t np = 0, ia = 0, ib = 0, ncap = 0, ccap = 0;
	uint64_t *pts = NULL, cur_end = 0;
	int open = 0;
	xp_err err = XP_E_OK;
	size_t nmax = 2 * (a->nchunks + b->nchunks);

	if (nmax > 0 && (pts = malloc(nmax * sizeof *pts)) == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < a->nchunks; i++) {
		pts[np++] = a->chunks[i].offset;
		pts[np++] = (uint64_t)a->chunks[i].offset + a->chunks[i].number;
	}
	for (size_t i = 0; i < b->nchunks; i++) {
		pts[np++] = b->chunks[i].offset;
		pts[np++] = (uint64_t)b->chunks[i].offset + b->chunks[i].number;
	}
	xp_qsort(pts, np, sizeof *pts, cmp_u64);
	for (size_t i = 0; i + 1 < np; i++) {
		uint64_t p = pts[i], q = pts[i + 1];
		const xp_dcpi_chunk *ca, *cb;
		int start;

		if (p == q)
			continue;
		while (ia < a->nchunks &&
		       (uint64_t)a->chunks[ia].offset + a->chunks[ia].number <= p)
			ia++;
		while (ib < b->nchunks &&
		       (uint64_t)b->chunks[ib].offset + b->chunks[ib].number <= p)
			ib++;
		ca = ia < a->nchunks && a->chunks[ia].offset <= p ?
		     &a->chunks[ia] : NULL;
		cb = ib < b->nchunks && b->chunks[ib].offset <= p ?
		     &b->chunks[ib] : NULL;
		if (ca == NULL && cb == NULL) {
			open = 0;
			continue;
		}
		start = !open || p != cur_end ||
		        (ca != NULL && ca->offset == p) ||
		        (cb != NULL && cb->offset == p) ||
		        r->chunks[r->nchunks - 1].number + (q - p) > UINT32_MAX;
		if (start) {
			if (r->nchunks == ncap) {
				size_t nc = ncap ? ncap * 2 : 16;
				xp_dcpi_chunk *c = realloc(r->chunks,
				                           nc * sizeof *c);
				if (c == NULL) {
					err = XP_E_NOMEM;
					goto out;
				}
				r->chunks = c;
				ncap = nc;
			}
			r->chunks[r->nchunks].offset = (uint32_t)p;
			r->chunks[r->nchunks].number = 0;
			r->chunks[r->nchunks].first = r->ncounts;
			r->nchunks++;
			open = 1;
		}
		if (r->ncounts + (q - p) > ccap) {
			size_t nc = ccap ? ccap : 64;
			uint32_t *c;
			while (nc < r->ncounts + (q - p))
				nc *= 2;
			if ((c = realloc(r->counts, nc * sizeof *c)) == NULL) {
				err = XP_E_NOMEM;
				goto out;
			}
			r->counts = c;
			ccap = nc;
		}
		for (uint64_t x = p; x < q; x++) {
			uint64_t v = 0, w = 0;
			if (ca != NULL)
				v = a->counts[ca->first + (x - ca->offset)];
			if (cb != NULL &&
			    scale(b->counts[cb->first + (x - cb->offset)],
			          weight, &w) != 0)
				v = UINT64_MAX;
			else
				v += w;
			if (v > UINT32_MAX) {
				err = xp_diag_file(d, XP_E_LIMIT, name, "the "
				                   "samples of offset 0x%" PRIx64
				                   " add up past 32 bits", x);
				goto out;
			}
			r->counts[r->ncounts++] = (uint32_t)v;
		}
		r->chunks[r->nchunks - 1].number += (uint32_t)(q - p);
		cur_end = q;
	}
out:
	free(pts);
	return err;
}

/* Is an unknown line with these bytes among m's lines? */
static int has_line(const xp_dcpi *m, const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < m->nlines; i++)
		if (m->lines[i].len == n &&
		    memcmp(m->hdr + m->lines[i].off, s, n) == 0)
			return 1;
	return 0;
}

/* The header of a with b's unknown lines that a lacks, into r. */
static xp_err merge_header(const xp_dcpi *a, const xp_dcpi *b, xp_dcpi *r)
{
	size_t nadd = 0, size = a->hdr_len + 4, n = 0, pad;
	unsigned char *h;
	xp_dcpi_hline *lines;

	for (size_t i = 0; i < b->nlines; i++) {
		const xp_dcpi_hline *l = &b->lines[i];
		if (l->kind == XP_DCPI_UNKNOWN &&
		    !has_line(a, b->hdr + l->off, l->len)) {
			nadd++;
			size += l->len + 1;
		}
	}
	h = malloc(size);
	lines = malloc((a->nlines + nadd) * sizeof *lines);
	if (h == NULL || lines == NULL) {
		free(h);
		free(lines);
		return XP_E_NOMEM;
	}
	r->nlines = 0;
	for (size_t i = 0; i + 1 < a->nlines; i++) {
		lines[r->nlines] = a->lines[i];
		lines[r->nlines].off = n;
		memcpy(h + n, a->hdr + a->lines[i].off, a->lines[i].len + 1);
		n += a->lines[i].len + 1;
		r->nlines++;
	}
	for (size_t i = 0; i < b->nlines; i++) {
		const xp_dcpi_hline *l = &b->lines[i];
		if (l->kind != XP_DCPI_UNKNOWN ||
		    has_line(a, b->hdr + l->off, l->len))
			continue;
		lines[r->nlines] = *l;
		lines[r->nlines].off = n;
		memcpy(h + n, b->hdr + l->off, l->len);
		h[n + l->len] = '\n';
		n += l->len + 1;
		r->nlines++;
	}
	/* The samples line: a's as it was, or padded anew when lines were
	 * added, so that the binary section stays 4-byte aligned. */
	lines[r->nlines].kind = XP_DCPI_SAMPLES;
	lines[r->nlines].off = n;
	lines[r->nlines].voff = 7;
	if (nadd == 0) {
		const xp_dcpi_hline *s = &a->lines[a->nlines - 1];
		memcpy(h + n, a->hdr + s->off, s->len + 1);
		lines[r->nlines].len = s->len;
		n += s->len + 1;
	} else {
		memcpy(h + n, "samples", 7);
		pad = (4 - (n + 8) % 4) % 4;
		memset(h + n + 7, ' ', pad);
		h[n + 7 + pad] = '\n';
		lines[r->nlines].len = 7 + pad;
		n += 8 + pad;
	}
	r->nlines++;
	r->hdr = h;
	r->hdr_len = n;
	r->lines = lines;
	xp_dcpi_index_lines(r);
	return XP_E_OK;
}

xp_err xp_dcpi_merge(void **acc, const void *in, double weight,
                     const xp_prof_merge_opts *o, const char *name,
                     xp_diags *d)
{
	const xp_dcpi *b = in;
	const xp_dcpi *a = *acc;
	static const xp_dcpi empty = { .nchunks = 0 };
	xp_dcpi *r;
	uint64_t addrs, samples;
	xp_err err;

	(void)o;
	if (a != NULL && (err = check_same(a, b, name, d)) != XP_E_OK)
		return err;
	if ((r = xp_dcpi_alloc()) == NULL)
		return XP_E_NOMEM;
	err = sum_chunks(a != NULL ? a : &empty, b, weight, r, name, d);
	if (err != XP_E_OK)
		goto fail;
	if (a == NULL) {
		/* The first profile: its header as it is. */
		r->hdr = malloc(b->hdr_len);
		r->lines = malloc(b->nlines * sizeof *r->lines);
		if (r->hdr == NULL || r->lines == NULL) {
			err = XP_E_NOMEM;
			goto fail;
		}
		memcpy(r->hdr, b->hdr, b->hdr_len);
		memcpy(r->lines, b->lines, b->nlines * sizeof *r->lines);
		r->hdr_len = b->hdr_len;
		r->nlines = b->nlines;
		xp_dcpi_index_lines(r);
	} else if ((err = merge_header(a, b, r)) != XP_E_OK) {
		goto fail;
	}
	xp_dcpi_footer(r, &addrs, &samples);
	if (samples > UINT32_MAX) {
		err = xp_diag_file(d, XP_E_LIMIT, name, "the total of the "
		                   "merged samples, %" PRIu64 ", does not fit "
		                   "the footer's 32 bits", samples);
		goto fail;
	}
	xp_dcpi_free(*acc);
	*acc = r;
	return XP_E_OK;
fail:
	xp_dcpi_free(r);
	return err;
}
