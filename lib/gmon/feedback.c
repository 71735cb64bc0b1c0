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

xp_err xp_gmon_to_feedback(const void *m, const xp_conv_opts *o,
                           xp_fb **out, xp_diags *d)
{
	const xp_gmon *g = m;
	xp_sym *sym = NULL;
	xp_gmon_analysis *a = NULL;
	xp_fbb *b = NULL;
	bbf *bb = NULL;
	lref *lr = NULL;
	size_t nbb = 0, nlr = 0, nprocs = 0;
	xp_str objpath;
	xp_objfile of;
	uint32_t pid = 0;
	xp_err err;

	*out = NULL;
	if (o->exe == NULL)
		return xp_diag_file(d, XP_E_INVAL, "", "converting a gmon.out "
		                    "to feedback needs the executable (-e)");
	if ((err = xp_sym_open(o->exe, &sym, d)) != XP_E_OK)
		return err;
	if ((err = xp_gmon_analyze(g, sym, o->exe, &a, d)) != XP_E_OK)
		goto done;
	bb = calloc(g->n_bbs + 1, sizeof *bb);
	lr = calloc(g->n_bbs + a->n_fns + 1, sizeof *lr);
	if (bb == NULL || lr == NULL) {
		err = XP_E_NOMEM;
		goto done;
	}
	/* Basic-block counts by function, summed per address. */
	for (size_t i = 0; i < g->n_bbs; i++) {
		size_t f = fn_of(a, g->bbs[i].addr);
		if (f == SIZE_MAX || a->fns[f].excluded)
			continue;
		bb[nbb].addr = g->bbs[i].addr;
		bb[nbb].count = g->bbs[i].count;
		bb[nbb].fn = f;
		nbb++;
	}
	xp_qsort(bb, nbb, sizeof *bb, cmp_bbf);
	{
		size_t k = 0;
		for (size_t i = 0; i < nbb; i++) {
			if (k > 0 && bb[k - 1].fn == bb[i].fn &&
			    bb[k - 1].addr == bb[i].addr) {
				bb[k - 1].count = bb[k - 1].count > UINT64_MAX -
				                  bb[i].count ? UINT64_MAX
				                  : bb[k - 1].count + bb[i].count;
				continue;
			}
			bb[k++] = bb[i];
		}
		nbb = k;
	}
	for (size_t i = 0; i < a->n_fns; i++) {
		const xp_gmon_fn *f = &a->fns[i];
		if (!f->excluded && (f->samples > 0 || f->ncalls > 0 ||
		                     f->self_calls > 0))
			nprocs++;
	}
	for (size_t i = 0; i < nbb; i++)
		if (i == 0 || bb[i].fn != bb[i - 1].fn) {
			const xp_gmon_fn *f = &a->fns[bb[i].fn];
			if (!(f->samples > 0 || f->ncalls > 0 || f->self_calls > 0))
				nprocs++;
		}

	b = xp_fbb_new(XP_DT_FEEDBACK, 4, (uint32_t)nprocs);
	if (b == NULL) {
		err = XP_E_NOMEM;
		goto done;
	}
	if ((err = xp_fbb_intern(b, o->exe, strlen(o->exe), &objpath)))
		goto done;
	memset(&of, 0, sizeof of);
	of.path = objpath;
	if ((err = xp_fbb_begin_objfile(b, &of)))
		goto done;
	for (size_t i = 0, k = 0; i < a->n_fns; i++) {
		const xp_gmon_fn *f = &a->fns[i];
		size_t k0;
		uint32_t blk = 1;
		xp_proc p;
		const char *file, *func;
		unsigned line;

		while (k < nbb && bb[k].fn < i)
			k++;
		k0 = k;
		if (f->excluded || !(f->samples > 0 || f->ncalls > 0 ||
		                     f->self_calls > 0 || (k < nbb &&
		                                           bb[k].fn == i)))
			continue;
		memset(&p, 0, sizeof p);
		if ((err = xp_fbb_intern(b, f->name, strlen(f->name), &p.name)))
			goto done;
		p.proc_id = ++pid;
		if ((err = xp_fbb_begin_proc(b, &p)) ||
		    (err = xp_fbb_add_counter(b, 1,
		                              (uint64_t)floor(f->samples + 0.5))) ||
		    (err = xp_fbb_add_counter(b, 2, f->ncalls + f->self_calls)))
			goto done;
		for (size_t j = k0; j < nbb && bb[j].fn == i; j++)
			if ((err = xp_fbb_add_counter(b, (uint32_t)(j - k0 + 3),
			                              bb[j].count)))
				goto done;
		if ((err = xp_fbb_add_block(b, blk, 2)))
			goto done;
		if (xp_sym_line(sym, f->addr, &file, &func, &line) == 0 &&
		    file != NULL && line > 0) {
			lr[nlr].file = file;
			lr[nlr].line = line;
			lr[nlr].block = 1;
			lr[nlr].count = f->ncalls + f->self_calls;
			lr[nlr].fn = i;
			nlr++;
		}
		for (size_t j = k0; j < nbb && bb[j].fn == i; j++) {
			blk = (uint32_t)(j - k0 + 2);
			if ((err = xp_fbb_add_block(b, blk, blk + 1)))
				goto done;
			if (xp_sym_line(sym, bb[j].addr, &file, &func, &line) == 0 &&
			    file != NULL && line > 0) {
				lr[nlr].file = file;
				lr[nlr].line = line;
				lr[nlr].block = blk;
				lr[nlr].count = bb[j].count;
				lr[nlr].fn = i;
				nlr++;
			}
		}
		k = k0;
	}
	xp_qsort(lr, nlr, sizeof *lr, cmp_lref);
	for (size_t i = 0; i < nlr; i++) {
		xp_blockref r;
		if (i == 0 || strcmp(lr[i].file, lr[i - 1].file) != 0) {
			xp_str path;
			if ((err = xp_fbb_intern(b, lr[i].file, strlen(lr[i].file),
			                         &path)) ||
			    (err = xp_fbb_begin_srcfile(b, path)))
				goto done;
		}
		if (i == 0 || strcmp(lr[i].file, lr[i - 1].file) != 0 ||
		    lr[i].line != lr[i - 1].line)
			if ((err = xp_fbb_begin_srcline(b, lr[i].line, 0)))
				goto done;
		r.block = lr[i].block;
		r.count = lr[i].count;
		r.objfile = objpath;
		if ((err = xp_fbb_intern(b, a->fns[lr[i].fn].name,
		                         strlen(a->fns[lr[i].fn].name), &r.proc)) ||
		    (err = xp_fbb_add_blockref(b, &r)))
			goto done;
	}
	err = xp_fbb_finish(b, out);
done:
	xp_fbb_free(b);
	free(bb);
	free(lr);
	xp_gmon_analysis_free(a);
	xp_sym_free(sym);
	return err;
}
