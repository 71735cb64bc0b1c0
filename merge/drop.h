/*
 * drop.h - what xprof_merge does with an input it cannot merge: stop
 * (--failure-mode=any, the default), or leave it out and go on (all,
 * warn) up to a ceiling (--max-bad), listing every input left out in a
 * JSON file (--rejected).  xprof_merge(1), BAD INPUTS, says it all.
 */
#ifndef XPROF_MERGE_DROP_H
#define XPROF_MERGE_DROP_H

#include <stdint.h>
#include <stdio.h>

#include "xprof.h"

typedef enum { DROP_ANY = 0, DROP_ALL, DROP_WARN } drop_mode;

/* The long options, for getopt_long's table, and their values. */
enum { DROP_OPT_MODE = 512, DROP_OPT_MAX, DROP_OPT_REJECTED };
#define DROP_LONGOPTS                                                    \
	{ "failure-mode", required_argument, NULL, DROP_OPT_MODE },      \
	{ "max-bad", required_argument, NULL, DROP_OPT_MAX },            \
	{ "rejected", required_argument, NULL, DROP_OPT_REJECTED }

typedef struct {
	drop_mode mode;
	int mode_given;
	const char *max_bad;    /* --max-bad's argument, or NULL */
	double limit;           /* the ceiling: a count or a percentage */
	int percent;
	const char *rejected;   /* --rejected's file, or NULL */
	int quiet;
	uint64_t inputs, bad;   /* inputs looked at, and left out */
	FILE *json;             /* the entries of the list so far */
	char *buf;
	size_t len;
} drop;

/*
 * Takes option c (one of DROP_OPT_*) with its argument; returns -1 to go
 * on, or the exit status after a usage error.
 */
int drop_option(drop *dr, int c, const char *arg, const char *prog,
                const char *usage);
/* Once the options are read: -1 to go on, or the exit status after a
 * usage error (out is -o's argument). */
int drop_check(drop *dr, const char *out, const char *prog,
               const char *usage);

/*
 * An input that could not be merged: path as given, its format
 * (XP_FMT_UNKNOWN when not recognised), and why, either the diagnostics
 * d of the failed call that returned err, or msg (d is then NULL).  It
 * goes into the list, and its diagnostics are printed: as they are with
 * --failure-mode=any or all, as warnings with warn.  Returns 0 when the
 * run goes on without it, -1 when it must stop.
 */
int drop_input(drop *dr, const char *prog, const char *path, xp_format fmt,
               xp_diags *d, xp_err err, const char *msg);
/* One input looked at. */
void drop_count(drop *dr);

/*
 * Once every input was looked at: says how many were left out, and
 * returns 0 when that is allowed, -1 (after saying why) when it is more
 * than --max-bad allows or none was left.
 */
int drop_verdict(drop *dr, const char *prog);

/* Writes the list to --rejected's file, if one was named; 0, or -1
 * after saying why. */
int drop_write(drop *dr, const char *prog);
void drop_free(drop *dr);

#endif
