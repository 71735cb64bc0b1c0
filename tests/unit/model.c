/*
 * model.c - unit tests of the feedback model: the builder keeps records in
 * the order given, seals with a sorted string table in which every string
 * is used, renumbers references (VP_PROC values included), and builds the
 * sorted indexes; number formatting reads back exactly.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "unit.h"

/* Short for the many strings below. */
#define S unit_str

static void test_builder(void)
{
	xp_fbb *b = xp_fbb_new(XP_DT_FEEDBACK, 4, 7);
	CHECK(b != NULL);
	/* A string interned twice has one id; an unused one is dropped. */
	CHECK(S(b, "zeta.o") == S(b, "zeta.o"));
	S(b, "unused");

	xp_objfile of = {.path = S(b, "zeta.o"), .tv_sec = 1, .tv_usec = 2,
	                 .n_values_per_vp = 2, .signature = 0xabc,
	                 .n_srcfile_names = 1};
	CHECK(xp_fbb_begin_objfile(b, &of) == XP_E_OK);
	CHECK(xp_fbb_add_stat(b, XP_STAT_MAX, 9) == XP_E_OK);
	xp_proc pr = {.name = S(b, "main"), .signature = 5, .proc_id = 2,
	              .n_vp_sites = 1, .n_srcmap_ops = 3};
	CHECK(xp_fbb_begin_proc(b, &pr) == XP_E_OK);
	CHECK(xp_fbb_add_stat(b, XP_STAT_SUM, 10) == XP_E_OK);
	CHECK(xp_fbb_add_counter(b, 1, 9) == XP_E_OK);
	CHECK(xp_fbb_add_counter(b, 2, 1) == XP_E_OK);
	CHECK(xp_fbb_add_vp(b, 1, XP_VP_PROC) == XP_E_OK);
	xp_vpval v = {.count = 4, .has_value = 1};
	v.v.proc.name = S(b, "callee");
	v.v.proc.objfile = S(b, "alpha.o");
	CHECK(xp_fbb_add_vpval(b, &v) == XP_E_OK);
	xp_vpval empty = {.count = 0, .has_value = 0};
	CHECK(xp_fbb_add_vpval(b, &empty) == XP_E_OK);
	pr.name = S(b, "aaa");
	pr.proc_id = 1;
	CHECK(xp_fbb_begin_proc(b, &pr) == XP_E_OK);
	of.path = S(b, "alpha.o");
	CHECK(xp_fbb_begin_objfile(b, &of) == XP_E_OK);
	CHECK(xp_fbb_begin_program(b, S(b, "a.out")) == XP_E_OK);
	CHECK(xp_fbb_add_objref(b, S(b, "zeta.o")) == XP_E_OK);
	CHECK(xp_fbb_begin_objfile(b, &(xp_objfile){.path = S(b, "mid.o")}) ==
	      XP_E_OK);
	/* A record with nowhere to go is refused. */
	CHECK(xp_fbb_begin_srcline(b, 1, 0) == XP_E_INVAL);

	xp_fb *fb = NULL;
	CHECK(xp_fbb_finish(b, &fb) == XP_E_OK);
	xp_fbb_free(b);
	if (!fb)
		return;

	/* Strings: sorted, unique, all used. */
	const char *want[] = {"a.out", "aaa", "alpha.o", "callee", "main",
	                      "mid.o", "zeta.o"};
	CHECK(xp_fb_nstrings(fb) == 7);
	for (uint32_t i = 0; i < 7 && i < xp_fb_nstrings(fb); i++)
		CHECK(strcmp(xp_fb_str(fb, i), want[i]) == 0);
	CHECK(xp_fb_find_str(fb, "main", 4) == 4);
	CHECK(xp_fb_find_str(fb, "unused", 6) == XP_NOSTR);

	/* Runs: objfile x2, program, objfile. */
	CHECK(xp_fb_count(fb, XP_T_RUNS) == 3);
	xp_run r;
	xp_fb_run(fb, 0, &r);
	CHECK(r.kind == XP_SEC_OBJFILE && r.count == 2);
	xp_fb_run(fb, 1, &r);
	CHECK(r.kind == XP_SEC_PROGRAM && r.count == 1);

	/* Records keep text order, references renumbered. */
	xp_objfile o;
	xp_fb_objfile(fb, 0, &o);
	CHECK(strcmp(xp_fb_str(fb, o.path), "zeta.o") == 0);
	CHECK(o.n_procs == 2 && o.first_proc == 0 && o.n_stats == 1);
	xp_proc p;
	xp_fb_proc(fb, 0, &p);
	CHECK(strcmp(xp_fb_str(fb, p.name), "main") == 0);
	CHECK(p.n_counters == 2 && p.n_vps == 1 && p.n_stats == 1);
	CHECK(p.first_stat == 1);
	xp_vp vp;
	xp_fb_vp(fb, 0, &vp);
	xp_fb_vpval(fb, 0, vp.type, &v);
	CHECK(v.has_value && v.count == 4);
	CHECK(strcmp(xp_fb_str(fb, v.v.proc.name), "callee") == 0);
	CHECK(strcmp(xp_fb_str(fb, v.v.proc.objfile), "alpha.o") == 0);
	xp_fb_vpval(fb, 1, vp.type, &v);
	CHECK(!v.has_value && v.count == 0);

	/* Indexes: objfiles by path, procs by (objfile path, name). */
	CHECK(xp_fb_index(fb, XP_T_IDX_OBJFILES, 0) == 1); /* alpha.o */
	CHECK(xp_fb_index(fb, XP_T_IDX_OBJFILES, 1) == 2); /* mid.o */
	CHECK(xp_fb_index(fb, XP_T_IDX_OBJFILES, 2) == 0); /* zeta.o */
	CHECK(xp_fb_index(fb, XP_T_IDX_PROCS, 0) == 1);    /* zeta.o:aaa */
	CHECK(xp_fb_index(fb, XP_T_IDX_PROCS, 1) == 0);    /* zeta.o:main */
	CHECK(xp_fb_find_objfile(fb, "mid.o") == 2);
	CHECK(xp_fb_find_objfile(fb, "nope.o") == UINT32_MAX);
	xp_fb_free(fb);
}

/* a before b in byte order (unsigned bytes; a prefix first). */
static int byte_before(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int c = memcmp(a, b, la < lb ? la : lb);
	return c < 0 || (c == 0 && la < lb);
}

/*
 * Many strings that sorting by their first bytes cannot tell apart: long
 * common prefixes around multiples of eight bytes, strings that are
 * prefixes of others, bytes from 0x01 to 0xff.  The sealed string table
 * is in byte order, and the index of procedures follows their object
 * files' paths, then their names, then their order.
 */
static void test_string_order(void)
{
	xp_fbb *b = xp_fbb_new(XP_DT_FEEDBACK, 4, 0);
	CHECK(b != NULL);
	uint64_t seed = 7;
	char name[200];
	unsigned nproc = 0;
	for (unsigned o = 0; o < 40; o++) {
		snprintf(name, sizeof name, "/a/long/common/prefix/of/paths/%u.o",
		         (o * 7919) % 40);
		xp_objfile of = {.path = unit_str(b, name)};
		CHECK(xp_fbb_begin_objfile(b, &of) == XP_E_OK);
		for (unsigned p = 0; p < 60; p++) {
			/* A prefix of 0 to 79 bytes, then a tail. */
			size_t pre = (size_t)(unit_next(&seed) % 80), k;
			for (k = 0; k < pre; k++)
				name[k] = (char)('a' + k % 3);
			/* Bytes a name may hold, but digits, which end
			 * it (so that names stay unique). */
			unsigned tail = (unsigned)(unit_next(&seed) % 6);
			for (unsigned t = 0; t < tail;) {
				int c = (int)(1 + unit_next(&seed) % 255);
				if (c == '\t' || c == '\n' || c == '\r' ||
				    c == ' ' || (c >= '0' && c <= '9'))
					continue;
				name[k++] = (char)c;
				t++;
			}
			snprintf(name + k, sizeof name - k, "%s%u",
			         p % 5 ? "" : "\xfe", p);
			xp_proc pr = {.name = unit_str(b, name), .proc_id = p + 1};
			CHECK(xp_fbb_begin_proc(b, &pr) == XP_E_OK);
			nproc++;
		}
	}
	xp_fb *fb = NULL;
	CHECK(xp_fbb_finish(b, &fb) == XP_E_OK);
	xp_fbb_free(b);
	if (!fb)
		return;
	uint32_t n = xp_fb_nstrings(fb);
	CHECK(n > nproc / 2);
	int sorted = 1;
	for (uint32_t i = 1; i < n; i++)
		sorted &= byte_before(xp_fb_str(fb, i - 1), xp_fb_str(fb, i));
	CHECK(sorted);
	CHECK_EQ(xp_fb_count(fb, XP_T_IDX_PROCS), nproc);
	int indexed = 1;
	for (uint32_t i = 1; i < nproc; i++) {
		xp_proc a, c;
		xp_objfile oa, oc;
		xp_fb_proc(fb, xp_fb_index(fb, XP_T_IDX_PROCS, i - 1), &a);
		xp_fb_proc(fb, xp_fb_index(fb, XP_T_IDX_PROCS, i), &c);
		xp_fb_objfile(fb, a.objfile, &oa);
		xp_fb_objfile(fb, c.objfile, &oc);
		indexed &= oa.path < oc.path ||
		           (oa.path == oc.path && a.name < c.name);
	}
	CHECK(indexed);
	xp_fb_free(fb);
}

static void test_numbers(void)
{
	char buf[64];
	CHECK(xp_fmt_u64(buf, 0) == 1 && buf[0] == '0');
	buf[xp_fmt_u64(buf, UINT64_MAX)] = 0;
	CHECK(strcmp(buf, "18446744073709551615") == 0);
	/* Around the 32-bit fast path and the eight-digit split. */
	const uint64_t edge[] = {4294967295u, 4294967296u, 99999999, 100000000,
	                         10000000000000000000u, 1000000000000000001u};
	for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
		char want[32];
		snprintf(want, sizeof want, "%llu", (unsigned long long)edge[i]);
		buf[xp_fmt_u64(buf, edge[i])] = 0;
		CHECK(strcmp(buf, want) == 0);
	}
	buf[xp_fmt_i64(buf, INT64_MIN)] = 0;
	CHECK(strcmp(buf, "-9223372036854775808") == 0);
	buf[xp_fmt_hex64(buf, 0)] = 0;
	CHECK(strcmp(buf, "0") == 0);
	buf[xp_fmt_hex64(buf, 0xDEADbeef0ULL)] = 0;
	CHECK(strcmp(buf, "deadbeef0") == 0);

	/* Shortest text that reads back to the same bits. */
	buf[xp_fmt_double(buf, 0.1)] = 0;
	CHECK(strcmp(buf, "0.1") == 0);
	buf[xp_fmt_float(buf, 0.1f)] = 0;
	CHECK(strcmp(buf, "0.1") == 0);
	buf[xp_fmt_double(buf, -0.0)] = 0;
	CHECK(strcmp(buf, "-0") == 0);
	buf[xp_fmt_double(buf, -INFINITY)] = 0;
	CHECK(strcmp(buf, "-inf") == 0);
	buf[xp_fmt_double(buf, -NAN)] = 0;
	CHECK(strcmp(buf, "-nan") == 0);
	double vals[] = {1e300, 5e-324, 1.0 / 3, 123456789.125, -2.5e-7};
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
		double back = 0;
		size_t n = xp_fmt_double(buf, vals[i]);
		CHECK(xp_parse_double(buf, n, &back) == 0);
		CHECK(memcmp(&back, &vals[i], sizeof back) == 0);
	}
	float f = 0;
	CHECK(xp_parse_float("1e39", 4, &f) == 1);     /* overflows float */
	CHECK(xp_parse_float("0x1p3", 5, &f) == 0 && f == 8.0f);
	CHECK(xp_parse_float("INF", 3, &f) == 0 && isinf(f));
	CHECK(xp_parse_float("1.5x", 4, &f) == -1);
	double d = 0;
	CHECK(xp_parse_double("nan(0x5)", 8, &d) == 0 && isnan(d));
	uint64_t bits;
	memcpy(&bits, &d, 8);
	CHECK(bits == 0x7ff8000000000000ULL);         /* payload dropped */
}

/* A zero-length request on a new buffer must allocate rather than do
 * arithmetic on NULL (found by clang's UBSan on empty input). */
static void test_buf_empty(void)
{
	xp_buf b = {0};
	unsigned char *p = xp_buf_grow(&b, 0);
	CHECK(p != NULL && b.p != NULL && b.len == 0);
	CHECK(xp_buf_append(&b, "", 0) == XP_E_OK);
	xp_buf_free(&b);
}

/* The shortest text that reads back, found by trying every precision in
 * turn: the reference for the faster search of xp_fmt_double/float. */
static void shortest_ref(char *out, double v, int is_float)
{
	for (int p = 1; p <= 17; p++) {
		snprintf(out, 64, "%.*g", p, v);
		if (is_float ? strtof(out, NULL) == (float)v : strtod(out, NULL) == v)
			return;
	}
}

static void test_float_shortest(void)
{
	uint64_t x = 0x9e3779b97f4a7c15u;
	char got[64], want[64];
	int bad = 0;
	for (int i = 0; i < 200000; i++) {
		unit_next(&x);
		double v;
		memcpy(&v, &x, sizeof v);
		switch (i % 4) {
		case 1: v = (double)(int64_t)(x % 200000) / 8.0; break;
		case 2: v = (double)(x % 1000) / 10.0; break;
		case 3: v = ldexp((double)(x & 0xffffff), (int)(x >> 60) - 8); break;
		}
		if (isnan(v) || isinf(v))
			continue;
		got[xp_fmt_double(got, v)] = 0;
		shortest_ref(want, v, 0);
		bad += strcmp(got, want) != 0;
		float f = (float)v;
		if (isnan(f) || isinf(f))
			continue;
		got[xp_fmt_float(got, f)] = 0;
		shortest_ref(want, f, 1);
		bad += strcmp(got, want) != 0;
	}
	CHECK(bad == 0);
}

int main(void)
{
	RUN(test_buf_empty);
	RUN(test_builder);
	RUN(test_string_order);
	RUN(test_numbers);
	RUN(test_float_shortest);
	return unit_done();
}
