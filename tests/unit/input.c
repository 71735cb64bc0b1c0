/*
 * input.c - unit tests of the one open (xp_input_open, lib/registry/
 * open.c): the format each kind of path is recognised as, and what each
 * reader says of an input of another format.
 *
 * Environment: SRCDIR (the source tree), TMPDIR (scratch).
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "xprof.h"

static char path[4096];

static const char *src(const char *rel)
{
	const char *s = getenv("SRCDIR");

	snprintf(path, sizeof path, "%s/%s", s != NULL ? s : ".", rel);
	return path;
}

/* The format path is recognised as, XP_FMT_UNKNOWN when refused. */
static xp_format fmt_of(const char *p, xp_err *err)
{
	xp_diags *d = xp_diags_new(0);
	xp_input *in = NULL;
	xp_format f = XP_FMT_UNKNOWN;

	*err = xp_input_open(p, &in, d);
	if (*err == XP_E_OK) {
		f = xp_input_format(in);
		CHECK_STR(xp_input_path(in), p);
	} else {
		CHECK(in == NULL && xp_diags_count(d) == 1);
	}
	xp_input_free(in);
	xp_diags_free(d);
	return f;
}

static void test_formats(void)
{
	const char *tmp = getenv("TMPDIR");
	char junk[4096];
	xp_err err;
	FILE *f;

	CHECK(fmt_of("-", &err) == XP_FMT_FEEDBACK_TEXT && err == XP_E_OK);
	CHECK(fmt_of(src("tests/merge/data"), &err) == XP_FMT_FEEDBACK_DB);
	CHECK(fmt_of(src("tests/merge/data/a.text"), &err) ==
	      XP_FMT_FEEDBACK_TEXT);
	CHECK(fmt_of(src("tests/gmon/bsd44-le32.gmon"), &err) == XP_FMT_GMON);
	CHECK(fmt_of(src("tests/dcpi/small.text"), &err) == XP_FMT_DCPI_TEXT);
	CHECK(fmt_of(src("tests/no/such/file"), &err) == XP_FMT_UNKNOWN &&
	      err == XP_E_NOTFOUND);
	snprintf(junk, sizeof junk, "%s/junk", tmp != NULL ? tmp : "/tmp");
	if ((f = fopen(junk, "w")) != NULL) {
		fputs("nothing known here\n", f);
		fclose(f);
	}
	CHECK(fmt_of(junk, &err) == XP_FMT_UNKNOWN && err == XP_E_FORMAT);
	unlink(junk);
}

/* Each reader refuses an input of another format, with one message. */
static void test_readers(void)
{
	xp_diags *d = xp_diags_new(0);
	xp_input *in = NULL;
	xp_prof *p = NULL;
	xp_fb *fb = NULL;

	CHECK(xp_input_open(src("tests/gmon/bsd44-le32.gmon"), &in, d) ==
	      XP_E_OK);
	if (in != NULL) {
		CHECK(xp_input_feedback(in, &fb, d) == XP_E_FORMAT && !fb);
		CHECK(xp_diags_count(d) == 1 &&
		      strstr(xp_diags_get(d, 0)->msg, "a gmon.out, not a "
		             "feedback profile") != NULL);
		CHECK(xp_prof_open_input(in, NULL, &p, d) == XP_E_OK && p);
		CHECK(xp_prof_format(p) == XP_FMT_GMON);
		xp_prof_free(p);
		xp_input_free(in);
	}
	in = NULL;
	CHECK(xp_input_open(src("tests/merge/data"), &in, d) == XP_E_OK);
	if (in != NULL) {
		CHECK(xp_prof_open_input(in, NULL, &p, d) == XP_E_FORMAT && !p);
		CHECK(xp_diags_count(d) == 2 &&
		      strstr(xp_diags_get(d, 1)->msg, "a profile directory")
		      != NULL);
		xp_input_free(in);
	}
	xp_input_free(NULL);
	xp_diags_free(d);
}

int main(void)
{
	RUN(test_formats);
	RUN(test_readers);
	return unit_done();
}
