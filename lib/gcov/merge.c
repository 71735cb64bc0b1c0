/*
 * gcov/merge.c - sums GCC data files (xp_prof_merge, xprof_merge) by
 * libgcov's rules, as a program that runs again merges its counters into
 * the file it finds (gcov(5), MERGING).
 *
 * Both files must come from the same compilation: the same release,
 * stamp, and functions in the same order with the same ident and
 * checksums, each with the same kinds of counter.  The sum keeps the
 * layout, byte order, stamp and checksum of the first input.  Per kind
 * of counter (gcc/gcov-counter.def), with in's counts scaled by its
 * weight (rounded to nearest) except where said:
 *  - add (arcs, interval, pow2, average): the sum;
 *  - ior: the bitwise or, unscaled (the counters are bit masks);
 *  - time_profiler: the smallest that is not zero, unscaled (the
 *    order in which functions were first run);
 *  - topn and indirect_call: per site the total is added; each (value,
 *    count) pair of in is added to the accumulated list in order: to a
 *    pair of the same value, else appended, else (32 pairs already) the
 *    pair of the smallest count loses one and is replaced when that
 *    leaves it below the new count; a site that lost pairs keeps a
 *    negative total, which -fprofile-reproducible reads.  Values are
 *    never scaled.
 * The first input is merged into counters that are all zero, so a
 * weight acts on it the same way.  A function that one input announces
 * without counters (a placeholder: it was not in that program) takes
 * the other's.  The summary's runs and sum_max are the weighted sums of
 * the inputs'.  A sum that would leave the 64-bit range of a counter or
 * the 32 bits of a summary field stays at the largest value, with a
 * warning.
 */
#include <math.h>

#include "gcov/gcov.h"

typedef struct {
	const xp_gcov *a, *b;  /* a may be NULL: counters all zero */
	xp_gcov *nw;
	double w;
	const xp_gcov_layout *lay;
	uint64_t sat;
	const char *name;
	xp_diags *d;
} mg;

/* v (a signed count) times w, rounded, kept in range. */
static int64_t scaled(int64_t v, double w, mg *m)
{
	double x;

	if (w == 1.0)
		return v;
	x = floor((double)v * w + 0.5);
	if (x >= 9223372036854775807.0) {
		m->sat++;
		return INT64_MAX;
	}
	if (x <= -9223372036854775807.0) {
		m->sat++;
		return -INT64_MAX;
	}
	return (int64_t)x;
}

static int64_t add(int64_t a, int64_t b, mg *m)
{
	if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < -INT64_MAX - b)) {
		m->sat++;
		return b > 0 ? INT64_MAX : -INT64_MAX;
	}
	return a + b;
}

/* A top-N site in memory: the total and the pairs in list order. */
typedef struct {
	int64_t total;
	size_t n;
	int64_t val[64], cnt[64];
} topn;

/* Reads the site at v[*k] (of n values) into s; -1 when malformed. */
static int topn_read(const uint64_t *v, size_t n, size_t *k, topn *s,
                     unsigned max)
{
	uint64_t m;

	if (n - *k < 2)
		return -1;
	s->total = (int64_t)v[*k];
	m = v[*k + 1];
	if (m > max || m > (n - *k - 2) / 2)
		return -1;
	s->n = (size_t)m;
	for (size_t i = 0; i < s->n; i++) {
		s->val[i] = (int64_t)v[*k + 2 + 2 * i];
		s->cnt[i] = (int64_t)v[*k + 3 + 2 * i];
	}
	*k += 2 + 2 * s->n;
	return 0;
}

/* gcov_topn_add_value without its total: 1 when the list was full. */
static int topn_add(topn *s, int64_t value, int64_t count, unsigned max,
                    mg *m)
{
	size_t min = SIZE_MAX;

	for (size_t i = 0; i < s->n; i++) {
		if (s->val[i] == value) {
			s->cnt[i] = add(s->cnt[i], count, m);
			return 0;
		}
		if (min == SIZE_MAX || s->cnt[i] < s->cnt[min])
			min = i;
	}
	if (s->n == max) {
		if (--s->cnt[min] < count) {
			s->val[min] = value;
			s->cnt[min] = count;
		}
		return 1;
	}
	s->val[s->n] = value;
	s->cnt[s->n++] = count;
	return 0;
}

/* __gcov_merge_topn for one site: in's site b into s. */
static void topn_merge(topn *s, const topn *b, mg *m)
{
	int64_t all = b->total == -1 ? -1 : scaled(b->total, m->w, m);
	int full = all < 0;

	s->total = add(s->total, full ? -all : all, m);
	for (size_t i = 0; i < b->n; i++) {
		int64_t c = b->cnt[i] == -1 ? -1 : scaled(b->cnt[i], m->w, m);
		full |= topn_add(s, b->val[i], c, m->lay->topn_max, m);
	}
	if (full)
		s->total = -s->total;
}

static xp_err bad(mg *m, const char *fmt, uint32_t ident)
{
	return xp_diag_file(m->d, XP_E_INVAL, m->name, fmt, ident);
}

/* The merged top-N counters of a record (ra NULL: none yet). */
static xp_err merge_topn(mg *m, const xp_gcov_rec *ra, const xp_gcov_rec *rb,
                         uint32_t ident)
{
	const uint64_t *va = ra && !ra->zero ? m->a->values + ra->index : NULL;
	const uint64_t *vb = rb->zero ? NULL : m->b->values + rb->index;
	size_t na = ra && !ra->zero ? ra->n : 0, nb = rb->zero ? 0 : rb->n;
	size_t ka = 0, kb = 0;
	unsigned max = m->lay->topn_max;
	xp_err err = XP_E_OK;

	while (kb < nb && err == XP_E_OK) {
		topn s = { 0, 0, { 0 }, { 0 } }, t;
		if ((ra != NULL && topn_read(va, na, &ka, &s, max)) ||
		    topn_read(vb, nb, &kb, &t, max))
			return bad(m, "the top-N counters of function %u are "
			           "not sites of at most 32 pairs", ident);
		topn_merge(&s, &t, m);
		if ((err = xp_gcov_add_value(m->nw, (uint64_t)s.total)) ||
		    (err = xp_gcov_add_value(m->nw, s.n)))
			return err;
		for (size_t i = 0; i < s.n && err == XP_E_OK; i++)
			if ((err = xp_gcov_add_value(m->nw,
			                             (uint64_t)s.val[i])) == XP_E_OK)
				err = xp_gcov_add_value(m->nw,
				                        (uint64_t)s.cnt[i]);
	}
	if (ka != na || (ra != NULL && nb == 0 && na != 0))
		return bad(m, "function %u has top-N sites the merged "
		           "profile's do not match", ident);
	return err;
}

/* One COUNTERS record: rb merged into ra (NULL: zeros). */
static xp_err merge_counters(mg *m, const xp_gcov_rec *ra,
                             const xp_gcov_rec *rb, uint32_t ident)
{
	xp_gcov_rec rc = *rb;
	xp_gcov_mergefn fn = m->lay->counters[rb->a].merge;
	int nonzero = 0;
	xp_err err;

	if (ra != NULL && (ra->tag != rb->tag ||
	    (fn != XP_GCOV_M_TOPN && ra->n != rb->n)))
		return bad(m, "function %u has other counters than the merged "
		           "profile's", ident);
	rc.index = m->nw->n_values;
	rc.zero = 0;
	if (fn == XP_GCOV_M_TOPN) {
		if ((err = merge_topn(m, ra, rb, ident)) != XP_E_OK)
			return err;
		rc.n = m->nw->n_values - rc.index;
		return xp_gcov_add_rec(m->nw, &rc);
	}
	for (size_t i = 0; i < rb->n; i++) {
		int64_t a = ra == NULL || ra->zero ? 0
		            : (int64_t)m->a->values[ra->index + i];
		int64_t b = rb->zero ? 0 : (int64_t)m->b->values[rb->index + i];
		if (fn == XP_GCOV_M_ADD)
			a = add(a, scaled(b, m->w, m), m);
		else if (fn == XP_GCOV_M_IOR)
			a |= b;
		else if (b != 0 && (a == 0 || b < a))
			a = b;
		nonzero |= a != 0;
		if ((err = xp_gcov_add_value(m->nw, (uint64_t)a)))
			return err;
	}
	/* libgcov writes counters that are all zero without values. */
	if (!nonzero && rc.n > 0) {
		m->nw->n_values = rc.index;
		rc.zero = 1;
	}
	return xp_gcov_add_rec(m->nw, &rc);
}

/* The end of the group of records that starts at i: a FUNCTION and its
 * COUNTERS, or one other record. */
static size_t group_end(const xp_gcov *g, size_t i)
{
	if (g->recs[i].type != XP_GCOV_FUNCTION)
		return i + 1;
	for (i++; i < g->n_recs && g->recs[i].type == XP_GCOV_COUNTERS; i++)
		;
	return i;
}

/* A function and its counters: b's group [ib, eb) into a's [ia, ea). */
static xp_err merge_function(mg *m, size_t ia, size_t ea, size_t ib,
                             size_t eb)
{
	const xp_gcov_fn *fa = m->a ? &m->a->fns[m->a->recs[ia].index] : NULL;
	const xp_gcov_fn *fb = &m->b->fns[m->b->recs[ib].index];
	xp_gcov_rec rc = m->b->recs[ib];
	xp_err err;

	if (fa != NULL && !fa->placeholder && !fb->placeholder &&
	    (fa->ident != fb->ident || fa->lineno_checksum !=
	     fb->lineno_checksum || fa->cfg_checksum != fb->cfg_checksum))
		return bad(m, "function %u differs from the merged profile's "
		           "(ident or checksums): not the same compilation",
		           fb->ident);
	if (fa != NULL && !fa->placeholder && !fb->placeholder &&
	    ea - ia != eb - ib)
		return bad(m, "function %u has other kinds of counter than the "
		           "merged profile's", fb->ident);
	if (fb->placeholder && fa != NULL && !fa->placeholder) {
		/* in did not have it: a's as it is. */
		const xp_gcov *b = m->b;
		double w = m->w;
		m->b = m->a;
		m->a = NULL;
		m->w = 1;
		err = merge_function(m, 0, 0, ia, ea);
		m->a = m->b;
		m->b = b;
		m->w = w;
		return err;
	}
	if ((err = xp_gcov_add_fn(m->nw, fb, &rc.index)) ||
	    (err = xp_gcov_add_rec(m->nw, &rc)))
		return err;
	for (size_t k = 1; k < eb - ib; k++) {
		const xp_gcov_rec *ra = fa != NULL && !fa->placeholder
		                        ? &m->a->recs[ia + k] : NULL;
		if ((err = merge_counters(m, ra, &m->b->recs[ib + k],
		                          fb->ident)) != XP_E_OK)
			return err;
	}
	return XP_E_OK;
}

/* A summary field: a + b * w within 32 bits. */
static uint64_t sum32(uint64_t a, uint64_t b, mg *m)
{
	int64_t v = add((int64_t)a, scaled((int64_t)b, m->w, m), m);

	if (v > (int64_t)UINT32_MAX) {
		m->sat++;
		return UINT32_MAX;
	}
	return (uint64_t)v;
}

/* The records of b merged into a's (a NULL: into zeros). */
static xp_err merge_records(mg *m)
{
	const xp_gcov *a = m->a, *b = m->b;
	size_t ia = 0, ib = 0;
	xp_err err = XP_E_OK;

	while (ib < b->n_recs && err == XP_E_OK) {
		size_t eb = group_end(b, ib), ea = a ? group_end(a, ia) : 0;
		const xp_gcov_rec *rb = &b->recs[ib];
		const xp_gcov_rec *ra = a ? &a->recs[ia] : NULL;
		xp_gcov_rec rc = *rb;

		if (a != NULL && (ia >= a->n_recs || ra->type != rb->type ||
		                  ra->tag != rb->tag))
			return xp_diag_file(m->d, XP_E_INVAL, m->name, "record "
			                    "%zu (tag 0x%08x) does not match the "
			                    "merged profile's: not the same "
			                    "compilation", ib, rb->tag);
		if (rb->type == XP_GCOV_FUNCTION) {
			err = merge_function(m, ia, ea, ib, eb);
		} else if (rb->type == XP_GCOV_SUMMARY) {
			rc.a = (uint32_t)sum32(ra ? ra->a : 0, rb->a, m);
			rc.b = sum32(ra ? ra->b : 0, rb->b, m);
			err = xp_gcov_add_rec(m->nw, &rc);
		} else if (rb->type == XP_GCOV_UNKNOWN) {
			/* Records of no bytes have no place in raw. */
			if (ra != NULL && (ra->n != rb->n ||
			    (rb->n > 0 && memcmp(a->raw + ra->index,
			                         b->raw + rb->index, rb->n) != 0)))
				return xp_diag_file(m->d, XP_E_INVAL, m->name,
				                    "record 0x%08x (unknown) differs "
				                    "from the merged profile's",
				                    rb->tag);
			rc.index = m->nw->n_raw;
			err = rb->n == 0 ? XP_E_OK
			                 : xp_gcov_add_raw(m->nw, b->raw + rb->index,
			                                   rb->n);
			if (err == XP_E_OK)
				err = xp_gcov_add_rec(m->nw, &rc);
		} else {
			return xp_diag_file(m->d, XP_E_INVAL, m->name, "record "
			                    "%zu: counters outside a function",
			                    ib);
		}
		ib = eb;
		ia = ea;
	}
	if (err == XP_E_OK && a != NULL && ia != a->n_recs)
		return xp_diag_file(m->d, XP_E_INVAL, m->name, "it has fewer "
		                    "records than the merged profile: not the "
		                    "same compilation");
	return err;
}

xp_err xp_gcov_merge(void **accp, const void *inp, double weight,
                     const xp_prof_merge_opts *o, const char *name,
                     xp_diags *d)
{
	const xp_gcov *acc = *accp, *in = inp;
	mg m;
	xp_err err;

	(void)o;
	memset(&m, 0, sizeof m);
	if (in->kind != XP_GCOV_DATA)
		return xp_diag_file(d, XP_E_INVAL, name, "a notes file (.gcno) "
		                    "holds no counts to merge");
	if (acc != NULL && (acc->version != in->version ||
	                    acc->stamp != in->stamp))
		return xp_diag_file(d, XP_E_INVAL, name, "version 0x%08x, stamp "
		                    "0x%08x: the merged profile's are 0x%08x, "
		                    "0x%08x: not the same compilation",
		                    in->version, in->stamp, acc->version,
		                    acc->stamp);
	m.a = acc;
	m.b = in;
	m.w = weight;
	m.lay = xp_gcov_layout_get(in);
	m.name = name;
	m.d = d;
	if ((m.nw = xp_gcov_new(XP_GCOV_DATA, acc ? acc->big : in->big,
	                        in->version)) == NULL)
		return XP_E_NOMEM;
	m.nw->stamp = in->stamp;
	m.nw->checksum = acc ? acc->checksum : in->checksum;
	m.nw->end = acc ? acc->end : in->end;
	/* The sum goes by the first input's name (gcov(5), CONVERSION TO
	 * FEEDBACK: where its notes are). */
	if ((acc ? acc->path : in->path) != NULL &&
	    (m.nw->path = xp_gcov_strdup(m.nw, acc ? acc->path : in->path,
	                                 strlen(acc ? acc->path : in->path)))
	    == NULL) {
		xp_gcov_free(m.nw);
		return XP_E_NOMEM;
	}
	if ((err = merge_records(&m)) != XP_E_OK) {
		xp_gcov_free(m.nw);
		return err;
	}
	if (m.sat > 0)
		xp_diag_warn(d, name, "%llu counts left the range of their "
		             "field and were kept at its largest value",
		             (unsigned long long)m.sat);
	xp_gcov_free(*accp);
	*accp = m.nw;
	return XP_E_OK;
}
