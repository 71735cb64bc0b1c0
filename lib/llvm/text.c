/*
 * llvm/text.c - the text form of an LLVM profile (llvm(5), THE TEXT
 * FORM): the .proftext as llvm-profdata writes it after one first line,
 *
 *   # LLVM-PROFTEXT 1
 *
 * which names the form and its version.  To LLVM the line is a comment,
 * so llvm-profdata reads the text form as it reads the file; to xprof it
 * tells the two forms apart, so that xprof_btoa and xprof_atob take one
 * to the other like every other format's.
 */
#include "llvm/llvm.h"

int xp_llvm_detect_text(const unsigned char *head, size_t len)
{
	return xp_text_keyword(head, len, XP_LLVM_TEXT_KEYWORD);
}

xp_err xp_llvm_read_text(const unsigned char *buf, size_t len,
                         const char *name, const xp_load_opts *o,
                         void **out, xp_diags *d)
{
	size_t kl = sizeof XP_LLVM_TEXT_KEYWORD - 1;
	xp_lines l;
	xp_llvm *m = NULL;
	const char *v;
	size_t vl;
	xp_err err;

	(void)o;
	*out = NULL;
	xp_lines_init(&l, buf, len, name, d);
	if (!xp_lines_next(&l) || l.len < kl ||
	    memcmp(l.line, XP_LLVM_TEXT_KEYWORD, kl) != 0)
		return xp_lines_error(&l, XP_E_SYNTAX, NULL, "expected '%s 1'",
		                      XP_LLVM_TEXT_KEYWORD);
	v = l.line + kl;
	vl = l.len - kl;
	if (vl > 0 && v[vl - 1] == '\r')
		vl--;
	if (vl != 2 || v[0] != ' ' || v[1] != '1')
		return xp_lines_error(&l, vl > 1 && v[0] == ' ' ? XP_E_VERSION
		                                           : XP_E_SYNTAX,
		                      v + (vl > 0 && v[0] == ' '),
		                      "unsupported version '%.*s' of the LLVM "
		                      "profile text (this program reads 1)",
		                      (int)(vl > 1 ? (vl > 20 ? 19 : vl - 1) : 0),
		                      v + 1);
	err = xp_llvm_parse(&l, &m);
	*out = m;
	return err;
}

xp_err xp_llvm_write_text(const void *m, xp_wbuf *w)
{
	xp_wbuf_write(w, XP_LLVM_TEXT_KEYWORD " 1\n",
	              sizeof XP_LLVM_TEXT_KEYWORD + 2);
	return xp_llvm_write_proftext(m, w);
}
