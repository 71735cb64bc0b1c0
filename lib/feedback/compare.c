/*
 * feedback/compare.c - comparing two feedback profiles: the computations
 * behind xprof_diff(1).  Summarizing one, for xprof_show(1), is summary.c.
 *
 * The comparison walks both profiles' sorted indexes side by side (object
 * files by path, procedures by object file path and name), so matching
 * needs no hash table.  Inside a procedure the records that carry an id
 * are sorted by it, and records that form sets (stats, value profile
 * values, source lines, ...) are turned into byte strings ("blobs") that
 * are sorted and compared, which makes every comparison independent of
 * record order that carries no meaning.
 *
 * Sums of counts are kept exactly in 128 bits, and the questions that
 * decide a result (are two vectors proportional, does a prefix reach a
 * share of the total) are answered with exact integer arithmetic, so no
 * rounding can turn equal profiles into different ones.  Only the overlap
 * figure itself is a floating-point number.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "feedback/compare.h"

/* ------------------------------------------------------------------ */
/* Exact arithmetic                                                    */
/* ------------------------------------------------------------------ */

/* Is a * sb == b * sa?  Decides proportionality without rounding. */
static int cross_equal(uint64_t a, u128 sb, uint64_t b, u128 sa)
{
	big x, y;

	big_mul(&x, sb, a);
	big_mul(&y, sa, b);
	return big_cmp(&x, &y) == 0;
}

/* ------------------------------------------------------------------ */
/* Overlap                                                             */
/* ------------------------------------------------------------------ */

/*
 * What an overlap needs: the two exact sums, the running sum of minima,
 * and whether every pair seen so far was proportional to the sums.
 */
typedef struct {
	u128 sa, sb;
	long double lsa, lsb;
	long double acc;
	int prop;
} ovl;

static void ovl_start(ovl *o)
{
	o->lsa = u128_ld(o->sa);
	o->lsb = u128_ld(o->sb);
	o->acc = 0;
	o->prop = 1;
}

static void ovl_pair(ovl *o, uint64_t a, uint64_t b)
{
	if (u128_zero(o->sa) || u128_zero(o->sb))
		return;
	long double x = (long double)a / o->lsa, y = (long double)b / o->lsb;
	o->acc += x < y ? x : y;
	if (o->prop && !cross_equal(a, o->sb, b, o->sa))
		o->prop = 0;
}

static double ovl_result(const ovl *o)
{
	int za = u128_zero(o->sa), zb = u128_zero(o->sb);

	if (za && zb)
		return 1.0;
	if (za || zb)
		return 0.0;
	if (o->prop)
		return 1.0;
	if (o->acc > 1)
		return 1.0;
	return (double)o->acc;
}

double xp_overlap(const uint64_t *a, const uint64_t *b, size_t n)
{
	ovl o;

	memset(&o, 0, sizeof o);
	for (size_t i = 0; i < n; i++) {
		u128_add(&o.sa, a[i]);
		u128_add(&o.sb, b[i]);
	}
	ovl_start(&o);
	for (size_t i = 0; i < n; i++)
		ovl_pair(&o, a[i], b[i]);
	return ovl_result(&o);
}

/* ------------------------------------------------------------------ */
/* Blob lists: sets of records compared regardless of order            */
/* ------------------------------------------------------------------ */

typedef struct {
	size_t off, len;
} blobref;

typedef struct {
	xp_buf data;
	blobref *refs;
	size_t n, cap;
	size_t start;  /* offset of the blob being built */
	xp_err err;    /* sticky */
} bloblist;

static void bl_reset(bloblist *l)
{
	l->data.len = 0;
	l->n = 0;
	l->err = XP_E_OK;
}

static void bl_free(bloblist *l)
{
	xp_buf_free(&l->data);
	free(l->refs);
	memset(l, 0, sizeof *l);
}

static void bl_begin(bloblist *l)
{
	l->start = l->data.len;
}

static void bl_put(bloblist *l, const void *p, size_t n)
{
	if (l->err == XP_E_OK && xp_buf_append(&l->data, p, n) != XP_E_OK)
		l->err = XP_E_NOMEM;
}

static void bl_u32(bloblist *l, uint32_t v)
{
	bl_put(l, &v, sizeof v);
}

static void bl_u64(bloblist *l, uint64_t v)
{
	bl_put(l, &v, sizeof v);
}

/* A string goes in with its length, so that concatenations stay
 * unambiguous. */
static void bl_str(bloblist *l, const xp_fb *fb, xp_str s)
{
	if (s == XP_NOSTR) {
		bl_u32(l, UINT32_MAX);
		return;
	}
	size_t n = xp_fb_strlen(fb, s);
	bl_u32(l, (uint32_t)n);
	bl_put(l, xp_fb_str(fb, s), n);
}

static void bl_end(bloblist *l)
{
	if (l->err != XP_E_OK)
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		blobref *r = realloc(l->refs, cap * sizeof *r);
		if (r == NULL) {
			l->err = XP_E_NOMEM;
			return;
		}
		l->refs = r;
		l->cap = cap;
	}
	l->refs[l->n].off = l->start;
	l->refs[l->n].len = l->data.len - l->start;
	l->n++;
}

/* qsort has no context argument in C11, so each sort key carries the
 * base of its blob bytes; that keeps the library free of mutable
 * globals. */
typedef struct {
	const unsigned char *base;
	blobref r;
} blobkey;

static int blobkey_cmp(const void *x, const void *y)
{
	const blobkey *a = x, *b = y;
	size_t n = a->r.len < b->r.len ? a->r.len : b->r.len;
	int c = n ? memcmp(a->base + a->r.off, b->base + b->r.off, n) : 0;

	if (c)
		return c;
	return (a->r.len > b->r.len) - (a->r.len < b->r.len);
}

/* Are two lists the same multiset of blobs? */
static int bl_same(const bloblist *x, const bloblist *y, xp_err *err)
{
	if (x->err != XP_E_OK || y->err != XP_E_OK) {
		*err = XP_E_NOMEM;
		return 0;
	}
	if (x->n != y->n)
		return 0;
	if (x->n == 0)
		return 1;
	blobkey *kx = malloc(x->n * sizeof *kx), *ky = malloc(y->n * sizeof *ky);
	int same = 1;

	if (kx == NULL || ky == NULL) {
		free(kx);
		free(ky);
		*err = XP_E_NOMEM;
		return 0;
	}
	for (size_t i = 0; i < x->n; i++) {
		kx[i] = (blobkey){x->data.p, x->refs[i]};
		ky[i] = (blobkey){y->data.p, y->refs[i]};
	}
	xp_qsort(kx, x->n, sizeof *kx, blobkey_cmp);
	xp_qsort(ky, y->n, sizeof *ky, blobkey_cmp);
	for (size_t i = 0; i < x->n && same; i++)
		if (blobkey_cmp(&kx[i], &ky[i]) != 0)
			same = 0;
	free(kx);
	free(ky);
	return same;
}

/* ------------------------------------------------------------------ */
/* Gathering a procedure's counters                                    */
/* ------------------------------------------------------------------ */

typedef struct {
	xp_counter *v;
	size_t n, cap;
} ctrvec;

static int ctr_cmp(const void *x, const void *y)
{
	const xp_counter *a = x, *b = y;
	return (a->id > b->id) - (a->id < b->id);
}

/* The counters of procedure pr, sorted by id. */
static xp_err gather_counters(const xp_fb *fb, const xp_proc *pr, ctrvec *cv)
{
	int sorted = 1;

	if (pr->n_counters > cv->cap) {
		xp_counter *v = realloc(cv->v, pr->n_counters * sizeof *v);
		if (v == NULL)
			return XP_E_NOMEM;
		cv->v = v;
		cv->cap = pr->n_counters;
	}
	cv->n = pr->n_counters;
	for (uint32_t i = 0; i < pr->n_counters; i++) {
		xp_fb_counter(fb, pr->first_counter + i, &cv->v[i]);
		if (i > 0 && cv->v[i].id < cv->v[i - 1].id)
			sorted = 0;
	}
	if (!sorted)
		xp_qsort(cv->v, cv->n, sizeof *cv->v, ctr_cmp);
	return XP_E_OK;
}

/*
 * Runs the statements given for every counter id of either vector (both
 * sorted by id), with id, va and vb (a missing value reads 0), has_a and
 * has_b in scope.
 */
#define JOIN_COUNTERS(ca, cb, ...)                                       \
	do {                                                             \
		size_t ja_ = 0, jb_ = 0;                                 \
		while (ja_ < (ca)->n || jb_ < (cb)->n) {                 \
			int has_a, has_b;                                \
			uint32_t id;                                     \
			uint64_t va = 0, vb = 0;                         \
			if (jb_ >= (cb)->n ||                            \
			    (ja_ < (ca)->n &&                            \
			     (ca)->v[ja_].id < (cb)->v[jb_].id)) {       \
				id = (ca)->v[ja_].id;                    \
				va = (ca)->v[ja_++].value;               \
				has_a = 1, has_b = 0;                    \
			} else if (ja_ >= (ca)->n ||                     \
			           (cb)->v[jb_].id < (ca)->v[ja_].id) {  \
				id = (cb)->v[jb_].id;                    \
				vb = (cb)->v[jb_++].value;               \
				has_a = 0, has_b = 1;                    \
			} else {                                         \
				id = (ca)->v[ja_].id;                    \
				va = (ca)->v[ja_++].value;               \
				vb = (cb)->v[jb_++].value;               \
				has_a = 1, has_b = 1;                    \
			}                                                \
			(void)id;                                        \
			(void)has_a;                                     \
			(void)has_b;                                     \
			__VA_ARGS__                                      \
		}                                                        \
	} while (0)

/* ------------------------------------------------------------------ */
/* The comparison                                                      */
/* ------------------------------------------------------------------ */

typedef struct {
	xp_cmp_entry pub;
	uint32_t ia, ib;  /* record index in A, in B; UINT32_MAX if absent */
	uint32_t of;      /* procedures: index of the object file entry */
	int id_moved;     /* procedures: the proc_ids differ */
	ovl o;
} entry;

struct xp_cmp {
	const xp_fb *a, *b;
	entry total;
	entry *ofs;
	size_t n_ofs;
	entry *procs;
	size_t n_procs;
	xp_cmp_note *notes;
	size_t n_notes, cap_notes;
	/* Each tuple's source file after resolution, per side. */
	xp_str *res_a, *res_b;
	/* Scratch space reused from one procedure to the next. */
	ctrvec ca, cb;
	bloblist la, lb;
};

static xp_err add_note(xp_cmp *c, xp_cmp_note_kind k, const char *name,
                       int in_a, int in_b)
{
	if (xp_grow(&c->notes, &c->cap_notes, c->n_notes,
	            sizeof *c->notes) != XP_E_OK)
		return XP_E_NOMEM;
	c->notes[c->n_notes++] = (xp_cmp_note){k, name, in_a, in_b};
	return XP_E_OK;
}

/*
 * Resolves the source file of every tuple: a tuple that names none takes
 * the previous tuple's within the same object file section.
 */
static xp_err resolve_tuples(const xp_fb *fb, xp_str **out)
{
	uint32_t nt = xp_fb_count(fb, XP_T_TUPLES);
	xp_str *r = malloc((nt ? nt : 1) * sizeof *r);

	if (r == NULL)
		return XP_E_NOMEM;
	for (uint32_t i = 0; i < nt; i++)
		r[i] = XP_NOSTR;
	for (uint32_t f = 0; f < xp_fb_count(fb, XP_T_OBJFILES); f++) {
		xp_objfile of;
		xp_str cur = XP_NOSTR;

		xp_fb_objfile(fb, f, &of);
		for (uint32_t p = 0; p < of.n_procs; p++) {
			xp_proc pr;
			xp_fb_proc(fb, of.first_proc + p, &pr);
			for (uint32_t t = 0; t < pr.n_tuples; t++) {
				xp_tuple tu;
				xp_fb_tuple(fb, pr.first_tuple + t, &tu);
				if (tu.srcfile != XP_NOSTR)
					cur = tu.srcfile;
				r[pr.first_tuple + t] = cur;
			}
		}
	}
	*out = r;
	return XP_E_OK;
}

/* Stats as blobs: a multiset of (kind, value). */
static void blob_stats(bloblist *l, const xp_fb *fb, uint32_t first,
                       uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		xp_stat st;
		xp_fb_stat(fb, first + i, &st);
		bl_begin(l);
		bl_u32(l, (uint32_t)st.kind);
		bl_u64(l, st.value);
		bl_end(l);
	}
}

/* Value profile records: each one with its values as a sorted set inside
 * the record's blob. */
static xp_err blob_vps(bloblist *l, const xp_fb *fb, const xp_proc *pr,
                       uint32_t nvpv)
{
	bloblist vals;
	xp_err err = XP_E_OK;

	memset(&vals, 0, sizeof vals);
	for (uint32_t i = 0; i < pr->n_vps && err == XP_E_OK; i++) {
		xp_vp vp;
		xp_fb_vp(fb, pr->first_vp + i, &vp);
		bl_reset(&vals);
		for (uint32_t j = 0; j < nvpv; j++) {
			xp_vpval v;
			uint64_t raw = 0;

			xp_fb_vpval(fb, pr->first_vpval + i * nvpv + j, vp.type,
			            &v);
			bl_begin(&vals);
			bl_u64(&vals, v.count);
			bl_u32(&vals, (uint32_t)(v.has_value != 0));
			if (v.has_value) {
				switch (vp.type) {
				case XP_VP_INT: raw = (uint64_t)(int64_t)v.v.i; break;
				case XP_VP_LLONG: raw = (uint64_t)v.v.ll; break;
				case XP_VP_FLOAT: {
					uint32_t w;
					memcpy(&w, &v.v.f, 4);
					raw = w;
					break;
				}
				case XP_VP_DOUBLE: memcpy(&raw, &v.v.d, 8); break;
				case XP_VP_PROC:
					bl_str(&vals, fb, v.v.proc.name);
					bl_str(&vals, fb, v.v.proc.objfile);
					break;
				}
				bl_u64(&vals, raw);
			}
			bl_end(&vals);
		}
		if (vals.err != XP_E_OK) {
			err = XP_E_NOMEM;
			break;
		}
		/* Sort the values so that the record's blob is canonical. */
		blobkey *k = malloc((vals.n ? vals.n : 1) * sizeof *k);
		if (k == NULL) {
			err = XP_E_NOMEM;
			break;
		}
		for (size_t j = 0; j < vals.n; j++)
			k[j] = (blobkey){vals.data.p, vals.refs[j]};
		xp_qsort(k, vals.n, sizeof *k, blobkey_cmp);
		bl_begin(l);
		bl_u32(l, vp.expr_id);
		bl_u32(l, (uint32_t)vp.type);
		for (size_t j = 0; j < vals.n; j++) {
			bl_u64(l, k[j].r.len);
			bl_put(l, vals.data.p + k[j].r.off, k[j].r.len);
		}
		bl_end(l);
		free(k);
	}
	bl_free(&vals);
	return err;
}

/* Blocks, edges and tuples: all keyed by id, so a set of blobs each. */
static void blob_structure(bloblist *l, const xp_fb *fb, const xp_proc *pr,
                           const xp_str *res)
{
	for (uint32_t i = 0; i < pr->n_blocks; i++) {
		xp_block b;
		xp_fb_block(fb, pr->first_block + i, &b);
		bl_begin(l);
		bl_u32(l, 1);
		bl_u32(l, b.id);
		bl_u32(l, b.counter);
		bl_end(l);
	}
	for (uint32_t i = 0; i < pr->n_edges; i++) {
		xp_edge e;
		xp_fb_edge(fb, pr->first_edge + i, &e);
		bl_begin(l);
		bl_u32(l, 2);
		bl_u32(l, e.id);
		bl_u32(l, e.counter);
		bl_u32(l, e.from);
		bl_u32(l, e.to);
		bl_end(l);
	}
	for (uint32_t i = 0; i < pr->n_tuples; i++) {
		xp_tuple t;
		xp_fb_tuple(fb, pr->first_tuple + i, &t);
		bl_begin(l);
		bl_u32(l, 3);
		bl_u32(l, t.id);
		bl_u32(l, t.block);
		bl_u32(l, t.line);
		bl_u32(l, t.col);
		bl_str(l, fb, res[pr->first_tuple + i]);
		bl_end(l);
	}
}

static int strcmp_of(const xp_fb *fb, uint32_t i, const xp_fb *gb, uint32_t j)
{
	xp_objfile x, y;
	xp_fb_objfile(fb, i, &x);
	xp_fb_objfile(gb, j, &y);
	return strcmp(xp_fb_str(fb, x.path), xp_fb_str(gb, y.path));
}

static int strcmp_proc(const xp_fb *fb, uint32_t i, const xp_fb *gb,
                       uint32_t j)
{
	xp_proc x, y;
	xp_objfile ox, oy;
	int r;

	xp_fb_proc(fb, i, &x);
	xp_fb_proc(gb, j, &y);
	xp_fb_objfile(fb, x.objfile, &ox);
	xp_fb_objfile(gb, y.objfile, &oy);
	r = strcmp(xp_fb_str(fb, ox.path), xp_fb_str(gb, oy.path));
	if (r)
		return r;
	return strcmp(xp_fb_str(fb, x.name), xp_fb_str(gb, y.name));
}

/*
 * Walks two sorted indexes side by side; cmp compares record i of A with
 * record j of B.  Calls pair(ia, ib) with UINT32_MAX for a missing side.
 */
typedef int (*keycmp)(const xp_fb *, uint32_t, const xp_fb *, uint32_t);

typedef struct {
	uint32_t ia, ib;
} pairidx;

static xp_err join_index(const xp_fb *a, const xp_fb *b, xp_table idx,
                         keycmp cmp, pairidx **out, size_t *n)
{
	uint32_t na = xp_fb_count(a, idx), nb = xp_fb_count(b, idx);
	uint32_t i = 0, j = 0;
	size_t k = 0;
	pairidx *p = malloc(((size_t)na + nb + 1) * sizeof *p);

	if (p == NULL)
		return XP_E_NOMEM;
	while (i < na || j < nb) {
		uint32_t x = i < na ? xp_fb_index(a, idx, i) : 0;
		uint32_t y = j < nb ? xp_fb_index(b, idx, j) : 0;
		int r = i >= na ? 1 : j >= nb ? -1 : cmp(a, x, b, y);

		if (r < 0) {
			p[k++] = (pairidx){x, UINT32_MAX};
			i++;
		} else if (r > 0) {
			p[k++] = (pairidx){UINT32_MAX, y};
			j++;
		} else {
			p[k++] = (pairidx){x, y};
			i++;
			j++;
		}
	}
	*out = p;
	*n = k;
	return XP_E_OK;
}

static xp_err compare_objfiles(xp_cmp *c, uint32_t **map_a, uint32_t **map_b)
{
	pairidx *p;
	size_t n;
	xp_err err = join_index(c->a, c->b, XP_T_IDX_OBJFILES, strcmp_of, &p,
	                        &n);
	uint32_t nfa = xp_fb_count(c->a, XP_T_OBJFILES);
	uint32_t nfb = xp_fb_count(c->b, XP_T_OBJFILES);

	if (err != XP_E_OK)
		return err;
	c->ofs = calloc(n ? n : 1, sizeof *c->ofs);
	*map_a = malloc((nfa ? nfa : 1) * sizeof **map_a);
	*map_b = malloc((nfb ? nfb : 1) * sizeof **map_b);
	if (c->ofs == NULL || *map_a == NULL || *map_b == NULL) {
		free(p);
		return XP_E_NOMEM;
	}
	c->n_ofs = n;
	for (size_t k = 0; k < n && err == XP_E_OK; k++) {
		entry *e = &c->ofs[k];
		xp_objfile x, y;

		memset(&x, 0, sizeof x);
		memset(&y, 0, sizeof y);
		e->ia = p[k].ia;
		e->ib = p[k].ib;
		if (e->ia != UINT32_MAX) {
			xp_fb_objfile(c->a, e->ia, &x);
			(*map_a)[e->ia] = (uint32_t)k;
			e->pub.in_a = 1;
			e->pub.sig_a = x.signature;
			e->pub.objfile = xp_fb_str(c->a, x.path);
		}
		if (e->ib != UINT32_MAX) {
			xp_fb_objfile(c->b, e->ib, &y);
			(*map_b)[e->ib] = (uint32_t)k;
			e->pub.in_b = 1;
			e->pub.sig_b = y.signature;
			if (!e->pub.in_a)
				e->pub.objfile = xp_fb_str(c->b, y.path);
		}
		if (!e->pub.in_a || !e->pub.in_b)
			continue;
		if (x.signature != y.signature)
			e->pub.diff |= XP_CMP_SIGNATURE;
		if (x.tv_sec != y.tv_sec || x.tv_usec != y.tv_usec ||
		    x.n_values_per_vp != y.n_values_per_vp ||
		    x.n_srcfile_names != y.n_srcfile_names)
			e->pub.diff |= XP_CMP_FIELDS;
		bl_reset(&c->la);
		bl_reset(&c->lb);
		blob_stats(&c->la, c->a, x.first_stat, x.n_stats);
		blob_stats(&c->lb, c->b, y.first_stat, y.n_stats);
		if (!bl_same(&c->la, &c->lb, &err))
			e->pub.diff |= XP_CMP_STATS;
	}
	free(p);
	return err;
}

/* Compares what two versions of a procedure hold besides counters. */
static xp_err compare_proc_records(xp_cmp *c, entry *e, const xp_proc *x,
                                   const xp_proc *y)
{
	xp_err err = XP_E_OK;
	xp_objfile ox, oy;

	if (x->signature != y->signature)
		e->pub.diff |= XP_CMP_SIGNATURE;
	/* A different proc_id counts only where the object file has the
	 * same procedures on both sides (compare_procs): otherwise the ids
	 * moved with the procedures added or removed. */
	e->id_moved = x->proc_id != y->proc_id;
	if (x->n_vp_sites != y->n_vp_sites ||
	    x->n_srcmap_ops != y->n_srcmap_ops)
		e->pub.diff |= XP_CMP_FIELDS;
	bl_reset(&c->la);
	bl_reset(&c->lb);
	blob_stats(&c->la, c->a, x->first_stat, x->n_stats);
	blob_stats(&c->lb, c->b, y->first_stat, y->n_stats);
	if (!bl_same(&c->la, &c->lb, &err))
		e->pub.diff |= XP_CMP_STATS;
	if (err != XP_E_OK)
		return err;
	xp_fb_objfile(c->a, x->objfile, &ox);
	xp_fb_objfile(c->b, y->objfile, &oy);
	bl_reset(&c->la);
	bl_reset(&c->lb);
	if ((err = blob_vps(&c->la, c->a, x, ox.n_values_per_vp)) != XP_E_OK ||
	    (err = blob_vps(&c->lb, c->b, y, oy.n_values_per_vp)) != XP_E_OK)
		return err;
	if (!bl_same(&c->la, &c->lb, &err))
		e->pub.diff |= XP_CMP_VALUES;
	if (err != XP_E_OK)
		return err;
	bl_reset(&c->la);
	bl_reset(&c->lb);
	blob_structure(&c->la, c->a, x, c->res_a);
	blob_structure(&c->lb, c->b, y, c->res_b);
	if (!bl_same(&c->la, &c->lb, &err))
		e->pub.diff |= XP_CMP_STRUCTURE;
	return err;
}

/* Loads the counters of an entry's two sides into c->ca and c->cb. */
static xp_err load_counters(xp_cmp *c, const entry *e)
{
	xp_proc pr;
	xp_err err;

	c->ca.n = c->cb.n = 0;
	if (e->ia != UINT32_MAX) {
		xp_fb_proc(c->a, e->ia, &pr);
		if ((err = gather_counters(c->a, &pr, &c->ca)) != XP_E_OK)
			return err;
	}
	if (e->ib != UINT32_MAX) {
		xp_fb_proc(c->b, e->ib, &pr);
		if ((err = gather_counters(c->b, &pr, &c->cb)) != XP_E_OK)
			return err;
	}
	return XP_E_OK;
}

static void add_counts(entry *to, const entry *from)
{
	u128_add(&to->o.sa, from->o.sa.lo);
	to->o.sa.hi += from->o.sa.hi;
	u128_add(&to->o.sb, from->o.sb.lo);
	to->o.sb.hi += from->o.sb.hi;
	to->pub.n_counters_a += from->pub.n_counters_a;
	to->pub.n_counters_b += from->pub.n_counters_b;
	to->pub.n_matched += from->pub.n_matched;
	to->pub.n_differ += from->pub.n_differ;
	to->pub.diff |= from->pub.diff;
}

static xp_err compare_procs(xp_cmp *c, const uint32_t *map_a,
                            const uint32_t *map_b)
{
	pairidx *p;
	size_t n;
	xp_err err = join_index(c->a, c->b, XP_T_IDX_PROCS, strcmp_proc, &p, &n);

	if (err != XP_E_OK)
		return err;
	c->procs = calloc(n ? n : 1, sizeof *c->procs);
	if (c->procs == NULL) {
		free(p);
		return XP_E_NOMEM;
	}
	c->n_procs = n;
	/* First pass: match, sum, and compare everything but the overlap. */
	for (size_t k = 0; k < n && err == XP_E_OK; k++) {
		entry *e = &c->procs[k];
		xp_proc x, y;
		xp_objfile of;

		memset(&x, 0, sizeof x);
		memset(&y, 0, sizeof y);
		e->ia = p[k].ia;
		e->ib = p[k].ib;
		if (e->ia != UINT32_MAX) {
			xp_fb_proc(c->a, e->ia, &x);
			xp_fb_objfile(c->a, x.objfile, &of);
			e->pub.in_a = 1;
			e->pub.sig_a = x.signature;
			e->pub.name = xp_fb_str(c->a, x.name);
			e->pub.objfile = xp_fb_str(c->a, of.path);
			e->of = map_a[x.objfile];
		}
		if (e->ib != UINT32_MAX) {
			xp_fb_proc(c->b, e->ib, &y);
			xp_fb_objfile(c->b, y.objfile, &of);
			e->pub.in_b = 1;
			e->pub.sig_b = y.signature;
			if (!e->pub.in_a) {
				e->pub.name = xp_fb_str(c->b, y.name);
				e->pub.objfile = xp_fb_str(c->b, of.path);
			}
			e->of = map_b[y.objfile];
		}
		if ((err = load_counters(c, e)) != XP_E_OK)
			break;
		e->pub.n_counters_a = c->ca.n;
		e->pub.n_counters_b = c->cb.n;
		JOIN_COUNTERS(&c->ca, &c->cb, {
			u128_add(&e->o.sa, va);
			u128_add(&e->o.sb, vb);
			if (has_a && has_b) {
				e->pub.n_matched++;
				if (va != vb)
					e->pub.n_differ++;
			}
		});
		if (e->pub.in_a && e->pub.in_b) {
			if (e->pub.n_differ != 0 ||
			    e->pub.n_matched != c->ca.n ||
			    e->pub.n_matched != c->cb.n)
				e->pub.diff |= XP_CMP_COUNTERS;
			err = compare_proc_records(c, e, &x, &y);
		}
		e->pub.sum_a = u128_sat(e->o.sa);
		e->pub.sum_b = u128_sat(e->o.sb);
		add_counts(&c->ofs[e->of], e);
		if (!e->pub.in_a || !e->pub.in_b)
			c->ofs[e->of].pub.diff |= XP_CMP_PROCS;
	}
	free(p);
	if (err != XP_E_OK)
		return err;
	for (size_t k = 0; k < n; k++) {
		entry *e = &c->procs[k];
		if (e->id_moved && !(c->ofs[e->of].pub.diff & XP_CMP_PROCS)) {
			e->pub.diff |= XP_CMP_FIELDS;
			c->ofs[e->of].pub.diff |= XP_CMP_FIELDS;
		}
	}
	for (size_t k = 0; k < c->n_ofs; k++) {
		entry *f = &c->ofs[k];
		f->pub.sum_a = u128_sat(f->o.sa);
		f->pub.sum_b = u128_sat(f->o.sb);
		add_counts(&c->total, f);
		ovl_start(&f->o);
	}
	c->total.pub.sum_a = u128_sat(c->total.o.sa);
	c->total.pub.sum_b = u128_sat(c->total.o.sb);
	ovl_start(&c->total.o);
	/* Second pass: the overlaps, now that every sum is known. */
	for (size_t k = 0; k < n; k++) {
		entry *e = &c->procs[k];
		entry *f = &c->ofs[e->of];

		if ((err = load_counters(c, e)) != XP_E_OK)
			return err;
		ovl_start(&e->o);
		JOIN_COUNTERS(&c->ca, &c->cb, {
			ovl_pair(&e->o, va, vb);
			ovl_pair(&f->o, va, vb);
			ovl_pair(&c->total.o, va, vb);
		});
		e->pub.overlap = ovl_result(&e->o);
	}
	for (size_t k = 0; k < c->n_ofs; k++)
		c->ofs[k].pub.overlap = ovl_result(&c->ofs[k].o);
	c->total.pub.overlap = ovl_result(&c->total.o);
	return XP_E_OK;
}

static int strcmp_program(const xp_fb *fb, uint32_t i, const xp_fb *gb,
                          uint32_t j)
{
	xp_program x, y;
	xp_fb_program(fb, i, &x);
	xp_fb_program(gb, j, &y);
	return strcmp(xp_fb_str(fb, x.path), xp_fb_str(gb, y.path));
}

static int strcmp_srcfile(const xp_fb *fb, uint32_t i, const xp_fb *gb,
                          uint32_t j)
{
	xp_srcfile x, y;
	xp_fb_srcfile(fb, i, &x);
	xp_fb_srcfile(gb, j, &y);
	return strcmp(xp_fb_str(fb, x.path), xp_fb_str(gb, y.path));
}

static void blob_program(bloblist *l, const xp_fb *fb, const xp_program *pg)
{
	blob_stats(l, fb, pg->first_stat, pg->n_stats);
	for (uint32_t i = 0; i < pg->n_objrefs; i++) {
		bl_begin(l);
		bl_u32(l, 10);
		bl_str(l, fb, xp_fb_objref(fb, pg->first_objref + i));
		bl_end(l);
	}
	for (uint32_t i = 0; i < pg->n_comdats; i++) {
		xp_comdat cd;
		xp_fb_comdat(fb, pg->first_comdat + i, &cd);
		bl_begin(l);
		bl_u32(l, 11);
		bl_str(l, fb, cd.proc);
		bl_str(l, fb, cd.objfile);
		bl_end(l);
	}
}

/* A source line with its block references as one blob; the references
 * are sorted inside it. */
static xp_err blob_srcfile(bloblist *l, const xp_fb *fb, const xp_srcfile *sf)
{
	bloblist refs;
	xp_err err = XP_E_OK;

	memset(&refs, 0, sizeof refs);
	for (uint32_t i = 0; i < sf->n_lines; i++) {
		xp_srcline sl;
		xp_fb_srcline(fb, sf->first_line + i, &sl);
		bl_reset(&refs);
		for (uint32_t j = 0; j < sl.n_refs; j++) {
			xp_blockref br;
			xp_fb_blockref(fb, sl.first_ref + j, &br);
			bl_begin(&refs);
			bl_u32(&refs, br.block);
			bl_u64(&refs, br.count);
			bl_str(&refs, fb, br.proc);
			bl_str(&refs, fb, br.objfile);
			bl_end(&refs);
		}
		if (refs.err != XP_E_OK) {
			err = XP_E_NOMEM;
			break;
		}
		blobkey *k = malloc((refs.n ? refs.n : 1) * sizeof *k);
		if (k == NULL) {
			err = XP_E_NOMEM;
			break;
		}
		for (size_t j = 0; j < refs.n; j++)
			k[j] = (blobkey){refs.data.p, refs.refs[j]};
		xp_qsort(k, refs.n, sizeof *k, blobkey_cmp);
		bl_begin(l);
		bl_u32(l, sl.line);
		bl_u32(l, sl.col);
		for (size_t j = 0; j < refs.n; j++) {
			bl_u64(l, k[j].r.len);
			bl_put(l, refs.data.p + k[j].r.off, k[j].r.len);
		}
		bl_end(l);
		free(k);
	}
	bl_free(&refs);
	return err;
}

static xp_err compare_sections(xp_cmp *c, xp_table idx, keycmp cmp,
                               xp_cmp_note_kind kind)
{
	pairidx *p;
	size_t n;
	xp_err err = join_index(c->a, c->b, idx, cmp, &p, &n);

	for (size_t k = 0; k < n && err == XP_E_OK; k++) {
		uint32_t ia = p[k].ia, ib = p[k].ib;
		const char *name;
		int same = 0;

		if (kind == XP_CMP_NOTE_PROGRAM) {
			xp_program x, y;
			if (ia != UINT32_MAX)
				xp_fb_program(c->a, ia, &x);
			if (ib != UINT32_MAX)
				xp_fb_program(c->b, ib, &y);
			name = ia != UINT32_MAX ? xp_fb_str(c->a, x.path)
			                        : xp_fb_str(c->b, y.path);
			if (ia != UINT32_MAX && ib != UINT32_MAX) {
				bl_reset(&c->la);
				bl_reset(&c->lb);
				blob_program(&c->la, c->a, &x);
				blob_program(&c->lb, c->b, &y);
				same = bl_same(&c->la, &c->lb, &err);
			}
		} else {
			xp_srcfile x, y;
			if (ia != UINT32_MAX)
				xp_fb_srcfile(c->a, ia, &x);
			if (ib != UINT32_MAX)
				xp_fb_srcfile(c->b, ib, &y);
			name = ia != UINT32_MAX ? xp_fb_str(c->a, x.path)
			                        : xp_fb_str(c->b, y.path);
			if (ia != UINT32_MAX && ib != UINT32_MAX) {
				bl_reset(&c->la);
				bl_reset(&c->lb);
				if ((err = blob_srcfile(&c->la, c->a, &x)) != XP_E_OK ||
				    (err = blob_srcfile(&c->lb, c->b, &y)) != XP_E_OK)
					break;
				same = bl_same(&c->la, &c->lb, &err);
			}
		}
		if (!same && err == XP_E_OK)
			err = add_note(c, kind, name, ia != UINT32_MAX,
			               ib != UINT32_MAX);
	}
	free(p);
	return err;
}

xp_err xp_cmp_new(const xp_fb *a, const xp_fb *b, xp_cmp **out)
{
	xp_cmp *c = calloc(1, sizeof *c);
	uint32_t *map_a = NULL, *map_b = NULL;
	xp_err err = XP_E_NOMEM;

	*out = NULL;
	if (c == NULL)
		return XP_E_NOMEM;
	c->a = a;
	c->b = b;
	c->total.ia = c->total.ib = 0;
	c->total.pub.in_a = c->total.pub.in_b = 1;
	if (xp_fb_datatype(a) != xp_fb_datatype(b) &&
	    add_note(c, XP_CMP_NOTE_TYPE, NULL, 1, 1) != XP_E_OK)
		goto fail;
	if (xp_fb_minor(a) != xp_fb_minor(b) &&
	    add_note(c, XP_CMP_NOTE_VERSION, NULL, 1, 1) != XP_E_OK)
		goto fail;
	if (xp_fb_n_proc_names(a) != xp_fb_n_proc_names(b) &&
	    add_note(c, XP_CMP_NOTE_PROC_NAMES, NULL, 1, 1) != XP_E_OK)
		goto fail;
	if ((err = resolve_tuples(a, &c->res_a)) != XP_E_OK ||
	    (err = resolve_tuples(b, &c->res_b)) != XP_E_OK ||
	    (err = compare_objfiles(c, &map_a, &map_b)) != XP_E_OK ||
	    (err = compare_procs(c, map_a, map_b)) != XP_E_OK ||
	    (err = compare_sections(c, XP_T_IDX_PROGRAMS, strcmp_program,
	                            XP_CMP_NOTE_PROGRAM)) != XP_E_OK ||
	    (err = compare_sections(c, XP_T_IDX_SRCFILES, strcmp_srcfile,
	                            XP_CMP_NOTE_SRCFILE)) != XP_E_OK)
		goto fail;
	for (size_t k = 0; k < c->n_ofs; k++)
		if (!c->ofs[k].pub.in_a || !c->ofs[k].pub.in_b)
			c->total.pub.diff |= XP_CMP_PROCS;
	free(map_a);
	free(map_b);
	/* The scratch space is no longer needed. */
	free(c->ca.v);
	free(c->cb.v);
	memset(&c->ca, 0, sizeof c->ca);
	memset(&c->cb, 0, sizeof c->cb);
	bl_free(&c->la);
	bl_free(&c->lb);
	free(c->res_a);
	free(c->res_b);
	c->res_a = c->res_b = NULL;
	*out = c;
	return XP_E_OK;
fail:
	free(map_a);
	free(map_b);
	xp_cmp_free(c);
	return err;
}

void xp_cmp_free(xp_cmp *c)
{
	if (c == NULL)
		return;
	XP_FREE(c->ofs, c->procs, c->notes, c->res_a, c->res_b, c->ca.v,
	        c->cb.v);
	bl_free(&c->la);
	bl_free(&c->lb);
	free(c);
}

int xp_cmp_equal(const xp_cmp *c)
{
	return c->total.pub.diff == 0 && c->n_notes == 0;
}

const xp_cmp_entry *xp_cmp_total(const xp_cmp *c)
{
	return &c->total.pub;
}

size_t xp_cmp_n_objfiles(const xp_cmp *c)
{
	return c->n_ofs;
}

const xp_cmp_entry *xp_cmp_objfile(const xp_cmp *c, size_t i)
{
	return &c->ofs[i].pub;
}

size_t xp_cmp_n_procs(const xp_cmp *c)
{
	return c->n_procs;
}

const xp_cmp_entry *xp_cmp_proc(const xp_cmp *c, size_t i)
{
	return &c->procs[i].pub;
}

size_t xp_cmp_n_notes(const xp_cmp *c)
{
	return c->n_notes;
}

const xp_cmp_note *xp_cmp_get_note(const xp_cmp *c, size_t i)
{
	return &c->notes[i];
}

xp_err xp_cmp_counters(const xp_cmp *c, size_t i, xp_cmp_counter **out,
                       size_t *n)
{
	const entry *e = &c->procs[i];
	ctrvec ca = {0}, cb = {0};
	xp_proc pr;
	xp_err err = XP_E_OK;
	xp_cmp_counter *v;
	size_t k = 0;

	*out = NULL;
	*n = 0;
	if (e->ia != UINT32_MAX) {
		xp_fb_proc(c->a, e->ia, &pr);
		err = gather_counters(c->a, &pr, &ca);
	}
	if (err == XP_E_OK && e->ib != UINT32_MAX) {
		xp_fb_proc(c->b, e->ib, &pr);
		err = gather_counters(c->b, &pr, &cb);
	}
	v = malloc((ca.n + cb.n + 1) * sizeof *v);
	if (err != XP_E_OK || v == NULL) {
		XP_FREE(ca.v, cb.v, v);
		return XP_E_NOMEM;
	}
	JOIN_COUNTERS(&ca, &cb, {
		v[k++] = (xp_cmp_counter){id, has_a, has_b, va, vb};
	});
	free(ca.v);
	free(cb.v);
	*out = v;
	*n = k;
	return XP_E_OK;
}

double xp_cmp_relative(const xp_cmp_entry *e)
{
	if (e->sum_a == 0)
		return e->sum_b == 0 ? 0.0 : INFINITY;
	if (e->sum_b >= e->sum_a)
		return (double)((long double)(e->sum_b - e->sum_a) /
		                (long double)e->sum_a);
	return -(double)((long double)(e->sum_a - e->sum_b) /
	                 (long double)e->sum_a);
}

/* What a ranking sorts: the key, the absolute change, the position. */
typedef struct {
	double key;
	uint64_t abs;
	size_t i;
} rankrec;

/* Larger key first, then larger absolute change, then earlier entry. */
static int rank_desc(const void *x, const void *y)
{
	const rankrec *a = x, *b = y;
	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	if (a->abs != b->abs)
		return a->abs > b->abs ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

xp_err xp_cmp_top(const xp_cmp *c, xp_cmp_rank by, size_t n, size_t **out,
                  size_t *count)
{
	rankrec *r = malloc((c->n_procs ? c->n_procs : 1) * sizeof *r);
	size_t k = 0;

	*out = NULL;
	*count = 0;
	if (r == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < c->n_procs; i++) {
		const xp_cmp_entry *e = &c->procs[i].pub;
		uint64_t d;

		if (!e->in_a || !e->in_b)
			continue;
		d = e->sum_b > e->sum_a ? e->sum_b - e->sum_a
		                        : e->sum_a - e->sum_b;
		switch (by) {
		case XP_RANK_ABSOLUTE:
			if (d == 0)
				continue;
			/* Exact: the u64 difference itself is the key, through
			 * the tie-break on abs. */
			r[k++] = (rankrec){0, d, i};
			break;
		case XP_RANK_RELATIVE:
			if (d == 0)
				continue;
			r[k++] = (rankrec){fabs(xp_cmp_relative(e)), d, i};
			break;
		case XP_RANK_OVERLAP:
			if (e->overlap >= 1.0)
				continue;
			/* Ascending overlap: sort on its negation. */
			r[k++] = (rankrec){-e->overlap, d, i};
			break;
		}
	}
	xp_qsort(r, k, sizeof *r, rank_desc);
	if (k > n)
		k = n;
	size_t *idx = malloc((k ? k : 1) * sizeof *idx);
	if (idx == NULL) {
		free(r);
		return XP_E_NOMEM;
	}
	for (size_t i = 0; i < k; i++)
		idx[i] = r[i].i;
	free(r);
	*out = idx;
	*count = k;
	return XP_E_OK;
}
