/*
 * feedback/tcov_export.c - the coverage of reported source files
 * (xp_tcov_src) in the formats that coverage tooling reads: lcov
 * tracefiles with branches (geninfo(1) describes them; genhtml and lcov
 * read them), Cobertura XML (the coverage-04 DTD, which GitLab, Jenkins,
 * Azure DevOps and Codecov read) and SonarQube's generic coverage XML
 * (sonar-generic-coverage.xsd in SonarQube's documentation).  Every
 * export shows the same lines, branches and procedures: those that
 * count in xp_tcov_src; xprof_tcov(1) documents each format.
 */
#include <inttypes.h>
#include <stdio.h>

#include "base/rd.h"
#include "feedback/tcov_int.h"

static void put(xp_wbuf *w, const char *s)
{
	xp_wbuf_write(w, s, strlen(s));
}

/* Hands over what w holds as *buf, *len. */
static xp_err close_out(xp_wbuf *w, char **buf, size_t *len)
{
	unsigned char *mem = NULL;
	xp_err err = xp_wbuf_close(w, &mem, len);
	*buf = (char *)mem;
	return err;
}

/* 1 when branches a and b leave the same block. */
static int same_point(const xp_tcov_branch *a, const xp_tcov_branch *b)
{
	return a->line == b->line && a->block == b->block &&
	       strcmp(a->proc, b->proc) == 0;
}

/*
 * The branches of line (proc non-NULL: those of that procedure) that
 * count, from *bi on in the file's branches, which it leaves past them:
 * *n of them, *taken taken.
 */
static void line_branches(const xp_tcov_src *s, uint32_t line,
                          const char *proc, size_t *bi, uint64_t *n,
                          uint64_t *taken)
{
	const xp_tcov_file *f = s->f;
	size_t i = *bi;
	*n = *taken = 0;
	while (i < f->n_branches && f->branches[i].line < line)
		i++;
	for (; i < f->n_branches && f->branches[i].line == line; i++) {
		const xp_tcov_branch *b = &f->branches[i];
		if (!xp_tcov_src_branches(s, line) ||
		    (proc && strcmp(b->proc, proc) != 0))
			continue;
		(*n)++;
		*taken += b->count > 0;
	}
	*bi = i;
}

/* ------------------------------------------------------------------ */
/* lcov                                                                */
/* ------------------------------------------------------------------ */

static void lcov_file(xp_wbuf *w, const xp_tcov_src *s)
{
	const xp_tcov_file *f = s->f;
	uint32_t point = 0;

	xp_wbuf_printf(w, "TN:\nSF:%s\n", s->path);
	for (size_t i = 0; i < f->n_funcs; i++)
		if (xp_tcov_src_line(s, f->funcs[i].line))
			xp_wbuf_printf(w, "FN:%" PRIu32 ",%s\n", f->funcs[i].line,
			               f->funcs[i].name);
	for (size_t i = 0; i < f->n_funcs; i++)
		if (xp_tcov_src_line(s, f->funcs[i].line))
			xp_wbuf_printf(w, "FNDA:%" PRIu64 ",%s\n", f->funcs[i].count,
			               f->funcs[i].name);
	xp_wbuf_printf(w, "FNF:%zu\nFNH:%zu\n", s->fnf, s->fnh);
	/* Branch points are numbered in the file, excluded ones too, so
	 * that an exclusion leaves the others' numbers as they were. */
	for (size_t i = 0; i < f->n_branches; i++) {
		const xp_tcov_branch *b = &f->branches[i];
		if (i > 0 && !same_point(&f->branches[i - 1], b))
			point++;
		if (!xp_tcov_src_branches(s, b->line))
			continue;
		if (b->block_count == 0)
			xp_wbuf_printf(w, "BRDA:%" PRIu32 ",%" PRIu32 ",%" PRIu32
			               ",-\n", b->line, point, b->edge);
		else
			xp_wbuf_printf(w, "BRDA:%" PRIu32 ",%" PRIu32 ",%" PRIu32
			               ",%" PRIu64 "\n", b->line, point, b->edge,
			               b->count);
	}
	if (s->brf > 0)
		xp_wbuf_printf(w, "BRF:%zu\nBRH:%zu\n", s->brf, s->brh);
	for (size_t i = 0; i < f->n_lines; i++)
		if (xp_tcov_src_line(s, f->lines[i].line))
			xp_wbuf_printf(w, "DA:%" PRIu32 ",%" PRIu64 "\n",
			               f->lines[i].line, f->lines[i].max);
	xp_wbuf_printf(w, "LF:%zu\nLH:%zu\nend_of_record\n", s->lf, s->lh);
}

xp_err xp_tcov_lcov(const xp_tcov_src *s, size_t n, char **buf,
                    size_t *len)
{
	xp_wbuf w;
	xp_err err = xp_wbuf_init_mem(&w);
	*buf = NULL;
	*len = 0;
	if (err)
		return err;
	for (size_t i = 0; i < n; i++)
		lcov_file(&w, &s[i]);
	return close_out(&w, buf, len);
}

/* ------------------------------------------------------------------ */
/* XML                                                                 */
/* ------------------------------------------------------------------ */

/*
 * The length of the UTF-8 sequence at p[0..n) when it is a character
 * that XML 1.0 allows (tab, newline and carriage return are left to the
 * caller), 0 otherwise: a control character, a malformed, overlong or
 * surrogate sequence, U+FFFE, U+FFFF or beyond U+10FFFF.
 */
static size_t xml_char(const unsigned char *p, size_t n)
{
	uint32_t c;
	size_t k;
	if (p[0] < 0x80)
		return p[0] >= 0x20;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		k = 2, c = p[0] & 0x1fu;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		k = 3, c = p[0] & 0x0fu;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		k = 4, c = p[0] & 0x07u;
	else
		return 0;
	if (k > n)
		return 0;
	for (size_t i = 1; i < k; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3fu);
	}
	if ((k == 3 && c < 0x800) || (k == 4 && c < 0x10000) || c > 0x10ffff ||
	    (c >= 0xd800 && c <= 0xdfff) || c == 0xfffe || c == 0xffff)
		return 0;
	return k;
}

/*
 * s as XML character data or an attribute value in double quotes: the
 * five markup characters as entities, tab, newline and carriage return
 * as character references (an attribute keeps them so), and each byte
 * that XML cannot hold as U+FFFD, the replacement character.
 */
static void xml_str(xp_wbuf *w, const char *str)
{
	const unsigned char *p = (const unsigned char *)str;
	size_t n = strlen(str);
	for (size_t i = 0; i < n;) {
		const char *ent = NULL;
		switch (p[i]) {
		case '&': ent = "&amp;"; break;
		case '<': ent = "&lt;"; break;
		case '>': ent = "&gt;"; break;
		case '"': ent = "&quot;"; break;
		case '\'': ent = "&apos;"; break;
		case '\t': ent = "&#9;"; break;
		case '\n': ent = "&#10;"; break;
		case '\r': ent = "&#13;"; break;
		default: break;
		}
		if (ent) {
			put(w, ent);
			i++;
			continue;
		}
		size_t k = xml_char(p + i, n - i);
		if (k == 0) {
			put(w, "\xef\xbf\xbd");
			i++;
			continue;
		}
		xp_wbuf_write(w, p + i, k);
		i += k;
	}
}

/* A file's path relative to root when it lies below it, else as it is. */
static const char *rel_path(const char *path, const char *root)
{
	size_t n = strlen(root);
	while (n > 0 && root[n - 1] == '/')
		n--;
	if (strncmp(path, root, n) == 0 && path[n] == '/' && path[n + 1])
		return path + n + 1;
	return path;
}

/* ------------------------------------------------------------------ */
/* Cobertura                                                           */
/* ------------------------------------------------------------------ */

/* Lines and branches covered and to cover. */
typedef struct {
	uint64_t lh, lf, brh, brf;
} tally;

/* covered / total truncated to four decimals; 1 when there is nothing
 * to cover, as Cobertura has it. */
static void put_rate(xp_wbuf *w, const char *attr, uint64_t hit,
                     uint64_t total)
{
	uint64_t v = total ? (uint64_t)((unsigned __int128)hit * 10000 / total)
	                   : 10000;
	xp_wbuf_printf(w, " %s=\"%" PRIu64 ".%04" PRIu64 "\"", attr, v / 10000,
	               v % 10000);
}

static void put_rates(xp_wbuf *w, const tally *t)
{
	put_rate(w, "line-rate", t->lh, t->lf);
	put_rate(w, "branch-rate", t->brh, t->brf);
}

static void tally_add(tally *t, const xp_tcov_src *s)
{
	t->lh += s->lh;
	t->lf += s->lf;
	t->brh += s->brh;
	t->brf += s->brf;
}

/*
 * One <line>: its largest count as hits and, with branches, the share of
 * them taken, branches from bi on (those of line ln; proc non-NULL: only
 * that procedure's).  Returns the index past the line's branches.
 */
static size_t cob_line(xp_wbuf *w, const xp_tcov_src *s,
                       const xp_tcov_line *ln, size_t bi, const char *proc,
                       const char *indent, tally *t)
{
	uint64_t n, taken;
	line_branches(s, ln->line, proc, &bi, &n, &taken);
	t->lf++;
	t->lh += ln->max > 0;
	t->brf += n;
	t->brh += taken;
	xp_wbuf_printf(w, "%s<line number=\"%" PRIu32 "\" hits=\"%" PRIu64
	               "\" branch=\"%s\"", indent, ln->line, ln->max,
	               n ? "true" : "false");
	if (n == 0) {
		put(w, "/>\n");
		return bi;
	}
	uint64_t pct = taken * 100 / n;
	xp_wbuf_printf(w, " condition-coverage=\"%" PRIu64 "%% (%" PRIu64
	               "/%" PRIu64 ")\">\n%s\t<conditions>\n%s\t\t<condition "
	               "number=\"0\" type=\"jump\" coverage=\"%" PRIu64
	               "%%\"/>\n%s\t</conditions>\n%s</line>\n", pct, taken, n,
	               indent, indent, pct, indent, indent);
	return bi;
}

/*
 * The <lines> of procedure proc, which are the lines its blocks cover;
 * mark has one byte per line of the file's table.
 */
static void cob_method_lines(xp_wbuf *w, const xp_tcov_src *s,
                             const char *proc, unsigned char *mark,
                             tally *t)
{
	const xp_tcov_file *f = s->f;
	size_t li = 0, bi = 0;
	memset(mark, 0, f->n_lines ? f->n_lines : 1);
	for (size_t i = 0; i < f->n_locs; i++) {
		const xp_tcov_loc *l = &f->locs[i];
		if (strcmp(f->blocks[l->block].proc, proc) != 0)
			continue;
		while (li < f->n_lines && f->lines[li].line < l->line)
			li++;
		if (li < f->n_lines)
			mark[li] = 1;
	}
	put(w, "\t\t\t\t\t\t\t<lines>\n");
	for (li = 0; li < f->n_lines; li++)
		if (mark[li] && xp_tcov_src_line(s, f->lines[li].line))
			bi = cob_line(w, s, &f->lines[li], bi, proc,
			              "\t\t\t\t\t\t\t\t", t);
	put(w, "\t\t\t\t\t\t\t</lines>\n");
}

/* One <class>: a source file, its procedures as methods. */
static xp_err cob_class(xp_wbuf *w, const xp_tcov_src *s, const char *root)
{
	const xp_tcov_file *f = s->f;
	const char *file = rel_path(s->path, root);
	const char *base = strrchr(file, '/');
	unsigned char *mark = malloc(f->n_lines ? f->n_lines : 1);
	tally t = {0};
	size_t bi = 0;

	if (!mark)
		return XP_E_NOMEM;
	tally_add(&t, s);
	/* Class names are file names with '.' as '_', as gcovr has them:
	 * readers take a dot in a class name for a package separator. */
	put(w, "\t\t\t\t<class name=\"");
	for (const char *p = base ? base + 1 : file; *p; p++) {
		char one[2] = {*p == '.' ? '_' : *p, '\0'};
		xml_str(w, one);
	}
	put(w, "\" filename=\"");
	xml_str(w, file);
	put(w, "\"");
	put_rates(w, &t);
	put(w, " complexity=\"0.0\">\n\t\t\t\t\t<methods>\n");
	for (size_t i = 0; i < f->n_funcs; i++) {
		const xp_tcov_func *fn = &f->funcs[i];
		xp_wbuf mw;
		unsigned char *mbuf = NULL;
		size_t mlen = 0;
		tally mt = {0};
		if (!xp_tcov_src_line(s, fn->line))
			continue;
		/* The rates come first but follow from the lines: those go
		 * to a buffer of their own. */
		if (xp_wbuf_init_mem(&mw) != XP_E_OK) {
			free(mark);
			return XP_E_NOMEM;
		}
		cob_method_lines(&mw, s, fn->name, mark, &mt);
		if (xp_wbuf_close(&mw, &mbuf, &mlen) != XP_E_OK) {
			free(mark);
			return XP_E_NOMEM;
		}
		put(w, "\t\t\t\t\t\t<method name=\"");
		xml_str(w, fn->name);
		put(w, "\" signature=\"\"");
		put_rates(w, &mt);
		put(w, " complexity=\"0.0\">\n");
		xp_wbuf_write(w, mbuf, mlen);
		put(w, "\t\t\t\t\t\t</method>\n");
		free(mbuf);
	}
	free(mark);
	put(w, "\t\t\t\t\t</methods>\n\t\t\t\t\t<lines>\n");
	for (size_t i = 0; i < f->n_lines; i++)
		if (xp_tcov_src_line(s, f->lines[i].line))
			bi = cob_line(w, s, &f->lines[i], bi, NULL, "\t\t\t\t\t\t",
			              &t);
	put(w, "\t\t\t\t\t</lines>\n\t\t\t\t</class>\n");
	return XP_E_OK;
}

/* The sources by package (their directory below root), then path. */
typedef struct {
	const xp_tcov_src *s;
	const char *file;   /* relative to root, or absolute */
	size_t dirlen;      /* of its directory part, no slash */
} cob_entry;

static int cmp_entry(const void *a, const void *b)
{
	const cob_entry *x = a, *y = b;
	int c = xp_bytecmp(x->file, x->dirlen, y->file, y->dirlen);
	return c ? c : strcmp(x->file, y->file);
}

/* One <package>: the sources e[0..n) of one directory. */
static xp_err cob_package(xp_wbuf *w, const cob_entry *e, size_t n,
                          const char *root)
{
	tally t = {0};
	xp_err err = XP_E_OK;
	for (size_t i = 0; i < n; i++)
		tally_add(&t, e[i].s);
	/* Package names are directories with '.' for '/', as Java's. */
	put(w, "\t\t<package name=\"");
	for (size_t i = 0; i < e->dirlen; i++) {
		char one[2] = {e->file[i] == '/' ? '.' : e->file[i], '\0'};
		if (i == 0 && e->file[0] == '/')
			continue;
		xml_str(w, one);
	}
	put(w, "\"");
	put_rates(w, &t);
	put(w, " complexity=\"0.0\">\n\t\t\t<classes>\n");
	for (size_t i = 0; i < n && !err; i++)
		err = cob_class(w, e[i].s, root);
	put(w, "\t\t\t</classes>\n\t\t</package>\n");
	return err;
}

xp_err xp_tcov_cobertura(const xp_tcov_src *s, size_t n, const char *root,
                         int64_t timestamp, char **buf, size_t *len)
{
	cob_entry *e = calloc(n ? n : 1, sizeof *e);
	tally t = {0};
	xp_wbuf w;
	xp_err err = e ? xp_wbuf_init_mem(&w) : XP_E_NOMEM;

	*buf = NULL;
	*len = 0;
	if (err) {
		free(e);
		return err;
	}
	for (size_t i = 0; i < n; i++) {
		const char *slash;
		e[i].s = &s[i];
		e[i].file = rel_path(s[i].path, root);
		slash = strrchr(e[i].file, '/');
		e[i].dirlen = slash ? (size_t)(slash - e[i].file) : 0;
		tally_add(&t, &s[i]);
	}
	xp_qsort(e, n, sizeof *e, cmp_entry);
	/* No DOCTYPE: readers need none, and a validating one would fetch
	 * the DTD from the network. */
	put(&w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<coverage");
	put_rates(&w, &t);
	xp_wbuf_printf(&w, " lines-covered=\"%" PRIu64 "\" lines-valid=\"%"
	               PRIu64 "\" branches-covered=\"%" PRIu64 "\" branches-"
	               "valid=\"%" PRIu64 "\" complexity=\"0.0\" version=\"xprof "
	               XP_VERSION_STRING "\" timestamp=\"%" PRId64 "\">\n"
	               "\t<sources>\n\t\t<source>", t.lh, t.lf, t.brh, t.brf,
	               timestamp);
	xml_str(&w, root);
	put(&w, "</source>\n\t</sources>\n\t<packages>\n");
	for (size_t i = 0; i < n && !err;) {
		size_t j = i + 1;
		while (j < n && xp_bytecmp(e[i].file, e[i].dirlen, e[j].file,
		                           e[j].dirlen) == 0)
			j++;
		err = cob_package(&w, e + i, j - i, root);
		i = j;
	}
	put(&w, "\t</packages>\n</coverage>\n");
	free(e);
	if (err) {
		xp_wbuf_discard(&w);
		return err;
	}
	return close_out(&w, buf, len);
}

/* ------------------------------------------------------------------ */
/* SonarQube                                                           */
/* ------------------------------------------------------------------ */

static void sonar_file(xp_wbuf *w, const xp_tcov_src *s, const char *root)
{
	const xp_tcov_file *f = s->f;
	size_t bi = 0;
	put(w, "\t<file path=\"");
	xml_str(w, rel_path(s->path, root));
	put(w, "\">\n");
	for (size_t i = 0; i < f->n_lines; i++) {
		const xp_tcov_line *ln = &f->lines[i];
		uint64_t n, taken;
		if (!xp_tcov_src_line(s, ln->line))
			continue;
		line_branches(s, ln->line, NULL, &bi, &n, &taken);
		xp_wbuf_printf(w, "\t\t<lineToCover lineNumber=\"%" PRIu32
		               "\" covered=\"%s\"", ln->line,
		               ln->max > 0 ? "true" : "false");
		if (n > 0)
			xp_wbuf_printf(w, " branchesToCover=\"%" PRIu64
			               "\" coveredBranches=\"%" PRIu64 "\"", n, taken);
		put(w, "/>\n");
	}
	put(w, "\t</file>\n");
}

xp_err xp_tcov_sonarqube(const xp_tcov_src *s, size_t n, const char *root,
                         char **buf, size_t *len)
{
	xp_wbuf w;
	xp_err err = xp_wbuf_init_mem(&w);
	*buf = NULL;
	*len = 0;
	if (err)
		return err;
	put(&w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<coverage version=\"1\">\n");
	for (size_t i = 0; i < n; i++)
		sonar_file(&w, &s[i], root);
	put(&w, "</coverage>\n");
	return close_out(&w, buf, len);
}
