/*
 * gmon/exe.c - whether the executable given with a gmon.out (-e) is the
 * one that was profiled (gmon(5), THE EXECUTABLE).
 *
 * A gmon.out records no path nor build id.  What it records is the range
 * of the histogram, which glibc's monstartup() takes from the executable
 * itself (__executable_start to etext, rounded outwards to 4 bytes), and
 * PCs: histogram bins, arcs whose from_pc and self_pc are return
 * addresses (of the call to the callee and of the callee's call to
 * mcount), and basic-block addresses.  The histogram's range is compared
 * with the executable's symbols, and the PCs are looked up among its
 * functions (registry/exe.c gives the verdict).
 */
#include <inttypes.h>
#include <stdio.h>

#include "gmon/gmon.h"

/* The value of the first symbol named one of names; 0 when found. */
static int symbol_value(const xp_sym *s, const char *const *names,
                        uint64_t *v, const char **which)
{
	for (const char *const *n = names; *n != NULL; n++)
		for (size_t i = 0; i < xp_sym_count(s); i++) {
			const xp_symbol *y = xp_sym_get(s, i);
			if (strcmp(y->name, *n) == 0) {
				*v = y->addr;
				*which = *n;
				return 0;
			}
		}
	return -1;
}

/*
 * The histogram's range against the executable's start and etext: it
 * must hold both, and end less than two bins (at least 16 bytes) past
 * etext; a build with one function more or less ends elsewhere.  One
 * warning at most.
 */
static void compare_range(const xp_gmon *g, const xp_sym *s,
                          const char *exe, const char *name, xp_diags *d)
{
	static const char *const ends[] = { "etext", "_etext", "__etext",
	                                    NULL };
	static const char *const starts[] = { "__executable_start", NULL };
	uint64_t etext, start = 0;
	const char *ename, *sname = NULL;
	char id[160];

	if (symbol_value(s, ends, &etext, &ename) != 0)
		return;
	if (symbol_value(s, starts, &start, &sname) != 0)
		sname = NULL;
	for (size_t i = 0; i < g->n_hists; i++) {
		const xp_gmon_hist *h = &g->hists[i];
		uint64_t bin = h->n_bins > 0 && h->high_pc > h->low_pc
		               ? (h->high_pc - h->low_pc + h->n_bins - 1) /
		                 h->n_bins : 0;
		uint64_t tol = 2 * bin > 16 ? 2 * bin : 16;

		if (h->high_pc >= etext && h->high_pc - etext < tol &&
		    (sname == NULL || h->low_pc <= start))
			continue;
		if (sname != NULL)
			xp_diag_warn(d, name, "the histogram covers 0x%" PRIx64
			             "-0x%" PRIx64 ", but %s (%s) runs from "
			             "0x%" PRIx64 " (%s) to 0x%" PRIx64 " (%s): it "
			             "may be another build than the one profiled",
			             h->low_pc, h->high_pc, exe,
			             xp_exe_build_id(s, id, sizeof id), start,
			             sname, etext, ename);
		else
			xp_diag_warn(d, name, "the histogram covers 0x%" PRIx64
			             "-0x%" PRIx64 ", but the code of %s (%s) ends "
			             "at 0x%" PRIx64 " (%s): it may be another "
			             "build than the one profiled", h->low_pc,
			             h->high_pc, exe,
			             xp_exe_build_id(s, id, sizeof id), etext,
			             ename);
		return;
	}
}

/*
 * Whether the arcs hold functions' addresses, as a sum by function
 * (gprof -s, xprof_merge --by-function) writes them, instead of return
 * addresses: some self_pc is where a function starts, which the return
 * address of a function's call to mcount never is.
 */
static int by_function(const xp_gmon *g, const xp_exe_tally *t)
{
	for (size_t i = 0; i < g->n_arcs; i++) {
		const xp_symbol *y = xp_sym_lookup(t->sym, g->arcs[i].self_pc);
		if (y != NULL && y->addr == g->arcs[i].self_pc)
			return 1;
	}
	return 0;
}

/* An end of an arc: a return address (of the call into the function,
 * from_pc, or of the function's call to mcount, self_pc) unless sum. */
static void arc_end(xp_exe_tally *t, uint64_t pc, uint64_t count, int sum)
{
	if (sum) {
		xp_exe_tally_add(t, pc, xp_exe_inside(t, pc), count);
		return;
	}
	xp_exe_tally_add(t, pc - 1, xp_exe_inside(t, pc - 1), count);
	xp_exe_tally_ra(t, pc, count);
}

/* Histogram bins with samples (inside when either end of the bin is),
 * both ends of every arc and basic blocks. */
static void tally_pcs(const xp_gmon *g, xp_exe_tally *t)
{
	for (size_t i = 0; i < g->n_hists; i++) {
		const xp_gmon_hist *h = &g->hists[i];
		uint64_t span = h->high_pc > h->low_pc ? h->high_pc - h->low_pc
		                                       : 0;
		for (uint32_t b = 0; b < h->n_bins && span > 0; b++) {
			uint64_t lo, hi;
			if (h->bins[b] == 0)
				continue;
			/* The bin's share of the range, as gprof spreads it. */
			lo = h->low_pc + (uint64_t)((double)span * b / h->n_bins);
			hi = h->low_pc + (uint64_t)((double)span * (b + 1) /
			                            h->n_bins);
			xp_exe_tally_add(t, lo, xp_exe_inside(t, lo) ||
			                 (hi > lo && xp_exe_inside(t, hi - 1)),
			                 h->bins[b]);
		}
	}
	int sum = by_function(g, t);

	for (size_t i = 0; i < g->n_arcs; i++) {
		const xp_gmon_arc *a = &g->arcs[i];
		arc_end(t, a->from_pc, a->count, sum);
		arc_end(t, a->self_pc, a->count, sum);
	}
	for (size_t i = 0; i < g->n_bbs; i++)
		xp_exe_tally_add(t, g->bbs[i].addr,
		                 xp_exe_inside(t, g->bbs[i].addr),
		                 g->bbs[i].count);
}

xp_err xp_gmon_check_exe(const void *model, const xp_sym *s,
                         const char *exe, const char *name, xp_diags *d)
{
	const xp_gmon *g = model;
	xp_exe_tally t;
	xp_err err;

	compare_range(g, s, exe, name, d);
	xp_exe_tally_init(&t, s);
	tally_pcs(g, &t);
	err = xp_exe_verdict(&t, exe, name, "recorded PCs (counted once "
	                     "per sample or call)", d);
	xp_exe_tally_free(&t);
	return err;
}
