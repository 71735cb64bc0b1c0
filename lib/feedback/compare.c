/*
 * feedback/compare.c - comparing two feedback profiles: the computations
 * behind xprof_diff(1).  Summarizing one, for xprof_show(1), is summary.c.
 *
 * The comparison walks both profiles' sorted indexes side by side (object
 * files by path, procedures by object file path and name), so matching
 * needs no hash table.  Strings are compared once: each side's string
 * table is sorted, so one walk over both gives every string a rank that
 * orders and equates strings across the two sides, and every later
 * comparison of names is one of integers (when the two tables are the
 * same bytes, the ids themselves are the ranks).
 *
 * Inside a procedure the records that carry an id are keyed by it, and
 * records that form sets (stats, value profile values, source lines, ...)
 * are compared regardless of their order.  Two versions of a profile
 * almost always list such a set in the same order, so a set is first
 * compared record by record (slices as bytes where that decides);
 * from the first record that differs on, order-independent sums over
 * each side's remaining records (of linear functions of their words,
 * then of hashes) settle that the sets differ when they differ.  Only
 * when the records differ in order but the sums agree are the remaining
 * records sorted and compared exactly, so no collision can change an
 * answer.  Two databases of one layout (xp_fb.like: B was checked
 * against A byte for byte) differ in nothing but values, and what they
 * share is not compared at all.
 *
 * Counters are joined by id in place: a procedure's ids are 1 to n.  Of
 * two databases of one layout, the counters at the same records are the
 * same ids, and they are not joined at all.  The whole profile's sums
 * come from the reader, each object file's are taken in one sweep over
 * its procedures, and then one pass over the procedures, in index order,
 * adds each counter's share to the overlaps of its procedure, object
 * file and profile.  Of one layout, the sweep also takes each
 * procedure's sums and adds the shares of the profile's overlap.
 *
 * Sums of counts are kept exactly in 128 bits, and the overlap is summed
 * exactly as a fraction of integers, so no rounding can turn equal
 * profiles into different ones, and no order of the counters changes a
 * figure.  Only the overlap's final quotient is a floating-point number.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feedback/compare.h"

/* ------------------------------------------------------------------ */
/* Overlap                                                             */
/* ------------------------------------------------------------------ */

/*
 * The overlap sum over i of min(a_i / sum_a, b_i / sum_b) is the
 * fraction N / D of the integers D = sum_a * sum_b and N = sum over i of
 * min(a_i * sum_b, b_i * sum_a), which is sum_b * X_a + sum_a * X_b, with
 * X_a the sum of the a_i whose share is the smaller (or equal) and X_b
 * that of the other b_i.  So the figure is exact up to one division at
 * the end; it does not depend on the order of the counters; no division
 * is made per counter, only the products that decide which share is the
 * smaller; and the overlap is 1 exactly when N = D, which is when every
 * pair is proportional to the sums (each term is at most a_i * sum_b,
 * whose sum is D).
 */
typedef struct {
	u128 sa, sb;
	int none;   /* a sum is 0 */
	int narrow; /* both sums below 2^64 */
	u128n xa, xb; /* X_a and X_b: at most sum_a and sum_b */
} ovl;

static void ovl_start(ovl *o)
{
	o->xa = o->xb = 0;
	o->none = u128_zero(o->sa) || u128_zero(o->sb);
	o->narrow = o->sa.hi == 0 && o->sb.hi == 0;
}

/* x * (hi * 2^64 + lo) as t * 2^64 + w (t below 2^128 - 2^64). */
static inline void mul192(uint64_t x, uint64_t hi, uint64_t lo, u128n *t,
                          uint64_t *w)
{
	u128n l = (u128n)x * lo;

	*w = (uint64_t)l;
	*t = (u128n)x * hi + (uint64_t)(l >> 64);
}

/* Value i of p: of an array of uint64_t, or with rec of COUNTERS
 * records. */
static inline __attribute__((always_inline)) uint64_t
val_at(const void *p, size_t i, int rec)
{
	if (rec)
		return xp_get_le64((const unsigned char *)p + i * XP_RS_COUNTER +
		                   XP_CN_VALUE);
	return ((const uint64_t *)p)[i];
}

/*
 * Adds to X_a or X_b the counters a[i], b[i] (i < n; rec: see val_at),
 * deciding which share is the smaller by a[i] * hb against b[i] * ha.
 * Narrow, (ha, hb) are the sums and decide every pair, and X_a and X_b,
 * at most the sums, fit in 64 bits.  Wide, they are the sums' top 64 bits
 * (ovl_add_by) and decide a pair only when its two ranges do not meet;
 * the other pairs are left out, and the result says whether there were
 * any.  Which share is the smaller is unpredictable, so it is
 * chosen by masks, not branches.
 */
static inline __attribute__((always_inline)) int
add_by(ovl *o, const void *a, const void *b, int rec, size_t n, uint64_t ha,
       uint64_t hb, int wide)
{
	int left = 0;

	if (!wide) {
		uint64_t xa = (uint64_t)o->xa, xb = (uint64_t)o->xb;
		for (size_t i = 0; i < n; i++) {
			uint64_t x = val_at(a, i, rec), y = val_at(b, i, rec);
			uint64_t m = (uint64_t)0 -
			             ((u128n)x * hb <= (u128n)y * ha);
			xa += x & m;
			xb += y & ~m;
		}
		o->xa = xa;
		o->xb = xb;
		return 0;
	}
	/* The sums in halves: the compiler keeps them in registers. */
	uint64_t al = (uint64_t)o->xa, ah = (uint64_t)(o->xa >> 64);
	uint64_t bl = (uint64_t)o->xb, bh = (uint64_t)(o->xb >> 64);
	for (size_t i = 0; i < n; i++) {
		uint64_t x = val_at(a, i, rec), y = val_at(b, i, rec);
		u128n p = (u128n)x * hb, q = (u128n)y * ha;
		/* Decided only when the ranges do not meet. */
		uint64_t le = p + x <= q, gt = q + y <= p;
		uint64_t u = x & ((uint64_t)0 - le), v = y & ((uint64_t)0 - gt);
		left |= !(le | gt);
		al += u;
		ah += al < u;
		bl += v;
		bh += bl < v;
	}
	o->xa = (u128n)ah << 64 | al;
	o->xb = (u128n)bh << 64 | bl;
	return left;
}

/* Wide: the sums' top 64 bits that add_by() decides most pairs by. */
static inline void ovl_tops(const ovl *o, uint64_t *ha, uint64_t *hb)
{
	uint64_t top = o->sa.hi > o->sb.hi ? o->sa.hi : o->sb.hi;
	int s = 64 - __builtin_clzll(top);

	*ha = (uint64_t)(u128_native(o->sa) >> s);
	*hb = (uint64_t)(u128_native(o->sb) >> s);
}

/* Wide: adds the pairs that the tops ha, hb leave undecided. */
static inline __attribute__((always_inline)) void
ovl_rest(ovl *o, const void *a, const void *b, int rec, size_t n, uint64_t ha,
         uint64_t hb)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t x = val_at(a, i, rec), y = val_at(b, i, rec);
		u128n p = (u128n)x * hb, q = (u128n)y * ha;
		u128n pt, qt;
		uint64_t pw, qw;

		if (p + x <= q || q + y <= p)
			continue;
		mul192(x, o->sb.hi, o->sb.lo, &pt, &pw);
		mul192(y, o->sa.hi, o->sa.lo, &qt, &qw);
		if (pt < qt || (pt == qt && pw <= qw))
			o->xa += x;
		else
			o->xb += y;
	}
}

/*
 * Adds the counters a[i], b[i] (i < n; rec: see val_at) to X_a or X_b.
 * Both sums below 2^64, their products with the counters decide.
 * Otherwise, with sum_a = ha * 2^s + ra and sum_b = hb * 2^s + rb (ha, hb
 * below 2^64; ra, rb below 2^s), a * sum_b lies in [a * hb, a * hb + a] *
 * 2^s and b * sum_a in [b * ha, b * ha + b] * 2^s: when one range ends
 * before the other starts, the two products of 64 bits decide.  The
 * other pairs, shares within about 2^-64 of each other and rare, are
 * added with the full products.
 */
static inline __attribute__((always_inline)) void
ovl_add_by(ovl *o, const void *a, const void *b, int rec, size_t n)
{
	uint64_t ha, hb;

	if (o->none)
		return;
	if (o->narrow) {
		add_by(o, a, b, rec, n, o->sa.lo, o->sb.lo, 0);
		return;
	}
	ovl_tops(o, &ha, &hb);
	if (add_by(o, a, b, rec, n, ha, hb, 1))
		ovl_rest(o, a, b, rec, n, ha, hb);
}

/* ovl_add_by() over arrays of values, and over COUNTERS records. */
static void ovl_add(ovl *o, const uint64_t *a, const uint64_t *b, size_t n)
{
	ovl_add_by(o, a, b, 0, n);
}

static void ovl_add_rec(ovl *o, const unsigned char *a,
                        const unsigned char *b, size_t n)
{
	ovl_add_by(o, a, b, 1, n);
}

/*
 * The n COUNTERS records at a and b added to two overlaps, usually a
 * procedure's and its object file's: in one pass when both are narrow.
 */
static void ovl_add2_rec(ovl *o1, ovl *o2, const unsigned char *a,
                         const unsigned char *b, size_t n)
{
	if (o1->none || o2->none || !o1->narrow || !o2->narrow) {
		ovl_add_rec(o1, a, b, n);
		ovl_add_rec(o2, a, b, n);
		return;
	}
	uint64_t ha1 = o1->sa.lo, hb1 = o1->sb.lo, ha2 = o2->sa.lo,
	         hb2 = o2->sb.lo;
	uint64_t xa1 = (uint64_t)o1->xa, xb1 = (uint64_t)o1->xb;
	uint64_t xa2 = (uint64_t)o2->xa, xb2 = (uint64_t)o2->xb;

	for (size_t i = 0; i < n; i++) {
		uint64_t x = val_at(a, i, 1), y = val_at(b, i, 1);
		uint64_t m1 = (uint64_t)0 - ((u128n)x * hb1 <= (u128n)y * ha1);
		uint64_t m2 = (uint64_t)0 - ((u128n)x * hb2 <= (u128n)y * ha2);

		xa1 += x & m1;
		xb1 += y & ~m1;
		xa2 += x & m2;
		xb2 += y & ~m2;
	}
	o1->xa = xa1;
	o1->xb = xb1;
	o2->xa = xa2;
	o2->xb = xb2;
}

/* r = x * y in four words, least significant first. */
static void mul256(u128n x, u128n y, uint64_t r[4])
{
	uint64_t x0 = (uint64_t)x, x1 = (uint64_t)(x >> 64);
	uint64_t y0 = (uint64_t)y, y1 = (uint64_t)(y >> 64);
	u128n ll = (u128n)x0 * y0, lh = (u128n)x0 * y1;
	u128n hl = (u128n)x1 * y0, hh = (u128n)x1 * y1;
	u128n m = (ll >> 64) + (uint64_t)lh + (uint64_t)hl;
	u128n h = hh + (lh >> 64) + (hl >> 64) + (m >> 64);

	r[0] = (uint64_t)ll;
	r[1] = (uint64_t)m;
	r[2] = (uint64_t)h;
	r[3] = (uint64_t)(h >> 64);
}

/* The number of significant bits of the four words x. */
static int bits256(const uint64_t x[4])
{
	for (int k = 3; k >= 0; k--)
		if (x[k])
			return 64 * k + 64 - __builtin_clzll(x[k]);
	return 0;
}

/* x >> s as 128 bits, for x below 2^(128 + s). */
static u128n shr256(const uint64_t x[4], int s)
{
	int k = s / 64, r = s % 64;
	uint64_t w[3];

	for (int i = 0; i < 3; i++)
		w[i] = k + i < 4 ? x[k + i] : 0;
	if (r) {
		w[0] = w[0] >> r | w[1] << (64 - r);
		w[1] = w[1] >> r | w[2] << (64 - r);
	}
	return (u128n)w[1] << 64 | w[0];
}

static double ovl_result(const ovl *o)
{
	int za = u128_zero(o->sa), zb = u128_zero(o->sb);

	if (za && zb)
		return 1.0;
	if (za || zb)
		return 0.0;
	u128n sa = u128_native(o->sa), sb = u128_native(o->sb), nq, dq;

	if (o->narrow) {
		/* D below 2^128, and N at most D. */
		dq = sa * sb;
		nq = sb * o->xa + sa * o->xb;
		if (nq == dq)
			return 1.0;
	} else {
		uint64_t d[4], n[4], t[4];
		unsigned c = 0;

		mul256(sa, sb, d);
		mul256(sb, o->xa, n);
		mul256(sa, o->xb, t);
		for (int k = 0; k < 4; k++) {
			u128n v = (u128n)n[k] + t[k] + c;
			n[k] = (uint64_t)v;
			c = (unsigned)(v >> 64);
		}
		if (memcmp(d, n, sizeof d) == 0)
			return 1.0;
		/* Both shifted until D has 128 bits, which leaves the
		 * quotient within 2^-126 of the exact one. */
		int bd = bits256(d), s = bd > 128 ? bd - 128 : 0;
		nq = shr256(n, s);
		dq = shr256(d, s);
	}
	/* N < D.  A quotient that rounds to 1 is shown as the largest
	 * double below it: the overlap is 1 only for proportional
	 * vectors. */
	long double q = (long double)nq / (long double)dq;
	double v = (double)q;
	return v < 1.0 ? v : nextafter(1.0, 0.0);
}

double xp_overlap(const uint64_t *a, const uint64_t *b, size_t n)
{
	ovl o;

	memset(&o, 0, sizeof o);
	for (size_t i = 0; i < n; i++) {
		u128_add(&o.sa, a[i]);
		u128_add(&o.sb, b[i]);
	}
	ovl_start(&o);
	ovl_add(&o, a, b, n);
	return ovl_result(&o);
}

char *xp_fmt_overlap(char *buf, double v)
{
	if (!(v >= 0.0 && v <= 1.0) || signbit(v)) {
		snprintf(buf, XP_OVERLAP_LEN, "%.6f", v);
		return buf;
	}
	xp_fmt_fixed01(buf, v, 6);
	for (int d = 7; v < 1.0 && buf[0] == '1' && d <= 17; d++)
		xp_fmt_fixed01(buf, v, d);
	return buf;
}

/* ------------------------------------------------------------------ */
/* The two sides                                                       */
/* ------------------------------------------------------------------ */

/* One side of a comparison. */
typedef struct {
	const xp_fb *fb;
	/* Per string id: its rank among the strings of both sides; NULL when
	 * both sides have the same string table (the id is the rank). */
	uint32_t *rank;
	/* Per tuple: its source file as resolved; NULL until needed. */
	xp_str *res;
} side;

#define U32(s, t, i, f) xp_get_le32(xp_rec((s)->fb, (t), (i)) + (f))
#define U64(s, t, i, f) xp_get_le64(xp_rec((s)->fb, (t), (i)) + (f))
/* The first and count fields ff and fn of record r, as two arguments. */
#define SLICE(r, ff, fn) xp_get_le32((r) + (ff)), xp_get_le32((r) + (fn))

/* The rank of string v of side s; UINT32_MAX for none. */
static inline uint32_t srank(const side *s, xp_str v)
{
	if (v >= s->fb->nstr)
		return UINT32_MAX;
	return s->rank ? s->rank[v] : v;
}

/* Ranks the strings of both sides, walking their sorted tables. */
static xp_err rank_strings(side *x, side *y, int shape)
{
	const xp_fb *a = x->fb, *b = y->fb;
	uint32_t i = 0, j = 0, r = 0;

	if (shape ||
	    (a->nstr == b->nstr && a->strtab_len == b->strtab_len &&
	    (a->nstr == 0 ||
	     (memcmp(a->stroff, b->stroff, (size_t)a->nstr * 4) == 0 &&
	      memcmp(a->strtab, b->strtab, a->strtab_len) == 0))))
		return XP_E_OK;
	x->rank = malloc(((size_t)a->nstr + 1) * sizeof *x->rank);
	y->rank = malloc(((size_t)b->nstr + 1) * sizeof *y->rank);
	if (x->rank == NULL || y->rank == NULL)
		return XP_E_NOMEM;
	while (i < a->nstr || j < b->nstr) {
		int c = i >= a->nstr   ? 1
		        : j >= b->nstr ? -1
		                       : strcmp(xp_fb_str(a, i), xp_fb_str(b, j));
		if (c <= 0)
			x->rank[i++] = r;
		if (c >= 0)
			y->rank[j++] = r;
		r++;
	}
	return XP_E_OK;
}

/*
 * Resolves the source file of every tuple of s: a tuple that names none
 * takes the previous tuple's within the same object file section.
 */
static xp_err resolve_tuples(side *s)
{
	const xp_fb *fb = s->fb;
	uint32_t nt = xp_fb_count(fb, XP_T_TUPLES);
	xp_str *r = malloc((nt ? nt : 1) * sizeof *r);

	if (r == NULL)
		return XP_E_NOMEM;
	for (uint32_t i = 0; i < nt; i++)
		r[i] = XP_NOSTR;
	for (uint32_t f = 0; f < xp_fb_count(fb, XP_T_OBJFILES); f++) {
		uint32_t fp = U32(s, XP_T_OBJFILES, f, XP_OF_FPROC);
		uint32_t np = U32(s, XP_T_OBJFILES, f, XP_OF_NPROC);
		xp_str cur = XP_NOSTR;

		for (uint32_t p = fp; p < fp + np; p++) {
			uint32_t ft = U32(s, XP_T_PROCS, p, XP_PR_FTUP);
			uint32_t n = U32(s, XP_T_PROCS, p, XP_PR_NTUP);
			for (uint32_t t = ft; t < ft + n; t++) {
				xp_str sf = U32(s, XP_T_TUPLES, t, XP_TU_FILE);
				if (sf != XP_NOSTR)
					cur = sf;
				r[t] = cur;
			}
		}
	}
	s->res = r;
	return XP_E_OK;
}

/* ------------------------------------------------------------------ */
/* Records as words                                                    */
/* ------------------------------------------------------------------ */

/*
 * A record of a set, as the words that decide its equality: string
 * references as ranks, tuples with their resolved source file.  Records
 * of one kind always have the same number of words (unused ones 0).
 */
#define MAXW 3
typedef struct {
	uint64_t w[MAXW];
} words;

typedef void (*words_fn)(const side *s, uint32_t i, words *r);

static inline uint64_t pack(uint32_t lo, uint32_t hi)
{
	return lo | (uint64_t)hi << 32;
}

static inline __attribute__((always_inline)) void
w_stat(const side *s, uint32_t i, words *r)
{
	r->w[0] = U32(s, XP_T_STATS, i, XP_ST_KIND);
	r->w[1] = U64(s, XP_T_STATS, i, XP_ST_VALUE);
	r->w[2] = 0;
}

static inline __attribute__((always_inline)) void
w_block(const side *s, uint32_t i, words *r)
{
	const unsigned char *p = xp_rec(s->fb, XP_T_BLOCKS, i);
	r->w[0] = pack(xp_get_le32(p + XP_BK_ID), xp_get_le32(p + XP_BK_COUNTER));
	r->w[1] = r->w[2] = 0;
}

static inline __attribute__((always_inline)) void
w_edge(const side *s, uint32_t i, words *r)
{
	const unsigned char *p = xp_rec(s->fb, XP_T_EDGES, i);
	r->w[0] = pack(xp_get_le32(p + XP_ED_ID), xp_get_le32(p + XP_ED_COUNTER));
	r->w[1] = pack(xp_get_le32(p + XP_ED_FROM), xp_get_le32(p + XP_ED_TO));
	r->w[2] = 0;
}

static inline __attribute__((always_inline)) void
w_tuple(const side *s, uint32_t i, words *r)
{
	const unsigned char *p = xp_rec(s->fb, XP_T_TUPLES, i);
	r->w[0] = pack(xp_get_le32(p + XP_TU_ID), xp_get_le32(p + XP_TU_BLOCK));
	r->w[1] = pack(xp_get_le32(p + XP_TU_LINE), xp_get_le32(p + XP_TU_COL));
	r->w[2] = srank(s, s->res[i]);
}

static inline __attribute__((always_inline)) void
w_objref(const side *s, uint32_t i, words *r)
{
	r->w[0] = srank(s, xp_fb_objref(s->fb, i));
	r->w[1] = r->w[2] = 0;
}

static inline __attribute__((always_inline)) void
w_comdat(const side *s, uint32_t i, words *r)
{
	r->w[0] = pack(srank(s, U32(s, XP_T_COMDATS, i, XP_CD_PROC)),
	               srank(s, U32(s, XP_T_COMDATS, i, XP_CD_OBJFILE)));
	r->w[1] = r->w[2] = 0;
}

static inline __attribute__((always_inline)) void
w_blockref(const side *s, uint32_t i, words *r)
{
	const unsigned char *p = xp_rec(s->fb, XP_T_BLOCKREFS, i);
	r->w[0] = xp_get_le32(p + XP_BR_BLOCK);
	r->w[1] = xp_get_le64(p + XP_BR_COUNT);
	r->w[2] = pack(srank(s, xp_get_le32(p + XP_BR_PROC)),
	               srank(s, xp_get_le32(p + XP_BR_OBJFILE)));
}

/* A value of a value profile record of type t: its count, whether it
 * has a value, and the value's bits (of the int, the float, ...; a
 * procedure's name and object file as ranks), as xp_fb_vpval() reads
 * them. */
static inline __attribute__((always_inline)) void
w_vpval(const side *s, uint32_t i, xp_vptype t, words *r)
{
	const unsigned char *p = xp_rec(s->fb, XP_T_VPVALS, i);
	uint64_t v = xp_get_le64(p + XP_VV_VALUE);
	int has = (xp_get_le32(p + XP_VV_FLAGS) & XP_VVF_HAS_VALUE) != 0;

	switch (t) {
	case XP_VP_INT: v = (uint64_t)(int64_t)(int32_t)(uint32_t)v; break;
	case XP_VP_LLONG: break;
	case XP_VP_FLOAT: v = (uint32_t)v; break;
	case XP_VP_DOUBLE: break;
	case XP_VP_PROC:
		v = pack(srank(s, (uint32_t)v), srank(s, (uint32_t)(v >> 32)));
		break;
	default: v = 0; break;
	}
	r->w[0] = xp_get_le64(p + XP_VV_COUNT);
	r->w[1] = has;
	r->w[2] = has ? v : 0;
}

static inline int words_eq(const words *x, const words *y)
{
	return x->w[0] == y->w[0] && x->w[1] == y->w[1] && x->w[2] == y->w[2];
}

/* A hash of a record; sums of them hash sets regardless of order. */
static inline uint64_t words_hash(const words *x)
{
	return xp_mix64(x->w[0] * 0x9e3779b97f4a7c15u +
	                x->w[1] * 0xc2b2ae3d27d4eb4fu +
	                x->w[2] * 0x165667b19e3779f9u);
}

/* A linear function of a record's words: a weaker hash, and cheaper. */
static inline uint64_t words_lin(const words *x)
{
	return x->w[0] + x->w[1] * 0x9e3779b97f4a7c15u +
	       x->w[2] * 0xc2b2ae3d27d4eb4fu;
}

static int words_cmp(const void *x, const void *y)
{
	const words *a = x, *b = y;

	for (int k = 0; k < MAXW; k++)
		if (a->w[k] != b->w[k])
			return a->w[k] < b->w[k] ? -1 : 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Sets of records                                                     */
/* ------------------------------------------------------------------ */

/* Sorts n records, in a buffer of the caller's that grows as needed. */
static words *sorted_words(const side *s, words_fn get, uint32_t first,
                           uint32_t n, words *buf)
{
	words *v = realloc(buf, ((size_t)n + 1) * sizeof *v);

	if (v == NULL) {
		free(buf);
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++)
		get(s, first + i, &v[i]);
	xp_qsort(v, n, sizeof *v, words_cmp);
	return v;
}

/*
 * Are records [fa, fa + n) of side x the same multiset as [fb, fb + n)
 * of y, given that they differ in order?  Sorts and compares them.
 */
static int set_exact(const side *x, const side *y, words_fn get, uint32_t fa,
                     uint32_t fb, uint32_t n, xp_err *err)
{
	words *va = sorted_words(x, get, fa, n, NULL);
	words *vb = va ? sorted_words(y, get, fb, n, NULL) : NULL;
	int same = 1;

	if (vb == NULL) {
		free(va);
		*err = XP_E_NOMEM;
		return 0;
	}
	for (uint32_t i = 0; i < n && same; i++)
		same = words_eq(&va[i], &vb[i]);
	free(va);
	free(vb);
	return same;
}

/*
 * Are the na records of x from fa the same multiset as the nb records of
 * y from fb?  In order first; from the first difference on, by hash;
 * exactly when the hashes agree.  Inlined so that get is known.
 */
static inline __attribute__((always_inline)) int
set_same(const side *x, const side *y, words_fn get, uint32_t fa,
         uint32_t na, uint32_t fb, uint32_t nb, xp_err *err)
{
	uint64_t ha = 0, hb = 0;
	uint32_t i = 0;
	words u, v;

	if (na != nb)
		return 0;
	for (; i < na; i++) {
		get(x, fa + i, &u);
		get(y, fb + i, &v);
		if (!words_eq(&u, &v))
			break;
	}
	if (i == na)
		return 1;
	for (uint32_t j = i; j < na; j++) {
		get(x, fa + j, &u);
		get(y, fb + j, &v);
		ha += words_hash(&u);
		hb += words_hash(&v);
	}
	if (ha != hb)
		return 0;
	return set_exact(x, y, get, fa + i, fb + i, na - i, err);
}

/*
 * A set of records that each hold a set of their own: the value profile
 * records of a procedure (each with its values) or the lines of a source
 * file (each with its block references).
 */
typedef struct {
	const side *s;
	xp_table outer;          /* XP_T_VPS or XP_T_SRCLINES */
	uint32_t first, n;       /* the outer records */
	uint32_t first_val, nvpv; /* XP_T_VPS: where the values start, and
	                            how many each record has */
} nest;

/* Outer record k: its own words (with the number of its inner records)
 * and the slice of its inner records. */
static inline __attribute__((always_inline)) void
nest_head(const nest *t, uint32_t k, words *h, uint32_t *first, uint32_t *n)
{
	const side *s = t->s;

	if (t->outer == XP_T_VPS) {
		const unsigned char *p = xp_rec(s->fb, XP_T_VPS, t->first + k);
		h->w[0] = pack(xp_get_le32(p + XP_VP_EXPR),
		               xp_get_le32(p + XP_VP_TYPE));
		*first = t->first_val + k * t->nvpv;
		*n = t->nvpv;
	} else {
		const unsigned char *p = xp_rec(s->fb, XP_T_SRCLINES, t->first + k);
		h->w[0] = pack(xp_get_le32(p + XP_SL_LINE),
		               xp_get_le32(p + XP_SL_COL));
		*first = xp_get_le32(p + XP_SL_FREF);
		*n = xp_get_le32(p + XP_SL_NREF);
	}
	h->w[1] = *n;
	h->w[2] = 0;
}

/* Inner record i of an outer record whose words are h. */
static inline __attribute__((always_inline)) void
nest_item(const nest *t, const words *h, uint32_t i, words *r)
{
	if (t->outer == XP_T_VPS)
		w_vpval(t->s, i, (xp_vptype)(h->w[0] >> 32), r);
	else
		w_blockref(t->s, i, r);
}

/*
 * The outer records of t from on, summed: with strong, the sum of their
 * hashes, each hashed with the sum of its inner records' hashes;
 * otherwise a sum of linear functions of every outer and inner record's
 * words, which is cheaper and, like the other, the same for the same
 * multiset (records that differ in counts alone, the usual difference,
 * make it differ).
 */
static uint64_t nest_sum(const nest *t, uint32_t from, int strong)
{
	uint64_t h = 0;

	for (uint32_t k = from; k < t->n; k++) {
		words hd, u;
		uint32_t f, n;
		uint64_t in = 0;

		nest_head(t, k, &hd, &f, &n);
		for (uint32_t j = 0; j < n; j++) {
			nest_item(t, &hd, f + j, &u);
			in += strong ? words_hash(&u) : words_lin(&u);
		}
		if (strong) {
			hd.w[2] = in;
			h += words_hash(&hd);
		} else {
			h += in + words_lin(&hd);
		}
	}
	return h;
}

/* An outer record in canonical form: its words, then its inner records
 * sorted, len records of base from off; qsort has no context argument in
 * C11, so each key carries its base. */
typedef struct {
	const words *base;
	size_t off, len;
} wblob;

static int wblob_cmp(const void *x, const void *y)
{
	const wblob *a = x, *b = y;
	size_t n = a->len < b->len ? a->len : b->len;

	for (size_t i = 0; i < n; i++) {
		int c = words_cmp(&a->base[a->off + i], &b->base[b->off + i]);
		if (c)
			return c;
	}
	return (a->len > b->len) - (a->len < b->len);
}

/* The outer records of t from on in canonical form, sorted: *v and *k
 * (NULL when out of memory). */
static void nest_canon(const nest *t, uint32_t from, words **v, wblob **k)
{
	size_t total = 0, at = 0;

	for (uint32_t i = from; i < t->n; i++) {
		words hd;
		uint32_t f, n;
		nest_head(t, i, &hd, &f, &n);
		total += 1 + (size_t)n;
	}
	*v = malloc((total + 1) * sizeof **v);
	*k = malloc(((size_t)(t->n - from) + 1) * sizeof **k);
	if (*v == NULL || *k == NULL) {
		free(*v);
		free(*k);
		*v = NULL;
		*k = NULL;
		return;
	}
	for (uint32_t i = from; i < t->n; i++) {
		words *w = *v + at;
		uint32_t f, n;

		nest_head(t, i, &w[0], &f, &n);
		for (uint32_t j = 0; j < n; j++)
			nest_item(t, &w[0], f + j, &w[1 + j]);
		xp_qsort(w + 1, n, sizeof *w, words_cmp);
		(*k)[i - from] = (wblob){*v, at, 1 + (size_t)n};
		at += 1 + (size_t)n;
	}
	xp_qsort(*k, t->n - from, sizeof **k, wblob_cmp);
}

/* Are the outer records of x and y from on the same multiset? */
static int nest_exact(const nest *x, const nest *y, uint32_t from,
                      xp_err *err)
{
	words *va, *vb;
	wblob *ka, *kb;
	int same = 1;

	nest_canon(x, from, &va, &ka);
	nest_canon(y, from, &vb, &kb);
	if (va == NULL || vb == NULL) {
		*err = XP_E_NOMEM;
		same = 0;
	}
	for (uint32_t i = 0; same && i < x->n - from; i++)
		same = wblob_cmp(&ka[i], &kb[i]) == 0;
	XP_FREE(va, ka, vb, kb);
	return same;
}

/* set_same() for sets of sets. */
static int nest_same(const nest *x, const nest *y, xp_err *err)
{
	uint32_t k = 0;

	if (x->n != y->n)
		return 0;
	for (; k < x->n; k++) {
		words hx, hy, u, v;
		uint32_t fx, nx, fy, ny, j = 0;

		nest_head(x, k, &hx, &fx, &nx);
		nest_head(y, k, &hy, &fy, &ny);
		if (!words_eq(&hx, &hy))
			break;
		for (; j < nx; j++) {
			nest_item(x, &hx, fx + j, &u);
			nest_item(y, &hy, fy + j, &v);
			if (!words_eq(&u, &v))
				break;
		}
		if (j < nx)
			break;
	}
	if (k == x->n)
		return 1;
	if (nest_sum(x, k, 0) != nest_sum(y, k, 0) ||
	    nest_sum(x, k, 1) != nest_sum(y, k, 1))
		return 0;
	return nest_exact(x, y, k, err);
}

/* ------------------------------------------------------------------ */
/* A procedure's counters                                              */
/* ------------------------------------------------------------------ */

/* Counter records sorted by id: a procedure's own records when they are,
 * a sorted copy otherwise. */
typedef struct {
	const unsigned char *p;
	uint32_t n;
} cview;

/* Room for sorted copies, reused from one procedure to the next. */
typedef struct {
	unsigned char *rec;
	xp_counter *tmp;
	size_t cap;
} cbuf;

#define CV_ID(v, j) xp_get_le32((v)->p + (size_t)(j) * XP_RS_COUNTER)
#define CV_VAL(v, j) \
	xp_get_le64((v)->p + (size_t)(j) * XP_RS_COUNTER + XP_CN_VALUE)

static int ctr_cmp(const void *x, const void *y)
{
	const xp_counter *a = x, *b = y;
	return (a->id > b->id) - (a->id < b->id);
}

/* The counters of procedure proc of s, sorted by id. */
static xp_err counters_of(const side *s, uint32_t proc, cbuf *b, cview *v)
{
	uint32_t first = U32(s, XP_T_PROCS, proc, XP_PR_FCNT);
	uint32_t i = 1;

	v->n = U32(s, XP_T_PROCS, proc, XP_PR_NCNT);
	v->p = xp_rec(s->fb, XP_T_COUNTERS, first);
	while (i < v->n && CV_ID(v, i) > CV_ID(v, i - 1))
		i++;
	if (i >= v->n)
		return XP_E_OK;
	if (v->n > b->cap) {
		unsigned char *r = realloc(b->rec, (size_t)v->n * XP_RS_COUNTER);
		if (r != NULL)
			b->rec = r;
		xp_counter *t = realloc(b->tmp, (size_t)v->n * sizeof *t);
		if (t != NULL)
			b->tmp = t;
		if (r == NULL || t == NULL)
			return XP_E_NOMEM;
		b->cap = v->n;
	}
	for (i = 0; i < v->n; i++)
		b->tmp[i] = (xp_counter){CV_ID(v, i), CV_VAL(v, i)};
	xp_qsort(b->tmp, v->n, sizeof *b->tmp, ctr_cmp);
	for (i = 0; i < v->n; i++) {
		xp_put_le32(b->rec + (size_t)i * XP_RS_COUNTER, b->tmp[i].id);
		xp_put_le64(b->rec + (size_t)i * XP_RS_COUNTER + XP_CN_VALUE,
		            b->tmp[i].value);
	}
	v->p = b->rec;
	return XP_E_OK;
}

static void cbuf_free(cbuf *b)
{
	XP_FREE(b->rec, b->tmp);
	memset(b, 0, sizeof *b);
}

/*
 * A procedure's counters on both sides joined by id: per row, in id
 * order, the values (0 for a missing side), the id, and on which sides
 * it is (bit 0 A, bit 1 B); the sums, how many ids both sides have and
 * of those how many differ in value.  The arrays are reused from one
 * procedure to the next.
 */
typedef struct {
	uint64_t *va, *vb;
	uint32_t *id;
	unsigned char *on;
	size_t n, cap;
	uint32_t na, nb;
	u128 sa, sb;
	uint64_t matched, differ;
	cbuf ba, bb; /* for sorted copies (join_sorted) */
} cjoin;

static void cjoin_free(cjoin *j)
{
	XP_FREE(j->va, j->vb, j->id, j->on);
	cbuf_free(&j->ba);
	cbuf_free(&j->bb);
	memset(j, 0, sizeof *j);
}

/*
 * Puts the counters of procedure proc of s (none for UINT32_MAX) in rows
 * 0 to j->n - 1 of v, by id, and sets bit in j->on of each row, when its
 * ids are 1 to its number of counters, each once, as in every profile
 * the library makes.  0 when they are not.
 */
static int dense_side(const side *s, uint32_t proc, cjoin *j, uint64_t *v,
                      unsigned char bit)
{
	cview cv = {NULL, 0};
	uint32_t i = 0;

	if (proc != UINT32_MAX) {
		cv.n = U32(s, XP_T_PROCS, proc, XP_PR_NCNT);
		cv.p = xp_rec(s->fb, XP_T_COUNTERS,
		              U32(s, XP_T_PROCS, proc, XP_PR_FCNT));
	}
	/* Increasing ids from 1 to n are 1 to n. */
	for (; i < cv.n && CV_ID(&cv, i) == i + 1; i++) {
		v[i] = CV_VAL(&cv, i);
		j->on[i] |= bit;
	}
	for (; i < cv.n; i++) {
		uint32_t id = CV_ID(&cv, i);
		if (id == 0 || id > cv.n || (j->on[id - 1] & bit))
			return 0;
		v[id - 1] = CV_VAL(&cv, i);
		j->on[id - 1] |= bit;
	}
	for (i = cv.n; i < j->n; i++)
		v[i] = 0;
	return 1;
}

/* The join of two views sorted by id, of any ids. */
static void join_sorted(cjoin *j, const cview *ca, const cview *cb)
{
	uint32_t ia = 0, ib = 0;

	j->n = 0;
	while (ia < ca->n || ib < cb->n) {
		uint32_t xa = ia < ca->n ? CV_ID(ca, ia) : UINT32_MAX;
		uint32_t xb = ib < cb->n ? CV_ID(cb, ib) : UINT32_MAX;
		int a = ia < ca->n && (ib >= cb->n || xa <= xb);
		int b = ib < cb->n && (ia >= ca->n || xb <= xa);

		j->id[j->n] = a ? xa : xb;
		j->va[j->n] = a ? CV_VAL(ca, ia++) : 0;
		j->vb[j->n] = b ? CV_VAL(cb, ib++) : 0;
		j->on[j->n++] = (unsigned char)(a | b << 1);
	}
}

/* Joins the counters of procedure ia of a and ib of b (UINT32_MAX:
 * none) into j. */
static xp_err join_counters(const side *a, uint32_t ia, const side *b,
                            uint32_t ib, cjoin *j)
{
	j->na = ia != UINT32_MAX ? U32(a, XP_T_PROCS, ia, XP_PR_NCNT) : 0;
	j->nb = ib != UINT32_MAX ? U32(b, XP_T_PROCS, ib, XP_PR_NCNT) : 0;
	if ((size_t)j->na + j->nb > j->cap) {
		size_t cap = (size_t)j->na + j->nb;
		XP_FREE(j->va, j->vb, j->id, j->on);
		j->va = malloc(cap * sizeof *j->va);
		j->vb = malloc(cap * sizeof *j->vb);
		j->id = malloc(cap * sizeof *j->id);
		j->on = malloc(cap);
		j->cap = cap;
		if (!j->va || !j->vb || !j->id || !j->on) {
			j->cap = 0;
			return XP_E_NOMEM;
		}
	}
	j->n = j->na > j->nb ? j->na : j->nb;
	if (j->n)   /* j->on is NULL until a procedure has counters */
		memset(j->on, 0, j->n);
	if (dense_side(a, ia, j, j->va, 1) && dense_side(b, ib, j, j->vb, 2)) {
		for (uint32_t k = 0; k < j->n; k++)
			j->id[k] = k + 1;
	} else {
		cview ca = {NULL, 0}, cb = {NULL, 0};
		xp_err err;
		if ((ia != UINT32_MAX &&
		     (err = counters_of(a, ia, &j->ba, &ca)) != XP_E_OK) ||
		    (ib != UINT32_MAX &&
		     (err = counters_of(b, ib, &j->bb, &cb)) != XP_E_OK))
			return err;
		join_sorted(j, &ca, &cb);
	}
	memset(&j->sa, 0, sizeof j->sa);
	memset(&j->sb, 0, sizeof j->sb);
	j->matched = j->differ = 0;
	for (size_t k = 0; k < j->n; k++) {
		u128_add(&j->sa, j->va[k]);
		u128_add(&j->sb, j->vb[k]);
		if (j->on[k] == 3) {
			j->matched++;
			j->differ += j->va[k] != j->vb[k];
		}
	}
	return XP_E_OK;
}

/* ------------------------------------------------------------------ */
/* The comparison                                                      */
/* ------------------------------------------------------------------ */

/*
 * A procedure's counters on both sides of one layout (xp_cmp.shape):
 * their sums and how many differ in value.  The two sides have the same
 * ids at the same records, and the reader found each procedure's ids to
 * be 1 to n, each once, so the records side by side are the join by id.
 */
typedef struct {
	u128 sa, sb;
	uint64_t differ;
} psum;

typedef struct {
	xp_cmp_entry pub;
	uint32_t ia, ib;  /* record index in A, in B; UINT32_MAX if absent */
	uint32_t of;      /* procedures: index of the object file entry */
	int id_moved;     /* procedures: the proc_ids differ */
} entry;

struct xp_cmp {
	side a, b;
	/* B was checked against A byte for byte, or A against B
	 * (xp_fb.like): the two differ in nothing but the values of stats,
	 * counters, value profiles and block references. */
	int shape;
	entry total;
	entry *ofs;
	size_t n_ofs;
	/* The overlaps of the whole profile and of each object file. */
	ovl o_total, *o_ofs;
	entry *procs;
	size_t n_procs;
	xp_cmp_note *notes;
	size_t n_notes, cap_notes;
	/* Scratch space reused from one procedure to the next. */
	cjoin j;
	/* One layout: the procedures [ps_first, ps_first + ps_n) of the
	 * object file being compared, as swept (sweep_objfile). */
	psum *ps;
	size_t ps_cap;
	uint32_t ps_first, ps_n;
};

static xp_err add_note(xp_cmp *c, xp_cmp_note_kind k, const char *name,
                       int in_a, int in_b)
{
	if (xp_grow(&c->notes, &c->cap_notes, c->n_notes,
	            sizeof *c->notes) != XP_E_OK)
		return XP_E_NOMEM;
	c->notes[c->n_notes++] = (xp_cmp_note){k, name, in_a, in_b};
	return XP_E_OK;
}

/* The sort key of record i of the table that index idx orders: its
 * path's rank, for a procedure its object file's path's and its name's. */
static uint64_t key_of(const side *s, xp_table idx, uint32_t i)
{
	switch (idx) {
	case XP_T_IDX_OBJFILES:
		return pack(0, srank(s, U32(s, XP_T_OBJFILES, i, XP_OF_PATH)));
	case XP_T_IDX_PROCS: {
		uint32_t of = U32(s, XP_T_PROCS, i, XP_PR_OBJFILE);
		return pack(srank(s, U32(s, XP_T_PROCS, i, XP_PR_NAME)),
		            srank(s, U32(s, XP_T_OBJFILES, of, XP_OF_PATH)));
	}
	case XP_T_IDX_PROGRAMS:
		return pack(0, srank(s, U32(s, XP_T_PROGRAMS, i, XP_PG_PATH)));
	default:
		return pack(0, srank(s, U32(s, XP_T_SRCFILES, i, XP_SF_PATH)));
	}
}

typedef struct {
	uint32_t ia, ib;
} pairidx;

/* The keys of every record of the table that index idx orders, in the
 * order they are stored (which reads them in one sweep); NULL when out
 * of memory. */
static uint64_t *keys_of(const side *s, xp_table idx)
{
	uint32_t n = xp_fb_count(s->fb, idx);
	uint64_t *k = malloc(((size_t)n + 1) * sizeof *k);

	for (uint32_t i = 0; k != NULL && i < n; i++)
		k[i] = key_of(s, idx, i);
	return k;
}

/*
 * Walks two sorted indexes side by side: the pairs of records with the
 * same key, UINT32_MAX for a missing side.
 */
static xp_err join_index(const xp_cmp *c, xp_table idx, pairidx **out,
                         size_t *n)
{
	uint32_t na = xp_fb_count(c->a.fb, idx), nb = xp_fb_count(c->b.fb, idx);
	uint32_t i = 0, j = 0;
	size_t k = 0;
	pairidx *p = malloc(((size_t)na + nb + 1) * sizeof *p);
	uint64_t *ka = NULL, *kb = NULL;

	*out = NULL;
	*n = 0;
	/* One layout: the same indexes. */
	for (; p != NULL && c->shape && k < na; k++)
		p[k] = (pairidx){xp_fb_index(c->a.fb, idx, (uint32_t)k),
		                 xp_fb_index(c->b.fb, idx, (uint32_t)k)};
	i = j = (uint32_t)k;
	if (p == NULL || (i < na && (ka = keys_of(&c->a, idx)) == NULL) ||
	    (j < nb && (kb = keys_of(&c->b, idx)) == NULL)) {
		XP_FREE(p, ka, kb);
		return XP_E_NOMEM;
	}
	while (i < na || j < nb) {
		uint32_t x = i < na ? xp_fb_index(c->a.fb, idx, i) : 0;
		uint32_t y = j < nb ? xp_fb_index(c->b.fb, idx, j) : 0;
		int r = i >= na   ? 1
		        : j >= nb ? -1
		                  : (ka[x] > kb[y]) - (ka[x] < kb[y]);

		if (r < 0) {
			p[k++] = (pairidx){x, UINT32_MAX};
			i++;
		} else if (r > 0) {
			p[k++] = (pairidx){UINT32_MAX, y};
			j++;
		} else {
			p[k++] = (pairidx){x, y};
			i++;
			j++;
		}
	}
	XP_FREE(ka, kb);
	*out = p;
	*n = k;
	return XP_E_OK;
}

/* Are the stats of two records (first_stat at field f, n_stats after
 * it) the same multiset? */
static int stats_same(const xp_cmp *c, const unsigned char *x,
                      const unsigned char *y, unsigned f, xp_err *err)
{
	return set_same(&c->a, &c->b, w_stat, xp_get_le32(x + f),
	                xp_get_le32(x + f + 4), xp_get_le32(y + f),
	                xp_get_le32(y + f + 4), err);
}

static xp_err compare_objfiles(xp_cmp *c, uint32_t **map_a, uint32_t **map_b)
{
	pairidx *p;
	size_t n;
	xp_err err = join_index(c, XP_T_IDX_OBJFILES, &p, &n);
	uint32_t nfa = xp_fb_count(c->a.fb, XP_T_OBJFILES);
	uint32_t nfb = xp_fb_count(c->b.fb, XP_T_OBJFILES);

	if (err != XP_E_OK)
		return err;
	c->ofs = calloc(n ? n : 1, sizeof *c->ofs);
	c->o_ofs = calloc(n ? n : 1, sizeof *c->o_ofs);
	*map_a = malloc((nfa ? nfa : 1) * sizeof **map_a);
	*map_b = malloc((nfb ? nfb : 1) * sizeof **map_b);
	if (c->ofs == NULL || c->o_ofs == NULL || *map_a == NULL ||
	    *map_b == NULL) {
		free(p);
		return XP_E_NOMEM;
	}
	c->n_ofs = n;
	for (size_t k = 0; k < n && err == XP_E_OK; k++) {
		entry *e = &c->ofs[k];
		const unsigned char *x = NULL, *y = NULL;

		e->ia = p[k].ia;
		e->ib = p[k].ib;
		if (e->ia != UINT32_MAX) {
			x = xp_rec(c->a.fb, XP_T_OBJFILES, e->ia);
			(*map_a)[e->ia] = (uint32_t)k;
			e->pub.in_a = 1;
			e->pub.sig_a = xp_get_le64(x + XP_OF_SIG);
			e->pub.objfile = xp_fb_str(c->a.fb,
			                           xp_get_le32(x + XP_OF_PATH));
		}
		if (e->ib != UINT32_MAX) {
			y = xp_rec(c->b.fb, XP_T_OBJFILES, e->ib);
			(*map_b)[e->ib] = (uint32_t)k;
			e->pub.in_b = 1;
			e->pub.sig_b = xp_get_le64(y + XP_OF_SIG);
			if (!e->pub.in_a)
				e->pub.objfile = xp_fb_str(
				    c->b.fb, xp_get_le32(y + XP_OF_PATH));
		}
		if (!e->pub.in_a || !e->pub.in_b)
			continue;
		if (e->pub.sig_a != e->pub.sig_b)
			e->pub.diff |= XP_CMP_SIGNATURE;
		for (unsigned f = XP_OF_TVSEC; f <= XP_OF_NVPV; f += 4)
			if (xp_get_le32(x + f) != xp_get_le32(y + f))
				e->pub.diff |= XP_CMP_FIELDS;
		if (xp_get_le32(x + XP_OF_NSFN) != xp_get_le32(y + XP_OF_NSFN))
			e->pub.diff |= XP_CMP_FIELDS;
		if (!stats_same(c, x, y, XP_OF_FSTAT, &err))
			e->pub.diff |= XP_CMP_STATS;
	}
	free(p);
	return err;
}

/* Are records [fa, fa + n) of table t of A the same bytes as [fb, fb + n)
 * of B? */
static int same_bytes(const xp_cmp *c, xp_table t, uint32_t fa, uint32_t fb,
                      uint32_t n)
{
	return n == 0 || memcmp(xp_rec(c->a.fb, t, fa), xp_rec(c->b.fb, t, fb),
	                        (size_t)n * xp_tabdescs[t].size) == 0;
}

/* The value profile records of a procedure (its PROCS record r) as a
 * set of sets. */
static nest vps_of(const side *s, const unsigned char *r)
{
	uint32_t of = xp_get_le32(r + XP_PR_OBJFILE);

	return (nest){s, XP_T_VPS, xp_get_le32(r + XP_PR_FVP),
	              xp_get_le32(r + XP_PR_NVP),
	              xp_get_le32(r + XP_PR_FVPVAL),
	              U32(s, XP_T_OBJFILES, of, XP_OF_NVPV)};
}

/*
 * Are the records of table t from first field ff, n_x field fn, of PROCS
 * records x and y the same bytes?  Then they are the same records when
 * they name no string, or the two sides have one string table.
 */
static int slices_same(const xp_cmp *c, xp_table t, const unsigned char *x,
                       const unsigned char *y, unsigned ff, unsigned fn)
{
	uint32_t fa = xp_get_le32(x + ff), fb = xp_get_le32(y + ff);
	uint32_t n = xp_get_le32(x + fn);

	return n == xp_get_le32(y + fn) && same_bytes(c, t, fa, fb, n);
}

/* Do two procedures have the same blocks, edges and tuples? */
static int structure_same(xp_cmp *c, const unsigned char *x,
                          const unsigned char *y, xp_err *err)
{
	const side *a = &c->a, *b = &c->b;
	uint32_t ta = xp_get_le32(x + XP_PR_FTUP), tb = xp_get_le32(y + XP_PR_FTUP);

	if (c->shape)
		return 1;
	if ((a->res == NULL && (*err = resolve_tuples(&c->a)) != XP_E_OK) ||
	    (b->res == NULL && (*err = resolve_tuples(&c->b)) != XP_E_OK))
		return 0;
	return (slices_same(c, XP_T_BLOCKS, x, y, XP_PR_FBLK, XP_PR_NBLK) ||
	        set_same(a, b, w_block, SLICE(x, XP_PR_FBLK, XP_PR_NBLK),
	                 SLICE(y, XP_PR_FBLK, XP_PR_NBLK), err)) &&
	       (slices_same(c, XP_T_EDGES, x, y, XP_PR_FEDGE, XP_PR_NEDGE) ||
	        set_same(a, b, w_edge, SLICE(x, XP_PR_FEDGE, XP_PR_NEDGE),
	                 SLICE(y, XP_PR_FEDGE, XP_PR_NEDGE), err)) &&
	       ((a->rank == NULL &&
	         slices_same(c, XP_T_TUPLES, x, y, XP_PR_FTUP, XP_PR_NTUP) &&
	         (xp_get_le32(x + XP_PR_NTUP) == 0 ||
	          memcmp(a->res + ta, b->res + tb,
	                 (size_t)xp_get_le32(x + XP_PR_NTUP) * sizeof *a->res) ==
	              0)) ||
	        set_same(a, b, w_tuple, SLICE(x, XP_PR_FTUP, XP_PR_NTUP),
	                 SLICE(y, XP_PR_FTUP, XP_PR_NTUP), err));
}

/*
 * PROCS record pb of B: of one layout, when pa is pb, A's record pa,
 * the same bytes (one layout keeps every table but STATS, COUNTERS,
 * VPVALS and BLOCKREFS) and the copy in the cache.
 */
static const unsigned char *b_proc(const xp_cmp *c, uint32_t pa, uint32_t pb)
{
	return xp_rec(c->shape && pa == pb ? c->a.fb : c->b.fb, XP_T_PROCS, pb);
}

/* Compares what two versions of a procedure hold besides counters. */
static xp_err compare_proc_records(xp_cmp *c, entry *e, uint32_t pa,
                                   uint32_t pb)
{
	const unsigned char *x = xp_rec(c->a.fb, XP_T_PROCS, pa);
	const unsigned char *y = b_proc(c, pa, pb);
	xp_err err = XP_E_OK;

	if (xp_get_le64(x + XP_PR_SIG) != xp_get_le64(y + XP_PR_SIG))
		e->pub.diff |= XP_CMP_SIGNATURE;
	/* A different proc_id counts only where the object file has the
	 * same procedures on both sides (compare_procs): otherwise the ids
	 * moved with the procedures added or removed. */
	e->id_moved = xp_get_le32(x + XP_PR_ID) != xp_get_le32(y + XP_PR_ID);
	if (xp_get_le32(x + XP_PR_NVPSITES) != xp_get_le32(y + XP_PR_NVPSITES) ||
	    xp_get_le32(x + XP_PR_NSRCMAP) != xp_get_le32(y + XP_PR_NSRCMAP))
		e->pub.diff |= XP_CMP_FIELDS;
	if (!stats_same(c, x, y, XP_PR_FSTAT, &err))
		e->pub.diff |= XP_CMP_STATS;
	nest vx = vps_of(&c->a, x), vy = vps_of(&c->b, y);
	if (err == XP_E_OK &&
	    !(c->shape && same_bytes(c, XP_T_VPVALS, vx.first_val,
	                             vy.first_val, vx.n * vx.nvpv)) &&
	    !nest_same(&vx, &vy, &err))
		e->pub.diff |= XP_CMP_VALUES;
	if (err == XP_E_OK && !structure_same(c, x, y, &err))
		e->pub.diff |= XP_CMP_STRUCTURE;
	return err;
}

/* Adds the counter figures and difference bits of from into to; sums
 * are added up on their own (sum_objfiles). */
static void add_figures(entry *to, const entry *from)
{
	to->pub.n_counters_a += from->pub.n_counters_a;
	to->pub.n_counters_b += from->pub.n_counters_b;
	to->pub.n_matched += from->pub.n_matched;
	to->pub.n_differ += from->pub.n_differ;
	to->pub.diff |= from->pub.diff;
}

/* The sum of the counts of procedures [first, first + n) of s, read in
 * the order they are stored. */
static u128 sum_procs(const side *s, uint32_t first, uint32_t n)
{
	u128 sum = {0, 0};

	for (uint32_t p = first; p < first + n; p++) {
		const unsigned char *r = xp_rec(s->fb, XP_T_PROCS, p);
		cview v = {xp_rec(s->fb, XP_T_COUNTERS, xp_get_le32(r + XP_PR_FCNT)),
		           xp_get_le32(r + XP_PR_NCNT)};

		for (uint32_t i = 0; i < v.n; i++)
			u128_add(&sum, CV_VAL(&v, i));
	}
	return sum;
}

/* The sum of the counts of side s: the reader's, or added up. */
static u128 sum_all(const side *s)
{
	if (s->fb->sum_known)
		return (u128){s->fb->sum_hi, s->fb->sum_lo};
	return sum_procs(s, 0, xp_fb_count(s->fb, XP_T_PROCS));
}

/* Sums the counts of the whole profile and starts its overlap. */
static void start_total(xp_cmp *c)
{
	c->o_total.sa = sum_all(&c->a);
	c->o_total.sb = sum_all(&c->b);
	c->total.pub.sum_a = u128_sat(c->o_total.sa);
	c->total.pub.sum_b = u128_sat(c->o_total.sb);
	ovl_start(&c->o_total);
}

/*
 * One layout, object file entry k in both: the sums of its procedures'
 * counters, with what each procedure's counters are (psum), in one sweep
 * over both sides' records.  The whole profile's sums are known from the
 * start, so the counters' shares of its overlap are added here too, in
 * one pass over the object file's counters while they are in the cache:
 * the reader checked that each procedure's counters follow the one's
 * before, and every procedure of the object file comes once, swept, in
 * the pass over the procedures.
 */
static xp_err sweep_objfile(xp_cmp *c, uint32_t k)
{
	const entry *f = &c->ofs[k];
	uint32_t first = U32(&c->a, XP_T_OBJFILES, f->ia, XP_OF_FPROC);
	uint32_t n = U32(&c->a, XP_T_OBJFILES, f->ia, XP_OF_NPROC);
	u128n ta = 0, tb = 0;
	uint32_t from = 0, end = 0;

	c->ps_n = 0;
	if (n > c->ps_cap) {
		psum *ps = realloc(c->ps, (size_t)n * sizeof *ps);
		if (ps == NULL)
			return XP_E_NOMEM;
		c->ps = ps;
		c->ps_cap = n;
	}
	for (uint32_t i = 0; i < n; i++) {
		const unsigned char *r = xp_rec(c->a.fb, XP_T_PROCS, first + i);
		uint32_t fc = xp_get_le32(r + XP_PR_FCNT);
		uint32_t nc = xp_get_le32(r + XP_PR_NCNT);
		const unsigned char *x = xp_rec(c->a.fb, XP_T_COUNTERS, fc);
		const unsigned char *y = xp_rec(c->b.fb, XP_T_COUNTERS, fc);
		u128n sa = 0, sb = 0;
		uint64_t differ = 0;

		if (i == 0)
			from = fc;
		end = fc + nc;
		for (uint32_t j = 0; j < nc; j++, x += XP_RS_COUNTER,
		              y += XP_RS_COUNTER) {
			uint64_t va = xp_get_le64(x + XP_CN_VALUE);
			uint64_t vb = xp_get_le64(y + XP_CN_VALUE);
			sa += va;
			sb += vb;
			differ += va != vb;
		}
		c->ps[i] = (psum){u128_of(sa), u128_of(sb), differ};
		ta += sa;
		tb += sb;
	}
	c->ps_first = first;
	c->ps_n = n;
	c->o_ofs[k].sa = u128_of(ta);
	c->o_ofs[k].sb = u128_of(tb);
	if (n > 0)
		ovl_add_rec(&c->o_total, xp_rec(c->a.fb, XP_T_COUNTERS, from),
		            xp_rec(c->b.fb, XP_T_COUNTERS, from), end - from);
	return XP_E_OK;
}

/*
 * Sums the counts of object file entry k and starts its overlap, before
 * the first of its procedures.  Its procedures lie side by side in the
 * tables, so this reads them in one sweep, and the comparison of each,
 * in name order, finds them in the cache.
 */
static xp_err start_objfile(xp_cmp *c, uint32_t k)
{
	entry *f = &c->ofs[k];
	ovl *o = &c->o_ofs[k];

	c->ps_n = 0;
	if (c->shape && f->ia != UINT32_MAX && f->ia == f->ib) {
		xp_err err = sweep_objfile(c, k);
		if (err != XP_E_OK)
			return err;
	} else {
		if (f->ia != UINT32_MAX)
			o->sa = sum_procs(&c->a, U32(&c->a, XP_T_OBJFILES, f->ia, XP_OF_FPROC),
			                  U32(&c->a, XP_T_OBJFILES, f->ia, XP_OF_NPROC));
		if (f->ib != UINT32_MAX)
			o->sb = sum_procs(&c->b, U32(&c->b, XP_T_OBJFILES, f->ib, XP_OF_FPROC),
			                  U32(&c->b, XP_T_OBJFILES, f->ib, XP_OF_NPROC));
	}
	f->pub.sum_a = u128_sat(o->sa);
	f->pub.sum_b = u128_sat(o->sb);
	ovl_start(o);
	return XP_E_OK;
}

/* Fills the names of a procedure entry and its object file's entry. */
static void proc_names(xp_cmp *c, entry *e, const uint32_t *map_a,
                       const uint32_t *map_b)
{
	if (e->ia != UINT32_MAX) {
		const unsigned char *x = xp_rec(c->a.fb, XP_T_PROCS, e->ia);
		uint32_t of = xp_get_le32(x + XP_PR_OBJFILE);
		e->pub.in_a = 1;
		e->pub.sig_a = xp_get_le64(x + XP_PR_SIG);
		e->pub.name = xp_fb_str(c->a.fb, xp_get_le32(x + XP_PR_NAME));
		e->pub.objfile = xp_fb_str(c->a.fb,
		                           U32(&c->a, XP_T_OBJFILES, of, XP_OF_PATH));
		e->of = map_a[of];
	}
	if (e->ib != UINT32_MAX) {
		const unsigned char *y = b_proc(c, e->ia, e->ib);
		uint32_t of = xp_get_le32(y + XP_PR_OBJFILE);
		e->pub.in_b = 1;
		e->pub.sig_b = xp_get_le64(y + XP_PR_SIG);
		if (!e->pub.in_a) {
			e->pub.name = xp_fb_str(c->b.fb,
			                        xp_get_le32(y + XP_PR_NAME));
			e->pub.objfile = xp_fb_str(
			    c->b.fb, U32(&c->b, XP_T_OBJFILES, of, XP_OF_PATH));
		}
		e->of = map_b[of];
	}
}

/* The sweep's figures of procedure entry e, when it has them; else
 * NULL. */
static const psum *swept(const xp_cmp *c, const entry *e)
{
	uint32_t i = e->ia - c->ps_first;

	if (e->ia == UINT32_MAX || e->ia != e->ib || e->ia < c->ps_first ||
	    i >= c->ps_n)
		return NULL;
	return &c->ps[i];
}

/*
 * The counters of procedure entry e: its figures, and every counter's
 * share added to the overlaps of the procedure (o, started here), its
 * object file and the whole profile.
 */
static xp_err proc_counters(xp_cmp *c, entry *e, ovl *o)
{
	const psum *ps = swept(c, e);
	cjoin *j = &c->j;
	ovl *of = &c->o_ofs[e->of], *all = &c->o_total;

	memset(o, 0, sizeof *o);
	if (ps != NULL) {
		uint32_t n = U32(&c->a, XP_T_PROCS, e->ia, XP_PR_NCNT);
		uint32_t fc = U32(&c->a, XP_T_PROCS, e->ia, XP_PR_FCNT);
		const unsigned char *x = xp_rec(c->a.fb, XP_T_COUNTERS, fc);
		const unsigned char *y = xp_rec(c->b.fb, XP_T_COUNTERS, fc);

		e->pub.n_counters_a = e->pub.n_counters_b = n;
		e->pub.n_matched = n;
		e->pub.n_differ = ps->differ;
		o->sa = ps->sa;
		o->sb = ps->sb;
		ovl_start(o);
		/* The whole profile's shares: added in the sweep. */
		ovl_add2_rec(o, of, x, y, n);
	} else {
		xp_err err = join_counters(&c->a, e->ia, &c->b, e->ib, j);
		if (err != XP_E_OK)
			return err;
		e->pub.n_counters_a = j->na;
		e->pub.n_counters_b = j->nb;
		e->pub.n_matched = j->matched;
		e->pub.n_differ = j->differ;
		o->sa = j->sa;
		o->sb = j->sb;
		ovl_start(o);
		ovl_add(o, j->va, j->vb, j->n);
		ovl_add(of, j->va, j->vb, j->n);
		ovl_add(all, j->va, j->vb, j->n);
	}
	e->pub.sum_a = u128_sat(o->sa);
	e->pub.sum_b = u128_sat(o->sb);
	return XP_E_OK;
}

/*
 * The pass over the procedures: match, sum, compare, and add every
 * counter's share to the overlaps of its procedure, its object file and
 * the whole profile.
 */
static xp_err compare_procs(xp_cmp *c, const uint32_t *map_a,
                            const uint32_t *map_b)
{
	pairidx *p;
	size_t n;
	xp_err err = join_index(c, XP_T_IDX_PROCS, &p, &n);

	if (err != XP_E_OK)
		return err;
	/* An entry per procedure, often tens of thousands: an array in
	 * huge pages, each entry cleared as it is filled. */
	c->procs = n <= SIZE_MAX / sizeof *c->procs
	               ? xp_alloc_huge(n * sizeof *c->procs)
	               : NULL;
	if (c->procs == NULL) {
		free(p);
		return XP_E_NOMEM;
	}
	c->n_procs = n;
	for (size_t k = 0; k < n && err == XP_E_OK; k++) {
		entry *e = &c->procs[k];
		ovl o;

		memset(e, 0, sizeof *e);
		e->ia = p[k].ia;
		e->ib = p[k].ib;
		proc_names(c, e, map_a, map_b);
		if ((k == 0 || e->of != e[-1].of) &&
		    (err = start_objfile(c, e->of)) != XP_E_OK)
			break;
		if ((err = proc_counters(c, e, &o)) != XP_E_OK)
			break;
		e->pub.overlap = ovl_result(&o);
		if (e->pub.in_a && e->pub.in_b) {
			if (e->pub.n_differ != 0 ||
			    e->pub.n_matched != e->pub.n_counters_a ||
			    e->pub.n_matched != e->pub.n_counters_b)
				e->pub.diff |= XP_CMP_COUNTERS;
			err = compare_proc_records(c, e, e->ia, e->ib);
		}
		add_figures(&c->ofs[e->of], e);
		if (!e->pub.in_a || !e->pub.in_b)
			c->ofs[e->of].pub.diff |= XP_CMP_PROCS;
	}
	free(p);
	return err;
}

/* What is left once every procedure is compared: the proc_ids that
 * count, the overlaps of the object files and the totals. */
static void finish(xp_cmp *c)
{
	for (size_t k = 0; k < c->n_procs; k++) {
		entry *e = &c->procs[k];
		if (e->id_moved && !(c->ofs[e->of].pub.diff & XP_CMP_PROCS)) {
			e->pub.diff |= XP_CMP_FIELDS;
			c->ofs[e->of].pub.diff |= XP_CMP_FIELDS;
		}
	}
	for (size_t k = 0; k < c->n_ofs; k++) {
		entry *f = &c->ofs[k];
		f->pub.overlap = ovl_result(&c->o_ofs[k]);
		add_figures(&c->total, f);
		if (!f->pub.in_a || !f->pub.in_b)
			c->total.pub.diff |= XP_CMP_PROCS;
	}
	c->total.pub.overlap = ovl_result(&c->o_total);
}

/* Do programs ia of A and ib of B hold the same stats, object file
 * references and COMDAT procedures? */
static int program_same(const xp_cmp *c, uint32_t ia, uint32_t ib,
                        xp_err *err)
{
	const unsigned char *x = xp_rec(c->a.fb, XP_T_PROGRAMS, ia);
	const unsigned char *y = xp_rec(c->b.fb, XP_T_PROGRAMS, ib);

	return stats_same(c, x, y, XP_PG_FSTAT, err) &&
	       set_same(&c->a, &c->b, w_objref,
	                SLICE(x, XP_PG_FOBJREF, XP_PG_NOBJREF),
	                SLICE(y, XP_PG_FOBJREF, XP_PG_NOBJREF), err) &&
	       set_same(&c->a, &c->b, w_comdat,
	                SLICE(x, XP_PG_FCOMDAT, XP_PG_NCOMDAT),
	                SLICE(y, XP_PG_FCOMDAT, XP_PG_NCOMDAT), err);
}

/*
 * Do source files ia of A and ib of B hold the same lines?  With one
 * layout, the lines are the same and so are their block references,
 * side by side, but for their counts: the same bytes are the same
 * lines, and other sums of counts are other lines.
 */
static int srcfile_same(const xp_cmp *c, uint32_t ia, uint32_t ib,
                        xp_err *err)
{
	nest x = {&c->a, XP_T_SRCLINES, U32(&c->a, XP_T_SRCFILES, ia, XP_SF_FLINE),
	          U32(&c->a, XP_T_SRCFILES, ia, XP_SF_NLINE), 0, 0};
	nest y = {&c->b, XP_T_SRCLINES, U32(&c->b, XP_T_SRCFILES, ib, XP_SF_FLINE),
	          U32(&c->b, XP_T_SRCFILES, ib, XP_SF_NLINE), 0, 0};

	if (c->shape && x.n > 0) {
		uint32_t last = x.first + x.n - 1;
		uint32_t first = U32(&c->a, XP_T_SRCLINES, x.first, XP_SL_FREF);
		uint32_t n = U32(&c->a, XP_T_SRCLINES, last, XP_SL_FREF) +
		             U32(&c->a, XP_T_SRCLINES, last, XP_SL_NREF) - first;
		uint64_t sa = 0, sb = 0;

		if (same_bytes(c, XP_T_BLOCKREFS, first, first, n))
			return 1;
		for (uint32_t i = first; i < first + n; i++) {
			sa += U64(&c->a, XP_T_BLOCKREFS, i, XP_BR_COUNT);
			sb += U64(&c->b, XP_T_BLOCKREFS, i, XP_BR_COUNT);
		}
		if (sa != sb)
			return 0;
	}
	return nest_same(&x, &y, err);
}

/* Programs (idx XP_T_IDX_PROGRAMS) or source files: a note for each one
 * that differs or is one-sided. */
static xp_err compare_sections(xp_cmp *c, xp_table idx, xp_cmp_note_kind kind)
{
	xp_table t = kind == XP_CMP_NOTE_PROGRAM ? XP_T_PROGRAMS : XP_T_SRCFILES;
	pairidx *p;
	size_t n;
	xp_err err = join_index(c, idx, &p, &n);

	for (size_t k = 0; k < n && err == XP_E_OK; k++) {
		uint32_t ia = p[k].ia, ib = p[k].ib;
		const char *name = ia != UINT32_MAX
		                       ? xp_fb_str(c->a.fb, U32(&c->a, t, ia, 0))
		                       : xp_fb_str(c->b.fb, U32(&c->b, t, ib, 0));
		int same = 0;

		if (ia != UINT32_MAX && ib != UINT32_MAX)
			same = kind == XP_CMP_NOTE_PROGRAM
			           ? program_same(c, ia, ib, &err)
			           : srcfile_same(c, ia, ib, &err);
		if (!same && err == XP_E_OK)
			err = add_note(c, kind, name, ia != UINT32_MAX,
			               ib != UINT32_MAX);
	}
	free(p);
	return err;
}

/* Frees what only xp_cmp_new() needs. */
static void free_scratch(xp_cmp *c)
{
	XP_FREE(c->a.rank, c->b.rank, c->a.res, c->b.res, c->o_ofs, c->ps);
	c->a.rank = c->b.rank = NULL;
	c->a.res = c->b.res = NULL;
	c->o_ofs = NULL;
	c->ps = NULL;
	c->ps_cap = c->ps_n = 0;
	cjoin_free(&c->j);
}

xp_err xp_cmp_new(const xp_fb *a, const xp_fb *b, xp_cmp **out)
{
	xp_cmp *c = calloc(1, sizeof *c);
	uint32_t *map_a = NULL, *map_b = NULL;
	xp_err err = XP_E_NOMEM;

	*out = NULL;
	if (c == NULL)
		return XP_E_NOMEM;
	c->a.fb = a;
	c->b.fb = b;
	c->shape = b->like == a || a->like == b;
	c->total.ia = c->total.ib = 0;
	c->total.pub.in_a = c->total.pub.in_b = 1;
	if (xp_fb_datatype(a) != xp_fb_datatype(b) &&
	    add_note(c, XP_CMP_NOTE_TYPE, NULL, 1, 1) != XP_E_OK)
		goto fail;
	if (xp_fb_minor(a) != xp_fb_minor(b) &&
	    add_note(c, XP_CMP_NOTE_VERSION, NULL, 1, 1) != XP_E_OK)
		goto fail;
	if (xp_fb_n_proc_names(a) != xp_fb_n_proc_names(b) &&
	    add_note(c, XP_CMP_NOTE_PROC_NAMES, NULL, 1, 1) != XP_E_OK)
		goto fail;
	if ((err = rank_strings(&c->a, &c->b, c->shape)) != XP_E_OK ||
	    (err = compare_objfiles(c, &map_a, &map_b)) != XP_E_OK)
		goto fail;
	start_total(c);
	if ((err = compare_procs(c, map_a, map_b)) != XP_E_OK ||
	    (err = compare_sections(c, XP_T_IDX_PROGRAMS,
	                            XP_CMP_NOTE_PROGRAM)) != XP_E_OK ||
	    (err = compare_sections(c, XP_T_IDX_SRCFILES,
	                            XP_CMP_NOTE_SRCFILE)) != XP_E_OK)
		goto fail;
	finish(c);
	XP_FREE(map_a, map_b);
	free_scratch(c);
	*out = c;
	return XP_E_OK;
fail:
	XP_FREE(map_a, map_b);
	xp_cmp_free(c);
	return err;
}

void xp_cmp_free(xp_cmp *c)
{
	if (c == NULL)
		return;
	free_scratch(c);
	XP_FREE(c->ofs, c->procs, c->notes);
	free(c);
}

int xp_cmp_equal(const xp_cmp *c)
{
	return c->total.pub.diff == 0 && c->n_notes == 0;
}

const xp_cmp_entry *xp_cmp_total(const xp_cmp *c)
{
	return &c->total.pub;
}

size_t xp_cmp_n_objfiles(const xp_cmp *c)
{
	return c->n_ofs;
}

const xp_cmp_entry *xp_cmp_objfile(const xp_cmp *c, size_t i)
{
	return &c->ofs[i].pub;
}

size_t xp_cmp_n_procs(const xp_cmp *c)
{
	return c->n_procs;
}

const xp_cmp_entry *xp_cmp_proc(const xp_cmp *c, size_t i)
{
	return &c->procs[i].pub;
}

size_t xp_cmp_n_notes(const xp_cmp *c)
{
	return c->n_notes;
}

const xp_cmp_note *xp_cmp_get_note(const xp_cmp *c, size_t i)
{
	return &c->notes[i];
}

xp_err xp_cmp_counters(const xp_cmp *c, size_t i, xp_cmp_counter **out,
                       size_t *n)
{
	const entry *e = &c->procs[i];
	cjoin j;
	xp_cmp_counter *v = NULL;
	xp_err err;

	*out = NULL;
	*n = 0;
	memset(&j, 0, sizeof j);
	err = join_counters(&c->a, e->ia, &c->b, e->ib, &j);
	if (err == XP_E_OK &&
	    (v = malloc((j.n ? j.n : 1) * sizeof *v)) == NULL)
		err = XP_E_NOMEM;
	for (size_t k = 0; err == XP_E_OK && k < j.n; k++)
		v[k] = (xp_cmp_counter){j.id[k], j.on[k] & 1, j.on[k] >> 1,
		                        j.va[k], j.vb[k]};
	if (err == XP_E_OK) {
		*out = v;
		*n = j.n;
	}
	cjoin_free(&j);
	return err;
}

double xp_cmp_relative(const xp_cmp_entry *e)
{
	if (e->sum_a == 0)
		return e->sum_b == 0 ? 0.0 : INFINITY;
	if (e->sum_b >= e->sum_a)
		return (double)((long double)(e->sum_b - e->sum_a) /
		                (long double)e->sum_a);
	return -(double)((long double)(e->sum_a - e->sum_b) /
	                 (long double)e->sum_a);
}

/* What a ranking sorts: the key, the absolute change, the position. */
typedef struct {
	double key;
	uint64_t abs;
	size_t i;
} rankrec;

/* Larger key first, then larger absolute change, then earlier entry. */
static int rank_desc(const void *x, const void *y)
{
	const rankrec *a = x, *b = y;
	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	if (a->abs != b->abs)
		return a->abs > b->abs ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* Restores the heap r[0..n) (its root the last in rank order) below i. */
static void rank_sift(rankrec *r, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && rank_desc(&r[l], &r[m]) > 0)
			m = l;
		if (l + 1 < n && rank_desc(&r[l + 1], &r[m]) > 0)
			m = l + 1;
		if (m == i)
			return;
		rankrec t = r[i];
		r[i] = r[m];
		r[m] = t;
		i = m;
	}
}

/*
 * The first of the records given one by one, in rank order: a heap of the
 * n best so far, its root the last of them in rank order, so that a few
 * out of many take no array of them all.  The order is total (positions
 * differ), so the heap, sorted, is the start of the sorted sequence.
 */
typedef struct {
	rankrec *r;
	size_t n, k;
} ranktop;

static void rank_offer(ranktop *t, rankrec x)
{
	if (t->k < t->n) {
		t->r[t->k++] = x;
		if (t->k == t->n)
			for (size_t i = t->n / 2; i-- > 0;)
				rank_sift(t->r, t->n, i);
	} else if (t->n > 0 && rank_desc(&x, &t->r[0]) < 0) {
		t->r[0] = x;
		rank_sift(t->r, t->n, 0);
	}
}

xp_err xp_cmp_top(const xp_cmp *c, xp_cmp_rank by, size_t n, size_t **out,
                  size_t *count)
{
	ranktop t = {NULL, n < c->n_procs ? n : c->n_procs, 0};

	*out = NULL;
	*count = 0;
	t.r = malloc((t.n ? t.n : 1) * sizeof *t.r);
	if (t.r == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < c->n_procs; i++) {
		const xp_cmp_entry *e = &c->procs[i].pub;
		uint64_t d;

		if (!e->in_a || !e->in_b)
			continue;
		d = e->sum_b > e->sum_a ? e->sum_b - e->sum_a
		                        : e->sum_a - e->sum_b;
		switch (by) {
		case XP_RANK_ABSOLUTE:
			if (d == 0)
				continue;
			/* Exact: the u64 difference itself is the key, through
			 * the tie-break on abs. */
			rank_offer(&t, (rankrec){0, d, i});
			break;
		case XP_RANK_RELATIVE:
			if (d == 0)
				continue;
			rank_offer(&t, (rankrec){fabs(xp_cmp_relative(e)), d, i});
			break;
		case XP_RANK_OVERLAP:
			if (e->overlap >= 1.0)
				continue;
			/* Ascending overlap: sort on its negation. */
			rank_offer(&t, (rankrec){-e->overlap, d, i});
			break;
		}
	}
	xp_qsort(t.r, t.k, sizeof *t.r, rank_desc);
	size_t *idx = malloc((t.k ? t.k : 1) * sizeof *idx);
	if (idx == NULL) {
		free(t.r);
		return XP_E_NOMEM;
	}
	for (size_t i = 0; i < t.k; i++)
		idx[i] = t.r[i].i;
	free(t.r);
	*out = idx;
	*count = t.k;
	return XP_E_OK;
}
