/*
 * cpuprof/feedback.c - a CPU profile as feedback (xp_prof_to_feedback,
 * cpuprofile(5), CONVERSION TO FEEDBACK), from the same analysis of its
 * call chains that google-pprof's report makes (report.c).
 */
#include <stdio.h>

#include "cpuprof/cpuprof.h"

/*
 * One object file per profiled object, one procedure per function (and
 * per function of the executable's text, never-run ones too): block 1,
 * without a counter, its entry, mapped to its first line when that is
 * known, with its total (cumulative) samples as its count in the source
 * file section; then per source line where it had self samples a counter
 * k with those samples, counting block k + 1, and a tuple giving the
 * line, so that the counters sum to its self (flat) samples and nothing
 * else; a VP_PROC value profile record per function it called, with the
 * samples of the chains holding that call; a source file section per
 * file, each line listing the blocks with their samples.  Procedures go
 * by their functions' linker names (addrinfo.sym), not by the report's
 * demangled, shortened ones, which the feedback text cannot hold and a
 * compiler does not match feedback by.  cpuprofile(5) CONVERSION TO
 * FEEDBACK.
 */
typedef struct {
	const char *obj, *name;
	uint64_t symaddr;      /* the linker symbol's address, name its name */
	int bysym;             /* whether it is named by a linker symbol */
	char *apart;           /* the name told apart, or NULL */
	uint64_t self, total;
	size_t stamp;
	const char *efile;     /* the entry's source file, or NULL */
	unsigned eline;        /* its line, 0: unknown */
} fbproc;

/* A function of the executable's text: pool ids of its linker name and
 * first line's file (UINT32_MAX: none), that line and its address. */
typedef struct {
	uint32_t name, file;
	unsigned line;
	uint64_t addr;
} txfn;

typedef struct {
	size_t proc;
	const char *file;
	unsigned line;
	uint64_t count;
	uint32_t block;
} fbline;

typedef struct {
	size_t caller, callee;
	uint64_t count;
} fbpair;

static int cmp_proc(const void *x, const void *y)
{
	const fbproc *a = x, *b = y;
	int c = strcmp(a->obj, b->obj);
	if (c == 0)
		c = strcmp(a->name, b->name);
	if (c == 0 && a->bysym != b->bysym)
		c = a->bysym - b->bysym;
	if (c == 0 && a->bysym && a->symaddr != b->symaddr)
		c = a->symaddr < b->symaddr ? -1 : 1;
	return c;
}

static int cmp_line_by_proc(const void *x, const void *y)
{
	const fbline *a = x, *b = y;
	int c;
	if (a->proc != b->proc)
		return a->proc < b->proc ? -1 : 1;
	if ((c = strcmp(a->file, b->file)) != 0)
		return c;
	return a->line < b->line ? -1 : a->line > b->line;
}

static int cmp_line_by_file(const void *x, const void *y)
{
	const fbline *a = x, *b = y;
	int c = strcmp(a->file, b->file);
	if (c != 0)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->proc != b->proc)
		return a->proc < b->proc ? -1 : 1;
	return a->block < b->block ? -1 : a->block > b->block;
}

static int cmp_pair(const void *x, const void *y)
{
	const fbpair *a = x, *b = y;
	if (a->caller != b->caller)
		return a->caller < b->caller ? -1 : 1;
	return a->callee < b->callee ? -1 : a->callee > b->callee;
}

/* v, an array of n elements of size sz, grown to hold one more; NULL
 * when out of memory, with v left as it was for its owner to free. */
static void *grow1(void *v, size_t n, size_t *cap, size_t sz)
{
	if (n < *cap)
		return v;
	size_t c = *cap ? 2 * *cap : 64;
	void *q = realloc(v, c * sz);
	if (q != NULL)
		*cap = c;
	return q;
}

/* The conversion's state: the analysis, what is gathered from its chains
 * and the feedback being built. */
typedef struct {
	const xp_cpuprof *p;
	xp_cp_an an;
	const char *unknown;   /* the object of an address in none */
	const char *exe;       /* the executable, as given, or NULL */
	txfn *tx;              /* the functions of its text */
	size_t ntx;
	fbproc *pr;            /* the functions, sorted and distinct */
	size_t npr;
	size_t *pix;           /* an address's function */
	size_t *fr;            /* one chain's frames, as functions */
	fbline *ln;
	size_t nln, lcap;
	fbpair *pa;
	size_t npa, pcap;
	xp_fbb *b;
	size_t li, pi;         /* the next line and pair to write */
	uint32_t pid;          /* the last proc id of the object file */
} fbconv;

/*
 * The functions of the executable's text (xp_sym_functions), by their
 * linker names, with their first lines, into c->tx.  An executable that
 * cannot be read adds nothing: the analysis has named its addresses as
 * well as it could.
 */
static xp_err gather_text(fbconv *c)
{
	xp_diags *d = xp_diags_new(1);
	xp_sym *sym = NULL;
	const xp_symbol **fns = NULL;
	size_t nf = 0;
	xp_err err = XP_E_OK;

	if (d == NULL)
		return XP_E_NOMEM;
	if (c->exe == NULL || c->p->hdr[2] == 1 ||
	    xp_sym_open(c->exe, &sym, d) != XP_E_OK)
		goto out;
	if ((err = xp_sym_functions(sym, &fns, &nf)) != XP_E_OK ||
	    (c->tx = calloc(nf + 1, sizeof *c->tx)) == NULL) {
		err = XP_E_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < nf && err == XP_E_OK; i++) {
		const char *file, *fn, *nm = fns[i]->name;
		unsigned line;
		txfn *t = &c->tx[c->ntx++];
		if (xp_sym_line(sym, fns[i]->addr, &file, &fn, &line) != 0)
			file = fn = NULL, line = 0;
		t->file = UINT32_MAX;
		t->line = file != NULL ? line : 0;
		t->addr = fns[i]->addr;
		if ((err = xp_strpool_intern(&c->an.sp, nm, strlen(nm),
		                             &t->name)) != XP_E_OK ||
		    (t->line > 0 &&
		     (err = xp_strpool_intern(&c->an.sp, file, strlen(file),
		                              &t->file)) != XP_E_OK))
			err = XP_E_NOMEM;
	}
out:
	free(fns);
	xp_sym_free(sym);
	xp_diags_free(d);
	return err;
}

/* The functions, sorted and made distinct, with those of the text; pix
 * maps an address to its function. */
static void index_procs(fbconv *c)
{
	fbproc *pr = c->pr;
	size_t n = c->an.na + c->ntx;

	for (size_t i = 0; i < c->an.na; i++) {
		const addrinfo *x = &c->an.ai[i];
		pr[i].obj = x->obj != UINT32_MAX ?
		            xp_strpool_str(&c->an.sp, x->obj) : c->unknown;
		pr[i].bysym = x->sym != UINT32_MAX;
		pr[i].name = xp_strpool_str(&c->an.sp, pr[i].bysym ? x->sym
		                                                   : x->disp);
		pr[i].symaddr = pr[i].bysym ? x->symaddr : x->addr;
		pr[i].stamp = i;   /* the address, until sorted */
	}
	for (size_t i = 0; i < c->ntx; i++) {
		fbproc *f = &pr[c->an.na + i];
		f->obj = c->exe;
		f->name = xp_strpool_str(&c->an.sp, c->tx[i].name);
		f->bysym = 1;
		f->symaddr = c->tx[i].addr;
		f->stamp = SIZE_MAX;
		if (c->tx[i].line > 0) {
			f->efile = xp_strpool_str(&c->an.sp, c->tx[i].file);
			f->eline = c->tx[i].line;
		}
	}
	xp_qsort(pr, n, sizeof *pr, cmp_proc);
	for (size_t i = 0; i < n; i++) {
		if (c->npr == 0 || cmp_proc(&pr[c->npr - 1], &pr[i]) != 0)
			pr[c->npr++] = pr[i];
		else if (pr[i].eline > 0) {
			pr[c->npr - 1].efile = pr[i].efile;
			pr[c->npr - 1].eline = pr[i].eline;
		}
		if (pr[i].stamp != SIZE_MAX)
			c->pix[pr[i].stamp] = c->npr - 1;
	}
	for (size_t i = 0; i < c->npr; i++)
		pr[i].stamp = SIZE_MAX;
}

/* Procedure names are unique in an object file: a function that has the
 * name of the one before it (a local symbol of another source file) is
 * called name@0x<address>. */
static xp_err names_apart(fbconv *c)
{
	for (size_t i = 1; i < c->npr; i++) {
		fbproc *f = &c->pr[i];
		if (strcmp(f->obj, c->pr[i - 1].obj) != 0 ||
		    strcmp(f->name, c->pr[i - 1].name) != 0)
			continue;
		if ((f->apart = xp_fb_name_at(f->name, f->symaddr)) == NULL)
			return XP_E_NOMEM;
	}
	for (size_t i = 0; i < c->npr; i++)
		if (c->pr[i].apart != NULL)
			c->pr[i].name = c->pr[i].apart;
	return XP_E_OK;
}

/* Chain i: self samples and a line for its leaf, total samples once per
 * function in it, a caller/callee pair once per chain. */
static xp_err add_chain(fbconv *c, size_t i)
{
	const uint64_t *a = c->an.ad + c->an.ch[i].off;
	uint64_t n = c->an.ch[i].count;
	size_t nf = 0, leaf = SIZE_MAX, x, pfirst = c->npa;
	fbproc *pr = c->pr;
	size_t *fr = c->fr;
	void *q;

	for (size_t k = 0; k < c->an.ch[i].n; k++) {
		if (!xp_cp_frame_ok(&c->an, c->p->slot, a[k], &x))
			continue;
		if (leaf == SIZE_MAX)
			leaf = x;
		fr[nf++] = c->pix[x];
	}
	if (nf == 0)
		return XP_E_OK;
	pr[fr[0]].self += n;
	if ((q = grow1(c->ln, c->nln, &c->lcap, sizeof *c->ln)) == NULL)
		return XP_E_NOMEM;
	c->ln = q;
	c->ln[c->nln++] = (fbline){fr[0],
		c->an.ai[leaf].file != UINT32_MAX ?
		xp_strpool_str(&c->an.sp, c->an.ai[leaf].file) : "",
		c->an.ai[leaf].line, n, 0};
	for (size_t k = 0; k < nf; k++) {
		if (pr[fr[k]].stamp != i) {
			pr[fr[k]].stamp = i;
			pr[fr[k]].total += n;
		}
		if (k == 0)
			continue;
		size_t j = pfirst;
		while (j < c->npa && !(c->pa[j].caller == fr[k] &&
		                       c->pa[j].callee == fr[k - 1]))
			j++;
		if (j < c->npa)
			continue;   /* once per chain */
		if ((q = grow1(c->pa, c->npa, &c->pcap, sizeof *c->pa)) ==
		    NULL)
			return XP_E_NOMEM;
		c->pa = q;
		c->pa[c->npa++] = (fbpair){fr[k], fr[k - 1], n};
	}
	return XP_E_OK;
}

/* Identical lines and pairs summed. */
static void sum_duplicates(fbconv *c)
{
	size_t n = 0;

	xp_qsort(c->ln, c->nln, sizeof *c->ln, cmp_line_by_proc);
	for (size_t i = 0; i < c->nln; i++) {
		if (n > 0 && cmp_line_by_proc(&c->ln[n - 1], &c->ln[i]) == 0)
			c->ln[n - 1].count += c->ln[i].count;
		else
			c->ln[n++] = c->ln[i];
	}
	c->nln = n;
	xp_qsort(c->pa, c->npa, sizeof *c->pa, cmp_pair);
	n = 0;
	for (size_t i = 0; i < c->npa; i++) {
		if (n > 0 && cmp_pair(&c->pa[n - 1], &c->pa[i]) == 0)
			c->pa[n - 1].count += c->pa[i].count;
		else
			c->pa[n++] = c->pa[i];
	}
	c->npa = n;
}

/* An object file section for obj; proc ids start again from 1. */
static xp_err begin_objfile(fbconv *c, const char *obj)
{
	xp_objfile of = {0};
	xp_err err;

	if ((err = xp_fbb_intern(c->b, obj, strlen(obj), &of.path)) != XP_E_OK)
		return err;
	of.n_values_per_vp = 1;
	c->pid = 0;
	return xp_fbb_begin_objfile(c->b, &of);
}

/* The VP_PROC records of the nvp pairs from pi: one per function called. */
static xp_err add_calls(fbconv *c, size_t nvp)
{
	xp_err err;

	for (size_t j = c->pi; j < c->pi + nvp; j++) {
		const fbproc *callee = &c->pr[c->pa[j].callee];
		xp_vpval v = {0};
		v.count = c->pa[j].count;
		v.has_value = 1;
		if ((err = xp_fbb_add_vp(c->b, (uint32_t)(j - c->pi) + 1,
		                         XP_VP_PROC)) != XP_E_OK ||
		    (err = xp_fbb_intern_proc(c->b, callee->name,
		                              &v.v.proc.name)) != XP_E_OK ||
		    (err = xp_fbb_intern(c->b, callee->obj, strlen(callee->obj),
		                         &v.v.proc.objfile)) != XP_E_OK ||
		    (err = xp_fbb_add_vpval(c->b, &v)) != XP_E_OK)
			return err;
	}
	return XP_E_OK;
}

/* A tuple for block blk at line of file ("": none given). */
static xp_err add_tuple(fbconv *c, uint32_t blk, const char *file,
                        unsigned line)
{
	xp_tuple t = {blk, blk, line, 0, XP_NOSTR};
	xp_err err;

	if (file[0] != '\0' &&
	    (err = xp_fbb_intern(c->b, file, strlen(file), &t.srcfile)) !=
	    XP_E_OK)
		return err;
	return xp_fbb_add_tuple(c->b, &t);
}

/* The entry block of procedure f and the blocks of lines l0 up to li,
 * then a tuple for each with a line. */
static xp_err add_blocks(fbconv *c, const fbproc *f, size_t l0)
{
	const fbline *ln = c->ln;
	xp_err err;

	if ((err = xp_fbb_add_block(c->b, 1, 0)) != XP_E_OK)
		return err;
	for (size_t j = l0; j < c->li; j++)
		if ((err = xp_fbb_add_block(c->b, ln[j].block,
		                            ln[j].block - 1)) != XP_E_OK)
			return err;
	if (f->eline > 0 &&
	    (err = add_tuple(c, 1, f->efile, f->eline)) != XP_E_OK)
		return err;
	for (size_t j = l0; j < c->li; j++) {
		/* No line (code without debugging information, or clang's
		 * line 0 for code it made): the block has no tuple. */
		if (ln[j].line != 0 &&
		    (err = add_tuple(c, ln[j].block, ln[j].file,
		                     ln[j].line)) != XP_E_OK)
			return err;
	}
	return XP_E_OK;
}

/* The procedure of function i, after its object file section when it
 * starts one: counters, call values, blocks and tuples. */
static xp_err add_proc(fbconv *c, size_t i)
{
	const fbproc *f = &c->pr[i];
	xp_proc pp = {0};
	size_t nvp = 0, l0 = c->li;
	uint32_t blk = 1;
	xp_err err;

	if ((i == 0 || strcmp(c->pr[i - 1].obj, f->obj) != 0) &&
	    (err = begin_objfile(c, f->obj)) != XP_E_OK)
		return err;
	for (size_t j = c->pi; j < c->npa && c->pa[j].caller == i; j++)
		nvp++;
	if ((err = xp_fbb_intern_proc(c->b, f->name, &pp.name)) != XP_E_OK)
		return err;
	pp.proc_id = ++c->pid;
	pp.n_vp_sites = (uint32_t)nvp;
	pp.n_srcmap_ops = 1;
	for (size_t j = c->li; j < c->nln && c->ln[j].proc == i; j++)
		pp.n_srcmap_ops++;
	if ((err = xp_fbb_begin_proc(c->b, &pp)) != XP_E_OK)
		return err;
	for (; c->li < c->nln && c->ln[c->li].proc == i; c->li++) {
		c->ln[c->li].block = ++blk;
		if ((err = xp_fbb_add_counter(c->b, blk - 1,
		                              c->ln[c->li].count)) != XP_E_OK)
			return err;
	}
	if ((err = add_calls(c, nvp)) != XP_E_OK)
		return err;
	c->pi += nvp;
	return add_blocks(c, f, l0);
}

/* The entry blocks of the procedures with a first line, as lines with
 * their total samples, for the source file sections. */
static xp_err add_entry_lines(fbconv *c)
{
	void *q;

	for (size_t i = 0; i < c->npr; i++) {
		const fbproc *f = &c->pr[i];
		if (f->eline == 0)
			continue;
		if ((q = grow1(c->ln, c->nln, &c->lcap, sizeof *c->ln)) == NULL)
			return XP_E_NOMEM;
		c->ln = q;
		c->ln[c->nln++] = (fbline){i, f->efile, f->eline, f->total, 1};
	}
	return XP_E_OK;
}

/* Source files: the lines with samples, by file and line. */
static xp_err add_srcfiles(fbconv *c)
{
	fbline *ln = c->ln;
	xp_err err;

	xp_qsort(ln, c->nln, sizeof *ln, cmp_line_by_file);
	for (size_t i = 0; i < c->nln; i++) {
		const fbproc *f = &c->pr[ln[i].proc];
		xp_str s;
		if (ln[i].file[0] == '\0' || ln[i].line == 0)
			continue;
		if (i == 0 || strcmp(ln[i - 1].file, ln[i].file) != 0 ||
		    ln[i - 1].line == 0 || ln[i - 1].file[0] == '\0') {
			if ((err = xp_fbb_intern(c->b, ln[i].file,
			                         strlen(ln[i].file), &s)) !=
			    XP_E_OK ||
			    (err = xp_fbb_begin_srcfile(c->b, s)) != XP_E_OK)
				return err;
		}
		if (i == 0 || strcmp(ln[i - 1].file, ln[i].file) != 0 ||
		    ln[i - 1].line != ln[i].line) {
			if ((err = xp_fbb_begin_srcline(c->b, ln[i].line, 0)) !=
			    XP_E_OK)
				return err;
		}
		xp_blockref br = {ln[i].block, ln[i].count, 0, 0};
		if ((err = xp_fbb_intern_proc(c->b, f->name, &br.proc)) !=
		    XP_E_OK ||
		    (err = xp_fbb_intern(c->b, f->obj, strlen(f->obj),
		                         &br.objfile)) != XP_E_OK ||
		    (err = xp_fbb_add_blockref(c->b, &br)) != XP_E_OK)
			return err;
	}
	return XP_E_OK;
}

/* The module's conversion entry: analysis, chains, then the feedback. */
xp_err xp_cp_to_feedback(const void *m, const xp_conv_opts *o, xp_fb **out,
                      xp_diags *d)
{
	fbconv c = {0};
	xp_err err;

	*out = NULL;
	c.p = m;
	c.unknown = c.p->hdr[2] == 1 ? "[java]" : "[unknown]";
	c.exe = o->exe;
	if ((err = xp_cp_analyze(c.p, o->exe, 1, &c.an)) != XP_E_OK)
		return err;
	if ((err = xp_cp_offset_names(c.p, &c.an)) != XP_E_OK ||
	    (err = gather_text(&c)) != XP_E_OK)
		goto out;
	err = XP_E_NOMEM;
	c.pr = calloc(c.an.na + c.ntx + 1, sizeof *c.pr);
	c.pix = malloc((c.an.na ? c.an.na : 1) * sizeof *c.pix);
	c.fr = malloc((c.p->npc ? c.p->npc : 1) * sizeof *c.fr);
	if (c.pr == NULL || c.pix == NULL || c.fr == NULL)
		goto out;
	index_procs(&c);
	if ((err = names_apart(&c)) != XP_E_OK)
		goto out;
	for (size_t i = 0; i < c.an.nch; i++)
		if ((err = add_chain(&c, i)) != XP_E_OK)
			goto out;
	sum_duplicates(&c);

	/* The feedback model. */
	c.b = xp_fbb_new(XP_DT_FEEDBACK, 4, (uint32_t)c.npr);
	if (c.b == NULL) {
		err = XP_E_NOMEM;
		goto out;
	}
	xp_fbb_set_diags(c.b, d);
	for (size_t i = 0; i < c.npr; i++)
		if ((err = add_proc(&c, i)) != XP_E_OK)
			goto out;
	if ((err = add_entry_lines(&c)) != XP_E_OK ||
	    (err = add_srcfiles(&c)) != XP_E_OK)
		goto out;
	err = xp_fbb_finish(c.b, out);
out:
	xp_fbb_free(c.b);
	for (size_t i = 0; c.pr != NULL && i < c.npr; i++)
		free(c.pr[i].apart);
	XP_FREE(c.pr, c.ln, c.pa, c.pix, c.fr, c.tx);
	xp_cp_an_free(&c.an);
	return err;
}
