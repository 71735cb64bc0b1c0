/*
 * feedback/tcov.c - source line and basic block coverage (xprof_tcov.h), the
 * computing half of xprof_tcov(1).
 *
 * Every fact about coverage is first reduced to one kind of record, a
 * "raw": block (object file, procedure, id) was compiled from (source
 * file, line, column) and ran count times.  Raws come from SRCFILE
 * sections (their block refs are exactly that) and from procedures: the
 * block counts are worked out from the counters (see solve_counts()), and
 * every source mapping tuple gives a raw.  Finishing a coverage then
 * sorts the raws, gives each block the largest count any raw gives it,
 * and builds per source file the tables of xprof_tcov.h.  The edges give
 * branches besides: every outgoing edge of a block that has two or more
 * is one, with its count, placed where the block ends (its last tuple).
 *
 * Sun's split data (run time counters in tcovd, blocks, edges and tuples
 * per object file in objfd) is read by laying the counters of a procedure
 * in tcovd over the structure of the procedure of the same name in objfd.
 * The result can be written back as tcovsd: one SRCFILE section per file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "feedback/tcov_int.h"

/* ------------------------------------------------------------------ */
/* Raw records and the builder                                         */
/* ------------------------------------------------------------------ */

typedef struct {
	uint32_t file;     /* string: the source path */
	uint32_t objfile;  /* string */
	uint32_t proc;     /* string */
	uint32_t block;
	uint32_t line, col;
	uint64_t count;
} raw;

/* A branch: an outgoing edge of a deciding block, at its line. */
typedef struct {
	uint32_t file, objfile, proc;  /* strings */
	uint32_t block, edge, line;
	uint64_t bcount, count;
} braw;

typedef struct {
	xp_strpool sp;
	raw *v;
	size_t n, cap;
	braw *bv;
	size_t bn, bcap;
	int no_lines;  /* procedures give branches only */
} builder;

#define sat_add xp_tcov_sat_add

static xp_err intern(builder *b, const char *s, uint32_t *out)
{
	return xp_strpool_intern(&b->sp, s, strlen(s), out);
}

static xp_err add_raw(builder *b, const raw *r)
{
	if (xp_grow(&b->v, &b->cap, b->n,
	            sizeof *b->v) != XP_E_OK)
		return XP_E_NOMEM;
	b->v[b->n++] = *r;
	return XP_E_OK;
}

static xp_err add_braw(builder *b, const braw *r)
{
	if (xp_grow(&b->bv, &b->bcap, b->bn,
	            sizeof *b->bv) != XP_E_OK)
		return XP_E_NOMEM;
	b->bv[b->bn++] = *r;
	return XP_E_OK;
}

static void builder_free(builder *b)
{
	xp_strpool_free(&b->sp);
	free(b->v);
	free(b->bv);
	memset(b, 0, sizeof *b);
}

/* The block refs of every SRCFILE section. */
static xp_err add_srcfiles(builder *b, const xp_fb *fb)
{
	uint32_t nf = xp_fb_count(fb, XP_T_SRCFILES);
	for (uint32_t i = 0; i < nf; i++) {
		xp_srcfile sf;
		raw r;
		xp_err err;
		xp_fb_srcfile(fb, i, &sf);
		if ((err = intern(b, xp_fb_str(fb, sf.path), &r.file)))
			return err;
		for (uint32_t l = 0; l < sf.n_lines; l++) {
			xp_srcline sl;
			xp_fb_srcline(fb, sf.first_line + l, &sl);
			r.line = sl.line;
			r.col = sl.col;
			for (uint32_t k = 0; k < sl.n_refs; k++) {
				xp_blockref br;
				xp_fb_blockref(fb, sl.first_ref + k, &br);
				r.block = br.block;
				r.count = br.count;
				if ((err = intern(b, xp_fb_str(fb, br.objfile),
				                  &r.objfile)) ||
				    (err = intern(b, xp_fb_str(fb, br.proc), &r.proc)) ||
				    (err = add_raw(b, &r)))
					return err;
			}
		}
	}
	return XP_E_OK;
}

/*
 * The execution count of every block of a procedure (bcount[id], ids
 * 1..n_blocks), from the values of its counters (cval[id], ids
 * 1..ncval; a counter without a value record counts 0).  A block with a
 * counter takes its value; so does an edge.  The rest follows from flow
 * conservation, as far as it goes: a block whose incoming (or outgoing)
 * edges are all known is their sum, and a known block with exactly one
 * unknown incoming (or outgoing) edge gives that edge the difference.
 * Blocks still unknown at the end count 0, and so do edges: ecount[i]
 * is the count of the i-th edge of the procedure (0 for an edge whose
 * ends are not blocks of it).
 *
 * The entry block, B1, is also entered by the procedure's calls, which
 * no edge records: its incoming side always has that unknown, so it never
 * gives B1's count, nor the difference to one of its edges (whose only
 * in-edges are back edges of a loop at the procedure's start).
 */
static xp_err solve_counts(const xp_fb *fb, const xp_proc *p,
                           const uint64_t *cval, uint32_t ncval,
                           uint64_t *bcount, uint64_t *ecount)
{
	uint32_t nb = p->n_blocks, ne = p->n_edges;
	xp_err err = XP_E_NOMEM;
	unsigned char *bk = calloc((size_t)nb + 1, 1);
	unsigned char *ek = calloc((size_t)ne + 1, 1);
	uint64_t *ec = calloc((size_t)ne + 1, sizeof *ec);
	xp_edge *e = calloc((size_t)ne + 1, sizeof *e);
	/* Edges by destination and by source, CSR style. */
	uint32_t *inoff = calloc((size_t)nb + 2, sizeof *inoff);
	uint32_t *outoff = calloc((size_t)nb + 2, sizeof *outoff);
	uint32_t *inv = calloc((size_t)ne + 1, sizeof *inv);
	uint32_t *outv = calloc((size_t)ne + 1, sizeof *outv);
	uint32_t *eorig = calloc((size_t)ne + 1, sizeof *eorig);
	if (!bk || !ek || !ec || !e || !inoff || !outoff || !inv || !outv ||
	    !eorig)
		goto out;

	for (uint32_t i = 0; i <= nb; i++)
		bcount[i] = 0;
	for (uint32_t i = 0; i < nb; i++) {
		xp_block blk;
		xp_fb_block(fb, p->first_block + i, &blk);
		if (blk.id == 0 || blk.id > nb || blk.counter == 0)
			continue;
		bk[blk.id] = 1;
		bcount[blk.id] = blk.counter <= ncval ? cval[blk.counter] : 0;
	}
	uint32_t m = 0;  /* usable edges */
	for (uint32_t i = 0; i < ne; i++) {
		xp_edge x;
		xp_fb_edge(fb, p->first_edge + i, &x);
		if (x.from == 0 || x.from > nb || x.to == 0 || x.to > nb)
			continue;
		e[m] = x;
		eorig[m] = i;
		if (x.counter != 0) {
			ek[m] = 1;
			ec[m] = x.counter <= ncval ? cval[x.counter] : 0;
		}
		inoff[x.to + 1]++;
		outoff[x.from + 1]++;
		m++;
	}
	for (uint32_t i = 1; i <= nb + 1; i++) {
		inoff[i] += inoff[i - 1];
		outoff[i] += outoff[i - 1];
	}
	{
		uint32_t *ip = calloc((size_t)nb + 1, sizeof *ip);
		uint32_t *op = calloc((size_t)nb + 1, sizeof *op);
		if (!ip || !op) {
			free(ip);
			free(op);
			goto out;
		}
		for (uint32_t i = 0; i < m; i++) {
			inv[inoff[e[i].to] + ip[e[i].to]++] = i;
			outv[outoff[e[i].from] + op[e[i].from]++] = i;
		}
		free(ip);
		free(op);
	}

	for (int changed = 1; changed;) {
		changed = 0;
		for (uint32_t b = 1; b <= nb; b++) {
			for (int dir = b == 1; dir < 2; dir++) {
				const uint32_t *off = dir ? outoff : inoff;
				const uint32_t *v = dir ? outv : inv;
				uint32_t lo = off[b], hi = off[b + 1];
				uint32_t unknown = 0, which = 0;
				uint64_t sum = 0;
				if (lo == hi)
					continue;
				for (uint32_t k = lo; k < hi; k++) {
					if (ek[v[k]])
						sum = xp_sat_add(sum, ec[v[k]]);
					else {
						unknown++;
						which = v[k];
					}
				}
				if (!bk[b] && unknown == 0) {
					bk[b] = 1;
					bcount[b] = sum;
					changed = 1;
				} else if (bk[b] && unknown == 1) {
					ek[which] = 1;
					ec[which] = bcount[b] > sum ? bcount[b] - sum : 0;
					changed = 1;
				}
			}
		}
	}
	memset(ecount, 0, (size_t)ne * sizeof *ecount);
	for (uint32_t i = 0; i < m; i++)
		ecount[eorig[i]] = ek[i] ? ec[i] : 0;
	err = XP_E_OK;
out:
	XP_FREE(bk, ek, ec, e, inoff, outoff, inv, outv, eorig);
	return err;
}

/*
 * The branches of a procedure: one per outgoing edge of each block that
 * has two or more usable ones, at the block's end (endfile[id],
 * endline[id]: its last tuple; UINT32_MAX: none, and no branch).
 */
static xp_err add_branches(builder *b, const xp_fb *fb, const xp_proc *p,
                           const braw *proto, const uint64_t *bcount,
                           const uint64_t *ecount, const uint32_t *endfile,
                           const uint32_t *endline)
{
	uint32_t nb = p->n_blocks;
	uint32_t *nout = calloc((size_t)nb + 1, sizeof *nout);
	uint32_t *seen = calloc((size_t)nb + 1, sizeof *seen);
	xp_err err = XP_E_NOMEM;
	if (!nout || !seen)
		goto out;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < p->n_edges; i++) {
			xp_edge x;
			xp_fb_edge(fb, p->first_edge + i, &x);
			if (x.from == 0 || x.from > nb || x.to == 0 || x.to > nb)
				continue;
			if (pass == 0) {
				nout[x.from]++;
				continue;
			}
			if (nout[x.from] < 2 || endfile[x.from] == UINT32_MAX)
				continue;
			braw r = *proto;
			r.file = endfile[x.from];
			r.line = endline[x.from];
			r.block = x.from;
			r.edge = seen[x.from]++;
			r.bcount = bcount[x.from];
			r.count = ecount[i];
			if ((err = add_braw(b, &r)))
				goto out;
		}
	}
	err = XP_E_OK;
out:
	XP_FREE(nout, seen);
	return err;
}

/*
 * The raws and branches of one procedure of structure fb sfb.  Its
 * counter values come from cproc of cfb (NULL: none, every counter counts
 * 0).  *cur is the source file of the previous tuple of the object file
 * (UINT32_MAX: none yet), as the tuples without a file need it.
 */
static xp_err add_proc(builder *b, const xp_fb *sfb, const xp_proc *sp,
                       uint32_t objfile, const xp_fb *cfb,
                       const xp_proc *cproc, uint32_t *cur)
{
	uint32_t ncval = sp->n_counters, nb = sp->n_blocks;
	if (cproc && cproc->n_counters > ncval)
		ncval = cproc->n_counters;
	uint64_t *cval = calloc((size_t)ncval + 1, sizeof *cval);
	uint64_t *bcount = calloc((size_t)nb + 1, sizeof *bcount);
	uint64_t *ecount = calloc((size_t)sp->n_edges + 1, sizeof *ecount);
	uint32_t *endfile = malloc(((size_t)nb + 1) * sizeof *endfile);
	uint32_t *endline = calloc((size_t)nb + 1, sizeof *endline);
	xp_err err = XP_E_NOMEM;
	braw proto = {.objfile = objfile};
	if (!cval || !bcount || !ecount || !endfile || !endline)
		goto out;
	memset(endfile, 0xff, ((size_t)nb + 1) * sizeof *endfile);
	if (cproc) {
		for (uint32_t i = 0; i < cproc->n_counters; i++) {
			xp_counter c;
			xp_fb_counter(cfb, cproc->first_counter + i, &c);
			if (c.id <= ncval)
				cval[c.id] = c.value;
		}
	}
	if ((err = solve_counts(sfb, sp, cval, ncval, bcount, ecount)))
		goto out;
	if ((err = intern(b, xp_fb_str(sfb, sp->name), &proto.proc)))
		goto out;
	for (uint32_t i = 0; i < sp->n_tuples; i++) {
		xp_tuple t;
		raw r;
		xp_fb_tuple(sfb, sp->first_tuple + i, &t);
		if (t.srcfile != XP_NOSTR &&
		    (err = intern(b, xp_fb_str(sfb, t.srcfile), cur)))
			goto out;
		if (*cur == UINT32_MAX || t.block == 0 || t.block > nb)
			continue;
		endfile[t.block] = *cur;
		endline[t.block] = t.line;
		if (b->no_lines)
			continue;
		r.file = *cur;
		r.objfile = objfile;
		r.proc = proto.proc;
		r.block = t.block;
		r.line = t.line;
		r.col = t.col;
		r.count = bcount[t.block];
		if ((err = add_raw(b, &r)))
			goto out;
	}
	err = add_branches(b, sfb, sp, &proto, bcount, ecount, endfile,
	                   endline);
out:
	XP_FREE(cval, bcount, ecount, endfile, endline);
	return err;
}

/* Every procedure of object file o of fb with its own counters. */
static xp_err add_objfile_self(builder *b, const xp_fb *fb, uint32_t o)
{
	xp_objfile of;
	uint32_t path, cur = UINT32_MAX;
	xp_err err;
	xp_fb_objfile(fb, o, &of);
	if ((err = intern(b, xp_fb_str(fb, of.path), &path)))
		return err;
	for (uint32_t i = 0; i < of.n_procs; i++) {
		xp_proc p;
		xp_fb_proc(fb, of.first_proc + i, &p);
		if ((err = add_proc(b, fb, &p, path, fb, &p, &cur)))
			return err;
	}
	return XP_E_OK;
}

/* ------------------------------------------------------------------ */
/* Finishing: from raws to the per-file tables                         */
/* ------------------------------------------------------------------ */

typedef struct {
	const char *s;
	uint32_t id;
} named;

static int cmp_named(const void *a, const void *b)
{
	return strcmp(((const named *)a)->s, ((const named *)b)->s);
}

#define CMP(x, y) do { if ((x) != (y)) return (x) < (y) ? -1 : 1; } while (0)

/* By block key (strings are ranks by now, so integers compare). */
static int cmp_key(const void *a, const void *b)
{
	const raw *x = a, *y = b;
	CMP(x->objfile, y->objfile);
	CMP(x->proc, y->proc);
	CMP(x->block, y->block);
	return 0;
}

static int cmp_file_key(const void *a, const void *b)
{
	const raw *x = a, *y = b;
	CMP(x->file, y->file);
	CMP(x->objfile, y->objfile);
	CMP(x->proc, y->proc);
	CMP(x->block, y->block);
	CMP(x->line, y->line);
	CMP(x->col, y->col);
	return 0;
}

/* A block of a file while its table is built. */
typedef struct {
	uint32_t line, col, objfile, proc, id; /* objfile, proc: ranks */
	uint64_t count;
	uint32_t tmp;   /* its index in key order */
} fblock;

static int cmp_fblock(const void *a, const void *b)
{
	const fblock *x = a, *y = b;
	CMP(x->line, y->line);
	CMP(x->col, y->col);
	CMP(x->objfile, y->objfile);
	CMP(x->proc, y->proc);
	CMP(x->id, y->id);
	return 0;
}

/* A procedure of a file: (objfile, proc) first, then merged by name. */
typedef struct {
	uint32_t proc, objfile, line, entry;
	uint64_t count;
} ffunc;

static int cmp_ffunc_key(const void *a, const void *b)
{
	const ffunc *x = a, *y = b;
	CMP(x->proc, y->proc);
	CMP(x->objfile, y->objfile);
	return 0;
}

static int cmp_ffunc_line(const void *a, const void *b)
{
	const ffunc *x = a, *y = b;
	CMP(x->line, y->line);
	CMP(x->proc, y->proc);
	return 0;
}

/*
 * The blocks of a file's raws r[0..n), one per key, with their leader
 * line and column, in block order; pos[k] is where the k-th key went.
 */
static void leader_blocks(const raw *r, size_t n, fblock *fb, size_t nb,
                          uint32_t *pos)
{
	size_t k = 0;
	for (size_t i = 0; i < n; k++) {
		size_t j = i;
		fblock *x = &fb[k];
		x->line = r[i].line;
		x->col = 0;
		x->objfile = r[i].objfile;
		x->proc = r[i].proc;
		x->id = r[i].block;
		x->count = r[i].count;
		x->tmp = (uint32_t)k;
		for (; j < n && cmp_key(&r[i], &r[j]) == 0; j++)
			if (r[j].line == x->line && r[j].col != 0 &&
			    (x->col == 0 || r[j].col < x->col))
				x->col = r[j].col;
		i = j;
	}
	xp_qsort(fb, nb, sizeof *fb, cmp_fblock);
	for (size_t i = 0; i < nb; i++)
		pos[fb[i].tmp] = (uint32_t)i;
}

/* The file's block table, at *nb_at in the coverage's blocks. */
static void put_blocks(xp_tcov *c, const uint32_t *names, const fblock *fb,
                       size_t nb, xp_tcov_file *f, size_t *nb_at)
{
	xp_tcov_block *blocks = c->blocks + *nb_at;
	f->blocks = blocks;
	f->n_blocks = nb;
	f->n_blocks_hit = 0;
	f->sum = 0;
	for (size_t i = 0; i < nb; i++) {
		blocks[i].objfile = xp_strpool_str(&c->sp, names[fb[i].objfile]);
		blocks[i].proc = xp_strpool_str(&c->sp, names[fb[i].proc]);
		blocks[i].id = fb[i].id;
		blocks[i].line = fb[i].line;
		blocks[i].col = fb[i].col;
		blocks[i].count = fb[i].count;
		if (fb[i].count > 0)
			f->n_blocks_hit++;
		f->sum = xp_sat_add(f->sum, fb[i].count);
	}
	*nb_at += nb;
}

/* The file's locations, one per raw, at *nloc_at. */
static void put_locs(xp_tcov *c, const raw *r, size_t n, const uint32_t *pos,
                     xp_tcov_file *f, size_t *nloc_at)
{
	xp_tcov_loc *locs = c->locs + *nloc_at;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && cmp_key(&r[i - 1], &r[i]) != 0)
			k++;
		locs[i].line = r[i].line;
		locs[i].col = r[i].col;
		locs[i].block = pos[k];
	}
	xp_qsort(locs, n, sizeof *locs, xp_tcov_cmp_loc);
	f->locs = locs;
	f->n_locs = n;
	*nloc_at += n;
}

/*
 * The file's lines, from its blocks and locations, at *nl_at.  The leader
 * blocks of a line are consecutive in block order, the first of them
 * first.  mark has room for one entry per block, all zero.
 */
static void put_lines(xp_tcov *c, xp_tcov_file *f, uint32_t *mark,
                      size_t *nl_at)
{
	const xp_tcov_block *blocks = f->blocks;
	const xp_tcov_loc *locs = f->locs;
	size_t n = f->n_locs, nb = f->n_blocks;
	xp_tcov_line *lines = c->lines + *nl_at;
	size_t nl = 0, bi = 0;
	f->n_lines_hit = 0;
	for (size_t i = 0; i < n;) {
		uint32_t line = locs[i].line;
		xp_tcov_line *ln = &lines[nl];
		uint32_t best = UINT32_MAX;
		memset(ln, 0, sizeof *ln);
		ln->line = line;
		while (bi < nb && blocks[bi].line < line)
			bi++;
		for (; i < n && locs[i].line == line; i++) {
			uint32_t b = locs[i].block;
			if (mark[b] == nl + 1)
				continue;
			mark[b] = (uint32_t)nl + 1;
			ln->n_blocks++;
			if (blocks[b].line == line)
				ln->n_leaders++;
			if (blocks[b].count > ln->max)
				ln->max = blocks[b].count;
			/* The covering block whose leader is nearest above, the
			 * first in block order among equals. */
			if (best == UINT32_MAX || blocks[b].line > blocks[best].line ||
			    (blocks[b].line == blocks[best].line && b < best))
				best = b;
		}
		if (ln->n_leaders > 0)
			ln->count = blocks[bi].count;
		else
			ln->count = blocks[best].count;
		if (ln->max > 0)
			f->n_lines_hit++;
		nl++;
	}
	f->lines = lines;
	f->n_lines = nl;
	*nl_at += nl;
}

/*
 * The file's procedures, at *nf_at: per (object file, procedure) the
 * first leader line and the entry block (the smallest id), then merged by
 * name.  ff has room for one entry per block.
 */
static void put_funcs(xp_tcov *c, const uint32_t *names, const fblock *fb,
                      size_t nb, ffunc *ff, xp_tcov_file *f, size_t *nf_at)
{
	for (size_t i = 0; i < nb; i++) {
		ff[i].proc = fb[i].proc;
		ff[i].objfile = fb[i].objfile;
		ff[i].line = fb[i].line;
		ff[i].entry = fb[i].id;
		ff[i].count = fb[i].count;
	}
	xp_qsort(ff, nb, sizeof *ff, cmp_ffunc_key);
	size_t nf = 0;
	for (size_t i = 0; i < nb;) {
		ffunc acc = ff[i];
		size_t j = i;
		for (; j < nb && ff[j].proc == acc.proc &&
		       ff[j].objfile == acc.objfile; j++) {
			if (ff[j].line < acc.line)
				acc.line = ff[j].line;
			if (ff[j].entry < acc.entry) {
				acc.entry = ff[j].entry;
				acc.count = ff[j].count;
			}
		}
		if (nf > 0 && ff[nf - 1].proc == acc.proc) {
			if (acc.line < ff[nf - 1].line)
				ff[nf - 1].line = acc.line;
			ff[nf - 1].count = xp_sat_add(ff[nf - 1].count, acc.count);
		} else {
			ff[nf++] = acc;
		}
		i = j;
	}
	xp_qsort(ff, nf, sizeof *ff, cmp_ffunc_line);
	xp_tcov_func *funcs = c->funcs + *nf_at;
	f->n_funcs_hit = 0;
	for (size_t i = 0; i < nf; i++) {
		funcs[i].name = xp_strpool_str(&c->sp, names[ff[i].proc]);
		funcs[i].line = ff[i].line;
		funcs[i].count = ff[i].count;
		if (ff[i].count > 0)
			f->n_funcs_hit++;
	}
	f->funcs = funcs;
	f->n_funcs = nf;
	*nf_at += nf;
}

static int cmp_braw_key(const void *a, const void *b)
{
	const braw *x = a, *y = b;
	CMP(x->file, y->file);
	CMP(x->objfile, y->objfile);
	CMP(x->proc, y->proc);
	CMP(x->block, y->block);
	CMP(x->edge, y->edge);
	return 0;
}

/* By file, line, procedure, block, edge: the order of a file's
 * branches, object files last. */
static int cmp_braw_line(const void *a, const void *b)
{
	const braw *x = a, *y = b;
	CMP(x->file, y->file);
	CMP(x->line, y->line);
	CMP(x->proc, y->proc);
	CMP(x->block, y->block);
	CMP(x->edge, y->edge);
	CMP(x->objfile, y->objfile);
	return 0;
}

/*
 * The branches of every file (files[i] has the file rank frank[i]), from
 * v[0..n), strings ranked.  Records of one branch of one object file
 * give it the largest counts among them, as blocks take theirs; the
 * branches of one procedure in several object files are summed.
 * Branches in files without blocks are left out.
 */
static xp_err put_branches(xp_tcov *c, braw *v, size_t n,
                           const uint32_t *names, const uint32_t *frank)
{
	size_t k = 0, at = 0, fi = 0;
	xp_qsort(v, n, sizeof *v, cmp_braw_key);
	for (size_t i = 0; i < n; i++) {
		braw *last = k > 0 ? &v[k - 1] : NULL;
		if (last && cmp_braw_key(last, &v[i]) == 0) {
			if (v[i].count > last->count)
				last->count = v[i].count;
			if (v[i].bcount > last->bcount)
				last->bcount = v[i].bcount;
		} else {
			v[k++] = v[i];
		}
	}
	xp_qsort(v, k, sizeof *v, cmp_braw_line);
	if (!(c->branches = calloc(k ? k : 1, sizeof *c->branches)))
		return XP_E_NOMEM;
	for (size_t i = 0; i < k; i++) {
		while (fi < c->n_files && frank[fi] < v[i].file)
			fi++;
		if (fi == c->n_files || frank[fi] != v[i].file)
			continue;
		xp_tcov_file *f = &c->files[fi];
		xp_tcov_branch *br = &c->branches[at];
		if (f->n_branches == 0)
			f->branches = br;
		const braw *p = i > 0 ? &v[i - 1] : NULL;
		if (f->n_branches > 0 && p->line == v[i].line &&
		    p->proc == v[i].proc && p->block == v[i].block &&
		    p->edge == v[i].edge) {
			br[-1].count = xp_sat_add(br[-1].count, v[i].count);
			br[-1].block_count = xp_sat_add(br[-1].block_count,
			                             v[i].bcount);
			continue;
		}
		br->line = v[i].line;
		br->proc = xp_strpool_str(&c->sp, names[v[i].proc]);
		br->block = v[i].block;
		br->edge = v[i].edge;
		br->block_count = v[i].bcount;
		br->count = v[i].count;
		f->n_branches++;
		at++;
	}
	for (size_t i = 0; i < c->n_files; i++) {
		xp_tcov_file *f = &c->files[i];
		for (size_t j = 0; j < f->n_branches; j++)
			if (f->branches[j].count > 0)
				f->n_branches_hit++;
	}
	return XP_E_OK;
}

/*
 * Builds the tables of one file from its raws r[0..n) (sorted by key,
 * then line, col; duplicates removed).  Fills f and appends to the
 * coverage's arrays at the given positions.
 */
static xp_err build_file(xp_tcov *c, const raw *r, size_t n,
                         const uint32_t *names, xp_tcov_file *f,
                         size_t *nb_at, size_t *nl_at, size_t *nf_at,
                         size_t *nloc_at)
{
	xp_err err = XP_E_NOMEM;
	size_t nb = 0;
	fblock *fb = NULL;
	uint32_t *pos = NULL, *mark = NULL;
	ffunc *ff = NULL;

	for (size_t i = 0; i < n; i++)
		if (i == 0 || cmp_key(&r[i - 1], &r[i]) != 0)
			nb++;
	fb = calloc(nb ? nb : 1, sizeof *fb);
	pos = calloc(nb ? nb : 1, sizeof *pos);
	mark = calloc(nb ? nb : 1, sizeof *mark);
	ff = calloc(nb ? nb : 1, sizeof *ff);
	if (!fb || !pos || !mark || !ff)
		goto out;

	leader_blocks(r, n, fb, nb, pos);
	put_blocks(c, names, fb, nb, f, nb_at);
	put_locs(c, r, n, pos, f, nloc_at);
	put_lines(c, f, mark, nl_at);
	put_funcs(c, names, fb, nb, ff, f, nf_at);
	err = XP_E_OK;
out:
	XP_FREE(fb, pos, mark, ff);
	return err;
}

/* Turns the builder's raws into a coverage; the builder is emptied. */
static xp_err finish(builder *b, xp_tcov **out)
{
	xp_err err = XP_E_NOMEM;
	xp_tcov *c = calloc(1, sizeof *c);
	named *nm = NULL;
	uint32_t *rank = NULL, *names = NULL, *frank = NULL;
	size_t nfiles = 0;
	if (!c)
		goto fail;
	c->sp = b->sp;
	memset(&b->sp, 0, sizeof b->sp);

	/* Rank the strings so that integers compare as the strings do. */
	uint32_t ns = c->sp.n;
	nm = calloc(ns ? ns : 1, sizeof *nm);
	rank = calloc(ns ? ns : 1, sizeof *rank);
	names = calloc(ns ? ns : 1, sizeof *names);
	if (!nm || !rank || !names)
		goto fail;
	for (uint32_t i = 0; i < ns; i++) {
		nm[i].s = xp_strpool_str(&c->sp, i);
		nm[i].id = i;
	}
	xp_qsort(nm, ns, sizeof *nm, cmp_named);
	for (uint32_t i = 0; i < ns; i++) {
		rank[nm[i].id] = i;
		names[i] = nm[i].id;
	}
	for (size_t i = 0; i < b->n; i++) {
		b->v[i].file = rank[b->v[i].file];
		b->v[i].objfile = rank[b->v[i].objfile];
		b->v[i].proc = rank[b->v[i].proc];
	}
	for (size_t i = 0; i < b->bn; i++) {
		b->bv[i].file = rank[b->bv[i].file];
		b->bv[i].objfile = rank[b->bv[i].objfile];
		b->bv[i].proc = rank[b->bv[i].proc];
	}

	/* A block's count is the largest any record gives it. */
	xp_qsort(b->v, b->n, sizeof *b->v, cmp_key);
	for (size_t i = 0; i < b->n;) {
		size_t j = i;
		uint64_t mx = 0;
		for (; j < b->n && cmp_key(&b->v[i], &b->v[j]) == 0; j++)
			if (b->v[j].count > mx)
				mx = b->v[j].count;
		for (; i < j; i++)
			b->v[i].count = mx;
	}
	xp_qsort(b->v, b->n, sizeof *b->v, cmp_file_key);
	size_t n = 0;
	for (size_t i = 0; i < b->n; i++)
		if (n == 0 || cmp_file_key(&b->v[n - 1], &b->v[i]) != 0)
			b->v[n++] = b->v[i];
	b->n = n;
	for (size_t i = 0; i < n; i++)
		if (i == 0 || b->v[i - 1].file != b->v[i].file)
			nfiles++;

	c->files = calloc(nfiles ? nfiles : 1, sizeof *c->files);
	c->blocks = calloc(n ? n : 1, sizeof *c->blocks);
	c->lines = calloc(n ? n : 1, sizeof *c->lines);
	c->funcs = calloc(n ? n : 1, sizeof *c->funcs);
	c->locs = calloc(n ? n : 1, sizeof *c->locs);
	frank = calloc(nfiles ? nfiles : 1, sizeof *frank);
	if (!c->files || !c->blocks || !c->lines || !c->funcs || !c->locs ||
	    !frank)
		goto fail;
	size_t nb_at = 0, nl_at = 0, nf_at = 0, nloc_at = 0, fi = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && b->v[j].file == b->v[i].file)
			j++;
		frank[fi] = b->v[i].file;
		xp_tcov_file *f = &c->files[fi++];
		f->path = xp_strpool_str(&c->sp, names[b->v[i].file]);
		if ((err = build_file(c, b->v + i, j - i, names, f, &nb_at, &nl_at,
		                      &nf_at, &nloc_at)))
			goto fail;
		i = j;
	}
	c->n_files = nfiles;
	if ((err = put_branches(c, b->bv, b->bn, names, frank)))
		goto fail;
	XP_FREE(nm, rank, names, frank);
	builder_free(b);
	*out = c;
	return XP_E_OK;
fail:
	XP_FREE(nm, rank, names, frank);
	builder_free(b);
	xp_tcov_free(c);
	return err;
}

/* ------------------------------------------------------------------ */
/* Public constructors                                                  */
/* ------------------------------------------------------------------ */

xp_err xp_tcov_new(const xp_fb *fb, const char *name, xp_tcov **out,
                   xp_diags *d)
{
	builder b;
	xp_err err;
	memset(&b, 0, sizeof b);
	*out = NULL;
	if ((err = add_srcfiles(&b, fb)))
		goto fail;
	uint32_t no = xp_fb_count(fb, XP_T_OBJFILES);
	for (uint32_t o = 0; o < no; o++)
		if ((err = add_objfile_self(&b, fb, o)))
			goto fail;
	return finish(&b, out);
fail:
	builder_free(&b);
	return err;
}

/* The procedures of object file o of fb, sorted by name id. */
typedef struct {
	const xp_fb *fb;
	uint32_t *v;   /* proc indexes */
	uint32_t n;
} procset;

static int cmp_u64pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	CMP(x[0], y[0]);
	return 0;
}

/* Index i of fb's procs of object file o by name id: v[] of (name << 32
 * | proc) sorted. */
static xp_err procs_by_name(const xp_fb *fb, uint32_t o, uint64_t **out)
{
	xp_objfile of;
	xp_fb_objfile(fb, o, &of);
	uint64_t *v = calloc(of.n_procs ? of.n_procs : 1, sizeof *v);
	if (!v)
		return XP_E_NOMEM;
	for (uint32_t i = 0; i < of.n_procs; i++) {
		xp_proc p;
		xp_fb_proc(fb, of.first_proc + i, &p);
		v[i] = (uint64_t)p.name << 32 | (of.first_proc + i);
	}
	/* Only the name (the high half) matters for the order; names are
	 * unique within an object file. */
	xp_qsort(v, of.n_procs, sizeof *v, cmp_u64pair);
	*out = v;
	return XP_E_OK;
}

static uint32_t find_proc(const uint64_t *v, uint32_t n, xp_str name)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint32_t s = (uint32_t)(v[mid] >> 32);
		if (s == name)
			return (uint32_t)v[mid];
		if (s < name)
			lo = mid + 1;
		else
			hi = mid;
	}
	return UINT32_MAX;
}

/*
 * The procedures of objfd object file so (in sfb) with the counters of
 * the same object file in the run time data (co in cfb, UINT32_MAX when
 * it has none).
 */
static xp_err add_objfile_split(builder *b, const xp_fb *sfb, uint32_t so,
                                const xp_fb *cfb, uint32_t co,
                                const char *dir, xp_diags *d)
{
	xp_objfile sof, cof;
	uint32_t path, cur = UINT32_MAX;
	uint64_t *byname = NULL;
	xp_err err;
	xp_fb_objfile(sfb, so, &sof);
	if ((err = intern(b, xp_fb_str(sfb, sof.path), &path)))
		return err;
	if (co != UINT32_MAX) {
		xp_fb_objfile(cfb, co, &cof);
		if (cof.signature != sof.signature) {
			xp_diag_warn(d, dir,
			             "%s: the run time data (signature 0x%llx) is not "
			             "of the compilation in objfd (signature 0x%llx); "
			             "its counts are taken as 0",
			             xp_fb_str(sfb, sof.path),
			             (unsigned long long)cof.signature,
			             (unsigned long long)sof.signature);
			co = UINT32_MAX;
		} else if ((err = procs_by_name(cfb, co, &byname))) {
			return err;
		}
	}
	for (uint32_t i = 0; i < sof.n_procs; i++) {
		xp_proc p, cp;
		const xp_proc *cpp = NULL;
		xp_fb_proc(sfb, sof.first_proc + i, &p);
		if (co != UINT32_MAX) {
			const char *name = xp_fb_str(sfb, p.name);
			xp_str s = xp_fb_find_str(cfb, name, strlen(name));
			uint32_t ci = s == XP_NOSTR ? UINT32_MAX
			                            : find_proc(byname, cof.n_procs, s);
			if (ci != UINT32_MAX) {
				xp_fb_proc(cfb, ci, &cp);
				if (cp.signature != p.signature)
					xp_diag_warn(d, dir,
					             "%s: procedure %s: the run time data "
					             "(signature 0x%llx) is not of the "
					             "compilation in objfd (signature 0x%llx); "
					             "its counts are taken as 0",
					             xp_fb_str(sfb, sof.path), name,
					             (unsigned long long)cp.signature,
					             (unsigned long long)p.signature);
				else
					cpp = &cp;
			}
		}
		if ((err = add_proc(b, sfb, &p, path, cfb, cpp, &cur)))
			break;
	}
	free(byname);
	return err;
}

/*
 * Adds to b what the run time data tcovd with the compilation data
 * objfd[0..n) gives (xp_tcov_combine()); with b->no_lines, only the
 * branches of their procedures.
 */
static xp_err combine_into(builder *b, const xp_fb *tcovd,
                           const xp_fb *const *objfd, size_t n,
                           const char *dir, xp_diags *d)
{
	xp_err err = XP_E_OK;
	uint32_t no = xp_fb_count(tcovd, XP_T_OBJFILES);
	unsigned char *covered = calloc(no ? no : 1, 1);
	if (!covered)
		return XP_E_NOMEM;
	if (!b->no_lines && (err = add_srcfiles(b, tcovd)))
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (!objfd[i])
			continue;
		if (!b->no_lines && (err = add_srcfiles(b, objfd[i])))
			goto out;
		uint32_t nso = xp_fb_count(objfd[i], XP_T_OBJFILES);
		for (uint32_t so = 0; so < nso; so++) {
			xp_objfile of;
			xp_fb_objfile(objfd[i], so, &of);
			uint32_t co = xp_fb_find_objfile(tcovd,
			                                 xp_fb_str(objfd[i], of.path));
			if (co != UINT32_MAX)
				covered[co] = 1;
			if ((err = add_objfile_split(b, objfd[i], so, tcovd, co, dir,
			                             d)))
				goto out;
		}
	}
	/* Run time data without compilation data: what it holds itself. */
	for (uint32_t o = 0; o < no; o++) {
		if (covered[o])
			continue;
		xp_objfile of;
		size_t before = b->n;
		xp_fb_objfile(tcovd, o, &of);
		if ((err = add_objfile_self(b, tcovd, o)))
			goto out;
		if (b->n == before && !b->no_lines)
			xp_diag_warn(d, dir,
			             "%s: no compilation data (objfd) and no source "
			             "mapping in the run time data; its counts are "
			             "not mapped to source lines",
			             xp_fb_str(tcovd, of.path));
	}
out:
	free(covered);
	return err;
}

xp_err xp_tcov_combine(const xp_fb *tcovd, const xp_fb *const *objfd,
                       size_t n, const char *dir, xp_tcov **out,
                       xp_diags *d)
{
	builder b;
	xp_err err;
	memset(&b, 0, sizeof b);
	*out = NULL;
	if ((err = combine_into(&b, tcovd, objfd, n, dir, d))) {
		builder_free(&b);
		return err;
	}
	return finish(&b, out);
}

/*
 * The coverage of test coverage source data sd (its lines and blocks, as
 * they are) with the branches of the procedures of tcovd and objfd, which
 * sd cannot hold.  Their warnings were given when sd was made from them.
 */
static xp_err srcdata_with_branches(const xp_fb *sd, const xp_fb *tcovd,
                                    const xp_fb *const *objfd, size_t n,
                                    const char *dir, xp_tcov **out)
{
	builder b;
	xp_diags *quiet = xp_diags_new(0);
	xp_err err = quiet ? XP_E_OK : XP_E_NOMEM;
	memset(&b, 0, sizeof b);
	*out = NULL;
	if (!err)
		err = add_srcfiles(&b, sd);
	b.no_lines = 1;
	if (!err)
		err = combine_into(&b, tcovd, objfd, n, dir, quiet);
	xp_diags_free(quiet);
	if (err) {
		builder_free(&b);
		return err;
	}
	return finish(&b, out);
}

void xp_tcov_free(xp_tcov *c)
{
	if (!c)
		return;
	xp_strpool_free(&c->sp);
	XP_FREE(c->files, c->blocks, c->lines, c->funcs, c->locs, c->branches,
	        c);
}

size_t xp_tcov_n_files(const xp_tcov *c)
{
	return c->n_files;
}

const xp_tcov_file *xp_tcov_file_at(const xp_tcov *c, size_t i)
{
	return &c->files[i];
}

/* ------------------------------------------------------------------ */
/* Finding a source file                                                */
/* ------------------------------------------------------------------ */

/*
 * The absolute form of a path: realpath() when the file exists, else the
 * path joined to the working directory with "." and ".." and repeated
 * slashes removed.  Returns a string the caller frees, or NULL.
 */
static char *abs_path(const char *path)
{
	char *r = realpath(path, NULL);
	if (r)
		return r;
	char *cwd = NULL;
	if (path[0] != '/') {
		cwd = getcwd(NULL, 0);
		if (!cwd)
			return NULL;
	}
	size_t len = (cwd ? strlen(cwd) + 1 : 0) + strlen(path) + 2;
	char *joined = malloc(len), *outp = malloc(len);
	if (!joined || !outp) {
		XP_FREE(cwd, joined, outp);
		return NULL;
	}
	snprintf(joined, len, "%s%s%s", cwd ? cwd : "", cwd ? "/" : "", path);
	free(cwd);
	size_t o = 0;
	for (const char *p = joined; *p;) {
		while (*p == '/')
			p++;
		const char *q = p;
		while (*q && *q != '/')
			q++;
		size_t seg = (size_t)(q - p);
		if (seg == 0 || (seg == 1 && p[0] == '.')) {
			/* nothing */
		} else if (seg == 2 && p[0] == '.' && p[1] == '.') {
			while (o > 0 && outp[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else {
			outp[o++] = '/';
			memcpy(outp + o, p, seg);
			o += seg;
		}
		p = q;
	}
	if (o == 0)
		outp[o++] = '/';
	outp[o] = '\0';
	free(joined);
	return outp;
}

/* The profile path p remapped by the first map that applies; the caller
 * frees the result (NULL: out of memory). */
static char *remap(const char *p, const xp_tcov_map *maps, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t fl = strlen(maps[i].from);
		if (fl == 0 || strncmp(p, maps[i].from, fl) != 0)
			continue;
		if (p[fl] != '\0' && p[fl] != '/' && maps[i].from[fl - 1] != '/')
			continue;
		size_t len = strlen(maps[i].to) + strlen(p + fl) + 1;
		char *s = malloc(len);
		if (s)
			snprintf(s, len, "%s%s", maps[i].to, p + fl);
		return s;
	}
	return strdup(p);
}

size_t xp_tcov_find(const xp_tcov *c, const char *path,
                    const xp_tcov_map *maps, size_t n_maps)
{
	size_t found = XP_TCOV_NONE;
	char *want = NULL;
	for (size_t i = 0; i < c->n_files && found == XP_TCOV_NONE; i++) {
		char *m = remap(c->files[i].path, maps, n_maps);
		if (m && strcmp(m, path) == 0)
			found = i;
		free(m);
	}
	if (found != XP_TCOV_NONE || !(want = abs_path(path)))
		return found;
	for (size_t i = 0; i < c->n_files && found == XP_TCOV_NONE; i++) {
		char *m = remap(c->files[i].path, maps, n_maps);
		char *a = m ? abs_path(m) : NULL;
		if (a && strcmp(a, want) == 0)
			found = i;
		free(a);
		free(m);
	}
	free(want);
	return found;
}

/* ------------------------------------------------------------------ */
/* Top blocks, tcovsd                                                   */
/* ------------------------------------------------------------------ */

static int cmp_top(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	CMP(y[0], x[0]);  /* count descending */
	CMP(x[1], y[1]);
	return 0;
}

xp_err xp_tcov_top(const xp_tcov_file *f, size_t n, size_t **out,
                   size_t *count)
{
	return xp_tcov_top_in(f, NULL, n, out, count);
}

xp_err xp_tcov_top_in(const xp_tcov_file *f, const unsigned char *in,
                      size_t n, size_t **out, size_t *count)
{
	uint64_t *v = calloc(f->n_blocks ? f->n_blocks * 2 : 1, sizeof *v);
	size_t k = 0;
	*out = NULL;
	*count = 0;
	if (!v)
		return XP_E_NOMEM;
	for (size_t i = 0; i < f->n_blocks; i++) {
		if (f->blocks[i].count == 0 || (in && !in[i]))
			continue;
		v[2 * k] = f->blocks[i].count;
		v[2 * k + 1] = i;
		k++;
	}
	xp_qsort(v, k, 2 * sizeof *v, cmp_top);
	if (k > n)
		k = n;
	size_t *r = calloc(k ? k : 1, sizeof *r);
	if (!r) {
		free(v);
		return XP_E_NOMEM;
	}
	for (size_t i = 0; i < k; i++)
		r[i] = (size_t)v[2 * i + 1];
	free(v);
	*out = r;
	*count = k;
	return XP_E_OK;
}

xp_err xp_tcov_to_fb(const xp_tcov *c, xp_fb **out)
{
	xp_fbb *b = xp_fbb_new(XP_DT_TCOVSD, 4, 0);
	xp_err err = XP_E_OK;
	*out = NULL;
	if (!b)
		return XP_E_NOMEM;
	for (size_t i = 0; i < c->n_files && !err; i++) {
		const xp_tcov_file *f = &c->files[i];
		xp_str s;
		if ((err = xp_fbb_intern(b, f->path, strlen(f->path), &s)) ||
		    (err = xp_fbb_begin_srcfile(b, s)))
			break;
		for (size_t k = 0; k < f->n_locs && !err; k++) {
			const xp_tcov_loc *l = &f->locs[k];
			const xp_tcov_block *blk = &f->blocks[l->block];
			xp_blockref br;
			if ((k == 0 || l->line != f->locs[k - 1].line ||
			     l->col != f->locs[k - 1].col) &&
			    (err = xp_fbb_begin_srcline(b, l->line, l->col)))
				break;
			br.block = blk->id;
			br.count = blk->count;
			if ((err = xp_fbb_intern(b, blk->proc, strlen(blk->proc),
			                         &br.proc)) ||
			    (err = xp_fbb_intern(b, blk->objfile, strlen(blk->objfile),
			                         &br.objfile)))
				break;
			err = xp_fbb_add_blockref(b, &br);
		}
	}
	if (!err)
		err = xp_fbb_finish(b, out);
	xp_fbb_free(b);
	return err;
}

/* ------------------------------------------------------------------ */
/* Opening: profile directories and files                              */
/* ------------------------------------------------------------------ */

static int ts_newer(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec != b->tv_sec ? a->tv_sec > b->tv_sec
	                              : a->tv_nsec > b->tv_nsec;
}

static void note_mtime(xp_tcov_info *info, const struct stat *st)
{
	struct timespec cur = {(time_t)info->mtime_sec, info->mtime_nsec};
	if (!info->has_mtime || ts_newer(&st->st_mtim, &cur)) {
		info->mtime_sec = (int64_t)st->st_mtim.tv_sec;
		info->mtime_nsec = st->st_mtim.tv_nsec;
	}
	info->has_mtime = 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of the files in DIR/objfd (none when it does not exist),
 * sorted: *out (each name and the array freed by the caller). */
static xp_err objfd_names(const char *dir, char ***out, size_t *n,
                          xp_diags *d)
{
	char *sub = xp_profdir_file(dir, XP_DT_OBJFD, NULL);
	char **v = NULL;
	size_t cnt = 0, cap = 0;
	xp_err err = XP_E_OK;
	*out = NULL;
	*n = 0;
	if (!sub)
		return XP_E_NOMEM;
	DIR *dp = opendir(sub);
	if (!dp) {
		int e = errno;
		if (e != ENOENT)
			err = xp_diag_file(d, XP_E_IO, sub, "cannot read: %s",
			                   strerror(e));
		free(sub);
		return err;
	}
	for (struct dirent *de; (de = readdir(dp)) != NULL;) {
		if (de->d_name[0] == '.')
			continue;
		if (cnt == cap) {
			size_t nc = cap ? cap * 2 : 16;
			char **nv = realloc(v, nc * sizeof *nv);
			if (!nv) {
				err = XP_E_NOMEM;
				break;
			}
			v = nv;
			cap = nc;
		}
		size_t len = strlen(sub) + strlen(de->d_name) + 2;
		if (!(v[cnt] = malloc(len))) {
			err = XP_E_NOMEM;
			break;
		}
		snprintf(v[cnt++], len, "%s/%s", sub, de->d_name);
	}
	closedir(dp);
	free(sub);
	if (err) {
		for (size_t i = 0; i < cnt; i++)
			free(v[i]);
		free(v);
		return err;
	}
	xp_qsort(v, cnt, sizeof *v, cmp_str);
	*out = v;
	*n = cnt;
	return XP_E_OK;
}

/* Stats the data of type t in dir: 1 present, 0 absent, -1 trouble. */
static int stat_data(const char *dir, xp_datatype t, struct stat *st,
                     xp_diags *d, xp_err *err)
{
	char *p = xp_profdir_file(dir, t, NULL);
	if (!p) {
		*err = XP_E_NOMEM;
		return -1;
	}
	int r = stat(p, st) == 0;
	if (!r && errno != ENOENT) {
		*err = xp_diag_file(d, XP_E_IO, p, "%s", strerror(errno));
		r = -1;
	}
	free(p);
	return r;
}

/* Adds to d, as warnings, the errors of a failed update. */
static void update_failed(xp_diags *d, xp_diags *w, xp_err err,
                          const char *dir)
{
	size_t n = w ? xp_diags_count(w) : 0;
	int said = 0;
	for (size_t i = 0; i < n; i++) {
		const xp_diag *dg = xp_diags_get(w, i);
		if (dg->severity != XP_SEV_ERROR)
			continue;
		xp_diag_warn(d, dg->file ? dg->file : dir,
		             "test coverage source data (tcovsd) not updated: %s",
		             dg->msg);
		said = 1;
	}
	if (!said)
		xp_diag_warn(d, dir,
		             "test coverage source data (tcovsd) not updated: %s",
		             xp_strerror(err));
}

/*
 * Takes the lock of dir for updating its tcovsd data.  Without it the
 * data is read but not updated (*update cleared), with a warning; a
 * directory that does not exist is an error.
 */
static xp_err lock_for_update(const char *dir, int *update, xp_lock **lock,
                              xp_diags *d)
{
	xp_diags *w = xp_diags_new(0);
	xp_err e = w ? xp_profdir_lock(dir, 0, lock, w) : XP_E_NOMEM;
	if (e == XP_E_NOTFOUND) {
		xp_diags_free(w);
		return xp_diag_file(d, XP_E_NOTFOUND, dir,
		                    "no such profile directory");
	}
	if (e) {
		update_failed(d, w, e, dir);
		*update = 0;
	}
	xp_diags_free(w);
	return XP_E_OK;
}

/* The coverage of the data of type t in dir. */
static xp_err tcov_of(const char *dir, xp_datatype t, xp_tcov **out,
                      xp_diags *d)
{
	xp_fb *fb = NULL;
	xp_err err = xp_profdir_open(dir, t, NULL, &fb, d);
	if (!err)
		err = xp_tcov_new(fb, dir, out, d);
	xp_fb_free(fb);
	return err;
}

/*
 * The coverage of dir's tcovd data and the objfd files names[0..n); with
 * fresh set, that of its tcovsd data (up to date with them) with their
 * branches.
 */
static xp_err combine_tcovd(const char *dir, char **names, size_t n,
                            int fresh, xp_tcov **out, xp_tcov_info *info,
                            xp_diags *d)
{
	struct stat st;
	xp_fb *tcovd = NULL, *sd = NULL, **objfd = NULL;
	xp_err err = xp_profdir_open(dir, XP_DT_TCOVD, NULL, &tcovd, d);
	if (!err && fresh)
		err = xp_profdir_open(dir, XP_DT_TCOVSD, NULL, &sd, d);
	if (err)
		goto out;
	objfd = calloc(n ? n : 1, sizeof *objfd);
	if (!objfd) {
		err = XP_E_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if ((err = xp_db_open(names[i], &objfd[i], d)))
			goto out;
		if (xp_fb_datatype(objfd[i]) != XP_DT_OBJFD) {
			err = xp_diag_file(d, XP_E_CORRUPT, names[i],
			                   "holds %s data, expected objfd",
			                   xp_datatype_name(
			                       xp_fb_datatype(objfd[i])));
			goto out;
		}
		if (stat(names[i], &st) == 0)
			note_mtime(info, &st);
	}
	if (fresh)
		err = srcdata_with_branches(sd, tcovd,
		                            (const xp_fb *const *)objfd, n, dir,
		                            out);
	else
		err = xp_tcov_combine(tcovd, (const xp_fb *const *)objfd, n, dir,
		                      out, d);
out:
	for (size_t i = 0; objfd && i < n; i++)
		xp_fb_free(objfd[i]);
	free(objfd);
	xp_fb_free(tcovd);
	xp_fb_free(sd);
	return err;
}

/* Writes coverage c as dir's tcovsd data; a failure is only a warning. */
static void update_tcovsd(const char *dir, xp_lock *lock, xp_tcov *c,
                          xp_tcov_info *info, xp_diags *d)
{
	xp_fb *sd = NULL;
	xp_diags *w = xp_diags_new(0);
	xp_err e = w ? xp_tcov_to_fb(c, &sd) : XP_E_NOMEM;
	if (!e)
		e = xp_profdir_write_locked(lock, sd, w);
	if (e)
		update_failed(d, w, e, dir);
	else
		info->updated = 1;
	xp_fb_free(sd);
	xp_diags_free(w);
}

static xp_err open_dir(const char *dir, int update, xp_tcov **out,
                       xp_tcov_info *info, xp_diags *d)
{
	struct stat st_tcovd, st_tcovsd, st;
	xp_err err = XP_E_OK;
	xp_lock *lock = NULL;
	char **names = NULL;
	size_t nnames = 0;
	int has_tcovd, has_tcovsd;

	if (update && (err = lock_for_update(dir, &update, &lock, d)))
		return err;
	if ((has_tcovd = stat_data(dir, XP_DT_TCOVD, &st_tcovd, d, &err)) < 0 ||
	    (has_tcovsd = stat_data(dir, XP_DT_TCOVSD, &st_tcovsd, d, &err)) < 0)
		goto out;

	if (has_tcovd) {
		int stale = !has_tcovsd || ts_newer(&st_tcovd.st_mtim,
		                                    &st_tcovsd.st_mtim);
		if ((err = objfd_names(dir, &names, &nnames, d)))
			goto out;
		for (size_t i = 0; i < nnames && !stale; i++)
			if (stat(names[i], &st) == 0 &&
			    ts_newer(&st.st_mtim, &st_tcovsd.st_mtim))
				stale = 1;
		if (!stale) {
			info->source = XP_DT_TCOVSD;
			note_mtime(info, &st_tcovd);
			err = combine_tcovd(dir, names, nnames, 1, out, info, d);
			goto out;
		}
		info->source = XP_DT_TCOVD;
		note_mtime(info, &st_tcovd);
		err = combine_tcovd(dir, names, nnames, 0, out, info, d);
		if (!err && update)
			update_tcovsd(dir, lock, *out, info, d);
		goto out;
	}
	if (has_tcovsd) {
		info->source = XP_DT_TCOVSD;
		note_mtime(info, &st_tcovsd);
		err = tcov_of(dir, XP_DT_TCOVSD, out, d);
		goto out;
	}
	int has_fb = stat_data(dir, XP_DT_FEEDBACK, &st, d, &err);
	if (has_fb < 0)
		goto out;
	if (!has_fb) {
		if (stat(dir, &st) != 0)
			err = xp_diag_file(d, XP_E_NOTFOUND, dir,
			                   "no such profile directory");
		else
			err = xp_diag_file(d, XP_E_NOTFOUND, dir,
			                   "no coverage data (no tcovd, tcovsd or "
			                   "feedback data)");
		goto out;
	}
	info->source = XP_DT_FEEDBACK;
	note_mtime(info, &st);
	err = tcov_of(dir, XP_DT_FEEDBACK, out, d);
out:
	xp_profdir_unlock(lock);
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	if (err) {
		xp_tcov_free(*out);
		*out = NULL;
	}
	return err;
}

xp_err xp_tcov_open(const char *path, int update, xp_tcov **out,
                    xp_tcov_info *info, xp_diags *d)
{
	xp_tcov_info dummy;
	struct stat st;
	xp_fb *fb = NULL;
	xp_err err;
	if (!info)
		info = &dummy;
	memset(info, 0, sizeof *info);
	*out = NULL;
	if (strcmp(path, "-") != 0 && stat(path, &st) == 0 &&
	    S_ISDIR(st.st_mode))
		return open_dir(path, update, out, info, d);
	if ((err = xp_open_any(path, &fb, d)))
		return err;
	info->source = xp_fb_datatype(fb);
	/* The file as it was when it was read; a file replaced meanwhile
	 * only makes the check of newer sources more lenient. */
	if (strcmp(path, "-") != 0 && stat(path, &st) == 0)
		note_mtime(info, &st);
	err = xp_tcov_new(fb, strcmp(path, "-") == 0 ? "<stdin>" : path, out, d);
	xp_fb_free(fb);
	return err;
}
