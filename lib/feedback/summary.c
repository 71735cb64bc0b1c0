/*
 * feedback/summary.c - summarizing one feedback profile: the totals, the
 * object files, the hottest procedures and blocks, and how few blocks
 * cover most of the counts, the figures xprof_show(1) prints.
 *
 * The hottest entries are kept in bounded heaps, so a summary costs
 * memory for what it lists, not for the whole profile.  Coverage is
 * decided with the exact arithmetic of compare.h: whether a prefix of the
 * counts reaches a share of the total is a comparison of integers.
 */
#include <stdlib.h>
#include <string.h>

#include "feedback/compare.h"

/* ------------------------------------------------------------------ */
/* Summaries                                                           */
/* ------------------------------------------------------------------ */

static const uint32_t cover_cutoffs[] = {900000, 990000, 999000};
#define N_COVERS (sizeof cover_cutoffs / sizeof cover_cutoffs[0])

struct xp_summary {
	xp_totals t;
	xp_sum_objfile *ofs;
	size_t n_ofs;
	xp_sum_proc *procs;
	size_t n_procs;
	xp_sum_block *blocks;
	size_t n_blocks;
	xp_cover covers[N_COVERS];
};

uint64_t xp_cover_count(const uint64_t *desc, size_t n, uint32_t cutoff_ppm,
                        uint64_t *min)
{
	u128 total = {0, 0}, run = {0, 0};
	big need, have;

	if (min)
		*min = 0;
	for (size_t i = 0; i < n; i++)
		u128_add(&total, desc[i]);
	if (u128_zero(total))
		return 0;
	/* run * 10^6 >= total * cutoff, exactly. */
	big_mul(&need, total, cutoff_ppm);
	for (size_t i = 0; i < n; i++) {
		u128_add(&run, desc[i]);
		big_mul(&have, run, 1000000);
		if (big_cmp(&have, &need) >= 0) {
			if (min)
				*min = desc[i];
			return i + 1;
		}
	}
	/* Only a cutoff above 100% gets here. */
	if (min)
		*min = desc[n - 1];
	return n;
}

static int u64_desc(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a < b) - (a > b);
}

/* A candidate for a top list, compared by count and then by the string
 * ids of its names (string ids are in byte-wise order). */
typedef struct {
	uint64_t count;
	xp_str objfile, proc;
	uint32_t block;
	uint32_t pi;     /* procedure index */
	uint32_t bi;     /* block record index */
} hot;

/* Hotter first: larger count, then smaller names and block id. */
static int hot_before(const hot *a, const hot *b)
{
	if (a->count != b->count)
		return a->count > b->count;
	if (a->objfile != b->objfile)
		return a->objfile < b->objfile;
	if (a->proc != b->proc)
		return a->proc < b->proc;
	return a->block < b->block;
}

static int hot_cmp(const void *x, const void *y)
{
	const hot *a = x, *b = y;
	if (hot_before(a, b))
		return -1;
	if (hot_before(b, a))
		return 1;
	return 0;
}

/*
 * A bounded heap that keeps the n hottest candidates; its root is the
 * coldest one kept, so a new candidate either replaces it or is dropped.
 */
typedef struct {
	hot *v;
	size_t n, cap;
} hotheap;

static void heap_push(hotheap *h, const hot *x)
{
	size_t i;

	if (h->cap == 0)
		return;
	if (h->n < h->cap) {
		i = h->n++;
		while (i > 0 && hot_before(&h->v[(i - 1) / 2], x)) {
			h->v[i] = h->v[(i - 1) / 2];
			i = (i - 1) / 2;
		}
		h->v[i] = *x;
		return;
	}
	if (!hot_before(x, &h->v[0]))
		return;
	i = 0;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		const hot *mv = x;
		if (l < h->n && hot_before(mv, &h->v[l])) {
			m = l;
			mv = &h->v[l];
		}
		if (r < h->n && hot_before(mv, &h->v[r])) {
			m = r;
			mv = &h->v[r];
		}
		if (m == i)
			break;
		h->v[i] = h->v[m];
		i = m;
	}
	h->v[i] = *x;
}

/* The value of counter id in a procedure, or -1 when it has none. */
static int counter_value(const xp_fb *fb, const xp_proc *pr, uint32_t id,
                         uint64_t *v)
{
	xp_counter c;

	/* Counters usually come in id order starting at 1. */
	if (id >= 1 && id <= pr->n_counters) {
		xp_fb_counter(fb, pr->first_counter + id - 1, &c);
		if (c.id == id) {
			*v = c.value;
			return 0;
		}
	}
	for (uint32_t i = 0; i < pr->n_counters; i++) {
		xp_fb_counter(fb, pr->first_counter + i, &c);
		if (c.id == id) {
			*v = c.value;
			return 0;
		}
	}
	return -1;
}

/* Finds the source line of a block: its procedure's first tuple for it,
 * with the source file resolved through the object file's earlier
 * tuples. */
static void block_source(const xp_fb *fb, uint32_t pi, uint32_t block,
                         xp_sum_block *out)
{
	xp_proc pr, q;
	xp_objfile of;
	xp_str cur = XP_NOSTR;

	xp_fb_proc(fb, pi, &pr);
	xp_fb_objfile(fb, pr.objfile, &of);
	for (uint32_t p = 0; p < of.n_procs; p++) {
		xp_fb_proc(fb, of.first_proc + p, &q);
		for (uint32_t t = 0; t < q.n_tuples; t++) {
			xp_tuple tu;
			xp_fb_tuple(fb, q.first_tuple + t, &tu);
			if (tu.srcfile != XP_NOSTR)
				cur = tu.srcfile;
			if (of.first_proc + p == pi && tu.block == block) {
				out->line = tu.line;
				out->col = tu.col;
				out->srcfile = cur == XP_NOSTR
				                   ? NULL
				                   : xp_fb_str(fb, cur);
				return;
			}
		}
		if (of.first_proc + p == pi)
			return;
	}
}

/* What making a summary works with besides the summary itself. */
typedef struct {
	const xp_fb *fb;
	xp_summary *s;
	uint64_t *vals;   /* the counters' values that are not zero */
	size_t nvals;
	uint64_t *psums;  /* per procedure: the sum of its counters */
	hotheap hp, hb;   /* the hottest procedures and blocks */
} sumwork;

/* Adds procedure pi of object file of to its object file's figures and
 * offers it and its blocks to the top lists. */
static void sum_proc(sumwork *w, const xp_objfile *of, uint32_t pi,
                     xp_sum_objfile *so, u128 *fsum)
{
	const xp_fb *fb = w->fb;
	xp_proc pr;
	u128 psum = {0, 0};
	uint64_t pmax = 0;

	xp_fb_proc(fb, pi, &pr);
	so->n_counters += pr.n_counters;
	for (uint32_t j = 0; j < pr.n_counters; j++) {
		xp_counter c;
		xp_fb_counter(fb, pr.first_counter + j, &c);
		u128_add(&psum, c.value);
		if (c.value > pmax)
			pmax = c.value;
		if (c.value != 0)
			w->vals[w->nvals++] = c.value;
	}
	u128_add(fsum, psum.lo);
	fsum->hi += psum.hi;
	if (pmax > so->max)
		so->max = pmax;
	w->psums[pi] = u128_sat(psum);
	heap_push(&w->hp, &(hot){w->psums[pi], of->path, pr.name, 0, pi, 0});
	for (uint32_t j = 0; j < pr.n_blocks; j++) {
		xp_block b;
		uint64_t v;

		xp_fb_block(fb, pr.first_block + j, &b);
		if (b.counter == 0 ||
		    counter_value(fb, &pr, b.counter, &v) != 0)
			continue;
		heap_push(&w->hb, &(hot){v, of->path, pr.name, b.id, pi,
		                         pr.first_block + j});
	}
}

/* The k-th object file in path order: its figures, added to total. */
static void sum_objfile(sumwork *w, uint32_t k, u128 *total)
{
	xp_summary *s = w->s;
	uint32_t fi = xp_fb_index(w->fb, XP_T_IDX_OBJFILES, k);
	xp_objfile of;
	xp_sum_objfile *so = &s->ofs[k];
	u128 fsum = {0, 0};

	xp_fb_objfile(w->fb, fi, &of);
	so->path = xp_fb_str(w->fb, of.path);
	so->n_procs = of.n_procs;
	for (uint32_t p = 0; p < of.n_procs; p++)
		sum_proc(w, &of, of.first_proc + p, so, &fsum);
	so->sum = u128_sat(fsum);
	u128_add(total, fsum.lo);
	total->hi += fsum.hi;
	if (so->max > s->t.max)
		s->t.max = so->max;
}

/* The top lists, hottest first, from the heaps. */
static xp_err list_hot(sumwork *w)
{
	const xp_fb *fb = w->fb;
	xp_summary *s = w->s;
	hotheap *hp = &w->hp, *hb = &w->hb;

	xp_qsort(hp->v, hp->n, sizeof *hp->v, hot_cmp);
	xp_qsort(hb->v, hb->n, sizeof *hb->v, hot_cmp);
	s->procs = calloc(hp->n ? hp->n : 1, sizeof *s->procs);
	s->blocks = calloc(hb->n ? hb->n : 1, sizeof *s->blocks);
	if (s->procs == NULL || s->blocks == NULL)
		return XP_E_NOMEM;
	s->n_procs = hp->n;
	for (size_t i = 0; i < hp->n; i++) {
		xp_proc pr;
		uint64_t mx = 0;

		xp_fb_proc(fb, hp->v[i].pi, &pr);
		for (uint32_t j = 0; j < pr.n_counters; j++) {
			xp_counter c;
			xp_fb_counter(fb, pr.first_counter + j, &c);
			if (c.value > mx)
				mx = c.value;
		}
		s->procs[i] = (xp_sum_proc){xp_fb_str(fb, hp->v[i].objfile),
		                            xp_fb_str(fb, hp->v[i].proc),
		                            pr.n_counters, hp->v[i].count, mx};
	}
	s->n_blocks = hb->n;
	for (size_t i = 0; i < hb->n; i++) {
		xp_sum_block *b = &s->blocks[i];
		b->objfile = xp_fb_str(fb, hb->v[i].objfile);
		b->proc = xp_fb_str(fb, hb->v[i].proc);
		b->block = hb->v[i].block;
		b->count = hb->v[i].count;
		block_source(fb, hb->v[i].pi, hb->v[i].block, b);
	}
	return XP_E_OK;
}

/* The covers: counters (zeros never help reach a share, so they were
 * left out) and procedure sums. */
static void set_covers(sumwork *w, uint32_t np)
{
	xp_qsort(w->vals, w->nvals, sizeof *w->vals, u64_desc);
	xp_qsort(w->psums, np, sizeof *w->psums, u64_desc);
	for (size_t i = 0; i < N_COVERS; i++) {
		xp_cover *cv = &w->s->covers[i];
		cv->cutoff_ppm = cover_cutoffs[i];
		cv->n_counters = xp_cover_count(w->vals, w->nvals,
		                                cv->cutoff_ppm, &cv->min_count);
		cv->n_procs = xp_cover_count(w->psums, np, cv->cutoff_ppm,
		                             &cv->min_proc_sum);
	}
}

static void set_totals(xp_summary *s, const xp_fb *fb)
{
	s->t.n_objfiles = xp_fb_count(fb, XP_T_OBJFILES);
	s->t.n_procs = xp_fb_count(fb, XP_T_PROCS);
	s->t.n_counters = xp_fb_count(fb, XP_T_COUNTERS);
	s->t.n_vp_records = xp_fb_count(fb, XP_T_VPS);
	s->t.n_blocks = xp_fb_count(fb, XP_T_BLOCKS);
	s->t.n_edges = xp_fb_count(fb, XP_T_EDGES);
	s->t.n_tuples = xp_fb_count(fb, XP_T_TUPLES);
	s->t.n_programs = xp_fb_count(fb, XP_T_PROGRAMS);
	s->t.n_srcfiles = xp_fb_count(fb, XP_T_SRCFILES);
	s->t.n_srclines = xp_fb_count(fb, XP_T_SRCLINES);
}

xp_err xp_summary_new(const xp_fb *fb, size_t top_n, xp_summary **out)
{
	xp_summary *s = calloc(1, sizeof *s);
	uint32_t nf = xp_fb_count(fb, XP_T_OBJFILES);
	uint32_t np = xp_fb_count(fb, XP_T_PROCS);
	sumwork w = {fb, s, NULL, 0, NULL, {0}, {0}};
	u128 total = {0, 0};
	xp_err err = XP_E_NOMEM;

	*out = NULL;
	if (s == NULL)
		return XP_E_NOMEM;
	w.hp.cap = top_n > np ? np : top_n;
	w.hb.cap = top_n;
	if (w.hb.cap > xp_fb_count(fb, XP_T_BLOCKS))
		w.hb.cap = xp_fb_count(fb, XP_T_BLOCKS);
	s->ofs = calloc(nf ? nf : 1, sizeof *s->ofs);
	w.vals = malloc(((size_t)xp_fb_count(fb, XP_T_COUNTERS) + 1) *
	                sizeof *w.vals);
	w.psums = malloc(((size_t)np + 1) * sizeof *w.psums);
	w.hp.v = malloc((w.hp.cap ? w.hp.cap : 1) * sizeof *w.hp.v);
	w.hb.v = malloc((w.hb.cap ? w.hb.cap : 1) * sizeof *w.hb.v);
	if (s->ofs == NULL || w.vals == NULL || w.psums == NULL ||
	    w.hp.v == NULL || w.hb.v == NULL)
		goto done;

	set_totals(s, fb);
	s->n_ofs = nf;
	for (uint32_t k = 0; k < nf; k++)
		sum_objfile(&w, k, &total);
	s->t.sum = u128_sat(total);
	if ((err = list_hot(&w)))
		goto done;
	set_covers(&w, np);
	*out = s;
	s = NULL;
	err = XP_E_OK;
done:
	XP_FREE(w.vals, w.psums, w.hp.v, w.hb.v);
	xp_summary_free(s);
	return err;
}

void xp_summary_free(xp_summary *s)
{
	if (s == NULL)
		return;
	XP_FREE(s->ofs, s->procs, s->blocks, s);
}

const xp_totals *xp_summary_totals(const xp_summary *s)
{
	return &s->t;
}

size_t xp_summary_n_objfiles(const xp_summary *s)
{
	return s->n_ofs;
}

const xp_sum_objfile *xp_summary_objfile(const xp_summary *s, size_t i)
{
	return &s->ofs[i];
}

size_t xp_summary_n_hot_procs(const xp_summary *s)
{
	return s->n_procs;
}

const xp_sum_proc *xp_summary_hot_proc(const xp_summary *s, size_t i)
{
	return &s->procs[i];
}

size_t xp_summary_n_hot_blocks(const xp_summary *s)
{
	return s->n_blocks;
}

const xp_sum_block *xp_summary_hot_block(const xp_summary *s, size_t i)
{
	return &s->blocks[i];
}

size_t xp_summary_n_covers(const xp_summary *s)
{
	(void)s;
	return N_COVERS;
}

const xp_cover *xp_summary_cover(const xp_summary *s, size_t i)
{
	return &s->covers[i];
}
