/*
 * mpatrol.c - unit tests of the mpatrol module that the tools cannot
 * reach: the report with mprof's --counts (xprof_show has no option for
 * it, so the report's own function is compiled in here) compared with
 * what mprof printed for the real files, the model's accessors, weighted
 * merges, the conversion to feedback, and the robustness of both
 * readers on every prefix and on changed bytes of real files (whatever
 * they accept must be lossless).
 *
 * Environment: SRCDIR (the source tree; the real files are in
 * $SRCDIR/../shared/realdata/mpatrol).
 */
#include <stdio.h>
#include <stdlib.h>

#include "unit.h"
#include "xprof.h"
#include "xprof_mpatrol.h"

/* The report itself: xp_mp_report() and its options. */
#include "../../show/mpatrol.c"

static char realdir[4096];
static FILE *devnull;

static xp_prof *open_real(const char *file)
{
	char path[4200];
	xp_diags *d = xp_diags_new(0);
	xp_prof *p = NULL;

	snprintf(path, sizeof path, "%s/%s", realdir, file);
	if (xp_prof_open(path, NULL, &p, d) != XP_E_OK)
		p = NULL;
	xp_diags_free(d);
	return p;
}

/* The report of file with mprof --counts equals mprof's. */
static void check_counts(const char *file, const char *expected)
{
	xp_prof *p = open_real(file);
	xp_mp_report_opts o;
	char path[4200], *got = NULL, *want;
	size_t glen = 0, wlen;
	FILE *f;

	CHECK(p != NULL);
	if (p == NULL)
		return;
	memset(&o, 0, sizeof o);
	o.counts = 1;
	o.maxstack = 1;
	f = open_memstream(&got, &glen);
	CHECK(f != NULL);
	if (f == NULL) {
		xp_prof_free(p);
		return;
	}
	CHECK_EQ(xp_mp_report(f, xp_prof_model(p), &o, NULL, 0), 0);
	fclose(f);
	snprintf(path, sizeof path, "%s/%s", realdir, expected);
	want = unit_slurp(path, &wlen);
	CHECK(want != NULL);
	if (want != NULL)
		CHECK_MEM(got, glen, want, wlen);
	free(want);
	free(got);
	xp_prof_free(p);
}

static void counts_test(void)
{
	check_counts("test.out", "test.mprof-c.expected.txt");
}

static void counts_cc1(void)
{
	check_counts("cc1.out", "cc1.mprof-c.expected.txt");
}

static void counts_mptest1(void)
{
	check_counts("mptest1.mpatrol.out", "mptest1.mprof-c.expected.txt");
}

static void accessors(void)
{
	xp_prof *p = open_real("test.out");
	const xp_mpatrol *m;
	const xp_mpatrol_site *s;

	CHECK(p != NULL);
	if (p == NULL)
		return;
	m = xp_prof_model(p);
	CHECK_STR(xp_mpatrol_layout_name(m), "be32");
	CHECK_EQ(m->version, 10300);
	CHECK_EQ(m->nbins, 1024);
	CHECK_EQ(m->nsites, 4);
	s = xp_mpatrol_site_at(m, 3);
	CHECK(s != NULL);
	if (s != NULL) {
		CHECK_STR(xp_mpatrol_site_name(m, s), "new_pair");
		CHECK_EQ(s->addr - xp_mpatrol_site_symaddr(m, s), 20);
		CHECK(xp_mpatrol_site_data(m, s) != NULL);
		CHECK_EQ(xp_mpatrol_site_data(m, s)->atotal[0], 2048);
		CHECK_STR(xp_mpatrol_site_name(m, xp_mpatrol_site_at(m,
		          s->parent)), "main");
	}
	CHECK(xp_mpatrol_site_at(m, 0) == NULL);
	CHECK(xp_mpatrol_site_at(m, 5) == NULL);
	xp_prof_free(p);
}

/* A weight scales every count, rounded to the nearest. */
static void weighted_merge(void)
{
	xp_prof *p = open_real("test.out"), *acc = NULL;
	xp_diags *d = xp_diags_new(0);
	const xp_mpatrol *m;

	CHECK(p != NULL);
	if (p == NULL)
		return;
	CHECK_EQ(xp_prof_merge(&acc, p, 1.5, NULL, "test.out", d), XP_E_OK);
	CHECK_EQ(xp_prof_merge(&acc, p, 1.0, NULL, "test.out", d), XP_E_OK);
	m = acc != NULL ? xp_prof_model(acc) : NULL;
	CHECK(m != NULL);
	if (m != NULL) {
		CHECK_EQ(m->nsites, 4);
		CHECK_EQ(m->acounts[2], 158 + 105); /* 157.5 rounds up */
		CHECK_EQ(m->data[1].atotal[0], 1383 + 922);
	}
	/* A refused merge leaves the sum as it was. */
	CHECK_EQ(xp_prof_merge(&acc, p, 0, NULL, "test.out", d), XP_E_INVAL);
	CHECK_EQ(((const xp_mpatrol *)xp_prof_model(acc))->data[1].atotal[0],
	         2305);
	xp_prof_free(acc);
	xp_prof_free(p);
	xp_diags_free(d);
}

static void feedback(void)
{
	xp_prof *p = open_real("test.out");
	xp_diags *d = xp_diags_new(0);
	xp_fb *fb = NULL;
	xp_proc pr;
	xp_counter cn;

	CHECK(p != NULL);
	if (p == NULL)
		return;
	CHECK_EQ(xp_prof_to_feedback(p, NULL, &fb, d), XP_E_OK);
	CHECK(fb != NULL);
	if (fb != NULL) {
		CHECK_EQ(xp_fb_count(fb, XP_T_OBJFILES), 1);
		CHECK_EQ(xp_fb_count(fb, XP_T_PROCS), 1);
		xp_fb_proc(fb, 0, &pr);
		CHECK_STR(xp_fb_str(fb, pr.name), "new_pair");
		CHECK_EQ(pr.n_counters, 4);
		xp_fb_counter(fb, pr.first_counter + 0, &cn);
		CHECK_EQ(cn.value, 512);
		xp_fb_counter(fb, pr.first_counter + 1, &cn);
		CHECK_EQ(cn.value, 2970);
		xp_fb_counter(fb, pr.first_counter + 2, &cn);
		CHECK_EQ(cn.value, 256);
		xp_fb_counter(fb, pr.first_counter + 3, &cn);
		CHECK_EQ(cn.value, 2048);
	}
	xp_fb_free(fb);
	xp_prof_free(p);
	xp_diags_free(d);
}

/* Opens buf; every file accepted must write back to the same bytes (for
 * the binary form) and its text must read back to the same model. */
static int open_and_check(const unsigned char *buf, size_t len, int binary)
{
	xp_diags *d = xp_diags_new(0);
	xp_prof *p = NULL, *q = NULL;
	unsigned char *out = NULL, *txt = NULL, *out2 = NULL;
	size_t olen = 0, tlen = 0, o2len = 0;
	int ok = 1;

	if (xp_prof_open_mem(buf, len, "mem", NULL, &p, d) == XP_E_OK) {
		ok = xp_prof_write_mem(p, 0, &out, &olen) == XP_E_OK &&
		     xp_prof_write_mem(p, 1, &txt, &tlen) == XP_E_OK &&
		     xp_prof_open_mem(txt, tlen, "txt", NULL, &q, d) == XP_E_OK &&
		     xp_prof_write_mem(q, 0, &out2, &o2len) == XP_E_OK &&
		     olen == o2len && memcmp(out, out2, olen) == 0 &&
		     (!binary || (olen == len && memcmp(out, buf, len) == 0));
		/* The report too must cope with whatever was accepted. */
		if (devnull != NULL) {
			xp_mp_report_opts o;
			memset(&o, 0, sizeof o);
			o.call_graph = 1;
			o.addresses = (int)(len & 1);
			o.maxstack = len % 3;
			o.counts = (int)(len >> 1 & 1);
			if (xp_mp_report(devnull, xp_prof_model(p), &o, NULL, 0) != 0)
				ok = 0;
		}
	}
	free(out);
	free(txt);
	free(out2);
	xp_prof_free(p);
	xp_prof_free(q);
	xp_diags_free(d);
	return ok;
}

/* Every prefix, and deterministic byte changes, of a real file and of
 * its text: no crash (the sanitizer build checks memory), and whatever
 * is accepted is lossless. */
static void robustness(void)
{
	static const char *const files[] = { "test.out", "mptest1.mpatrol.out" };

	for (size_t fi = 0; fi < 2; fi++) {
		char path[4200];
		size_t len, bad = 0;
		unsigned char *buf;
		uint32_t seed = 12345;

		snprintf(path, sizeof path, "%s/%s", realdir, files[fi]);
		buf = (unsigned char *)unit_slurp(path, &len);
		CHECK(buf != NULL);
		if (buf == NULL)
			continue;
		CHECK(open_and_check(buf, len, 1));
		for (size_t n = 0; n < len; n += (n < 64 || len - n < 64) ? 1 : 7)
			bad += !open_and_check(buf, n, 1);
		for (int i = 0; i < 3000; i++) {
			unsigned char *m = malloc(len);
			size_t at;

			if (m == NULL)
				break;
			memcpy(m, buf, len);
			seed = seed * 1103515245u + 12345u;
			at = (seed >> 8) % len;
			seed = seed * 1103515245u + 12345u;
			m[at] = (unsigned char)(seed >> 16);
			bad += !open_and_check(m, len, 1);
			free(m);
		}
		CHECK_EQ(bad, 0);
		free(buf);
	}
}

/* The same for the text form: prefixes and changed bytes. */
static void text_robustness(void)
{
	xp_prof *p = open_real("test.out");
	unsigned char *txt = NULL;
	size_t tlen = 0, bad = 0;
	uint32_t seed = 777;

	CHECK(p != NULL);
	if (p == NULL || xp_prof_write_mem(p, 1, &txt, &tlen) != XP_E_OK) {
		xp_prof_free(p);
		return;
	}
	for (size_t n = 0; n < tlen; n++)
		bad += !open_and_check(txt, n, 0);
	for (int i = 0; i < 3000; i++) {
		unsigned char *m = malloc(tlen);
		size_t at;

		if (m == NULL)
			break;
		memcpy(m, txt, tlen);
		seed = seed * 1103515245u + 12345u;
		at = (seed >> 8) % tlen;
		seed = seed * 1103515245u + 12345u;
		m[at] = (unsigned char)"0123456789 x\"\\#-\n"[(seed >> 16) % 17];
		bad += !open_and_check(m, tlen, 0);
		free(m);
	}
	CHECK_EQ(bad, 0);
	free(txt);
	xp_prof_free(p);
}

int main(void)
{
	const char *src = getenv("SRCDIR");

	snprintf(realdir, sizeof realdir, "%s/../shared/realdata/mpatrol",
	         src != NULL ? src : ".");
	devnull = fopen("/dev/null", "w");
	RUN(counts_test);
	RUN(counts_cc1);
	RUN(counts_mptest1);
	RUN(accessors);
	RUN(weighted_merge);
	RUN(feedback);
	RUN(robustness);
	RUN(text_robustness);
	if (devnull != NULL)
		fclose(devnull);
	return unit_done();
}
