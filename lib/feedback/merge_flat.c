/*
 * feedback/merge_flat.c - the result of inputs of one layout, written from
 * the first of them and the counts of the others, without the accumulator.
 *
 * When every input of a merge is a database of one layout (runs of one
 * binary), the merger holds nothing but a lazy template: the first input,
 * as the reader checked it, and its delta, the counts of the others
 * combined (merge_layout.c).  The result is then the template's records
 * in canonical order with the combined counts, and it is written here
 * straight from the template, table by table, with no copy of its
 * structure: object files, programs and source files come in the order of
 * the template's indexes (by path), the procedures of an object file in
 * that of its part of IDX_PROCS (by name), those with unknown source
 * files first (cmp_pr in merge_order.c), counters by id, and value
 * profiles, source lines and block refs sorted as merge_order.c sorts
 * them.  The strings are the template's: the reader made sure that every
 * one is referenced, and every reference stays in the result.
 *
 * A program's OBJREFs and COMDAT_PROCs given twice are kept once, as
 * the accumulator keeps them.  What it would make of the template in
 * other ways goes to it instead, before anything is changed: a source
 * line, or a block ref of a line, given twice (it merges their counts),
 * a VP_PROC value that the cut to n_values_per_vp drops (which strings
 * stay is then its to say), and --sparse (which drops procedures).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "feedback/merge.h"

#define MAXOF(a, b) ((a) > (b) ? (a) : (b))

/* Value profiles of a procedure of the result. */
typedef struct {
	vrec *vr;
	uint32_t nvr;
} vplist;

/* A procedure of the result, in its order: what the tables of its
 * records read, gathered once. */
typedef struct {
	uint32_t p;           /* the template's procedure */
	uint32_t fcnt, ncnt, fblk, nblk, fedge, nedge, ftup, ntup;
	uint32_t vp;          /* its value profiles in vp[], or NONE */
} oproc;

typedef struct {
	xp_merger *m;
	tmpl *t;
	const xp_fb *fb;      /* the template */
	uint32_t nof, npr, npg;
	oproc *procs;         /* the result's procedures, in order */
	uint32_t *pidx;       /* the result's IDX_PROCS, NULL when 0..n-1 */
	uint32_t *cur;        /* per procedure: the source file of its tuples
	                         before the first that names one (NONE) */
	unsigned char *cls;   /* per procedure: unknown_first() */
	unsigned char *kinds; /* stat kinds per procedure, object file (from
	                         npr), program (from npr + nof) */
	uint64_t *max, *sum;  /* per procedure, then object file */
	vplist *vp;           /* per procedure of t->tv */
	uint32_t *lines;      /* source lines in order; NULL: as in fb */
	unsigned char *inorder; /* per source file: its lines and their refs
	                         are in order in fb */
	uint64_t n[XP_T_COUNT_];
	uint64_t nobjref, ncomdat; /* OBJREFs, COMDAT_PROCs kept */
	void *scratch;        /* room for the sort keys of a source file's
	                         lines, a line's refs, a program's OBJREFs
	                         or COMDAT_PROCs */
} flat;

static void flat_free(void *ctx)
{
	flat *F = ctx;
	if (!F)
		return;
	for (uint32_t k = 0; F->vp && k < F->t->ntv; k++) {
		for (uint32_t j = 0; j < F->vp[k].nvr; j++)
			free(F->vp[k].vr[j].v);
		free(F->vp[k].vr);
	}
	XP_FREE(F->procs, F->pidx, F->cur, F->cls, F->kinds, F->max, F->vp,
	        F->lines, F->inorder, F->scratch);
	free(F);
}

static uint32_t get32(const xp_fb *fb, xp_table t, uint32_t i, unsigned f)
{
	return xp_get_le32(xp_rec(fb, t, i) + f);
}

/* The stat kinds (STB_ bits) of n STATS records from first. */
static unsigned char stat_kinds(const xp_fb *fb, uint32_t first, uint32_t n)
{
	unsigned char k = 0;
	for (uint32_t i = 0; i < n; i++)
		k |= get32(fb, XP_T_STATS, first + i, XP_ST_KIND) == XP_STAT_MAX
		         ? STB_MAX
		         : STB_SUM;
	return k;
}

/* ------------------------------------------------------------------ */
/* Sort keys                                                           */
/* ------------------------------------------------------------------ */

/* A block ref, a source line, an OBJREF or a COMDAT_PROC: up to three
 * u32 keys (string ids compare as strings: the template's strings are
 * in byte order) and its index. */
typedef struct {
	uint32_t k[3];
	uint32_t i;
} key;

static int cmp_key(const void *a, const void *b)
{
	const key *x = a, *y = b;
	for (int j = 0; j < 3; j++)
		CMPNUM(x->k[j], y->k[j]);
	return 0;
}

/* The keys of n records of table t from first (BLOCKREFS, SRCLINES,
 * OBJREFS or COMDATS). */
static void fill_keys(const xp_fb *fb, xp_table t, uint32_t first, uint32_t n,
                      key *kk)
{
	for (uint32_t q = 0; q < n; q++) {
		const unsigned char *r = xp_rec(fb, t, first + q);
		key *k = &kk[q];
		memset(k, 0, sizeof *k);
		k->i = first + q;
		if (t == XP_T_BLOCKREFS) {
			k->k[0] = xp_get_le32(r + XP_BR_OBJFILE);
			k->k[1] = xp_get_le32(r + XP_BR_PROC);
			k->k[2] = xp_get_le32(r + XP_BR_BLOCK);
		} else if (t == XP_T_SRCLINES) {
			k->k[0] = xp_get_le32(r + XP_SL_LINE);
			k->k[1] = xp_get_le32(r + XP_SL_COL);
		} else if (t == XP_T_OBJREFS) {
			k->k[0] = xp_get_le32(r);
		} else {
			k->k[0] = xp_get_le32(r + XP_CD_OBJFILE);
			k->k[1] = xp_get_le32(r + XP_CD_PROC);
		}
	}
}

/*
 * Sorts the keys of n records of table t from first into F->scratch,
 * each once: how many there are.  Records in strictly increasing order
 * already stay as they are.
 */
static uint32_t sort_keys(flat *F, xp_table t, uint32_t first, uint32_t n)
{
	key *kk = F->scratch;
	fill_keys(F->fb, t, first, n, kk);
	int sorted = 1;
	for (uint32_t q = 1; q < n && sorted; q++)
		sorted = cmp_key(&kk[q - 1], &kk[q]) < 0;
	if (sorted)
		return n;
	xp_qsort(kk, n, sizeof *kk, cmp_key);
	uint32_t u = n > 0;
	for (uint32_t q = 1; q < n; q++)
		if (cmp_key(&kk[u - 1], &kk[q]) != 0)
			kk[u++] = kk[q];
	return u;
}

/* Whether block refs a and b (records) are in order, a first. */
static int ref_before(const unsigned char *a, const unsigned char *b)
{
	static const unsigned f[3] = {XP_BR_OBJFILE, XP_BR_PROC, XP_BR_BLOCK};
	for (int k = 0; k < 3; k++) {
		uint32_t x = xp_get_le32(a + f[k]), y = xp_get_le32(b + f[k]);
		if (x != y)
			return x < y;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Planning                                                            */
/* ------------------------------------------------------------------ */

/*
 * Whether the accumulator would keep every source line and block ref of
 * the template (none given twice); the order of the lines of each
 * source file (F->lines, when not the template's), and how many OBJREFs
 * and COMDAT_PROCs the programs keep (those given twice once).
 */
static xp_err check_lists(flat *F, int *ok)
{
	const xp_fb *fb = F->fb;
	uint32_t most = 1;
	*ok = 0;
	for (uint32_t s = 0; s < fb->n[XP_T_SRCFILES]; s++)
		most = MAXOF(most, get32(fb, XP_T_SRCFILES, s, XP_SF_NLINE));
	for (uint32_t l = 0; l < fb->n[XP_T_SRCLINES]; l++)
		most = MAXOF(most, get32(fb, XP_T_SRCLINES, l, XP_SL_NREF));
	for (uint32_t g = 0; g < F->npg; g++) {
		xp_program ip;
		xp_fb_program(fb, g, &ip);
		most = MAXOF(most, MAXOF(ip.n_objrefs, ip.n_comdats));
	}
	if (!(F->scratch = malloc((size_t)most * sizeof(key))))
		return XP_E_NOMEM;
	const key *kk = F->scratch;
	if (!(F->inorder = malloc((size_t)fb->n[XP_T_SRCFILES] + 1)))
		return XP_E_NOMEM;
	for (uint32_t s = 0; s < fb->n[XP_T_SRCFILES]; s++) {
		xp_srcfile is;
		xp_fb_srcfile(fb, s, &is);
		if (sort_keys(F, XP_T_SRCLINES, is.first_line, is.n_lines) !=
		    is.n_lines)
			return XP_E_OK;
		uint32_t k = 0;
		while (k < is.n_lines && kk[k].i == is.first_line + k)
			k++;
		F->inorder[s] = k == is.n_lines;
		if (k < is.n_lines && !F->lines) {
			uint32_t n = fb->n[XP_T_SRCLINES];
			if (!(F->lines = malloc(((size_t)n + 1) * sizeof *F->lines)))
				return XP_E_NOMEM;
			for (uint32_t i = 0; i < n; i++)
				F->lines[i] = i;
		}
		for (; k < is.n_lines; k++)
			F->lines[is.first_line + k] = kk[k].i;
		for (uint32_t l = is.first_line; l < is.first_line + is.n_lines;
		     l++) {
			uint32_t n = get32(fb, XP_T_SRCLINES, l, XP_SL_NREF), q = 1;
			uint32_t first = get32(fb, XP_T_SRCLINES, l, XP_SL_FREF);
			const unsigned char *r = xp_rec(fb, XP_T_BLOCKREFS, first);
			while (q < n &&
			       ref_before(r + (size_t)(q - 1) * XP_RS_BLOCKREF,
			                  r + (size_t)q * XP_RS_BLOCKREF))
				q++;
			if (q == n)
				continue;
			F->inorder[s] = 0;
			if (sort_keys(F, XP_T_BLOCKREFS, first, n) != n)
				return XP_E_OK;
		}
	}
	F->nobjref = F->ncomdat = 0;
	for (uint32_t g = 0; g < F->npg; g++) {
		xp_program ip;
		xp_fb_program(fb, g, &ip);
		F->nobjref += sort_keys(F, XP_T_OBJREFS, ip.first_objref,
		                        ip.n_objrefs);
		F->ncomdat += sort_keys(F, XP_T_COMDATS, ip.first_comdat,
		                        ip.n_comdats);
	}
	*ok = 1;
	return XP_E_OK;
}

/*
 * The value profiles of the result, procedure by procedure: the
 * template's (weighted), the delta's with its values and those with
 * other values, sorted, their counts scaled.  *ok is cleared when a
 * VP_PROC value is cut (the accumulator decides which strings stay);
 * the template is left as it was either way.
 */
static xp_err plan_values(flat *F, int *ok, uint64_t *nsat)
{
	xp_merger *m = F->m;
	tmpl *t = F->t;
	const xp_fb *fb = F->fb;
	*ok = 1;
	if (!(F->vp = calloc((size_t)t->ntv + 1, sizeof *F->vp)))
		return XP_E_NOMEM;
	xp_merge_set_weight(m, t->weight);
	for (uint32_t k = 0; k < t->ntv && *ok; k++) {
		tvproc *v = &t->tv[k];
		aproc a;
		memset(&a, 0, sizeof a);
		xp_err err = XP_E_OK;
		/* The template's values, weighted; the delta's counts of
		 * them, weighted already, where they went. */
		const unsigned char *vp = xp_rec(fb, XP_T_VPS, v->first_vp);
		uint32_t i = v->first_vpval;
		for (uint32_t j = 0; j < v->n_vps && !err; j++, vp += XP_RS_VP) {
			vrec *r = xp_merge_vp_list(&a, xp_get_le32(vp + XP_VP_EXPR),
			                           xp_get_le32(vp + XP_VP_TYPE),
			                           v->n_vps);
			err = r ? XP_E_OK : XP_E_NOMEM;
			for (uint32_t q = 0, e; q < v->nvpv && !err; q++, i++) {
				err = xp_merge_vp_add(m, r, xp_rec(fb, XP_T_VPVALS, i),
				                      v->nvpv, NULL, &e);
				if (!err && t->vheld[i])
					combine(m, &r->v[e].count, t->vcnt[i], 0, 0);
			}
		}
		/* The template's values made every value profile of v, so
		 * the other values join them and leave v->other as it was. */
		if (!err && v->other)
			err = xp_merge_combine_vps(m, &a, v->other);
		F->vp[k] = (vplist){a.vr, a.nvr};
		if (err)
			return err;
		/* Scaled, then sorted, as the accumulator's are. */
		for (uint32_t j = 0; j < a.nvr; j++) {
			vrec *r = &a.vr[j];
			if (r->type == XP_VP_PROC && r->nv > v->nvpv)
				*ok = 0;
			for (uint32_t q = 0; q < r->nv; q++) {
				if (m->o.scale != 1)
					r->v[q].count = xp_merge_scale(m, r->v[q].count);
				*nsat += r->v[q].count == U64MAX;
			}
		}
		xp_merge_sort_vps(m, &a);
	}
	return XP_E_OK;
}

/*
 * The result's order of procedures: per object file, by the template's
 * index, those with unknown source files first (stable); and the index of
 * the result, where that puts some out of name order (index_procs() in
 * merge_order.c).  *ok is cleared when the index does not follow the
 * object files (it always does in a database the reader took).
 */
static xp_err plan_order(flat *F, int *ok)
{
	const xp_fb *fb = F->fb;
	uint32_t *pos = malloc(((size_t)F->npr + 1) * sizeof *pos);
	F->procs = malloc(((size_t)F->npr + 1) * sizeof *F->procs);
	if (!pos || !F->procs) {
		free(pos);
		return XP_E_NOMEM;
	}
	/* The value profiles of the template's procedures with some are
	 * vp[0], vp[1]... in the template's order (t->tv's). */
	for (uint32_t p = 0, k = 0; p < F->npr; p++) {
		int has = get32(fb, XP_T_PROCS, p, XP_PR_NVP) != 0;
		pos[p] = has ? k++ : NONE;
	}
	*ok = 1;
	int need = 0;
	for (uint32_t i = 0, pk = 0; i < F->nof; i++) {
		uint32_t o = get32(fb, XP_T_IDX_OBJFILES, i, 0);
		uint32_t n = get32(fb, XP_T_OBJFILES, o, XP_OF_NPROC), at = pk;
		for (unsigned c = 0; c < 3; c++)
			for (uint32_t k = 0; k < n; k++) {
				uint32_t p = get32(fb, XP_T_IDX_PROCS, pk + k, 0);
				const unsigned char *r = xp_rec(fb, XP_T_PROCS, p);
				*ok &= xp_get_le32(r + XP_PR_OBJFILE) == o;
				if (F->cls[p] != c)
					continue;
				F->procs[at++] = (oproc){
					p, xp_get_le32(r + XP_PR_FCNT),
					xp_get_le32(r + XP_PR_NCNT),
					xp_get_le32(r + XP_PR_FBLK),
					xp_get_le32(r + XP_PR_NBLK),
					xp_get_le32(r + XP_PR_FEDGE),
					xp_get_le32(r + XP_PR_NEDGE),
					xp_get_le32(r + XP_PR_FTUP),
					xp_get_le32(r + XP_PR_NTUP), pos[p]};
			}
		need |= n > 0 && F->cls[F->procs[pk].p] != 2;
		pk += n;
	}
	for (uint32_t k = 0; k < F->npr; k++)
		pos[F->procs[k].p] = k;
	if (need && *ok &&
	    !(F->pidx = malloc(((size_t)F->npr + 1) * sizeof *F->pidx))) {
		free(pos);
		return XP_E_NOMEM;
	}
	for (uint32_t i = 0, pk = 0; F->pidx && i < F->nof; i++) {
		uint32_t o = get32(fb, XP_T_IDX_OBJFILES, i, 0);
		uint32_t n = get32(fb, XP_T_OBJFILES, o, XP_OF_NPROC);
		int by_name = n > 0 && F->cls[F->procs[pk].p] != 2;
		for (uint32_t k = pk; k < pk + n; k++)
			F->pidx[k] = by_name ? pos[get32(fb, XP_T_IDX_PROCS, k, 0)]
			                     : k;
		pk += n;
	}
	free(pos);
	return XP_E_OK;
}

/*
 * Per procedure (in the template's order, which tuples without a file
 * follow within an object file): the source file its tuples start from,
 * unknown_first(), and its stat kinds; per object file and program, the
 * stat kinds.
 */
static xp_err plan_tuples(flat *F)
{
	const xp_fb *fb = F->fb;
	F->cur = malloc(((size_t)F->npr + 1) * sizeof *F->cur);
	F->cls = malloc((size_t)F->npr + 1);
	F->kinds = malloc((size_t)F->npr + F->nof + F->npg + 1);
	if (!F->cur || !F->cls || !F->kinds)
		return XP_E_NOMEM;
	for (uint32_t o = 0; o < F->nof; o++) {
		xp_objfile io;
		xp_fb_objfile(fb, o, &io);
		F->kinds[F->npr + o] = stat_kinds(fb, io.first_stat, io.n_stats);
		uint32_t cur = NONE;
		for (uint32_t p = io.first_proc; p < io.first_proc + io.n_procs;
		     p++) {
			xp_proc ip;
			xp_fb_proc(fb, p, &ip);
			F->kinds[p] = stat_kinds(fb, ip.first_stat, ip.n_stats);
			F->cur[p] = cur;
			uint32_t first = NONE;
			for (uint32_t k = 0; k < ip.n_tuples; k++) {
				uint32_t f = get32(fb, XP_T_TUPLES,
				                   ip.first_tuple + k, XP_TU_FILE);
				if (f != XP_NOSTR)
					cur = f;
				if (k == 0)
					first = cur;
			}
			F->cls[p] = ip.n_tuples == 0 || first != NONE ? 2
			            : cur == NONE                     ? 0
			                                              : 1;
		}
	}
	for (uint32_t g = 0; g < F->npg; g++) {
		xp_program ip;
		xp_fb_program(fb, g, &ip);
		F->kinds[F->npr + F->nof + g] =
			stat_kinds(fb, ip.first_stat, ip.n_stats);
	}
	return XP_E_OK;
}

/*
 * One final count: the template's, weighted, with the delta's.  plain:
 * the count is the saturating sum of the two (weight 1, a delta summed,
 * no scale), the common case.
 */
static inline uint64_t final_count(xp_merger *m, const tmpl *t, uint64_t v,
                                   uint64_t delta, int plain)
{
	if (plain == 2) {
		uint64_t s = v + delta;
		if (s < v) {
			m->saturated++;
			s = U64MAX;
		}
		return s;
	}
	uint64_t a = 0;
	add_value(m, &a, v, 1);
	if (t->dn > 0) {
		if (plain)
			add_plain(m, &a, delta);
		else
			combine(m, &a, delta, 0, 0);
	}
	return xp_merge_scale(m, a);
}

/*
 * The final counts, into the delta: counters by id within each
 * procedure, block refs in the template's order; the stats of every
 * procedure and object file.
 */
static xp_err plan_counts(flat *F, uint64_t *nsat)
{
	xp_merger *m = F->m;
	tmpl *t = F->t;
	const xp_fb *fb = F->fb;
	int plain = m->o.mode == XP_MERGE_SUM;
	xp_merge_set_weight(m, t->weight);
	if (plain && t->dn > 0 && m->w_int && m->w == 1 && m->o.scale == 1)
		plain = 2;
	uint32_t most = 0;
	for (uint32_t p = 0; p < F->npr; p++)
		most = MAXOF(most, get32(fb, XP_T_PROCS, p, XP_PR_NCNT));
	uint64_t *tmp = malloc(((size_t)most + 1) * sizeof *tmp);
	F->max = malloc(((size_t)F->npr + F->nof + 1) * 2 * sizeof *F->max);
	if (!tmp || !F->max) {
		free(tmp);
		return XP_E_NOMEM;
	}
	F->sum = F->max + F->npr + F->nof;
	for (uint32_t o = 0; o < F->nof; o++) {
		xp_objfile io;
		xp_fb_objfile(fb, o, &io);
		uint64_t omax = 0, osum = 0;
		for (uint32_t p = io.first_proc; p < io.first_proc + io.n_procs;
		     p++) {
			uint32_t fc = get32(fb, XP_T_PROCS, p, XP_PR_FCNT);
			uint32_t nc = get32(fb, XP_T_PROCS, p, XP_PR_NCNT);
			const unsigned char *c = xp_rec(fb, XP_T_COUNTERS, fc);
			for (uint32_t k = 0; k < nc; k++, c += XP_RS_COUNTER)
				tmp[xp_get_le32(c + XP_CN_ID) - 1] = final_count(
					m, t, xp_get_le64(c + XP_CN_VALUE),
					t->dcnt[fc + k], plain);
			uint64_t max = 0, sum = 0;
			for (uint32_t k = 0; k < nc; k++) {
				max = MAXOF(max, tmp[k]);
				sum = xp_sat_add(sum, tmp[k]);
				*nsat += tmp[k] == U64MAX;
			}
			if (nc)
				memcpy(t->dcnt + fc, tmp, (size_t)nc * sizeof *tmp);
			F->max[p] = max;
			F->sum[p] = sum;
			omax = MAXOF(omax, max);
			osum = xp_sat_add(osum, sum);
		}
		F->max[F->npr + o] = omax;
		F->sum[F->npr + o] = osum;
	}
	free(tmp);
	const unsigned char *r = xp_rec(fb, XP_T_BLOCKREFS, 0);
	for (uint32_t i = 0; i < fb->n[XP_T_BLOCKREFS]; i++, r += XP_RS_BLOCKREF) {
		uint64_t v = xp_get_le64(r + XP_BR_COUNT);
		t->dref[i] = final_count(m, t, v, t->dref[i], plain);
		*nsat += t->dref[i] == U64MAX;
	}
	return XP_E_OK;
}

/* The records of every table of the result. */
static void plan_sizes(flat *F)
{
	const xp_fb *fb = F->fb;
	uint64_t *n = F->n;
	for (unsigned t = 0; t < XP_T_COUNT_; t++)
		n[t] = fb->n[t];
	n[XP_T_RUNS] = (F->nof > 0) + (F->npg > 0) +
	               (fb->n[XP_T_SRCFILES] > 0);
	n[XP_T_OBJREFS] = F->nobjref;
	n[XP_T_COMDATS] = F->ncomdat;
	n[XP_T_STATS] = n[XP_T_VPS] = n[XP_T_VPVALS] = 0;
	for (uint32_t i = 0; i < F->npr + F->nof + F->npg; i++)
		n[XP_T_STATS] += nstats(F->kinds[i]);
	for (uint32_t k = 0; k < F->t->ntv; k++) {
		n[XP_T_VPS] += F->vp[k].nvr;
		n[XP_T_VPVALS] += (uint64_t)F->vp[k].nvr * F->t->tv[k].nvpv;
	}
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */
/* ------------------------------------------------------------------ */

/* Where the next record of every table goes, as the tables are walked. */
typedef struct {
	uint32_t n[XP_T_COUNT_];
} cursor;

static void put_proc(recout *o, const flat *F, const oproc *op, uint32_t ofk,
                     uint32_t nvpv, cursor *c)
{
	unsigned kinds = F->kinds[op->p];
	uint32_t nvr = op->vp != NONE ? F->vp[op->vp].nvr : 0;
	unsigned char *r = orec(o, XP_RS_PROC);
	/* The template's record, its places and numbers made the result's. */
	memcpy(r, xp_rec(F->fb, XP_T_PROCS, op->p), XP_RS_PROC);
	xp_put_le32(r + XP_PR_OBJFILE, ofk);
	xp_put_le32(r + XP_PR_FSTAT, c->n[XP_T_STATS]);
	xp_put_le32(r + XP_PR_NSTAT, nstats(kinds));
	xp_put_le32(r + XP_PR_FCNT, c->n[XP_T_COUNTERS]);
	xp_put_le32(r + XP_PR_FVP, c->n[XP_T_VPS]);
	xp_put_le32(r + XP_PR_NVP, nvr);
	xp_put_le32(r + XP_PR_FVPVAL, c->n[XP_T_VPVALS]);
	xp_put_le32(r + XP_PR_FBLK, c->n[XP_T_BLOCKS]);
	xp_put_le32(r + XP_PR_FEDGE, c->n[XP_T_EDGES]);
	xp_put_le32(r + XP_PR_FTUP, c->n[XP_T_TUPLES]);
	c->n[XP_T_COUNTERS] += op->ncnt;
	c->n[XP_T_VPS] += nvr;
	c->n[XP_T_VPVALS] += nvr * nvpv;
	c->n[XP_T_BLOCKS] += op->nblk;
	c->n[XP_T_EDGES] += op->nedge;
	c->n[XP_T_TUPLES] += op->ntup;
}

/* The counters of procedure op, by id (their final counts are in that
 * order, ids 1..n). */
static void put_counters(recout *o, const flat *F, const oproc *op)
{
	const uint64_t *v = F->t->dcnt + op->fcnt;
	for (uint32_t k = 0, got; k < op->ncnt; k += got) {
		unsigned char *r = orecs(o, XP_RS_COUNTER, op->ncnt - k, &got);
		for (uint32_t j = 0; j < got; j++, r += XP_RS_COUNTER) {
			xp_put_le32(r + XP_CN_ID, k + j + 1);
			xp_put_le64(r + XP_CN_VALUE, v[k + j]);
		}
	}
}

/* The tuples of procedure op, prev the source file last written in its
 * object file. */
static void put_tuples(recout *o, const flat *F, const oproc *op,
                       uint32_t *prev)
{
	uint32_t cur = F->cur[op->p];
	const unsigned char *s = xp_rec(F->fb, XP_T_TUPLES, op->ftup);
	for (uint32_t k = 0, got; k < op->ntup; k += got) {
		unsigned char *r = orecs(o, XP_RS_TUPLE, op->ntup - k, &got);
		for (uint32_t j = 0; j < got; j++, s += XP_RS_TUPLE,
		              r += XP_RS_TUPLE) {
			uint32_t f = xp_get_le32(s + XP_TU_FILE), file = XP_NOSTR;
			if (f != XP_NOSTR)
				cur = f;
			if (cur != NONE && cur != *prev)
				file = *prev = cur;
			memcpy(r, s, XP_TU_FILE);
			xp_put_le32(r + XP_TU_FILE, file);
		}
	}
}

/* The records of table t of procedure op, of an object file of nvpv
 * values per value profile; prev as put_tuples(). */
static void put_proc_recs(recout *o, const flat *F, xp_table t,
                          const oproc *op, uint32_t nvpv, uint32_t *prev)
{
	const xp_fb *fb = F->fb;
	const vplist *vl = op->vp != NONE ? &F->vp[op->vp] : NULL;
	switch (t) {
	case XP_T_STATS:
		xp_merge_put_stats(o, F->kinds[op->p], F->max[op->p],
		                   F->sum[op->p]);
		break;
	case XP_T_COUNTERS:
		put_counters(o, F, op);
		break;
	case XP_T_VPS:
		for (uint32_t k = 0; vl && k < vl->nvr; k++) {
			unsigned char *r = orec(o, XP_RS_VP);
			xp_put_le32(r + XP_VP_EXPR, vl->vr[k].expr);
			xp_put_le32(r + XP_VP_TYPE, vl->vr[k].type);
		}
		break;
	case XP_T_VPVALS:
		for (uint32_t k = 0; vl && k < vl->nvr; k++)
			xp_merge_put_vpvals(o, NULL, &vl->vr[k], nvpv);
		break;
	case XP_T_BLOCKS:
		xp_merge_out_copy(o, xp_rec(fb, t, op->fblk),
		                  (size_t)op->nblk * XP_RS_BLOCK, XP_RS_BLOCK);
		break;
	case XP_T_EDGES:
		xp_merge_out_copy(o, xp_rec(fb, t, op->fedge),
		                  (size_t)op->nedge * XP_RS_EDGE, XP_RS_EDGE);
		break;
	case XP_T_TUPLES:
		put_tuples(o, F, op, prev);
		break;
	default:
		break;
	}
}

/* A table of the object file sections: each object file's record, or
 * the records of its procedures. */
static void put_objfile_table(recout *o, void *ctx, xp_table t)
{
	flat *F = ctx;
	const xp_fb *fb = F->fb;
	cursor c = {{0}};
	for (uint32_t i = 0, pk = 0; i < F->nof; i++) {
		uint32_t of = get32(fb, XP_T_IDX_OBJFILES, i, 0), prev = NONE;
		uint32_t np = get32(fb, XP_T_OBJFILES, of, XP_OF_NPROC);
		uint32_t nvpv = get32(fb, XP_T_OBJFILES, of, XP_OF_NVPV);
		unsigned okinds = F->kinds[F->npr + of];
		if (t == XP_T_OBJFILES) {
			unsigned char *r = orec(o, XP_RS_OBJFILE);
			memcpy(r, xp_rec(fb, XP_T_OBJFILES, of), XP_OF_FSTAT);
			xp_put_le32(r + XP_OF_FSTAT, c.n[XP_T_STATS]);
			xp_put_le32(r + XP_OF_NSTAT, nstats(okinds));
			xp_put_le32(r + XP_OF_FPROC, pk);
			xp_put_le32(r + XP_OF_NPROC, np);
		} else if (t == XP_T_STATS) {
			xp_merge_put_stats(o, okinds, F->max[F->npr + of],
			                   F->sum[F->npr + of]);
		}
		c.n[XP_T_STATS] += nstats(okinds);
		for (uint32_t end = pk + np; pk < end; pk++) {
			const oproc *op = &F->procs[pk];
			if (t == XP_T_PROCS)
				put_proc(o, F, op, i, nvpv, &c);
			else if (t != XP_T_OBJFILES)
				put_proc_recs(o, F, t, op, nvpv, &prev);
			c.n[XP_T_STATS] += nstats(F->kinds[op->p]);
		}
	}
}

/* A table of the program sections; the stats are the last ones. */
static void put_program_table(recout *o, void *ctx, xp_table t)
{
	flat *F = ctx;
	const xp_fb *fb = F->fb;
	const key *kk = F->scratch;
	uint32_t st = (uint32_t)F->n[XP_T_STATS], nref = 0, ncd = 0;
	for (uint32_t g = 0; g < F->npg; g++)
		st -= nstats(F->kinds[F->npr + F->nof + g]);
	for (uint32_t i = 0; i < F->npg; i++) {
		uint32_t g = get32(fb, XP_T_IDX_PROGRAMS, i, 0);
		unsigned kinds = F->kinds[F->npr + F->nof + g];
		xp_program ip;
		xp_fb_program(fb, g, &ip);
		uint32_t nr = sort_keys(F, XP_T_OBJREFS, ip.first_objref,
		                        ip.n_objrefs);
		if (t == XP_T_OBJREFS)
			for (uint32_t k = 0; k < nr; k++)
				xp_put_le32(orec(o, XP_RS_OBJREF), kk[k].k[0]);
		uint64_t max = 0, sum = 0;
		for (uint32_t k = 0; t == XP_T_STATS && k < nr; k++) {
			uint32_t of = xp_fb_objfile_by_path(F->fb, kk[k].k[0]);
			if (of == NONE)
				continue;
			max = MAXOF(max, F->max[F->npr + of]);
			sum = xp_sat_add(sum, F->sum[F->npr + of]);
		}
		if (t == XP_T_STATS)
			xp_merge_put_stats(o, kinds, max, sum);
		uint32_t nc = sort_keys(F, XP_T_COMDATS, ip.first_comdat,
		                        ip.n_comdats);
		for (uint32_t k = 0; t == XP_T_COMDATS && k < nc; k++) {
			unsigned char *r = orec(o, XP_RS_COMDAT);
			xp_put_le32(r + XP_CD_PROC, kk[k].k[1]);
			xp_put_le32(r + XP_CD_OBJFILE, kk[k].k[0]);
		}
		if (t == XP_T_PROGRAMS) {
			unsigned char *r = orec(o, XP_RS_PROGRAM);
			xp_put_le32(r + XP_PG_PATH, ip.path);
			xp_put_le32(r + XP_PG_FSTAT, st);
			xp_put_le32(r + XP_PG_NSTAT, nstats(kinds));
			xp_put_le32(r + XP_PG_FOBJREF, nref);
			xp_put_le32(r + XP_PG_NOBJREF, nr);
			xp_put_le32(r + XP_PG_FCOMDAT, ncd);
			xp_put_le32(r + XP_PG_NCOMDAT, nc);
		}
		st += nstats(kinds);
		nref += nr;
		ncd += nc;
	}
}

/* The n block refs of a line from the template's first, in order, with
 * their final counts. */
static void put_refs(recout *o, flat *F, uint32_t first, uint32_t n)
{
	const unsigned char *s = xp_rec(F->fb, XP_T_BLOCKREFS, first);
	const key *kk = NULL;
	for (uint32_t q = 1; q < n && !kk; q++)
		if (!ref_before(s + (size_t)(q - 1) * XP_RS_BLOCKREF,
		                s + (size_t)q * XP_RS_BLOCKREF)) {
			sort_keys(F, XP_T_BLOCKREFS, first, n);
			kk = F->scratch;
		}
	for (uint32_t q = 0, got; q < n; q += got) {
		unsigned char *r = orecs(o, XP_RS_BLOCKREF, n - q, &got);
		for (uint32_t j = q; j < q + got; j++, r += XP_RS_BLOCKREF) {
			uint32_t i = kk ? kk[j].i : first + j;
			memcpy(r, xp_rec(F->fb, XP_T_BLOCKREFS, i), XP_RS_BLOCKREF);
			xp_put_le64(r + XP_BR_COUNT, F->t->dref[i]);
		}
	}
}

/*
 * The lines (or block refs) of source file is, whose lines and refs are
 * in order in the template: a run of its records, the places (counts)
 * made the result's; *nref counts the refs before them.
 */
static void put_run_of(recout *o, const flat *F, const xp_srcfile *is,
                       xp_table t, uint32_t *nref)
{
	const xp_fb *fb = F->fb;
	uint32_t first = is->first_line, n = is->n_lines;
	if (t == XP_T_BLOCKREFS) {
		const unsigned char *last = xp_rec(fb, XP_T_SRCLINES,
		                                   first + n - 1);
		first = get32(fb, XP_T_SRCLINES, first, XP_SL_FREF);
		n = xp_get_le32(last + XP_SL_FREF) + xp_get_le32(last + XP_SL_NREF) -
		    first;
	}
	size_t rs = xp_tabdescs[t].size;
	const unsigned char *s = xp_rec(fb, t, first);
	for (uint32_t k = 0, got; k < n; k += got) {
		unsigned char *r = orecs(o, rs, n - k, &got);
		memcpy(r, s + (size_t)k * rs, (size_t)got * rs);
		for (uint32_t j = 0; j < got; j++, r += rs) {
			if (t == XP_T_BLOCKREFS) {
				xp_put_le64(r + XP_BR_COUNT, F->t->dref[first + k + j]);
				continue;
			}
			xp_put_le32(r + XP_SL_FREF, *nref);
			*nref += xp_get_le32(r + XP_SL_NREF);
		}
	}
}

/* A table of the source file sections. */
static void put_srcfile_table(recout *o, void *ctx, xp_table t)
{
	flat *F = ctx;
	const xp_fb *fb = F->fb;
	uint32_t nline = 0, nref = 0;
	for (uint32_t i = 0; i < fb->n[XP_T_SRCFILES]; i++) {
		xp_srcfile is;
		uint32_t sf = get32(fb, XP_T_IDX_SRCFILES, i, 0);
		xp_fb_srcfile(fb, sf, &is);
		if (t == XP_T_SRCFILES) {
			unsigned char *r = orec(o, XP_RS_SRCFILE);
			xp_put_le32(r + XP_SF_PATH, is.path);
			xp_put_le32(r + XP_SF_FLINE, nline);
			xp_put_le32(r + XP_SF_NLINE, is.n_lines);
			nline += is.n_lines;
			continue;
		}
		if (F->inorder[sf] && is.n_lines > 0) {
			put_run_of(o, F, &is, t, &nref);
			continue;
		}
		for (uint32_t k = 0; k < is.n_lines; k++) {
			uint32_t l = is.first_line + k;
			if (F->lines)
				l = F->lines[l];
			const unsigned char *lr = xp_rec(fb, XP_T_SRCLINES, l);
			uint32_t n = xp_get_le32(lr + XP_SL_NREF);
			if (t == XP_T_SRCLINES) {
				unsigned char *r = orec(o, XP_RS_SRCLINE);
				memcpy(r, lr, XP_SL_FREF);
				xp_put_le32(r + XP_SL_FREF, nref);
				xp_put_le32(r + XP_SL_NREF, n);
			} else if (t == XP_T_BLOCKREFS) {
				put_refs(o, F, xp_get_le32(lr + XP_SL_FREF), n);
			}
			nref += n;
		}
	}
}

/* Directory entry e of the result. */
static void put_flat(void *ctx, unsigned e, recout *o)
{
	flat *F = ctx;
	const xp_fb *fb = F->fb;
	xp_merge_put_entry(o,
	                   &(tables){fb->stroff, fb->strtab, fb->nstr,
	                             fb->strtab_len, put_objfile_table,
	                             put_program_table, put_srcfile_table, F,
	                             F->nof, F->npg, fb->n[XP_T_SRCFILES], F->n,
	                             F->pidx},
	                   e);
}

/* The part of the plan that reads the template alone: its lists, its
 * tuples and the order of its procedures. */
typedef struct {
	flat *F;
	int ok;
	xp_err err;
} layout_plan;

static void *plan_layout(void *arg)
{
	layout_plan *L = arg;
	L->ok = 1;
	if (!(L->err = check_lists(L->F, &L->ok)) && L->ok &&
	    !(L->err = plan_tuples(L->F)))
		L->err = plan_order(L->F, &L->ok);
	return NULL;
}

/*
 * Plans the result of the lazy template t; *ok cleared (nothing
 * changed) when the accumulator must make it.  The template's delta
 * holds the final counts once this succeeds.  With threads to spare
 * (xp_merge_opts.threads), the template's part is planned on a thread
 * of its own while the value profiles are; they share nothing.
 */
static xp_err plan_flat(flat *F, int *ok, xp_diags *d)
{
	xp_merger *m = F->m;
	uint64_t nsat = 0, saturated = m->saturated;
	xp_err err;
	uint32_t nstr = F->fb->nstr;
	/* The template's string ids are in byte order: they are their
	 * own ranks, for sorting VP_PROC values. */
	if (!(m->rank = malloc(((size_t)nstr + 1) * sizeof *m->rank)))
		return XP_E_NOMEM;
	for (uint32_t i = 0; i < nstr; i++)
		m->rank[i] = i;
	layout_plan L = {F, 1, XP_E_OK};
	pthread_t th;
	int apart = m->o.threads > 1 &&
	            pthread_create(&th, NULL, plan_layout, &L) == 0;
	if (!apart)
		plan_layout(&L);
	*ok = 1;
	err = apart || (!L.err && L.ok) ? plan_values(F, ok, &nsat) : XP_E_OK;
	if (apart)
		pthread_join(th, NULL);
	if (!err)
		err = L.err;
	if (!L.ok)
		*ok = 0;
	if (err || !*ok) {
		/* Weighing the template's values again changed nothing
		 * but this. */
		m->saturated = saturated;
		goto out;
	}
	/* From here on the merger only writes its result: what went into
	 * the value profiles goes, and so do the template's counts, once
	 * taken, which the result does not read. */
	m->failed = 1;
	xp_fb_let_go(F->fb, XP_T_VPVALS);
	xp_merge_drop_others(F->t);
	free(F->t->vcnt);
	F->t->vcnt = NULL;
	F->t->vcntcap = 0;
	if ((err = plan_counts(F, &nsat)))
		goto out;
	xp_fb_let_go(F->fb, XP_T_STATS);
	xp_fb_let_go(F->fb, XP_T_COUNTERS);
	plan_sizes(F);
	if (m->saturated)
		xp_merge_saturation(m, nsat, d);
out:
	free(m->rank);
	m->rank = NULL;
	return err;
}

int xp_merge_flat_plan(xp_merger *m, product *P, xp_diags *d, xp_err *err)
{
	tmpl *t = xp_merge_only_template(m);
	*err = XP_E_OK;
	if (!t || m->failed || m->o.sparse)
		return 0;
	flat *F = calloc(1, sizeof *F);
	if (!F) {
		*err = XP_E_NOMEM;
		return 1;
	}
	F->m = m;
	F->t = t;
	F->fb = t->fb;
	F->nof = t->fb->n[XP_T_OBJFILES];
	F->npr = t->fb->n[XP_T_PROCS];
	F->npg = t->fb->n[XP_T_PROGRAMS];
	int ok = 1;
	*err = plan_flat(F, &ok, d);
	if (!*err && !ok) {
		flat_free(F);
		return 0;
	}
	P->put = put_flat;
	P->release = flat_free;
	P->ctx = F;
	P->shape = (xp_db_shape){m->type, m->minor, m->n_proc_names, {0}};
	P->shape.count[XP_DBE_STROFFS] = t->fb->nstr;
	P->shape.count[XP_DBE_STRINGS] = t->fb->strtab_len;
	for (int k = 0; k < XP_T_COUNT_; k++)
		P->shape.count[XP_DBE_TABLE0 + k] = F->n[k];
	P->nof = F->nof;
	if (F->nof == 1)
		P->objfile = xp_fb_str(t->fb, get32(t->fb, XP_T_OBJFILES, 0,
		                                    XP_OF_PATH));
	return 1;
}
