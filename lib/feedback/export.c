/*
 * feedback/export.c - a feedback profile for the exports (export/xs.h,
 * xprof_show(1), EXPORTS): every counter with a count is a sample of its
 * procedure (object file, name) at the source line of the first block it
 * counts (that block's first tuple, the file resolved as xprof_text(5)
 * says: a tuple that names none takes the previous tuple's in its object
 * file), or at no line.  So a procedure's samples add up to its sum and
 * all of them to the sum of counts that xprof_show prints.  Feedback has
 * no call stacks: folded stacks refuse it.
 */
#include "export/xs.h"

/* The line of the first block of pr counted by counter id, with its
 * file (*file XP_NOSTR when none); 0 when there is none.  cur is the
 * file before pr's tuples. */
static uint32_t counter_line(const xp_fb *fb, const xp_proc *pr, uint32_t id,
                             xp_str cur, xp_str *file)
{
	for (uint32_t b = 0; b < pr->n_blocks; b++) {
		xp_block bl;
		xp_str f = cur;

		xp_fb_block(fb, pr->first_block + b, &bl);
		if (bl.counter != id)
			continue;
		for (uint32_t t = 0; t < pr->n_tuples; t++) {
			xp_tuple tu;
			xp_fb_tuple(fb, pr->first_tuple + t, &tu);
			if (tu.srcfile != XP_NOSTR)
				f = tu.srcfile;
			if (tu.block == bl.id) {
				*file = f;
				return tu.line;
			}
		}
		break;
	}
	*file = XP_NOSTR;
	return 0;
}

/* The samples of one procedure; *cur is the file after its tuples. */
static xp_err proc_samples(const xp_fb *fb, uint32_t pi, const char *obj,
                           xp_str *cur, xp_xs *x)
{
	xp_proc pr;
	xp_err err = XP_E_OK;

	xp_fb_proc(fb, pi, &pr);
	for (uint32_t i = 0; i < pr.n_counters && err == XP_E_OK; i++) {
		xp_counter c;
		xp_str file;
		uint32_t line;
		size_t loc;

		xp_fb_counter(fb, pr.first_counter + i, &c);
		if (c.value == 0)
			continue;
		line = counter_line(fb, &pr, c.id, *cur, &file);
		err = xp_xs_func(x, xp_fb_str(fb, pr.name),
		                 file != XP_NOSTR ? xp_fb_str(fb, file) : NULL,
		                 line, obj, &loc);
		if (err == XP_E_OK)
			err = xp_xs_sample_add(x, &loc, 1, &c.value);
	}
	for (uint32_t t = 0; t < pr.n_tuples; t++) {
		xp_tuple tu;
		xp_fb_tuple(fb, pr.first_tuple + t, &tu);
		if (tu.srcfile != XP_NOSTR)
			*cur = tu.srcfile;
	}
	return err;
}

xp_err xp_fb_export(const xp_fb *fb, const char *type, const char *unit,
                    const char *event, xp_xs *x)
{
	xp_err err = XP_E_OK;

	x->what = "a feedback profile";
	xp_xs_type(x, 0, type, unit, event);
	for (uint32_t o = 0; o < xp_fb_count(fb, XP_T_OBJFILES) &&
	     err == XP_E_OK; o++) {
		xp_objfile of;
		xp_str cur = XP_NOSTR;

		xp_fb_objfile(fb, o, &of);
		for (uint32_t p = 0; p < of.n_procs && err == XP_E_OK; p++)
			err = proc_samples(fb, of.first_proc + p,
			                   xp_fb_str(fb, of.path), &cur, x);
	}
	return err;
}
