/*
 * gmon_merge.c - the sum of gmon.out files by function (gprof -s;
 * lib/gmon/merge.c) with the executable's symbols opened once by the
 * caller (xp_prof_merge_opts.exe_sym, as xprof_merge does) and opened by
 * each merge from the executable's path: the same bytes, which differ
 * from the sum by PC.  The three runs of sortbench in
 * $SRCDIR/../shared/realdata/gmon, whose sums tests/gmon.sh compares
 * with gprof's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "xprof.h"

#define NRUNS 3

static char realdir[4096];

/* The runs summed with o, as the bytes of a gmon.out (*len of them). */
static unsigned char *sum_runs(const xp_prof_merge_opts *o, size_t *len)
{
	xp_diags *d = xp_diags_new(100);
	xp_prof *acc = NULL;
	unsigned char *buf = NULL;
	char path[4200];

	*len = 0;
	for (int k = 1; k <= NRUNS; k++) {
		xp_prof *p = NULL;
		snprintf(path, sizeof path, "%s/sortbench.run%d.gmon.out",
		         realdir, k);
		CHECK(xp_prof_open(path, NULL, &p, d) == XP_E_OK);
		if (p != NULL)
			CHECK(xp_prof_merge(&acc, p, 1, o, path, d) == XP_E_OK);
		xp_prof_free(p);
	}
	CHECK(acc != NULL);
	if (acc != NULL)
		CHECK(xp_prof_write_mem(acc, 0, &buf, len) == XP_E_OK);
	xp_prof_free(acc);
	CHECK_EQ(xp_diags_count(d), 0);
	xp_diags_free(d);
	return buf;
}

static void test_symbols_once(void)
{
	char exe[4200];
	xp_sym *s = NULL;
	xp_diags *d = xp_diags_new(10);

	snprintf(exe, sizeof exe, "%s/sortbench_pg", realdir);
	CHECK(xp_sym_open(exe, &s, d) == XP_E_OK);
	xp_prof_merge_opts by_path = {.exe = exe, .by_function = 1};
	xp_prof_merge_opts by_sym = {.exe = exe, .exe_sym = s,
	                             .by_function = 1};
	xp_prof_merge_opts by_pc = {0};
	size_t lp, ls, lc;
	unsigned char *p = sum_runs(&by_path, &lp);
	unsigned char *q = sum_runs(&by_sym, &ls);
	unsigned char *c = sum_runs(&by_pc, &lc);

	CHECK(p != NULL && q != NULL && c != NULL);
	CHECK(lp == ls && p && q && memcmp(p, q, lp) == 0);
	/* Arcs by function are fewer than by call site. */
	CHECK(lp < lc);
	free(p);
	free(q);
	free(c);
	xp_sym_free(s);
	xp_diags_free(d);
}

int main(void)
{
	const char *src = getenv("SRCDIR");

	snprintf(realdir, sizeof realdir, "%s/../shared/realdata/gmon",
	         src != NULL ? src : ".");
	RUN(test_symbols_once);
	return unit_done();
}
