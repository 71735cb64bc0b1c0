/*
 * feedback/merge_write.c - writing the merger's result, table by table in
 * the order merge_order.c settled, into memory (xp_merger_finish) or
 * straight into a database in a profile directory (xp_merger_write).
 *
 * The merger knows every record of the result, so it writes them itself,
 * encoded as xprof_db(5) lays them out, instead of going through a
 * builder: merge_order.c plans the order of everything, the number of
 * records of every table and the strings in use, then each table is
 * written in turn, into memory of its exact size or straight into the
 * database writer's buffers.
 */
#include <stdlib.h>
#include <string.h>

#include "feedback/manifest.h"
#include "feedback/merge.h"

/* Room for a record of size bytes and more: the writer's next space.  A
 * table in memory has its exact size and never needs more. */
void xp_merge_out_more(recout *o, size_t size)
{
	xp_wbuf *w = o->w;
	unsigned char *q = NULL;
	size_t room = 0;
	if (w && !o->lost) {
		xp_wbuf_commit(w, (size_t)(o->p - o->base));
		q = xp_wbuf_reserve(w, size);
		room = w->cap - w->len;
	}
	if (!q) {
		o->lost = 1;
		q = o->scratch;
		room = sizeof o->scratch;
	}
	o->base = o->p = q;
	o->end = q + room;
}

void xp_merge_out_copy(recout *o, const void *src, size_t n, size_t rs)
{
	const unsigned char *s = src;
	while (n > 0) {
		if ((size_t)(o->end - o->p) < rs)
			xp_merge_out_more(o, rs);
		size_t k = (size_t)(o->end - o->p) / rs * rs;
		if (k > n)
			k = n;
		memcpy(o->p, s, k);
		o->p += k;
		s += k;
		n -= k;
	}
}

static void out_done(recout *o)
{
	if (o->w && !o->lost)
		xp_wbuf_commit(o->w, (size_t)(o->p - o->base));
	o->base = o->p;
}

void xp_merge_put_stats(recout *o, unsigned kinds, uint64_t max, uint64_t sum)
{
	if (kinds & STB_MAX) {
		unsigned char *r = orec(o, XP_RS_STAT);
		xp_put_le32(r + XP_ST_KIND, XP_STAT_MAX);
		xp_put_le64(r + XP_ST_VALUE, max);
	}
	if (kinds & STB_SUM) {
		unsigned char *r = orec(o, XP_RS_STAT);
		xp_put_le32(r + XP_ST_KIND, XP_STAT_SUM);
		xp_put_le64(r + XP_ST_VALUE, sum);
	}
}

void xp_merge_put_vpvals(recout *o, const uint32_t *sid, const vrec *vr,
                         uint32_t nvpv)
{
	for (uint32_t q = 0; q < nvpv; q++) {
		unsigned char *v = orec(o, XP_RS_VPVAL);
		const vval *x = q < vr->nv ? &vr->v[q] : NULL;
		uint64_t key = x && x->has ? x->key : 0;
		switch ((xp_vptype)vr->type) {
		case XP_VP_INT:
			key = (uint64_t)(int64_t)(int32_t)(int64_t)key;
			break;
		case XP_VP_FLOAT:
			key = (uint32_t)key;
			break;
		case XP_VP_LLONG:
		case XP_VP_DOUBLE:
			break;
		case XP_VP_PROC:
			if (x && x->has && sid)
				key = sid[(uint32_t)key] |
				      (uint64_t)sid[(uint32_t)(key >> 32)] << 32;
			break;
		}
		xp_put_le64(v + XP_VV_COUNT, x ? x->count : 0);
		xp_put_le64(v + XP_VV_VALUE, key);
		xp_put_le32(v + XP_VV_FLAGS, x && x->has ? XP_VVF_HAS_VALUE : 0);
	}
}

void xp_merge_put_run(recout *o, xp_seckind kind, uint32_t n)
{
	if (n == 0)
		return;
	unsigned char *r = orec(o, XP_RS_RUN);
	xp_put_le32(r + XP_RUN_KIND, (uint32_t)kind);
	xp_put_le32(r + XP_RUN_COUNT, n);
}

/* Where the next record of every table goes, as the tables are walked. */
typedef struct {
	uint32_t n[XP_T_COUNT_];
} cursor;

static void put_proc(recout *o, const result *R, const aproc *p, uint32_t ofk,
                     uint32_t nvpv, cursor *c)
{
	unsigned char *r = orec(o, XP_RS_PROC);
	xp_put_le32(r + XP_PR_NAME, R->sid[p->name]);
	xp_put_le32(r + XP_PR_OBJFILE, ofk);
	xp_put_le64(r + XP_PR_SIG, p->sig);
	xp_put_le32(r + XP_PR_ID, p->proc_id);
	xp_put_le32(r + XP_PR_NVPSITES, p->n_vp_sites);
	xp_put_le32(r + XP_PR_NSRCMAP, p->n_srcmap_ops);
	xp_put_le32(r + XP_PR_FSTAT, c->n[XP_T_STATS]);
	xp_put_le32(r + XP_PR_NSTAT, nstats(p->stats));
	xp_put_le32(r + XP_PR_FCNT, c->n[XP_T_COUNTERS]);
	xp_put_le32(r + XP_PR_NCNT, p->ncnt);
	xp_put_le32(r + XP_PR_FVP, c->n[XP_T_VPS]);
	xp_put_le32(r + XP_PR_NVP, p->nvr);
	xp_put_le32(r + XP_PR_FVPVAL, c->n[XP_T_VPVALS]);
	xp_put_le32(r + XP_PR_FBLK, c->n[XP_T_BLOCKS]);
	xp_put_le32(r + XP_PR_NBLK, p->nblk);
	xp_put_le32(r + XP_PR_FEDGE, c->n[XP_T_EDGES]);
	xp_put_le32(r + XP_PR_NEDGE, p->nedge);
	xp_put_le32(r + XP_PR_FTUP, c->n[XP_T_TUPLES]);
	xp_put_le32(r + XP_PR_NTUP, p->ntup);
	c->n[XP_T_STATS] += nstats(p->stats);
	c->n[XP_T_COUNTERS] += p->ncnt;
	c->n[XP_T_VPS] += p->nvr;
	c->n[XP_T_VPVALS] += p->nvr * nvpv;
	c->n[XP_T_BLOCKS] += p->nblk;
	c->n[XP_T_EDGES] += p->nedge;
	c->n[XP_T_TUPLES] += p->ntup;
}

/* A table of the object file sections: each object file's record, or
 * the records of its procedures. */
static void put_objfile_table(recout *o, void *ctx, xp_table t)
{
	const result *R = ctx;
	const xp_merger *m = R->m;
	cursor c = {{0}};
	for (uint32_t i = 0, pk = 0; i < m->nof; i++) {
		const aobj *of = &m->of[R->ofs[i]];
		uint32_t nvpv = of->c.nvpv, prevfile = NONE;
		if (t == XP_T_OBJFILES) {
			unsigned char *r = orec(o, XP_RS_OBJFILE);
			xp_put_le32(r + XP_OF_PATH, R->sid[of->path]);
			xp_put_le32(r + XP_OF_TVSEC, of->c.tv_sec);
			xp_put_le32(r + XP_OF_TVUSEC, of->c.tv_usec);
			xp_put_le32(r + XP_OF_NVPV, nvpv);
			xp_put_le64(r + XP_OF_SIG, of->c.sig);
			xp_put_le32(r + XP_OF_NSFN, of->n_srcfile_names);
			xp_put_le32(r + XP_OF_FSTAT, c.n[XP_T_STATS]);
			xp_put_le32(r + XP_OF_NSTAT, nstats(of->stats));
			xp_put_le32(r + XP_OF_FPROC, pk);
			xp_put_le32(r + XP_OF_NPROC, R->ofnp[i]);
		} else if (t == XP_T_STATS) {
			xp_merge_put_stats(o, of->stats, of->max, of->sum);
		}
		c.n[XP_T_STATS] += nstats(of->stats);
		for (uint32_t end = pk + R->ofnp[i]; pk < end; pk++) {
			const aproc *p = &m->pr[R->procs[pk]];
			switch (t) {
			case XP_T_PROCS:
				put_proc(o, R, p, i, nvpv, &c);
				continue;
			case XP_T_STATS:
				xp_merge_put_stats(o, p->stats, p->max, p->sum);
				break;
			case XP_T_COUNTERS:
				/* By id: the order they are kept in. */
				for (uint32_t k = 0; k < p->ncnt; k++) {
					unsigned char *r = orec(o, XP_RS_COUNTER);
					xp_put_le32(r + XP_CN_ID, p->cid[k]);
					xp_put_le64(r + XP_CN_VALUE, p->cval[k]);
				}
				break;
			case XP_T_VPS:
				for (uint32_t k = 0; k < p->nvr; k++) {
					unsigned char *r = orec(o, XP_RS_VP);
					xp_put_le32(r + XP_VP_EXPR, p->vr[k].expr);
					xp_put_le32(r + XP_VP_TYPE, p->vr[k].type);
				}
				break;
			case XP_T_VPVALS:
				for (uint32_t k = 0; k < p->nvr; k++)
					xp_merge_put_vpvals(o, R->sid, &p->vr[k], nvpv);
				break;
			/* Blocks and edges are kept as the database's records. */
			case XP_T_BLOCKS:
				xp_merge_out_copy(o, p->blk, (size_t)p->nblk * XP_RS_BLOCK,
				         XP_RS_BLOCK);
				break;
			case XP_T_EDGES:
				xp_merge_out_copy(o, p->edge, (size_t)p->nedge * XP_RS_EDGE,
				         XP_RS_EDGE);
				break;
			case XP_T_TUPLES:
				for (uint32_t k = 0; k < p->ntup; k++) {
					const xp_tuple *tu = &p->tup[k];
					unsigned char *r = orec(o, XP_RS_TUPLE);
					uint32_t f = tu->srcfile, file = XP_NOSTR;
					if (f != NONE && f != prevfile) {
						file = R->sid[f];
						prevfile = f;
					}
					xp_put_le32(r + XP_TU_ID, tu->id);
					xp_put_le32(r + XP_TU_BLOCK, tu->block);
					xp_put_le32(r + XP_TU_LINE, tu->line);
					xp_put_le32(r + XP_TU_COL, tu->col);
					xp_put_le32(r + XP_TU_FILE, file);
				}
				break;
			default:
				break;
			}
			c.n[XP_T_STATS] += nstats(p->stats);
		}
	}
}

/* A table of the program sections; the stats are the last ones. */
static void put_program_table(recout *o, void *ctx, xp_table t)
{
	const result *R = ctx;
	const xp_merger *m = R->m;
	uint32_t st = (uint32_t)R->n[XP_T_STATS], nref = 0, ncd = 0;
	for (uint32_t i = 0; i < m->npg; i++)
		st -= nstats(m->pg[i].stats);
	for (uint32_t i = 0; i < m->npg; i++) {
		const aprog *g = &m->pg[R->pgs[i]];
		const uint32_t *sid = R->sid;
		if (t == XP_T_PROGRAMS) {
			unsigned char *r = orec(o, XP_RS_PROGRAM);
			xp_put_le32(r + XP_PG_PATH, sid[g->path]);
			xp_put_le32(r + XP_PG_FSTAT, st);
			xp_put_le32(r + XP_PG_NSTAT, nstats(g->stats));
			xp_put_le32(r + XP_PG_FOBJREF, nref);
			xp_put_le32(r + XP_PG_NOBJREF, g->nref);
			xp_put_le32(r + XP_PG_FCOMDAT, ncd);
			xp_put_le32(r + XP_PG_NCOMDAT, g->ncd);
		} else if (t == XP_T_STATS) {
			uint64_t max = 0, sum = 0;
			for (uint32_t k = 0; k < g->nref; k++) {
				uint32_t ofi = m->of_by_str[g->refs[k]];
				if (ofi == NONE)
					continue;
				if (m->of[ofi].max > max)
					max = m->of[ofi].max;
				sum = xp_sat_add(sum, m->of[ofi].sum);
			}
			xp_merge_put_stats(o, g->stats, max, sum);
		} else if (t == XP_T_OBJREFS) {
			for (uint32_t k = 0; k < g->nref; k++)
				xp_put_le32(orec(o, XP_RS_OBJREF), sid[g->refs[k]]);
		} else if (t == XP_T_COMDATS) {
			for (uint32_t k = 0; k < g->ncd; k++) {
				unsigned char *r = orec(o, XP_RS_COMDAT);
				xp_put_le32(r + XP_CD_PROC, sid[g->cds[k].a]);
				xp_put_le32(r + XP_CD_OBJFILE, sid[g->cds[k].b]);
			}
		}
		st += nstats(g->stats);
		nref += g->nref;
		ncd += g->ncd;
	}
}

/* A table of the source file sections. */
static void put_srcfile_table(recout *o, void *ctx, xp_table t)
{
	const result *R = ctx;
	const xp_merger *m = R->m;
	uint32_t nline = 0, nref = 0;
	for (uint32_t i = 0; i < m->nsf; i++) {
		const asrc *s = &m->sf[R->sfs[i]];
		if (t == XP_T_SRCFILES) {
			unsigned char *r = orec(o, XP_RS_SRCFILE);
			xp_put_le32(r + XP_SF_PATH, R->sid[s->path]);
			xp_put_le32(r + XP_SF_FLINE, nline);
			xp_put_le32(r + XP_SF_NLINE, s->nout);
			nline += s->nout;
			continue;
		}
		for (uint32_t k = 0; k < s->nline; k++) {
			const aline *l = &m->ln[s->lines[k]];
			if (l->nref == 0)
				continue;
			nline++;
			if (t == XP_T_SRCLINES) {
				unsigned char *r = orec(o, XP_RS_SRCLINE);
				xp_put_le32(r + XP_SL_LINE, l->line);
				xp_put_le32(r + XP_SL_COL, l->col);
				xp_put_le32(r + XP_SL_FREF, nref);
				xp_put_le32(r + XP_SL_NREF, l->nref);
			} else if (t == XP_T_BLOCKREFS) {
				const aref *lr = m->rp + l->first;
				for (uint32_t q = 0; q < l->nref; q++) {
					unsigned char *r = orec(o, XP_RS_BLOCKREF);
					xp_put_le32(r + XP_BR_BLOCK, lr[q].block);
					xp_put_le64(r + XP_BR_COUNT, lr[q].count);
					xp_put_le32(r + XP_BR_PROC, R->sid[lr[q].proc]);
					xp_put_le32(r + XP_BR_OBJFILE,
					            R->sid[lr[q].objfile]);
				}
			}
			nref += l->nref;
		}
	}
}

/*
 * Writes every record of table t, in the order the result was planned
 * in.  The indexes list a table's records in order of their string field
 * (for procedures, their object file's path first), which is the
 * canonical order itself: object files, programs and source files come
 * by path, procedures by object file and then name, and the result's
 * strings are numbered in byte order.  Only procedures put first for
 * their unknown source files (cmp_pr) need an index of their own (pidx).
 */
void xp_merge_put_entry(recout *o, const tables *T, unsigned e)
{
	if (e == XP_DBE_STROFFS) {
		xp_merge_out_copy(o, T->stroff, (size_t)T->nstr * 4, 4);
		return;
	}
	if (e == XP_DBE_STRINGS) {
		xp_merge_out_copy(o, T->strtab, T->strbytes, 1);
		return;
	}
	xp_table t = (xp_table)(e - XP_DBE_TABLE0);
	switch (t) {
	case XP_T_RUNS:
		xp_merge_put_run(o, XP_SEC_OBJFILE, T->nof);
		xp_merge_put_run(o, XP_SEC_PROGRAM, T->npg);
		xp_merge_put_run(o, XP_SEC_SRCFILE, T->nsf);
		break;
	case XP_T_STATS:
		T->objfiles(o, T->ctx, t);
		T->programs(o, T->ctx, t);
		break;
	case XP_T_OBJFILES:
	case XP_T_PROCS:
	case XP_T_COUNTERS:
	case XP_T_VPS:
	case XP_T_VPVALS:
	case XP_T_BLOCKS:
	case XP_T_EDGES:
	case XP_T_TUPLES:
		T->objfiles(o, T->ctx, t);
		break;
	case XP_T_PROGRAMS:
	case XP_T_OBJREFS:
	case XP_T_COMDATS:
		T->programs(o, T->ctx, t);
		break;
	case XP_T_SRCFILES:
	case XP_T_SRCLINES:
	case XP_T_BLOCKREFS:
		T->srcfiles(o, T->ctx, t);
		break;
	case XP_T_IDX_OBJFILES:
	case XP_T_IDX_PROCS:
	case XP_T_IDX_PROGRAMS:
	case XP_T_IDX_SRCFILES:
		for (uint32_t i = 0; i < T->n[t]; i++)
			xp_put_le32(orec(o, XP_RS_INDEX), t == XP_T_IDX_PROCS &&
			                                      T->pidx ? T->pidx[i] : i);
		break;
	case XP_T_COUNT_:
		break;
	}
}

/* The accumulator's result: directory entry e. */
static void put_result(void *ctx, unsigned e, recout *o)
{
	const result *R = ctx;
	xp_merge_put_entry(o,
	                   &(tables){R->stroff, R->strtab, R->nstr, R->strbytes,
	                             put_objfile_table, put_program_table,
	                             put_srcfile_table, (void *)R, R->m->nof,
	                             R->m->npg, R->m->nsf, R->n, R->pidx},
	                   e);
}

static void free_result(void *ctx)
{
	xp_merge_result_free(ctx);
	free(ctx);
}

/*
 * The result of m, to be written: straight from a lazy template and its
 * delta when merge_flat.c can (inputs of one layout), otherwise from the
 * accumulator, settled and ordered (merge_order.c).
 */
static xp_err prepare(xp_merger *m, product *P, xp_diags *d)
{
	xp_err err;
	memset(P, 0, sizeof *P);
	P->shape.type = m->type;
	if (xp_merge_flat_plan(m, P, d, &err))
		return err;
	result *R = malloc(sizeof *R);
	if (!R)
		return XP_E_NOMEM;
	err = xp_merge_plan(m, R, d);
	P->put = put_result;
	P->release = free_result;
	P->ctx = R;
	if (err)
		return err;
	P->shape = (xp_db_shape){m->type, m->minor, m->n_proc_names, {0}};
	P->shape.count[XP_DBE_STROFFS] = R->nstr;
	P->shape.count[XP_DBE_STRINGS] = R->strbytes;
	for (int t = 0; t < XP_T_COUNT_; t++)
		P->shape.count[XP_DBE_TABLE0 + t] = R->n[t];
	P->nof = m->nof;
	P->objfile = m->nof == 1 ? xp_strpool_str(&m->str, m->of[0].path)
	                         : NULL;
	return XP_E_OK;
}

static void release(product *P)
{
	if (P->release)
		P->release(P->ctx);
}

xp_err xp_merger_finish(xp_merger *m, xp_fb **out_fb, xp_diags *d)
{
	product P;
	*out_fb = NULL;
	xp_err err = prepare(m, &P, d);
	const xp_db_shape *sh = &P.shape;
	xp_fb *fb = err ? NULL : xp_fb_alloc(sh->type, sh->minor,
	                                     sh->n_proc_names);
	if (!err && !fb)
		err = XP_E_NOMEM;
	for (unsigned e = 0; e < XP_DB_NENTRIES && !err; e++) {
		size_t size = (size_t)sh->count[e] * xp_db_entry_recsize(e);
		unsigned char *tab = malloc(size + 1);
		if (!tab) {
			err = XP_E_NOMEM;
			break;
		}
		recout o = {.base = tab, .p = tab, .end = tab + size};
		P.put(P.ctx, e, &o);
		if (e == XP_DBE_STROFFS) {
			fb->stroff = fb->owned[XP_T_COUNT_] = tab;
			fb->nstr = (uint32_t)sh->count[e];
		} else if (e == XP_DBE_STRINGS) {
			fb->strtab = (const char *)tab;
			fb->owned[XP_T_COUNT_ + 1] = tab;
			fb->strtab_len = (uint32_t)sh->count[e];
		} else {
			unsigned t = e - XP_DBE_TABLE0;
			fb->tab[t] = fb->owned[t] = tab;
			fb->n[t] = (uint32_t)sh->count[e];
		}
	}
	if (!err) {
		*out_fb = fb;
		fb = NULL;
	}
	xp_fb_free(fb);
	release(&P);
	return err;
}

/* Writing the result as a database: directory entry e. */
static void put_entry(void *ctx, unsigned e, xp_wbuf *w)
{
	const product *P = ctx;
	recout o = {.w = w};
	P->put(P->ctx, e, &o);
	out_done(&o);
}

static xp_err write_product(void *ctx, int fd)
{
	product *P = ctx;
	return xp_db_write_fd_with(&P->shape, put_entry, P, fd);
}

/* Writes the prepared result P into the profile directory l locks. */
static xp_err write_prepared(xp_merger *m, product *P, xp_lock *l,
                             xp_diags *d)
{
	return xp_profdir_write_with_manifest(l, m->type, P->nof, P->objfile,
	                                      write_product, P, m->man, d);
}

void xp_merger_set_manifest(xp_merger *m, const xp_manifest *man)
{
	m->man = man;
}

xp_err xp_merger_write_locked(xp_merger *m, xp_lock *l, xp_diags *d)
{
	product P;
	xp_err err = prepare(m, &P, d);
	if (!err)
		err = write_prepared(m, &P, l, d);
	release(&P);
	return err;
}

xp_err xp_merger_write(xp_merger *m, const char *dir, xp_diags *d)
{
	product P;
	xp_lock *l = NULL;
	/* The directory is made once the result is known to be good. */
	xp_err err = prepare(m, &P, d);
	if (!err && !(err = xp_profdir_lock(dir, 1, &l, d)))
		err = write_prepared(m, &P, l, d);
	if (err)
		xp_profdir_unlock_failed(l);
	else
		xp_profdir_unlock(l);
	release(&P);
	return err;
}
