/*
 * mpatrol/export.c - an mpatrol profile for the exports (export/xs.h,
 * mpatrol(5), EXPORTS): every call site that allocated is a sample whose
 * stack is that site and its callers' sites up the call-site tree, with
 * the allocations and bytes of all its size classes.  A location is a
 * call site (its address), named as mprof names its function.  Folded
 * stacks and callgrind give bytes, or allocations when asked for counts.
 */
#include "mpatrol/mpatrol.h"

/* The sum of four counts, saturating. */
static uint64_t sum4(const uint64_t *v)
{
	uint64_t s = 0;

	for (int i = 0; i < 4; i++)
		s = xp_sat_add(s, v[i]);
	return s;
}

/* The location of the site at pos (in m->sites), made once. */
static xp_err site_loc(const xp_mpatrol *m, size_t pos, size_t *locs,
                       xp_xs *x)
{
	const xp_mpatrol_site *s = &m->sites[pos];
	xp_xs_line l = {0, XP_XS_NONE, XP_XS_NONE, 0};
	char hex[40];
	xp_err err;

	if (locs[pos] != SIZE_MAX)
		return XP_E_OK;
	if ((err = xp_xs_str(x, xp_mp_site_fn(m, s, hex), &l.name)) != 0)
		return err;
	return xp_xs_loc_add(x, s->addr, XP_XS_NONE, &l, 1, &locs[pos]);
}

xp_err xp_mp_export(const void *mv, xp_export_kind k, const xp_export_opts *o,
                    const char *name, xp_xs *x, xp_diags *d)
{
	const xp_mpatrol *m = mv;
	size_t *locs = malloc((m->nsites + 1) * sizeof *locs);
	size_t *stk = malloc((m->nsites + 1) * sizeof *stk);
	xp_err err = XP_E_OK;

	(void)k;
	(void)name;
	(void)d;
	if (locs == NULL || stk == NULL) {
		XP_FREE(locs, stk);
		return XP_E_NOMEM;
	}
	memset(locs, 0xff, (m->nsites + 1) * sizeof *locs);
	x->what = "an mpatrol profile";
	x->stacks = 1;
	xp_xs_type(x, 0, "alloc_objects", "count", "Allocations");
	xp_xs_type(x, 1, "alloc_space", "bytes", "Bytes");
	x->main = o->counts ? 0 : 1;
	for (size_t i = 0; i < m->nsites && err == XP_E_OK; i++) {
		const xp_mpatrol_data *dt = xp_mpatrol_site_data(m, &m->sites[i]);
		uint64_t v[2];
		size_t n = 0;

		if (dt == NULL)
			continue;
		v[0] = sum4(dt->acount);
		v[1] = sum4(dt->atotal);
		if (v[0] == 0 && v[1] == 0)
			continue;
		/* The model has no cycles of parents (mpatrol.h). */
		for (const xp_mpatrol_site *s = &m->sites[i];
		     s != NULL && n < m->nsites && err == XP_E_OK;
		     s = xp_mpatrol_site_at(m, s->parent)) {
			size_t pos = m->site_pos[s->index - 1];
			err = site_loc(m, pos, locs, x);
			stk[n++] = locs[pos];
		}
		if (err == XP_E_OK)
			err = xp_xs_sample_add(x, stk, n, v);
	}
	XP_FREE(locs, stk);
	return err;
}
