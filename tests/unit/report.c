/*
 * report.c - unit tests of the reports behind xprof_show, reached through
 * the format registry (xp_prof_report, lib/registry/prof.c): for a
 * gmon.out, a CPU profile and an mpatrol profile of ../shared/realdata
 * the report equals the one the module's own function computes; a
 * gmon.out without its executable, options of xp_report_opts that a
 * format's real tool has no use for, and a format without a report of
 * its own, are refused with a diagnostic.
 *
 * Environment: SRCDIR (the source tree; ../shared beside it).
 */
#include <stdlib.h>

#include "unit.h"
#include "xprof.h"
#include "xprof_cpuprof.h"
#include "xprof_gmon.h"
#include "xprof_mpatrol.h"

static char path[4096];

static const char *rd(const char *rel)
{
	const char *src = getenv("SRCDIR");

	snprintf(path, sizeof path, "%s/../shared/realdata/%s",
	         src != NULL ? src : ".", rel);
	return path;
}

static xp_prof *open_ok(const char *p)
{
	xp_diags *d = xp_diags_new(0);
	xp_prof *pr = NULL;

	CHECK(xp_prof_open(p, NULL, &pr, d) == XP_E_OK);
	xp_diags_free(d);
	return pr;
}

static void test_gmon(void)
{
	char exe[4096];
	xp_prof *pr = open_ok(rd("gmon/callcounts.gmon.out"));
	xp_report_opts o = { 0 };
	xp_diags *d = xp_diags_new(0);
	xp_report *r = NULL;
	xp_gmon_analysis *a = NULL;
	xp_sym *sym = NULL;

	if (pr == NULL)
		return;
	snprintf(exe, sizeof exe, "%s", rd("gmon/callcounts_pg"));
	/* Without the executable: refused, with a diagnostic. */
	CHECK(xp_prof_report(pr, &o, "g", &r, d) == XP_E_INVAL && r == NULL);
	CHECK(xp_diags_count(d) == 1 &&
	      strstr(xp_diags_get(d, 0)->msg, "executable") != NULL);
	o.exe = exe;
	CHECK(xp_prof_report(pr, &o, "g", &r, d) == XP_E_OK);
	CHECK(xp_sym_open(exe, &sym, d) == XP_E_OK);
	CHECK(xp_gmon_analyze(xp_prof_model(pr), sym, "g", &a, d) == XP_E_OK);
	if (r != NULL && a != NULL) {
		const xp_gmon_analysis *b = xp_report_model(r);

		CHECK(xp_report_format(r) == XP_FMT_GMON);
		CHECK_EQ(b->n_fns, a->n_fns);
		for (size_t i = 0; i < a->n_fns && i < b->n_fns; i++) {
			CHECK_STR(b->fns[i].name, a->fns[i].name);
			CHECK_EQ_U64(b->fns[i].ncalls, a->fns[i].ncalls);
			CHECK(b->fns[i].samples == a->fns[i].samples);
		}
	}
	xp_gmon_analysis_free(a);
	xp_sym_free(sym);
	xp_report_free(r);
	xp_diags_free(d);
	xp_prof_free(pr);
}

static void test_cpuprof(void)
{
	xp_prof *pr = open_ok(rd("gperftools/fib.prof"));
	xp_report_opts o = { 0 };
	xp_cpuprof_report_opts co = { NULL, 1 };
	xp_diags *d = xp_diags_new(0);
	xp_cpuprof_report *c = NULL;
	xp_report *r = NULL;

	if (pr == NULL)
		return;
	o.lines = 1;
	CHECK(xp_prof_report(pr, &o, "c", &r, d) == XP_E_OK);
	CHECK(xp_cpuprof_report_new(xp_prof_model(pr), &co, &c, d) == XP_E_OK);
	if (r != NULL && c != NULL) {
		const xp_cpuprof_report *b = xp_report_model(r);

		CHECK(xp_report_format(r) == XP_FMT_CPUPROF);
		CHECK_EQ_U64(xp_cpuprof_report_total(b),
		             xp_cpuprof_report_total(c));
		CHECK_EQ(xp_cpuprof_report_n(b), xp_cpuprof_report_n(c));
		CHECK(xp_cpuprof_report_n(c) > 0);
		for (size_t i = 0; i < xp_cpuprof_report_n(c); i++) {
			CHECK_STR(xp_cpuprof_report_get(b, i)->name,
			          xp_cpuprof_report_get(c, i)->name);
			CHECK_EQ_U64(xp_cpuprof_report_get(b, i)->flat,
			             xp_cpuprof_report_get(c, i)->flat);
		}
	}
	xp_cpuprof_report_free(c);
	xp_report_free(r);
	xp_diags_free(d);
	xp_prof_free(pr);
}

/* xp_prof_report() with o refuses, with one diagnostic that says why. */
static void refused(const xp_prof *pr, const xp_report_opts *o,
                    const char *why)
{
	xp_diags *d = xp_diags_new(0);
	xp_report *r = NULL;

	CHECK(xp_prof_report(pr, o, "x", &r, d) == XP_E_INVAL && r == NULL);
	CHECK(xp_diags_count(d) == 1 &&
	      strstr(xp_diags_get(d, 0)->msg, why) != NULL);
	xp_diags_free(d);
}

/* The options only mprof has: refused by gprof's and pprof's reports;
 * gprof's takes call_graph. */
static void test_refusals(void)
{
	char exe[4096];
	xp_prof *g = open_ok(rd("gmon/callcounts.gmon.out"));
	xp_prof *c = open_ok(rd("gperftools/fib.prof"));
	xp_report_opts o = { 0 };
	xp_diags *d = xp_diags_new(0);
	xp_report *r = NULL;

	snprintf(exe, sizeof exe, "%s", rd("gmon/callcounts_pg"));
	if (g != NULL) {
		o.exe = exe;
		o.counts = 1;
		refused(g, &o, "counts");
		o.counts = 0;
		o.stack_depth_given = 1;
		refused(g, &o, "stack depth");
		o.stack_depth_given = 0;
		o.call_graph = 1;
		CHECK(xp_prof_report(g, &o, "g", &r, d) == XP_E_OK);
		xp_report_free(r);
	}
	if (c != NULL) {
		memset(&o, 0, sizeof o);
		o.call_graph = 1;
		refused(c, &o, "call graph");
		o.call_graph = 0;
		o.counts = 1;
		refused(c, &o, "counts");
		o.counts = 0;
		o.stack_depth_given = 1;
		refused(c, &o, "stack depth");
	}
	xp_diags_free(d);
	xp_prof_free(g);
	xp_prof_free(c);
}

static void same_sums(const xp_mpatrol_sums *a, const xp_mpatrol_sums *b)
{
	CHECK(memcmp(a, b, sizeof *a) == 0);
}

/* mprof's report through the registry, with every option of mprof's,
 * equals the module's own. */
static void test_mpatrol(void)
{
	xp_prof *pr = open_ok(rd("mpatrol/cc1.out"));
	xp_report_opts o = { .lines = 1, .counts = 1, .call_graph = 1,
	                     .stack_depth_given = 1, .stack_depth = 0 };
	xp_mpatrol_report_opts mo = { .addresses = 1, .counts = 1,
	                              .call_graph = 1, .stack_depth_given = 1,
	                              .stack_depth = 0 };
	xp_diags *d = xp_diags_new(0);
	xp_mpatrol_report *m = NULL;
	xp_report *r = NULL;

	if (pr == NULL)
		return;
	CHECK(xp_prof_report(pr, &o, "m", &r, d) == XP_E_OK);
	CHECK(xp_mpatrol_report_new(xp_prof_model(pr), &mo, &m, d) == XP_E_OK);
	if (r != NULL && m != NULL) {
		const xp_mpatrol_report *b = xp_report_model(r);

		CHECK(xp_report_format(r) == XP_FMT_MPATROL);
		CHECK_EQ_U64(xp_mpatrol_report_stack_depth(b), 0);
		CHECK_EQ(xp_mpatrol_report_nleaks(b),
		         xp_mpatrol_report_nleaks(m));
		for (size_t i = 0; i < xp_mpatrol_report_nleaks(m); i++) {
			const xp_mpatrol_leak *x = xp_mpatrol_report_leak(b, i);
			const xp_mpatrol_leak *y = xp_mpatrol_report_leak(m, i);
			CHECK_EQ(x->depth, y->depth);
			CHECK_EQ_U64(x->key, y->key);
			CHECK_STR(x->stack[x->depth - 1],
			          y->stack[y->depth - 1]);
			same_sums(&x->sums, &y->sums);
		}
		CHECK(xp_mpatrol_report_nvertices(m) > 0);
		CHECK_EQ(xp_mpatrol_report_nvertices(b),
		         xp_mpatrol_report_nvertices(m));
		for (size_t i = 0; i < xp_mpatrol_report_nvertices(m); i++)
			CHECK_STR(xp_mpatrol_report_vertex(b, i)->function,
			          xp_mpatrol_report_vertex(m, i)->function);
		CHECK_EQ(xp_mpatrol_report_nedges(b),
		         xp_mpatrol_report_nedges(m));
		for (size_t i = 0; i < xp_mpatrol_report_nedges(m); i++)
			same_sums(&xp_mpatrol_report_edge(b, i)->sums,
			          &xp_mpatrol_report_edge(m, i)->sums);
	}
	/* A report outlives the profile it was made from. */
	xp_prof_free(pr);
	if (r != NULL) {
		const xp_mpatrol_report *b = xp_report_model(r);
		CHECK(xp_mpatrol_report_ndirect(b) > 0 &&
		      strlen(xp_mpatrol_report_direct(b, 0)->function) > 0);
		CHECK(xp_mpatrol_report_direct(b, xp_mpatrol_report_ndirect(b))
		      == NULL);
	}
	xp_mpatrol_report_free(m);
	xp_mpatrol_report_free(NULL);
	xp_report_free(r);
	xp_diags_free(d);
}

static void test_no_report(void)
{
	const char *src = getenv("SRCDIR");
	char p[4096];
	xp_prof *pr;
	xp_diags *d = xp_diags_new(0);
	xp_report *r = NULL;

	snprintf(p, sizeof p, "%s/tests/fuzz/corpus/dcpi/small.prof",
	         src != NULL ? src : ".");
	if ((pr = open_ok(p)) == NULL)
		return;
	CHECK(xp_prof_report(pr, NULL, "x", &r, d) == XP_E_INVAL && r == NULL);
	CHECK(xp_diags_count(d) == 1 &&
	      strstr(xp_diags_get(d, 0)->msg, "has no report") != NULL);
	xp_report_free(NULL);
	xp_diags_free(d);
	xp_prof_free(pr);
}

int main(void)
{
	RUN(test_gmon);
	RUN(test_cpuprof);
	RUN(test_refusals);
	RUN(test_mpatrol);
	RUN(test_no_report);
	return unit_done();
}
