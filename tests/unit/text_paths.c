/*
 * text_paths.c - unit tests of the feedback text parser.
 *
 * The parser has a fast path (whole canonical lines decoded in the
 * scanner) and a slow path (field by field); xp_parse_opts.slow_only
 * forces the slow one.  Every text of the corpus (tests/data/text and
 * tests/data/noncanon) must give byte-identical databases on both paths,
 * whether read from memory or from a file descriptor.  Parsed on threads
 * (xp_parse_opts.jobs), every text, valid or not, must give what one
 * thread gives: the same database, or the same diagnostics.  Further cases
 * cover chunk boundaries, over-long lines, decoded values, diagnostics
 * and the error cap.
 *
 * Run from the root of the source tree (tests/run.sh does), or give the
 * root as the first argument.
 */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "feedback/text_parse.h"
#include "unit.h"
#include "xprof.h"

static const char *srcdir = ".";

/* The diagnostics of d as the tools print them, joined (the caller
 * frees the string). */
static char *diags_text(xp_diags *d)
{
	size_t len = 0;
	char *all = calloc(1, 1);
	for (size_t i = 0; all && i < xp_diags_count(d); i++) {
		char *one = xp_diag_format(xp_diags_get(d, i), "t");
		size_t n = one ? strlen(one) : 0;
		char *p = realloc(all, len + n + 1);
		if (p && one) {
			memcpy(p + len, one, n + 1);
			len += n;
		}
		all = p;
		free(one);
	}
	return all;
}

/*
 * Parses text with o, from memory or (fd set) through a temporary file;
 * returns its database bytes or NULL, and sets *err and, when diags is
 * not NULL, *diags (see diags_text).
 */
static unsigned char *parse_db(const char *text, size_t len,
                               const xp_parse_opts *o, int fd,
                               size_t *dblen, xp_err *err, char **diags)
{
	char path[] = "/tmp/xp_text_paths.XXXXXX";
	xp_diags *d = xp_diags_new(0);
	xp_fb *fb = NULL;
	unsigned char *db = NULL;
	*err = XP_E_IO;
	if (fd) {
		fd = mkstemp(path);
		if (fd >= 0) {
			unlink(path);
			if (write(fd, text, len) == (ssize_t)len &&
			    lseek(fd, 0, SEEK_SET) == 0)
				*err = xp_text_parse_fd(fd, "t", o, &fb, d);
			close(fd);
		}
	} else {
		*err = xp_text_parse_mem(text, len, "t", o, &fb, d);
	}
	if (*err == XP_E_OK && xp_db_write_mem(fb, &db, dblen) != XP_E_OK)
		db = NULL;
	if (diags)
		*diags = diags_text(d);
	xp_fb_free(fb);
	xp_diags_free(d);
	return db;
}

/* Parses text from memory; returns its database bytes or NULL. */
static unsigned char *db_of(const char *text, size_t len, int slow,
                            size_t *dblen, xp_err *err)
{
	xp_parse_opts o = { 0, slow, 0 };
	return parse_db(text, len, &o, 0, dblen, err, NULL);
}

/* The same through a file descriptor (a temporary file). */
static unsigned char *db_of_fd(const char *text, size_t len, int slow,
                               size_t *dblen)
{
	xp_parse_opts o = { 0, slow, 0 };
	xp_err err;
	return parse_db(text, len, &o, 1, dblen, &err, NULL);
}

/*
 * Parsed on threads (xp_parse_opts.jobs of 2 to 9), from memory and from
 * a file, text gives what one thread gives: the same database, or the
 * same error and the same diagnostics.  Returns the number of
 * disagreements.
 */
static int jobs_agree(const char *name, const char *text, size_t len)
{
	static const unsigned jobs[] = { 2, 3, 4, 5, 9 };
	xp_parse_opts o = { 0, 0, 1 };
	size_t l1;
	xp_err e1;
	char *d1;
	unsigned char *a = parse_db(text, len, &o, 0, &l1, &e1, &d1);
	int bad = 0;
	for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
		for (int fd = 0; fd <= 1; fd++) {
			size_t ln = 0;
			xp_err en;
			char *dn;
			o.jobs = jobs[i];
			unsigned char *b = parse_db(text, len, &o, fd, &ln, &en,
			                            &dn);
			if (en != e1 || (a == NULL) != (b == NULL) ||
			    (a && (l1 != ln || memcmp(a, b, l1) != 0)) ||
			    !d1 || !dn || strcmp(d1, dn) != 0) {
				printf("FAIL %s: -j %u (%s) gives %s, -j 1 %s\n",
				       name, jobs[i], fd ? "file" : "memory",
				       xp_errname(en), xp_errname(e1));
				bad++;
			}
			free(b);
			free(dn);
		}
	}
	free(a);
	free(d1);
	return bad;
}

/* Both paths, memory and fd, agree on text; returns the number of
 * disagreements (0 when all four databases are the same). */
static int paths_agree(const char *name, const char *text, size_t len)
{
	size_t l0, l1, l2, l3;
	xp_err e0, e1;
	unsigned char *a = db_of(text, len, 0, &l0, &e0);
	unsigned char *b = db_of(text, len, 1, &l1, &e1);
	unsigned char *c = db_of_fd(text, len, 0, &l2);
	unsigned char *e = db_of_fd(text, len, 1, &l3);
	int bad = 0;
	if (!a || !b || !c || !e) {
		printf("FAIL %s: parse failed (fast %s, slow %s)\n", name,
		       xp_errname(e0), xp_errname(e1));
		bad = 1;
	} else if (l0 != l1 || memcmp(a, b, l0) || l0 != l2 ||
	           memcmp(a, c, l0) || l0 != l3 || memcmp(a, e, l0)) {
		printf("FAIL %s: databases differ between paths\n", name);
		bad = 1;
	}
	free(a);
	free(b);
	free(c);
	free(e);
	return bad;
}

/* Runs fn on every NAME.txt of a corpus folder. */
static void each_txt(const char *dir,
                     void (*fn)(const char *path, const char *name))
{
	char d[4096];
	snprintf(d, sizeof d, "%s/%s", srcdir, dir);
	DIR *dp = opendir(d);
	CHECK(dp != NULL);
	if (!dp)
		return;
	struct dirent *de;
	int n = 0;
	while ((de = readdir(dp)) != NULL) {
		size_t l = strlen(de->d_name);
		if (l < 5 || strcmp(de->d_name + l - 4, ".txt") != 0)
			continue;
		char path[8192];
		snprintf(path, sizeof path, "%s/%s", d, de->d_name);
		fn(path, de->d_name);
		n++;
	}
	closedir(dp);
	CHECK(n > 0);
}

static void one_canonical(const char *path, const char *name)
{
	size_t len;
	char *text = unit_slurp(path, &len);
	CHECK(text != NULL);
	if (!text)
		return;
	if (paths_agree(name, text, len) || jobs_agree(name, text, len))
		unit_failed_checks++;
	/* The writer gives the text back. */
	xp_parse_opts o = { 0, 0, 0 };
	xp_diags *d = xp_diags_new(0);
	xp_fb *fb = NULL;
	if (xp_text_parse_mem(text, len, name, &o, &fb, d) == XP_E_OK) {
		char *out = NULL;
		size_t olen = 0;
		CHECK_EQ(xp_text_write_mem(fb, &out, &olen), XP_E_OK);
		CHECK_MEM(out, olen, text, len);
		free(out);
	}
	xp_fb_free(fb);
	xp_diags_free(d);
	free(text);
}

static void one_noncanonical(const char *path, const char *name)
{
	size_t len, clen;
	char *text = unit_slurp(path, &len);
	char cpath[8192];
	snprintf(cpath, sizeof cpath, "%.*s.canon", (int)(strlen(path) - 4),
	         path);
	char *canon = unit_slurp(cpath, &clen);
	CHECK(text != NULL && canon != NULL);
	if (text && canon) {
		if (paths_agree(name, text, len) || jobs_agree(name, text, len))
			unit_failed_checks++;
		size_t l0, l1;
		xp_err e0, e1;
		unsigned char *a = db_of(text, len, 0, &l0, &e0);
		unsigned char *b = db_of(canon, clen, 0, &l1, &e1);
		CHECK(a != NULL && b != NULL);
		if (a && b)
			CHECK_MEM(a, l0, b, l1);
		free(a);
		free(b);
	}
	free(text);
	free(canon);
}

static void corpus_canonical(void)
{
	each_txt("tests/data/text", one_canonical);
}

static void corpus_noncanonical(void)
{
	each_txt("tests/data/noncanon", one_noncanonical);
}

static void one_bad(const char *path, const char *name)
{
	size_t len;
	char *text = unit_slurp(path, &len);
	CHECK(text != NULL);
	if (text && jobs_agree(name, text, len))
		unit_failed_checks++;
	free(text);
}

/* The texts that must be rejected: on threads, the same messages. */
static void corpus_bad_jobs(void)
{
	each_txt("tests/bad/text", one_bad);
}

/* Appends to a growing string. */
typedef struct {
	char *p;
	size_t len, cap;
} sbuf;

static void sb_add(sbuf *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#include <stdarg.h>
static void sb_add(sbuf *s, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		/* No arithmetic on the NULL of an empty buffer. */
		int n = vsnprintf(s->p ? s->p + s->len : NULL, s->cap - s->len,
		                  fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < s->cap - s->len) {
			s->len += (size_t)n;
			return;
		}
		s->cap = s->cap ? s->cap * 2 : 4096;
		s->p = realloc(s->p, s->cap);
		if (!s->p)
			abort();
	}
}

/* A text of several MiB, so that lines fall on every side of the chunk
 * boundaries, mixing canonical and non-canonical lines. */
static void chunk_boundaries(void)
{
	sbuf s = { 0 };
	unsigned nprocs = 6000;
	sb_add(&s, "PROFILE-FEEDBACK-DATA: 4.4 1 0 %u 1\n", nprocs);
	sb_add(&s, "OBJFILE:/big/o.o %u 1 2 2 0x0 0\n", nprocs);
	for (unsigned p = 1; p <= nprocs; p++) {
		sb_add(&s, "PROC: proc_%u 0x%x 40 1 1 %u 3 2 3\n", p, p, p);
		for (unsigned c = 1; c <= 40; c++) {
			if (c % 7 == 0)
				sb_add(&s, "  %u\t%u  \r\n", c, c * p);
			else
				sb_add(&s, "%u %u\n", c, c * p);
		}
		sb_add(&s, "VP_INT 1 %u %d\n", p, -(int)p);
		sb_add(&s, "VP_INT 1 0\n");
		sb_add(&s, "B1: 1\nB2: 2\nB3: 0\nE1 0 B1 B2\nE2 3 B2 B3\n");
		sb_add(&s, "S1: B1 %u:2 /big/s.c\nS2: B2 %u\nS3: B3 1\n", p,
		       p + 1);
	}
	sb_add(&s, "SRCFILE: /big/s.c %u\n", nprocs);
	for (unsigned p = 1; p <= nprocs; p++)
		sb_add(&s, "SRCLINE: %u 1\nB1 %u proc_%u:/big/o.o\n", p, p, p);
	CHECK(s.len > 3u << 20);
	CHECK_EQ(paths_agree("chunk_boundaries", s.p, s.len), 0);
	CHECK_EQ(jobs_agree("chunk_boundaries", s.p, s.len), 0);
	free(s.p);
}

/* A line longer than a chunk makes the chunk grow. */
static void long_line(void)
{
	sbuf s = { 0 };
	size_t n = 3u << 20;
	sb_add(&s, "PROFILE-FEEDBACK-DATA: 4.4 1 0 0 0\nOBJFILE:/");
	for (size_t i = 0; i < n; i++)
		sb_add(&s, "%c", 'a' + (int)(i % 26));
	sb_add(&s, " 0 0 0 0 0x0 0\nmax 1\n");
	CHECK_EQ(paths_agree("long_line", s.p, s.len), 0);
	xp_diags *d = xp_diags_new(0);
	xp_fb *fb = NULL;
	CHECK_EQ(xp_text_parse_mem(s.p, s.len, "t", NULL, &fb, d), XP_E_OK);
	if (fb) {
		xp_objfile o;
		xp_fb_objfile(fb, 0, &o);
		CHECK_EQ(xp_fb_strlen(fb, o.path), n + 1);
	}
	xp_fb_free(fb);
	xp_diags_free(d);
	free(s.p);
}

/*
 * A file larger than the reader's mapping window, with a line longer than
 * a window in the middle: the window moves and grows, and the result is
 * the same as from memory.
 */
static void big_windows(void)
{
	const size_t pathlen = 9u << 20, ncounters = 1500000;
	const char head[] = "PROFILE-FEEDBACK-DATA: 4.4 1 0 0 0\nOBJFILE:/";
	size_t cap = sizeof head + pathlen + 64 + ncounters * 24 + 64;
	char *t = malloc(cap);
	CHECK(t != NULL);
	if (!t)
		return;
	size_t n = 0;
	memcpy(t, head, sizeof head - 1);
	n += sizeof head - 1;
	for (size_t i = 0; i < pathlen; i++)
		t[n++] = (char)('a' + (int)(i % 26));
	n += (size_t)sprintf(t + n, " 1 0 0 0 0x0 0\nPROC: p 0x1 %zu 0 0 1 0 0 0\n",
	                     ncounters);
	for (size_t i = 1; i <= ncounters; i++)
		n += (size_t)sprintf(t + n, "%zu %zu\n", i, i * 7);
	CHECK(n > (16u << 20));
	CHECK_EQ(paths_agree("big_windows", t, n), 0);
	free(t);
}

static xp_fb *parse_str(const char *text, xp_diags *d, unsigned maxerr)
{
	xp_parse_opts o = { maxerr, 0, 0 };
	xp_fb *fb = NULL;
	xp_err e = xp_text_parse_mem(text, strlen(text), "t", &o, &fb, d);
	if (e != XP_E_OK)
		CHECK(fb == NULL);
	return fb;
}

/* Decoded values of every VP type, canonical or not. */
static void vp_values(void)
{
	static const char text[] =
		"PROFILE-FEEDBACK-DATA: 4.4 1 0 0 0\n"
		"OBJFILE:/v.o 1 0 0 2 0X00AbC 0\n"
		"PROC: p 0x0 0 0 5 1 0 0 0\n"
		"VP_INT 1 1 -0042\n"
		"VP_INT 1 0\n"
		"VP_LLONG 2 3 +9223372036854775807\n"
		"VP_LLONG 2 4 -1\n"
		"VP_FLOAT 3 1 -INFINITY\n"
		"VP_FLOAT 3 1 0x1p-2\n"
		"VP_DOUBLE 4 1 -NaN\n"
		"VP_DOUBLE 4 1 1E3\n"
		"VP_PROC 5 9 f:o:bj\n"
		"VP_PROC 5 9\n";
	xp_diags *d = xp_diags_new(0);
	xp_fb *fb = parse_str(text, d, 0);
	CHECK(fb != NULL);
	if (fb) {
		xp_objfile o;
		xp_fb_objfile(fb, 0, &o);
		CHECK_EQ_U64(o.signature, 0xabc);
		xp_vpval v;
		xp_fb_vpval(fb, 0, XP_VP_INT, &v);
		CHECK_EQ(v.v.i, -42);
		CHECK_EQ(v.has_value, 1);
		xp_fb_vpval(fb, 1, XP_VP_INT, &v);
		CHECK_EQ(v.has_value, 0);
		xp_fb_vpval(fb, 2, XP_VP_LLONG, &v);
		CHECK_EQ(v.v.ll, INT64_MAX);
		xp_fb_vpval(fb, 3, XP_VP_LLONG, &v);
		CHECK_EQ(v.v.ll, -1);
		xp_fb_vpval(fb, 4, XP_VP_FLOAT, &v);
		CHECK(isinf(v.v.f) && v.v.f < 0);
		xp_fb_vpval(fb, 5, XP_VP_FLOAT, &v);
		CHECK(v.v.f == 0.25f);
		xp_fb_vpval(fb, 6, XP_VP_DOUBLE, &v);
		CHECK(isnan(v.v.d) && signbit(v.v.d));
		xp_fb_vpval(fb, 7, XP_VP_DOUBLE, &v);
		CHECK(v.v.d == 1000.0);
		xp_fb_vpval(fb, 8, XP_VP_PROC, &v);
		CHECK_STR(xp_fb_str(fb, v.v.proc.name), "f");
		CHECK_STR(xp_fb_str(fb, v.v.proc.objfile), "o:bj");
		xp_fb_vpval(fb, 9, XP_VP_PROC, &v);
		CHECK_EQ(v.has_value, 0);
		CHECK_EQ_U64(v.count, 9);
	}
	xp_fb_free(fb);
	xp_diags_free(d);
}

/* Every error is reported, in order, with its position; no profile. */
static void diagnostics(void)
{
	static const char text[] =
		"PROFILE-FEEDBACK-DATA: 4.4 1 0 0 0\n"
		"OBJFILE:/e.o 1 0 0 0 0x0 0\n"
		"PROC: p 0x0 2 0 0 1 0 0 0\n"
		"1 5\n"
		"3 5\n"
		"2 x\n"
		"B1: 0\n";
	xp_diags *d = xp_diags_new(0);
	xp_fb *fb = parse_str(text, d, 0);
	CHECK(fb == NULL);
	/* The PROC's counts are not checked: one of its lines had a
	 * syntax error. */
	CHECK_EQ(xp_diags_count(d), 3);
	if (xp_diags_count(d) == 3) {
		const xp_diag *g = xp_diags_get(d, 0);
		CHECK_EQ(g->line, 5);
		CHECK_EQ(g->col, 1);
		CHECK_STR(g->msg, "counter id 3 out of range [1..2]");
		CHECK_STR(g->text, "3 5");
		g = xp_diags_get(d, 1);
		CHECK_EQ(g->line, 6);
		CHECK_EQ(g->col, 3);
		CHECK_STR(g->msg,
		          "unexpected \"x\", expecting an unsigned integer");
		g = xp_diags_get(d, 2);
		CHECK_EQ(g->line, 7);
		CHECK_STR(g->msg, "block id 1 out of range [1..0]");
	}
	xp_diags_free(d);

	/* A count found wrong at the end of a section is reported at the
	 * declaring field of its head line, copied while the section was
	 * open (here past a chunk of other lines). */
	sbuf s = { 0 };
	sb_add(&s, "PROFILE-FEEDBACK-DATA: 4.4 1 0 0 0\n"
	           "OBJFILE:/e.o 1 0 0 0 0x0 0\n"
	           "PROC: p 0x0 300000 0 0 1 1 0 0\n");
	for (int i = 1; i <= 300000; i++)
		sb_add(&s, "%d 5\n", i);
	d = xp_diags_new(0);
	xp_fb *fb2 = parse_str(s.p, d, 0);
	CHECK(fb2 == NULL);
	CHECK_EQ(xp_diags_count(d), 1);
	if (xp_diags_count(d) == 1) {
		const xp_diag *g = xp_diags_get(d, 0);
		CHECK_EQ(g->line, 3);
		CHECK_EQ(g->col, 26);
		CHECK_STR(g->msg, "PROC declares 1 block, found 0");
		CHECK_STR(g->text, "PROC: p 0x0 300000 0 0 1 1 0 0");
	}
	free(s.p);
	xp_diags_free(d);
}

/*
 * A duplicate id is reported with the line of the first, whether the
 * range of ids is small (a table by id) or large (kept in order, hashed
 * once out of order), with the ids in order or not, and a table used by
 * one section holds nothing of the section before.
 */
static void duplicate_ids(void)
{
	static const unsigned ns[] = { 5, 70000, 100000 };
	for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
		for (int shuffled = 0; shuffled <= 1; shuffled++) {
			unsigned n = ns[k];
			sbuf s = { 0 };
			sb_add(&s, "PROFILE-FEEDBACK-DATA: 4.4 1 0 0 0\n"
			           "OBJFILE:/e.o 2 0 0 0 0x0 0\n"
			           "PROC: p 0x0 %u 0 0 1 0 0 0\n", n);
			/* Line 4 on: ids 1..n, or n..1; then id 3 again. */
			for (unsigned i = 1; i <= n; i++)
				sb_add(&s, "%u 5\n", shuffled ? n + 1 - i : i);
			sb_add(&s, "3 7\nPROC: q 0x0 %u 0 0 2 0 0 0\n", n);
			for (unsigned i = 1; i <= n; i++)
				sb_add(&s, "%u 5\n", i);
			xp_diags *d = xp_diags_new(0);
			xp_fb *fb = parse_str(s.p, d, 0);
			CHECK(fb == NULL);
			/* The duplicate, then (the first PROC closing) its
			 * count: the second PROC's ids are its own. */
			CHECK_EQ(xp_diags_count(d), 2);
			if (xp_diags_count(d) == 2) {
				char want[96];
				const xp_diag *g = xp_diags_get(d, 0);
				snprintf(want, sizeof want,
				         "duplicate counter id 3 (first at line %u)",
				         shuffled ? n + 1 : 6);
				CHECK_EQ(g->line, n + 4);
				CHECK_STR(g->msg, want);
			}
			xp_fb_free(fb);
			xp_diags_free(d);
			free(s.p);
		}
	}
}

/* Parsing stops at the cap. */
static void error_cap(void)
{
	sbuf s = { 0 };
	sb_add(&s, "PROFILE-FEEDBACK-DATA: 4.4 0 1 0 0\nPROGRAM: p 0 0\n");
	for (int i = 0; i < 50; i++)
		sb_add(&s, "junk %d\n", i);
	xp_diags *d = xp_diags_new(100);
	xp_fb *fb = parse_str(s.p, d, 3);
	CHECK(fb == NULL);
	CHECK_EQ(xp_diags_count(d), 3);
	xp_diags_free(d);
	d = xp_diags_new(0);
	fb = parse_str(s.p, d, 0);
	CHECK_EQ(xp_diags_count(d), 20);
	xp_diags_free(d);
	free(s.p);
}

/* Inputs with no newline at the end, or nothing at all. */
static void edges_of_input(void)
{
	xp_diags *d = xp_diags_new(0);
	xp_fb *fb = parse_str("PROFILE-FEEDBACK-DATA: 4.4 1 0 0 0\n"
	                      "OBJFILE:/a 0 0 0 0 0x0 0\nmax 5", d, 0);
	CHECK(fb != NULL);
	if (fb) {
		CHECK_EQ(xp_fb_count(fb, XP_T_STATS), 1);
	}
	xp_fb_free(fb);
	fb = parse_str("PROFILE-FEEDBACK-DATA: 4.4 0 0 0 0", d, 0);
	CHECK(fb != NULL);
	xp_fb_free(fb);
	CHECK_EQ(xp_diags_count(d), 0);
	fb = parse_str("", d, 0);
	CHECK(fb == NULL);
	CHECK_EQ(xp_diags_count(d), 1);
	xp_diags_free(d);
}

/* The first diagnostic of text on one path, as "line:col: msg". */
static void first_diag(const char *text, int slow, char *out, size_t n)
{
	xp_parse_opts o = { 0, slow, 0 };
	xp_diags *d = xp_diags_new(0);
	xp_fb *fb = NULL;
	xp_err e = xp_text_parse_mem(text, strlen(text), "t", &o, &fb, d);
	snprintf(out, n, "%s", xp_errname(e));
	if (xp_diags_count(d) > 0) {
		const xp_diag *g = xp_diags_get(d, 0);
		snprintf(out, n, "%u:%u: %s", g->line, g->col, g->msg);
	}
	xp_fb_free(fb);
	xp_diags_free(d);
}

/*
 * Lines close to canonical, one at a time in a small profile, where the
 * fast path's hand parsers must either decode exactly what the slow path
 * does or give the line up: separators, leading zeros, the 64-bit limit,
 * bytes that end names, names of every length around a word, a last line
 * without a line end.  Valid texts must build the same database on both
 * paths; invalid ones must report the same first error.
 */
static void fast_line_variants(void)
{
	static const char *const pre =
		"PROFILE-FEEDBACK-DATA: 4.4 1 1 2 1\n"
		"OBJFILE:/o.o 1 0 0 2 0x0 0\n"
		"PROC: f 0x1a 2 1 1 1 2 1 2\n";
	static const char *const variants[] = {
		"1 5\n2 18446744073709551615\n", "01 5\n2 0\n", "1 05\n2 0\n",
		"1 5 \n2 0\n", "1\t5\n2 0\n", "1 5\r\n2 0\n", " 1 5\n2 0\n",
		"1 18446744073709551616\n2 0\n", "1 99999999999999999999\n2 0\n",
		"1 5\n2 0\nVP_INT 1 2 -3\nVP_INT 1 1 +4\n",
		"1 5\n2 0\nVP_PROC 1 2 f:/o.o\nVP_PROC 1 1\n",
		"1 5\n2 0\nVP_DOUBLE 1 2 1e3\nVP_DOUBLE 1 1 -nan\n",
		"1 5\n2 0\nVP_FLOAT 1 2  1\nVP_FLOAT 1 1 2\n",
		"1 5\n2 0\nVP_LLONG 1 2 1 \nVP_LLONG 1 1 2\n",
		"1 5\n2 0\nVP_INT 1 2\nVP_INT 1 0\n",
		"1 5\n2 0\nVP_INT 1 0\nVP_INT 1 0 x\x01y\n",
		"1 5\n2 0\nVP_INT 1 0\nVP_INT 1 0 7\n",
		"1 5\n2 0\nB1: 1\nB2: 02\n", "1 5\n2 0\nB1: 1\nB2:  2\n",
		"1 5\n2 0\nB1: 1\nB2: 2\nE1 0 B1 B2\n",
		"1 5\n2 0\nB1: 1\nB2: 2\nE1 0 B1 B02\n",
		"1 5\n2 0\nB1: 1\nB2: 2\nE1 0 B1 b2\n",
		"1 5\n2 0\nB1: 1\nB2: 2\nE1 0 B1 B2\nS1: B1 3:4 /s.c\n"
		"S2: B2 5\n",
		"1 5\n2 0\nB1: 1\nB2: 2\nE1 0 B1 B2\nS1: B1 3:0 /s.c\n",
		"1 5\n2 0\nB1: 1\nB2: 2\nE1 0 B1 B2\nS1: B1 3: /s.c\n",
		"1 5\n2 0\nB1: 1\nB2: 2\nE1 0 B1 B2\nS1: B1 3 /s.c\r\n",
		"1 5\n2 0\nB1: 1\nB2: 2\nE1 0 B1 B2\nS1: B1 3 /s\x01.c\n",
		"1 5\n2 0\nB1: 1\nB2: 2\nE1 0 B1 B2\nS1: B1 3 /s.c\n"
		"S2: B2 4 /s.c",
		"1 5\n2 0\nmax 1\n",
		"1 5\n2 0\nB1: 1\nB2: 2\nE1 0 B1 B2\nS1: B1 3\nPROGRAM: /p 1 0\n"
		"OBJREF: /o.o\nSRCFILE: /s.c 1\nSRCLINE: 3:1 1\nB1 7 f:/o.o",
		"1 5\n2 0\nB1: 1\nB2: 2\nE1 0 B1 B2\nS1: B1 3\nPROGRAM: /p 1 0\n"
		"OBJREF: /o.o \nSRCFILE: /s.c 1\nSRCLINE: 3 1\nB1 7 f:/o.o\n",
		"1 5\n2 0\nB1: 1\nB2: 2\nE1 0 B1 B2\nS1: B1 3\nPROGRAM: /p 1 0\n"
		"OBJREF: /o.o\nSRCFILE: /s.c 1\nSRCLINE: 03 1\nB1 7 f:/o.o\n",
		"1 5\n2 0\nB1: 1\nB2: 2\nE1 0 B1 B2\nS1: B1 3\nPROGRAM: /p 1 0\n"
		"OBJREF: /o.o\nSRCFILE: /s.c 1\nSRCLINE: 3 1\nB1 7 f/o.o\n",
		"1 5\n2 0\nB1: 1\nB2: 2\nE1 0 B1 B2\nS1: B1 3\nPROGRAM: /p 1 0\n"
		"OBJREF: /o.o\nSRCFILE: /s.c 1\nSRCLINE: 3 1\nB1 7 f:/o.o\0\n",
	};
	char text[4096], fast[600], slow[600], name[64];
	for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
		/* The NUL case is written with an explicit length. */
		const char *v = variants[i];
		size_t vlen = strlen(v);
		if (i == sizeof variants / sizeof variants[0] - 1)
			vlen += 2;
		size_t plen = strlen(pre);
		memcpy(text, pre, plen);
		memcpy(text + plen, v, vlen);
		text[plen + vlen] = 0;
		snprintf(name, sizeof name, "variant %zu", i);
		size_t dl0, dl1;
		xp_err e0, e1;
		unsigned char *a = db_of(text, plen + vlen, 0, &dl0, &e0);
		unsigned char *b = db_of(text, plen + vlen, 1, &dl1, &e1);
		CHECK_EQ(jobs_agree(name, text, plen + vlen), 0);
		if (a && b) {
			CHECK_EQ(paths_agree(name, text, plen + vlen), 0);
		} else if (vlen == strlen(v)) {
			first_diag(text, 0, fast, sizeof fast);
			first_diag(text, 1, slow, sizeof slow);
			if (strcmp(fast, slow) != 0)
				printf("FAIL %s: fast \"%s\", slow \"%s\"\n", name,
				       fast, slow);
			CHECK(strcmp(fast, slow) == 0);
		}
		CHECK_EQ(e0, e1);
		free(a);
		free(b);
	}
	/* Names of every length around the 8-byte words the scanner
	 * reads, in every field that holds one. */
	for (int n = 1; n <= 40; n++) {
		char nm[48];
		for (int k = 0; k < n; k++)
			nm[k] = (char)('a' + k % 26);
		nm[n] = 0;
		snprintf(text, sizeof text,
		         "PROFILE-FEEDBACK-DATA: 4.4 1 1 1 1\n"
		         "OBJFILE:/%s 1 0 0 1 0x0 0\n"
		         "PROC: %s 0x1 1 1 1 1 1 0 1\n1 2\nVP_PROC 1 1 %s:/%s\n"
		         "B1: 1\nS1: B1 2 /%s\n"
		         "PROGRAM: /%s 1 1\nOBJREF: /%s\nCOMDAT_PROC: %s:/%s\n"
		         "SRCFILE: /%s 1\nSRCLINE: 2 1\nB1 2 %s:/%s",
		         nm, nm, nm, nm, nm, nm, nm, nm, nm, nm, nm, nm);
		snprintf(name, sizeof name, "name length %d", n);
		CHECK_EQ(paths_agree(name, text, strlen(text)), 0);
	}
}

/*
 * What a text of many sections may have wrong across them: the text of
 * many_sections with one change.  Parts parsed on threads see only their
 * own sections, so these are the rules the join must check (or leave to
 * one thread) for the messages of one thread.
 */
enum {
	MS_VALID, MS_DUP_OBJFILE, MS_DUP_PROGRAM, MS_DUP_SRCFILE,
	MS_LATE_OBJREF, MS_MISSING_OBJREF, MS_COUNT_OBJFILES,
	MS_COUNT_PROGRAMS, MS_COUNT_SRCFILES, MS_OBJFD, MS_V43, MS_SYNTAX,
	MS_HEADER_WRAPPED, MS_BLANK_SECTION, MS_CRLF, MS_KINDS
};

/*
 * A valid text of n OBJFILE sections (a PROC each), a PROGRAM after
 * every seventh naming the OBJFILE before it, and a SRCFILE per OBJFILE
 * at the end, with change what (MS_*).
 */
static void many_sections(sbuf *s, unsigned n, int what)
{
	unsigned nprog = (n + 6) / 7;
	sb_add(s, "PROFILE-FEEDBACK-DATA: %s %u %u %u%s %u%s\n",
	       what == MS_V43 ? "4.3" : "4.4",
	       n + (what == MS_COUNT_OBJFILES),
	       nprog + (what == MS_COUNT_PROGRAMS),
	       n, what == MS_HEADER_WRAPPED ? "\n " : "",
	       n + (what == MS_COUNT_SRCFILES),
	       what == MS_OBJFD ? " objfd" : "");
	for (unsigned i = 0; i < n; i++) {
		unsigned path = what == MS_DUP_OBJFILE && i == n - 2 ? 1 : i;
		sb_add(s, "%sOBJFILE:/o/%u.o 1 0 0 0 0x0 0\n",
		       what == MS_BLANK_SECTION && i == 0 ? " " : "", path);
		sb_add(s, "PROC: f%u 0x%x 2 0 0 1 0 0 0\n1 %u\n2 %u%s\n", i,
		       i + 1, i, 7 * i, what == MS_CRLF ? "\r" : "");
		if (what == MS_SYNTAX && i == n - 3)
			sb_add(s, "3 x\n");
		if (i % 7 == 6 || i == n - 1) {
			unsigned ref = what == MS_LATE_OBJREF && i == 6 ? i + 1
			             : what == MS_MISSING_OBJREF && i == n - 1
			                 ? n : i;
			unsigned p = what == MS_DUP_PROGRAM && i == n - 1 ? 6 : i;
			sb_add(s, "PROGRAM: /p/%u 1 0\nOBJREF: /o/%u.o\n", p, ref);
		}
	}
	for (unsigned i = 0; i < n; i++) {
		unsigned path = what == MS_DUP_SRCFILE && i == n - 1 ? 2 : i;
		sb_add(s, "SRCFILE: /s/%u.c 1\nSRCLINE: %u 1\nB1 %u f%u:/o/%u.o\n",
		       path, i + 1, i, i, i);
	}
}

/* Texts of many sections, each rule across sections broken in turn: on
 * threads, the database or the messages of one thread. */
static void jobs_across_sections(void)
{
	char name[64];
	for (int what = 0; what < MS_KINDS; what++) {
		for (unsigned n = 20; n <= 200; n += 180) {
			sbuf s = { 0 };
			many_sections(&s, n, what);
			snprintf(name, sizeof name, "sections %u, case %d", n,
			         what);
			CHECK_EQ(jobs_agree(name, s.p, s.len), 0);
			/* The valid ones are valid, the others not. */
			xp_err e;
			size_t dl;
			unsigned char *db = db_of(s.p, s.len, 0, &dl, &e);
			int valid = what == MS_VALID || what == MS_HEADER_WRAPPED ||
			            what == MS_BLANK_SECTION || what == MS_CRLF;
			CHECK_EQ(db != NULL, valid);
			free(db);
			/* And the threads did the work: a valid text is
			 * parsed in parts and joined, not left to one thread
			 * (which would give the same bytes anyway). */
			xp_fb *fb = NULL;
			CHECK_EQ(xp_tx_parse_jobs(-1, s.p, 0, s.len, name, 3, &fb),
			         valid);
			CHECK_EQ(fb != NULL, valid);
			xp_fb_free(fb);
			free(s.p);
		}
	}
}

int main(int argc, char **argv)
{
	if (argc > 1)
		srcdir = argv[1];
	RUN(corpus_canonical);
	RUN(corpus_noncanonical);
	RUN(chunk_boundaries);
	RUN(long_line);
	RUN(big_windows);
	RUN(vp_values);
	RUN(diagnostics);
	RUN(duplicate_ids);
	RUN(error_cap);
	RUN(edges_of_input);
	RUN(fast_line_variants);
	RUN(corpus_bad_jobs);
	RUN(jobs_across_sections);
	return unit_done();
}
