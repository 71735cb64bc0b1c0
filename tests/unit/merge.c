/*
 * merge.c - randomized property tests of the merger (fixed seed): random
 * small profiles of one "program" are merged and the results compared as
 * canonical texts.  Checked: order independence, associativity with
 * integer weights, identity (one input, twice merged, is unchanged),
 * weight k equals k copies, saturation at 2^64-1 with one warning, max
 * and min modes against counts computed here, that a mismatch in
 * error mode fails the merger and an input of another data type does
 * not, and that inputs listing the same content in other
 * orders (the merger's fast path by position against its lookups) give
 * the same result.  Every merge is also run shared out over two to four
 * mergers that one absorbs in the end (xprof_merge -j), which must give
 * the same text, value profiles with more values than they keep
 * included.  Runs with versions of a procedure and block refs into it
 * from runs without it give one result in every order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/internal.h"
#include "unit.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t rnd(void)
{
	return unit_next(&rng);
}

/* Short for the many strings below. */
#define S unit_str

#define NOBJ 3
#define NPROC 4
#define NCNT 3

/*
 * A random run of one program: object files o0..o2, each with procs
 * p0..p3 (ids 1..4, structure fixed), counters with random values
 * (maxval bounds them), value profiles with values from a small set so
 * that no record has more distinct values than it keeps, a program and
 * a source file with block refs.  Object files are left out at random,
 * and some procs have no counters (loaded but not run).  The first proc
 * of o1 (p2) and of o2 (p3) have tuples whose source file is unknown: p2
 * has one, p3 one before one in s.c.  With versions, o0 comes from one of
 * two compilations, and its p1, whose signature follows the compilation,
 * differs between them (the newer version stays).  The block ref into p1
 * of o0 is in every run, also in those that leave o0 out: a ref into a
 * procedure that the run does not hold, which belongs to no version.
 */
static xp_fb *random_profile(uint64_t maxval, int versions)
{
	xp_fbb *b = xp_fbb_new(XP_DT_FEEDBACK, 4, 5);
	char name[32];
	int have_o1 = 0;
	for (int o = 0; o < NOBJ; o++) {
		if (rnd() % 4 == 0)
			continue;
		have_o1 |= o == 1;
		snprintf(name, sizeof name, "o%d.o", o);
		int newer = versions && o == 0 && rnd() % 2;
		xp_objfile of = {.path = S(b, name), .tv_sec = 10 + newer,
		                 .tv_usec = 0, .n_values_per_vp = 4,
		                 .signature = 0x100 + o, .n_srcfile_names = 1};
		CHECK(xp_fbb_begin_objfile(b, &of) == XP_E_OK);
		CHECK(xp_fbb_add_stat(b, XP_STAT_MAX, 0) == XP_E_OK);
		CHECK(xp_fbb_add_stat(b, XP_STAT_SUM, 0) == XP_E_OK);
		for (int kp = 0; kp < NPROC; kp++) {
			/* o1 lists p2 first, o2 p3. */
			int lead = o == 1 ? 2 : o == 2 ? 3 : 0;
			int p = kp == 0 ? lead : kp <= lead ? kp - 1 : kp;
			int nofile = o > 0 && kp == 0;
			/* Some procs were loaded but not run: no counters. */
			int run = rnd() % 4 != 0;
			snprintf(name, sizeof name, "p%d", p);
			xp_proc pr = {.name = S(b, name), .signature = 7 + p,
			              .proc_id = p + 1, .n_vp_sites = 1,
			              .n_srcmap_ops = o == 2 && nofile ? 2 : 1};
			if (newer && p == 1)
				pr.signature = 0x70;
			CHECK(xp_fbb_begin_proc(b, &pr) == XP_E_OK);
			for (int c = 0; run && c < NCNT; c++)
				CHECK(xp_fbb_add_counter(b, c + 1,
				                         maxval ? rnd() % maxval : 0) ==
				      XP_E_OK);
			CHECK(xp_fbb_add_vp(b, 1, XP_VP_INT) == XP_E_OK);
			int used[2] = {0, 0};
			for (int v = 0; v < 4; v++) {
				xp_vpval vv = {0};
				int k = (int)(rnd() % 3);
				if (run && k < 2 && !used[k]) {
					used[k] = 1;
					vv.has_value = 1;
					vv.v.i = k == 0 ? -5 : 9;
					vv.count = rnd() % 100;
				}
				CHECK(xp_fbb_add_vpval(b, &vv) == XP_E_OK);
			}
			CHECK(xp_fbb_add_block(b, 1, run ? 1 : 0) == XP_E_OK);
			xp_tuple t = {.id = 1, .block = 1, .line = 10 + p,
			              .srcfile = nofile ? XP_NOSTR : S(b, "s.c")};
			CHECK(xp_fbb_add_tuple(b, &t) == XP_E_OK);
			if (pr.n_srcmap_ops == 2) {
				t = (xp_tuple){.id = 2, .block = 1, .line = 30,
				               .srcfile = S(b, "s.c")};
				CHECK(xp_fbb_add_tuple(b, &t) == XP_E_OK);
			}
		}
	}
	CHECK(xp_fbb_begin_program(b, S(b, "prog")) == XP_E_OK);
	CHECK(xp_fbb_add_stat(b, XP_STAT_SUM, 0) == XP_E_OK);
	if (have_o1)
		CHECK(xp_fbb_add_objref(b, S(b, "o1.o")) == XP_E_OK);
	CHECK(xp_fbb_begin_srcfile(b, S(b, "s.c")) == XP_E_OK);
	CHECK(xp_fbb_begin_srcline(b, 11, 0) == XP_E_OK);
	xp_blockref r = {.block = 1, .count = maxval ? rnd() % maxval : 0,
	                 .proc = S(b, "p1"), .objfile = S(b, "o0.o")};
	CHECK(xp_fbb_add_blockref(b, &r) == XP_E_OK);
	xp_fb *fb = NULL;
	CHECK(xp_fbb_finish(b, &fb) == XP_E_OK);
	xp_fbb_free(b);
	return fb;
}

/*
 * The merger writes its result's tables itself; they must be exactly what
 * the builder makes of the same content, that is of its text parsed back,
 * down to every byte of the database.
 */
static void check_encoding(const xp_fb *out, const char *txt, size_t len)
{
	xp_fb *back = NULL;
	unsigned char *a = NULL, *b = NULL;
	size_t la = 0, lb = 0;
	xp_diags *d = xp_diags_new(0);
	CHECK(xp_text_parse_mem(txt, len, "result", NULL, &back, d) == XP_E_OK);
	CHECK(xp_db_write_mem(out, &a, &la) == XP_E_OK);
	CHECK(back && xp_db_write_mem(back, &b, &lb) == XP_E_OK);
	CHECK(a && b && la == lb && memcmp(a, b, la) == 0);
	free(a);
	free(b);
	xp_fb_free(back);
	xp_diags_free(d);
}

/* The result of merger m as a canonical text (a string; empty when
 * finishing fails); *warnings, when asked, counts the diagnostics. */
static char *result_text(xp_merger *m, xp_diags *d, size_t *warnings)
{
	xp_fb *out = NULL;
	char *txt = NULL;
	size_t len;
	CHECK(xp_merger_finish(m, &out, d) == XP_E_OK);
	if (warnings)
		*warnings = xp_diags_count(d);
	if (out && xp_text_write_mem(out, &txt, &len) == XP_E_OK) {
		check_encoding(out, txt, len);
		/* The text is not NUL-terminated: make it a string. */
		char *z = realloc(txt, len + 1);
		CHECK(z != NULL);
		txt = z;
		if (txt)
			txt[len] = 0;
	} else {
		CHECK(out == NULL);
	}
	xp_fb_free(out);
	return txt ? txt : calloc(1, 1);
}

#define MAXJOBS 4

/*
 * The merge of n profiles as xprof_merge -j runs it: the first input
 * goes to one merger, the others are shared out over jobs mergers made
 * like it (share 0: round robin, as xprof_merge shares them; 1: in
 * contiguous runs; 2: scattered, any share giving the same result), and
 * the first absorbs the others in turn.
 */
static char *split_text(xp_fb **in, const double *w, int n,
                        const xp_merge_opts *o, int jobs, int share)
{
	xp_merger *m[MAXJOBS] = {xp_merger_new(o)};
	xp_diags *d = xp_diags_new(1000);
	CHECK(xp_merger_add(m[0], in[0], w ? w[0] : 1, "in", d) == XP_E_OK);
	for (int k = 1; k < jobs; k++)
		CHECK((m[k] = xp_merger_new_like(m[0])) != NULL);
	for (int i = 1; i < n; i++) {
		int k = share == 0 ? (i - 1) % jobs
		      : share == 1 ? (i - 1) * jobs / (n - 1)
		      : (int)((((uint64_t)i * 0x9e3779b97f4a7c15u) >> 40) %
		              (unsigned)jobs);
		CHECK(xp_merger_add(m[k], in[i], w ? w[i] : 1, "in", d) ==
		      XP_E_OK);
	}
	for (int k = 1; k < jobs; k++) {
		CHECK(xp_merger_absorb(m[0], m[k], d) == XP_E_OK);
		xp_merger_free(m[k]);
	}
	CHECK_EQ(xp_merger_count(m[0]), n);
	char *txt = result_text(m[0], d, NULL);
	xp_merger_free(m[0]);
	xp_diags_free(d);
	return txt;
}

/*
 * Merges n profiles with weights (NULL: all 1) into a canonical text;
 * shared out over 2 to MAXJOBS mergers and reduced, they must give the
 * same text.
 */
static char *merge_text(xp_fb **in, const double *w, int n,
                        const xp_merge_opts *o, size_t *warnings)
{
	xp_merger *m = xp_merger_new(o);
	xp_diags *d = xp_diags_new(1000);
	for (int i = 0; i < n; i++)
		CHECK(xp_merger_add(m, in[i], w ? w[i] : 1, "in", d) == XP_E_OK);
	CHECK_EQ(xp_merger_count(m), n);
	char *txt = result_text(m, d, warnings);
	xp_merger_free(m);
	xp_diags_free(d);
	for (int jobs = 2; jobs <= MAXJOBS && jobs < n + 1; jobs++)
		for (int share = 0; share < 3; share++) {
			char *t = split_text(in, w, n, o, jobs, share);
			CHECK_STR(t, txt);
			free(t);
		}
	return txt;
}

/* Parses a canonical text back, to merge a result again. */
static xp_fb *parse(const char *t)
{
	xp_fb *fb = NULL;
	xp_diags *d = xp_diags_new(0);
	CHECK(xp_text_parse_mem(t, strlen(t), "t", NULL, &fb, d) == XP_E_OK);
	xp_diags_free(d);
	return fb;
}

#define ROUNDS 60

static void test_order_and_assoc(void)
{
	for (int r = 0; r < ROUNDS; r++) {
		xp_fb *p[3] = {random_profile(1000, 0), random_profile(1000, 0),
		               random_profile(1000, 0)};
		double w[3] = {1 + (double)(rnd() % 3), 1, 1 + (double)(rnd() % 5)};
		char *abc = merge_text(p, w, 3, NULL, NULL);
		xp_fb *q[3] = {p[2], p[0], p[1]};
		double wq[3] = {w[2], w[0], w[1]};
		char *cab = merge_text(q, wq, 3, NULL, NULL);
		CHECK_STR(abc, cab);

		/* (A+B)+C and A+(B+C). */
		char *ab = merge_text(p, w, 2, NULL, NULL);
		xp_fb *fab = parse(ab);
		xp_fb *t1[2] = {fab, p[2]};
		double w1[2] = {1, w[2]};
		char *ab_c = merge_text(t1, w1, 2, NULL, NULL);
		CHECK_STR(abc, ab_c);
		char *bc = merge_text(p + 1, w + 1, 2, NULL, NULL);
		xp_fb *fbc = parse(bc);
		xp_fb *t2[2] = {p[0], fbc};
		double w2[2] = {w[0], 1};
		char *a_bc = merge_text(t2, w2, 2, NULL, NULL);
		CHECK_STR(abc, a_bc);

		free(abc);
		free(cab);
		free(ab);
		free(ab_c);
		free(bc);
		free(a_bc);
		xp_fb_free(fab);
		xp_fb_free(fbc);
		for (int i = 0; i < 3; i++)
			xp_fb_free(p[i]);
	}
}

static void test_identity_and_weights(void)
{
	for (int r = 0; r < ROUNDS; r++) {
		xp_fb *p = random_profile(1u << 20, 1);
		char *once = merge_text(&p, NULL, 1, NULL, NULL);
		xp_fb *f = parse(once);
		char *twice = merge_text(&f, NULL, 1, NULL, NULL);
		CHECK_STR(once, twice);

		double w = 2 + (double)(rnd() % 4);
		char *weighted = merge_text(&p, &w, 1, NULL, NULL);
		xp_fb *copies[5] = {p, p, p, p, p};
		char *repeated = merge_text(copies, NULL, (int)w, NULL, NULL);
		CHECK_STR(weighted, repeated);

		free(once);
		free(twice);
		free(weighted);
		free(repeated);
		xp_fb_free(f);
		xp_fb_free(p);
	}
}

/* The value of counter cid of proc pname in object file opath, or -1. */
static int64_t counter_of(const xp_fb *fb, const char *opath,
                          const char *pname, uint32_t cid)
{
	uint32_t o = xp_fb_find_objfile(fb, opath);
	if (o == UINT32_MAX)
		return -1;
	xp_objfile of;
	xp_fb_objfile(fb, o, &of);
	for (uint32_t i = 0; i < of.n_procs; i++) {
		xp_proc pr;
		xp_fb_proc(fb, of.first_proc + i, &pr);
		if (strcmp(xp_fb_str(fb, pr.name), pname) != 0)
			continue;
		if (pr.n_counters == 0)
			return 0; /* not run: zeros */
		for (uint32_t c = 0; c < pr.n_counters; c++) {
			xp_counter cn;
			xp_fb_counter(fb, pr.first_counter + c, &cn);
			if (cn.id == cid)
				return (int64_t)cn.value;
		}
	}
	return -1;
}

static void test_max_min(void)
{
	static const char *const objs[NOBJ] = {"o0.o", "o1.o", "o2.o"};
	static const char *const procs[NPROC] = {"p0", "p1", "p2", "p3"};
	for (int r = 0; r < ROUNDS / 2; r++) {
		xp_fb *p[3] = {random_profile(1000, 0), random_profile(1000, 0),
		               random_profile(1000, 0)};
		xp_merge_opts omax = {XP_MERGE_MAX, XP_MISMATCH_ERROR, 1, 0, 0};
		xp_merge_opts omin = {XP_MERGE_MIN, XP_MISMATCH_ERROR, 1, 0, 0};
		char *tmax = merge_text(p, NULL, 3, &omax, NULL);
		char *tmin = merge_text(p, NULL, 3, &omin, NULL);
		xp_fb *fmax = parse(tmax), *fmin = parse(tmin);
		for (int o = 0; o < NOBJ; o++)
			for (int q = 0; q < NPROC; q++)
				for (uint32_t c = 1; c <= NCNT; c++) {
					int64_t hi = -1, lo = -1;
					for (int i = 0; i < 3; i++) {
						int64_t v = counter_of(p[i], objs[o],
						                       procs[q], c);
						if (v < 0)
							continue;
						if (hi < 0 || v > hi)
							hi = v;
						if (lo < 0 || v < lo)
							lo = v;
					}
					CHECK_EQ(counter_of(fmax, objs[o], procs[q], c), hi);
					CHECK_EQ(counter_of(fmin, objs[o], procs[q], c), lo);
				}
		free(tmax);
		free(tmin);
		xp_fb_free(fmax);
		xp_fb_free(fmin);
		for (int i = 0; i < 3; i++)
			xp_fb_free(p[i]);
	}
}

static void test_saturation(void)
{
	xp_fb *p = random_profile(UINT64_MAX, 0);
	xp_fb *copies[3] = {p, p, p};
	size_t warnings = 0;
	char *t = merge_text(copies, NULL, 3, NULL, &warnings);
	/* Three copies of counters near 2^64 saturate: one warning. */
	CHECK_EQ(warnings, 1);
	xp_fb *f = parse(t);
	int saturated = 0;
	for (uint32_t i = 0; i < xp_fb_count(f, XP_T_COUNTERS); i++) {
		xp_counter c;
		xp_fb_counter(f, i, &c);
		saturated += c.value == UINT64_MAX;
	}
	CHECK(saturated > 0);
	/* An exact integer weight never wraps either. */
	double w = 4e9;
	char *tw = merge_text(&p, &w, 1, NULL, &warnings);
	CHECK_EQ(warnings, 1);
	free(t);
	free(tw);
	xp_fb_free(f);
	xp_fb_free(p);
}

static void test_mismatch_error(void)
{
	xp_fb *a = random_profile(10, 0);
	xp_fb *b = random_profile(10, 0);
	/* b with another signature for every proc of o1.o: rebuild. */
	char *tb = NULL;
	size_t len;
	CHECK(xp_text_write_mem(b, &tb, &len) == XP_E_OK);
	if (tb) {
		char *z = realloc(tb, len + 1);
		CHECK(z != NULL);
		tb = z;
		if (tb)
			tb[len] = 0;
	}
	char *s = tb ? strstr(tb, "OBJFILE:o1.o") : NULL;
	char *pp = s ? strstr(s, "PROC: p") : NULL;
	if (pp) {
		char *sig = strstr(pp, " 0x");
		if (sig)
			sig[3] = sig[3] == 'f' ? 'e' : 'f';
	}
	xp_fb *b2 = tb ? parse(tb) : NULL;
	xp_merge_opts oe = {XP_MERGE_SUM, XP_MISMATCH_ERROR, 1, 0, 0};
	xp_merger *m = xp_merger_new(&oe);
	xp_diags *d = xp_diags_new(0);
	CHECK(xp_merger_add(m, a, 1, "a", d) == XP_E_OK);
	xp_err e = b2 ? xp_merger_add(m, b2, 1, "b", d) : XP_E_INVAL;
	/* Unless the random profiles share no proc of o1.o, it fails. */
	if (e == XP_E_OK) {
		xp_fb *out = NULL;
		e = xp_merger_finish(m, &out, d);
		xp_fb_free(out);
	}
	CHECK(e == XP_E_INVAL || xp_diags_count(d) == 0);
	CHECK(e == XP_E_OK || xp_merger_failed(m));
	xp_merger_free(m);
	xp_diags_free(d);
	free(tb);
	xp_fb_free(a);
	xp_fb_free(b);
	xp_fb_free(b2);
}

/*
 * An input refused before it changed anything (another data type)
 * leaves the merger as it was: it is not failed, and what follows
 * merges to the result without that input.  A mismatch in error mode,
 * refused after, fails the merger.
 */
static void test_refused_input(void)
{
	static const char tcovd[] = "PROFILE-FEEDBACK-DATA: 4.3 1 0 1 tcovd\n"
	                            "OBJFILE:o0.o 1 100 0 0 0x10 0\n"
	                            "PROC: p0 0x1 1 0 0 1 0 0 0\n1 4\n";
	xp_fb *in[2] = { random_profile(10, 0), random_profile(10, 0) };
	xp_fb *t = parse(tcovd);
	char *want = merge_text(in, NULL, 2, NULL, NULL);
	xp_merger *m = xp_merger_new(NULL);
	xp_diags *d = xp_diags_new(0);
	xp_fb *out = NULL;
	char *got = NULL;
	size_t len = 0;

	CHECK(xp_merger_add(m, in[0], 1, "a", d) == XP_E_OK);
	CHECK(xp_merger_add(m, t, 1, "t", d) == XP_E_INVAL);
	CHECK(!xp_merger_failed(m));
	CHECK(xp_merger_add(m, in[1], 1, "b", d) == XP_E_OK);
	CHECK_EQ(xp_merger_count(m), 2);
	CHECK(xp_merger_finish(m, &out, d) == XP_E_OK);
	CHECK(out && xp_text_write_mem(out, &got, &len) == XP_E_OK);
	CHECK(got && len == strlen(want) && memcmp(got, want, len) == 0);
	free(got);
	xp_fb_free(out);
	xp_merger_free(m);
	xp_diags_free(d);
	free(want);
	xp_fb_free(t);
	xp_fb_free(in[0]);
	xp_fb_free(in[1]);
}

#define MAXTREE 8

/*
 * Whether a merge of merges differs from flat, the merge of all n
 * inputs: the first k merged into one, which is then merged with the
 * others (weights w, NULL: all 1; n at most MAXTREE).
 */
static int tree_differs(xp_fb **in, const double *w, int n, int k,
                        const xp_merge_opts *o, const char *flat)
{
	char *part = merge_text(in, w, k, o, NULL);
	xp_fb *t[MAXTREE] = {parse(part)};
	double wt[MAXTREE] = {1};
	for (int i = k; i < n; i++) {
		t[1 + i - k] = in[i];
		wt[1 + i - k] = w ? w[i] : 1;
	}
	char *tree = merge_text(t, wt, 1 + n - k, o, NULL);
	int differs = strcmp(flat, tree) != 0;
	free(part);
	free(tree);
	xp_fb_free(t[0]);
	return differs;
}

/*
 * A run whose one value profile record keeps 2 values, drawn from 6:
 * merged, the records hold more values than they keep, so a merge of
 * merges cuts values that the merge of all keeps.  Mergers that share
 * the inputs keep every value until the end and must not.
 */
static xp_fb *vp_profile(void)
{
	xp_fbb *b = xp_fbb_new(XP_DT_FEEDBACK, 4, 1);
	xp_objfile of = {.path = S(b, "v.o"), .tv_sec = 1,
	                 .n_values_per_vp = 2, .signature = 5};
	xp_proc pr = {.name = S(b, "f"), .signature = 3, .proc_id = 1,
	              .n_vp_sites = 1};
	CHECK(xp_fbb_begin_objfile(b, &of) == XP_E_OK);
	CHECK(xp_fbb_begin_proc(b, &pr) == XP_E_OK);
	CHECK(xp_fbb_add_counter(b, 1, rnd() % 50) == XP_E_OK);
	CHECK(xp_fbb_add_vp(b, 1, XP_VP_INT) == XP_E_OK);
	int first = (int)(rnd() % 6);
	for (int v = 0; v < 2; v++) {
		xp_vpval vv = {.has_value = 1, .count = 1 + rnd() % 20};
		vv.v.i = (first + v * (1 + (int)(rnd() % 5))) % 6;
		CHECK(xp_fbb_add_vpval(b, &vv) == XP_E_OK);
	}
	xp_fb *fb = NULL;
	CHECK(xp_fbb_finish(b, &fb) == XP_E_OK);
	xp_fbb_free(b);
	return fb;
}

static void test_vp_cut(void)
{
	int cut = 0;
	for (int r = 0; r < ROUNDS; r++) {
		xp_fb *p[8];
		xp_merge_opts o = {(xp_merge_mode)(r % 3), XP_MISMATCH_WARN, 1, 0, 0};
		for (int i = 0; i < 8; i++)
			p[i] = vp_profile();
		/* merge_text compares the shared-out merges with this one. */
		char *all = merge_text(p, NULL, 8, &o, NULL);
		cut += tree_differs(p, NULL, 8, 4, &o, all);
		free(all);
		for (int i = 0; i < 8; i++)
			xp_fb_free(p[i]);
	}
	/* The case is real: a merge of merges differs now and then. */
	CHECK(cut > 0);
}

/*
 * Versions of a procedure, and block refs into it from runs that do not
 * hold it: every order of three runs gives one result, in every mode,
 * and so do the runs shared out over mergers (merge_text).  A merge of
 * merges differs now and then: a merge that meets such a ref and an
 * older version alone gives the ref to that version, which the root
 * drops.
 */
static void test_versions_order(void)
{
	static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
	                               {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
	int cut = 0;
	for (int r = 0; r < ROUNDS; r++) {
		xp_merge_opts o = {(xp_merge_mode)(r % 3), XP_MISMATCH_WARN, 1, 0, 0};
		xp_fb *p[3];
		double w[3];
		for (int i = 0; i < 3; i++) {
			p[i] = random_profile(1000, 1);
			w[i] = 1 + (double)(rnd() % 3);
		}
		char *flat = merge_text(p, w, 3, &o, NULL);
		for (int k = 1; k < 6; k++) {
			xp_fb *q[3];
			double wq[3];
			for (int i = 0; i < 3; i++) {
				q[i] = p[perm[k][i]];
				wq[i] = w[perm[k][i]];
			}
			char *t = merge_text(q, wq, 3, &o, NULL);
			CHECK_STR(flat, t);
			free(t);
		}
		cut += tree_differs(p, w, 3, 2, &o, flat);
		free(flat);
		for (int i = 0; i < 3; i++)
			xp_fb_free(p[i]);
	}
	/* The runs hold the case: refs without their procedure meet
	 * versions that are dropped. */
	CHECK(cut > 0);
}

/* ------------------------------------------------------------------ */
/* Same content, other layouts                                         */
/* ------------------------------------------------------------------ */

#define LOBJ 4
#define LPROC 6
#define LSRC 3
#define LLINE 5

/* Fisher-Yates shuffle of idx[0..n-1] (identity when shuffle is 0). */
static void permute(int *idx, int n, uint64_t *st, int shuffle)
{
	for (int i = 0; i < n; i++)
		idx[i] = i;
	if (!shuffle)
		return;
	for (int i = n - 1; i > 0; i--) {
		*st ^= *st << 13;
		*st ^= *st >> 7;
		*st ^= *st << 17;
		int j = (int)(*st % (uint64_t)(i + 1));
		int t = idx[i];
		idx[i] = idx[j];
		idx[j] = t;
	}
}

/*
 * One training run of a program, its content a function of (seed,
 * variant) alone; shuffle != 0 lists the same content in another order
 * (object files, procedures, counters, source files, lines, block refs),
 * so that the merger's positional fast paths miss.  Variants disagree
 * here and there: q1 of f1.o changes its signature, q2 of f2.o gains a
 * block, q5 of f0.o is missing, q4 of f3.o was loaded but not run.
 */
static xp_fb *layout_profile(uint64_t seed, int variant, uint64_t shuffle)
{
	uint64_t st = seed * 0x9e3779b97f4a7c15u + (uint64_t)variant + 1;
	uint64_t sh = shuffle * 0xd1b54a32d192ed03u + 7;
	uint64_t val[LOBJ][LPROC][8];
	uint64_t refc[LSRC][LLINE][3];
	for (int o = 0; o < LOBJ; o++)
		for (int p = 0; p < LPROC; p++)
			for (int c = 0; c < 8; c++) {
				st ^= st << 13;
				st ^= st >> 7;
				st ^= st << 17;
				val[o][p][c] = st % 5000;
			}
	for (int f = 0; f < LSRC; f++)
		for (int l = 0; l < LLINE; l++)
			for (int r = 0; r < 3; r++) {
				st ^= st << 13;
				st ^= st >> 7;
				st ^= st << 17;
				refc[f][l][r] = st % 300;
			}
	xp_fbb *b = xp_fbb_new(XP_DT_FEEDBACK, 4, 9);
	char name[32];
	int oi[LOBJ], pi[LPROC], ci[8], fi[LSRC], li[LLINE], ri[3];
	permute(oi, LOBJ, &sh, shuffle != 0);
	for (int k = 0; k < LOBJ; k++) {
		int o = oi[k];
		snprintf(name, sizeof name, "f%d.o", o);
		xp_objfile of = {.path = S(b, name), .tv_sec = 100, .tv_usec = 5,
		                 .n_values_per_vp = 2, .signature = 0x50 + o,
		                 .n_srcfile_names = 2};
		CHECK(xp_fbb_begin_objfile(b, &of) == XP_E_OK);
		CHECK(xp_fbb_add_stat(b, XP_STAT_SUM, 0) == XP_E_OK);
		permute(pi, LPROC, &sh, shuffle != 0);
		for (int kp = 0; kp < LPROC; kp++) {
			int p = pi[kp];
			if (o == 0 && p == 5 && variant % 2 == 1)
				continue;
			int nblk = 2 + p % 3;
			if (o == 2 && p == 2 && variant % 4 == 2)
				nblk++;
			uint64_t sig = 0x1000 + (uint64_t)(o * 16 + p);
			if (o == 1 && p == 1 && variant % 3 == 1)
				sig += 0x777;
			int run = !(o == 3 && p == 4 && variant % 3 == 0);
			int ncnt = run ? nblk + 1 : 0;
			snprintf(name, sizeof name, "q%d", p);
			xp_proc pr = {.name = S(b, name), .signature = sig,
			              .proc_id = (uint32_t)p + 1, .n_vp_sites = 1,
			              .n_srcmap_ops = (uint32_t)nblk};
			CHECK(xp_fbb_begin_proc(b, &pr) == XP_E_OK);
			if (p % 2 == 0)
				CHECK(xp_fbb_add_stat(b, XP_STAT_MAX, 0) == XP_E_OK);
			permute(ci, ncnt, &sh, shuffle != 0);
			for (int c = 0; c < ncnt; c++)
				CHECK(xp_fbb_add_counter(b, (uint32_t)ci[c] + 1,
				                         val[o][p][ci[c]]) == XP_E_OK);
			CHECK(xp_fbb_add_vp(b, 3, XP_VP_INT) == XP_E_OK);
			for (int v = 0; v < 2; v++) {
				xp_vpval vv = {0};
				if (run) {
					vv.has_value = 1;
					vv.v.i = (int32_t)((val[o][p][7 - v] % 3) * 10 + v);
					vv.count = val[o][p][v] % 50;
				}
				CHECK(xp_fbb_add_vpval(b, &vv) == XP_E_OK);
			}
			for (int k2 = 1; k2 <= nblk; k2++)
				CHECK(xp_fbb_add_block(b, (uint32_t)k2,
				                       run ? (uint32_t)k2 : 0) ==
				      XP_E_OK);
			for (int k2 = 1; k2 < nblk; k2++) {
				xp_edge e = {(uint32_t)k2, run ? (uint32_t)nblk + 1 : 0,
				             (uint32_t)k2, (uint32_t)k2 + 1};
				CHECK(xp_fbb_add_edge(b, &e) == XP_E_OK);
			}
			for (int k2 = 1; k2 <= nblk; k2++) {
				snprintf(name, sizeof name, "h%d.c", (o + k2) % LSRC);
				xp_tuple t = {.id = (uint32_t)k2, .block = (uint32_t)k2,
				              .line = (uint32_t)(10 * p + k2),
				              .col = (uint32_t)(k2 % 2),
				              .srcfile = S(b, name)};
				CHECK(xp_fbb_add_tuple(b, &t) == XP_E_OK);
			}
		}
	}
	CHECK(xp_fbb_begin_program(b, S(b, "prog")) == XP_E_OK);
	CHECK(xp_fbb_add_stat(b, XP_STAT_MAX, 0) == XP_E_OK);
	for (int k = 0; k < LOBJ; k++) {
		snprintf(name, sizeof name, "f%d.o", oi[k]);
		CHECK(xp_fbb_add_objref(b, S(b, name)) == XP_E_OK);
	}
	permute(fi, LSRC, &sh, shuffle != 0);
	for (int kf = 0; kf < LSRC; kf++) {
		int f = fi[kf];
		snprintf(name, sizeof name, "h%d.c", f);
		CHECK(xp_fbb_begin_srcfile(b, S(b, name)) == XP_E_OK);
		permute(li, LLINE, &sh, shuffle != 0);
		for (int kl = 0; kl < LLINE; kl++) {
			int l = li[kl];
			/* Lines 7, 7:1, 14, 14:1, 21: columns tell some
			 * apart. */
			CHECK(xp_fbb_begin_srcline(b, (uint32_t)(l / 2 + 1) * 7,
			                           (uint32_t)(l % 2)) == XP_E_OK);
			permute(ri, 3, &sh, shuffle != 0);
			for (int kr = 0; kr < 3; kr++) {
				int r = ri[kr];
				/* Refs into the procedures whose versions differ,
				 * too: they follow their procedure's fate. */
				int o = (f + l + r) % LOBJ, p = (l + 2 * r) % LPROC;
				char pn[16];
				snprintf(name, sizeof name, "f%d.o", o);
				snprintf(pn, sizeof pn, "q%d", p);
				xp_blockref br = {.block = 1, .count = refc[f][l][r],
				                  .proc = S(b, pn),
				                  .objfile = S(b, name)};
				CHECK(xp_fbb_add_blockref(b, &br) == XP_E_OK);
			}
		}
	}
	xp_fb *fb = NULL;
	CHECK(xp_fbb_finish(b, &fb) == XP_E_OK);
	xp_fbb_free(b);
	return fb;
}

#define LIN 6

/*
 * The merger adds inputs of the same layout as the accumulator by
 * position and falls back to lookups otherwise: both must give the same
 * result, whatever the layouts, the input order and the mode.
 */
static void test_layouts(void)
{
	static const xp_merge_mode modes[3] = {XP_MERGE_SUM, XP_MERGE_MAX,
	                                       XP_MERGE_MIN};
	for (int r = 0; r < 12; r++) {
		xp_merge_opts o = {modes[r % 3], XP_MISMATCH_SKIP, 1, r % 4 == 3, 0};
		xp_fb *same[LIN], *mixed[LIN], *shuf[LIN], *rev[LIN];
		double w[LIN], wrev[LIN];
		for (int i = 0; i < LIN; i++) {
			same[i] = layout_profile((uint64_t)r, i, 0);
			/* Every input in its own order. */
			mixed[i] = layout_profile((uint64_t)r, i, (uint64_t)i + 1);
			/* One other order shared by all. */
			shuf[i] = layout_profile((uint64_t)r, i, 99);
			w[i] = 1 + (double)(i % 3);
		}
		for (int i = 0; i < LIN; i++) {
			rev[i] = same[LIN - 1 - i];
			wrev[i] = w[LIN - 1 - i];
		}
		char *ts = merge_text(same, w, LIN, &o, NULL);
		char *tm = merge_text(mixed, w, LIN, &o, NULL);
		char *tf = merge_text(shuf, w, LIN, &o, NULL);
		char *tr = merge_text(rev, wrev, LIN, &o, NULL);
		CHECK(strstr(ts, "PROC: q0") != NULL);
		CHECK_STR(ts, tm);
		CHECK_STR(ts, tf);
		CHECK_STR(ts, tr);

		/* The fast path adds the right counts: q0 of f0.o has one
		 * version in every input. */
		if (o.mode == XP_MERGE_SUM && !o.sparse) {
			xp_fb *res = parse(ts);
			for (uint32_t c = 1; c <= 3; c++) {
				int64_t want = 0;
				for (int i = 0; i < LIN; i++)
					want += (int64_t)w[i] *
					        counter_of(mixed[i], "f0.o", "q0", c);
				CHECK_EQ(counter_of(res, "f0.o", "q0", c), want);
			}
			xp_fb_free(res);
		}

		/* Repeats of one input: by position, by lookup, by weight. */
		xp_fb *rep3[3] = {same[1], same[1], same[1]};
		xp_fb *mix3[3] = {same[1], mixed[1], shuf[1]};
		double w3 = 3;
		char *a = merge_text(rep3, NULL, 3, &o, NULL);
		char *b2 = merge_text(mix3, NULL, 3, &o, NULL);
		char *c3 = merge_text(&mixed[1], &w3, 1, &o, NULL);
		CHECK_STR(a, b2);
		if (o.mode == XP_MERGE_SUM)
			CHECK_STR(a, c3);
		free(a);
		free(b2);
		free(c3);

		free(ts);
		free(tm);
		free(tf);
		free(tr);
		for (int i = 0; i < LIN; i++) {
			xp_fb_free(same[i]);
			xp_fb_free(mixed[i]);
			xp_fb_free(shuf[i]);
		}
	}
}

/*
 * xp_merger_write() writes the database as it produces the records; the
 * file must be the one xp_merger_finish() and writing its result give,
 * byte for byte, whatever the options.
 */
static void test_write(void)
{
	const char *tmp = getenv("TMPDIR");
	char dir[256], out[300], file[320];
	snprintf(dir, sizeof dir, "%s/merge_write.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		printf("FAIL mkdtemp: %s\n", strerror(errno));
		unit_failed_checks++;
		return;
	}
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(file, sizeof file, "%s/feedback", out);
	for (int round = 0; round < ROUNDS; round++) {
		xp_fb *p[4];
		int n = 1 + (int)(rnd() % 4);
		for (int i = 0; i < n; i++)
			p[i] = random_profile(round % 5 == 0 ? 0 : 1000, 1);
		xp_merge_opts o = {XP_MERGE_SUM, XP_MISMATCH_WARN, 1, 0, 0};
		o.mode = (xp_merge_mode)(rnd() % 3);
		o.sparse = rnd() % 3 == 0;
		if (rnd() % 3 == 0)
			o.scale = 0.37;
		xp_merger *a = xp_merger_new(&o), *b = xp_merger_new(&o);
		xp_diags *da = xp_diags_new(1000), *db = xp_diags_new(1000);
		for (int i = 0; i < n; i++) {
			double w = rnd() % 2 ? 1 : 2.5;
			CHECK(xp_merger_add(a, p[i], w, "in", da) == XP_E_OK);
			CHECK(xp_merger_add(b, p[i], w, "in", db) == XP_E_OK);
		}
		xp_fb *res = NULL;
		unsigned char *want = NULL, *got = NULL;
		size_t wlen = 0, glen = 0;
		CHECK(xp_merger_finish(a, &res, da) == XP_E_OK);
		CHECK(res && xp_db_write_mem(res, &want, &wlen) == XP_E_OK);
		CHECK(xp_merger_write(b, out, db) == XP_E_OK);
		got = (unsigned char *)unit_slurp(file, &glen);
		CHECK(want && got && wlen == glen && memcmp(want, got, wlen) == 0);
		CHECK_EQ(xp_diags_count(da), xp_diags_count(db));
		/* Once finished, the merger refuses to write again. */
		CHECK(xp_merger_write(b, out, db) == XP_E_INVAL);
		free(want);
		free(got);
		xp_fb_free(res);
		xp_merger_free(a);
		xp_merger_free(b);
		xp_diags_free(da);
		xp_diags_free(db);
		for (int i = 0; i < n; i++)
			xp_fb_free(p[i]);
	}
	unlink(file);
	rmdir(out);
	rmdir(dir);
}

int main(void)
{
	RUN(test_order_and_assoc);
	RUN(test_versions_order);
	RUN(test_identity_and_weights);
	RUN(test_max_min);
	RUN(test_saturation);
	RUN(test_mismatch_error);
	RUN(test_refused_input);
	RUN(test_layouts);
	RUN(test_vp_cut);
	RUN(test_write);
	return unit_done();
}
