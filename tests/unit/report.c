/*
 * report.c - unit tests of the reports behind xprof_show, reached through
 * the format registry (xp_prof_report, lib/registry/prof.c): for a
 * gmon.out and a CPU profile of ../shared/realdata the report equals the
 * one the module's own function computes; a DCPI profile laid over the
 * code of one of its executables ranks the procedures that the symbol
 * table gives; a gmon.out, and a DCPI profile without a path line,
 * are refused with a diagnostic when they have no executable.
 *
 * Environment: SRCDIR (the source tree; ../shared beside it).
 */
#include <stdlib.h>

#include "unit.h"
#include "xprof.h"
#include "xprof_cpuprof.h"
#include "xprof_dcpi.h"
#include "xprof_gmon.h"

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
	RUN(test_dcpi);
	return unit_done();
}
