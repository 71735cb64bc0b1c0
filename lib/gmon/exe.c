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

/* The value of the first symbol named as the first of names[l] that
 * any symbol is named, into v[l] with that name into which[l], for each
 * of the two lists of names (NULL when no symbol has one of its names),
 * in one pass over the symbols. */
static void symbol_values(const xp_sym *s, const char *const *names[2],
                          uint64_t v[2], const char *which[2])
{
	size_t best[2] = { SIZE_MAX, SIZE_MAX };

	which[0] = which[1] = NULL;
	for (size_t i = 0; i < xp_sym_count(s) && (best[0] | best[1]); i++) {
		const xp_symbol *y = xp_sym_get(s, i);
		for (int l = 0; l < 2; l++)
			for (size_t k = 0; k < best[l] && names[l][k] != NULL;
			     k++)
				if (y->name[0] == names[l][k][0] &&
				    strcmp(y->name, names[l][k]) == 0) {
					best[l] = k;
					v[l] = y->addr;
					which[l] = names[l][k];
				}
	}
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
	const char *const *names[2] = { ends, starts }, *found[2];
	uint64_t v[2] = { 0, 0 }, etext, start;
	const char *ename, *sname;
	char id[160];

	symbol_values(s, names, v, found);
	if ((ename = found[0]) == NULL)
		return;
	etext = v[0];
	start = v[1];
	sname = found[1];
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
 * addresses: some self_pc (of the n in self, sorted) is where a function
 * starts, which the return address of a function's call to mcount never
 * is.
 */
static int by_function(const xp_kv *self, size_t n, const xp_sym *s)
{
	size_t at = 0;

	for (size_t i = 0; i < n; i++) {
		const xp_symbol *y = xp_sym_lookup_next(s, &at, self[i].key);
		if (y != NULL && y->addr == self[i].key)
			return 1;
	}
	return 0;
}

/*
 * Both ends of every arc: return addresses (of the call to the callee,
 * from_pc, and of the callee's call to mcount, self_pc) unless summed by
 * function.  The callees' are sorted first, which tells; the callers'
 * then go to the back of the tally's room and are sorted there (at the
 * cost of a look: a gmon.out lists arcs by caller), and both are merged
 * into one ascending list from the front, which the tally then need not
 * sort.
 */
static xp_err tally_arcs(const xp_gmon *g, xp_exe_tally *t)
{
	size_t n = g->n_arcs, i = 0, j = 0;
	xp_kv *self = malloc((n + 1) * sizeof *self), *all, *from;
	xp_err err = XP_E_NOMEM;

	if (self == NULL)
		return XP_E_NOMEM;
	for (size_t k = 0; k < n; k++)
		self[k] = (xp_kv){g->arcs[k].self_pc, g->arcs[k].count};
	if ((err = xp_sort_kv(self, n)) != XP_E_OK ||
	    (all = xp_exe_tally_room(t, !by_function(self, n, t->sym),
	                             2 * n)) == NULL)
		goto out;
	from = all + n;
	for (size_t k = 0; k < n; k++)
		from[k] = (xp_kv){g->arcs[k].from_pc, g->arcs[k].count};
	if ((err = xp_sort_kv(from, n)) != XP_E_OK)
		goto out;
	/* The k-th written goes where no caller's is left to read. */
	while (i < n || j < n)
		*all++ = j == n || (i < n && from[i].key <= self[j].key)
		         ? from[i++] : self[j++];
out:
	free(self);
	return err;
}

/* Histogram bins with samples (inside when either end of the bin is),
 * both ends of every arc and basic blocks. */
static xp_err tally_pcs(const xp_gmon *g, xp_exe_tally *t)
{
	for (size_t i = 0; i < g->n_hists; i++) {
		const xp_gmon_hist *h = &g->hists[i];
		uint64_t span = h->high_pc > h->low_pc ? h->high_pc - h->low_pc
		                                       : 0;
		for (uint32_t b = xp_gmon_next_bin(h->bins, 0, h->n_bins);
		     b < h->n_bins && span > 0;
		     b = xp_gmon_next_bin(h->bins, b + 1, h->n_bins)) {
			uint64_t lo, hi;
			/* The bin's share of the range, as gprof spreads it. */
			lo = h->low_pc + (uint64_t)((double)span * b / h->n_bins);
			hi = h->low_pc + (uint64_t)((double)span * (b + 1) /
			                            h->n_bins);
			xp_exe_tally_add(t, lo, xp_exe_inside(t, lo) ||
			                 (hi > lo && xp_exe_inside(t, hi - 1)),
			                 h->bins[b]);
		}
	}
	for (size_t i = 0; i < g->n_bbs; i++)
		xp_exe_tally_pc(t, g->bbs[i].addr, g->bbs[i].count);
	return tally_arcs(g, t);
}

xp_err xp_gmon_check_exe(const void *model, const xp_sym *s,
                         const char *exe, const char *name, xp_diags *d)
{
	const xp_gmon *g = model;
	xp_exe_tally t;
	xp_err err;

	compare_range(g, s, exe, name, d);
	xp_exe_tally_init(&t, s);
	if ((err = tally_pcs(g, &t)) == XP_E_OK)
		err = xp_exe_verdict(&t, exe, name, "recorded PCs (counted "
		                     "once per sample or call)", d);
	xp_exe_tally_free(&t);
	return err;
}
