/*
 * show/mpatrol.c - xprof_show's report of mpatrol allocation profiles,
 * the tables of mprof(1) from the mpatrol distribution: the allocation
 * bins, the direct allocations per function (small/medium/large/extra
 * large by the bounds of the file), the memory leaks and, with
 * --call-graph, the allocation call graph.  The text is mprof's, column
 * for column, so that the numbers can be compared with it; --format=json
 * gives the same rows as data.  mpatrol(5) documents the report.
 *
 * Options map onto mprof's: --lines is mprof --addresses (call sites
 * within one function are told apart and shown as function+offset), -n N
 * is mprof --stack-depth N (0: whole stacks; default 1).  mprof --counts
 * (the tables sorted by counts) is xp_mp_report()'s counts option.
 *
 * The order of rows follows mprof's: call sites are visited by address
 * (ties in file order), sites of one function that follow each other are
 * taken together, and the tables sort by their first column, descending,
 * the later of two equal rows first (mprof's red-black trees put equal
 * keys to the right).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "show.h"
#include "tool.h"
#include "xprof.h"
#include "xprof_mpatrol.h"

typedef struct {
	int addresses;      /* mprof -a */
	int counts;         /* mprof -c */
	uint64_t maxstack;  /* mprof -n; 0: no limit */
	int call_graph;     /* mprof -v */
	int json;
} xp_mp_report_opts;

/* Counts and totals by size class, as mprof's profiledata. */
typedef struct {
	uint64_t acount[4], dcount[4], atotal[4], dtotal[4];
} pdata;

typedef struct {
	const xp_mpatrol *m;
	const xp_mp_report_opts *o;
	size_t n;              /* call sites */
	size_t *order;         /* positions in m->sites by address */
	unsigned char *flags;  /* by position */
	uint64_t acount, dcount, atotal, dtotal;
} rctx;

typedef struct {
	size_t site;      /* position of the representative call site */
	uint64_t key;
	size_t seq;       /* insertion order */
	pdata d;
} row;

static void pd_add(pdata *a, const xp_mpatrol_data *b)
{
	for (int i = 0; i < 4; i++) {
		a->acount[i] += b->acount[i];
		a->dcount[i] += b->dcount[i];
		a->atotal[i] += b->atotal[i];
		a->dtotal[i] += b->dtotal[i];
	}
}

static void pd_sum(pdata *a, const pdata *b)
{
	for (int i = 0; i < 4; i++) {
		a->acount[i] += b->acount[i];
		a->dcount[i] += b->dcount[i];
		a->atotal[i] += b->atotal[i];
		a->dtotal[i] += b->dtotal[i];
	}
}

static const xp_mpatrol_site *site(const rctx *c, size_t pos)
{
	return &c->m->sites[pos];
}

static size_t parent_pos(const rctx *c, size_t pos)
{
	const xp_mpatrol_site *p = xp_mpatrol_site_at(c->m, site(c, pos)->parent);
	return p == NULL ? SIZE_MAX : (size_t)(p - c->m->sites);
}

/* Whether the site at q belongs with the one at n in mprof's tables:
 * the same address or, unless addresses are told apart, symbol. */
static int same_fn(const rctx *c, size_t n, size_t q)
{
	const xp_mpatrol_site *a = site(c, n), *b = site(c, q);
	return b->addr == a->addr ||
	       (!c->o->addresses && b->symbol != 0 && b->symbol == a->symbol);
}

/* Whether two call sites have the same stack (mprof's comparestack). */
static int same_stack(const rctx *c, size_t n, size_t p, int whole)
{
	for (uint64_t i = 1; whole || c->o->maxstack == 0 ||
	                     i < c->o->maxstack; i++) {
		size_t pn = parent_pos(c, n), pp = parent_pos(c, p);
		const xp_mpatrol_site *a, *b;

		if (pn == SIZE_MAX || pp == SIZE_MAX)
			return pn == SIZE_MAX && pp == SIZE_MAX;
		n = pn;
		p = pp;
		a = site(c, n);
		b = site(c, p);
		if (a->addr != b->addr &&
		    (c->o->addresses || a->symbol == 0 || a->symbol != b->symbol))
			return 0;
	}
	return 1;
}

static int by_addr(const void *x, const void *y, void *ctx)
{
	const xp_mpatrol *m = ctx;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	if (m->sites[a].addr != m->sites[b].addr)
		return m->sites[a].addr < m->sites[b].addr ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Rows by key, descending, the later inserted first. */
static int by_key_desc(const void *x, const void *y)
{
	const row *a = x, *b = y;

	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	return a->seq > b->seq ? -1 : a->seq < b->seq;
}

/* The symbol of a call site as mprof prints it. */
static void symbol_str(const rctx *c, size_t pos, char *buf, size_t len)
{
	const xp_mpatrol_site *s = site(c, pos);
	const char *name = xp_mpatrol_site_name(c->m, s);
	int64_t off;

	if (name == NULL) {
		snprintf(buf, len, "0x%0*" PRIX64, (int)c->m->ptr_size * 2,
		         s->addr);
		return;
	}
	off = (int64_t)(s->addr - xp_mpatrol_site_symaddr(c->m, s));
	if (c->o->addresses && s->symbol != 0 && off != 0)
		snprintf(buf, len, "%s%+" PRId64, name, off);
	else
		snprintf(buf, len, "%s", name);
}

/* The symbol of site pos as symbol_str() gives it, allocated; NULL when
 * out of memory. */
static char *symbol_dup(const rctx *c, size_t pos)
{
	const char *name = xp_mpatrol_site_name(c->m, site(c, pos));
	size_t len = (name != NULL ? strlen(name) : 0) + 48;
	char *buf = malloc(len);

	if (buf != NULL)
		symbol_str(c, pos, buf, len);
	return buf;
}

static void print_symbol(FILE *f, const rctx *c, size_t pos)
{
	char *buf = symbol_dup(c, pos);

	fputs(buf != NULL ? buf : "?", f);
	free(buf);
}

/* As a JSON string (null when out of memory). */
static void json_symbol(FILE *f, const rctx *c, size_t pos)
{
	char *buf = symbol_dup(c, pos);

	tool_json_str(f, buf);
	free(buf);
}

static void chars(FILE *f, char ch, int n)
{
	for (int i = 0; i < n; i++)
		fputc(ch, f);
}

/*
 * mprof's two column headings over a table: "allocated" after pad1
 * blanks and "unfreed" pad2 blanks later, then under each a rule of
 * `dashes` dashes, the rules two apart and indent blanks in.
 */
static void heading(FILE *f, int pad1, int pad2, int indent, int dashes)
{
	chars(f, ' ', pad1);
	fputs("allocated", f);
	chars(f, ' ', pad2);
	fputs("unfreed\n", f);
	chars(f, ' ', indent);
	chars(f, '-', dashes);
	fputs("  ", f);
	chars(f, '-', dashes);
}

static double pct(uint64_t a, uint64_t t)
{
	return t == 0 ? 0.0 : (double)a / (double)t * 100.0;
}

/* Four size classes as mprof's printdata(). */
static void classes(FILE *f, const uint64_t d[4], uint64_t t)
{
	for (int i = 0; i < 4; i++) {
		double n;

		if (d[i] == 0 || t == 0) {
			fputs("   ", f);
			continue;
		}
		n = (double)d[i] / (double)t * 100.0;
		if (n <= 0.5)
			fputs("  .", f);
		else if (n >= 99.5)
			fputs(" %%", f);
		else
			fprintf(f, " %2.0f", n);
	}
}

static uint64_t sum4(const uint64_t v[4])
{
	return v[0] + v[1] + v[2] + v[3];
}

static void json_four(FILE *f, const char *key, const uint64_t v[4])
{
	fprintf(f, "\"%s\": [%" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64
	        "]", key, v[0], v[1], v[2], v[3]);
}

/* ------------------------------------------------------------------ */
/* Allocation bins                                                     */
/* ------------------------------------------------------------------ */

static void bin_row(const rctx *c, size_t i, uint64_t *a, uint64_t *b,
                    uint64_t *bytes, uint64_t *ubytes)
{
	const xp_mpatrol *m = c->m;

	*a = m->acounts[i];
	*b = *a - m->dcounts[i];
	if (i == m->nbins - 1) {
		*bytes = m->atotals;
		*ubytes = m->atotals - m->dtotals;
	} else {
		*bytes = *a * (i + 1);
		*ubytes = *b * (i + 1);
	}
}

static void bin_table(FILE *f, const rctx *c)
{
	const xp_mpatrol *m = c->m;
	int any = 0;

	chars(f, ' ', 32);
	fputs("ALLOCATION BINS\n\n", f);
	chars(f, ' ', 29);
	fprintf(f, "(number of bins: %zu)\n\n", m->nbins);
	heading(f, 21, 26, 10, 32);
	fputs("\n    size   count       %     bytes       %   "
	      "count       %     bytes       %\n\n", f);
	for (size_t i = 0; i < m->nbins; i++) {
		uint64_t a, b, bytes, ub;

		if (m->acounts[i] == 0)
			continue;
		bin_row(c, i, &a, &b, &bytes, &ub);
		fprintf(f, " %s %4zu  %6" PRIu64 "  %6.2f  %8" PRIu64 "  %6.2f  "
		        "%6" PRIu64 "  %6.2f  %8" PRIu64 "  %6.2f\n",
		        i == m->nbins - 1 ? ">=" : "  ", i + 1, a,
		        pct(a, c->acount), bytes, pct(bytes, c->atotal), b,
		        pct(b, c->acount - c->dcount), ub,
		        pct(ub, c->atotal - c->dtotal));
		any = 1;
	}
	if (any)
		fputc('\n', f);
	fprintf(f, "   total  %6" PRIu64 "          %8" PRIu64 "          %6"
	        PRIu64 "          %8" PRIu64 "\n", c->acount, c->atotal,
	        c->acount - c->dcount, c->atotal - c->dtotal);
}

static void bin_json(FILE *f, const rctx *c)
{
	const xp_mpatrol *m = c->m;
	int first = 1;

	fputs("  \"bins\": [", f);
	for (size_t i = 0; i < m->nbins; i++) {
		uint64_t a, b, bytes, ub;

		if (m->acounts[i] == 0)
			continue;
		bin_row(c, i, &a, &b, &bytes, &ub);
		fprintf(f, "%s\n    {\"size\": %zu, \"or_more\": %s, \"count\": %"
		        PRIu64 ", \"bytes\": %" PRIu64 ", \"unfreed_count\": %"
		        PRIu64 ", \"unfreed_bytes\": %" PRIu64 "}",
		        first ? "" : ",", i + 1,
		        i == m->nbins - 1 ? "true" : "false", a, bytes, b, ub);
		first = 0;
	}
	fputs(first ? "],\n" : "\n  ],\n", f);
}

/* ------------------------------------------------------------------ */
/* Direct allocations and memory leaks                                 */
/* ------------------------------------------------------------------ */

/* The rows of the direct allocation table, in print order. */
static row *direct_rows(rctx *c, size_t *nrows, pdata *all)
{
	row *r = calloc(c->n ? c->n : 1, sizeof *r);
	size_t nr = 0;

	memset(all, 0, sizeof *all);
	if (r == NULL)
		return NULL;
	for (size_t k = 0; k < c->n; ) {
		size_t n = c->order[k], q = k + 1;
		const xp_mpatrol_data *dt = xp_mpatrol_site_data(c->m, site(c, n));

		if (dt != NULL) {
			row *w = &r[nr];
			w->site = n;
			w->seq = nr;
			pd_add(&w->d, dt);
			for (; q < c->n && same_fn(c, n, c->order[q]); q++) {
				const xp_mpatrol_data *e =
					xp_mpatrol_site_data(c->m, site(c, c->order[q]));
				if (e != NULL)
					pd_add(&w->d, e);
			}
			w->key = c->o->counts ? sum4(w->d.acount)
			                      : sum4(w->d.atotal);
			pd_sum(all, &w->d);
			nr++;
		}
		k = q;
	}
	qsort(r, nr, sizeof *r, by_key_desc);
	*nrows = nr;
	return r;
}

static void direct_table(FILE *f, const rctx *c, const row *r, size_t nr,
                         const pdata *all)
{
	const xp_mpatrol *m = c->m;
	int counts = c->o->counts;
	pdata t = *all;

	chars(f, ' ', 31);
	fputs("DIRECT ALLOCATIONS\n\n", f);
	chars(f, ' ', 20);
	fprintf(f, "(0 < s <= %" PRIu64 " < m <= %" PRIu64 " < l <= %" PRIu64
	        " < x)\n\n", m->sbound, m->mbound, m->lbound);
	if (counts) {
		heading(f, 9, 21, 0, 27);
		fputs("\n count       %   s  m  l  x   "
		      "count       %   s  m  l  x     bytes  function\n\n", f);
	} else {
		heading(f, 10, 23, 0, 29);
		fputs("\n   bytes       %   s  m  l  x     "
		      "bytes       %   s  m  l  x   count  function\n\n", f);
	}
	for (size_t i = 0; i < nr; i++) {
		pdata d = r[i].d;
		uint64_t a = r[i].key, b, cc;

		b = counts ? sum4(d.dcount) : sum4(d.dtotal);
		cc = counts ? sum4(d.atotal) : sum4(d.acount);
		for (int k = 0; k < 4; k++) {
			d.dcount[k] = d.acount[k] - d.dcount[k];
			d.dtotal[k] = d.atotal[k] - d.dtotal[k];
		}
		b = a - b;
		if (counts) {
			fprintf(f, "%6" PRIu64 "  %6.2f ", a, pct(a, c->acount));
			classes(f, d.acount, c->acount);
			fprintf(f, "  %6" PRIu64 "  %6.2f ", b,
			        pct(b, c->acount - c->dcount));
			classes(f, d.dcount, c->acount - c->dcount);
			fprintf(f, "  %8" PRIu64 "  ", cc);
		} else {
			fprintf(f, "%8" PRIu64 "  %6.2f ", a, pct(a, c->atotal));
			classes(f, d.atotal, c->atotal);
			fprintf(f, "  %8" PRIu64 "  %6.2f ", b,
			        pct(b, c->atotal - c->dtotal));
			classes(f, d.dtotal, c->atotal - c->dtotal);
			fprintf(f, "  %6" PRIu64 "  ", cc);
		}
		print_symbol(f, c, r[i].site);
		fputc('\n', f);
	}
	for (int k = 0; k < 4; k++) {
		t.dcount[k] = t.acount[k] - t.dcount[k];
		t.dtotal[k] = t.atotal[k] - t.dtotal[k];
	}
	if (nr != 0)
		fputc('\n', f);
	if (counts) {
		fprintf(f, "%6" PRIu64 "         ", c->acount);
		classes(f, t.acount, c->acount);
		fprintf(f, "  %6" PRIu64 "         ", c->acount - c->dcount);
		classes(f, t.dcount, c->acount - c->dcount);
		fprintf(f, "  %8" PRIu64 "  total\n", c->atotal);
	} else {
		fprintf(f, "%8" PRIu64 "         ", c->atotal);
		classes(f, t.atotal, c->atotal);
		fprintf(f, "  %8" PRIu64 "         ", c->atotal - c->dtotal);
		classes(f, t.dtotal, c->atotal - c->dtotal);
		fprintf(f, "  %6" PRIu64 "  total\n", c->acount);
	}
}

static void unfreed(const pdata *d, uint64_t uc[4], uint64_t ub[4])
{
	for (int k = 0; k < 4; k++) {
		uc[k] = d->acount[k] - d->dcount[k];
		ub[k] = d->atotal[k] - d->dtotal[k];
	}
}

static void direct_json(FILE *f, const rctx *c, const row *r, size_t nr)
{
	fputs("  \"direct\": [", f);
	for (size_t i = 0; i < nr; i++) {
		uint64_t uc[4], ub[4];

		unfreed(&r[i].d, uc, ub);
		fprintf(f, "%s\n    {\"function\": ", i ? "," : "");
		json_symbol(f, c, r[i].site);
		fputs(", ", f);
		json_four(f, "count", r[i].d.acount);
		fputs(", ", f);
		json_four(f, "bytes", r[i].d.atotal);
		fputs(", ", f);
		json_four(f, "unfreed_count", uc);
		fputs(", ", f);
		json_four(f, "unfreed_bytes", ub);
		fputs("}", f);
	}
	fputs(nr ? "\n  ],\n" : "],\n", f);
}

/* The rows of the memory leak table, in print order. */
static row *leak_rows(rctx *c, size_t *nrows)
{
	row *r = calloc(c->n ? c->n : 1, sizeof *r);
	size_t nr = 0, seq = 0;

	if (r == NULL)
		return NULL;
	memset(c->flags, 0, c->n);
	for (size_t k = 0; k < c->n; k++) {
		size_t n = c->order[k];
		const xp_mpatrol_data *dt = xp_mpatrol_site_data(c->m, site(c, n));
		pdata d;
		uint64_t a = 0;

		if (dt == NULL || c->flags[n])
			continue;
		memset(&d, 0, sizeof d);
		pd_add(&d, dt);
		for (size_t q = k + 1; q < c->n && same_fn(c, n, c->order[q]);
		     q++) {
			size_t p = c->order[q];
			const xp_mpatrol_data *e = xp_mpatrol_site_data(c->m,
			                                                site(c, p));
			if (e != NULL && !c->flags[p] && same_stack(c, n, p, 0)) {
				pd_add(&d, e);
				c->flags[p] = 1;
			}
		}
		for (int i = 0; i < 4; i++)
			a += c->o->counts ? d.acount[i] - d.dcount[i]
			                  : d.atotal[i] - d.dtotal[i];
		if (a > 0) {
			r[nr].site = n;
			r[nr].key = a;
			r[nr].seq = seq++;
			r[nr].d = d;
			nr++;
		}
	}
	memset(c->flags, 0, c->n);
	qsort(r, nr, sizeof *r, by_key_desc);
	*nrows = nr;
	return r;
}

static void leak_table(FILE *f, const rctx *c, const row *r, size_t nr)
{
	int counts = c->o->counts;
	double e, fr;

	chars(f, ' ', 34);
	fputs("MEMORY LEAKS\n\n", f);
	chars(f, ' ', 28);
	fprintf(f, "(maximum stack depth: %" PRIu64 ")\n\n", c->o->maxstack);
	chars(f, ' ', 16);
	fputs("unfreed", f);
	chars(f, ' ', 22);
	fputs("allocated\n", f);
	chars(f, '-', 40);
	fputs("  ", f);
	chars(f, '-', 16);
	if (counts)
		fputs("\n     %   count       %     bytes       %   "
		      "count     bytes  function\n\n", f);
	else
		fputs("\n     %     bytes       %   count       %     "
		      "bytes   count  function\n\n", f);
	for (size_t i = 0; i < nr; i++) {
		const pdata *d = &r[i].d;
		uint64_t a = r[i].key, b, j, k;

		b = counts ? sum4(d->dtotal) : sum4(d->dcount);
		j = counts ? sum4(d->acount) : sum4(d->atotal);
		k = counts ? sum4(d->atotal) : sum4(d->acount);
		b = k - b;
		if (counts)
			fprintf(f, "%6.2f  %6" PRIu64 "  %6.2f  %8" PRIu64 "  %6.2f  "
			        "%6" PRIu64 "  %8" PRIu64 "  ",
			        pct(a, c->acount - c->dcount), a, pct(a, j), b,
			        pct(b, k), j, k);
		else
			fprintf(f, "%6.2f  %8" PRIu64 "  %6.2f  %6" PRIu64 "  %6.2f  "
			        "%8" PRIu64 "  %6" PRIu64 "  ",
			        pct(a, c->atotal - c->dtotal), a, pct(a, j), b,
			        pct(b, k), j, k);
		print_symbol(f, c, r[i].site);
		fputc('\n', f);
		size_t p = r[i].site;
		for (uint64_t s = 1; c->o->maxstack == 0 || s < c->o->maxstack;
		     s++) {
			if ((p = parent_pos(c, p)) == SIZE_MAX)
				break;
			chars(f, ' ', 60);
			print_symbol(f, c, p);
			fputc('\n', f);
		}
	}
	e = pct(c->acount - c->dcount, c->acount);
	fr = pct(c->atotal - c->dtotal, c->atotal);
	if (nr != 0)
		fputc('\n', f);
	if (counts)
		fprintf(f, "        %6" PRIu64 "  %6.2f  %8" PRIu64 "  %6.2f  %6"
		        PRIu64 "  %8" PRIu64 "  total\n", c->acount - c->dcount,
		        e, c->atotal - c->dtotal, fr, c->acount, c->atotal);
	else
		fprintf(f, "        %8" PRIu64 "  %6.2f  %6" PRIu64 "  %6.2f  %8"
		        PRIu64 "  %6" PRIu64 "  total\n", c->atotal - c->dtotal,
		        fr, c->acount - c->dcount, e, c->atotal, c->acount);
}

static void leak_json(FILE *f, const rctx *c, const row *r, size_t nr)
{
	fputs("  \"leaks\": [", f);
	for (size_t i = 0; i < nr; i++) {
		uint64_t uc[4], ub[4];
		size_t p = r[i].site;

		unfreed(&r[i].d, uc, ub);
		fprintf(f, "%s\n    {\"stack\": [", i ? "," : "");
		json_symbol(f, c, p);
		for (uint64_t s = 1; c->o->maxstack == 0 || s < c->o->maxstack;
		     s++) {
			if ((p = parent_pos(c, p)) == SIZE_MAX)
				break;
			fputs(", ", f);
			json_symbol(f, c, p);
		}
		fprintf(f, "], \"unfreed_count\": %" PRIu64 ", \"unfreed_bytes\": %"
		        PRIu64 ", \"count\": %" PRIu64 ", \"bytes\": %" PRIu64 "}",
		        sum4(uc), sum4(ub), sum4(r[i].d.acount),
		        sum4(r[i].d.atotal));
	}
	fputs(nr ? "\n  ]" : "]", f);
}

/* ------------------------------------------------------------------ */
/* The allocation call graph                                           */
/* ------------------------------------------------------------------ */

#define V_START SIZE_MAX
#define V_END (SIZE_MAX - 1)

typedef struct {
	size_t from, to;   /* vertex numbers, or V_START, V_END */
	pdata d;
	int cycle;
} gedge;

typedef struct {
	uint64_t key;
	int by_addr;       /* key is an address, not a symbol index */
	size_t site;       /* the call site that made it */
	size_t index;      /* 1-based, by key */
	size_t *par, npar, *chl, nchl;  /* edge numbers, in creation order */
	size_t parcap, chlcap;
	int mark;
} gvert;

typedef struct {
	gvert *v;
	size_t nv, vcap;
	gedge *e;
	size_t ne, ecap;
	size_t *vorder;    /* vertex numbers by key */
	int failed;
} graph;

static size_t vertex_of(rctx *c, graph *g, size_t pos)
{
	const xp_mpatrol_site *s = site(c, pos);
	int by_addr = c->o->addresses || s->symbol == 0;
	uint64_t key = by_addr ? s->addr : s->symbol;
	gvert *v;

	for (size_t i = 0; i < g->nv; i++)
		if (g->v[i].key == key && g->v[i].by_addr == by_addr)
			return i;
	if (g->nv == g->vcap) {
		size_t cap = g->vcap ? g->vcap * 2 : 16;
		gvert *q = realloc(g->v, cap * sizeof *q);
		if (q == NULL) {
			g->failed = 1;
			return SIZE_MAX - 2;
		}
		g->v = q;
		g->vcap = cap;
	}
	v = &g->v[g->nv];
	memset(v, 0, sizeof *v);
	v->key = key;
	v->by_addr = by_addr;
	v->site = pos;
	return g->nv++;
}

static int push(size_t **a, size_t *n, size_t *cap, size_t x)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 4;
		size_t *q = realloc(*a, nc * sizeof *q);
		if (q == NULL)
			return -1;
		*a = q;
		*cap = nc;
	}
	(*a)[(*n)++] = x;
	return 0;
}

/* The edge from -> to, made when new. */
static gedge *edge_of(graph *g, size_t from, size_t to)
{
	gedge *e;

	if (to != V_END) {
		gvert *t = &g->v[to];
		for (size_t i = 0; i < t->npar; i++)
			if (g->e[t->par[i]].from == from)
				return &g->e[t->par[i]];
	} else {
		gvert *fv = &g->v[from];
		for (size_t i = 0; i < fv->nchl; i++)
			if (g->e[fv->chl[i]].to == V_END)
				return &g->e[fv->chl[i]];
	}
	if (g->ne == g->ecap) {
		size_t cap = g->ecap ? g->ecap * 2 : 16;
		gedge *q = realloc(g->e, cap * sizeof *q);
		if (q == NULL)
			return NULL;
		g->e = q;
		g->ecap = cap;
	}
	e = &g->e[g->ne];
	memset(e, 0, sizeof *e);
	e->from = from;
	e->to = to;
	if (to != V_END && push(&g->v[to].par, &g->v[to].npar,
	                        &g->v[to].parcap, g->ne) != 0)
		return NULL;
	if (from != V_START && push(&g->v[from].chl, &g->v[from].nchl,
	                            &g->v[from].chlcap, g->ne) != 0)
		return NULL;
	return &g->e[g->ne++];
}

static int by_vkey(const void *x, const void *y, void *ctx)
{
	const graph *g = ctx;
	const gvert *a = &g->v[*(const size_t *)x], *b = &g->v[*(const size_t *)y];

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->by_addr - b->by_addr;
}

static int build_graph(rctx *c, graph *g)
{
	memset(g, 0, sizeof *g);
	memset(c->flags, 0, c->n);
	for (size_t k = 0; k < c->n; k++) {
		size_t n = c->order[k], p, u, v;
		const xp_mpatrol_data *dt = xp_mpatrol_site_data(c->m, site(c, n));
		gedge *e;
		pdata d;

		if (dt == NULL || c->flags[n])
			continue;
		memset(&d, 0, sizeof d);
		pd_add(&d, dt);
		for (size_t q = k + 1; q < c->n && same_fn(c, n, c->order[q]);
		     q++) {
			size_t pp = c->order[q];
			const xp_mpatrol_data *x = xp_mpatrol_site_data(c->m,
			                                                site(c, pp));
			if (x != NULL && !c->flags[pp] && same_stack(c, n, pp, 1)) {
				pd_add(&d, x);
				c->flags[pp] = 1;
			}
		}
		p = n;
		u = vertex_of(c, g, p);
		if (g->failed || (e = edge_of(g, u, V_END)) == NULL)
			return -1;
		pd_sum(&e->d, &d);
		g->v[u].mark = 1;
		v = u;
		while (parent_pos(c, p) != SIZE_MAX) {
			p = parent_pos(c, p);
			v = vertex_of(c, g, p);
			if (g->failed || (e = edge_of(g, v, u)) == NULL)
				return -1;
			if (g->v[v].mark) {
				e->cycle = 1;
			} else {
				pd_sum(&e->d, &d);
				g->v[v].mark = 1;
			}
			u = v;
		}
		if ((e = edge_of(g, V_START, v)) == NULL)
			return -1;
		pd_sum(&e->d, &d);
		for (size_t i = 0; i < g->nv; i++)
			g->v[i].mark = 0;
	}
	memset(c->flags, 0, c->n);
	if (g->nv > 0 && (g->vorder = malloc(g->nv * sizeof *g->vorder)) == NULL)
		return -1;
	for (size_t i = 0; i < g->nv; i++)
		g->vorder[i] = i;
	if (g->nv > 1)
		qsort_r(g->vorder, g->nv, sizeof *g->vorder, by_vkey, g);
	for (size_t i = 0; i < g->nv; i++)
		g->v[g->vorder[i]].index = i + 1;
	return 0;
}

static void free_graph(graph *g)
{
	for (size_t i = 0; i < g->nv; i++) {
		free(g->v[i].par);
		free(g->v[i].chl);
	}
	free(g->v);
	free(g->e);
	free(g->vorder);
}

static int digits(size_t n)
{
	int d = 1;
	while (n /= 10)
		d++;
	return d;
}

static void graph_line(FILE *f, const rctx *c, const graph *g,
                       const gedge *e, size_t other)
{
	uint64_t d[4], s = 0, t = 0;
	int counts = c->o->counts;

	for (int i = 0; i < 4; i++) {
		if (counts) {
			t += e->d.acount[i];
			d[i] = e->d.acount[i] - e->d.dcount[i];
		} else {
			t += e->d.atotal[i];
			d[i] = e->d.atotal[i] - e->d.dtotal[i];
		}
		s += d[i];
	}
	fputs(e->cycle ? " (*) " : "     ", f);
	if (counts) {
		fprintf(f, "%6" PRIu64 " ", t);
		classes(f, e->d.acount, t);
		fprintf(f, "  %6" PRIu64 " ", s);
	} else {
		fprintf(f, "%8" PRIu64 " ", t);
		classes(f, e->d.atotal, t);
		fprintf(f, "  %8" PRIu64 " ", s);
	}
	classes(f, d, s);
	chars(f, ' ', 6);
	print_symbol(f, c, g->v[other].site);
	fprintf(f, " [%zu]\n", g->v[other].index);
}

static void graph_table(FILE *f, const rctx *c, const graph *g)
{
	int counts = c->o->counts;

	chars(f, ' ', 29);
	fputs("ALLOCATION CALL GRAPH\n\n", f);
	chars(f, ' ', 28);
	fprintf(f, "(number of vertices: %zu)\n\n", g->nv);
	if (counts) {
		heading(f, 10, 13, 5, 19);
		fputs("\nindex count   s  m  l  x   count   s  m  l  x  "
		      "function\n", f);
	} else {
		heading(f, 11, 15, 5, 21);
		fputs("\nindex   bytes   s  m  l  x     bytes   s  m  l  x  "
		      "function\n", f);
	}
	for (size_t i = 0; i < g->nv; i++) {
		const gvert *v = &g->v[g->vorder[i]];

		chars(f, '-', counts ? 45 : 49);
		fputc('\n', f);
		for (size_t j = 0; j < v->npar; j++) {
			const gedge *e = &g->e[v->par[j]];
			if (e->from != V_START)
				graph_line(f, c, g, e, e->from);
		}
		fprintf(f, "[%zu] ", v->index);
		chars(f, ' ', (counts ? 44 : 48) - digits(v->index));
		print_symbol(f, c, v->site);
		fprintf(f, " [%zu]\n", v->index);
		for (size_t j = 0; j < v->nchl; j++) {
			const gedge *e = &g->e[v->chl[j]];
			if (e->to != V_END)
				graph_line(f, c, g, e, e->to);
		}
	}
}

static void graph_json(FILE *f, const rctx *c, const graph *g)
{
	fputs(",\n  \"call_graph\": {\n    \"vertices\": [", f);
	for (size_t i = 0; i < g->nv; i++) {
		const gvert *v = &g->v[g->vorder[i]];
		fprintf(f, "%s\n      {\"index\": %zu, \"function\": ",
		        i ? "," : "", v->index);
		json_symbol(f, c, v->site);
		fputs("}", f);
	}
	fputs(g->nv ? "\n    ],\n    \"edges\": [" : "],\n    \"edges\": [", f);
	for (size_t i = 0; i < g->ne; i++) {
		const gedge *e = &g->e[i];
		uint64_t uc[4], ub[4];

		unfreed(&e->d, uc, ub);
		fprintf(f, "%s\n      {\"from\": ", i ? "," : "");
		if (e->from == V_START)
			fputs("null", f);
		else
			fprintf(f, "%zu", g->v[e->from].index);
		fputs(", \"to\": ", f);
		if (e->to == V_END)
			fputs("null", f);
		else
			fprintf(f, "%zu", g->v[e->to].index);
		fprintf(f, ", \"count\": %" PRIu64 ", \"bytes\": %" PRIu64
		        ", \"unfreed_count\": %" PRIu64 ", \"unfreed_bytes\": %"
		        PRIu64 ", \"cycle\": %s}", sum4(e->d.acount),
		        sum4(e->d.atotal), sum4(uc), sum4(ub),
		        e->cycle ? "true" : "false");
	}
	fputs(g->ne ? "\n    ]\n  }" : "]\n  }", f);
}

/* ------------------------------------------------------------------ */
/* The report                                                          */
/* ------------------------------------------------------------------ */

/*
 * Prints the report of m with the options o; files name the inputs (for
 * the JSON form).  Returns 0, or -1 when out of memory.
 */
static int xp_mp_report(FILE *f, const xp_mpatrol *m, const xp_mp_report_opts *o,
                     char **files, int nfiles)
{
	rctx c;
	row *dr = NULL, *lr = NULL;
	size_t ndr = 0, nlr = 0;
	pdata all;
	graph g;
	int ret = -1, have_graph = 0;

	memset(&c, 0, sizeof c);
	memset(&g, 0, sizeof g);
	c.m = m;
	c.o = o;
	c.n = m->nsites;
	for (size_t i = 0; i < m->nbins; i++) {
		c.acount += m->acounts[i];
		c.dcount += m->dcounts[i];
		if (i == m->nbins - 1) {
			c.atotal += m->atotals;
			c.dtotal += m->dtotals;
		} else {
			c.atotal += m->acounts[i] * (i + 1);
			c.dtotal += m->dcounts[i] * (i + 1);
		}
	}
	c.order = malloc((c.n ? c.n : 1) * sizeof *c.order);
	c.flags = calloc(c.n ? c.n : 1, 1);
	if (c.order == NULL || c.flags == NULL)
		goto out;
	for (size_t i = 0; i < c.n; i++)
		c.order[i] = i;
	if (c.n > 1)
		qsort_r(c.order, c.n, sizeof *c.order, by_addr, (void *)m);
	if ((dr = direct_rows(&c, &ndr, &all)) == NULL ||
	    (lr = leak_rows(&c, &nlr)) == NULL)
		goto out;
	if (o->call_graph) {
		have_graph = 1;
		if (build_graph(&c, &g) != 0)
			goto out;
	}
	if (o->json) {
		fputs("{\n  \"files\": [", f);
		for (int i = 0; i < nfiles; i++) {
			fputs(i ? ", " : "", f);
			tool_json_str(f, files[i]);
		}
		fprintf(f, "],\n  \"layout\": \"%s\",\n  \"version\": %" PRIu64
		        ",\n  \"bounds\": [%" PRIu64 ", %" PRIu64 ", %" PRIu64
		        "],\n", xp_mpatrol_layout_name(m), m->version, m->sbound,
		        m->mbound, m->lbound);
		fprintf(f, "  \"totals\": {\"count\": %" PRIu64 ", \"bytes\": %"
		        PRIu64 ", \"unfreed_count\": %" PRIu64
		        ", \"unfreed_bytes\": %" PRIu64 "},\n", c.acount, c.atotal,
		        c.acount - c.dcount, c.atotal - c.dtotal);
		fprintf(f, "  \"number_of_bins\": %zu,\n", m->nbins);
		bin_json(f, &c);
		direct_json(f, &c, dr, ndr);
		leak_json(f, &c, lr, nlr);
		if (o->call_graph)
			graph_json(f, &c, &g);
		fputs("\n}\n", f);
	} else {
		bin_table(f, &c);
		fputs("\n\n", f);
		direct_table(f, &c, dr, ndr, &all);
		fputs("\n\n", f);
		leak_table(f, &c, lr, nlr);
		if (o->call_graph) {
			fputs("\n\n", f);
			graph_table(f, &c, &g);
		}
	}
	ret = 0;
out:
	if (have_graph)
		free_graph(&g);
	free(dr);
	free(lr);
	free(c.order);
	free(c.flags);
	return ret;
}

static int report(FILE *f, const xp_prof *p, const show_opts *so)
{
	xp_mp_report_opts o;

	memset(&o, 0, sizeof o);
	o.addresses = so->lines;
	o.maxstack = so->top_n_given ? so->top_n : 1;
	o.call_graph = so->call_graph;
	o.json = so->json;
	if (xp_mp_report(f, xp_prof_model(p), &o, so->files, so->nfiles) != 0) {
		fprintf(stderr, "%s: %s\n", so->prog, xp_strerror(XP_E_NOMEM));
		return 2;
	}
	return 0;
}

const show_report show_report_mpatrol = { XP_FMT_MPATROL, report };
