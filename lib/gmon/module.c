/*
 * gmon/module.c - the gmon.out module: recognising, reading and writing the
 * binary files that GNU gprof reads (gmon(5)).
 *
 * The format (../shared/specs/gprof-gmon-out.txt, <sys/gmon_out.h>): a
 * 20-byte header ("gmon", a 32-bit version, 12 spare bytes), then records,
 * each a one-byte tag and its body:
 *   0 histogram: low_pc, high_pc (address words), hist_size (u32, bins),
 *     prof_rate (u32), dimen[15], dimen_abbrev; then hist_size u16 bins;
 *   1 arc: from_pc, self_pc (address words), count (u32);
 *   2 basic blocks: ncounts (u32), then ncounts (address, count) pairs of
 *     address words.
 * Every word is in the target's byte order and addresses are as wide as
 * the target's; the file says neither, so they come from the executable
 * (-e), from the user (-L), or are inferred from the bytes: the version
 * word (1) settles the byte order, and the width is the one with which
 * the whole file reads as records (a warning says when both do).
 *
 * Files without the magic are read as gprof reads the old BSD formats: a
 * header low_pc, high_pc, ncnt (the byte count of header and bins), then
 * for 4.4BSD the version 0x51879, the profiling rate and 12 spare bytes;
 * the bins follow the header, and arcs (from_pc, self_pc, count, all
 * address words) fill the rest of the file.
 */
#include <stdio.h>

#include "gmon/gmon.h"

/* ------------------------------------------------------------------ */
/* The model                                                           */
/* ------------------------------------------------------------------ */

xp_gmon *xp_gmon_new(int big, unsigned addr_bytes, xp_gmon_flavor fl)
{
	xp_gmon *g = calloc(1, sizeof *g);

	if (g == NULL)
		return NULL;
	g->flavor = fl;
	g->big = big;
	g->addr_bytes = addr_bytes;
	g->version = fl == XP_GMON_BSD44 ? XP_GMON_BSD44_VERSION
	           : fl == XP_GMON_GNU ? 1 : 0;
	return g;
}

void xp_gmon_free(xp_gmon *g)
{
	if (g == NULL)
		return;
	for (size_t i = 0; i < g->n_hists; i++)
		free(g->hists[i].bins);
	XP_FREE(g->hists, g->recs, g->arcs, g->bbs, g->trailing, g);
}

/* The public struct has no capacities: arrays grow by doubling from 16,
 * so the capacity follows from the count: 16, or the power of two at or
 * above it. */
static size_t cap_of(size_t n)
{
	uint64_t c = n - 1;

	if (n <= 16)
		return n == 0 ? 0 : 16;
	c |= c >> 1;
	c |= c >> 2;
	c |= c >> 4;
	c |= c >> 8;
	c |= c >> 16;
	c |= c >> 32;
	return (size_t)(c + 1);
}

/* Whether an array of n elements has no room for one more: none yet, or
 * a capacity that n fills. */
static int full(size_t n)
{
	return n == 0 || (n >= 16 && (n & (n - 1)) == 0);
}

static xp_err add_rec(xp_gmon *g, xp_gmon_rectype t, size_t index, size_t n)
{
	size_t cap = cap_of(g->n_recs);

	if (xp_grow(&g->recs, &cap, g->n_recs, sizeof *g->recs))
		return XP_E_NOMEM;
	g->recs[g->n_recs].type = t;
	g->recs[g->n_recs].index = index;
	g->recs[g->n_recs].n = n;
	g->n_recs++;
	return XP_E_OK;
}

xp_err xp_gmon_add_hist(xp_gmon *g, xp_gmon_hist *h)
{
	size_t cap = cap_of(g->n_hists);

	if (xp_grow(&g->hists, &cap, g->n_hists,
	                  sizeof *g->hists) ||
	    add_rec(g, XP_GMON_HIST, g->n_hists, 1) != XP_E_OK) {
		free(h->bins);
		h->bins = NULL;
		return XP_E_NOMEM;
	}
	g->hists[g->n_hists++] = *h;
	h->bins = NULL;
	return XP_E_OK;
}

xp_gmon_arc *xp_gmon_arc_room(xp_gmon *g, size_t n)
{
	size_t acap, rcap;

	/* One at a time, as a file is read: most often there is room. */
	if (n == 1 && !full(g->n_arcs) && !full(g->n_recs))
		return g->arcs + g->n_arcs;
	acap = cap_of(g->n_arcs);
	rcap = cap_of(g->n_recs);
	/* Room for the last of them makes room for all of them. */
	if (n > 0 &&
	    (xp_grow(&g->arcs, &acap, g->n_arcs + n - 1, sizeof *g->arcs) ||
	     xp_grow(&g->recs, &rcap, g->n_recs + n - 1, sizeof *g->recs)))
		return NULL;
	/* No arcs yet and none asked for: no storage, and no arithmetic on
	 * its null pointer, which C leaves undefined. */
	return g->arcs != NULL ? g->arcs + g->n_arcs : NULL;
}

xp_err xp_gmon_add_arcs(xp_gmon *g, const xp_gmon_arc *a, size_t n)
{
	xp_gmon_arc *to;

	if (n == 0)
		return XP_E_OK;
	/* Arcs in the room that xp_gmon_arc_room made are in place, with
	 * room for their records: asking again would size the arrays by
	 * the count, which does not know of the room yet. */
	if (g->arcs == NULL || a != g->arcs + g->n_arcs) {
		if ((to = xp_gmon_arc_room(g, n)) == NULL)
			return XP_E_NOMEM;
		memcpy(to, a, n * sizeof *a);
	}
	for (size_t i = 0; i < n; i++)
		g->recs[g->n_recs++] = (xp_gmon_rec){ XP_GMON_ARC, g->n_arcs++,
		                                      1 };
	return XP_E_OK;
}

xp_err xp_gmon_add_arc(xp_gmon *g, const xp_gmon_arc *a)
{
	return xp_gmon_add_arcs(g, a, 1);
}

xp_err xp_gmon_add_bbrec(xp_gmon *g)
{
	return add_rec(g, XP_GMON_BB, g->n_bbs, 0);
}

xp_err xp_gmon_add_bb(xp_gmon *g, const xp_gmon_bb *b)
{
	size_t cap = cap_of(g->n_bbs);

	if (g->n_recs == 0 || g->recs[g->n_recs - 1].type != XP_GMON_BB)
		return XP_E_INVAL;
	if (xp_grow(&g->bbs, &cap, g->n_bbs, sizeof *g->bbs))
		return XP_E_NOMEM;
	g->bbs[g->n_bbs++] = *b;
	g->recs[g->n_recs - 1].n++;
	return XP_E_OK;
}

xp_err xp_gmon_set_trailing(xp_gmon *g, const unsigned char *p, size_t n)
{
	free(g->trailing);
	g->trailing = NULL;
	g->n_trailing = 0;
	if (n == 0)
		return XP_E_OK;
	g->trailing = malloc(n);
	if (g->trailing == NULL)
		return XP_E_NOMEM;
	memcpy(g->trailing, p, n);
	g->n_trailing = n;
	return XP_E_OK;
}

const char *xp_gmon_layout_name(int big, unsigned addr_bytes)
{
	if (big)
		return addr_bytes == 8 ? "be64" : "be32";
	return addr_bytes == 8 ? "le64" : "le32";
}

int xp_gmon_parse_layout(const char *s, int *big, unsigned *addr_bytes)
{
	static const char *const names[] = { "le32", "le64", "be32", "be64" };

	for (int i = 0; i < 4; i++) {
		if (strcmp(s, names[i]) == 0) {
			*big = i >= 2;
			*addr_bytes = i % 2 ? 8 : 4;
			return 0;
		}
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* Recognition                                                         */
/* ------------------------------------------------------------------ */

static uint64_t get_word(const unsigned char *p, unsigned size, int big)
{
	if (size == 8)
		return big ? xp_get_be64(p) : xp_get_le64(p);
	return big ? xp_get_be32(p) : xp_get_le32(p);
}

/*
 * Whether the first bytes make a plausible old BSD header in this
 * layout: a text range that is not empty, a byte count that covers the
 * header and at least one bin, and no more bins than bytes of text.
 */
static int bsd_header_ok(const unsigned char *p, size_t len, int big,
                         unsigned ab)
{
	uint64_t lo, hi, ncnt, hdr;

	if (len < XP_GMON_BSD_HDR(ab) + 4)
		return 0;
	lo = get_word(p, ab, big);
	hi = get_word(p + ab, ab, big);
	ncnt = get_word(p + 2 * ab, 4, big);
	hdr = get_word(p + 2 * ab + 4, 4, big) == XP_GMON_BSD44_VERSION
	      ? XP_GMON_BSD44_HDR(ab) : XP_GMON_BSD_HDR(ab);
	if (lo >= hi || ncnt < hdr + 2)
		return 0;
	return (ncnt - hdr) / 2 <= hi - lo;
}

static int xp_gmon_detect(const unsigned char *head, size_t len)
{
	int ascii = 1;

	if (len >= 4 && memcmp(head, "gmon", 4) == 0)
		return 1;
	/* The old BSD formats have no magic.  Files that start with text
	 * (every other format's magic or keyword) are never taken. */
	if (len < 16)
		return 0;
	for (size_t i = 0; i < 4; i++)
		if (head[i] < 0x09 || head[i] > 0x7e)
			ascii = 0;
	if (ascii)
		return 0;
	for (int big = 0; big < 2; big++)
		for (unsigned ab = 4; ab <= 8; ab += 4)
			if (bsd_header_ok(head, len, big, ab))
				return 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Reading                                                             */
/* ------------------------------------------------------------------ */

/*
 * The h->n_bins 16-bit bins that follow at r (checked to be there) in
 * r's byte order, then h into g.
 */
static xp_err read_bins(xp_rd *r, xp_gmon_hist *h, xp_gmon *g)
{
	const unsigned char *q;

	h->bins = malloc(h->n_bins ? 2 * (size_t)h->n_bins : 1);
	if (h->bins == NULL)
		return XP_E_NOMEM;
	q = xp_rd_bytes(r, 2 * (size_t)h->n_bins);
	if (!r->big == !xp_host_big())
		memcpy(h->bins, q, 2 * (size_t)h->n_bins);
	else if (r->big)
		for (uint32_t i = 0; i < h->n_bins; i++, q += 2)
			h->bins[i] = (uint16_t)(q[0] << 8 | q[1]);
	else
		for (uint32_t i = 0; i < h->n_bins; i++, q += 2)
			h->bins[i] = (uint16_t)(q[1] << 8 | q[0]);
	return xp_gmon_add_hist(g, h);
}

/* The GNU format in one layout. */
static xp_err read_gnu(const unsigned char *buf, size_t len, const char *name,
                       int big, unsigned ab, xp_gmon **out, xp_diags *d)
{
	xp_rd r;
	xp_gmon *g;
	xp_err err;

	*out = NULL;
	xp_rd_init(&r, buf, len, big, name, d);
	if ((err = xp_rd_need(&r, 20, "header")) != XP_E_OK)
		return err;
	g = xp_gmon_new(big, ab, XP_GMON_GNU);
	if (g == NULL)
		return XP_E_NOMEM;
	xp_rd_bytes(&r, 4);
	g->version = xp_rd_u32(&r);
	if (g->version != 1) {
		err = xp_rd_error(&r, XP_E_VERSION, 4,
		                  "unsupported version %u (gprof reads "
		                  "version 1)", g->version);
		goto fail;
	}
	memcpy(g->spare, xp_rd_bytes(&r, 12), 12);
	while (xp_rd_left(&r) > 0) {
		size_t at = r.pos;
		unsigned tag = *xp_rd_bytes(&r, 1);

		if (tag == XP_GMON_HIST) {
			xp_gmon_hist h;
			uint64_t need;

			memset(&h, 0, sizeof h);
			if ((err = xp_rd_need(&r, 2 * ab + 24,
			                      "histogram record")) != XP_E_OK)
				goto fail;
			h.low_pc = xp_rd_word(&r, ab);
			h.high_pc = xp_rd_word(&r, ab);
			h.n_bins = xp_rd_u32(&r);
			h.prof_rate = xp_rd_u32(&r);
			memcpy(h.dimen, xp_rd_bytes(&r, 15), 15);
			h.abbrev = *xp_rd_bytes(&r, 1);
			if (h.high_pc < h.low_pc) {
				err = xp_rd_error(&r, XP_E_CORRUPT, at + 1,
				                  "histogram range is inverted: "
				                  "high_pc 0x%llx is below low_pc "
				                  "0x%llx",
				                  (unsigned long long)h.high_pc,
				                  (unsigned long long)h.low_pc);
				goto fail;
			}
			if (h.n_bins > 0 && h.high_pc == h.low_pc) {
				err = xp_rd_error(&r, XP_E_CORRUPT, at + 1,
				                  "histogram of %u bins covers an "
				                  "empty range", h.n_bins);
				goto fail;
			}
			need = 2 * (uint64_t)h.n_bins;
			if (need > xp_rd_left(&r)) {
				err = xp_rd_error(&r, XP_E_CORRUPT,
				                  at + 1 + 2 * ab,
				                  "histogram of %u bins needs %llu "
				                  "bytes, %zu left", h.n_bins,
				                  (unsigned long long)need,
				                  xp_rd_left(&r));
				goto fail;
			}
			if ((err = read_bins(&r, &h, g)) != XP_E_OK)
				goto fail;
		} else if (tag == XP_GMON_ARC) {
			xp_gmon_arc a;

			if ((err = xp_rd_need(&r, 2 * ab + 4,
			                      "arc record")) != XP_E_OK)
				goto fail;
			a.from_pc = xp_rd_word(&r, ab);
			a.self_pc = xp_rd_word(&r, ab);
			a.count = xp_rd_u32(&r);
			if ((err = xp_gmon_add_arc(g, &a)) != XP_E_OK)
				goto fail;
		} else if (tag == XP_GMON_BB) {
			uint32_t n;
			uint64_t need;

			if ((err = xp_rd_need(&r, 4, "basic-block record")) !=
			    XP_E_OK)
				goto fail;
			n = xp_rd_u32(&r);
			need = (uint64_t)n * 2 * ab;
			if (need > xp_rd_left(&r)) {
				err = xp_rd_error(&r, XP_E_CORRUPT, at + 1,
				                  "basic-block record of %u counts "
				                  "needs %llu bytes, %zu left", n,
				                  (unsigned long long)need,
				                  xp_rd_left(&r));
				goto fail;
			}
			if ((err = xp_gmon_add_bbrec(g)) != XP_E_OK)
				goto fail;
			for (uint32_t i = 0; i < n; i++) {
				xp_gmon_bb b;
				b.addr = xp_rd_word(&r, ab);
				b.count = xp_rd_word(&r, ab);
				if ((err = xp_gmon_add_bb(g, &b)) != XP_E_OK)
					goto fail;
			}
		} else {
			err = xp_rd_error(&r, XP_E_CORRUPT, at,
			                  "unknown record tag %u", tag);
			goto fail;
		}
	}
	*out = g;
	return XP_E_OK;
fail:
	xp_gmon_free(g);
	return err;
}

/* The old BSD formats in one layout, as gprof reads them. */
static xp_err read_bsd(const unsigned char *buf, size_t len, const char *name,
                       int big, unsigned ab, xp_gmon **out, xp_diags *d)
{
	xp_rd r;
	xp_gmon *g;
	xp_gmon_hist h;
	xp_err err;
	uint32_t hdr;
	size_t arc = 3 * (size_t)ab;

	*out = NULL;
	memset(&h, 0, sizeof h);
	xp_rd_init(&r, buf, len, big, name, d);
	if ((err = xp_rd_need(&r, XP_GMON_BSD_HDR(ab), "BSD header")) !=
	    XP_E_OK)
		return err;
	g = xp_gmon_new(big, ab, XP_GMON_BSD);
	if (g == NULL)
		return XP_E_NOMEM;
	h.low_pc = xp_rd_word(&r, ab);
	h.high_pc = xp_rd_word(&r, ab);
	g->ncnt = xp_rd_u32(&r);
	hdr = XP_GMON_BSD_HDR(ab);
	if (xp_rd_has(&r, 4) &&
	    get_word(r.p + r.pos, 4, big) == XP_GMON_BSD44_VERSION) {
		g->flavor = XP_GMON_BSD44;
		if ((err = xp_rd_need(&r, 20, "4.4BSD header")) != XP_E_OK)
			goto fail;
		g->version = xp_rd_u32(&r);
		h.prof_rate = xp_rd_u32(&r);
		memcpy(g->spare, xp_rd_bytes(&r, 12), 12);
		hdr = XP_GMON_BSD44_HDR(ab);
	}
	if (h.high_pc <= h.low_pc) {
		err = xp_rd_error(&r, XP_E_CORRUPT, 0,
		                  "histogram range is %s: high_pc 0x%llx, "
		                  "low_pc 0x%llx",
		                  h.high_pc < h.low_pc ? "inverted" : "empty",
		                  (unsigned long long)h.high_pc,
		                  (unsigned long long)h.low_pc);
		goto fail;
	}
	if (g->ncnt < hdr) {
		err = xp_rd_error(&r, XP_E_CORRUPT, 2 * ab,
		                  "byte count %u is below the header's %u bytes",
		                  g->ncnt, hdr);
		goto fail;
	}
	h.n_bins = (g->ncnt - hdr) / 2;
	if (2 * (uint64_t)h.n_bins > xp_rd_left(&r)) {
		err = xp_rd_error(&r, XP_E_CORRUPT, 2 * ab,
		                  "histogram of %u bins needs %llu bytes, %zu "
		                  "left", h.n_bins,
		                  2 * (unsigned long long)h.n_bins,
		                  xp_rd_left(&r));
		goto fail;
	}
	if ((err = read_bins(&r, &h, g)) != XP_E_OK)
		goto fail;
	while (xp_rd_has(&r, arc)) {
		xp_gmon_arc a;
		a.from_pc = xp_rd_word(&r, ab);
		a.self_pc = xp_rd_word(&r, ab);
		a.count = xp_rd_word(&r, ab);
		if ((err = xp_gmon_add_arc(g, &a)) != XP_E_OK)
			goto fail;
	}
	if (xp_rd_left(&r) > 0) {
		size_t n = xp_rd_left(&r);
		if ((err = xp_gmon_set_trailing(g, xp_rd_bytes(&r, n), n)) !=
		    XP_E_OK)
			goto fail;
	}
	*out = g;
	return XP_E_OK;
fail:
	xp_gmon_free(g);
	return err;
}

static xp_err read_layout(const unsigned char *buf, size_t len,
                          const char *name, int bsd, int big, unsigned ab,
                          xp_gmon **out, xp_diags *d)
{
	return bsd ? read_bsd(buf, len, name, big, ab, out, d)
	           : read_gnu(buf, len, name, big, ab, out, d);
}

/* True when the dimension is text followed by NULs. */
static int dimen_ok(const xp_gmon_hist *h)
{
	size_t i = 0;

	while (i < 15 && h->dimen[i] >= 0x20 && h->dimen[i] < 0x7f)
		i++;
	if (i == 0)
		return 0;
	while (i < 15 && h->dimen[i] == 0)
		i++;
	return i == 15;
}

/* How much a reading looks like what a program writes. */
static int plausibility(const xp_gmon *g)
{
	int score = 0;

	for (size_t i = 0; i < g->n_hists; i++) {
		const xp_gmon_hist *h = &g->hists[i];
		if (g->flavor == XP_GMON_GNU && dimen_ok(h))
			score += 2;
		if (h->low_pc < h->high_pc)
			score++;
	}
	if (g->flavor != XP_GMON_GNU && g->n_hists > 0) {
		const xp_gmon_hist *h = &g->hists[0];
		int in = 1;
		for (size_t i = 0; i < g->n_arcs; i++)
			if (g->arcs[i].self_pc < h->low_pc ||
			    g->arcs[i].self_pc > h->high_pc)
				in = 0;
		score += in ? 4 : 0;
		score += g->n_trailing == 0 ? 2 : 0;
	}
	return score;
}

static xp_err xp_gmon_read(const unsigned char *buf, size_t len,
                        const char *name, const xp_load_opts *o, void **out,
                        xp_diags *d)
{
	int bsd = !(len >= 4 && memcmp(buf, "gmon", 4) == 0);
	int big = 0, nc = 0, best = -1, ok = 0;
	unsigned ab = 8;
	struct cand { int big; unsigned ab; xp_gmon *g; uint64_t reached; };
	struct cand c[4];
	xp_gmon *g = NULL;
	xp_err err;

	*out = NULL;
	if (o->layout != NULL) {
		if (xp_gmon_parse_layout(o->layout, &big, &ab) != 0)
			return xp_diag_file(d, XP_E_INVAL, name,
			                    "unknown layout '%s' (le32, le64, "
			                    "be32 or be64)", o->layout);
		err = read_layout(buf, len, name, bsd, big, ab, &g, d);
		*out = g;
		return err;
	}
	if (o->exe != NULL) {
		xp_sym *s = NULL;
		if (o->exe_sym == NULL &&
		    (err = xp_sym_open(o->exe, &s, d)) != XP_E_OK)
			return err;
		big = xp_sym_big_endian(s != NULL ? s : o->exe_sym);
		ab = xp_sym_addr_bytes(s != NULL ? s : o->exe_sym);
		xp_sym_free(s);
		err = read_layout(buf, len, name, bsd, big, ab, &g, d);
		*out = g;
		return err;
	}

	/* Inference: the GNU version word settles the byte order. */
	for (int b = 0; b < 2; b++) {
		if (!bsd && len >= 8 &&
		    get_word(buf + 4, 4, b) != 1 && get_word(buf + 4, 4, !b) == 1)
			continue;
		for (unsigned w = 8; w >= 4; w -= 4) {
			xp_diags *sd = xp_diags_new(1);
			if (sd == NULL)
				goto nomem;
			c[nc].big = b;
			c[nc].ab = w;
			c[nc].g = NULL;
			err = read_layout(buf, len, name, bsd, b, w, &c[nc].g, sd);
			if (err == XP_E_NOMEM) {
				xp_diags_free(sd);
				nc++;
				goto nomem;
			}
			c[nc].reached = xp_diags_count(sd) > 0 &&
			                xp_diags_get(sd, 0)->offset != XP_NOPOS
			                ? xp_diags_get(sd, 0)->offset : 0;
			xp_diags_free(sd);
			nc++;
		}
	}
	for (int i = 0; i < nc; i++) {
		if (c[i].g == NULL)
			continue;
		ok++;
		if (best < 0 || plausibility(c[i].g) > plausibility(c[best].g))
			best = i;
	}
	if (ok == 0) {
		/* Report the reading that went furthest. */
		best = 0;
		for (int i = 1; i < nc; i++)
			if (c[i].reached > c[best].reached)
				best = i;
		return read_layout(buf, len, name, bsd, c[best].big, c[best].ab,
		                   &g, d);
	}
	if (ok > 1)
		xp_diag_warn(d, name, "the layout is ambiguous: %d layouts read "
		             "the whole file; reading it as %s (give -e or -L "
		             "to settle it)", ok,
		             xp_gmon_layout_name(c[best].big, c[best].ab));
	*out = c[best].g;
	for (int i = 0; i < nc; i++)
		if (i != best)
			xp_gmon_free(c[i].g);
	return XP_E_OK;
nomem:
	for (int i = 0; i < nc; i++)
		xp_gmon_free(c[i].g);
	return XP_E_NOMEM;
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */
/* ------------------------------------------------------------------ */

static void put_bins(xp_wbuf *w, const xp_gmon_hist *h, int big)
{
	/* Bins are many: copied when the host's order is the file's,
	 * otherwise encoded a buffer at a time. */
	if (!big == !xp_host_big()) {
		xp_wbuf_write(w, h->bins, 2 * (size_t)h->n_bins);
		return;
	}
	for (uint32_t i = 0; i < h->n_bins;) {
		uint32_t n = h->n_bins - i < XP_WBUF_MAXRES / 2
		             ? h->n_bins - i : XP_WBUF_MAXRES / 2;
		unsigned char *p = xp_wbuf_reserve(w, 2 * (size_t)n);

		if (p == NULL)
			return;
		for (uint32_t k = 0; k < n; k++, i++) {
			p[2 * k + !!big] = (unsigned char)h->bins[i];
			p[2 * k + !big] = (unsigned char)(h->bins[i] >> 8);
		}
		xp_wbuf_commit(w, 2 * (size_t)n);
	}
}

static xp_err xp_gmon_write(const void *m, xp_wbuf *w)
{
	const xp_gmon *g = m;
	unsigned ab = g->addr_bytes;
	int big = g->big;

	if (g->flavor != XP_GMON_GNU) {
		const xp_gmon_hist *h = &g->hists[0];
		xp_wbuf_word(w, h->low_pc, ab, big);
		xp_wbuf_word(w, h->high_pc, ab, big);
		xp_wbuf_word(w, g->ncnt, 4, big);
		if (g->flavor == XP_GMON_BSD44) {
			xp_wbuf_word(w, g->version, 4, big);
			xp_wbuf_word(w, h->prof_rate, 4, big);
			xp_wbuf_write(w, g->spare, 12);
		}
		put_bins(w, h, big);
		for (size_t i = 0; i < g->n_arcs; i++) {
			xp_wbuf_word(w, g->arcs[i].from_pc, ab, big);
			xp_wbuf_word(w, g->arcs[i].self_pc, ab, big);
			xp_wbuf_word(w, g->arcs[i].count, ab, big);
		}
		if (g->n_trailing > 0)
			xp_wbuf_write(w, g->trailing, g->n_trailing);
		return w->err;
	}
	xp_wbuf_write(w, "gmon", 4);
	xp_wbuf_word(w, g->version, 4, big);
	xp_wbuf_write(w, g->spare, 12);
	for (size_t i = 0; i < g->n_recs; i++) {
		const xp_gmon_rec *rc = &g->recs[i];
		unsigned char tag = (unsigned char)rc->type;

		xp_wbuf_write(w, &tag, 1);
		if (rc->type == XP_GMON_HIST) {
			const xp_gmon_hist *h = &g->hists[rc->index];
			xp_wbuf_word(w, h->low_pc, ab, big);
			xp_wbuf_word(w, h->high_pc, ab, big);
			xp_wbuf_word(w, h->n_bins, 4, big);
			xp_wbuf_word(w, h->prof_rate, 4, big);
			xp_wbuf_write(w, h->dimen, 15);
			xp_wbuf_write(w, &h->abbrev, 1);
			put_bins(w, h, big);
		} else if (rc->type == XP_GMON_ARC) {
			const xp_gmon_arc *a = &g->arcs[rc->index];
			xp_wbuf_word(w, a->from_pc, ab, big);
			xp_wbuf_word(w, a->self_pc, ab, big);
			xp_wbuf_word(w, a->count, 4, big);
		} else {
			xp_wbuf_word(w, rc->n, 4, big);
			for (size_t k = 0; k < rc->n; k++) {
				const xp_gmon_bb *b = &g->bbs[rc->index + k];
				xp_wbuf_word(w, b->addr, ab, big);
				xp_wbuf_word(w, b->count, ab, big);
			}
		}
	}
	return w->err;
}

/* Samples in the histograms, calls on the arcs, basic-block counts. */
static void xp_gmon_totals(const void *model, xp_prof_totals *t)
{
	const xp_gmon *g = model;
	uint64_t samples = 0, calls = 0, bbs = 0;

	for (size_t i = 0; i < g->n_hists; i++) {
		const xp_gmon_hist *h = &g->hists[i];
		for (uint32_t k = xp_gmon_next_bin(h->bins, 0, h->n_bins);
		     k < h->n_bins;
		     k = xp_gmon_next_bin(h->bins, k + 1, h->n_bins))
			samples += h->bins[k];
	}
	for (size_t i = 0; i < g->n_arcs; i++)
		calls = xp_sat_add(calls, g->arcs[i].count);
	for (size_t i = 0; i < g->n_bbs; i++)
		bbs = xp_sat_add(bbs, g->bbs[i].count);
	xp_prof_total(t, "samples", samples);
	xp_prof_total(t, "calls", calls);
	xp_prof_total(t, "block-counts", bbs);
}

static void xp_gmon_free_model(void *m)
{
	xp_gmon_free(m);
}

const xp_module xp_module_gmon = {
	XP_MODULE_NAMES("gmon", GMON, "gmon.out", "gmon.out", "a"),
	XP_MODULE_ENTRIES(xp_gmon),
	.report_takes = XP_REPORT_CALL_GRAPH,
	.report_of = "gprof's report of a gmon.out",
	.check_exe = xp_gmon_check_exe,
};
