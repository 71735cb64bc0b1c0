/*
 * show/cpuprof.c - the xprof_show report of gperftools CPU profiles: flat
 * and cumulative samples per function, the way google-pprof --text
 * prints them (cpuprofile(5), REPORTS), or per function and source line
 * with --lines, or as JSON with --format=json.  The numbers come from
 * the library (xp_prof_report(), the CPU profile module's report); this
 * file only prints them.
 *
 *   Total: 339 samples
 *        339 100.0% 100.0%      339 100.0% fib
 *
 * Columns: flat samples, their share of the total, the running sum of
 * the flat shares, cumulative samples and their share, the name.  Every
 * entry is printed unless -n limits them.  --call-graph and --counts are
 * refused.
 */
#include <inttypes.h>

#include "show.h"
#include "tool.h"
#include "xprof_cpuprof.h"

static void pct(char *buf, size_t len, uint64_t n, uint64_t total)
{
	if (total != 0)
		snprintf(buf, len, "%.1f%%", (double)n * 100.0 / (double)total);
	else
		snprintf(buf, len, "%s", n == 0 ? "nan" : "+inf");
}

static void print_text(FILE *f, const xp_cpuprof_report *r, size_t limit,
                       int lines)
{
	uint64_t total = 0, running = 0;
	size_t n = xp_cpuprof_report_n(r);

	for (size_t i = 0; i < n; i++)
		total += xp_cpuprof_report_get(r, i)->flat;
	if (xp_cpuprof_report_total(r) != 0)
		fprintf(f, "Total: %" PRIu64 " samples\n",
		        xp_cpuprof_report_total(r));
	for (size_t i = 0; i < n && i < limit; i++) {
		const xp_cpuprof_entry *e = xp_cpuprof_report_get(r, i);
		char p1[32], p2[32], p3[32];

		running += e->flat;
		pct(p1, sizeof p1, e->flat, total);
		pct(p2, sizeof p2, running, total);
		pct(p3, sizeof p3, e->cum, total);
		fprintf(f, "%8" PRIu64 " %6s %6s %8" PRIu64 " %6s %s", e->flat,
		        p1, p2, e->cum, p3, e->name);
		if (lines)
			fprintf(f, " %s:%u", e->file ? e->file : "??", e->line);
		fputc('\n', f);
	}
}

static void print_json(FILE *f, const show_opts *o, const xp_cpuprof *p,
                       const xp_cpuprof_report *r, size_t limit)
{
	size_t n = xp_cpuprof_report_n(r);

	fputs("{\n  \"files\": [", f);
	for (int i = 0; i < o->nfiles; i++) {
		fputs(i ? ", " : "", f);
		tool_json_str(f, o->files[i]);
	}
	fprintf(f, "],\n  \"period_us\": %" PRIu64 ",\n  \"total\": %" PRIu64
	        ",\n  \"unit\": \"samples\",\n  \"%s\": [",
	        xp_cpuprof_period(p), xp_cpuprof_report_total(r),
	        o->lines ? "lines" : "functions");
	for (size_t i = 0; i < n && i < limit; i++) {
		const xp_cpuprof_entry *e = xp_cpuprof_report_get(r, i);
		fputs(i ? ",\n    {" : "\n    {", f);
		fputs("\"name\": ", f);
		tool_json_str(f, e->name);
		if (o->lines) {
			fputs(", \"file\": ", f);
			tool_json_str(f, e->file);
			fprintf(f, ", \"line\": %u", e->line);
		}
		fputs(", \"object\": ", f);
		tool_json_str(f, e->object);
		fprintf(f, ", \"flat\": %" PRIu64 ", \"cum\": %" PRIu64 "}",
		        e->flat, e->cum);
	}
	fputs(n ? "\n  ]\n}\n" : "]\n}\n", f);
}

static int report(FILE *f, const xp_prof *pr, const show_opts *o)
{
	const xp_cpuprof *p = xp_prof_model(pr);
	xp_report_opts ro = { .exe = o->exe, .lines = o->lines };
	xp_report *rep = NULL;
	const xp_cpuprof_report *r;
	xp_diags *d = xp_diags_new(0);
	size_t limit = o->top_n_given ? o->top_n : SIZE_MAX;
	xp_err err;

	if (o->call_graph) {
		fprintf(stderr, "%s: %s: --call-graph has no meaning for a CPU "
		        "profile\n", o->prog, o->files[0]);
		xp_diags_free(d);
		return 2;
	}
	if (o->counts) {
		fprintf(stderr, "%s: %s: --counts has no meaning for a CPU "
		        "profile\n", o->prog, o->files[0]);
		xp_diags_free(d);
		return 2;
	}
	if (d == NULL) {
		fprintf(stderr, "%s: out of memory\n", o->prog);
		return 2;
	}
	err = xp_prof_report(pr, &ro, o->nfiles > 0 ? o->files[0] : "", &rep,
	                     d);
	tool_print_diags(o->prog, d, err, o->nfiles > 0 ? o->files[0] : "");
	xp_diags_free(d);
	if (err != XP_E_OK)
		return 2;
	r = xp_report_model(rep);
	if (o->json)
		print_json(f, o, p, r, limit);
	else
		print_text(f, r, limit, o->lines);
	xp_report_free(rep);
	return tool_flush_stdout(o->prog) != 0 ? 2 : 0;
}

const show_report show_report_cpuprof = {
	.fmt = XP_FMT_CPUPROF,
	.report = report,
};
