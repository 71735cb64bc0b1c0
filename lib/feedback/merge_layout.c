/*
 * feedback/merge_layout.c - adding inputs of a layout seen before by their
 * counts alone, and the merger's entry points for adding an input.
 *
 * A database added in full stays open as a template, with notes of where
 * each of its counts went.  A later database of the same layout is checked
 * against the template byte for byte, read through a buffer of the
 * merger's (nothing of it is mapped), and its counts are then read again
 * and combined into the template's delta, which goes to the noted places
 * before anything else changes the accumulator.  Value profiles with
 * values other than the template's wait in the delta too, as value lists
 * of their own.  Adding is associative and commutative, so this gives
 * the result of adding each input in full.
 *
 * The first database of a merge is not even added in full: it stays a
 * lazy template, the merger holding nothing else, and is added only when
 * something else is (an input of another layout, another merger's
 * accumulator).  Inputs of one binary, the common case, then never build
 * the accumulator: the result is written from the template and the delta
 * (merge_flat.c).
 */
#include <stdlib.h>
#include <string.h>

#include "feedback/merge.h"

/*
 * Combines the u64 at vo of n records of size rs at src, weighted, into
 * acc[0..n-1]; first: acc holds nothing yet.  Returns the saturating sum
 * of the u64 as they are (before weighing).  The plain sum, the common
 * case, has no branch per count: a sum that overflows is caught by the
 * or of every carry.
 */
static uint64_t combine_into(xp_merger *m, uint64_t *acc,
                             const unsigned char *src, uint32_t n, size_t rs,
                             size_t vo, int first)
{
	uint64_t sum = 0, over = 0;
	src += vo;
	if (m->w_int && m->w == 1 && (first || m->o.mode == XP_MERGE_SUM)) {
		for (uint32_t i = 0; i < n; i++, src += rs) {
			uint64_t v = xp_get_le64(src);
			uint64_t a = first ? 0 : acc[i], s = a + v;
			uint64_t c = s < v;
			acc[i] = s | (0 - c);
			over |= c;
			uint64_t t = sum + v;
			sum = t < v ? UINT64_MAX : t;
		}
		if (over)
			m->saturated++;
		return sum;
	}
	for (uint32_t i = 0; i < n; i++, src += rs) {
		uint64_t v = xp_get_le64(src);
		add_value(m, &acc[i], v, first);
		sum = xp_sat_add(sum, v);
	}
	return sum;
}

/*
 * Where the records of an input of a template's shape are read: its
 * profile in memory (fb), or its file through a window (w), laid out as
 * the template (lay).
 */
typedef struct {
	const xp_fb *fb;
	xp_win *w;
	const xp_fb *lay;
} source;

/* Records first .. first + n - 1 of table t; NULL when unreadable. */
static const unsigned char *recs(source *s, xp_table t, uint32_t first,
                                 uint32_t n)
{
	if (s->fb)
		return xp_rec(s->fb, t, first);
	size_t rs = xp_tabdescs[t].size;
	uint64_t off = (uint64_t)(s->lay->tab[t] - s->lay->image) +
	               (uint64_t)first * rs;
	return xp_win_get(s->w, off, off + (uint64_t)n * rs);
}

/* Combines table t's counts (the u64 at vo) from record from on, read
 * from s, into acc, a window's worth at a time; their saturating sum is
 * added to *sum when it is not NULL, and their sum modulo 2^64 to *raw
 * when that is not NULL. */
static xp_err combine_table(xp_merger *m, uint64_t *acc, source *s,
                            xp_table t, size_t vo, int first, uint64_t *sum,
                            uint64_t *raw, uint32_t from)
{
	size_t rs = xp_tabdescs[t].size;
	uint32_t n = s->lay->n[t];
	uint32_t step = s->fb ? n : (uint32_t)(s->w->cap / rs);
	for (uint32_t i = from; i < n;) {
		uint32_t k = n - i < step ? n - i : step;
		const unsigned char *r = recs(s, t, i, k);
		if (!r)
			return XP_E_IO;
		uint64_t part = combine_into(m, acc + i, r, k, rs, vo, first);
		if (sum)
			*sum = xp_sat_add(*sum, part);
		for (uint32_t j = 0; raw && j < k; j++)
			*raw += xp_get_le64(r + (size_t)j * rs + vo);
		i += k;
	}
	return XP_E_OK;
}

/* VPVALS record i of template t with the delta's count of its value. */
static void held_record(const tmpl *t, uint32_t i, unsigned char *rec)
{
	memcpy(rec, xp_rec(t->fb, XP_T_VPVALS, i), XP_RS_VPVAL);
	xp_put_le64(rec + XP_VV_COUNT, t->vcnt[i]);
}

/* Adds the values that t's delta holds (vcnt) of v's records to the
 * value lists of acc, their VP_PROC keys mapped by smap. */
static xp_err held_vals(xp_merger *m, tmpl *t, const tvproc *v,
                        const uint32_t *smap, aproc *acc)
{
	xp_err err = XP_E_OK;
	const unsigned char *vp = xp_rec(t->fb, XP_T_VPS, v->first_vp);
	unsigned char rec[XP_RS_VPVAL];
	uint32_t i = v->first_vpval;
	for (uint32_t j = 0; j < v->n_vps && !err; j++, vp += XP_RS_VP)
		for (uint32_t q = 0; q < v->nvpv && !err; q++, i++) {
			if (!t->vheld[i])
				continue;
			held_record(t, i, rec);
			err = xp_merge_add_vpval(m, acc, vp, rec, v->nvpv, smap);
		}
	return err;
}

/* Adds template t's delta where its counts went. */
static xp_err flush_delta(xp_merger *m, tmpl *t)
{
	if (t->dn == 0)
		return XP_E_OK;
	t->dn = 0;
	xp_merge_set_weight(m, 1);
	int plain = m->o.mode == XP_MERGE_SUM;
	uint32_t n = t->fb->n[XP_T_COUNTERS];
	for (uint32_t i = 0; i < n; i++) {
		if (t->cmap[i])
			add_count(m, t->cmap[i], t->dcnt[i], plain);
	}
	n = t->fb->n[XP_T_BLOCKREFS];
	for (uint32_t i = 0; i < n; i++) {
		const uint32_t *note = t->rmap + 2 * (size_t)i;
		if (note[1] == NONE)
			continue;
		add_count(m, &m->rp[m->ln[note[0]].first + note[1]].count,
		          t->dref[i], plain);
	}
	xp_err err = XP_E_OK;
	for (uint32_t k = 0; k < t->ntv; k++) {
		tvproc *v = &t->tv[k];
		aproc *p = &m->pr[v->pi];
		if (!err)
			err = held_vals(m, t, v, t->smap, p);
		memset(t->vheld + v->first_vpval, 0, (size_t)v->n_vps * v->nvpv);
		if (!err && v->other) {
			xp_merge_vps_remap(v->other, t->smap);
			err = xp_merge_combine_vps(m, p, v->other);
		}
		xp_merge_proc_free(v->other);
		free(v->other);
		v->other = NULL;
	}
	return err;
}

/* Room in t for the delta of inputs of in's shape (a new template
 * clears vheld). */
static xp_err delta_room(tmpl *t, const xp_fb *in)
{
	xp_err err;
	if (in->n[XP_T_BLOCKREFS] >= UINT32_MAX / 2)
		return XP_E_LIMIT;
	if ((err = GROW(t->dcnt, t->dcntcap, in->n[XP_T_COUNTERS] + 1)) ||
	    (err = GROW(t->dref, t->drefcap, in->n[XP_T_BLOCKREFS] + 1)) ||
	    (err = GROW(t->vcnt, t->vcntcap, in->n[XP_T_VPVALS] + 1)) ||
	    (err = GROW(t->vheld, t->vheldcap, in->n[XP_T_VPVALS] + 1)))
		return err;
	return XP_E_OK;
}

/* Room in t for what adding in as a template notes. */
static xp_err note_room(tmpl *t, const xp_fb *in)
{
	xp_err err;
	if ((err = delta_room(t, in)) ||
	    (err = GROW(t->smap, t->smapcap, in->nstr + 1)) ||
	    (err = GROW(t->cmap, t->cmapcap, in->n[XP_T_COUNTERS] + 1)) ||
	    (err = GROW(t->rmap, t->rmapcap, 2 * in->n[XP_T_BLOCKREFS] + 2)))
		return err;
	return XP_E_OK;
}

void xp_merge_drop_others(tmpl *t)
{
	for (uint32_t k = 0; k < t->ntv; k++) {
		xp_merge_proc_free(t->tv[k].other);
		free(t->tv[k].other);
		t->tv[k].other = NULL;
	}
}

/* Closes template t, whose delta was added; its arrays stay for reuse. */
static void close_template(tmpl *t)
{
	xp_merge_drop_others(t);
	xp_fb_free(t->fb);
	t->fb = NULL;
	t->lost.len = 0;
	t->ntv = 0;
	t->dn = 0;
	t->lazy = 0;
	free(t->name);
	t->name = NULL;
}

void xp_merge_template_free(tmpl *t)
{
	close_template(t);
	xp_buf_free(&t->lost);
	XP_FREE(t->smap, t->tv, t->cmap, t->rmap, t->dcnt, t->dref, t->vcnt,
	        t->vheld);
}

/*
 * Adds lazy template t in full, noting where its counts go; its delta
 * stays to be added.  The values waiting in the delta stay with the
 * procedures they belong to, which adding notes in the same order.
 */
static xp_err add_lazy(xp_merger *m, tmpl *t, xp_diags *d)
{
	uint64_t count = m->count;
	tvproc *lazy = t->tv;
	uint32_t n = t->ntv;
	t->tv = NULL;
	t->ntv = t->tvcap = 0;
	xp_err err = note_room(t, t->fb);
	if (!err) {
		m->rec = t;
		err = xp_merge_add_full(m, t->fb, t->weight, t->name, d);
		m->rec = NULL;
	}
	m->count = count;
	if (!err && t->ntv != n)
		err = XP_E_INVAL;
	if (!err && t->fb->nstr)
		memcpy(t->smap, m->smap, (size_t)t->fb->nstr * sizeof *t->smap);
	for (uint32_t k = 0; k < n; k++) {
		if (!err) {
			t->tv[k].other = lazy[k].other;
		} else {
			xp_merge_proc_free(lazy[k].other);
			free(lazy[k].other);
		}
	}
	free(lazy);
	t->lazy = 0;
	free(t->name);
	t->name = NULL;
	if (err)
		m->failed = 1;
	return err;
}

/* Adds every template's delta, once a lazy one is added in full. */
static xp_err flush_all(xp_merger *m, xp_diags *d)
{
	for (unsigned k = 0; k < NTMPL; k++) {
		tmpl *t = &m->tp[k];
		xp_err err = XP_E_OK;
		if (t->fb && t->lazy)
			err = add_lazy(m, t, d);
		if (!err && t->fb)
			err = flush_delta(m, t);
		if (err)
			return err;
	}
	return XP_E_OK;
}

/* Adds every delta and closes every template but keep (or all: NULL). */
xp_err xp_merge_drop_templates(xp_merger *m, const tmpl *keep, xp_diags *d)
{
	xp_err err = flush_all(m, d);
	for (unsigned k = 0; k < NTMPL; k++)
		if (&m->tp[k] != keep)
			close_template(&m->tp[k]);
	return err;
}

/*
 * The delta's lists of other values of template t's procedure v: one per
 * VPS record of v, in their order (those of one expression and type
 * meet when the lists are added up).  NULL without memory.
 */
static aproc *other_lists(const tmpl *t, const tvproc *v)
{
	aproc *o = calloc(1, sizeof *o);
	if (o && GROW_FROM(o->vr, o->vcap, v->n_vps, v->n_vps)) {
		free(o);
		return NULL;
	}
	const unsigned char *vp = xp_rec(t->fb, XP_T_VPS, v->first_vp);
	for (uint32_t j = 0; o && j < v->n_vps; j++, vp += XP_RS_VP)
		o->vr[o->nvr++] = (vrec){xp_get_le32(vp + XP_VP_EXPR),
		                         xp_get_le32(vp + XP_VP_TYPE), 0, 0, NULL};
	return o;
}

static void held_value(xp_merger *m, tmpl *t, uint32_t i,
                       const unsigned char *val);

/*
 * Adds value q of VPS record j of template t's procedure v, VPVALS record
 * val (weighted already when the merger's weight is 1): to the delta's
 * counts when it is t's value there, else to the delta's lists of other
 * values.  read_again: val was read from the file a second time, after
 * the reader found the file of t's shape, which it does only when its
 * VP_PROC values are t's (xp_db_check_like): another one there means
 * the file changed in between (XP_E_INVAL), and its string ids are not
 * to be trusted.
 */
static xp_err like_value(xp_merger *m, tmpl *t, tvproc *v, uint32_t j,
                         uint32_t q, const unsigned char *val, int read_again)
{
	uint32_t i = v->first_vpval + j * v->nvpv + q;
	if (!xp_same_but_u64(val, xp_rec(t->fb, XP_T_VPVALS, i), 1, XP_RS_VPVAL,
	                     XP_VV_COUNT)) {
		if (read_again &&
		    xp_get_le32(xp_rec(t->fb, XP_T_VPS, v->first_vp + j) +
		                XP_VP_TYPE) == XP_VP_PROC)
			return XP_E_INVAL;
		if (!v->other && !(v->other = other_lists(t, v)))
			return XP_E_NOMEM;
		return xp_merge_vp_add(m, &v->other->vr[j], val, v->nvpv, NULL,
		                       NULL);
	}
	held_value(m, t, i, val);
	return XP_E_OK;
}

/* Adds the count of val, VPVALS record i of an input with the
 * template's value there, to the delta's. */
static void held_value(xp_merger *m, tmpl *t, uint32_t i,
                       const unsigned char *val)
{
	uint64_t a = t->vheld[i] ? t->vcnt[i] : 0;
	add_value(m, &a, xp_get_le64(val + XP_VV_COUNT), !t->vheld[i]);
	t->vcnt[i] = a;
	t->vheld[i] = 1;
}

/* Adds the values of template t's procedure v, vals, as like_value()
 * does: all at once when all are t's, as they mostly are. */
static xp_err like_values(xp_merger *m, tmpl *t, tvproc *v,
                          const unsigned char *vals, int read_again)
{
	uint32_t n = v->n_vps * v->nvpv;
	xp_err err = XP_E_OK;
	if (xp_same_but_u64(vals, xp_rec(t->fb, XP_T_VPVALS, v->first_vpval), n,
	                    XP_RS_VPVAL, XP_VV_COUNT)) {
		for (uint32_t k = 0; k < n; k++, vals += XP_RS_VPVAL)
			held_value(m, t, v->first_vpval + k, vals);
		return XP_E_OK;
	}
	for (uint32_t j = 0; j < v->n_vps && !err; j++)
		for (uint32_t q = 0; q < v->nvpv && !err; q++, vals += XP_RS_VPVAL)
			err = like_value(m, t, v, j, q, vals, read_again);
	return err;
}

/*
 * The counts of an input of a template's shape, taken as the reader
 * checks it (xp_db_check_like): combined into the delta at once when
 * that can be undone exactly should the input turn out not to have the
 * shape (weight 1, and the delta empty or summed: a sum is taken out by
 * subtraction, a sum that saturated by the count noted before it).
 * What cannot be taken at once is read again once the input is found
 * good, and must then add up as it did when it was checked: other counts
 * mean that the file changed in between.
 */
typedef struct {
	uint32_t at;          /* the count's index, the table in bit 31 */
	uint64_t old;
} noted;

typedef struct {
	xp_merger *m;
	tmpl *t;
	int on;               /* counts are combined at once */
	int first;            /* the delta was empty */
	uint32_t done[2];     /* COUNTERS, BLOCKREFS records combined */
	int nomem;            /* a saturated count could not be noted */
	uint64_t sum;         /* saturating sum of the counters combined */
	uint64_t check[2];    /* the sum, modulo 2^64, of the counts */
	uint64_t seen[2];     /* the same of every count checked */
	noted *sat;           /* the counts that saturated, as they were */
	uint32_t nsat, satcap;
} early;

static void take_early(void *ctx, const xp_fb *like, xp_table t,
                       uint32_t first, const unsigned char *recs, uint32_t n)
{
	early *e = ctx;
	xp_merger *m = e->m;
	if (!e->t) {
		for (unsigned k = 0; k < NTMPL; k++)
			if (m->tp[k].fb == like)
				e->t = &m->tp[k];
		e->first = e->t->dn == 0;
		e->on = m->w_int && m->w == 1 &&
		        (e->first || m->o.mode == XP_MERGE_SUM);
	}
	int k = t == XP_T_COUNTERS ? 0 : t == XP_T_BLOCKREFS ? 1 : -1;
	if (k < 0)
		return;
	size_t rs = k ? XP_RS_BLOCKREF : XP_RS_COUNTER;
	size_t vo = k ? XP_BR_COUNT : XP_CN_VALUE;
	if (!e->on || e->nomem || first != e->done[k]) {
		/* To be read again, and compared then. */
		for (uint32_t i = 0; i < n; i++)
			e->seen[k] += xp_get_le64(recs + (size_t)i * rs + vo);
		return;
	}
	uint64_t *acc = (k ? e->t->dref : e->t->dcnt) + first;
	const unsigned char *v = recs + vo;
	uint64_t check = 0, sum = 0, over = 0;
	/* Without a branch per count: a sum that wraps is smaller than
	 * the count, and is put right below. */
	for (uint32_t i = 0; i < n; i++, v += rs) {
		uint64_t c = xp_get_le64(v), a = e->first ? c : acc[i] + c;
		acc[i] = a;
		over |= a < c;
		check += c;
		uint64_t s = sum + c;
		sum = s < c ? U64MAX : s;
	}
	v = recs + vo;
	for (uint32_t i = 0; over && i < n; i++, v += rs) {
		uint64_t c = xp_get_le64(v);
		if (acc[i] >= c)
			continue;
		/* Saturated: noted as it was, to be put back if need be
		 * (without memory for that, the merge fails). */
		if (GROW(e->sat, e->satcap, e->nsat + 1)) {
			e->nomem = 1;
			return;
		}
		e->sat[e->nsat++] = (noted){(uint32_t)k << 31 | (first + i),
		                            acc[i] - c};
		acc[i] = U64MAX;
	}
	e->done[k] += n;
	e->check[k] += check;
	e->seen[k] += check;
	if (k == 0)
		e->sum = xp_sat_add(e->sum, sum);
}

/*
 * The input read by w did not have the shape after all: the counts
 * combined at once are taken out again, read anew.  XP_E_IO when they
 * cannot be (w->err), XP_E_INVAL when they are not the counts read before
 * (the file changed meanwhile).
 */
static xp_err undo_early(early *e, xp_win *w)
{
	for (int k = 0; e->t && !e->first && k < 2; k++) {
		xp_table t = k ? XP_T_BLOCKREFS : XP_T_COUNTERS;
		size_t rs = xp_tabdescs[t].size, vo = k ? XP_BR_COUNT : XP_CN_VALUE;
		uint64_t *acc = k ? e->t->dref : e->t->dcnt, check = 0;
		source s = {NULL, w, e->t->fb};
		uint32_t step = (uint32_t)(w->cap / rs);
		for (uint32_t i = 0; i < e->done[k];) {
			uint32_t n = e->done[k] - i < step ? e->done[k] - i : step;
			const unsigned char *r = recs(&s, t, i, n);
			if (!r)
				return XP_E_IO;
			for (uint32_t j = 0; j < n; j++, i++) {
				uint64_t c = xp_get_le64(r + (size_t)j * rs + vo);
				acc[i] -= c;
				check += c;
			}
		}
		if (check != e->check[k])
			return XP_E_INVAL;
	}
	for (uint32_t q = 0; !e->first && q < e->nsat; q++) {
		uint64_t *acc = e->sat[q].at >> 31 ? e->t->dref : e->t->dcnt;
		acc[e->sat[q].at & 0x7fffffffu] = e->sat[q].old;
	}
	return XP_E_OK;
}

/*
 * Adds an input of template t's shape, read from s: its counts to t's
 * delta (but those e combined already), and the warnings adding it in
 * full would give.  tot, when not NULL, gets its totals (xp_fb_totals).
 */
static xp_err add_like(xp_merger *m, tmpl *t, source *s, double weight,
                       const char *name, xp_diags *d, uint64_t *tot,
                       const early *e)
{
	xp_err err;
	int first = t->dn == 0;
	const xp_fb *lay = t->fb;
	uint32_t done[2] = {e ? e->done[0] : 0, e ? e->done[1] : 0};
	xp_merge_set_weight(m, weight);
	if (tot) {
		tot[0] = lay->n[XP_T_OBJFILES];
		tot[1] = lay->n[XP_T_PROCS];
		tot[2] = lay->n[XP_T_COUNTERS];
		tot[3] = e ? e->sum : 0;
	}
	/* What is read again adds up as what was checked, or the file
	 * changed in between. */
	uint64_t raw[2] = {0, 0};
	if ((err = combine_table(m, t->dcnt, s, XP_T_COUNTERS, XP_CN_VALUE,
	                         first, tot ? &tot[3] : NULL, e ? &raw[0] : NULL,
	                         done[0])) ||
	    (err = combine_table(m, t->dref, s, XP_T_BLOCKREFS, XP_BR_COUNT,
	                         first, NULL, e ? &raw[1] : NULL, done[1])))
		return err;
	for (int k = 0; e && k < 2; k++)
		if (raw[k] != e->seen[k] - e->check[k])
			return XP_E_INVAL;
	for (uint32_t k = 0; k < t->ntv; k++) {
		tvproc *v = &t->tv[k];
		const unsigned char *a = recs(s, XP_T_VPVALS, v->first_vpval,
		                              v->n_vps * v->nvpv);
		if (!a)
			return XP_E_IO;
		if ((err = like_values(m, t, v, a, s->w != NULL)))
			return err;
	}
	for (size_t at = 0; at < t->lost.len;) {
		const char *msg = (const char *)t->lost.p + at;
		xp_diag_warn(d, name, "%s", msg);
		at += strlen(msg) + 1;
	}
	t->dn++;
	m->count++;
	return XP_E_OK;
}

tmpl *xp_merge_only_template(xp_merger *m)
{
	tmpl *t = NULL;
	for (unsigned k = 0; k < NTMPL; k++) {
		if (!m->tp[k].fb)
			continue;
		if (t || !m->tp[k].lazy)
			return NULL;
		t = &m->tp[k];
	}
	return t;
}

/* Combines the final counts acc of another merger's delta into t's. */
static void fold_counts(xp_merger *m, uint64_t *to, const uint64_t *acc,
                        uint32_t n)
{
	if (m->o.mode == XP_MERGE_SUM)
		for (uint32_t i = 0; i < n; i++)
			add_plain(m, &to[i], acc[i]);
	else
		for (uint32_t i = 0; i < n; i++)
			combine(m, &to[i], acc[i], 0, 0);
}

/*
 * Another merger f holding only a lazy template of the layout of m's,
 * absorbed: its template added to m's delta as an input of its shape,
 * then its delta to m's.
 */
static xp_err absorb_like(xp_merger *m, tmpl *t, xp_merger *f, tmpl *ft,
                          xp_diags *d)
{
	uint64_t count = m->count;
	source s = {ft->fb, NULL, t->fb};
	xp_err err = add_like(m, t, &s, ft->weight, ft->name, d, NULL, NULL);
	if (err || ft->dn == 0)
		goto out;
	xp_merge_set_weight(m, 1);
	fold_counts(m, t->dcnt, ft->dcnt, t->fb->n[XP_T_COUNTERS]);
	fold_counts(m, t->dref, ft->dref, t->fb->n[XP_T_BLOCKREFS]);
	for (uint32_t k = 0; k < t->ntv && !err; k++) {
		tvproc *v = &t->tv[k];
		uint32_t i = v->first_vpval;
		unsigned char rec[XP_RS_VPVAL];
		for (uint32_t j = 0; j < v->n_vps && !err; j++)
			for (uint32_t q = 0; q < v->nvpv && !err; q++, i++) {
				if (!ft->vheld[i])
					continue;
				held_record(ft, i, rec);
				err = like_value(m, t, v, j, q, rec, 0);
			}
		aproc *o = ft->tv[k].other;
		if (!err && o && !v->other && !(v->other = other_lists(t, v)))
			err = XP_E_NOMEM;
		if (!err && o)
			err = xp_merge_combine_vps(m, v->other, o);
	}
	t->dn += ft->dn;
out:
	m->count = count + f->count;
	m->saturated += f->saturated;
	return err;
}

int xp_merge_absorb_flat(xp_merger *m, xp_merger *f, xp_diags *d,
                         xp_err *err)
{
	tmpl *t = xp_merge_only_template(m), *ft = xp_merge_only_template(f);
	*err = XP_E_OK;
	if (!t || !ft || m->failed || f->failed ||
	    !xp_db_same_layout(ft->fb, t->fb))
		return 0;
	*err = absorb_like(m, t, f, ft, d);
	if (*err)
		m->failed = 1;
	/* f gave up what it had to m: it is only to be freed. */
	f->failed = 1;
	return 1;
}

/* The slot for a new template: a free one, else the least recently used. */
static tmpl *template_slot(xp_merger *m)
{
	tmpl *t = &m->tp[0];
	for (unsigned k = 0; k < NTMPL; k++) {
		if (!m->tp[k].fb)
			return &m->tp[k];
		if (m->tp[k].used < t->used)
			t = &m->tp[k];
	}
	return t;
}

/*
 * Adds in in full, once every delta is added.  rec, when not NULL, is
 * the slot of the template in becomes: it is closed, then notes where
 * in's counts go.  When in changes an accumulated version, the other
 * templates are closed.
 */
static xp_err add_in_full(xp_merger *m, tmpl *rec, const xp_fb *in,
                          double weight, const char *name, xp_diags *d)
{
	uint64_t changed = m->changed;
	xp_err err = flush_all(m, d);
	if (!err && rec) {
		close_template(rec);
		if (!(err = note_room(rec, in)))
			memset(rec->vheld, 0, in->n[XP_T_VPVALS]);
	}
	if (!err) {
		m->rec = rec;
		err = xp_merge_add_full(m, in, weight, name, d);
		m->rec = NULL;
		/* It marks the merge failed itself once it has changed the
		 * accumulator; an input refused before (another data type)
		 * leaves the merge as it was, to go on without it. */
		if (err)
			return err;
	}
	if (!err && rec && in->nstr)
		memcpy(rec->smap, m->smap, (size_t)in->nstr * sizeof *rec->smap);
	if (!err && m->changed != changed)
		err = xp_merge_drop_templates(m, rec, d);
	if (err)
		m->failed = 1;
	return err;
}

/*
 * Makes in, the merge's first input, lazy template t (weight and name
 * kept for when it is added): the merger takes its data type and header
 * as adding it would, and notes its procedures with value profiles.
 * 1 when it did, 0 when in is to be added in full (objfd data, whose
 * object file the merger names at once), or an error.
 */
static int make_lazy(xp_merger *m, tmpl *t, xp_fb *in, double weight,
                     const char *name, xp_diags *d, xp_err *errp)
{
	xp_err err;
	*errp = XP_E_OK;
	if (m->count != 0 || m->nof != 0 || in->type == XP_DT_OBJFD)
		return 0;
	if ((err = xp_merge_take_header(m, in, name, d)))
		goto fail;
	m->failed = 1;
	close_template(t);
	if ((err = delta_room(t, in)) || !(t->name = strdup(name))) {
		err = err ? err : XP_E_NOMEM;
		goto fail;
	}
	memset(t->vheld, 0, in->n[XP_T_VPVALS]);
	/* The procedures are in the order of their object files, the
	 * order in which adding in notes them. */
	for (uint32_t p = 0; p < in->n[XP_T_PROCS]; p++) {
		xp_proc ip;
		xp_objfile io;
		xp_fb_proc(in, p, &ip);
		if (ip.n_vps == 0)
			continue;
		xp_fb_objfile(in, ip.objfile, &io);
		if ((err = GROW(t->tv, t->tvcap, t->ntv + 1)))
			goto fail;
		t->tv[t->ntv++] = (tvproc){NONE, ip.first_vp, ip.n_vps,
		                           ip.first_vpval, io.n_values_per_vp,
		                           NULL};
	}
	t->fb = in;
	t->lazy = 1;
	t->weight = weight;
	t->dn = 0;
	m->count++;
	t->used = m->count;
	m->failed = 0;
	return 1;
fail:
	close_template(t);
	*errp = err;
	return -1;
}

xp_err xp_merger_add(xp_merger *m, const xp_fb *in, double weight,
                     const char *name, xp_diags *d)
{
	xp_err err;
	if (!name)
		name = "<input>";
	if ((err = xp_merge_check_add(m, weight, name, d)))
		return err;
	return add_in_full(m, NULL, in, weight, name, d);
}

xp_err xp_merger_add_path(xp_merger *m, const char *path, double weight,
                          const char *name, xp_diags *d)
{
	xp_input *in;
	xp_err err;

	if (!name)
		name = path;
	if ((err = xp_merge_check_add(m, weight, name, d)))
		return err;
	if ((err = xp_input_open_any(path, &in, d)) == XP_E_OK)
		err = xp_merger_add_input(m, in, weight, name, d);
	xp_input_free(in);
	return err;
}

/*
 * Adds input if it is a database file of a template's shape, read
 * through the merger's buffer rather than mapped; *done tells whether it
 * was.
 */
static xp_err add_by_window(xp_merger *m, xp_input *input, double weight,
                            const char *name, xp_diags *d, int *done)
{
	const xp_fb *like[NTMPL];
	unsigned nlike = 0;
	int dir;
	uint64_t len;
	*done = 0;
	for (unsigned k = 0; k < NTMPL; k++) {
		like[k] = m->tp[k].fb;
		nlike += like[k] != NULL;
	}
	if (nlike == 0)
		return XP_E_OK;
	/* The values of a procedure are read at once: all must fit. */
	for (unsigned k = 0; k < NTMPL; k++)
		for (uint32_t i = 0; like[k] && i < m->tp[k].ntv; i++)
			if ((uint64_t)m->tp[k].tv[i].n_vps * m->tp[k].tv[i].nvpv *
			        XP_RS_VPVAL > RBUF_SIZE)
				like[k] = NULL;
	int fd = xp_input_db_fd(input, &dir, &len);
	if (fd < 0)
		return XP_E_OK;
	/* A profile directory's database holds feedback. */
	for (unsigned k = 0; dir && k < NTMPL; k++)
		if (like[k] && like[k]->type != XP_DT_FEEDBACK)
			like[k] = NULL;
	if (!m->rbuf && !(m->rbuf = malloc(RBUF_SIZE)))
		return XP_E_NOMEM;
	xp_win w;
	uint32_t crc;
	xp_win_init(&w, fd, m->rbuf, RBUF_SIZE);
	early e;
	memset(&e, 0, sizeof e);
	e.m = m;
	xp_db_take take = {take_early, &e};
	xp_merge_set_weight(m, weight);
	int same = xp_db_check_like(&w, len, like, NTMPL, &crc, &take);
	xp_err err = e.nomem ? XP_E_NOMEM : same ? XP_E_OK : undo_early(&e, &w);
	if (!same && !err) {
		free(e.sat);
		return XP_E_OK;
	}
	m->saturated += e.nsat;
	free(e.sat);
	tmpl *t = same ? &m->tp[same - 1] : NULL;
	source s = {NULL, &w, t ? t->fb : NULL};
	uint64_t tot[4];
	*done = 1;
	if (!err)
		err = add_like(m, t, &s, weight, name, d, tot, &e);
	if (err == XP_E_IO && w.err > 0)
		xp_diag_file(d, err, name, "cannot read: %s", strerror(w.err));
	else if (err == XP_E_IO || err == XP_E_INVAL)
		xp_diag_file(d, XP_E_IO, name,
		             "file changed while it was being read");
	if (err) {
		m->failed = 1;
		return err;
	}
	t->used = m->count;
	xp_input_took_db(input, len, crc, tot);
	return XP_E_OK;
}

xp_err xp_merger_add_input(xp_merger *m, xp_input *input, double weight,
                           const char *name, xp_diags *d)
{
	xp_err err;
	xp_fb *in = NULL;
	int same = 0, done = 0;
	if (!name)
		name = xp_input_path(input);
	if ((err = xp_merge_check_add(m, weight, name, d)))
		return err;
	if ((err = add_by_window(m, input, weight, name, d, &done)) || done)
		return err;
	const xp_fb *like[NTMPL];
	for (unsigned k = 0; k < NTMPL; k++)
		like[k] = m->tp[k].fb;
	if ((err = xp_input_feedback_like(input, like, NTMPL, &same, &in, d)))
		return err;
	if (same) {
		tmpl *t = &m->tp[same - 1];
		source s = {in, NULL, t->fb};
		err = add_like(m, t, &s, weight, name, d, NULL, NULL);
		t->used = m->count;
		xp_fb_free(in);
		if (err)
			m->failed = 1;
		return err;
	}
	/* A database becomes a template; a text is not kept. */
	tmpl *t = in->image ? template_slot(m) : NULL;
	int lazy = t ? make_lazy(m, t, in, weight, name, d, &err) : 0;
	if (lazy > 0)
		return XP_E_OK;
	if (lazy == 0)
		err = add_in_full(m, t, in, weight, name, d);
	if (err || !t) {
		if (t)
			close_template(t);
		xp_fb_free(in);
		return err;
	}
	t->fb = in;
	t->used = m->count;
	return XP_E_OK;
}
