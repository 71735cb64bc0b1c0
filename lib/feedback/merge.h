/*
 * feedback/merge.h - what the files of the merger share: the accumulator,
 * the arithmetic of combining counts, and the steps of adding an input and
 * of producing the result.
 *
 * The merger is one object split by stage: merge.c holds the accumulator
 * and its lookups, merge_add.c adds an input record by record,
 * merge_lines.c its source files and lines, merge_layout.c adds inputs of
 * a layout seen before by their counts alone, merge_absorb.c adds
 * another merger's accumulator (the reduction of a merge on threads),
 * merge_order.c settles the final counts and the canonical order,
 * merge_write.c writes the result, and merge_flat.c writes the result of
 * inputs of one layout from the first of them and the counts of the
 * others, without the accumulator.  What runs once per count or per
 * comparison is inline here, so that splitting the merger into files
 * costs no call on a hot path.
 */
#ifndef XP_FEEDBACK_MERGE_H
#define XP_FEEDBACK_MERGE_H

#include <stdlib.h>
#include <string.h>

#include "feedback/db.h"
#include "xprof_manifest.h"

#define NONE UINT32_MAX
#define U64MAX UINT64_MAX

/* Stat kinds seen for an entity, as bits. */
#define STB_MAX 1u
#define STB_SUM 2u

/* A compilation of an object file; versions compare by it first. */
typedef struct {
	uint32_t tv_sec, tv_usec;
	uint64_t sig;
	uint32_t nvpv;
} comp;

/* Compilations in order: greater is newer. */
static inline int cmp_comp(const comp *a, const comp *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	if (a->tv_usec != b->tv_usec)
		return a->tv_usec < b->tv_usec ? -1 : 1;
	if (a->sig != b->sig)
		return a->sig < b->sig ? -1 : 1;
	if (a->nvpv != b->nvpv)
		return a->nvpv < b->nvpv ? -1 : 1;
	return 0;
}

typedef struct {
	uint64_t key;     /* the value as in internal.h; VP_PROC: pool ids */
	uint64_t count;
	int has;
} vval;

typedef struct {
	uint32_t expr, type;
	uint32_t nv, cap;
	vval *v;
} vrec;

/* Block ref tags: which version of its procedure a count belongs to (the
 * procedure's gen when it was added).  TAG_ANY: to none, the counts of
 * inputs that do not hold the procedure, kept whatever version stays; a
 * line keeps them in a ref of their own beside the ref of the same key
 * that a version's counts go to, and the two meet when settling. */
#define TAG_ANY UINT32_MAX
/* In ptag: the input's version of the procedure was dropped. */
#define TAG_DROP (UINT32_MAX - 1)

typedef struct aproc {
	uint32_t of, name;  /* objfile index, pool id */
	uint64_t sig;
	uint32_t proc_id, n_vp_sites, n_srcmap_ops;
	comp c;             /* the compilation this version came from */
	uint32_t src;       /* name (names pool) of the input that gave it */
	uint32_t gen;       /* bumped when a newer version replaces it */
	uint64_t seq;       /* last input that contributed to it */
	uint64_t dropseq;   /* last input whose version of it was dropped */
	unsigned stats;
	int dropped;        /* dropped when finishing */
	uint64_t max, sum;  /* stats of the result (settle) */
	uint32_t ncnt;
	uint32_t *cid;
	uint64_t *cval;
	uint32_t nblk, nedge, ntup;
	unsigned char *blk, *edge;  /* raw records as in the database */
	xp_tuple *tup;              /* srcfile: resolved pool id or NONE */
	void *mem;                  /* one block holding the arrays above */
	int in_arena;               /* mem belongs to the merger's arena */
	uint32_t nvr, vcap;
	vrec *vr;
	uint32_t next;      /* next procedure of the same object file */
} aproc;

typedef struct {
	uint32_t path;
	comp c;
	uint32_t src;
	uint32_t n_srcfile_names;
	unsigned stats;
	uint32_t first, last; /* chain of its procedures */
	uint64_t max, sum;    /* stats of the result */
	uint32_t *ord;        /* its procedures in the last input's order */
	uint32_t nord, ordcap;
} aobj;

typedef struct {
	uint32_t objfile, proc, block;
	uint32_t tag;
	uint32_t pi;        /* its procedure, NONE while there is none */
	uint64_t count;
} aref;

/* A source line; its block refs are rp[first .. first + nref - 1]. */
typedef struct {
	uint32_t sf, line, col;
	uint32_t first, nref, cap;
} aline;

typedef struct {
	uint32_t path;
	uint32_t nline, cap;
	uint32_t *lines;
	int unsorted;         /* lines is not in strictly increasing order */
	uint32_t nout;        /* lines with block refs, when finishing */
} asrc;

typedef struct {
	uint32_t a, b;
} pair;

typedef struct {
	uint32_t path;
	unsigned stats;
	uint32_t nref, rcap;
	uint32_t *refs;       /* pool ids of object file paths */
	uint32_t ncd, ccap;
	pair *cds;            /* (proc, objfile) pool ids */
} aprog;

/* A procedure of the template with value profiles, and where they went. */
typedef struct {
	uint32_t pi;          /* the procedure it added to (NONE: lazy) */
	uint32_t first_vp, n_vps, first_vpval, nvpv;
	struct aproc *other;  /* the delta's values other than the
	                         template's, VP_PROC keys the template's
	                         string ids; NULL when there are none */
} tvproc;

/*
 * A database added in full that later inputs may have the shape of
 * (xp_merger_add_path), and what adding it noted: where each of its
 * counts went, the warnings of its dropped versions, and the counts of
 * the inputs of its shape added since (the delta), arrays in its order.
 */
typedef struct {
	xp_fb *fb;            /* the database, open; NULL: the slot is free */
	uint64_t used;        /* inputs added when one last had its shape */
	/* A lazy template: fb is the first input, not added yet, and the
	 * merger holds nothing else.  It is added (with its weight and
	 * name) when something else is, or the result is written from it
	 * and the delta directly (merge_flat.c). */
	int lazy;
	double weight;
	char *name;
	xp_buf lost;          /* warnings of its dropped versions, each
	                         followed by a NUL */
	uint32_t *smap;       /* its string ids -> pool ids */
	uint32_t smapcap;
	tvproc *tv;           /* its procedures with value profiles, kept */
	uint32_t ntv, tvcap;
	uint64_t **cmap;      /* per counter: its count, or NULL */
	uint32_t *rmap;       /* per block ref: its line and its position
	                         there, or NONE when dropped */
	uint32_t cmapcap, rmapcap;
	uint64_t dn;          /* inputs in the delta */
	uint64_t *dcnt, *dref; /* per counter and block ref */
	uint32_t dcntcap, drefcap;
	uint64_t *vcnt;       /* per VPVALS record: the combined counts of
	                         its value (the template's value), where */
	unsigned char *vheld; /* vheld is set */
	uint32_t vcntcap, vheldcap;
} tmpl;

/* Templates kept: inputs of this many layouts, interleaved in any order
 * (runs of a binary and profiles merged from such runs, say), are added
 * by their counts alone. */
#define NTMPL 4

/* A simple open-addressing map from a 64-bit key to a u32 value. */
typedef struct {
	uint64_t *keys;
	uint32_t *vals;       /* value + 1; 0 is empty */
	uint32_t n, cap;
} map64;

struct xp_merger {
	xp_merge_opts o;
	const xp_manifest *man;  /* written with the database, or NULL */
	uint64_t count;       /* inputs added */
	int failed;
	xp_datatype type;
	char *first_name;
	unsigned minor;
	uint32_t n_proc_names;

	xp_strpool str, names;
	uint32_t *of_by_str, *pg_by_str, *sf_by_str;
	uint32_t by_str_cap;

	aobj *of;
	uint32_t nof, ofcap;
	aproc *pr;
	uint32_t npr, prcap;
	aprog *pg;
	uint32_t npg, pgcap;
	asrc *sf;
	uint32_t nsf, sfcap;
	aline *ln;
	uint32_t nln, lncap;
	aref *rp;             /* the block refs of every line */
	uint32_t nrp, rpcap;
	uint32_t *ptag;       /* per procedure, for the input being added:
	                         the tag of its block refs, TAG_DROP, or
	                         TAG_ANY when the input does not hold it */
	uint32_t ptagcap;
	/* The first version of every procedure is carved from large
	 * chunks: one allocation for many procedures, freed at once, and
	 * laid out in the order the procedures are walked. */
	void *chunks;         /* the list of chunks, each starting with a link */
	size_t chunk_used, chunk_size;
	map64 procmap;        /* (objfile, name) -> proc */
	map64 linemap;        /* hashed (srcfile, line, col) -> line */
	int linemap_ok;       /* linemap holds every line */

	/* The input being added. */
	uint32_t *smap;       /* input string id -> pool id */
	/* The string table smap was made for (offsets, then bytes): inputs
	 * of one binary often have the same strings, and comparing bytes is
	 * cheaper than looking each string up again. */
	xp_buf smap_of;
	uint32_t smap_nstr, smap_len;
	int smap_ok;
	int w_int;
	uint64_t w;
	long double wl;
	uint64_t seq;
	const char *cur_str;  /* its name */
	uint32_t cur_name;    /* the same in names; NONE until a record takes
	                         it (merge_name) */
	uint64_t saturated;

	/* Inputs of one binary (xp_merger_add_path): the last databases
	 * added in full stay open as templates, and adding one notes where
	 * each of its counts went.  A database of a template's shape
	 * (xp_db_open_fd_like) is checked against it byte for byte and its
	 * counts are combined into the template's delta; the delta goes to
	 * the noted places before anything else changes the accumulator.  A
	 * procedure's value profiles with values other than the template's
	 * are added at once instead.  Adding is associative and commutative,
	 * so this is adding each input in full, which the warnings of
	 * dropped versions repeat.  The notes hold while the accumulated
	 * versions stay as they were: when adding an input in full changes
	 * one (changed), the other templates are closed. */
	tmpl tp[NTMPL];
	tmpl *rec;            /* the template being added: note the places */
	uint64_t changed;     /* bumped when an accumulated version changes */

	uint32_t *rank;       /* when finishing: pool id -> place in byte order */
	unsigned char *rbuf;  /* inputs of a template's shape are read
	                         through it (xp_win), RBUF_SIZE bytes */
};

#define RBUF_SIZE ((size_t)1 << 19)

/* Makes room for need elements of size bytes in *p, doubling *cap from
 * first (at least need). */
static inline xp_err grow_from(void **p, uint32_t *cap, uint32_t need,
                               uint32_t first, size_t size)
{
	if (need <= *cap)
		return XP_E_OK;
	uint32_t ncap = *cap ? *cap : first ? first : 1;
	while (ncap < need) {
		if (ncap > UINT32_MAX / 2)
			return XP_E_LIMIT;
		ncap *= 2;
	}
	void *q = realloc(*p, (size_t)ncap * size);
	if (!q)
		return XP_E_NOMEM;
	*p = q;
	*cap = ncap;
	return XP_E_OK;
}

#define GROW(arr, cap, need) \
	grow_from((void **)&(arr), &(cap), (need), 8, sizeof *(arr))
/* The same, the first room made for first elements: lists whose size
 * is known when they start. */
#define GROW_FROM(arr, cap, need, first) \
	grow_from((void **)&(arr), &(cap), (need), (first), sizeof *(arr))

/*
 * The name of the input being added, as an id of the names pool, for a
 * record that it gives: interned when one first does, so that the many
 * inputs that only add counts leave the pool as it was.
 */
static inline xp_err merge_name(xp_merger *m, uint32_t *out)
{
	xp_err err = XP_E_OK;
	if (m->cur_name == NONE)
		err = xp_strpool_intern(&m->names, m->cur_str,
		                        strlen(m->cur_str), &m->cur_name);
	*out = m->cur_name;
	return err;
}

/* The slot of key: its value + 1, or 0 with *slot where it would go. */
static inline uint32_t map_find(const map64 *m, uint64_t key, uint32_t *slot)
{
	if (!m->cap) {
		*slot = NONE;
		return 0;
	}
	uint32_t j = (uint32_t)xp_mix64(key) & (m->cap - 1);
	while (m->vals[j]) {
		if (m->keys[j] == key) {
			*slot = j;
			return m->vals[j];
		}
		j = (j + 1) & (m->cap - 1);
	}
	*slot = j;
	return 0;
}

xp_err xp_merge_map_put(map64 *m, uint64_t key, uint32_t val);

static inline uint64_t pkey(uint32_t of, uint32_t name)
{
	return (uint64_t)of << 32 | name;
}

static inline uint32_t find_proc(const xp_merger *m, uint32_t of, uint32_t name)
{
	uint32_t slot;
	uint32_t v = map_find(&m->procmap, pkey(of, name), &slot);
	return v ? v - 1 : NONE;
}

static inline int strcmp_id(const xp_merger *m, uint32_t a, uint32_t b)
{
	if (a == b)
		return 0;
	if (a == NONE || b == NONE)
		return a == NONE ? -1 : 1;
	if (m->rank)
		return m->rank[a] < m->rank[b] ? -1 : 1;
	return strcmp(xp_strpool_str(&m->str, a), xp_strpool_str(&m->str, b));
}

#define CMPNUM(x, y)                                                    \
	do {                                                            \
		if ((x) != (y))                                         \
			return (x) < (y) ? -1 : 1;                      \
	} while (0)

/* ------------------------------------------------------------------ */
/* Arithmetic                                                          */
/* ------------------------------------------------------------------ */

/*
 * x >= 0 rounded to nearest, ties away from zero, as a u64; saturates.
 * long double holds every u64 exactly, so the fraction is exact too.
 */
static inline uint64_t round_u64(long double x, int *sat)
{
	if (x >= 18446744073709551616.0L) {
		*sat = 1;
		return U64MAX;
	}
	uint64_t u = (uint64_t)x;
	if (x - (long double)u >= 0.5L) {
		if (u == U64MAX) {
			*sat = 1;
			return U64MAX;
		}
		u++;
	}
	return u;
}

/* value * weight, rounded to nearest (ties away from zero), saturated. */
static inline uint64_t weigh(xp_merger *m, uint64_t v, int *sat)
{
	if (m->w_int) {
		if (m->w == 1 || v == 0)
			return v * m->w;
		if (v > U64MAX / m->w) {
			*sat = 1;
			return U64MAX;
		}
		return v * m->w;
	}
	return round_u64((long double)v * m->wl, sat);
}

/* Combines contribution c into *a by the mode; first: *a holds nothing. */
static inline void combine(xp_merger *m, uint64_t *a, uint64_t c, int first,
                           int sat)
{
	uint64_t old = *a;
	if (first) {
		*a = c;
	} else if (m->o.mode == XP_MERGE_SUM) {
		uint64_t s = old + c;
		if (s < old) {
			s = U64MAX;
			sat = 1;
		}
		*a = s;
	} else if (m->o.mode == XP_MERGE_MAX) {
		if (c > old)
			*a = c;
	} else {
		if (c < old)
			*a = c;
	}
	if (sat)
		m->saturated++;
}

static inline void add_value(xp_merger *m, uint64_t *a, uint64_t v, int first)
{
	int sat = 0;
	uint64_t c = weigh(m, v, &sat);
	combine(m, a, c, first, sat);
}

/* *a += v, saturated: the plain sum of weight 1. */
static inline void add_plain(xp_merger *m, uint64_t *a, uint64_t v)
{
	uint64_t s = *a + v;
	if (s < v) {
		m->saturated++;
		s = U64MAX;
	}
	*a = s;
}

/* add_plain() when plain is set, add_value() otherwise. */
static inline void add_count(xp_merger *m, uint64_t *a, uint64_t v, int plain)
{
	if (plain)
		add_plain(m, a, v);
	else
		add_value(m, a, v, 0);
}

/* How many stats the kinds bits ask for. */
static inline unsigned nstats(unsigned kinds)
{
	return !!(kinds & STB_MAX) + !!(kinds & STB_SUM);
}

/* The result being written. */
typedef struct {
	xp_merger *m;
	uint32_t *ofs;        /* object files in order */
	uint32_t *ofnp;       /* per object file in order: its procedures */
	uint32_t *procs;      /* the procedures kept, in order */
	uint32_t nprocs;
	uint32_t *pidx;       /* IDX_PROCS when not 0..n-1, else NULL */
	uint32_t *pgs, *sfs;  /* programs and source files in order */
	unsigned char *used;  /* per pool string: used by the result */
	uint32_t *sid;        /* pool id -> the result's string id */
	uint64_t n[XP_T_COUNT_]; /* records per table */
	unsigned char *stroff;   /* the result's strings as in a database */
	char *strtab;
	uint32_t nstr, strbytes;
} result;

/*
 * Where records of the result go (merge_write.c): a table of the exact
 * size in memory, or the database being written, through the space its
 * writer hands out.
 */
typedef struct {
	xp_wbuf *w;           /* NULL: memory */
	unsigned char *base;  /* the space: base .. end, filled up to p */
	unsigned char *p, *end;
	int lost;             /* the writer failed (it reports that itself) */
	unsigned char scratch[256];
} recout;

void xp_merge_out_more(recout *o, size_t size);

/* The space of the next record; the caller writes every field. */
static inline unsigned char *orec(recout *o, size_t size)
{
	if ((size_t)(o->end - o->p) < size)
		xp_merge_out_more(o, size);
	unsigned char *r = o->p;
	o->p += size;
	return r;
}

/* The space of up to n records of size rs, at least one: *got of them,
 * every field of which the caller writes. */
static inline unsigned char *orecs(recout *o, size_t rs, uint32_t n,
                                   uint32_t *got)
{
	if ((size_t)(o->end - o->p) < rs)
		xp_merge_out_more(o, rs);
	size_t k = (size_t)(o->end - o->p) / rs;
	if (k > n)
		k = n;
	unsigned char *r = o->p;
	o->p += k * rs;
	*got = (uint32_t)k;
	return r;
}

/* n bytes of records of size rs. */
void xp_merge_out_copy(recout *o, const void *src, size_t n, size_t rs);
/* The records of a stats line, a value profile's values (VP_PROC keys
 * through sid, pool id -> the result's string id; NULL: as they are) and
 * a run. */
void xp_merge_put_stats(recout *o, unsigned kinds, uint64_t max, uint64_t sum);
void xp_merge_put_vpvals(recout *o, const uint32_t *sid, const vrec *vr,
                         uint32_t nvpv);
void xp_merge_put_run(recout *o, xp_seckind kind, uint32_t n);

/*
 * How the directory entries of a result are made (xp_merge_put_entry,
 * merge_write.c): the strings as they are (nstr offsets, strbytes bytes),
 * the tables of object file, program and source file sections by their
 * writers (ctx given to them), the runs from the numbers of sections,
 * the indexes from n (records per table) and pidx (IDX_PROCS when not
 * 0..n-1).
 */
typedef struct {
	const unsigned char *stroff;
	const char *strtab;
	uint32_t nstr, strbytes;
	void (*objfiles)(recout *o, void *ctx, xp_table t);
	void (*programs)(recout *o, void *ctx, xp_table t);
	void (*srcfiles)(recout *o, void *ctx, xp_table t);
	void *ctx;
	uint32_t nof, npg, nsf;
	const uint64_t *n;
	const uint32_t *pidx;
} tables;

void xp_merge_put_entry(recout *o, const tables *T, unsigned e);

/*
 * A result ready to be written (merge_write.c): its shape, its object
 * files (the path of the one, when there is one), and put, which makes
 * the bytes of each directory entry; release frees ctx.
 */
typedef struct {
	xp_db_shape shape;
	uint32_t nof;
	const char *objfile;
	void (*put)(void *ctx, unsigned e, recout *o);
	void (*release)(void *ctx);
	void *ctx;
} product;

/*
 * The result of inputs of one layout, the merger holding nothing but a
 * lazy template (merge_flat.c): 1 when it is written from the template
 * and its delta (P made, or *err), 0 when the accumulator must make it
 * (nothing was changed).
 */
int xp_merge_flat_plan(xp_merger *m, product *P, xp_diags *d, xp_err *err);

/* The accumulator (merge.c). */
void xp_merge_version_free(aproc *p);
void xp_merge_proc_free(aproc *p);
xp_err xp_merge_ensure_by_str(xp_merger *m);

/* Versions (merge_add.c).  The total order on versions of one
 * procedure (greater is newer) is the compilation's, then the shape's:
 * signature, structure and counter ids; versions of equal shape and
 * n_values_per_vp merge.  same_recs compares raw block or edge records,
 * ignoring their counter field when asked. */
int xp_merge_cmp_tuples(const xp_merger *m, const xp_tuple *a,
                        const xp_tuple *b, uint32_t n);
int xp_merge_cmp_shape(const xp_merger *m, const aproc *a, const aproc *b);
int xp_merge_cmp_version(const xp_merger *m, const aproc *a, const aproc *b);
int xp_merge_same_recs(const unsigned char *a, const unsigned char *b,
                       uint32_t n, size_t size, int ignore_counter);
/* Adds zeros to every counter of p (a procedure loaded, not run). */
void xp_merge_add_zeros(xp_merger *m, aproc *p);
/* The object file of path (a pool id) in *out, made with compilation c
 * and input src (names pool) when absent; a second object file of objfd
 * data is refused, in a message under name. */
xp_err xp_merge_get_objfile(xp_merger *m, uint32_t path, comp c, uint32_t src,
                            const char *name, xp_diags *d, uint32_t *out);
/* A program's OBJREF and COMDAT_PROC, each kept once. */
xp_err xp_merge_prog_objref(aprog *g, uint32_t r);
xp_err xp_merge_prog_comdat(aprog *g, pair pp);

/* Adding an input record by record (merge_add.c, merge_lines.c). */
void xp_merge_set_weight(xp_merger *m, double weight);
xp_err xp_merge_check_add(const xp_merger *m, double weight,
                          const char *name, xp_diags *d);
xp_err xp_merge_add_full(xp_merger *m, const xp_fb *in, double weight,
                         const char *name, xp_diags *d);
/* The values of n VPS records vps, nvpv each (vals, VPVALS records),
 * into p's value lists; smap maps the profile's string ids to pool ids
 * (NULL: the keys of VP_PROC values stay its string ids). */
xp_err xp_merge_add_vps(xp_merger *m, aproc *p, const unsigned char *vps,
                        const unsigned char *vals, uint32_t n,
                        uint32_t nvpv, const uint32_t *smap);
/* The value list of (expr, type) in p, made when absent (with room for
 * n of them in p); NULL without memory.  The value of VPVALS record val
 * added to list r (room made for nvpv), *at (when not NULL) set to its
 * place there. */
vrec *xp_merge_vp_list(aproc *p, uint32_t expr, uint32_t type, uint32_t n);
xp_err xp_merge_vp_add(xp_merger *m, vrec *r, const unsigned char *val,
                       uint32_t nvpv, const uint32_t *smap, uint32_t *at);
/* The same for one value, VPVALS record val of VPS record vp. */
xp_err xp_merge_add_vpval(xp_merger *m, aproc *p, const unsigned char *vp,
                          const unsigned char *val, uint32_t nvpv,
                          const uint32_t *smap);
/* The keys of p's VP_PROC values, string ids of a profile, as pool ids
 * (smap). */
void xp_merge_vps_remap(aproc *p, const uint32_t *smap);
/* Combines the value profiles of c into p's (c's arrays may move). */
xp_err xp_merge_combine_vps(xp_merger *m, aproc *p, aproc *c);
/* The merger takes in's data type (the first input's) or refuses
 * another, and the header fields of the result. */
xp_err xp_merge_take_header(xp_merger *m, const xp_fb *in, const char *name,
                            xp_diags *d);
xp_err xp_merge_report_drop(xp_merger *m, xp_diags *d, const aproc *lose,
                            const char *lname, const aproc *win,
                            const char *wname, int mine);
xp_err xp_merge_add_srcfile(xp_merger *m, const xp_fb *in, uint32_t i);

/* Another merger's source files: tag maps the other's procedures to
 * the tag of their block refs here (merge_lines.c, for merge_absorb.c). */
xp_err xp_merge_absorb_srcfile(xp_merger *m, const xp_merger *f, uint32_t i,
                               const uint32_t *sid, const uint32_t *tag);

/* Inputs of a layout seen before (merge_layout.c): every delta added
 * (a lazy template first added in full), every template but keep
 * closed; and a template's memory released. */
xp_err xp_merge_drop_templates(xp_merger *m, const tmpl *keep, xp_diags *d);
void xp_merge_template_free(tmpl *t);
/* Forgets the values other than the template's waiting in t's delta. */
void xp_merge_drop_others(tmpl *t);
/* The one template of m, when m holds nothing else (it is lazy), or
 * NULL. */
tmpl *xp_merge_only_template(xp_merger *m);
/* xp_merger_absorb() of merger f holding only a lazy template, of the
 * layout of the one m holds alone (merge_layout.c): 1 when done (or
 * *err), 0 when the accumulators must meet. */
int xp_merge_absorb_flat(xp_merger *m, xp_merger *f, xp_diags *d,
                         xp_err *err);

/* The canonical order (merge_order.c). */
xp_err xp_merge_plan(xp_merger *m, result *R, xp_diags *d);
void xp_merge_result_free(result *R);
/* A final count: v times --scale, rounded. */
uint64_t xp_merge_scale(xp_merger *m, uint64_t v);
/* p's value profiles in their order, each one's values too. */
void xp_merge_sort_vps(const xp_merger *m, aproc *p);
/* The saturation warning, when some count was cut at 2^64-1: n counts
 * of the result stand there. */
void xp_merge_saturation(xp_merger *m, uint64_t n, xp_diags *d);

#endif
