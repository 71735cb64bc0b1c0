/*
 * dcpi/exe.c - whether the image given with a DCPI profile (-e) is the
 * one that was profiled (dcpi(5), THE IMAGE).
 *
 * The header names the image by an id that only DCPI's own database
 * resolves (no build id), and optionally by its path; it gives the text's
 * start (tstart, our extension) and size (tsize).  The check compares the
 * path's base name with the image's, and the text the profile covers with
 * the image's code, and looks every address with samples up among the
 * image's functions: none inside is an error (registry/exe.c).  A share
 * outside is already counted by the conversion's warning.
 */
#include <inttypes.h>
#include <stdio.h>

#include "dcpi/dcpi.h"
#include "registry/module.h"

xp_err xp_dcpi_check_exe(const void *model, const xp_sym *s,
                         const char *exe, const char *name, xp_diags *d)
{
	const xp_dcpi *m = model;
	uint64_t base, lo, hi;
	const char *v;
	size_t vn;
	xp_exe_tally t;
	xp_err err = XP_E_OK;

	xp_sym_text_range(s, &lo, &hi);
	if (xp_dcpi_value(m, XP_DCPI_PATH, &v, &vn) == 0) {
		/* v is not NUL-terminated: the header's bytes. */
		char *path = xp_strndup(v, vn);
		if (path == NULL)
			return XP_E_NOMEM;
		if (strcmp(xp_path_base(path), xp_path_base(exe)) != 0)
			xp_diag_warn(d, name, "the profile's path line names "
			             "%s, not a file named %s", path,
			             xp_path_base(exe));
		free(path);
	}
	/* Without tstart the text starts with the lowest code section.  A
	 * text that starts outside the code, or is larger than all of it,
	 * is another image's. */
	base = lo;
	if (xp_dcpi_tstart(m, &base) == 0 && (base < lo || base >= hi))
		xp_diag_warn(d, name, "the profile's text starts at 0x%" PRIx64
		             " (tstart), outside the code of %s (0x%" PRIx64
		             "-0x%" PRIx64 "): it may be another image than the "
		             "one profiled", base, exe, lo, hi);
	else if (m->tsize > hi - lo)
		xp_diag_warn(d, name, "the profile's text is %" PRIu64 " bytes "
		             "(tsize), more than the %" PRIu64 " bytes of code "
		             "of %s: it may be another image than the one "
		             "profiled", m->tsize, hi - lo, exe);
	xp_exe_tally_init(&t, s);
	for (size_t c = 0; c < m->nchunks; c++) {
		const xp_dcpi_chunk *ch = &m->chunks[c];
		for (uint32_t j = 0; j < ch->number; j++) {
			uint64_t a = base + ch->offset + j;
			xp_exe_tally_add(&t, a, xp_exe_inside(&t, a),
			                 m->counts[ch->first + j]);
		}
	}
	if (t.in == 0)
		err = xp_exe_verdict(&t, exe, name, "samples", d);
	xp_exe_tally_free(&t);
	return err;
}
