/*
 * symbolize/functions.c - the functions of an executable's text, as the
 * conversions to feedback list them (never-run functions included), over
 * the symbols that symbolize.c reads with libbfd.
 *
 * The rule: one function per address at which the symbol table has a
 * function symbol (STT_FUNC) defined in a code section, named as
 * xp_sym_lookup() names that address (a global name before a weak one
 * before a local one).  Left out: indirect functions (their symbol is
 * the resolver's), names with a '.' or a '$', which are the pieces and
 * clones a compiler makes of another function (main.cold, f.part.0,
 * f.isra.0, f.constprop.0) and which gcov counts under that function, and
 * what the symbol table does not hold: PLT stubs (libbfd's synthetic
 * symbols), undefined symbols (the functions of other files).
 */
#include "base/internal.h"

static int listed(const xp_symbol *y)
{
	return (y->flags & XP_SYMF_FUNCTION) && (y->flags & XP_SYMF_CODE) &&
	       !(y->flags & (XP_SYMF_DEBUG | XP_SYMF_FILE | XP_SYMF_IFUNC)) &&
	       y->name[0] != '\0' && strpbrk(y->name, ".$") == NULL;
}

xp_err xp_sym_functions(const xp_sym *s, const xp_symbol ***out, size_t *n)
{
	size_t count = xp_sym_count(s), k = 0;
	const xp_symbol **v = calloc(count + 1, sizeof *v);

	*out = NULL;
	*n = 0;
	if (v == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < count; i++) {
		const xp_symbol *y = xp_sym_get(s, i), *f;
		if (!listed(y) || (k > 0 && v[k - 1]->addr == y->addr))
			continue;
		/* The name the address goes by, when it is a function's. */
		f = xp_sym_lookup(s, y->addr);
		if (f != NULL && f->addr == y->addr && listed(f))
			v[k++] = f;
	}
	*out = v;
	*n = k;
	return XP_E_OK;
}
