/*
 * feedback/tcov_diff.c - differential coverage (xprof_tcov.h): the lines
 * of a reported source file in the categories of lcov's genhtml
 * --baseline-file, against the same file in a baseline's coverage and
 * through a patch from the baseline's version of the file to the
 * source; and the lines a patch changes that count, for the gate on
 * them (xprof_tcov --fail-under-changed).
 *
 * The lines of the two versions are walked side by side: a line the
 * patch removes is a line of the baseline only, a line it adds one of
 * the source only, and every other line of one is the next line of the
 * other (the patch's context and the lines between its hunks).
 */
#include "feedback/tcov_int.h"

static const char cat_names[XP_TCOV_NCAT][4] = {
	"GNC", "UNC", "GBC", "LBC", "GIC", "UIC", "CBC", "UBC",
	"ECB", "EUB", "DCB", "DUB",
};

const char *xp_tcov_cat_name(unsigned cat)
{
	return cat < XP_TCOV_NCAT ? cat_names[cat] : NULL;
}

int xp_tcov_cat_code(unsigned cat)
{
	return cat <= XP_TCOV_UBC;
}

int xp_tcov_cat_base_code(unsigned cat)
{
	return cat < XP_TCOV_NCAT && cat != XP_TCOV_GNC &&
	       cat != XP_TCOV_UNC && cat != XP_TCOV_GIC && cat != XP_TCOV_UIC;
}

/* The line of lines[0..n) numbered line, from *i on (lines ascending,
 * asked for in ascending order); NULL when there is none. */
static const xp_tcov_line *seek(const xp_tcov_line *lines, size_t n,
                                size_t *i, uint32_t line)
{
	while (*i < n && lines[*i].line < line)
		(*i)++;
	return *i < n && lines[*i].line == line ? &lines[*i] : NULL;
}

/* The walk: both files' lines and where it is in them. */
typedef struct {
	const xp_tcov_src *s;
	const xp_tcov_file *base;
	size_t ci, bi;
	xp_tcov_dcov *dc;
	size_t cap;
} walk;

/*
 * Puts source line line (0: none) and baseline line base_line (0: none)
 * in their category, if any.
 */
static xp_err place(walk *w, uint32_t line, uint32_t base_line)
{
	const xp_tcov_file *f = w->s->f;
	const xp_tcov_line *cl = NULL, *bl = NULL;
	xp_tcov_dcov *dc = w->dc;
	unsigned cat;

	if (line && xp_tcov_src_line(w->s, line))
		cl = seek(f->lines, f->n_lines, &w->ci, line);
	if (base_line && w->base)
		bl = seek(w->base->lines, w->base->n_lines, &w->bi, base_line);
	if (!cl && !bl)
		return XP_E_OK;
	if (cl && !base_line)
		cat = cl->max ? XP_TCOV_GNC : XP_TCOV_UNC;
	else if (cl && !bl)
		cat = cl->max ? XP_TCOV_GIC : XP_TCOV_UIC;
	else if (cl)
		cat = cl->max ? (bl->max ? XP_TCOV_CBC : XP_TCOV_GBC)
		              : (bl->max ? XP_TCOV_LBC : XP_TCOV_UBC);
	else if (line)
		cat = bl->max ? XP_TCOV_ECB : XP_TCOV_EUB;
	else
		cat = bl->max ? XP_TCOV_DCB : XP_TCOV_DUB;
	if (xp_grow(&dc->lines, &w->cap, dc->n, sizeof *dc->lines))
		return XP_E_NOMEM;
	dc->lines[dc->n++] = (xp_tcov_dline){line, base_line, cat,
	                                     cl ? cl->max : 0,
	                                     bl ? bl->max : 0};
	dc->counts[cat]++;
	if (line)
		dc->cat[line] = (unsigned char)cat;
	return XP_E_OK;
}

xp_err xp_tcov_dcov_init(xp_tcov_dcov *dc, const xp_tcov_src *s,
                         const xp_tcov_file *base, const xp_patch_file *f)
{
	walk w = {s, base, 0, 0, dc, 0};
	size_t ai = 0, ri = 0;
	uint32_t line = 1, base_line = 1, base_end = 0;
	xp_err err = XP_E_OK;

	memset(dc, 0, sizeof *dc);
	if (!(dc->cat = malloc((size_t)s->n_lines + 1)))
		return XP_E_NOMEM;
	memset(dc->cat, XP_TCOV_NOCAT, (size_t)s->n_lines + 1);
	if (base && base->n_lines)
		base_end = base->lines[base->n_lines - 1].line;
	if (f && !f->old_path)
		base = w.base = NULL;  /* a new file: the baseline has no lines */
	while (!err && (line <= s->n_lines || (base && base_line <= base_end))) {
		if (f && ri < f->n_removed && f->removed[ri] == base_line) {
			err = place(&w, 0, base_line++);
			ri++;
		} else if (f && (!f->old_path ||
		                 (ai < f->n_added && f->added[ai] == line))) {
			if (line > s->n_lines)
				break;
			err = place(&w, line++, 0);
			ai++;
		} else {
			err = place(&w, line <= s->n_lines ? line : 0, base_line++);
			line++;
		}
	}
	return err;
}

void xp_tcov_dcov_free(xp_tcov_dcov *dc)
{
	if (!dc)
		return;
	XP_FREE(dc->lines, dc->cat);
	dc->lines = NULL;
	dc->cat = NULL;
}

xp_err xp_tcov_changed(const xp_tcov_src *s, const xp_patch_file *f,
                       size_t *lf, size_t *lh, uint32_t **missed)
{
	const xp_tcov_file *cf = s->f;
	size_t ci = 0, n = 0;
	*lf = *lh = 0;
	*missed = calloc(f && f->n_added ? f->n_added : 1, sizeof **missed);
	if (!*missed)
		return XP_E_NOMEM;
	for (size_t i = 0; f && i < f->n_added; i++) {
		uint32_t line = f->added[i];
		const xp_tcov_line *l;
		if (!xp_tcov_src_line(s, line) ||
		    !(l = seek(cf->lines, cf->n_lines, &ci, line)))
			continue;
		(*lf)++;
		if (l->max > 0)
			(*lh)++;
		else
			(*missed)[n++] = line;
	}
	return XP_E_OK;
}
