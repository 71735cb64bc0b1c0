/*
 * mpatrol/feedback.c - an mpatrol profile as feedback (xp_prof_to_feedback,
 * mpatrol(5), CONVERSION TO FEEDBACK): one procedure per allocating
 * function, from its call sites' direct allocations as mprof's DIRECT
 * ALLOCATIONS table counts them, with one counter, its self cost: the
 * bytes it allocated itself.
 */
#include <stdio.h>

#include "mpatrol/mpatrol.h"

/* A function's direct allocations, as in mprof's DIRECT ALLOCATIONS. */
typedef struct {
	char name[64];
	const char *sname;    /* its name, or NULL: name holds the address */
	uint64_t bytes;       /* bytes allocated */
} fn_sum;

static int fn_cmp(const void *x, const void *y)
{
	const fn_sum *a = x, *b = y;
	return strcmp(a->sname ? a->sname : a->name,
	              b->sname ? b->sname : b->name);
}

xp_err xp_mp_to_feedback(const void *mv, const xp_conv_opts *o, xp_fb **out,
                      xp_diags *d)
{
	const xp_mpatrol *m = mv;
	fn_sum *fs = NULL;
	size_t nf = 0;
	uint32_t pid = 0;
	xp_fbb *b = NULL;
	xp_err err = XP_E_NOMEM;
	xp_objfile of;
	xp_str path;
	const char *objname = o != NULL && o->exe != NULL ? o->exe : "mpatrol";

	*out = NULL;
	if (m->nsites > 0 && (fs = calloc(m->nsites, sizeof *fs)) == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < m->nsites; i++) {
		const xp_mpatrol_site *s = &m->sites[i];
		const xp_mpatrol_data *dt = xp_mpatrol_site_data(m, s);
		fn_sum *f = &fs[nf++];

		f->sname = xp_mpatrol_site_name(m, s);
		if (f->sname == NULL)
			snprintf(f->name, sizeof f->name, "0x%0*llX",
			         (int)m->ptr_size * 2, (unsigned long long)s->addr);
		if (dt == NULL) {
			nf--;
			continue;
		}
		for (int k = 0; k < 4; k++)
			f->bytes += dt->atotal[k];
	}
	xp_qsort(fs, nf, sizeof *fs, fn_cmp);
	if ((b = xp_fbb_new(XP_DT_FEEDBACK, 4, 0)) == NULL)
		goto out;
	xp_fbb_set_diags(b, d);
	if ((err = xp_fbb_intern(b, objname, strlen(objname), &path)) !=
	    XP_E_OK)
		goto out;
	memset(&of, 0, sizeof of);
	of.path = path;
	if ((err = xp_fbb_begin_objfile(b, &of)) != XP_E_OK)
		goto out;
	for (size_t i = 0; i < nf; ) {
		const char *nm = fs[i].sname ? fs[i].sname : fs[i].name;
		uint64_t bytes = 0;
		xp_proc p;
		size_t j;

		for (j = i; j < nf && fn_cmp(&fs[i], &fs[j]) == 0; j++)
			bytes += fs[j].bytes;
		memset(&p, 0, sizeof p);
		p.proc_id = ++pid;
		if ((err = xp_fbb_intern_proc(b, nm, &p.name)) != XP_E_OK ||
		    (err = xp_fbb_begin_proc(b, &p)) != XP_E_OK ||
		    (err = xp_fbb_add_counter(b, 1, bytes)) != XP_E_OK)
			goto out;
		i = j;
	}
	err = xp_fbb_finish(b, out);
out:
	/* The builder explains what it refuses (XP_E_INVAL). */
	if (err != XP_E_OK && err != XP_E_NOMEM && err != XP_E_INVAL)
		xp_diag_file(d, err, "", "conversion to feedback failed");
	xp_fbb_free(b);
	free(fs);
	return err;
}
