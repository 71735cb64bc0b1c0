/*
 * cpuprof/feedback.c - a CPU profile as feedback (xp_prof_to_feedback,
 * cpuprofile(5), CONVERSION TO FEEDBACK), from the same analysis of its
 * call chains that google-pprof's report makes (report.c).
 */
#include <stdio.h>

#include "cpuprof/cpuprof.h"

/*
 * One object file per profiled object, one procedure per function:
 * counter 1 its self (flat) samples, counter 2 its total (cumulative)
 * samples, then one block per source line where it had self samples
 * (counter 2 + block id, and a tuple giving the line); a VP_PROC value
 * profile record per function it called, with the samples of the chains
 * holding that call; a source file section per file, each line listing
 * the blocks with their samples.  cpuprofile(5) CONVERSION TO FEEDBACK.
 */
typedef struct {
	const char *obj, *name;
	uint64_t self, total;
	size_t stamp;
} fbproc;

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
	return c != 0 ? c : strcmp(a->name, b->name);
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
	return a->proc < b->proc ? -1 : a->proc > b->proc;
}

static int cmp_pair(const void *x, const void *y)
{
	const fbpair *a = x, *b = y;
	if (a->caller != b->caller)
		return a->caller < b->caller ? -1 : 1;
	return a->callee < b->callee ? -1 : a->callee > b->callee;
}

/* Grows an array of n elements of size sz to hold one more. */
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

xp_err xp_cp_to_feedback(const void *m, const xp_conv_opts *o, xp_fb **out,
                      xp_diags *d)
{
	const xp_cpuprof *p = m;
	xp_cp_an an;
	fbproc *pr = NULL;
	fbline *ln = NULL;
	fbpair *pa = NULL;
	size_t *pix = NULL, *fr = NULL;
	size_t npr = 0, nln = 0, lcap = 0, npa = 0, pcap = 0;
	const char *unknown = p->hdr[2] == 1 ? "[java]" : "[unknown]";
	xp_fbb *b = NULL;
	xp_err err;

	(void)d;
	*out = NULL;
	if ((err = xp_cp_analyze(p, o->exe, 1, &an)) != XP_E_OK)
		return err;
	err = XP_E_NOMEM;
	pr = calloc(an.na ? an.na : 1, sizeof *pr);
	pix = malloc((an.na ? an.na : 1) * sizeof *pix);
	fr = malloc((p->npc ? p->npc : 1) * sizeof *fr);
	if (pr == NULL || pix == NULL || fr == NULL)
		goto out;

	/* The functions, sorted; pix maps an address to its function. */
	for (size_t i = 0; i < an.na; i++) {
		const addrinfo *x = &an.ai[i];
		pr[i].obj = x->obj != UINT32_MAX ? xp_strpool_str(&an.sp, x->obj)
		                                 : unknown;
		pr[i].name = xp_strpool_str(&an.sp, x->disp);
		pr[i].stamp = i;   /* the address, until sorted */
	}
	xp_qsort(pr, an.na, sizeof *pr, cmp_proc);
	for (size_t i = 0; i < an.na; i++) {
		if (npr == 0 || cmp_proc(&pr[npr - 1], &pr[i]) != 0)
			pr[npr++] = pr[i];
		pix[pr[i].stamp] = npr - 1;
	}
	for (size_t i = 0; i < npr; i++)
		pr[i].stamp = SIZE_MAX;

	/* Self and total samples, lines, caller/callee pairs. */
	for (size_t i = 0; i < an.nch; i++) {
		const uint64_t *a = an.ad + an.ch[i].off;
		uint64_t c = an.ch[i].count;
		size_t nf = 0, leaf = SIZE_MAX, x, pfirst = npa;

		for (size_t k = 0; k < an.ch[i].n; k++) {
			if (!xp_cp_frame_ok(&an, p->slot, a[k], &x))
				continue;
			if (leaf == SIZE_MAX)
				leaf = x;
			fr[nf++] = pix[x];
		}
		if (nf == 0)
			continue;
		pr[fr[0]].self += c;
		if ((ln = grow1(ln, nln, &lcap, sizeof *ln)) == NULL)
			goto out;
		ln[nln++] = (fbline){fr[0],
			an.ai[leaf].file != UINT32_MAX ?
			xp_strpool_str(&an.sp, an.ai[leaf].file) : "",
			an.ai[leaf].line, c, 0};
		for (size_t k = 0; k < nf; k++) {
			if (pr[fr[k]].stamp != i) {
				pr[fr[k]].stamp = i;
				pr[fr[k]].total += c;
			}
			if (k == 0)
				continue;
			size_t j = pfirst;
			while (j < npa && !(pa[j].caller == fr[k] &&
			                    pa[j].callee == fr[k - 1]))
				j++;
			if (j < npa)
				continue;   /* once per chain */
			if ((pa = grow1(pa, npa, &pcap, sizeof *pa)) == NULL)
				goto out;
			pa[npa++] = (fbpair){fr[k], fr[k - 1], c};
		}
	}
	/* Identical lines and pairs summed. */
	xp_qsort(ln, nln, sizeof *ln, cmp_line_by_proc);
	{
		size_t n = 0;
		for (size_t i = 0; i < nln; i++) {
			if (n > 0 && cmp_line_by_proc(&ln[n - 1], &ln[i]) == 0)
				ln[n - 1].count += ln[i].count;
			else
				ln[n++] = ln[i];
		}
		nln = n;
	}
	xp_qsort(pa, npa, sizeof *pa, cmp_pair);
	{
		size_t n = 0;
		for (size_t i = 0; i < npa; i++) {
			if (n > 0 && cmp_pair(&pa[n - 1], &pa[i]) == 0)
				pa[n - 1].count += pa[i].count;
			else
				pa[n++] = pa[i];
		}
		npa = n;
	}

	/* The feedback model. */
	b = xp_fbb_new(XP_DT_FEEDBACK, 4, (uint32_t)npr);
	if (b == NULL)
		goto out;
	{
		size_t li = 0, pi = 0;
		uint32_t pid = 0;
		for (size_t i = 0; i < npr; i++) {
			xp_str s;
			if (i == 0 || strcmp(pr[i - 1].obj, pr[i].obj) != 0) {
				xp_objfile of = {0};
				if ((err = xp_fbb_intern(b, pr[i].obj,
				                         strlen(pr[i].obj),
				                         &of.path)) != XP_E_OK)
					goto out;
				of.n_values_per_vp = 1;
				pid = 0;
				if ((err = xp_fbb_begin_objfile(b, &of)) != XP_E_OK)
					goto out;
			}
			xp_proc pp = {0};
			size_t nvp = 0;
			for (size_t j = pi; j < npa && pa[j].caller == i; j++)
				nvp++;
			if ((err = xp_fbb_intern(b, pr[i].name,
			                         strlen(pr[i].name),
			                         &pp.name)) != XP_E_OK)
				goto out;
			pp.proc_id = ++pid;
			pp.n_vp_sites = (uint32_t)nvp;
			for (size_t j = li; j < nln && ln[j].proc == i; j++)
				pp.n_srcmap_ops++;
			if ((err = xp_fbb_begin_proc(b, &pp)) != XP_E_OK ||
			    (err = xp_fbb_add_counter(b, 1, pr[i].self)) !=
			    XP_E_OK ||
			    (err = xp_fbb_add_counter(b, 2, pr[i].total)) !=
			    XP_E_OK)
				goto out;
			uint32_t blk = 0;
			size_t l0 = li;
			for (; li < nln && ln[li].proc == i; li++) {
				ln[li].block = ++blk;
				if ((err = xp_fbb_add_counter(b, 2 + blk,
				                              ln[li].count)) !=
				    XP_E_OK)
					goto out;
			}
			for (size_t j = pi; j < pi + nvp; j++) {
				xp_vpval v = {0};
				v.count = pa[j].count;
				v.has_value = 1;
				if ((err = xp_fbb_add_vp(b, (uint32_t)(j - pi) + 1,
				                         XP_VP_PROC)) != XP_E_OK ||
				    (err = xp_fbb_intern(b, pr[pa[j].callee].name,
				                 strlen(pr[pa[j].callee].name),
				                 &v.v.proc.name)) != XP_E_OK ||
				    (err = xp_fbb_intern(b, pr[pa[j].callee].obj,
				                 strlen(pr[pa[j].callee].obj),
				                 &v.v.proc.objfile)) != XP_E_OK ||
				    (err = xp_fbb_add_vpval(b, &v)) != XP_E_OK)
					goto out;
			}
			pi += nvp;
			for (size_t j = l0; j < li; j++)
				if ((err = xp_fbb_add_block(b, ln[j].block,
				                            2 + ln[j].block)) !=
				    XP_E_OK)
					goto out;
			for (size_t j = l0; j < li; j++) {
				xp_tuple t = {ln[j].block, ln[j].block, ln[j].line,
				              0, XP_NOSTR};
				/* No line (code without debugging
				 * information, or clang's line 0 for code
				 * it made): the block has no tuple. */
				if (ln[j].line == 0)
					continue;
				if (ln[j].file[0] != '\0' &&
				    (err = xp_fbb_intern(b, ln[j].file,
				                         strlen(ln[j].file),
				                         &s)) != XP_E_OK)
					goto out;
				if (ln[j].file[0] != '\0')
					t.srcfile = s;
				if ((err = xp_fbb_add_tuple(b, &t)) != XP_E_OK)
					goto out;
			}
		}
	}
	/* Source files: the lines with samples, by file and line. */
	xp_qsort(ln, nln, sizeof *ln, cmp_line_by_file);
	for (size_t i = 0; i < nln; i++) {
		xp_str s;
		if (ln[i].file[0] == '\0' || ln[i].line == 0)
			continue;
		if (i == 0 || strcmp(ln[i - 1].file, ln[i].file) != 0 ||
		    ln[i - 1].line == 0 || ln[i - 1].file[0] == '\0') {
			if ((err = xp_fbb_intern(b, ln[i].file, strlen(ln[i].file),
			                         &s)) != XP_E_OK ||
			    (err = xp_fbb_begin_srcfile(b, s)) != XP_E_OK)
				goto out;
		}
		if (i == 0 || strcmp(ln[i - 1].file, ln[i].file) != 0 ||
		    ln[i - 1].line != ln[i].line) {
			if ((err = xp_fbb_begin_srcline(b, ln[i].line, 0)) !=
			    XP_E_OK)
				goto out;
		}
		xp_blockref br = {ln[i].block, ln[i].count, 0, 0};
		if ((err = xp_fbb_intern(b, pr[ln[i].proc].name,
		                         strlen(pr[ln[i].proc].name),
		                         &br.proc)) != XP_E_OK ||
		    (err = xp_fbb_intern(b, pr[ln[i].proc].obj,
		                         strlen(pr[ln[i].proc].obj),
		                         &br.objfile)) != XP_E_OK ||
		    (err = xp_fbb_add_blockref(b, &br)) != XP_E_OK)
			goto out;
	}
	err = xp_fbb_finish(b, out);
out:
	xp_fbb_free(b);
	free(pr);
	free(ln);
	free(pa);
	free(pix);
	free(fr);
	xp_cp_an_free(&an);
	return err;
}
