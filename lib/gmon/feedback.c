/*
 * gmon/feedback.c - a gmon.out as feedback (xp_prof_to_feedback): what gprof
 * makes of it with the executable, as procedures with counters and
 * source lines with counts, for xprof_tcov and xprof_diff (gmon(5),
 * CONVERSION TO FEEDBACK).
 *
 * One OBJFILE, named as the executable was given.  One procedure per
 * function of gprof's symbol table (what gprof -z lists: never-run
 * functions too), by its linker name (the symbol's: gprof prints it
 * demangled), told apart from others of the name (xp_fb_names_apart), in
 * address order, proc ids from 1, with
 *   counter 1: its self cost, the one figure its sum and rank measure:
 *              the histogram samples credited to it (rounded to the
 *              nearest whole sample: gprof splits bins between
 *              functions), or its calls when the profile holds no
 *              sample at all;
 *   block 1: its entry, counted by counter 1 when that holds calls;
 *   block k+1: its k-th basic-block count, by address (no counter);
 *   a VP_PROC record per function it called: the calls along that arc.
 * A SRCFILE section per source file (bfd_find_nearest_line), whose
 * lines refer to those blocks: a function's first line to its entry
 * block with its calls, a basic block's line to its block with its
 * count.  A function that ran (samples, or calls it made) without a
 * recorded call, as main, called from outside the text, counts one call.
 * Without an executable there is nothing to name functions by:
 * XP_E_INVAL.
 */
#include <math.h>

#include "gmon/gmon.h"

typedef struct {
	const char *file;
	unsigned line;
	uint32_t block;
	uint64_t count;
	size_t fn;
} lref;

static int cmp_lref(const void *l, const void *r)
{
	const lref *a = l, *b = r;
	int c = strcmp(a->file, b->file);

	if (c != 0)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->fn != b->fn)
		return a->fn < b->fn ? -1 : 1;
	return a->block < b->block ? -1 : a->block > b->block;
}

typedef struct {
	uint64_t addr, count;
	size_t fn;
} bbf;

static int cmp_bbf(const void *l, const void *r)
{
	const bbf *a = l, *b = r;
	if (a->fn != b->fn)
		return a->fn < b->fn ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* The function of the table holding pc (gprof's lookup), or SIZE_MAX. */
static size_t fn_of(const xp_gmon_analysis *a, uint64_t pc)
{
	size_t lo = 0, hi = a->n_fns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a->fns[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || pc > a->fns[lo - 1].end)
		return SIZE_MAX;
	return lo - 1;
}

/* The conversion's state: the profile, its analysis, what is gathered
 * from them and the feedback being built. */
typedef struct {
	const xp_gmon *g;
	xp_sym *sym;
	xp_gmon_analysis *a;
	bbf *bb;               /* basic-block counts by function and address */
	size_t nbb;
	lref *lr;              /* the source lines of the blocks */
	size_t nlr;
	uint64_t *calls;       /* per function: its entries */
	xp_gmon_farc *arcs;    /* arcs between listed functions, by parent
	                          and then callee address */
	size_t narcs;
	int cost_calls;        /* counter 1 holds calls, not samples */
	char **apart;          /* per function: its name told apart, or NULL */
	xp_fbb *b;
	const char *objname;   /* the executable, as given */
	xp_str objpath;
	uint32_t pid;          /* the last proc id */
} gconv;

/* The name of function i's procedure: its linker name, told apart from
 * the other functions' (xp_fb_names_apart). */
static const char *proc_name(const gconv *c, size_t i)
{
	return c->apart[i] != NULL ? c->apart[i] : c->a->fns[i].name;
}

/* The names of the listed functions told apart. */
static xp_err names_apart(gconv *c)
{
	const xp_gmon_analysis *a = c->a;
	const char **nm = calloc(a->n_fns + 1, sizeof *nm);
	uint64_t *ad = calloc(a->n_fns + 1, sizeof *ad);
	char **out = calloc(a->n_fns + 1, sizeof *out);
	size_t n = 0;
	xp_err err = XP_E_NOMEM;

	if (nm != NULL && ad != NULL && out != NULL) {
		for (size_t i = 0; i < a->n_fns; i++)
			if (!a->fns[i].excluded) {
				nm[n] = a->fns[i].name;
				ad[n++] = a->fns[i].addr;
			}
		err = xp_fb_names_apart(nm, ad, n, out);
	}
	for (size_t i = 0, k = 0; err == XP_E_OK && i < a->n_fns; i++)
		if (!a->fns[i].excluded)
			c->apart[i] = out[k++];
	XP_FREE(nm, ad, out);
	return err;
}

/* Basic-block counts by function, summed per address. */
static void gather_bbs(gconv *c)
{
	bbf *bb = c->bb;
	size_t k = 0;

	for (size_t i = 0; i < c->g->n_bbs; i++) {
		size_t f = fn_of(c->a, c->g->bbs[i].addr);
		if (f == SIZE_MAX || c->a->fns[f].excluded)
			continue;
		bb[c->nbb].addr = c->g->bbs[i].addr;
		bb[c->nbb].count = c->g->bbs[i].count;
		bb[c->nbb].fn = f;
		c->nbb++;
	}
	xp_qsort(bb, c->nbb, sizeof *bb, cmp_bbf);
	for (size_t i = 0; i < c->nbb; i++) {
		if (k > 0 && bb[k - 1].fn == bb[i].fn &&
		    bb[k - 1].addr == bb[i].addr) {
			bb[k - 1].count = bb[k - 1].count > UINT64_MAX -
			                  bb[i].count ? UINT64_MAX
			                  : bb[k - 1].count + bb[i].count;
			continue;
		}
		bb[k++] = bb[i];
	}
	c->nbb = k;
}

/* The samples credited to f, rounded. */
static uint64_t samples_of(const xp_gmon_fn *f)
{
	return (uint64_t)floor(f->samples + 0.5);
}

static int cmp_arc(const void *l, const void *r)
{
	const xp_gmon_farc *a = l, *b = r;

	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	return a->child < b->child ? -1 : a->child > b->child;
}

/*
 * Every function's entries: its calls, recursive ones included.  mcount
 * records no call whose caller lies outside the executable's text (main,
 * called from the C library's start-up; callbacks from shared
 * libraries), so a function that shows that it ran (samples, basic-block
 * counts, or calls it made) without a recorded call counts one.  Then
 * the arcs between listed functions, by parent.
 */
static void gather_calls(gconv *c)
{
	const xp_gmon_analysis *a = c->a;

	for (size_t i = 0; i < a->n_fns; i++) {
		const xp_gmon_fn *f = &a->fns[i];
		c->calls[i] = f->ncalls > UINT64_MAX - f->self_calls ?
		              UINT64_MAX : f->ncalls + f->self_calls;
		if (c->calls[i] == 0 && samples_of(f) > 0)
			c->calls[i] = 1;
	}
	for (size_t i = 0; i < c->nbb; i++)
		if (c->calls[c->bb[i].fn] == 0 && c->bb[i].count > 0)
			c->calls[c->bb[i].fn] = 1;
	for (size_t i = 0; i < a->n_arcs; i++) {
		const xp_gmon_farc *r = &a->arcs[i];
		if (r->count == 0 || a->fns[r->parent].excluded ||
		    a->fns[r->child].excluded)
			continue;
		if (c->calls[r->parent] == 0)
			c->calls[r->parent] = 1;
		c->arcs[c->narcs++] = *r;
	}
	xp_qsort(c->arcs, c->narcs, sizeof *c->arcs, cmp_arc);
}

/* Notes the source line of pc, when it has one, for block blk of
 * function fn. */
static void note_line(gconv *c, uint64_t pc, uint32_t blk, uint64_t count,
                      size_t fn)
{
	const char *file, *func;
	unsigned line;

	if (xp_sym_line(c->sym, pc, &file, &func, &line) == 0 &&
	    file != NULL && line > 0) {
		c->lr[c->nlr].file = file;
		c->lr[c->nlr].line = line;
		c->lr[c->nlr].block = blk;
		c->lr[c->nlr].count = count;
		c->lr[c->nlr].fn = fn;
		c->nlr++;
	}
}

/* The VP_PROC records of function i: one per function it called, from
 * the arcs at *k on. */
static xp_err add_calls(gconv *c, size_t i, size_t *k)
{
	uint32_t expr = 0;
	xp_err err;

	for (; *k < c->narcs && c->arcs[*k].parent == i; ++*k) {
		const xp_gmon_farc *r = &c->arcs[*k];
		const char *callee = proc_name(c, r->child);
		xp_vpval v = {0};
		v.count = r->count;
		v.has_value = 1;
		v.v.proc.objfile = c->objpath;
		if ((err = xp_fbb_add_vp(c->b, ++expr, XP_VP_PROC)) ||
		    (err = xp_fbb_intern_proc(c->b, callee, &v.v.proc.name)) ||
		    (err = xp_fbb_add_vpval(c->b, &v)))
			return err;
	}
	return XP_E_OK;
}

/* The procedure of function i, whose basic-block counts start at k0 and
 * whose arcs at *ka: its counter, calls and blocks, and the source lines
 * of its blocks noted. */
static xp_err add_proc(gconv *c, size_t i, size_t k0, size_t *ka)
{
	const xp_gmon_fn *f = &c->a->fns[i];
	const bbf *bb = c->bb;
	xp_proc p;
	xp_err err;

	memset(&p, 0, sizeof p);
	if ((err = xp_fbb_intern_proc(c->b, proc_name(c, i), &p.name)))
		return err;
	p.proc_id = ++c->pid;
	for (size_t j = *ka; j < c->narcs && c->arcs[j].parent == i; j++)
		p.n_vp_sites++;
	if ((err = xp_fbb_begin_proc(c->b, &p)) ||
	    (err = xp_fbb_add_counter(c->b, 1, c->cost_calls ? c->calls[i]
	                                       : samples_of(f))) ||
	    (err = add_calls(c, i, ka)) ||
	    (err = xp_fbb_add_block(c->b, 1, c->cost_calls ? 1 : 0)))
		return err;
	note_line(c, f->addr, 1, c->calls[i], i);
	for (size_t j = k0; j < c->nbb && bb[j].fn == i; j++) {
		uint32_t blk = (uint32_t)(j - k0 + 2);
		if ((err = xp_fbb_add_block(c->b, blk, 0)))
			return err;
		note_line(c, bb[j].addr, blk, bb[j].count, i);
	}
	return XP_E_OK;
}

/* One SRCFILE section per file, its lines referring to the blocks. */
static xp_err add_srcfiles(gconv *c)
{
	lref *lr = c->lr;
	xp_err err;

	xp_qsort(lr, c->nlr, sizeof *lr, cmp_lref);
	for (size_t i = 0; i < c->nlr; i++) {
		const char *fname = proc_name(c, lr[i].fn);
		xp_blockref r;
		if (i == 0 || strcmp(lr[i].file, lr[i - 1].file) != 0) {
			xp_str path;
			if ((err = xp_fbb_intern(c->b, lr[i].file,
			                         strlen(lr[i].file), &path)) ||
			    (err = xp_fbb_begin_srcfile(c->b, path)))
				return err;
		}
		if (i == 0 || strcmp(lr[i].file, lr[i - 1].file) != 0 ||
		    lr[i].line != lr[i - 1].line)
			if ((err = xp_fbb_begin_srcline(c->b, lr[i].line, 0)))
				return err;
		r.block = lr[i].block;
		r.count = lr[i].count;
		r.objfile = c->objpath;
		if ((err = xp_fbb_intern_proc(c->b, fname, &r.proc)) ||
		    (err = xp_fbb_add_blockref(c->b, &r)))
			return err;
	}
	return XP_E_OK;
}

/* The object file and its procedures: every function gprof lists. */
static xp_err add_objfile(gconv *c, xp_diags *d)
{
	xp_objfile of;
	size_t nprocs = 0;
	xp_err err;

	for (size_t i = 0; i < c->a->n_fns; i++)
		nprocs += !c->a->fns[i].excluded;
	c->b = xp_fbb_new(XP_DT_FEEDBACK, 4, (uint32_t)nprocs);
	if (c->b == NULL)
		return XP_E_NOMEM;
	xp_fbb_set_diags(c->b, d);
	if ((err = xp_fbb_intern(c->b, c->objname, strlen(c->objname),
	                         &c->objpath)))
		return err;
	memset(&of, 0, sizeof of);
	of.path = c->objpath;
	of.n_values_per_vp = 1;
	if ((err = xp_fbb_begin_objfile(c->b, &of)))
		return err;
	for (size_t i = 0, k = 0, ka = 0; i < c->a->n_fns; i++) {
		while (k < c->nbb && c->bb[k].fn < i)
			k++;
		while (ka < c->narcs && c->arcs[ka].parent < i)
			ka++;
		if (!c->a->fns[i].excluded && (err = add_proc(c, i, k, &ka)))
			return err;
	}
	return XP_E_OK;
}

/* The module's conversion entry: gprof's analysis, then one object file
 * of procedures and the source files. */
xp_err xp_gmon_to_feedback(const void *m, const xp_conv_opts *o,
                           xp_fb **out, xp_diags *d)
{
	gconv c = {0};
	xp_err err;

	*out = NULL;
	c.g = m;
	if (o->exe == NULL)
		return xp_diag_file(d, XP_E_INVAL, "", "converting a gmon.out "
		                    "to feedback needs the executable (-e)");
	c.objname = o->exe;
	if ((err = xp_sym_open(o->exe, &c.sym, d)) != XP_E_OK)
		return err;
	if ((err = xp_gmon_analyze(c.g, c.sym, o->exe, &c.a, d)) != XP_E_OK)
		goto done;
	/* One unit for the whole profile: samples, unless it has none. */
	c.cost_calls = !(c.a->total_time > 0);
	c.bb = calloc(c.g->n_bbs + 1, sizeof *c.bb);
	c.lr = calloc(c.g->n_bbs + c.a->n_fns + 1, sizeof *c.lr);
	c.calls = calloc(c.a->n_fns + 1, sizeof *c.calls);
	c.arcs = calloc(c.a->n_arcs + 1, sizeof *c.arcs);
	c.apart = calloc(c.a->n_fns + 1, sizeof *c.apart);
	if (c.bb == NULL || c.lr == NULL || c.calls == NULL || c.arcs == NULL ||
	    c.apart == NULL) {
		err = XP_E_NOMEM;
		goto done;
	}
	gather_bbs(&c);
	gather_calls(&c);
	if ((err = names_apart(&c)) || (err = add_objfile(&c, d)) ||
	    (err = add_srcfiles(&c)))
		goto done;
	err = xp_fbb_finish(c.b, out);
done:
	xp_fbb_free(c.b);
	free(c.bb);
	free(c.lr);
	free(c.calls);
	free(c.arcs);
	for (size_t i = 0; c.apart != NULL && i < c.a->n_fns; i++)
		free(c.apart[i]);
	free(c.apart);
	xp_gmon_analysis_free(c.a);
	xp_sym_free(c.sym);
	return err;
}
