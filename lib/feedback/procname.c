/*
 * feedback/procname.c - the names that the conversions from other profile
 * formats give to procedures (xprof_text(5), NAMES FROM OTHER FORMATS).
 *
 * A procedure is named in feedback by its linker symbol name, the name a
 * compiler matches feedback by.  Names that come from elsewhere (a file
 * and an offset, a Java method, a name an mpatrol profile holds) may hold
 * bytes that a procedure name cannot: blanks end a field of the text, and
 * ':' splits a <proc_name>:<objfile> pair.  Those bytes, and '%' itself,
 * are written as '%' and two upper-case hex digits, as in a URL: the
 * escape is one to one, so distinct names stay distinct, and a name
 * without those bytes (every C, C++ or Rust linker name) stays as it is.
 *
 * Procedure names are unique in an object file, but linker names need
 * not be: local functions of two source files may share one.  All but
 * the first by address of the functions of one name are then called
 * name@0x<address> (xp_fb_names_apart).
 */
#include <inttypes.h>
#include <stdio.h>

#include "base/internal.h"

/* Whether byte c of a procedure name is written escaped. */
static int escaped(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ':' ||
	       c == '%';
}

char *xp_fb_proc_escape(const char *name)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t len = strlen(name), extra = 0;
	char *buf;

	for (size_t i = 0; i < len; i++)
		extra += escaped((unsigned char)name[i]) ? 2 : 0;
	if ((buf = malloc(len + extra + 1)) == NULL)
		return NULL;
	for (size_t i = 0, k = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];
		if (escaped(c)) {
			buf[k++] = '%';
			buf[k++] = hex[c >> 4];
			buf[k++] = hex[c & 15];
		} else {
			buf[k++] = (char)c;
		}
	}
	buf[len + extra] = 0;
	return buf;
}

xp_err xp_fbb_intern_proc(xp_fbb *b, const char *name, xp_str *out)
{
	const char *c = name;
	char *buf;
	xp_err err;

	/* Most names need no escape: no copy then. */
	while (*c != '\0' && !escaped((unsigned char)*c))
		c++;
	if (*c == '\0')
		return xp_fbb_intern(b, name, strlen(name), out);
	if ((buf = xp_fb_proc_escape(name)) == NULL)
		return XP_E_NOMEM;
	err = xp_fbb_intern(b, buf, strlen(buf), out);
	free(buf);
	return err;
}

char *xp_fb_name_at(const char *name, uint64_t addr)
{
	size_t need = strlen(name) + 24;
	char *s = malloc(need);

	if (s != NULL)
		snprintf(s, need, "%s@0x%" PRIx64, name, addr);
	return s;
}

typedef struct {
	const char *name;
	uint64_t addr;
	size_t i;
} named;

static int cmp_named(const void *x, const void *y)
{
	const named *a = x, *b = y;
	int c = strcmp(a->name, b->name);

	if (c != 0)
		return c;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

xp_err xp_fb_names_apart(const char *const *names, const uint64_t *addrs,
                         size_t n, char **out)
{
	named *v = malloc((n ? n : 1) * sizeof *v);

	if (v == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		v[i] = (named){names[i], addrs[i], i};
		out[i] = NULL;
	}
	xp_qsort(v, n, sizeof *v, cmp_named);
	for (size_t i = 1; i < n; i++) {
		if (strcmp(v[i].name, v[i - 1].name) != 0)
			continue;
		if ((out[v[i].i] = xp_fb_name_at(v[i].name, v[i].addr)) ==
		    NULL) {
			for (size_t k = 0; k < n; k++) {
				free(out[k]);
				out[k] = NULL;
			}
			free(v);
			return XP_E_NOMEM;
		}
	}
	free(v);
	return XP_E_OK;
}
