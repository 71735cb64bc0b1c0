/*
 * dcpi/feedback.c - converts a DCPI profile into the feedback model
 * (dcpi(5), CONVERSION TO FEEDBACK), symbolized with the image through
 * the library's libbfd symbolizer (xp_sym_*).
 *
 * Every sampled address tstart + offset (tstart from the header, or the
 * start of the image's lowest code section when the header has none) is
 * mapped to the function that contains it and to its source line.  One
 * OBJFILE section holds the image; every function of the image's text
 * (xp_sym_functions: never-run ones too) and every function with samples
 * becomes a PROC.  Its block 1, without a counter, is its entry, mapped
 * to its first line, with all its samples as its count in the SRCFILE
 * section; its counter k, the number of samples of its k-th source line
 * (by file, then line), counts block k + 1, which a tuple maps to that
 * line.  So the counters sum to the function's own samples and nothing
 * else.  The SRCFILE sections list, per file and line, the blocks of
 * every function on that line.
 */
#include <inttypes.h>
#include <stdio.h>

#include "dcpi/dcpi.h"

typedef struct {
	const xp_symbol *sym;
	const char *file;   /* NULL: unknown */
	unsigned line;      /* 0: unknown */
	uint64_t count;
	uint32_t proc;      /* index of its procedure */
	uint32_t block;     /* its block id there */
	int entry;          /* the function's entry, not samples */
} sample;

static int strcmp_null(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

/* Function (address, name), its entry first, then file, then line. */
static int cmp_sample(const void *x, const void *y)
{
	const sample *a = x, *b = y;
	int c;

	if (a->sym != b->sym) {
		if (a->sym->addr != b->sym->addr)
			return a->sym->addr < b->sym->addr ? -1 : 1;
		if ((c = strcmp(a->sym->name, b->sym->name)) != 0)
			return c;
	}
	if (a->entry != b->entry)
		return a->entry ? -1 : 1;
	if ((c = strcmp_null(a->file, b->file)) != 0)
		return c;
	return (a->line > b->line) - (a->line < b->line);
}

/* File, line, then procedure. */
static int cmp_srcline(const void *x, const void *y)
{
	const sample *a = *(const sample *const *)x;
	const sample *b = *(const sample *const *)y;
	int c = strcmp(a->file, b->file);

	if (c != 0)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return (a->proc > b->proc) - (a->proc < b->proc);
}

/* The low 64 bits of the image id. */
static uint64_t image_sig(const xp_dcpi *m)
{
	const char *v;
	size_t n;
	uint64_t x = 0;

	if (xp_dcpi_value(m, XP_DCPI_IMAGE, &v, &n) != 0)
		return 0;
	for (size_t i = n > 16 ? n - 16 : 0; i < n; i++) {
		int c = (unsigned char)v[i];
		x = x << 4 | (uint64_t)(c <= '9' ? c - '0' :
		                        (c | 0x20) - 'a' + 10);
	}
	return x;
}

static uint32_t epoch_secs(const xp_dcpi *m)
{
	const char *v, *what;
	size_t n, at;
	int64_t t;
	int lo, hi;

	if (xp_dcpi_value(m, XP_DCPI_EPOCH, &v, &n) != 0 ||
	    xp_dcpi_epoch(v, n, &t, &at, &what, &lo, &hi) != 0 || t < 0 ||
	    t > UINT32_MAX)
		return 0;
	return (uint32_t)t;
}

/* What building the feedback works with: the samples, grouped and
 * sorted, the names given to procedures and the builder. */
typedef struct {
	const sample *s;
	size_t n, nprocs;
	char **names;          /* a procedure's name@0x<address>, or NULL */
	const sample **byline; /* the samples with a line, by file and line */
	size_t nl;
	xp_fbb *b;
	xp_str objpath;
} fbbuild;

/* The name of x's procedure in the object file. */
static const char *proc_name(const fbbuild *c, const sample *x)
{
	return c->names[x->proc] != NULL ? c->names[x->proc] : x->sym->name;
}

/* Procedure names must be unique in an object file: a second function of
 * the same name (a static one elsewhere) is called name@0x<address>
 * (xp_fb_names_apart). */
static xp_err unique_names(fbbuild *c)
{
	const sample *s = c->s;
	const char **nm = calloc(c->nprocs + 1, sizeof *nm);
	uint64_t *ad = calloc(c->nprocs + 1, sizeof *ad);
	xp_err err = XP_E_NOMEM;

	if (nm != NULL && ad != NULL) {
		for (size_t i = 0; i < c->n; i++) {
			nm[s[i].proc] = s[i].sym->name;
			ad[s[i].proc] = s[i].sym->addr;
		}
		err = xp_fb_names_apart(nm, ad, c->nprocs, c->names);
	}
	XP_FREE(nm, ad);
	return err;
}

/* The procedure of samples i up to j, its entry first: a block per
 * sample, a counter for every block but the entry, a tuple per sample
 * with a line. */
static xp_err add_proc(fbbuild *c, size_t i, size_t j)
{
	const sample *s = c->s;
	const char *nm = proc_name(c, &s[i]);
	xp_proc p = { 0 };
	uint32_t ntup = 0;
	xp_err err;

	for (size_t k = i; k < j; k++)
		ntup += s[k].line != 0;
	if ((err = xp_fbb_intern_proc(c->b, nm, &p.name)) != XP_E_OK)
		return err;
	p.proc_id = s[i].proc + 1;
	p.n_srcmap_ops = ntup;
	if ((err = xp_fbb_begin_proc(c->b, &p)) != XP_E_OK)
		return err;
	for (size_t k = i; k < j; k++)
		if (!s[k].entry &&
		    (err = xp_fbb_add_counter(c->b, s[k].block - 1,
		                              s[k].count)) != XP_E_OK)
			return err;
	for (size_t k = i; k < j; k++)
		if ((err = xp_fbb_add_block(c->b, s[k].block, s[k].entry ? 0 :
		                            s[k].block - 1)) != XP_E_OK)
			return err;
	for (size_t k = i, t = 1; k < j; k++) {
		xp_tuple tu = { 0 };
		if (s[k].line == 0)
			continue;
		tu.id = (uint32_t)t++;
		tu.block = s[k].block;
		tu.line = s[k].line;
		tu.srcfile = XP_NOSTR;
		if (s[k].file != NULL &&
		    (err = xp_fbb_intern(c->b, s[k].file, strlen(s[k].file),
		                         &tu.srcfile)) != XP_E_OK)
			return err;
		if ((err = xp_fbb_add_tuple(c->b, &tu)) != XP_E_OK)
			return err;
	}
	return XP_E_OK;
}

/* The SRCFILE sections: per file and line, the blocks of the procedures
 * with samples there. */
static xp_err add_srcfiles(fbbuild *c)
{
	const sample **byline = c->byline;
	size_t nl = c->nl;
	xp_err err;

	for (size_t i = 0; i < nl;) {
		xp_str fp;
		const char *file = byline[i]->file;

		if ((err = xp_fbb_intern(c->b, file, strlen(file), &fp)) !=
		    XP_E_OK ||
		    (err = xp_fbb_begin_srcfile(c->b, fp)) != XP_E_OK)
			return err;
		while (i < nl && strcmp(byline[i]->file, file) == 0) {
			unsigned line = byline[i]->line;
			if ((err = xp_fbb_begin_srcline(c->b, line, 0)) !=
			    XP_E_OK)
				return err;
			for (; i < nl && byline[i]->line == line &&
			       strcmp(byline[i]->file, file) == 0; i++) {
				const sample *x = byline[i];
				const char *nm = proc_name(c, x);
				xp_blockref br = { 0 };
				br.block = x->block;
				br.count = x->count;
				br.objfile = c->objpath;
				if ((err = xp_fbb_intern_proc(c->b, nm,
				                              &br.proc)) != XP_E_OK ||
				    (err = xp_fbb_add_blockref(c->b, &br)) !=
				    XP_E_OK)
					return err;
			}
		}
	}
	return XP_E_OK;
}

/* Builds the profile from the samples, grouped and sorted. */
static xp_err build(const xp_dcpi *m, const char *path, sample *s, size_t n,
                    size_t nprocs, xp_fb **out, xp_diags *d)
{
	fbbuild c = { 0 };
	size_t nfiles = 0;
	xp_objfile of = { 0 };
	xp_err err = XP_E_NOMEM;

	c.s = s;
	c.n = n;
	c.nprocs = nprocs;
	if ((c.b = xp_fbb_new(XP_DT_FEEDBACK, 4, 0)) == NULL)
		return XP_E_NOMEM;
	xp_fbb_set_diags(c.b, d);
	c.names = calloc(nprocs ? nprocs : 1, sizeof *c.names);
	c.byline = calloc(n ? n : 1, sizeof *c.byline);
	if (c.names == NULL || c.byline == NULL)
		goto out;
	if ((err = unique_names(&c)) != XP_E_OK)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (s[i].file != NULL && s[i].line != 0)
			c.byline[c.nl++] = &s[i];
	xp_qsort(c.byline, c.nl, sizeof *c.byline, cmp_srcline);
	for (size_t i = 0; i < c.nl; i++)
		if (i == 0 ||
		    strcmp(c.byline[i]->file, c.byline[i - 1]->file) != 0)
			nfiles++;

	if ((err = xp_fbb_intern(c.b, path, strlen(path), &c.objpath)) !=
	    XP_E_OK)
		goto out;
	of.path = c.objpath;
	of.tv_sec = epoch_secs(m);
	of.signature = image_sig(m);
	of.n_srcfile_names = (uint32_t)nfiles;
	if ((err = xp_fbb_begin_objfile(c.b, &of)) != XP_E_OK)
		goto out;
	for (size_t i = 0, j = 0; i < n; i = j) {
		while (j < n && s[j].proc == s[i].proc)
			j++;
		if ((err = add_proc(&c, i, j)) != XP_E_OK)
			goto out;
	}
	if ((err = add_srcfiles(&c)) != XP_E_OK)
		goto out;
	err = xp_fbb_finish(c.b, out);
out:
	if (c.names != NULL)
		for (size_t i = 0; i < nprocs; i++)
			free(c.names[i]);
	free(c.names);
	free(c.byline);
	xp_fbb_free(c.b);
	return err;
}

/* The samples of a profile and where they go. */
typedef struct {
	sample *s;
	size_t n, cap;
} samples;

/* Room for one more sample; NULL when out of memory. */
static sample *new_sample(samples *v)
{
	if (xp_grow(&v->s, &v->cap, v->n,
	            sizeof *v->s) != XP_E_OK)
		return NULL;
	memset(&v->s[v->n], 0, sizeof v->s[v->n]);
	return &v->s[v->n++];
}

/* Every sampled address, as its function and source line. */
static xp_err gather_samples(const xp_dcpi *m, xp_sym *sym,
                             const char *path, samples *v, xp_diags *d)
{
	uint64_t base, hi, lost = 0, lost_addrs = 0;

	if (xp_dcpi_tstart(m, &base) != 0)
		xp_sym_text_range(sym, &base, &hi);
	for (size_t c = 0; c < m->nchunks; c++) {
		const xp_dcpi_chunk *ch = &m->chunks[c];
		for (uint32_t j = 0; j < ch->number; j++) {
			uint32_t cnt = m->counts[ch->first + j];
			uint64_t addr = base + ch->offset + j;
			const xp_symbol *y;
			const char *file, *func;
			unsigned line;
			sample *x;

			if (cnt == 0)
				continue;
			if ((y = xp_sym_lookup(sym, addr)) == NULL) {
				lost += cnt;
				lost_addrs++;
				continue;
			}
			if ((x = new_sample(v)) == NULL)
				return XP_E_NOMEM;
			if (xp_sym_line(sym, addr, &file, &func, &line) != 0)
				file = NULL, line = 0;
			x->sym = y;
			x->file = line != 0 ? file : NULL;
			x->line = file != NULL ? line : 0;
			x->count = cnt;
		}
	}
	if (lost > 0)
		xp_diag_warn(d, path, "%" PRIu64 " samples at %" PRIu64
		             " addresses fall in no function and are left out",
		             lost, lost_addrs);
	return XP_E_OK;
}

/* The entry of function y: its first line, no samples of its own. */
static xp_err add_entry(samples *v, xp_sym *sym, const xp_symbol *y)
{
	const char *file, *func;
	unsigned line;
	sample *x = new_sample(v);

	if (x == NULL)
		return XP_E_NOMEM;
	if (xp_sym_line(sym, y->addr, &file, &func, &line) != 0)
		file = NULL, line = 0;
	x->sym = y;
	x->file = line != 0 ? file : NULL;
	x->line = file != NULL ? line : 0;
	x->entry = 1;
	return XP_E_OK;
}

/* An entry for every function of the text and every function with
 * samples (the samples are sorted, n0 of them). */
static xp_err add_entries(samples *v, xp_sym *sym)
{
	const xp_symbol **fns;
	size_t nf, n0 = v->n;
	xp_err err;

	for (size_t i = 0; i < n0; i++)
		if ((i == 0 || v->s[i].sym != v->s[i - 1].sym) &&
		    (err = add_entry(v, sym, v->s[i].sym)) != XP_E_OK)
			return err;
	if ((err = xp_sym_functions(sym, &fns, &nf)) != XP_E_OK)
		return err;
	for (size_t i = 0; i < nf && err == XP_E_OK; i++)
		err = add_entry(v, sym, fns[i]);
	free(fns);
	return err;
}

/* Sums the samples of one line of one function and the duplicate
 * entries; numbers procedures and their blocks, the entry's count
 * being the sum of its function's samples.  Returns the number of
 * procedures. */
static size_t number_samples(samples *v)
{
	sample *s = v->s;
	size_t w = 0, nprocs = 0, e = 0;
	uint32_t blk = 0;

	xp_qsort(s, v->n, sizeof *s, cmp_sample);
	for (size_t i = 0; i < v->n; i++) {
		if (w > 0 && cmp_sample(&s[w - 1], &s[i]) == 0) {
			s[w - 1].count += s[i].count;
			if (!s[i].entry)
				s[e].count += s[i].count;
			continue;
		}
		if (w == 0 || s[w - 1].sym != s[i].sym) {
			nprocs++;
			blk = 0;
			e = w;
		}
		s[w] = s[i];
		s[w].proc = (uint32_t)(nprocs - 1);
		s[w].block = ++blk;
		if (!s[w].entry)
			s[e].count += s[w].count;
		w++;
	}
	v->n = w;
	return nprocs;
}

xp_err xp_dcpi_to_feedback(const void *mv, const xp_conv_opts *o,
                           xp_fb **out, xp_diags *d)
{
	const xp_dcpi *m = mv;
	char *path = NULL;
	xp_sym *sym = NULL;
	samples v = {0};
	size_t nprocs;
	xp_err err;

	*out = NULL;
	if (o->exe != NULL) {
		path = strdup(o->exe);
	} else {
		const char *val;
		size_t len;
		if (xp_dcpi_value(m, XP_DCPI_PATH, &val, &len) != 0)
			return xp_diag_file(d, XP_E_INVAL, "", "a DCPI profile "
			                    "without a path line needs its "
			                    "image (-e) to be converted");
		if ((path = malloc(len + 1)) != NULL) {
			memcpy(path, val, len);
			path[len] = '\0';
		}
	}
	if (path == NULL)
		return XP_E_NOMEM;
	if ((err = xp_sym_open(path, &sym, d)) != XP_E_OK ||
	    (err = gather_samples(m, sym, path, &v, d)) != XP_E_OK)
		goto out;
	xp_qsort(v.s, v.n, sizeof *v.s, cmp_sample);
	if ((err = add_entries(&v, sym)) != XP_E_OK)
		goto out;
	nprocs = number_samples(&v);
	err = build(m, path, v.s, v.n, nprocs, out, d);
out:
	free(v.s);
	xp_sym_free(sym);
	free(path);
	return err;
}
