/*
 * llvm/llvm.h - what the files of the LLVM text profile module
 * (module.c, parse.c, write.c, text.c, merge.c, feedback.c, md5.c)
 * share.
 */
#ifndef XP_LLVM_INT_H
#define XP_LLVM_INT_H

#include "registry/module.h"
#include "base/rd.h"
#include "xprof_llvm.h"

/* The first line of the text form (text.c). */
#define XP_LLVM_TEXT_KEYWORD "# LLVM-PROFTEXT"

/* The model (module.c). */
xp_llvm *xp_llvm_new(void);
void xp_llvm_free(xp_llvm *m);
void xp_llvm_func_free(xp_llvm_func *f);
/* Appends an empty record to m; NULL when out of memory. */
xp_llvm_func *xp_llvm_add_func(xp_llvm *m);
/* Whether a value kind names its values (call and vtable targets). */
static inline int xp_llvm_named_kind(unsigned k)
{
	return k == XP_LLVM_VK_INDIRECT_CALL || k == XP_LLVM_VK_VTABLE;
}
/* Orders records by name, then hash (llvm-profdata's order). */
int xp_llvm_cmp_func(const void *a, const void *b);
/* The same for pointers into one array, equal records in array order. */
int xp_llvm_cmp_func_ptr(const void *a, const void *b);

/*
 * Reads a .proftext (parse.c), from its first line, as LLVM's
 * TextInstrProfReader reads it; l is positioned before the first line
 * to read.  *out gets the model.
 */
xp_err xp_llvm_parse(xp_lines *l, xp_llvm **out);

/* Writes m as llvm-profdata merge --text writes it (write.c). */
xp_err xp_llvm_write_proftext(const xp_llvm *m, xp_wbuf *w);

/* The text form (text.c). */
int xp_llvm_detect_text(const unsigned char *head, size_t len);
xp_err xp_llvm_read_text(const unsigned char *buf, size_t len,
                         const char *name, const xp_load_opts *o,
                         void **out, xp_diags *d);
xp_err xp_llvm_write_text(const void *m, xp_wbuf *w);

/* Merging (merge.c) and the conversion to feedback (feedback.c). */
xp_err xp_llvm_merge(void **acc, const void *in, double weight,
                     const xp_prof_merge_opts *o, const char *name,
                     xp_diags *d);
xp_err xp_llvm_to_feedback(const void *m, const xp_conv_opts *o,
                           xp_fb **out, xp_diags *d);

#endif
