/*
 * export/callgrind.c - the callgrind format (valgrind's "Callgrind
 * Format Specification"), which KCachegrind and callgrind_annotate read.
 *
 * One event per sample type (events:), positions are source lines.  A
 * function (ob=, fl=, fn=: its object, file and name, "???" for an
 * unknown file) has its self cost at each line: the samples whose leaf
 * is that function at that line (for a location with inlined calls, the
 * innermost).  Its calls (cob=, cfi=, cfn=, calls=COUNT 0, then the
 * line of the call and the inclusive cost) come from the arcs of the
 * profile when it has any (gprof's call graph: the arc's count and the
 * time gprof propagates along it), otherwise from the stacks: every pair
 * of adjacent frames of a sample is a call from the outer one's line,
 * whose cost is the sample's, once per sample however often the stack
 * repeats the pair, and whose count is the value of the main sample type
 * (samples, allocations) of those samples.  No summary line is written:
 * readers add the self costs up.  Functions come sorted by name, file
 * and object; lines and calls by line.
 */
#include <inttypes.h>
#include <stdio.h>

#include "export/xs.h"

typedef struct {
	const char *name, *file, *obj;
	size_t ln;          /* the line of x->ln */
} fkey;

static int by_fkey(const void *a, const void *b)
{
	const fkey *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c == 0)
		c = strcmp(x->file, y->file);
	if (c == 0)
		c = strcmp(x->obj, y->obj);
	return c;
}

/* A cost at a line of a function: self (callee SIZE_MAX) or of a call. */
typedef struct {
	size_t fn, line, callee;
	size_t sample;      /* stacks: counted once per sample */
	uint64_t calls;
	uint64_t v[XP_XS_MAXV];
} cost;

static int by_cost(const void *a, const void *b)
{
	const cost *x = a, *y = b;

	if (x->fn != y->fn)
		return x->fn < y->fn ? -1 : 1;
	if (x->callee != y->callee)    /* self (SIZE_MAX) after the calls */
		return x->callee < y->callee ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->sample < y->sample ? -1 : x->sample > y->sample;
}

typedef struct {
	const xp_xs *x;
	size_t *lnfn;        /* per line of x->ln: its function */
	fkey *fk;            /* functions by id (fk[id].ln: one line of it) */
	size_t nfn;
	cost *c;
	size_t nc, cap;
} cg;

static const char *or_unknown(const xp_xs *x, uint32_t id)
{
	return id == XP_XS_NONE ? "???" : xp_xs_s(x, id);
}

/* Every line's function: (name, file, object) numbered in sorted order. */
static xp_err functions(cg *g)
{
	const xp_xs *x = g->x;
	fkey *k = malloc((x->nln ? x->nln : 1) * sizeof *k);

	g->lnfn = malloc((x->nln ? x->nln : 1) * sizeof *g->lnfn);
	if (k == NULL || g->lnfn == NULL) {
		free(k);
		return XP_E_NOMEM;
	}
	for (size_t l = 0; l < x->nloc; l++)
		for (size_t j = 0; j < x->loc[l].n; j++) {
			size_t i = x->loc[l].first + j;
			k[i] = (fkey){xp_xs_s(x, x->ln[i].name),
			              or_unknown(x, x->ln[i].file),
			              or_unknown(x, x->loc[l].obj), i};
		}
	xp_qsort(k, x->nln, sizeof *k, by_fkey);
	g->nfn = 0;
	for (size_t i = 0; i < x->nln; i++) {
		if (g->nfn == 0 || by_fkey(&k[g->nfn - 1], &k[i]) != 0)
			k[g->nfn++] = k[i];
		g->lnfn[k[i].ln] = g->nfn - 1;
	}
	g->fk = k;
	return XP_E_OK;
}

static xp_err add(cg *g, const cost *c)
{
	xp_err err = xp_grow(&g->c, &g->cap, g->nc, sizeof *g->c);

	if (err != XP_E_OK)
		return err;
	g->c[g->nc++] = *c;
	return XP_E_OK;
}

/* Self costs, and the calls of the stacks when there are no arcs. */
static xp_err from_samples(cg *g)
{
	const xp_xs *x = g->x;
	xp_err err = XP_E_OK;

	for (size_t i = 0; i < x->ns && err == XP_E_OK; i++) {
		const xp_xs_sample *s = &x->s[i];
		cost c = {0, 0, SIZE_MAX, i, 0, {0}};
		size_t prev = SIZE_MAX;       /* the frame inside this one */

		memcpy(c.v, s->v, sizeof c.v);
		if (s->n == 0)
			continue;
		for (size_t k = 0; k < s->n && err == XP_E_OK; k++) {
			const xp_xs_loc *l = &x->loc[x->stk[s->first + k]];
			for (size_t j = 0; j < l->n && err == XP_E_OK; j++) {
				size_t li = l->first + j;
				c.fn = g->lnfn[li];
				c.line = x->ln[li].line;
				if (prev == SIZE_MAX) {
					c.callee = SIZE_MAX;
					err = add(g, &c);
				} else if (x->stacks && x->narc == 0) {
					c.callee = prev;
					c.calls = s->v[x->main];
					err = add(g, &c);
				}
				prev = c.fn;
			}
			if (!x->stacks)
				break;
		}
	}
	return err;
}

static xp_err from_arcs(cg *g)
{
	const xp_xs *x = g->x;
	xp_err err = XP_E_OK;

	for (size_t i = 0; i < x->narc && err == XP_E_OK; i++) {
		const xp_xs_arc *a = &x->arc[i];
		const xp_xs_loc *from = &x->loc[a->caller];
		const xp_xs_loc *to = &x->loc[a->callee];
		size_t lf = from->first + from->n - 1;
		cost c = {g->lnfn[lf], x->ln[lf].line,
		          g->lnfn[to->first + to->n - 1], i, a->calls, {0}};

		memcpy(c.v, a->v, sizeof c.v);
		err = add(g, &c);
	}
	return err;
}

static void put_costs(xp_wbuf *w, const xp_xs *x, size_t line,
                      const uint64_t *v)
{
	char buf[32];
	int n = snprintf(buf, sizeof buf, "%zu", line);

	xp_wbuf_write(w, buf, (size_t)n);
	for (unsigned i = 0; i < x->nv; i++) {
		n = snprintf(buf, sizeof buf, " %" PRIu64, v[i]);
		xp_wbuf_write(w, buf, (size_t)n);
	}
	xp_wbuf_write(w, "\n", 1);
}

static void put_kv(xp_wbuf *w, const char *k, const char *v)
{
	xp_wbuf_write(w, k, strlen(k));
	xp_wbuf_write(w, v, strlen(v));
	xp_wbuf_write(w, "\n", 1);
}

/* c[0..n) summed into one cost: a sample counts once per call. */
static void sum_run(const xp_xs *x, const cost *c, size_t n, cost *out)
{
	*out = c[0];
	for (size_t i = 1; i < n; i++) {
		if (c[i].callee != SIZE_MAX && x->narc == 0 &&
		    c[i].sample == c[i - 1].sample)
			continue;
		out->calls = xp_sat_add(out->calls, c[i].calls);
		for (unsigned k = 0; k < x->nv; k++)
			out->v[k] = xp_sat_add(out->v[k], c[i].v[k]);
	}
}

static void put_all(cg *g, xp_wbuf *w)
{
	const xp_xs *x = g->x;
	size_t cur = SIZE_MAX;

	for (size_t i = 0; i < g->nc;) {
		size_t e = i + 1;
		cost s;
		char buf[48];

		while (e < g->nc && g->c[e].fn == g->c[i].fn &&
		       g->c[e].callee == g->c[i].callee &&
		       g->c[e].line == g->c[i].line)
			e++;
		sum_run(x, &g->c[i], e - i, &s);
		if (s.fn != cur) {
			const fkey *f = &g->fk[s.fn];
			xp_wbuf_write(w, "\n", 1);
			put_kv(w, "ob=", f->obj);
			put_kv(w, "fl=", f->file);
			put_kv(w, "fn=", f->name);
			cur = s.fn;
		}
		if (s.callee != SIZE_MAX) {
			const fkey *f = &g->fk[s.callee];
			put_kv(w, "cob=", f->obj);
			put_kv(w, "cfi=", f->file);
			put_kv(w, "cfn=", f->name);
			int n = snprintf(buf, sizeof buf, "calls=%" PRIu64 " 0\n",
			                 s.calls);
			xp_wbuf_write(w, buf, (size_t)n);
		}
		put_costs(w, x, s.line, s.v);
		i = e;
	}
}

xp_err xp_xs_callgrind(const xp_xs *x, const char *name, xp_wbuf *w,
                       xp_diags *d)
{
	cg g = {x, NULL, NULL, 0, NULL, 0, 0};
	xp_err err;

	(void)d;
	if ((err = functions(&g)) == XP_E_OK &&
	    (err = from_samples(&g)) == XP_E_OK)
		err = from_arcs(&g);
	if (err == XP_E_OK) {
		xp_qsort(g.c, g.nc, sizeof *g.c, by_cost);
		put_kv(w, "# callgrind format", "");
		put_kv(w, "version: 1", "");
		put_kv(w, "creator: xprof", "");
		put_kv(w, "cmd: ", name);
		put_kv(w, "positions: line", "");
		xp_wbuf_write(w, "events:", 7);
		for (unsigned i = 0; i < x->nv; i++) {
			xp_wbuf_write(w, " ", 1);
			xp_wbuf_write(w, x->vevent[i], strlen(x->vevent[i]));
		}
		xp_wbuf_write(w, "\n", 1);
		put_all(&g, w);
	}
	XP_FREE(g.lnfn, g.fk, g.c);
	return err;
}
