/*
 * gmon/merge.c - sums gmon.out profiles (xp_prof_merge, xprof_merge).
 *
 * The sum is a GNU-format file (version 1, zero spare bytes) in the
 * layout of the inputs, which must all share it.  It holds, in this
 * order and sorted so that the result does not depend on the order of
 * the inputs:
 *  - one histogram per distinct range (by low_pc), bins summed;
 *    histograms of equal range must have equal bin counts, every
 *    histogram must have the first one's rate, dimension and scale, and
 *    different ranges must not overlap (gprof's rules for the files it
 *    reads together);
 *  - one arc per distinct (from_pc, self_pc), counts summed; with
 *    by_function (gprof -s) both addresses are first replaced by the
 *    start of the function of gprof's symbol table that holds them;
 *  - one basic-block record with one count per distinct address.
 * A weight multiplies every count of its input (rounded to nearest).
 * Counts that would not fit their field (16-bit bins, 32-bit arc
 * counts) stay at the largest value, with a warning.
 */
#include <math.h>

#include "gmon/gmon.h"

/* Address ranges of gprof's functions, for by-function merges. */
typedef struct {
	uint64_t *start;   /* sorted */
	uint64_t *end;     /* inclusive */
	size_t n;
} fnmap;

static xp_err fnmap_build(const char *exe, fnmap *fm, xp_diags *d)
{
	xp_sym *s = NULL;
	xp_gmon_analysis *a = NULL;
	xp_gmon *empty = NULL;
	xp_err err;

	memset(fm, 0, sizeof *fm);
	if ((err = xp_sym_open(exe, &s, d)) != XP_E_OK)
		return err;
	empty = xp_gmon_new(0, 8, XP_GMON_GNU);
	if (empty == NULL) {
		xp_sym_free(s);
		return XP_E_NOMEM;
	}
	err = xp_gmon_analyze(empty, s, exe, &a, d);
	xp_gmon_free(empty);
	if (err == XP_E_OK) {
		fm->start = calloc(a->n_fns + 1, sizeof *fm->start);
		fm->end = calloc(a->n_fns + 1, sizeof *fm->end);
		if (fm->start == NULL || fm->end == NULL) {
			err = XP_E_NOMEM;
		} else {
			for (size_t i = 0; i < a->n_fns; i++) {
				fm->start[i] = a->fns[i].addr;
				fm->end[i] = a->fns[i].end;
			}
			fm->n = a->n_fns;
		}
	}
	xp_gmon_analysis_free(a);
	xp_sym_free(s);
	return err;
}

static void fnmap_free(fnmap *fm)
{
	free(fm->start);
	free(fm->end);
}

/* The start of the function holding pc; 0 with *found 0 when none. */
static uint64_t fnmap_start(const fnmap *fm, uint64_t pc, int *found)
{
	size_t lo = 0, hi = fm->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (fm->start[mid] <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo > 0 && pc <= fm->end[lo - 1];
	return *found ? fm->start[lo - 1] : 0;
}

typedef struct {
	uint64_t sat;    /* counts that saturated */
} mstate;

static uint64_t scaled(uint64_t v, double w)
{
	double x;

	if (w == 1.0)
		return v;
	x = floor((double)v * w + 0.5);
	return x >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)x;
}

static uint64_t add_sat(uint64_t a, uint64_t b, uint64_t max, mstate *ms)
{
	if (a > max || b > max - a) {
		ms->sat++;
		return max;
	}
	return a + b;
}

static int cmp_arc(const void *l, const void *r)
{
	const xp_gmon_arc *a = l, *b = r;
	if (a->from_pc != b->from_pc)
		return a->from_pc < b->from_pc ? -1 : 1;
	if (a->self_pc != b->self_pc)
		return a->self_pc < b->self_pc ? -1 : 1;
	return 0;
}

static int cmp_bb(const void *l, const void *r)
{
	const xp_gmon_bb *a = l, *b = r;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int cmp_hist(const void *l, const void *r)
{
	const xp_gmon_hist *a = l, *b = r;
	return a->low_pc < b->low_pc ? -1 : a->low_pc > b->low_pc;
}

static double hscale(const xp_gmon_hist *h)
{
	return h->n_bins ? (double)((h->high_pc - h->low_pc) / 2) / h->n_bins
	                 : 0;
}

/* Adds h (scaled) to the histograms of nw, checking gprof's rules. */
static xp_err merge_hist(xp_gmon *nw, const xp_gmon_hist *h, double w,
                         const char *name, mstate *ms, xp_diags *d)
{
	xp_gmon_hist c;
	size_t k;

	if (nw->n_hists > 0) {
		const xp_gmon_hist *f = &nw->hists[0];
		if (f->prof_rate != h->prof_rate)
			return xp_diag_file(d, XP_E_INVAL, name,
			                    "histogram rate %u differs from the "
			                    "merged profile's %u", h->prof_rate,
			                    f->prof_rate);
		if (memcmp(f->dimen, h->dimen, 15) != 0 ||
		    f->abbrev != h->abbrev)
			return xp_diag_file(d, XP_E_INVAL, name,
			                    "histogram dimension differs from the "
			                    "merged profile's");
		if (fabs(hscale(f) - hscale(h)) > 0.000001)
			return xp_diag_file(d, XP_E_INVAL, name,
			                    "histogram scale differs from the "
			                    "merged profile's");
	}
	for (k = 0; k < nw->n_hists; k++) {
		xp_gmon_hist *o = &nw->hists[k];
		if (o->low_pc == h->low_pc && o->high_pc == h->high_pc) {
			if (o->n_bins != h->n_bins)
				return xp_diag_file(d, XP_E_INVAL, name,
				                    "histogram 0x%llx-0x%llx has %u "
				                    "bins, the merged profile's %u",
				                    (unsigned long long)h->low_pc,
				                    (unsigned long long)h->high_pc,
				                    h->n_bins, o->n_bins);
			for (uint32_t i = 0; i < h->n_bins; i++)
				o->bins[i] = (uint16_t)add_sat(o->bins[i],
				                               scaled(h->bins[i], w),
				                               UINT16_MAX, ms);
			return XP_E_OK;
		}
		if (h->low_pc < o->high_pc && o->low_pc < h->high_pc)
			return xp_diag_file(d, XP_E_INVAL, name,
			                    "histogram range 0x%llx-0x%llx "
			                    "overlaps the merged profile's "
			                    "0x%llx-0x%llx",
			                    (unsigned long long)h->low_pc,
			                    (unsigned long long)h->high_pc,
			                    (unsigned long long)o->low_pc,
			                    (unsigned long long)o->high_pc);
	}
	c = *h;
	memset(c.dimen, 0, sizeof c.dimen);
	memcpy(c.dimen, h->dimen, 15);
	c.bins = calloc(h->n_bins ? h->n_bins : 1, sizeof *c.bins);
	if (c.bins == NULL)
		return XP_E_NOMEM;
	for (uint32_t i = 0; i < h->n_bins; i++)
		c.bins[i] = (uint16_t)add_sat(0, scaled(h->bins[i], w),
		                              UINT16_MAX, ms);
	return xp_gmon_add_hist(nw, &c);
}

/* Sorts and sums equal keys in place; returns the new count. */
static size_t fold_arcs(xp_gmon_arc *a, size_t n, mstate *ms)
{
	size_t k = 0;

	xp_qsort(a, n, sizeof *a, cmp_arc);
	for (size_t i = 0; i < n; i++) {
		if (k > 0 && cmp_arc(&a[k - 1], &a[i]) == 0)
			a[k - 1].count = add_sat(a[k - 1].count, a[i].count,
			                         UINT32_MAX, ms);
		else
			a[k++] = a[i];
	}
	return k;
}

static size_t fold_bbs(xp_gmon_bb *b, size_t n, uint64_t max, mstate *ms)
{
	size_t k = 0;

	xp_qsort(b, n, sizeof *b, cmp_bb);
	for (size_t i = 0; i < n; i++) {
		if (k > 0 && b[k - 1].addr == b[i].addr)
			b[k - 1].count = add_sat(b[k - 1].count, b[i].count, max,
			                         ms);
		else
			b[k++] = b[i];
	}
	return k;
}

xp_err xp_gmon_merge(void **accp, const void *inp, double weight,
                     const xp_prof_merge_opts *o, const char *name,
                     xp_diags *d)
{
	const xp_gmon *acc = *accp, *in = inp;
	xp_gmon *nw = NULL;
	xp_gmon_arc *arcs = NULL;
	xp_gmon_bb *bbs = NULL;
	size_t na = 0, nb = 0;
	fnmap fm;
	mstate ms = { 0 };
	uint64_t dropped = 0, amax = xp_gmon_word_max(in->addr_bytes);
	xp_err err = XP_E_OK;

	memset(&fm, 0, sizeof fm);
	if (acc != NULL && (acc->big != in->big ||
	                    acc->addr_bytes != in->addr_bytes))
		return xp_diag_file(d, XP_E_INVAL, name,
		                    "layout %s differs from the merged "
		                    "profile's %s",
		                    xp_gmon_layout_name(in->big, in->addr_bytes),
		                    xp_gmon_layout_name(acc->big,
		                                        acc->addr_bytes));
	if (o->by_function) {
		if (o->exe == NULL)
			return xp_diag_file(d, XP_E_INVAL, name,
			                    "merging by function needs the "
			                    "executable (-e)");
		if ((err = fnmap_build(o->exe, &fm, d)) != XP_E_OK)
			return err;
	}
	nw = xp_gmon_new(in->big, in->addr_bytes, XP_GMON_GNU);
	if (nw == NULL) {
		err = XP_E_NOMEM;
		goto done;
	}
	/* Histograms: the accumulated ones, then the input's, sorted. */
	for (size_t pass = 0; pass < 2; pass++) {
		const xp_gmon *src = pass == 0 ? acc : in;
		if (src == NULL)
			continue;
		for (size_t i = 0; i < src->n_hists; i++)
			if ((err = merge_hist(nw, &src->hists[i],
			                      pass == 0 ? 1.0 : weight, name, &ms,
			                      d)) != XP_E_OK)
				goto done;
	}
	xp_qsort(nw->hists, nw->n_hists, sizeof *nw->hists, cmp_hist);

	/* Arcs and blocks: gather, sort, fold. */
	arcs = calloc((acc ? acc->n_arcs : 0) + in->n_arcs + 1, sizeof *arcs);
	bbs = calloc((acc ? acc->n_bbs : 0) + in->n_bbs + 1, sizeof *bbs);
	if (arcs == NULL || bbs == NULL) {
		err = XP_E_NOMEM;
		goto done;
	}
	if (acc != NULL && acc->n_arcs > 0) {
		memcpy(arcs, acc->arcs, acc->n_arcs * sizeof *arcs);
		na = acc->n_arcs;
	}
	if (acc != NULL && acc->n_bbs > 0) {
		memcpy(bbs, acc->bbs, acc->n_bbs * sizeof *bbs);
		nb = acc->n_bbs;
	}
	for (size_t i = 0; i < in->n_arcs; i++) {
		xp_gmon_arc a = in->arcs[i];
		if (o->by_function) {
			int f1, f2;
			a.from_pc = fnmap_start(&fm, a.from_pc, &f1);
			a.self_pc = fnmap_start(&fm, a.self_pc, &f2);
			if (!f1 || !f2) {
				dropped++;
				continue;
			}
		}
		a.count = add_sat(0, scaled(a.count, weight), UINT32_MAX, &ms);
		arcs[na++] = a;
	}
	for (size_t i = 0; i < in->n_bbs; i++) {
		xp_gmon_bb b = in->bbs[i];
		b.count = add_sat(0, scaled(b.count, weight), amax, &ms);
		bbs[nb++] = b;
	}
	na = fold_arcs(arcs, na, &ms);
	nb = fold_bbs(bbs, nb, amax, &ms);

	/* The records: histograms, arcs, then one block record. */
	/* merge_hist added one record per histogram; they are sorted now. */
	for (size_t i = 0; i < nw->n_hists; i++) {
		nw->recs[i].type = XP_GMON_HIST;
		nw->recs[i].index = i;
		nw->recs[i].n = 1;
	}
	for (size_t i = 0; i < na; i++)
		if ((err = xp_gmon_add_arc(nw, &arcs[i])) != XP_E_OK)
			goto done;
	if (nb > 0) {
		if ((err = xp_gmon_add_bbrec(nw)) != XP_E_OK)
			goto done;
		for (size_t i = 0; i < nb; i++)
			if ((err = xp_gmon_add_bb(nw, &bbs[i])) != XP_E_OK)
				goto done;
	}
	if (dropped > 0)
		xp_diag_warn(d, name, "%llu arcs lie outside every function of "
		             "%s and were dropped", (unsigned long long)dropped,
		             o->exe);
	if (ms.sat > 0)
		xp_diag_warn(d, name, "%llu counts overflowed their field and "
		             "were kept at its largest value",
		             (unsigned long long)ms.sat);
	xp_gmon_free(*accp);
	*accp = nw;
	nw = NULL;
done:
	xp_gmon_free(nw);
	free(arcs);
	free(bbs);
	fnmap_free(&fm);
	return err;
}
