/*
 * cpuprof/merge.c - summing CPU profiles (cpuprofile(5), MERGING).
 *
 * The sum is canonical: the same profiles with the same weights give the
 * same bytes in any order.  Each part of it is a commutative and
 * associative function of the inputs, so that adding them one at a time
 * gives what adding them all at once would:
 *
 *  - slot size and variant: those of the inputs, which must agree; the
 *    byte order is big-endian when every input's is;
 *  - the sampling period: that of the inputs, which must agree, or with
 *    rescale their greatest common divisor: each input's counts are then
 *    multiplied by its period divided by that divisor, an integer, and
 *    the counts of the sum so far too when the divisor shrinks;
 *  - the header slots after the period: those of the input that has the
 *    fewest header slots, then the smallest slot by slot;
 *  - the records: each count multiplied by its input's weight (rounded to
 *    the nearest integer, halves up: once per record of an input, so
 *    before the integer period factor), the PCs moved to where the sum
 *    maps their objects (merge_maps.c), records with identical call chains
 *    summed into one and sorted by call chain, PC by PC, a shorter chain
 *    first;
 *  - the mapped-objects text: merge_maps.c; in the Java variant the
 *    method list, which must be the same in every input.
 */
#include <stddef.h>

#include "cpuprof/cpuprof.h"

/* Sorting records by call chain: a record's chain (in its profile, or
 * moved into the merge's copy), its first PC (0 for none) and its
 * count. */
typedef struct {
	uint64_t first;
	const uint64_t *pcs;
	uint64_t count;
	size_t npcs;
} rref;

/* Chains PC by PC, a shorter one first when it is the start of the
 * other; 0 for the same chain. */
static int cmp_rref(const void *x, const void *y)
{
	const rref *a = x, *b = y;
	size_t n = a->npcs < b->npcs ? a->npcs : b->npcs;

	/* Most chains differ in their first PC, which needs no look at the
	 * chains (an empty chain's 0 is no PC: the loop decides those). */
	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	for (size_t k = 1; k < n; k++)
		if (a->pcs[k] != b->pcs[k])
			return a->pcs[k] < b->pcs[k] ? -1 : 1;
	if (a->npcs != b->npcs)
		return a->npcs < b->npcs ? -1 : 1;
	return 0;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b != 0) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* c * k into *out, or -1 when it exceeds max. */
static int mul(uint64_t c, uint64_t k, uint64_t max, uint64_t *out)
{
	if (k != 0 && c > max / k)
		return -1;
	*out = c * k;
	return 0;
}

/* c times the weight f, rounded half up, into *out, or -1 when it
 * exceeds max.  Integer weights are exact at any count. */
static int scale(uint64_t c, double f, uint64_t max, uint64_t *out)
{
	double v;

	if (f < 18446744073709551616.0 && f == (double)(uint64_t)f)
		return mul(c, (uint64_t)f, max, out);
	/* Rounded half up; libm is not needed for that. */
	v = (double)c * f + 0.5;
	if (!(v >= 0) || v >= 18446744073709551616.0 || (uint64_t)v > max)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

/* The merge's state: the sum so far, the input, and what is built from
 * them. */
typedef struct {
	const xp_cpuprof *a;   /* the sum so far, or NULL */
	const xp_cpuprof *in;
	const char *name;
	xp_diags *d;
	double weight;
	uint64_t max;          /* the largest count a slot holds */
	int java;
	uint64_t period;       /* the sum's sampling period */
	uint64_t ka, kin;      /* what a's and in's counts are multiplied by
	                        * for that period */
	xp_cp_layout lay;      /* where the sum maps the objects */
	xp_buf text;           /* the mapped-objects text of the sum */
	uint64_t *moved;       /* the chains that move or scale, moved */
	size_t nmoved;
	xp_cpuprof *n;         /* the new sum */
} mstate;

/* Whether in can be added to the sum a (not NULL), and the sum's
 * period. */
static xp_err check_inputs(mstate *s, const xp_prof_merge_opts *o)
{
	const xp_cpuprof *a = s->a, *in = s->in;

	if (a->slot != in->slot)
		return xp_diag_file(s->d, XP_E_INVAL, s->name,
		                    "a profile with %u-bit slots cannot be "
		                    "merged with one of %u-bit slots",
		                    in->slot * 8, a->slot * 8);
	if (a->hdr[2] != in->hdr[2])
		return xp_diag_file(s->d, XP_E_INVAL, s->name,
		                    "a %s profile cannot be merged with a "
		                    "%s one",
		                    in->hdr[2] ? "Java" : "C/C++",
		                    a->hdr[2] ? "Java" : "C/C++");
	if (a->hdr[3] != in->hdr[3] && !o->rescale)
		return xp_diag_file(s->d, XP_E_INVAL, s->name,
		                    "sampling period %llu us differs from "
		                    "%llu us of the profiles before it "
		                    "(rescale to merge)",
		                    (unsigned long long)in->hdr[3],
		                    (unsigned long long)a->hdr[3]);
	s->period = gcd(a->hdr[3], in->hdr[3]);
	s->ka = a->hdr[3] / s->period;
	s->kin = in->hdr[3] / s->period;
	if (s->java && (a->textlen != in->textlen ||
	                (a->textlen > 0 &&
	                 memcmp(a->text, in->text, a->textlen) != 0)))
		return xp_diag_file(s->d, XP_E_INVAL, s->name,
		                    "Java profiles with different method "
		                    "lists cannot be merged");
	return XP_E_OK;
}

/* Whether neither the PCs nor the counts of the records of the profile
 * which (0: the sum so far, 1: the input) change: the sum's, most often. */
static int stays(const mstate *s, int which)
{
	return xp_cp_layout_still(&s->lay, which) &&
	       (which == 0 ? s->ka == 1 : s->weight == 1.0 && s->kin == 1);
}

/*
 * The records of p (which: 0 the sum so far, 1 the input) as rrefs into
 * out: in place when they stay, otherwise moved into s->moved, which has
 * room for them all, and scaled.
 */
static xp_err refs(mstate *s, int which, const xp_cpuprof *p, rref *out)
{
	int same = stays(s, which);

	for (size_t i = 0; i < p->nrec; i++) {
		const xp_cp_rec *r = &p->recs[i];
		const uint64_t *pcs = p->pcs + r->first;
		uint64_t c = r->count, *to;

		if (!same) {
			if (which == 0 ? mul(c, s->ka, s->max, &c) != 0
			               : scale(c, s->weight, s->max, &c) != 0 ||
			                 mul(c, s->kin, s->max, &c) != 0)
				return xp_diag_file(s->d, XP_E_LIMIT, s->name,
				                    "a scaled sample count does "
				                    "not fit in a %u-bit slot",
				                    p->slot * 8);
			to = s->moved + s->nmoved;
			for (size_t k = 0; k < r->npcs; k++)
				to[k] = xp_cp_layout_move(&s->lay, which, pcs[k],
				                          k);
			s->nmoved += r->npcs;
			pcs = to;
		}
		out[i] = (rref){r->npcs > 0 ? pcs[0] : 0, pcs, c, r->npcs};
	}
	return XP_E_OK;
}

/* The header of the sum: the slots after the period from the input with
 * the fewest header slots, then the smallest slot by slot; the sum's
 * period. */
static xp_err sum_header(mstate *s)
{
	const xp_cpuprof *a = s->a, *in = s->in, *t = in;

	if (a != NULL && a->nhdr != in->nhdr)
		t = a->nhdr < in->nhdr ? a : in;
	else if (a != NULL)
		for (size_t i = 4; i < a->nhdr; i++)
			if (a->hdr[i] != in->hdr[i]) {
				t = a->hdr[i] < in->hdr[i] ? a : in;
				break;
			}
	s->n->hdr = malloc(t->nhdr * sizeof *s->n->hdr);
	if (s->n->hdr == NULL)
		return XP_E_NOMEM;
	memcpy(s->n->hdr, t->hdr, t->nhdr * sizeof *s->n->hdr);
	s->n->nhdr = t->nhdr;
	s->n->hdr[3] = s->period;
	return XP_E_OK;
}

/* c + add into *c, or the error of a sum too large for a slot. */
static xp_err add_count(const mstate *s, uint64_t *c, uint64_t add)
{
	if (add > s->max - *c)
		return xp_diag_file(s->d, XP_E_LIMIT, s->name,
		                    "a summed sample count does not fit in a %u-bit "
		                    "slot", s->n->slot * 8);
	*c += add;
	return XP_E_OK;
}

/* A chain's hash: its PCs and its length. */
static uint64_t chain_hash(const rref *r)
{
	uint64_t h = r->npcs;

	for (size_t k = 0; k < r->npcs; k++)
		h = (h ^ r->pcs[k]) * 0x9e3779b97f4a7c15u;
	return xp_mix64(h);
}

/*
 * The n rrefs of v with identical chains summed into the first of them,
 * in a hash table, the others left out: *k remain, in their order.  A
 * profile's records are in memory in order, so their chains are read
 * one after the other, and the sort that follows has fewer to order.
 */
static xp_err fold_same(const mstate *s, rref *v, size_t n, size_t *k)
{
	size_t cap = 16, mask, m = 0;
	uint32_t *t;
	xp_err err = XP_E_OK;

	while (cap < 2 * n)
		cap *= 2;
	if (n >= UINT32_MAX || (t = calloc(cap, sizeof *t)) == NULL)
		return XP_E_NOMEM;
	mask = cap - 1;
	for (size_t i = 0; i < n && err == XP_E_OK; i++) {
		size_t h = (size_t)chain_hash(&v[i]) & mask;

		/* Slots hold an index plus 1; 0 is empty. */
		while (t[h] != 0 && cmp_rref(&v[t[h] - 1], &v[i]) != 0)
			h = (h + 1) & mask;
		if (t[h] != 0) {
			err = add_count(s, &v[t[h] - 1].count, v[i].count);
			continue;
		}
		v[m] = v[i];
		t[h] = (uint32_t)++m;
	}
	free(t);
	*k = m;
	return err;
}

/*
 * The rrefs of profile which (p, *n of them at *v) sorted by chain,
 * identical chains summed: nothing to do for a sum made here whose PCs
 * stay.
 */
static xp_err order_refs(mstate *s, int which, const xp_cpuprof *p,
                         rref *v, size_t *n)
{
	xp_err err;

	if (p->sum && xp_cp_layout_still(&s->lay, which))
		return XP_E_OK;
	if ((err = fold_same(s, v, *n, n)) != XP_E_OK)
		return err;
	/* By leaf PC, then the few that share one by the whole chain. */
	return xp_sort_keyed(v, *n, sizeof *v, offsetof(rref, first),
	                     cmp_rref);
}

/* Record i of p as an rref, as it is. */
static rref rec_ref(const xp_cpuprof *p, size_t i)
{
	const xp_cp_rec *r = &p->recs[i];
	const uint64_t *pcs = p->pcs + r->first;

	return (rref){r->npcs > 0 ? pcs[0] : 0, pcs, r->count, r->npcs};
}

/*
 * The records of the new sum n: the sum so far's and the input's, each
 * sorted by chain with identical chains summed, merged and summed.  A
 * sum made here that stays is read as it is, in its order.
 */
static xp_err sum_records(mstate *s)
{
	const xp_cpuprof *a = s->a;
	int direct = a != NULL && a->sum && stays(s, 0);
	rref *x = NULL, *y = NULL, xi = { 0 }, r;
	size_t nx = direct ? a->nrec : 0, ny = 0, i = 0, j = 0;
	xp_err err = XP_E_NOMEM;

	if ((a != NULL && !direct &&
	     (x = malloc((a->nrec + 1) * sizeof *x)) == NULL) ||
	    (y = malloc((s->in->nrec + 1) * sizeof *y)) == NULL)
		goto out;
	/* Every count scaled before any is summed. */
	if ((x != NULL && (err = refs(s, 0, a, x)) != XP_E_OK) ||
	    (err = refs(s, 1, s->in, y)) != XP_E_OK)
		goto out;
	nx = x != NULL ? a->nrec : nx;
	ny = s->in->nrec;
	if ((x != NULL && (err = order_refs(s, 0, a, x, &nx)) != XP_E_OK) ||
	    (err = order_refs(s, 1, s->in, y, &ny)) != XP_E_OK)
		goto out;
	while (i < nx || j < ny) {
		int c = 1;

		if (i < nx) {
			xi = x != NULL ? x[i] : rec_ref(a, i);
			c = j == ny ? -1 : cmp_rref(&xi, &y[j]);
		}
		r = c <= 0 ? xi : y[j];
		i += c <= 0;
		j += c >= 0;
		if (c == 0 && (err = add_count(s, &r.count, y[j - 1].count)) !=
		              XP_E_OK)
			goto out;
		if ((err = xp_cp_add_record(s->n, r.count, r.pcs, r.npcs)) !=
		    XP_E_OK)
			goto out;
	}
	s->n->sum = 1;
out:
	free(x);
	free(y);
	return err;
}

/* The new sum n: header, records, the mapped-objects text. */
static xp_err build_sum(mstate *s)
{
	const xp_cpuprof *a = s->a, *in = s->in;
	int big = in->big && (a == NULL || a->big);
	size_t nrec = (a != NULL ? a->nrec : 0) + in->nrec;
	size_t npc = (a != NULL ? a->npc : 0) + in->npc;
	size_t nmove = (a != NULL && !stays(s, 0) ? a->npc : 0) +
	               (!stays(s, 1) ? in->npc : 0);
	xp_err err;

	/* The new sum has room for every record of both. */
	s->moved = malloc((nmove + 1) * sizeof *s->moved);
	s->n = xp_cp_new(in->slot, big);
	if (s->moved == NULL || s->n == NULL ||
	    xp_cp_reserve(s->n, nrec, npc) != XP_E_OK)
		return XP_E_NOMEM;
	if ((err = sum_header(s)) != XP_E_OK ||
	    (err = sum_records(s)) != XP_E_OK)
		return err;
	if (s->java)
		err = xp_buf_append(&s->text, in->text, in->textlen);
	else
		err = xp_cp_layout_text(&s->lay, a, in, &s->text);
	if (err != XP_E_OK ||
	    (err = xp_cp_set_text(s->n, (const char *)s->text.p,
	                          s->text.len)) != XP_E_OK)
		return err;
	return s->java ? XP_E_OK : xp_cp_layout_homes(&s->lay, s->n);
}

/* The module's merge: checks, where the objects go, then the sum in
 * place of the old one. */
xp_err xp_cp_merge(void **accp, const void *inp, double weight,
                const xp_prof_merge_opts *o, const char *name, xp_diags *d)
{
	mstate s = {0};
	xp_err err = XP_E_OK;

	s.a = *accp;
	s.in = inp;
	s.name = name;
	s.d = d;
	s.weight = weight;
	s.max = xp_cp_slot_max(s.in->slot);
	s.java = s.in->hdr[2] == 1;
	s.period = s.in->hdr[3];
	s.ka = s.kin = 1;
	if (s.a != NULL)
		err = check_inputs(&s, o);
	if (err == XP_E_OK && !s.java)
		err = xp_cp_layout_plan(&s.lay, s.a, s.in, name, d);
	if (err == XP_E_OK && (err = build_sum(&s)) == XP_E_OK) {
		xp_cp_free((xp_cpuprof *)s.a);
		*accp = s.n;
		s.n = NULL;
	}
	xp_cp_free(s.n);
	free(s.moved);
	xp_cp_layout_free(&s.lay);
	xp_buf_free(&s.text);
	return err;
}
