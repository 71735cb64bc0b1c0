/*
 * gcov/graph.c - the flow graphs of a notes file with the arc counters
 * of a data file, solved, and the line counts that gcov(1) makes of
 * them (gcov(5), CONVERSION TO FEEDBACK).
 *
 * Per function of the notes: its blocks, its arcs (the counters of the
 * data file count the arcs that are not on the spanning tree, block by
 * block in block order and, within a block, in the order of its ARCS
 * record) and its block locations (the LINES records).  Solving
 * propagates the counts through the graph as gcov does: a block whose
 * arcs out (or in) are all known counts their sum, and a known block
 * with one unknown arc out (or in) gives that arc the difference.  The
 * entry block never counts its arcs in, the exit block never its arcs
 * out.
 *
 * Line counts follow gcov: every line of a block's location counts the
 * block (summed over blocks), and the block is listed on the last line
 * of each of its locations (the lines of a location sorted, the entry
 * block and the last block left out).  A line with listed blocks then
 * counts the arcs that enter those blocks from blocks not listed, plus
 * the executions of the loops made of listed blocks only, which the
 * elementary circuits of that small graph give (the method of Hawick
 * and James: each circuit found takes its smallest arc count, which is
 * subtracted from its arcs).  Artificial functions have no lines, and
 * neither do functions without counters when there is data.
 */
#include <stdio.h>

#include "gcov/gcov.h"

/* gcov's mark for "the arcs of this side are never all known". */
#define NEVER ((int64_t)0xffffffff)

void xp_gcov_graph_free(xp_gcov_graph *gr)
{
	if (gr == NULL)
		return;
	for (size_t i = 0; i < gr->n_fns; i++) {
		xp_gcov_gfn *f = &gr->fns[i];
		XP_FREE(f->blk, f->arc, f->succ, f->pred, f->loc);
	}
	for (size_t i = 0; i < gr->n_srcs; i++) {
		for (size_t l = 0; l < gr->srcs[i].n_lines; l++)
			free(gr->srcs[i].lines[l].blocks);
		free(gr->srcs[i].lines);
	}
	XP_FREE(gr->fns, gr->srcs, gr->store, gr);
}

/* The index of source file name (NULL: gcov's "<unknown>"), added when
 * new; SIZE_MAX when out of memory. */
static size_t source_of(xp_gcov_graph *gr, const char *name)
{
	if (name == NULL)
		name = "<unknown>";
	for (size_t i = 0; i < gr->n_srcs; i++)
		if (strcmp(gr->srcs[i].name, name) == 0)
			return i;
	if (xp_grow(&gr->srcs, &gr->cap_srcs, gr->n_srcs,
	                  sizeof *gr->srcs))
		return SIZE_MAX;
	memset(&gr->srcs[gr->n_srcs], 0, sizeof *gr->srcs);
	gr->srcs[gr->n_srcs].name = name;
	return gr->n_srcs++;
}

static int cmp_u32(const void *l, const void *r)
{
	uint32_t a = *(const uint32_t *)l, b = *(const uint32_t *)r;
	return a < b ? -1 : a > b;
}

/* The locations of one LINES record (block blk, items [i0, i0 + n)). */
static xp_err add_locations(xp_gcov_graph *gr, xp_gcov_gfn *f,
                            const xp_gcov *nt, uint32_t blk, size_t i0,
                            size_t n)
{
	xp_gcov_loc *cur = NULL;

	for (size_t i = i0; i < i0 + n; i++) {
		const xp_gcov_item *it = &nt->items[i];
		if (it->line == 0 && it->file == NULL)
			break;
		if (it->line == 0) {
			size_t s = source_of(gr, it->file);
			if (s == SIZE_MAX ||
			    xp_grow(&f->loc, &f->cap_loc,
			                  f->n_loc, sizeof *f->loc))
				return XP_E_NOMEM;
			cur = &f->loc[f->n_loc++];
			cur->block = blk;
			cur->src = s;
			cur->first = i + 1;
			cur->n = 0;
		} else if (cur != NULL) {
			cur->n++;
		}
	}
	return XP_E_OK;
}

static int cmp_loc(const void *l, const void *r)
{
	const xp_gcov_loc *a = l, *b = r;
	if (a->block != b->block)
		return a->block < b->block ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

static int cmp_arc(const void *l, const void *r)
{
	const xp_gcov_garc *a = l, *b = r;
	if (a->src != b->src)
		return a->src < b->src ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/*
 * The function of the notes whose records are [r0, r1): blocks, arcs
 * (by source block, then in file order; counters numbered in that
 * order) and locations (by block).  Lines of a location are sorted.
 */
static xp_err read_fn(xp_gcov_graph *gr, const xp_gcov *nt, size_t r0,
                      size_t r1, const char *name, xp_diags *d)
{
	xp_gcov_gfn *f = &gr->fns[gr->n_fns];
	size_t na = 0;

	memset(f, 0, sizeof *f);
	f->fn = &nt->fns[nt->recs[r0].index];
	if ((f->src = source_of(gr, f->fn->source)) == SIZE_MAX)
		return XP_E_NOMEM;
	for (size_t i = r0 + 1; i < r1; i++) {
		const xp_gcov_rec *r = &nt->recs[i];
		if (r->type == XP_GCOV_BLOCKS && f->nb == 0)
			f->nb = r->a;
		else if (r->type == XP_GCOV_ARCS)
			na += r->n;
	}
	f->blk = calloc((size_t)f->nb + 1, sizeof *f->blk);
	f->arc = calloc(na + 1, sizeof *f->arc);
	if (f->blk == NULL || f->arc == NULL)
		return XP_E_NOMEM;
	gr->n_fns++;
	for (size_t i = r0 + 1; i < r1; i++) {
		const xp_gcov_rec *r = &nt->recs[i];
		xp_err err;
		if (r->type == XP_GCOV_ARCS) {
			if (r->a >= f->nb || f->blk[r->a].nsuccs > 0)
				goto corrupt;
			for (size_t k = 0; k < r->n; k++) {
				const xp_gcov_arc *a = &nt->arcs[r->index + k];
				xp_gcov_garc *g = &f->arc[f->na];
				if (a->dest >= f->nb)
					goto corrupt;
				g->src = r->a;
				g->dst = a->dest;
				g->flags = a->flags;
				g->order = f->na++;
				f->blk[r->a].nsuccs++;
			}
		} else if (r->type == XP_GCOV_LINES) {
			if (r->a >= f->nb)
				goto corrupt;
			if ((err = add_locations(gr, f, nt, r->a, r->index,
			                         r->n)))
				return err;
		}
	}
	xp_qsort(f->arc, f->na, sizeof *f->arc, cmp_arc);
	for (size_t i = 0; i < f->na; i++)
		if (!(f->arc[i].flags & XP_GCOV_ARC_ON_TREE))
			f->arc[i].counter = (uint32_t)++f->nctr;
	xp_qsort(f->loc, f->n_loc, sizeof *f->loc, cmp_loc);
	return XP_E_OK;
corrupt:
	return xp_diag_file(d, XP_E_CORRUPT, name, "function '%s': an arc or "
	                    "a line names a block it does not have",
	                    f->fn->name ? f->fn->name : "");
}

/* The lines of every location, sorted in place in the notes' items. */
static xp_err sort_lines(xp_gcov_graph *gr, uint32_t **store, size_t *cap)
{
	size_t n = 0;

	for (size_t i = 0; i < gr->n_fns; i++)
		for (size_t k = 0; k < gr->fns[i].n_loc; k++)
			n += gr->fns[i].loc[k].n;
	if ((*store = calloc(n + 1, sizeof **store)) == NULL)
		return XP_E_NOMEM;
	*cap = n;
	n = 0;
	for (size_t i = 0; i < gr->n_fns; i++)
		for (size_t k = 0; k < gr->fns[i].n_loc; k++) {
			xp_gcov_loc *l = &gr->fns[i].loc[k];
			const xp_gcov_item *it = &gr->notes->items[l->first];
			for (size_t j = 0; j < l->n; j++)
				(*store)[n + j] = it[j].line;
			qsort(*store + n, l->n, sizeof **store, cmp_u32);
			l->first = n;
			n += l->n;
		}
	return XP_E_OK;
}

/* ------------------------------------------------------------------ */
/* Counts                                                              */
/* ------------------------------------------------------------------ */

/* The arc counters of the data file's function of f's ident, added. */
static xp_err take_counts(xp_gcov_gfn *f, const xp_gcov *da,
                          const char *name, xp_diags *d, int64_t *ctr)
{
	const xp_gcov_fn *df = NULL;
	const char *fname = f->fn->name ? f->fn->name : "";

	for (size_t i = 0; i < da->n_recs; i++) {
		const xp_gcov_rec *r = &da->recs[i];
		if (r->type == XP_GCOV_FUNCTION) {
			df = &da->fns[r->index];
			if (df->placeholder || df->ident != f->fn->ident) {
				df = NULL;
				continue;
			}
			if (df->lineno_checksum != f->fn->lineno_checksum ||
			    df->cfg_checksum != f->fn->cfg_checksum)
				goto mismatch;
		} else if (df != NULL && r->type == XP_GCOV_COUNTERS &&
		           r->a == XP_GCOV_C_ARCS) {
			if (r->n != f->nctr)
				goto mismatch;
			for (size_t k = 0; !r->zero && k < r->n; k++)
				ctr[k] += (int64_t)da->values[r->index + k];
		}
	}
	return XP_E_OK;
mismatch:
	return xp_diag_file(d, XP_E_INVAL, name, "function '%s' (ident %u) "
	                    "is not the one of its notes: profile mismatch",
	                    fname, f->fn->ident);
}

/* Settles arc k of f with count c; the blocks at its ends are pushed. */
static void settle(xp_gcov_gfn *f, size_t k, int64_t c, uint32_t *stack,
                   size_t *sp)
{
	xp_gcov_garc *a = &f->arc[k];

	a->count = c;
	a->valid = 1;
	f->blk[a->src].nsucc--;
	f->blk[a->dst].npred--;
	stack[(*sp)++] = a->src;
	stack[(*sp)++] = a->dst;
}

/* The one unknown arc of block b's list (succ or pred) and what the
 * block's count leaves for it. */
static size_t unknown_arc(const xp_gcov_gfn *f, const size_t *list,
                          size_t n, int64_t count, int64_t *rest)
{
	size_t which = SIZE_MAX;

	*rest = count;
	for (size_t i = 0; i < n; i++) {
		*rest -= f->arc[list[i]].count;
		if (!f->arc[list[i]].valid)
			which = list[i];
	}
	return which;
}

/* Solves the flow graph of f from its counters ctr. */
static xp_err solve(xp_gcov_gfn *f, const int64_t *ctr)
{
	size_t sp = 0, nb = f->nb;
	uint32_t *stack = malloc((nb + 2 * f->na + 1) * sizeof *stack);
	int64_t rest;

	if (stack == NULL)
		return XP_E_NOMEM;
	for (size_t b = 0; b < nb; b++) {
		f->blk[b].nsucc = (int64_t)f->blk[b].nsuccs;
		f->blk[b].npred = (int64_t)f->blk[b].npreds;
	}
	if (nb >= 2) {
		if (f->blk[0].npred == 0)
			f->blk[0].npred = NEVER;
		if (f->blk[1].nsucc == 0)
			f->blk[1].nsucc = NEVER;
	}
	for (size_t k = 0; k < f->na; k++)
		if (f->arc[k].counter != 0) {
			f->arc[k].count = ctr[f->arc[k].counter - 1];
			f->arc[k].valid = 1;
			f->blk[f->arc[k].src].nsucc--;
			f->blk[f->arc[k].dst].npred--;
		}
	for (size_t b = nb; b-- > 0;)
		stack[sp++] = (uint32_t)b;
	while (sp > 0) {
		uint32_t b = stack[--sp];
		xp_gcov_gblk *k = &f->blk[b];
		const size_t *out = f->succ + k->succ0, *in = f->pred + k->pred0;
		size_t a;
		if (!k->valid && (k->nsucc == 0 || k->npred == 0)) {
			int side_out = k->nsucc == 0;
			k->count = 0;
			for (size_t i = 0; i < (side_out ? k->nsuccs : k->npreds);
			     i++)
				k->count += f->arc[side_out ? out[i] : in[i]].count;
			k->valid = 1;
		}
		if (!k->valid)
			continue;
		if (k->nsucc == 1 &&
		    (a = unknown_arc(f, out, k->nsuccs, k->count, &rest)) !=
		    SIZE_MAX)
			settle(f, a, rest, stack, &sp);
		if (k->npred == 1 &&
		    (a = unknown_arc(f, in, k->npreds, k->count, &rest)) !=
		    SIZE_MAX)
			settle(f, a, rest, stack, &sp);
	}
	free(stack);
	return XP_E_OK;
}

static int cmp_dst(const void *l, const void *r, const xp_gcov_garc *arc)
{
	const xp_gcov_garc *a = &arc[*(const size_t *)l];
	const xp_gcov_garc *b = &arc[*(const size_t *)r];
	if (a->dst != b->dst)
		return a->dst < b->dst ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* The arcs out of each block by destination, the arcs in by file order
 * (gcov's lists). */
static xp_err link_arcs(xp_gcov_gfn *f)
{
	size_t nb = f->nb;

	f->succ = calloc(f->na + 1, sizeof *f->succ);
	f->pred = calloc(f->na + 1, sizeof *f->pred);
	if (f->succ == NULL || f->pred == NULL)
		return XP_E_NOMEM;
	for (size_t k = 0; k < f->na; k++)
		f->blk[f->arc[k].dst].npreds++;
	for (size_t b = 0, s = 0, p = 0; b < nb; b++) {
		f->blk[b].succ0 = s;
		f->blk[b].pred0 = p;
		s += f->blk[b].nsuccs;
		p += f->blk[b].npreds;
		f->blk[b].nsuccs = f->blk[b].npreds = 0;
	}
	/* The arcs in file order: order is a permutation of 0 .. na - 1,
	 * so each arc's index goes where its order says, in succ's room
	 * until succ is filled. */
	for (size_t k = 0; k < f->na; k++)
		f->pred[f->arc[k].order] = k;
	for (size_t o = 0; o < f->na; o++) {
		size_t k = f->pred[o];
		f->succ[o] = k;
	}
	for (size_t o = 0; o < f->na; o++) {
		xp_gcov_gblk *t = &f->blk[f->arc[f->succ[o]].dst];
		f->pred[t->pred0 + t->npreds++] = f->succ[o];
	}
	for (size_t k = 0; k < f->na; k++) {
		xp_gcov_gblk *s = &f->blk[f->arc[k].src];
		f->succ[s->succ0 + s->nsuccs++] = k;
	}
	for (size_t b = 0; b < nb; b++) {
		size_t *v = f->succ + f->blk[b].succ0;
		/* Few arcs: an insertion sort keeps equal ones in order. */
		for (size_t i = 1; i < f->blk[b].nsuccs; i++)
			for (size_t j = i; j > 0 &&
			     cmp_dst(&v[j - 1], &v[j], f->arc) > 0; j--) {
				size_t t = v[j];
				v[j] = v[j - 1];
				v[j - 1] = t;
			}
	}
	return XP_E_OK;
}

/* ------------------------------------------------------------------ */
/* Lines                                                               */
/* ------------------------------------------------------------------ */

/* Lines beyond this are refused: the tables are indexed by number. */
#define MAX_LINE (1u << 24)

/* Line ln of source s, the table grown to hold it; NULL: no memory, or
 * a line number past MAX_LINE. */
static xp_gcov_line *line_at(xp_gcov_graph *gr, size_t s, uint32_t ln)
{
	xp_gcov_src *src = &gr->srcs[s];

	if (ln >= src->n_lines) {
		size_t cap = src->n_lines * 2 > ln ? src->n_lines * 2 : ln + 1;
		xp_gcov_line *v;
		if (ln > MAX_LINE ||
		    (v = realloc(src->lines, cap * sizeof *v)) == NULL)
			return NULL;
		memset(v + src->n_lines, 0, (cap - src->n_lines) * sizeof *v);
		src->lines = v;
		src->n_lines = cap;
	}
	return &src->lines[ln];
}

static xp_err list_block(xp_gcov_line *l, uint32_t fn, uint32_t blk)
{
	if (xp_grow(&l->blocks, &l->cap, l->n_blocks,
	                  sizeof *l->blocks))
		return XP_E_NOMEM;
	l->blocks[l->n_blocks].fn = fn;
	l->blocks[l->n_blocks++].blk = blk;
	return XP_E_OK;
}

/* gcov's add_line_counts for function fi. */
static xp_err add_line_counts(xp_gcov_graph *gr, uint32_t fi)
{
	xp_gcov_gfn *f = &gr->fns[fi];

	for (size_t k = 0, b = 0; b < f->nb; b++) {
		xp_gcov_line *line = NULL;
		int inner = b != 0 && b + 1 != f->nb;
		if (f->blk[b].count != 0 && inner)
			f->blocks_executed++;
		for (; k < f->n_loc && f->loc[k].block == b; k++) {
			const xp_gcov_loc *lc = &f->loc[k];
			for (size_t j = 0; j < lc->n; j++) {
				line = line_at(gr, lc->src,
				               gr->store[lc->first + j]);
				if (line == NULL)
					return XP_E_NOMEM;
				line->exists = 1;
				line->count += f->blk[b].count;
				if (line->owner == 0)
					line->owner = fi + 1;
			}
			if (inner && line != NULL &&
			    list_block(line, fi, (uint32_t)b) != XP_E_OK)
				return XP_E_NOMEM;
		}
	}
	return XP_E_OK;
}

/* Whether block blk of function fn is listed on line l. */
static int on_line(const xp_gcov_line *l, uint32_t fn, uint32_t blk)
{
	for (size_t i = 0; i < l->n_blocks; i++)
		if (l->blocks[i].fn == fn && l->blocks[i].blk == blk)
			return 1;
	return 0;
}

/* A growable list of indexes. */
typedef struct {
	size_t *v;
	size_t n, cap;
} ivec;

static xp_err ivec_push(ivec *x, size_t e)
{
	if (xp_grow(&x->v, &x->cap, x->n, sizeof *x->v))
		return XP_E_NOMEM;
	x->v[x->n++] = e;
	return XP_E_OK;
}

static size_t ivec_find(const ivec *x, size_t e)
{
	for (size_t i = 0; i < x->n; i++)
		if (x->v[i] == e)
			return i;
	return SIZE_MAX;
}

/* The search for circuits through the blocks of one line that start at
 * block start of function f (Hawick and James). */
typedef struct {
	xp_gcov_gfn *f;
	const xp_gcov_line *line;
	uint32_t fn, start;
	ivec path;         /* arcs */
	ivec blocked;      /* blocks, and per blocked block ... */
	ivec *lists;       /* ... the blocks it keeps blocked */
	size_t cap_lists;
	int64_t count;
	xp_err err;
} circ;

static void unblock(circ *c, size_t u)
{
	size_t at = ivec_find(&c->blocked, u);
	ivec held;

	if (at == SIZE_MAX)
		return;
	held = c->lists[at];
	memmove(&c->blocked.v[at], &c->blocked.v[at + 1],
	        (c->blocked.n - at - 1) * sizeof *c->blocked.v);
	memmove(&c->lists[at], &c->lists[at + 1],
	        (c->blocked.n - at - 1) * sizeof *c->lists);
	c->blocked.n--;
	for (size_t i = 0; i < held.n; i++)
		unblock(c, held.v[i]);
	free(held.v);
}

/* Whether arc k can be part of a circuit: into a block of the line at
 * or after the start, with count left. */
static int usable(const circ *c, size_t k)
{
	const xp_gcov_garc *a = &c->f->arc[k];
	return a->dst >= c->start && a->cs > 0 &&
	       on_line(c->line, c->fn, a->dst);
}

/* A circuit closed along the path: its smallest count is taken. */
static void take_cycle(circ *c)
{
	int64_t m = INT64_MAX;

	for (size_t i = 0; i < c->path.n; i++)
		if (c->f->arc[c->path.v[i]].cs < m)
			m = c->f->arc[c->path.v[i]].cs;
	c->count += m;
	for (size_t i = 0; i < c->path.n; i++)
		c->f->arc[c->path.v[i]].cs -= m;
}

static int path_spent(const circ *c)
{
	for (size_t i = 0; i < c->path.n; i++)
		if (c->f->arc[c->path.v[i]].cs <= 0)
			return 1;
	return 0;
}

static int circuit(circ *c, uint32_t v)
{
	const xp_gcov_gblk *b = &c->f->blk[v];
	const size_t *out = c->f->succ + b->succ0;
	int found = 0;

	if (ivec_push(&c->blocked, v) ||
	    xp_grow(&c->lists, &c->cap_lists,
	                  c->blocked.n - 1, sizeof *c->lists)) {
		c->err = XP_E_NOMEM;
		return 0;
	}
	memset(&c->lists[c->blocked.n - 1], 0, sizeof *c->lists);
	for (size_t i = 0; i < b->nsuccs && !c->err; i++) {
		uint32_t w = c->f->arc[out[i]].dst;
		if (!usable(c, out[i]))
			continue;
		if (ivec_push(&c->path, out[i])) {
			c->err = XP_E_NOMEM;
			break;
		}
		if (w == c->start) {
			take_cycle(c);
			found = 1;
		} else if (!path_spent(c) &&
		           ivec_find(&c->blocked, w) == SIZE_MAX) {
			found |= circuit(c, w);
		}
		c->path.n--;
	}
	if (found) {
		unblock(c, v);
		return found;
	}
	for (size_t i = 0; i < b->nsuccs && !c->err; i++) {
		size_t at;
		if (!usable(c, out[i]))
			continue;
		at = ivec_find(&c->blocked, c->f->arc[out[i]].dst);
		if (at != SIZE_MAX && ivec_find(&c->lists[at], v) == SIZE_MAX &&
		    ivec_push(&c->lists[at], v))
			c->err = XP_E_NOMEM;
	}
	return found;
}

/* gcov's line count of a line with listed blocks: the arcs entering
 * them from elsewhere, and the loops among them. */
static xp_err line_count(xp_gcov_graph *gr, xp_gcov_line *l)
{
	int64_t count = 0;
	xp_err err = XP_E_OK;

	for (size_t i = 0; i < l->n_blocks; i++) {
		xp_gcov_gfn *f = &gr->fns[l->blocks[i].fn];
		const xp_gcov_gblk *b = &f->blk[l->blocks[i].blk];
		for (size_t k = 0; k < b->npreds; k++) {
			const xp_gcov_garc *a = &f->arc[f->pred[b->pred0 + k]];
			if (!on_line(l, l->blocks[i].fn, a->src))
				count += a->count;
		}
		for (size_t k = 0; k < b->nsuccs; k++) {
			xp_gcov_garc *a = &f->arc[f->succ[b->succ0 + k]];
			a->cs = a->count;
		}
	}
	for (size_t i = 0; i < l->n_blocks && err == XP_E_OK; i++) {
		circ c;
		memset(&c, 0, sizeof c);
		c.f = &gr->fns[l->blocks[i].fn];
		c.line = l;
		c.fn = l->blocks[i].fn;
		c.start = l->blocks[i].blk;
		circuit(&c, c.start);
		count += c.count;
		err = c.err;
		for (size_t k = 0; k < c.blocked.n; k++)
			free(c.lists[k].v);
		XP_FREE(c.path.v, c.blocked.v, c.lists);
	}
	l->count = count;
	return err;
}

/* ------------------------------------------------------------------ */
/* The whole                                                           */
/* ------------------------------------------------------------------ */

/* The functions of the notes, each with its records. */
static xp_err read_fns(xp_gcov_graph *gr, const char *name, xp_diags *d)
{
	const xp_gcov *nt = gr->notes;
	size_t n = 0;
	xp_err err;

	for (size_t i = 0; i < nt->n_recs; i++)
		n += nt->recs[i].type == XP_GCOV_FUNCTION;
	if ((gr->fns = calloc(n + 1, sizeof *gr->fns)) == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < nt->n_recs; i++) {
		size_t j = i + 1;
		if (nt->recs[i].type != XP_GCOV_FUNCTION)
			continue;
		while (j < nt->n_recs && nt->recs[j].type != XP_GCOV_FUNCTION)
			j++;
		if ((err = read_fn(gr, nt, i, j, name, d)) ||
		    (err = link_arcs(&gr->fns[gr->n_fns - 1])))
			return err;
		i = j - 1;
	}
	return XP_E_OK;
}

/* Counts and solved graphs, for every function. */
static xp_err solve_all(xp_gcov_graph *gr, const char *dname, xp_diags *d)
{
	xp_err err = XP_E_OK;

	for (size_t i = 0; i < gr->n_fns && err == XP_E_OK; i++) {
		xp_gcov_gfn *f = &gr->fns[i];
		int64_t *ctr = calloc(f->nctr + 1, sizeof *ctr);
		if (ctr == NULL)
			return XP_E_NOMEM;
		if (gr->data != NULL)
			err = take_counts(f, gr->data, dname, d, ctr);
		if (err == XP_E_OK)
			err = solve(f, ctr);
		free(ctr);
		/* gcov leaves out artificial functions, and those that
		 * have no counters in data that has them. */
		f->lines = !f->fn->artificial &&
		           (f->nctr > 0 || gr->data == NULL);
	}
	return err;
}

xp_err xp_gcov_graph_new(const xp_gcov *notes, const xp_gcov *data,
                         const char *nname, const char *dname,
                         xp_gcov_graph **out, xp_diags *d)
{
	xp_gcov_graph *gr = calloc(1, sizeof *gr);
	size_t cap;
	xp_err err;

	*out = NULL;
	if (gr == NULL)
		return XP_E_NOMEM;
	gr->notes = notes;
	gr->data = data;
	if ((err = read_fns(gr, nname, d)) ||
	    (err = sort_lines(gr, &gr->store, &cap)) ||
	    (err = solve_all(gr, dname, d)))
		goto fail;
	for (size_t i = 0; i < gr->n_fns; i++)
		if (gr->fns[i].lines &&
		    (err = add_line_counts(gr, (uint32_t)i)))
			goto fail;
	for (size_t s = 0; s < gr->n_srcs; s++)
		for (size_t l = 0; l < gr->srcs[s].n_lines; l++)
			if (gr->srcs[s].lines[l].n_blocks > 0 &&
			    (err = line_count(gr, &gr->srcs[s].lines[l])))
				goto fail;
	*out = gr;
	return XP_E_OK;
fail:
	xp_gcov_graph_free(gr);
	return err;
}
