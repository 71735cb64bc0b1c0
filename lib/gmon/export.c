/*
 * gmon/export.c - a gmon.out for the exports (export/xs.h, gmon(5),
 * EXPORTS), from gprof's analysis (report.c): one location per function
 * of gprof's symbol table, named as gprof names it (demangled).
 *
 * Samples are the histogram's, per function as the flat profile credits
 * them (rounded to whole samples, the largest remainders first, so that
 * they add up to the flat profile's total), with their time; arcs are the
 * call graph's, with their counts and the time gprof propagates along
 * them (the callee's self and child shares).
 *
 * gmon.out records no call stacks; folded stacks are the chains gprof's
 * graph implies: each function's samples go to its callers in proportion
 * to their calls, as gprof shares time, and on up to functions nobody
 * called; a cycle is one frame, "<cycle N as a whole>", above its
 * members, and its callers share what its members take.
 */
#include <stdio.h>

#include "gmon/gmon.h"

/* The most call chains folded stacks take from one call graph. */
#define MAX_CHAINS ((size_t)1 << 20)

/* A chain found: its slice of gx.stk and its samples. */
typedef struct {
	size_t off, len;
	double w;
} chain;

typedef struct {
	const xp_gmon_analysis *a;
	const char *exe;
	xp_xs *x;
	size_t *fnloc, *cycloc;    /* locations, SIZE_MAX: none yet */
	unsigned char *onpath;     /* functions, then cycles */
	size_t *path, depth;       /* the chain so far, leaf first */
	size_t *stk;               /* every chain found, one after another */
	size_t nstk, stkcap;
	chain *ch;
	size_t nch, chcap;
	xp_err err;
} gx;

static size_t fn_loc(gx *g, size_t f)
{
	const xp_gmon_fn *fn = &g->a->fns[f];

	if (g->fnloc[f] == SIZE_MAX && g->err == XP_E_OK)
		g->err = xp_xs_func(g->x, fn->demangled != NULL ?
		                    fn->demangled : fn->name, fn->file, 0,
		                    g->exe, &g->fnloc[f]);
	return g->fnloc[f];
}

static size_t cycle_loc(gx *g, size_t c)
{
	char buf[48];

	snprintf(buf, sizeof buf, "<cycle %u as a whole>",
	         (unsigned)g->a->cycles[c].number);
	if (g->cycloc[c] == SIZE_MAX && g->err == XP_E_OK)
		g->err = xp_xs_func(g->x, buf, NULL, 0, g->exe, &g->cycloc[c]);
	return g->cycloc[c];
}

/* The index in cycles of cycle number n, or SIZE_MAX. */
static size_t cycle_of(const xp_gmon_analysis *a, uint32_t n)
{
	for (size_t c = 0; n != 0 && c < a->n_cycles; c++)
		if (a->cycles[c].number == n)
			return c;
	return SIZE_MAX;
}

/* Keeps the chain g->path[0..depth) with w samples. */
static void keep(gx *g, double w)
{
	if (g->err != XP_E_OK)
		return;
	if (g->nch == MAX_CHAINS) {
		g->err = XP_E_LIMIT;
		return;
	}
	if ((g->err = xp_grow(&g->ch, &g->chcap, g->nch,
	                         sizeof *g->ch)) != XP_E_OK)
		return;
	for (size_t i = 0; i < g->depth && g->err == XP_E_OK; i++)
		if ((g->err = xp_grow(&g->stk, &g->stkcap, g->nstk,
		                         sizeof *g->stk)) == XP_E_OK)
			g->stk[g->nstk++] = g->path[i];
	g->ch[g->nch++] = (chain){g->nstk - g->depth, g->depth, w};
}

static void climb(gx *g, size_t f, double w);

/* The callers of function f (its cycle's when cyc != SIZE_MAX) share w:
 * each arc from a function not on the chain, by its count. */
static void share(gx *g, size_t f, size_t cyc, double w)
{
	const xp_gmon_analysis *a = g->a;
	size_t nm = cyc == SIZE_MAX ? 1 : a->cycles[cyc].n_members;
	uint64_t total = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (size_t m = 0; m < nm && g->err == XP_E_OK; m++) {
			size_t mf = cyc == SIZE_MAX ? f
			          : a->members[a->cycles[cyc].first_member + m];
			const xp_gmon_fn *fn = &a->fns[mf];
			for (size_t j = 0; j < fn->n_parents; j++) {
				const xp_gmon_farc *arc =
					&a->arcs[a->parent_arcs[fn->first_parent + j]];
				const xp_gmon_fn *p = &a->fns[arc->parent];
				size_t pc = cycle_of(a, p->cycle);
				if (arc->parent == mf || arc->count == 0 ||
				    g->onpath[arc->parent] ||
				    (cyc != SIZE_MAX && pc == cyc) ||
				    (pc != SIZE_MAX && g->onpath[a->n_fns + pc]))
					continue;
				if (pass == 0)
					total += arc->count;
				else
					climb(g, arc->parent, w * (double)arc->count /
					                      (double)total);
			}
		}
		if (total == 0) {
			keep(g, w);
			return;
		}
	}
}

/* The chain goes on into function f (and its cycle), with w samples. */
static void climb(gx *g, size_t f, double w)
{
	size_t c = cycle_of(g->a, g->a->fns[f].cycle);
	size_t d0 = g->depth;

	if (g->err != XP_E_OK)
		return;
	g->path[g->depth++] = fn_loc(g, f);
	g->onpath[f] = 1;
	if (c != SIZE_MAX) {
		g->path[g->depth++] = cycle_loc(g, c);
		g->onpath[g->a->n_fns + c] = 1;
	}
	share(g, f, c, w);
	g->onpath[f] = 0;
	if (c != SIZE_MAX)
		g->onpath[g->a->n_fns + c] = 0;
	g->depth = d0;
}

/* The samples of every function of the flat profile into x: whole
 * chains (folded) or the function alone. */
static xp_err samples(gx *g, int chains, double ns)
{
	const xp_gmon_analysis *a = g->a;
	uint64_t *v = NULL;
	xp_err err = XP_E_OK;

	for (size_t i = 0; i < a->n_flat && g->err == XP_E_OK; i++) {
		size_t f = a->flat[i];
		if (a->fns[f].samples <= 0)
			continue;
		if (chains) {
			climb(g, f, a->fns[f].samples);
		} else {
			g->path[0] = fn_loc(g, f);
			g->depth = 1;
			keep(g, a->fns[f].samples);
			g->depth = 0;
		}
	}
	if (g->err != XP_E_OK)
		return g->err;
	double *w = malloc((g->nch ? g->nch : 1) * sizeof *w);
	if ((v = malloc((g->nch ? g->nch : 1) * sizeof *v)) == NULL ||
	    w == NULL) {
		XP_FREE(v, w);
		return XP_E_NOMEM;
	}
	for (size_t i = 0; i < g->nch; i++)
		w[i] = g->ch[i].w;
	err = xp_xs_round(w, g->nch, v);
	for (size_t i = 0; i < g->nch && err == XP_E_OK; i++) {
		uint64_t vv[2] = {v[i], (uint64_t)((double)v[i] * ns + 0.5)};
		if (v[i] != 0)
			err = xp_xs_sample_add(g->x, g->stk + g->ch[i].off,
			                       g->ch[i].len, vv);
	}
	XP_FREE(v, w);
	return err;
}

static xp_err arcs(gx *g, double ns)
{
	const xp_gmon_analysis *a = g->a;
	xp_err err = XP_E_OK;

	for (size_t i = 0; i < a->n_arcs && err == XP_E_OK; i++) {
		const xp_gmon_farc *arc = &a->arcs[i];
		double t = arc->time + arc->child_time;
		uint64_t v[2] = {(uint64_t)(t + 0.5), (uint64_t)(t * ns + 0.5)};
		size_t from = fn_loc(g, arc->parent), to = fn_loc(g, arc->child);
		if ((err = g->err) == XP_E_OK)
			err = xp_xs_arc_add(g->x, from, to, arc->count, v);
	}
	return err;
}

static xp_err build(gx *g, xp_export_kind k)
{
	const xp_gmon_analysis *a = g->a;
	double ns = a->hz > 0 ? 1e9 / a->hz : 0;
	size_t n = a->n_fns + a->n_cycles;

	g->fnloc = malloc((a->n_fns + 1) * sizeof *g->fnloc);
	g->cycloc = malloc((a->n_cycles + 1) * sizeof *g->cycloc);
	g->onpath = calloc(n + 1, 1);
	g->path = malloc((2 * n + 2) * sizeof *g->path);
	if (g->fnloc == NULL || g->cycloc == NULL || g->onpath == NULL ||
	    g->path == NULL)
		return XP_E_NOMEM;
	memset(g->fnloc, 0xff, (a->n_fns + 1) * sizeof *g->fnloc);
	memset(g->cycloc, 0xff, (a->n_cycles + 1) * sizeof *g->cycloc);
	xp_xs_type(g->x, 0, "samples", "count", "Samples");
	xp_xs_type(g->x, 1, "cpu", "nanoseconds", "Nanoseconds");
	if (ns > 0) {
		g->x->ptype = "cpu";
		g->x->punit = "nanoseconds";
		g->x->period = (uint64_t)(ns + 0.5);
	}
	g->x->what = "a gmon.out";
	g->x->stacks = k == XP_EXPORT_FOLDED;
	xp_err err = samples(g, k == XP_EXPORT_FOLDED, ns);
	if (err == XP_E_OK && k != XP_EXPORT_FOLDED)
		err = arcs(g, ns);
	return err;
}

xp_err xp_gmon_export(const void *m, xp_export_kind k,
                      const xp_export_opts *o, const char *name, xp_xs *x,
                      xp_diags *d)
{
	xp_report_opts ro = { .exe = o->exe };
	void *handle = NULL;
	const void *model = NULL;
	gx g;
	xp_err err;

	memset(&g, 0, sizeof g);
	if ((err = xp_gmon_report_new(m, &ro, name, &handle, &model, d)) != 0)
		return err;
	g.a = model;
	g.exe = o->exe;
	g.x = x;
	err = build(&g, k);
	if (err == XP_E_LIMIT)
		err = xp_diag_file(d, XP_E_LIMIT, name, "gprof's call graph "
		                   "gives more than %zu call chains to fold",
		                   MAX_CHAINS);
	XP_FREE(g.fnloc, g.cycloc, g.onpath, g.path, g.stk, g.ch);
	xp_gmon_report_free(handle);
	return err;
}
