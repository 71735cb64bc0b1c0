/*
 * diffcov.c - xprof_tcov's differential coverage: --baseline (the lines
 * of each reported source in the categories of lcov's genhtml against
 * the coverage of a baseline), --diff-file and --diff-strip (the patch
 * that made the sources from the baseline's: the lines it changes, and
 * how it moved the others) and --fail-under-changed (the gate on the
 * changed lines).  The library computes (xprof_tcov.h: xp_patch,
 * xp_tcov_dcov, xp_tcov_changed); this file reads the inputs and prints
 * the listing's figures, the JSON members and the gate's verdict, as
 * xprof_tcov(1) documents them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "diffcov.h"

/* What each category is, after lcov's names. */
static const char *const cat_text[XP_TCOV_NCAT] = {
	"new lines, executed",
	"new lines, not executed",
	"lines executed now, not in the baseline",
	"lines executed in the baseline, not now",
	"lines that were not code in the baseline, executed",
	"lines that were not code in the baseline, not executed",
	"lines executed in both",
	"lines executed in neither",
	"lines executed in the baseline, now excluded or not code",
	"lines not executed in the baseline, now excluded or not code",
	"deleted lines, executed in the baseline",
	"deleted lines, not executed in the baseline",
};

/* The three sums of categories that the summaries give. */
static size_t newly_covered(const size_t *c)
{
	return c[XP_TCOV_GNC] + c[XP_TCOV_GBC] + c[XP_TCOV_GIC];
}

static size_t unchanged(const size_t *c)
{
	return c[XP_TCOV_CBC] + c[XP_TCOV_UBC];
}

static int nomem(void)
{
	fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
	return 2;
}

/* ------------------------------------------------------------------ */
/* Options and inputs                                                  */
/* ------------------------------------------------------------------ */

int diffcov_option(tcov_diffopts *o, int c, const char *arg,
                   const char *usage_text)
{
	size_t n;
	int st;

	switch (c) {
	case 'B': {
		const char **v = realloc(o->baselines,
		                         (o->n_baselines + 1) * sizeof *v);
		if (!v)
			return nomem();
		o->baselines = v;
		v[o->n_baselines++] = arg;
		break;
	}
	case 'D':
		o->patch = arg;
		break;
	case 'G':
		if ((st = pct_option("--fail-under-changed", arg, &o->gate,
		                     usage_text)) >= 0)
			return st;
		o->gate_set = 1;
		break;
	case 'P':
		if ((st = tool_count_option(PROG, usage_text, "--diff-strip", arg,
		                            &n)))
			return st;
		o->strip = n > 1000 ? 1000 : (int)n;
		break;
	}
	return -1;
}

int diffcov_check(const tcov_diffopts *o, const char *usage_text,
                  int *n_stdin)
{
	if (o->gate_set && !o->patch)
		return tool_usage_error(PROG, usage_text, "--fail-under-changed "
		                        "needs --diff-file");
	if (o->strip >= 0 && !o->patch)
		return tool_usage_error(PROG, usage_text, "--diff-strip needs "
		                        "--diff-file");
	for (size_t i = 0; i < o->n_baselines; i++)
		*n_stdin += strcmp(o->baselines[i], "-") == 0;
	*n_stdin += o->patch && strcmp(o->patch, "-") == 0;
	return -1;
}

/* Reads and parses the patch; 0 or -1 (printed). */
static int open_patch(tcov_diff *df, const tcov_diffopts *o)
{
	int is_stdin = strcmp(o->patch, "-") == 0;
	FILE *f = is_stdin ? stdin : fopen(o->patch, "r");
	char *text = NULL;
	size_t len = 0;
	xp_diags *d;
	xp_err err;

	df->patch_name = is_stdin ? "<stdin>" : o->patch;
	if (!f) {
		fprintf(stderr, "%s: %s: cannot open: %s\n", PROG, o->patch,
		        strerror(errno));
		return -1;
	}
	if (read_all(f, df->patch_name, &text, &len) != 0) {
		if (!is_stdin)
			fclose(f);
		free(text);
		return -1;
	}
	if (!is_stdin)
		fclose(f);
	if (!(d = xp_diags_new(0))) {
		free(text);
		nomem();
		return -1;
	}
	err = xp_patch_parse(text ? text : "", len, df->patch_name, o->strip,
	                     &df->patch, d);
	free(text);
	tool_print_diags(PROG, d, err, df->patch_name);
	xp_diags_free(d);
	if (!err && !(df->matched = calloc(xp_patch_n_files(df->patch) + 1,
	                                   1))) {
		nomem();
		return -1;
	}
	return err ? -1 : 0;
}

int diffcov_open(tcov_diff *df, const tcov_diffopts *o)
{
	xp_tcov_info info;

	df->opt = o;
	if (o->n_baselines) {
		if (read_profiles(o->baselines, o->n_baselines, 0, &df->base,
		                  &info) != 0)
			return -1;
		if (!(df->base_text = join_names(o->baselines,
		                                 o->n_baselines))) {
			nomem();
			return -1;
		}
	}
	if (!o->patch)
		return 0;
	if (!(df->cwd = realpath(".", NULL))) {
		fprintf(stderr, "%s: the working directory: %s\n", PROG,
		        strerror(errno));
		return -1;
	}
	return open_patch(df, o);
}

void diffcov_free(tcov_diff *df)
{
	xp_tcov_free(df->base);
	xp_patch_free(df->patch);
	free(df->base_text);
	free(df->cwd);
	free(df->matched);
}

/* The baseline's file of source arg (s), whose diff in the patch is pf
 * (NULL: none); NULL after a warning when there is none. */
static const xp_tcov_file *base_file(const tcov_diff *df,
                                     const xp_tcov_map *maps,
                                     size_t n_maps, const char *arg,
                                     const xp_tcov_src *s,
                                     const xp_patch_file *pf, int *oom)
{
	char *old = NULL;
	size_t i;

	if (pf && !pf->old_path)
		return NULL;  /* a new file: no line of it is the baseline's */
	if (pf && pf->renamed && xp_patch_old_path(pf, s->path, &old)) {
		*oom = 1;
		return NULL;
	}
	i = xp_tcov_find(df->base, old ? old : arg, maps, n_maps);
	if (i == XP_TCOV_NONE && old)
		warn_file(arg, "no coverage data in the baseline %s for %s, its "
		          "name before %s; its lines count as code that was not "
		          "in the baseline", df->base_text, old, df->patch_name);
	else if (i == XP_TCOV_NONE)
		warn_file(arg, "no coverage data in the baseline %s; its lines "
		          "count as code that was not in the baseline",
		          df->base_text);
	free(old);
	return i == XP_TCOV_NONE ? NULL : xp_tcov_file_at(df->base, i);
}

int diffcov_source(tcov_diff *df, const xp_tcov_map *maps, size_t n_maps,
                   const char *arg, const xp_tcov_src *s, const char *text,
                   size_t len, tcov_diffrep *r)
{
	const xp_patch_file *pf = NULL;
	int oom = 0;

	if (df->patch) {
		size_t i = xp_patch_find(df->patch, s->path, df->cwd);
		xp_diags *d = xp_diags_new(0);
		if (!d)
			return -2;
		if (i != XP_TCOV_NONE) {
			pf = xp_patch_file_at(df->patch, i);
			df->matched[i] = 1;
			r->diff_path = pf->new_path;
			xp_patch_check(pf, text, len, df->patch_name, arg, d);
		}
		tool_print_diags_q(PROG, d, XP_E_OK, arg, quiet);
		xp_diags_free(d);
		r->has_changed = 1;
		if (xp_tcov_changed(s, pf, &r->lf, &r->lh, &r->missed))
			return -2;
	}
	if (df->base) {
		const xp_tcov_file *bf = base_file(df, maps, n_maps, arg, s, pf,
		                                   &oom);
		if (oom)
			return -2;
		r->base_path = bf ? bf->path : NULL;
		r->has_dcov = 1;
		if (xp_tcov_dcov_init(&r->dcov, s, bf, pf))
			return -2;
	}
	return 0;
}

void diffcov_report_free(tcov_diffrep *r)
{
	if (r->has_dcov)
		xp_tcov_dcov_free(&r->dcov);
	free(r->missed);
}

void diffcov_unreported(tcov_diff *df, const xp_tcov *cov,
                        const xp_tcov_map *maps, size_t n_maps)
{
	for (size_t i = 0; df->patch && i < xp_patch_n_files(df->patch); i++) {
		const xp_patch_file *pf = xp_patch_file_at(df->patch, i);
		if (df->matched[i] || !pf->new_path || pf->n_added == 0 ||
		    xp_tcov_find(cov, pf->new_path, maps, n_maps) == XP_TCOV_NONE)
			continue;
		warn_file(df->patch_name, "changes %s, which the profile covers "
		          "but which is not a SOURCE_FILE operand; its changed "
		          "lines are not counted", pf->new_path);
	}
}

/* ------------------------------------------------------------------ */
/* Listing                                                             */
/* ------------------------------------------------------------------ */

void diffcov_mark(FILE *o, const tcov_diffrep *r, uint32_t line)
{
	const char *name;
	if (!r->has_dcov)
		return;
	name = xp_tcov_cat_name(r->dcov.cat[line]);
	fputs(name ? name : "   ", o);
	fputc(' ', o);
}

void diffcov_summary(FILE *o, const tcov_diffrep *r)
{
	char b[TOOL_FMTLEN];
	if (r->has_changed) {
		fprintf(o, "\n\t%5zu\tChanged lines to execute\n", r->lf);
		fprintf(o, "\t%5zu\tChanged lines executed\n", r->lh);
		fprintf(o, "\t%5s\tPercent of the changed lines executed\n",
		        fmt_pct(b, r->lh, r->lf));
	}
	if (!r->has_dcov)
		return;
	const size_t *c = r->dcov.counts;
	fprintf(o, "\n\n\t\t Against the baseline\n\n");
	fprintf(o, "\t%5zu\tLines newly covered (GNC, GBC, GIC)\n",
	        newly_covered(c));
	fprintf(o, "\t%5zu\tLines that lost their coverage (LBC)\n",
	        c[XP_TCOV_LBC]);
	fprintf(o, "\t%5zu\tLines whose coverage is unchanged (CBC, UBC)\n\n",
	        unchanged(c));
	for (unsigned k = 0; k < XP_TCOV_NCAT; k++)
		if (c[k])
			fprintf(o, "\t%5zu\t%s\t%s\n", c[k], xp_tcov_cat_name(k),
			        cat_text[k]);
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */
/* ------------------------------------------------------------------ */

void diffcov_json_top(FILE *o, const tcov_diff *df)
{
	const tcov_diffopts *opt = df->opt;
	if (opt->n_baselines) {
		fputs(",\n  \"baselines\": [", o);
		for (size_t i = 0; i < opt->n_baselines; i++) {
			fputs(i ? ", " : "", o);
			tool_json_str(o, opt->baselines[i]);
		}
		fputs("]", o);
	}
	if (opt->patch) {
		fputs(",\n  \"patch\": ", o);
		tool_json_str(o, opt->patch);
	}
}

static void json_changed(FILE *o, uint64_t lf, uint64_t lh)
{
	char b[TOOL_FMTLEN];
	fprintf(o, ", \"changed_lines\": %" PRIu64 ", \"changed_lines_executed"
	        "\": %" PRIu64 ", \"changed_line_percent\": %s", lf, lh,
	        fmt_pct(b, lh, lf));
}

static void json_categories(FILE *o, const size_t *c)
{
	fprintf(o, "\"newly_covered\": %zu, \"lost\": %zu, \"unchanged\": %zu, "
	        "\"categories\": {", newly_covered(c), c[XP_TCOV_LBC],
	        unchanged(c));
	for (unsigned k = 0; k < XP_TCOV_NCAT; k++)
		fprintf(o, "%s\"%s\": %zu", k ? ", " : "", xp_tcov_cat_name(k),
		        c[k]);
	fputs("}", o);
}

/* A line number or a count, or null. */
static void json_num(FILE *o, const char *key, int has, uint64_t v)
{
	if (has)
		fprintf(o, "\"%s\": %" PRIu64, key, v);
	else
		fprintf(o, "\"%s\": null", key);
}

void diffcov_json_file(FILE *o, const tcov_diff *df, const tcov_diffrep *r)
{
	if (r->has_changed) {
		fputs(", \"diff_path\": ", o);
		tool_json_str(o, r->diff_path);
		json_changed(o, r->lf, r->lh);
		fputs(", \"changed_lines_not_executed\": [", o);
		for (size_t i = 0; i < r->lf - r->lh; i++)
			fprintf(o, "%s%" PRIu32, i ? ", " : "", r->missed[i]);
		fputs("]", o);
	}
	if (!r->has_dcov)
		return;
	fputs(", \"baseline_path\": ", o);
	tool_json_str(o, r->base_path);
	fputs(", \"differential\": {", o);
	json_categories(o, r->dcov.counts);
	fputs(", \"lines\": [", o);
	for (size_t i = 0; i < r->dcov.n; i++) {
		const xp_tcov_dline *l = &r->dcov.lines[i];
		fputs(i ? ", {" : "{", o);
		json_num(o, "line", l->line != 0, l->line);
		fputs(", ", o);
		json_num(o, "baseline_line", l->base_line != 0, l->base_line);
		fprintf(o, ", \"category\": \"%s\", ", xp_tcov_cat_name(l->cat));
		json_num(o, "count", xp_tcov_cat_code(l->cat), l->count);
		fputs(", ", o);
		json_num(o, "baseline_count", xp_tcov_cat_base_code(l->cat),
		         l->base_count);
		fputs("}", o);
	}
	fputs("]}", o);
}

void diffcov_add(tcov_difftot *t, const tcov_diffrep *r)
{
	t->lf += r->lf;
	t->lh += r->lh;
	for (unsigned k = 0; r->has_dcov && k < XP_TCOV_NCAT; k++)
		t->counts[k] += r->dcov.counts[k];
}

void diffcov_json_totals(FILE *o, const tcov_diff *df,
                         const tcov_difftot *tot)
{
	if (df->opt->patch)
		json_changed(o, tot->lf, tot->lh);
	if (df->opt->n_baselines) {
		fputs(", \"differential\": {", o);
		json_categories(o, tot->counts);
		fputs("}", o);
	}
}

/* ------------------------------------------------------------------ */
/* The gate                                                            */
/* ------------------------------------------------------------------ */

int diffcov_gate(const tcov_diff *df, const tcov_difftot *t)
{
	uint64_t pct = df->opt->gate;
	char b[TOOL_FMTLEN];

	if (t->lf == 0) {
		fprintf(stderr, "%s: %s: no changed line of the reported files "
		        "is executable code; --fail-under-changed passes\n", PROG,
		        df->patch_name);
		return 0;
	}
	if (t->lh * 10000 >= pct * t->lf)
		return 0;
	fprintf(stderr, "%s: changed line coverage %s%% (%" PRIu64 " of %"
	        PRIu64 " changed lines in %s) is below %" PRIu64 ".%02" PRIu64
	        "%%\n", PROG, fmt_below(b, t->lh, t->lf, pct), t->lh, t->lf,
	        df->patch_name, pct / 100, pct % 100);
	return 1;
}

void diffcov_missed(const char *arg, const tcov_diffrep *r)
{
	size_t n = r->lf - r->lh;
	if (n == 0)
		return;
	fprintf(stderr, "%s: %s: changed lines not executed: ", PROG, arg);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && r->missed[j + 1] == r->missed[j] + 1)
			j++;
		fprintf(stderr, "%s%" PRIu32, i ? ", " : "", r->missed[i]);
		if (j > i)
			fprintf(stderr, "-%" PRIu32, r->missed[j]);
		i = j + 1;
	}
	fputc('\n', stderr);
}
