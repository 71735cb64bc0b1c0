/*
 * cpuprof_merge.c - property tests of the sum of CPU profiles
 * (lib/cpuprof/merge.c and merge_maps.c; cpuprofile(5), MERGING).
 *
 * Random profiles of one program whose objects sit at random addresses,
 * so that objects of different profiles overlap one another and PCs that
 * lie in no object of their own profile (strays), with several sampling
 * periods, byte orders and header lengths, are summed through
 * xp_prof_merge:
 *
 *  - in any order, with integer or fractional weights, the sum has the
 *    same bytes;
 *  - when no two objects' addresses overlap and there are no strays,
 *    summing sums (written to a file and read back) gives the bytes of
 *    summing all at once;
 *  - whatever the addresses, the sum holds the samples of its inputs:
 *    the weighted count of every leaf PC, by object and file offset (what
 *    a reader symbolizes), or by address for strays.
 */
#include <stdlib.h>

#include "unit.h"
#include "xprof.h"
#include "xprof_cpuprof.h"

/* The objects a profile may map: path, file offset and size of their
 * executable segment. */
static const struct {
	const char *path;
	uint64_t offset, size;
} objs[] = {
	{"/bin/app", 0x1000, 0x2000},
	{"/lib/libc.so.6", 0x26000, 0x5000},
	{"/lib/libm.so.6", 0x10000, 0x3000},
	{"[vdso]", 0, 0x2000},
};
#define NOBJ (sizeof objs / sizeof objs[0])

/* A generated profile: its text and where it mapped each object. */
typedef struct {
	char *text;
	size_t len;
	uint64_t start[NOBJ];   /* 0: not mapped */
} gen;

/* A growing text. */
typedef struct {
	char *p;
	size_t len, cap;
} sbuf;

static void put(sbuf *b, const char *s)
{
	size_t n = strlen(s);

	if (b->len + n + 1 > b->cap) {
		size_t cap = 2 * (b->len + n + 1);
		char *q = realloc(b->p, cap);
		CHECK(q != NULL);
		if (q == NULL)
			return;
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n + 1);
	b->len += n;
}

/* Where object i goes in a profile: in clash mode anywhere in a small
 * range (objects of different profiles overlap), otherwise in a region
 * of its own.  0 when it overlaps another object of the profile. */
static uint64_t place_obj(const gen *g, size_t i, int clash, uint64_t *rs)
{
	uint64_t s = clash ? 0x100000 * (1 + unit_next(rs) % 6) +
	                     0x1000 * (unit_next(rs) % 4)
	                   : 0x1000000 * (i + 1) + 0x10000 * (unit_next(rs) % 8);

	for (size_t j = 0; j < NOBJ; j++)
		if (g->start[j] != 0 && s < g->start[j] + objs[j].size &&
		    g->start[j] < s + objs[i].size)
			return 0;
	return s;
}

/* A PC for position k of a chain: in a mapped object (a caller's return
 * address just after its call), or a stray. */
static uint64_t some_pc(const gen *g, size_t k, int clash, uint64_t *rs)
{
	size_t i = unit_next(rs) % NOBJ;

	if (g->start[i] == 0 || unit_next(rs) % 5 == 0) {
		if (!clash)
			return 0x7000000000 + unit_next(rs) % 0x10000;
		/* Anywhere, also where other profiles map objects; never
		 * inside an object of this one. */
		for (;;) {
			uint64_t pc = 0x100000 + unit_next(rs) % 0x700000, a;
			int in = 0;
			a = k > 0 ? pc - 1 : pc;
			for (size_t j = 0; j < NOBJ; j++)
				in |= g->start[j] != 0 && a >= g->start[j] &&
				      a < g->start[j] + objs[j].size;
			if (!in)
				return pc;
		}
	}
	return g->start[i] + unit_next(rs) % objs[i].size + (k > 0);
}

static void gen_maps(gen *g, sbuf *b, uint64_t *rs)
{
	char line[160];
	int build = unit_next(rs) % 3 == 0;

	/* "$build/app" is "/bin/app" after the build line. */
	if (build)
		put(b, "map build=/bin\n");
	for (size_t i = 0; i < NOBJ; i++) {
		if (g->start[i] == 0)
			continue;
		snprintf(line, sizeof line,
		         "map %08llx-%08llx r-xp %08llx 08:01 %u %s\n",
		         (unsigned long long)g->start[i],
		         (unsigned long long)(g->start[i] + objs[i].size),
		         (unsigned long long)objs[i].offset, (unsigned)i + 40,
		         i == 0 && build ? "$build/app" : objs[i].path);
		put(b, line);
	}
	/* What the sum leaves out, and lines it keeps once. */
	put(b, "map 7ff000000000-7ff000021000 rw-p 00000000 00:00 0 [stack]\n");
	put(b, "map 7ff100000000-7ff100001000 r-xp 00000000 00:00 0\n");
	snprintf(line, sizeof line, "map # note %u\n",
	         (unsigned)(unit_next(rs) % 3));
	put(b, line);
}

/* A random profile; period 1000 unless periods, then 1000 to 10000. */
static gen gen_profile(uint64_t *rs, int clash, int periods)
{
	static const unsigned per[] = {1000, 2000, 4000, 10000};
	static const char *const tails[] = {"3 0 %u 0", "4 0 %u 0 7",
	                                    "4 0 %u 0 0"};
	gen g = {0};
	sbuf b = {0};
	char line[128], tail[64];
	size_t nrec = 1 + unit_next(rs) % 6;

	for (size_t i = 0; i < NOBJ; i++)
		if (unit_next(rs) % 8 != 0)
			g.start[i] = place_obj(&g, i, clash, rs);
	snprintf(tail, sizeof tail, tails[unit_next(rs) % 6 / 4 *
	                                  (1 + unit_next(rs) % 2)],
	         periods ? per[unit_next(rs) % 4] : 1000);
	snprintf(line, sizeof line, "CPUPROF-TEXT 1\nlayout 64%s\nheader 0 %s\n",
	         unit_next(rs) % 2 ? "le" : "be", tail);
	put(&b, line);
	for (size_t r = 0; r < nrec; r++) {
		size_t n = 1 + unit_next(rs) % 4;
		snprintf(line, sizeof line, "sample %u",
		         (unsigned)(unit_next(rs) % 20));
		put(&b, line);
		for (size_t k = 0; k < n; k++) {
			snprintf(line, sizeof line, " 0x%llx",
			         (unsigned long long)some_pc(&g, k, clash, rs));
			put(&b, line);
		}
		put(&b, "\n");
	}
	put(&b, "trailer\n");
	gen_maps(&g, &b, rs);
	g.text = b.p;
	g.len = b.len;
	return g;
}

static xp_prof *open_mem(const void *buf, size_t len)
{
	xp_diags *d = xp_diags_new(0);
	xp_prof *p = NULL;

	CHECK(xp_prof_open_mem(buf, len, "t", NULL, &p, d) == XP_E_OK);
	xp_diags_free(d);
	return p;
}

/* The binary file of the sum of the profiles in order ord, or NULL. */
static unsigned char *sum(xp_prof *const *in, const double *w,
                          const size_t *ord, size_t n, size_t *len)
{
	static const xp_prof_merge_opts o = {.rescale = 1};
	xp_diags *d = xp_diags_new(0);
	xp_prof *acc = NULL;
	unsigned char *buf = NULL;

	*len = 0;
	for (size_t i = 0; i < n; i++)
		CHECK(xp_prof_merge(&acc, in[ord[i]], w[ord[i]], &o, "t", d) ==
		      XP_E_OK);
	if (acc != NULL)
		CHECK(xp_prof_write_mem(acc, 0, &buf, len) == XP_E_OK);
	xp_prof_free(acc);
	xp_diags_free(d);
	return buf;
}

static void shuffle(size_t *ord, size_t n, uint64_t *rs)
{
	for (size_t i = 0; i < n; i++)
		ord[i] = i;
	for (size_t i = n; i > 1; i--) {
		size_t j = unit_next(rs) % i, t = ord[i - 1];
		ord[i - 1] = ord[j];
		ord[j] = t;
	}
}

/* n random profiles, opened, with their weights. */
static void make(xp_prof **in, double *w, size_t n, uint64_t *rs, int clash,
                 int periods, int fractions)
{
	static const double iw[] = {1, 2, 3}, fw[] = {0.5, 1, 1.5, 2.25};

	for (size_t i = 0; i < n; i++) {
		gen g = gen_profile(rs, clash, periods);
		in[i] = open_mem(g.text, g.len);
		w[i] = fractions ? fw[unit_next(rs) % 4] : iw[unit_next(rs) % 3];
		free(g.text);
	}
}

static void drop(xp_prof **in, size_t n)
{
	for (size_t i = 0; i < n; i++)
		xp_prof_free(in[i]);
}

/* Any order, any weights, objects in one another's way: the same bytes. */
static void test_order(void)
{
	uint64_t rs = 0x9e3779b97f4a7c15u;

	for (int round = 0; round < 200; round++) {
		xp_prof *in[6];
		double w[6];
		size_t n = 2 + unit_next(&rs) % 5, ord[6], l0, l1;
		unsigned char *b0, *b1;

		make(in, w, n, &rs, 1, round % 2, round % 3 == 0);
		for (size_t i = 0; i < n; i++)
			ord[i] = i;
		b0 = sum(in, w, ord, n, &l0);
		for (int t = 0; t < 3; t++) {
			shuffle(ord, n, &rs);
			b1 = sum(in, w, ord, n, &l1);
			CHECK(b0 != NULL && b1 != NULL);
			CHECK_MEM(b0, l0, b1, l1);
			free(b1);
		}
		free(b0);
		drop(in, n);
	}
}

/* The sum of the profiles in order ord, written to a file and read
 * back as an input. */
static xp_prof *sum_file(xp_prof *const *in, const double *w,
                         const size_t *ord, size_t n)
{
	size_t len;
	unsigned char *b = sum(in, w, ord, n, &len);
	xp_prof *p = b != NULL ? open_mem(b, len) : NULL;

	free(b);
	return p;
}

/* Objects out of one another's way: a sum of sums is the sum. */
static void test_tree(void)
{
	uint64_t rs = 0x2545f4914f6cdd1du;

	for (int round = 0; round < 200; round++) {
		xp_prof *in[6], *part[2];
		double w[6], one[2] = {1, 1};
		size_t n = 2 + unit_next(&rs) % 5, ord[6], k, l0, l1;
		size_t two[2] = {0, 1};
		unsigned char *b0, *b1;

		make(in, w, n, &rs, 0, round % 2, 0);
		shuffle(ord, n, &rs);
		b0 = sum(in, w, ord, n, &l0);
		k = 1 + unit_next(&rs) % (n - 1);
		part[0] = sum_file(in, w, ord, k);
		part[1] = sum_file(in, w, ord + k, n - k);
		CHECK(part[0] != NULL && part[1] != NULL);
		if (part[0] != NULL && part[1] != NULL) {
			b1 = sum(part, one, two, 2, &l1);
			CHECK(b0 != NULL && b1 != NULL);
			CHECK_MEM(b0, l0, b1, l1);
			free(b1);
		}
		drop(part, 2);
		free(b0);
		drop(in, n);
	}
}

/* A leaf PC as a reader sees it: object and file offset, or address. */
typedef struct {
	const char *path;
	uint64_t off, count;
} leaf;

static int cmp_leaf(const void *x, const void *y)
{
	const leaf *a = x, *b = y;
	int c = strcmp(a->path, b->path);

	if (c != 0)
		return c;
	return a->off < b->off ? -1 : a->off > b->off;
}

/* The leaves of m, counts times f, appended to v. */
static size_t leaves(const xp_cpuprof *m, uint64_t f, leaf *v, size_t n)
{
	for (size_t i = 0; i < xp_cpuprof_n_records(m); i++) {
		xp_cpuprof_rec r;
		leaf l;

		xp_cpuprof_record(m, i, &r);
		l = (leaf){"", r.pcs[0], r.count * f};
		for (size_t j = 0; j < xp_cpuprof_n_maps(m); j++) {
			const xp_cpuprof_map *mp = xp_cpuprof_map_get(m, j);
			if (mp->perms[2] == 'x' && mp->path[0] != '\0' &&
			    r.pcs[0] >= mp->start && r.pcs[0] < mp->end) {
				l.path = mp->path;
				l.off = r.pcs[0] - mp->start + mp->offset;
				break;
			}
		}
		v[n++] = l;
	}
	return n;
}

/* v sorted, equal leaves summed; the new length. */
static size_t combine(leaf *v, size_t n)
{
	size_t k = 0;

	qsort(v, n, sizeof *v, cmp_leaf);
	for (size_t i = 0; i < n; i++)
		if (k > 0 && cmp_leaf(&v[k - 1], &v[i]) == 0)
			v[k - 1].count += v[i].count;
		else
			v[k++] = v[i];
	return k;
}

/* Whatever moved, the sum holds the inputs' samples where a reader
 * finds them. */
static void test_samples(void)
{
	uint64_t rs = 0x853c49e6748fea9bu;

	for (int round = 0; round < 200; round++) {
		xp_prof *in[6], *s;
		double w[6];
		size_t n = 2 + unit_next(&rs) % 5, ord[6], na = 0, nb;
		leaf a[6 * 8], b[6 * 8];

		make(in, w, n, &rs, 1, round % 2, 0);
		shuffle(ord, n, &rs);
		s = sum_file(in, w, ord, n);
		CHECK(s != NULL);
		if (s != NULL) {
			const xp_cpuprof *sm = xp_prof_model(s);
			uint64_t g = xp_cpuprof_period(sm);
			for (size_t i = 0; i < n; i++) {
				const xp_cpuprof *m = xp_prof_model(in[i]);
				na = leaves(m, (uint64_t)w[i] *
				            (xp_cpuprof_period(m) / g), a, na);
			}
			na = combine(a, na);
			nb = combine(b, leaves(sm, 1, b, 0));
			CHECK_EQ(na, nb);
			for (size_t i = 0; i < na && i < nb; i++) {
				CHECK_STR(a[i].path, b[i].path);
				CHECK_EQ_U64(a[i].off, b[i].off);
				CHECK_EQ_U64(a[i].count, b[i].count);
			}
		}
		xp_prof_free(s);
		drop(in, n);
	}
}

int main(void)
{
	RUN(test_order);
	RUN(test_tree);
	RUN(test_samples);
	return unit_done();
}
