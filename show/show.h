/*
 * show/show.h - the reports of xprof_show for the foreign formats.
 *
 * Each show/NAME.c defines `const show_report show_report_NAME` for one
 * format; main.c lists them, and hands a profile of that format (the sum
 * of every FILE operand) to its report.  Formats without a report of
 * their own are summarized through their conversion to feedback.
 */
#ifndef XPROF_SHOW_H
#define XPROF_SHOW_H

#include <stdio.h>

#include "xprof.h"
#include "xprof_export.h"

typedef struct {
	const char *prog;       /* "xprof_show", for messages */
	char **files;           /* the FILE operands */
	int nfiles;
	size_t top_n;           /* -n (default 10) */
	int top_n_given;        /* -n was given */
	int json;               /* --format=json */
	xp_export_kind export;  /* --format=folded ...; 0: none */
	const char *output;     /* -o OUTPUT, "-" by default */
	int output_given;
	int call_graph;         /* --call-graph */
	int lines;              /* --lines */
	int counts;             /* --counts */
	int no_demangle;        /* --no-demangle */
	const char *exe;        /* -e EXECUTABLE, or NULL */
	const char *layout;     /* -L LAYOUT, or NULL */
} show_opts;

typedef struct {
	xp_format fmt;          /* the binary form, XP_FMT_GMON ... */
	/*
	 * Prints the report of p to f.  Returns 0 on success, 2 after
	 * printing to stderr what went wrong.
	 */
	int (*report)(FILE *f, const xp_prof *p, const show_opts *o);
} show_report;

/*
 * --manifest: prints the manifest of file (a profile directory, a
 * database or a manifest file) as text or JSON (manifest.c).  Returns
 * the exit status.
 */
int show_manifest(const char *prog, const char *file, int json);

#endif
