/*
 * show/dcpi.c - prints the xprof_show report of DCPI profiles (dcpi(5),
 * REPORT): what was sampled, and the hottest procedures of the image
 * (with --lines, the hottest source lines too).
 *
 * The library computes the report of the profile (the sum of every
 * FILE) with xp_prof_report(), symbolized with the executable of -e or
 * the profile's path line; this file prints its first -n rows as text or
 * JSON.  Percentages are of all the profile's samples, those outside
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

static const char *pct(char *buf, uint64_t part, uint64_t total)
{
	snprintf(buf, TOOL_FMTLEN, "%.2f%%",
	         total ? 100.0 * (double)part / (double)total : 0.0);
	return buf;
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
	xp_report_opts ro = { .exe = o->exe, .lines = o->lines };
	xp_report *rep = NULL;
	const xp_dcpi_report *r;
	xp_diags *d;
	const xp_dcpi_hot *h;
	size_t np, nl;
	uint64_t total, inproc, cum = 0;
	char b1[TOOL_FMTLEN], b2[TOOL_FMTLEN], b3[TOOL_FMTLEN];
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
	if ((d = xp_diags_new(0)) == NULL)
		goto nomem;
	err = xp_prof_report(p, &ro, o->files[0], &rep, d);
	tool_print_diags(o->prog, d, err, o->files[0]);
	xp_diags_free(d);
	if (err != XP_E_OK)
		return 2;
	r = xp_report_model(rep);
	total = xp_dcpi_report_samples(r);
	inproc = xp_dcpi_report_in_procs(r);
	np = xp_dcpi_report_nprocs(r);
	nl = xp_dcpi_report_nlines(r);
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
			h = xp_dcpi_report_proc(r, i);
			fputs(i ? ",{\"name\":" : "{\"name\":", f);
			tool_json_str(f, h->name);
			fprintf(f, ",\"samples\":%" PRIu64 "}", h->samples);
		}
		fputc(']', f);
		if (o->lines) {
			fputs(",\"lines\":[", f);
			for (size_t i = 0; i < nl; i++) {
				h = xp_dcpi_report_line(r, i);
				fputs(i ? ",{\"file\":" : "{\"file\":", f);
				tool_json_str(f, h->name);
				fprintf(f, ",\"line\":%" PRIu32 ",\"samples\":%"
				        PRIu64 "}", h->line, h->samples);
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
			h = xp_dcpi_report_proc(r, i);
			cum += h->samples;
			tool_tab_row(&tb, (const char *const[]){
				tool_fmt_u64(b1, h->samples),
				pct(b2, h->samples, total),
				pct(b3, cum, total), h->name });
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
			h = xp_dcpi_report_line(r, i);
			snprintf(src, sizeof src, "%s:%" PRIu32, h->name,
			         h->line);
			tool_tab_row(&tb, (const char *const[]){
				tool_fmt_u64(b1, h->samples),
				pct(b2, h->samples, total), src });
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
	xp_report_free(rep);
	return status;
}

const show_report show_report_dcpi = { XP_FMT_DCPI, report };
