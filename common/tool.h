/*
 * tool.h - what the xprof tools share: printing the library's diagnostics,
 * reporting usage errors, aligned text tables, JSON strings and small
 * number parsers.  This is the printing side that the library must not
 * have; every tool links it.
 */
#ifndef XPROF_TOOL_H
#define XPROF_TOOL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "xprof.h"
#include "xprof_export.h"

/*
 * Prints the diagnostics in d (warnings and errors), sorted by position.
 * When err is not XP_E_OK and d holds no error, one line names the error
 * under name, so that no failure goes unexplained; when d filled up, a
 * last line says that the run stopped.
 */
void tool_print_diags(const char *prog, xp_diags *d, xp_err err,
                      const char *name);
/* The same, leaving out the warnings when quiet is set (-q). */
void tool_print_diags_q(const char *prog, xp_diags *d, xp_err err,
                        const char *name, int quiet);

/* Prints "prog: msg" and the usage text to stderr; returns exit status 2. */
int tool_usage_error(const char *prog, const char *usage_text,
                     const char *msg);

/*
 * Reports what getopt or getopt_long found wrong, when it returned ret
 * (':' for a missing argument, anything else for an unknown option) with
 * opterr 0: "option -c needs an argument" or "unknown option --name",
 * then the usage text.  opt is optopt, arg is argv[optind - 1].  Returns
 * exit status 2.
 */
int tool_option_error(const char *prog, const char *usage_text, int ret,
                      int opt, const char *arg);

/* The end of every tool's long options: --help, --version. */
#define TOOL_LONGOPTS_END                                                \
	{ "help", no_argument, NULL, 'h' },                              \
	{ "version", no_argument, NULL, 'V' },                           \
	{ NULL, 0, NULL, 0 }

/*
 * Every option the tool does not handle itself: -h and --help (help),
 * -V and --version, and for anything else tool_option_error()'s message
 * (c is getopt's return value, argv the tool's).  Returns the exit
 * status.
 */
int tool_other_option(const char *prog, const char *usage_text,
                      const char *options_text, int c, char **argv);

/*
 * A default output name never replaces data the user did not name:
 * returns 0 when path does not exist, otherwise prints "prog: path: what
 * exists; name it as the second operand to replace it" and returns 2.
 */
int tool_keep_default(const char *prog, const char *path, const char *what);

/*
 * -h and --help: the usage text, a blank line and options_text (one line
 * per option: "  -x, --long ARG    what it does") on standard output.
 * Returns the exit status.
 */
int tool_help(const char *usage_text, const char *options_text);

/* -V: "prog version" on standard output.  Returns the exit status. */
int tool_version(const char *prog);

/* --format=text|json: sets *json (0 or 1) and returns 0, or reports the
 * bad value and returns exit status 2. */
/* The same for any list of formats (NULL-terminated): *out gets the
 * index of arg in names. */
int tool_format_choice(const char *prog, const char *usage_text,
                       const char *arg, const char *const *names, int *out);
int tool_format_option(const char *prog, const char *usage_text,
                       const char *arg, int *json);

/* A count option such as -n: sets *out and returns 0, or reports the bad
 * value and returns exit status 2. */
int tool_count_option(const char *prog, const char *usage_text,
                      const char *opt, const char *arg, size_t *out);

/* -j and --jobs (xprof_merge, xprof_atob): a number of threads, 1 to
 * TOOL_MAX_JOBS.  Sets *out and returns 0, or reports the bad value
 * and returns exit status 2. */
#define TOOL_MAX_JOBS 4096
int tool_jobs_option(const char *prog, const char *usage_text,
                     const char *arg, unsigned *out);
/* The default of -j: as many threads as there are CPUs this process may
 * run on (taskset, cpusets), else online ones; at most TOOL_MAX_JOBS. */
unsigned tool_default_jobs(void);

/*
 * A table of rows of cells, printed with every column as wide as its
 * widest cell: numbers right-aligned, the last nleft columns (names)
 * left-aligned, no trailing blanks.  Allocation failures are remembered
 * and make tool_tab_print() print nothing and return -1.
 */
#define TOOL_TAB_MAXCOLS 8

typedef struct {
	char **cells;   /* nrows * ncols strings */
	size_t nrows, cap;
	int ncols;
	int nleft;
	int failed;
} tool_table;

void tool_tab_init(tool_table *t, int ncols, int nleft);
/* Adds a row of ncols cells; they are copied. */
void tool_tab_row(tool_table *t, const char *const *cells);
int tool_tab_print(const tool_table *t, FILE *f);
void tool_tab_free(tool_table *t);

/*
 * The same lines without keeping the rows, for tables too long to hold:
 * a first pass over the rows widens w (ncols widths, from 0) to each
 * row's cells, and a second prints each row as it comes.
 */
void tool_tab_widen(size_t *w, int ncols, const char *const *cells);
void tool_tab_line(FILE *f, const size_t *w, int ncols, int nleft,
                   const char *const *cells);

/* The n strings of parts and a newline, written to f as one line. */
void tool_put_line(FILE *f, const char *const *parts, int n);

/*
 * Those two passes: the caller makes its rows, giving each to
 * tool_pass_row(), while tool_pass_next() says there is a pass to make.
 * The second pass prints title and the header head before its first row;
 * a table without rows prints nothing.
 */
typedef struct {
	FILE *f;
	const char *title;
	const char *const *head;
	int ncols, nleft;
	int print;      /* the second pass */
	size_t rows;    /* rows given in this pass */
	size_t w[TOOL_TAB_MAXCOLS];
} tool_pass;

void tool_pass_init(tool_pass *p, FILE *f, const char *title,
                    const char *const *head, int ncols, int nleft);
void tool_pass_row(tool_pass *p, const char *const *cells);
int tool_pass_next(tool_pass *p);

/* Room for any number the tools format. */
#define TOOL_FMTLEN 48

/* v in decimal, in buf (TOOL_FMTLEN bytes); returns buf. */
const char *tool_fmt_u64(char *buf, uint64_t v);

/* Writes s as a JSON string (NULL as null): quotes and control characters
 * escaped, and every byte that is not part of well-formed UTF-8 written
 * as \u00XX, so that any name gives valid JSON. */
void tool_json_str(FILE *f, const char *s);

/* ------------------------------------------------------------------ */
/* Profiles of any format                                              */
/* ------------------------------------------------------------------ */

/*
 * Writes a profile of a foreign format, its binary form or (text) its
 * lossless text form, to out: "-" for standard output, otherwise a file
 * replaced atomically.  Returns 0, or -1 after printing what went wrong.
 */
int tool_write_prof(const char *prog, const xp_prof *p, int text,
                    const char *out);
/* Flushes standard output: 0, or -1 after printing "prog: <stdout>:
 * cannot write: reason". */
int tool_flush_stdout(const char *prog);
/* The same for the canonical text of a feedback profile, */
int tool_write_text(const char *prog, const xp_fb *fb, const char *out);
/* for its database file (xprof_db(5)), */
int tool_write_db(const char *prog, const xp_fb *fb, const char *out);
/* for len bytes at buf, */
int tool_write_bytes(const char *prog, const void *buf, size_t len,
                     const char *out);
/* and for an export (xprof_export.h) of p, or of fb when p is NULL; name
 * names the profile in messages.  Nothing is written when the library
 * refuses the export. */
int tool_write_export(const char *prog, const xp_prof *p, const xp_fb *fb,
                      xp_export_kind kind, const xp_export_opts *eo,
                      const char *name, const char *out);
/*
 * Opens a profile of any format as feedback: feedback as xp_open_any()
 * does (as xp_input_feedback_as() with like when like is not NULL), the
 * foreign formats through their conversion to feedback (lo gives the
 * executable and layout).  Returns 0, or -1 after printing the
 * diagnostics (warnings are printed either way).
 */
int tool_open_feedback(const char *prog, const char *path,
                       const xp_load_opts *lo, const xp_fb *like,
                       xp_fb **out);

/*
 * A mapped input that another process truncates while it is read raises
 * SIGBUS: after this call the tool then says "prog: FILE: file changed
 * while it was being read" and exits with status 2.  Each tool calls it
 * first thing in main().
 */
void tool_catch_sigbus(const char *prog);

#endif /* XPROF_TOOL_H */
