/*
 * feedback/plan.c - a merge of many inputs as a tree of smaller merges,
 * written as a Makefile or a build.ninja (xprof_merge --plan), so that
 * make, ninja or a remote-execution build system runs the merges on as
 * many cores and machines as they have.
 *
 * The tree: the inputs, in the order given, are cut into groups of at
 * most K (the fan-in); each group is merged into an intermediate result
 * in the work directory; the intermediate results are cut into groups
 * again, and so on, until one group is left, whose merge writes OUT.  With
 * at most K inputs the tree is that one merge.  Weights are applied where
 * the inputs are read (the first level); every later merge adds its
 * inputs with weight 1.  The caller says which options every merge gets,
 * which only the merges of the inputs, and which only the last one (the
 * options that must act once on the whole: scale, sparse, output form).
 *
 * Intermediate results are named WORK/L-I (level L from 1, index I from
 * 0): a profile directory for feedback, a file for the other formats,
 * whichever xprof_merge writes for its inputs.  Each merge is a pure
 * function of its inputs, so a build system may cache it.
 *
 * Quoting: a command is a list of shell words, each in single quotes,
 * with '$' doubled for make and ninja.  A path is also a target or a
 * prerequisite, where make gives meaning to blanks, '#', '$', '%', ':',
 * wildcards, ';' and '\', and ninja to blanks, '$' and ':'.  Those are
 * escaped where the syntax allows it; a path that cannot be written (a
 * newline or a carriage return in either syntax, '\' or ';' in a
 * Makefile) is refused.  An input whose name begins with '-' or '@' is
 * written as ./NAME, so that xprof_merge takes it for a file.
 */
#include <stdio.h>

#include "base/internal.h"

static void put(xp_wbuf *w, const char *s)
{
	xp_wbuf_write(w, s, strlen(s));
}

/* What a path cannot hold in the plan's syntax, or NULL. */
static const char *unwritable(xp_plan_kind kind, const char *s)
{
	if (strpbrk(s, "\n\r") != NULL)
		return "a line break";
	if (kind == XP_PLAN_MAKE && strchr(s, '\\') != NULL)
		return "a backslash";
	if (kind == XP_PLAN_MAKE && strchr(s, ';') != NULL)
		return "a semicolon";
	return NULL;
}

/* A path as a target or prerequisite (make) or a build path (ninja). */
static void put_path(xp_wbuf *w, xp_plan_kind kind, const char *s)
{
	for (; *s != '\0'; s++) {
		if (kind == XP_PLAN_NINJA) {
			if (*s == '$' || *s == ' ' || *s == ':')
				put(w, "$");
		} else if (*s == '$') {
			put(w, "$");
		} else if (strchr(" \t#%:*?[]", *s) != NULL) {
			put(w, "\\");
		}
		xp_wbuf_write(w, s, 1);
	}
}

/* One shell word in single quotes, '$' doubled, after a blank unless
 * it is the first word of a make recipe (first). */
static void put_word_at(xp_wbuf *w, const char *s, int first)
{
	put(w, first ? "'" : " '");
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			put(w, "'\\''");
		else if (*s == '$')
			put(w, "$$");
		else
			xp_wbuf_write(w, s, 1);
	}
	put(w, "'");
}

static void put_word(xp_wbuf *w, const char *s)
{
	put_word_at(w, s, 0);
}

static void put_words(xp_wbuf *w, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put_word(w, v[i]);
}

/* The tree: names[l][i] for levels 0 (the inputs) to levels. */
typedef struct {
	size_t levels;
	size_t *count;   /* nodes per level */
	char ***names;
} tree;

static void tree_free(tree *t)
{
	for (size_t l = 0; t->names != NULL && l <= t->levels; l++) {
		for (size_t i = 0; t->names[l] != NULL && i < t->count[l]; i++)
			free(t->names[l][i]);
		free(t->names[l]);
	}
	free(t->names);
	free(t->count);
}

/* Names the inputs (level 0) and every merge of the tree. */
static xp_err tree_build(tree *t, const xp_plan_opts *o,
                         const xp_plan_input *in, size_t n)
{
	size_t k = o->fan_in, levels = 0;

	for (size_t m = n; m > 1 || levels == 0; m = (m + k - 1) / k)
		levels++;
	t->levels = levels;
	t->count = calloc(levels + 1, sizeof *t->count);
	t->names = calloc(levels + 1, sizeof *t->names);
	if (t->count == NULL || t->names == NULL)
		return XP_E_NOMEM;
	t->count[0] = n;
	for (size_t l = 1; l <= levels; l++)
		t->count[l] = (t->count[l - 1] + k - 1) / k;
	for (size_t l = 0; l <= levels; l++) {
		t->names[l] = calloc(t->count[l], sizeof *t->names[l]);
		if (t->names[l] == NULL)
			return XP_E_NOMEM;
		for (size_t i = 0; i < t->count[l]; i++) {
			const char *p = l == 0 ? in[i].path : NULL;
			int r;

			if (l == levels)
				r = asprintf(&t->names[l][i], "%s", o->out);
			else if (l > 0)
				r = asprintf(&t->names[l][i], "%s/%zu-%zu",
				             o->work, l, i);
			else if ((p[0] == '-' || p[0] == '@'))
				r = asprintf(&t->names[l][i], "./%s", p);
			else
				r = asprintf(&t->names[l][i], "%s", p);
			if (r < 0) {
				t->names[l][i] = NULL;
				return XP_E_NOMEM;
			}
		}
	}
	return XP_E_OK;
}

/* The merge that makes node i of level l from its group of level l-1. */
static void put_merge(xp_wbuf *w, const xp_plan_opts *o,
                      const xp_plan_input *in, const tree *t, size_t l,
                      size_t i)
{
	size_t first = i * o->fan_in, end = first + o->fan_in;
	char *const *below = t->names[l - 1];

	if (end > t->count[l - 1])
		end = t->count[l - 1];
	if (o->kind == XP_PLAN_NINJA)
		put(w, "build ");
	put_path(w, o->kind, t->names[l][i]);
	put(w, o->kind == XP_PLAN_NINJA ? ": merge" : ":");
	for (size_t j = first; j < end; j++) {
		put(w, " ");
		put_path(w, o->kind, below[j]);
	}
	if (o->kind == XP_PLAN_MAKE && l < t->levels)
		put(w, " | $(XPROF_WORK)");
	put(w, o->kind == XP_PLAN_NINJA ? "\n  cmd =" : "\n\t");
	put_word_at(w, o->merge, o->kind == XP_PLAN_MAKE);
	put(w, " -o");
	put_word(w, t->names[l][i]);
	put_words(w, o->every, o->n_every);
	if (l == 1)
		put_words(w, o->leaf, o->n_leaf);
	if (l == t->levels)
		put_words(w, o->root, o->n_root);
	/* Weighted inputs are options: they come before the "--". */
	for (size_t j = first; l == 1 && j < end; j++) {
		char *arg;

		if (in[j].weight == NULL)
			continue;
		if (asprintf(&arg, "%s,%s", in[j].weight, below[j]) < 0) {
			w->err = XP_E_NOMEM;
			return;
		}
		put(w, " -w");
		put_word(w, arg);
		free(arg);
	}
	put(w, " --");
	for (size_t j = first; j < end; j++)
		if (l > 1 || in[j].weight == NULL)
			put_word(w, below[j]);
	put(w, "\n\n");
}

static void put_header(xp_wbuf *w, const xp_plan_opts *o, const tree *t)
{
	size_t merges = 0;
	char b[128];

	for (size_t l = 1; l <= t->levels; l++)
		merges += t->count[l];
	snprintf(b, sizeof b, "%zu inputs in %zu merges of at most %u inputs "
	         "each", t->count[0], merges, o->fan_in);
	put(w, "# Written by xprof_merge --plan: a merge of ");
	put(w, b);
	put(w, ",\n# level by level, into ");
	put(w, o->out);
	put(w, ".  Intermediate results go to ");
	put(w, o->work);
	put(w, "/.\n");
	if (o->kind == XP_PLAN_MAKE) {
		put(w, "# Run it with make -f FILE -j N.\n\n");
		put(w, "XPROF_WORK =");
		put(w, " ");
		put_path(w, o->kind, o->work);
		put(w, "\n\n.PHONY: all\nall: ");
		put_path(w, o->kind, o->out);
		put(w, "\n\n$(XPROF_WORK):\n\tmkdir -p");
		put_word(w, o->work);
		put(w, "\n\n");
	} else {
		put(w, "# Run it with ninja -f FILE -j N.\n\n"
		       "rule merge\n  command = $cmd\n"
		       "  description = xprof_merge $out\n\n");
	}
}

xp_err xp_plan_write(const xp_plan_opts *o, const xp_plan_input *in,
                     size_t n, unsigned char **buf, size_t *len,
                     xp_diags *d)
{
	tree t = { 0 };
	xp_wbuf w;
	xp_err err;

	*buf = NULL;
	*len = 0;
	if (o->kind != XP_PLAN_MAKE && o->kind != XP_PLAN_NINJA)
		return xp_diag_file(d, XP_E_INVAL, "", "unknown kind of plan");
	if (o->fan_in < 2)
		return xp_diag_file(d, XP_E_INVAL, "",
		                    "the fan-in must be at least 2");
	if (n == 0)
		return xp_diag_file(d, XP_E_INVAL, "", "no input to merge");
	for (size_t i = 0; i <= n; i++) {
		const char *p = i < n ? in[i].path : o->out;
		const char *why = unwritable(o->kind, p);

		if (why == NULL && i == n)
			why = unwritable(o->kind, o->work);
		if (why != NULL)
			return xp_diag_file(d, XP_E_INVAL, i < n ? p : o->out,
			                    "cannot be written in a %s: it "
			                    "holds %s",
			                    o->kind == XP_PLAN_MAKE ? "Makefile"
			                                           : "build.ninja",
			                    why);
	}
	if ((err = tree_build(&t, o, in, n)) != XP_E_OK ||
	    (err = xp_wbuf_init_mem(&w)) != XP_E_OK) {
		tree_free(&t);
		return err;
	}
	put_header(&w, o, &t);
	for (size_t l = 1; l <= t.levels; l++)
		for (size_t i = 0; i < t.count[l]; i++)
			put_merge(&w, o, in, &t, l, i);
	tree_free(&t);
	return xp_wbuf_close(&w, buf, len);
}
