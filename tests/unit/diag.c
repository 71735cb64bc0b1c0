/*
 * diag.c - unit tests of how a diagnostic is formatted (xp_diag_format,
 * lib/base/diag.c): a short source line in full with the caret under the
 * column; a line longer than XP_DIAG_WINDOW as a window around the column,
 * "..." where it was cut, the caret still under the column's byte.
 */
#include <stdlib.h>

#include "unit.h"
#include "xprof.h"

static char *fmt(const char *text, uint32_t col)
{
	xp_diag dg = { 0 };

	dg.code = XP_E_SYNTAX;
	dg.severity = XP_SEV_ERROR;
	dg.file = "f.text";
	dg.line = 3;
	dg.col = col;
	dg.msg = "bad";
	dg.text = text;
	return xp_diag_format(&dg, "prog");
}

/* n copies of c, then the rest. */
static char *line_of(size_t n, char c, const char *rest)
{
	char *s = malloc(n + strlen(rest) + 1);

	if (s == NULL)
		return NULL;
	memset(s, c, n);
	strcpy(s + n, rest);
	return s;
}

static void test_short(void)
{
	char *s = fmt("1\t22 x", 6);

	CHECK_STR(s, "prog: f.text:3:6: bad\n1\t22 x\n \t   ^\n");
	free(s);
}

static void test_window(void)
{
	char *text = line_of(100000, 'a', "Zbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	                     "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	                     "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	char *s, *want;
	size_t half = XP_DIAG_WINDOW / 2;

	if (text == NULL)
		return;
	/* The Z at column 100001: half a window before it, half after. */
	s = fmt(text, 100001);
	CHECK(s != NULL);
	if (s != NULL) {
		const char *l2 = strchr(s, '\n') + 1;
		const char *l3 = strchr(l2, '\n') + 1;

		CHECK_EQ(strchr(l2, '\n') - l2, XP_DIAG_WINDOW + 6);
		CHECK(strncmp(l2, "...", 3) == 0);
		CHECK(l2[3 + half] == 'Z');
		CHECK_EQ(strchr(l3, '^') - l3, 3 + half);
		CHECK(strncmp(l2 + 3 + XP_DIAG_WINDOW, "...\n", 4) == 0);
	}
	free(s);

	/* At the start: cut at the end only. */
	s = fmt(text, 1);
	want = line_of(XP_DIAG_WINDOW, 'a', "...\n^\n");
	if (s != NULL && want != NULL)
		CHECK_STR(strchr(s, '\n') + 1, want);
	free(s);
	free(want);

	/* Past the end (an error at the line's end): the last window. */
	s = fmt(text, (uint32_t)strlen(text) + 1);
	CHECK(s != NULL);
	if (s != NULL) {
		const char *l2 = strchr(s, '\n') + 1;
		const char *l3 = strchr(l2, '\n') + 1;

		CHECK(strncmp(strchr(l2, '\n') - 4, "bbbb\n", 5) == 0);
		CHECK_EQ(strchr(l3, '^') - l3, 3 + XP_DIAG_WINDOW);
	}
	free(s);
	free(text);
}

int main(void)
{
	RUN(test_short);
	RUN(test_window);
	return unit_done();
}
