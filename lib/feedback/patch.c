/*
 * feedback/patch.c - unified diffs (xp_patch, xprof_tcov.h), read for the
 * lines they change: what xprof_tcov --diff-file gates and what moves
 * the lines of a baseline.
 *
 * The input is what git diff (and git format-patch) and diff -u write:
 *   diff --git a/OLD b/NEW          git only; then header lines, among
 *   rename from OLD / rename to NEW   them renames and copies, new and
 *   new file mode / deleted file mode deleted files
 *   --- a/OLD[\tTIMESTAMP]          /dev/null: the file is created
 *   +++ b/NEW[\tTIMESTAMP]          /dev/null: the file is deleted
 *   @@ -A[,B] +C[,D] @@ ...         a hunk: B old lines from line A, D
 *                                   new lines from line C (B, D default
 *                                   to 1; with 0 lines, A or C is the
 *                                   line the hunk comes after)
 *   ' ', '-', '+' lines             the hunk's body: B lines ' ' or '-',
 *                                   D lines ' ' or '+'; an empty line is
 *                                   an empty ' ' line
 *   \ No newline at end of file     after a line of the body
 * A file name may be quoted as git quotes it (C escapes, octal bytes).
 * Every other line (a commit message, diff -r's "Only in", index lines,
 * binary patches) is left alone, as patch(1) does.  The counts of a
 * hunk's header end its body, so that a removed line that reads "-- x"
 * is not a file header; a line of a body past those counts is an error,
 * but for the "-- " that ends a git format-patch mail.  Hunks of one
 * file come in order and do not overlap.  The first error stops the
 * reading: it names the patch's line and column.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "feedback/tcov_int.h"

/* A file of the patch while it is read: what xp_patch_file shows. */
typedef struct {
	char *old_path, *new_path;
	int renamed;
	uint32_t at;                 /* line of its first header */
	size_t at_off, at_len;       /* that line, for messages */
	uint32_t *added, *removed;
	size_t n_added, cap_added, n_removed, cap_removed;
	xp_patch_line *shown;
	size_t n_shown, cap_shown;
} pfile;

struct xp_patch {
	char *text;                  /* a copy: shown lines point into it */
	pfile *files;
	size_t n_files, cap_files;
	xp_patch_file *pub;          /* what xp_patch_file_at() gives */
};

typedef struct {
	const char *name;
	const char *text;
	size_t len;
	int strip;
	xp_diags *d;
	xp_patch *patch;
	/* The current line: p[0..n), without its newline; hn drops a
	 * trailing carriage return too (header lines). */
	uint32_t ln;
	size_t off, n, hn;
	const char *p;
	/* The current file; git: it began with "diff --git" and its ---
	 * and +++ lines (names) are still to come. */
	pfile *cur;
	int git, names;
	char *from, *to;             /* git's rename or copy lines */
	/* The current hunk. */
	uint32_t hunk_ln;
	size_t hunk_off, hunk_n;
	uint32_t old_line, new_line, old_left, new_left;
	uint32_t next_old, next_new; /* past the file's last hunk */
	int after_body;              /* the previous line ended a body */
	int saw_file;
} parser;

static xp_err perr_at(parser *ps, uint32_t ln, size_t off, size_t n,
                      size_t col, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* A syntax error at column col (from 1) of the patch's line ln. */
static xp_err perr_at(parser *ps, uint32_t ln, size_t off, size_t n,
                      size_t col, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return xp_diag_text(ps->d, XP_E_SYNTAX, ps->name, ln,
	                    col > UINT32_MAX ? UINT32_MAX : (uint32_t)col, off,
	                    ps->text + off, n, "%s", msg);
}

#define PERR(ps, col, ...) \
	perr_at((ps), (ps)->ln, (ps)->off, (ps)->n, (col), __VA_ARGS__)

static void pfile_free(pfile *f)
{
	XP_FREE(f->old_path, f->new_path, f->added, f->removed, f->shown);
}

static int starts(const parser *ps, const char *s)
{
	size_t k = strlen(s);
	return ps->hn >= k && memcmp(ps->p, s, k) == 0;
}

/* ------------------------------------------------------------------ */
/* File names                                                          */
/* ------------------------------------------------------------------ */

/* The escape after a backslash in a quoted name; -1 if none. */
static int unescape(const char *p, size_t n, size_t *used)
{
	static const char from[] = "abtnvfr\"\\", to[] = "\a\b\t\n\v\f\r\"\\";
	const char *k = n > 0 ? memchr(from, p[0], sizeof from - 1) : NULL;
	*used = 1;
	if (k)
		return to[k - from];
	if (n >= 3 && p[0] >= '0' && p[0] <= '3' && p[1] >= '0' &&
	    p[1] <= '7' && p[2] >= '0' && p[2] <= '7') {
		*used = 3;
		return (p[0] - '0') * 64 + (p[1] - '0') * 8 + (p[2] - '0');
	}
	return -1;
}

/*
 * The file name at column col of the current line (a header): quoted as
 * git quotes it, or up to a tab (diff -u puts the time after one) or the
 * end.  "/dev/null" gives NULL.
 */
static xp_err read_name(parser *ps, size_t col, char **out)
{
	const char *p = ps->p + col - 1;
	size_t n = ps->hn - (col - 1), k = 0;
	char *s = malloc(n + 1);
	*out = NULL;
	if (!s)
		return XP_E_NOMEM;
	if (n > 0 && p[0] == '"') {
		size_t i = 1;
		for (; i < n && p[i] != '"'; i++) {
			size_t used;
			int c = p[i];
			if (c == '\\') {
				if ((c = unescape(p + i + 1, n - i - 1, &used)) < 0) {
					free(s);
					return PERR(ps, col + i, "invalid escape in a "
					            "quoted file name");
				}
				i += used;
			}
			s[k++] = (char)c;
		}
		if (i >= n) {
			free(s);
			return PERR(ps, col, "quoted file name without its closing "
			            "quote");
		}
	} else {
		const char *tab = memchr(p, '\t', n);
		k = tab ? (size_t)(tab - p) : n;
		memcpy(s, p, k);
	}
	s[k] = '\0';
	if (k == 0) {
		free(s);
		return PERR(ps, col, "missing file name");
	}
	if (strcmp(s, "/dev/null") == 0) {
		free(s);
		return XP_E_OK;
	}
	*out = s;
	return XP_E_OK;
}

/*
 * Removes strip leading components of the name *s, read at column col,
 * then "." components and repeated slashes.
 */
static xp_err strip_name(parser *ps, char *s, int strip, size_t col)
{
	size_t o = 0;
	const char *p = s;
	int abs = s[0] == '/';
	for (int i = 0; i < strip; i++) {
		const char *slash = strchr(p, '/');
		if (!slash)
			return PERR(ps, col, "cannot strip %d leading "
			            "component%s from the file name '%.200s'", strip,
			            strip == 1 ? "" : "s", s);
		p = slash + 1;
		abs = 0;
	}
	if (abs)
		s[o++] = '/';
	while (*p) {
		const char *q = strchr(p, '/');
		size_t seg = q ? (size_t)(q - p) : strlen(p);
		if (seg > 0 && !(seg == 1 && p[0] == '.')) {
			if (o > (size_t)abs)
				s[o++] = '/';
			memmove(s + o, p, seg);
			o += seg;
		}
		p += seg + (q != NULL);
	}
	s[o] = '\0';
	if (o == 0 || (abs && o == 1))
		return PERR(ps, col, "file name without a file in it");
	return XP_E_OK;
}

/* ------------------------------------------------------------------ */
/* Files                                                               */
/* ------------------------------------------------------------------ */

/* Starts a file whose first header is the current line. */
static xp_err begin_file(parser *ps, int git)
{
	xp_patch *pa = ps->patch;
	xp_err err = xp_grow(&pa->files, &pa->cap_files, pa->n_files,
	                          sizeof *pa->files);
	if (err)
		return err;
	ps->cur = &pa->files[pa->n_files++];
	memset(ps->cur, 0, sizeof *ps->cur);
	ps->cur->at = ps->ln;
	ps->cur->at_off = ps->off;
	ps->cur->at_len = ps->n;
	ps->git = git;
	ps->names = 0;
	ps->next_old = ps->next_new = 1;
	ps->saw_file = 1;
	return XP_E_OK;
}

/* Ends the current file: a git file without --- and +++ lines changes
 * no line and is dropped, unless it is a rename or a copy. */
static xp_err end_file(parser *ps)
{
	xp_patch *pa = ps->patch;
	pfile *f = ps->cur;
	ps->cur = NULL;
	if (!f)
		goto out;
	if (!ps->names && ps->from && ps->to) {
		f->old_path = ps->from;
		f->new_path = ps->to;
		f->renamed = 1;
		ps->from = ps->to = NULL;
	} else if (!ps->names) {
		pfile_free(f);
		pa->n_files--;
		goto out;
	}
	for (size_t i = 0; f->new_path && i + 1 < pa->n_files; i++) {
		const pfile *g = &pa->files[i];
		if (g->new_path && strcmp(g->new_path, f->new_path) == 0)
			return perr_at(ps, f->at, f->at_off, f->at_len, 1,
			               "a second diff of '%.200s' (the first "
			               "begins at line %" PRIu32 ")", f->new_path,
			               g->at);
	}
out:
	XP_FREE(ps->from, ps->to);
	ps->from = ps->to = NULL;
	return XP_E_OK;
}

/* Makes the line at off, numbered ln, the current line. */
static void set_line(parser *ps, uint32_t ln, size_t off)
{
	const char *nl = memchr(ps->text + off, '\n', ps->len - off);
	ps->ln = ln;
	ps->off = off;
	ps->p = ps->text + off;
	ps->n = nl ? (size_t)(nl - ps->p) : ps->len - off;
	ps->hn = ps->n - (ps->n > 0 && ps->p[ps->n - 1] == '\r');
}

/* The "--- " line and the "+++ " line after it (at next_off), which
 * becomes the current line. */
static xp_err file_names(parser *ps, size_t next_off)
{
	uint32_t ln = ps->ln;
	size_t off = ps->off;
	xp_err err;
	pfile *f;
	char *old = NULL;
	int strip = ps->strip;

	if ((err = read_name(ps, 5, &old)))
		return err;
	if (!(ps->cur && ps->git && !ps->names) &&
	    ((err = end_file(ps)) || (err = begin_file(ps, 0)))) {
		free(old);
		return err;
	}
	f = ps->cur;
	f->old_path = old;
	set_line(ps, ln + 1, next_off);
	if (!starts(ps, "+++ "))
		return PERR(ps, 1, "expected a '+++ ' line after the '--- ' line");
	if ((err = read_name(ps, 5, &f->new_path)))
		return err;
	if (!f->old_path && !f->new_path)
		return PERR(ps, 5, "both file names are /dev/null");
	if (strip < 0)
		strip = (!f->old_path || strncmp(f->old_path, "a/", 2) == 0) &&
		        (!f->new_path || strncmp(f->new_path, "b/", 2) == 0);
	if (f->new_path && (err = strip_name(ps, f->new_path, strip, 5)))
		return err;
	if (f->old_path) {
		/* Said at the --- line, where the name is. */
		set_line(ps, ln, off);
		err = strip_name(ps, f->old_path, strip, 5);
		set_line(ps, ln + 1, next_off);
		if (err)
			return err;
	}
	if (ps->from && ps->to)
		f->renamed = 1;
	ps->names = 1;
	return XP_E_OK;
}

/* A git header line of the current file: renames, copies. */
static xp_err git_line(parser *ps)
{
	static const struct { const char *tag; int to; } tags[] = {
		{"rename from ", 0}, {"rename to ", 1},
		{"copy from ", 0}, {"copy to ", 1},
	};
	for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
		size_t col = strlen(tags[i].tag) + 1;
		char **dst = tags[i].to ? &ps->to : &ps->from;
		xp_err err;
		if (!starts(ps, tags[i].tag))
			continue;
		free(*dst);
		*dst = NULL;
		if ((err = read_name(ps, col, dst)))
			return err;
		if (!*dst)
			return PERR(ps, col, "a renamed or copied file named "
			            "/dev/null");
		/* Git writes these names from the repository's root, never
		 * with its prefixes, whatever --src-prefix says. */
		return strip_name(ps, *dst, 0, col);
	}
	return XP_E_OK;
}

/* ------------------------------------------------------------------ */
/* Hunks                                                               */
/* ------------------------------------------------------------------ */

/* A line number or count at *i of the current line. */
static xp_err number(parser *ps, size_t *i, uint32_t *out,
                     const char *what)
{
	uint64_t v = 0;
	size_t start = *i;
	while (*i < ps->hn && ps->p[*i] >= '0' && ps->p[*i] <= '9') {
		v = v * 10 + (uint64_t)(ps->p[*i] - '0');
		if (v > UINT32_MAX)
			return PERR(ps, start + 1, "%s out of range", what);
		(*i)++;
	}
	if (*i == start)
		return PERR(ps, start + 1, "invalid hunk header: expected %s",
		            what);
	*out = (uint32_t)v;
	return XP_E_OK;
}

/* A range -A[,B] or +C[,D] at *i: *first (A or C), *count. */
static xp_err range(parser *ps, size_t *i, char sign, uint32_t *first,
                    uint32_t *count, size_t *col)
{
	xp_err err;
	*col = *i + 1;
	if (*i >= ps->hn || ps->p[*i] != sign)
		return PERR(ps, *i + 1, "invalid hunk header: expected '%c'", sign);
	(*i)++;
	if ((err = number(ps, i, first, "a line number")))
		return err;
	*count = 1;
	if (*i < ps->hn && ps->p[*i] == ',') {
		(*i)++;
		if ((err = number(ps, i, count, "a number of lines")))
			return err;
	}
	if (*count > 0 && *first == 0)
		return PERR(ps, *col + 1, "line numbers start at 1");
	if ((uint64_t)*first + *count >= UINT32_MAX)
		return PERR(ps, *col + 1, "line number out of range");
	return XP_E_OK;
}

/* A hunk header, "@@ -A[,B] +C[,D] @@". */
static xp_err hunk_header(parser *ps)
{
	pfile *f = ps->cur;
	uint32_t a, b, c, d;
	size_t i = 3, acol, ccol;
	xp_err err;

	if (!f || !ps->names)
		return PERR(ps, 1, "hunk outside a file's diff: no '--- ' and "
		            "'+++ ' lines before it");
	if ((err = range(ps, &i, '-', &a, &b, &acol)))
		return err;
	if (i >= ps->hn || ps->p[i] != ' ')
		return PERR(ps, i + 1, "invalid hunk header: expected ' +'");
	i++;
	if ((err = range(ps, &i, '+', &c, &d, &ccol)))
		return err;
	if (ps->hn - i < 3 || memcmp(ps->p + i, " @@", 3) != 0)
		return PERR(ps, i + 1, "invalid hunk header: expected ' @@'");
	if (b == 0 && d == 0)
		return PERR(ps, 1, "a hunk without lines");
	if (!f->old_path && b > 0)
		return PERR(ps, acol, "a hunk with old lines in a file that "
		            "the patch creates (--- /dev/null)");
	if (!f->new_path && d > 0)
		return PERR(ps, ccol, "a hunk with new lines in a file that "
		            "the patch deletes (+++ /dev/null)");
	/* A hunk without old (new) lines comes after line A (C). */
	ps->old_line = b ? a : a + 1;
	ps->new_line = d ? c : c + 1;
	if (ps->old_line < ps->next_old)
		return PERR(ps, acol, "hunk before the end of the previous hunk "
		            "of this file (old line %" PRIu32 ")",
		            ps->next_old - 1);
	if (ps->new_line < ps->next_new)
		return PERR(ps, ccol, "hunk before the end of the previous hunk "
		            "of this file (new line %" PRIu32 ")",
		            ps->next_new - 1);
	ps->old_left = b;
	ps->new_left = d;
	ps->hunk_ln = ps->ln;
	ps->hunk_off = ps->off;
	ps->hunk_n = ps->n;
	ps->after_body = 0;
	return XP_E_OK;
}

/* One line of a hunk's body, while it has lines left. */
static xp_err body_line(parser *ps)
{
	pfile *f = ps->cur;
	char c = ps->hn ? ps->p[0] : ' ';
	xp_err err = XP_E_OK;

	if (c == '\\') {
		if (ps->after_body)
			return XP_E_OK;
		return PERR(ps, 1, "a '\\' line before any line of the hunk");
	}
	if ((c == ' ' || c == '-') && ps->old_left == 0)
		return PERR(ps, 1, "the hunk has no old line left for this '%c' "
		            "line (its header is at line %" PRIu32 ")", c,
		            ps->hunk_ln);
	if ((c == ' ' || c == '+') && ps->new_left == 0)
		return PERR(ps, 1, "the hunk has no new line left for this '%c' "
		            "line (its header is at line %" PRIu32 ")", c,
		            ps->hunk_ln);
	if (c != ' ' && c != '-' && c != '+')
		return PERR(ps, 1, "expected a line of the hunk at line %" PRIu32
		            " (' ', '-' or '+'): %" PRIu32 " old and %" PRIu32
		            " new lines are missing", ps->hunk_ln, ps->old_left,
		            ps->new_left);
	if (c == '-' && !(err = xp_grow(&f->removed, &f->cap_removed,
	                                     f->n_removed, sizeof *f->removed)))
		f->removed[f->n_removed++] = ps->old_line;
	if (c == '+' && !(err = xp_grow(&f->added, &f->cap_added,
	                                     f->n_added, sizeof *f->added)))
		f->added[f->n_added++] = ps->new_line;
	if (c != '-' && !err &&
	    !(err = xp_grow(&f->shown, &f->cap_shown, f->n_shown,
	                         sizeof *f->shown))) {
		xp_patch_line *l = &f->shown[f->n_shown++];
		l->line = ps->new_line;
		l->at = ps->ln;
		l->text = ps->hn ? ps->p + 1 : ps->p;
		l->len = ps->hn ? ps->n - 1 : 0;
	}
	if (c != '+') {
		ps->old_line++;
		ps->old_left--;
	}
	if (c != '-') {
		ps->new_line++;
		ps->new_left--;
	}
	if (ps->old_left == 0 && ps->new_left == 0) {
		ps->next_old = ps->old_line;
		ps->next_new = ps->new_line;
	}
	ps->after_body = 1;
	return err;
}

/* A line outside the bodies of hunks. */
static xp_err other_line(parser *ps, size_t next_off)
{
	xp_err err;
	char c = ps->hn ? ps->p[0] : '\0';
	int after = ps->after_body;

	ps->after_body = 0;
	if (after && c == '\\') {
		ps->after_body = 1;
		return XP_E_OK;
	}
	if (starts(ps, "diff --git ")) {
		if ((err = end_file(ps)))
			return err;
		return begin_file(ps, 1);
	}
	if (starts(ps, "--- ") && next_off <= ps->len)
		return file_names(ps, next_off);
	if (starts(ps, "--- "))
		return PERR(ps, 1, "expected a '+++ ' line after the '--- ' line");
	if (starts(ps, "+++ "))
		return PERR(ps, 1, "a '+++ ' line without the '--- ' line before "
		            "it");
	if (starts(ps, "@@ "))
		return hunk_header(ps);
	/* More body than the header said; "-- " ends a mail (format-patch). */
	if (after && (c == ' ' || c == '+' ||
	              (c == '-' && !(ps->hn == 3 && starts(ps, "-- ")))))
		return PERR(ps, 1, "a line past the end of the hunk at line %"
		            PRIu32 " (its header gives fewer lines)", ps->hunk_ln);
	if (ps->cur && ps->git && !ps->names)
		return git_line(ps);
	return XP_E_OK;
}

/* Gives every file its public view. */
static xp_err publish(xp_patch *pa)
{
	pa->pub = calloc(pa->n_files ? pa->n_files : 1, sizeof *pa->pub);
	if (!pa->pub)
		return XP_E_NOMEM;
	for (size_t i = 0; i < pa->n_files; i++) {
		pfile *f = &pa->files[i];
		xp_patch_file *o = &pa->pub[i];
		o->old_path = f->old_path;
		o->new_path = f->new_path;
		o->renamed = f->renamed;
		o->at = f->at;
		o->n_added = f->n_added;
		o->added = f->added;
		o->n_removed = f->n_removed;
		o->removed = f->removed;
		o->n_shown = f->n_shown;
		o->shown = f->shown;
	}
	return XP_E_OK;
}

/* Reads every line of ps's text into ps->patch. */
static xp_err parse_lines(parser *ps)
{
	xp_err err = XP_E_OK;
	size_t at = 0;
	int blank = 1;

	while (at < ps->len && !err) {
		const char *nl = memchr(ps->text + at, '\n', ps->len - at);
		size_t end = nl ? (size_t)(nl - ps->text) : ps->len;
		if (ps->ln == UINT32_MAX)
			return xp_diag_file(ps->d, XP_E_LIMIT, ps->name,
			                    "more than %" PRIu32 " lines", UINT32_MAX);
		set_line(ps, ps->ln + 1, at);
		for (size_t i = 0; i < ps->hn && blank; i++)
			blank = ps->p[i] == ' ' || ps->p[i] == '\t';
		if (ps->old_left > 0 || ps->new_left > 0)
			err = body_line(ps);
		else
			err = other_line(ps, end + 1);
		/* file_names() read the +++ line too. */
		nl = memchr(ps->text + ps->off, '\n', ps->len - ps->off);
		at = nl ? (size_t)(nl - ps->text) + 1 : ps->len;
	}
	if (!err && (ps->old_left > 0 || ps->new_left > 0))
		err = perr_at(ps, ps->hunk_ln, ps->hunk_off, ps->hunk_n, 1,
		              "the patch ends inside this hunk: %" PRIu32 " old "
		              "and %" PRIu32 " new lines are missing",
		              ps->old_left, ps->new_left);
	if (!err)
		err = end_file(ps);
	if (!err && !ps->saw_file && !blank)
		err = xp_diag_text(ps->d, XP_E_SYNTAX, ps->name, 1, 1, 0,
		                   ps->text, strcspn(ps->text, "\n"),
		                   "not a unified diff: no '--- ' and '+++ ' "
		                   "lines");
	return err;
}

xp_err xp_patch_parse(const char *text, size_t len, const char *name,
                      int strip, xp_patch **out, xp_diags *d)
{
	xp_patch *pa = calloc(1, sizeof *pa);
	parser ps;
	xp_err err;

	*out = NULL;
	if (!pa || !(pa->text = malloc(len + 1))) {
		free(pa);
		return XP_E_NOMEM;
	}
	memcpy(pa->text, text, len);
	pa->text[len] = '\0';
	memset(&ps, 0, sizeof ps);
	ps.name = name;
	ps.text = pa->text;
	ps.len = len;
	ps.strip = strip;
	ps.d = d;
	ps.patch = pa;
	err = parse_lines(&ps);
	XP_FREE(ps.from, ps.to);
	if (!err)
		err = publish(pa);
	if (err) {
		xp_patch_free(pa);
		return err;
	}
	*out = pa;
	return XP_E_OK;
}

void xp_patch_free(xp_patch *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_files; i++)
		pfile_free(&p->files[i]);
	XP_FREE(p->files, p->pub, p->text, p);
}

size_t xp_patch_n_files(const xp_patch *p)
{
	return p->n_files;
}

const xp_patch_file *xp_patch_file_at(const xp_patch *p, size_t i)
{
	return &p->pub[i];
}

/* ------------------------------------------------------------------ */
/* Patches and sources                                                 */
/* ------------------------------------------------------------------ */

/* The length of the directory that path is name in, when name, read
 * from dir or a directory above it, is path; SIZE_MAX otherwise. */
static size_t name_root(const char *path, const char *name, const char *dir)
{
	size_t pl = strlen(path), nl = strlen(name);
	if (name[0] == '/')
		return strcmp(path, name) == 0 ? 0 : SIZE_MAX;
	if (nl >= pl || path[pl - nl - 1] != '/' ||
	    strcmp(path + pl - nl, name) != 0)
		return SIZE_MAX;
	size_t root = pl - nl - 1;  /* "/x" under "/" has root 0 */
	if (root == 0 || (strncmp(dir, path, root) == 0 &&
	                  (dir[root] == '\0' || dir[root] == '/')))
		return root;
	return SIZE_MAX;
}

size_t xp_patch_find(const xp_patch *p, const char *path, const char *dir)
{
	size_t found = XP_TCOV_NONE, best = 0;
	for (size_t i = 0; i < p->n_files; i++) {
		const char *name = p->pub[i].new_path;
		if (!name || name_root(path, name, dir) == SIZE_MAX)
			continue;
		if (found == XP_TCOV_NONE || strlen(name) > best) {
			found = i;
			best = strlen(name);
		}
	}
	return found;
}

xp_err xp_patch_old_path(const xp_patch_file *f, const char *path,
                         char **out)
{
	size_t pl = strlen(path), nl;
	*out = NULL;
	if (!f->old_path)
		return XP_E_OK;
	nl = f->new_path ? strlen(f->new_path) : 0;
	if (!f->renamed || f->old_path[0] == '/' || !f->new_path ||
	    f->new_path[0] == '/' || nl >= pl ||
	    strcmp(path + pl - nl, f->new_path) != 0) {
		*out = strdup(f->renamed && f->old_path[0] == '/' ? f->old_path
		                                                  : path);
		return *out ? XP_E_OK : XP_E_NOMEM;
	}
	size_t len = pl - nl + strlen(f->old_path) + 1;
	if (!(*out = malloc(len)))
		return XP_E_NOMEM;
	snprintf(*out, len, "%.*s%s", (int)(pl - nl), path, f->old_path);
	return XP_E_OK;
}

int xp_patch_check(const xp_patch_file *f, const char *text, size_t len,
                   const char *patchname, const char *srcname, xp_diags *d)
{
	size_t at = 0;
	uint32_t line = 1;
	for (size_t i = 0; i < f->n_shown; i++) {
		const xp_patch_line *l = &f->shown[i];
		while (line < l->line && at < len) {
			const char *nl = memchr(text + at, '\n', len - at);
			at = nl ? (size_t)(nl - text) + 1 : len;
			line++;
		}
		if (at >= len) {
			xp_diag_warn(d, srcname, "%s line %" PRIu32 " gives line %"
			             PRIu32 ", past the end of the file; the patch "
			             "may not be the change that made this file",
			             patchname, l->at, l->line);
			return 0;
		}
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - text) - at : len - at, pn = l->len;
		/* Line ends are not compared: CRLF on either side is fine. */
		n -= n > 0 && text[at + n - 1] == '\r';
		pn -= pn > 0 && l->text[pn - 1] == '\r';
		if (n != pn || memcmp(text + at, l->text, n) != 0) {
			xp_diag_warn(d, srcname, "line %" PRIu32 " differs from %s "
			             "line %" PRIu32 "; the patch may not be the "
			             "change that made this file", l->line,
			             patchname, l->at);
			return 0;
		}
	}
	return 1;
}
