/*
 * feedback/merge_layout.c - adding inputs of a layout seen before by their
 * counts alone, and the merger's entry points for adding an input.
 *
 * A database added in full stays open as a template, with notes of where
 * each of its counts went.  A later database of the same layout is checked
 * against the template byte for byte when it is opened, and its counts are
 * combined into the template's delta, which goes to the noted places
 * before anything else changes the accumulator.  Adding is associative and
 * commutative, so this gives the result of adding each input in full.
 */
#include <stdlib.h>
#include <string.h>

#include "feedback/merge.h"

/*
 * Combines the u64 at vo of n records of size rs at src, weighted, into
 * acc[0..n-1]; first: acc holds nothing yet.
 */
static void combine_into(xp_merger *m, uint64_t *acc, const unsigned char *src,
                         uint32_t n, size_t rs, size_t vo, int first)
{
	src += vo;
	if (m->w_int && m->w == 1 && (first || m->o.mode == XP_MERGE_SUM)) {
		if (first)
			for (uint32_t i = 0; i < n; i++, src += rs)
				acc[i] = xp_get_le64(src);
		else
			for (uint32_t i = 0; i < n; i++, src += rs)
				add_plain(m, &acc[i], xp_get_le64(src));
		return;
	}
	for (uint32_t i = 0; i < n; i++, src += rs)
		add_value(m, &acc[i], xp_get_le64(src), first);
}

/* Adds the value profiles of procedure v of template t from in. */
static xp_err add_tv(xp_merger *m, const tmpl *t, const tvproc *v,
                     const xp_fb *in)
{
	xp_proc ip;
	memset(&ip, 0, sizeof ip);
	ip.first_vp = v->first_vp;
	ip.n_vps = v->n_vps;
	ip.first_vpval = v->first_vpval;
	return xp_merge_add_vps(m, &m->pr[v->pi], in, t->smap, &ip, v->nvpv);
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
	xp_fb in = *t->fb;
	in.image = NULL;
	in.map = NULL;
	memset(in.owned, 0, sizeof in.owned);
	in.tab[XP_T_VPVALS] = t->vvals;
	for (uint32_t k = 0; k < t->ntv; k++) {
		tvproc *v = &t->tv[k];
		xp_err err = v->held ? add_tv(m, t, v, &in) : XP_E_OK;
		v->held = 0;
		if (err)
			return err;
	}
	return XP_E_OK;
}

/* Adds every template's delta. */
static xp_err flush_all(xp_merger *m)
{
	for (unsigned k = 0; k < NTMPL; k++) {
		xp_err err = m->tp[k].fb ? flush_delta(m, &m->tp[k]) : XP_E_OK;
		if (err)
			return err;
	}
	return XP_E_OK;
}

/* Closes template t, whose delta was added; its arrays stay for reuse. */
static void close_template(tmpl *t)
{
	xp_fb_free(t->fb);
	t->fb = NULL;
	t->lost.len = 0;
	t->ntv = 0;
}

/* Adds every delta and closes every template but keep (or all: NULL). */
xp_err xp_merge_drop_templates(xp_merger *m, const tmpl *keep)
{
	xp_err err = flush_all(m);
	for (unsigned k = 0; k < NTMPL; k++)
		if (&m->tp[k] != keep)
			close_template(&m->tp[k]);
	return err;
}

/*
 * Adds an input of template t's shape: its counts to t's delta, value
 * profiles with other values at once, and the warnings adding it in full
 * would give.
 */
static xp_err add_like(xp_merger *m, tmpl *t, const xp_fb *in, double weight,
                       const char *name, xp_diags *d)
{
	xp_err err;
	int first = t->dn == 0;
	xp_merge_set_weight(m, weight);
	combine_into(m, t->dcnt, in->tab[XP_T_COUNTERS], in->n[XP_T_COUNTERS],
	             XP_RS_COUNTER, XP_CN_VALUE, first);
	combine_into(m, t->dref, in->tab[XP_T_BLOCKREFS], in->n[XP_T_BLOCKREFS],
	             XP_RS_BLOCKREF, XP_BR_COUNT, first);
	const unsigned char *a = in->tab[XP_T_VPVALS];
	const unsigned char *b = t->fb->tab[XP_T_VPVALS];
	for (uint32_t k = 0; k < t->ntv; k++) {
		tvproc *v = &t->tv[k];
		uint32_t nv = v->n_vps * v->nvpv;
		size_t off = (size_t)v->first_vpval * XP_RS_VPVAL;
		if (!xp_same_but_u64(a + off, b + off, nv, XP_RS_VPVAL,
		                     XP_VV_COUNT)) {
			if ((err = add_tv(m, t, v, in)))
				return err;
			continue;
		}
		if (!v->held)
			memcpy(t->vvals + off, a + off, (size_t)nv * XP_RS_VPVAL);
		unsigned char *r = t->vvals + off;
		const unsigned char *q = a + off;
		for (uint32_t i = 0; i < nv; i++, r += XP_RS_VPVAL, q += XP_RS_VPVAL) {
			uint64_t c = v->held ? xp_get_le64(r + XP_VV_COUNT) : 0;
			add_value(m, &c, xp_get_le64(q + XP_VV_COUNT), !v->held);
			xp_put_le64(r + XP_VV_COUNT, c);
		}
		v->held = 1;
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

/* Room in t for what adding in as a template notes. */
static xp_err note_room(tmpl *t, const xp_fb *in)
{
	xp_err err;
	if (in->n[XP_T_BLOCKREFS] >= UINT32_MAX / 2)
		return XP_E_LIMIT;
	size_t vv = ((size_t)in->n[XP_T_VPVALS] + 1) * XP_RS_VPVAL;
	if ((err = GROW(t->smap, t->smapcap, in->nstr + 1)) ||
	    (err = GROW(t->cmap, t->cmapcap, in->n[XP_T_COUNTERS] + 1)) ||
	    (err = GROW(t->dcnt, t->dcntcap, in->n[XP_T_COUNTERS] + 1)) ||
	    (err = GROW(t->dref, t->drefcap, in->n[XP_T_BLOCKREFS] + 1)) ||
	    (err = GROW(t->rmap, t->rmapcap, 2 * in->n[XP_T_BLOCKREFS] + 2)))
		return err;
	if (vv > t->vvcap) {
		unsigned char *p = realloc(t->vvals, vv);
		if (!p)
			return XP_E_NOMEM;
		t->vvals = p;
		t->vvcap = vv;
	}
	return XP_E_OK;
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
	xp_err err = flush_all(m);
	if (!err && rec) {
		close_template(rec);
		err = note_room(rec, in);
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
		err = xp_merge_drop_templates(m, rec);
	if (err)
		m->failed = 1;
	return err;
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

xp_err xp_merger_add_input(xp_merger *m, xp_input *input, double weight,
                           const char *name, xp_diags *d)
{
	xp_err err;
	xp_fb *in = NULL;
	int same = 0;
	if (!name)
		name = xp_input_path(input);
	if ((err = xp_merge_check_add(m, weight, name, d)))
		return err;
	const xp_fb *like[NTMPL];
	for (unsigned k = 0; k < NTMPL; k++)
		like[k] = m->tp[k].fb;
	if ((err = xp_input_feedback_like(input, like, NTMPL, &same, &in, d)))
		return err;
	if (same) {
		tmpl *t = &m->tp[same - 1];
		err = add_like(m, t, in, weight, name, d);
		t->used = m->count;
		xp_fb_free(in);
		if (err)
			m->failed = 1;
		return err;
	}
	/* A database becomes a template; a text is not kept. */
	tmpl *t = in->image ? template_slot(m) : NULL;
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

