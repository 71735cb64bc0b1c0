/*
 * mpatrol/mpatrol.h - what the files of the mpatrol module share: layouts,
 * the checks every loaded model passes, the text form, merging, the
 * conversion to feedback and mprof's report.  mpatrol(5) documents the
 * format.  The module's files: module.c (the module, recognition, the
 * binary form, the checks, the accessors), text.c (the text form),
 * merge.c, feedback.c (the conversion to feedback), report.c (mprof's
 * report).
 */
#ifndef XP_MPATROL_IMPL_H
#define XP_MPATROL_IMPL_H

#include "base/internal.h"
#include "export/xs.h"
#include "xprof_mpatrol.h"

/* A layout: byte order and the sizes of integers and pointers. */
typedef struct {
	int big;
	unsigned isz, psz;
} xp_mp_layout;

/* Writes the layout's name ("be32", "le64p32") to buf (16 bytes). */
const char *xp_mp_layout_str(xp_mp_layout l, char *buf);
/* Parses a layout name; 0 on success, -1 when s is not one. */
int xp_mp_layout_parse(const char *s, xp_mp_layout *l);

/* What a check found wrong: where (a record and one of its fields, or
 * the whole file) and what. */
enum { MP_AT_FILE, MP_AT_DATA, MP_AT_SITE };
enum { MP_F_INDEX, MP_F_PARENT, MP_F_ADDR, MP_F_SYMBOL, MP_F_NAME,
       MP_F_DATA };
typedef struct {
	int at;          /* MP_AT_* */
	size_t rec;      /* position of the record in file order */
	int field;       /* MP_F_* */
	char msg[256];
} xp_mp_fail;

/*
 * Checks the references of a model whose fields are all read, and
 * builds its lookups (data_pos, site_pos).  Returns XP_E_OK, XP_E_NOMEM,
 * or XP_E_CORRUPT with *f saying what is wrong.
 */
xp_err xp_mp_check(xp_mpatrol *m, xp_mp_fail *f);

void xp_mp_free(xp_mpatrol *m);
/* A deep copy (lookups included); NULL when out of memory. */
xp_mpatrol *xp_mp_copy(const xp_mpatrol *m);

/* The largest value an integer or a pointer of n bytes holds. */
static inline uint64_t xp_mp_max(unsigned n)
{
	return n == 8 ? UINT64_MAX : UINT32_MAX;
}

/* Text form (text.c). */
int xp_mp_detect_text(const unsigned char *head, size_t len);
xp_err xp_mp_read_text(const unsigned char *buf, size_t len, const char *name,
                    const xp_load_opts *o, void **out, xp_diags *d);
xp_err xp_mp_write_text(const void *m, xp_wbuf *w);

/* Merging (merge.c) and conversion to feedback (feedback.c). */
xp_err xp_mp_merge(void **acc, const void *in, double weight,
                const xp_prof_merge_opts *o, const char *name,
                xp_diags *d);
xp_err xp_mp_to_feedback(const void *m, const xp_conv_opts *o, xp_fb **out,
                      xp_diags *d);

/* The function of call site s as mprof names it without addresses: its
 * symbol's name, or "0x" and the address in capitals, two digits per
 * pointer byte, written to hex (40 bytes). */
const char *xp_mp_site_fn(const xp_mpatrol *m, const xp_mpatrol_site *s,
                          char *hex);
/* The module's export entry (export.c). */
xp_err xp_mp_export(const void *m, xp_export_kind k, const xp_export_opts *o,
                    const char *name, xp_xs *x, xp_diags *d);

/* The module's report entry (report.c): mprof's tables. */
xp_err xp_mp_report_new(const void *m, const xp_report_opts *o, const char *name,
                    void **handle, const void **model, xp_diags *d);
void xp_mp_report_free(void *handle);

#endif
