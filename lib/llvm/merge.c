/*
 * llvm/merge.c - sums LLVM profiles as `llvm-profdata merge` does
 * (xp_prof_merge, xprof_merge; llvm(5), MERGING), in an order that does
 * not depend on the order of the inputs.
 *
 * Records are matched by name and hash.  A record's counters are
 * multiplied by the input's weight and added (saturating at 2^64 - 1),
 * its bitmap bytes ORed; the values of a value site are matched by value
 * (a call target by the key of its name) and their weighted counts
 * added, then ordered by count, largest first, ties by value, and cut to
 * the 255 that LLVM keeps.  A record that comes from one input keeps the
 * order of its values among equal counts, as llvm-profdata keeps it.
 * Where llvm-profdata keeps whichever record came first, the rule here
 * is a total order: of records with different numbers of counters, the
 * one with more counters is kept; of value kinds with different numbers
 * of sites, the one with more sites; of bitmaps, the longer.  With
 * --mode=max or min the weighted counts of a counter, a bitmap byte
 * (AND for min) or a value combine by their largest or smallest among
 * the inputs that hold them.  Flags are ORed, as llvm-profdata ORs them;
 * temporal traces are all kept, in order of their functions and weight.
 */
#include <math.h>

#include "llvm/llvm.h"

typedef struct {
	double w;
	xp_merge_mode mode;
	uint64_t sat;          /* counts that saturated */
	const char *name;
	xp_diags *d;
} mstate;

static uint64_t scaled(uint64_t v, mstate *ms)
{
	long double x;

	if (ms->w == 1.0)
		return v;
	if (ms->w == floor(ms->w) && ms->w < 18446744073709551616.0) {
		uint64_t k = (uint64_t)ms->w;
		if (v != 0 && k > UINT64_MAX / v) {
			ms->sat++;
			return UINT64_MAX;
		}
		return v * k;
	}
	x = floorl((long double)v * (long double)ms->w + 0.5L);
	if (x >= 18446744073709551615.0L) {
		ms->sat++;
		return UINT64_MAX;
	}
	return (uint64_t)x;
}

static uint64_t combine(uint64_t a, uint64_t b, mstate *ms)
{
	if (ms->mode == XP_MERGE_MAX)
		return a > b ? a : b;
	if (ms->mode == XP_MERGE_MIN)
		return a < b ? a : b;
	if (b > UINT64_MAX - a) {
		ms->sat++;
		return UINT64_MAX;
	}
	return a + b;
}

/* ------------------------------------------------------------------ */
/* Value sites                                                         */
/* ------------------------------------------------------------------ */

static int cmp_value(const void *l, const void *r)
{
	const xp_llvm_value *a = l, *b = r;
	return a->value < b->value ? -1 : a->value > b->value;
}

static int cmp_count(const void *l, const void *r)
{
	const xp_llvm_value *a = l, *b = r;
	return a->count > b->count ? -1 : a->count < b->count;
}

/* A stable sort of n values (n is small: at most a few hundred). */
static void stable_sort(xp_llvm_value *v, size_t n,
                        int (*cmp)(const void *, const void *))
{
	for (size_t i = 1; i < n; i++) {
		xp_llvm_value t = v[i];
		size_t j = i;
		while (j > 0 && cmp(&v[j - 1], &t) > 0) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = t;
	}
}

/* LLVM's order of a site after each addition: by count, largest first,
 * equal counts as they were, at most 255 values. */
static void settle(xp_llvm_site *s)
{
	stable_sort(s->values, s->n_values, cmp_count);
	while (s->n_values > 255)
		free((char *)s->values[--s->n_values].name);
}

/* A copy of v (its count scaled) into *o. */
static xp_err copy_value(const xp_llvm_value *v, xp_llvm_value *o,
                         mstate *ms)
{
	*o = *v;
	o->count = scaled(v->count, ms);
	if (v->name != NULL &&
	    (o->name = xp_strndup(v->name, strlen(v->name))) == NULL)
		return XP_E_NOMEM;
	return XP_E_OK;
}

/* o = a + b weighted, values matched by value (LLVM sorts both sides by
 * value, stably, and walks them together). */
static xp_err merge_site(const xp_llvm_site *a, const xp_llvm_site *b,
                         xp_llvm_site *o, mstate *ms)
{
	size_t na = a->n_values, nb = b->n_values, i = 0, j = 0;
	xp_llvm_value *sa, *sb;
	double w = ms->w;
	xp_err err = XP_E_OK;

	sa = malloc((na + nb + 1) * sizeof *sa);
	sb = malloc((nb + 1) * sizeof *sb);
	o->values = calloc(na + nb + 1, sizeof *o->values);
	o->n_values = 0;
	if (sa == NULL || sb == NULL || o->values == NULL) {
		err = XP_E_NOMEM;
		goto out;
	}
	if (na > 0)
		memcpy(sa, a->values, na * sizeof *sa);
	if (nb > 0)
		memcpy(sb, b->values, nb * sizeof *sb);
	stable_sort(sa, na, cmp_value);
	stable_sort(sb, nb, cmp_value);
	while (i < na || j < nb) {
		xp_llvm_value *v = &o->values[o->n_values];
		if (j == nb || (i < na && sa[i].value < sb[j].value)) {
			ms->w = 1.0;
			err = copy_value(&sa[i++], v, ms);
		} else if (i == na || sb[j].value < sa[i].value) {
			err = copy_value(&sb[j++], v, ms);
		} else {
			ms->w = 1.0;
			err = copy_value(&sa[i++], v, ms);
			ms->w = w;
			v->count = combine(v->count, scaled(sb[j++].count, ms),
			                   ms);
		}
		ms->w = w;
		if (err != XP_E_OK)
			goto out;
		o->n_values++;
	}
	settle(o);
out:
	free(sa);
	free(sb);
	return err;
}

/* ------------------------------------------------------------------ */
/* Records                                                             */
/* ------------------------------------------------------------------ */

/* The sites of kind k of f copied into o, scaled. */
static xp_err copy_sites(const xp_llvm_func *f, unsigned k, xp_llvm_func *o,
                         mstate *ms)
{
	uint32_t ns = f->n_sites[k];
	xp_err err;

	if (ns == 0)
		return XP_E_OK;
	if ((o->sites[k] = calloc(ns, sizeof *o->sites[k])) == NULL)
		return XP_E_NOMEM;
	o->n_sites[k] = ns;
	for (uint32_t s = 0; s < ns; s++) {
		const xp_llvm_site *src = &f->sites[k][s];
		xp_llvm_site *dst = &o->sites[k][s];
		dst->values = calloc(src->n_values + 1, sizeof *dst->values);
		if (dst->values == NULL)
			return XP_E_NOMEM;
		for (uint32_t i = 0; i < src->n_values; i++) {
			if ((err = copy_value(&src->values[i],
			                      &dst->values[i], ms)))
				return err;
			dst->n_values++;
		}
		settle(dst);
	}
	return XP_E_OK;
}

/* A copy of f into o, every count scaled: a record new to the sum. */
static xp_err copy_func(const xp_llvm_func *f, xp_llvm_func *o, mstate *ms)
{
	xp_err err;

	memset(o, 0, sizeof *o);
	o->hash = f->hash;
	if ((o->name = xp_strndup(f->name, strlen(f->name))) == NULL ||
	    (o->counts = malloc(f->n_counts * sizeof *o->counts)) == NULL ||
	    (o->bitmap = malloc(f->n_bitmap + 1)) == NULL)
		return XP_E_NOMEM;
	o->n_counts = f->n_counts;
	for (size_t i = 0; i < f->n_counts; i++)
		o->counts[i] = scaled(f->counts[i], ms);
	o->n_bitmap = f->n_bitmap;
	if (f->n_bitmap > 0)
		memcpy(o->bitmap, f->bitmap, f->n_bitmap);
	for (unsigned k = 0; k < XP_LLVM_N_KINDS; k++)
		if ((err = copy_sites(f, k, o, ms)) != XP_E_OK)
			return err;
	return XP_E_OK;
}

static void mismatch(mstate *ms, const xp_llvm_func *f, const char *what,
                     uint64_t here, uint64_t there)
{
	xp_diag_warn(ms->d, ms->name, "%s (hash %llu): %llu %s, the merged "
	             "profile's %llu: kept the %s", f->name,
	             (unsigned long long)f->hash, (unsigned long long)here,
	             what, (unsigned long long)there,
	             here > there ? "input's" : "merged profile's");
}

/* The sites of kind k: a's and b's merged, or those of the one with
 * more sites. */
static xp_err fold_kind(const xp_llvm_func *a, const xp_llvm_func *b,
                        unsigned k, xp_llvm_func *o, mstate *ms)
{
	uint32_t na = a->n_sites[k], nb = b->n_sites[k];
	double w = ms->w;
	xp_err err;

	if (na != nb) {
		mismatch(ms, b, "value sites", nb, na);
		if (nb < na)
			ms->w = 1.0;
		err = copy_sites(nb > na ? b : a, k, o, ms);
		ms->w = w;
		return err;
	}
	if (na == 0)
		return XP_E_OK;
	if ((o->sites[k] = calloc(na, sizeof *o->sites[k])) == NULL)
		return XP_E_NOMEM;
	o->n_sites[k] = na;
	for (uint32_t s = 0; s < na; s++)
		if ((err = merge_site(&a->sites[k][s], &b->sites[k][s],
		                      &o->sites[k][s], ms)) != XP_E_OK)
			return err;
	return XP_E_OK;
}

/* o = a + b weighted, where a and b have the same key and counters. */
static xp_err fold_func(const xp_llvm_func *a, const xp_llvm_func *b,
                        xp_llvm_func *o, mstate *ms)
{
	const xp_llvm_func *bm = a;
	double w = ms->w;
	xp_err err;

	memset(o, 0, sizeof *o);
	o->hash = a->hash;
	o->n_counts = a->n_counts;
	if (b->n_bitmap > a->n_bitmap)
		bm = b;
	if ((o->name = xp_strndup(a->name, strlen(a->name))) == NULL ||
	    (o->counts = malloc(a->n_counts * sizeof *o->counts)) == NULL ||
	    (o->bitmap = malloc(bm->n_bitmap + 1)) == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < a->n_counts; i++)
		o->counts[i] = combine(a->counts[i], scaled(b->counts[i], ms),
		                       ms);
	o->n_bitmap = bm->n_bitmap;
	if (bm->n_bitmap > 0)
		memcpy(o->bitmap, bm->bitmap, bm->n_bitmap);
	if (a->n_bitmap != b->n_bitmap)
		mismatch(ms, b, "bitmap bytes", b->n_bitmap, a->n_bitmap);
	else
		for (size_t i = 0; i < a->n_bitmap; i++)
			o->bitmap[i] = ms->mode == XP_MERGE_MIN
			               ? a->bitmap[i] & b->bitmap[i]
			               : a->bitmap[i] | b->bitmap[i];
	for (unsigned k = 0; k < XP_LLVM_N_KINDS; k++)
		if ((err = fold_kind(a, b, k, o, ms)) != XP_E_OK)
			break;
	ms->w = w;
	return err;
}

/* ------------------------------------------------------------------ */
/* The sum                                                             */
/* ------------------------------------------------------------------ */

/*
 * A record of the sum being built: cur is either an acc record (owned
 * 0: acc still owns it) or one built here (owned 1).
 */
typedef struct {
	xp_llvm_func f;
	int owned;
} slot;

/* Adds b (of the input) into the slot of its key. */
static xp_err add_into(slot *s, const xp_llvm_func *b, mstate *ms)
{
	xp_llvm_func o;
	xp_err err;

	if (s->f.n_counts != b->n_counts) {
		mismatch(ms, b, "counters", b->n_counts, s->f.n_counts);
		if (b->n_counts < s->f.n_counts)
			return XP_E_OK;
		err = copy_func(b, &o, ms);
	} else {
		err = fold_func(&s->f, b, &o, ms);
	}
	if (err != XP_E_OK) {
		xp_llvm_func_free(&o);
		return err;
	}
	if (s->owned)
		xp_llvm_func_free(&s->f);
	s->f = o;
	s->owned = 1;
	return XP_E_OK;
}

static int cmp_trace(const void *l, const void *r)
{
	const xp_llvm_trace *a = l, *b = r;

	for (size_t i = 0; i < a->n_names && i < b->n_names; i++) {
		int c = strcmp(a->names[i], b->names[i]);
		if (c != 0)
			return c;
	}
	if (a->n_names != b->n_names)
		return a->n_names < b->n_names ? -1 : 1;
	return a->weight < b->weight ? -1 : a->weight > b->weight;
}

/* The traces of acc (moved when the merge succeeds) and copies of in's,
 * in order, into nw. */
static xp_err merge_traces(const xp_llvm *acc, const xp_llvm *in,
                           xp_llvm *nw, mstate *ms)
{
	size_t na = acc ? acc->n_traces : 0, n = na + in->n_traces;

	nw->trace_stream_size = combine(acc ? acc->trace_stream_size : 0,
	                                in->trace_stream_size, ms);
	if ((nw->traces = calloc(n + 1, sizeof *nw->traces)) == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < in->n_traces; i++) {
		const xp_llvm_trace *t = &in->traces[i];
		xp_llvm_trace *c = &nw->traces[nw->n_traces];
		c->weight = t->weight;
		if ((c->names = calloc(t->n_names + 1, sizeof *c->names)) ==
		    NULL)
			return XP_E_NOMEM;
		nw->n_traces++;
		for (size_t j = 0; j < t->n_names; j++) {
			if ((c->names[j] = xp_strndup(t->names[j],
			                                   strlen(t->names[j])))
			    == NULL)
				return XP_E_NOMEM;
			c->n_names++;
		}
	}
	return XP_E_OK;
}

/* The input's records ordered by key, equal ones in file order. */
static const xp_llvm_func **sorted_input(const xp_llvm *in)
{
	const xp_llvm_func **p = malloc((in->n_funcs + 1) * sizeof *p);

	if (p == NULL)
		return NULL;
	for (size_t i = 0; i < in->n_funcs; i++)
		p[i] = &in->funcs[i];
	xp_qsort(p, in->n_funcs, sizeof *p, xp_llvm_cmp_func_ptr);
	return p;
}

/* The records of acc and in, walked together by key, into slots. */
static xp_err merge_funcs(const xp_llvm *acc, const xp_llvm_func **ip,
                          size_t ni, slot *sl, size_t *nsl, mstate *ms)
{
	size_t na = acc ? acc->n_funcs : 0, i = 0, j = 0, n = 0;

	while (i < na || j < ni) {
		slot *s = &sl[n];
		int c = i == na ? 1 : j == ni ? -1
		        : xp_llvm_cmp_func(&acc->funcs[i], ip[j]);
		xp_err err = XP_E_OK;

		if (c <= 0) {
			s->f = acc->funcs[i++];
			s->owned = 0;
		} else {
			s->owned = 1;
			err = copy_func(ip[j++], &s->f, ms);
		}
		n++;
		while (err == XP_E_OK && j < ni &&
		       xp_llvm_cmp_func(&s->f, ip[j]) == 0)
			err = add_into(s, ip[j++], ms);
		if (err != XP_E_OK) {
			*nsl = n;
			return err;
		}
	}
	*nsl = n;
	return XP_E_OK;
}

xp_err xp_llvm_merge(void **accp, const void *inp, double weight,
                     const xp_prof_merge_opts *o, const char *name,
                     xp_diags *d)
{
	xp_llvm *acc = *accp, *nw;
	const xp_llvm *in = inp;
	const xp_llvm_func **ip = NULL;
	slot *sl = NULL;
	size_t nsl = 0;
	mstate ms = { weight, o->mode, 0, name, d };
	xp_err err = XP_E_NOMEM;

	if ((nw = xp_llvm_new()) == NULL)
		return XP_E_NOMEM;
	nw->merged = 1;
	nw->flags = (acc ? acc->flags : 0) | in->flags;
	if (acc != NULL && ((acc->flags ^ in->flags) & XP_LLVM_IR))
		xp_diag_warn(d, name, "%s profile merged with %s one: their "
		             "counters count different things",
		             in->flags & XP_LLVM_IR ? "an IR-level"
		                                    : "a front-end",
		             in->flags & XP_LLVM_IR ? "a front-end"
		                                    : "an IR-level");
	ip = sorted_input(in);
	sl = calloc((acc ? acc->n_funcs : 0) + in->n_funcs + 1, sizeof *sl);
	if (ip == NULL || sl == NULL)
		goto fail;
	if ((err = merge_funcs(acc, ip, in->n_funcs, sl, &nsl, &ms)) ||
	    (err = merge_traces(acc, in, nw, &ms)))
		goto fail;
	err = XP_E_NOMEM;
	if ((nw->funcs = calloc(nsl + 1, sizeof *nw->funcs)) == NULL)
		goto fail;
	/* Commit: nothing fails from here on. */
	for (size_t i = 0; i < nsl; i++)
		nw->funcs[i] = sl[i].f;
	nw->n_funcs = nsl;
	if (acc != NULL) {
		/* acc's records that were replaced go; the others moved. */
		size_t k = 0;
		for (size_t i = 0; i < acc->n_funcs; i++) {
			while (k < nsl && xp_llvm_cmp_func(&sl[k].f,
			                                   &acc->funcs[i]) < 0)
				k++;
			if (k < nsl && sl[k].owned)
				xp_llvm_func_free(&acc->funcs[i]);
		}
		acc->n_funcs = 0;
		memcpy(nw->traces + nw->n_traces, acc->traces,
		       acc->n_traces * sizeof *acc->traces);
		nw->n_traces += acc->n_traces;
		acc->n_traces = 0;
	}
	xp_qsort(nw->traces, nw->n_traces, sizeof *nw->traces, cmp_trace);
	if (ms.sat > 0)
		xp_diag_warn(d, name, "%llu counts overflowed and were kept at "
		             "2^64-1", (unsigned long long)ms.sat);
	xp_llvm_free(acc);
	*accp = nw;
	free(ip);
	free(sl);
	return XP_E_OK;
fail:
	for (size_t i = 0; i < nsl; i++)
		if (sl[i].owned)
			xp_llvm_func_free(&sl[i].f);
	xp_llvm_free(nw);
	free(ip);
	free(sl);
	return err;
}
