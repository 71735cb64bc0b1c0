/*
 * fb_names.c - unit tests of the names the feedback builder accepts: it
 * refuses, with XP_E_INVAL and a message naming the string, what the
 * text or the database could not hold (an empty string, a blank, CR, LF
 * or NUL, ':' in the procedure of a <proc_name>:<objfile> pair, a key
 * given twice), so that it never seals a profile its own readers refuse;
 * and the conversions' names (xp_fbb_intern_proc) are legal, distinct and
 * read back from the database and the text unchanged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "unit.h"

#define S unit_str

/* Whether the last diagnostic of d is XP_E_INVAL and holds want. */
static int said(const xp_diags *d, const char *want)
{
	size_t n = xp_diags_count(d);
	const xp_diag *g = n > 0 ? xp_diags_get(d, n - 1) : NULL;

	return g != NULL && g->code == XP_E_INVAL && strstr(g->msg, want);
}

/* A builder with an object file and a procedure open. */
static xp_fbb *open_proc(xp_diags *d)
{
	xp_fbb *b = xp_fbb_new(XP_DT_FEEDBACK, 4, 1);
	CHECK(b != NULL);
	xp_fbb_set_diags(b, d);
	xp_objfile of = {.path = S(b, "/x.o"), .n_values_per_vp = 1};
	CHECK(xp_fbb_begin_objfile(b, &of) == XP_E_OK);
	xp_proc p = {.name = S(b, "f"), .proc_id = 1, .n_vp_sites = 1};
	CHECK(xp_fbb_begin_proc(b, &p) == XP_E_OK);
	return b;
}

static void test_strings(void)
{
	static const struct {
		const char *s;
		size_t len;
		const char *msg;
	} bad[] = {
		{"", 0, "an empty string"},
		{"area() const", 12, "\"area() const\" holds byte 0x20"},
		{"a\tb", 3, "\"a\\x09b\" holds byte 0x09"},
		{"a\rb", 3, "holds byte 0x0d"},
		{"a\nb", 3, "\"a\\x0ab\" holds byte 0x0a"},
		{"a\0b", 3, "holds byte 0x00"},
	};
	xp_diags *d = xp_diags_new(100);
	xp_fbb *b = xp_fbb_new(XP_DT_FEEDBACK, 4, 0);
	xp_str id;

	xp_fbb_set_diags(b, d);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		id = 77;
		CHECK_EQ(xp_fbb_intern(b, bad[i].s, bad[i].len, &id),
		         XP_E_INVAL);
		CHECK_EQ(id, 77);
		CHECK(said(d, bad[i].msg));
	}
	CHECK_EQ(xp_diags_count(d), sizeof bad / sizeof bad[0]);
	/* Every other byte is a name's: ':' too, outside pairs. */
	CHECK(xp_fbb_intern(b, "ns::f\x01\x7f\xc3\xa9#%", 11, &id) == XP_E_OK);
	xp_fbb_free(b);
	xp_diags_free(d);
}

static void test_pairs(void)
{
	xp_diags *d = xp_diags_new(100);
	xp_fbb *b = open_proc(d);
	xp_vpval v = {.count = 1, .has_value = 1};

	/* A procedure may be named "ns::f" ... */
	xp_proc p = {.name = S(b, "ns::f"), .proc_id = 2, .n_vp_sites = 1};
	CHECK(xp_fbb_begin_proc(b, &p) == XP_E_OK);
	/* ... but not in a <proc_name>:<objfile> pair. */
	CHECK(xp_fbb_add_vp(b, 1, XP_VP_PROC) == XP_E_OK);
	v.v.proc.name = S(b, "ns::f");
	v.v.proc.objfile = S(b, "/x.o");
	CHECK_EQ(xp_fbb_add_vpval(b, &v), XP_E_INVAL);
	CHECK(said(d, "VP_PROC value names procedure \"ns::f\", which holds "
	              "':'"));
	CHECK_EQ(xp_fbb_count(b, XP_T_VPVALS), 0);
	v.v.proc.name = S(b, "f");
	CHECK(xp_fbb_add_vpval(b, &v) == XP_E_OK);
	CHECK(xp_fbb_begin_program(b, S(b, "a.out")) == XP_E_OK);
	CHECK_EQ(xp_fbb_add_comdat(b, S(b, "a::b"), S(b, "/x.o")), XP_E_INVAL);
	CHECK(said(d, "COMDAT_PROC names procedure \"a::b\""));
	CHECK(xp_fbb_begin_srcfile(b, S(b, "/x.c")) == XP_E_OK);
	CHECK(xp_fbb_begin_srcline(b, 1, 0) == XP_E_OK);
	xp_blockref r = {.block = 1, .count = 1, .proc = S(b, "ns::f"),
	                 .objfile = S(b, "/x.o")};
	CHECK_EQ(xp_fbb_add_blockref(b, &r), XP_E_INVAL);
	CHECK(said(d, "block reference names procedure \"ns::f\""));
	CHECK_EQ(xp_fbb_count(b, XP_T_BLOCKREFS), 0);
	xp_fbb_free(b);
	xp_diags_free(d);
}

/* Keys given twice are refused when the profile is sealed. */
static void test_keys(void)
{
	xp_diags *d = xp_diags_new(100);
	xp_fbb *b = open_proc(d);
	xp_fb *fb = NULL;

	xp_proc p = {.name = S(b, "f"), .proc_id = 2};
	CHECK(xp_fbb_begin_proc(b, &p) == XP_E_OK);
	CHECK_EQ(xp_fbb_finish(b, &fb), XP_E_INVAL);
	CHECK(fb == NULL);
	CHECK(said(d, "two procedures named \"f\" in one object file"));
	xp_fbb_free(b);

	/* One name in two object files is no repeat. */
	b = open_proc(d);
	xp_objfile of = {.path = S(b, "/y.o")};
	CHECK(xp_fbb_begin_objfile(b, &of) == XP_E_OK);
	CHECK(xp_fbb_begin_proc(b, &p) == XP_E_OK);
	CHECK(xp_fbb_finish(b, &fb) == XP_E_OK);
	xp_fb_free(fb);
	xp_fbb_free(b);

	b = open_proc(d);
	of.path = S(b, "/x.o");
	CHECK(xp_fbb_begin_objfile(b, &of) == XP_E_OK);
	CHECK_EQ(xp_fbb_finish(b, &fb), XP_E_INVAL);
	CHECK(said(d, "two object files \"/x.o\""));
	xp_fbb_free(b);
	xp_diags_free(d);
}

/* The conversions' names: escaped, distinct, and read back unchanged
 * from the database and the text. */
static void test_proc_names(void)
{
	static const char *const names[] = {
		"_ZNK6shapes4GridIdE4areaEv", "shapes::Grid::area() const",
		"a:b", "a%3Ab", "a%b", "tab\there", "cr\r", "lf\n", "f@0x10",
	};
	static const char *const want[] = {
		"_ZNK6shapes4GridIdE4areaEv",
		"shapes%3A%3AGrid%3A%3Aarea()%20const",
		"a%3Ab", "a%253Ab", "a%25b", "tab%09here", "cr%0D", "lf%0A",
		"f@0x10",
	};
	enum { N = sizeof names / sizeof names[0] };
	xp_diags *d = xp_diags_new(100);
	xp_fbb *b = xp_fbb_new(XP_DT_FEEDBACK, 4, N);
	xp_str id[N], obj = S(b, "/x.o");
	xp_objfile of = {.path = obj, .n_values_per_vp = 1};
	xp_fb *fb = NULL, *back = NULL, *again = NULL;
	unsigned char *db = NULL;
	char *text = NULL;
	size_t dblen = 0, textlen = 0;

	xp_fbb_set_diags(b, d);
	CHECK(xp_fbb_begin_objfile(b, &of) == XP_E_OK);
	for (size_t i = 0; i < N; i++) {
		CHECK(xp_fbb_intern_proc(b, names[i], &id[i]) == XP_E_OK);
		CHECK_STR(xp_fbb_str(b, id[i]), want[i]);
		xp_proc p = {.name = id[i], .proc_id = (uint32_t)i + 1,
		             .n_vp_sites = 1};
		CHECK(xp_fbb_begin_proc(b, &p) == XP_E_OK);
		CHECK(xp_fbb_add_vp(b, 1, XP_VP_PROC) == XP_E_OK);
		xp_vpval v = {.count = i, .has_value = 1};
		v.v.proc.name = id[(i + 1) % N];
		v.v.proc.objfile = obj;
		CHECK(xp_fbb_add_vpval(b, &v) == XP_E_OK);
	}
	CHECK(xp_fbb_begin_srcfile(b, S(b, "/x.c")) == XP_E_OK);
	CHECK(xp_fbb_begin_srcline(b, 1, 0) == XP_E_OK);
	for (size_t i = 0; i < N; i++) {
		xp_blockref r = {.block = 1, .count = 1, .proc = id[i],
		                 .objfile = obj};
		CHECK(xp_fbb_add_blockref(b, &r) == XP_E_OK);
	}
	CHECK(xp_fbb_finish(b, &fb) == XP_E_OK);
	CHECK_EQ(xp_diags_count(d), 0);
	if (fb != NULL) {
		CHECK(xp_db_write_mem(fb, &db, &dblen) == XP_E_OK);
		CHECK(xp_db_open_mem(db, dblen, "db", &back, d) == XP_E_OK);
		CHECK(xp_text_write_mem(fb, &text, &textlen) == XP_E_OK);
		CHECK(xp_text_parse_mem(text, textlen, "text", NULL, &again,
		                        d) == XP_E_OK);
		CHECK_EQ(xp_diags_count(d), 0);
	}
	for (size_t i = 0; back != NULL && again != NULL && i < N; i++) {
		CHECK(xp_fb_find_str(back, want[i], strlen(want[i])) !=
		      XP_NOSTR);
		CHECK(xp_fb_find_str(again, want[i], strlen(want[i])) !=
		      XP_NOSTR);
	}
	xp_fb_free(again);
	xp_fb_free(back);
	xp_fb_free(fb);
	free(db);
	free(text);
	xp_fbb_free(b);
	xp_diags_free(d);
}

/* Linker names that several functions share, told apart by address. */
static void test_apart(void)
{
	const char *nm[] = {"helper", "main", "helper", "helper"};
	uint64_t ad[] = {0x30, 0x10, 0x20, 0x40};
	char *out[4];

	CHECK(xp_fb_names_apart(nm, ad, 4, out) == XP_E_OK);
	CHECK_STR(out[0], "helper@0x30");
	CHECK(out[1] == NULL);
	CHECK(out[2] == NULL);
	CHECK_STR(out[3], "helper@0x40");
	for (int i = 0; i < 4; i++)
		free(out[i]);
}

int main(void)
{
	RUN(test_strings);
	RUN(test_pairs);
	RUN(test_keys);
	RUN(test_proc_names);
	RUN(test_apart);
	return unit_done();
}
