/*
 * dcpi/export.c - a DCPI profile for the exports (export/xs.h, dcpi(5),
 * EXPORTS): the samples of its report's conversion to feedback, per
 * procedure and source line, as the feedback core exports counts
 * (feedback/export.c).  Samples in no procedure, which the conversion
 * leaves out with a warning, are not in them either.
 */
#include "dcpi/dcpi.h"

xp_err xp_dcpi_export(const void *m, xp_export_kind k,
                      const xp_export_opts *o, const char *name, xp_xs *x,
                      xp_diags *d)
{
	static const char what[] = "a DCPI profile";
	xp_report_opts ro = { .exe = o->exe };
	void *handle = NULL;
	const void *model = NULL;
	xp_err err;

	if (k == XP_EXPORT_FOLDED)
		return xp_xs_no_stacks(what, name, d);
	if ((err = xp_dcpi_report_new(m, &ro, name, &handle, &model, d)) != 0)
		return err;
	err = xp_fb_export(xp_dcpi_report_fb(model), "samples", "count",
	                   "Samples", x);
	x->what = what;
	xp_dcpi_report_free(handle);
	return err;
}
