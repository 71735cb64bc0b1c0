/*
 * xprof_show - summarize profiles.
 *
 *   xprof_show [-n N] [--format=text|json] FILE...
 *
 * Each FILE is a profile in any form xp_input_open() recognises (a profile
 * directory, a feedback database, a feedback text, a profile of another
 * format, "-" for standard input in any of them).  Several files are
 * summed first with the merger
 * (weights 1, mismatched procedure versions dropped with a warning, as
 * xprof_merge --mismatch=warn does).  The summary (xprof_show(1)
 * documents every line of it): totals, object files, the N hottest
 * procedures and blocks, and how many procedures and counters cover 90%,
 * 99% and 99.9% of all counts.  The figures come from xp_summary_new()
 * in the library; this program only prints them.
 *
 * Profiles of the other formats (gmon.out, CPU, DCPI, mpatrol) are summed
 * with xp_prof_merge() and handed to the format's own report
 * (show.h); a format without one is summarized through its conversion
 * to feedback.  The options for those reports (-e, -L, --call-graph,
 * --counts, --lines, --no-demangle) are refused for feedback, and each
 * report refuses those its format has no use for (--no-demangle, gprof's
 * option, is refused here for all but gmon.out).
 *
 * --format=folded, callgrind or pprof writes the library's export of the
 * sum (xprof_export.h) instead, to standard output or to the file of -o,
 * replaced atomically.
 *
 * Exit status: 0 on success, 2 on any trouble.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "show.h"
#include "tool.h"
#include "xprof.h"

/* The reports of the foreign formats, one file of this folder each. */
extern const show_report show_report_cpuprof, show_report_dcpi,
       show_report_gmon, show_report_mpatrol;

static const show_report *const reports[] = {
	&show_report_cpuprof, &show_report_dcpi, &show_report_gmon,
	&show_report_mpatrol, NULL
};

#define PROG "xprof_show"

static const char usage_text[] =
	"usage: " PROG " [-n N] [--format=FORMAT] [-o OUTPUT] [-e EXECUTABLE]\n"
	"       [-L LAYOUT] [--call-graph] [--counts] [--lines] [--no-demangle] "
	"FILE...\n"
	"       " PROG " --manifest [--format=text|json] FILE\n"
	"       " PROG " -h | -V\n";

static const char options_text[] =
	"  -n N                 show the N hottest entries (default 10)\n"
	"  --format=FORMAT      text or json summary (default text), or the\n"
	"                       export folded, callgrind or pprof\n"
	"  -o OUTPUT            write an export to OUTPUT (default -: stdout)\n"
	"  -e EXECUTABLE        the executable the profiles belong to\n"
	"  -L, --layout=LAYOUT  the layout of binary profiles, when not recorded\n"
	"  --call-graph         gmon.out, mpatrol: add the call graph\n"
	"  --counts             mpatrol: sort the tables by counts, not bytes\n"
	"  --lines              CPU and DCPI profiles: per source line; mpatrol:\n"
	"                       call sites by address\n"
	"  --no-demangle        gmon.out: the linker's names, not demangled\n"
	"  --manifest           print what went into a merged profile\n"
	"  -h, --help           print this help and exit\n"
	"  -V, --version        print the version and exit\n";

/* ------------------------------------------------------------------ */
/* Number and string formatting                                        */
/* ------------------------------------------------------------------ */

/* Every formatted field fits in this. */
#define FMTLEN TOOL_FMTLEN

/* b - a with its sign; the magnitude may need all 64 bits. */
/* ------------------------------------------------------------------ */
/* The summary                                                         */
/* ------------------------------------------------------------------ */

/* "90%", "99%", "99.9%": a cutoff in parts per million, trimmed. */
static const char *fmt_cutoff(char *buf, uint32_t ppm)
{
	uint32_t whole = ppm / 10000, frac = ppm % 10000;
	int len = snprintf(buf, FMTLEN, "%" PRIu32 ".%04" PRIu32, whole, frac);

	while (len > 0 && buf[len - 1] == '0')
		buf[--len] = '\0';
	if (len > 0 && buf[len - 1] == '.')
		buf[--len] = '\0';
	strcat(buf, "%");
	return buf;
}

static const char *fmt_source(char *buf, size_t len, const xp_sum_block *b)
{
	if (b->line == 0) {
		snprintf(buf, len, "-");
		return buf;
	}
	int n = snprintf(buf, len, "%s:%" PRIu32,
	                 b->srcfile ? b->srcfile : "?", b->line);
	if (b->col != 0 && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ":%" PRIu32, b->col);
	return buf;
}

static int print_text(FILE *f, char **files, int nfiles, const xp_summary *s,
                      size_t top_n)
{
	const xp_totals *t = xp_summary_totals(s);
	tool_table tb;
	char b1[FMTLEN], b2[FMTLEN], b3[FMTLEN], b4[FMTLEN];

	fputs(nfiles == 1 ? "profile:" : "profiles (summed):", f);
	for (int i = 0; i < nfiles; i++)
		fprintf(f, " %s", files[i]);
	fputc('\n', f);
	fprintf(f, "object files: %" PRIu64 "\n", t->n_objfiles);
	fprintf(f, "procedures: %" PRIu64 "\n", t->n_procs);
	fprintf(f, "counters: %" PRIu64 "\n", t->n_counters);
	fprintf(f, "sum of counts: %" PRIu64 "\n", t->sum);
	fprintf(f, "max count: %" PRIu64 "\n", t->max);
	fprintf(f, "value profile records: %" PRIu64 "\n", t->n_vp_records);
	fprintf(f, "blocks: %" PRIu64 "\n", t->n_blocks);
	fprintf(f, "edges: %" PRIu64 "\n", t->n_edges);
	fprintf(f, "source mapping tuples: %" PRIu64 "\n", t->n_tuples);
	fprintf(f, "programs: %" PRIu64 "\n", t->n_programs);
	fprintf(f, "source files: %" PRIu64 "\n", t->n_srcfiles);
	fprintf(f, "source lines: %" PRIu64 "\n", t->n_srclines);

	if (xp_summary_n_objfiles(s) > 0) {
		fputs("\nObject files:\n", f);
		tool_tab_init(&tb, 5, 1);
		tool_tab_row(&tb, (const char *const[]){"procedures", "counters",
		                                   "sum", "max", "object file"});
		for (size_t i = 0; i < xp_summary_n_objfiles(s); i++) {
			const xp_sum_objfile *o = xp_summary_objfile(s, i);
			tool_tab_row(&tb, (const char *const[]){
				tool_fmt_u64(b1, o->n_procs), tool_fmt_u64(b2, o->n_counters),
				tool_fmt_u64(b3, o->sum), tool_fmt_u64(b4, o->max), o->path});
		}
		tool_tab_print(&tb, f);
		tool_tab_free(&tb);
		if (tb.failed)
			return -1;
	}

	if (xp_summary_n_hot_procs(s) > 0) {
		fprintf(f, "\nHottest procedures (top %zu):\n", top_n);
		tool_tab_init(&tb, 5, 2);
		tool_tab_row(&tb, (const char *const[]){"sum", "max", "counters",
		                                   "object file", "procedure"});
		for (size_t i = 0; i < xp_summary_n_hot_procs(s); i++) {
			const xp_sum_proc *p = xp_summary_hot_proc(s, i);
			tool_tab_row(&tb, (const char *const[]){
				tool_fmt_u64(b1, p->sum), tool_fmt_u64(b2, p->max),
				tool_fmt_u64(b3, p->n_counters), p->objfile, p->name});
		}
		tool_tab_print(&tb, f);
		tool_tab_free(&tb);
		if (tb.failed)
			return -1;
	}

	if (xp_summary_n_hot_blocks(s) > 0) {
		fprintf(f, "\nHottest blocks (top %zu):\n", top_n);
		tool_tab_init(&tb, 5, 3);
		tool_tab_row(&tb, (const char *const[]){"count", "block",
		                                   "object file", "procedure",
		                                   "source"});
		for (size_t i = 0; i < xp_summary_n_hot_blocks(s); i++) {
			const xp_sum_block *b = xp_summary_hot_block(s, i);
			char *src = malloc(strlen(b->srcfile ? b->srcfile : "") +
			                   32);

			if (src == NULL) {
				tool_tab_free(&tb);
				return -1;
			}
			snprintf(b2, sizeof b2, "B%" PRIu32, b->block);
			tool_tab_row(&tb, (const char *const[]){
				tool_fmt_u64(b1, b->count), b2, b->objfile, b->proc,
				fmt_source(src, strlen(b->srcfile ? b->srcfile
				                                  : "") + 32, b)});
			free(src);
		}
		tool_tab_print(&tb, f);
		tool_tab_free(&tb);
		if (tb.failed)
			return -1;
	}

	fputs("\nDetailed summary (the hottest that cover a share of all "
	      "counts):\n", f);
	tool_tab_init(&tb, 5, 0);
	tool_tab_row(&tb, (const char *const[]){"cover", "procedures", "min sum",
	                                   "counters", "min count"});
	for (size_t i = 0; i < xp_summary_n_covers(s); i++) {
		const xp_cover *c = xp_summary_cover(s, i);
		char b5[FMTLEN];
		tool_tab_row(&tb, (const char *const[]){
			fmt_cutoff(b1, c->cutoff_ppm), tool_fmt_u64(b2, c->n_procs),
			tool_fmt_u64(b3, c->min_proc_sum), tool_fmt_u64(b4, c->n_counters),
			tool_fmt_u64(b5, c->min_count)});
	}
	tool_tab_print(&tb, f);
	tool_tab_free(&tb);
	return tb.failed ? -1 : 0;
}

static void print_json(FILE *f, char **files, int nfiles, const xp_summary *s)
{
	const xp_totals *t = xp_summary_totals(s);

	fputs("{\n  \"files\": [", f);
	for (int i = 0; i < nfiles; i++) {
		fputs(i ? ", " : "", f);
		tool_json_str(f, files[i]);
	}
	fputs("],\n  \"totals\": {\n", f);
	fprintf(f, "    \"objfiles\": %" PRIu64 ",\n", t->n_objfiles);
	fprintf(f, "    \"procedures\": %" PRIu64 ",\n", t->n_procs);
	fprintf(f, "    \"counters\": %" PRIu64 ",\n", t->n_counters);
	fprintf(f, "    \"sum\": %" PRIu64 ",\n", t->sum);
	fprintf(f, "    \"max\": %" PRIu64 ",\n", t->max);
	fprintf(f, "    \"vp_records\": %" PRIu64 ",\n", t->n_vp_records);
	fprintf(f, "    \"blocks\": %" PRIu64 ",\n", t->n_blocks);
	fprintf(f, "    \"edges\": %" PRIu64 ",\n", t->n_edges);
	fprintf(f, "    \"tuples\": %" PRIu64 ",\n", t->n_tuples);
	fprintf(f, "    \"programs\": %" PRIu64 ",\n", t->n_programs);
	fprintf(f, "    \"srcfiles\": %" PRIu64 ",\n", t->n_srcfiles);
	fprintf(f, "    \"srclines\": %" PRIu64 "\n  },\n", t->n_srclines);

	fputs("  \"objfiles\": [", f);
	for (size_t i = 0; i < xp_summary_n_objfiles(s); i++) {
		const xp_sum_objfile *o = xp_summary_objfile(s, i);
		fprintf(f, "%s\n    {\"path\": ", i ? "," : "");
		tool_json_str(f, o->path);
		fprintf(f, ", \"procedures\": %" PRIu64 ", \"counters\": %" PRIu64
		        ", \"sum\": %" PRIu64 ", \"max\": %" PRIu64 "}",
		        o->n_procs, o->n_counters, o->sum, o->max);
	}
	fprintf(f, "%s],\n", xp_summary_n_objfiles(s) ? "\n  " : "");

	fputs("  \"hottest_procedures\": [", f);
	for (size_t i = 0; i < xp_summary_n_hot_procs(s); i++) {
		const xp_sum_proc *p = xp_summary_hot_proc(s, i);
		fprintf(f, "%s\n    {\"objfile\": ", i ? "," : "");
		tool_json_str(f, p->objfile);
		fputs(", \"name\": ", f);
		tool_json_str(f, p->name);
		fprintf(f, ", \"sum\": %" PRIu64 ", \"max\": %" PRIu64
		        ", \"counters\": %" PRIu64 "}", p->sum, p->max,
		        p->n_counters);
	}
	fprintf(f, "%s],\n", xp_summary_n_hot_procs(s) ? "\n  " : "");

	fputs("  \"hottest_blocks\": [", f);
	for (size_t i = 0; i < xp_summary_n_hot_blocks(s); i++) {
		const xp_sum_block *b = xp_summary_hot_block(s, i);
		fprintf(f, "%s\n    {\"objfile\": ", i ? "," : "");
		tool_json_str(f, b->objfile);
		fputs(", \"procedure\": ", f);
		tool_json_str(f, b->proc);
		fprintf(f, ", \"block\": %" PRIu32 ", \"count\": %" PRIu64
		        ", \"srcfile\": ", b->block, b->count);
		tool_json_str(f, b->line ? b->srcfile : NULL);
		if (b->line)
			fprintf(f, ", \"line\": %" PRIu32, b->line);
		else
			fputs(", \"line\": null", f);
		if (b->line && b->col)
			fprintf(f, ", \"col\": %" PRIu32 "}", b->col);
		else
			fputs(", \"col\": null}", f);
	}
	fprintf(f, "%s],\n", xp_summary_n_hot_blocks(s) ? "\n  " : "");

	fputs("  \"cover\": [", f);
	for (size_t i = 0; i < xp_summary_n_covers(s); i++) {
		const xp_cover *c = xp_summary_cover(s, i);
		fprintf(f, "%s\n    {\"cutoff_ppm\": %" PRIu32
		        ", \"procedures\": %" PRIu64 ", \"min_procedure_sum\": %"
		        PRIu64 ", \"counters\": %" PRIu64 ", \"min_count\": %"
		        PRIu64 "}", i ? "," : "", c->cutoff_ppm, c->n_procs,
		        c->min_proc_sum, c->n_counters, c->min_count);
	}
	fputs("\n  ]\n}\n", f);
}

/* ------------------------------------------------------------------ */
/* Main                                                                */
/* ------------------------------------------------------------------ */

/*
 * Opens files[i], recognising its format once, and checks that it is of
 * the first file's kind (feedback, or mod0's foreign format; for i == 0
 * that kind is set).  Returns NULL after printing what is wrong.
 */
static xp_input *open_input(char **files, int i, const char **mod0)
{
	xp_diags *d = xp_diags_new(0);
	xp_input *in = NULL;
	xp_err err = d != NULL ? xp_input_open(files[i], &in, d) : XP_E_NOMEM;
	const char *mod;

	tool_print_diags(PROG, d, err, files[i]);
	xp_diags_free(d);
	if (err != XP_E_OK)
		return NULL;
	mod = xp_format_module(xp_input_format(in));
	if (i == 0) {
		*mod0 = mod;
	} else if (mod == NULL || *mod0 == NULL ? mod != *mod0
	                                        : strcmp(mod, *mod0) != 0) {
		fprintf(stderr, "%s: %s: %s cannot be summed with the first "
		        "file's format\n", PROG, files[i],
		        xp_format_a(xp_input_format(in)));
		xp_input_free(in);
		return NULL;
	}
	return in;
}

/* Reads the feedback of files (the first opened as first, which this
 * frees), summing several with the merger; NULL after printing what went
 * wrong. */
static xp_fb *load(char **files, int nfiles, xp_input *first)
{
	xp_diags *d = NULL;
	xp_merger *m = NULL;
	xp_fb *fb = NULL, *out = NULL;
	xp_merge_opts mo;
	const char *mod0 = NULL;
	xp_err err;

	memset(&mo, 0, sizeof mo);
	mo.mode = XP_MERGE_SUM;
	mo.mismatch = XP_MISMATCH_WARN;
	mo.scale = 1;
	if (nfiles > 1 && (m = xp_merger_new(&mo)) == NULL)
		goto nomem;
	for (int i = 0; i < nfiles; i++) {
		xp_input *in = i == 0 ? first : open_input(files, i, &mod0);

		first = NULL;
		if (in == NULL)
			goto fail;
		xp_diags_free(d);
		if ((d = xp_diags_new(0)) == NULL) {
			xp_input_free(in);
			goto nomem;
		}
		err = xp_input_feedback(in, &fb, d);
		xp_input_free(in);
		if (err == XP_E_OK && m == NULL) {
			tool_print_diags(PROG, d, err, files[0]);
			xp_diags_free(d);
			return fb;
		}
		if (err == XP_E_OK)
			err = xp_merger_add(m, fb, 1.0, files[i], d);
		xp_fb_free(fb);
		fb = NULL;
		tool_print_diags(PROG, d, err, files[i]);
		if (err != XP_E_OK)
			goto fail;
	}
	xp_diags_free(d);
	if ((d = xp_diags_new(0)) == NULL)
		goto nomem;
	err = xp_merger_finish(m, &out, d);
	tool_print_diags(PROG, d, err, files[0]);
	if (err != XP_E_OK)
		goto fail;
	xp_merger_free(m);
	xp_diags_free(d);
	return out;
nomem:
	fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
fail:
	xp_input_free(first);
	xp_merger_free(m);
	xp_diags_free(d);
	return NULL;
}

/*
 * Reads every file as a profile of the first one's foreign format (the
 * first opened as first, which this frees) and sums them.  Returns NULL
 * after printing what went wrong.
 */
static xp_prof *load_foreign(char **files, int nfiles, const show_opts *o,
                             xp_input *first, const char *mod0)
{
	xp_load_opts lo = { .exe = o->exe, .layout = o->layout };
	xp_prof *acc = NULL;

	for (int i = 0; i < nfiles; i++) {
		xp_input *in = i == 0 ? first : open_input(files, i, &mod0);
		xp_diags *d = xp_diags_new(0);
		xp_prof *p = NULL;
		xp_err err;

		if (in == NULL || d == NULL) {
			if (in != NULL)
				fprintf(stderr, "%s: %s\n", PROG,
				        xp_strerror(XP_E_NOMEM));
			xp_input_free(in);
			xp_diags_free(d);
			xp_prof_free(acc);
			return NULL;
		}
		err = xp_prof_open_input(in, &lo, &p, d);
		xp_input_free(in);
		if (err == XP_E_OK && nfiles == 1) {
			acc = p;
			p = NULL;
		} else if (err == XP_E_OK) {
			err = xp_prof_merge(&acc, p, 1.0, NULL, files[i], d);
		}
		xp_prof_free(p);
		tool_print_diags(PROG, d, err, files[i]);
		xp_diags_free(d);
		if (err != XP_E_OK) {
			xp_prof_free(acc);
			return NULL;
		}
	}
	return acc;
}

/* The export of p (or of fb when p is NULL) to the output; the exit
 * status. */
static int export(const show_opts *o, const xp_prof *p, const xp_fb *fb)
{
	xp_export_opts eo = { o->exe, o->counts };

	return tool_write_export(PROG, p, fb, o->export, &eo, o->files[0],
	                         o->output) == 0 ? 0 : 2;
}

/*
 * The report of a foreign format: its own, or the feedback summary of
 * its conversion (*fb, for main to print), or the export asked for.
 * Returns -1 when main is to print *fb, otherwise the exit status.
 */
static int show_foreign(const show_opts *o, xp_input *first,
                        const char *mod0, xp_fb **fb)
{
	xp_prof *p = load_foreign(o->files, o->nfiles, o, first, mod0);
	xp_conv_opts co = { .exe = o->exe };
	xp_diags *d;
	xp_err err;

	if (p == NULL)
		return 2;
	if (o->export != 0) {
		int st = export(o, p, NULL);
		xp_prof_free(p);
		return st;
	}
	if (o->no_demangle && xp_prof_format(p) != XP_FMT_GMON) {
		fprintf(stderr, "%s: %s: --no-demangle has no meaning for %s\n",
		        PROG, o->files[0], xp_format_a(xp_prof_format(p)));
		xp_prof_free(p);
		return 2;
	}
	for (size_t i = 0; reports[i] != NULL; i++) {
		if (reports[i]->fmt == xp_prof_format(p)) {
			int st = reports[i]->report(stdout, p, o);
			xp_prof_free(p);
			return st;
		}
	}
	if (o->call_graph || o->lines) {
		fprintf(stderr, "%s: %s: --call-graph and --lines have no "
		        "meaning for %s\n", PROG, o->files[0],
		        xp_format_a(xp_prof_format(p)));
		xp_prof_free(p);
		return 2;
	}
	if (o->counts) {
		fprintf(stderr, "%s: %s: --counts has no meaning for %s\n",
		        PROG, o->files[0], xp_format_a(xp_prof_format(p)));
		xp_prof_free(p);
		return 2;
	}
	if ((d = xp_diags_new(0)) == NULL) {
		xp_prof_free(p);
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
		return 2;
	}
	err = xp_prof_to_feedback(p, &co, fb, d);
	tool_print_diags(PROG, d, err, o->files[0]);
	xp_diags_free(d);
	xp_prof_free(p);
	return err == XP_E_OK ? -1 : 2;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'F'},
		{"call-graph", no_argument, NULL, 'G'},
		{"counts", no_argument, NULL, 'c'},
		{"lines", no_argument, NULL, 'l'},
		{"layout", required_argument, NULL, 'L'},
		{"manifest", no_argument, NULL, 'M'},
		{"no-demangle", no_argument, NULL, 'D'},
		TOOL_LONGOPTS_END
	};
	static const char *const formats[] = {
		"text", "json", "folded", "callgrind", "pprof", NULL
	};
	size_t top_n = 10;
	int c, format = 0, status = 2, stdin_uses = 0, manifest = 0;
	const char *mod0 = NULL;
	xp_input *first;
	show_opts so = { .prog = PROG, .top_n = 10, .output = "-" };
	xp_fb *fb = NULL;
	xp_summary *s = NULL;
	xp_err err;

	tool_catch_sigbus(PROG);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":e:hL:n:o:V", longopts,
	                        NULL)) != -1) {
		int st;

		switch (c) {
		case 'F':
			if ((st = tool_format_choice(PROG, usage_text, optarg,
			                             formats, &format)))
				return st;
			break;
		case 'o':
			so.output = optarg;
			so.output_given = 1;
			break;
		case 'c':
			so.counts = 1;
			break;
		case 'D':
			so.no_demangle = 1;
			break;
		case 'e':
			so.exe = optarg;
			break;
		case 'G':
			so.call_graph = 1;
			break;
		case 'l':
			so.lines = 1;
			break;
		case 'L':
			so.layout = optarg;
			break;
		case 'M':
			manifest = 1;
			break;
		case 'n':
			if ((st = tool_count_option(PROG, usage_text, "-n", optarg,
			                            &top_n)))
				return st;
			so.top_n_given = 1;
			break;
		default:
			return tool_other_option(PROG, usage_text, options_text, c,
			                         argv);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		return tool_usage_error(PROG, usage_text, "missing FILE operand");
	if (manifest && argc > 1)
		return tool_usage_error(PROG, usage_text,
		                        "--manifest takes one FILE");
	if (manifest && (format >= 2 || so.output_given))
		return tool_usage_error(PROG, usage_text, "--manifest prints "
		                        "text or json to standard output");
	if (manifest) {
		status = show_manifest(PROG, argv[0], format == 1);
		return status == 0 && tool_flush_stdout(PROG) != 0 ? 2 : status;
	}
	for (int i = 0; i < argc; i++)
		if (strcmp(argv[i], "-") == 0)
			stdin_uses++;
	if (stdin_uses > 1)
		return tool_usage_error(PROG, usage_text, "standard input can be read only once");

	so.files = argv;
	so.nfiles = argc;
	so.top_n = top_n;
	so.json = format == 1;
	if (format >= 2 &&
	    xp_export_parse(formats[format], &so.export) != 0)
		return 2;
	if (so.export != 0 && (so.top_n_given || so.call_graph || so.lines ||
	                       so.no_demangle))
		return tool_usage_error(PROG, usage_text, "-n, --call-graph, "
		                        "--lines and --no-demangle have no "
		                        "meaning for an export");
	if (so.export == 0 && so.output_given)
		return tool_usage_error(PROG, usage_text, "-o names the file of "
		                        "an export (--format=folded, callgrind "
		                        "or pprof)");
	if ((first = open_input(argv, 0, &mod0)) == NULL)
		return 2;
	if (mod0 != NULL) {
		int st = show_foreign(&so, first, mod0, &fb);
		if (st >= 0)
			return st == 0 && tool_flush_stdout(PROG) != 0 ? 2 : st;
	} else if (so.exe || so.layout || so.call_graph || so.lines) {
		char list[512];
		xp_format_list(list, sizeof list, "or");
		fprintf(stderr, "%s: %s: -e, -L, --call-graph and --lines "
		        "apply to %s\n", PROG, argv[0], list);
		xp_input_free(first);
		return 2;
	} else if (so.counts || so.no_demangle) {
		fprintf(stderr, "%s: %s: %s applies to %s profiles\n", PROG,
		        argv[0], so.counts ? "--counts" : "--no-demangle",
		        so.counts ? "mpatrol" : "gmon.out");
		xp_input_free(first);
		return 2;
	} else if ((fb = load(argv, argc, first)) == NULL) {
		return 2;
	}
	if (so.export != 0) {
		status = export(&so, NULL, fb);
		xp_fb_free(fb);
		return status;
	}
	err = xp_summary_new(fb, top_n, &s);
	if (err != XP_E_OK) {
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(err));
		goto done;
	}
	if (so.json) {
		print_json(stdout, argv, argc, s);
	} else if (print_text(stdout, argv, argc, s, top_n) != 0) {
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
		goto done;
	}
	if (tool_flush_stdout(PROG) != 0)
		goto done;
	status = 0;
done:
	xp_summary_free(s);
	xp_fb_free(fb);
	return status;
}
