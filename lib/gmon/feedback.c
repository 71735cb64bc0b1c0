/*
 * gmon/feedback.c - a gmon.out as feedback (xp_prof_to_feedback): what gprof
 * makes of it with the executable, as procedures with counters and
 * source lines with counts, for xprof_tcov and xprof_diff.
 *
 * One OBJFILE, named as the executable was given.  One procedure per
 * function of gprof's symbol table that has samples, calls or
 * basic-block counts, in address order, proc ids from 1, with
 *   counter 1: histogram samples credited to it (rounded to the nearest
 *              whole sample: gprof splits bins between functions),
 *   counter 2: calls (from other functions and recursive),
 *   block 1 (counter 2): its entry;
 *   block k+1 (counter k+2): its k-th basic-block count, by address.
 * A SRCFILE section per source file (bfd_find_nearest_line), whose
 * lines refer to those blocks: a function's first line to its entry
 * block, a basic block's line to its block.  Without an executable
 * there is nothing to name functions by: XP_E_INVAL.
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
	xp_fbb *b;
	xp_str objpath;
	uint32_t pid;          /* the last proc id */
} gconv;

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

/* How many procedures there are: functions with samples, calls or
 * basic-block counts. */
static size_t count_procs(const gconv *c)
{
	const xp_gmon_analysis *a = c->a;
	size_t nprocs = 0;

	for (size_t i = 0; i < a->n_fns; i++) {
		const xp_gmon_fn *f = &a->fns[i];
		if (!f->excluded && (f->samples > 0 || f->ncalls > 0 ||
		                     f->self_calls > 0))
			nprocs++;
	}
	for (size_t i = 0; i < c->nbb; i++)
		if (i == 0 || c->bb[i].fn != c->bb[i - 1].fn) {
			const xp_gmon_fn *f = &a->fns[c->bb[i].fn];
			if (!(f->samples > 0 || f->ncalls > 0 || f->self_calls > 0))
				nprocs++;
		}
	return nprocs;
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

/* The procedure of function i, whose basic-block counts start at k0:
 * its counters and blocks, and the source lines of its blocks noted. */
static xp_err add_proc(gconv *c, size_t i, size_t k0)
{
	const xp_gmon_fn *f = &c->a->fns[i];
	const bbf *bb = c->bb;
	xp_proc p;
	xp_err err;

	memset(&p, 0, sizeof p);
	if ((err = xp_fbb_intern(c->b, f->name, strlen(f->name), &p.name)))
		return err;
	p.proc_id = ++c->pid;
	if ((err = xp_fbb_begin_proc(c->b, &p)) ||
	    (err = xp_fbb_add_counter(c->b, 1,
	                              (uint64_t)floor(f->samples + 0.5))) ||
	    (err = xp_fbb_add_counter(c->b, 2, f->ncalls + f->self_calls)))
		return err;
	for (size_t j = k0; j < c->nbb && bb[j].fn == i; j++)
		if ((err = xp_fbb_add_counter(c->b, (uint32_t)(j - k0 + 3),
		                              bb[j].count)))
			return err;
	if ((err = xp_fbb_add_block(c->b, 1, 2)))
		return err;
	note_line(c, f->addr, 1, f->ncalls + f->self_calls, i);
	for (size_t j = k0; j < c->nbb && bb[j].fn == i; j++) {
		uint32_t blk = (uint32_t)(j - k0 + 2);
		if ((err = xp_fbb_add_block(c->b, blk, blk + 1)))
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
		const char *fname = c->a->fns[lr[i].fn].name;
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
		if ((err = xp_fbb_intern(c->b, fname, strlen(fname), &r.proc)) ||
		    (err = xp_fbb_add_blockref(c->b, &r)))
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
	xp_objfile of;
	xp_err err;

	*out = NULL;
	c.g = m;
	if (o->exe == NULL)
		return xp_diag_file(d, XP_E_INVAL, "", "converting a gmon.out "
		                    "to feedback needs the executable (-e)");
	if ((err = xp_sym_open(o->exe, &c.sym, d)) != XP_E_OK)
		return err;
	if ((err = xp_gmon_analyze(c.g, c.sym, o->exe, &c.a, d)) != XP_E_OK)
		goto done;
	c.bb = calloc(c.g->n_bbs + 1, sizeof *c.bb);
	c.lr = calloc(c.g->n_bbs + c.a->n_fns + 1, sizeof *c.lr);
	if (c.bb == NULL || c.lr == NULL) {
		err = XP_E_NOMEM;
		goto done;
	}
	gather_bbs(&c);
	c.b = xp_fbb_new(XP_DT_FEEDBACK, 4, (uint32_t)count_procs(&c));
	if (c.b == NULL) {
		err = XP_E_NOMEM;
		goto done;
	}
	if ((err = xp_fbb_intern(c.b, o->exe, strlen(o->exe), &c.objpath)))
		goto done;
	memset(&of, 0, sizeof of);
	of.path = c.objpath;
	if ((err = xp_fbb_begin_objfile(c.b, &of)))
		goto done;
	for (size_t i = 0, k = 0; i < c.a->n_fns; i++) {
		const xp_gmon_fn *f = &c.a->fns[i];
		while (k < c.nbb && c.bb[k].fn < i)
			k++;
		if (f->excluded || !(f->samples > 0 || f->ncalls > 0 ||
		                     f->self_calls > 0 || (k < c.nbb &&
		                                           c.bb[k].fn == i)))
			continue;
		if ((err = add_proc(&c, i, k)))
			goto done;
	}
	if ((err = add_srcfiles(&c)))
		goto done;
	err = xp_fbb_finish(c.b, out);
done:
	xp_fbb_free(c.b);
	free(c.bb);
	free(c.lr);
	xp_gmon_analysis_free(c.a);
	xp_sym_free(c.sym);
	return err;
}
