/*
 * jobs.c - xprof_merge -j: feedback inputs merged on several threads.
 *
 * The inputs are handed out round robin as they come, so that the
 * threads' shares are a function of the inputs and the number of
 * threads: the result does not depend on the shares, but the warnings
 * about dropped versions do (a thread's merger drops a version once for
 * all the inputs it holds), and handing inputs to whichever thread is
 * free would make them change from run to run.  Each thread opens its
 * inputs and adds them to a merger of its own, through a short queue
 * that the main thread fills while it reads the command line and the
 * list files; the partial merges are then reduced into the first
 * thread's merger (xp_merger_absorb), which gives the bytes that one
 * merger given every input gives.
 *
 * What the inputs have to say (warnings, an error) is kept and given back
 * in input order, up to the first input that failed: the inputs after it
 * are not opened once the failure is known, and what they said is
 * dropped, so that a failing run reports what it reports on one thread.
 * A bad input left out (--failure-mode) is no failure.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jobs.h"

#define RING 16
#define NO_FAILURE UINT64_MAX

typedef struct {
	uint64_t index;
	char *path, *name;
	double weight;
} job;

typedef struct {
	jobs *j;
	xp_merger *m;
	xp_manifest *man;     /* the inputs it merged */
	pthread_t thread;
	int started;
	pthread_cond_t work;  /* a job came, or the inputs ended */
	job ring[RING];
	unsigned head, count;
	job_note *notes;      /* only its thread touches them until joined */
	size_t nnotes, cap;
} worker;

struct jobs {
	pthread_mutex_t mu;
	pthread_cond_t room;  /* a queue has room again */
	worker *w;
	unsigned n;
	uint64_t first, next; /* the first input's index, the next's */
	uint64_t failed;      /* the first input that failed */
	uint64_t done;
	int closed, waited, status;
	int skip_bad;
	size_t max_diags;
};

static void job_free(job *jb)
{
	free(jb->path);
	free(jb->name);
}

/* Keeps what input jb has to say, when anything; 0, or -1 without
 * memory (the note is lost, but the failure, if any, still counts). */
static int keep_note(worker *w, const job *jb, xp_diags *d, xp_err err,
                     xp_format clash, xp_format fmt, int bad)
{
	if (xp_diags_count(d) == 0 && err == XP_E_OK)
		return 0;
	if (w->nnotes == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 8;
		job_note *p = realloc(w->notes, cap * sizeof *p);
		if (!p)
			return -1;
		w->notes = p;
		w->cap = cap;
	}
	if (!jb->name || !jb->path)
		return -1;
	char *name = strdup(jb->name), *path = strdup(jb->path);
	if (!name || !path) {
		free(name);
		free(path);
		return -1;
	}
	w->notes[w->nnotes++] = (job_note){jb->index, name, d, err, clash,
	                                   path, fmt, bad};
	return 0;
}

/* Opens input jb and adds it to w's merger; 1 when it failed (and was
 * not left out). */
static int merge_one(worker *w, const job *jb)
{
	xp_diags *d = xp_diags_new(w->j->max_diags);
	xp_input *in = NULL;
	xp_format clash = XP_FMT_UNKNOWN, f = XP_FMT_UNKNOWN;
	xp_err err = XP_E_NOMEM;
	int taken = 0;          /* the input is in the merge */

	if (d && (err = xp_input_open(jb->path, &in, d)) == XP_E_OK) {
		f = xp_input_format(in);
		if (xp_format_module(f) != NULL) {
			clash = f;
			err = XP_E_INVAL;
		} else {
			err = xp_merger_add_input(w->m, in, jb->weight, jb->name,
			                          d);
			taken = err == XP_E_OK;
			if (err == XP_E_OK)
				err = xp_manifest_add_input(w->man, in, NULL,
				                            jb->weight, d);
			xp_diags_sort(d);
		}
	}
	xp_input_free(in);
	int bad = d && err != XP_E_OK && err != XP_E_NOMEM && !taken &&
	          !xp_merger_failed(w->m);
	if (!d || keep_note(w, jb, d, err, clash, f, bad) != 0 ||
	    (xp_diags_count(d) == 0 && err == XP_E_OK))
		xp_diags_free(d);
	return err != XP_E_OK && !(bad && w->j->skip_bad);
}

static void *run_worker(void *arg)
{
	worker *w = arg;
	jobs *j = w->j;

	pthread_mutex_lock(&j->mu);
	for (;;) {
		while (w->count == 0 && !j->closed)
			pthread_cond_wait(&w->work, &j->mu);
		if (w->count == 0)
			break;
		job jb = w->ring[w->head];
		/* After a failure, the later inputs are not opened. */
		int skip = jb.index > j->failed;
		pthread_mutex_unlock(&j->mu);
		int failed = skip ? 0 : merge_one(w, &jb);
		job_free(&jb);
		pthread_mutex_lock(&j->mu);
		w->head = (w->head + 1) % RING;
		w->count--;
		j->done++;
		if (failed && jb.index < j->failed)
			j->failed = jb.index;
		pthread_cond_signal(&j->room);
	}
	pthread_mutex_unlock(&j->mu);
	return NULL;
}

jobs *jobs_start(xp_merger *m, unsigned n, uint64_t first, int skip_bad,
                 size_t max_diags)
{
	jobs *j = calloc(1, sizeof *j);
	if (!j || !(j->w = calloc(n, sizeof *j->w))) {
		free(j);
		return NULL;
	}
	j->n = n;
	j->first = j->next = first;
	j->failed = NO_FAILURE;
	j->max_diags = max_diags;
	j->skip_bad = skip_bad;
	pthread_mutex_init(&j->mu, NULL);
	pthread_cond_init(&j->room, NULL);
	for (unsigned k = 0; k < n; k++) {
		worker *w = &j->w[k];
		w->j = j;
		pthread_cond_init(&w->work, NULL);
		/* Made now, while m holds only what the main thread added. */
		w->m = k == 0 ? m : xp_merger_new_like(m);
		w->man = xp_manifest_new("", "");
		if (!w->m || !w->man) {
			j->n = k + 1;
			jobs_free(j);
			return NULL;
		}
	}
	return j;
}

int jobs_add(jobs *j, const char *path, const char *name, double weight)
{
	job jb = {j->next, strdup(path), strdup(name), weight};
	worker *w = &j->w[(j->next - j->first) % j->n];
	int st = 0;

	pthread_mutex_lock(&j->mu);
	if (!w->started) {
		w->started = pthread_create(&w->thread, NULL, run_worker, w) == 0;
		if (!w->started) {
			/* Told as the lack of memory it nearly always is. */
			keep_note(w, &jb, xp_diags_new(0), XP_E_NOMEM,
			          XP_FMT_UNKNOWN, XP_FMT_UNKNOWN, 0);
			if (jb.index < j->failed)
				j->failed = jb.index;
		}
	}
	if (!jb.path || !jb.name || !w->started || j->failed != NO_FAILURE) {
		st = -1;
	} else {
		while (w->count == RING)
			pthread_cond_wait(&j->room, &j->mu);
		w->ring[(w->head + w->count++) % RING] = jb;
		j->next++;
		pthread_cond_signal(&w->work);
	}
	pthread_mutex_unlock(&j->mu);
	if (st != 0)
		job_free(&jb);
	return st;
}

uint64_t jobs_done(jobs *j)
{
	pthread_mutex_lock(&j->mu);
	uint64_t done = j->done;
	pthread_mutex_unlock(&j->mu);
	return done;
}

static int cmp_note(const void *a, const void *b)
{
	const job_note *x = a, *y = b;
	return x->index < y->index ? -1 : x->index > y->index;
}

int jobs_wait(jobs *j, void (*report)(const job_note *, void *),
              void (*progress)(uint64_t, void *), void *arg)
{
	if (j->waited)
		return j->status;
	j->waited = 1;
	pthread_mutex_lock(&j->mu);
	j->closed = 1;
	for (unsigned k = 0; k < j->n; k++)
		pthread_cond_signal(&j->w[k].work);
	/* Progress every tenth of a second until the last input is in. */
	while (progress && j->done < j->next - j->first) {
		struct timespec t;
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += 100000000;
		if (t.tv_nsec >= 1000000000) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&j->room, &j->mu, &t);
		uint64_t done = j->done;
		pthread_mutex_unlock(&j->mu);
		progress(done, arg);
		pthread_mutex_lock(&j->mu);
	}
	pthread_mutex_unlock(&j->mu);
	size_t total = 0;
	for (unsigned k = 0; k < j->n; k++) {
		if (j->w[k].started)
			pthread_join(j->w[k].thread, NULL);
		j->w[k].started = 0;
		total += j->w[k].nnotes;
	}
	/* Every note in one array, in input order. */
	job_note *all = malloc((total + 1) * sizeof *all);
	if (all) {
		size_t at = 0;
		for (unsigned k = 0; k < j->n; k++)
			for (size_t i = 0; i < j->w[k].nnotes; i++)
				all[at++] = j->w[k].notes[i];
		qsort(all, total, sizeof *all, cmp_note);
		for (size_t i = 0; report && i < total &&
		                   all[i].index <= j->failed; i++)
			report(&all[i], arg);
		free(all);
	}
	j->status = j->failed != NO_FAILURE || !all ? -1 : 0;
	return j->status;
}

xp_err jobs_reduce(jobs *j, xp_manifest *man, xp_diags *d)
{
	xp_err err = XP_E_OK;
	for (unsigned k = 1; k < j->n && err == XP_E_OK; k++)
		err = xp_merger_absorb(j->w[0].m, j->w[k].m, d);
	for (unsigned k = 0; k < j->n && err == XP_E_OK; k++)
		err = xp_manifest_absorb(man, j->w[k].man);
	return err;
}

void jobs_free(jobs *j)
{
	if (!j)
		return;
	if (!j->waited)
		jobs_wait(j, NULL, NULL, NULL);
	for (unsigned k = 0; k < j->n; k++) {
		worker *w = &j->w[k];
		for (size_t i = 0; i < w->nnotes; i++) {
			free((char *)w->notes[i].name);
			free((char *)w->notes[i].path);
			xp_diags_free(w->notes[i].d);
		}
		free(w->notes);
		if (k > 0)
			xp_merger_free(w->m);
		xp_manifest_free(w->man);
		pthread_cond_destroy(&w->work);
	}
	pthread_cond_destroy(&j->room);
	pthread_mutex_destroy(&j->mu);
	free(j->w);
	free(j);
}
