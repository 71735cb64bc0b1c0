/*
 * cpuprof/merge.c - summing CPU profiles (cpuprofile(5), MERGING).
 *
 * The sum keeps the header, byte order and mapped-objects text of the
 * first profile.  Each later profile's PCs are moved into the first one's
 * address space: a PC inside a mapping of object X at file offset F goes
 * to the address where the sum maps offset F of X (the same object loaded
 * at another address in another process).  An object, or a segment of
 * one, that the sum does not map yet gets mapping lines of its own,
 * appended to the text: at its own addresses when they are free, or moved
 * as a whole above everything mapped so far, so that two objects never
 * share addresses.  PCs outside every mapping stay as they are.
 *
 * Counts are scaled by the weight (and by period_in / period_sum with
 * rescale), rounded to the nearest integer; records with identical call
 * chains are then summed into one, and the records are sorted by call
 * chain, so that the sum does not depend on the order of the records.
 */
#include <stdio.h>

#include "cpuprof/cpuprof.h"

/* A mapping of the sum, as it grows. */
typedef struct {
	uint64_t start, end, offset;
	const char *path;
} amap;

typedef struct {
	amap *v;
	size_t n, cap;
} amaps;

static xp_err amaps_add(amaps *m, uint64_t start, uint64_t end,
                        uint64_t offset, const char *path)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 32;
		amap *q = realloc(m->v, cap * sizeof *q);
		if (q == NULL)
			return XP_E_NOMEM;
		m->v = q;
		m->cap = cap;
	}
	m->v[m->n++] = (amap){start, end, offset, path};
	return XP_E_OK;
}

/* How one mapping of the input moves. */
typedef struct {
	uint64_t start, end;
	uint64_t delta;   /* added (mod 2^64) to a PC inside it */
} reloc;

static int overlaps(const amaps *m, uint64_t s, uint64_t e)
{
	for (size_t i = 0; i < m->n; i++)
		if (s < m->v[i].end && m->v[i].start < e)
			return 1;
	return 0;
}

/*
 * Works out where each mapping of in goes in the sum, appending mapping
 * lines for what the sum lacks to text.
 */
static xp_err plan(const xp_cpuprof *in, amaps *am, xp_buf *text,
                   unsigned slot, reloc *rl, const char *name, xp_diags *d)
{
	size_t n = in->nmaps;
	uint64_t *objdelta = calloc(n ? n : 1, sizeof *objdelta);
	char *have = calloc(n ? n : 1, 1);
	xp_err err = XP_E_OK;

	if (objdelta == NULL || have == NULL) {
		err = XP_E_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const xp_cpuprof_map *m = &in->maps[i];
		size_t j;

		rl[i] = (reloc){m->start, m->end, 0};
		if (m->path[0] == '\0')
			continue;
		for (j = 0; j < am->n; j++)
			if (strcmp(am->v[j].path, m->path) == 0 &&
			    am->v[j].offset == m->offset &&
			    am->v[j].end - am->v[j].start == m->end - m->start)
				break;
		if (j < am->n) {
			rl[i].delta = am->v[j].start - m->start;
			continue;
		}
		/* Not mapped in the sum: place the whole object once. */
		size_t first = i;
		for (size_t k = 0; k < i; k++)
			if (strcmp(in->maps[k].path, m->path) == 0) {
				first = k;
				break;
			}
		if (first == i || !have[first]) {
			uint64_t lo = UINT64_MAX, hi = 0, top = 0;
			int clash = 0;

			for (size_t k = 0; k < n; k++) {
				const xp_cpuprof_map *o = &in->maps[k];
				if (strcmp(o->path, m->path) != 0)
					continue;
				lo = o->start < lo ? o->start : lo;
				hi = o->end > hi ? o->end : hi;
				clash |= overlaps(am, o->start, o->end);
			}
			objdelta[first] = 0;
			if (clash) {
				for (size_t k = 0; k < am->n; k++)
					top = am->v[k].end > top ? am->v[k].end
					                         : top;
				top = (top + 0xfffu) & ~(uint64_t)0xfffu;
				if (top < lo || hi - lo > xp_cp_slot_max(slot) - top) {
					err = xp_diag_file(d, XP_E_LIMIT, name,
					                   "no room in the address "
					                   "space for %s", m->path);
					goto out;
				}
				objdelta[first] = top - lo;
			}
			have[first] = 1;
		}
		rl[i].delta = objdelta[first];
		{
			char line[128];
			uint64_t s = m->start + rl[i].delta;
			int len = snprintf(line, sizeof line,
			                   "%0*llx-%0*llx %s %08llx 00:00 0 ",
			                   slot * 2, (unsigned long long)s,
			                   slot * 2,
			                   (unsigned long long)(m->end +
			                                        rl[i].delta),
			                   m->perms,
			                   (unsigned long long)m->offset);
			if (xp_buf_append(text, line, (size_t)len) != XP_E_OK ||
			    xp_buf_append(text, m->path, strlen(m->path)) !=
			    XP_E_OK ||
			    xp_buf_append(text, "\n", 1) != XP_E_OK ||
			    amaps_add(am, s, m->end + rl[i].delta, m->offset,
			              m->path) != XP_E_OK) {
				err = XP_E_NOMEM;
				goto out;
			}
		}
	}
out:
	free(objdelta);
	free(have);
	return err;
}

/* The mapping of in containing addr, or n. */
static size_t find_reloc(const reloc *rl, size_t n, uint64_t addr)
{
	for (size_t i = 0; i < n; i++)
		if (addr >= rl[i].start && addr < rl[i].end)
			return i;
	return n;
}

/* Sorting records by call chain. */
typedef struct {
	const xp_cpuprof *p;
	size_t i;
} rref;

static int cmp_stack(const xp_cpuprof *pa, const xp_cp_rec *a,
                     const xp_cpuprof *pb, const xp_cp_rec *b)
{
	size_t n = a->npcs < b->npcs ? a->npcs : b->npcs;
	const uint64_t *x = pa->pcs + a->first, *y = pb->pcs + b->first;

	for (size_t k = 0; k < n; k++)
		if (x[k] != y[k])
			return x[k] < y[k] ? -1 : 1;
	return a->npcs < b->npcs ? -1 : a->npcs > b->npcs;
}

static int cmp_rref(const void *x, const void *y)
{
	const rref *a = x, *b = y;
	int c = cmp_stack(a->p, &a->p->recs[a->i], b->p, &b->p->recs[b->i]);
	if (c != 0)
		return c;
	return a->i < b->i ? -1 : a->i > b->i;
}

static int scale(uint64_t c, double f, uint64_t max, uint64_t *out)
{
	double v;

	if (f == 1.0) {
		*out = c;
		return c <= max ? 0 : -1;
	}
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
	const xp_cpuprof *base;   /* a, or in when it is the first */
	const char *name;
	xp_diags *d;
	double f;              /* the factor of the input's counts */
	uint64_t max;          /* the largest count a slot holds */
	int java;
	amaps am;              /* the mappings of the sum */
	xp_buf text;           /* the mapped-objects text of the sum */
	reloc *rl;             /* how each mapping of in moves */
	xp_cpuprof *tmp;       /* every record of both, unsorted */
	xp_cpuprof *n;         /* the new sum */
} mstate;

/* Whether in can be added to the sum a (not NULL); f gets the period's
 * rescaling. */
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
	if (a->hdr[3] != in->hdr[3]) {
		if (!o->rescale)
			return xp_diag_file(
				s->d, XP_E_INVAL, s->name,
				"sampling period %llu us differs from "
				"%llu us of the profiles before it "
				"(rescale to merge)",
				(unsigned long long)in->hdr[3],
				(unsigned long long)a->hdr[3]);
		s->f *= (double)in->hdr[3] / (double)a->hdr[3];
	}
	if (s->java && (a->textlen != in->textlen ||
	                (a->textlen > 0 &&
	                 memcmp(a->text, in->text, a->textlen) != 0)))
		return xp_diag_file(s->d, XP_E_INVAL, s->name,
		                    "Java profiles with different method "
		                    "lists cannot be merged");
	return XP_E_OK;
}

/* The text and mappings of the sum: the first profile's, then lines for
 * what the input maps and the sum does not; rl gets how the input's
 * mappings move. */
static xp_err sum_mappings(mstate *s)
{
	const xp_cpuprof *a = s->a, *in = s->in;
	size_t before;
	xp_err err;

	if (s->base->textlen > 0 &&
	    xp_buf_append(&s->text, s->base->text, s->base->textlen) !=
	    XP_E_OK)
		return XP_E_NOMEM;
	s->rl = malloc((in->nmaps ? in->nmaps : 1) * sizeof *s->rl);
	if (s->rl == NULL)
		return XP_E_NOMEM;
	if (a == NULL || s->java) {
		for (size_t i = 0; i < in->nmaps; i++)
			s->rl[i] = (reloc){in->maps[i].start, in->maps[i].end,
			                   0};
		return XP_E_OK;
	}
	for (size_t i = 0; i < a->nmaps; i++)
		if (amaps_add(&s->am, a->maps[i].start, a->maps[i].end,
		              a->maps[i].offset, a->maps[i].path) != XP_E_OK)
			return XP_E_NOMEM;
	if (s->text.len > 0 && s->text.p[s->text.len - 1] != '\n' &&
	    xp_buf_append(&s->text, "\n", 1) != XP_E_OK)
		return XP_E_NOMEM;
	before = s->text.len;
	if ((err = plan(in, &s->am, &s->text, a->slot, s->rl, s->name,
	                s->d)) != XP_E_OK)
		return err;
	if (s->text.len == before && a->textlen > 0 &&
	    a->text[a->textlen - 1] != '\n')
		s->text.len--;   /* nothing appended: keep it as it was */
	return XP_E_OK;
}

/* The input's record r added to tmp, its PCs moved (through pcs, room
 * for them) and its count scaled. */
static xp_err add_moved(mstate *s, const xp_cp_rec *r, uint64_t *pcs)
{
	const xp_cpuprof *in = s->in;
	uint64_t c;

	for (size_t k = 0; k < r->npcs; k++) {
		uint64_t pc = in->pcs[r->first + k];
		size_t m = find_reloc(s->rl, in->nmaps,
		                      k > 0 && pc > 0 ? pc - 1 : pc);
		pcs[k] = m < in->nmaps ? (pc + s->rl[m].delta) & s->max : pc;
	}
	if (scale(r->count, s->f, s->max, &c) != 0)
		return xp_diag_file(s->d, XP_E_LIMIT, s->name,
		                    "a scaled sample count does not fit "
		                    "in a %u-bit slot", s->base->slot * 8);
	if (xp_cp_add_record(s->tmp, c, pcs, r->npcs) != XP_E_OK)
		return XP_E_NOMEM;
	return XP_E_OK;
}

/* Every record of both in tmp, the input's moved and scaled. */
static xp_err gather_records(mstate *s)
{
	const xp_cpuprof *a = s->a, *in = s->in;
	uint64_t *pcs = NULL;
	xp_err err = XP_E_OK;

	s->tmp = xp_cp_new(s->base->slot, s->base->big);
	if (s->tmp == NULL)
		return XP_E_NOMEM;
	if (a != NULL)
		for (size_t i = 0; i < a->nrec; i++)
			if (xp_cp_add_record(s->tmp, a->recs[i].count,
			                  a->pcs + a->recs[i].first,
			                  a->recs[i].npcs) != XP_E_OK)
				return XP_E_NOMEM;
	for (size_t i = 0; i < in->nrec && err == XP_E_OK; i++) {
		free(pcs);
		pcs = malloc(in->recs[i].npcs * sizeof *pcs);
		err = pcs == NULL ? XP_E_NOMEM : add_moved(s, &in->recs[i], pcs);
	}
	free(pcs);
	return err;
}

/* The new sum n: tmp's records sorted by call chain, identical ones
 * summed, under the first profile's header and the text. */
static xp_err sum_records(mstate *s)
{
	const xp_cpuprof *tmp = s->tmp, *base = s->base;
	rref *order;
	xp_cpuprof *n;
	xp_err err = XP_E_NOMEM;

	order = malloc((tmp->nrec ? tmp->nrec : 1) * sizeof *order);
	if (order == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < tmp->nrec; i++)
		order[i] = (rref){tmp, i};
	xp_qsort(order, tmp->nrec, sizeof *order, cmp_rref);
	s->n = n = xp_cp_new(base->slot, base->big);
	if (n == NULL)
		goto out;
	n->hdr = malloc(base->nhdr * sizeof *n->hdr);
	if (n->hdr == NULL)
		goto out;
	memcpy(n->hdr, base->hdr, base->nhdr * sizeof *n->hdr);
	n->nhdr = base->nhdr;
	for (size_t i = 0; i < tmp->nrec;) {
		const xp_cp_rec *r = &tmp->recs[order[i].i];
		uint64_t c = r->count;
		size_t j = i + 1;

		for (; j < tmp->nrec &&
		       cmp_stack(tmp, r, tmp, &tmp->recs[order[j].i]) == 0; j++) {
			uint64_t add = tmp->recs[order[j].i].count;
			if (add > s->max - c) {
				err = xp_diag_file(s->d, XP_E_LIMIT, s->name,
				                   "a summed sample count does not "
				                   "fit in a %u-bit slot",
				                   base->slot * 8);
				goto out;
			}
			c += add;
		}
		if (xp_cp_add_record(n, c, tmp->pcs + r->first, r->npcs) !=
		    XP_E_OK)
			goto out;
		i = j;
	}
	if (xp_cp_set_text(n, (const char *)s->text.p, s->text.len) !=
	    XP_E_OK)
		goto out;
	err = XP_E_OK;
out:
	free(order);
	return err;
}

/* The module's merge: checks, mappings, records, then the sorted sum in
 * place of the old one. */
xp_err xp_cp_merge(void **accp, const void *inp, double weight,
                const xp_prof_merge_opts *o, const char *name, xp_diags *d)
{
	mstate s = {0};
	xp_err err;

	s.a = *accp;
	s.in = inp;
	s.base = s.a != NULL ? s.a : s.in;
	s.name = name;
	s.d = d;
	s.f = weight;
	s.max = xp_cp_slot_max(s.base->slot);
	s.java = s.base->hdr[2] == 1;
	if (s.a != NULL && (err = check_inputs(&s, o)) != XP_E_OK)
		return err;
	if ((err = sum_mappings(&s)) == XP_E_OK &&
	    (err = gather_records(&s)) == XP_E_OK &&
	    (err = sum_records(&s)) == XP_E_OK) {
		xp_cp_free((xp_cpuprof *)s.a);
		*accp = s.n;
		s.n = NULL;
	}
	xp_cp_free(s.n);
	xp_cp_free(s.tmp);
	free(s.am.v);
	free(s.rl);
	xp_buf_free(&s.text);
	return err;
}
