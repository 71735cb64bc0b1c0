/*
 * mpatrol.c - unit tests of the mpatrol module through the library:
 * mprof's report (xp_prof_report()) with mprof --counts, its bins, rows
 * and totals compared with the tables mprof printed for the real files
 * (tests/mpatrol.sh compares xprof_show --counts with them whole); the
 * model's accessors, weighted merges, the conversion to feedback, and
 * the robustness of both readers and of the report on every prefix and
 * on changed bytes of real files (whatever the readers accept must be
 * lossless).
 *
 * Environment: SRCDIR (the source tree; the real files are in
 * $SRCDIR/../shared/realdata/mpatrol).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "unit.h"
#include "xprof.h"
#include "xprof_mpatrol.h"

static char realdir[4096];

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

static uint64_t sum4(const uint64_t v[4])
{
	return v[0] + v[1] + v[2] + v[3];
}

/* The blank-separated fields of a line of mprof's output. */
typedef struct {
	char f[16][128];
	int n;
} fields;

static void split(const char *line, fields *fs)
{
	int len;

	fs->n = 0;
	while (fs->n < 16 && sscanf(line, "%127s%n", fs->f[fs->n], &len) == 1) {
		line += len;
		fs->n++;
	}
}

/* Field i as a number; from the end when i < 0 (-1: the last). */
static uint64_t num(const fields *fs, int i)
{
	if (i < 0)
		i += fs->n;
	return i >= 0 && i < fs->n ? strtoull(fs->f[i], NULL, 10) : UINT64_MAX;
}

/*
 * The rows of mprof's table titled title among lines[0..n): the lines
 * after the column headings (the first line after the title that holds
 * heading) and the empty line under them, up to an empty line; *total
 * gets the total line after them.  Returns the first row's number.
 */
static size_t table(char **lines, size_t n, const char *title,
                    const char *heading, size_t *nrows, const char **total)
{
	size_t i = 0, first;

	*nrows = 0;
	*total = "";
	while (i < n && strstr(lines[i], title) == NULL)
		i++;
	while (i < n && strstr(lines[i], heading) == NULL)
		i++;
	first = i += 2;
	while (i < n && lines[i][0] != '\0')
		i++;
	*nrows = i < n ? i - first : 0;
	if (*nrows > 0)
		i++;
	if (i < n)
		*total = lines[i];
	return first;
}

/* Splits text into its lines, in place. */
static char **lines_of(char *text, size_t *n)
{
	size_t cap = 1;
	char **l;

	for (char *p = text; *p != '\0'; p++)
		cap += *p == '\n';
	if ((l = calloc(cap, sizeof *l)) == NULL)
		return NULL;
	*n = 0;
	for (char *p = text; *p != '\0'; ) {
		char *e = strchr(p, '\n');
		l[(*n)++] = p;
		if (e == NULL)
			break;
		*e = '\0';
		p = e + 1;
	}
	return l;
}

static void check_bins(const xp_mpatrol_report *r, char **lines, size_t n)
{
	const xp_mpatrol_totals *t = xp_mpatrol_report_totals(r);
	const char *total;
	size_t nr, at = table(lines, n, "ALLOCATION BINS", "size   count",
	                      &nr, &total);
	fields fs;

	CHECK_EQ(xp_mpatrol_report_nbins(r), nr);
	for (size_t i = 0; i < nr && i < xp_mpatrol_report_nbins(r); i++) {
		const xp_mpatrol_bin *b = xp_mpatrol_report_bin(r, i);
		int k = strstr(lines[at + i], ">=") != NULL;

		split(lines[at + i], &fs);
		CHECK_EQ(b->or_more, k);
		CHECK_EQ_U64(b->size, num(&fs, k));
		CHECK_EQ_U64(b->count, num(&fs, k + 1));
		CHECK_EQ_U64(b->bytes, num(&fs, k + 3));
		CHECK_EQ_U64(b->unfreed_count, num(&fs, k + 5));
		CHECK_EQ_U64(b->unfreed_bytes, num(&fs, k + 7));
	}
	split(total, &fs);
	CHECK_STR(fs.f[0], "total");
	CHECK_EQ_U64(t->count, num(&fs, 1));
	CHECK_EQ_U64(t->bytes, num(&fs, 2));
	CHECK_EQ_U64(t->unfreed_count, num(&fs, 3));
	CHECK_EQ_U64(t->unfreed_bytes, num(&fs, 4));
}

/* Direct allocations with --counts: count first, bytes and the
 * function last. */
static void check_direct(const xp_mpatrol_report *r, char **lines,
                         size_t n)
{
	const char *total;
	size_t nr, at = table(lines, n, "DIRECT ALLOCATIONS", "function", &nr,
	                      &total);
	fields fs;

	CHECK(nr > 0);
	CHECK_EQ(xp_mpatrol_report_ndirect(r), nr);
	for (size_t i = 0; i < nr && i < xp_mpatrol_report_ndirect(r); i++) {
		const xp_mpatrol_direct *x = xp_mpatrol_report_direct(r, i);

		split(lines[at + i], &fs);
		CHECK_EQ_U64(x->key, num(&fs, 0));
		CHECK_EQ_U64(sum4(x->sums.acount), num(&fs, 0));
		CHECK_EQ_U64(sum4(x->sums.atotal), num(&fs, -2));
		CHECK_STR(x->function, fs.f[fs.n - 1]);
	}
	split(total, &fs);
	CHECK_STR(fs.f[fs.n - 1], "total");
	CHECK_EQ_U64(sum4(xp_mpatrol_report_direct_total(r)->acount),
	             num(&fs, 0));
	CHECK_EQ_U64(sum4(xp_mpatrol_report_direct_total(r)->atotal),
	             num(&fs, -2));
}

/* Memory leaks with --counts: %, unfreed count, %, unfreed bytes, %,
 * count, bytes, function. */
static void check_leaks(const xp_mpatrol_report *r, char **lines, size_t n)
{
	const char *total;
	size_t nr, at = table(lines, n, "MEMORY LEAKS", "function", &nr,
	                      &total);
	fields fs;

	CHECK_EQ(xp_mpatrol_report_nleaks(r), nr);
	for (size_t i = 0; i < nr && i < xp_mpatrol_report_nleaks(r); i++) {
		const xp_mpatrol_leak *l = xp_mpatrol_report_leak(r, i);

		split(lines[at + i], &fs);
		CHECK_EQ(fs.n, 8);
		CHECK_EQ(l->depth, 1);
		CHECK_EQ_U64(l->key, num(&fs, 1));
		CHECK_EQ_U64(sum4(l->sums.ucount), num(&fs, 1));
		CHECK_EQ_U64(sum4(l->sums.utotal), num(&fs, 3));
		CHECK_EQ_U64(sum4(l->sums.acount), num(&fs, 5));
		CHECK_EQ_U64(sum4(l->sums.atotal), num(&fs, 6));
		CHECK_STR(l->stack[0], fs.f[7]);
	}
	split(total, &fs);
	CHECK_STR(fs.f[fs.n - 1], "total");
}

/*
 * The report of file with mprof --counts, through xp_prof_report(), has
 * the bins, rows and totals of the tables mprof printed, in mprof's
 * order.
 */
static void check_counts(const char *file, const char *expected)
{
	xp_prof *p = open_real(file);
	xp_report_opts o = { .counts = 1 };
	xp_diags *d = xp_diags_new(0);
	xp_report *rep = NULL;
	const xp_mpatrol_report *r;
	char path[4200], *want, **lines = NULL;
	size_t wlen, n = 0;

	snprintf(path, sizeof path, "%s/%s", realdir, expected);
	want = unit_slurp(path, &wlen);
	CHECK(p != NULL && want != NULL);
	if (p == NULL || want == NULL || (lines = lines_of(want, &n)) == NULL)
		goto out;
	CHECK_EQ(xp_prof_report(p, &o, file, &rep, d), XP_E_OK);
	if (rep == NULL)
		goto out;
	CHECK(xp_report_format(rep) == XP_FMT_MPATROL);
	r = xp_report_model(rep);
	CHECK(xp_mpatrol_report_by_counts(r));
	CHECK_EQ_U64(xp_mpatrol_report_stack_depth(r), 1);
	check_bins(r, lines, n);
	check_direct(r, lines, n);
	check_leaks(r, lines, n);
out:
	xp_report_free(rep);
	xp_diags_free(d);
	free(lines);
	free(want);
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
		CHECK_EQ(pr.proc_id, 1);
		/* One counter, the self cost: bytes allocated. */
		CHECK_EQ(pr.n_counters, 1);
		xp_fb_counter(fb, pr.first_counter + 0, &cn);
		CHECK_EQ(cn.id, 1);
		CHECK_EQ(cn.value, 2970);
	}
	xp_fb_free(fb);
	xp_prof_free(p);
	xp_diags_free(d);
}

/*
 * The report of p, with the options that len picks, through
 * xp_prof_report(): every row, name, vertex and edge can be walked, and
 * their references hold (the sanitizer build checks memory).
 */
static int report_ok(const xp_prof *p, size_t len)
{
	xp_report_opts o = {
		.call_graph = 1,
		.lines = (int)(len & 1),
		.stack_depth_given = 1,
		.stack_depth = len % 3,
		.counts = (int)(len >> 1 & 1),
	};
	xp_diags *d = xp_diags_new(0);
	xp_report *rep = NULL;
	const xp_mpatrol_report *r;
	size_t nv, ne, names = 0;
	int ok;

	ok = d != NULL && xp_prof_report(p, &o, "mem", &rep, d) == XP_E_OK;
	xp_diags_free(d);
	if (!ok)
		return 0;
	r = xp_report_model(rep);
	nv = xp_mpatrol_report_nvertices(r);
	ne = xp_mpatrol_report_nedges(r);
	ok = xp_mpatrol_report_nsites(r) ==
	     ((const xp_mpatrol *)xp_prof_model(p))->nsites;
	for (size_t i = 0; i < xp_mpatrol_report_ndirect(r); i++)
		names += strlen(xp_mpatrol_report_direct(r, i)->function);
	for (size_t i = 0; i < xp_mpatrol_report_nleaks(r); i++) {
		const xp_mpatrol_leak *l = xp_mpatrol_report_leak(r, i);
		ok &= l->depth >= 1 && l->key != 0 &&
		      (o.stack_depth == 0 || l->depth <= o.stack_depth);
		for (size_t k = 0; k < l->depth; k++)
			names += strlen(l->stack[k]);
	}
	for (size_t i = 0; i < nv; i++) {
		const xp_mpatrol_vertex *v = xp_mpatrol_report_vertex(r, i);
		ok &= v->index == i + 1;
		names += strlen(v->function);
		for (size_t k = 0; k < v->nparents; k++)
			ok &= v->parents[k] < ne &&
			      xp_mpatrol_report_edge(r, v->parents[k])->to ==
			      v->index;
		for (size_t k = 0; k < v->nchildren; k++)
			ok &= v->children[k] < ne &&
			      xp_mpatrol_report_edge(r, v->children[k])->from ==
			      v->index;
	}
	for (size_t i = 0; i < ne; i++)
		ok &= xp_mpatrol_report_edge(r, i)->from <= nv &&
		      xp_mpatrol_report_edge(r, i)->to <= nv;
	ok &= xp_mpatrol_report_edge(r, ne) == NULL && names < SIZE_MAX;
	xp_report_free(rep);
	return ok;
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
		if (!report_ok(p, len))
			ok = 0;
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
	RUN(counts_test);
	RUN(counts_cc1);
	RUN(counts_mptest1);
	RUN(accessors);
	RUN(weighted_merge);
	RUN(feedback);
	RUN(robustness);
	RUN(text_robustness);
	return unit_done();
}
