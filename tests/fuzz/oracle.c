/*
 * oracle.c - the round-trip checks behind the fuzz targets and the corpus
 * replay driver (see oracle.h).  The checks go through the public
 * interface only, the way the tools use it; only the checksum repair
 * needs the database layout (db.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feedback/db.h"
#include "oracle.h"

static xpo_result fail(char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static xpo_result fail(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return XPO_VIOLATION;
}

/*
 * A reader that refuses an input must say why and must not hand back a
 * profile.  Running out of memory is not the input's fault and needs no
 * diagnostic.
 */
static xpo_result check_rejection(xp_err err, const xp_fb *fb,
                                  const xp_diags *d, const char *what,
                                  char *why, size_t whylen)
{
	if (fb != NULL)
		return fail(why, whylen, "%s failed with %s but returned a "
		            "profile", what, xp_errname(err));
	if (err != XP_E_NOMEM && xp_diags_count(d) == 0)
		return fail(why, whylen, "%s failed with %s without a "
		            "diagnostic", what, xp_errname(err));
	return XPO_REJECTED;
}

static int same(const void *a, size_t al, const void *b, size_t bl)
{
	return al == bl && (al == 0 || memcmp(a, b, al) == 0);
}

/* The first offset where two byte strings differ, for messages. */
static size_t first_diff(const void *a, size_t al, const void *b, size_t bl)
{
	const unsigned char *x = a, *y = b;
	size_t i, n = al < bl ? al : bl;

	for (i = 0; i < n && x[i] == y[i]; i++)
		;
	return i;
}

static xp_err parse(const void *buf, size_t len, int slow, unsigned jobs,
                    xp_fb **fb, xp_diags **d)
{
	xp_parse_opts opts = { 0, slow, jobs };

	*fb = NULL;
	*d = xp_diags_new(0);
	if (*d == NULL)
		return XP_E_NOMEM;
	return xp_text_parse_mem(buf, len, "input", &opts, fb, *d);
}

/* The diagnostics of a and b, as the tools print them, are the same. */
static int same_diags(const xp_diags *a, const xp_diags *b)
{
	if (xp_diags_count(a) != xp_diags_count(b))
		return 0;
	for (size_t i = 0; i < xp_diags_count(a); i++) {
		char *x = xp_diag_format(xp_diags_get(a, i), "p");
		char *y = xp_diag_format(xp_diags_get(b, i), "p");
		int eq = x && y && strcmp(x, y) == 0;
		free(x);
		free(y);
		if (!eq)
			return 0;
	}
	return 1;
}

/*
 * The text parsed on three threads gives what one thread gave (err, fb,
 * d): the same database, or the same error and diagnostics.
 */
static xpo_result threads_agree(const void *buf, size_t len, xp_err err,
                                const xp_fb *fb, const xp_diags *d,
                                char *why, size_t whylen)
{
	xp_fb *fbj = NULL;
	xp_diags *dj = NULL;
	unsigned char *a = NULL, *b = NULL;
	size_t al = 0, bl = 0;
	xpo_result r = XPO_ACCEPTED;
	xp_err errj = parse(buf, len, 0, 3, &fbj, &dj);

	if (errj != err)
		r = fail(why, whylen, "parse on three threads gave %s, on one "
		         "%s", xp_errname(errj), xp_errname(err));
	else if (err != XP_E_OK && !same_diags(d, dj))
		r = fail(why, whylen, "parse on three threads gave other "
		         "diagnostics");
	else if (err == XP_E_OK &&
	         (xp_db_write_mem(fb, &a, &al) != XP_E_OK ||
	          xp_db_write_mem(fbj, &b, &bl) != XP_E_OK || !same(a, al, b, bl)))
		r = fail(why, whylen, "parse on three threads gave another "
		         "database");
	xp_fb_free(fbj);
	xp_diags_free(dj);
	free(a);
	free(b);
	return r;
}

xpo_result xpo_check_text(const void *buf, size_t len, char *why,
                          size_t whylen)
{
	xp_fb *fb1 = NULL, *fb2 = NULL, *fbs = NULL, *fbd = NULL;
	xp_diags *d1 = NULL, *d2 = NULL, *ds = NULL, *dd = NULL;
	char *t1 = NULL, *t2 = NULL, *ts = NULL, *td = NULL;
	unsigned char *db1 = NULL, *db2 = NULL;
	size_t t1l, t2l, tsl, tdl, db1l, db2l;
	xpo_result r = XPO_ACCEPTED;
	xp_err err, serr;

	err = parse(buf, len, 0, 0, &fb1, &d1);
	serr = parse(buf, len, 1, 0, &fbs, &ds);
	if ((err == XP_E_OK) != (serr == XP_E_OK)) {
		r = fail(why, whylen, "fast parse gave %s, slow parse %s",
		         xp_errname(err), xp_errname(serr));
		goto out;
	}
	if ((r = threads_agree(buf, len, err, fb1, d1, why, whylen)) !=
	    XPO_ACCEPTED)
		goto out;
	if (err != XP_E_OK) {
		r = check_rejection(err, fb1, d1, "text parse", why, whylen);
		if (r == XPO_REJECTED)
			r = check_rejection(serr, fbs, ds, "slow text parse",
			                    why, whylen);
		goto out;
	}

	/* Whatever the parser takes, format recognition must call text. */
	if (xp_format_detect(buf, len) != XP_FMT_FEEDBACK_TEXT) {
		r = fail(why, whylen, "accepted text recognised as %s",
		         xp_format_name(xp_format_detect(buf, len)));
		goto out;
	}

	if (xp_text_write_mem(fb1, &t1, &t1l) != XP_E_OK ||
	    xp_text_write_mem(fbs, &ts, &tsl) != XP_E_OK) {
		r = fail(why, whylen, "writing the text failed");
		goto out;
	}
	if (!same(t1, t1l, ts, tsl)) {
		r = fail(why, whylen, "fast and slow parses differ: canonical "
		         "texts differ at byte %zu", first_diff(t1, t1l, ts, tsl));
		goto out;
	}

	err = parse(t1, t1l, 0, 0, &fb2, &d2);
	if (err != XP_E_OK) {
		const xp_diag *dg = xp_diags_count(d2) ? xp_diags_get(d2, 0) : NULL;

		r = fail(why, whylen, "canonical text rejected (%s) at %u:%u: %s",
		         xp_errname(err), dg ? dg->line : 0, dg ? dg->col : 0,
		         dg ? dg->msg : "no diagnostic");
		goto out;
	}
	if (xp_text_write_mem(fb2, &t2, &t2l) != XP_E_OK) {
		r = fail(why, whylen, "writing the text again failed");
		goto out;
	}
	if (!same(t1, t1l, t2, t2l)) {
		r = fail(why, whylen, "canonical text not stable: differs at "
		         "byte %zu", first_diff(t1, t1l, t2, t2l));
		goto out;
	}

	if (xp_db_write_mem(fb1, &db1, &db1l) != XP_E_OK ||
	    xp_db_write_mem(fb2, &db2, &db2l) != XP_E_OK) {
		r = fail(why, whylen, "writing the database failed");
		goto out;
	}
	if (!same(db1, db1l, db2, db2l)) {
		r = fail(why, whylen, "text and canonical text give different "
		         "databases (byte %zu)", first_diff(db1, db1l, db2, db2l));
		goto out;
	}

	dd = xp_diags_new(0);
	if (dd == NULL) {
		r = fail(why, whylen, "out of memory");
		goto out;
	}
	err = xp_db_open_mem(db1, db1l, "db", &fbd, dd);
	if (err != XP_E_OK) {
		const xp_diag *dg = xp_diags_count(dd) ? xp_diags_get(dd, 0) : NULL;

		r = fail(why, whylen, "written database rejected (%s) at offset "
		         "0x%llx: %s", xp_errname(err),
		         dg ? (unsigned long long)dg->offset : 0ULL,
		         dg ? dg->msg : "no diagnostic");
		goto out;
	}
	if (xp_text_write_mem(fbd, &td, &tdl) != XP_E_OK) {
		r = fail(why, whylen, "writing the text of the database failed");
		goto out;
	}
	if (!same(t1, t1l, td, tdl))
		r = fail(why, whylen, "database gives a different text (byte "
		         "%zu)", first_diff(t1, t1l, td, tdl));
out:
	xp_fb_free(fbd);
	xp_fb_free(fb2);
	xp_fb_free(fbs);
	xp_fb_free(fb1);
	xp_diags_free(dd);
	xp_diags_free(d2);
	xp_diags_free(ds);
	xp_diags_free(d1);
	free(t1);
	free(t2);
	free(ts);
	free(td);
	free(db1);
	free(db2);
	return r;
}

xpo_result xpo_check_db(const void *buf, size_t len, char *why,
                        size_t whylen)
{
	xp_fb *fb = NULL, *fb2 = NULL;
	xp_diags *d = NULL, *d2 = NULL;
	unsigned char *db1 = NULL, *db2 = NULL;
	size_t db1l, db2l, tl;
	char *t = NULL;
	xpo_result r = XPO_ACCEPTED;
	xp_err err;

	d = xp_diags_new(0);
	if (d == NULL)
		return fail(why, whylen, "out of memory");
	err = xp_db_open_mem(buf, len, "input", &fb, d);
	if (err != XP_E_OK) {
		r = check_rejection(err, fb, d, "database open", why, whylen);
		goto out;
	}
	if (xp_format_detect(buf, len) != XP_FMT_FEEDBACK_DB) {
		r = fail(why, whylen, "accepted database recognised as %s",
		         xp_format_name(xp_format_detect(buf, len)));
		goto out;
	}
	if (xp_db_write_mem(fb, &db1, &db1l) != XP_E_OK) {
		r = fail(why, whylen, "writing the database failed");
		goto out;
	}
	if (!same(buf, len, db1, db1l)) {
		r = fail(why, whylen, "accepted database is not canonical: "
		         "rewritten bytes differ at %zu",
		         first_diff(buf, len, db1, db1l));
		goto out;
	}
	if (xp_text_write_mem(fb, &t, &tl) != XP_E_OK) {
		r = fail(why, whylen, "writing the text failed");
		goto out;
	}
	d2 = xp_diags_new(0);
	if (d2 == NULL) {
		r = fail(why, whylen, "out of memory");
		goto out;
	}
	err = xp_text_parse_mem(t, tl, "text", NULL, &fb2, d2);
	if (err != XP_E_OK) {
		const xp_diag *dg = xp_diags_count(d2) ? xp_diags_get(d2, 0) : NULL;

		r = fail(why, whylen, "text of a database rejected (%s) at "
		         "%u:%u: %s", xp_errname(err), dg ? dg->line : 0,
		         dg ? dg->col : 0, dg ? dg->msg : "no diagnostic");
		goto out;
	}
	if (xp_db_write_mem(fb2, &db2, &db2l) != XP_E_OK) {
		r = fail(why, whylen, "writing the database again failed");
		goto out;
	}
	if (!same(buf, len, db2, db2l))
		r = fail(why, whylen, "database -> text -> database differs at "
		         "byte %zu", first_diff(buf, len, db2, db2l));
out:
	xp_fb_free(fb2);
	xp_fb_free(fb);
	xp_diags_free(d2);
	xp_diags_free(d);
	free(t);
	free(db1);
	free(db2);
	return r;
}

unsigned char *xpo_fix_checksum(const void *buf, size_t len)
{
	unsigned char *copy;

	if (len < XP_DB_HEADER_SIZE)
		return NULL;
	copy = malloc(len);
	if (copy == NULL)
		return NULL;
	memcpy(copy, buf, len);
	/* The checksum covers the whole file with its own field zero. */
	xp_put_le32(copy + XP_DBH_CRC, 0);
	xp_put_le32(copy + XP_DBH_CRC, xp_crc32c(0, copy, len));
	return copy;
}

/* Opens a profile of a foreign format from memory. */
static xp_err open_prof(const void *buf, size_t len, xp_prof **p,
                        xp_diags **d)
{
	*p = NULL;
	*d = xp_diags_new(0);
	if (*d == NULL)
		return XP_E_NOMEM;
	return xp_prof_open_mem(buf, len, "input", NULL, p, *d);
}

xpo_result xpo_check_prof(const void *buf, size_t len, char *why,
                          size_t whylen)
{
	xp_format f = xp_format_detect(buf, len), tf;
	const char *fname = xp_format_name(f);
	xp_prof *p = NULL, *q = NULL;
	xp_diags *d = NULL;
	unsigned char *bin = NULL, *txt = NULL, *b2 = NULL, *t2 = NULL;
	size_t binlen, txtlen, b2len, t2len;
	xpo_result r = XPO_ACCEPTED;
	xp_err err;

	if (xp_format_module(f) == NULL)
		return XPO_REJECTED;
	err = open_prof(buf, len, &p, &d);
	if (err != XP_E_OK) {
		if (p != NULL)
			r = fail(why, whylen, "%s: failed with %s but returned "
			         "a profile", fname, xp_errname(err));
		else if (err != XP_E_NOMEM && xp_diags_count(d) == 0)
			r = fail(why, whylen, "%s: failed with %s without a "
			         "diagnostic", fname, xp_errname(err));
		else
			r = XPO_REJECTED;
		goto out;
	}
	/* A file without a magic number may be read by another module
	 * than the first that recognised it (see xp_prof_open_mem). */
	f = xp_prof_source_format(p);
	fname = xp_format_name(f);
	if (xp_prof_write_mem(p, 0, &bin, &binlen) != XP_E_OK ||
	    xp_prof_write_mem(p, 1, &txt, &txtlen) != XP_E_OK)
		goto out;   /* out of memory: nothing to judge */
	/* An LLVM profile's binary form is the .proftext as llvm-profdata
	 * writes it: other spellings of the same profile (comments, hex
	 * hashes, records out of order) come back in that form, which the
	 * checks below find stable. */
	if (!xp_format_is_text(f) && !same(buf, len, bin, binlen) &&
	    strcmp(xp_format_module(f), "llvm") != 0) {
		r = fail(why, whylen, "%s: binary -> binary differs at offset "
		         "%zu (%zu bytes in, %zu out)", fname,
		         first_diff(buf, len, bin, binlen), len, binlen);
		goto out;
	}
	tf = xp_format_detect(txt, txtlen);
	if (!xp_format_is_text(tf) || xp_format_binary(tf) != xp_prof_format(p)) {
		r = fail(why, whylen, "%s: its text form is recognised as %s",
		         fname, xp_format_a(tf));
		goto out;
	}
	xp_diags_free(d);
	err = open_prof(txt, txtlen, &q, &d);
	if (err != XP_E_OK) {
		const xp_diag *g = xp_diags_count(d) ? xp_diags_get(d, 0) : NULL;
		r = fail(why, whylen, "%s: its own text is refused: %d:%d: %s",
		         fname, g ? (int)g->line : 0, g ? (int)g->col : 0,
		         g ? g->msg : xp_errname(err));
		goto out;
	}
	if (xp_prof_write_mem(q, 0, &b2, &b2len) != XP_E_OK ||
	    xp_prof_write_mem(q, 1, &t2, &t2len) != XP_E_OK)
		goto out;
	if (!same(bin, binlen, b2, b2len)) {
		r = fail(why, whylen, "%s: binary -> text -> binary differs at "
		         "offset %zu", fname, first_diff(bin, binlen, b2, b2len));
		goto out;
	}
	if (!same(txt, txtlen, t2, t2len)) {
		r = fail(why, whylen, "%s: text -> text differs at offset %zu",
		         fname, first_diff(txt, txtlen, t2, t2len));
		goto out;
	}
out:
	xp_prof_free(p);
	xp_prof_free(q);
	xp_diags_free(d);
	free(bin);
	free(txt);
	free(b2);
	free(t2);
	return r;
}
