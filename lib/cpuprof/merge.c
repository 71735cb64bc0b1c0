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
#include "cpuprof/cpuprof.h"

/* Sorting records by call chain: a record's chain and its index, both
 * counts in 32 bits (more would not fit in memory; sort_records checks). */
typedef struct {
	const uint64_t *pcs;
	uint32_t npcs, i;
} rref;

static int cmp_rref(const void *x, const void *y)
{
	const rref *a = x, *b = y;
	size_t n = a->npcs < b->npcs ? a->npcs : b->npcs;

	for (size_t k = 0; k < n; k++)
		if (a->pcs[k] != b->pcs[k])
			return a->pcs[k] < b->pcs[k] ? -1 : 1;
	if (a->npcs != b->npcs)
		return a->npcs < b->npcs ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
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
	xp_cpuprof *tmp;       /* every record of both, unsorted */
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

/* The records of p (which: 0 the sum so far, 1 the input) added to tmp,
 * their PCs moved and their counts scaled. */
static xp_err add_records(mstate *s, int which, const xp_cpuprof *p)
{
	uint64_t *pcs = NULL;
	size_t cap = 0;
	xp_err err = XP_E_OK;

	for (size_t i = 0; i < p->nrec && err == XP_E_OK; i++) {
		const xp_cp_rec *r = &p->recs[i];
		uint64_t c;

		if (r->npcs > cap) {
			uint64_t *q = realloc(pcs, r->npcs * sizeof *q);
			if (q == NULL) {
				err = XP_E_NOMEM;
				break;
			}
			pcs = q;
			cap = r->npcs;
		}
		for (size_t k = 0; k < r->npcs; k++)
			pcs[k] = xp_cp_layout_move(&s->lay, which,
			                           p->pcs[r->first + k], k);
		if (which == 0 ? mul(r->count, s->ka, s->max, &c) != 0
		               : scale(r->count, s->weight, s->max, &c) != 0 ||
		                 mul(c, s->kin, s->max, &c) != 0)
			err = xp_diag_file(s->d, XP_E_LIMIT, s->name,
			                   "a scaled sample count does not fit "
			                   "in a %u-bit slot", p->slot * 8);
		else if (xp_cp_add_record(s->tmp, c, pcs, r->npcs) != XP_E_OK)
			err = XP_E_NOMEM;
	}
	free(pcs);
	return err;
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

/*
 * The records of tmp in call-chain order, ties in the order of tmp: its
 * first na records (the sum so far, canonical and so sorted unless moving
 * its PCs reordered them) merged with the rest sorted, or all of them
 * sorted.  NULL when out of memory.
 */
static rref *sort_records(const xp_cpuprof *tmp, size_t na)
{
	size_t n = tmp->nrec, i, j, k;
	rref *order, *head = NULL;

	if (n > UINT32_MAX ||
	    (order = malloc((n ? n : 1) * sizeof *order)) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		if (tmp->recs[i].npcs > UINT32_MAX) {
			free(order);
			return NULL;
		}
		order[i] = (rref){tmp->pcs + tmp->recs[i].first,
		                  (uint32_t)tmp->recs[i].npcs, (uint32_t)i};
	}
	for (i = 1; i < na; i++)
		if (cmp_rref(&order[i - 1], &order[i]) > 0)
			break;
	if (i < na || (na > 0 && (head = malloc(na * sizeof *head)) == NULL))
		na = 0;
	xp_qsort(order + na, n - na, sizeof *order, cmp_rref);
	if (na == 0)
		return order;
	/* The sorted head, moved aside, merged with the sorted rest: the
	 * merge never writes past what it has read of the rest. */
	memcpy(head, order, na * sizeof *head);
	for (i = 0, j = na, k = 0; i < na; k++)
		order[k] = j == n || cmp_rref(&head[i], &order[j]) < 0
		               ? head[i++] : order[j++];
	free(head);
	return order;
}

/* The records of the new sum n: tmp's sorted by call chain, identical
 * ones summed. */
static xp_err sum_records(mstate *s)
{
	const xp_cpuprof *tmp = s->tmp;
	rref *order;
	xp_err err = XP_E_NOMEM;

	order = sort_records(tmp, s->a != NULL ? s->a->nrec : 0);
	if (order == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < tmp->nrec;) {
		const rref *o = &order[i];
		uint64_t c = tmp->recs[o->i].count;
		size_t j = i + 1;

		for (; j < tmp->nrec && order[j].npcs == o->npcs &&
		       memcmp(order[j].pcs, o->pcs,
		              o->npcs * sizeof *o->pcs) == 0; j++) {
			uint64_t add = tmp->recs[order[j].i].count;
			if (add > s->max - c) {
				err = xp_diag_file(s->d, XP_E_LIMIT, s->name,
				                   "a summed sample count does not "
				                   "fit in a %u-bit slot",
				                   tmp->slot * 8);
				goto out;
			}
			c += add;
		}
		if (xp_cp_add_record(s->n, c, o->pcs, o->npcs) !=
		    XP_E_OK)
			goto out;
		i = j;
	}
	err = XP_E_OK;
out:
	free(order);
	return err;
}

/* The new sum n: header, records, the mapped-objects text. */
static xp_err build_sum(mstate *s)
{
	const xp_cpuprof *a = s->a, *in = s->in;
	int big = in->big && (a == NULL || a->big);
	xp_err err;

	s->tmp = xp_cp_new(in->slot, big);
	s->n = xp_cp_new(in->slot, big);
	if (s->tmp == NULL || s->n == NULL)
		return XP_E_NOMEM;
	if ((a != NULL && (err = add_records(s, 0, a)) != XP_E_OK) ||
	    (err = add_records(s, 1, in)) != XP_E_OK ||
	    (err = sum_header(s)) != XP_E_OK ||
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
	xp_cp_free(s.tmp);
	xp_cp_layout_free(&s.lay);
	xp_buf_free(&s.text);
	return err;
}
