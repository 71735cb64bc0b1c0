/*
 * diffcov.h - what xprof_tcov's two files share: the differential
 * coverage of diffcov.c (--baseline, --diff-file, --diff-strip,
 * --fail-under-changed) and the helpers of main.c it uses.
 */
#ifndef XPROF_TCOV_DIFFCOV_H
#define XPROF_TCOV_DIFFCOV_H

#include <stdint.h>
#include <stdio.h>

#include "tool.h"
#include "xprof_tcov.h"

#define PROG "xprof_tcov"

/* main.c */
extern int quiet;
void warn_file(const char *file, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const char *fmt_pct(char *buf, uint64_t hit, uint64_t total);
const char *fmt_below(char *buf, uint64_t hit, uint64_t total,
                      uint64_t pct);
int pct_option(const char *opt, const char *arg, uint64_t *out,
               const char *usage);
int read_profiles(const char *const *paths, size_t n, int update,
                  xp_tcov **cov, xp_tcov_info *info);
int read_all(FILE *f, const char *name, char **text, size_t *len);
char *join_names(const char *const *v, size_t n);

/* The options, as given. */
typedef struct {
	const char **baselines;     /* --baseline, in order */
	size_t n_baselines;
	const char *patch;          /* --diff-file */
	int strip;                  /* --diff-strip, -1: git's a/ and b/ */
	int gate_set;
	uint64_t gate;              /* --fail-under-changed, hundredths */
} tcov_diffopts;

/* What the baselines and the patch are, once read. */
typedef struct {
	const tcov_diffopts *opt;
	xp_tcov *base;              /* the baselines' union, or NULL */
	char *base_text;            /* their names, for messages */
	xp_patch *patch;            /* or NULL */
	const char *patch_name;     /* for messages */
	char *cwd;                  /* the working directory, resolved */
	unsigned char *matched;     /* [files of the patch]: reported */
} tcov_diff;

/* What one reported source has of it. */
typedef struct {
	int has_dcov;
	xp_tcov_dcov dcov;          /* with --baseline */
	const char *base_path;      /* the baseline's path of it, or NULL */
	int has_changed;            /* with --diff-file */
	const char *diff_path;      /* the patch's name of it, or NULL */
	size_t lf, lh;              /* changed lines that count, executed */
	uint32_t *missed;           /* the others (lf - lh) */
} tcov_diffrep;

/* Figures of every file together. */
typedef struct {
	size_t counts[XP_TCOV_NCAT];
	uint64_t lf, lh;
} tcov_difftot;

int diffcov_option(tcov_diffopts *o, int c, const char *arg,
                   const char *usage_text);
/* Usage errors of the options together; n_stdin is incremented for
 * each that reads standard input.  Returns -1 or the exit status. */
int diffcov_check(const tcov_diffopts *o, const char *usage_text,
                  int *n_stdin);
/* Reads the baselines and the patch: 0, or -1 (printed). */
int diffcov_open(tcov_diff *df, const tcov_diffopts *o);
void diffcov_free(tcov_diff *df);
/* The differential coverage of one source: 0 or -2 out of memory. */
int diffcov_source(tcov_diff *df, const xp_tcov_map *maps, size_t n_maps,
                   const char *arg, const xp_tcov_src *s, const char *text,
                   size_t len, tcov_diffrep *r);
void diffcov_report_free(tcov_diffrep *r);
/* Warns of the patch's files that the profile covers but that were not
 * reported. */
void diffcov_unreported(tcov_diff *df, const xp_tcov *cov,
                        const xp_tcov_map *maps, size_t n_maps);

/* The listing: a line's category, and the figures after the others. */
void diffcov_mark(FILE *o, const tcov_diffrep *r, uint32_t line);
void diffcov_summary(FILE *o, const tcov_diffrep *r);
/* JSON: the top's members, a file's and the totals'. */
void diffcov_json_top(FILE *o, const tcov_diff *df);
void diffcov_json_file(FILE *o, const tcov_diff *df, const tcov_diffrep *r);
void diffcov_json_totals(FILE *o, const tcov_diff *df,
                         const tcov_difftot *tot);
/* Adds the figures of one source to t. */
void diffcov_add(tcov_difftot *t, const tcov_diffrep *r);
/* --fail-under-changed over the totals t: 1 (said) below the gate, else
 * 0 (said when no changed line counts). */
int diffcov_gate(const tcov_diff *df, const tcov_difftot *t);
/* After a failed gate: the changed lines of source arg not executed. */
void diffcov_missed(const char *arg, const tcov_diffrep *r);

#endif /* XPROF_TCOV_DIFFCOV_H */
