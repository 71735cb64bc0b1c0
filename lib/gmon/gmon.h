/*
 * gmon/gmon.h - what the files of the gmon.out module (module.c,
 * text.c, merge.c, report.c, feedback.c, exe.c) share.
 */
#ifndef XP_GMON_INT_H
#define XP_GMON_INT_H

#include "registry/module.h"
#include "base/rd.h"
#include "xprof_gmon.h"

/* An empty model (GNU flavor, version 1). */
xp_gmon *xp_gmon_new(int big, unsigned addr_bytes, xp_gmon_flavor fl);
void xp_gmon_free(xp_gmon *g);

/* Appending records; each returns XP_E_NOMEM or XP_E_OK.  A histogram
 * takes ownership of h->bins. */
xp_err xp_gmon_add_hist(xp_gmon *g, xp_gmon_hist *h);
xp_err xp_gmon_add_arc(xp_gmon *g, const xp_gmon_arc *a);
/* n arcs at once, each its own record; a may be what xp_gmon_arc_room
 * gave, filled. */
xp_err xp_gmon_add_arcs(xp_gmon *g, const xp_gmon_arc *a, size_t n);
/* Room for n more arcs after the last, and for their records, not yet
 * added: fill it and add them with xp_gmon_add_arcs before any other
 * addition.  NULL when out of memory, and for no room (n 0) in a
 * profile without arcs. */
xp_gmon_arc *xp_gmon_arc_room(xp_gmon *g, size_t n);
/* Starts a basic-block record; then add its counts. */
xp_err xp_gmon_add_bbrec(xp_gmon *g);
xp_err xp_gmon_add_bb(xp_gmon *g, const xp_gmon_bb *b);
xp_err xp_gmon_set_trailing(xp_gmon *g, const unsigned char *p, size_t n);

/* The largest value a word of addr_bytes bytes holds. */
static inline uint64_t xp_gmon_word_max(unsigned addr_bytes)
{
	return addr_bytes == 8 ? UINT64_MAX : UINT32_MAX;
}

/* The largest arc count the file can hold. */
static inline uint64_t xp_gmon_arc_max(const xp_gmon *g)
{
	return g->flavor == XP_GMON_GNU ? UINT32_MAX
	                                : xp_gmon_word_max(g->addr_bytes);
}

/* The first bin at or after i of the n bins that is not empty, or n.
 * Most bins of a histogram are, and are passed over 16 at a time. */
static inline uint32_t xp_gmon_next_bin(const uint16_t *bins, uint32_t i,
                                        uint32_t n)
{
	uint64_t w[4];

	for (; n - i >= 16; i += 16) {
		memcpy(w, bins + i, sizeof w);
		if ((w[0] | w[1] | w[2] | w[3]) != 0)
			break;
	}
	while (i < n && bins[i] == 0)
		i++;
	return i;
}

/* "le64" and the like, for messages. */
const char *xp_gmon_layout_name(int big, unsigned addr_bytes);

/* The text form (text.c). */
int xp_gmon_detect_text(const unsigned char *head, size_t len);
xp_err xp_gmon_read_text(const unsigned char *buf, size_t len,
                         const char *name, const xp_load_opts *o,
                         void **out, xp_diags *d);
xp_err xp_gmon_write_text(const void *m, xp_wbuf *w);

/* The address ranges of the functions of gprof's symbol table of sym
 * (report.c), by address: starts and inclusive ends, n of each, the
 * caller's to free. */
xp_err xp_gmon_fn_ranges(const xp_sym *sym, uint64_t **start,
                         uint64_t **end, size_t *n);

/* Merging (merge.c) and conversion to feedback (feedback.c). */
xp_err xp_gmon_merge(void **acc, const void *in, double weight,
                     const xp_prof_merge_opts *o, const char *name,
                     xp_diags *d);
xp_err xp_gmon_to_feedback(const void *m, const xp_conv_opts *o,
                           xp_fb **out, xp_diags *d);

/* Whether the executable given is the one profiled (exe.c). */
xp_err xp_gmon_check_exe(const void *m, const xp_sym *s, const char *exe,
                         const char *name, xp_diags *d);
/* The module's export entry (export.c). */
xp_err xp_gmon_export(const void *m, xp_export_kind k,
                      const xp_export_opts *o, const char *name, xp_xs *x,
                      xp_diags *d);

/* The module's report entry (report.c). */
xp_err xp_gmon_report_new(const void *m, const xp_report_opts *o,
                      const char *name, void **handle, const void **model,
                      xp_diags *d);
void xp_gmon_report_free(void *handle);

#endif
