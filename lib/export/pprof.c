/*
 * export/pprof.c - pprof's own format: a profile.proto message
 * (github.com/google/pprof, proto/profile.proto), gzipped, as go tool
 * pprof reads it.
 *
 * The message is encoded here: its wire format is a handful of varints
 * and length-delimited fields, and a dependency on a protobuf library
 * would buy nothing for one message written whole.  gzip is zlib's
 * (deflate in a gzip wrapper, no file name, time 0, so that the same
 * profile always gives the same bytes).
 *
 * What goes in: every sample type of the profile, its samples with their
 * stacks (leaf first), one location per location of xs.h with its lines
 * (the innermost first, as profile.proto orders inlined calls), one
 * function per distinct name, full name and file (name: the report's;
 * system_name: the full name), the mapped objects when the profile
 * records them (marked as symbolized, so that pprof never looks names up
 * again), the period, and the main sample type as the default.  The
 * arcs of a call graph are one more sample type, "calls", each arc a
 * sample of two locations (callee, caller) with its count.
 */
#include <zlib.h>

#include "export/xs.h"

/* ------------------------------------------------------------------ */
/* The wire format                                                     */
/* ------------------------------------------------------------------ */

typedef struct {
	xp_buf b;
	int failed;
} pb;

static void put_raw(pb *m, const void *p, size_t n)
{
	if (n > 0 && !m->failed && xp_buf_append(&m->b, p, n))
		m->failed = 1;
}

static void put_varint(pb *m, uint64_t v)
{
	unsigned char t[10];
	size_t n = 0;

	do {
		t[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v != 0);
	put_raw(m, t, n);
}

/* A varint field; 0 is the default and left out. */
static void put_u(pb *m, unsigned field, uint64_t v)
{
	if (v == 0)
		return;
	put_varint(m, (uint64_t)field << 3);
	put_varint(m, v);
}

static void put_bytes(pb *m, unsigned field, const void *p, size_t n)
{
	put_varint(m, (uint64_t)field << 3 | 2);
	put_varint(m, n);
	put_raw(m, p, n);
}

/* Embeds sub (then emptied) as field of m. */
static void put_msg(pb *m, unsigned field, pb *sub)
{
	if (sub->failed)
		m->failed = 1;
	put_bytes(m, field, sub->b.p, sub->b.len);
	sub->b.len = 0;
	sub->failed = 0;
}

/* ------------------------------------------------------------------ */
/* The profile                                                         */
/* ------------------------------------------------------------------ */

typedef struct {
	const xp_xs *x;
	xp_strpool st;        /* the string table: "" is 0 */
	uint32_t *strmap;     /* x's string id + 1 -> st's id */
	size_t *lnfunc;       /* per line of x->ln: its function id */
	pb out, sub, sub2;
	xp_err err;
} enc;

/* st's id of s; 0 after an error. */
static uint64_t str(enc *e, const char *s)
{
	uint32_t id = 0;

	if (e->err == XP_E_OK &&
	    (e->err = xp_strpool_intern(&e->st, s, strlen(s), &id)) != 0)
		return 0;
	return id;
}

/* st's id of x's string id (XP_XS_NONE: ""). */
static uint64_t xstr(enc *e, uint32_t id)
{
	if (id == XP_XS_NONE)
		return 0;
	if (e->strmap[id] == 0)
		e->strmap[id] = (uint32_t)str(e, xp_xs_s(e->x, id)) + 1;
	return e->strmap[id] - 1;
}

static void value_type(enc *e, unsigned field, const char *type,
                       const char *unit)
{
	put_u(&e->sub, 1, str(e, type));
	put_u(&e->sub, 2, str(e, unit));
	put_msg(&e->out, field, &e->sub);
}

/* A sample: its locations (ids, leaf first) and nv values. */
static void sample(enc *e, const size_t *locs, size_t n, const uint64_t *v,
                   unsigned nv)
{
	for (size_t i = 0; i < n; i++)
		put_varint(&e->sub2, locs[i] + 1);
	put_msg(&e->sub, 1, &e->sub2);
	for (unsigned i = 0; i < nv; i++)
		put_varint(&e->sub2, v[i] > INT64_MAX ? INT64_MAX : v[i]);
	put_msg(&e->sub, 2, &e->sub2);
	put_msg(&e->out, 2, &e->sub);
}

static void samples(enc *e)
{
	const xp_xs *x = e->x;
	unsigned nv = x->nv + (x->narc > 0);
	uint64_t v[XP_XS_MAXV + 1] = {0};

	for (size_t i = 0; i < x->ns; i++) {
		memcpy(v, x->s[i].v, x->nv * sizeof *v);
		sample(e, x->stk + x->s[i].first, x->s[i].n, v, nv);
	}
	memset(v, 0, sizeof v);
	for (size_t i = 0; i < x->narc; i++) {
		size_t locs[2] = {x->arc[i].callee, x->arc[i].caller};
		v[x->nv] = x->arc[i].calls;
		sample(e, locs, 2, v, nv);
	}
}

typedef struct {
	uint32_t name, full, file;
	size_t ln;
} fkey;

static int by_fkey(const void *a, const void *b)
{
	const fkey *x = a, *y = b;

	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	if (x->full != y->full)
		return x->full < y->full ? -1 : 1;
	return x->file < y->file ? -1 : x->file > y->file;
}

/* One function per distinct (name, full name, file); e->lnfunc. */
static xp_err functions(enc *e)
{
	const xp_xs *x = e->x;
	fkey *k = malloc((x->nln ? x->nln : 1) * sizeof *k);
	size_t nf = 0;

	if (k == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < x->nln; i++)
		k[i] = (fkey){x->ln[i].name, x->ln[i].full, x->ln[i].file, i};
	xp_qsort(k, x->nln, sizeof *k, by_fkey);
	for (size_t i = 0; i < x->nln; i++) {
		if (nf == 0 || by_fkey(&k[i - 1], &k[i]) != 0) {
			const xp_xs_line *l = &x->ln[k[i].ln];
			nf++;
			put_u(&e->sub, 1, nf);
			put_u(&e->sub, 2, xstr(e, l->name));
			put_u(&e->sub, 3, xstr(e, l->full != XP_XS_NONE ? l->full
			                                                 : l->name));
			put_u(&e->sub, 4, xstr(e, l->file));
			put_msg(&e->out, 5, &e->sub);
		}
		e->lnfunc[k[i].ln] = nf;
	}
	free(k);
	return XP_E_OK;
}

static void locations(enc *e)
{
	const xp_xs *x = e->x;

	for (size_t i = 0; i < x->nloc; i++) {
		const xp_xs_loc *l = &x->loc[i];
		put_u(&e->sub, 1, i + 1);
		put_u(&e->sub, 2, x->locmap != NULL ? x->locmap[i] : 0);
		put_u(&e->sub, 3, l->addr);
		for (size_t j = 0; j < l->n; j++) {
			put_u(&e->sub2, 1, e->lnfunc[l->first + j]);
			put_u(&e->sub2, 2, x->ln[l->first + j].line);
			put_msg(&e->sub, 4, &e->sub2);
		}
		put_msg(&e->out, 4, &e->sub);
	}
	for (size_t i = 0; i < x->nmap; i++) {
		const xp_xs_map *m = &x->map[i];
		put_u(&e->sub, 1, i + 1);
		put_u(&e->sub, 2, m->start);
		put_u(&e->sub, 3, m->limit);
		put_u(&e->sub, 4, m->offset);
		put_u(&e->sub, 5, xstr(e, m->file));
		for (unsigned f = 7; f <= 10; f++)
			put_u(&e->sub, f, 1);
		put_msg(&e->out, 3, &e->sub);
	}
}

/* The message whole, in e->out. */
static xp_err encode(enc *e)
{
	const xp_xs *x = e->x;
	xp_err err;

	str(e, "");
	for (unsigned i = 0; i < x->nv; i++)
		value_type(e, 1, x->vtype[i], x->vunit[i]);
	if (x->narc > 0)
		value_type(e, 1, "calls", "count");
	samples(e);
	if ((err = functions(e)) != XP_E_OK)
		return err;
	locations(e);
	if (x->ptype != NULL) {
		value_type(e, 11, x->ptype, x->punit);
		put_u(&e->out, 12, x->period);
	}
	put_u(&e->out, 14, str(e, x->vtype[x->main]));
	/* The string table last: every string is in it by now. */
	for (uint32_t i = 0; i < e->st.n; i++)
		put_bytes(&e->out, 6, xp_strpool_str(&e->st, i),
		          xp_strpool_len(&e->st, i));
	if (e->err != XP_E_OK)
		return e->err;
	return e->out.failed || e->sub.failed || e->sub2.failed ? XP_E_NOMEM
	                                                        : XP_E_OK;
}

/* p[0..n) gzipped into w. */
static xp_err gzip(const unsigned char *p, size_t n, xp_wbuf *w)
{
	z_stream z;
	unsigned char out[16384];
	int r;

	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
	                 Z_DEFAULT_STRATEGY) != Z_OK)
		return XP_E_NOMEM;
	z.next_in = (unsigned char *)p;
	do {
		size_t chunk = n > UINT_MAX ? UINT_MAX : n;
		z.next_in = (unsigned char *)p;
		z.avail_in = (unsigned)chunk;
		p += chunk;
		n -= chunk;
		do {
			z.next_out = out;
			z.avail_out = sizeof out;
			r = deflate(&z, n == 0 ? Z_FINISH : Z_NO_FLUSH);
			if (r == Z_STREAM_ERROR) {
				deflateEnd(&z);
				return XP_E_NOMEM;
			}
			xp_wbuf_write(w, out, sizeof out - z.avail_out);
		} while (z.avail_out == 0);
	} while (n > 0);
	deflateEnd(&z);
	return r == Z_STREAM_END ? XP_E_OK : XP_E_NOMEM;
}

xp_err xp_xs_pprof(const xp_xs *x, const char *name, xp_wbuf *w,
                   xp_diags *d)
{
	enc e;
	xp_err err = XP_E_NOMEM;

	(void)name;
	(void)d;
	memset(&e, 0, sizeof e);
	e.x = x;
	e.strmap = calloc(x->sp.n + 1, sizeof *e.strmap);
	e.lnfunc = calloc(x->nln + 1, sizeof *e.lnfunc);
	if (e.strmap != NULL && e.lnfunc != NULL &&
	    (err = encode(&e)) == XP_E_OK)
		err = gzip(e.out.b.p != NULL ? e.out.b.p : (unsigned char *)"",
		           e.out.b.len, w);
	XP_FREE(e.strmap, e.lnfunc);
	xp_strpool_free(&e.st);
	xp_buf_free(&e.out.b);
	xp_buf_free(&e.sub.b);
	xp_buf_free(&e.sub2.b);
	return err;
}
