/*
 * report.c - unit tests of the reports behind xprof_show, reached through
 * the format registry (xp_prof_report, lib/registry/prof.c): for a
 * gmon.out, a CPU profile and an mpatrol profile of ../shared/realdata
 * the report equals the one the module's own function computes; a DCPI
 * profile laid over the code of one of its executables ranks the
 * procedures that the symbol table gives; a gmon.out, and a DCPI profile
 * without a path line, are refused with a diagnostic when they have no
 * executable, and so are options of xp_report_opts that a format's real
 * tool has no use for.
 *
 * Environment: SRCDIR (the source tree; ../shared beside it).
 */
#include <stdlib.h>

#include "unit.h"
#include "xprof.h"
#include "xprof_cpuprof.h"
#include "xprof_dcpi.h"
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

/* A DCPI text over the first n words of callcounts_pg's code, sampled
 * every 16 bytes with counts 1..7, for the report to rank. */
static char *dcpi_text(uint64_t tstart, uint64_t tsize, size_t n)
{
	size_t cap = 512 + n * 32, len;
	char *t = malloc(cap);
	size_t addrs = 0, samples = 0;

	if (t == NULL)
		return NULL;
	len = (size_t)snprintf(t, cap, "DCPI-TEXT 1\nimage 1\nepoch "
	                       "20260115123000\nplatform x86-64\nevent "
	                       "cycles\nperiod 1\ntsize %llu\ncpuspeed 1\n"
	                       "tstart %llx\nsamples\nchunk 0x0 %zu\n",
	                       (unsigned long long)tsize,
	                       (unsigned long long)tstart, n);
	for (size_t i = 0; i < n; i++) {
		size_t c = i % 16 == 0 ? i / 16 % 7 + 1 : 0;
		len += (size_t)snprintf(t + len, cap - len, "0x%zx %zu\n", i,
		                        c);
		addrs += c != 0;
		samples += c;
	}
	snprintf(t + len, cap - len, "footer %zu %zu\n", addrs, samples);
	return t;
}

static void test_dcpi(void)
{
	const char *exe = rd("gmon/callcounts_pg");
	char exebuf[4096], *text;
	xp_diags *d = xp_diags_new(0);
	xp_sym *sym = NULL;
	xp_prof *pr = NULL;
	xp_report *r = NULL;
	xp_report_opts o = { 0 };
	uint64_t lo, hi, total = 0, in = 0;
	size_t n;

	snprintf(exebuf, sizeof exebuf, "%s", exe);
	CHECK(xp_sym_open(exebuf, &sym, d) == XP_E_OK);
	if (sym == NULL)
		return;
	xp_sym_text_range(sym, &lo, &hi);
	n = hi - lo < 4096 ? (size_t)(hi - lo) : 4096;
	if ((text = dcpi_text(lo, hi - lo, n)) == NULL)
		return;
	CHECK(xp_prof_open_mem(text, strlen(text), "d", NULL, &pr, d) ==
	      XP_E_OK);
	if (pr == NULL)
		goto out;
	/* Without a path line or an executable: refused. */
	CHECK(xp_prof_report(pr, &o, "d", &r, d) == XP_E_INVAL && r == NULL);
	CHECK(xp_diags_count(d) == 1 &&
	      strstr(xp_diags_get(d, 0)->msg, "needs its image") != NULL);
	o.exe = exebuf;
	o.lines = 1;
	o.call_graph = 1;
	refused(pr, &o, "call graph");
	o.call_graph = 0;
	o.counts = 1;
	refused(pr, &o, "counts");
	o.counts = 0;
	CHECK(xp_prof_report(pr, &o, "d", &r, d) == XP_E_OK);
	if (r != NULL) {
		const xp_dcpi_report *dr = xp_report_model(r);

		CHECK(xp_report_format(r) == XP_FMT_DCPI);
		/* Each procedure has the samples of the addresses that the
		 * symbol table puts in it, ranked. */
		for (size_t i = 0; i < xp_dcpi_report_nprocs(dr); i++) {
			const xp_dcpi_hot *h = xp_dcpi_report_proc(dr, i);
			uint64_t want = 0;
			for (size_t a = 0; a < n; a += 16) {
				const xp_symbol *s = xp_sym_lookup(sym, lo + a);
				if (s != NULL && strcmp(s->name, h->name) == 0)
					want += a / 16 % 7 + 1;
			}
			CHECK_EQ_U64(h->samples, want);
			in += h->samples;
			if (i > 0)
				CHECK(xp_dcpi_report_proc(dr, i - 1)->samples >=
				      h->samples);
		}
		for (size_t a = 0; a < n; a += 16)
			total += a / 16 % 7 + 1;
		CHECK(xp_dcpi_report_nprocs(dr) > 1);
		CHECK_EQ_U64(xp_dcpi_report_samples(dr), total);
		CHECK_EQ_U64(xp_dcpi_report_in_procs(dr), in);
		CHECK(xp_dcpi_report_nlines(dr) > 0);
	}
out:
	xp_report_free(r);
	xp_prof_free(pr);
	xp_sym_free(sym);
	free(text);
	xp_diags_free(d);
}

int main(void)
{
	RUN(test_gmon);
	RUN(test_cpuprof);
	RUN(test_refusals);
	RUN(test_mpatrol);
	RUN(test_dcpi);
	return unit_done();
}
