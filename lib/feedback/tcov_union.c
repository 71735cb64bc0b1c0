/*
 * feedback/tcov_union.c - several coverages as one (xp_tcov_union()):
 * profiles of several builds or test programs reported together.
 *
 * The union is taken per source path, line by line, the way lcov adds
 * tracefiles (lcov -a): a line's counts are the sums of its counts in
 * each coverage, so that it ran when any coverage ran it; procedures are
 * merged by name and branches by line, procedure, block and edge, their
 * counts summed.  Blocks are the same block when object file, procedure,
 * id, leader line and column agree (one build's in two runs), and their
 * counts are summed; the lines' block figures follow from the merged
 * blocks.
 */
#include "feedback/tcov_int.h"

/* One input file of a path, and where its rows went. */
typedef struct {
	const xp_tcov_file *f;
	size_t input;
} member;

typedef struct {
	xp_tcov *c;              /* the union being built */
	size_t nb_at, nl_at, nf_at, nloc_at, nbr_at;
	uint32_t *bmap;          /* block of a member (at its offset) -> new */
	uint32_t *mark;          /* per new block, for put_lines_of */
} ustate;

#define CMP(x, y) do { if ((x) != (y)) return (x) < (y) ? -1 : 1; } while (0)

/* The union's copy of a string (interned by intern_all() already). */
static const char *str_of(xp_tcov *c, const char *s)
{
	uint32_t id = 0;
	/* Every string is in the pool by now: this finds it and never grows
	 * the pool's bytes, so earlier pointers stay valid. */
	xp_strpool_intern(&c->sp, s, strlen(s), &id);
	return xp_strpool_str(&c->sp, id);
}

/* Puts every string of the inputs into the union's pool. */
static xp_err intern_all(xp_tcov *c, const xp_tcov *const *v, size_t n)
{
	uint32_t id;
	xp_err err = XP_E_OK;
#define IN(s) if (!err) err = xp_strpool_intern(&c->sp, (s), strlen(s), &id)
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < v[i]->n_files; k++) {
			const xp_tcov_file *f = &v[i]->files[k];
			IN(f->path);
			for (size_t j = 0; j < f->n_blocks; j++) {
				IN(f->blocks[j].objfile);
				IN(f->blocks[j].proc);
			}
			for (size_t j = 0; j < f->n_funcs; j++)
				IN(f->funcs[j].name);
			for (size_t j = 0; j < f->n_branches; j++)
				IN(f->branches[j].proc);
		}
	}
#undef IN
	return err;
}

static int cmp_block(const void *a, const void *b)
{
	const xp_tcov_block *x = a, *y = b;
	int c;
	CMP(x->line, y->line);
	CMP(x->col, y->col);
	if ((c = strcmp(x->objfile, y->objfile)) != 0 ||
	    (c = strcmp(x->proc, y->proc)) != 0)
		return c;
	CMP(x->id, y->id);
	return 0;
}

/* A block with the place it came from, while blocks are merged. */
typedef struct {
	xp_tcov_block b;
	size_t from;   /* index into the members' concatenated blocks */
} tagged;

static int cmp_tagged(const void *a, const void *b)
{
	return cmp_block(&((const tagged *)a)->b, &((const tagged *)b)->b);
}

/* The file's blocks: equal ones summed; st->bmap maps the members'
 * blocks (one after the other) to them. */
static xp_err union_blocks(ustate *st, const member *m, size_t nm,
                           xp_tcov_file *out)
{
	xp_tcov *c = st->c;
	size_t n = 0, k = 0;
	for (size_t i = 0; i < nm; i++)
		n += m[i].f->n_blocks;
	tagged *t = calloc(n ? n : 1, sizeof *t);
	if (!t)
		return XP_E_NOMEM;
	for (size_t i = 0; i < nm; i++)
		for (size_t j = 0; j < m[i].f->n_blocks; j++, k++) {
			t[k].b = m[i].f->blocks[j];
			t[k].b.objfile = str_of(c, t[k].b.objfile);
			t[k].b.proc = str_of(c, t[k].b.proc);
			t[k].from = k;
		}
	xp_qsort(t, n, sizeof *t, cmp_tagged);
	xp_tcov_block *blocks = c->blocks + st->nb_at;
	out->blocks = blocks;
	for (size_t i = 0; i < n; i++) {
		if (out->n_blocks > 0 &&
		    cmp_block(&blocks[out->n_blocks - 1], &t[i].b) == 0) {
			xp_tcov_block *last = &blocks[out->n_blocks - 1];
			last->count = xp_sat_add(last->count, t[i].b.count);
		} else {
			blocks[out->n_blocks++] = t[i].b;
		}
		st->bmap[t[i].from] = (uint32_t)(out->n_blocks - 1);
	}
	for (size_t i = 0; i < out->n_blocks; i++) {
		out->n_blocks_hit += blocks[i].count > 0;
		out->sum = xp_sat_add(out->sum, blocks[i].count);
	}
	st->nb_at += out->n_blocks;
	free(t);
	return XP_E_OK;
}

/* The file's locations, the members' with their blocks mapped. */
static void union_locs(ustate *st, const member *m, size_t nm,
                       xp_tcov_file *out)
{
	xp_tcov_loc *locs = st->c->locs + st->nloc_at;
	size_t n = 0, boff = 0;
	for (size_t i = 0; i < nm; i++) {
		for (size_t j = 0; j < m[i].f->n_locs; j++) {
			locs[n] = m[i].f->locs[j];
			locs[n].block = st->bmap[boff + locs[n].block];
			n++;
		}
		boff += m[i].f->n_blocks;
	}
	xp_qsort(locs, n, sizeof *locs, xp_tcov_cmp_loc);
	out->locs = locs;
	out->n_locs = 0;
	for (size_t i = 0; i < n; i++)
		if (out->n_locs == 0 || xp_tcov_cmp_loc(&locs[out->n_locs - 1], &locs[i]))
			locs[out->n_locs++] = locs[i];
	st->nloc_at += out->n_locs;
}

static int cmp_line(const void *a, const void *b)
{
	CMP(((const xp_tcov_line *)a)->line, ((const xp_tcov_line *)b)->line);
	return 0;
}

/*
 * The file's lines: counts summed line by line; the blocks covering a
 * line and those beginning on it counted over the merged blocks.
 */
static void union_lines(ustate *st, const member *m, size_t nm,
                        xp_tcov_file *out)
{
	xp_tcov_line *lines = st->c->lines + st->nl_at;
	size_t n = 0, li = 0;
	for (size_t i = 0; i < nm; i++)
		for (size_t j = 0; j < m[i].f->n_lines; j++)
			lines[n++] = m[i].f->lines[j];
	xp_qsort(lines, n, sizeof *lines, cmp_line);
	out->lines = lines;
	for (size_t i = 0; i < n; i++) {
		xp_tcov_line *last = out->n_lines ? &lines[out->n_lines - 1] : NULL;
		if (last && last->line == lines[i].line) {
			last->count = xp_sat_add(last->count, lines[i].count);
			last->max = xp_sat_add(last->max, lines[i].max);
		} else {
			lines[out->n_lines++] = lines[i];
		}
	}
	memset(st->mark, 0, (out->n_blocks ? out->n_blocks : 1) *
	                    sizeof *st->mark);
	for (size_t i = 0; i < out->n_lines; i++) {
		xp_tcov_line *ln = &lines[i];
		ln->n_blocks = ln->n_leaders = 0;
		while (li < out->n_locs && out->locs[li].line < ln->line)
			li++;
		for (; li < out->n_locs && out->locs[li].line == ln->line; li++) {
			uint32_t b = out->locs[li].block;
			if (st->mark[b] == i + 1)
				continue;
			st->mark[b] = (uint32_t)i + 1;
			ln->n_blocks++;
			ln->n_leaders += out->blocks[b].line == ln->line;
		}
		out->n_lines_hit += ln->max > 0;
	}
	st->nl_at += out->n_lines;
}

static int cmp_func_name(const void *a, const void *b)
{
	return strcmp(((const xp_tcov_func *)a)->name,
	              ((const xp_tcov_func *)b)->name);
}

static int cmp_func_line(const void *a, const void *b)
{
	const xp_tcov_func *x = a, *y = b;
	CMP(x->line, y->line);
	return strcmp(x->name, y->name);
}

/* The file's procedures, merged by name: first line, counts summed. */
static void union_funcs(ustate *st, const member *m, size_t nm,
                        xp_tcov_file *out)
{
	xp_tcov_func *funcs = st->c->funcs + st->nf_at;
	size_t n = 0;
	for (size_t i = 0; i < nm; i++)
		for (size_t j = 0; j < m[i].f->n_funcs; j++) {
			funcs[n] = m[i].f->funcs[j];
			funcs[n].name = str_of(st->c, funcs[n].name);
			n++;
		}
	xp_qsort(funcs, n, sizeof *funcs, cmp_func_name);
	for (size_t i = 0; i < n; i++) {
		xp_tcov_func *last = out->n_funcs ? &funcs[out->n_funcs - 1] : NULL;
		if (last && strcmp(last->name, funcs[i].name) == 0) {
			if (funcs[i].line < last->line)
				last->line = funcs[i].line;
			last->count = xp_sat_add(last->count, funcs[i].count);
		} else {
			funcs[out->n_funcs++] = funcs[i];
		}
	}
	xp_qsort(funcs, out->n_funcs, sizeof *funcs, cmp_func_line);
	out->funcs = funcs;
	for (size_t i = 0; i < out->n_funcs; i++)
		out->n_funcs_hit += funcs[i].count > 0;
	st->nf_at += out->n_funcs;
}

static int cmp_branch(const void *a, const void *b)
{
	const xp_tcov_branch *x = a, *y = b;
	int c;
	CMP(x->line, y->line);
	if ((c = strcmp(x->proc, y->proc)) != 0)
		return c;
	CMP(x->block, y->block);
	CMP(x->edge, y->edge);
	return 0;
}

/* The file's branches, the same branch's counts summed. */
static void union_branches(ustate *st, const member *m, size_t nm,
                           xp_tcov_file *out)
{
	xp_tcov_branch *br = st->c->branches + st->nbr_at;
	size_t n = 0;
	for (size_t i = 0; i < nm; i++)
		for (size_t j = 0; j < m[i].f->n_branches; j++) {
			br[n] = m[i].f->branches[j];
			br[n].proc = str_of(st->c, br[n].proc);
			n++;
		}
	xp_qsort(br, n, sizeof *br, cmp_branch);
	out->branches = br;
	for (size_t i = 0; i < n; i++) {
		xp_tcov_branch *last = out->n_branches ? &br[out->n_branches - 1]
		                                       : NULL;
		if (last && cmp_branch(last, &br[i]) == 0) {
			last->count = xp_sat_add(last->count, br[i].count);
			last->block_count = xp_sat_add(last->block_count,
			                                    br[i].block_count);
		} else {
			br[out->n_branches++] = br[i];
		}
	}
	for (size_t i = 0; i < out->n_branches; i++)
		out->n_branches_hit += br[i].count > 0;
	st->nbr_at += out->n_branches;
}

/* The inputs' files, by path, then input. */
static int cmp_member(const void *a, const void *b)
{
	const member *x = a, *y = b;
	int c = strcmp(x->f->path, y->f->path);
	if (c)
		return c;
	CMP(x->input, y->input);
	return 0;
}

/* Allocates the union's tables, each as large as all inputs' together. */
static xp_err alloc_tables(xp_tcov *c, const xp_tcov *const *v, size_t n,
                           size_t nfiles, size_t *maxb)
{
	size_t nb = 0, nl = 0, nf = 0, nloc = 0, nbr = 0;
	*maxb = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < v[i]->n_files; k++) {
			const xp_tcov_file *f = &v[i]->files[k];
			nb += f->n_blocks;
			nl += f->n_lines;
			nf += f->n_funcs;
			nloc += f->n_locs;
			nbr += f->n_branches;
		}
	*maxb = nb;
	c->files = calloc(nfiles ? nfiles : 1, sizeof *c->files);
	c->blocks = calloc(nb ? nb : 1, sizeof *c->blocks);
	c->lines = calloc(nl ? nl : 1, sizeof *c->lines);
	c->funcs = calloc(nf ? nf : 1, sizeof *c->funcs);
	c->locs = calloc(nloc ? nloc : 1, sizeof *c->locs);
	c->branches = calloc(nbr ? nbr : 1, sizeof *c->branches);
	if (!c->files || !c->blocks || !c->lines || !c->funcs || !c->locs ||
	    !c->branches)
		return XP_E_NOMEM;
	return XP_E_OK;
}

xp_err xp_tcov_union(const xp_tcov *const *v, size_t n, xp_tcov **out)
{
	xp_tcov *c = calloc(1, sizeof *c);
	ustate st = {c, 0, 0, 0, 0, 0, NULL, NULL};
	member *m = NULL;
	size_t nm = 0, maxb = 0;
	xp_err err = XP_E_NOMEM;

	*out = NULL;
	for (size_t i = 0; i < n; i++)
		nm += v[i]->n_files;
	if (!c || !(m = calloc(nm ? nm : 1, sizeof *m)))
		goto fail;
	nm = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < v[i]->n_files; k++)
			m[nm++] = (member){&v[i]->files[k], i};
	xp_qsort(m, nm, sizeof *m, cmp_member);
	for (size_t i = 0; i < nm; i++)
		if (i == 0 || strcmp(m[i - 1].f->path, m[i].f->path) != 0)
			c->n_files++;
	if ((err = intern_all(c, v, n)) ||
	    (err = alloc_tables(c, v, n, c->n_files, &maxb)))
		goto fail;
	err = XP_E_NOMEM;
	if (!(st.bmap = calloc(maxb ? maxb : 1, sizeof *st.bmap)) ||
	    !(st.mark = calloc(maxb ? maxb : 1, sizeof *st.mark)))
		goto fail;
	for (size_t i = 0, fi = 0; i < nm; fi++) {
		size_t j = i + 1;
		while (j < nm && strcmp(m[i].f->path, m[j].f->path) == 0)
			j++;
		xp_tcov_file *f = &c->files[fi];
		f->path = str_of(c, m[i].f->path);
		if ((err = union_blocks(&st, m + i, j - i, f)))
			goto fail;
		union_locs(&st, m + i, j - i, f);
		union_lines(&st, m + i, j - i, f);
		union_funcs(&st, m + i, j - i, f);
		union_branches(&st, m + i, j - i, f);
		i = j;
	}
	XP_FREE(m, st.bmap, st.mark);
	*out = c;
	return XP_E_OK;
fail:
	XP_FREE(m, st.bmap, st.mark);
	xp_tcov_free(c);
	return err;
}
