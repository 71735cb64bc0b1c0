/*
 * export/xs.c - building the samples and arcs that the exports are
 * written from (xs.h), and the one public entry of the exports: a
 * profile's module (or the feedback core) builds them, and the writer of
 * the kind asked for writes them.
 */
#include "export/xs.h"
#include "registry/module.h"

void xp_xs_free(xp_xs *x)
{
	xp_strpool_free(&x->sp);
	XP_FREE(x->ln, x->loc, x->stk, x->s, x->arc, x->map, x->locmap);
	memset(x, 0, sizeof *x);
}

xp_err xp_xs_str(xp_xs *x, const char *s, uint32_t *id)
{
	if (s == NULL) {
		*id = XP_XS_NONE;
		return XP_E_OK;
	}
	return xp_strpool_intern(&x->sp, s, strlen(s), id);
}

void xp_xs_type(xp_xs *x, unsigned i, const char *type, const char *unit,
                const char *event)
{
	x->vtype[i] = type;
	x->vunit[i] = unit;
	x->vevent[i] = event;
	if (i >= x->nv)
		x->nv = i + 1;
}

xp_err xp_xs_loc_add(xp_xs *x, uint64_t addr, uint32_t obj,
                     const xp_xs_line *lines, size_t n, size_t *out)
{
	xp_err err;

	if ((err = xp_grow(&x->loc, &x->loccap, x->nloc, sizeof *x->loc)) != 0)
		return err;
	for (size_t i = 0; i < n; i++) {
		if ((err = xp_grow(&x->ln, &x->lncap, x->nln, sizeof *x->ln)) != 0)
			return err;
		x->ln[x->nln++] = lines[i];
	}
	x->loc[x->nloc] = (xp_xs_loc){addr, obj, x->nln - n, n};
	*out = x->nloc++;
	return XP_E_OK;
}

xp_err xp_xs_func(xp_xs *x, const char *name, const char *file,
                  uint32_t line, const char *obj, size_t *out)
{
	xp_xs_line l = {0, XP_XS_NONE, 0, line};
	uint32_t o;
	xp_err err;

	if ((err = xp_xs_str(x, name, &l.name)) != XP_E_OK ||
	    (err = xp_xs_str(x, file, &l.file)) != XP_E_OK ||
	    (err = xp_xs_str(x, obj, &o)) != XP_E_OK)
		return err;
	return xp_xs_loc_add(x, 0, o, &l, 1, out);
}

xp_err xp_xs_sample_add(xp_xs *x, const size_t *locs, size_t n,
                        const uint64_t *v)
{
	xp_err err;

	/* stk exists even when every stack is empty. */
	if ((err = xp_grow(&x->s, &x->scap, x->ns, sizeof *x->s)) != 0 ||
	    (err = xp_grow(&x->stk, &x->stkcap, x->nstk,
	                      sizeof *x->stk)) != 0)
		return err;
	for (size_t i = 0; i < n; i++) {
		if ((err = xp_grow(&x->stk, &x->stkcap, x->nstk,
		                sizeof *x->stk)) != 0)
			return err;
		x->stk[x->nstk++] = locs[i];
	}
	xp_xs_sample *s = &x->s[x->ns++];
	memset(s, 0, sizeof *s);
	s->first = x->nstk - n;
	s->n = n;
	memcpy(s->v, v, x->nv * sizeof *v);
	return XP_E_OK;
}

xp_err xp_xs_arc_add(xp_xs *x, size_t caller, size_t callee,
                     uint64_t calls, const uint64_t *v)
{
	xp_err err;

	if ((err = xp_grow(&x->arc, &x->arccap, x->narc, sizeof *x->arc)) != 0)
		return err;
	xp_xs_arc *a = &x->arc[x->narc++];
	memset(a, 0, sizeof *a);
	a->caller = caller;
	a->callee = callee;
	a->calls = calls;
	memcpy(a->v, v, x->nv * sizeof *v);
	return XP_E_OK;
}

xp_err xp_xs_map_add(xp_xs *x, uint64_t start, uint64_t limit,
                     uint64_t offset, const char *file, size_t *out)
{
	uint32_t f;
	xp_err err;

	if ((err = xp_grow(&x->map, &x->mapcap, x->nmap, sizeof *x->map)) != 0 ||
	    (err = xp_xs_str(x, file, &f)) != XP_E_OK)
		return err;
	x->map[x->nmap] = (xp_xs_map){start, limit, offset, f};
	*out = x->nmap++;
	return XP_E_OK;
}

xp_err xp_xs_loc_map(xp_xs *x, size_t loc, size_t m)
{
	if (x->locmap == NULL) {
		x->locmap = calloc(x->nloc ? x->nloc : 1, sizeof *x->locmap);
		if (x->locmap == NULL)
			return XP_E_NOMEM;
	}
	x->locmap[loc] = m + 1;
	return XP_E_OK;
}

typedef struct {
	double frac;
	size_t i;
} remainder;

static int by_remainder(const void *a, const void *b)
{
	const remainder *x = a, *y = b;
	if (x->frac != y->frac)
		return x->frac > y->frac ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

xp_err xp_xs_round(const double *w, size_t n, uint64_t *out)
{
	remainder *r = malloc((n ? n : 1) * sizeof *r);
	double sum = 0, floors = 0;

	if (r == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		/* floor of a share that is never negative */
		double f = w[i] >= 18446744073709551615.0 ? 18446744073709551615.0
		           : w[i] > 0 ? (double)(uint64_t)w[i] : 0;
		out[i] = f >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)f;
		r[i] = (remainder){w[i] - f, i};
		sum += w[i];
		floors += f;
	}
	xp_qsort(r, n, sizeof *r, by_remainder);
	double left = (sum + 0.5 >= 18446744073709551615.0 ? sum
	               : (double)(uint64_t)(sum + 0.5)) - floors;
	for (size_t k = 0; k < n && left >= 1; k++, left -= 1)
		out[r[k].i]++;
	free(r);
	return XP_E_OK;
}

int xp_export_parse(const char *name, xp_export_kind *k)
{
	static const struct { const char *name; xp_export_kind k; } kinds[] = {
		{"folded", XP_EXPORT_FOLDED}, {"callgrind", XP_EXPORT_CALLGRIND},
		{"pprof", XP_EXPORT_PPROF}
	};

	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(name, kinds[i].name) == 0) {
			*k = kinds[i].k;
			return 0;
		}
	return -1;
}

/* Writes x as k to fd. */
static xp_err write_xs(const xp_xs *x, xp_export_kind k, const char *name,
                       int fd, xp_diags *d)
{
	xp_wbuf w;
	xp_err err = xp_wbuf_init_mem(&w);

	if (err != XP_E_OK)
		return err;
	err = k == XP_EXPORT_FOLDED ? xp_xs_folded(x, name, &w, d)
	    : k == XP_EXPORT_CALLGRIND ? xp_xs_callgrind(x, name, &w, d)
	    : xp_xs_pprof(x, name, &w, d);
	unsigned char *mem = NULL;
	size_t len = 0;
	if (err != XP_E_OK) {
		xp_wbuf_discard(&w);
		return err;
	}
	if ((err = xp_wbuf_close(&w, &mem, &len)) != XP_E_OK)
		return err;
	/* Computed whole: now to the file. */
	if ((err = xp_wbuf_init_fd(&w, fd)) == XP_E_OK) {
		xp_wbuf_write(&w, mem, len);
		err = xp_wbuf_close(&w, NULL, NULL);
	}
	free(mem);
	return err;
}

xp_err xp_prof_export_fd(const xp_prof *p, xp_export_kind k,
                         const xp_export_opts *o, const char *name, int fd,
                         xp_diags *d)
{
	static const xp_export_opts none;
	const xp_module *mod = xp_module_of(xp_prof_format(p));
	xp_xs x = {0};
	xp_err err;

	if (o == NULL)
		o = &none;
	/* Formats with no stacks or call graph (LLVM profiles) have none. */
	if (mod->export == NULL)
		return xp_diag_file(d, XP_E_INVAL, name, "%s has no call stacks "
		                    "or call graph to export",
		                    xp_format_a(mod->fmt));
	if (o->counts && !(mod->report_takes & XP_REPORT_COUNTS))
		return xp_diag_file(d, XP_E_INVAL, name, "%s has no allocation "
		                    "counts", xp_format_a(mod->fmt));
	err = mod->export(xp_prof_model(p), k, o, name, &x, d);
	if (err == XP_E_OK)
		err = write_xs(&x, k, name, fd, d);
	xp_xs_free(&x);
	return err;
}

xp_err xp_fb_export_fd(const xp_fb *fb, xp_export_kind k,
                       const xp_export_opts *o, const char *name, int fd,
                       xp_diags *d)
{
	xp_xs x = {0};
	xp_err err = XP_E_OK;

	if (o != NULL && o->counts)
		err = xp_diag_file(d, XP_E_INVAL, name, "a feedback profile has "
		                   "no allocation counts");
	if (err == XP_E_OK)
		err = xp_fb_export(fb, "count", "count", "Count", &x);
	if (err == XP_E_OK)
		err = write_xs(&x, k, name, fd, d);
	xp_xs_free(&x);
	return err;
}
