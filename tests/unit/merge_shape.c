/*
 * merge_shape.c - inputs of one shape: databases of one binary that
 * differ only in their counts (and value profile values).
 *
 * The reader checks such a database against one of its shape byte for
 * byte instead of record by record (xp_db_open_mem_like): random
 * corruptions of a member, checksum fixed, must be accepted or refused
 * exactly as the full check does, with the same message.  Read through
 * a window instead of mapped (xp_db_check_like), it is found to have the
 * shape only when the full check takes it.
 *
 * xp_merger_add_path() adds such inputs to a delta instead of one by one:
 * random sequences of members of up to eight shapes (some with other
 * string ids), members with other values, texts, a rival compilation of
 * one procedure (newer or older), runs without that procedure but with
 * block refs into it, random weights, modes, mismatch handling and scale
 * must give
 * the same result and the same diagnostics, input by input, as
 * xp_merger_add() of the same profiles; shared out over two and three
 * mergers that the first absorbs (xprof_merge -j), the same result.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "feedback/db.h"
#include "feedback/merge.h"
#include "unit.h"

static uint64_t rng = 0x2545f4914f6cdd1du;

static uint64_t rnd(void)
{
	return unit_next(&rng);
}

/* Short for the many strings below. */
#define S unit_str

/* How a profile differs from the members' shape. */
typedef struct {
	int other_values; /* value profile values not the template's */
	int other_shape;  /* proc p3 of o1.o loaded but not run */
	int rival;        /* 1 newer, -1 older compilation of o0.o, p1
	                     with another signature */
	int big;          /* counts near 2^64 */
	int other_callee; /* the VP_PROC callee is a_callee of o1.o, a string
	                     that comes first: other string ids throughout */
	int no_stat;      /* o1.o has no sum stat */
	int no_p1;        /* o0.o lacks p1, whose block refs stay: refs
	                     into a procedure the run does not hold */
} variant;

#define NOBJ 2
#define NPROC 4
#define NVPV 2

static uint64_t count(const variant *v)
{
	if (v->big && rnd() % 2)
		return UINT64_MAX / 2 + rnd() % 1000;
	return rnd() % 4 ? rnd() % 1000 : 0;
}

/* A run of the program; counts are random, the rest follows v. */
static xp_fb *run_profile(const variant *v)
{
	xp_fbb *b = xp_fbb_new(XP_DT_FEEDBACK, 4, 5);
	char name[32];
	for (int o = 0; o < NOBJ; o++) {
		snprintf(name, sizeof name, "o%d.o", o);
		xp_objfile of = {.path = S(b, name), .tv_sec = 10, .tv_usec = 0,
		                 .n_values_per_vp = NVPV, .signature = 0x100 + o,
		                 .n_srcfile_names = 1};
		if (o == 0 && v->rival)
			of.tv_sec = v->rival > 0 ? 20 : 5;
		CHECK(xp_fbb_begin_objfile(b, &of) == XP_E_OK);
		if (!(v->no_stat && o == 1))
			CHECK(xp_fbb_add_stat(b, XP_STAT_SUM, 0) == XP_E_OK);
		for (int p = 0; p < NPROC; p++) {
			if (v->no_p1 && o == 0 && p == 1)
				continue;
			int run = !(v->other_shape && o == 1 && p == 3);
			snprintf(name, sizeof name, "p%d", p);
			/* Ids number the procedures 1..n. */
			int id = p + 1 - (v->no_p1 && o == 0 && p > 1);
			xp_proc pr = {.name = S(b, name), .signature = 7 + p,
			              .proc_id = id, .n_vp_sites = 1,
			              .n_srcmap_ops = 1};
			if (o == 0 && p == 1 && v->rival)
				pr.signature = 99;
			CHECK(xp_fbb_begin_proc(b, &pr) == XP_E_OK);
			for (int c = 0; run && c < 3; c++)
				CHECK(xp_fbb_add_counter(b, c + 1, count(v)) == XP_E_OK);
			/* One value profile of each kind the reader treats
			 * apart: an int, a double, and a proc (whose values
			 * name strings and may be absent with a count). */
			xp_vptype ty = p % 3 == 0 ? XP_VP_INT
			               : p % 3 == 1 ? XP_VP_DOUBLE : XP_VP_PROC;
			CHECK(xp_fbb_add_vp(b, 1, ty) == XP_E_OK);
			for (int k = 0; k < NVPV; k++) {
				xp_vpval vv = {0};
				vv.count = rnd() % 50;
				vv.has_value = 1;
				if (ty == XP_VP_INT && p == 0 && k == 1) {
					/* Not seen: no value, no count. */
					vv.has_value = 0;
					vv.count = 0;
				} else if (ty == XP_VP_INT)
					vv.v.i = k == 0 ? -5 : 9 + (v->other_values ? 1 : 0);
				else if (ty == XP_VP_DOUBLE)
					vv.v.d = k == 0 ? 0.5 : 2.5;
				else if (k == 0) {
					vv.v.proc.name = S(b, v->other_callee ? "a_callee"
					                                      : "p0");
					vv.v.proc.objfile = S(b, "o1.o");
				} else {
					vv.has_value = 0;
				}
				CHECK(xp_fbb_add_vpval(b, &vv) == XP_E_OK);
			}
			CHECK(xp_fbb_add_block(b, 1, run ? 1 : 0) == XP_E_OK);
			xp_tuple t = {.id = 1, .block = 1, .line = 10 + p,
			              .srcfile = S(b, "s.c")};
			CHECK(xp_fbb_add_tuple(b, &t) == XP_E_OK);
		}
	}
	/* A path with a colon, which no procedure name may hold. */
	CHECK(xp_fbb_begin_program(b, S(b, "bin:prog")) == XP_E_OK);
	CHECK(xp_fbb_add_stat(b, XP_STAT_SUM, 0) == XP_E_OK);
	CHECK(xp_fbb_add_objref(b, S(b, "o1.o")) == XP_E_OK);
	CHECK(xp_fbb_begin_srcfile(b, S(b, "s.c")) == XP_E_OK);
	for (int p = 0; p < NPROC; p++) {
		CHECK(xp_fbb_begin_srcline(b, 10 + p, 0) == XP_E_OK);
		snprintf(name, sizeof name, "p%d", p);
		for (int o = 0; o < NOBJ; o++) {
			char path[16];
			snprintf(path, sizeof path, "o%d.o", o);
			xp_blockref r = {.block = 1, .count = count(v),
			                 .proc = S(b, name), .objfile = S(b, path)};
			CHECK(xp_fbb_add_blockref(b, &r) == XP_E_OK);
		}
	}
	xp_fb *fb = NULL;
	CHECK(xp_fbb_finish(b, &fb) == XP_E_OK);
	xp_fbb_free(b);
	return fb;
}

static unsigned char *db_bytes(const xp_fb *fb, size_t *len)
{
	unsigned char *buf = NULL;
	CHECK(xp_db_write_mem(fb, &buf, len) == XP_E_OK);
	return buf;
}

/* Every diagnostic of d, formatted, one after another. */
static char *diag_text(const xp_diags *d)
{
	size_t cap = 1, len = 0;
	char *all = calloc(1, 1);
	for (size_t i = 0; all && i < xp_diags_count(d); i++) {
		char *s = xp_diag_format(xp_diags_get(d, i), "t");
		size_t n = s ? strlen(s) : 0;
		char *z = realloc(all, cap + n);
		if (z) {
			memcpy(z + len, s ? s : "", n + 1);
			len += n;
			cap += n;
		}
		all = z;
		free(s);
	}
	CHECK(all != NULL);
	return all;
}

/* ------------------------------------------------------------------ */
/* The reader                                                          */
/* ------------------------------------------------------------------ */

static void fix_crc(unsigned char *buf, size_t len)
{
	static const unsigned char zero4[4];
	uint32_t crc = xp_crc32c(0, buf, XP_DBH_CRC);
	crc = xp_crc32c(crc, zero4, 4);
	crc = xp_crc32c(crc, buf + XP_DBH_CRC + 4, len - XP_DBH_CRC - 4);
	xp_put_le32(buf + XP_DBH_CRC, crc);
}

/*
 * xp_db_check_like() of buf (len bytes) written to a file, read through
 * window (a buffer of 64 KiB, as small as the reader allows): 1 when it
 * finds the shape of like[0], else 0.
 */
static int window_check(const unsigned char *buf, size_t len,
                        const xp_fb *const *like, unsigned char *window)
{
	const char *tmp = getenv("TMPDIR");
	char path[256];
	snprintf(path, sizeof path, "%s/merge_shape.XXXXXX", tmp ? tmp : "/tmp");
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return 0;
	unlink(path);
	CHECK(write(fd, buf, len) == (ssize_t)len);
	xp_win w;
	uint32_t crc = 0;
	xp_win_init(&w, fd, window, 1 << 16);
	int same = xp_db_check_like(&w, len, like, 1, &crc, NULL);
	if (same)
		CHECK_EQ(crc, xp_get_le32(buf + XP_DBH_CRC));
	close(fd);
	return same;
}

static void test_reader(void)
{
	variant v0 = {0};
	xp_fb *t = run_profile(&v0);
	size_t tlen = 0;
	unsigned char *tb = db_bytes(t, &tlen);
	xp_fb *like = NULL;
	CHECK(tb && xp_db_open_mem(tb, tlen, "t", &like, NULL) == XP_E_OK);
	const xp_fb *likes[1] = {like};
	if (!like)
		return;
	unsigned fast = 0, refused = 0, fast_window = 0;
	unsigned char small_window[1 << 16];
	for (int round = 0; round < 3000; round++) {
		variant v = {.other_values = round % 3 == 0, .big = round % 5 == 0};
		xp_fb *mfb = run_profile(&v);
		size_t len = 0;
		unsigned char *buf = db_bytes(mfb, &len);
		xp_fb_free(mfb);
		if (!buf)
			continue;
		CHECK_EQ(len, tlen);
		/* Corrupt one to three bytes, mostly in the value profile
		 * values and the counted tables, then fix the checksum. */
		int nbad = round % 4 == 0 ? 0 : 1 + (int)(rnd() % 3);
		for (int k = 0; k < nbad; k++) {
			size_t at;
			if (rnd() % 3 == 0) {
				at = rnd() % len;
			} else {
				static const xp_table tabs[] = {XP_T_VPVALS, XP_T_COUNTERS,
				                                XP_T_BLOCKREFS, XP_T_STATS};
				xp_table tt = tabs[rnd() % 4];
				size_t bytes = (size_t)like->n[tt] * xp_tabdescs[tt].size;
				at = (size_t)(like->tab[tt] - tb) + rnd() % bytes;
			}
			static const unsigned char pick[] = {0, 1, 0x7f, 0x80, 0xff, 2};
			buf[at] = rnd() % 2 ? pick[rnd() % sizeof pick]
			                    : (unsigned char)rnd();
		}
		/* Now and then the checksum is left wrong. */
		if (round % 7 != 3)
			fix_crc(buf, len);

		xp_diags *d1 = xp_diags_new(0), *d2 = xp_diags_new(0);
		xp_fb *f1 = NULL, *f2 = NULL;
		int same = -1;
		xp_err e1 = xp_db_open_mem(buf, len, "m", &f1, d1);
		xp_err e2 = xp_db_open_mem_like(buf, len, "m", likes, 1, &same, &f2,
		                                d2);
		CHECK_EQ(e1, e2);
		/* Read through a small window instead: only a file of the
		 * template's shape, which the full check takes, and every
		 * member left as it was. */
		int wsame = window_check(buf, len, likes, small_window);
		if (wsame)
			CHECK_EQ(same, 1);
		if (same == 1 && nbad == 0)
			CHECK_EQ(wsame, 1);
		fast_window += wsame;
		char *s1 = diag_text(d1), *s2 = diag_text(d2);
		CHECK_STR(s1, s2);
		if (e2 == XP_E_OK)
			fast += same == 1;
		else
			refused++;
		CHECK(!(same == 1 && e1 != XP_E_OK));
		if (nbad == 0 && round % 7 != 3)
			CHECK_EQ(same, 1);
		free(s1);
		free(s2);
		xp_fb_free(f1);
		xp_fb_free(f2);
		xp_diags_free(d1);
		xp_diags_free(d2);
		free(buf);
	}
	/* Both ways were taken, and refusals seen. */
	CHECK(fast > 1000);
	CHECK(fast_window > 1000);
	CHECK(refused > 300);
	xp_fb_free(like);
	xp_fb_free(t);
	free(tb);
}

/* The string id of s in fb (fb->nstr when absent). */
static uint32_t str_id(const xp_fb *fb, const char *s)
{
	uint32_t i = 0;
	while (i < fb->nstr && strcmp(xp_fb_str(fb, i), s))
		i++;
	return i;
}

/*
 * VP_PROC values, which name strings, edited in a member: accepted by
 * the byte for byte check exactly when the full check accepts them, with
 * the same message otherwise.
 */
static void test_reader_vp_proc(void)
{
	enum { P1_FIRST, P1_ALL, INT_COUNT, OUT_OF_RANGE, COLON, NCASES };
	static unsigned char window[1 << 16];
	for (int callee = 0; callee < 2; callee++) {
		variant v0 = {.other_callee = callee};
		xp_fb *t = run_profile(&v0);
		size_t tlen = 0;
		unsigned char *tb = db_bytes(t, &tlen);
		xp_fb *like = NULL;
		CHECK(tb && xp_db_open_mem(tb, tlen, "t", &like, NULL) == XP_E_OK);
		const xp_fb *likes[1] = {like};
		for (int k = 0; like && k < NCASES; k++) {
			xp_fb *mfb = run_profile(&v0);
			size_t len = 0;
			unsigned char *buf = db_bytes(mfb, &len);
			xp_fb_free(mfb);
			if (!buf)
				continue;
			unsigned char *vv = buf + (like->tab[XP_T_VPVALS] - tb);
			/* The first record of every VP_PROC value profile
			 * (p2 of each object file): p0 or a_callee of o1.o. */
			int nproc = 0;
			for (uint32_t p = 0; p < like->n[XP_T_PROCS]; p++) {
				xp_proc pr;
				xp_vp vp;
				xp_fb_proc(like, p, &pr);
				xp_fb_vp(like, pr.first_vp, &vp);
				if (!pr.n_vps || vp.type != XP_VP_PROC ||
				    ((k == P1_FIRST || k == COLON) && nproc > 0) ||
				    k == INT_COUNT)
					continue;
				unsigned char *rec = vv + (size_t)pr.first_vpval *
				                              XP_RS_VPVAL;
				uint32_t name = k == OUT_OF_RANGE ? like->nstr + 5
				                : k == COLON      ? str_id(like, "bin:prog")
				                                  : str_id(like, "p1");
				xp_put_le32(rec + XP_VV_VALUE, name);
				nproc++;
			}
			if (k == INT_COUNT) {
				/* The absent int value of p0 with a count. */
				unsigned char *rec = vv + XP_RS_VPVAL;
				CHECK_EQ(xp_get_le32(rec + XP_VV_FLAGS), 0);
				xp_put_le64(rec + XP_VV_COUNT, 3);
			} else {
				CHECK_EQ(nproc, k == P1_FIRST || k == COLON ? 1 : 2);
			}
			fix_crc(buf, len);
			/* a_callee is named by VP_PROC values alone: it must
			 * stay named by one. */
			int valid = k == P1_FIRST || (k == P1_ALL && !callee);
			xp_fb *f = NULL;
			int same = -1;
			xp_diags *d1 = xp_diags_new(0), *d2 = xp_diags_new(0);
			xp_err e1 = xp_db_open_mem(buf, len, "m", &f, d1);
			xp_fb_free(f);
			xp_err e2 = xp_db_open_mem_like(buf, len, "m", likes, 1, &same,
			                                &f, d2);
			xp_fb_free(f);
			CHECK_EQ(e1, valid ? XP_E_OK : XP_E_CORRUPT);
			CHECK_EQ(e2, e1);
			CHECK_EQ(same, valid);
			/* Through a window, which cannot see the whole file at
			 * once: left to the full open. */
			CHECK_EQ(window_check(buf, len, likes, window), 0);
			char *s1 = diag_text(d1), *s2 = diag_text(d2);
			CHECK_STR(s1, s2);
			if (k == P1_ALL && callee)
				CHECK(strstr(s1, "\"a_callee\" is not referenced") != NULL);
			if (k == COLON)
				CHECK(strstr(s1, "\"bin:prog\" holds ':'") != NULL);
			free(s1);
			free(s2);
			xp_diags_free(d1);
			xp_diags_free(d2);
			free(buf);
		}
		xp_fb_free(like);
		xp_fb_free(t);
		free(tb);
	}
}

/* ------------------------------------------------------------------ */
/* The merger                                                          */
/* ------------------------------------------------------------------ */

#define MAXIN 9

typedef struct {
	char path[MAXIN][300];
	char name[MAXIN][16];
	double w[MAXIN];
	int n;
} inputs;

/* The canonical text of a merge's result, and the checksum of its
 * database (which holds the indexes too), NUL-terminated. */
static char *result_text(const xp_fb *fb, size_t *len)
{
	char *txt = NULL;
	unsigned char *db = NULL;
	size_t dblen = 0;
	CHECK(xp_text_write_mem(fb, &txt, len) == XP_E_OK);
	CHECK(xp_db_write_mem(fb, &db, &dblen) == XP_E_OK);
	char *z = txt ? realloc(txt, *len + 32) : NULL;
	if (!z) {
		free(txt);
		free(db);
		*len = 0;
		return NULL;
	}
	*len += (size_t)sprintf(z + *len, "db %zu %08x\n", dblen,
	                        db ? xp_crc32c(0, db, dblen) : 0);
	free(db);
	return z;
}

/*
 * Merges the inputs by path (fast) or opened one by one; returns the
 * canonical text of the result, or "FAILED", followed by every input's
 * diagnostics and the finish's.
 */
static char *merge_all(const inputs *in, const xp_merge_opts *o, int fast)
{
	xp_merger *m = xp_merger_new(o);
	char *log = calloc(1, 1);
	size_t loglen = 0;
	xp_err err = XP_E_OK;
	for (int i = 0; i < in->n && !err; i++) {
		xp_diags *d = xp_diags_new(0);
		/* Now and then the last input as an opened profile, after
		 * inputs by path. */
		if (fast && !(i == in->n - 1 && in->n % 3 == 0)) {
			err = xp_merger_add_path(m, in->path[i], in->w[i], in->name[i], d);
		} else {
			xp_fb *fb = NULL;
			err = xp_open_any(in->path[i], &fb, d);
			if (!err)
				err = xp_merger_add(m, fb, in->w[i], in->name[i], d);
			xp_fb_free(fb);
		}
		char *s = diag_text(d);
		size_t n = strlen(s);
		char *z = realloc(log, loglen + n + 16);
		if (z) {
			loglen += (size_t)sprintf(z + loglen, "[%d] %s", i, s);
			log = z;
		}
		free(s);
		xp_diags_free(d);
	}
	if (!err)
		CHECK_EQ(xp_merger_count(m), in->n);
	xp_fb *out = NULL;
	xp_diags *d = xp_diags_new(0);
	if (!err)
		err = xp_merger_finish(m, &out, d);
	char *txt = NULL;
	size_t len = 0;
	if (!err)
		txt = result_text(out, &len);
	char *s = diag_text(d);
	char *all = malloc(len + loglen + strlen(s) + 32);
	if (all) {
		if (txt)
			memcpy(all, txt, len);
		else
			len = (size_t)sprintf(all, "FAILED %d\n", (int)err);
		sprintf(all + len, "%s[finish] %s", log ? log : "", s);
	}
	CHECK(all != NULL);
	free(s);
	free(txt);
	free(log);
	xp_fb_free(out);
	xp_diags_free(d);
	xp_merger_free(m);
	return all;
}

/*
 * The same inputs by path shared out over jobs mergers, round robin as
 * xprof_merge -j shares them, or scattered when scatter is set (any
 * share gives the same result), reduced into the first: the canonical
 * text of the result, or NULL when a step fails.
 */
static char *merge_split(const inputs *in, const xp_merge_opts *o, int jobs,
                         int scatter)
{
	xp_merger *m[3] = {xp_merger_new(o)};
	xp_diags *d = xp_diags_new(0);
	xp_err err = xp_merger_add_path(m[0], in->path[0], in->w[0],
	                                in->name[0], d);
	for (int k = 1; k < jobs; k++)
		m[k] = err ? NULL : xp_merger_new_like(m[0]);
	for (int i = 1; i < in->n && !err; i++)
		err = xp_merger_add_path(
			m[scatter ? (((uint64_t)i * 0x9e3779b97f4a7c15u) >> 40) %
			            (unsigned)jobs
			          : (uint64_t)(i - 1) % (unsigned)jobs],
			in->path[i], in->w[i], in->name[i], d);
	for (int k = 1; k < jobs; k++) {
		if (!err)
			err = xp_merger_absorb(m[0], m[k], d);
		xp_merger_free(m[k]);
	}
	xp_fb *out = NULL;
	char *txt = NULL;
	size_t len = 0;
	if (!err && !xp_merger_finish(m[0], &out, d))
		txt = result_text(out, &len);
	xp_fb_free(out);
	xp_merger_free(m[0]);
	xp_diags_free(d);
	return txt;
}

/* Writes fb (freed) as the next input, in a file of dir, with a random
 * weight. */
static void put_fb(inputs *in, const char *dir, xp_fb *fb, int as_text)
{
	int i = in->n++;
	snprintf(in->path[i], sizeof in->path[i], "%s/in%d%s", dir, i,
	         as_text ? ".text" : "");
	snprintf(in->name[i], sizeof in->name[i], "in%d", i);
	FILE *f = fopen(in->path[i], "wb");
	CHECK(f != NULL);
	if (!f || !fb) {
		xp_fb_free(fb);
		return;
	}
	size_t len = 0;
	unsigned char *buf = NULL;
	if (as_text)
		CHECK(xp_text_write_mem(fb, (char **)&buf, &len) == XP_E_OK);
	else
		buf = db_bytes(fb, &len);
	CHECK(buf && fwrite(buf, 1, len, f) == len);
	free(buf);
	CHECK(fclose(f) == 0);
	xp_fb_free(fb);
	switch (rnd() % 4) {
	case 0:
		in->w[i] = 1 + (double)(rnd() % 4);
		break;
	case 1:
		in->w[i] = 0.25 + (double)(rnd() % 7) / 3;
		break;
	default:
		in->w[i] = 1;
	}
}

static void put_input(inputs *in, const char *dir, const variant *v,
                      int as_text)
{
	put_fb(in, dir, run_profile(v), as_text);
}

/* A new directory under $TMPDIR for a test's files, in dir; 0 (the
 * test failed) when none can be made. */
static int scratch_dir(char *dir, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, size, "%s/merge_shape.XXXXXX", tmp ? tmp : "/tmp");
	if (mkdtemp(dir))
		return 1;
	printf("FAIL mkdtemp: %s\n", strerror(errno));
	unit_failed_checks++;
	return 0;
}

/*
 * The result of merging the inputs of in by path that are not bad (bad:
 * a mask): each refused, the merger going on as it was.  NULL when a
 * step fails otherwise.
 */
static char *merge_skipping(const inputs *in, unsigned bad)
{
	xp_merger *m = xp_merger_new(NULL);
	xp_diags *d = xp_diags_new(0);
	xp_err err = XP_E_OK;
	for (int i = 0; i < in->n && !err; i++) {
		err = xp_merger_add_path(m, in->path[i], 1, in->name[i], d);
		if (bad >> i & 1) {
			CHECK(err != XP_E_OK && !xp_merger_failed(m));
			err = XP_E_OK;
		}
	}
	xp_fb *out = NULL;
	char *txt = NULL;
	size_t len = 0;
	if (!err && !xp_merger_finish(m, &out, d))
		txt = result_text(out, &len);
	xp_fb_free(out);
	xp_merger_free(m);
	xp_diags_free(d);
	return txt;
}

/*
 * A database of a template's shape is checked as it is read, and its
 * counts are combined into the delta as they come: one found bad only
 * at its end (its checksum wrong, or a byte of its last table changed)
 * leaves the merge as it was, its counts taken out again, whether the
 * delta was empty or not.
 */
static void test_late_refusal(void)
{
	char dir[256];
	if (!scratch_dir(dir, sizeof dir))
		return;
	for (int round = 0; round < 40; round++) {
		inputs in;
		memset(&in, 0, sizeof in);
		int n = 2 + round % 4, at = 1 + round % (n - 1);
		for (int i = 0; i < n; i++) {
			variant v = {.big = round % 5 == 0};
			xp_fb *fb = run_profile(&v);
			size_t len = 0;
			unsigned char *buf = db_bytes(fb, &len);
			xp_fb_free(fb);
			if (i == at && buf) {
				/* The last table, IDX_SRCFILES, or the checksum. */
				if (round % 2)
					buf[len - 4] ^= 0x40;
				else
					fix_crc(buf, len);
				if (round % 2)
					fix_crc(buf, len);
				buf[XP_DBH_CRC] ^= round % 2 ? 0 : 1;
			}
			in.n++;
			snprintf(in.path[i], sizeof in.path[i], "%s/in%d", dir, i);
			snprintf(in.name[i], sizeof in.name[i], "in%d", i);
			FILE *f = fopen(in.path[i], "wb");
			CHECK(f && buf && fwrite(buf, 1, len, f) == len);
			if (f)
				fclose(f);
			free(buf);
		}
		char *a = merge_skipping(&in, 1u << at);
		unlink(in.path[at]);
		char *b = merge_skipping(&in, 1u << at);
		CHECK(a && b);
		CHECK_STR(a, b);
		free(a);
		free(b);
		for (int i = 0; i < in.n; i++)
			unlink(in.path[i]);
	}
	rmdir(dir);
}

static void test_merger(void)
{
	char dir[256];
	if (!scratch_dir(dir, sizeof dir))
		return;
	unsigned delta_runs = 0;
	for (int round = 0; round < 400; round++) {
		inputs in;
		memset(&in, 0, sizeof in);
		int rival = (int)(rnd() % 3) - 1;
		int rival_at = rival ? (int)(rnd() % 3) : -1;
		int n = 2 + (int)(rnd() % (MAXIN - 2));
		/* Up to eight layouts in any order (nine with a rival): an
		 * input of a layout seen before goes to that one's delta,
		 * while the merger keeps its template. */
		int nlay = 1 + (int)(rnd() % 8);
		int seen[8] = {0};
		for (int i = 0; i < n; i++) {
			variant v = {0};
			int lay = (int)(rnd() % (unsigned)nlay);
			if (i == rival_at) {
				v.rival = rival;
			} else {
				v.other_values = rnd() % 4 == 0;
				v.other_shape = lay & 1;
				v.other_callee = lay >> 1 & 1;
				v.no_stat = lay >> 2;
				v.big = round % 7 == 0;
				v.no_p1 = rnd() % 6 == 0;
			}
			int text = rnd() % 10 == 0;
			put_input(&in, dir, &v, text);
			if (!v.rival && !v.no_p1 && !text)
				delta_runs += seen[lay]++ > 0;
		}
		xp_merge_opts o = {(xp_merge_mode)(rnd() % 3),
		                   rnd() % 2 ? XP_MISMATCH_WARN : XP_MISMATCH_SKIP,
		                   rnd() % 5 == 0 ? 1.5 : 1, (int)(rnd() % 2), 0};
		if (round % 10 == 0)
			o.mismatch = XP_MISMATCH_ERROR;
		char *a = merge_all(&in, &o, 1);
		char *b = merge_all(&in, &o, 0);
		CHECK_STR(a, b);
		/* Shared out over mergers and reduced: the same result. */
		for (int jobs = 2; jobs <= 3 && strncmp(a, "FAILED", 6) != 0;
		     jobs++) {
			/* The result planned on threads too. */
			xp_merge_opts oj = o;
			oj.threads = (unsigned)jobs;
			char *t = merge_split(&in, &oj, jobs, jobs == 2);
			size_t tl = t ? strlen(t) : 0;
			CHECK(t && strncmp(a, t, tl) == 0 && a[tl] == '[');
			free(t);
		}
		free(a);
		free(b);
		for (int i = 0; i < in.n; i++)
			unlink(in.path[i]);
	}
	CHECK(delta_runs > 300);
	rmdir(dir);
}

/* ------------------------------------------------------------------ */
/* Inputs of one layout, written without the accumulator               */
/* ------------------------------------------------------------------ */

/* The structure of a program comes from srng (pick), the same for all
 * its runs; counts and other values from crng (C). */
static uint64_t srng, crng;

static uint32_t pick(uint32_t n)
{
	return (uint32_t)(unit_next(&srng) % n);
}

static uint64_t C(void)
{
	return unit_next(&crng);
}

static uint64_t run_count(int big)
{
	if (big && C() % 3 == 0)
		return UINT64_MAX / 2 + C() % 1000;
	return C() % 4 ? C() % 100 : 0;
}

/* Ids 1..n in a random order, or in order. */
static void ids(uint32_t *a, uint32_t n)
{
	int shuffle = pick(2);
	for (uint32_t i = 0; i < n; i++)
		a[i] = i + 1;
	for (uint32_t i = n; shuffle && i > 1; i--) {
		uint32_t j = pick(i), t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

/* A VP value of type ty; other: maybe another one than the program's. */
static void vp_value(xp_fbb *b, xp_vptype ty, int other, int big,
                     xp_vpval *vv)
{
	char name[32];
	memset(vv, 0, sizeof *vv);
	vv->has_value = pick(4) != 0;
	uint32_t base = pick(6);
	if (other && C() % 3 == 0)
		base = (uint32_t)(C() % 6);
	switch (ty) {
	case XP_VP_INT:
		vv->v.i = (int32_t)base - 2;
		break;
	case XP_VP_LLONG:
		vv->v.ll = (int64_t)base << 40;
		break;
	case XP_VP_FLOAT:
		vv->v.f = (float)base / 4;
		break;
	case XP_VP_DOUBLE:
		vv->v.d = (double)base / 8;
		break;
	case XP_VP_PROC:
		snprintf(name, sizeof name, "callee%u", base);
		vv->v.proc.name = S(b, name);
		vv->v.proc.objfile = S(b, base % 2 ? "/lib/a.o" : "/lib/b.o");
		break;
	}
	if (!vv->has_value)
		memset(&vv->v, 0, sizeof vv->v);
	/* Small counts often, so that scaling makes some equal. */
	vv->count = !vv->has_value && ty != XP_VP_PROC ? 0
	            : C() % 3           ? C() % 8
	                                : run_count(big);
}

/* The procedures of an object file of the program. */
static void random_procs(xp_fbb *b, char names[][16], uint32_t np,
                         uint32_t nvpv, int other, int big)
{
	uint32_t pid[8], cid[8];
	ids(pid, np);
	for (uint32_t p = 0; p < np; p++) {
		uint32_t nc = pick(5), nb = pick(4), ne = nb ? pick(3) : 0;
		uint32_t nt = nb ? pick(4) : 0;
		snprintf(names[p], sizeof names[p], "p%u_%u", pick(40), p);
		xp_proc pr = {.name = S(b, names[p]), .signature = pick(1000),
		              .proc_id = pid[p], .n_vp_sites = pick(3),
		              .n_srcmap_ops = nt + pick(2)};
		CHECK(xp_fbb_begin_proc(b, &pr) == XP_E_OK);
		for (uint32_t k = pick(3); k > 0; k--)
			xp_fbb_add_stat(b, pick(2) ? XP_STAT_MAX : XP_STAT_SUM, C());
		ids(cid, nc);
		for (uint32_t k = 0; k < nc; k++)
			CHECK(xp_fbb_add_counter(b, cid[k], run_count(big)) == 0);
		for (uint32_t k = nvpv ? pick(4) : 0; k > 0; k--) {
			xp_vptype ty = (xp_vptype)pick(5);
			CHECK(xp_fbb_add_vp(b, pick(3), ty) == XP_E_OK);
			for (uint32_t q = 0; q < nvpv; q++) {
				xp_vpval vv;
				vp_value(b, ty, other, big, &vv);
				CHECK(xp_fbb_add_vpval(b, &vv) == XP_E_OK);
			}
		}
		for (uint32_t k = 0; k < nb; k++)
			CHECK(xp_fbb_add_block(b, k + 1, nc && pick(2) ? 1 + pick(nc)
			                                             : 0) == 0);
		for (uint32_t k = 0; k < ne; k++) {
			xp_edge e = {k + 1, nc && pick(2) ? 1 + pick(nc) : 0, 1 + pick(nb),
			             1 + pick(nb)};
			CHECK(xp_fbb_add_edge(b, &e) == XP_E_OK);
		}
		ids(cid, pr.n_srcmap_ops);
		for (uint32_t k = 0; k < nt; k++) {
			char sf[16];
			snprintf(sf, sizeof sf, "s%u.c", pick(4));
			xp_tuple t = {cid[k], 1 + pick(nb), 1 + pick(50), pick(3),
			              pick(3) ? XP_NOSTR : S(b, sf)};
			CHECK(xp_fbb_add_tuple(b, &t) == XP_E_OK);
		}
	}
}

/*
 * A run of the program of structure shape, counts from run: object files
 * of procedures whose counters, value profiles, tuples and ids come in
 * any order, programs with OBJREFs and COMDAT_PROCs (some given twice),
 * source files whose lines and block refs come in any order (now and
 * then one given twice).  other: some value profile values are not the
 * program's; big: counts near 2^63.
 */
static xp_fb *program_run(uint64_t shape, uint64_t run, int other, int big)
{
	char paths[4][32], names[4][8][16];
	uint32_t nproc[4];
	srng = shape;
	crng = run;
	xp_fbb *b = xp_fbb_new(XP_DT_FEEDBACK, 4, 3);
	uint32_t nobj = 1 + pick(4);
	for (uint32_t o = 0; o < nobj; o++) {
		snprintf(paths[o], sizeof paths[o], "/src/m%u/f%u.o", pick(9), o);
		xp_objfile of = {.path = S(b, paths[o]), .tv_sec = 5,
		                 .n_values_per_vp = pick(3), .signature = 16 + o,
		                 .n_srcfile_names = pick(3)};
		CHECK(xp_fbb_begin_objfile(b, &of) == XP_E_OK);
		for (uint32_t k = pick(3); k > 0; k--)
			xp_fbb_add_stat(b, pick(2) ? XP_STAT_MAX : XP_STAT_SUM, C());
		nproc[o] = pick(7);
		random_procs(b, names[o], nproc[o], of.n_values_per_vp, other, big);
	}
	for (uint32_t g = pick(3); g > 0; g--) {
		char path[16];
		snprintf(path, sizeof path, "prog%u", g);
		CHECK(xp_fbb_begin_program(b, S(b, path)) == XP_E_OK);
		for (uint32_t k = pick(3); k > 0; k--)
			xp_fbb_add_stat(b, pick(2) ? XP_STAT_MAX : XP_STAT_SUM, C());
		for (uint32_t k = pick(4); k > 0; k--)
			CHECK(xp_fbb_add_objref(b, S(b, paths[pick(nobj)])) == 0);
		for (uint32_t k = pick(4); k > 0; k--) {
			char proc[16];
			snprintf(proc, sizeof proc, "c%u", pick(3));
			CHECK(xp_fbb_add_comdat(b, S(b, proc),
			                        S(b, paths[pick(nobj)])) == 0);
		}
	}
	for (uint32_t f = pick(4); f > 0; f--) {
		char path[16];
		snprintf(path, sizeof path, "s%u.c", f);
		CHECK(xp_fbb_begin_srcfile(b, S(b, path)) == XP_E_OK);
		uint32_t nl = pick(5), twice = pick(12) == 0, dup = pick(12) == 0;
		for (uint32_t k = 0; k < nl; k++) {
			uint32_t line = pick(4) ? 1 + 3 * k + pick(3) : 1 + pick(3 * nl);
			CHECK(xp_fbb_begin_srcline(b, twice && k ? 1 : line,
			                           pick(2)) == XP_E_OK);
			for (uint32_t q = 1 + pick(3); q > 0; q--) {
				uint32_t o = pick(nobj), p = pick(nproc[o] + 1);
				xp_blockref r = {dup ? 1 + pick(3) : q, run_count(big),
				                 S(b, p < nproc[o] ? names[o][p] : "gone"),
				                 S(b, paths[o])};
				CHECK(xp_fbb_add_blockref(b, &r) == XP_E_OK);
			}
		}
	}
	xp_fb *fb = NULL;
	CHECK(xp_fbb_finish(b, &fb) == XP_E_OK);
	xp_fbb_free(b);
	return fb;
}

/* Whether merging in by path leaves the merger holding a lazy template
 * that it writes the result from (merge_flat.c). */
static int flat_result(const inputs *in, const xp_merge_opts *o)
{
	xp_merger *m = xp_merger_new(o);
	xp_diags *d = xp_diags_new(0);
	xp_err err = XP_E_OK;
	for (int i = 0; i < in->n && !err; i++)
		err = xp_merger_add_path(m, in->path[i], in->w[i], in->name[i], d);
	product P;
	memset(&P, 0, sizeof P);
	int flat = !err && xp_merge_flat_plan(m, &P, d, &err) && !err;
	if (P.release)
		P.release(P.ctx);
	xp_diags_free(d);
	xp_merger_free(m);
	return flat;
}

/*
 * Runs of random programs, merged by path (the result written from the
 * first and the counts of the others when the merger can) and added one
 * by one (the accumulator): the same result and messages, under every
 * mode, weight, scale and --sparse; shared out over mergers and reduced,
 * the same result.
 */
static void test_one_layout(void)
{
	char dir[256];
	if (!scratch_dir(dir, sizeof dir))
		return;
	unsigned flat = 0;
	for (int round = 0; round < 400; round++) {
		inputs in;
		memset(&in, 0, sizeof in);
		uint64_t shape = rnd();
		int n = 1 + (int)(rnd() % 5);
		for (int i = 0; i < n; i++)
			put_fb(&in, dir, program_run(shape, rnd(), rnd() % 3 == 0,
			                             round % 9 == 0),
			       0);
		xp_merge_opts o = {(xp_merge_mode)(rnd() % 3), XP_MISMATCH_WARN,
		                   rnd() % 5 == 0 ? 1.5 : rnd() % 4 == 0 ? 0.5 : 1,
		                   rnd() % 6 == 0, 0};
		char *a = merge_all(&in, &o, 1);
		char *b = merge_all(&in, &o, 0);
		CHECK_STR(a, b);
		for (int jobs = 2; jobs <= 3 && n > 1; jobs++) {
			/* The result planned on threads too. */
			xp_merge_opts oj = o;
			oj.threads = (unsigned)jobs;
			char *t = merge_split(&in, &oj, jobs, jobs == 2);
			size_t tl = t ? strlen(t) : 0;
			CHECK(t && strncmp(a, t, tl) == 0 && a[tl] == '[');
			free(t);
		}
		flat += flat_result(&in, &o);
		free(a);
		free(b);
		for (int i = 0; i < in.n; i++)
			unlink(in.path[i]);
	}
	/* Most results were written from the template. */
	CHECK(flat > 180);
	rmdir(dir);
}

int main(void)
{
	RUN(test_reader);
	RUN(test_reader_vp_proc);
	RUN(test_merger);
	RUN(test_late_refusal);
	RUN(test_one_layout);
	return unit_done();
}
