/*
 * feedback/merge_order.c - settling the merger's result: the final counts,
 * the versions dropped at the end and the stats, then the canonical order
 * of everything, the number of records of every table and the strings the
 * result uses.
 *
 * The order does not depend on the order of the inputs.  Sorting is a
 * merge sort over indices with a comparison taking the merger, since
 * records of a database mostly come in order already; once the pool's
 * strings are ranked in byte order, comparing two strings is comparing
 * two integers.
 */
#include <stdlib.h>
#include <string.h>

#include "feedback/merge.h"

/* ------------------------------------------------------------------ */
/* Producing the result                                                */
/* ------------------------------------------------------------------ */

uint64_t xp_merge_scale(xp_merger *m, uint64_t v)
{
	if (m->o.scale == 1 || v == 0)
		return v;
	int sat = 0;
	uint64_t r = round_u64((long double)v * (long double)m->o.scale, &sat);
	if (sat)
		m->saturated++;
	return r;
}

/* Sorting helpers take the merger through a file-local context struct. */
typedef struct {
	const xp_merger *m;
	xp_vptype type;
	const uint32_t *at;   /* cmp_pos_name: procedures by position */
} sortctx;

/* A comparison of sort_u32's, as xp_sort_idx calls it. */
typedef struct {
	int (*cmp)(const sortctx *, uint32_t, uint32_t);
	const sortctx *c;
} by_u32;

static int cmp_by_u32(const void *ctx, size_t a, size_t b)
{
	const by_u32 *x = ctx;
	return x->cmp(x->c, (uint32_t)a, (uint32_t)b);
}

/* Sorts the n ids of a by cmp, equal ones in the order they had. */
static xp_err sort_u32(uint32_t *a, size_t n,
                       int (*cmp)(const sortctx *, uint32_t, uint32_t),
                       const sortctx *c)
{
	size_t *v = malloc((2 * n + 1) * sizeof *v);
	by_u32 x = {cmp, c};
	if (!v)
		return XP_E_NOMEM;
	for (size_t i = 0; i < n; i++)
		v[i] = a[i];
	xp_sort_idx(v, v + n, n, cmp_by_u32, &x);
	for (size_t i = 0; i < n; i++)
		a[i] = (uint32_t)v[i];
	free(v);
	return XP_E_OK;
}

static int cmp_of(const sortctx *c, uint32_t a, uint32_t b)
{
	return strcmp_id(c->m, c->m->of[a].path, c->m->of[b].path);
}

/*
 * A tuple written without its source file takes that of the tuple
 * before it in the object file, so a file that is not known stays so only
 * before every known one.  A version's unknown files come first among its
 * tuples (an input's, before its object file names one): its procedure
 * goes before the others when all its tuples have one (0), then when its
 * first has (1), the rest after (2).
 */
static int unknown_first(const aproc *p)
{
	if (p->ntup == 0 || p->tup[0].srcfile != NONE)
		return 2;
	return p->tup[p->ntup - 1].srcfile == NONE ? 0 : 1;
}

/* Procedures in an object file: unknown source files first, then name. */
static int cmp_pr(const sortctx *c, uint32_t a, uint32_t b)
{
	const aproc *x = &c->m->pr[a], *y = &c->m->pr[b];
	int ux = unknown_first(x), uy = unknown_first(y);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	return strcmp_id(c->m, x->name, y->name);
}

static int cmp_pos_name(const sortctx *c, uint32_t a, uint32_t b)
{
	const aproc *x = &c->m->pr[c->at[a]], *y = &c->m->pr[c->at[b]];
	return strcmp_id(c->m, x->name, y->name);
}

static int cmp_pr_id(const sortctx *c, uint32_t a, uint32_t b)
{
	const aproc *x = &c->m->pr[a], *y = &c->m->pr[b];
	if (x->proc_id != y->proc_id)
		return x->proc_id < y->proc_id ? -1 : 1;
	return strcmp_id(c->m, x->name, y->name);
}

static int cmp_pg(const sortctx *c, uint32_t a, uint32_t b)
{
	return strcmp_id(c->m, c->m->pg[a].path, c->m->pg[b].path);
}

static int cmp_sf(const sortctx *c, uint32_t a, uint32_t b)
{
	return strcmp_id(c->m, c->m->sf[a].path, c->m->sf[b].path);
}

static int cmp_str_ids(const sortctx *c, uint32_t a, uint32_t b)
{
	return strcmp_id(c->m, a, b);
}

static int cmp_ln(const sortctx *c, uint32_t a, uint32_t b)
{
	const aline *x = &c->m->ln[a], *y = &c->m->ln[b];
	CMPNUM(x->line, y->line);
	CMPNUM(x->col, y->col);
	return 0;
}

static int cmp_ref(const xp_merger *m, const aref *x, const aref *y)
{
	int r = strcmp_id(m, x->objfile, y->objfile);
	if (r)
		return r;
	if ((r = strcmp_id(m, x->proc, y->proc)))
		return r;
	CMPNUM(x->block, y->block);
	return 0;
}

static int cmp_pair(const xp_merger *m, const pair *x, const pair *y)
{
	int r = strcmp_id(m, x->b, y->b);
	return r ? r : strcmp_id(m, x->a, y->a);
}

/* IEEE totalOrder on the bits of a float or double. */
static uint64_t total_key(uint64_t bits, int is_float)
{
	uint64_t sign = is_float ? 1u << 31 : (uint64_t)1 << 63;
	uint64_t mask = is_float ? 0xffffffffu : U64MAX;
	bits &= mask;
	return bits & sign ? ~bits & mask : bits | sign;
}

static int cmp_vval(const xp_merger *m, xp_vptype type, const vval *x,
                    const vval *y)
{
	CMPNUM(y->count, x->count);
	if (x->has != y->has)
		return x->has ? -1 : 1;
	if (!x->has)
		return 0;
	switch (type) {
	case XP_VP_INT:
	case XP_VP_LLONG: {
		int64_t a = (int64_t)x->key, b = (int64_t)y->key;
		CMPNUM(a, b);
		return 0;
	}
	case XP_VP_FLOAT:
	case XP_VP_DOUBLE: {
		uint64_t a = total_key(x->key, type == XP_VP_FLOAT);
		uint64_t b = total_key(y->key, type == XP_VP_FLOAT);
		CMPNUM(a, b);
		return 0;
	}
	case XP_VP_PROC: {
		int r = strcmp_id(m, (uint32_t)x->key, (uint32_t)y->key);
		if (r)
			return r;
		return strcmp_id(m, (uint32_t)(x->key >> 32),
		                 (uint32_t)(y->key >> 32));
	}
	}
	return 0;
}

/* Insertion sort: value lists are short. */
static void sort_vvals(const xp_merger *m, xp_vptype type, vval *v,
                       uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		vval x = v[i];
		uint32_t j = i;
		while (j > 0 && cmp_vval(m, type, &x, &v[j - 1]) < 0) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

static int cmp_vrec(const void *a, const void *b)
{
	const vrec *x = a, *y = b;
	CMPNUM(x->expr, y->expr);
	CMPNUM(x->type, y->type);
	return 0;
}

static void sort_refs(const xp_merger *m, aref *r, uint32_t n)
{
	/* Lines hold few refs; a shell sort keeps this simple and fast. */
	for (uint32_t gap = n / 2; gap > 0; gap /= 2)
		for (uint32_t i = gap; i < n; i++) {
			aref x = r[i];
			uint32_t j = i;
			while (j >= gap && cmp_ref(m, &x, &r[j - gap]) < 0) {
				r[j] = r[j - gap];
				j -= gap;
			}
			r[j] = x;
		}
}

/*
 * The final refs of line l: the counts of dropped versions go, and
 * those of inputs that did not hold the procedure (TAG_ANY, whatever
 * version is kept) join the kept version's, in a ref of the same key.
 */
static void settle_line(xp_merger *m, aline *l)
{
	aref *lr = l->nref ? m->rp + l->first : NULL;
	uint32_t k = 0, nany = 0;
	for (uint32_t q = 0; q < l->nref; q++) {
		aref *r = &lr[q];
		if (r->tag != TAG_ANY) {
			uint32_t pi = r->pi;
			if (pi == NONE) {
				uint32_t ofi = m->of_by_str[r->objfile];
				pi = ofi == NONE ? NONE
				                 : find_proc(m, ofi, r->proc);
			}
			if (pi != NONE && (m->pr[pi].gen != r->tag ||
			                   m->pr[pi].dropped == 1))
				continue;
		}
		nany += r->tag == TAG_ANY;
		lr[k++] = *r;
	}
	if (nany > 0 && nany < k) {
		/* Both kinds: refs of one key meet once sorted. */
		sort_refs(m, lr, k);
		uint32_t n = 0;
		for (uint32_t q = 0; q < k; q++) {
			if (n > 0 && cmp_ref(m, &lr[n - 1], &lr[q]) == 0)
				combine(m, &lr[n - 1].count, lr[q].count, 0, 0);
			else
				lr[n++] = lr[q];
		}
		k = n;
	}
	for (uint32_t q = 0; q < k; q++)
		lr[q].count = xp_merge_scale(m, lr[q].count);
	l->nref = k;
}

/* Final counts, the drops decided at the end, and the stats. */
static xp_err settle(xp_merger *m, xp_diags *d)
{
	xp_err err;
	for (uint32_t i = 0; i < m->npr; i++) {
		aproc *p = &m->pr[i];
		aobj *o = &m->of[p->of];
		if (p->nvr > 0 && p->c.nvpv != o->c.nvpv) {
			aproc win = *p;
			win.c = o->c;
			const char *pn = xp_strpool_str(&m->names, p->src);
			const char *on = xp_strpool_str(&m->names, o->src);
			err = xp_merge_report_drop(m, d, p, pn, &win, on, 0);
			if (err)
				return err;
			p->dropped = 1;
			continue;
		}
		if (m->o.scale != 1) {
			for (uint32_t k = 0; k < p->ncnt; k++)
				p->cval[k] = xp_merge_scale(m, p->cval[k]);
			for (uint32_t k = 0; k < p->nvr; k++)
				for (uint32_t q = 0; q < p->vr[k].nv; q++)
					p->vr[k].v[q].count =
						xp_merge_scale(m, p->vr[k].v[q].count);
		}
		if (m->o.sparse) {
			int any = 0;
			for (uint32_t k = 0; k < p->ncnt && !any; k++)
				any = p->cval[k] != 0;
			if (!any)
				p->dropped = 2;
		}
	}
	for (uint32_t i = 0; i < m->nln; i++)
		settle_line(m, &m->ln[i]);
	for (uint32_t i = 0; i < m->nof; i++) {
		aobj *o = &m->of[i];
		o->max = o->sum = 0;
		for (uint32_t pi = o->first; pi != NONE; pi = m->pr[pi].next) {
			aproc *p = &m->pr[pi];
			if (p->dropped)
				continue;
			uint64_t max = 0, sum = 0;
			for (uint32_t k = 0; k < p->ncnt; k++) {
				if (p->cval[k] > max)
					max = p->cval[k];
				sum = xp_sat_add(sum, p->cval[k]);
			}
			p->max = max;
			p->sum = sum;
			if (max > o->max)
				o->max = max;
			o->sum = xp_sat_add(o->sum, sum);
		}
	}
	return XP_E_OK;
}

/*
 * How many counts of the result stand at 2^64-1, once some count was
 * cut there: the counters that saturated, told apart from the others
 * without a flag per counter.
 */
static uint64_t count_saturated(const xp_merger *m)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < m->npr; i++) {
		const aproc *p = &m->pr[i];
		if (p->dropped)
			continue;
		for (uint32_t k = 0; k < p->ncnt; k++)
			n += p->cval[k] == U64MAX;
		for (uint32_t k = 0; k < p->nvr; k++)
			for (uint32_t q = 0; q < p->vr[k].nv; q++)
				n += p->vr[k].v[q].count == U64MAX;
	}
	for (uint32_t i = 0; i < m->nln; i++)
		for (uint32_t q = 0; q < m->ln[i].nref; q++)
			n += m->rp[m->ln[i].first + q].count == U64MAX;
	return n;
}

void xp_merge_saturation(xp_merger *m, uint64_t n, xp_diags *d)
{
	m->saturated = n;
	if (n)
		xp_diag_warn(d, "",
		             "%llu count%s saturated at 18446744073709551615",
		             (unsigned long long)n, n == 1 ? "" : "s");
}

void xp_merge_result_free(result *R)
{
	XP_FREE(R->ofs, R->ofnp, R->procs, R->pidx, R->pgs, R->sfs, R->used,
	        R->sid, R->stroff, R->strtab);
}

/* Byte order, the order of a database's strings. */
static int cmp_bytes(const sortctx *c, uint32_t a, uint32_t b)
{
	return xp_strpool_cmp(&c->m->str, a, b);
}

/*
 * Ranks the pool's strings in byte order (m->rank), from which on
 * strcmp_id() compares ranks.  Strings of a database come in byte order,
 * so the sort mostly finds runs already in order.
 */
static xp_err rank_strings(xp_merger *m, uint32_t **order)
{
	uint32_t n = m->str.n;
	uint32_t *ord = malloc(((size_t)n + 1) * sizeof *ord);
	uint32_t *rank = malloc(((size_t)n + 1) * sizeof *rank);
	if (!ord || !rank) {
		free(ord);
		free(rank);
		return XP_E_NOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		ord[i] = i;
	sortctx c = {m, 0, NULL};
	xp_err err = sort_u32(ord, n, cmp_bytes, &c);
	if (err) {
		free(ord);
		free(rank);
		return err;
	}
	for (uint32_t i = 0; i < n; i++)
		rank[ord[i]] = i;
	m->rank = rank;
	*order = ord;
	return XP_E_OK;
}

static void use(result *R, uint32_t id)
{
	R->used[id] = 1;
}

/* The order of the procedures of object file o, renumbering their ids
 * where needed; appended to R->procs. */
static xp_err plan_procs(result *R, aobj *o, uint32_t *np_out)
{
	xp_merger *m = R->m;
	sortctx c = {m, 0, NULL};
	uint32_t *procs = R->procs + R->nprocs;
	uint32_t np = 0;
	for (uint32_t pi = o->first; pi != NONE; pi = m->pr[pi].next)
		if (!m->pr[pi].dropped)
			procs[np++] = pi;
	/* Proc ids: kept when they still number 1..n without repeats.
	 * Otherwise they are renumbered in canonical order (a function of
	 * the merged set alone, so that merging stays associative), except
	 * that --sparse renumbers densely keeping the order of the ids. */
	xp_err err = sort_u32(procs, np, cmp_pr_id, &c);
	if (err)
		return err;
	int dense = 1;
	for (uint32_t k = 0; k < np; k++)
		if (m->pr[procs[k]].proc_id != k + 1)
			dense = 0;
	if (!dense && m->o.sparse)
		for (uint32_t k = 0; k < np; k++)
			m->pr[procs[k]].proc_id = k + 1;
	if ((err = sort_u32(procs, np, cmp_pr, &c)))
		return err;
	if (!dense && !m->o.sparse)
		for (uint32_t k = 0; k < np; k++)
			m->pr[procs[k]].proc_id = k + 1;
	R->nprocs += np;
	*np_out = np;
	return XP_E_OK;
}

/*
 * IDX_PROCS lists the procedures by object file, then name: in an object
 * file whose first procedure has unknown source files (cmp_pr), their
 * positions from first on are sorted by name.
 */
static xp_err index_procs(result *R, uint32_t first)
{
	const xp_merger *m = R->m;
	uint32_t n = R->nprocs - first;
	if (n == 0 || unknown_first(&m->pr[R->procs[first]]) == 2)
		return XP_E_OK;
	if (!R->pidx) {
		R->pidx = malloc(((size_t)m->npr + 1) * sizeof *R->pidx);
		if (!R->pidx)
			return XP_E_NOMEM;
		for (uint32_t i = 0; i < m->npr; i++)
			R->pidx[i] = i;
	}
	sortctx c = {m, 0, R->procs};
	return sort_u32(R->pidx + first, n, cmp_pos_name, &c);
}

void xp_merge_sort_vps(const xp_merger *m, aproc *p)
{
	uint32_t s = 1;
	while (s < p->nvr && cmp_vrec(&p->vr[s - 1], &p->vr[s]) < 0)
		s++;
	if (s < p->nvr)
		xp_qsort(p->vr, p->nvr, sizeof *p->vr, cmp_vrec);
	for (uint32_t k = 0; k < p->nvr; k++)
		sort_vvals(m, p->vr[k].type, p->vr[k].v, p->vr[k].nv);
}

/* A procedure's part of the plan: its records counted, its value
 * profiles sorted, its strings marked. */
static void plan_proc(result *R, aproc *p, uint32_t nvpv)
{
	uint64_t *n = R->n;
	use(R, p->name);
	n[XP_T_STATS] += nstats(p->stats);
	n[XP_T_COUNTERS] += p->ncnt;
	n[XP_T_VPS] += p->nvr;
	n[XP_T_VPVALS] += (uint64_t)p->nvr * nvpv;
	n[XP_T_BLOCKS] += p->nblk;
	n[XP_T_EDGES] += p->nedge;
	n[XP_T_TUPLES] += p->ntup;
	xp_merge_sort_vps(R->m, p);
	for (uint32_t k = 0; k < p->nvr; k++) {
		vrec *r = &p->vr[k];
		if (r->type != XP_VP_PROC)
			continue;
		for (uint32_t q = 0; q < nvpv && q < r->nv; q++)
			if (r->v[q].has) {
				use(R, (uint32_t)r->v[q].key);
				use(R, (uint32_t)(r->v[q].key >> 32));
			}
	}
	for (uint32_t k = 0; k < p->ntup; k++)
		if (p->tup[k].srcfile != NONE)
			use(R, p->tup[k].srcfile);
}

static xp_err order_of(xp_merger *m, uint32_t n,
                       int (*cmp)(const sortctx *, uint32_t, uint32_t),
                       uint32_t **out)
{
	sortctx c = {m, 0, NULL};
	uint32_t *a = malloc(((size_t)n + 1) * sizeof *a);
	if (!a)
		return XP_E_NOMEM;
	for (uint32_t i = 0; i < n; i++)
		a[i] = i;
	xp_err err = sort_u32(a, n, cmp, &c);
	if (err) {
		free(a);
		return err;
	}
	*out = a;
	return XP_E_OK;
}

/* The order and size of everything, and the strings in use. */
static xp_err plan(result *R)
{
	xp_merger *m = R->m;
	sortctx c = {m, 0, NULL};
	uint64_t *n = R->n;
	xp_err err;

	R->used = calloc((size_t)m->str.n + 1, 1);
	R->ofnp = malloc(((size_t)m->nof + 1) * sizeof *R->ofnp);
	R->procs = malloc(((size_t)m->npr + 1) * sizeof *R->procs);
	if (!R->used || !R->ofnp || !R->procs)
		return XP_E_NOMEM;
	if ((err = order_of(m, m->nof, cmp_of, &R->ofs)) ||
	    (err = order_of(m, m->npg, cmp_pg, &R->pgs)) ||
	    (err = order_of(m, m->nsf, cmp_sf, &R->sfs)))
		return err;

	n[XP_T_RUNS] = (m->nof > 0) + (m->npg > 0) + (m->nsf > 0);
	n[XP_T_OBJFILES] = m->nof;
	for (uint32_t i = 0; i < m->nof; i++) {
		aobj *o = &m->of[R->ofs[i]];
		uint32_t first = R->nprocs;
		if ((err = plan_procs(R, o, &R->ofnp[i])) ||
		    (err = index_procs(R, first)))
			return err;
		use(R, o->path);
		n[XP_T_STATS] += nstats(o->stats);
		for (uint32_t k = first; k < R->nprocs; k++)
			plan_proc(R, &m->pr[R->procs[k]], o->c.nvpv);
	}
	n[XP_T_PROCS] = R->nprocs;

	n[XP_T_PROGRAMS] = m->npg;
	for (uint32_t i = 0; i < m->npg; i++) {
		aprog *g = &m->pg[R->pgs[i]];
		use(R, g->path);
		n[XP_T_STATS] += nstats(g->stats);
		if ((err = sort_u32(g->refs, g->nref, cmp_str_ids, &c)))
			return err;
		for (uint32_t k = 0; k < g->nref; k++)
			use(R, g->refs[k]);
		n[XP_T_OBJREFS] += g->nref;
		/* Insertion sort of the comdat pairs. */
		for (uint32_t k = 1; k < g->ncd; k++) {
			pair x = g->cds[k];
			uint32_t j = k;
			while (j > 0 && cmp_pair(m, &x, &g->cds[j - 1]) < 0) {
				g->cds[j] = g->cds[j - 1];
				j--;
			}
			g->cds[j] = x;
		}
		for (uint32_t k = 0; k < g->ncd; k++) {
			use(R, g->cds[k].a);
			use(R, g->cds[k].b);
		}
		n[XP_T_COMDATS] += g->ncd;
	}

	n[XP_T_SRCFILES] = m->nsf;
	for (uint32_t i = 0; i < m->nsf; i++) {
		asrc *s = &m->sf[R->sfs[i]];
		use(R, s->path);
		if ((err = sort_u32(s->lines, s->nline, cmp_ln, &c)))
			return err;
		s->nout = 0;
		for (uint32_t k = 0; k < s->nline; k++) {
			aline *l = &m->ln[s->lines[k]];
			if (l->nref == 0)
				continue;
			s->nout++;
			n[XP_T_SRCLINES]++;
			n[XP_T_BLOCKREFS] += l->nref;
			aref *lr = m->rp + l->first;
			sort_refs(m, lr, l->nref);
			for (uint32_t q = 0; q < l->nref; q++) {
				use(R, lr[q].proc);
				use(R, lr[q].objfile);
			}
		}
	}
	n[XP_T_IDX_OBJFILES] = n[XP_T_OBJFILES];
	n[XP_T_IDX_PROCS] = n[XP_T_PROCS];
	n[XP_T_IDX_PROGRAMS] = n[XP_T_PROGRAMS];
	n[XP_T_IDX_SRCFILES] = n[XP_T_SRCFILES];
	for (int t = 0; t < XP_T_COUNT_; t++)
		if (n[t] >= UINT32_MAX)
			return XP_E_LIMIT;
	return XP_E_OK;
}

/* The result's string ids: the strings in use, in byte order. */
static xp_err number_strings(result *R, const uint32_t *order)
{
	xp_merger *m = R->m;
	uint32_t nstr = 0;
	size_t bytes = 0;
	R->sid = malloc(((size_t)m->str.n + 1) * sizeof *R->sid);
	if (!R->sid)
		return XP_E_NOMEM;
	for (uint32_t i = 0; i < m->str.n; i++) {
		uint32_t id = order[i];
		if (!R->used[id])
			continue;
		R->sid[id] = nstr++;
		bytes += xp_strpool_len(&m->str, id) + 1;
	}
	if (bytes > UINT32_MAX)
		return XP_E_LIMIT;
	R->stroff = malloc((size_t)nstr * 4 + 4);
	R->strtab = malloc(bytes + 1);
	if (!R->stroff || !R->strtab)
		return XP_E_NOMEM;
	size_t pos = 0;
	for (uint32_t i = 0, k = 0; i < m->str.n; i++) {
		uint32_t id = order[i];
		if (!R->used[id])
			continue;
		size_t len = xp_strpool_len(&m->str, id);
		xp_put_le32(R->stroff + (size_t)k++ * 4, (uint32_t)pos);
		memcpy(R->strtab + pos, xp_strpool_str(&m->str, id), len + 1);
		pos += len + 1;
	}
	R->nstr = nstr;
	R->strbytes = (uint32_t)bytes;
	return XP_E_OK;
}

/*
 * Everything up to writing the records: the templates' deltas added, the
 * final counts and drops, the order, sizes and strings of the result.
 */
xp_err xp_merge_plan(xp_merger *m, result *R, xp_diags *d)
{
	xp_err err;
	*R = (result){.m = m};
	if (m->failed)
		return xp_diag_file(d, XP_E_INVAL, "merge",
		                    "the merge failed earlier");
	err = xp_merge_drop_templates(m, NULL, d);
	m->failed = 1;
	if (err || (err = settle(m, d)))
		return err;
	if (m->saturated)
		xp_merge_saturation(m, count_saturated(m), d);
	uint32_t *order = NULL;
	if (!(err = rank_strings(m, &order)) && !(err = plan(R)))
		err = number_strings(R, order);
	free(order);
	return err;
}

