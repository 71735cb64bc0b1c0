/*
 * show/mpatrol.c - xprof_show's report of mpatrol allocation profiles,
 * the tables of mprof(1) from the mpatrol distribution: the allocation
 * bins, the direct allocations per function (small/medium/large/extra
 * large by the bounds of the file), the memory leaks and, with
 * --call-graph, the allocation call graph.  The text is mprof's, column
 * for column, so that the numbers can be compared with it; --format=json
 * gives the same rows as data.  mpatrol(5) documents the report.
 *
 * The rows and their order come from the library (xp_prof_report(), the
 * mpatrol module's report, xprof_mpatrol.h); this file only prints them.
 * Options map onto mprof's: --lines is mprof --addresses (call sites
 * within one function are told apart and shown as function+offset), -n N
 * is mprof --stack-depth N (0: whole stacks; default 1), --counts is
 * mprof --counts (the tables sorted by counts), --call-graph is mprof
 * --call-graph.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "show.h"
#include "tool.h"
#include "xprof.h"
#include "xprof_mpatrol.h"

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

static void bin_table(FILE *f, const xp_mpatrol *m,
                      const xp_mpatrol_report *r)
{
	const xp_mpatrol_totals *t = xp_mpatrol_report_totals(r);
	size_t n = xp_mpatrol_report_nbins(r);

	chars(f, ' ', 32);
	fputs("ALLOCATION BINS\n\n", f);
	chars(f, ' ', 29);
	fprintf(f, "(number of bins: %zu)\n\n", m->nbins);
	heading(f, 21, 26, 10, 32);
	fputs("\n    size   count       %     bytes       %   "
	      "count       %     bytes       %\n\n", f);
	for (size_t i = 0; i < n; i++) {
		const xp_mpatrol_bin *b = xp_mpatrol_report_bin(r, i);

		fprintf(f, " %s %4" PRIu64 "  %6" PRIu64 "  %6.2f  %8" PRIu64
		        "  %6.2f  %6" PRIu64 "  %6.2f  %8" PRIu64 "  %6.2f\n",
		        b->or_more ? ">=" : "  ", b->size,
		        b->count, pct(b->count, t->count),
		        b->bytes, pct(b->bytes, t->bytes),
		        b->unfreed_count,
		        pct(b->unfreed_count, t->unfreed_count),
		        b->unfreed_bytes,
		        pct(b->unfreed_bytes, t->unfreed_bytes));
	}
	if (n > 0)
		fputc('\n', f);
	fprintf(f, "   total  %6" PRIu64 "          %8" PRIu64 "          %6"
	        PRIu64 "          %8" PRIu64 "\n", t->count, t->bytes,
	        t->unfreed_count, t->unfreed_bytes);
}

static void bin_json(FILE *f, const xp_mpatrol_report *r)
{
	size_t n = xp_mpatrol_report_nbins(r);

	fputs("  \"bins\": [", f);
	for (size_t i = 0; i < n; i++) {
		const xp_mpatrol_bin *b = xp_mpatrol_report_bin(r, i);

		fprintf(f, "%s\n    {\"size\": %" PRIu64 ", \"or_more\": %s, "
		        "\"count\": %" PRIu64 ", \"bytes\": %" PRIu64
		        ", \"unfreed_count\": %" PRIu64 ", \"unfreed_bytes\": %"
		        PRIu64 "}", i ? "," : "", b->size,
		        b->or_more ? "true" : "false", b->count, b->bytes,
		        b->unfreed_count, b->unfreed_bytes);
	}
	fputs(n ? "\n  ],\n" : "],\n", f);
}

/* ------------------------------------------------------------------ */
/* Direct allocations and memory leaks                                 */
/* ------------------------------------------------------------------ */

/* One row, or the total line (function NULL), of the direct table. */
static void direct_line(FILE *f, const xp_mpatrol_totals *t, int counts,
                        const xp_mpatrol_sums *d, const char *function)
{
	uint64_t a = counts ? sum4(d->acount) : sum4(d->atotal);
	uint64_t b = counts ? sum4(d->ucount) : sum4(d->utotal);
	uint64_t cc = counts ? sum4(d->atotal) : sum4(d->acount);

	if (function == NULL) {
		a = counts ? t->count : t->bytes;
		b = counts ? t->unfreed_count : t->unfreed_bytes;
		cc = counts ? t->bytes : t->count;
	}
	if (counts) {
		fprintf(f, "%6" PRIu64, a);
		if (function != NULL)
			fprintf(f, "  %6.2f ", pct(a, t->count));
		else
			fputs("         ", f);
		classes(f, d->acount, t->count);
		fprintf(f, "  %6" PRIu64, b);
		if (function != NULL)
			fprintf(f, "  %6.2f ", pct(b, t->unfreed_count));
		else
			fputs("         ", f);
		classes(f, d->ucount, t->unfreed_count);
		fprintf(f, "  %8" PRIu64 "  ", cc);
	} else {
		fprintf(f, "%8" PRIu64, a);
		if (function != NULL)
			fprintf(f, "  %6.2f ", pct(a, t->bytes));
		else
			fputs("         ", f);
		classes(f, d->atotal, t->bytes);
		fprintf(f, "  %8" PRIu64, b);
		if (function != NULL)
			fprintf(f, "  %6.2f ", pct(b, t->unfreed_bytes));
		else
			fputs("         ", f);
		classes(f, d->utotal, t->unfreed_bytes);
		fprintf(f, "  %6" PRIu64 "  ", cc);
	}
	fputs(function != NULL ? function : "total", f);
	fputc('\n', f);
}

static void direct_table(FILE *f, const xp_mpatrol *m,
                         const xp_mpatrol_report *r)
{
	const xp_mpatrol_totals *t = xp_mpatrol_report_totals(r);
	int counts = xp_mpatrol_report_by_counts(r);
	size_t n = xp_mpatrol_report_ndirect(r);

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
	for (size_t i = 0; i < n; i++) {
		const xp_mpatrol_direct *d = xp_mpatrol_report_direct(r, i);
		direct_line(f, t, counts, &d->sums, d->function);
	}
	if (n != 0)
		fputc('\n', f);
	direct_line(f, t, counts, xp_mpatrol_report_direct_total(r), NULL);
}

static void direct_json(FILE *f, const xp_mpatrol_report *r)
{
	size_t n = xp_mpatrol_report_ndirect(r);

	fputs("  \"direct\": [", f);
	for (size_t i = 0; i < n; i++) {
		const xp_mpatrol_direct *d = xp_mpatrol_report_direct(r, i);

		fprintf(f, "%s\n    {\"function\": ", i ? "," : "");
		tool_json_str(f, d->function);
		fputs(", ", f);
		json_four(f, "count", d->sums.acount);
		fputs(", ", f);
		json_four(f, "bytes", d->sums.atotal);
		fputs(", ", f);
		json_four(f, "unfreed_count", d->sums.ucount);
		fputs(", ", f);
		json_four(f, "unfreed_bytes", d->sums.utotal);
		fputs("}", f);
	}
	fputs(n ? "\n  ],\n" : "],\n", f);
}

static void leak_line(FILE *f, const xp_mpatrol_totals *t, int counts,
                      const xp_mpatrol_leak *l)
{
	const xp_mpatrol_sums *d = &l->sums;
	uint64_t a = l->key;
	uint64_t b = counts ? sum4(d->utotal) : sum4(d->ucount);
	uint64_t j = counts ? sum4(d->acount) : sum4(d->atotal);
	uint64_t k = counts ? sum4(d->atotal) : sum4(d->acount);

	if (counts)
		fprintf(f, "%6.2f  %6" PRIu64 "  %6.2f  %8" PRIu64 "  %6.2f  "
		        "%6" PRIu64 "  %8" PRIu64 "  ",
		        pct(a, t->unfreed_count), a, pct(a, j), b, pct(b, k), j,
		        k);
	else
		fprintf(f, "%6.2f  %8" PRIu64 "  %6.2f  %6" PRIu64 "  %6.2f  "
		        "%8" PRIu64 "  %6" PRIu64 "  ",
		        pct(a, t->unfreed_bytes), a, pct(a, j), b, pct(b, k), j,
		        k);
	fputs(l->stack[0], f);
	fputc('\n', f);
	for (size_t s = 1; s < l->depth; s++) {
		chars(f, ' ', 60);
		fputs(l->stack[s], f);
		fputc('\n', f);
	}
}

static void leak_table(FILE *f, const xp_mpatrol_report *r)
{
	const xp_mpatrol_totals *t = xp_mpatrol_report_totals(r);
	int counts = xp_mpatrol_report_by_counts(r);
	size_t n = xp_mpatrol_report_nleaks(r);
	double e = pct(t->unfreed_count, t->count);
	double fr = pct(t->unfreed_bytes, t->bytes);

	chars(f, ' ', 34);
	fputs("MEMORY LEAKS\n\n", f);
	chars(f, ' ', 28);
	fprintf(f, "(maximum stack depth: %" PRIu64 ")\n\n",
	        xp_mpatrol_report_stack_depth(r));
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
	for (size_t i = 0; i < n; i++)
		leak_line(f, t, counts, xp_mpatrol_report_leak(r, i));
	if (n != 0)
		fputc('\n', f);
	if (counts)
		fprintf(f, "        %6" PRIu64 "  %6.2f  %8" PRIu64 "  %6.2f  %6"
		        PRIu64 "  %8" PRIu64 "  total\n", t->unfreed_count, e,
		        t->unfreed_bytes, fr, t->count, t->bytes);
	else
		fprintf(f, "        %8" PRIu64 "  %6.2f  %6" PRIu64 "  %6.2f  %8"
		        PRIu64 "  %6" PRIu64 "  total\n", t->unfreed_bytes, fr,
		        t->unfreed_count, e, t->bytes, t->count);
}

static void leak_json(FILE *f, const xp_mpatrol_report *r)
{
	size_t n = xp_mpatrol_report_nleaks(r);

	fputs("  \"leaks\": [", f);
	for (size_t i = 0; i < n; i++) {
		const xp_mpatrol_leak *l = xp_mpatrol_report_leak(r, i);

		fprintf(f, "%s\n    {\"stack\": [", i ? "," : "");
		for (size_t s = 0; s < l->depth; s++) {
			fputs(s ? ", " : "", f);
			tool_json_str(f, l->stack[s]);
		}
		fprintf(f, "], \"unfreed_count\": %" PRIu64 ", \"unfreed_bytes\": %"
		        PRIu64 ", \"count\": %" PRIu64 ", \"bytes\": %" PRIu64 "}",
		        sum4(l->sums.ucount), sum4(l->sums.utotal),
		        sum4(l->sums.acount), sum4(l->sums.atotal));
	}
	fputs(n ? "\n  ]" : "]", f);
}

/* ------------------------------------------------------------------ */
/* The allocation call graph                                           */
/* ------------------------------------------------------------------ */

static int digits(size_t n)
{
	int d = 1;
	while (n /= 10)
		d++;
	return d;
}

/* The line of edge e in the entry of one vertex: the other vertex's. */
static void graph_line(FILE *f, const xp_mpatrol_report *r,
                       const xp_mpatrol_edge *e, size_t other)
{
	const xp_mpatrol_vertex *v = xp_mpatrol_report_vertex(r, other - 1);
	int counts = xp_mpatrol_report_by_counts(r);
	const uint64_t *d = counts ? e->sums.ucount : e->sums.utotal;
	uint64_t t = counts ? sum4(e->sums.acount) : sum4(e->sums.atotal);
	uint64_t s = sum4(d);

	fputs(e->cycle ? " (*) " : "     ", f);
	if (counts) {
		fprintf(f, "%6" PRIu64 " ", t);
		classes(f, e->sums.acount, t);
		fprintf(f, "  %6" PRIu64 " ", s);
	} else {
		fprintf(f, "%8" PRIu64 " ", t);
		classes(f, e->sums.atotal, t);
		fprintf(f, "  %8" PRIu64 " ", s);
	}
	classes(f, d, s);
	chars(f, ' ', 6);
	fprintf(f, "%s [%zu]\n", v->function, v->index);
}

static void graph_table(FILE *f, const xp_mpatrol_report *r)
{
	int counts = xp_mpatrol_report_by_counts(r);
	size_t nv = xp_mpatrol_report_nvertices(r);

	chars(f, ' ', 29);
	fputs("ALLOCATION CALL GRAPH\n\n", f);
	chars(f, ' ', 28);
	fprintf(f, "(number of vertices: %zu)\n\n", nv);
	if (counts) {
		heading(f, 10, 13, 5, 19);
		fputs("\nindex count   s  m  l  x   count   s  m  l  x  "
		      "function\n", f);
	} else {
		heading(f, 11, 15, 5, 21);
		fputs("\nindex   bytes   s  m  l  x     bytes   s  m  l  x  "
		      "function\n", f);
	}
	for (size_t i = 0; i < nv; i++) {
		const xp_mpatrol_vertex *v = xp_mpatrol_report_vertex(r, i);

		chars(f, '-', counts ? 45 : 49);
		fputc('\n', f);
		for (size_t j = 0; j < v->nparents; j++) {
			const xp_mpatrol_edge *e =
				xp_mpatrol_report_edge(r, v->parents[j]);
			if (e->from != 0)
				graph_line(f, r, e, e->from);
		}
		fprintf(f, "[%zu] ", v->index);
		chars(f, ' ', (counts ? 44 : 48) - digits(v->index));
		fprintf(f, "%s [%zu]\n", v->function, v->index);
		for (size_t j = 0; j < v->nchildren; j++) {
			const xp_mpatrol_edge *e =
				xp_mpatrol_report_edge(r, v->children[j]);
			if (e->to != 0)
				graph_line(f, r, e, e->to);
		}
	}
}

/* A vertex index, or null for 0 (the program's start, the allocator). */
static void json_vertex(FILE *f, size_t index)
{
	if (index == 0)
		fputs("null", f);
	else
		fprintf(f, "%zu", index);
}

static void graph_json(FILE *f, const xp_mpatrol_report *r)
{
	size_t nv = xp_mpatrol_report_nvertices(r);
	size_t ne = xp_mpatrol_report_nedges(r);

	fputs(",\n  \"call_graph\": {\n    \"vertices\": [", f);
	for (size_t i = 0; i < nv; i++) {
		const xp_mpatrol_vertex *v = xp_mpatrol_report_vertex(r, i);
		fprintf(f, "%s\n      {\"index\": %zu, \"function\": ",
		        i ? "," : "", v->index);
		tool_json_str(f, v->function);
		fputs("}", f);
	}
	fputs(nv ? "\n    ],\n    \"edges\": [" : "],\n    \"edges\": [", f);
	for (size_t i = 0; i < ne; i++) {
		const xp_mpatrol_edge *e = xp_mpatrol_report_edge(r, i);

		fprintf(f, "%s\n      {\"from\": ", i ? "," : "");
		json_vertex(f, e->from);
		fputs(", \"to\": ", f);
		json_vertex(f, e->to);
		fprintf(f, ", \"count\": %" PRIu64 ", \"bytes\": %" PRIu64
		        ", \"unfreed_count\": %" PRIu64 ", \"unfreed_bytes\": %"
		        PRIu64 ", \"cycle\": %s}", sum4(e->sums.acount),
		        sum4(e->sums.atotal), sum4(e->sums.ucount),
		        sum4(e->sums.utotal), e->cycle ? "true" : "false");
	}
	fputs(ne ? "\n    ]\n  }" : "]\n  }", f);
}

/* ------------------------------------------------------------------ */
/* The report                                                          */
/* ------------------------------------------------------------------ */

static void print_json(FILE *f, const xp_mpatrol *m,
                       const xp_mpatrol_report *r, const show_opts *so)
{
	const xp_mpatrol_totals *t = xp_mpatrol_report_totals(r);

	fputs("{\n  \"files\": [", f);
	for (int i = 0; i < so->nfiles; i++) {
		fputs(i ? ", " : "", f);
		tool_json_str(f, so->files[i]);
	}
	fprintf(f, "],\n  \"layout\": \"%s\",\n  \"version\": %" PRIu64
	        ",\n  \"bounds\": [%" PRIu64 ", %" PRIu64 ", %" PRIu64 "],\n",
	        xp_mpatrol_layout_name(m), m->version, m->sbound, m->mbound,
	        m->lbound);
	fprintf(f, "  \"totals\": {\"count\": %" PRIu64 ", \"bytes\": %" PRIu64
	        ", \"unfreed_count\": %" PRIu64 ", \"unfreed_bytes\": %" PRIu64
	        "},\n", t->count, t->bytes, t->unfreed_count,
	        t->unfreed_bytes);
	fprintf(f, "  \"number_of_bins\": %zu,\n", m->nbins);
	bin_json(f, r);
	direct_json(f, r);
	leak_json(f, r);
	if (so->call_graph)
		graph_json(f, r);
	fputs("\n}\n", f);
}

static void print_text(FILE *f, const xp_mpatrol *m,
                       const xp_mpatrol_report *r, const show_opts *so)
{
	bin_table(f, m, r);
	fputs("\n\n", f);
	direct_table(f, m, r);
	fputs("\n\n", f);
	leak_table(f, r);
	if (so->call_graph) {
		fputs("\n\n", f);
		graph_table(f, r);
	}
}

static int report(FILE *f, const xp_prof *p, const show_opts *so)
{
	xp_report_opts ro = {
		.lines = so->lines,
		.counts = so->counts,
		.call_graph = so->call_graph,
		.stack_depth_given = so->top_n_given,
		.stack_depth = so->top_n,
	};
	const char *name = so->nfiles > 0 ? so->files[0] : "";
	xp_diags *d = xp_diags_new(0);
	xp_report *rep = NULL;
	xp_err err;

	err = d != NULL ? xp_prof_report(p, &ro, name, &rep, d) : XP_E_NOMEM;
	if (err == XP_E_NOMEM && (d == NULL || xp_diags_count(d) == 0))
		fprintf(stderr, "%s: %s\n", so->prog, xp_strerror(err));
	else
		tool_print_diags(so->prog, d, err, name);
	xp_diags_free(d);
	if (err != XP_E_OK)
		return 2;
	if (so->json)
		print_json(f, xp_prof_model(p), xp_report_model(rep), so);
	else
		print_text(f, xp_prof_model(p), xp_report_model(rep), so);
	xp_report_free(rep);
	return 0;
}

const show_report show_report_mpatrol = { XP_FMT_MPATROL, report };
