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
#include <stddef.h>

#include "gmon/gmon.h"

/* Address ranges of gprof's functions, for by-function merges. */
typedef struct {
	uint64_t *start;   /* sorted */
	uint64_t *end;     /* inclusive */
	size_t n;
} fnmap;

/* The function ranges of exe's symbols: pre, or opened from exe. */
static xp_err fnmap_build(const char *exe, const xp_sym *pre, fnmap *fm,
                          xp_diags *d)
{
	xp_sym *s = NULL;
	xp_err err;

	memset(fm, 0, sizeof *fm);
	if (pre == NULL && (err = xp_sym_open(exe, &s, d)) != XP_E_OK)
		return err;
	err = xp_gmon_fn_ranges(pre ? pre : s, &fm->start, &fm->end, &fm->n);
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

/* A kind of record that the merge sums, arcs or basic-block counts: its
 * size, its key fields (the most significant first) and its count, all
 * 64-bit fields at these offsets. */
typedef struct {
	size_t size, nkey, key[2], count;
} rkind;

static const rkind arc_kind = {
	sizeof(xp_gmon_arc), 2,
	{ offsetof(xp_gmon_arc, from_pc), offsetof(xp_gmon_arc, self_pc) },
	offsetof(xp_gmon_arc, count)
};

static const rkind bb_kind = {
	sizeof(xp_gmon_bb), 1, { offsetof(xp_gmon_bb, addr), 0 },
	offsetof(xp_gmon_bb, count)
};

static uint64_t *field(const rkind *k, const void *base, size_t i,
                       size_t off)
{
	return (uint64_t *)((char *)base + i * k->size + off);
}

/* Record i of x against record j of y, by key. */
static int cmp_rec(const rkind *k, const void *x, size_t i, const void *y,
                   size_t j)
{
	for (size_t f = 0; f < k->nkey; f++) {
		uint64_t a = *field(k, x, i, k->key[f]);
		uint64_t b = *field(k, y, j, k->key[f]);
		if (a != b)
			return a < b ? -1 : 1;
	}
	return 0;
}

/*
 * The n records of x (the sum so far) and the m of y (the input's) into
 * out by key, equal keys summed: sorted first, equal keys in the order
 * of x and then y, so that the sums (and the counts that saturate) are
 * those of one stable sort of both.  y is sorted in place; x, left as it
 * is, is in order when it is a sum made here, and a copy is sorted when
 * not.  Returns the count, or SIZE_MAX when out of memory.
 */
static size_t fold(const rkind *k, const void *x, size_t n, void *y, size_t m,
                   void *out, uint64_t max, mstate *ms)
{
	size_t i = 1, j = 0, c = 0;
	void *copy = NULL;

	while (i < n && cmp_rec(k, x, i - 1, x, i) <= 0)
		i++;
	if (i < n) {
		if ((copy = malloc(n * k->size)) == NULL)
			return SIZE_MAX;
		x = memcpy(copy, x, n * k->size);
	}
	if (xp_sort_records(copy, copy != NULL ? n : 0, k->size, k->key,
	                    k->nkey) != XP_E_OK ||
	    xp_sort_records(y, m, k->size, k->key, k->nkey) != XP_E_OK) {
		free(copy);
		return SIZE_MAX;
	}
	for (i = 0; i < n || j < m;) {
		const void *src = j == m || (i < n && cmp_rec(k, x, i, y, j) <= 0)
		                  ? field(k, x, i++, 0) : field(k, y, j++, 0);
		if (c > 0 && cmp_rec(k, out, c - 1, src, 0) == 0) {
			uint64_t *sum = field(k, out, c - 1, k->count);
			*sum = add_sat(*sum, *field(k, src, 0, k->count), max, ms);
		} else {
			memcpy(field(k, out, c++, 0), src, k->size);
		}
	}
	free(copy);
	return c;
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

/* b added to the bin *d; 1 when the sum saturated. */
static inline unsigned add_bin(uint16_t *d, uint16_t b)
{
	uint32_t v = (uint32_t)*d + b;

	*d = v > UINT16_MAX ? UINT16_MAX : (uint16_t)v;
	return v > UINT16_MAX;
}

/* The n bins of src, scaled by w, added to those of dst. */
static void add_bins(uint16_t *dst, const uint16_t *src, uint32_t n, double w,
                     mstate *ms)
{
	uint64_t sat = 0;
	uint32_t i = 0;

	if (w != 1.0) {
		for (; i < n; i++)
			dst[i] = (uint16_t)add_sat(dst[i], scaled(src[i], w),
			                           UINT16_MAX, ms);
		return;
	}
	for (i = xp_gmon_next_bin(src, 0, n); i < n;
	     i = xp_gmon_next_bin(src, i + 1, n))
		sat += add_bin(&dst[i], src[i]);
	ms->sat += sat;
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
			add_bins(o->bins, h->bins, h->n_bins, w, ms);
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
	add_bins(c.bins, h->bins, h->n_bins, w, ms);
	return xp_gmon_add_hist(nw, &c);
}

xp_err xp_gmon_merge(void **accp, const void *inp, double weight,
                     const xp_prof_merge_opts *o, const char *name,
                     xp_diags *d)
{
	const xp_gmon *acc = *accp, *in = inp;
	xp_gmon *nw = NULL;
	xp_gmon_arc *arcs = NULL, *sa;
	xp_gmon_bb *bbs = NULL, *sb = NULL;
	size_t na = 0, nb = 0, na0, nb0;
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
		if ((err = fnmap_build(o->exe, o->exe_sym, &fm, d)) != XP_E_OK)
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

	/* Arcs and blocks: the input's moved, scaled and gathered, then
	 * folded with the sum's; the arcs into the new sum in place. */
	arcs = malloc((in->n_arcs + 1) * sizeof *arcs);
	bbs = malloc((in->n_bbs + 1) * sizeof *bbs);
	if (arcs == NULL || bbs == NULL) {
		err = XP_E_NOMEM;
		goto done;
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
	na0 = acc != NULL ? acc->n_arcs : 0;
	nb0 = acc != NULL ? acc->n_bbs : 0;
	sa = xp_gmon_arc_room(nw, na0 + na);
	sb = malloc((nb0 + nb + 1) * sizeof *sb);
	if ((sa == NULL && na0 + na > 0) || sb == NULL ||
	    (na = fold(&arc_kind, acc != NULL ? acc->arcs : NULL, na0, arcs,
	               na, sa, UINT32_MAX, &ms)) == SIZE_MAX ||
	    (nb = fold(&bb_kind, acc != NULL ? acc->bbs : NULL, nb0, bbs, nb,
	               sb, amax, &ms)) == SIZE_MAX) {
		err = XP_E_NOMEM;
		goto done;
	}

	/* The records: histograms, arcs, then one block record. */
	/* merge_hist added one record per histogram; they are sorted now. */
	for (size_t i = 0; i < nw->n_hists; i++) {
		nw->recs[i].type = XP_GMON_HIST;
		nw->recs[i].index = i;
		nw->recs[i].n = 1;
	}
	if ((err = xp_gmon_add_arcs(nw, sa, na)) != XP_E_OK)
		goto done;
	if (nb > 0) {
		if ((err = xp_gmon_add_bbrec(nw)) != XP_E_OK)
			goto done;
		for (size_t i = 0; i < nb; i++)
			if ((err = xp_gmon_add_bb(nw, &sb[i])) != XP_E_OK)
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
	XP_FREE(arcs, bbs, sb);
	fnmap_free(&fm);
	return err;
}
