/*
 * gcov/feedback.c - GCC coverage files as feedback (xp_prof_to_feedback,
 * gcov(5), CONVERSION TO FEEDBACK): the flow graphs of the notes with the
 * counts of the data, solved as gcov(1) solves them (graph.c), with
 * gcov's line counts in the source file sections.
 *
 * One OBJFILE, named as the data file was given (or as the caller says),
 * whose signature is the compilation's stamp.  Per function of the
 * notes, in their order, a PROC (proc id from 1) named by its linker
 * name, whose signature is its line-number checksum (high 32 bits) and
 * CFG checksum, with
 *   counters 1 .. k: the arc counters of the data, in the order of the
 *     notes (by source block, then as the ARCS record lists them);
 *   blocks 1 .. n: GCC's blocks 0 .. n - 1 (1 is the entry, 2 the exit),
 *     without counters;
 *   edges 1 .. m: the arcs in that order, from and to those blocks,
 *     counted by their counter, or by counter 0 on the spanning tree;
 *   blocks n + 1 ..: one per source line whose count the function gives
 *     (each line goes to the first function, in notes order, with a
 *     block on it), not on any edge;
 *   tuples: block 1 at the function's start line and column, and each
 *     line block at its line.
 * A SRCFILE section per source file: each line with gcov's count on its
 * line block, and at the start of each function (line and column) its
 * entry block with its calls.  xprof_tcov's rules then give every line
 * gcov's count and every function gcov's execution count.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gcov/gcov.h"

/* A line of a SRCFILE section: block blk of function fn, count. */
typedef struct {
	size_t src;
	uint32_t line, col;
	uint32_t fn, blk;
	uint64_t count;
} fref;

typedef struct {
	const xp_gcov_graph *gr;
	xp_fbb *b;
	xp_str obj;
	fref *refs;
	size_t n_refs;
	uint32_t *lb0;      /* per function: its first line block's index
	                       in refs (sorted by function) */
} fconv;

static uint64_t nonneg(int64_t v)
{
	return v < 0 ? 0 : (uint64_t)v;
}

static int cmp_by_fn(const void *l, const void *r)
{
	const fref *a = l, *b = r;
	if (a->fn != b->fn)
		return a->fn < b->fn ? -1 : 1;
	if (a->src != b->src)
		return a->src < b->src ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

static int cmp_by_src(const void *l, const void *r)
{
	const fref *a = l, *b = r;
	if (a->src != b->src)
		return a->src < b->src ? -1 : 1;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->col != b->col)
		return a->col < b->col ? -1 : 1;
	if (a->fn != b->fn)
		return a->fn < b->fn ? -1 : 1;
	return a->blk < b->blk ? -1 : a->blk > b->blk;
}

/* The line refs (block ids given per function after its blocks), then
 * the entry refs. */
static xp_err gather(fconv *c)
{
	const xp_gcov_graph *gr = c->gr;
	size_t n = gr->n_fns;

	for (size_t s = 0; s < gr->n_srcs; s++)
		for (size_t l = 0; l < gr->srcs[s].n_lines; l++)
			n += gr->srcs[s].lines[l].exists;
	c->refs = calloc(n + 1, sizeof *c->refs);
	c->lb0 = calloc(gr->n_fns + 1, sizeof *c->lb0);
	if (c->refs == NULL || c->lb0 == NULL)
		return XP_E_NOMEM;
	for (size_t s = 0; s < gr->n_srcs; s++)
		for (size_t l = 0; l < gr->srcs[s].n_lines; l++) {
			const xp_gcov_line *ln = &gr->srcs[s].lines[l];
			fref *r = &c->refs[c->n_refs];
			if (!ln->exists)
				continue;
			r->src = s;
			r->line = (uint32_t)l;
			r->fn = ln->owner - 1;
			r->count = nonneg(ln->count);
			c->n_refs++;
		}
	xp_qsort(c->refs, c->n_refs, sizeof *c->refs, cmp_by_fn);
	for (size_t i = 0, k = 0; i < gr->n_fns; i++) {
		c->lb0[i] = (uint32_t)k;
		for (uint32_t id = gr->fns[i].nb + 1;
		     k < c->n_refs && c->refs[k].fn == i; k++)
			c->refs[k].blk = id++;
	}
	c->lb0[gr->n_fns] = (uint32_t)c->n_refs;
	return XP_E_OK;
}

/* Adds the entry refs to the line refs. */
static void gather_entries(fconv *c)
{
	const xp_gcov_graph *gr = c->gr;

	for (size_t i = 0; i < gr->n_fns; i++) {
		const xp_gcov_gfn *f = &gr->fns[i];
		fref *r = &c->refs[c->n_refs];
		if (!f->lines || f->nb == 0 || f->fn->start_line == 0)
			continue;
		r->src = f->src;
		r->line = f->fn->start_line;
		/* A column, so that the line's own block leads the line. */
		r->col = f->fn->start_column > 0 ? f->fn->start_column : 1;
		r->fn = (uint32_t)i;
		r->blk = 1;
		r->count = nonneg(f->blk[0].count);
		c->n_refs++;
	}
}

/* A tuple of block blk at line and column of source s. */
static xp_err add_tuple(fconv *c, uint32_t id, uint32_t blk, size_t s,
                        uint32_t line, uint32_t col)
{
	const char *name = c->gr->srcs[s].name;
	xp_tuple t = { id, blk, line, col, XP_NOSTR };
	xp_err err;

	if ((err = xp_fbb_intern(c->b, name, strlen(name), &t.srcfile)))
		return err;
	return xp_fbb_add_tuple(c->b, &t);
}

/* The name of function i's procedure. */
static xp_err proc_name(fconv *c, size_t i, xp_str *out)
{
	char buf[32];

	return xp_fbb_intern_proc(c->b, xp_gcov_fn_name(c->gr->fns[i].fn, buf),
	                          out);
}

/* The procedure of function i. */
static xp_err add_proc(fconv *c, size_t i)
{
	const xp_gcov_gfn *f = &c->gr->fns[i];
	const fref *lr = c->refs + c->lb0[i];
	uint32_t nl = c->lb0[i + 1] - c->lb0[i], tid = 0;
	int entry = f->lines && f->nb > 0 && f->fn->start_line > 0;
	xp_proc p;
	xp_err err;

	memset(&p, 0, sizeof p);
	if ((err = proc_name(c, i, &p.name)))
		return err;
	p.signature = (uint64_t)f->fn->lineno_checksum << 32 |
	              f->fn->cfg_checksum;
	p.proc_id = (uint32_t)i + 1;
	p.n_srcmap_ops = nl + (uint32_t)entry;
	if ((err = xp_fbb_begin_proc(c->b, &p)))
		return err;
	for (size_t k = 0; k < f->na; k++)
		if (f->arc[k].counter != 0 &&
		    (err = xp_fbb_add_counter(c->b, f->arc[k].counter,
		                              (uint64_t)f->arc[k].count)))
			return err;
	for (uint32_t b = 1; b <= f->nb + nl; b++)
		if ((err = xp_fbb_add_block(c->b, b, 0)))
			return err;
	for (size_t k = 0; k < f->na; k++) {
		xp_edge e = { (uint32_t)k + 1, f->arc[k].counter,
		              f->arc[k].src + 1, f->arc[k].dst + 1 };
		if ((err = xp_fbb_add_edge(c->b, &e)))
			return err;
	}
	if (entry && (err = add_tuple(c, ++tid, 1, f->src, f->fn->start_line,
	                              f->fn->start_column)))
		return err;
	for (uint32_t k = 0; k < nl; k++)
		if ((err = add_tuple(c, ++tid, lr[k].blk, lr[k].src,
		                     lr[k].line, 0)))
			return err;
	return XP_E_OK;
}

/* One SRCFILE section per source file with lines. */
static xp_err add_srcfiles(fconv *c)
{
	const fref *r = c->refs;
	xp_err err;

	xp_qsort(c->refs, c->n_refs, sizeof *c->refs, cmp_by_src);
	for (size_t i = 0; i < c->n_refs; i++) {
		xp_blockref br;
		if (i == 0 || r[i].src != r[i - 1].src) {
			const char *name = c->gr->srcs[r[i].src].name;
			xp_str path;
			if ((err = xp_fbb_intern(c->b, name, strlen(name),
			                         &path)) ||
			    (err = xp_fbb_begin_srcfile(c->b, path)))
				return err;
		}
		if ((i == 0 || r[i].src != r[i - 1].src ||
		     r[i].line != r[i - 1].line || r[i].col != r[i - 1].col) &&
		    (err = xp_fbb_begin_srcline(c->b, r[i].line, r[i].col)))
			return err;
		br.block = r[i].blk;
		br.count = r[i].count;
		br.objfile = c->obj;
		if ((err = proc_name(c, r[i].fn, &br.proc)) ||
		    (err = xp_fbb_add_blockref(c->b, &br)))
			return err;
	}
	return XP_E_OK;
}

/* The feedback of a solved graph, its object file named objname. */
static xp_err build(const xp_gcov_graph *gr, const char *objname,
                    xp_fb **out, xp_diags *d)
{
	fconv c;
	xp_objfile of;
	xp_err err;

	memset(&c, 0, sizeof c);
	c.gr = gr;
	if ((c.b = xp_fbb_new(XP_DT_FEEDBACK, 4, (uint32_t)gr->n_fns)) == NULL)
		return XP_E_NOMEM;
	xp_fbb_set_diags(c.b, d);
	memset(&of, 0, sizeof of);
	of.signature = gr->notes->stamp;
	if ((err = gather(&c)) ||
	    (err = xp_fbb_intern(c.b, objname, strlen(objname), &c.obj)))
		goto done;
	of.path = c.obj;
	if ((err = xp_fbb_begin_objfile(c.b, &of)))
		goto done;
	for (size_t i = 0; i < gr->n_fns; i++)
		if ((err = add_proc(&c, i)))
			goto done;
	gather_entries(&c);
	if ((err = add_srcfiles(&c)))
		goto done;
	err = xp_fbb_finish(c.b, out);
done:
	xp_fbb_free(c.b);
	XP_FREE(c.refs, c.lb0);
	return err;
}

/* ------------------------------------------------------------------ */
/* Finding the other file                                              */
/* ------------------------------------------------------------------ */

const char *xp_gcov_fn_name(const xp_gcov_fn *fn, char buf[32])
{
	if (fn->name != NULL && fn->name[0] != '\0')
		return fn->name;
	snprintf(buf, 32, "ident.%u", fn->ident);
	return buf;
}

/* dir/base, malloc'd; NULL when out of memory. */
static char *in_dir(const char *dir, const char *base)
{
	size_t n = strlen(dir) + strlen(base) + 2;
	char *s = malloc(n);

	if (s != NULL)
		snprintf(s, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? ""
		                                                          : "/",
		         base);
	return s;
}

xp_err xp_gcov_find_notes(const char *dpath, const char *where, int rel,
                          char **out, xp_diags *d)
{
	struct stat st;
	char *sib, *base;

	*out = NULL;
	if (where != NULL && (stat(where, &st) != 0 || !S_ISDIR(st.st_mode)))
		return (*out = strdup(where)) != NULL ? XP_E_OK : XP_E_NOMEM;
	if (strlen(dpath) < 5 || strcmp(dpath + strlen(dpath) - 5, ".gcda"))
		return xp_diag_file(d, XP_E_INVAL, dpath, "its name does not end "
		                    "in .gcda: say where its notes are (-e)");
	if ((sib = xp_gcov_sibling(dpath, XP_GCOV_NOTES)) == NULL)
		return XP_E_NOMEM;
	if (where == NULL) {
		*out = sib;
		return XP_E_OK;
	}
	if (rel && sib[0] != '/') {
		if ((*out = in_dir(where, sib)) != NULL &&
		    access(*out, F_OK) == 0) {
			free(sib);
			return XP_E_OK;
		}
		free(*out);
	}
	base = strrchr(sib, '/') != NULL ? strrchr(sib, '/') + 1 : sib;
	*out = in_dir(where, base);
	free(sib);
	return *out != NULL ? XP_E_OK : XP_E_NOMEM;
}

xp_err xp_gcov_open_kind(const char *path, xp_gcov_kind want, xp_prof **p,
                         const xp_gcov **g, xp_diags *d)
{
	xp_err err = xp_prof_open(path, NULL, p, d);

	if (err != XP_E_OK)
		return err;
	*g = xp_prof_model(*p);
	if (xp_prof_format(*p) != XP_FMT_GCOV || (*g)->kind != want)
		return xp_diag_file(d, XP_E_INVAL, path, "not a GCC %s file",
		                    want == XP_GCOV_NOTES ? "notes (.gcno)"
		                                          : "data (.gcda)");
	return XP_E_OK;
}

/*
 * The module's conversion entry.  Data: the notes are where o->exe says
 * or beside it.  Notes: the data beside them when there is such a file;
 * without one every count is zero, as gcov reports notes without data.
 */
xp_err xp_gcov_to_feedback(const void *m, const xp_conv_opts *o,
                           xp_fb **out, xp_diags *d)
{
	const xp_gcov *g = m, *other = NULL, *notes, *data;
	const char *name = g->path != NULL ? g->path : "<gcov>";
	char *path = NULL;
	xp_prof *p = NULL;
	xp_gcov_graph *gr = NULL;
	xp_err err;

	*out = NULL;
	err = XP_E_OK;
	if (g->kind == XP_GCOV_DATA)
		err = xp_gcov_find_notes(name, o->exe, 0, &path, d);
	else
		path = xp_gcov_sibling(name, XP_GCOV_DATA);
	if (err == XP_E_OK && path != NULL &&
	    (g->kind == XP_GCOV_DATA || access(path, F_OK) == 0))
		err = xp_gcov_open_kind(path, !g->kind, &p, &other, d);
	if (err != XP_E_OK)
		goto done;
	notes = g->kind == XP_GCOV_NOTES ? g : other;
	data = g->kind == XP_GCOV_DATA ? g : other;
	if (data != NULL && data->stamp != notes->stamp) {
		err = xp_diag_file(d, XP_E_INVAL, data == g ? name : path,
		                   "stamp 0x%08x: its notes %s have 0x%08x: not "
		                   "the same compilation", data->stamp,
		                   notes == g ? name : path, notes->stamp);
		goto done;
	}
	if ((err = xp_gcov_graph_new(notes, data, notes == g ? name : path,
	                             data == g ? name : path, &gr, d)) ||
	    (err = build(gr, o->name != NULL ? o->name : name, out, d)))
		goto done;
done:
	xp_gcov_graph_free(gr);
	xp_prof_free(p);
	free(path);
	return err;
}
