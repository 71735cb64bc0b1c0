/*
 * jobs.h - xprof_merge -j: feedback inputs merged on several threads, each
 * into a merger of its own, and the partial merges reduced into one.
 */
#ifndef XPROF_MERGE_JOBS_H
#define XPROF_MERGE_JOBS_H

#include "xprof.h"
#include "xprof_manifest.h"

typedef struct jobs jobs;

/* What one input handed to a thread has to say: its diagnostics and its
 * result, or that it is of another format than feedback (clash). */
typedef struct {
	uint64_t index;       /* its place among the inputs, from 0 */
	const char *name;
	xp_diags *d;
	xp_err err;
	xp_format clash;      /* XP_FMT_UNKNOWN unless the format clashes */
	const char *path;     /* as given */
	xp_format fmt;        /* recognised, or XP_FMT_UNKNOWN */
	int bad;              /* the input is bad, the merge as it was */
} job_note;

/*
 * Starts merging on n threads: thread 0 goes on adding to m, which holds
 * the inputs before index first; the others add to mergers like m
 * (xp_merger_new_like).  Each thread starts with its first input.  With
 * skip_bad, a bad input (one that failed and left its thread's merger as
 * it was, xp_merger_failed()) is no failure: it is left out.  NULL when
 * memory runs out.
 */
jobs *jobs_start(xp_merger *m, unsigned n, uint64_t first, int skip_bad,
                 size_t max_diags);
/* Hands out the next input, round robin: input first + i goes to thread
 * i mod n.  -1 once an input failed (the caller stops then), or when no
 * thread could be started. */
int jobs_add(jobs *j, const char *path, const char *name, double weight);
/* Inputs merged so far. */
uint64_t jobs_done(jobs *j);
/*
 * Waits until every input handed out was merged, calling progress() with
 * the number merged now and then, then gives each note to report() in
 * input order, up to the first input that failed (the inputs after it do
 * not count, as on one thread).  Returns 0, or -1 when an input failed.
 * Later calls give no notes and return the same.
 */
int jobs_wait(jobs *j, void (*report)(const job_note *, void *),
              void (*progress)(uint64_t, void *), void *arg);
/* Adds what the other threads merged into m (after jobs_wait()), and
 * the records of the inputs they merged to man. */
xp_err jobs_reduce(jobs *j, xp_manifest *man, xp_diags *d);
void jobs_free(jobs *j);

#endif
