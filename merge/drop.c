/*
 * drop.c - inputs that xprof_merge cannot merge (drop.h): the failure
 * mode and its ceiling, how a bad input's diagnostics are printed, and
 * the JSON list of every input left out (--rejected).
 *
 * The list is an array of objects, one per input in the order they were
 * looked at:
 *
 *   {"path": P, "format": F, "errors": [{"file": N, "line": L,
 *    "column": C, "message": M}, ...]}
 *
 * P is the path as given, F the name of the format recognised (null when
 * none was), and each error has "line" and "column" (text), "offset"
 * (binary) or neither (the file as a whole).  It is built in memory as
 * the inputs come, and written once at the end.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "drop.h"
#include "tool.h"

/* --max-bad=N or --max-bad=P%: a count, or a percentage 0..100. */
static int parse_limit(drop *dr, const char *arg)
{
	size_t n = strlen(arg);
	char *end;
	double v;

	dr->percent = n > 0 && arg[n - 1] == '%';
	if (n == 0 || arg[0] < '0' || arg[0] > '9')
		return -1;
	errno = 0;
	v = strtod(arg, &end);
	if (errno != 0 || !isfinite(v) || end != arg + n - (size_t)dr->percent)
		return -1;
	if (dr->percent ? v > 100 : v != floor(v))
		return -1;
	dr->limit = v;
	dr->max_bad = arg;
	return 0;
}

int drop_option(drop *dr, int c, const char *arg, const char *prog,
                const char *usage)
{
	static const char *const modes[] = { "any", "all", "warn" };
	char msg[200];

	switch (c) {
	case DROP_OPT_MODE:
		for (int i = 0; i < 3; i++)
			if (strcmp(arg, modes[i]) == 0) {
				dr->mode = (drop_mode)i;
				dr->mode_given = 1;
				return -1;
			}
		snprintf(msg, sizeof msg, "unknown failure mode: %.100s "
		         "(use any, all or warn)", arg);
		return tool_usage_error(prog, usage, msg);
	case DROP_OPT_MAX:
		if (parse_limit(dr, arg) == 0)
			return -1;
		snprintf(msg, sizeof msg, "--max-bad needs a count N or a "
		         "percentage P%%: %.100s", arg);
		return tool_usage_error(prog, usage, msg);
	default:
		if (arg[0] == '\0')
			return tool_usage_error(prog, usage,
			                        "--rejected needs a file name");
		dr->rejected = arg;
		return -1;
	}
}

int drop_check(drop *dr, const char *out, const char *prog,
               const char *usage)
{
	if (dr->max_bad && dr->mode_given && dr->mode == DROP_ANY)
		return tool_usage_error(prog, usage, "--max-bad needs "
		                        "--failure-mode=all or warn");
	if (dr->max_bad && !dr->mode_given)
		dr->mode = DROP_ALL;
	if (dr->rejected && out && strcmp(dr->rejected, "-") == 0 &&
	    strcmp(out, "-") == 0)
		return tool_usage_error(prog, usage, "-o - and --rejected=- "
		                        "cannot both write to standard output");
	return -1;
}

void drop_count(drop *dr)
{
	dr->inputs++;
}

/* One error of the list: where (line and column, or offset) and what. */
static void json_error(FILE *f, const char *file, const xp_diag *dg,
                       const char *msg, int first)
{
	fputs(first ? "{\"file\": " : ", {\"file\": ", f);
	tool_json_str(f, file);
	if (dg && dg->line > 0)
		fprintf(f, ", \"line\": %lu, \"column\": %lu",
		        (unsigned long)dg->line, (unsigned long)dg->col);
	else if (dg && dg->offset != XP_NOPOS)
		fprintf(f, ", \"offset\": %llu", (unsigned long long)dg->offset);
	fputs(", \"message\": ", f);
	tool_json_str(f, msg);
	fputc('}', f);
}

/* The entry of an input left out. */
static int json_entry(drop *dr, const char *path, const char *name,
                      xp_format fmt, xp_diags *d, xp_err err,
                      const char *msg)
{
	size_t n = d ? xp_diags_count(d) : 0, nerr = 0;
	FILE *f;

	if (!dr->json && !(dr->json = open_memstream(&dr->buf, &dr->len)))
		return -1;
	f = dr->json;
	fputs(dr->bad > 1 ? ",\n  {\"path\": " : "  {\"path\": ", f);
	tool_json_str(f, path);
	fputs(", \"format\": ", f);
	tool_json_str(f, fmt == XP_FMT_UNKNOWN ? NULL : xp_format_name(fmt));
	fputs(", \"errors\": [", f);
	for (size_t i = 0; i < n; i++) {
		const xp_diag *dg = xp_diags_get(d, i);
		if (dg->severity == XP_SEV_ERROR)
			json_error(f, dg->file, dg, dg->msg, nerr++ == 0);
	}
	if (nerr == 0)
		json_error(f, name, NULL, msg ? msg : xp_strerror(err), 1);
	fputs("]}", f);
	return ferror(f) ? -1 : 0;
}

/* Prints why an input is left out: as it comes, or as warnings (warn). */
static void print_dropped(const drop *dr, const char *prog, const char *name,
                          xp_diags *d, xp_err err, const char *msg)
{
	int warn = dr->mode == DROP_WARN;
	size_t n, nerr = 0;

	if (warn && dr->quiet)
		return;
	if (msg || !warn) {
		if (msg)
			fprintf(stderr, "%s: %s: %s%s\n", prog, name,
			        warn ? "warning: " : "", msg);
		else
			tool_print_diags_q(prog, d, err, name, dr->quiet);
		return;
	}
	xp_diags_sort(d);
	n = xp_diags_count(d);
	for (size_t i = 0; i < n; i++) {
		xp_diag dg = *xp_diags_get(d, i);
		char *s;

		nerr += dg.severity == XP_SEV_ERROR;
		dg.severity = XP_SEV_WARNING;
		if ((s = xp_diag_format(&dg, prog)) == NULL)
			return;
		fputs(s, stderr);
		free(s);
	}
	if (nerr == 0)
		fprintf(stderr, "%s: %s: warning: %s\n", prog, name,
		        xp_strerror(err));
}

int drop_input(drop *dr, const char *prog, const char *path, xp_format fmt,
               xp_diags *d, xp_err err, const char *msg)
{
	const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;

	dr->bad++;
	print_dropped(dr, prog, name, d, err, msg);
	if (dr->rejected &&
	    json_entry(dr, path, name, fmt, d, err, msg) != 0) {
		fprintf(stderr, "%s: %s\n", prog, xp_strerror(XP_E_NOMEM));
		return -1;
	}
	return dr->mode == DROP_ANY ? -1 : 0;
}

int drop_verdict(drop *dr, const char *prog)
{
	unsigned long long bad = dr->bad, all = dr->inputs;
	int over;

	if (bad == 0)
		return 0;
	if (bad == all) {
		fprintf(stderr, "%s: every input was left out (%llu), nothing "
		        "to merge\n", prog, all);
		return -1;
	}
	over = dr->max_bad &&
	       (dr->percent ? (double)bad * 100 > dr->limit * (double)all
	                    : (double)bad > dr->limit);
	if (over) {
		fprintf(stderr, "%s: %llu of %llu inputs left out, more than "
		        "--max-bad=%s allows\n", prog, bad, all, dr->max_bad);
		return -1;
	}
	if (dr->mode != DROP_WARN || !dr->quiet)
		fprintf(stderr, "%s: %s%llu of %llu inputs left out\n", prog,
		        dr->mode == DROP_WARN ? "warning: " : "", bad, all);
	return 0;
}

int drop_write(drop *dr, const char *prog)
{
	char *out;
	size_t n;
	int st;

	if (!dr->rejected)
		return 0;
	if (dr->json && fflush(dr->json) != 0) {
		fprintf(stderr, "%s: %s\n", prog, xp_strerror(XP_E_NOMEM));
		return -1;
	}
	if (dr->len == 0)
		return tool_write_bytes(prog, "[]\n", 3, dr->rejected);
	if ((out = malloc(dr->len + 5)) == NULL) {
		fprintf(stderr, "%s: %s\n", prog, xp_strerror(XP_E_NOMEM));
		return -1;
	}
	memcpy(out, "[\n", 2);
	memcpy(out + 2, dr->buf, dr->len);
	memcpy(out + 2 + dr->len, "\n]\n", 3);
	n = dr->len + 5;
	st = tool_write_bytes(prog, out, n, dr->rejected);
	free(out);
	return st;
}

void drop_free(drop *dr)
{
	if (dr->json)
		fclose(dr->json);
	free(dr->buf);
	dr->json = NULL;
	dr->buf = NULL;
}
