/*
 * xprof_diff - compare two profiles.
 *
 *   xprof_diff [-sv] [-n N] [--format=text|json] A B
 *
 * A and B are profiles in any form xp_open_any() reads (a profile
 * directory, a feedback database, a feedback text, "-" for a text on
 * standard input).  The report (xprof_diff(1) documents every line of
 * it) gives the overlap of the two distributions of counts for the whole
 * profile, per object file and per procedure, what is present on one side
 * only, the largest changes, signature changes and any other difference;
 * -v adds every differing counter.  The comparison itself is
 * xp_cmp_new() in the library; this program only prints it.
 *
 * A and B may also be profiles of the other formats (gmon.out, CPU,
 * DCPI, mpatrol profiles, binary or text); each is compared through its
 * conversion to feedback (xp_prof_to_feedback, with -e naming the
 * executable and -L forcing a layout).
 *
 * Exit status, as cmp(1): 0 the profiles are equal, 1 they differ,
 * 2 trouble.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "xprof.h"

#define PROG "xprof_diff"

static const char usage_text[] =
	"usage: " PROG " [-sv] [-n N] [--format=text|json] [-e EXECUTABLE] [-L LAYOUT] A B\n"
	"       " PROG " -h | -V\n";

static const char options_text[] =
	"  -n N                 list at most N procedures per ranking (default 10)\n"
	"  -s                   silent: only the exit status\n"
	"  -v                   also list every differing counter\n"
	"  --format=text|json   the form of the report (default text)\n"
	"  -e EXECUTABLE        other formats: the executable of the profiles\n"
	"  -L, --layout=LAYOUT  other formats: the layout of binary profiles\n"
	"  -h, --help           print this help and exit\n"
	"  -V, --version        print the version and exit\n";

/* ------------------------------------------------------------------ */
/* Number and string formatting                                        */
/* ------------------------------------------------------------------ */

/* Every formatted field fits in this. */
#define FMTLEN TOOL_FMTLEN

/* b - a with its sign; the magnitude may need all 64 bits. */
static const char *fmt_change(char *buf, uint64_t a, uint64_t b)
{
	if (b == a)
		return tool_fmt_u64(buf, 0);
	buf[0] = b > a ? '+' : '-';
	tool_fmt_u64(buf + 1, b > a ? b - a : a - b);
	return buf;
}

static const char *fmt_relative(char *buf, const xp_cmp_entry *e)
{
	double r = xp_cmp_relative(e);

	if (isinf(r)) {
		snprintf(buf, FMTLEN, "+inf%%");
		return buf;
	}
	/* Two decimals, more when two would show a change as none. */
	snprintf(buf, FMTLEN, "%+.2f%%", r * 100.0);
	for (int d = 3;
	     r != 0 && strspn(buf + 1, "0.") == strlen(buf + 1) - 1 && d <= 12;
	     d++)
		snprintf(buf, FMTLEN, "%+.*f%%", d, r * 100.0);
	return buf;
}

static const char *fmt_sig(char *buf, uint64_t v)
{
	snprintf(buf, FMTLEN, "0x%" PRIx64, v);
	return buf;
}

static void json_bool(FILE *f, int v)
{
	fputs(v ? "true" : "false", f);
}

/* ------------------------------------------------------------------ */
/* The report                                                          */
/* ------------------------------------------------------------------ */

typedef struct {
	const char *name_a, *name_b;
	const xp_fb *a, *b;
	const xp_cmp *c;
	size_t top_n;
	int verbose;
	FILE *f;
} report;

typedef struct {
	size_t of_both, of_only_a, of_only_b;
	size_t pr_both, pr_only_a, pr_only_b, pr_changed;
	uint64_t ct_only_a, ct_only_b;
} counts;

static void count_entries(const xp_cmp *c, counts *k)
{
	memset(k, 0, sizeof *k);
	for (size_t i = 0; i < xp_cmp_n_objfiles(c); i++) {
		const xp_cmp_entry *e = xp_cmp_objfile(c, i);
		if (e->in_a && e->in_b)
			k->of_both++;
		else if (e->in_a)
			k->of_only_a++;
		else
			k->of_only_b++;
	}
	for (size_t i = 0; i < xp_cmp_n_procs(c); i++) {
		const xp_cmp_entry *e = xp_cmp_proc(c, i);
		if (e->in_a && e->in_b) {
			k->pr_both++;
			if (e->diff)
				k->pr_changed++;
		} else if (e->in_a) {
			k->pr_only_a++;
		} else {
			k->pr_only_b++;
		}
	}
	const xp_cmp_entry *t = xp_cmp_total(c);
	k->ct_only_a = t->n_counters_a - t->n_matched;
	k->ct_only_b = t->n_counters_b - t->n_matched;
}

/* The names of difference bits, in bit order, for both output forms. */
static const struct {
	unsigned bit;
	const char *text, *json;
} diff_names[] = {
	{XP_CMP_SIGNATURE, "signature", "signature"},
	{XP_CMP_FIELDS, "header fields", "fields"},
	{XP_CMP_STATS, "stats", "stats"},
	{XP_CMP_COUNTERS, "counters", "counters"},
	{XP_CMP_VALUES, "value profiles", "values"},
	{XP_CMP_STRUCTURE, "blocks, edges or source mapping", "structure"},
	{XP_CMP_PROCS, "one-sided procedures", "procedures"},
};
#define N_DIFF_NAMES (sizeof diff_names / sizeof diff_names[0])

/* "a, b, c" for the bits in mask; empty when none. */
static void diff_list(char *buf, size_t len, unsigned mask)
{
	buf[0] = '\0';
	for (size_t i = 0; i < N_DIFF_NAMES; i++) {
		if (!(mask & diff_names[i].bit))
			continue;
		if (buf[0])
			strncat(buf, ", ", len - strlen(buf) - 1);
		strncat(buf, diff_names[i].text, len - strlen(buf) - 1);
	}
}

static const char *one_side(const xp_cmp_entry *e)
{
	if (e->in_a && e->in_b)
		return "";
	return e->in_a ? "(only in A)" : "(only in B)";
}

/* The top lists; returns -1 when out of memory. */
static int print_top(const report *r, xp_cmp_rank by, const char *title)
{
	size_t *idx, n;
	tool_table t;
	char b1[FMTLEN], b2[FMTLEN], b3[FMTLEN], b4[FMTLEN];

	if (xp_cmp_top(r->c, by, r->top_n, &idx, &n) != XP_E_OK)
		return -1;
	if (n == 0) {
		free(idx);
		return 0;
	}
	fprintf(r->f, "\n%s (top %zu):\n", title, r->top_n);
	tool_tab_init(&t, 6, 2);
	if (by == XP_RANK_OVERLAP)
		tool_tab_row(&t, (const char *const[]){"overlap", "sum A", "sum B",
		                                  "change", "object file",
		                                  "procedure"});
	else
		tool_tab_row(&t, (const char *const[]){
			by == XP_RANK_ABSOLUTE ? "change" : "relative", "sum A",
			"sum B", "overlap", "object file", "procedure"});
	for (size_t i = 0; i < n; i++) {
		const xp_cmp_entry *e = xp_cmp_proc(r->c, idx[i]);
		const char *first, *fourth;

		if (by == XP_RANK_OVERLAP) {
			first = xp_fmt_overlap(b1, e->overlap);
			fourth = fmt_change(b4, e->sum_a, e->sum_b);
		} else {
			first = by == XP_RANK_ABSOLUTE
			            ? fmt_change(b1, e->sum_a, e->sum_b)
			            : fmt_relative(b1, e);
			fourth = xp_fmt_overlap(b4, e->overlap);
		}
		tool_tab_row(&t, (const char *const[]){first, tool_fmt_u64(b2, e->sum_a),
		                                  tool_fmt_u64(b3, e->sum_b), fourth,
		                                  e->objfile, e->name});
	}
	free(idx);
	if (t.failed) {
		tool_tab_free(&t);
		return -1;
	}
	tool_tab_print(&t, r->f);
	tool_tab_free(&t);
	return 0;
}

/* The procedures only in A (side_a) or only in B: a pass of p. */
static void one_sided_rows(const report *r, int side_a, tool_pass *p)
{
	char b1[FMTLEN], b2[FMTLEN];

	for (size_t i = 0; i < xp_cmp_n_procs(r->c); i++) {
		const xp_cmp_entry *e = xp_cmp_proc(r->c, i);
		if (side_a ? !(e->in_a && !e->in_b) : !(e->in_b && !e->in_a))
			continue;
		tool_pass_row(p, (const char *const[]){
			tool_fmt_u64(b1, side_a ? e->sum_a : e->sum_b),
			tool_fmt_u64(b2, side_a ? e->n_counters_a : e->n_counters_b),
			e->objfile, e->name});
	}
}

/* Printed in two passes, no row kept (tool_pass): a profile can have a
 * few hundred thousand procedures. */
static void print_one_sided(const report *r, int side_a)
{
	static const char *const head[] = {"sum", "counters", "object file",
	                                   "procedure"};
	tool_pass p;

	/* The whole profile has the bits of everything in it. */
	if (!(xp_cmp_total(r->c)->diff & XP_CMP_PROCS))
		return;
	tool_pass_init(&p, r->f, side_a ? "\nProcedures only in A:\n"
	                                : "\nProcedures only in B:\n",
	               head, 4, 2);
	while (tool_pass_next(&p))
		one_sided_rows(r, side_a, &p);
}

/* The head of the text report: names, result, overlap, sums, counts. */
static void print_head(const report *r)
{
	const xp_cmp *c = r->c;
	const xp_cmp_entry *tot = xp_cmp_total(c);
	char b1[FMTLEN], b2[FMTLEN], b3[FMTLEN];
	FILE *f = r->f;
	counts k;

	count_entries(c, &k);
	fprintf(f, "A: %s\nB: %s\n", r->name_a, r->name_b);
	fprintf(f, "result: %s\n", xp_cmp_equal(c) ? "profiles are equal"
	                                          : "profiles differ");
	fprintf(f, "overlap: %s\n", xp_fmt_overlap(b1, tot->overlap));
	fprintf(f, "sum of counts: A %" PRIu64 ", B %" PRIu64 " (%s, %s)\n",
	        tot->sum_a, tot->sum_b, fmt_change(b2, tot->sum_a, tot->sum_b),
	        fmt_relative(b3, tot));
	fprintf(f, "object files: %zu in both, %zu only in A, %zu only in B\n",
	        k.of_both, k.of_only_a, k.of_only_b);
	fprintf(f, "procedures: %zu in both (%zu changed), %zu only in A, "
	        "%zu only in B\n", k.pr_both, k.pr_changed, k.pr_only_a,
	        k.pr_only_b);
	fprintf(f, "counters: %" PRIu64 " in both (%" PRIu64 " differ), %"
	        PRIu64 " only in A, %" PRIu64 " only in B\n", tot->n_matched,
	        tot->n_differ, k.ct_only_a, k.ct_only_b);
}

/* The object files table.  Returns -1 out of memory. */
static int print_objfiles(const report *r)
{
	const xp_cmp *c = r->c;
	char b1[FMTLEN], b2[FMTLEN], b3[FMTLEN], b4[FMTLEN];
	tool_table t;

	if (xp_cmp_n_objfiles(c) == 0)
		return 0;
	fprintf(r->f, "\nObject files:\n");
	tool_tab_init(&t, 5, 1);
	tool_tab_row(&t, (const char *const[]){"overlap", "sum A", "sum B",
	                                  "change", "object file"});
	for (size_t i = 0; i < xp_cmp_n_objfiles(c); i++) {
		const xp_cmp_entry *e = xp_cmp_objfile(c, i);
		char *name = NULL;

		/* One-sided: the path and which side. */
		if (!(e->in_a && e->in_b) &&
		    (name = malloc(strlen(e->objfile) + 16)) == NULL) {
			tool_tab_free(&t);
			return -1;
		}
		if (name != NULL)
			sprintf(name, "%s %s", e->objfile, one_side(e));
		tool_tab_row(&t, (const char *const[]){
			xp_fmt_overlap(b1, e->overlap),
			e->in_a ? tool_fmt_u64(b2, e->sum_a) : "-",
			e->in_b ? tool_fmt_u64(b3, e->sum_b) : "-",
			fmt_change(b4, e->sum_a, e->sum_b),
			name != NULL ? name : e->objfile});
		free(name);
	}
	tool_tab_print(&t, r->f);
	tool_tab_free(&t);
	return t.failed ? -1 : 0;
}

/* Object files and procedures whose signatures differ.  Returns -1 out
 * of memory. */
static int print_signatures(const report *r)
{
	const xp_cmp *c = r->c;
	char b1[FMTLEN], b2[FMTLEN];
	tool_table t;
	size_t rows = 0;

	if (!(xp_cmp_total(c)->diff & XP_CMP_SIGNATURE))
		return 0;
	tool_tab_init(&t, 4, 2);
	tool_tab_row(&t, (const char *const[]){"signature A", "signature B",
	                                  "object file", "procedure"});
	for (size_t i = 0; i < xp_cmp_n_objfiles(c); i++) {
		const xp_cmp_entry *e = xp_cmp_objfile(c, i);
		if (!(e->in_a && e->in_b && e->sig_a != e->sig_b))
			continue;
		tool_tab_row(&t, (const char *const[]){fmt_sig(b1, e->sig_a),
		                                  fmt_sig(b2, e->sig_b),
		                                  e->objfile, "-"});
		rows++;
	}
	for (size_t i = 0; i < xp_cmp_n_procs(c); i++) {
		const xp_cmp_entry *e = xp_cmp_proc(c, i);
		if (!(e->diff & XP_CMP_SIGNATURE))
			continue;
		tool_tab_row(&t, (const char *const[]){fmt_sig(b1, e->sig_a),
		                                  fmt_sig(b2, e->sig_b),
		                                  e->objfile, e->name});
		rows++;
	}
	if (rows > 0) {
		fprintf(r->f, "\nSignature changes:\n");
		tool_tab_print(&t, r->f);
	}
	tool_tab_free(&t);
	return t.failed ? -1 : 0;
}

/* "Other differences:" before the first of them. */
static void other_heading(const report *r, size_t *rows)
{
	if ((*rows)++ == 0)
		fprintf(r->f, "\nOther differences:\n");
}

/* How many entries ahead print_others() fetches a name. */
#define AHEAD 16

/* Everything else that makes the profiles differ: the notes, then the
 * object files' and procedures' own fields. */
static void print_others(const report *r)
{
	const xp_cmp *c = r->c;
	FILE *f = r->f;
	char list[256];
	size_t rows = 0;

	for (size_t i = 0; i < xp_cmp_n_notes(c); i++) {
		const xp_cmp_note *n = xp_cmp_get_note(c, i);
		other_heading(r, &rows);
		switch (n->kind) {
		case XP_CMP_NOTE_TYPE:
			fprintf(f, "  data type: A %s, B %s\n",
			        xp_datatype_name(xp_fb_datatype(r->a)),
			        xp_datatype_name(xp_fb_datatype(r->b)));
			break;
		case XP_CMP_NOTE_VERSION:
			fprintf(f, "  version: A 4.%u, B 4.%u\n",
			        xp_fb_minor(r->a), xp_fb_minor(r->b));
			break;
		case XP_CMP_NOTE_PROC_NAMES:
			fprintf(f, "  n_proc_names: A %" PRIu32 ", B %" PRIu32
			        "\n", xp_fb_n_proc_names(r->a),
			        xp_fb_n_proc_names(r->b));
			break;
		case XP_CMP_NOTE_PROGRAM:
		case XP_CMP_NOTE_SRCFILE:
			fprintf(f, "  %s %s: %s\n",
			        n->kind == XP_CMP_NOTE_PROGRAM ? "program"
			                                      : "source file",
			        n->name,
			        !n->in_b ? "only in A"
			        : !n->in_a ? "only in B" : "differs");
			break;
		}
	}
	/* The whole profile has the bits of everything in it. */
	if (!(xp_cmp_total(c)->diff & (XP_CMP_FIELDS | XP_CMP_STATS |
	                               XP_CMP_VALUES | XP_CMP_STRUCTURE)))
		return;
	for (size_t i = 0; i < xp_cmp_n_objfiles(c); i++) {
		const xp_cmp_entry *e = xp_cmp_objfile(c, i);
		unsigned own = e->diff & (XP_CMP_FIELDS | XP_CMP_STATS);
		/* An object file's own bits: procedures report theirs. */
		if (!(e->in_a && e->in_b) || own == 0)
			continue;
		diff_list(list, sizeof list, own);
		other_heading(r, &rows);
		tool_put_line(f, (const char *const[]){"  object file ",
		                                       e->objfile, ": ", list},
		              4);
	}
	for (size_t i = 0; i < xp_cmp_n_procs(c); i++) {
		const xp_cmp_entry *e = xp_cmp_proc(c, i);
		unsigned other = e->diff & (XP_CMP_FIELDS | XP_CMP_STATS |
		                            XP_CMP_VALUES | XP_CMP_STRUCTURE);
		/* The names lie all over the string table, long out of the
		 * cache: each is fetched some entries ahead of its line. */
		if (i + AHEAD < xp_cmp_n_procs(c))
			__builtin_prefetch(xp_cmp_proc(c, i + AHEAD)->name);
		if (other == 0)
			continue;
		diff_list(list, sizeof list, other);
		other_heading(r, &rows);
		tool_put_line(f, (const char *const[]){"  procedure ", e->name,
		                                       " in ", e->objfile, ": ",
		                                       list},
		              6);
	}
}

/* -v's rows: every differing counter, by procedure, a pass of p; -1
 * out of memory. */
static int counter_rows(const report *r, tool_pass *p)
{
	const xp_cmp *c = r->c;
	char b0[FMTLEN], b1[FMTLEN], b2[FMTLEN], b3[FMTLEN];

	for (size_t i = 0; i < xp_cmp_n_procs(c); i++) {
		const xp_cmp_entry *e = xp_cmp_proc(c, i);
		xp_cmp_counter *v;
		size_t n;

		if (e->in_a && e->in_b && !(e->diff & XP_CMP_COUNTERS))
			continue;
		if (xp_cmp_counters(c, i, &v, &n) != XP_E_OK)
			return -1;
		for (size_t j = 0; j < n; j++) {
			if (v[j].in_a && v[j].in_b && v[j].a == v[j].b)
				continue;
			snprintf(b0, sizeof b0, "%" PRIu32, v[j].id);
			tool_pass_row(p, (const char *const[]){
				b0, v[j].in_a ? tool_fmt_u64(b1, v[j].a) : "-",
				v[j].in_b ? tool_fmt_u64(b2, v[j].b) : "-",
				fmt_change(b3, v[j].a, v[j].b), e->objfile,
				e->name});
		}
		free(v);
	}
	return 0;
}

/* -v: every differing counter, in two passes, no row kept (a profile
 * can have millions).  Returns -1 out of memory. */
static int print_counters(const report *r)
{
	static const char *const head[] = {"counter", "A", "B", "change",
	                                   "object file", "procedure"};
	tool_pass p;

	tool_pass_init(&p, r->f, "\nDiffering counters:\n", head, 6, 2);
	while (tool_pass_next(&p))
		if (counter_rows(r, &p) != 0)
			return -1;
	return 0;
}

static int print_text(const report *r)
{
	print_head(r);
	if (print_objfiles(r) != 0)
		return -1;
	print_one_sided(r, 1);
	print_one_sided(r, 0);
	if (print_signatures(r) != 0 ||
	    print_top(r, XP_RANK_ABSOLUTE, "Largest absolute changes") != 0 ||
	    print_top(r, XP_RANK_RELATIVE, "Largest relative changes") != 0 ||
	    print_top(r, XP_RANK_OVERLAP, "Lowest overlaps") != 0)
		return -1;
	print_others(r);
	return r->verbose ? print_counters(r) : 0;
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */
/* ------------------------------------------------------------------ */

static void json_sig(FILE *f, int present, uint64_t v)
{
	if (present)
		fprintf(f, "\"0x%" PRIx64 "\"", v);
	else
		fputs("null", f);
}

static void json_diffs(FILE *f, unsigned mask)
{
	int first = 1;

	fputc('[', f);
	for (size_t i = 0; i < N_DIFF_NAMES; i++) {
		if (!(mask & diff_names[i].bit))
			continue;
		fprintf(f, "%s\"%s\"", first ? "" : ", ", diff_names[i].json);
		first = 0;
	}
	fputc(']', f);
}

static void json_entry(FILE *f, const xp_cmp_entry *e, const char *indent)
{
	char b[FMTLEN];

	fprintf(f, "%s\"in_a\": ", indent);
	json_bool(f, e->in_a);
	fprintf(f, ",\n%s\"in_b\": ", indent);
	json_bool(f, e->in_b);
	fprintf(f, ",\n%s\"overlap\": %s,\n", indent,
	        xp_fmt_overlap(b, e->overlap));
	fprintf(f, "%s\"sum_a\": %" PRIu64 ",\n%s\"sum_b\": %" PRIu64 ",\n",
	        indent, e->sum_a, indent, e->sum_b);
	fprintf(f, "%s\"change\": %s,\n", indent,
	        fmt_change(b, e->sum_a, e->sum_b) + (e->sum_b > e->sum_a));
	fprintf(f, "%s\"counters_a\": %" PRIu64 ",\n%s\"counters_b\": %" PRIu64
	        ",\n", indent, e->n_counters_a, indent, e->n_counters_b);
	fprintf(f, "%s\"counters_both\": %" PRIu64 ",\n%s\"counters_differ\": %"
	        PRIu64 ",\n", indent, e->n_matched, indent, e->n_differ);
	fprintf(f, "%s\"signature_a\": ", indent);
	json_sig(f, e->in_a, e->sig_a);
	fprintf(f, ",\n%s\"signature_b\": ", indent);
	json_sig(f, e->in_b, e->sig_b);
	fprintf(f, ",\n%s\"differences\": ", indent);
	json_diffs(f, e->diff);
}

static int json_top(const report *r, xp_cmp_rank by, const char *key)
{
	size_t *idx, n;
	char b[FMTLEN];
	FILE *f = r->f;

	if (xp_cmp_top(r->c, by, r->top_n, &idx, &n) != XP_E_OK)
		return -1;
	fprintf(f, "  \"%s\": [", key);
	for (size_t i = 0; i < n; i++) {
		const xp_cmp_entry *e = xp_cmp_proc(r->c, idx[i]);
		double rel = xp_cmp_relative(e);

		fprintf(f, "%s\n    {\"objfile\": ", i ? "," : "");
		tool_json_str(f, e->objfile);
		fputs(", \"name\": ", f);
		tool_json_str(f, e->name);
		fprintf(f, ", \"sum_a\": %" PRIu64 ", \"sum_b\": %" PRIu64,
		        e->sum_a, e->sum_b);
		fprintf(f, ", \"change\": %s",
		        fmt_change(b, e->sum_a, e->sum_b) + (e->sum_b > e->sum_a));
		if (isinf(rel))
			fputs(", \"relative\": null", f);
		else
			fprintf(f, ", \"relative\": %.2f", rel * 100.0);
		fprintf(f, ", \"overlap\": %s}", xp_fmt_overlap(b, e->overlap));
	}
	fprintf(f, "%s]", n ? "\n  " : "");
	free(idx);
	return 0;
}

static int print_json(const report *r)
{
	const xp_cmp *c = r->c;
	const xp_cmp_entry *tot = xp_cmp_total(c);
	counts k;
	FILE *f = r->f;
	char b[FMTLEN];

	count_entries(c, &k);
	fputs("{\n  \"a\": ", f);
	tool_json_str(f, r->name_a);
	fputs(",\n  \"b\": ", f);
	tool_json_str(f, r->name_b);
	fputs(",\n  \"equal\": ", f);
	json_bool(f, xp_cmp_equal(c));
	fprintf(f, ",\n  \"total\": {\n    \"overlap\": %s,\n",
	        xp_fmt_overlap(b, tot->overlap));
	fprintf(f, "    \"sum_a\": %" PRIu64 ",\n    \"sum_b\": %" PRIu64 ",\n",
	        tot->sum_a, tot->sum_b);
	fprintf(f, "    \"change\": %s,\n",
	        fmt_change(b, tot->sum_a, tot->sum_b) +
	            (tot->sum_b > tot->sum_a));
	fprintf(f, "    \"objfiles_both\": %zu,\n    \"objfiles_only_a\": %zu,\n"
	        "    \"objfiles_only_b\": %zu,\n", k.of_both, k.of_only_a,
	        k.of_only_b);
	fprintf(f, "    \"procedures_both\": %zu,\n"
	        "    \"procedures_changed\": %zu,\n"
	        "    \"procedures_only_a\": %zu,\n"
	        "    \"procedures_only_b\": %zu,\n", k.pr_both, k.pr_changed,
	        k.pr_only_a, k.pr_only_b);
	fprintf(f, "    \"counters_both\": %" PRIu64 ",\n"
	        "    \"counters_differ\": %" PRIu64 ",\n"
	        "    \"counters_only_a\": %" PRIu64 ",\n"
	        "    \"counters_only_b\": %" PRIu64 "\n  },\n", tot->n_matched,
	        tot->n_differ, k.ct_only_a, k.ct_only_b);

	fputs("  \"objfiles\": [", f);
	for (size_t i = 0; i < xp_cmp_n_objfiles(c); i++) {
		const xp_cmp_entry *e = xp_cmp_objfile(c, i);
		fprintf(f, "%s\n    {\n      \"path\": ", i ? "," : "");
		tool_json_str(f, e->objfile);
		fputs(",\n", f);
		json_entry(f, e, "      ");
		fputs("\n    }", f);
	}
	fprintf(f, "%s],\n", xp_cmp_n_objfiles(c) ? "\n  " : "");

	fputs("  \"procedures\": [", f);
	for (size_t i = 0; i < xp_cmp_n_procs(c); i++) {
		const xp_cmp_entry *e = xp_cmp_proc(c, i);
		fprintf(f, "%s\n    {\n      \"objfile\": ", i ? "," : "");
		tool_json_str(f, e->objfile);
		fputs(",\n      \"name\": ", f);
		tool_json_str(f, e->name);
		fputs(",\n", f);
		json_entry(f, e, "      ");
		if (r->verbose) {
			xp_cmp_counter *v;
			size_t n, rows = 0;

			if (xp_cmp_counters(c, i, &v, &n) != XP_E_OK)
				return -1;
			fputs(",\n      \"differing_counters\": [", f);
			for (size_t j = 0; j < n; j++) {
				if (v[j].in_a && v[j].in_b && v[j].a == v[j].b)
					continue;
				fprintf(f, "%s\n        {\"id\": %" PRIu32 ", \"a\": ",
				        rows++ ? "," : "", v[j].id);
				if (v[j].in_a)
					fprintf(f, "%" PRIu64, v[j].a);
				else
					fputs("null", f);
				fputs(", \"b\": ", f);
				if (v[j].in_b)
					fprintf(f, "%" PRIu64, v[j].b);
				else
					fputs("null", f);
				fputc('}', f);
			}
			fprintf(f, "%s]", rows ? "\n      " : "");
			free(v);
		}
		fputs("\n    }", f);
	}
	fprintf(f, "%s],\n", xp_cmp_n_procs(c) ? "\n  " : "");

	if (json_top(r, XP_RANK_ABSOLUTE, "largest_absolute") != 0)
		return -1;
	fputs(",\n", f);
	if (json_top(r, XP_RANK_RELATIVE, "largest_relative") != 0)
		return -1;
	fputs(",\n", f);
	if (json_top(r, XP_RANK_OVERLAP, "lowest_overlap") != 0)
		return -1;
	fputs(",\n", f);

	fputs("  \"other\": [", f);
	for (size_t i = 0; i < xp_cmp_n_notes(c); i++) {
		const xp_cmp_note *n = xp_cmp_get_note(c, i);
		static const char *const kinds[] = {"type", "version",
		                                    "proc_names", "program",
		                                    "srcfile"};
		fprintf(f, "%s\n    {\"kind\": \"%s\", \"name\": ", i ? "," : "",
		        kinds[n->kind]);
		tool_json_str(f, n->name);
		fputs(", \"in_a\": ", f);
		json_bool(f, n->in_a);
		fputs(", \"in_b\": ", f);
		json_bool(f, n->in_b);
		fputc('}', f);
	}
	fprintf(f, "%s]\n}\n", xp_cmp_n_notes(c) ? "\n  " : "");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Main                                                                */
/* ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'F'},
		{"layout", required_argument, NULL, 'L'},
		TOOL_LONGOPTS_END
	};
	report r;
	int c, silent = 0, json = 0, status = 2;
	xp_load_opts lo = { 0 };
	xp_fb *a = NULL, *b = NULL;
	xp_cmp *cmp = NULL;
	xp_err err;

	tool_catch_sigbus(PROG);
	memset(&r, 0, sizeof r);
	r.top_n = 10;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":e:hL:n:svV", longopts, NULL)) != -1) {
		int st;

		switch (c) {
		case 'F':
			if ((st = tool_format_option(PROG, usage_text, optarg,
			                             &json)))
				return st;
			break;
		case 'e':
			lo.exe = optarg;
			break;
		case 'L':
			lo.layout = optarg;
			break;
		case 'n':
			if ((st = tool_count_option(PROG, usage_text, "-n", optarg,
			                            &r.top_n)))
				return st;
			break;
		case 's':
			silent = 1;
			break;
		case 'v':
			r.verbose = 1;
			break;
		default:
			return tool_other_option(PROG, usage_text, options_text, c,
			                         argv);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 2)
		return tool_usage_error(PROG, usage_text, argc == 0 ? "missing operands A and B"
		                             : "missing operand B");
	if (argc > 2)
		return tool_usage_error(PROG, usage_text, "too many operands");
	if (strcmp(argv[0], "-") == 0 && strcmp(argv[1], "-") == 0)
		return tool_usage_error(PROG, usage_text, "only one of A and B can be standard input");

	/* B is read as a database of A's layout when it is one. */
	if (tool_open_feedback(PROG, argv[0], &lo, NULL, &a) != 0 ||
	    tool_open_feedback(PROG, argv[1], &lo, a, &b) != 0)
		goto done;
	err = xp_cmp_new(a, b, &cmp);
	if (err != XP_E_OK) {
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(err));
		goto done;
	}
	status = xp_cmp_equal(cmp) ? 0 : 1;
	if (!silent) {
		r.name_a = argv[0];
		r.name_b = argv[1];
		r.a = a;
		r.b = b;
		r.c = cmp;
		r.f = stdout;
		if ((json ? print_json(&r) : print_text(&r)) != 0)
			goto nomem;
		if (tool_flush_stdout(PROG) != 0)
			status = 2;
	}
	goto done;
nomem:
	fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
	status = 2;
done:
	xp_cmp_free(cmp);
	xp_fb_free(a);
	xp_fb_free(b);
	return status;
}
