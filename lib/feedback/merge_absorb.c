/*
 * feedback/merge_absorb.c - one merger's accumulator added into another's
 * (xp_merger_absorb), the reduction of a merge that ran on several
 * threads, each with a merger of its own (xprof_merge -j).
 *
 * Nothing is settled when a merger absorbs another: procedures keep every
 * value of their value profiles (the top-N cut happens once, when the
 * result is produced), counts are combined as they stand (weights were
 * applied when the inputs were added), and the versions of a procedure
 * meet by the same rules as when an input is added.  So the result is the
 * one that adding all the inputs to one merger gives, byte for byte,
 * however they were shared out.
 *
 * The other merger's strings are mapped to this one's pool once; its
 * records are then copied or combined by pool id.  Each of its procedures
 * notes the tag that the block refs of its version take here, or that
 * its version was dropped, so that its source lines follow their
 * procedures (merge_lines.c).
 */
#include <stdlib.h>
#include <string.h>

#include "feedback/merge.h"

/* What absorbing notes: f's pool ids and names as m's, the object file
 * and ref tag of each of f's procedures in m. */
typedef struct {
	xp_merger *m;
	const xp_merger *f;
	uint32_t *sid, *nid, *ofi, *tag;
} absorb;

static void absorb_free(absorb *a)
{
	XP_FREE(a->sid, a->nid, a->ofi, a->tag);
}

/* An empty merger that takes what m takes: the same options, data type,
 * first input (for messages) and, for objfd data, object file. */
xp_merger *xp_merger_new_like(const xp_merger *m)
{
	xp_merger *c = xp_merger_new(&m->o);
	if (!c || !m->first_name)
		return c;
	c->type = m->type;
	if (!(c->first_name = strdup(m->first_name)))
		goto fail;
	if (m->type == XP_DT_OBJFD && m->nof > 0) {
		/* Its first object file, so that another one is refused with
		 * the message that adding to m gives.  Merging it back into m
		 * changes nothing: its fields are maxima and unions. */
		const aobj *o = &m->of[0];
		uint32_t path, src;
		const char *ps = xp_strpool_str(&m->str, o->path);
		const char *ns = xp_strpool_str(&m->names, o->src);
		if (xp_strpool_intern(&c->str, ps, strlen(ps), &path) ||
		    xp_strpool_intern(&c->names, ns, strlen(ns), &src) ||
		    xp_merge_ensure_by_str(c) || GROW(c->of, c->ofcap, 1))
			goto fail;
		c->of[0] = *o;
		c->of[0].path = path;
		c->of[0].src = src;
		c->of[0].first = c->of[0].last = NONE;
		c->of[0].ord = NULL;
		c->of[0].nord = c->of[0].ordcap = 0;
		c->of_by_str[path] = 0;
		c->nof = 1;
	}
	return c;
fail:
	xp_merger_free(c);
	return NULL;
}

/* The object files of f, found or made in m. */
static xp_err absorb_objfiles(absorb *a, xp_diags *d)
{
	xp_merger *m = a->m;
	const xp_merger *f = a->f;
	xp_err err;
	if (!(a->ofi = malloc(((size_t)f->nof + 1) * sizeof *a->ofi)))
		return XP_E_NOMEM;
	for (uint32_t i = 0; i < f->nof; i++) {
		const aobj *fo = &f->of[i];
		uint32_t k;
		if ((err = xp_merge_get_objfile(
			     m, a->sid[fo->path], fo->c, a->nid[fo->src],
			     xp_strpool_str(&f->names, fo->src), d, &k)))
			return err;
		aobj *o = &m->of[k];
		if (cmp_comp(&fo->c, &o->c) > 0) {
			o->c = fo->c;
			o->src = a->nid[fo->src];
		}
		if (fo->n_srcfile_names > o->n_srcfile_names)
			o->n_srcfile_names = fo->n_srcfile_names;
		o->stats |= fo->stats;
		a->ofi[i] = k;
	}
	return XP_E_OK;
}

/* A copy of f's procedure fp in m's terms (object file, strings). */
static xp_err copy_version(const absorb *a, const aproc *fp, aproc *c)
{
	size_t ncv = (size_t)fp->ncnt * sizeof *fp->cval;
	size_t nci = (size_t)fp->ncnt * sizeof *fp->cid;
	size_t ntu = (size_t)fp->ntup * sizeof *fp->tup;
	size_t nbk = (size_t)fp->nblk * XP_RS_BLOCK;
	size_t ned = (size_t)fp->nedge * XP_RS_EDGE;
	unsigned char *mem = malloc(ncv + nci + ntu + nbk + ned + 1);

	*c = *fp;
	c->of = a->ofi[fp->of];
	c->name = a->sid[fp->name];
	c->src = a->nid[fp->src];
	c->gen = 0;
	c->seq = c->dropseq = 0;
	c->next = NONE;
	c->mem = mem;
	c->in_arena = 0;
	c->vr = NULL;
	c->nvr = c->vcap = 0;
	if (!mem)
		return XP_E_NOMEM;
	c->cval = memcpy(mem, fp->cval, ncv);
	c->cid = memcpy(mem + ncv, fp->cid, nci);
	c->tup = memcpy(mem + ncv + nci, fp->tup, ntu);
	c->blk = memcpy(mem + ncv + nci + ntu, fp->blk, nbk);
	c->edge = memcpy(c->blk + nbk, fp->edge, ned);
	for (uint32_t i = 0; i < c->ntup; i++)
		if (c->tup[i].srcfile != NONE)
			c->tup[i].srcfile = a->sid[c->tup[i].srcfile];
	if (fp->nvr == 0)
		return XP_E_OK;
	if (!(c->vr = calloc(fp->nvr, sizeof *c->vr)))
		return XP_E_NOMEM;
	c->nvr = c->vcap = fp->nvr;
	for (uint32_t k = 0; k < fp->nvr; k++) {
		const vrec *fr = &fp->vr[k];
		vrec *r = &c->vr[k];
		*r = (vrec){fr->expr, fr->type, 0, 0, NULL};
		if (fr->nv && !(r->v = malloc(fr->nv * sizeof *r->v)))
			return XP_E_NOMEM;
		r->nv = r->cap = fr->nv;
		for (uint32_t q = 0; q < fr->nv; q++) {
			vval v = fr->v[q];
			if (v.has && fr->type == XP_VP_PROC)
				v.key = a->sid[(uint32_t)v.key] |
				        (uint64_t)a->sid[(uint32_t)(v.key >> 32)]
				                << 32;
			r->v[q] = v;
		}
	}
	return XP_E_OK;
}

xp_err xp_merge_combine_vps(xp_merger *m, aproc *p, aproc *c)
{
	for (uint32_t k = 0; k < c->nvr; k++) {
		vrec *cr = &c->vr[k];
		uint32_t j;
		for (j = 0; j < p->nvr; j++)
			if (p->vr[j].expr == cr->expr && p->vr[j].type == cr->type)
				break;
		if (j == p->nvr) {
			if (GROW(p->vr, p->vcap, p->nvr + 1))
				return XP_E_NOMEM;
			p->vr[p->nvr++] = *cr;
			*cr = (vrec){0};
			continue;
		}
		vrec *r = &p->vr[j];
		for (uint32_t q = 0; q < cr->nv; q++) {
			const vval *v = &cr->v[q];
			uint32_t e;
			for (e = 0; e < r->nv; e++)
				if (r->v[e].has == v->has && r->v[e].key == v->key)
					break;
			if (e == r->nv) {
				if (GROW(r->v, r->cap, r->nv + 1))
					return XP_E_NOMEM;
				r->v[r->nv++] = *v;
			} else {
				combine(m, &r->v[e].count, v->count, 0, 0);
			}
		}
	}
	return XP_E_OK;
}

/* Whether c and p are one version loaded but not run and another: equal
 * but for counter ids, one without counters. */
static int unrun_pair(const xp_merger *m, const aproc *c, const aproc *p)
{
	return (c->ncnt == 0 || p->ncnt == 0) && c->sig == p->sig &&
	       c->nblk == p->nblk && c->nedge == p->nedge &&
	       c->ntup == p->ntup && c->n_vp_sites == p->n_vp_sites &&
	       c->n_srcmap_ops == p->n_srcmap_ops &&
	       xp_merge_same_recs(c->blk, p->blk, c->nblk, XP_RS_BLOCK, 1) &&
	       xp_merge_same_recs(c->edge, p->edge, c->nedge, XP_RS_EDGE, 1) &&
	       xp_merge_cmp_tuples(m, c->tup, p->tup, c->ntup) == 0;
}

/* Takes c's version (structure and counts) into p, which had none. */
static void take_layout(xp_merger *m, aproc *p, aproc *c)
{
	xp_merge_version_free(p);
	p->mem = c->mem;
	p->in_arena = 0;
	c->mem = NULL;
	p->ncnt = c->ncnt;
	p->cid = c->cid;
	p->cval = c->cval;
	p->blk = c->blk;
	p->edge = c->edge;
	p->tup = c->tup;
	m->changed++;
}

/*
 * Version c of a procedure meets m's p: as when an input is added, equal
 * versions merge, one loaded but not run merges with zeros, and otherwise
 * the newer one stays.  *tag: the tag of c's block refs, or TAG_DROP.
 */
static xp_err meet(xp_merger *m, aproc *p, aproc *c, uint32_t *tag,
                   xp_diags *d)
{
	int nvpv_ok = c->c.nvpv == p->c.nvpv || (c->nvr == 0 && p->nvr == 0);
	int same = nvpv_ok && xp_merge_cmp_shape(m, c, p) == 0;
	xp_err err;

	if (same || (nvpv_ok && unrun_pair(m, c, p))) {
		if (same) {
			for (uint32_t i = 0; i < p->ncnt; i++)
				combine(m, &p->cval[i], c->cval[i], 0, 0);
		} else if (c->ncnt == 0) {
			xp_merge_add_zeros(m, p);
		} else {
			take_layout(m, p, c);
			xp_merge_add_zeros(m, p);
		}
		if (cmp_comp(&c->c, &p->c) > 0) {
			p->c = c->c;
			m->changed++;
		}
		p->stats |= c->stats;
		if (c->proc_id < p->proc_id)
			p->proc_id = c->proc_id;
		*tag = p->gen;
		return xp_merge_combine_vps(m, p, c);
	}
	const char *pn = xp_strpool_str(&m->names, p->src);
	const char *cn = xp_strpool_str(&m->names, c->src);
	if (xp_merge_cmp_version(m, c, p) < 0) {
		*tag = TAG_DROP;
		return xp_merge_report_drop(m, d, c, cn, p, pn, 0);
	}
	if ((err = xp_merge_report_drop(m, d, p, pn, c, cn, 0)))
		return err;
	uint32_t gen = p->gen + 1, next = p->next;
	uint64_t dropseq = p->dropseq;
	xp_merge_proc_free(p);
	*p = *c;
	*c = (aproc){0};
	p->gen = gen;
	p->next = next;
	p->dropseq = dropseq;
	m->changed++;
	*tag = gen;
	return XP_E_OK;
}

/* The procedures of f, each copied into m or meeting m's version. */
static xp_err absorb_procs(absorb *a, xp_diags *d)
{
	xp_merger *m = a->m;
	const xp_merger *f = a->f;
	xp_err err = XP_E_OK;
	if (!(a->tag = malloc(((size_t)f->npr + 1) * sizeof *a->tag)))
		return XP_E_NOMEM;
	for (uint32_t i = 0; i < f->npr && !err; i++) {
		aproc c;
		if ((err = copy_version(a, &f->pr[i], &c))) {
			xp_merge_proc_free(&c);
			break;
		}
		uint32_t pi = find_proc(m, c.of, c.name);
		if (pi != NONE) {
			err = meet(m, &m->pr[pi], &c, &a->tag[i], d);
			xp_merge_proc_free(&c);
			continue;
		}
		if ((err = GROW(m->pr, m->prcap, m->npr + 1)) ||
		    (err = GROW(m->ptag, m->ptagcap, m->npr + 1)) ||
		    (err = xp_merge_map_put(&m->procmap, pkey(c.of, c.name),
		                            m->npr))) {
			xp_merge_proc_free(&c);
			break;
		}
		pi = m->npr++;
		m->pr[pi] = c;
		aobj *o = &m->of[c.of];
		if (o->first == NONE)
			o->first = pi;
		else
			m->pr[o->last].next = pi;
		o->last = pi;
		a->tag[i] = 0;
	}
	return err;
}

/* The programs of f: their stats, OBJREFs and COMDAT_PROCs joined. */
static xp_err absorb_programs(absorb *a)
{
	xp_merger *m = a->m;
	const xp_merger *f = a->f;
	xp_err err;
	for (uint32_t i = 0; i < f->npg; i++) {
		const aprog *fg = &f->pg[i];
		uint32_t path = a->sid[fg->path], gi = m->pg_by_str[path];
		if (gi == NONE) {
			if ((err = GROW(m->pg, m->pgcap, m->npg + 1)))
				return err;
			gi = m->npg++;
			m->pg_by_str[path] = gi;
			m->pg[gi] = (aprog){.path = path};
		}
		aprog *g = &m->pg[gi];
		g->stats |= fg->stats;
		for (uint32_t k = 0; k < fg->nref; k++)
			if ((err = xp_merge_prog_objref(g, a->sid[fg->refs[k]])))
				return err;
		for (uint32_t k = 0; k < fg->ncd; k++) {
			pair pp = {a->sid[fg->cds[k].a], a->sid[fg->cds[k].b]};
			if ((err = xp_merge_prog_comdat(g, pp)))
				return err;
		}
	}
	return XP_E_OK;
}

/* The header and the checks of an input, for f as a whole. */
static xp_err absorb_header(xp_merger *m, const xp_merger *f, xp_diags *d)
{
	if (!m->first_name) {
		m->type = f->type;
		if (!(m->first_name = strdup(f->first_name)))
			return XP_E_NOMEM;
	} else if (f->type != m->type) {
		return xp_diag_file(d, XP_E_INVAL, f->first_name,
		                    "holds %s data, but %s holds %s data",
		                    xp_datatype_name(f->type), m->first_name,
		                    xp_datatype_name(m->type));
	}
	if (f->minor > m->minor)
		m->minor = f->minor;
	if (f->n_proc_names > m->n_proc_names)
		m->n_proc_names = f->n_proc_names;
	return XP_E_OK;
}

xp_err xp_merger_absorb(xp_merger *m, xp_merger *f, xp_diags *d)
{
	absorb a = {m, f, NULL, NULL, NULL, NULL};
	xp_err err;

	if (m->failed || f->failed || m->rank || f->rank)
		return xp_diag_file(d, XP_E_INVAL, "merge",
		                    "the merge failed earlier");
	if (f->count == 0)
		return XP_E_OK;
	/* Inputs of one layout: their templates' deltas meet. */
	if (xp_merge_absorb_flat(m, f, d, &err))
		return err;
	/* The counts that wait in templates go where they belong first. */
	if ((err = xp_merge_drop_templates(m, NULL, d)) ||
	    (err = xp_merge_drop_templates(f, NULL, d)))
		goto out;
	m->failed = 1;
	if ((err = absorb_header(m, f, d)) ||
	    (err = xp_strpool_map(&m->str, &f->str, &a.sid)) ||
	    (err = xp_strpool_map(&m->names, &f->names, &a.nid)) ||
	    (err = xp_merge_ensure_by_str(m)) ||
	    (err = absorb_objfiles(&a, d)) || (err = absorb_procs(&a, d)) ||
	    (err = absorb_programs(&a)))
		goto out;
	for (uint32_t i = 0; i < f->nsf; i++)
		if ((err = xp_merge_absorb_srcfile(m, f, i, a.sid, a.tag)))
			goto out;
	m->count += f->count;
	m->saturated += f->saturated;
	m->failed = 0;
out:
	/* f gave up arrays to m: it is only to be freed. */
	f->failed = 1;
	absorb_free(&a);
	return err;
}
