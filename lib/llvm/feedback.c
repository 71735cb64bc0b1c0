/*
 * llvm/feedback.c - an LLVM profile as feedback (xp_prof_to_feedback,
 * llvm(5), CONVERSION TO FEEDBACK), so that xprof_show and xprof_diff
 * work on Clang's profiles.  LLVM's text holds counters, but no control
 * flow graph and no source lines, so the feedback holds counters only:
 * one OBJFILE, named as the executable was given (-e) or "llvm", and in
 * it one procedure per record, by name and hash, proc ids from 1, whose
 * signature is the record's hash and whose counters 1..n are the
 * record's counters in order.  Value profiles and bitmap bytes are left
 * out.
 */
#include "llvm/llvm.h"

xp_err xp_llvm_to_feedback(const void *mv, const xp_conv_opts *o,
                           xp_fb **out, xp_diags *d)
{
	const xp_llvm *m = mv;
	const char *objname = o != NULL && o->exe != NULL ? o->exe : "llvm";
	const xp_llvm_func **order;
	xp_fbb *b = NULL;
	xp_objfile of;
	xp_err err = XP_E_NOMEM;

	*out = NULL;
	if (m->n_funcs > UINT32_MAX - 1)
		return xp_diag_file(d, XP_E_LIMIT, "", "more than %u records",
		                    UINT32_MAX - 1);
	if ((order = malloc((m->n_funcs + 1) * sizeof *order)) == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < m->n_funcs; i++)
		order[i] = &m->funcs[i];
	xp_qsort(order, m->n_funcs, sizeof *order, xp_llvm_cmp_func_ptr);
	if ((b = xp_fbb_new(XP_DT_FEEDBACK, 4, (uint32_t)m->n_funcs)) == NULL)
		goto out;
	memset(&of, 0, sizeof of);
	if ((err = xp_fbb_intern(b, objname, strlen(objname), &of.path)) ||
	    (err = xp_fbb_begin_objfile(b, &of)))
		goto out;
	for (size_t i = 0; i < m->n_funcs; i++) {
		const xp_llvm_func *f = order[i];
		xp_proc p;

		memset(&p, 0, sizeof p);
		p.proc_id = (uint32_t)i + 1;
		p.signature = f->hash;
		if ((err = xp_fbb_intern(b, f->name, strlen(f->name), &p.name)) ||
		    (err = xp_fbb_begin_proc(b, &p)))
			goto out;
		for (size_t k = 0; k < f->n_counts && k < UINT32_MAX; k++)
			if ((err = xp_fbb_add_counter(b, (uint32_t)k + 1,
			                              f->counts[k])))
				goto out;
	}
	err = xp_fbb_finish(b, out);
out:
	xp_fbb_free(b);
	free(order);
	return err;
}
