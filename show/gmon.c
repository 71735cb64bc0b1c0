/*
 * show/gmon.c - xprof_show's report of gmon.out profiles: gprof's flat
 * profile and, with --call-graph, its call graph and index, laid out as
 * `gprof -b` prints them, from the library's analysis (xp_prof_report();
 * the numbers are gprof's: see gmon(5)).  --format=json gives the same
 * numbers, in seconds and unrounded, for machines.  The executable (-e)
 * is needed; --lines and --counts are refused.  Names are demangled as
 * gprof prints them, or the linker's with --no-demangle (gprof's option
 * of that name); the orders go by the linker's names either way.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "show.h"
#include "tool.h"
#include "xprof.h"
#include "xprof_gmon.h"

/* gprof's units for the per-call columns. */
static const struct {
	char prefix;
	double scale;
} si[] = {
	{ 'T', 1e-12 }, { 'G', 1e-09 }, { 'M', 1e-06 }, { 'K', 1e-03 },
	{ ' ', 1e-00 }, { 'm', 1e+03 }, { 'u', 1e+06 }, { 'n', 1e+09 },
	{ 'p', 1e+12 }, { 'f', 1e+15 }, { 'a', 1e+18 },
};
#define NSI (sizeof si / sizeof si[0])

static size_t flat_scale(const xp_gmon_analysis *a)
{
	double top = 0.0;
	int found = 0;
	size_t k;

	for (size_t i = 0; i < a->n_fns; i++) {
		const xp_gmon_fn *f = &a->fns[i];
		if (f->ncalls != 0) {
			double t = (f->samples + f->child_time) / (double)f->ncalls;
			if (t > top) {
				top = t;
				found = 1;
			}
		}
	}
	if (!found || !(top > 0.0))
		return 0;
	top /= a->hz;
	for (k = 0; k < NSI; k++) {
		double v = si[k].scale * top;
		if (v >= 1.0 && v < 1000.0)
			break;
	}
	return k < NSI ? k : NSI - 1;
}

/* The name of f as gprof prints it, demangled unless o says not to. */
static const char *fn_name(const xp_gmon_fn *f, const show_opts *o)
{
	return f->demangled != NULL && !o->no_demangle ? f->demangled : f->name;
}

static void print_flat(FILE *out, const xp_gmon_analysis *a,
                       const show_opts *o)
{
	size_t ls = flat_scale(a);
	double total = a->total_time, accum = 0.0;
	char unit[16];

	snprintf(unit, sizeof unit, "%c%c/call", si[ls].prefix, a->abbrev);
	fputs("Flat profile:\n", out);
	fprintf(out, "\nEach sample counts as %g %s.\n", 1.0 / a->hz, a->dimen);
	if (total <= 0.0) {
		fputs(" no time accumulated\n\n", out);
		total = 1.0;
	}
	fprintf(out, "%5.5s %10.10s %8.8s %8.8s %8.8s %8.8s  %-8.8s\n", "%  ",
	        "cumulative", "self  ", "", "self  ", "total ", "");
	fprintf(out, "%5.5s %9.9s  %8.8s %8.8s %8.8s %8.8s  %-8.8s\n", "time",
	        a->dimen, a->dimen, "calls", unit, unit, "name");
	for (size_t k = 0; k < a->n_flat; k++) {
		const xp_gmon_fn *f = &a->fns[a->flat[k]];
		accum += f->samples;
		fprintf(out, "%6.2f %9.2f %8.2f",
		        total > 0.0 ? 100 * f->samples / total : 0.0,
		        accum / a->hz, f->samples / a->hz);
		if (f->ncalls != 0)
			fprintf(out, " %8" PRIu64 " %8.2f %8.2f  ", f->ncalls,
			        si[ls].scale * f->samples / a->hz / (double)f->ncalls,
			        si[ls].scale * (f->samples + f->child_time) / a->hz /
			        (double)f->ncalls);
		else
			fprintf(out, " %8.8s %8.8s %8.8s  ", "", "", "");
		fprintf(out, "%s\n", fn_name(f, o));
	}
}

static void print_name(FILE *out, const xp_gmon_fn *f, const show_opts *o)
{
	fputs(fn_name(f, o), out);
	if (f->cycle != 0)
		fprintf(out, " <cycle %" PRIu32 ">", f->cycle);
	if (f->index != 0)
		fprintf(out, f->print_flag ? " [%" PRIu32 "]" : " (%" PRIu32 ")",
		        f->index);
}

static void print_arc_line(FILE *out, const xp_gmon_analysis *a,
                           const show_opts *o, const xp_gmon_farc *arc,
                           const xp_gmon_fn *self, const xp_gmon_fn *other,
                           uint64_t total_calls)
{
	if (arc->parent == arc->child ||
	    (self->cycle != 0 && other->cycle == self->cycle))
		fprintf(out, "%6.6s %5.5s %7.7s %7.7s %7" PRIu64 " %7.7s     ",
		        "", "", "", "", arc->count, "");
	else
		fprintf(out, "%6.6s %5.5s %7.2f %7.2f %7" PRIu64 "/%-7" PRIu64
		        "     ", "", "", arc->time / a->hz,
		        arc->child_time / a->hz, arc->count, total_calls);
	print_name(out, other, o);
	fputc('\n', out);
}

/* The calls of f, or of its cycle as a whole. */
static uint64_t head_calls(const xp_gmon_analysis *a, const xp_gmon_fn *f)
{
	for (size_t c = 0; f->cycle != 0 && c < a->n_cycles; c++)
		if (a->cycles[c].number == f->cycle)
			return a->cycles[c].ncalls;
	return f->ncalls;
}

static void print_graph(FILE *out, const xp_gmon_analysis *a,
                        const show_opts *o)
{
	double pt = a->print_time;

	fputs("\t\t\tCall graph\n\n", out);
	fprintf(out, "\ngranularity: each sample hit covers %ld byte(s)",
	        (long)a->hist_scale * 2);
	if (pt > 0.0) {
		fprintf(out, " for %.2f%% of %.2f seconds\n\n", 100.0 / pt,
		        pt / a->hz);
	} else {
		fputs(" no time propagated\n\n", out);
		pt = 1.0;
	}
	fputs("index % time    self  children    called     name\n", out);
	for (size_t k = 0; k < a->n_order; k++) {
		char buf[32];

		if (a->order[k].is_cycle) {
			const xp_gmon_cycle *c = &a->cycles[a->order[k].i];
			snprintf(buf, sizeof buf, "[%" PRIu32 "]", c->index);
			fprintf(out, "%-6.6s %5.1f %7.2f %7.2f %7" PRIu64, buf,
			        100 * (c->prop_self + c->prop_child) / pt,
			        c->prop_self / a->hz, c->prop_child / a->hz,
			        c->ncalls);
			if (c->self_calls != 0)
				fprintf(out, "+%-7" PRIu64, c->self_calls);
			else
				fprintf(out, " %7.7s", "");
			fprintf(out, " <cycle %" PRIu32 " as a whole> [%" PRIu32
			        "]\n", c->number, c->index);
			for (size_t m = 0; m < c->n_members; m++) {
				const xp_gmon_fn *f =
					&a->fns[a->members[c->first_member + m]];
				fprintf(out, "%6.6s %5.5s %7.2f %7.2f %7" PRIu64, "",
				        "", f->prop_self / a->hz,
				        f->prop_child / a->hz, f->ncalls);
				if (f->self_calls != 0)
					fprintf(out, "+%-7" PRIu64, f->self_calls);
				else
					fprintf(out, " %7.7s", "");
				fputs("     ", out);
				print_name(out, f, o);
				fputc('\n', out);
			}
		} else {
			const xp_gmon_fn *f = &a->fns[a->order[k].i];
			if (f->n_parents == 0)
				fprintf(out, "%6.6s %5.5s %7.7s %7.7s %7.7s %7.7s     "
				        "<spontaneous>\n", "", "", "", "", "", "");
			for (size_t p = 0; p < f->n_parents; p++) {
				const xp_gmon_farc *arc =
					&a->arcs[a->parent_arcs[f->first_parent + p]];
				print_arc_line(out, a, o, arc, f,
				               &a->fns[arc->parent], head_calls(a, f));
			}
			snprintf(buf, sizeof buf, "[%" PRIu32 "]", f->index);
			fprintf(out, "%-6.6s %5.1f %7.2f %7.2f", buf,
			        100 * (f->prop_self + f->prop_child) / pt,
			        f->prop_self / a->hz, f->prop_child / a->hz);
			if (f->ncalls + f->self_calls != 0) {
				fprintf(out, " %7" PRIu64, f->ncalls);
				if (f->self_calls != 0)
					fprintf(out, "+%-7" PRIu64 " ", f->self_calls);
				else
					fprintf(out, " %7.7s ", "");
			} else {
				fprintf(out, " %7.7s %7.7s ", "", "");
			}
			print_name(out, f, o);
			fputc('\n', out);
			for (size_t c = 0; c < f->n_children; c++) {
				const xp_gmon_farc *arc =
					&a->arcs[a->child_arcs[f->first_child + c]];
				const xp_gmon_fn *ch = &a->fns[arc->child];
				print_arc_line(out, a, o, arc, f, ch,
				               head_calls(a, ch));
			}
		}
		fputs("-----------------------------------------------\n", out);
	}
}

static int cmp_name(const void *l, const void *r, void *ctx)
{
	const xp_gmon_analysis *a = ctx;
	return strcmp(a->fns[*(const size_t *)l].name,
	              a->fns[*(const size_t *)r].name);
}

/* The index, sorted by the linker's names as gprof's cmp_name sorts it,
 * each name as printed taking its width. */
static void print_index(FILE *out, const xp_gmon_analysis *a,
                        const show_opts *o)
{
	size_t *names = calloc(a->n_fns + a->n_cycles + 1, sizeof *names);
	size_t nn = 0, todo, rows;
	const int column_width = (80 - 1) / 3;

	if (names == NULL)
		return;
	for (size_t i = 0; i < a->n_fns; i++)
		if (!(a->fns[i].ncalls == 0 && a->fns[i].samples == 0))
			names[nn++] = i;
	qsort_r(names, nn, sizeof *names, cmp_name, (void *)a);
	todo = nn;
	for (size_t c = 0; c < a->n_cycles; c++)
		names[todo++] = c;
	fputs("\f\nIndex by function name\n\n", out);
	rows = (todo + 2) / 3;
	for (size_t i = 0; i < rows; i++) {
		int col = 0, start = 0;
		for (size_t j = i; j < todo; j += rows) {
			char buf[32];
			if (j < nn) {
				const xp_gmon_fn *f = &a->fns[names[j]];
				snprintf(buf, sizeof buf, f->print_flag ? "[%" PRIu32
				         "]" : "(%" PRIu32 ")", f->index);
				col += (int)strlen(buf);
				for (; col < start + 5; ++col)
					fputc(' ', out);
				fprintf(out, " %s ", buf);
				fputs(fn_name(f, o), out);
				col += (int)strlen(fn_name(f, o));
				if (f->is_static && f->file != NULL) {
					fprintf(out, " (%s)", f->file);
					col += (int)strlen(f->file) + 3;
				}
			} else {
				const xp_gmon_cycle *c = &a->cycles[names[j]];
				snprintf(buf, sizeof buf, c->print_flag ? "[%" PRIu32
				         "]" : "(%" PRIu32 ")", c->index);
				col += (int)strlen(buf);
				for (; col < start + 5; ++col)
					fputc(' ', out);
				fprintf(out, " %s ", buf);
				snprintf(buf, sizeof buf, "<cycle %" PRIu32 ">",
				         c->number);
				fputs(buf, out);
				col += (int)strlen(buf);
			}
			start += column_width;
		}
		fputc('\n', out);
	}
	free(names);
}

/* Ten significant digits: more than the text shows, and stable across
 * builds whose last bits of floating point may differ. */
static void json_num(FILE *out, double v)
{
	fprintf(out, "%.10g", v);
}

/* The arcs idx[0..n) of a call graph entry: its parents (the callers'
 * names) or its children (the callees'). */
static void json_arcs(FILE *out, const xp_gmon_analysis *a,
                      const show_opts *o, const size_t *idx, size_t n,
                      int parents)
{
	for (size_t i = 0; i < n; i++) {
		const xp_gmon_farc *arc = &a->arcs[idx[i]];

		fputs(i ? ", {\"name\": " : "{\"name\": ", out);
		tool_json_str(out, fn_name(&a->fns[parents ? arc->parent
		                                           : arc->child], o));
		fprintf(out, ", \"count\": %" PRIu64 ", \"self_seconds\": ",
		        arc->count);
		json_num(out, arc->time / a->hz);
		fputs(", \"children_seconds\": ", out);
		json_num(out, arc->child_time / a->hz);
		fputc('}', out);
	}
}

static void print_json(FILE *out, const xp_gmon_analysis *a,
                       const show_opts *o)
{
	double total = a->total_time > 0 ? a->total_time : 1.0, accum = 0;

	fputs("{\n  \"files\": [", out);
	for (int i = 0; i < o->nfiles; i++) {
		fputs(i ? ", " : "", out);
		tool_json_str(out, o->files[i]);
	}
	fputs("],\n  \"executable\": ", out);
	tool_json_str(out, o->exe);
	fputs(",\n  \"rate\": ", out);
	json_num(out, a->hz);
	fputs(",\n  \"dimension\": ", out);
	tool_json_str(out, a->dimen);
	fputs(",\n  \"total_seconds\": ", out);
	json_num(out, a->total_time / a->hz);
	fputs(",\n  \"flat\": [", out);
	for (size_t k = 0; k < a->n_flat; k++) {
		const xp_gmon_fn *f = &a->fns[a->flat[k]];
		accum += f->samples;
		fputs(k ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
		tool_json_str(out, fn_name(f, o));
		fputs(", \"percent\": ", out);
		json_num(out, 100 * f->samples / total);
		fputs(", \"cumulative_seconds\": ", out);
		json_num(out, accum / a->hz);
		fputs(", \"self_seconds\": ", out);
		json_num(out, f->samples / a->hz);
		fprintf(out, ", \"calls\": %" PRIu64, f->ncalls);
		fputs(", \"self_seconds_per_call\": ", out);
		if (f->ncalls) {
			json_num(out, f->samples / a->hz / (double)f->ncalls);
			fputs(", \"total_seconds_per_call\": ", out);
			json_num(out, (f->samples + f->child_time) / a->hz /
			         (double)f->ncalls);
		} else {
			fputs("null, \"total_seconds_per_call\": null", out);
		}
		fputc('}', out);
	}
	fputs(a->n_flat ? "\n  ]" : "]", out);
	if (o->call_graph) {
		fputs(",\n  \"call_graph\": [", out);
		for (size_t k = 0; k < a->n_order; k++) {
			fputs(k ? ",\n    {" : "\n    {", out);
			if (a->order[k].is_cycle) {
				const xp_gmon_cycle *c = &a->cycles[a->order[k].i];
				fprintf(out, "\"index\": %" PRIu32 ", \"cycle\": %"
				        PRIu32 ", \"self_seconds\": ", c->index,
				        c->number);
				json_num(out, c->prop_self / a->hz);
				fputs(", \"children_seconds\": ", out);
				json_num(out, c->prop_child / a->hz);
				fprintf(out, ", \"called\": %" PRIu64 ", \"self_calls\": %"
				        PRIu64 ", \"members\": [", c->ncalls,
				        c->self_calls);
				for (size_t m = 0; m < c->n_members; m++) {
					fputs(m ? ", " : "", out);
					tool_json_str(out, fn_name(&a->fns[
					    a->members[c->first_member + m]], o));
				}
				fputs("]}", out);
				continue;
			}
			const xp_gmon_fn *f = &a->fns[a->order[k].i];
			fprintf(out, "\"index\": %" PRIu32 ", \"name\": ", f->index);
			tool_json_str(out, fn_name(f, o));
			fputs(", \"percent\": ", out);
			json_num(out, 100 * (f->prop_self + f->prop_child) /
			         (a->print_time > 0 ? a->print_time : 1.0));
			fputs(", \"self_seconds\": ", out);
			json_num(out, f->prop_self / a->hz);
			fputs(", \"children_seconds\": ", out);
			json_num(out, f->prop_child / a->hz);
			fprintf(out, ", \"called\": %" PRIu64 ", \"self_calls\": %"
			        PRIu64 ", \"cycle\": %" PRIu32 ", \"parents\": [",
			        f->ncalls, f->self_calls, f->cycle);
			json_arcs(out, a, o, a->parent_arcs + f->first_parent,
			          f->n_parents, 1);
			fputs("], \"children\": [", out);
			json_arcs(out, a, o, a->child_arcs + f->first_child,
			          f->n_children, 0);
			fputs("]}", out);
		}
		fputs(a->n_order ? "\n  ]" : "]", out);
	}
	fputs("\n}\n", out);
}

static int report(FILE *out, const xp_prof *p, const show_opts *o)
{
	xp_report_opts ro = { .exe = o->exe, .call_graph = o->call_graph };
	const xp_gmon_analysis *a;
	xp_report *r = NULL;
	xp_diags *d;
	xp_err err;

	if (o->counts) {
		fprintf(stderr, "%s: %s: --counts has no meaning for a "
		        "gmon.out\n", o->prog, o->files[0]);
		return 2;
	}
	if (o->exe != NULL && o->lines) {
		fprintf(stderr, "%s: %s: --lines has no meaning for a gmon.out "
		        "(xprof_merge --feedback -e gives line counts)\n", o->prog,
		        o->files[0]);
		return 2;
	}
	if ((d = xp_diags_new(0)) == NULL) {
		fprintf(stderr, "%s: %s\n", o->prog, xp_strerror(XP_E_NOMEM));
		return 2;
	}
	err = xp_prof_report(p, &ro, o->files[0], &r, d);
	tool_print_diags(o->prog, d, err, o->files[0]);
	xp_diags_free(d);
	if (err != XP_E_OK)
		return 2;
	a = xp_report_model(r);
	if (o->json) {
		print_json(out, a, o);
	} else {
		print_flat(out, a, o);
		if (o->call_graph) {
			fputs("\f\n", out);
			print_graph(out, a, o);
			print_index(out, a, o);
		}
	}
	xp_report_free(r);
	return 0;
}

const show_report show_report_gmon = { XP_FMT_GMON, report };
