/*
 * export/folded.c - Brendan Gregg's folded stacks: one line per distinct
 * call stack, its functions from the outermost to the leaf joined by
 * ';', a space and the stack's value ("main;fib;fib 42"), as
 * flamegraph.pl, speedscope, inferno and Perfetto read them and as
 * google-pprof --collapsed writes them.
 *
 * Stacks are told apart by their locations, as google-pprof tells them
 * apart by addresses, so two stacks of different addresses in the same
 * functions give two lines with the same names (every reader adds them
 * up).  A location's inlined calls come after the function that holds
 * them, each with "[inline]" after its name.  Lines with the value 0 are
 * left out; the lines come in the byte order of their text (what
 * LC_ALL=C sort gives), so the same profile always gives the same bytes.
 */
#include <inttypes.h>
#include <stdio.h>

#include "export/xs.h"

typedef struct {
	const size_t *stk;
	size_t n;
	uint64_t v;
} stack;

static int by_stack(const void *a, const void *b)
{
	const stack *x = a, *y = b;

	for (size_t i = 0; i < x->n && i < y->n; i++)
		if (x->stk[i] != y->stk[i])
			return x->stk[i] < y->stk[i] ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

typedef struct {
	const unsigned char *p;
	size_t len;
} line;

static int by_bytes(const void *a, const void *b)
{
	const line *x = a, *y = b;

	/* Without the newline, as sort(1) compares lines. */
	return xp_bytecmp(x->p, x->len - 1, y->p, y->len - 1);
}

/* Appends the folded line of s to b. */
static xp_err fold(const xp_xs *x, const stack *s, xp_buf *b)
{
	char num[32];
	int sep = 0;

	for (size_t k = s->n; k-- > 0;) {
		const xp_xs_loc *l = &x->loc[s->stk[k]];
		for (size_t j = l->n; j-- > 0;) {
			const xp_xs_line *ln = &x->ln[l->first + j];
			const char *nm = xp_xs_s(x, ln->full != XP_XS_NONE
			                            ? ln->full : ln->name);
			if ((sep && xp_buf_append(b, ";", 1)) ||
			    xp_buf_append(b, nm, strlen(nm)) ||
			    (j + 1 < l->n &&
			     xp_buf_append(b, "[inline]", 8)))
				return XP_E_NOMEM;
			sep = 1;
		}
	}
	int n = snprintf(num, sizeof num, " %" PRIu64 "\n", s->v);
	return xp_buf_append(b, num, (size_t)n) ? XP_E_NOMEM : XP_E_OK;
}

xp_err xp_xs_no_stacks(const char *what, const char *name, xp_diags *d)
{
	return xp_diag_file(d, XP_E_INVAL, name, "%s has no call stacks to "
	                    "fold", what);
}

xp_err xp_xs_folded(const xp_xs *x, const char *name, xp_wbuf *w,
                    xp_diags *d)
{
	stack *st;
	line *ln = NULL;
	size_t n = 0, nl = 0;
	size_t *off = NULL;
	xp_buf b = {0};
	xp_err err = XP_E_NOMEM;

	if (!x->stacks)
		return xp_xs_no_stacks(x->what, name, d);
	if ((st = malloc((x->ns ? x->ns : 1) * sizeof *st)) == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < x->ns; i++)
		st[i] = (stack){x->stk + x->s[i].first, x->s[i].n,
		                x->s[i].v[x->main]};
	xp_qsort(st, x->ns, sizeof *st, by_stack);
	for (size_t i = 0; i < x->ns; i++) {
		if (n > 0 && by_stack(&st[n - 1], &st[i]) == 0)
			st[n - 1].v = xp_sat_add(st[n - 1].v, st[i].v);
		else
			st[n++] = st[i];
	}
	if ((off = malloc((n + 1) * sizeof *off)) == NULL ||
	    (ln = malloc((n ? n : 1) * sizeof *ln)) == NULL)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (st[i].v == 0)
			continue;
		off[nl++] = b.len;
		if ((err = fold(x, &st[i], &b)) != XP_E_OK)
			goto out;
	}
	off[nl] = b.len;
	for (size_t i = 0; i < nl; i++)
		ln[i] = (line){b.p + off[i], off[i + 1] - off[i]};
	xp_qsort(ln, nl, sizeof *ln, by_bytes);
	for (size_t i = 0; i < nl; i++)
		xp_wbuf_write(w, ln[i].p, ln[i].len);
	err = XP_E_OK;
out:
	XP_FREE(st, ln, off);
	xp_buf_free(&b);
	return err;
}
