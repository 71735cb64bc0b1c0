/*
 * dcpi/feedback.c - converts a DCPI profile into the feedback model
 * (dcpi(5), CONVERSION TO FEEDBACK), symbolized with the image through
 * the library's libbfd symbolizer (xp_sym_*).
 *
 * Every sampled address tstart + offset (tstart from the header, or the
 * start of the image's lowest code section when the header has none) is
 * mapped to the function that contains it and to its source line.  One
 * OBJFILE section holds the image; each function with samples becomes a
 * PROC whose counter k is the number of samples of its k-th source line
 * (by file, then line), with a block k counted by counter k and a source
 * mapping tuple for block k; a function without line information gets a
 * single counter.  The SRCFILE sections list, per file and line, the
 * blocks of every function that has samples on that line.
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
} sample;

static int strcmp_null(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

/* Function (address, name), then file, then line. */
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

typedef struct {
	const char *name;
	uint32_t idx;
} pname;

static int cmp_pname(const void *x, const void *y)
{
	const pname *a = x, *b = y;
	int c = strcmp(a->name, b->name);

	return c != 0 ? c : (a->idx > b->idx) - (a->idx < b->idx);
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

/* Builds the profile from the samples, grouped and sorted. */
static xp_err build(const xp_dcpi *m, const char *path, sample *s, size_t n,
                    size_t nprocs, xp_fb **out)
{
	xp_fbb *b = xp_fbb_new(XP_DT_FEEDBACK, 4, 0);
	pname *pn = NULL;
	char **names = NULL;
	const sample **byline = NULL;
	size_t nl = 0, nfiles = 0;
	xp_objfile of = { 0 };
	xp_str objpath;
	xp_err err = XP_E_NOMEM;

	if (b == NULL)
		return XP_E_NOMEM;
	pn = calloc(nprocs ? nprocs : 1, sizeof *pn);
	names = calloc(nprocs ? nprocs : 1, sizeof *names);
	byline = calloc(n ? n : 1, sizeof *byline);
	if (pn == NULL || names == NULL || byline == NULL)
		goto out;
	/* Procedure names must be unique in an object file: a second
	 * function of the same name (a static one elsewhere) is called
	 * name@0x<address>. */
	for (size_t i = 0; i < n; i++)
		if (i == 0 || s[i].proc != s[i - 1].proc) {
			pn[s[i].proc].name = s[i].sym->name;
			pn[s[i].proc].idx = s[i].proc;
		}
	xp_qsort(pn, nprocs, sizeof *pn, cmp_pname);
	for (size_t i = 1; i < nprocs; i++) {
		if (strcmp(pn[i].name, pn[i - 1].name) != 0)
			continue;
		for (size_t j = 0; j < n; j++) {
			char buf[32];
			size_t len;
			if (s[j].proc != pn[i].idx)
				continue;
			len = (size_t)snprintf(buf, sizeof buf, "@0x%" PRIx64,
			                       s[j].sym->addr);
			names[pn[i].idx] = malloc(strlen(pn[i].name) + len + 1);
			if (names[pn[i].idx] == NULL)
				goto out;
			strcpy(names[pn[i].idx], pn[i].name);
			strcat(names[pn[i].idx], buf);
			break;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (s[i].file != NULL && s[i].line != 0)
			byline[nl++] = &s[i];
	xp_qsort(byline, nl, sizeof *byline, cmp_srcline);
	for (size_t i = 0; i < nl; i++)
		if (i == 0 || strcmp(byline[i]->file, byline[i - 1]->file) != 0)
			nfiles++;

	if ((err = xp_fbb_intern(b, path, strlen(path), &objpath)) != XP_E_OK)
		goto out;
	of.path = objpath;
	of.tv_sec = epoch_secs(m);
	of.signature = image_sig(m);
	of.n_srcfile_names = (uint32_t)nfiles;
	if ((err = xp_fbb_begin_objfile(b, &of)) != XP_E_OK)
		goto out;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		uint32_t ntup = 0;
		const char *nm;
		xp_proc p = { 0 };

		while (j < n && s[j].proc == s[i].proc) {
			ntup += s[j].line != 0;
			j++;
		}
		nm = names[s[i].proc] != NULL ? names[s[i].proc]
		                              : s[i].sym->name;
		if ((err = xp_fbb_intern(b, nm, strlen(nm), &p.name)) != XP_E_OK)
			goto out;
		p.proc_id = s[i].proc + 1;
		p.n_srcmap_ops = ntup;
		if ((err = xp_fbb_begin_proc(b, &p)) != XP_E_OK)
			goto out;
		for (size_t k = i; k < j; k++)
			if ((err = xp_fbb_add_counter(b, s[k].block,
			                              s[k].count)) != XP_E_OK)
				goto out;
		for (size_t k = i; k < j; k++)
			if ((err = xp_fbb_add_block(b, s[k].block,
			                            s[k].block)) != XP_E_OK)
				goto out;
		for (size_t k = i, t = 1; k < j; k++) {
			xp_tuple tu = { 0 };
			if (s[k].line == 0)
				continue;
			tu.id = (uint32_t)t++;
			tu.block = s[k].block;
			tu.line = s[k].line;
			tu.srcfile = XP_NOSTR;
			if (s[k].file != NULL &&
			    (err = xp_fbb_intern(b, s[k].file, strlen(s[k].file),
			                         &tu.srcfile)) != XP_E_OK)
				goto out;
			if ((err = xp_fbb_add_tuple(b, &tu)) != XP_E_OK)
				goto out;
		}
		i = j;
	}
	for (size_t i = 0; i < nl;) {
		xp_str fp;
		const char *file = byline[i]->file;

		if ((err = xp_fbb_intern(b, file, strlen(file), &fp)) != XP_E_OK ||
		    (err = xp_fbb_begin_srcfile(b, fp)) != XP_E_OK)
			goto out;
		while (i < nl && strcmp(byline[i]->file, file) == 0) {
			unsigned line = byline[i]->line;
			if ((err = xp_fbb_begin_srcline(b, line, 0)) != XP_E_OK)
				goto out;
			for (; i < nl && byline[i]->line == line &&
			       strcmp(byline[i]->file, file) == 0; i++) {
				const sample *x = byline[i];
				const char *nm = names[x->proc] != NULL ?
				                 names[x->proc] : x->sym->name;
				xp_blockref br = { 0 };
				br.block = x->block;
				br.count = x->count;
				br.objfile = objpath;
				if ((err = xp_fbb_intern(b, nm, strlen(nm),
				                         &br.proc)) != XP_E_OK ||
				    (err = xp_fbb_add_blockref(b, &br)) != XP_E_OK)
					goto out;
			}
		}
	}
	err = xp_fbb_finish(b, out);
out:
	if (names != NULL)
		for (size_t i = 0; i < nprocs; i++)
			free(names[i]);
	free(names);
	free(pn);
	free(byline);
	xp_fbb_free(b);
	return err;
}

xp_err xp_dcpi_to_feedback(const void *mv, const xp_conv_opts *o,
                           xp_fb **out, xp_diags *d)
{
	const xp_dcpi *m = mv;
	char *path = NULL;
	xp_sym *sym = NULL;
	sample *s = NULL;
	size_t n = 0, cap = 0, nprocs = 0;
	uint64_t base, hi, lost = 0, lost_addrs = 0;
	xp_err err;

	*out = NULL;
	if (o->exe != NULL) {
		path = strdup(o->exe);
	} else {
		const char *v;
		size_t len;
		if (xp_dcpi_value(m, XP_DCPI_PATH, &v, &len) != 0)
			return xp_diag_file(d, XP_E_INVAL, "", "a DCPI profile "
			                    "without a path line needs its "
			                    "image (-e) to be converted");
		if ((path = malloc(len + 1)) != NULL) {
			memcpy(path, v, len);
			path[len] = '\0';
		}
	}
	if (path == NULL)
		return XP_E_NOMEM;
	if ((err = xp_sym_open(path, &sym, d)) != XP_E_OK)
		goto out;
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

			if (cnt == 0)
				continue;
			if ((y = xp_sym_lookup(sym, addr)) == NULL) {
				lost += cnt;
				lost_addrs++;
				continue;
			}
			if (n == cap) {
				size_t nc = cap ? cap * 2 : 256;
				sample *ns = realloc(s, nc * sizeof *ns);
				if (ns == NULL) {
					err = XP_E_NOMEM;
					goto out;
				}
				s = ns;
				cap = nc;
			}
			if (xp_sym_line(sym, addr, &file, &func, &line) != 0)
				file = NULL, line = 0;
			s[n].sym = y;
			s[n].file = line != 0 ? file : NULL;
			s[n].line = file != NULL ? line : 0;
			s[n].count = cnt;
			n++;
		}
	}
	if (lost > 0)
		xp_diag_warn(d, path, "%" PRIu64 " samples at %" PRIu64
		             " addresses fall in no function and are left out",
		             lost, lost_addrs);
	xp_qsort(s, n, sizeof *s, cmp_sample);
	/* Sum the samples of one line of one function; number procedures
	 * and their blocks. */
	{
		size_t w = 0;
		uint32_t blk = 0;
		for (size_t i = 0; i < n; i++) {
			if (w > 0 && cmp_sample(&s[w - 1], &s[i]) == 0) {
				s[w - 1].count += s[i].count;
				continue;
			}
			if (w == 0 || s[w - 1].sym != s[i].sym) {
				nprocs++;
				blk = 0;
			}
			s[w] = s[i];
			s[w].proc = (uint32_t)(nprocs - 1);
			s[w].block = ++blk;
			w++;
		}
		n = w;
	}
	err = build(m, path, s, n, nprocs, out);
out:
	free(s);
	xp_sym_free(sym);
	free(path);
	return err;
}
