/*
 * gcovtree.h - xprof_merge over trees of GCC data files, as runs with
 * GCOV_PREFIX write them (gcov(5), MERGING TREES).
 */
#ifndef XPROF_MERGE_GCOVTREE_H
#define XPROF_MERGE_GCOVTREE_H

#include "xprof.h"

typedef struct {
	const char *path;
	double weight;
} gcovtree_input;

typedef struct {
	const char *out;          /* the output tree, or with feedback a
	                             profile directory */
	int accumulate, feedback, quiet;
	const char *notes;        /* -e: the object directory, or NULL */
	double scale;
	xp_prof_merge_opts pmo;
	const gcovtree_input *in;
	size_t n_in;
} gcovtree_opts;

int gcovtree_is_dir(const char *path);
/* Whether path is a run tree: a directory that holds no feedback
 * database and holds a .gcda file somewhere below it. */
int gcovtree_is_tree(const char *path);

/* Whether rel is a relative path that stays below the directory it is
 * taken in: not empty, not absolute, without a ".." component. */
int gcovtree_rel_ok(const char *rel);
/* Writes profs[k] to out/rel[k] for k below n, each atomically, making
 * the directories it needs.  Returns 0, or -1 after printing what went
 * wrong. */
int gcovtree_write(const char *prog, const char *out, xp_prof *const *profs,
                   const char *const *rel, size_t n);

/* Merges the trees; returns the exit status, having printed what went
 * wrong. */
int gcovtree_run(const char *prog, const gcovtree_opts *o);

#endif
