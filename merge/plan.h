/*
 * plan.h - xprof_merge --plan: the merge written as a tree of merges, a
 * Makefile or a build.ninja (xp_plan_write) on standard output.
 */
#ifndef XPROF_MERGE_PLAN_H
#define XPROF_MERGE_PLAN_H

#include "xprof.h"

#define PLAN_MAX_ARGS 16

/* The plan being gathered: o's argument lists point into every and root,
 * the inputs and their weights are copies. */
typedef struct {
	xp_plan_opts o;
	const char *every[PLAN_MAX_ARGS], *root[PLAN_MAX_ARGS];
	xp_plan_input *in;
	size_t n, cap;
	char *work;           /* the default work directory, OUT.work */
} plan;

/* Adds an input (weight 1 is written as no weight); 0, or -1 after
 * printing what is wrong. */
int plan_add(const char *prog, plan *p, const char *path, double weight);
/* Writes the plan to standard output; returns the exit status. */
int plan_print(const char *prog, plan *p);
void plan_free(plan *p);

#endif
