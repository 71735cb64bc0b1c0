/*
 * gcov/feedback.c - GCC coverage files as feedback: not yet converted
 * (gcov(5)).
 */
#include "gcov/gcov.h"

xp_err xp_gcov_to_feedback(const void *m, const xp_conv_opts *o,
                           xp_fb **out, xp_diags *d)
{
	(void)m;
	(void)o;
	*out = NULL;
	return xp_diag_file(d, XP_E_INVAL, "", "a GCC coverage file cannot "
	                    "be converted to feedback yet");
}

xp_err xp_gcov_report_new(const void *m, const xp_report_opts *o,
                          const char *name, void **handle,
                          const void **model, xp_diags *d)
{
	(void)m;
	(void)o;
	*handle = NULL;
	*model = NULL;
	return xp_diag_file(d, XP_E_INVAL, name, "a GCC coverage file has no "
	                    "report yet");
}

void xp_gcov_report_free(void *handle)
{
	(void)handle;
}
