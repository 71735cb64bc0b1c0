/*
 * cpuprof/export.c - a CPU profile for the exports (export/xs.h,
 * cpuprofile(5), EXPORTS), from the analysis behind google-pprof's report
 * (report.c): the call chains after the profiler's signal frames and own
 * functions are dropped, one location per address, named as the report
 * names it, with google-pprof's full name for folded stacks (what
 * --collapsed prints: the demangled name, or nm's tagged one, or
 * "file:line" when no name is known, or the bare address when the object
 * could not be read).  Folded stacks keep addresses above
 * 0x7fffffffffffffff, as --collapsed does; the report, and so the other
 * exports, skip them.
 */
#include <stdio.h>

#include "cpuprof/cpuprof.h"

/* The full name of an address (xs.h: xp_xs_line.full). */
static xp_err full_name(const xp_cp_an *an, const addrinfo *ai, xp_xs *x,
                        uint32_t *out)
{
	char *fl;
	xp_err err;

	if (ai->keyed)
		return xp_xs_str(x, xp_strpool_str(&an->sp, ai->name), out);
	if (!ai->unknown)
		return xp_xs_str(x, xp_strpool_str(&an->sp, ai->lname), out);
	/* pprof names a function that addr2line does not know by its file
	 * and line ("??:0" when it knows neither). */
	const char *file = ai->file != UINT32_MAX
	                   ? xp_strpool_str(&an->sp, ai->file) : NULL;
	size_t need = (file != NULL ? strlen(file) : 2) + 16;
	if ((fl = malloc(need)) == NULL)
		return XP_E_NOMEM;
	snprintf(fl, need, "%s:%u", file != NULL ? file : "??",
	         file != NULL ? ai->line : 0);
	err = xp_xs_str(x, fl, out);
	free(fl);
	return err;
}

/* The line of frame f: named by name (its key, or for an inlined frame
 * its plain name), with pprof's full name, file and line. */
static xp_err frame_line(const xp_cp_an *an, const addrinfo *f,
                         uint32_t name, xp_xs *x, xp_xs_line *l)
{
	xp_err err;

	*l = (xp_xs_line){0, 0, XP_XS_NONE, f->line};
	if ((err = xp_xs_str(x, xp_strpool_str(&an->sp, name), &l->name)) !=
	        XP_E_OK ||
	    (err = full_name(an, f, x, &l->full)) != XP_E_OK)
		return err;
	if (f->file != UINT32_MAX)
		err = xp_xs_str(x, xp_strpool_str(&an->sp, f->file), &l->file);
	return err;
}

/* One location per address of the analysis, at the same index: its
 * inlined calls, the innermost first, then the function that holds the
 * code. */
static xp_err locations(const xp_cp_an *an, xp_xs *x)
{
	xp_xs_line *ls = NULL;
	size_t cap = 0;
	xp_err err = XP_E_OK;

	for (size_t i = 0; i < an->na && err == XP_E_OK; i++) {
		const addrinfo *ai = &an->ai[i];
		uint32_t obj = XP_XS_NONE;
		size_t loc, n = ai->nin + 1;

		if (n > cap) {
			xp_xs_line *q = realloc(ls, n * sizeof *q);
			if (q == NULL) {
				err = XP_E_NOMEM;
				break;
			}
			ls = q;
			cap = n;
		}
		for (size_t k = 0; k < ai->nin && err == XP_E_OK; k++) {
			const addrinfo *f = &an->in[ai->in + k];
			err = frame_line(an, f, f->name, x, &ls[k]);
		}
		if (err == XP_E_OK)
			err = frame_line(an, ai, ai->key, x, &ls[n - 1]);
		if (err == XP_E_OK && ai->obj != UINT32_MAX)
			err = xp_xs_str(x, xp_strpool_str(&an->sp, ai->obj), &obj);
		if (err == XP_E_OK)
			err = xp_xs_loc_add(x, ai->addr, obj, ls, n, &loc);
	}
	free(ls);
	return err;
}

/* The executable mappings, and the location of each address in the
 * one that holds it. */
static xp_err mappings(const xp_cpuprof *p, const xp_cp_an *an, xp_xs *x)
{
	xp_err err = XP_E_OK;

	for (size_t i = 0; i < p->nmaps && err == XP_E_OK; i++) {
		const xp_cpuprof_map *m = &p->maps[i];
		size_t mi;

		if (!xp_cp_map_exec(m) || m->path[0] == '\0')
			continue;
		err = xp_xs_map_add(x, m->start, m->end, m->offset, m->path, &mi);
		for (size_t a = 0; a < an->na && err == XP_E_OK; a++)
			if (m->start <= an->ai[a].addr && an->ai[a].addr < m->end)
				err = xp_xs_loc_map(x, a, mi);
	}
	return err;
}

xp_err xp_cp_export(const void *m, xp_export_kind k, const xp_export_opts *o,
                    const char *name, xp_xs *x, xp_diags *d)
{
	const xp_cpuprof *p = m;
	xp_cp_an an;
	size_t *stk = NULL;
	xp_err err;

	(void)name;
	(void)d;
	if ((err = xp_cp_analyze(p, o->exe, 0, &an)) != XP_E_OK)
		return err;
	x->what = "a CPU profile";
	x->stacks = 1;
	xp_xs_type(x, 0, "samples", "count", "Samples");
	xp_xs_type(x, 1, "cpu", "nanoseconds", "Nanoseconds");
	x->ptype = "cpu";
	x->punit = "nanoseconds";
	x->period = xp_cpuprof_period(p) * 1000;
	err = locations(&an, x);
	if (err == XP_E_OK)
		err = mappings(p, &an, x);
	for (size_t i = 0; i < an.nch && err == XP_E_OK; i++) {
		const uint64_t *a = an.ad + an.ch[i].off;
		uint64_t v[2] = {an.ch[i].count,
		                 an.ch[i].count * xp_cpuprof_period(p) * 1000};
		size_t n = 0, ix;
		size_t *q = realloc(stk, (an.ch[i].n + 1) * sizeof *stk);

		if (q == NULL) {
			err = XP_E_NOMEM;
			break;
		}
		stk = q;
		/* The frames the report counts; folded stacks check names
		 * only, as slot 4 never skips an address. */
		for (size_t j = 0; j < an.ch[i].n; j++)
			if (xp_cp_frame_ok(&an, k == XP_EXPORT_FOLDED ? 4 : p->slot,
			                   a[j], &ix))
				stk[n++] = ix;
		err = xp_xs_sample_add(x, stk, n, v);
	}
	free(stk);
	xp_cp_an_free(&an);
	return err;
}
