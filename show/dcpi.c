/*
 * show/dcpi.c - the xprof_show report of DCPI profiles (dcpi(5),
 * REPORT): what was sampled, and the hottest procedures of the image
 * (with --lines, the hottest source lines too).
 *
 * The profile (the sum of every FILE) is symbolized with the executable
 * of -e, or the profile's path line, through its conversion to feedback;
 * the report only ranks what that conversion gives.  Procedures and lines
 * are ranked by samples, descending, ties by name (file, then line)
 * ascending; percentages are of all the profile's samples, those outside
 * every function included.  --call-graph and --counts have no meaning
 * here and are refused.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "show.h"
#include "tool.h"
#include "xprof_dcpi.h"

typedef struct {
	const char *name;   /* procedure, or source file */
	uint32_t line;
	uint64_t samples;
} hot;

static int cmp_hot(const void *x, const void *y)
{
	const hot *a = x, *b = y;
	int c;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	if ((c = strcmp(a->name, b->name)) != 0)
		return c;
	return (a->line > b->line) - (a->line < b->line);
}

static const char *pct(char *buf, uint64_t part, uint64_t total)
{
	snprintf(buf, TOOL_FMTLEN, "%.2f%%",
	         total ? 100.0 * (double)part / (double)total : 0.0);
	return buf;
}

/* The procedures (lines == 0) or the source lines of fb, sorted. */
static hot *collect(const xp_fb *fb, int lines, size_t *n)
{
	size_t cap = lines ? xp_fb_count(fb, XP_T_SRCLINES)
	                   : xp_fb_count(fb, XP_T_PROCS);
	hot *h = calloc(cap ? cap : 1, sizeof *h);

	*n = 0;
	if (h == NULL)
		return NULL;
	if (!lines) {
		for (uint32_t i = 0; i < xp_fb_count(fb, XP_T_PROCS); i++) {
			xp_proc p;
			xp_fb_proc(fb, i, &p);
			h[*n].name = xp_fb_str(fb, p.name);
			for (uint32_t k = 0; k < p.n_counters; k++) {
				xp_counter c;
				xp_fb_counter(fb, p.first_counter + k, &c);
				h[*n].samples += c.value;
			}
			(*n)++;
		}
	} else {
		for (uint32_t i = 0; i < xp_fb_count(fb, XP_T_SRCFILES); i++) {
			xp_srcfile sf;
			xp_fb_srcfile(fb, i, &sf);
			for (uint32_t j = 0; j < sf.n_lines; j++) {
				xp_srcline sl;
				xp_fb_srcline(fb, sf.first_line + j, &sl);
				h[*n].name = xp_fb_str(fb, sf.path);
				h[*n].line = sl.line;
				for (uint32_t k = 0; k < sl.n_refs; k++) {
					xp_blockref br;
					xp_fb_blockref(fb, sl.first_ref + k, &br);
					h[*n].samples += br.count;
				}
				(*n)++;
			}
		}
	}
	qsort(h, *n, sizeof *h, cmp_hot);
	return h;
}

static void print_value(FILE *f, const xp_dcpi *m, xp_dcpi_kind k, int json)
{
	const char *v;
	size_t n;
	char *s;

	if (xp_dcpi_value(m, k, &v, &n) != 0) {
		fputs(json ? "null" : "-", f);
		return;
	}
	if (!json) {
		fwrite(v, 1, n, f);
		return;
	}
	if ((s = malloc(n + 1)) == NULL) {
		fputs("null", f);
		return;
	}
	memcpy(s, v, n);
	s[n] = '\0';
	tool_json_str(f, s);
	free(s);
}

static int report(FILE *f, const xp_prof *p, const show_opts *o)
{
	const xp_dcpi *m = xp_prof_model(p);
	xp_conv_opts co = { o->exe };
	xp_diags *d;
	xp_fb *fb = NULL;
	hot *procs = NULL, *lines = NULL;
	size_t np = 0, nl = 0;
	uint64_t total = xp_dcpi_total_samples(m), inproc = 0, cum = 0;
	char b1[TOOL_FMTLEN], b2[TOOL_FMTLEN], b3[TOOL_FMTLEN];
	const char *v;
	size_t vn;
	xp_err err;
	int status = 2;

	if (o->call_graph) {
		fprintf(stderr, "%s: %s: --call-graph has no meaning for a "
		        "DCPI profile\n", o->prog, o->files[0]);
		return 2;
	}
	if (o->counts) {
		fprintf(stderr, "%s: %s: --counts has no meaning for a DCPI "
		        "profile\n", o->prog, o->files[0]);
		return 2;
	}
	if (o->exe == NULL && xp_dcpi_value(m, XP_DCPI_PATH, &v, &vn) != 0) {
		fprintf(stderr, "%s: %s: a DCPI profile without a path line "
		        "needs its image: give -e EXECUTABLE\n", o->prog,
		        o->files[0]);
		return 2;
	}
	if ((d = xp_diags_new(0)) == NULL)
		goto nomem;
	err = xp_prof_to_feedback(p, &co, &fb, d);
	tool_print_diags(o->prog, d, err, o->files[0]);
	xp_diags_free(d);
	if (err != XP_E_OK)
		return 2;
	if ((procs = collect(fb, 0, &np)) == NULL ||
	    (o->lines && (lines = collect(fb, 1, &nl)) == NULL))
		goto nomem;
	for (size_t i = 0; i < np; i++)
		inproc += procs[i].samples;
	if (np > o->top_n)
		np = o->top_n;
	if (nl > o->top_n)
		nl = o->top_n;

	if (o->json) {
		fputs("{\"files\":[", f);
		for (int i = 0; i < o->nfiles; i++) {
			if (i)
				fputc(',', f);
			tool_json_str(f, o->files[i]);
		}
		fputs("],\"image\":", f);
		print_value(f, m, XP_DCPI_IMAGE, 1);
		fputs(",\"event\":", f);
		print_value(f, m, XP_DCPI_EVENT, 1);
		fprintf(f, ",\"period\":%" PRIu64 ",\"samples\":%" PRIu64
		        ",\"addresses\":%" PRIu32 ",\"in_procedures\":%" PRIu64
		        ",\"procedures\":[", xp_dcpi_period(m), total,
		        xp_dcpi_total_addrs(m), inproc);
		for (size_t i = 0; i < np; i++) {
			fputs(i ? ",{\"name\":" : "{\"name\":", f);
			tool_json_str(f, procs[i].name);
			fprintf(f, ",\"samples\":%" PRIu64 "}", procs[i].samples);
		}
		fputc(']', f);
		if (o->lines) {
			fputs(",\"lines\":[", f);
			for (size_t i = 0; i < nl; i++) {
				fputs(i ? ",{\"file\":" : "{\"file\":", f);
				tool_json_str(f, lines[i].name);
				fprintf(f, ",\"line\":%" PRIu32 ",\"samples\":%"
				        PRIu64 "}", lines[i].line,
				        lines[i].samples);
			}
			fputc(']', f);
		}
		fputs("}\n", f);
		status = 0;
		goto out;
	}
	fputs(o->nfiles == 1 ? "DCPI profile:" : "DCPI profiles (summed):", f);
	for (int i = 0; i < o->nfiles; i++)
		fprintf(f, " %s", o->files[i]);
	fputs("\nimage: ", f);
	print_value(f, m, XP_DCPI_IMAGE, 0);
	fputs("\nevent: ", f);
	print_value(f, m, XP_DCPI_EVENT, 0);
	fprintf(f, "\nperiod: %" PRIu64 "\n", xp_dcpi_period(m));
	fprintf(f, "samples: %" PRIu64 " at %" PRIu32 " addresses\n", total,
	        xp_dcpi_total_addrs(m));
	fprintf(f, "in procedures: %" PRIu64 " (%s)\n", inproc,
	        pct(b1, inproc, total));
	if (np > 0) {
		tool_table tb;
		fprintf(f, "\nHottest procedures (top %zu):\n", o->top_n);
		tool_tab_init(&tb, 4, 1);
		tool_tab_row(&tb, (const char *const[]){ "samples", "%", "cum%",
		                                         "procedure" });
		for (size_t i = 0; i < np; i++) {
			cum += procs[i].samples;
			tool_tab_row(&tb, (const char *const[]){
				tool_fmt_u64(b1, procs[i].samples),
				pct(b2, procs[i].samples, total),
				pct(b3, cum, total), procs[i].name });
		}
		tool_tab_print(&tb, f);
		tool_tab_free(&tb);
		if (tb.failed)
			goto nomem;
	}
	if (o->lines && nl > 0) {
		tool_table tb;
		char src[4096];
		fprintf(f, "\nHottest source lines (top %zu):\n", o->top_n);
		tool_tab_init(&tb, 3, 1);
		tool_tab_row(&tb, (const char *const[]){ "samples", "%",
		                                         "source line" });
		for (size_t i = 0; i < nl; i++) {
			snprintf(src, sizeof src, "%s:%" PRIu32, lines[i].name,
			         lines[i].line);
			tool_tab_row(&tb, (const char *const[]){
				tool_fmt_u64(b1, lines[i].samples),
				pct(b2, lines[i].samples, total), src });
		}
		tool_tab_print(&tb, f);
		tool_tab_free(&tb);
		if (tb.failed)
			goto nomem;
	}
	status = 0;
	goto out;
nomem:
	fprintf(stderr, "%s: %s\n", o->prog, xp_strerror(XP_E_NOMEM));
	status = 2;
out:
	free(procs);
	free(lines);
	xp_fb_free(fb);
	return status;
}

const show_report show_report_dcpi = { XP_FMT_DCPI, report };
