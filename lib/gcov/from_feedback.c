/*
 * gcov/from_feedback.c - GCC data files from feedback (gcov(5), DATA FROM
 * FEEDBACK; xprof_merge --gcda): the way back from the conversion of
 * feedback.c.
 *
 * An object file that came from a data file holds one PROC per function
 * of the notes, named by its linker name, whose signature is the
 * function's line-number checksum (high 32 bits) and CFG checksum, and
 * whose counters 1 .. k are the arc counters of the data in the order of
 * the notes.  With the notes of the compilation (every function, its
 * ident and checksums, and which arcs have counters) that is everything
 * a data file holds but its value profiles and its number of runs:
 *  - the header: the notes' version and byte order, their stamp (the
 *    object file's signature must be it) and, from GCC 12, the checksum
 *    that GCC gives the program's data (coverage.cc, coverage_finish): a
 *    CRC-32 (polynomial 0x04c11db7, most significant bit first, from 0)
 *    of the ident, line-number and CFG checksums of each function, in
 *    file order;
 *  - the summary: runs 1 and sum_max the largest arc counter, what one
 *    run of a program of this one object leaves;
 *  - per function of the notes, in their order, a FUNCTION record and an
 *    arcs COUNTERS record, without values when they are all zero, as
 *    libgcov writes them; a function without a PROC (one that --sparse
 *    dropped) has counters that are all zero.
 * A PROC whose signature or number of counters is not its function's, or
 * that is no function of the notes, is refused.
 */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gcov/gcov.h"

/* crc32_unsigned of GCC (tree.cc): v's bits into crc, the high one
 * first, polynomial 0x04c11db7. */
static uint32_t crc_word(uint32_t crc, uint32_t v)
{
	for (int i = 0; i < 32; i++, v <<= 1)
		crc = (crc << 1) ^ ((crc ^ v) & 0x80000000u ? 0x04c11db7u : 0);
	return crc;
}

/* A procedure of the object file: its name's string id. */
typedef struct {
	xp_str name;
	uint32_t proc;
	int used;
} pname;

typedef struct {
	const xp_fb *fb;
	const xp_gcov *nt;
	const char *obj;       /* the object file's path */
	const char *nname;     /* the notes' name */
	pname *procs;          /* the object file's procedures, by name */
	size_t n_procs;
	xp_gcov *g;            /* the data */
	uint64_t max;          /* its largest arc counter */
	uint64_t sat;          /* counters kept at the largest value */
	uint32_t crc;
	unsigned char *seen;   /* per counter of a function: its id met */
	xp_diags *d;
} wr;

static int cmp_pname(const void *l, const void *r)
{
	const pname *a = l, *b = r;
	return a->name < b->name ? -1 : a->name > b->name;
}

/* The object file's procedures, sorted by name (string ids sort as the
 * strings do). */
static xp_err list_procs(wr *w, const xp_objfile *of)
{
	if ((w->procs = calloc((size_t)of->n_procs + 1, sizeof *w->procs)) ==
	    NULL)
		return XP_E_NOMEM;
	for (uint32_t i = 0; i < of->n_procs; i++) {
		xp_proc p;
		xp_fb_proc(w->fb, of->first_proc + i, &p);
		w->procs[i].name = p.name;
		w->procs[i].proc = of->first_proc + i;
	}
	w->n_procs = of->n_procs;
	xp_qsort(w->procs, w->n_procs, sizeof *w->procs, cmp_pname);
	return XP_E_OK;
}

/* The procedure of function fn (named name): *out, or NULL. */
static xp_err find_proc(wr *w, const char *name, pname **out)
{
	char *esc = xp_fb_proc_escape(name);
	pname key;

	*out = NULL;
	if (esc == NULL)
		return XP_E_NOMEM;
	key.name = xp_fb_find_str(w->fb, esc, strlen(esc));
	free(esc);
	if (key.name != XP_NOSTR)
		*out = bsearch(&key, w->procs, w->n_procs, sizeof *w->procs,
		               cmp_pname);
	return XP_E_OK;
}

/* The counters of procedure p (of function name, nctr counted arcs)
 * into the nctr values at g->values[at ..]. */
static xp_err take_counters(wr *w, const xp_proc *p, const char *name,
                            const xp_gcov_fn *fn, uint32_t nctr, size_t at)
{
	uint64_t sig = (uint64_t)fn->lineno_checksum << 32 | fn->cfg_checksum;

	if (p->signature != sig)
		return xp_diag_file(w->d, XP_E_INVAL, w->obj, "function '%s': "
		                    "PROC signature 0x%016llx, its notes %s "
		                    "give 0x%016llx: not the same compilation",
		                    name, (unsigned long long)p->signature,
		                    w->nname, (unsigned long long)sig);
	if (p->n_counters != nctr)
		return xp_diag_file(w->d, XP_E_INVAL, w->obj, "function '%s': "
		                    "%u counter%s, its notes %s give %u counted "
		                    "arc%s: not the same compilation", name,
		                    p->n_counters, p->n_counters == 1 ? "" : "s",
		                    w->nname, nctr, nctr == 1 ? "" : "s");
	memset(w->seen, 0, nctr);
	for (uint32_t i = 0; i < nctr; i++) {
		xp_counter c;
		xp_fb_counter(w->fb, p->first_counter + i, &c);
		if (c.id < 1 || c.id > nctr || w->seen[c.id - 1])
			return xp_diag_file(w->d, XP_E_INVAL, w->obj,
			                    "function '%s': counter ids are not 1 "
			                    "to %u", name, nctr);
		w->seen[c.id - 1] = 1;
		if (c.value > (uint64_t)INT64_MAX) {
			c.value = (uint64_t)INT64_MAX;
			w->sat++;
		}
		if (c.value > w->max)
			w->max = c.value;
		w->g->values[at + c.id - 1] = c.value;
	}
	return XP_E_OK;
}

/* The FUNCTION record of fn and its arcs counters (nctr of them). */
static xp_err add_function(wr *w, const xp_gcov_fn *fn, uint32_t nctr)
{
	xp_gcov_fn df;
	xp_gcov_rec rf, rc;
	pname *pn = NULL;
	char buf[32];
	const char *name = xp_gcov_fn_name(fn, buf);
	int nonzero = 0;
	xp_err err;

	memset(&df, 0, sizeof df);
	memset(&rf, 0, sizeof rf);
	memset(&rc, 0, sizeof rc);
	df.ident = fn->ident;
	df.lineno_checksum = fn->lineno_checksum;
	df.cfg_checksum = fn->cfg_checksum;
	rf.type = XP_GCOV_FUNCTION;
	rf.tag = XP_GCOV_TAG_FUNCTION;
	rc.type = XP_GCOV_COUNTERS;
	rc.tag = XP_GCOV_TAG_COUNTER(XP_GCOV_C_ARCS);
	rc.a = XP_GCOV_C_ARCS;
	rc.index = w->g->n_values;
	rc.n = nctr;
	if ((err = xp_gcov_add_fn(w->g, &df, &rf.index)) ||
	    (err = xp_gcov_add_rec(w->g, &rf)) ||
	    (err = find_proc(w, name, &pn)))
		return err;
	for (uint32_t i = 0; i < nctr; i++)
		if ((err = xp_gcov_add_value(w->g, 0)))
			return err;
	if (pn != NULL) {
		xp_proc p;
		xp_fb_proc(w->fb, pn->proc, &p);
		pn->used = 1;
		if ((err = take_counters(w, &p, name, fn, nctr, rc.index)))
			return err;
	}
	for (uint32_t i = 0; i < nctr; i++)
		nonzero |= w->g->values[rc.index + i] != 0;
	/* libgcov writes counters that are all zero without values. */
	if (!nonzero && nctr > 0) {
		w->g->n_values = rc.index;
		rc.zero = 1;
	}
	w->crc = crc_word(crc_word(crc_word(w->crc, fn->ident),
	                           fn->lineno_checksum), fn->cfg_checksum);
	return xp_gcov_add_rec(w->g, &rc);
}

/* Every function of the notes, in their order. */
static xp_err add_functions(wr *w)
{
	const xp_gcov *nt = w->nt;
	uint32_t maxc = 0;
	xp_err err = XP_E_OK;

	/* The most counted arcs of a function, for w->seen. */
	for (size_t i = 0, n = 0; i <= nt->n_recs; i++) {
		const xp_gcov_rec *r = i < nt->n_recs ? &nt->recs[i] : NULL;
		if (r == NULL || r->type == XP_GCOV_FUNCTION) {
			maxc = n > maxc ? (uint32_t)n : maxc;
			n = 0;
		} else if (r->type == XP_GCOV_ARCS) {
			for (size_t k = 0; k < r->n; k++)
				n += !(nt->arcs[r->index + k].flags &
				       XP_GCOV_ARC_ON_TREE);
		}
	}
	if ((w->seen = malloc((size_t)maxc + 1)) == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < nt->n_recs && err == XP_E_OK;) {
		const xp_gcov_rec *r = &nt->recs[i++];
		uint32_t nctr = 0;
		if (r->type != XP_GCOV_FUNCTION)
			continue;
		for (; i < nt->n_recs && nt->recs[i].type != XP_GCOV_FUNCTION;
		     i++)
			for (size_t k = 0; nt->recs[i].type == XP_GCOV_ARCS &&
			                   k < nt->recs[i].n; k++)
				nctr += !(nt->arcs[nt->recs[i].index + k].flags &
				          XP_GCOV_ARC_ON_TREE);
		err = add_function(w, &nt->fns[r->index], nctr);
	}
	return err;
}

/* The header and summary of the data; the summary's sum_max is set at
 * the end. */
static xp_err begin(wr *w)
{
	xp_gcov_rec rs;

	memset(&rs, 0, sizeof rs);
	if ((w->g = xp_gcov_new(XP_GCOV_DATA, w->nt->big, w->nt->version)) ==
	    NULL ||
	    (w->g->path = xp_gcov_strdup(w->g, w->obj, strlen(w->obj))) == NULL)
		return XP_E_NOMEM;
	w->g->stamp = w->nt->stamp;
	rs.type = XP_GCOV_SUMMARY;
	rs.tag = XP_GCOV_TAG_SUMMARY;
	rs.a = 1;
	return xp_gcov_add_rec(w->g, &rs);
}

xp_err xp_gcov_from_feedback(const xp_fb *fb, uint32_t objfile,
                             const xp_gcov *notes, const char *nname,
                             xp_prof **out, xp_diags *d)
{
	wr w;
	xp_objfile of;
	xp_err err;

	*out = NULL;
	memset(&w, 0, sizeof w);
	w.fb = fb;
	w.nt = notes;
	w.nname = nname;
	w.d = d;
	xp_fb_objfile(fb, objfile, &of);
	w.obj = xp_fb_str(fb, of.path);
	if (notes->kind != XP_GCOV_NOTES)
		return xp_diag_file(d, XP_E_INVAL, nname, "not a GCC notes "
		                    "(.gcno) file");
	if (of.signature != notes->stamp)
		return xp_diag_file(d, XP_E_INVAL, w.obj, "signature 0x%llx, "
		                    "its notes %s have stamp 0x%08x: not the "
		                    "same compilation",
		                    (unsigned long long)of.signature, nname,
		                    notes->stamp);
	if ((err = list_procs(&w, &of)) || (err = begin(&w)) ||
	    (err = add_functions(&w)))
		goto done;
	for (size_t i = 0; i < w.n_procs; i++)
		if (!w.procs[i].used) {
			err = xp_diag_file(d, XP_E_INVAL, w.obj, "PROC %s is no "
			                   "function of its notes %s",
			                   xp_fb_str(fb, w.procs[i].name), nname);
			goto done;
		}
	if (w.max > UINT32_MAX) {
		w.max = UINT32_MAX;
		w.sat++;
	}
	w.g->recs[0].b = w.max;
	if (xp_gcov_layout_get(w.g)->checksum)
		w.g->checksum = w.crc;
	if (w.sat > 0)
		xp_diag_warn(d, w.obj, "%llu counts left the range of their "
		             "field and were kept at its largest value",
		             (unsigned long long)w.sat);
	err = xp_prof_adopt(XP_FMT_GCOV, w.g, out);
	w.g = NULL;
done:
	xp_gcov_free(w.g);
	XP_FREE(w.procs, w.seen);
	return err;
}

xp_err xp_gcov_data_from_feedback(const xp_fb *fb, uint32_t objfile,
                                  const char *where, xp_prof **out,
                                  xp_diags *d)
{
	xp_objfile of;
	xp_prof *p = NULL;
	const xp_gcov *nt = NULL;
	char *path = NULL;
	xp_err err;

	*out = NULL;
	xp_fb_objfile(fb, objfile, &of);
	if ((err = xp_gcov_find_notes(xp_fb_str(fb, of.path), where, 1, &path,
	                              d)) == XP_E_OK &&
	    (err = xp_gcov_open_kind(path, XP_GCOV_NOTES, &p, &nt, d)) ==
	    XP_E_OK)
		err = xp_gcov_from_feedback(fb, objfile, nt, path, out, d);
	xp_prof_free(p);
	free(path);
	return err;
}
