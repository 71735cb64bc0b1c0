/*
 * gcovtree.c - xprof_merge over trees of GCC data files (gcov(5),
 * MERGING TREES): each run is a directory as a program run with
 * GCOV_PREFIX fills it, and every data file is merged with the files of
 * the same relative path in the other runs, by the module's rules
 * (xp_prof_merge), with the runs' weights.
 *
 * A file that only some runs hold is the merge of those (the others did
 * not run that code).  Every merge is made before anything is written, so
 * that a bad input leaves the output as it was; then each file of the
 * output tree is replaced atomically.  With --accumulate the output tree
 * is locked and each of its files is merged first, as the program merges
 * the file it finds; its files that no run holds stay as they are.  With
 * --feedback the merged files are converted to feedback, each with its
 * notes (in the object directory -e names, under the same relative path,
 * or beside the file of the first run that holds it) and its relative
 * path as object file name, and the feedback goes to a profile directory.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gcovtree.h"
#include "tool.h"

#define MAX_DIAGS 100000

/* A data file of a run: its path relative to the run. */
typedef struct {
	char *rel;
	size_t run;
} tfile;

typedef struct {
	tfile *v;
	size_t n, cap;
} tlist;

/* a/b, or b when a is empty; malloc'd, NULL when out of memory. */
static char *join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *s = malloc(n);

	if (s != NULL)
		snprintf(s, n, "%s%s%s", a, a[0] != '\0' ? "/" : "", b);
	return s;
}

static int ends_gcda(const char *s)
{
	size_t n = strlen(s);
	return n > 5 && strcmp(s + n - 5, ".gcda") == 0;
}

/* Adds the .gcda files below root/rel (rel "" for root itself) to l.
 * Returns 0, or -1 with errno set. */
static int walk(const char *root, const char *rel, size_t run, tlist *l)
{
	char *dir = join(root, rel);
	DIR *dp = dir != NULL ? opendir(dir) : NULL;
	struct dirent *e;
	int st = 0;

	if (dp == NULL) {
		free(dir);
		return -1;
	}
	while (st == 0 && (e = readdir(dp)) != NULL) {
		struct stat sb;
		char *r, *full;
		if (e->d_name[0] == '.')
			continue;
		r = join(rel, e->d_name);
		full = r != NULL ? join(root, r) : NULL;
		if (full == NULL || lstat(full, &sb) != 0) {
			st = -1;
		} else if (S_ISDIR(sb.st_mode)) {
			st = walk(root, r, run, l);
		} else if (S_ISREG(sb.st_mode) && ends_gcda(r)) {
			if (l->n == l->cap) {
				size_t cap = l->cap ? 2 * l->cap : 64;
				tfile *v = realloc(l->v, cap * sizeof *v);
				if (v == NULL) {
					errno = ENOMEM;
					st = -1;
				} else {
					l->v = v;
					l->cap = cap;
				}
			}
			if (st == 0) {
				l->v[l->n].rel = r;
				l->v[l->n++].run = run;
				r = NULL;
			}
		}
		free(r);
		free(full);
	}
	closedir(dp);
	free(dir);
	return st;
}

static int cmp_tfile(const void *a, const void *b)
{
	const tfile *x = a, *y = b;
	int c = strcmp(x->rel, y->rel);
	if (c != 0)
		return c;
	return x->run < y->run ? -1 : x->run > y->run;
}

int gcovtree_is_dir(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

int gcovtree_is_tree(const char *path)
{
	struct stat sb;
	char *db;
	tlist l = { 0 };
	int yes;

	if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
		return 0;
	db = xp_profdir_file(path, XP_DT_FEEDBACK, NULL);
	yes = db != NULL && access(db, F_OK) != 0 && walk(path, "", 0, &l) == 0 &&
	      l.n > 0;
	free(db);
	for (size_t i = 0; i < l.n; i++)
		free(l.v[i].rel);
	free(l.v);
	return yes;
}

/* Makes the directories of path's dirname.  Returns 0, or -1 (errno). */
static int make_parents(char *path)
{
	for (char *p = strchr(path + 1, '/'); p != NULL; p = strchr(p + 1, '/')) {
		*p = '\0';
		int st = mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
		*p = '/';
		if (st != 0)
			return -1;
	}
	return 0;
}

/* The state of a tree merge. */
typedef struct {
	const char *prog;
	const gcovtree_opts *o;
	tlist l;               /* every run's files, by path and run */
	size_t n_rel;
	xp_prof **sum;         /* per relative path, its sum */
	const char **rel;      /* and that path */
} tmerge;

/* Prints d (and err under name when d does not explain it); returns 0
 * when err is XP_E_OK. */
static int report(const tmerge *t, xp_diags *d, xp_err err, const char *name)
{
	tool_print_diags_q(t->prog, d, err, name, t->o->quiet);
	return err == XP_E_OK ? 0 : -1;
}

/* Adds file path with weight w into *acc. */
static int add_file(tmerge *t, xp_prof **acc, const char *path, double w)
{
	xp_diags *d = xp_diags_new(MAX_DIAGS);
	xp_prof *p = NULL;
	xp_err err = d == NULL ? XP_E_NOMEM : xp_prof_open(path, NULL, &p, d);

	if (err == XP_E_OK && xp_prof_format(p) != XP_FMT_GCOV)
		err = XP_E_INVAL, fprintf(stderr, "%s: %s: not a GCC data file\n",
		                          t->prog, path);
	if (err == XP_E_OK)
		err = xp_prof_merge(acc, p, w * t->o->scale, &t->o->pmo, path, d);
	int st = report(t, d, err, path);
	xp_prof_free(p);
	xp_diags_free(d);
	return st;
}

/* The sums of every relative path, the output's file first when it
 * accumulates.  Returns 0, or -1 after printing what went wrong. */
static int merge_all(tmerge *t)
{
	const tfile *v = t->l.v;

	t->sum = calloc(t->l.n + 1, sizeof *t->sum);
	t->rel = calloc(t->l.n + 1, sizeof *t->rel);
	if (t->sum == NULL || t->rel == NULL) {
		fprintf(stderr, "%s: %s\n", t->prog, xp_strerror(XP_E_NOMEM));
		return -1;
	}
	for (size_t i = 0; i < t->l.n; t->n_rel++) {
		size_t k = t->n_rel;
		t->rel[k] = v[i].rel;
		if (t->o->accumulate) {
			char *old = join(t->o->out, v[i].rel);
			int st = old == NULL ? -1 : access(old, F_OK) != 0 ? 0
			         : add_file(t, &t->sum[k], old, 1);
			free(old);
			if (st != 0)
				return -1;
		}
		for (; i < t->l.n && strcmp(v[i].rel, t->rel[k]) == 0; i++) {
			const gcovtree_input *in = &t->o->in[v[i].run];
			char *path = join(in->path, v[i].rel);
			int st = path == NULL ? -1
			         : add_file(t, &t->sum[k], path, in->weight);
			free(path);
			if (st != 0)
				return -1;
		}
	}
	return 0;
}

int gcovtree_rel_ok(const char *rel)
{
	const char *p = rel;

	if (rel[0] == '\0' || rel[0] == '/')
		return 0;
	for (;;) {
		if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || p[2] == '\0'))
			return 0;
		if ((p = strchr(p, '/')) == NULL)
			return 1;
		p++;
	}
}

int gcovtree_write(const char *prog, const char *out, xp_prof *const *profs,
                   const char *const *rel, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		char *path = join(out, rel[k]);
		if (path == NULL || make_parents(path) != 0) {
			fprintf(stderr, "%s: %s: %s\n", prog,
			        path ? path : rel[k], strerror(errno));
			free(path);
			return -1;
		}
		int st = tool_write_prof(prog, profs[k], 0, path);
		free(path);
		if (st != 0)
			return -1;
	}
	return 0;
}

/* Converts every sum to feedback, each with its notes, into one profile
 * directory. */
static int write_feedback(tmerge *t)
{
	xp_merge_opts mo = { XP_MERGE_SUM, XP_MISMATCH_ERROR, 1, 0, 0 };
	xp_merger *m = xp_merger_new(&mo);
	xp_diags *d = NULL;
	int st = m != NULL ? 0 : -1;

	for (size_t k = 0; st == 0 && k < t->n_rel; k++) {
		xp_conv_opts co = { .name = t->rel[k] };
		char *notes = NULL;
		xp_fb *fb = NULL;
		xp_err err = (d = xp_diags_new(MAX_DIAGS)) ? XP_E_OK : XP_E_NOMEM;
		if (err == XP_E_OK && t->o->notes != NULL) {
			notes = join(t->o->notes, t->rel[k]);
			if (notes == NULL)
				err = XP_E_NOMEM;
			else
				strcpy(notes + strlen(notes) - 5, ".gcno");
		}
		co.exe = notes;
		if (err == XP_E_OK)
			err = xp_prof_to_feedback(t->sum[k], &co, &fb, d);
		if (err == XP_E_OK)
			err = xp_merger_add(m, fb, 1, t->rel[k], d);
		st = report(t, d, err, t->rel[k]);
		xp_diags_free(d);
		xp_fb_free(fb);
		free(notes);
	}
	if (st == 0 && (d = xp_diags_new(MAX_DIAGS)) != NULL) {
		st = report(t, d, xp_merger_write(m, t->o->out, d), t->o->out);
		xp_diags_free(d);
	} else if (st == 0) {
		st = -1;
	}
	if (st != 0 && m == NULL)
		fprintf(stderr, "%s: %s\n", t->prog, xp_strerror(XP_E_NOMEM));
	xp_merger_free(m);
	return st;
}

/* The files of every run, sorted.  Returns 0, or -1 after printing. */
static int list_runs(tmerge *t)
{
	for (size_t i = 0; i < t->o->n_in; i++) {
		size_t before = t->l.n;
		if (walk(t->o->in[i].path, "", i, &t->l) != 0) {
			fprintf(stderr, "%s: %s: %s\n", t->prog, t->o->in[i].path,
			        strerror(errno));
			return -1;
		}
		if (t->l.n == before && !t->o->quiet)
			fprintf(stderr, "%s: warning: %s: no .gcda file\n",
			        t->prog, t->o->in[i].path);
	}
	qsort(t->l.v, t->l.n, sizeof *t->l.v, cmp_tfile);
	return 0;
}

int gcovtree_run(const char *prog, const gcovtree_opts *o)
{
	tmerge t = { prog, o, { 0 }, 0, NULL, NULL };
	xp_lock *lock = NULL;
	int st = list_runs(&t);

	if (st == 0 && o->accumulate) {
		xp_diags *d = xp_diags_new(MAX_DIAGS);
		st = report(&t, d, d == NULL ? XP_E_NOMEM
		                   : xp_profdir_lock(o->out, 1, &lock, d), o->out);
		xp_diags_free(d);
	}
	if (st == 0)
		st = merge_all(&t);
	if (st == 0)
		st = o->feedback ? write_feedback(&t)
		     : gcovtree_write(prog, o->out, t.sum, t.rel, t.n_rel);
	if (st != 0)
		xp_profdir_unlock_failed(lock);
	else
		xp_profdir_unlock(lock);
	/* A merge that stopped part way has a sum at n_rel too. */
	for (size_t k = 0; t.sum != NULL && k <= t.l.n; k++)
		xp_prof_free(t.sum[k]);
	for (size_t i = 0; i < t.l.n; i++)
		free(t.l.v[i].rel);
	free(t.l.v);
	free(t.sum);
	free(t.rel);
	return st == 0 ? 0 : 2;
}
