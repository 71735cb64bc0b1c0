/*
 * dcpi/report.c - the report of a DCPI profile (dcpi(5), REPORT): what
 * was sampled, and the procedures and source lines of the image ranked
 * by samples.
 *
 * The profile is symbolized with the executable of the options, or the
 * profile's path line, through its conversion to feedback (feedback.c);
 * the report only ranks what that conversion gives.  Procedures and
 * lines are ranked by samples, descending, ties by name (file, then
 * line) ascending.
 */
#include <stdlib.h>
#include <string.h>

#include "dcpi/dcpi.h"

struct xp_dcpi_report {
	xp_fb *fb;             /* the conversion; owns the names */
	uint64_t samples, in_procs;
	xp_dcpi_hot *procs, *lines;
	size_t nprocs, nlines;
};

static int cmp_hot(const void *x, const void *y)
{
	const xp_dcpi_hot *a = x, *b = y;
	int c;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	if ((c = strcmp(a->name, b->name)) != 0)
		return c;
	return (a->line > b->line) - (a->line < b->line);
}

/* The procedures of fb with samples, unsorted: samples are the sum of
 * their counters. */
static size_t collect_procs(const xp_fb *fb, xp_dcpi_hot *h)
{
	uint32_t n = xp_fb_count(fb, XP_T_PROCS);
	size_t k = 0;

	for (uint32_t i = 0; i < n; i++) {
		xp_proc p;
		xp_fb_proc(fb, i, &p);
		h[k].name = xp_fb_str(fb, p.name);
		h[k].samples = 0;
		for (uint32_t j = 0; j < p.n_counters; j++) {
			xp_counter c;
			xp_fb_counter(fb, p.first_counter + j, &c);
			h[k].samples += c.value;
		}
		k += h[k].samples > 0;
	}
	return k;
}

/* The source lines of fb with samples, unsorted: samples are the sum of
 * the counts of their blocks, but for the functions' entries (block 1,
 * which counts the whole function). */
static size_t collect_lines(const xp_fb *fb, xp_dcpi_hot *h)
{
	size_t n = 0;

	for (uint32_t i = 0; i < xp_fb_count(fb, XP_T_SRCFILES); i++) {
		xp_srcfile sf;
		xp_fb_srcfile(fb, i, &sf);
		for (uint32_t j = 0; j < sf.n_lines; j++) {
			xp_srcline sl;
			xp_fb_srcline(fb, sf.first_line + j, &sl);
			h[n].name = xp_fb_str(fb, sf.path);
			h[n].line = sl.line;
			h[n].samples = 0;
			for (uint32_t k = 0; k < sl.n_refs; k++) {
				xp_blockref br;
				xp_fb_blockref(fb, sl.first_ref + k, &br);
				if (br.block != 1)
					h[n].samples += br.count;
			}
			n += h[n].samples > 0;
		}
	}
	return n;
}

/* The procedures (lines == 0) or the source lines of fb, sorted. */
static xp_dcpi_hot *collect(const xp_fb *fb, int lines, size_t *n)
{
	size_t cap = lines ? xp_fb_count(fb, XP_T_SRCLINES)
	                   : xp_fb_count(fb, XP_T_PROCS);
	xp_dcpi_hot *h = calloc(cap ? cap : 1, sizeof *h);

	*n = 0;
	if (h == NULL)
		return NULL;
	*n = lines ? collect_lines(fb, h) : collect_procs(fb, h);
	xp_qsort(h, *n, sizeof *h, cmp_hot);
	return h;
}

void xp_dcpi_report_free(void *handle)
{
	xp_dcpi_report *r = handle;

	if (r == NULL)
		return;
	free(r->procs);
	free(r->lines);
	xp_fb_free(r->fb);
	free(r);
}

xp_err xp_dcpi_report_new(const void *mv, const xp_report_opts *o,
                              const char *name, void **handle,
                              const void **model, xp_diags *d)
{
	const xp_dcpi *m = mv;
	xp_conv_opts co = { .exe = o->exe };
	xp_dcpi_report *r;
	const char *v;
	size_t vn;
	xp_err err;

	if (o->exe == NULL && xp_dcpi_value(m, XP_DCPI_PATH, &v, &vn) != 0)
		return xp_diag_file(d, XP_E_INVAL, name, "a DCPI profile "
		                    "without a path line needs its image: give "
		                    "-e EXECUTABLE");
	if ((r = calloc(1, sizeof *r)) == NULL)
		return XP_E_NOMEM;
	if ((err = xp_dcpi_to_feedback(m, &co, &r->fb, d)) != XP_E_OK) {
		xp_dcpi_report_free(r);
		return err;
	}
	if ((r->procs = collect(r->fb, 0, &r->nprocs)) == NULL ||
	    (o->lines && (r->lines = collect(r->fb, 1, &r->nlines)) == NULL)) {
		xp_dcpi_report_free(r);
		return XP_E_NOMEM;
	}
	r->samples = xp_dcpi_total_samples(m);
	for (size_t i = 0; i < r->nprocs; i++)
		r->in_procs += r->procs[i].samples;
	*handle = r;
	*model = r;
	return XP_E_OK;
}

const xp_fb *xp_dcpi_report_fb(const xp_dcpi_report *r)
{
	return r->fb;
}

uint64_t xp_dcpi_report_samples(const xp_dcpi_report *r)
{
	return r->samples;
}

uint64_t xp_dcpi_report_in_procs(const xp_dcpi_report *r)
{
	return r->in_procs;
}

size_t xp_dcpi_report_nprocs(const xp_dcpi_report *r)
{
	return r->nprocs;
}

const xp_dcpi_hot *xp_dcpi_report_proc(const xp_dcpi_report *r, size_t i)
{
	return &r->procs[i];
}

size_t xp_dcpi_report_nlines(const xp_dcpi_report *r)
{
	return r->nlines;
}

const xp_dcpi_hot *xp_dcpi_report_line(const xp_dcpi_report *r, size_t i)
{
	return &r->lines[i];
}
