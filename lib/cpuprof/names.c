/*
 * cpuprof/names.c - the names google-pprof gives to PCs (cpuprofile(5),
 * REPORTS): its table of routines built from `nm -n --demangle`, its
 * lookup of a PC in that table, and its ShortFunctionName.
 *
 * The routine table follows pprof's reading of nm's lines: every symbol
 * that nm lists (any class) ends the routine before it; of several
 * symbols at one address the first in nm's order names the routine,
 * unless a later one is a text symbol ('t' or 'T'), which then names it
 * without the "<address>" tag that pprof otherwise appends.  pprof keys
 * its table by that name, so a routine whose name comes again later is
 * replaced by the later one.  The last symbol's routine is empty.
 * A "_fini" that starts a routine of its own tells whether pprof asks
 * addr2line for inlined calls (xp_cp_names.inlines).
 */
#include <stdio.h>

#include "cpuprof/cpuprof.h"

/* One routine while the table is built. */
typedef struct {
	char *name;
	uint64_t start, end;
	size_t seq;            /* order of insertion */
} routine;

void xp_cp_names_free(xp_cp_names *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->r[i].name);
	free(t->r);
	t->r = NULL;
	t->n = 0;
}

static int by_name_seq(const void *a, const void *b)
{
	const routine *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c != 0)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int by_start(const void *a, const void *b)
{
	const xp_cp_routine *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static xp_err add(routine **v, size_t *n, size_t *cap, char *name,
                  uint64_t start, uint64_t end)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		routine *q = realloc(*v, nc * sizeof *q);
		if (q == NULL) {
			free(name);
			return XP_E_NOMEM;
		}
		*v = q;
		*cap = nc;
	}
	(*v)[*n] = (routine){name, start, end, *n};
	(*n)++;
	return XP_E_OK;
}

xp_err xp_cp_names_build(const xp_sym *s, xp_cp_names *t)
{
	routine *v = NULL;
	size_t n = 0, cap = 0, count = xp_sym_count(s);
	int width = (int)xp_sym_addr_bytes(s) * 2;
	char *cur = NULL;           /* the routine being read, or NULL */
	uint64_t last = 0;
	int have_last = 0;
	xp_err err = XP_E_OK;

	t->r = NULL;
	t->n = 0;
	t->inlines = 0;
	for (size_t i = 0; i < count && err == XP_E_OK; i++) {
		const xp_symbol *y = xp_sym_get(s, i);
		int cls;
		char *name = xp_sym_nm_name(s, y, &cls);

		if (name == NULL) {
			if (cls != 0)
				err = XP_E_NOMEM;
			continue;
		}
		if (name[0] == '\0') {  /* pprof's pattern needs a name */
			free(name);
			continue;
		}
		if (have_last && y->addr == last) {
			if (cls == 't' || cls == 'T') {
				free(cur);
				cur = name;
			} else {
				free(name);
			}
			continue;
		}
		if (strcmp(name, "_fini") == 0)
			t->inlines = 1;
		size_t len = strlen(name) + (size_t)width + 3;
		char *tagged = malloc(len);
		if (tagged == NULL) {
			free(name);
			err = XP_E_NOMEM;
			break;
		}
		snprintf(tagged, len, "%s<%0*llx>", name, width,
		         (unsigned long long)y->addr);
		free(name);
		if (cur != NULL)
			err = add(&v, &n, &cap, cur, last, y->addr);
		cur = tagged;
		last = y->addr;
		have_last = 1;
	}
	if (err == XP_E_OK && cur != NULL) {
		err = add(&v, &n, &cap, cur, last, last);
		cur = NULL;
	}
	free(cur);
	if (err != XP_E_OK) {
		for (size_t i = 0; i < n; i++)
			free(v[i].name);
		free(v);
		return err;
	}
	/* One routine per name: the last one read. */
	xp_qsort(v, n, sizeof *v, by_name_seq);
	t->r = calloc(n + 1, sizeof *t->r);
	if (t->r == NULL) {
		for (size_t i = 0; i < n; i++)
			free(v[i].name);
		free(v);
		return XP_E_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && strcmp(v[i].name, v[i + 1].name) == 0) {
			free(v[i].name);
			continue;
		}
		t->r[t->n++] = (xp_cp_routine){v[i].name, v[i].start, v[i].end};
	}
	free(v);
	xp_qsort(t->r, t->n, sizeof *t->r, by_start);
	return XP_E_OK;
}

/*
 * pprof's MapSymbolsWithNM: the first routine (by start) whose end is
 * above pc, if any; pprof does not check the start, so a PC below a
 * routine but above the previous one's end is given to it.
 */
const char *xp_cp_names_find(const xp_cp_names *t, uint64_t pc)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->r[mid].end > pc)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo < t->n ? t->r[lo].name : NULL;
}

/* Removes [from, to) of s (NUL-terminated, in place). */
static void cut(char *s, size_t from, size_t to)
{
	memmove(s + from, s + to, strlen(s + to) + 1);
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	       c == '\v';
}

/*
 * One pass of s/<[^<>]*>//g (open '<', close '>'), or with with_const
 * of s/\([^()]*\)(\s*const)?//g; 1 when something went.
 */
static int cut_groups(char *s, char open, char close, int with_const)
{
	int any = 0;
	size_t i = 0;

	while (s[i] != '\0') {
		size_t j;
		if (s[i] != open) {
			i++;
			continue;
		}
		for (j = i + 1; s[j] != '\0' && s[j] != open && s[j] != close;
		     j++)
			;
		if (s[j] == '\0')
			break;
		if (s[j] == open) {
			i = j;
			continue;
		}
		j++;
		if (with_const) {
			size_t k = j;
			while (is_space(s[k]))
				k++;
			if (strncmp(s + k, "const", 5) == 0)
				j = k + 5;
		}
		cut(s, i, j);
		any = 1;
	}
	return any;
}

static int is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

char *xp_cp_short_name(const char *full)
{
	char *s = strdup(full);
	size_t n;

	if (s == NULL)
		return NULL;
	while (cut_groups(s, '(', ')', 1))
		;
	/* s/<[0-9a-f]*>$//: the address tag of the routine table. */
	n = strlen(s);
	if (n > 0 && s[n - 1] == '>') {
		size_t i = n - 1;
		while (i > 0 && ((s[i - 1] >= '0' && s[i - 1] <= '9') ||
		                 (s[i - 1] >= 'a' && s[i - 1] <= 'f')))
			i--;
		if (i > 0 && s[i - 1] == '<')
			s[i - 1] = '\0';
	}
	while (cut_groups(s, '<', '>', 0))
		;
	/* s/^.*\s+(\w+::)/$1/: from the last blank run that a word and
	 * "::" follow. */
	n = strlen(s);
	for (size_t i = n; i-- > 0;) {
		size_t w;
		if (!is_space(s[i]) || !is_word(s[i + 1]))
			continue;
		w = i + 1;
		while (is_word(s[w]))
			w++;
		if (s[w] == ':' && s[w + 1] == ':') {
			cut(s, 0, i + 1);
			break;
		}
	}
	return s;
}
