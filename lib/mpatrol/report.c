/*
 * mpatrol/report.c - mprof's report of an mpatrol allocation profile
 * (mpatrol(5), REPORT; xprof_mpatrol.h gives the API): the allocation
 * bins, the direct allocations per function, the memory leaks per call
 * stack and the allocation call graph, with mprof's options --addresses,
 * --counts, --stack-depth and --call-graph.  xprof_show prints it
 * (show/mpatrol.c).
 *
 * The rows come out as mprof makes them:
 *
 *  1. Call sites are visited by address, ties in file order.
 *  2. Direct allocations: a site with profiling data starts a row, which
 *     takes in the sites of the same function that follow it (the same
 *     address or, unless addresses are told apart, the same symbol).
 *  3. Memory leaks: a site with profiling data that no earlier row took
 *     starts a row, which takes in the following sites of the same
 *     function whose call stacks agree with its own to the stack depth;
 *     rows with nothing unfreed are left out.
 *  4. The call graph: rows made as for the leaks, stacks compared whole.
 *     A row's sums go to the edge from its function to the allocator, to
 *     each edge up its stack (an edge into a function already met on
 *     that stack is a cycle and gets nothing) and to the edge from the
 *     program's start to the outermost function.  Vertices are numbered
 *     by key (the symbol index, or the address when there is no symbol
 *     or with addresses), a symbol before an address of the same value.
 *  5. The tables sort by their key, descending, the later made of two
 *     equal rows first (mprof's red-black trees put equal keys to the
 *     right).
 *
 * Names are made only for the call sites the report shows, and each
 * distinct name is kept once, so memory follows the output.
 */
#include <inttypes.h>
#include <stdio.h>

#include "mpatrol/mpatrol.h"

struct xp_mpatrol_report {
	int counts;
	uint64_t maxstack;          /* 0: whole stacks */
	xp_mpatrol_totals tot;
	xp_strpool names;
	uint64_t *sites;            /* indices, in visiting order */
	size_t nsites;
	xp_mpatrol_bin *bins;
	size_t nbins;
	xp_mpatrol_direct *direct;
	size_t ndirect;
	xp_mpatrol_sums direct_total;
	xp_mpatrol_leak *leaks;
	size_t nleaks;
	const char **frames;        /* the leaks' stacks, back to back */
	size_t nframes;
	xp_mpatrol_vertex *v;       /* by index */
	size_t nv;
	xp_mpatrol_edge *e;         /* in the order made */
	size_t ne;
	size_t *adj;                /* the vertices' edge lists */
};

/* A vertex while the graph is built; numbers are in the order made. */
typedef struct {
	uint64_t key;
	int by_addr;
	size_t pos;                 /* the call site that made it */
	size_t *par, npar, parcap;  /* edge numbers, in the order made */
	size_t *chl, nchl, chlcap;
	int mark;
} gvert;

#define V_START SIZE_MAX
#define V_END (SIZE_MAX - 1)

typedef struct {
	gvert *v;
	size_t nv;
	size_t *group;              /* by site position: its vertex's key */
	size_t *vnum;               /* by group: vertex number, or SIZE_MAX */
	size_t *from, *to;          /* by edge: vertex numbers or V_* */
	size_t ecap;
} graph;

typedef struct {
	const xp_mpatrol *m;
	int addresses, counts;
	uint64_t maxstack;
	size_t n;                   /* call sites */
	size_t *order;              /* positions in m->sites by address */
	unsigned char *taken;       /* by position */
	uint32_t *name;             /* by position: name id + 1, 0: none yet */
	size_t *direct_pos, *frame_pos;
	xp_mpatrol_report *r;
	graph g;
} rctx;

/* A table row while it is made. */
typedef struct {
	size_t pos;                 /* the row's first call site */
	uint64_t key;
	size_t seq;                 /* the order made */
	xp_mpatrol_sums d;
} row;

static void sums_add(xp_mpatrol_sums *a, const xp_mpatrol_data *b)
{
	for (int i = 0; i < 4; i++) {
		a->acount[i] += b->acount[i];
		a->dcount[i] += b->dcount[i];
		a->atotal[i] += b->atotal[i];
		a->dtotal[i] += b->dtotal[i];
	}
}

static void sums_sum(xp_mpatrol_sums *a, const xp_mpatrol_sums *b)
{
	for (int i = 0; i < 4; i++) {
		a->acount[i] += b->acount[i];
		a->dcount[i] += b->dcount[i];
		a->atotal[i] += b->atotal[i];
		a->dtotal[i] += b->dtotal[i];
	}
}

/* Sets what is left unfreed; unsigned, as in mprof. */
static void sums_unfreed(xp_mpatrol_sums *a)
{
	for (int i = 0; i < 4; i++) {
		a->ucount[i] = a->acount[i] - a->dcount[i];
		a->utotal[i] = a->atotal[i] - a->dtotal[i];
	}
}

static uint64_t sum4(const uint64_t v[4])
{
	return v[0] + v[1] + v[2] + v[3];
}

static const xp_mpatrol_site *site(const rctx *c, size_t pos)
{
	return &c->m->sites[pos];
}

static const xp_mpatrol_data *site_data(const rctx *c, size_t pos)
{
	return xp_mpatrol_site_data(c->m, site(c, pos));
}

static size_t parent_pos(const rctx *c, size_t pos)
{
	const xp_mpatrol_site *p = xp_mpatrol_site_at(c->m,
	                                              site(c, pos)->parent);
	return p == NULL ? SIZE_MAX : (size_t)(p - c->m->sites);
}

/* Whether the site at q belongs with the one at n in mprof's tables:
 * the same address or, unless addresses are told apart, symbol. */
static int same_fn(const rctx *c, size_t n, size_t q)
{
	const xp_mpatrol_site *a = site(c, n), *b = site(c, q);
	return b->addr == a->addr ||
	       (!c->addresses && b->symbol != 0 && b->symbol == a->symbol);
}

/* Whether two call sites have the same stack (mprof's comparestack), to
 * the stack depth or whole. */
static int same_stack(const rctx *c, size_t n, size_t p, int whole)
{
	for (uint64_t i = 1; whole || c->maxstack == 0 || i < c->maxstack;
	     i++) {
		size_t pn = parent_pos(c, n), pp = parent_pos(c, p);
		const xp_mpatrol_site *a, *b;

		if (pn == SIZE_MAX || pp == SIZE_MAX)
			return pn == SIZE_MAX && pp == SIZE_MAX;
		n = pn;
		p = pp;
		a = site(c, n);
		b = site(c, p);
		if (a->addr != b->addr &&
		    (c->addresses || a->symbol == 0 || a->symbol != b->symbol))
			return 0;
	}
	return 1;
}

/* ------------------------------------------------------------------ */
/* Sorting                                                             */
/* ------------------------------------------------------------------ */

typedef struct {
	uint64_t key;
	int kind;
	size_t i;
} sortkey;

/* By key, then kind, then i: a total order, so qsort is deterministic. */
static int by_sortkey(const void *x, const void *y)
{
	const sortkey *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* Rows by key, descending, the later made first. */
static int by_key_desc(const void *x, const void *y)
{
	const row *a = x, *b = y;

	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	return a->seq > b->seq ? -1 : a->seq < b->seq;
}

/* c->order: the call sites by address, ties in file order. */
static xp_err order_sites(rctx *c)
{
	sortkey *k = malloc((c->n ? c->n : 1) * sizeof *k);

	if (k == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < c->n; i++) {
		k[i].key = c->m->sites[i].addr;
		k[i].kind = 0;
		k[i].i = i;
	}
	xp_qsort(k, c->n, sizeof *k, by_sortkey);
	for (size_t i = 0; i < c->n; i++) {
		c->order[i] = k[i].i;
		c->r->sites[i] = c->m->sites[k[i].i].index;
	}
	free(k);
	return XP_E_OK;
}

/* ------------------------------------------------------------------ */
/* Names                                                               */
/* ------------------------------------------------------------------ */

const char *xp_mp_site_fn(const xp_mpatrol *m, const xp_mpatrol_site *s,
                          char *hex)
{
	const char *name = xp_mpatrol_site_name(m, s);

	if (name != NULL)
		return name;
	snprintf(hex, 40, "0x%0*" PRIX64, (int)m->ptr_size * 2, s->addr);
	return hex;
}

/* The name of the site at pos as mprof prints it, interned once. */
static xp_err site_name(rctx *c, size_t pos)
{
	const xp_mpatrol_site *s = site(c, pos);
	const char *name = xp_mpatrol_site_name(c->m, s);
	int64_t off;
	uint32_t id;
	xp_err err;

	if (c->name[pos] != 0)
		return XP_E_OK;
	if (name == NULL) {
		char hex[40];
		name = xp_mp_site_fn(c->m, s, hex);
		err = xp_strpool_intern(&c->r->names, name, strlen(name), &id);
	} else {
		off = (int64_t)(s->addr - xp_mpatrol_site_symaddr(c->m, s));
		if (c->addresses && s->symbol != 0 && off != 0) {
			size_t len = strlen(name) + 24;
			char *buf = malloc(len);

			if (buf == NULL)
				return XP_E_NOMEM;
			snprintf(buf, len, "%s%+" PRId64, name, off);
			err = xp_strpool_intern(&c->r->names, buf, strlen(buf),
			                        &id);
			free(buf);
		} else {
			err = xp_strpool_intern(&c->r->names, name,
			                        strlen(name), &id);
		}
	}
	if (err == XP_E_OK)
		c->name[pos] = id + 1;
	return err;
}

/* The position in m->sites of the call site with this index. */
static size_t pos_of(const rctx *c, uint64_t index)
{
	return c->m->site_pos[index - 1];
}

static const char *name_of(const rctx *c, size_t pos)
{
	return xp_strpool_str(&c->r->names, c->name[pos] - 1);
}

/* Names every call site the report shows, then points its rows, stacks
 * and vertices at the names (the pool no longer moves). */
static xp_err name_all(rctx *c)
{
	xp_mpatrol_report *r = c->r;
	xp_err err = XP_E_OK;

	for (size_t i = 0; i < r->ndirect && err == XP_E_OK; i++)
		err = site_name(c, c->direct_pos[i]);
	for (size_t i = 0; i < r->nframes && err == XP_E_OK; i++)
		err = site_name(c, c->frame_pos[i]);
	for (size_t i = 0; i < r->nv && err == XP_E_OK; i++)
		err = site_name(c, pos_of(c, r->v[i].site));
	if (err != XP_E_OK)
		return err;
	for (size_t i = 0; i < r->ndirect; i++)
		r->direct[i].function = name_of(c, c->direct_pos[i]);
	for (size_t i = 0; i < r->nframes; i++)
		r->frames[i] = name_of(c, c->frame_pos[i]);
	for (size_t i = 0; i < r->nv; i++)
		r->v[i].function = name_of(c, pos_of(c, r->v[i].site));
	return XP_E_OK;
}

/* ------------------------------------------------------------------ */
/* Totals and allocation bins                                          */
/* ------------------------------------------------------------------ */

static xp_err bins(rctx *c)
{
	const xp_mpatrol *m = c->m;
	xp_mpatrol_report *r = c->r;
	uint64_t acount = 0, dcount = 0, atotal = 0, dtotal = 0;
	size_t nb = 0;

	for (size_t i = 0; i < m->nbins; i++) {
		acount += m->acounts[i];
		dcount += m->dcounts[i];
		if (i == m->nbins - 1) {
			atotal += m->atotals;
			dtotal += m->dtotals;
		} else {
			atotal += m->acounts[i] * (i + 1);
			dtotal += m->dcounts[i] * (i + 1);
		}
		nb += m->acounts[i] != 0;
	}
	r->tot.count = acount;
	r->tot.bytes = atotal;
	r->tot.unfreed_count = acount - dcount;
	r->tot.unfreed_bytes = atotal - dtotal;
	if ((r->bins = calloc(nb ? nb : 1, sizeof *r->bins)) == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < m->nbins; i++) {
		xp_mpatrol_bin *b = &r->bins[r->nbins];

		if (m->acounts[i] == 0)
			continue;
		b->size = (uint64_t)i + 1;
		b->or_more = i == m->nbins - 1;
		b->count = m->acounts[i];
		b->unfreed_count = b->count - m->dcounts[i];
		if (b->or_more) {
			b->bytes = m->atotals;
			b->unfreed_bytes = m->atotals - m->dtotals;
		} else {
			b->bytes = b->count * (i + 1);
			b->unfreed_bytes = b->unfreed_count * (i + 1);
		}
		r->nbins++;
	}
	return XP_E_OK;
}

/* ------------------------------------------------------------------ */
/* Direct allocations and memory leaks                                 */
/* ------------------------------------------------------------------ */

static xp_err direct_rows(rctx *c)
{
	xp_mpatrol_report *r = c->r;
	row *w = calloc(c->n ? c->n : 1, sizeof *w);
	size_t nr = 0;

	if (w == NULL)
		return XP_E_NOMEM;
	for (size_t k = 0; k < c->n; ) {
		size_t n = c->order[k], q = k + 1;
		const xp_mpatrol_data *dt = site_data(c, n);

		if (dt != NULL) {
			row *x = &w[nr];
			x->pos = n;
			x->seq = nr;
			sums_add(&x->d, dt);
			for (; q < c->n && same_fn(c, n, c->order[q]); q++) {
				const xp_mpatrol_data *e =
					site_data(c, c->order[q]);
				if (e != NULL)
					sums_add(&x->d, e);
			}
			x->key = c->counts ? sum4(x->d.acount)
			                   : sum4(x->d.atotal);
			sums_sum(&r->direct_total, &x->d);
			nr++;
		}
		k = q;
	}
	sums_unfreed(&r->direct_total);
	xp_qsort(w, nr, sizeof *w, by_key_desc);
	r->direct = calloc(nr ? nr : 1, sizeof *r->direct);
	c->direct_pos = malloc((nr ? nr : 1) * sizeof *c->direct_pos);
	if (r->direct == NULL || c->direct_pos == NULL) {
		free(w);
		return XP_E_NOMEM;
	}
	for (size_t i = 0; i < nr; i++) {
		xp_mpatrol_direct *x = &r->direct[i];
		x->site = site(c, w[i].pos)->index;
		x->key = w[i].key;
		x->sums = w[i].d;
		sums_unfreed(&x->sums);
		c->direct_pos[i] = w[i].pos;
	}
	r->ndirect = nr;
	free(w);
	return XP_E_OK;
}

/* The rows of the leak table, sorted, in *out. */
static xp_err leak_table(rctx *c, row **out, size_t *nrows)
{
	row *w = calloc(c->n ? c->n : 1, sizeof *w);
	size_t nr = 0;

	*out = w;
	*nrows = 0;
	if (w == NULL)
		return XP_E_NOMEM;
	memset(c->taken, 0, c->n);
	for (size_t k = 0; k < c->n; k++) {
		size_t n = c->order[k];
		const xp_mpatrol_data *dt = site_data(c, n);
		xp_mpatrol_sums d;
		uint64_t a = 0;

		if (dt == NULL || c->taken[n])
			continue;
		memset(&d, 0, sizeof d);
		sums_add(&d, dt);
		for (size_t q = k + 1; q < c->n && same_fn(c, n, c->order[q]);
		     q++) {
			size_t p = c->order[q];
			const xp_mpatrol_data *e = site_data(c, p);
			if (e != NULL && !c->taken[p] &&
			    same_stack(c, n, p, 0)) {
				sums_add(&d, e);
				c->taken[p] = 1;
			}
		}
		for (int i = 0; i < 4; i++)
			a += c->counts ? d.acount[i] - d.dcount[i]
			               : d.atotal[i] - d.dtotal[i];
		if (a > 0) {
			w[nr].pos = n;
			w[nr].key = a;
			w[nr].seq = nr;
			w[nr].d = d;
			nr++;
		}
	}
	memset(c->taken, 0, c->n);
	xp_qsort(w, nr, sizeof *w, by_key_desc);
	*nrows = nr;
	return XP_E_OK;
}

/* How many frames of the stack at pos a leak row shows. */
static size_t stack_depth(const rctx *c, size_t pos)
{
	size_t depth = 1;

	for (uint64_t s = 1; c->maxstack == 0 || s < c->maxstack; s++) {
		if ((pos = parent_pos(c, pos)) == SIZE_MAX)
			break;
		depth++;
	}
	return depth;
}

static xp_err leak_rows(rctx *c)
{
	xp_mpatrol_report *r = c->r;
	row *w;
	size_t nr, nf = 0;
	xp_err err = leak_table(c, &w, &nr);

	if (err != XP_E_OK)
		goto out;
	err = XP_E_NOMEM;
	if ((r->leaks = calloc(nr ? nr : 1, sizeof *r->leaks)) == NULL)
		goto out;
	for (size_t i = 0; i < nr; i++) {
		r->leaks[i].depth = stack_depth(c, w[i].pos);
		if (r->leaks[i].depth > SIZE_MAX / sizeof(size_t) - nf)
			goto out;
		nf += r->leaks[i].depth;
	}
	r->frames = calloc(nf ? nf : 1, sizeof *r->frames);
	c->frame_pos = malloc((nf ? nf : 1) * sizeof *c->frame_pos);
	if (r->frames == NULL || c->frame_pos == NULL)
		goto out;
	nf = 0;
	for (size_t i = 0; i < nr; i++) {
		xp_mpatrol_leak *x = &r->leaks[i];
		size_t p = w[i].pos;

		x->stack = r->frames + nf;
		x->site = site(c, p)->index;
		x->key = w[i].key;
		x->sums = w[i].d;
		sums_unfreed(&x->sums);
		for (size_t k = 0; k < x->depth; k++) {
			c->frame_pos[nf++] = p;
			p = parent_pos(c, p);
		}
	}
	r->nleaks = nr;
	r->nframes = nf;
	err = XP_E_OK;
out:
	free(w);
	return err;
}

/* ------------------------------------------------------------------ */
/* The allocation call graph                                           */
/* ------------------------------------------------------------------ */

/* Groups the call sites by the vertex they belong to: g->group[pos]. */
static xp_err group_sites(rctx *c)
{
	graph *g = &c->g;
	sortkey *k = malloc((c->n ? c->n : 1) * sizeof *k);
	size_t ngroups = 0;

	g->group = malloc((c->n ? c->n : 1) * sizeof *g->group);
	g->vnum = malloc((c->n ? c->n : 1) * sizeof *g->vnum);
	g->v = calloc(c->n ? c->n : 1, sizeof *g->v);
	if (k == NULL || g->group == NULL || g->vnum == NULL || g->v == NULL) {
		free(k);
		return XP_E_NOMEM;
	}
	for (size_t i = 0; i < c->n; i++) {
		const xp_mpatrol_site *s = site(c, i);
		k[i].kind = c->addresses || s->symbol == 0;
		k[i].key = k[i].kind ? s->addr : s->symbol;
		k[i].i = i;
	}
	xp_qsort(k, c->n, sizeof *k, by_sortkey);
	for (size_t i = 0; i < c->n; i++) {
		if (i > 0 && (k[i].key != k[i - 1].key ||
		              k[i].kind != k[i - 1].kind))
			ngroups++;
		g->group[k[i].i] = ngroups;
		g->vnum[i] = SIZE_MAX;
	}
	free(k);
	return XP_E_OK;
}

/* The vertex of the call site at pos, made when new. */
static size_t vertex_of(rctx *c, size_t pos)
{
	graph *g = &c->g;
	size_t *vn = &g->vnum[g->group[pos]];

	if (*vn == SIZE_MAX) {
		const xp_mpatrol_site *s = site(c, pos);
		gvert *v = &g->v[g->nv];

		v->by_addr = c->addresses || s->symbol == 0;
		v->key = v->by_addr ? s->addr : s->symbol;
		v->pos = pos;
		*vn = g->nv++;
	}
	return *vn;
}

static int push(size_t **a, size_t *n, size_t *cap, size_t x)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 4;
		size_t *q = realloc(*a, nc * sizeof *q);
		if (q == NULL)
			return -1;
		*a = q;
		*cap = nc;
	}
	(*a)[(*n)++] = x;
	return 0;
}

/* The number of the edge from -> to, made when new; SIZE_MAX when out of
 * memory. */
static size_t edge_of(rctx *c, size_t from, size_t to)
{
	graph *g = &c->g;
	xp_mpatrol_report *r = c->r;
	size_t e;

	if (to != V_END) {
		const gvert *t = &g->v[to];
		for (size_t i = 0; i < t->npar; i++)
			if (g->from[t->par[i]] == from)
				return t->par[i];
	} else {
		const gvert *f = &g->v[from];
		for (size_t i = 0; i < f->nchl; i++)
			if (g->to[f->chl[i]] == V_END)
				return f->chl[i];
	}
	if (r->ne == g->ecap) {
		size_t cap = g->ecap ? g->ecap * 2 : 16;
		xp_mpatrol_edge *q = realloc(r->e, cap * sizeof *q);
		size_t *f, *t;

		if (q == NULL)
			return SIZE_MAX;
		r->e = q;
		if ((f = realloc(g->from, cap * sizeof *f)) == NULL)
			return SIZE_MAX;
		g->from = f;
		if ((t = realloc(g->to, cap * sizeof *t)) == NULL)
			return SIZE_MAX;
		g->to = t;
		g->ecap = cap;
	}
	e = r->ne;
	memset(&r->e[e], 0, sizeof r->e[e]);
	g->from[e] = from;
	g->to[e] = to;
	if (to != V_END && push(&g->v[to].par, &g->v[to].npar,
	                        &g->v[to].parcap, e) != 0)
		return SIZE_MAX;
	if (from != V_START && push(&g->v[from].chl, &g->v[from].nchl,
	                            &g->v[from].chlcap, e) != 0)
		return SIZE_MAX;
	r->ne++;
	return e;
}

/* Adds d along the stack of the call site at n (step 4 above). */
static xp_err add_stack(rctx *c, size_t n, const xp_mpatrol_sums *d)
{
	graph *g = &c->g;
	xp_mpatrol_edge *ev = NULL;
	size_t p = n, u = vertex_of(c, p), v = u, e;

	if ((e = edge_of(c, u, V_END)) == SIZE_MAX)
		return XP_E_NOMEM;
	sums_sum(&c->r->e[e].sums, d);
	g->v[u].mark = 1;
	while ((p = parent_pos(c, p)) != SIZE_MAX) {
		v = vertex_of(c, p);
		if ((e = edge_of(c, v, u)) == SIZE_MAX)
			return XP_E_NOMEM;
		ev = &c->r->e[e];
		if (g->v[v].mark) {
			ev->cycle = 1;
		} else {
			sums_sum(&ev->sums, d);
			g->v[v].mark = 1;
		}
		u = v;
	}
	if ((e = edge_of(c, V_START, v)) == SIZE_MAX)
		return XP_E_NOMEM;
	sums_sum(&c->r->e[e].sums, d);
	for (p = n; p != SIZE_MAX; p = parent_pos(c, p))
		g->v[vertex_of(c, p)].mark = 0;
	return XP_E_OK;
}

static xp_err build_graph(rctx *c)
{
	xp_err err = group_sites(c);

	if (err != XP_E_OK)
		return err;
	memset(c->taken, 0, c->n);
	for (size_t k = 0; k < c->n; k++) {
		size_t n = c->order[k];
		const xp_mpatrol_data *dt = site_data(c, n);
		xp_mpatrol_sums d;

		if (dt == NULL || c->taken[n])
			continue;
		memset(&d, 0, sizeof d);
		sums_add(&d, dt);
		for (size_t q = k + 1; q < c->n && same_fn(c, n, c->order[q]);
		     q++) {
			size_t pp = c->order[q];
			const xp_mpatrol_data *x = site_data(c, pp);
			if (x != NULL && !c->taken[pp] &&
			    same_stack(c, n, pp, 1)) {
				sums_add(&d, x);
				c->taken[pp] = 1;
			}
		}
		if ((err = add_stack(c, n, &d)) != XP_E_OK)
			return err;
	}
	memset(c->taken, 0, c->n);
	return XP_E_OK;
}

/* The public vertices (by index) and edges of the graph built. */
static xp_err finish_graph(rctx *c)
{
	graph *g = &c->g;
	xp_mpatrol_report *r = c->r;
	sortkey *k = malloc((g->nv ? g->nv : 1) * sizeof *k);
	size_t *index = malloc((g->nv ? g->nv : 1) * sizeof *index), na = 0;
	xp_err err = XP_E_NOMEM;

	r->v = calloc(g->nv ? g->nv : 1, sizeof *r->v);
	r->adj = malloc((r->ne ? 2 * r->ne : 1) * sizeof *r->adj);
	if (k == NULL || index == NULL || r->v == NULL || r->adj == NULL)
		goto out;
	for (size_t i = 0; i < g->nv; i++) {
		k[i].key = g->v[i].key;
		k[i].kind = g->v[i].by_addr;
		k[i].i = i;
	}
	xp_qsort(k, g->nv, sizeof *k, by_sortkey);
	for (size_t i = 0; i < g->nv; i++)
		index[k[i].i] = i + 1;
	for (size_t i = 0; i < g->nv; i++) {
		const gvert *gv = &g->v[k[i].i];
		xp_mpatrol_vertex *v = &r->v[i];

		v->index = i + 1;
		v->key = gv->key;
		v->key_is_addr = gv->by_addr;
		v->site = site(c, gv->pos)->index;
		v->parents = r->adj + na;
		v->nparents = gv->npar;
		memcpy(r->adj + na, gv->par, gv->npar * sizeof *gv->par);
		na += gv->npar;
		v->children = r->adj + na;
		v->nchildren = gv->nchl;
		memcpy(r->adj + na, gv->chl, gv->nchl * sizeof *gv->chl);
		na += gv->nchl;
	}
	for (size_t i = 0; i < r->ne; i++) {
		r->e[i].from = g->from[i] == V_START ? 0 : index[g->from[i]];
		r->e[i].to = g->to[i] == V_END ? 0 : index[g->to[i]];
		sums_unfreed(&r->e[i].sums);
	}
	r->nv = g->nv;
	err = XP_E_OK;
out:
	free(k);
	free(index);
	return err;
}

static void free_graph(graph *g)
{
	for (size_t i = 0; i < g->nv; i++) {
		free(g->v[i].par);
		free(g->v[i].chl);
	}
	XP_FREE(g->v, g->group, g->vnum, g->from, g->to);
}

/* ------------------------------------------------------------------ */
/* The report                                                          */
/* ------------------------------------------------------------------ */

static xp_err compute(rctx *c, int call_graph)
{
	xp_err err;

	if ((err = order_sites(c)) != XP_E_OK ||
	    (err = bins(c)) != XP_E_OK ||
	    (err = direct_rows(c)) != XP_E_OK ||
	    (err = leak_rows(c)) != XP_E_OK)
		return err;
	if (call_graph && ((err = build_graph(c)) != XP_E_OK ||
	                   (err = finish_graph(c)) != XP_E_OK))
		return err;
	return name_all(c);
}

xp_err xp_mpatrol_report_new(const xp_mpatrol *m,
                             const xp_mpatrol_report_opts *o,
                             xp_mpatrol_report **out, xp_diags *d)
{
	static const xp_mpatrol_report_opts none;
	size_t n = m->nsites ? m->nsites : 1;
	rctx c;
	xp_err err = XP_E_NOMEM;

	(void)d;
	*out = NULL;
	if (o == NULL)
		o = &none;
	memset(&c, 0, sizeof c);
	c.m = m;
	c.n = m->nsites;
	c.addresses = o->addresses;
	c.counts = o->counts;
	c.maxstack = o->stack_depth_given ? o->stack_depth : 1;
	if ((c.r = calloc(1, sizeof *c.r)) == NULL)
		return XP_E_NOMEM;
	c.r->counts = c.counts;
	c.r->maxstack = c.maxstack;
	c.r->nsites = c.n;
	c.order = malloc(n * sizeof *c.order);
	c.taken = calloc(n, 1);
	c.name = calloc(n, sizeof *c.name);
	c.r->sites = malloc(n * sizeof *c.r->sites);
	if (c.order != NULL && c.taken != NULL && c.name != NULL &&
	    c.r->sites != NULL)
		err = compute(&c, o->call_graph);
	free_graph(&c.g);
	XP_FREE(c.order, c.taken, c.name, c.direct_pos, c.frame_pos);
	if (err != XP_E_OK) {
		xp_mpatrol_report_free(c.r);
		return err;
	}
	*out = c.r;
	return XP_E_OK;
}

void xp_mpatrol_report_free(xp_mpatrol_report *r)
{
	if (r == NULL)
		return;
	xp_strpool_free(&r->names);
	XP_FREE(r->sites, r->bins, r->direct, r->leaks, r->frames, r->v, r->e,
	        r->adj, r);
}

int xp_mpatrol_report_by_counts(const xp_mpatrol_report *r)
{
	return r->counts;
}

uint64_t xp_mpatrol_report_stack_depth(const xp_mpatrol_report *r)
{
	return r->maxstack;
}

const xp_mpatrol_totals *xp_mpatrol_report_totals(const xp_mpatrol_report *r)
{
	return &r->tot;
}

size_t xp_mpatrol_report_nsites(const xp_mpatrol_report *r)
{
	return r->nsites;
}

uint64_t xp_mpatrol_report_site(const xp_mpatrol_report *r, size_t i)
{
	return i < r->nsites ? r->sites[i] : 0;
}

size_t xp_mpatrol_report_nbins(const xp_mpatrol_report *r)
{
	return r->nbins;
}

const xp_mpatrol_bin *xp_mpatrol_report_bin(const xp_mpatrol_report *r,
                                            size_t i)
{
	return i < r->nbins ? &r->bins[i] : NULL;
}

size_t xp_mpatrol_report_ndirect(const xp_mpatrol_report *r)
{
	return r->ndirect;
}

const xp_mpatrol_direct *xp_mpatrol_report_direct(const xp_mpatrol_report *r,
                                                  size_t i)
{
	return i < r->ndirect ? &r->direct[i] : NULL;
}

const xp_mpatrol_sums *xp_mpatrol_report_direct_total(
	const xp_mpatrol_report *r)
{
	return &r->direct_total;
}

size_t xp_mpatrol_report_nleaks(const xp_mpatrol_report *r)
{
	return r->nleaks;
}

const xp_mpatrol_leak *xp_mpatrol_report_leak(const xp_mpatrol_report *r,
                                              size_t i)
{
	return i < r->nleaks ? &r->leaks[i] : NULL;
}

size_t xp_mpatrol_report_nvertices(const xp_mpatrol_report *r)
{
	return r->nv;
}

const xp_mpatrol_vertex *xp_mpatrol_report_vertex(const xp_mpatrol_report *r,
                                                  size_t i)
{
	return i < r->nv ? &r->v[i] : NULL;
}

size_t xp_mpatrol_report_nedges(const xp_mpatrol_report *r)
{
	return r->ne;
}

const xp_mpatrol_edge *xp_mpatrol_report_edge(const xp_mpatrol_report *r,
                                              size_t i)
{
	return i < r->ne ? &r->e[i] : NULL;
}

/* ------------------------------------------------------------------ */
/* The module's report entry                                           */
/* ------------------------------------------------------------------ */

xp_err xp_mp_report_new(const void *m, const xp_report_opts *o, const char *name,
                    void **handle, const void **model, xp_diags *d)
{
	xp_mpatrol_report_opts ro;
	xp_mpatrol_report *r = NULL;
	xp_err err;

	(void)name;
	memset(&ro, 0, sizeof ro);
	ro.addresses = o->lines;
	ro.counts = o->counts;
	ro.call_graph = o->call_graph;
	ro.stack_depth_given = o->stack_depth_given;
	ro.stack_depth = o->stack_depth;
	err = xp_mpatrol_report_new(m, &ro, &r, d);
	*handle = r;
	*model = r;
	return err;
}

void xp_mp_report_free(void *handle)
{
	xp_mpatrol_report_free(handle);
}
