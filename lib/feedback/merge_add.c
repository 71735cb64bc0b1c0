/*
 * feedback/merge_add.c - adding an input to the merger record by record:
 * the versions of a procedure and the order that picks one, the counts and
 * value profiles of a version, and the object files and programs of an
 * input (its source files are merge_lines.c's).
 *
 * Every record is first compared with the one at its position in the
 * previous input, since inputs of one binary list everything in the same
 * order; only a miss costs a lookup.  Which version survives a mismatch
 * follows cmp_version(), a total order, so that the result does not
 * depend on the order of the inputs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feedback/merge.h"

/* ------------------------------------------------------------------ */
/* Versions                                                            */
/* ------------------------------------------------------------------ */

int xp_merge_cmp_tuples(const xp_merger *m, const xp_tuple *a,
                      const xp_tuple *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		CMPNUM(a[i].id, b[i].id);
		CMPNUM(a[i].block, b[i].block);
		CMPNUM(a[i].line, b[i].line);
		CMPNUM(a[i].col, b[i].col);
		int c = strcmp_id(m, a[i].srcfile, b[i].srcfile);
		if (c)
			return c;
	}
	return 0;
}

int xp_merge_cmp_shape(const xp_merger *m, const aproc *a, const aproc *b)
{
	int c;
	CMPNUM(a->sig, b->sig);
	CMPNUM(a->nblk, b->nblk);
	CMPNUM(a->nedge, b->nedge);
	CMPNUM(a->ntup, b->ntup);
	CMPNUM(a->ncnt, b->ncnt);
	CMPNUM(a->n_vp_sites, b->n_vp_sites);
	CMPNUM(a->n_srcmap_ops, b->n_srcmap_ops);
	if ((c = memcmp(a->blk, b->blk, (size_t)a->nblk * XP_RS_BLOCK)))
		return c;
	if ((c = memcmp(a->edge, b->edge, (size_t)a->nedge * XP_RS_EDGE)))
		return c;
	if ((c = xp_merge_cmp_tuples(m, a->tup, b->tup, a->ntup)))
		return c;
	for (uint32_t i = 0; i < a->ncnt; i++)
		CMPNUM(a->cid[i], b->cid[i]);
	return 0;
}

int xp_merge_cmp_version(const xp_merger *m, const aproc *a, const aproc *b)
{
	int c = cmp_comp(&a->c, &b->c);
	return c ? c : xp_merge_cmp_shape(m, a, b);
}

static int cmp_u32(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	return *x < *y ? -1 : *x > *y;
}

#define CHUNK_SIZE ((size_t)1 << 20)
#define CHUNK_HEAD ((size_t)16)

/* size bytes, 8-byte aligned, from the merger's chunks; NULL: no memory. */
static void *arena_alloc(xp_merger *m, size_t size)
{
	size = (size + 7) & ~(size_t)7;
	if (!m->chunks || m->chunk_size - m->chunk_used < size) {
		size_t csize = CHUNK_HEAD + (size > CHUNK_SIZE ? size : CHUNK_SIZE);
		unsigned char *c = malloc(csize);
		if (!c)
			return NULL;
		memcpy(c, &m->chunks, sizeof m->chunks);
		m->chunks = c;
		m->chunk_used = CHUNK_HEAD;
		m->chunk_size = csize;
	}
	void *r = (unsigned char *)m->chunks + m->chunk_used;
	m->chunk_used += size;
	return r;
}

/*
 * Fills a procedure's version (structure, no counts) from an input.
 * arena: the version is the procedure's first (it is seldom replaced).
 */
static xp_err load_version(xp_merger *m, aproc *p, const xp_fb *in,
                           const xp_proc *ip, const xp_objfile *io,
                           const uint32_t *resolved, int arena)
{
	p->sig = ip->signature;
	p->proc_id = ip->proc_id;
	p->n_vp_sites = ip->n_vp_sites;
	p->n_srcmap_ops = ip->n_srcmap_ops;
	p->c = (comp){io->tv_sec, io->tv_usec, io->signature,
	              io->n_values_per_vp};
	p->ncnt = ip->n_counters;
	p->nblk = ip->n_blocks;
	p->nedge = ip->n_edges;
	p->ntup = ip->n_tuples;
	/* One allocation per version: counts first (8-byte aligned), then
	 * the 4-byte fields, then the raw records. */
	size_t ncv = (size_t)p->ncnt * sizeof *p->cval;
	size_t nci = (size_t)p->ncnt * sizeof *p->cid;
	size_t ntu = (size_t)p->ntup * sizeof *p->tup;
	size_t nbk = (size_t)p->nblk * XP_RS_BLOCK;
	size_t ned = (size_t)p->nedge * XP_RS_EDGE;
	size_t total = ncv + nci + ntu + nbk + ned + 1;
	unsigned char *mem = arena ? arena_alloc(m, total) : malloc(total);
	p->mem = mem;
	p->in_arena = arena;
	if (!mem)
		return XP_E_NOMEM;
	p->cval = (uint64_t *)(void *)mem;
	p->cid = (uint32_t *)(void *)(mem + ncv);
	p->tup = (xp_tuple *)(void *)(mem + ncv + nci);
	p->blk = mem + ncv + nci + ntu;
	p->edge = p->blk + nbk;
	memset(p->cval, 0, ncv);
	/* Counter ids are kept sorted: a merged result lists counters by id,
	 * so its layout is the one later inputs match, and the versions'
	 * order then depends on the set of ids alone. */
	const unsigned char *c = xp_rec(in, XP_T_COUNTERS, ip->first_counter);
	int sorted = 1;
	for (uint32_t i = 0; i < p->ncnt; i++) {
		p->cid[i] = xp_get_le32(c + (size_t)i * XP_RS_COUNTER);
		if (i > 0 && p->cid[i] < p->cid[i - 1])
			sorted = 0;
	}
	if (!sorted)
		xp_qsort(p->cid, p->ncnt, sizeof *p->cid, cmp_u32);
	if (p->nblk)
		memcpy(p->blk, xp_rec(in, XP_T_BLOCKS, ip->first_block),
		       (size_t)p->nblk * XP_RS_BLOCK);
	if (p->nedge)
		memcpy(p->edge, xp_rec(in, XP_T_EDGES, ip->first_edge),
		       (size_t)p->nedge * XP_RS_EDGE);
	for (uint32_t i = 0; i < p->ntup; i++) {
		xp_fb_tuple(in, ip->first_tuple + i, &p->tup[i]);
		p->tup[i].srcfile = resolved[i];
	}
	return XP_E_OK;
}

int xp_merge_same_recs(const unsigned char *a, const unsigned char *b,
                     uint32_t n, size_t size, int ignore_counter)
{
	if (!ignore_counter)
		return n == 0 || memcmp(a, b, (size_t)n * size) == 0;
	for (uint32_t i = 0; i < n; i++) {
		const unsigned char *x = a + i * size, *y = b + i * size;
		if (memcmp(x, y, 4) != 0 || memcmp(x + 8, y + 8, size - 8) != 0)
			return 0;
	}
	return 1;
}

/*
 * Whether an input's procedure has the structure of the accumulated
 * version.  ignore_counters: compare everything but counter ids (the
 * rule for a procedure with no counters).
 */
static int same_structure(const xp_merger *m, const aproc *p,
                          const xp_fb *in, const xp_proc *ip,
                          const uint32_t *resolved, int ignore_counters)
{
	if (p->nblk != ip->n_blocks || p->nedge != ip->n_edges ||
	    p->ntup != ip->n_tuples || p->n_vp_sites != ip->n_vp_sites ||
	    p->n_srcmap_ops != ip->n_srcmap_ops)
		return 0;
	if (p->nblk && !xp_merge_same_recs(p->blk, xp_rec(in, XP_T_BLOCKS, ip->first_block),
	                          p->nblk, XP_RS_BLOCK, ignore_counters))
		return 0;
	if (p->nedge && !xp_merge_same_recs(p->edge, xp_rec(in, XP_T_EDGES, ip->first_edge),
	                           p->nedge, XP_RS_EDGE, ignore_counters))
		return 0;
	for (uint32_t i = 0; i < p->ntup; i++) {
		const unsigned char *r = xp_rec(in, XP_T_TUPLES, ip->first_tuple + i);
		const xp_tuple *t = &p->tup[i];
		if (t->id != xp_get_le32(r + XP_TU_ID) ||
		    t->block != xp_get_le32(r + XP_TU_BLOCK) ||
		    t->line != xp_get_le32(r + XP_TU_LINE) ||
		    t->col != xp_get_le32(r + XP_TU_COL) ||
		    t->srcfile != resolved[i])
			return 0;
	}
	/* Counter ids are compared by add_counters(). */
	return 1;
}

/* ------------------------------------------------------------------ */
/* Adding counts                                                       */
/* ------------------------------------------------------------------ */

/* The position of id in p's sorted counter ids, or NONE. */
static uint32_t find_counter(const aproc *p, uint32_t id)
{
	/* The ids of a valid profile are 1 to n: id is at id - 1. */
	if (id - 1 < p->ncnt && p->cid[id - 1] == id)
		return id - 1;
	uint32_t lo = 0, hi = p->ncnt;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (p->cid[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->ncnt && p->cid[lo] == id ? lo : NONE;
}

/*
 * Adds an input procedure's counters into p.  Returns 0 when the sets of
 * counter ids differ (a structure mismatch; nothing is changed), 1 when
 * done.  first: p holds no contribution yet.
 */
static int add_counters(xp_merger *m, aproc *p, const xp_fb *in,
                        const xp_proc *ip, int first, int check_only)
{
	const unsigned char *c = xp_rec(in, XP_T_COUNTERS, ip->first_counter);
	uint32_t n = ip->n_counters;
	if (n != p->ncnt)
		return 0;
	uint32_t i = 0;
	while (i < n && xp_get_le32(c + (size_t)i * XP_RS_COUNTER) == p->cid[i])
		i++;
	if (i == n) {
		if (check_only)
			return 1;
		/* The same layout: no lookup per counter. */
		if (m->w_int && m->w == 1 && m->o.mode == XP_MERGE_SUM && !first) {
			for (i = 0; i < n; i++)
				add_plain(m, &p->cval[i],
				          xp_get_le64(c + (size_t)i * XP_RS_COUNTER +
				                      XP_CN_VALUE));
		} else {
			for (i = 0; i < n; i++)
				add_value(m, &p->cval[i],
				          xp_get_le64(c + (size_t)i * XP_RS_COUNTER +
				                      XP_CN_VALUE),
				          first);
		}
		return 1;
	}
	/* Another order: search each id.  Ids are unique within an input
	 * procedure, so equal counts and every id found mean equal sets.
	 * Check first, so that a mismatch changes nothing. */
	for (i = 0; i < n; i++)
		if (find_counter(p, xp_get_le32(c + (size_t)i * XP_RS_COUNTER)) ==
		    NONE)
			return 0;
	if (check_only)
		return 1;
	for (i = 0; i < n; i++) {
		const unsigned char *r = c + (size_t)i * XP_RS_COUNTER;
		add_value(m, &p->cval[find_counter(p, xp_get_le32(r))],
		          xp_get_le64(r + XP_CN_VALUE), first);
	}
	return 1;
}

void xp_merge_add_zeros(xp_merger *m, aproc *p)
{
	if (m->o.mode != XP_MERGE_MIN)
		return;
	for (uint32_t i = 0; i < p->ncnt; i++)
		p->cval[i] = 0;
}

/* The key of the value of VPVALS record r; smap maps the profile's
 * string ids to pool ids. */
static uint64_t vp_key(const uint32_t *smap, const unsigned char *r,
                       xp_vptype type, int *has, uint64_t *count)
{
	*count = xp_get_le64(r + XP_VV_COUNT);
	*has = (xp_get_le32(r + XP_VV_FLAGS) & XP_VVF_HAS_VALUE) != 0;
	uint64_t v = xp_get_le64(r + XP_VV_VALUE);
	if (!*has)
		return 0;
	if (type == XP_VP_PROC && smap)
		return (uint64_t)smap[(uint32_t)v] |
		       (uint64_t)smap[(uint32_t)(v >> 32)] << 32;
	return v;
}

void xp_merge_vps_remap(aproc *p, const uint32_t *smap)
{
	for (uint32_t k = 0; k < p->nvr; k++) {
		vrec *r = &p->vr[k];
		for (uint32_t q = 0; r->type == XP_VP_PROC && q < r->nv; q++)
			if (r->v[q].has)
				r->v[q].key = (uint64_t)smap[(uint32_t)r->v[q].key] |
				              (uint64_t)smap[(uint32_t)(r->v[q].key >>
				                                        32)]
				                  << 32;
	}
}

vrec *xp_merge_vp_list(aproc *p, uint32_t expr, uint32_t type, uint32_t n)
{
	uint32_t j;
	for (j = 0; j < p->nvr; j++)
		if (p->vr[j].expr == expr && p->vr[j].type == type)
			return &p->vr[j];
	if (GROW_FROM(p->vr, p->vcap, p->nvr + 1, n))
		return NULL;
	p->vr[j] = (vrec){expr, type, 0, 0, NULL};
	p->nvr++;
	return &p->vr[j];
}

xp_err xp_merge_vp_add(xp_merger *m, vrec *r, const unsigned char *val,
                       uint32_t nvpv, const uint32_t *smap, uint32_t *at)
{
	int has;
	uint64_t count;
	uint64_t key = vp_key(smap, val, (xp_vptype)r->type, &has, &count);
	uint32_t e;
	for (e = 0; e < r->nv; e++)
		if (r->v[e].has == has && r->v[e].key == key)
			break;
	if (e == r->nv) {
		if (GROW_FROM(r->v, r->cap, r->nv + 1, nvpv))
			return XP_E_NOMEM;
		r->v[e] = (vval){key, 0, has};
		r->nv++;
		add_value(m, &r->v[e].count, count, 1);
	} else {
		add_value(m, &r->v[e].count, count, 0);
	}
	if (at)
		*at = e;
	return XP_E_OK;
}

xp_err xp_merge_add_vps(xp_merger *m, aproc *p, const unsigned char *vps,
                        const unsigned char *vals, uint32_t n,
                        uint32_t nvpv, const uint32_t *smap)
{
	for (uint32_t k = 0; k < n; k++, vps += XP_RS_VP) {
		vrec *r = xp_merge_vp_list(p, xp_get_le32(vps + XP_VP_EXPR),
		                           xp_get_le32(vps + XP_VP_TYPE), n);
		if (!r)
			return XP_E_NOMEM;
		for (uint32_t q = 0; q < nvpv; q++, vals += XP_RS_VPVAL)
			if (xp_merge_vp_add(m, r, vals, nvpv, smap, NULL))
				return XP_E_NOMEM;
	}
	return XP_E_OK;
}

xp_err xp_merge_add_vpval(xp_merger *m, aproc *p, const unsigned char *vp,
                          const unsigned char *val, uint32_t nvpv,
                          const uint32_t *smap)
{
	vrec *r = xp_merge_vp_list(p, xp_get_le32(vp + XP_VP_EXPR),
	                           xp_get_le32(vp + XP_VP_TYPE), 1);
	return r ? xp_merge_vp_add(m, r, val, nvpv, smap, NULL) : XP_E_NOMEM;
}

/* The value profiles of an input's procedure ip into p. */
static xp_err proc_vps(xp_merger *m, aproc *p, const xp_fb *in,
                       const xp_proc *ip, uint32_t nvpv)
{
	if (ip->n_vps == 0)
		return XP_E_OK;
	return xp_merge_add_vps(m, p, xp_rec(in, XP_T_VPS, ip->first_vp),
	                        xp_rec(in, XP_T_VPVALS, ip->first_vpval),
	                        ip->n_vps, nvpv, m->smap);
}

/* ------------------------------------------------------------------ */
/* Adding an input                                                     */
/* ------------------------------------------------------------------ */

static const char *why(const xp_merger *m, const aproc *lose,
                       const aproc *win, char *buf, size_t size)
{
	if (lose->sig != win->sig)
		snprintf(buf, size, "signature 0x%llx differs from 0x%llx",
		         (unsigned long long)lose->sig,
		         (unsigned long long)win->sig);
	else if (lose->c.nvpv != win->c.nvpv)
		snprintf(buf, size, "n_values_per_vp %u differs from %u",
		         lose->c.nvpv, win->c.nvpv);
	else
		snprintf(buf, size, "structure differs");
	(void)m;
	return buf;
}

/*
 * Reports the dropping of version lose (from input lname) in favour of
 * win (from wname); mine: lose is the input's.  Returns nonzero when the
 * merge must fail.
 */
xp_err xp_merge_report_drop(xp_merger *m, xp_diags *d, const aproc *lose,
                            const char *lname, const aproc *win,
                            const char *wname, int mine)
{
	char buf[128];
	const char *pname = xp_strpool_str(&m->str, lose->name);
	const char *opath = xp_strpool_str(&m->str, m->of[lose->of].path);
	if (m->o.mismatch == XP_MISMATCH_SKIP)
		return XP_E_OK;
	why(m, lose, win, buf, sizeof buf);
	if (m->o.mismatch == XP_MISMATCH_ERROR)
		return xp_diag_file(d, XP_E_INVAL, lname,
		                    "PROC %s in OBJFILE %s: %s in %s", pname,
		                    opath, buf, wname);
	char *msg = NULL;
	if (asprintf(&msg, "dropped PROC %s in OBJFILE %s: %s "
	             "(kept: newer compilation from %s)",
	             pname, opath, buf, wname) < 0)
		return XP_E_NOMEM;
	xp_diag_warn(d, lname, "%s", msg);
	/* Inputs of the template's shape lose the same way. */
	xp_err err = XP_E_OK;
	if (mine && m->rec)
		err = xp_buf_append(&m->rec->lost, msg, strlen(msg) + 1);
	free(msg);
	return err;
}

/* A procedure the accumulator lacks: made from the input's version. */
static xp_err new_proc(xp_merger *m, uint32_t ofi, uint32_t pname,
                       const xp_fb *in, const xp_objfile *io,
                       const xp_proc *ip, const uint32_t *resolved,
                       uint32_t *out)
{
	xp_err err;
	if ((err = GROW(m->pr, m->prcap, m->npr + 1)))
		return err;
	uint32_t pi = m->npr++;
	aproc *p = &m->pr[pi];
	memset(p, 0, sizeof *p);
	p->of = ofi;
	p->name = pname;
	p->next = NONE;
	p->dropseq = 0;
	if ((err = load_version(m, p, in, ip, io, resolved, 1)))
		return err;
	if ((err = xp_merge_map_put(&m->procmap, pkey(ofi, pname), pi)))
		return err;
	aobj *o = &m->of[ofi];
	if (o->first == NONE)
		o->first = pi;
	else
		m->pr[o->last].next = pi;
	o->last = pi;
	*out = pi;
	return merge_name(m, &p->src);
}

/*
 * A version of p of the same structure where one side has no counters:
 * a version loaded but not run merges with zeros.  ic is the input's
 * compilation.
 */
static xp_err add_unrun(xp_merger *m, aproc *p, const xp_fb *in,
                        const xp_objfile *io, const xp_proc *ip,
                        const uint32_t *resolved, comp ic, unsigned stats)
{
	xp_err err;
	if (ip->n_counters == 0) {
		if (cmp_comp(&ic, &p->c) > 0) {
			p->c = ic;
			m->changed++;
		}
		xp_merge_add_zeros(m, p);
		p->stats |= stats;
		if (ip->proc_id < p->proc_id)
			p->proc_id = ip->proc_id;
		p->seq = m->seq;
		return proc_vps(m, p, in, ip, io->n_values_per_vp);
	}
	/* The accumulated version had none: take this layout. */
	uint32_t keep_id = p->proc_id < ip->proc_id ? p->proc_id
	                                            : ip->proc_id;
	comp keep_c = cmp_comp(&p->c, &ic) > 0 ? p->c : ic;
	xp_merge_version_free(p);
	m->changed++;
	if ((err = load_version(m, p, in, ip, io, resolved, 0)))
		return err;
	p->proc_id = keep_id;
	p->c = keep_c;
	add_counters(m, p, in, ip, 1, 0);
	if (m->o.mode == XP_MERGE_MIN)
		xp_merge_add_zeros(m, p);
	p->stats |= stats;
	p->seq = m->seq;
	return proc_vps(m, p, in, ip, io->n_values_per_vp);
}

/*
 * Different versions of p: the newer one stays, and the drop of the other
 * is reported.  *lost: the input's version was dropped; otherwise it
 * replaced p's, which holds no counts yet.
 */
static xp_err pick_version(xp_merger *m, aproc *p, const xp_fb *in,
                           const xp_objfile *io, const xp_proc *ip,
                           const uint32_t *resolved, const char *name,
                           int *lost, xp_diags *d)
{
	xp_err err;
	aproc cand;
	memset(&cand, 0, sizeof cand);
	cand.of = p->of;
	cand.name = p->name;
	if ((err = load_version(m, &cand, in, ip, io, resolved, 0))) {
		xp_merge_proc_free(&cand);
		return err;
	}
	int c = xp_merge_cmp_version(m, &cand, p);
	const char *pn = xp_strpool_str(&m->names, p->src);
	if (c < 0) {
		err = xp_merge_report_drop(m, d, &cand, name, p, pn, 1);
		xp_merge_proc_free(&cand);
		p->dropseq = m->seq;
		*lost = 1;
		return err;
	}
	err = xp_merge_report_drop(m, d, p, pn, &cand, name, 0);
	if (err) {
		xp_merge_proc_free(&cand);
		return err;
	}
	uint32_t gen = p->gen + 1, next = p->next;
	uint64_t dropseq = p->dropseq;
	xp_merge_proc_free(p);
	m->changed++;
	*p = cand;
	p->gen = gen;
	p->next = next;
	p->dropseq = dropseq;
	return merge_name(m, &p->src);
}

/*
 * Adds the input procedure at position k of its object file.  Inputs of
 * one binary list the procedures in the same order, so the procedure at
 * that position in the previous input is tried before any lookup.  *out
 * is set to the procedure's index.
 */
static xp_err add_proc(xp_merger *m, uint32_t ofi, const xp_fb *in,
                       const xp_objfile *io, const xp_proc *ip,
                       const uint32_t *resolved, const char *name,
                       uint32_t k, uint32_t *out, xp_diags *d)
{
	uint32_t pname = m->smap[ip->name];
	const aobj *ao = &m->of[ofi];
	uint32_t pi = k < ao->nord ? ao->ord[k] : NONE;
	if (pi == NONE || m->pr[pi].name != pname)
		pi = find_proc(m, ofi, pname);
	*out = pi;
	aproc *p;
	xp_err err;
	int first = 0;
	unsigned stats = 0;
	for (uint32_t s = 0; s < ip->n_stats; s++) {
		xp_stat st;
		xp_fb_stat(in, ip->first_stat + s, &st);
		stats |= st.kind == XP_STAT_MAX ? STB_MAX : STB_SUM;
	}

	if (pi == NONE) {
		if ((err = new_proc(m, ofi, pname, in, io, ip, resolved, &pi)))
			return err;
		p = &m->pr[pi];
		first = 1;
		*out = pi;
	} else {
		p = &m->pr[pi];
		comp ic = {io->tv_sec, io->tv_usec, io->signature,
		           io->n_values_per_vp};
		int nvpv_ok = ic.nvpv == p->c.nvpv || (ip->n_vps == 0 && p->nvr == 0);
		int same = p->sig == ip->signature && nvpv_ok &&
		           same_structure(m, p, in, ip, resolved, 0);
		int r = same ? add_counters(m, p, in, ip, 0, 1) : 0;
		if (r < 0)
			return XP_E_NOMEM;
		if (r == 1) {
			if (cmp_comp(&ic, &p->c) > 0) {
				p->c = ic;
				m->changed++;
			}
		} else if (p->sig == ip->signature && nvpv_ok &&
		           (ip->n_counters == 0 || p->ncnt == 0) &&
		           same_structure(m, p, in, ip, resolved, 1)) {
			/* Loaded but not run: it merges with zeros. */
			return add_unrun(m, p, in, io, ip, resolved, ic, stats);
		} else {
			/* Different versions: the newer one stays. */
			int lost = 0;
			err = pick_version(m, p, in, io, ip, resolved, name,
			                   &lost, d);
			if (err || lost)
				return err;
			first = 1;
		}
	}
	if (first)
		p->stats = 0;
	p->stats |= stats;
	if (!first && ip->proc_id < p->proc_id)
		p->proc_id = ip->proc_id;
	if (add_counters(m, p, in, ip, first, 0) < 0)
		return XP_E_NOMEM;
	p->seq = m->seq;
	return proc_vps(m, p, in, ip, io->n_values_per_vp);
}

/*
 * Adding the template: notes where the counts of its procedure k (merged
 * into pi) went, or that it was dropped.
 */
static xp_err note_counts(xp_merger *m, const xp_fb *in, const xp_proc *ip,
                          uint32_t nvpv, uint32_t pi)
{
	const aproc *p = &m->pr[pi];
	tmpl *t = m->rec;
	int kept = p->seq == m->seq;
	if (kept && ip->n_vps > 0) {
		if (GROW(t->tv, t->tvcap, t->ntv + 1))
			return XP_E_NOMEM;
		t->tv[t->ntv++] = (tvproc){pi, ip->first_vp, ip->n_vps,
		                           ip->first_vpval, nvpv, NULL};
	}
	const unsigned char *c = xp_rec(in, XP_T_COUNTERS, ip->first_counter);
	for (uint32_t i = 0; i < ip->n_counters; i++, c += XP_RS_COUNTER) {
		uint32_t at = kept ? find_counter(p, xp_get_le32(c)) : NONE;
		t->cmap[ip->first_counter + i] = at == NONE ? NULL : &p->cval[at];
	}
	return XP_E_OK;
}

xp_err xp_merge_get_objfile(xp_merger *m, uint32_t path, comp c, uint32_t src,
                            const char *name, xp_diags *d, uint32_t *out)
{
	uint32_t ofi = m->of_by_str[path];
	xp_err err;
	if (ofi == NONE) {
		if (m->type == XP_DT_OBJFD && m->nof > 0)
			return xp_diag_file(d, XP_E_INVAL, name,
			                    "objfd data of %s cannot be merged with "
			                    "objfd data of %s from %s",
			                    xp_strpool_str(&m->str, path),
			                    xp_strpool_str(&m->str, m->of[0].path),
			                    m->first_name);
		if ((err = GROW(m->of, m->ofcap, m->nof + 1)))
			return err;
		ofi = m->nof++;
		m->of_by_str[path] = ofi;
		m->of[ofi] = (aobj){.path = path, .c = c, .src = src,
		                    .first = NONE, .last = NONE};
	}
	*out = ofi;
	return XP_E_OK;
}

static xp_err add_objfile(xp_merger *m, const xp_fb *in, uint32_t i,
                          const char *name, xp_diags *d)
{
	xp_objfile io;
	xp_err err;
	xp_fb_objfile(in, i, &io);
	uint32_t ofi, path = m->smap[io.path], src = NONE;
	comp ic = {io.tv_sec, io.tv_usec, io.signature, io.n_values_per_vp};
	/* The input's name is taken by an object file only when it makes
	 * one or brings its newest compilation. */
	if (m->of_by_str[path] == NONE && (err = merge_name(m, &src)))
		return err;
	if ((err = xp_merge_get_objfile(m, path, ic, src, name, d, &ofi)))
		return err;
	aobj *o = &m->of[ofi];
	if (cmp_comp(&ic, &o->c) > 0) {
		o->c = ic;
		if ((err = merge_name(m, &o->src)))
			return err;
	}
	if (io.n_srcfile_names > o->n_srcfile_names)
		o->n_srcfile_names = io.n_srcfile_names;
	for (uint32_t s = 0; s < io.n_stats; s++) {
		xp_stat st;
		xp_fb_stat(in, io.first_stat + s, &st);
		o->stats |= st.kind == XP_STAT_MAX ? STB_MAX : STB_SUM;
	}

	/* Tuples without a file use the previous one's, across procedures. */
	uint32_t cur = NONE;
	uint32_t *res = NULL;
	if ((err = GROW(o->ord, o->ordcap, io.n_procs)))
		return err;
	size_t rescap = 0;
	for (uint32_t k = 0; k < io.n_procs; k++) {
		xp_proc ip;
		xp_fb_proc(in, io.first_proc + k, &ip);
		if (ip.n_tuples > rescap) {
			size_t nc = ip.n_tuples * 2;
			uint32_t *r = realloc(res, nc * sizeof *r);
			if (!r) {
				free(res);
				return XP_E_NOMEM;
			}
			res = r;
			rescap = nc;
		}
		for (uint32_t t = 0; t < ip.n_tuples; t++) {
			uint32_t f = xp_get_le32(xp_rec(in, XP_T_TUPLES,
			                                ip.first_tuple + t) +
			                         XP_TU_FILE);
			if (f != XP_NOSTR)
				cur = m->smap[f];
			res[t] = cur;
		}
		uint32_t pi;
		if ((err = add_proc(m, ofi, in, &io, &ip, res, name, k, &pi, d))) {
			free(res);
			return err;
		}
		o->ord[k] = pi;
		if (m->rec &&
		    (err = note_counts(m, in, &ip, io.n_values_per_vp, pi))) {
			free(res);
			return err;
		}
		/* The tag its block refs take in this input, kept apart
		 * from the procedure so that refs find it in cache. */
		if ((err = GROW(m->ptag, m->ptagcap, m->npr))) {
			free(res);
			return err;
		}
		const aproc *p = &m->pr[pi];
		m->ptag[pi] = p->seq == m->seq       ? p->gen
		              : p->dropseq == m->seq ? TAG_DROP
		                                     : TAG_ANY;
	}
	o->nord = io.n_procs;
	free(res);
	return XP_E_OK;
}

xp_err xp_merge_prog_objref(aprog *g, uint32_t r)
{
	uint32_t j;
	for (j = 0; j < g->nref && g->refs[j] != r; j++)
		;
	if (j < g->nref)
		return XP_E_OK;
	if (GROW(g->refs, g->rcap, g->nref + 1))
		return XP_E_NOMEM;
	g->refs[g->nref++] = r;
	return XP_E_OK;
}

xp_err xp_merge_prog_comdat(aprog *g, pair pp)
{
	uint32_t j;
	for (j = 0; j < g->ncd; j++)
		if (g->cds[j].a == pp.a && g->cds[j].b == pp.b)
			return XP_E_OK;
	if (GROW(g->cds, g->ccap, g->ncd + 1))
		return XP_E_NOMEM;
	g->cds[g->ncd++] = pp;
	return XP_E_OK;
}

static xp_err add_program(xp_merger *m, const xp_fb *in, uint32_t i)
{
	xp_program ip;
	xp_err err;
	xp_fb_program(in, i, &ip);
	uint32_t path = m->smap[ip.path];
	uint32_t gi = m->pg_by_str[path];
	if (gi == NONE) {
		if ((err = GROW(m->pg, m->pgcap, m->npg + 1)))
			return err;
		gi = m->npg++;
		m->pg_by_str[path] = gi;
		memset(&m->pg[gi], 0, sizeof m->pg[gi]);
		m->pg[gi].path = path;
	}
	aprog *g = &m->pg[gi];
	for (uint32_t s = 0; s < ip.n_stats; s++) {
		xp_stat st;
		xp_fb_stat(in, ip.first_stat + s, &st);
		g->stats |= st.kind == XP_STAT_MAX ? STB_MAX : STB_SUM;
	}
	for (uint32_t k = 0; k < ip.n_objrefs; k++)
		if ((err = xp_merge_prog_objref(
			     g, m->smap[xp_fb_objref(in, ip.first_objref + k)])))
			return err;
	for (uint32_t k = 0; k < ip.n_comdats; k++) {
		xp_comdat cd;
		xp_fb_comdat(in, ip.first_comdat + k, &cd);
		pair pp = {m->smap[cd.proc], m->smap[cd.objfile]};
		if ((err = xp_merge_prog_comdat(g, pp)))
			return err;
	}
	return XP_E_OK;
}

/* Maps the input's strings to pool ids (m->smap). */
static xp_err map_strings(xp_merger *m, const xp_fb *in)
{
	uint32_t ns = in->nstr;
	size_t offlen = (size_t)ns * 4;
	if (m->smap_ok && ns == m->smap_nstr && in->strtab_len == m->smap_len &&
	    (ns == 0 || (memcmp(m->smap_of.p, in->stroff, offlen) == 0 &&
	                 memcmp(m->smap_of.p + offlen, in->strtab,
	                        in->strtab_len) == 0)))
		return XP_E_OK;
	xp_err err;
	m->smap_ok = 0;
	free(m->smap);
	m->smap = malloc(((size_t)ns + 1) * sizeof *m->smap);
	if (!m->smap)
		return XP_E_NOMEM;
	for (uint32_t i = 0; i < ns; i++)
		if ((err = xp_strpool_intern(&m->str, xp_fb_str(in, i), xp_fb_strlen(in, i),
		                     &m->smap[i])))
			return err;
	if ((err = xp_merge_ensure_by_str(m)))
		return err;
	m->smap_of.len = 0;
	if (ns > 0 && ((err = xp_buf_append(&m->smap_of, in->stroff, offlen)) ||
	               (err = xp_buf_append(&m->smap_of, in->strtab,
	                                    in->strtab_len))))
		return err;
	m->smap_nstr = ns;
	m->smap_len = in->strtab_len;
	m->smap_ok = 1;
	return XP_E_OK;
}

/* Takes weight for the input being added; it was checked. */
void xp_merge_set_weight(xp_merger *m, double weight)
{
	if (weight <= 18446744073709549568.0 &&
	    (double)(uint64_t)weight == weight) {
		m->w_int = 1;
		m->w = (uint64_t)weight;
	} else {
		m->w_int = 0;
		m->wl = weight;
	}
}

/* The checks of every input before it is looked at. */
xp_err xp_merge_check_add(const xp_merger *m, double weight, const char *name,
                          xp_diags *d)
{
	if (m->failed)
		return xp_diag_file(d, XP_E_INVAL, name,
		                    "the merge failed earlier");
	if (!(weight > 0) || !isfinite(weight))
		return xp_diag_file(d, XP_E_INVAL, name,
		                    "weight %g is not a positive number", weight);
	return XP_E_OK;
}

xp_err xp_merge_take_header(xp_merger *m, const xp_fb *in, const char *name,
                            xp_diags *d)
{
	if (!m->first_name) {
		m->type = in->type;
		m->first_name = strdup(name);
		if (!m->first_name)
			return XP_E_NOMEM;
	} else if (in->type != m->type) {
		return xp_diag_file(d, XP_E_INVAL, name,
		                    "holds %s data, but %s holds %s data",
		                    xp_datatype_name(in->type), m->first_name,
		                    xp_datatype_name(m->type));
	}
	if (in->minor == 4)
		m->minor = 4;
	if (in->n_proc_names > m->n_proc_names)
		m->n_proc_names = in->n_proc_names;
	return XP_E_OK;
}

/* Adds an input record by record; name is not NULL. */
xp_err xp_merge_add_full(xp_merger *m, const xp_fb *in, double weight,
                         const char *name, xp_diags *d)
{
	xp_err err;
	if ((err = xp_merge_check_add(m, weight, name, d)) ||
	    (err = xp_merge_take_header(m, in, name, d)))
		return err;
	m->failed = 1;
	xp_merge_set_weight(m, weight);
	m->seq++;
	if (m->npr)
		memset(m->ptag, 0xff, (size_t)m->npr * sizeof *m->ptag);
	m->cur_str = name;
	m->cur_name = NONE;

	if ((err = map_strings(m, in)))
		return err;

	uint32_t n = in->n[XP_T_OBJFILES];
	for (uint32_t i = 0; i < n; i++)
		if ((err = add_objfile(m, in, i, name, d)))
			return err;
	n = in->n[XP_T_PROGRAMS];
	for (uint32_t i = 0; i < n; i++)
		if ((err = add_program(m, in, i)))
			return err;
	n = in->n[XP_T_SRCFILES];
	for (uint32_t i = 0; i < n; i++)
		if ((err = xp_merge_add_srcfile(m, in, i)))
			return err;
	m->count++;
	m->failed = 0;
	return XP_E_OK;
}

