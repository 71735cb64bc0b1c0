/*
 * feedback/summary.c - summarizing one feedback profile: the totals, the
 * object files, the hottest procedures and blocks, and how few blocks
 * cover most of the counts, the figures xprof_show(1) prints.
 *
 * The hottest entries are kept in bounded heaps, and the counts that
 * cover a share are selected rather than sorted (below), so a summary
 * reads the profile's counters about twice and keeps little more than a
 * sum per procedure.  Coverage is decided with the exact arithmetic of
 * compare.h: whether a prefix of the counts reaches a share of the total
 * is a comparison of integers.
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

/* ------------------------------------------------------------------ */
/* Covers by selection                                                 */
/* ------------------------------------------------------------------ */

/*
 * A cover needs the largest counts only up to the one at which their
 * running sum reaches the share, so the counts are not sorted but
 * selected.  They are first counted and summed in buckets by magnitude:
 * the bit length and the MAG_SUB bits below the top one, each value its
 * own bucket below 2^(MAG_SUB+1).  A larger count never falls in a lower
 * bucket, so walking the buckets from the top finds the one in which the
 * share is reached.  Only that bucket's counts are gathered, and the
 * same walk over their next 8 bits, and the next, narrows them down to
 * one value, of which as many are taken as reach the share.  There are
 * at most eight such steps, each over no more counts than the one
 * before, so the cost is linear.
 */
#define MAG_SUB 7
#define MAG_N ((size_t)(65 - MAG_SUB) << MAG_SUB)

/* Counts and sums by bucket. */
typedef struct {
	uint64_t n[MAG_N];
	u128 sum[MAG_N];
} maghist;

/* The bucket of v, computed without branches: counts come in no order
 * a branch could predict. */
static inline unsigned mag_key(uint64_t v)
{
	unsigned len = 64 - (unsigned)__builtin_clzll(v | 1);
	unsigned shift = len > MAG_SUB + 1 ? len - MAG_SUB - 1 : 0;

	return (shift << MAG_SUB) + (unsigned)(v >> shift);
}

/* How many low bits the values of bucket key may differ in. */
static unsigned mag_low_bits(unsigned key)
{
	return key < (2u << MAG_SUB) ? 0 : (key >> MAG_SUB) - 1;
}

/* Adds count v.  Zeros, in bucket 0, never help reach a share: the
 * walk below never stops there. */
static inline void mag_add(maghist *h, uint64_t v)
{
	unsigned k = mag_key(v);
	h->n[k]++;
	u128_add(&h->sum[k], v);
}

static void u128_add128(u128 *x, u128 y)
{
	u128_add(x, y.lo);
	x->hi += y.hi;
}

/* a * b, exactly. */
static u128 u128_mul(uint64_t a, uint64_t b)
{
	uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
	uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
	return (u128){p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32),
	              mid << 32 | (uint32_t)p00};
}

/* Where a cover is while it is being found. */
typedef struct {
	big need;     /* total * cutoff_ppm: run * 10^6 must reach it */
	u128 run;     /* the sum of the counts taken */
	uint64_t k;   /* how many were taken */
} coverwalk;

static int reaches(const coverwalk *c, u128 run)
{
	big have;
	big_mul(&have, run, 1000000);
	return big_cmp(&have, &c->need) >= 0;
}

/*
 * Takes whole buckets of n and sum from the last one down while they do
 * not reach the share; returns the bucket that does, or nb when none.
 */
static size_t walk_buckets(coverwalk *c, const uint64_t *n, const u128 *sum,
                           size_t nb)
{
	for (size_t b = nb; b-- > 0;) {
		u128 r = c->run;
		if (n[b] == 0)
			continue;
		u128_add128(&r, sum[b]);
		if (reaches(c, r))
			return b;
		c->run = r;
		c->k += n[b];
	}
	return nb;
}

/* The values of bucket key: lo to hi. */
static void mag_range(unsigned key, uint64_t *lo, uint64_t *hi)
{
	unsigned low = mag_low_bits(key);

	*lo = key < (2u << MAG_SUB)
	          ? key
	          : (uint64_t)(1u << MAG_SUB | (key & ((1u << MAG_SUB) - 1)))
	                << low;
	*hi = *lo + (((uint64_t)1 << low) - 1);
}

/*
 * Finishes a cover in the m counts of a bucket from lo that differ only
 * in their low bits (with none, all are lo and a is not needed) and
 * reach the share with the run before them; a is reordered.
 */
static void cover_in(coverwalk *c, uint64_t *a, size_t m, unsigned low,
                     uint64_t lo, uint64_t *min)
{
	uint64_t n[256];
	u128 sum[256];

	while (low > 0) {
		unsigned w = low < 8 ? low : 8, shift = low - w;
		size_t b, kept = 0;

		memset(n, 0, sizeof n);
		memset(sum, 0, sizeof sum);
		for (size_t i = 0; i < m; i++) {
			unsigned d = (unsigned)(a[i] >> shift) & ((1u << w) - 1);
			n[d]++;
			u128_add(&sum[d], a[i]);
		}
		b = walk_buckets(c, n, sum, (size_t)1 << w);
		for (size_t i = 0; i < m; i++)
			if (((unsigned)(a[i] >> shift) & ((1u << w) - 1)) == b)
				a[kept++] = a[i];
		m = kept;
		lo = a[0];
		low = shift;
	}
	/* m copies of lo: the fewest of them that reach the share. */
	uint64_t k = 1, hi = m;
	while (k < hi) {
		uint64_t mid = k + (hi - k) / 2;
		u128 r = c->run;
		u128_add128(&r, u128_mul(lo, mid));
		if (reaches(c, r))
			hi = mid;
		else
			k = mid + 1;
	}
	c->k += k;
	*min = lo;
}

/* What is gathered from the counts: per cover, those from lo[i] to hi[i]
 * into out[i]; least is the smallest lo[i]. */
typedef struct {
	uint64_t lo[N_COVERS], hi[N_COVERS], least;
	uint64_t *out[N_COVERS];
} gathering;

static inline void gather_one(gathering *g, uint64_t v)
{
	if (v < g->least)
		return;
	for (size_t i = 0; i < N_COVERS; i++)
		if (v >= g->lo[i] && v <= g->hi[i])
			*g->out[i]++ = v;
}

/* Passes every count of what ctx holds to gather_one(). */
typedef void gather_fn(const void *ctx, gathering *g);

/*
 * The covers of the counts h holds (total: their sum), which gather
 * gives, as xp_cover_count() defines them: k[i] and min[i] for
 * cover_cutoffs[i].
 */
static xp_err covers_select(const maghist *h, u128 total, gather_fn *gather,
                            const void *ctx, uint64_t k[N_COVERS],
                            uint64_t min[N_COVERS])
{
	coverwalk c[N_COVERS];
	size_t b[N_COVERS];
	uint64_t *a[N_COVERS] = {NULL}, lo[N_COVERS], hi;
	gathering g = {.least = UINT64_MAX};
	xp_err err = XP_E_OK;

	memset(c, 0, sizeof c);
	for (size_t i = 0; i < N_COVERS; i++) {
		k[i] = min[i] = 0;
		if (u128_zero(total))
			continue;
		big_mul(&c[i].need, total, cover_cutoffs[i]);
		/* All of the total reaches any share up to 100%. */
		b[i] = walk_buckets(&c[i], h->n, h->sum, MAG_N);
		mag_range((unsigned)b[i], &lo[i], &hi);
		g.lo[i] = 1;
		g.hi[i] = 0;
		if (mag_low_bits((unsigned)b[i]) == 0)
			continue;
		if ((a[i] = g.out[i] = malloc(h->n[b[i]] * sizeof *a[i])) == NULL)
			err = XP_E_NOMEM;
		g.lo[i] = lo[i];
		g.hi[i] = hi;
		if (lo[i] < g.least)
			g.least = lo[i];
	}
	if (!err && g.least != UINT64_MAX)
		gather(ctx, &g);
	for (size_t i = 0; !err && !u128_zero(total) && i < N_COVERS; i++) {
		cover_in(&c[i], a[i], h->n[b[i]], mag_low_bits((unsigned)b[i]),
		         lo[i], &min[i]);
		k[i] = c[i].k;
	}
	for (size_t i = 0; i < N_COVERS; i++)
		free(a[i]);
	return err;
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

/* Adds x to h if it is hotter than the coldest kept or h has room. */
static void __attribute__((noinline))
heap_insert(hotheap *h, const hot *x)
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

/* Offers x to h, at the cost of a comparison for most candidates:
 * those colder than the coldest kept. */
static inline void heap_push(hotheap *h, const hot *x)
{
	if (h->n < h->cap || (h->cap > 0 && x->count >= h->v[0].count))
		heap_insert(h, x);
}

/* A procedure's counters, to be found by id. */
typedef struct {
	const unsigned char *cn;  /* its n counter records */
	uint32_t n;
	uint32_t *pos;            /* per id up to n: 1 + its record, or 0 */
	int mapped;               /* whether pos is built */
} proc_counters;

static uint32_t counter_id(const proc_counters *c, uint32_t i)
{
	return xp_get_le32(c->cn + (size_t)i * XP_RS_COUNTER + XP_CN_ID);
}

/* The value of counter id of a procedure, or -1 when it has none. */
static int counter_value(proc_counters *c, uint32_t id, uint64_t *v)
{
	uint32_t i = id - 1;

	/*
	 * Counters usually come in id order starting at 1.  Otherwise those
	 * numbered 1 to n (every one, in a profile that passed the checks)
	 * are found through a map of the procedure's ids, built once, and
	 * any other by a search; the first of equal ids counts.
	 */
	if (id >= 1 && id <= c->n && counter_id(c, i) != id) {
		if (!c->mapped) {
			memset(c->pos + 1, 0, c->n * sizeof *c->pos);
			for (uint32_t j = c->n; j-- > 0;) {
				uint32_t k = counter_id(c, j);
				if (k >= 1 && k <= c->n)
					c->pos[k] = j + 1;
			}
			c->mapped = 1;
		}
		i = c->pos[id] - 1;
	} else if (id < 1 || id > c->n) {
		for (i = 0; i < c->n && counter_id(c, i) != id; i++)
			;
	}
	if (i >= c->n)
		return -1;
	*v = xp_get_le64(c->cn + (size_t)i * XP_RS_COUNTER + XP_CN_VALUE);
	return 0;
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
	maghist *hc;      /* the counters' values that are not zero */
	uint64_t *psums;  /* per procedure: the sum of its counters */
	uint32_t np;
	uint32_t *pos;    /* room for proc_counters.pos */
	hotheap hp, hb;   /* the hottest procedures and blocks */
} sumwork;

/* Adds procedure pi of object file of to its object file's figures and
 * offers it and its blocks to the top lists. */
static void sum_proc(sumwork *w, const xp_objfile *of, uint32_t pi,
                     xp_sum_objfile *so, u128 *fsum)
{
	const xp_fb *fb = w->fb;
	xp_proc pr;
	const unsigned char *cn, *bk;
	proc_counters pc;
	u128 psum = {0, 0};
	uint64_t pmax = 0;

	xp_fb_proc(fb, pi, &pr);
	cn = xp_rec(fb, XP_T_COUNTERS, pr.first_counter);
	bk = xp_rec(fb, XP_T_BLOCKS, pr.first_block);
	pc = (proc_counters){cn, pr.n_counters, w->pos, 0};
	so->n_counters += pr.n_counters;
	for (uint32_t j = 0; j < pr.n_counters; j++) {
		uint64_t v = xp_get_le64(cn + (size_t)j * XP_RS_COUNTER +
		                         XP_CN_VALUE);
		u128_add(&psum, v);
		if (v > pmax)
			pmax = v;
		mag_add(w->hc, v);
	}
	u128_add(fsum, psum.lo);
	fsum->hi += psum.hi;
	if (pmax > so->max)
		so->max = pmax;
	w->psums[pi] = u128_sat(psum);
	heap_push(&w->hp, &(hot){w->psums[pi], of->path, pr.name, 0, pi, 0});
	for (uint32_t j = 0; j < pr.n_blocks; j++) {
		const unsigned char *b = bk + (size_t)j * XP_RS_BLOCK;
		uint32_t counter = xp_get_le32(b + XP_BK_COUNTER);
		uint64_t v;

		if (counter == 0 ||
		    counter_value(&pc, counter, &v) != 0)
			continue;
		heap_push(&w->hb, &(hot){v, of->path, pr.name,
		                         xp_get_le32(b + XP_BK_ID), pi,
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

/* The counts: of the counters (ctx: the profile), of the procedure sums
 * (ctx: the summary's work). */
static void gather_counters(const void *ctx, gathering *g)
{
	const xp_fb *fb = ctx;
	const unsigned char *cn = xp_rec(fb, XP_T_COUNTERS, 0);

	for (uint32_t i = 0; i < fb->n[XP_T_COUNTERS]; i++)
		gather_one(g, xp_get_le64(cn + (size_t)i * XP_RS_COUNTER +
		                          XP_CN_VALUE));
}

static void gather_psums(const void *ctx, gathering *g)
{
	const sumwork *w = ctx;

	for (uint32_t i = 0; i < w->np; i++)
		gather_one(g, w->psums[i]);
}

/* The covers: counters and procedure sums, whose histogram replaces the
 * counters'. */
static xp_err set_covers(sumwork *w, u128 total)
{
	uint64_t k[N_COVERS], min[N_COVERS];
	u128 ptotal = {0, 0};
	xp_cover *cv = w->s->covers;
	xp_err err = covers_select(w->hc, total, gather_counters, w->fb, k,
	                           min);

	for (size_t i = 0; i < N_COVERS; i++) {
		cv[i].cutoff_ppm = cover_cutoffs[i];
		cv[i].n_counters = k[i];
		cv[i].min_count = min[i];
	}
	memset(w->hc, 0, sizeof *w->hc);
	for (uint32_t i = 0; i < w->np; i++) {
		mag_add(w->hc, w->psums[i]);
		u128_add(&ptotal, w->psums[i]);
	}
	if (!err)
		err = covers_select(w->hc, ptotal, gather_psums, w, k, min);
	for (size_t i = 0; i < N_COVERS; i++) {
		cv[i].n_procs = k[i];
		cv[i].min_proc_sum = min[i];
	}
	return err;
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
	sumwork w = {fb, s, NULL, NULL, np, NULL, {0}, {0}};
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
	w.hc = calloc(1, sizeof *w.hc);
	w.psums = malloc(((size_t)np + 1) * sizeof *w.psums);
	w.pos = malloc(((size_t)xp_fb_count(fb, XP_T_COUNTERS) + 1) *
	               sizeof *w.pos);
	w.hp.v = malloc((w.hp.cap ? w.hp.cap : 1) * sizeof *w.hp.v);
	w.hb.v = malloc((w.hb.cap ? w.hb.cap : 1) * sizeof *w.hb.v);
	if (s->ofs == NULL || w.hc == NULL || w.psums == NULL ||
	    w.pos == NULL || w.hp.v == NULL || w.hb.v == NULL)
		goto done;

	set_totals(s, fb);
	s->n_ofs = nf;
	for (uint32_t k = 0; k < nf; k++)
		sum_objfile(&w, k, &total);
	s->t.sum = u128_sat(total);
	if ((err = list_hot(&w)) || (err = set_covers(&w, total)))
		goto done;
	*out = s;
	s = NULL;
	err = XP_E_OK;
done:
	XP_FREE(w.hc, w.psums, w.pos, w.hp.v, w.hb.v);
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
