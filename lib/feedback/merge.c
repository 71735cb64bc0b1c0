/*
 * feedback/merge.c - the merger behind xprof_merge(1): adds feedback profiles one
 * at a time into an accumulator and produces their merged profile in
 * canonical order.
 *
 * The accumulator holds one entry per object file, procedure, program,
 * source file and source line of the merged result, with its own string
 * pool; nothing of an input is kept once it has been added, so memory is
 * proportional to the result, not to the number of inputs.  An input's
 * strings are mapped to the pool once, when it is added; from then on
 * everything is compared by pool id.
 *
 * A procedure keeps the layout (blocks, edges, tuples) of the first
 * input that gave its version, with its counters sorted by id, the order
 * of merged results.  Inputs of the same binary list everything in the
 * same order, so each record is first compared with the one at the same
 * position: a procedure with the one at its position in the previous
 * input, counters with the accumulated ones, source lines and block refs
 * with the accumulated ones; only a miss falls back to a lookup (hash
 * map, or bisection of sorted ids and lines).  An input whose string
 * table is the previous input's reuses its mapping to pool ids.  The
 * first version of every procedure and all block refs live in large
 * arrays, not in one allocation each.
 *
 * Databases of one layout, inputs of one binary's runs, are added by
 * their counts alone after the first, for up to four layouts at a time
 * (xp_merger_add_path, below).  The result is written table by table from
 * the accumulator (at the end).
 *
 * Which version of a procedure survives a mismatch is decided by a total
 * order on versions (newest compilation first), so that the result does
 * not depend on the order of the inputs and merging is associative.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feedback/db.h"

#define NONE UINT32_MAX
#define U64MAX UINT64_MAX

/* Stat kinds seen for an entity, as bits. */
#define STB_MAX 1u
#define STB_SUM 2u

/* Scrambles a 64-bit key for the hash maps below. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdu;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53u;
	x ^= x >> 33;
	return x;
}

/* ------------------------------------------------------------------ */
/* The accumulator                                                     */
/* ------------------------------------------------------------------ */

/* A compilation of an object file; versions compare by it first. */
typedef struct {
	uint32_t tv_sec, tv_usec;
	uint64_t sig;
	uint32_t nvpv;
} comp;

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

/* Block ref tags: which version of its procedure a count belongs to. */
#define TAG_ANY UINT32_MAX
/* In ptag: the input's version of the procedure was dropped. */
#define TAG_DROP (UINT32_MAX - 1)

typedef struct {
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
	uint32_t pi;          /* the procedure it added to */
	uint32_t first_vp, n_vps, first_vpval, nvpv;
	int held;             /* the delta holds counts of it */
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
	unsigned char *vvals; /* VPVALS records, their counts combined */
	size_t vvcap;
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
	uint32_t cur_name;
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
};

static xp_err grow(void **p, uint32_t *cap, uint32_t need, size_t size)
{
	if (need <= *cap)
		return XP_E_OK;
	uint32_t ncap = *cap ? *cap : 8;
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

#define GROW(arr, cap, need) grow((void **)&(arr), &(cap), (need), sizeof *(arr))

static void map_free(map64 *m)
{
	free(m->keys);
	free(m->vals);
}

static xp_err map_rehash(map64 *m)
{
	uint32_t ncap = m->cap ? m->cap * 2 : 1024;
	uint64_t *k = malloc((size_t)ncap * sizeof *k);
	uint32_t *v = calloc(ncap, sizeof *v);
	if (!k || !v) {
		free(k);
		free(v);
		return XP_E_NOMEM;
	}
	for (uint32_t i = 0; i < m->cap; i++) {
		if (!m->vals[i])
			continue;
		uint32_t j = (uint32_t)mix64(m->keys[i]) & (ncap - 1);
		while (v[j])
			j = (j + 1) & (ncap - 1);
		k[j] = m->keys[i];
		v[j] = m->vals[i];
	}
	map_free(m);
	m->keys = k;
	m->vals = v;
	m->cap = ncap;
	return XP_E_OK;
}

/* The slot of key: its value + 1, or 0 with *slot where it would go. */
static uint32_t map_find(const map64 *m, uint64_t key, uint32_t *slot)
{
	if (!m->cap) {
		*slot = NONE;
		return 0;
	}
	uint32_t j = (uint32_t)mix64(key) & (m->cap - 1);
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

static xp_err map_put(map64 *m, uint64_t key, uint32_t val)
{
	uint32_t slot;
	if ((uint64_t)(m->n + 1) * 2 > m->cap) {
		xp_err e = map_rehash(m);
		if (e)
			return e;
	}
	map_find(m, key, &slot);
	m->keys[slot] = key;
	m->vals[slot] = val + 1;
	m->n++;
	return XP_E_OK;
}

xp_merger *xp_merger_new(const xp_merge_opts *opts)
{
	xp_merger *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	if (opts)
		m->o = *opts;
	if (!(m->o.scale > 0))
		m->o.scale = 1;
	m->minor = 3;
	return m;
}

/* Releases a version's arrays (the value profiles stay). */
static void version_free(aproc *p)
{
	if (!p->in_arena)
		free(p->mem);
	p->mem = NULL;
	p->in_arena = 0;
}

static void proc_free(aproc *p)
{
	version_free(p);
	for (uint32_t i = 0; i < p->nvr; i++)
		free(p->vr[i].v);
	free(p->vr);
	p->cid = NULL;
	p->cval = NULL;
	p->blk = p->edge = NULL;
	p->tup = NULL;
	p->vr = NULL;
	p->nvr = p->vcap = 0;
}

void xp_merger_free(xp_merger *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < m->npr; i++)
		proc_free(&m->pr[i]);
	for (uint32_t i = 0; i < m->npg; i++) {
		free(m->pg[i].refs);
		free(m->pg[i].cds);
	}
	for (uint32_t i = 0; i < m->nsf; i++)
		free(m->sf[i].lines);
	for (uint32_t i = 0; i < m->nof; i++)
		free(m->of[i].ord);
	free(m->of);
	free(m->pr);
	free(m->pg);
	free(m->sf);
	free(m->ln);
	free(m->rp);
	free(m->ptag);
	while (m->chunks) {
		void *next;
		memcpy(&next, m->chunks, sizeof next);
		free(m->chunks);
		m->chunks = next;
	}
	map_free(&m->procmap);
	map_free(&m->linemap);
	xp_strpool_free(&m->str);
	xp_strpool_free(&m->names);
	free(m->of_by_str);
	free(m->pg_by_str);
	free(m->sf_by_str);
	free(m->smap);
	xp_buf_free(&m->smap_of);
	free(m->first_name);
	for (unsigned k = 0; k < NTMPL; k++) {
		tmpl *t = &m->tp[k];
		xp_fb_free(t->fb);
		xp_buf_free(&t->lost);
		free(t->smap);
		free(t->tv);
		free(t->cmap);
		free(t->rmap);
		free(t->dcnt);
		free(t->dref);
		free(t->vvals);
	}
	free(m->rank);
	free(m);
}

uint64_t xp_merger_count(const xp_merger *m)
{
	return m->count;
}

xp_datatype xp_merger_datatype(const xp_merger *m)
{
	return m->type;
}

const char *xp_merger_objfile(const xp_merger *m)
{
	return m->type == XP_DT_OBJFD && m->nof > 0
	           ? xp_strpool_str(&m->str, m->of[0].path)
	           : NULL;
}

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

/* ------------------------------------------------------------------ */
/* Lookups by pool id                                                  */
/* ------------------------------------------------------------------ */

static xp_err ensure_by_str(xp_merger *m)
{
	uint32_t need = m->str.n;
	if (need <= m->by_str_cap)
		return XP_E_OK;
	uint32_t ncap = m->by_str_cap ? m->by_str_cap : 1024;
	while (ncap < need)
		ncap *= 2;
	uint32_t **arrs[3] = {&m->of_by_str, &m->pg_by_str, &m->sf_by_str};
	for (int k = 0; k < 3; k++) {
		uint32_t *p = realloc(*arrs[k], (size_t)ncap * sizeof *p);
		if (!p)
			return XP_E_NOMEM;
		for (uint32_t i = m->by_str_cap; i < ncap; i++)
			p[i] = NONE;
		*arrs[k] = p;
	}
	m->by_str_cap = ncap;
	return XP_E_OK;
}

static uint64_t pkey(uint32_t of, uint32_t name)
{
	return (uint64_t)of << 32 | name;
}

static uint32_t find_proc(const xp_merger *m, uint32_t of, uint32_t name)
{
	uint32_t slot;
	uint32_t v = map_find(&m->procmap, pkey(of, name), &slot);
	return v ? v - 1 : NONE;
}

static int strcmp_id(const xp_merger *m, uint32_t a, uint32_t b)
{
	if (a == b)
		return 0;
	if (a == NONE || b == NONE)
		return a == NONE ? -1 : 1;
	if (m->rank)
		return m->rank[a] < m->rank[b] ? -1 : 1;
	return strcmp(xp_strpool_str(&m->str, a), xp_strpool_str(&m->str, b));
}

/* ------------------------------------------------------------------ */
/* Versions                                                            */
/* ------------------------------------------------------------------ */

static int cmp_comp(const comp *a, const comp *b)
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

#define CMPNUM(x, y)                                                    \
	do {                                                            \
		if ((x) != (y))                                         \
			return (x) < (y) ? -1 : 1;                      \
	} while (0)

static int cmp_tuples(const xp_merger *m, const xp_tuple *a,
                      const xp_tuple *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		CMPNUM(a[i].id, b[i].id);
		CMPNUM(a[i].block, b[i].block);
		CMPNUM(a[i].line, b[i].line);
		CMPNUM(a[i].col, b[i].col);
		int c = strcmp_id(m, a[i].srcfile, b[i].srcfile);
		if (c)
			return c;
	}
	return 0;
}

/* The total order on versions of one procedure: greater is newer. */
static int cmp_version(const xp_merger *m, const aproc *a, const aproc *b)
{
	int c = cmp_comp(&a->c, &b->c);
	if (c)
		return c;
	CMPNUM(a->sig, b->sig);
	CMPNUM(a->nblk, b->nblk);
	CMPNUM(a->nedge, b->nedge);
	CMPNUM(a->ntup, b->ntup);
	CMPNUM(a->ncnt, b->ncnt);
	CMPNUM(a->n_vp_sites, b->n_vp_sites);
	CMPNUM(a->n_srcmap_ops, b->n_srcmap_ops);
	if ((c = memcmp(a->blk, b->blk, (size_t)a->nblk * XP_RS_BLOCK)))
		return c;
	if ((c = memcmp(a->edge, b->edge, (size_t)a->nedge * XP_RS_EDGE)))
		return c;
	if ((c = cmp_tuples(m, a->tup, b->tup, a->ntup)))
		return c;
	for (uint32_t i = 0; i < a->ncnt; i++)
		CMPNUM(a->cid[i], b->cid[i]);
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	return *x < *y ? -1 : *x > *y;
}

#define CHUNK_SIZE ((size_t)1 << 20)
#define CHUNK_HEAD ((size_t)16)

/* size bytes, 8-byte aligned, from the merger's chunks; NULL: no memory. */
static void *arena_alloc(xp_merger *m, size_t size)
{
	size = (size + 7) & ~(size_t)7;
	if (!m->chunks || m->chunk_size - m->chunk_used < size) {
		size_t csize = CHUNK_HEAD + (size > CHUNK_SIZE ? size : CHUNK_SIZE);
		unsigned char *c = malloc(csize);
		if (!c)
			return NULL;
		memcpy(c, &m->chunks, sizeof m->chunks);
		m->chunks = c;
		m->chunk_used = CHUNK_HEAD;
		m->chunk_size = csize;
	}
	void *r = (unsigned char *)m->chunks + m->chunk_used;
	m->chunk_used += size;
	return r;
}

/*
 * Fills a procedure's version (structure, no counts) from an input.
 * arena: the version is the procedure's first (it is seldom replaced).
 */
static xp_err load_version(xp_merger *m, aproc *p, const xp_fb *in,
                           const xp_proc *ip, const xp_objfile *io,
                           const uint32_t *resolved, int arena)
{
	p->sig = ip->signature;
	p->proc_id = ip->proc_id;
	p->n_vp_sites = ip->n_vp_sites;
	p->n_srcmap_ops = ip->n_srcmap_ops;
	p->c = (comp){io->tv_sec, io->tv_usec, io->signature,
	              io->n_values_per_vp};
	p->ncnt = ip->n_counters;
	p->nblk = ip->n_blocks;
	p->nedge = ip->n_edges;
	p->ntup = ip->n_tuples;
	/* One allocation per version: counts first (8-byte aligned), then
	 * the 4-byte fields, then the raw records. */
	size_t ncv = (size_t)p->ncnt * sizeof *p->cval;
	size_t nci = (size_t)p->ncnt * sizeof *p->cid;
	size_t ntu = (size_t)p->ntup * sizeof *p->tup;
	size_t nbk = (size_t)p->nblk * XP_RS_BLOCK;
	size_t ned = (size_t)p->nedge * XP_RS_EDGE;
	size_t total = ncv + nci + ntu + nbk + ned + 1;
	unsigned char *mem = arena ? arena_alloc(m, total) : malloc(total);
	p->mem = mem;
	p->in_arena = arena;
	if (!mem)
		return XP_E_NOMEM;
	p->cval = (uint64_t *)(void *)mem;
	p->cid = (uint32_t *)(void *)(mem + ncv);
	p->tup = (xp_tuple *)(void *)(mem + ncv + nci);
	p->blk = mem + ncv + nci + ntu;
	p->edge = p->blk + nbk;
	memset(p->cval, 0, ncv);
	/* Counter ids are kept sorted: a merged result lists counters by id,
	 * so its layout is the one later inputs match, and the versions'
	 * order then depends on the set of ids alone. */
	const unsigned char *c = xp_rec(in, XP_T_COUNTERS, ip->first_counter);
	int sorted = 1;
	for (uint32_t i = 0; i < p->ncnt; i++) {
		p->cid[i] = xp_get_le32(c + (size_t)i * XP_RS_COUNTER);
		if (i > 0 && p->cid[i] < p->cid[i - 1])
			sorted = 0;
	}
	if (!sorted)
		xp_qsort(p->cid, p->ncnt, sizeof *p->cid, cmp_u32);
	if (p->nblk)
		memcpy(p->blk, xp_rec(in, XP_T_BLOCKS, ip->first_block),
		       (size_t)p->nblk * XP_RS_BLOCK);
	if (p->nedge)
		memcpy(p->edge, xp_rec(in, XP_T_EDGES, ip->first_edge),
		       (size_t)p->nedge * XP_RS_EDGE);
	for (uint32_t i = 0; i < p->ntup; i++) {
		xp_fb_tuple(in, ip->first_tuple + i, &p->tup[i]);
		p->tup[i].srcfile = resolved[i];
	}
	return XP_E_OK;
}

/* Compares raw records, ignoring the counter field when asked. */
static int same_recs(const unsigned char *a, const unsigned char *b,
                     uint32_t n, size_t size, int ignore_counter)
{
	if (!ignore_counter)
		return n == 0 || memcmp(a, b, (size_t)n * size) == 0;
	for (uint32_t i = 0; i < n; i++) {
		const unsigned char *x = a + i * size, *y = b + i * size;
		if (memcmp(x, y, 4) != 0 || memcmp(x + 8, y + 8, size - 8) != 0)
			return 0;
	}
	return 1;
}

/*
 * Whether an input's procedure has the structure of the accumulated
 * version.  ignore_counters: compare everything but counter ids (the
 * rule for a procedure with no counters).
 */
static int same_structure(const xp_merger *m, const aproc *p,
                          const xp_fb *in, const xp_proc *ip,
                          const uint32_t *resolved, int ignore_counters)
{
	if (p->nblk != ip->n_blocks || p->nedge != ip->n_edges ||
	    p->ntup != ip->n_tuples || p->n_vp_sites != ip->n_vp_sites ||
	    p->n_srcmap_ops != ip->n_srcmap_ops)
		return 0;
	if (p->nblk && !same_recs(p->blk, xp_rec(in, XP_T_BLOCKS, ip->first_block),
	                          p->nblk, XP_RS_BLOCK, ignore_counters))
		return 0;
	if (p->nedge && !same_recs(p->edge, xp_rec(in, XP_T_EDGES, ip->first_edge),
	                           p->nedge, XP_RS_EDGE, ignore_counters))
		return 0;
	for (uint32_t i = 0; i < p->ntup; i++) {
		const unsigned char *r = xp_rec(in, XP_T_TUPLES, ip->first_tuple + i);
		const xp_tuple *t = &p->tup[i];
		if (t->id != xp_get_le32(r + XP_TU_ID) ||
		    t->block != xp_get_le32(r + XP_TU_BLOCK) ||
		    t->line != xp_get_le32(r + XP_TU_LINE) ||
		    t->col != xp_get_le32(r + XP_TU_COL) ||
		    t->srcfile != resolved[i])
			return 0;
	}
	/* Counter ids are compared by add_counters(). */
	return 1;
}

/* ------------------------------------------------------------------ */
/* Adding counts                                                       */
/* ------------------------------------------------------------------ */

/* The position of id in p's sorted counter ids, or NONE. */
static uint32_t find_counter(const aproc *p, uint32_t id)
{
	/* The ids of a valid profile are 1 to n: id is at id - 1. */
	if (id - 1 < p->ncnt && p->cid[id - 1] == id)
		return id - 1;
	uint32_t lo = 0, hi = p->ncnt;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (p->cid[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->ncnt && p->cid[lo] == id ? lo : NONE;
}

/*
 * Adds an input procedure's counters into p.  Returns 0 when the sets of
 * counter ids differ (a structure mismatch; nothing is changed), 1 when
 * done.  first: p holds no contribution yet.
 */
static int add_counters(xp_merger *m, aproc *p, const xp_fb *in,
                        const xp_proc *ip, int first, int check_only)
{
	const unsigned char *c = xp_rec(in, XP_T_COUNTERS, ip->first_counter);
	uint32_t n = ip->n_counters;
	if (n != p->ncnt)
		return 0;
	uint32_t i = 0;
	while (i < n && xp_get_le32(c + (size_t)i * XP_RS_COUNTER) == p->cid[i])
		i++;
	if (i == n) {
		if (check_only)
			return 1;
		/* The same layout: no lookup per counter. */
		if (m->w_int && m->w == 1 && m->o.mode == XP_MERGE_SUM && !first) {
			for (i = 0; i < n; i++)
				add_plain(m, &p->cval[i],
				          xp_get_le64(c + (size_t)i * XP_RS_COUNTER +
				                      XP_CN_VALUE));
		} else {
			for (i = 0; i < n; i++)
				add_value(m, &p->cval[i],
				          xp_get_le64(c + (size_t)i * XP_RS_COUNTER +
				                      XP_CN_VALUE),
				          first);
		}
		return 1;
	}
	/* Another order: search each id.  Ids are unique within an input
	 * procedure, so equal counts and every id found mean equal sets.
	 * Check first, so that a mismatch changes nothing. */
	for (i = 0; i < n; i++)
		if (find_counter(p, xp_get_le32(c + (size_t)i * XP_RS_COUNTER)) ==
		    NONE)
			return 0;
	if (check_only)
		return 1;
	for (i = 0; i < n; i++) {
		const unsigned char *r = c + (size_t)i * XP_RS_COUNTER;
		add_value(m, &p->cval[find_counter(p, xp_get_le32(r))],
		          xp_get_le64(r + XP_CN_VALUE), first);
	}
	return 1;
}

/* Adds zeros to every counter of p (a procedure loaded, not run). */
static void add_zeros(xp_merger *m, aproc *p)
{
	if (m->o.mode != XP_MERGE_MIN)
		return;
	for (uint32_t i = 0; i < p->ncnt; i++)
		p->cval[i] = 0;
}

/* A value's key; smap maps in's string ids to pool ids. */
static uint64_t vp_key(const uint32_t *smap, const xp_fb *in, uint32_t i,
                       xp_vptype type, int *has, uint64_t *count)
{
	const unsigned char *r = xp_rec(in, XP_T_VPVALS, i);
	*count = xp_get_le64(r + XP_VV_COUNT);
	*has = (xp_get_le32(r + XP_VV_FLAGS) & XP_VVF_HAS_VALUE) != 0;
	uint64_t v = xp_get_le64(r + XP_VV_VALUE);
	if (!*has)
		return 0;
	if (type == XP_VP_PROC)
		return (uint64_t)smap[(uint32_t)v] |
		       (uint64_t)smap[(uint32_t)(v >> 32)] << 32;
	return v;
}

static xp_err add_vps(xp_merger *m, aproc *p, const xp_fb *in,
                      const uint32_t *smap, const xp_proc *ip, uint32_t nvpv)
{
	for (uint32_t k = 0; k < ip->n_vps; k++) {
		xp_vp vp;
		xp_fb_vp(in, ip->first_vp + k, &vp);
		uint32_t j;
		for (j = 0; j < p->nvr; j++)
			if (p->vr[j].expr == vp.expr_id && p->vr[j].type == vp.type)
				break;
		if (j == p->nvr) {
			if (GROW(p->vr, p->vcap, p->nvr + 1))
				return XP_E_NOMEM;
			p->vr[j] = (vrec){vp.expr_id, vp.type, 0, 0, NULL};
			p->nvr++;
		}
		vrec *r = &p->vr[j];
		for (uint32_t q = 0; q < nvpv; q++) {
			int has;
			uint64_t count;
			uint64_t key = vp_key(smap, in,
			                      ip->first_vpval + k * nvpv + q, vp.type,
			                      &has, &count);
			uint32_t e;
			for (e = 0; e < r->nv; e++)
				if (r->v[e].has == has && r->v[e].key == key)
					break;
			if (e == r->nv) {
				if (GROW(r->v, r->cap, r->nv + 1))
					return XP_E_NOMEM;
				r->v[e] = (vval){key, 0, has};
				r->nv++;
				add_value(m, &r->v[e].count, count, 1);
			} else {
				add_value(m, &r->v[e].count, count, 0);
			}
		}
	}
	return XP_E_OK;
}

/* ------------------------------------------------------------------ */
/* Adding an input                                                     */
/* ------------------------------------------------------------------ */

static const char *why(const xp_merger *m, const aproc *lose,
                       const aproc *win, char *buf, size_t size)
{
	if (lose->sig != win->sig)
		snprintf(buf, size, "signature 0x%llx differs from 0x%llx",
		         (unsigned long long)lose->sig,
		         (unsigned long long)win->sig);
	else if (lose->c.nvpv != win->c.nvpv)
		snprintf(buf, size, "n_values_per_vp %u differs from %u",
		         lose->c.nvpv, win->c.nvpv);
	else
		snprintf(buf, size, "structure differs");
	(void)m;
	return buf;
}

/*
 * Reports the dropping of version lose (from input lname) in favour of
 * win (from wname); mine: lose is the input's.  Returns nonzero when the
 * merge must fail.
 */
static xp_err report_drop(xp_merger *m, xp_diags *d, const aproc *lose,
                          const char *lname, const aproc *win,
                          const char *wname, int mine)
{
	char buf[128];
	const char *pname = xp_strpool_str(&m->str, lose->name);
	const char *opath = xp_strpool_str(&m->str, m->of[lose->of].path);
	if (m->o.mismatch == XP_MISMATCH_SKIP)
		return XP_E_OK;
	why(m, lose, win, buf, sizeof buf);
	if (m->o.mismatch == XP_MISMATCH_ERROR)
		return xp_diag_file(d, XP_E_INVAL, lname,
		                    "PROC %s in OBJFILE %s: %s in %s", pname,
		                    opath, buf, wname);
	char *msg = NULL;
	if (asprintf(&msg, "dropped PROC %s in OBJFILE %s: %s "
	             "(kept: newer compilation from %s)",
	             pname, opath, buf, wname) < 0)
		return XP_E_NOMEM;
	xp_diag_warn(d, lname, "%s", msg);
	/* Inputs of the template's shape lose the same way. */
	xp_err err = XP_E_OK;
	if (mine && m->rec)
		err = xp_buf_append(&m->rec->lost, msg, strlen(msg) + 1);
	free(msg);
	return err;
}

/*
 * Adds the input procedure at position k of its object file.  Inputs of
 * one binary list the procedures in the same order, so the procedure at
 * that position in the previous input is tried before any lookup.  *out
 * is set to the procedure's index.
 */
static xp_err add_proc(xp_merger *m, uint32_t ofi, const xp_fb *in,
                       const xp_objfile *io, const xp_proc *ip,
                       const uint32_t *resolved, const char *name,
                       uint32_t k, uint32_t *out, xp_diags *d)
{
	uint32_t pname = m->smap[ip->name];
	const aobj *ao = &m->of[ofi];
	uint32_t pi = k < ao->nord ? ao->ord[k] : NONE;
	if (pi == NONE || m->pr[pi].name != pname)
		pi = find_proc(m, ofi, pname);
	*out = pi;
	aproc *p;
	xp_err err;
	int first = 0;
	unsigned stats = 0;
	for (uint32_t s = 0; s < ip->n_stats; s++) {
		xp_stat st;
		xp_fb_stat(in, ip->first_stat + s, &st);
		stats |= st.kind == XP_STAT_MAX ? STB_MAX : STB_SUM;
	}

	if (pi == NONE) {
		if ((err = GROW(m->pr, m->prcap, m->npr + 1)))
			return err;
		pi = m->npr++;
		p = &m->pr[pi];
		memset(p, 0, sizeof *p);
		p->of = ofi;
		p->name = pname;
		p->next = NONE;
		p->dropseq = 0;
		if ((err = load_version(m, p, in, ip, io, resolved, 1)))
			return err;
		if ((err = map_put(&m->procmap, pkey(ofi, pname), pi)))
			return err;
		aobj *o = &m->of[ofi];
		if (o->first == NONE)
			o->first = pi;
		else
			m->pr[o->last].next = pi;
		o->last = pi;
		p->src = m->cur_name;
		first = 1;
		*out = pi;
	} else {
		p = &m->pr[pi];
		comp ic = {io->tv_sec, io->tv_usec, io->signature,
		           io->n_values_per_vp};
		int nvpv_ok = ic.nvpv == p->c.nvpv || (ip->n_vps == 0 && p->nvr == 0);
		int same = p->sig == ip->signature && nvpv_ok &&
		           same_structure(m, p, in, ip, resolved, 0);
		int r = same ? add_counters(m, p, in, ip, 0, 1) : 0;
		if (r < 0)
			return XP_E_NOMEM;
		if (r == 1) {
			if (cmp_comp(&ic, &p->c) > 0) {
				p->c = ic;
				m->changed++;
			}
		} else if (p->sig == ip->signature && nvpv_ok &&
		           (ip->n_counters == 0 || p->ncnt == 0) &&
		           same_structure(m, p, in, ip, resolved, 1)) {
			/* Loaded but not run: it merges with zeros. */
			if (ip->n_counters == 0) {
				if (cmp_comp(&ic, &p->c) > 0) {
					p->c = ic;
					m->changed++;
				}
				add_zeros(m, p);
				p->stats |= stats;
				if (ip->proc_id < p->proc_id)
					p->proc_id = ip->proc_id;
				p->seq = m->seq;
				return add_vps(m, p, in, m->smap, ip,
				               io->n_values_per_vp);
			}
			/* The accumulated version had none: take this layout. */
			uint32_t keep_id = p->proc_id < ip->proc_id ? p->proc_id
			                                            : ip->proc_id;
			comp keep_c = cmp_comp(&p->c, &ic) > 0 ? p->c : ic;
			version_free(p);
			m->changed++;
			if ((err = load_version(m, p, in, ip, io, resolved, 0)))
				return err;
			p->proc_id = keep_id;
			p->c = keep_c;
			add_counters(m, p, in, ip, 1, 0);
			if (m->o.mode == XP_MERGE_MIN)
				add_zeros(m, p);
			p->stats |= stats;
			p->seq = m->seq;
			return add_vps(m, p, in, m->smap, ip,
			               io->n_values_per_vp);
		} else {
			/* Different versions: the newer one stays. */
			aproc cand;
			memset(&cand, 0, sizeof cand);
			cand.of = ofi;
			cand.name = pname;
			if ((err = load_version(m, &cand, in, ip, io, resolved, 0))) {
				proc_free(&cand);
				return err;
			}
			int c = cmp_version(m, &cand, p);
			const char *pn = xp_strpool_str(&m->names, p->src);
			if (c < 0) {
				err = report_drop(m, d, &cand, name, p, pn, 1);
				proc_free(&cand);
				p->dropseq = m->seq;
				return err;
			}
			err = report_drop(m, d, p, pn, &cand, name, 0);
			if (err) {
				proc_free(&cand);
				return err;
			}
			uint32_t gen = p->gen + 1, next = p->next;
			uint64_t dropseq = p->dropseq;
			proc_free(p);
			m->changed++;
			*p = cand;
			p->gen = gen;
			p->next = next;
			p->dropseq = dropseq;
			p->src = m->cur_name;
			first = 1;
		}
	}
	if (first)
		p->stats = 0;
	p->stats |= stats;
	if (!first && ip->proc_id < p->proc_id)
		p->proc_id = ip->proc_id;
	if (add_counters(m, p, in, ip, first, 0) < 0)
		return XP_E_NOMEM;
	p->seq = m->seq;
	return add_vps(m, p, in, m->smap, ip, io->n_values_per_vp);
}

/*
 * Adding the template: notes where the counts of its procedure k (merged
 * into pi) went, or that it was dropped.
 */
static xp_err note_counts(xp_merger *m, const xp_fb *in, const xp_proc *ip,
                          uint32_t nvpv, uint32_t pi)
{
	const aproc *p = &m->pr[pi];
	tmpl *t = m->rec;
	int kept = p->seq == m->seq;
	if (kept && ip->n_vps > 0) {
		if (GROW(t->tv, t->tvcap, t->ntv + 1))
			return XP_E_NOMEM;
		t->tv[t->ntv++] = (tvproc){pi, ip->first_vp, ip->n_vps,
		                           ip->first_vpval, nvpv, 0};
	}
	const unsigned char *c = xp_rec(in, XP_T_COUNTERS, ip->first_counter);
	for (uint32_t i = 0; i < ip->n_counters; i++, c += XP_RS_COUNTER) {
		uint32_t at = kept ? find_counter(p, xp_get_le32(c)) : NONE;
		t->cmap[ip->first_counter + i] = at == NONE ? NULL : &p->cval[at];
	}
	return XP_E_OK;
}

static xp_err add_objfile(xp_merger *m, const xp_fb *in, uint32_t i,
                          const char *name, xp_diags *d)
{
	xp_objfile io;
	xp_err err;
	xp_fb_objfile(in, i, &io);
	uint32_t path = m->smap[io.path];
	uint32_t ofi = m->of_by_str[path];
	comp ic = {io.tv_sec, io.tv_usec, io.signature, io.n_values_per_vp};
	if (ofi == NONE) {
		if (m->type == XP_DT_OBJFD && m->nof > 0)
			return xp_diag_file(d, XP_E_INVAL, name,
			                    "objfd data of %s cannot be merged with "
			                    "objfd data of %s from %s",
			                    xp_strpool_str(&m->str, path),
			                    xp_strpool_str(&m->str, m->of[0].path),
			                    m->first_name);
		if ((err = GROW(m->of, m->ofcap, m->nof + 1)))
			return err;
		ofi = m->nof++;
		m->of_by_str[path] = ofi;
		aobj *o = &m->of[ofi];
		memset(o, 0, sizeof *o);
		o->path = path;
		o->c = ic;
		o->src = m->cur_name;
		o->first = o->last = NONE;
	}
	aobj *o = &m->of[ofi];
	if (cmp_comp(&ic, &o->c) > 0) {
		o->c = ic;
		o->src = m->cur_name;
	}
	if (io.n_srcfile_names > o->n_srcfile_names)
		o->n_srcfile_names = io.n_srcfile_names;
	for (uint32_t s = 0; s < io.n_stats; s++) {
		xp_stat st;
		xp_fb_stat(in, io.first_stat + s, &st);
		o->stats |= st.kind == XP_STAT_MAX ? STB_MAX : STB_SUM;
	}

	/* Tuples without a file use the previous one's, across procedures. */
	uint32_t cur = NONE;
	uint32_t *res = NULL;
	if ((err = GROW(o->ord, o->ordcap, io.n_procs)))
		return err;
	size_t rescap = 0;
	for (uint32_t k = 0; k < io.n_procs; k++) {
		xp_proc ip;
		xp_fb_proc(in, io.first_proc + k, &ip);
		if (ip.n_tuples > rescap) {
			size_t nc = ip.n_tuples * 2;
			uint32_t *r = realloc(res, nc * sizeof *r);
			if (!r) {
				free(res);
				return XP_E_NOMEM;
			}
			res = r;
			rescap = nc;
		}
		for (uint32_t t = 0; t < ip.n_tuples; t++) {
			uint32_t f = xp_get_le32(xp_rec(in, XP_T_TUPLES,
			                                ip.first_tuple + t) +
			                         XP_TU_FILE);
			if (f != XP_NOSTR)
				cur = m->smap[f];
			res[t] = cur;
		}
		uint32_t pi;
		if ((err = add_proc(m, ofi, in, &io, &ip, res, name, k, &pi, d))) {
			free(res);
			return err;
		}
		o->ord[k] = pi;
		if (m->rec &&
		    (err = note_counts(m, in, &ip, io.n_values_per_vp, pi))) {
			free(res);
			return err;
		}
		/* The tag its block refs take in this input, kept apart
		 * from the procedure so that refs find it in cache. */
		if ((err = GROW(m->ptag, m->ptagcap, m->npr))) {
			free(res);
			return err;
		}
		const aproc *p = &m->pr[pi];
		m->ptag[pi] = p->seq == m->seq       ? p->gen
		              : p->dropseq == m->seq ? TAG_DROP
		                                     : TAG_ANY;
	}
	o->nord = io.n_procs;
	free(res);
	return XP_E_OK;
}

static xp_err add_program(xp_merger *m, const xp_fb *in, uint32_t i)
{
	xp_program ip;
	xp_err err;
	xp_fb_program(in, i, &ip);
	uint32_t path = m->smap[ip.path];
	uint32_t gi = m->pg_by_str[path];
	if (gi == NONE) {
		if ((err = GROW(m->pg, m->pgcap, m->npg + 1)))
			return err;
		gi = m->npg++;
		m->pg_by_str[path] = gi;
		memset(&m->pg[gi], 0, sizeof m->pg[gi]);
		m->pg[gi].path = path;
	}
	aprog *g = &m->pg[gi];
	for (uint32_t s = 0; s < ip.n_stats; s++) {
		xp_stat st;
		xp_fb_stat(in, ip.first_stat + s, &st);
		g->stats |= st.kind == XP_STAT_MAX ? STB_MAX : STB_SUM;
	}
	for (uint32_t k = 0; k < ip.n_objrefs; k++) {
		uint32_t r = m->smap[xp_fb_objref(in, ip.first_objref + k)];
		uint32_t j;
		for (j = 0; j < g->nref && g->refs[j] != r; j++)
			;
		if (j < g->nref)
			continue;
		if ((err = GROW(g->refs, g->rcap, g->nref + 1)))
			return err;
		g->refs[g->nref++] = r;
	}
	for (uint32_t k = 0; k < ip.n_comdats; k++) {
		xp_comdat cd;
		xp_fb_comdat(in, ip.first_comdat + k, &cd);
		pair pp = {m->smap[cd.proc], m->smap[cd.objfile]};
		uint32_t j;
		for (j = 0; j < g->ncd; j++)
			if (g->cds[j].a == pp.a && g->cds[j].b == pp.b)
				break;
		if (j < g->ncd)
			continue;
		if ((err = GROW(g->cds, g->ccap, g->ncd + 1)))
			return err;
		g->cds[g->ncd++] = pp;
	}
	return XP_E_OK;
}

static uint64_t lkey(uint32_t sf, uint32_t line, uint32_t col)
{
	return mix64((uint64_t)sf << 32 | line) ^ ((uint64_t)col * 0x9e3779b97f4a7c15u);
}

/* Finds line (sf, line, col) in linemap; where it would go if absent. */
static uint32_t linemap_find(const xp_merger *m, uint32_t sf, uint32_t line,
                             uint32_t col, uint64_t *keyp)
{
	/* The key hashes (srcfile, line, col); collisions are told apart by
	 * a chain of candidates probed in turn. */
	uint64_t key = lkey(sf, line, col);
	for (;;) {
		uint32_t slot, v = map_find(&m->linemap, key, &slot);
		if (!v)
			break;
		const aline *l = &m->ln[v - 1];
		if (l->sf == sf && l->line == line && l->col == col) {
			*keyp = key;
			return v - 1;
		}
		key = mix64(key + 1);
	}
	*keyp = key;
	return NONE;
}

/* Fills linemap with every line, when it is needed the first time. */
static xp_err linemap_build(xp_merger *m)
{
	for (uint32_t li = 0; li < m->nln; li++) {
		uint64_t key;
		const aline *l = &m->ln[li];
		linemap_find(m, l->sf, l->line, l->col, &key);
		xp_err err = map_put(&m->linemap, key, li);
		if (err)
			return err;
	}
	m->linemap_ok = 1;
	return XP_E_OK;
}

static int line_before(const aline *l, uint32_t line, uint32_t col)
{
	return l->line < line || (l->line == line && l->col < col);
}

/*
 * The accumulator's line (line, col) of source file si, made when absent.
 * k is the line's position in the input: inputs of one binary list the
 * lines of a file in the same order, so position k is tried first.  A
 * file whose lines stay in increasing order is searched by bisection;
 * only files whose inputs disagree on the order need the hash map.
 */
static xp_err get_line(xp_merger *m, uint32_t si, uint32_t line, uint32_t col,
                       uint32_t k, uint32_t *out)
{
	asrc *s = &m->sf[si];
	xp_err err;
	if (k < s->nline) {
		const aline *l = &m->ln[s->lines[k]];
		if (l->line == line && l->col == col) {
			*out = s->lines[k];
			return XP_E_OK;
		}
	}
	uint64_t key = 0;
	int unsorted = s->unsorted;
	if (!unsorted) {
		uint32_t lo = 0, hi = s->nline;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (line_before(&m->ln[s->lines[mid]], line, col))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < s->nline) {
			const aline *l = &m->ln[s->lines[lo]];
			if (l->line == line && l->col == col) {
				*out = s->lines[lo];
				return XP_E_OK;
			}
			unsorted = 1; /* the new line goes before the last */
		}
		if (m->linemap_ok)
			linemap_find(m, si, line, col, &key);
	} else {
		if (!m->linemap_ok && (err = linemap_build(m)))
			return err;
		uint32_t li = linemap_find(m, si, line, col, &key);
		if (li != NONE) {
			*out = li;
			return XP_E_OK;
		}
	}
	if ((err = GROW(m->ln, m->lncap, m->nln + 1)) ||
	    (err = GROW(s->lines, s->cap, s->nline + 1)))
		return err;
	uint32_t li = m->nln++;
	m->ln[li] = (aline){si, line, col, 0, 0, 0};
	if (m->linemap_ok && (err = map_put(&m->linemap, key, li)))
		return err;
	s->lines[s->nline++] = li;
	if (unsorted && !s->unsorted) {
		/* From now on this file needs the map. */
		s->unsorted = 1;
		if (!m->linemap_ok && (err = linemap_build(m)))
			return err;
	}
	*out = li;
	return XP_E_OK;
}

/* Appends a ref to line l, moving its refs to the end of rp when full. */
static xp_err line_add_ref(xp_merger *m, aline *l, const aref *r)
{
	xp_err err;
	if (l->nref == l->cap) {
		uint32_t ncap = l->cap ? l->cap * 2 : 1;
		if (l->cap && l->first + l->cap == m->nrp) {
			/* Last in rp: grow in place. */
			if ((err = GROW(m->rp, m->rpcap, m->nrp + (ncap - l->cap))))
				return err;
			m->nrp += ncap - l->cap;
		} else {
			if ((err = GROW(m->rp, m->rpcap, m->nrp + ncap)))
				return err;
			if (l->nref)
				memcpy(m->rp + m->nrp, m->rp + l->first,
				       (size_t)l->nref * sizeof *m->rp);
			l->first = m->nrp;
			m->nrp += ncap;
		}
		l->cap = ncap;
	}
	m->rp[l->first + l->nref++] = *r;
	return XP_E_OK;
}

static xp_err add_srcfile(xp_merger *m, const xp_fb *in, uint32_t i)
{
	xp_srcfile is;
	xp_err err;
	xp_fb_srcfile(in, i, &is);
	uint32_t path = m->smap[is.path];
	uint32_t si = m->sf_by_str[path];
	if (si == NONE) {
		if ((err = GROW(m->sf, m->sfcap, m->nsf + 1)))
			return err;
		si = m->nsf++;
		m->sf_by_str[path] = si;
		memset(&m->sf[si], 0, sizeof m->sf[si]);
		m->sf[si].path = path;
	}
	const unsigned char *lrec = xp_rec(in, XP_T_SRCLINES, is.first_line);
	for (uint32_t k = 0; k < is.n_lines; k++, lrec += XP_RS_SRCLINE) {
		uint32_t li;
		if ((err = get_line(m, si, xp_get_le32(lrec + XP_SL_LINE),
		                    xp_get_le32(lrec + XP_SL_COL), k, &li)))
			return err;
		uint32_t nrefs = xp_get_le32(lrec + XP_SL_NREF);
		uint32_t fref = xp_get_le32(lrec + XP_SL_FREF);
		const unsigned char *rrec = xp_rec(in, XP_T_BLOCKREFS, fref);
		for (uint32_t q = 0; q < nrefs; q++, rrec += XP_RS_BLOCKREF) {
			/* Adding the template: where the count goes. */
			uint32_t *note = m->rec ? m->rec->rmap + 2 * ((size_t)fref + q)
			                        : NULL;
			aline *l = &m->ln[li];
			uint32_t block = xp_get_le32(rrec + XP_BR_BLOCK);
			uint32_t pp = m->smap[xp_get_le32(rrec + XP_BR_PROC)];
			uint32_t po = m->smap[xp_get_le32(rrec + XP_BR_OBJFILE)];
			uint64_t count = xp_get_le64(rrec + XP_BR_COUNT);
			/* The same position first, as for lines. */
			aref *lr = l->nref ? m->rp + l->first : NULL;
			uint32_t e = q;
			if (e >= l->nref || lr[e].block != block ||
			    lr[e].proc != pp || lr[e].objfile != po)
				for (e = 0; e < l->nref; e++)
					if (lr[e].block == block && lr[e].proc == pp &&
					    lr[e].objfile == po)
						break;
			uint32_t pi = e < l->nref ? lr[e].pi : NONE;
			if (pi == NONE) {
				uint32_t ofi = m->of_by_str[po];
				pi = ofi == NONE ? NONE : find_proc(m, ofi, pp);
			}
			uint32_t tag = pi == NONE ? TAG_ANY : m->ptag[pi];
			if (note) {
				note[0] = li;
				note[1] = tag == TAG_DROP ? NONE : e;
			}
			if (tag == TAG_DROP)
				continue; /* its version was dropped */
			if (e == l->nref) {
				aref nr = {po, pp, block, tag, pi, 0};
				add_value(m, &nr.count, count, 1);
				if ((err = line_add_ref(m, l, &nr)))
					return err;
				continue;
			}
			aref *r = &lr[e];
			r->pi = pi;
			if (tag != TAG_ANY && r->tag != TAG_ANY && r->tag < tag) {
				/* Counts of a version since replaced. */
				r->tag = tag;
				r->count = 0;
				add_value(m, &r->count, count, 1);
			} else {
				if (r->tag == TAG_ANY)
					r->tag = tag;
				add_value(m, &r->count, count, 0);
			}
		}
	}
	return XP_E_OK;
}

/* Maps the input's strings to pool ids (m->smap). */
static xp_err map_strings(xp_merger *m, const xp_fb *in)
{
	uint32_t ns = in->nstr;
	size_t offlen = (size_t)ns * 4;
	if (m->smap_ok && ns == m->smap_nstr && in->strtab_len == m->smap_len &&
	    (ns == 0 || (memcmp(m->smap_of.p, in->stroff, offlen) == 0 &&
	                 memcmp(m->smap_of.p + offlen, in->strtab,
	                        in->strtab_len) == 0)))
		return XP_E_OK;
	xp_err err;
	m->smap_ok = 0;
	free(m->smap);
	m->smap = malloc(((size_t)ns + 1) * sizeof *m->smap);
	if (!m->smap)
		return XP_E_NOMEM;
	for (uint32_t i = 0; i < ns; i++)
		if ((err = xp_strpool_intern(&m->str, xp_fb_str(in, i), xp_fb_strlen(in, i),
		                     &m->smap[i])))
			return err;
	if ((err = ensure_by_str(m)))
		return err;
	m->smap_of.len = 0;
	if (ns > 0 && ((err = xp_buf_append(&m->smap_of, in->stroff, offlen)) ||
	               (err = xp_buf_append(&m->smap_of, in->strtab,
	                                    in->strtab_len))))
		return err;
	m->smap_nstr = ns;
	m->smap_len = in->strtab_len;
	m->smap_ok = 1;
	return XP_E_OK;
}

/* Takes weight for the input being added; it was checked. */
static void set_weight(xp_merger *m, double weight)
{
	if (weight <= 18446744073709549568.0 &&
	    (double)(uint64_t)weight == weight) {
		m->w_int = 1;
		m->w = (uint64_t)weight;
	} else {
		m->w_int = 0;
		m->wl = weight;
	}
}

/* The checks of every input before it is looked at. */
static xp_err check_add(const xp_merger *m, double weight, const char *name,
                        xp_diags *d)
{
	if (m->failed)
		return xp_diag_file(d, XP_E_INVAL, name,
		                    "the merge failed earlier");
	if (!(weight > 0) || !isfinite(weight))
		return xp_diag_file(d, XP_E_INVAL, name,
		                    "weight %g is not a positive number", weight);
	return XP_E_OK;
}

/* Adds an input record by record; name is not NULL. */
static xp_err add_full(xp_merger *m, const xp_fb *in, double weight,
                       const char *name, xp_diags *d)
{
	xp_err err;
	if ((err = check_add(m, weight, name, d)))
		return err;
	if (m->count == 0) {
		m->type = in->type;
		m->first_name = strdup(name);
		if (!m->first_name)
			return XP_E_NOMEM;
	} else if (in->type != m->type) {
		return xp_diag_file(d, XP_E_INVAL, name,
		                    "holds %s data, but %s holds %s data",
		                    xp_datatype_name(in->type), m->first_name,
		                    xp_datatype_name(m->type));
	}
	m->failed = 1;
	set_weight(m, weight);
	m->seq++;
	if (m->npr)
		memset(m->ptag, 0xff, (size_t)m->npr * sizeof *m->ptag);
	if ((err = xp_strpool_intern(&m->names, name, strlen(name), &m->cur_name)))
		return err;

	if ((err = map_strings(m, in)))
		return err;

	if (in->minor == 4)
		m->minor = 4;
	if (in->n_proc_names > m->n_proc_names)
		m->n_proc_names = in->n_proc_names;

	uint32_t n = in->n[XP_T_OBJFILES];
	for (uint32_t i = 0; i < n; i++)
		if ((err = add_objfile(m, in, i, name, d)))
			return err;
	n = in->n[XP_T_PROGRAMS];
	for (uint32_t i = 0; i < n; i++)
		if ((err = add_program(m, in, i)))
			return err;
	n = in->n[XP_T_SRCFILES];
	for (uint32_t i = 0; i < n; i++)
		if ((err = add_srcfile(m, in, i)))
			return err;
	m->count++;
	m->failed = 0;
	return XP_E_OK;
}

/*
 * Combines the u64 at vo of n records of size rs at src, weighted, into
 * acc[0..n-1]; first: acc holds nothing yet.
 */
static void combine_into(xp_merger *m, uint64_t *acc, const unsigned char *src,
                         uint32_t n, size_t rs, size_t vo, int first)
{
	src += vo;
	if (m->w_int && m->w == 1 && (first || m->o.mode == XP_MERGE_SUM)) {
		if (first)
			for (uint32_t i = 0; i < n; i++, src += rs)
				acc[i] = xp_get_le64(src);
		else
			for (uint32_t i = 0; i < n; i++, src += rs)
				add_plain(m, &acc[i], xp_get_le64(src));
		return;
	}
	for (uint32_t i = 0; i < n; i++, src += rs)
		add_value(m, &acc[i], xp_get_le64(src), first);
}

/* Adds the value profiles of procedure v of template t from in. */
static xp_err add_tv(xp_merger *m, const tmpl *t, const tvproc *v,
                     const xp_fb *in)
{
	xp_proc ip;
	memset(&ip, 0, sizeof ip);
	ip.first_vp = v->first_vp;
	ip.n_vps = v->n_vps;
	ip.first_vpval = v->first_vpval;
	return add_vps(m, &m->pr[v->pi], in, t->smap, &ip, v->nvpv);
}

/* Adds template t's delta where its counts went. */
static xp_err flush_delta(xp_merger *m, tmpl *t)
{
	if (t->dn == 0)
		return XP_E_OK;
	t->dn = 0;
	set_weight(m, 1);
	int plain = m->o.mode == XP_MERGE_SUM;
	uint32_t n = t->fb->n[XP_T_COUNTERS];
	for (uint32_t i = 0; i < n; i++) {
		if (t->cmap[i])
			add_count(m, t->cmap[i], t->dcnt[i], plain);
	}
	n = t->fb->n[XP_T_BLOCKREFS];
	for (uint32_t i = 0; i < n; i++) {
		const uint32_t *note = t->rmap + 2 * (size_t)i;
		if (note[1] == NONE)
			continue;
		add_count(m, &m->rp[m->ln[note[0]].first + note[1]].count,
		          t->dref[i], plain);
	}
	xp_fb in = *t->fb;
	in.image = NULL;
	in.map = NULL;
	memset(in.owned, 0, sizeof in.owned);
	in.tab[XP_T_VPVALS] = t->vvals;
	for (uint32_t k = 0; k < t->ntv; k++) {
		tvproc *v = &t->tv[k];
		xp_err err = v->held ? add_tv(m, t, v, &in) : XP_E_OK;
		v->held = 0;
		if (err)
			return err;
	}
	return XP_E_OK;
}

/* Adds every template's delta. */
static xp_err flush_all(xp_merger *m)
{
	for (unsigned k = 0; k < NTMPL; k++) {
		xp_err err = m->tp[k].fb ? flush_delta(m, &m->tp[k]) : XP_E_OK;
		if (err)
			return err;
	}
	return XP_E_OK;
}

/* Closes template t, whose delta was added; its arrays stay for reuse. */
static void close_template(tmpl *t)
{
	xp_fb_free(t->fb);
	t->fb = NULL;
	t->lost.len = 0;
	t->ntv = 0;
}

/* Adds every delta and closes every template but keep (or all: NULL). */
static xp_err drop_templates(xp_merger *m, const tmpl *keep)
{
	xp_err err = flush_all(m);
	for (unsigned k = 0; k < NTMPL; k++)
		if (&m->tp[k] != keep)
			close_template(&m->tp[k]);
	return err;
}

/*
 * Adds an input of template t's shape: its counts to t's delta, value
 * profiles with other values at once, and the warnings adding it in full
 * would give.
 */
static xp_err add_like(xp_merger *m, tmpl *t, const xp_fb *in, double weight,
                       const char *name, xp_diags *d)
{
	xp_err err;
	int first = t->dn == 0;
	set_weight(m, weight);
	combine_into(m, t->dcnt, in->tab[XP_T_COUNTERS], in->n[XP_T_COUNTERS],
	             XP_RS_COUNTER, XP_CN_VALUE, first);
	combine_into(m, t->dref, in->tab[XP_T_BLOCKREFS], in->n[XP_T_BLOCKREFS],
	             XP_RS_BLOCKREF, XP_BR_COUNT, first);
	const unsigned char *a = in->tab[XP_T_VPVALS];
	const unsigned char *b = t->fb->tab[XP_T_VPVALS];
	for (uint32_t k = 0; k < t->ntv; k++) {
		tvproc *v = &t->tv[k];
		uint32_t nv = v->n_vps * v->nvpv;
		size_t off = (size_t)v->first_vpval * XP_RS_VPVAL;
		if (!xp_same_but_u64(a + off, b + off, nv, XP_RS_VPVAL,
		                     XP_VV_COUNT)) {
			if ((err = add_tv(m, t, v, in)))
				return err;
			continue;
		}
		if (!v->held)
			memcpy(t->vvals + off, a + off, (size_t)nv * XP_RS_VPVAL);
		unsigned char *r = t->vvals + off;
		const unsigned char *q = a + off;
		for (uint32_t i = 0; i < nv; i++, r += XP_RS_VPVAL, q += XP_RS_VPVAL) {
			uint64_t c = v->held ? xp_get_le64(r + XP_VV_COUNT) : 0;
			add_value(m, &c, xp_get_le64(q + XP_VV_COUNT), !v->held);
			xp_put_le64(r + XP_VV_COUNT, c);
		}
		v->held = 1;
	}
	for (size_t at = 0; at < t->lost.len;) {
		const char *msg = (const char *)t->lost.p + at;
		xp_diag_warn(d, name, "%s", msg);
		at += strlen(msg) + 1;
	}
	t->dn++;
	m->count++;
	return XP_E_OK;
}

/* Room in t for what adding in as a template notes. */
static xp_err note_room(tmpl *t, const xp_fb *in)
{
	xp_err err;
	if (in->n[XP_T_BLOCKREFS] >= UINT32_MAX / 2)
		return XP_E_LIMIT;
	size_t vv = ((size_t)in->n[XP_T_VPVALS] + 1) * XP_RS_VPVAL;
	if ((err = GROW(t->smap, t->smapcap, in->nstr + 1)) ||
	    (err = GROW(t->cmap, t->cmapcap, in->n[XP_T_COUNTERS] + 1)) ||
	    (err = GROW(t->dcnt, t->dcntcap, in->n[XP_T_COUNTERS] + 1)) ||
	    (err = GROW(t->dref, t->drefcap, in->n[XP_T_BLOCKREFS] + 1)) ||
	    (err = GROW(t->rmap, t->rmapcap, 2 * in->n[XP_T_BLOCKREFS] + 2)))
		return err;
	if (vv > t->vvcap) {
		unsigned char *p = realloc(t->vvals, vv);
		if (!p)
			return XP_E_NOMEM;
		t->vvals = p;
		t->vvcap = vv;
	}
	return XP_E_OK;
}

/* The slot for a new template: a free one, else the least recently used. */
static tmpl *template_slot(xp_merger *m)
{
	tmpl *t = &m->tp[0];
	for (unsigned k = 0; k < NTMPL; k++) {
		if (!m->tp[k].fb)
			return &m->tp[k];
		if (m->tp[k].used < t->used)
			t = &m->tp[k];
	}
	return t;
}

/*
 * Adds in in full, once every delta is added.  rec, when not NULL, is
 * the slot of the template in becomes: it is closed, then notes where
 * in's counts go.  When in changes an accumulated version, the other
 * templates are closed.
 */
static xp_err add_in_full(xp_merger *m, tmpl *rec, const xp_fb *in,
                          double weight, const char *name, xp_diags *d)
{
	uint64_t changed = m->changed;
	xp_err err = flush_all(m);
	if (!err && rec) {
		close_template(rec);
		err = note_room(rec, in);
	}
	if (!err) {
		m->rec = rec;
		err = add_full(m, in, weight, name, d);
		m->rec = NULL;
	}
	if (!err && rec && in->nstr)
		memcpy(rec->smap, m->smap, (size_t)in->nstr * sizeof *rec->smap);
	if (!err && m->changed != changed)
		err = drop_templates(m, rec);
	if (err)
		m->failed = 1;
	return err;
}

xp_err xp_merger_add(xp_merger *m, const xp_fb *in, double weight,
                     const char *name, xp_diags *d)
{
	xp_err err;
	if (!name)
		name = "<input>";
	if ((err = check_add(m, weight, name, d)))
		return err;
	return add_in_full(m, NULL, in, weight, name, d);
}

xp_err xp_merger_add_path(xp_merger *m, const char *path, double weight,
                          const char *name, xp_diags *d)
{
	xp_err err;
	xp_fb *in = NULL;
	int same = 0;
	if (!name)
		name = path;
	if ((err = check_add(m, weight, name, d)))
		return err;
	const xp_fb *like[NTMPL];
	for (unsigned k = 0; k < NTMPL; k++)
		like[k] = m->tp[k].fb;
	if ((err = xp_open_any_like(path, like, NTMPL, &same, &in, d)))
		return err;
	if (same) {
		tmpl *t = &m->tp[same - 1];
		err = add_like(m, t, in, weight, name, d);
		t->used = m->count;
		xp_fb_free(in);
		if (err)
			m->failed = 1;
		return err;
	}
	/* A database becomes a template; a text is not kept. */
	tmpl *t = in->image ? template_slot(m) : NULL;
	err = add_in_full(m, t, in, weight, name, d);
	if (err || !t) {
		if (t)
			close_template(t);
		xp_fb_free(in);
		return err;
	}
	t->fb = in;
	t->used = m->count;
	return XP_E_OK;
}

/* ------------------------------------------------------------------ */
/* Producing the result                                                */
/* ------------------------------------------------------------------ */

static uint64_t scale_value(xp_merger *m, uint64_t v)
{
	if (m->o.scale == 1 || v == 0)
		return v;
	int sat = 0;
	uint64_t r = round_u64((long double)v * (long double)m->o.scale, &sat);
	if (sat)
		m->saturated++;
	return r;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? U64MAX : a + b;
}

/* Sorting helpers take the merger through a file-local context struct. */
typedef struct {
	const xp_merger *m;
	xp_vptype type;
	const uint32_t *at;   /* cmp_pos_name: procedures by position */
} sortctx;

static void msort_u32(uint32_t *a, uint32_t *tmp, size_t n,
                      int (*cmp)(const sortctx *, uint32_t, uint32_t),
                      const sortctx *c)
{
	if (n < 2)
		return;
	size_t h = n / 2;
	msort_u32(a, tmp, h, cmp, c);
	msort_u32(a + h, tmp, n - h, cmp, c);
	if (cmp(c, a[h - 1], a[h]) <= 0)
		return;
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] = cmp(c, a[i], a[j]) <= 0 ? a[i++] : a[j++];
	while (i < h)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	memcpy(a, tmp, n * sizeof *a);
}

static xp_err sort_u32(uint32_t *a, size_t n,
                       int (*cmp)(const sortctx *, uint32_t, uint32_t),
                       const sortctx *c)
{
	uint32_t *tmp = malloc((n + 1) * sizeof *tmp);
	if (!tmp)
		return XP_E_NOMEM;
	msort_u32(a, tmp, n, cmp, c);
	free(tmp);
	return XP_E_OK;
}

static int cmp_of(const sortctx *c, uint32_t a, uint32_t b)
{
	return strcmp_id(c->m, c->m->of[a].path, c->m->of[b].path);
}

/*
 * A tuple written without its source file takes that of the tuple
 * before it in the object file, so a file that is not known stays so only
 * before every known one.  A version's unknown files come first among its
 * tuples (an input's, before its object file names one): its procedure
 * goes before the others when all its tuples have one (0), then when its
 * first has (1), the rest after (2).
 */
static int unknown_first(const aproc *p)
{
	if (p->ntup == 0 || p->tup[0].srcfile != NONE)
		return 2;
	return p->tup[p->ntup - 1].srcfile == NONE ? 0 : 1;
}

/* Procedures in an object file: unknown source files first, then name. */
static int cmp_pr(const sortctx *c, uint32_t a, uint32_t b)
{
	const aproc *x = &c->m->pr[a], *y = &c->m->pr[b];
	int ux = unknown_first(x), uy = unknown_first(y);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	return strcmp_id(c->m, x->name, y->name);
}

static int cmp_pos_name(const sortctx *c, uint32_t a, uint32_t b)
{
	const aproc *x = &c->m->pr[c->at[a]], *y = &c->m->pr[c->at[b]];
	return strcmp_id(c->m, x->name, y->name);
}

static int cmp_pr_id(const sortctx *c, uint32_t a, uint32_t b)
{
	const aproc *x = &c->m->pr[a], *y = &c->m->pr[b];
	if (x->proc_id != y->proc_id)
		return x->proc_id < y->proc_id ? -1 : 1;
	return strcmp_id(c->m, x->name, y->name);
}

static int cmp_pg(const sortctx *c, uint32_t a, uint32_t b)
{
	return strcmp_id(c->m, c->m->pg[a].path, c->m->pg[b].path);
}

static int cmp_sf(const sortctx *c, uint32_t a, uint32_t b)
{
	return strcmp_id(c->m, c->m->sf[a].path, c->m->sf[b].path);
}

static int cmp_str_ids(const sortctx *c, uint32_t a, uint32_t b)
{
	return strcmp_id(c->m, a, b);
}

static int cmp_ln(const sortctx *c, uint32_t a, uint32_t b)
{
	const aline *x = &c->m->ln[a], *y = &c->m->ln[b];
	CMPNUM(x->line, y->line);
	CMPNUM(x->col, y->col);
	return 0;
}

static int cmp_ref(const xp_merger *m, const aref *x, const aref *y)
{
	int r = strcmp_id(m, x->objfile, y->objfile);
	if (r)
		return r;
	if ((r = strcmp_id(m, x->proc, y->proc)))
		return r;
	CMPNUM(x->block, y->block);
	return 0;
}

static int cmp_pair(const xp_merger *m, const pair *x, const pair *y)
{
	int r = strcmp_id(m, x->b, y->b);
	return r ? r : strcmp_id(m, x->a, y->a);
}

/* IEEE totalOrder on the bits of a float or double. */
static uint64_t total_key(uint64_t bits, int is_float)
{
	uint64_t sign = is_float ? 1u << 31 : (uint64_t)1 << 63;
	uint64_t mask = is_float ? 0xffffffffu : U64MAX;
	bits &= mask;
	return bits & sign ? ~bits & mask : bits | sign;
}

static int cmp_vval(const xp_merger *m, xp_vptype type, const vval *x,
                    const vval *y)
{
	CMPNUM(y->count, x->count);
	if (x->has != y->has)
		return x->has ? -1 : 1;
	if (!x->has)
		return 0;
	switch (type) {
	case XP_VP_INT:
	case XP_VP_LLONG: {
		int64_t a = (int64_t)x->key, b = (int64_t)y->key;
		CMPNUM(a, b);
		return 0;
	}
	case XP_VP_FLOAT:
	case XP_VP_DOUBLE: {
		uint64_t a = total_key(x->key, type == XP_VP_FLOAT);
		uint64_t b = total_key(y->key, type == XP_VP_FLOAT);
		CMPNUM(a, b);
		return 0;
	}
	case XP_VP_PROC: {
		int r = strcmp_id(m, (uint32_t)x->key, (uint32_t)y->key);
		if (r)
			return r;
		return strcmp_id(m, (uint32_t)(x->key >> 32),
		                 (uint32_t)(y->key >> 32));
	}
	}
	return 0;
}

/* Insertion sort: value lists are short. */
static void sort_vvals(const xp_merger *m, xp_vptype type, vval *v,
                       uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		vval x = v[i];
		uint32_t j = i;
		while (j > 0 && cmp_vval(m, type, &x, &v[j - 1]) < 0) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

static int cmp_vrec(const void *a, const void *b)
{
	const vrec *x = a, *y = b;
	CMPNUM(x->expr, y->expr);
	CMPNUM(x->type, y->type);
	return 0;
}

static void sort_refs(const xp_merger *m, aref *r, uint32_t n)
{
	/* Lines hold few refs; a shell sort keeps this simple and fast. */
	for (uint32_t gap = n / 2; gap > 0; gap /= 2)
		for (uint32_t i = gap; i < n; i++) {
			aref x = r[i];
			uint32_t j = i;
			while (j >= gap && cmp_ref(m, &x, &r[j - gap]) < 0) {
				r[j] = r[j - gap];
				j -= gap;
			}
			r[j] = x;
		}
}

/* Final counts, the drops decided at the end, and the stats. */
static xp_err settle(xp_merger *m, xp_diags *d)
{
	xp_err err;
	for (uint32_t i = 0; i < m->npr; i++) {
		aproc *p = &m->pr[i];
		aobj *o = &m->of[p->of];
		if (p->nvr > 0 && p->c.nvpv != o->c.nvpv) {
			aproc win = *p;
			win.c = o->c;
			err = report_drop(m, d, p, xp_strpool_str(&m->names, p->src), &win,
			                  xp_strpool_str(&m->names, o->src), 0);
			if (err)
				return err;
			p->dropped = 1;
			continue;
		}
		if (m->o.scale != 1) {
			for (uint32_t k = 0; k < p->ncnt; k++)
				p->cval[k] = scale_value(m, p->cval[k]);
			for (uint32_t k = 0; k < p->nvr; k++)
				for (uint32_t q = 0; q < p->vr[k].nv; q++)
					p->vr[k].v[q].count =
						scale_value(m, p->vr[k].v[q].count);
		}
		if (m->o.sparse) {
			int any = 0;
			for (uint32_t k = 0; k < p->ncnt && !any; k++)
				any = p->cval[k] != 0;
			if (!any)
				p->dropped = 2;
		}
	}
	for (uint32_t i = 0; i < m->nln; i++) {
		aline *l = &m->ln[i];
		aref *lr = l->nref ? m->rp + l->first : NULL;
		uint32_t k = 0;
		for (uint32_t q = 0; q < l->nref; q++) {
			aref *r = &lr[q];
			if (r->tag != TAG_ANY) {
				uint32_t pi = r->pi;
				if (pi == NONE) {
					uint32_t ofi = m->of_by_str[r->objfile];
					pi = ofi == NONE ? NONE
					                 : find_proc(m, ofi, r->proc);
				}
				if (pi != NONE && (m->pr[pi].gen != r->tag ||
				                   m->pr[pi].dropped == 1))
					continue;
			}
			r->count = scale_value(m, r->count);
			lr[k++] = *r;
		}
		l->nref = k;
	}
	for (uint32_t i = 0; i < m->nof; i++) {
		aobj *o = &m->of[i];
		o->max = o->sum = 0;
		for (uint32_t pi = o->first; pi != NONE; pi = m->pr[pi].next) {
			aproc *p = &m->pr[pi];
			if (p->dropped)
				continue;
			uint64_t max = 0, sum = 0;
			for (uint32_t k = 0; k < p->ncnt; k++) {
				if (p->cval[k] > max)
					max = p->cval[k];
				sum = sat_add(sum, p->cval[k]);
			}
			p->max = max;
			p->sum = sum;
			if (max > o->max)
				o->max = max;
			o->sum = sat_add(o->sum, sum);
		}
	}
	return XP_E_OK;
}

/*
 * How many counts of the result stand at 2^64-1, once some count was
 * cut there: the counters that saturated, told apart from the others
 * without a flag per counter.
 */
static uint64_t count_saturated(const xp_merger *m)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < m->npr; i++) {
		const aproc *p = &m->pr[i];
		if (p->dropped)
			continue;
		for (uint32_t k = 0; k < p->ncnt; k++)
			n += p->cval[k] == U64MAX;
		for (uint32_t k = 0; k < p->nvr; k++)
			for (uint32_t q = 0; q < p->vr[k].nv; q++)
				n += p->vr[k].v[q].count == U64MAX;
	}
	for (uint32_t i = 0; i < m->nln; i++)
		for (uint32_t q = 0; q < m->ln[i].nref; q++)
			n += m->rp[m->ln[i].first + q].count == U64MAX;
	return n;
}

/*
 * Writing the result.  The merger knows every record of the result, so it
 * writes them itself, in canonical order and encoded as xprof_db(5) lays
 * them out, instead of going through a builder.  One pass plans the order
 * of everything, the number of records of every table and the strings in
 * use; then each table is written in turn, into memory of its exact size
 * (xp_merger_finish) or straight into the database writer's buffers
 * (xp_merger_write).  The strings are ranked in byte order first, so that
 * every comparison of the canonical order is one of two integers, and the
 * result's string ids are the ranks of the strings in use.
 */

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

static void result_free(result *R)
{
	free(R->ofs);
	free(R->ofnp);
	free(R->procs);
	free(R->pidx);
	free(R->pgs);
	free(R->sfs);
	free(R->used);
	free(R->sid);
	free(R->stroff);
	free(R->strtab);
}

/* Byte order, the order of a database's strings. */
static int cmp_bytes(const sortctx *c, uint32_t a, uint32_t b)
{
	return xp_strpool_cmp(&c->m->str, a, b);
}

/*
 * Ranks the pool's strings in byte order (m->rank), from which on
 * strcmp_id() compares ranks.  Strings of a database come in byte order,
 * so the sort mostly finds runs already in order.
 */
static xp_err rank_strings(xp_merger *m, uint32_t **order)
{
	uint32_t n = m->str.n;
	uint32_t *ord = malloc(((size_t)n + 1) * sizeof *ord);
	uint32_t *rank = malloc(((size_t)n + 1) * sizeof *rank);
	if (!ord || !rank) {
		free(ord);
		free(rank);
		return XP_E_NOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		ord[i] = i;
	sortctx c = {m, 0, NULL};
	xp_err err = sort_u32(ord, n, cmp_bytes, &c);
	if (err) {
		free(ord);
		free(rank);
		return err;
	}
	for (uint32_t i = 0; i < n; i++)
		rank[ord[i]] = i;
	m->rank = rank;
	*order = ord;
	return XP_E_OK;
}

/* How many stats the kinds bits ask for. */
static unsigned nstats(unsigned kinds)
{
	return !!(kinds & STB_MAX) + !!(kinds & STB_SUM);
}

static void use(result *R, uint32_t id)
{
	R->used[id] = 1;
}

/* The order of the procedures of object file o, renumbering their ids
 * where needed; appended to R->procs. */
static xp_err plan_procs(result *R, aobj *o, uint32_t *np_out)
{
	xp_merger *m = R->m;
	sortctx c = {m, 0, NULL};
	uint32_t *procs = R->procs + R->nprocs;
	uint32_t np = 0;
	for (uint32_t pi = o->first; pi != NONE; pi = m->pr[pi].next)
		if (!m->pr[pi].dropped)
			procs[np++] = pi;
	/* Proc ids: kept when they still number 1..n without repeats.
	 * Otherwise they are renumbered in canonical order (a function of
	 * the merged set alone, so that merging stays associative), except
	 * that --sparse renumbers densely keeping the order of the ids. */
	xp_err err = sort_u32(procs, np, cmp_pr_id, &c);
	if (err)
		return err;
	int dense = 1;
	for (uint32_t k = 0; k < np; k++)
		if (m->pr[procs[k]].proc_id != k + 1)
			dense = 0;
	if (!dense && m->o.sparse)
		for (uint32_t k = 0; k < np; k++)
			m->pr[procs[k]].proc_id = k + 1;
	if ((err = sort_u32(procs, np, cmp_pr, &c)))
		return err;
	if (!dense && !m->o.sparse)
		for (uint32_t k = 0; k < np; k++)
			m->pr[procs[k]].proc_id = k + 1;
	R->nprocs += np;
	*np_out = np;
	return XP_E_OK;
}

/*
 * IDX_PROCS lists the procedures by object file, then name: in an object
 * file whose first procedure has unknown source files (cmp_pr), their
 * positions from first on are sorted by name.
 */
static xp_err index_procs(result *R, uint32_t first)
{
	const xp_merger *m = R->m;
	uint32_t n = R->nprocs - first;
	if (n == 0 || unknown_first(&m->pr[R->procs[first]]) == 2)
		return XP_E_OK;
	if (!R->pidx) {
		R->pidx = malloc(((size_t)m->npr + 1) * sizeof *R->pidx);
		if (!R->pidx)
			return XP_E_NOMEM;
		for (uint32_t i = 0; i < m->npr; i++)
			R->pidx[i] = i;
	}
	sortctx c = {m, 0, R->procs};
	return sort_u32(R->pidx + first, n, cmp_pos_name, &c);
}

/* A procedure's part of the plan: its records counted, its value
 * profiles sorted, its strings marked. */
static void plan_proc(result *R, aproc *p, uint32_t nvpv)
{
	uint64_t *n = R->n;
	use(R, p->name);
	n[XP_T_STATS] += nstats(p->stats);
	n[XP_T_COUNTERS] += p->ncnt;
	n[XP_T_VPS] += p->nvr;
	n[XP_T_VPVALS] += (uint64_t)p->nvr * nvpv;
	n[XP_T_BLOCKS] += p->nblk;
	n[XP_T_EDGES] += p->nedge;
	n[XP_T_TUPLES] += p->ntup;
	if (p->nvr > 1)
		xp_qsort(p->vr, p->nvr, sizeof *p->vr, cmp_vrec);
	for (uint32_t k = 0; k < p->nvr; k++) {
		vrec *r = &p->vr[k];
		sort_vvals(R->m, r->type, r->v, r->nv);
		if (r->type != XP_VP_PROC)
			continue;
		for (uint32_t q = 0; q < nvpv && q < r->nv; q++)
			if (r->v[q].has) {
				use(R, (uint32_t)r->v[q].key);
				use(R, (uint32_t)(r->v[q].key >> 32));
			}
	}
	for (uint32_t k = 0; k < p->ntup; k++)
		if (p->tup[k].srcfile != NONE)
			use(R, p->tup[k].srcfile);
}

static xp_err order_of(xp_merger *m, uint32_t n,
                       int (*cmp)(const sortctx *, uint32_t, uint32_t),
                       uint32_t **out)
{
	sortctx c = {m, 0, NULL};
	uint32_t *a = malloc(((size_t)n + 1) * sizeof *a);
	if (!a)
		return XP_E_NOMEM;
	for (uint32_t i = 0; i < n; i++)
		a[i] = i;
	xp_err err = sort_u32(a, n, cmp, &c);
	if (err) {
		free(a);
		return err;
	}
	*out = a;
	return XP_E_OK;
}

/* The order and size of everything, and the strings in use. */
static xp_err plan(result *R)
{
	xp_merger *m = R->m;
	sortctx c = {m, 0, NULL};
	uint64_t *n = R->n;
	xp_err err;

	R->used = calloc((size_t)m->str.n + 1, 1);
	R->ofnp = malloc(((size_t)m->nof + 1) * sizeof *R->ofnp);
	R->procs = malloc(((size_t)m->npr + 1) * sizeof *R->procs);
	if (!R->used || !R->ofnp || !R->procs)
		return XP_E_NOMEM;
	if ((err = order_of(m, m->nof, cmp_of, &R->ofs)) ||
	    (err = order_of(m, m->npg, cmp_pg, &R->pgs)) ||
	    (err = order_of(m, m->nsf, cmp_sf, &R->sfs)))
		return err;

	n[XP_T_RUNS] = (m->nof > 0) + (m->npg > 0) + (m->nsf > 0);
	n[XP_T_OBJFILES] = m->nof;
	for (uint32_t i = 0; i < m->nof; i++) {
		aobj *o = &m->of[R->ofs[i]];
		uint32_t first = R->nprocs;
		if ((err = plan_procs(R, o, &R->ofnp[i])) ||
		    (err = index_procs(R, first)))
			return err;
		use(R, o->path);
		n[XP_T_STATS] += nstats(o->stats);
		for (uint32_t k = first; k < R->nprocs; k++)
			plan_proc(R, &m->pr[R->procs[k]], o->c.nvpv);
	}
	n[XP_T_PROCS] = R->nprocs;

	n[XP_T_PROGRAMS] = m->npg;
	for (uint32_t i = 0; i < m->npg; i++) {
		aprog *g = &m->pg[R->pgs[i]];
		use(R, g->path);
		n[XP_T_STATS] += nstats(g->stats);
		if ((err = sort_u32(g->refs, g->nref, cmp_str_ids, &c)))
			return err;
		for (uint32_t k = 0; k < g->nref; k++)
			use(R, g->refs[k]);
		n[XP_T_OBJREFS] += g->nref;
		/* Insertion sort of the comdat pairs. */
		for (uint32_t k = 1; k < g->ncd; k++) {
			pair x = g->cds[k];
			uint32_t j = k;
			while (j > 0 && cmp_pair(m, &x, &g->cds[j - 1]) < 0) {
				g->cds[j] = g->cds[j - 1];
				j--;
			}
			g->cds[j] = x;
		}
		for (uint32_t k = 0; k < g->ncd; k++) {
			use(R, g->cds[k].a);
			use(R, g->cds[k].b);
		}
		n[XP_T_COMDATS] += g->ncd;
	}

	n[XP_T_SRCFILES] = m->nsf;
	for (uint32_t i = 0; i < m->nsf; i++) {
		asrc *s = &m->sf[R->sfs[i]];
		use(R, s->path);
		if ((err = sort_u32(s->lines, s->nline, cmp_ln, &c)))
			return err;
		s->nout = 0;
		for (uint32_t k = 0; k < s->nline; k++) {
			aline *l = &m->ln[s->lines[k]];
			if (l->nref == 0)
				continue;
			s->nout++;
			n[XP_T_SRCLINES]++;
			n[XP_T_BLOCKREFS] += l->nref;
			aref *lr = m->rp + l->first;
			sort_refs(m, lr, l->nref);
			for (uint32_t q = 0; q < l->nref; q++) {
				use(R, lr[q].proc);
				use(R, lr[q].objfile);
			}
		}
	}
	n[XP_T_IDX_OBJFILES] = n[XP_T_OBJFILES];
	n[XP_T_IDX_PROCS] = n[XP_T_PROCS];
	n[XP_T_IDX_PROGRAMS] = n[XP_T_PROGRAMS];
	n[XP_T_IDX_SRCFILES] = n[XP_T_SRCFILES];
	for (int t = 0; t < XP_T_COUNT_; t++)
		if (n[t] >= UINT32_MAX)
			return XP_E_LIMIT;
	return XP_E_OK;
}

/* The result's string ids: the strings in use, in byte order. */
static xp_err number_strings(result *R, const uint32_t *order)
{
	xp_merger *m = R->m;
	uint32_t nstr = 0;
	size_t bytes = 0;
	R->sid = malloc(((size_t)m->str.n + 1) * sizeof *R->sid);
	if (!R->sid)
		return XP_E_NOMEM;
	for (uint32_t i = 0; i < m->str.n; i++) {
		uint32_t id = order[i];
		if (!R->used[id])
			continue;
		R->sid[id] = nstr++;
		bytes += xp_strpool_len(&m->str, id) + 1;
	}
	if (bytes > UINT32_MAX)
		return XP_E_LIMIT;
	R->stroff = malloc((size_t)nstr * 4 + 4);
	R->strtab = malloc(bytes + 1);
	if (!R->stroff || !R->strtab)
		return XP_E_NOMEM;
	size_t pos = 0;
	for (uint32_t i = 0, k = 0; i < m->str.n; i++) {
		uint32_t id = order[i];
		if (!R->used[id])
			continue;
		size_t len = xp_strpool_len(&m->str, id);
		xp_put_le32(R->stroff + (size_t)k++ * 4, (uint32_t)pos);
		memcpy(R->strtab + pos, xp_strpool_str(&m->str, id), len + 1);
		pos += len + 1;
	}
	R->nstr = nstr;
	R->strbytes = (uint32_t)bytes;
	return XP_E_OK;
}

/*
 * Where records go: a table of the exact size in memory, or the database
 * being written, through the space its writer hands out.
 */
typedef struct {
	xp_wbuf *w;           /* NULL: memory */
	unsigned char *base;  /* the space: base .. end, filled up to p */
	unsigned char *p, *end;
	int lost;             /* the writer failed (it reports that itself) */
	unsigned char scratch[256];
} out;

/* Room for a record of size bytes and more: the writer's next space.  A
 * table in memory has its exact size and never needs more. */
static void out_more(out *o, size_t size)
{
	xp_wbuf *w = o->w;
	unsigned char *q = NULL;
	size_t room = 0;
	if (w && !o->lost) {
		xp_wbuf_commit(w, (size_t)(o->p - o->base));
		q = xp_wbuf_reserve(w, size);
		room = w->cap - w->len;
	}
	if (!q) {
		o->lost = 1;
		q = o->scratch;
		room = sizeof o->scratch;
	}
	o->base = o->p = q;
	o->end = q + room;
}

/* The space of the next record; the caller writes every field. */
static inline unsigned char *orec(out *o, size_t size)
{
	if ((size_t)(o->end - o->p) < size)
		out_more(o, size);
	unsigned char *r = o->p;
	o->p += size;
	return r;
}

/* n bytes of records of size rs. */
static void out_copy(out *o, const void *src, size_t n, size_t rs)
{
	const unsigned char *s = src;
	while (n > 0) {
		if ((size_t)(o->end - o->p) < rs)
			out_more(o, rs);
		size_t k = (size_t)(o->end - o->p) / rs * rs;
		if (k > n)
			k = n;
		memcpy(o->p, s, k);
		o->p += k;
		s += k;
		n -= k;
	}
}

static void out_done(out *o)
{
	if (o->w && !o->lost)
		xp_wbuf_commit(o->w, (size_t)(o->p - o->base));
	o->base = o->p;
}

static void put_stats(out *o, unsigned kinds, uint64_t max, uint64_t sum)
{
	if (kinds & STB_MAX) {
		unsigned char *r = orec(o, XP_RS_STAT);
		xp_put_le32(r + XP_ST_KIND, XP_STAT_MAX);
		xp_put_le64(r + XP_ST_VALUE, max);
	}
	if (kinds & STB_SUM) {
		unsigned char *r = orec(o, XP_RS_STAT);
		xp_put_le32(r + XP_ST_KIND, XP_STAT_SUM);
		xp_put_le64(r + XP_ST_VALUE, sum);
	}
}

static void put_vpvals(out *o, const result *R, const vrec *vr, uint32_t nvpv)
{
	for (uint32_t q = 0; q < nvpv; q++) {
		unsigned char *v = orec(o, XP_RS_VPVAL);
		const vval *x = q < vr->nv ? &vr->v[q] : NULL;
		uint64_t key = x && x->has ? x->key : 0;
		switch ((xp_vptype)vr->type) {
		case XP_VP_INT:
			key = (uint64_t)(int64_t)(int32_t)(int64_t)key;
			break;
		case XP_VP_FLOAT:
			key = (uint32_t)key;
			break;
		case XP_VP_LLONG:
		case XP_VP_DOUBLE:
			break;
		case XP_VP_PROC:
			if (x && x->has)
				key = R->sid[(uint32_t)key] |
				      (uint64_t)R->sid[(uint32_t)(key >> 32)] << 32;
			break;
		}
		xp_put_le64(v + XP_VV_COUNT, x ? x->count : 0);
		xp_put_le64(v + XP_VV_VALUE, key);
		xp_put_le32(v + XP_VV_FLAGS, x && x->has ? XP_VVF_HAS_VALUE : 0);
	}
}

static void put_run(out *o, xp_seckind kind, uint32_t n)
{
	if (n == 0)
		return;
	unsigned char *r = orec(o, XP_RS_RUN);
	xp_put_le32(r + XP_RUN_KIND, (uint32_t)kind);
	xp_put_le32(r + XP_RUN_COUNT, n);
}

/* Where the next record of every table goes, as the tables are walked. */
typedef struct {
	uint32_t n[XP_T_COUNT_];
} cursor;

static void put_proc(out *o, const result *R, const aproc *p, uint32_t ofk,
                     uint32_t nvpv, cursor *c)
{
	unsigned char *r = orec(o, XP_RS_PROC);
	xp_put_le32(r + XP_PR_NAME, R->sid[p->name]);
	xp_put_le32(r + XP_PR_OBJFILE, ofk);
	xp_put_le64(r + XP_PR_SIG, p->sig);
	xp_put_le32(r + XP_PR_ID, p->proc_id);
	xp_put_le32(r + XP_PR_NVPSITES, p->n_vp_sites);
	xp_put_le32(r + XP_PR_NSRCMAP, p->n_srcmap_ops);
	xp_put_le32(r + XP_PR_FSTAT, c->n[XP_T_STATS]);
	xp_put_le32(r + XP_PR_NSTAT, nstats(p->stats));
	xp_put_le32(r + XP_PR_FCNT, c->n[XP_T_COUNTERS]);
	xp_put_le32(r + XP_PR_NCNT, p->ncnt);
	xp_put_le32(r + XP_PR_FVP, c->n[XP_T_VPS]);
	xp_put_le32(r + XP_PR_NVP, p->nvr);
	xp_put_le32(r + XP_PR_FVPVAL, c->n[XP_T_VPVALS]);
	xp_put_le32(r + XP_PR_FBLK, c->n[XP_T_BLOCKS]);
	xp_put_le32(r + XP_PR_NBLK, p->nblk);
	xp_put_le32(r + XP_PR_FEDGE, c->n[XP_T_EDGES]);
	xp_put_le32(r + XP_PR_NEDGE, p->nedge);
	xp_put_le32(r + XP_PR_FTUP, c->n[XP_T_TUPLES]);
	xp_put_le32(r + XP_PR_NTUP, p->ntup);
	c->n[XP_T_STATS] += nstats(p->stats);
	c->n[XP_T_COUNTERS] += p->ncnt;
	c->n[XP_T_VPS] += p->nvr;
	c->n[XP_T_VPVALS] += p->nvr * nvpv;
	c->n[XP_T_BLOCKS] += p->nblk;
	c->n[XP_T_EDGES] += p->nedge;
	c->n[XP_T_TUPLES] += p->ntup;
}

/* A table of the object file sections: each object file's record, or
 * the records of its procedures. */
static void put_objfile_table(out *o, const result *R, xp_table t)
{
	const xp_merger *m = R->m;
	cursor c = {{0}};
	for (uint32_t i = 0, pk = 0; i < m->nof; i++) {
		const aobj *of = &m->of[R->ofs[i]];
		uint32_t nvpv = of->c.nvpv, prevfile = NONE;
		if (t == XP_T_OBJFILES) {
			unsigned char *r = orec(o, XP_RS_OBJFILE);
			xp_put_le32(r + XP_OF_PATH, R->sid[of->path]);
			xp_put_le32(r + XP_OF_TVSEC, of->c.tv_sec);
			xp_put_le32(r + XP_OF_TVUSEC, of->c.tv_usec);
			xp_put_le32(r + XP_OF_NVPV, nvpv);
			xp_put_le64(r + XP_OF_SIG, of->c.sig);
			xp_put_le32(r + XP_OF_NSFN, of->n_srcfile_names);
			xp_put_le32(r + XP_OF_FSTAT, c.n[XP_T_STATS]);
			xp_put_le32(r + XP_OF_NSTAT, nstats(of->stats));
			xp_put_le32(r + XP_OF_FPROC, pk);
			xp_put_le32(r + XP_OF_NPROC, R->ofnp[i]);
		} else if (t == XP_T_STATS) {
			put_stats(o, of->stats, of->max, of->sum);
		}
		c.n[XP_T_STATS] += nstats(of->stats);
		for (uint32_t end = pk + R->ofnp[i]; pk < end; pk++) {
			const aproc *p = &m->pr[R->procs[pk]];
			switch (t) {
			case XP_T_PROCS:
				put_proc(o, R, p, i, nvpv, &c);
				continue;
			case XP_T_STATS:
				put_stats(o, p->stats, p->max, p->sum);
				break;
			case XP_T_COUNTERS:
				/* By id: the order they are kept in. */
				for (uint32_t k = 0; k < p->ncnt; k++) {
					unsigned char *r = orec(o, XP_RS_COUNTER);
					xp_put_le32(r + XP_CN_ID, p->cid[k]);
					xp_put_le64(r + XP_CN_VALUE, p->cval[k]);
				}
				break;
			case XP_T_VPS:
				for (uint32_t k = 0; k < p->nvr; k++) {
					unsigned char *r = orec(o, XP_RS_VP);
					xp_put_le32(r + XP_VP_EXPR, p->vr[k].expr);
					xp_put_le32(r + XP_VP_TYPE, p->vr[k].type);
				}
				break;
			case XP_T_VPVALS:
				for (uint32_t k = 0; k < p->nvr; k++)
					put_vpvals(o, R, &p->vr[k], nvpv);
				break;
			/* Blocks and edges are kept as the database's records. */
			case XP_T_BLOCKS:
				out_copy(o, p->blk, (size_t)p->nblk * XP_RS_BLOCK,
				         XP_RS_BLOCK);
				break;
			case XP_T_EDGES:
				out_copy(o, p->edge, (size_t)p->nedge * XP_RS_EDGE,
				         XP_RS_EDGE);
				break;
			case XP_T_TUPLES:
				for (uint32_t k = 0; k < p->ntup; k++) {
					const xp_tuple *tu = &p->tup[k];
					unsigned char *r = orec(o, XP_RS_TUPLE);
					uint32_t f = tu->srcfile, file = XP_NOSTR;
					if (f != NONE && f != prevfile) {
						file = R->sid[f];
						prevfile = f;
					}
					xp_put_le32(r + XP_TU_ID, tu->id);
					xp_put_le32(r + XP_TU_BLOCK, tu->block);
					xp_put_le32(r + XP_TU_LINE, tu->line);
					xp_put_le32(r + XP_TU_COL, tu->col);
					xp_put_le32(r + XP_TU_FILE, file);
				}
				break;
			default:
				break;
			}
			c.n[XP_T_STATS] += nstats(p->stats);
		}
	}
}

/* A table of the program sections; the stats are the last ones. */
static void put_program_table(out *o, const result *R, xp_table t)
{
	const xp_merger *m = R->m;
	uint32_t st = (uint32_t)R->n[XP_T_STATS], nref = 0, ncd = 0;
	for (uint32_t i = 0; i < m->npg; i++)
		st -= nstats(m->pg[i].stats);
	for (uint32_t i = 0; i < m->npg; i++) {
		const aprog *g = &m->pg[R->pgs[i]];
		const uint32_t *sid = R->sid;
		if (t == XP_T_PROGRAMS) {
			unsigned char *r = orec(o, XP_RS_PROGRAM);
			xp_put_le32(r + XP_PG_PATH, sid[g->path]);
			xp_put_le32(r + XP_PG_FSTAT, st);
			xp_put_le32(r + XP_PG_NSTAT, nstats(g->stats));
			xp_put_le32(r + XP_PG_FOBJREF, nref);
			xp_put_le32(r + XP_PG_NOBJREF, g->nref);
			xp_put_le32(r + XP_PG_FCOMDAT, ncd);
			xp_put_le32(r + XP_PG_NCOMDAT, g->ncd);
		} else if (t == XP_T_STATS) {
			uint64_t max = 0, sum = 0;
			for (uint32_t k = 0; k < g->nref; k++) {
				uint32_t ofi = m->of_by_str[g->refs[k]];
				if (ofi == NONE)
					continue;
				if (m->of[ofi].max > max)
					max = m->of[ofi].max;
				sum = sat_add(sum, m->of[ofi].sum);
			}
			put_stats(o, g->stats, max, sum);
		} else if (t == XP_T_OBJREFS) {
			for (uint32_t k = 0; k < g->nref; k++)
				xp_put_le32(orec(o, XP_RS_OBJREF), sid[g->refs[k]]);
		} else if (t == XP_T_COMDATS) {
			for (uint32_t k = 0; k < g->ncd; k++) {
				unsigned char *r = orec(o, XP_RS_COMDAT);
				xp_put_le32(r + XP_CD_PROC, sid[g->cds[k].a]);
				xp_put_le32(r + XP_CD_OBJFILE, sid[g->cds[k].b]);
			}
		}
		st += nstats(g->stats);
		nref += g->nref;
		ncd += g->ncd;
	}
}

/* A table of the source file sections. */
static void put_srcfile_table(out *o, const result *R, xp_table t)
{
	const xp_merger *m = R->m;
	uint32_t nline = 0, nref = 0;
	for (uint32_t i = 0; i < m->nsf; i++) {
		const asrc *s = &m->sf[R->sfs[i]];
		if (t == XP_T_SRCFILES) {
			unsigned char *r = orec(o, XP_RS_SRCFILE);
			xp_put_le32(r + XP_SF_PATH, R->sid[s->path]);
			xp_put_le32(r + XP_SF_FLINE, nline);
			xp_put_le32(r + XP_SF_NLINE, s->nout);
			nline += s->nout;
			continue;
		}
		for (uint32_t k = 0; k < s->nline; k++) {
			const aline *l = &m->ln[s->lines[k]];
			if (l->nref == 0)
				continue;
			nline++;
			if (t == XP_T_SRCLINES) {
				unsigned char *r = orec(o, XP_RS_SRCLINE);
				xp_put_le32(r + XP_SL_LINE, l->line);
				xp_put_le32(r + XP_SL_COL, l->col);
				xp_put_le32(r + XP_SL_FREF, nref);
				xp_put_le32(r + XP_SL_NREF, l->nref);
			} else if (t == XP_T_BLOCKREFS) {
				const aref *lr = m->rp + l->first;
				for (uint32_t q = 0; q < l->nref; q++) {
					unsigned char *r = orec(o, XP_RS_BLOCKREF);
					xp_put_le32(r + XP_BR_BLOCK, lr[q].block);
					xp_put_le64(r + XP_BR_COUNT, lr[q].count);
					xp_put_le32(r + XP_BR_PROC, R->sid[lr[q].proc]);
					xp_put_le32(r + XP_BR_OBJFILE,
					            R->sid[lr[q].objfile]);
				}
			}
			nref += l->nref;
		}
	}
}

/*
 * Writes every record of table t, in the order plan() settled.  The
 * indexes list a table's records in order of their string field (for
 * procedures, their object file's path first), which is the canonical
 * order itself: object files, programs and source files come by path,
 * procedures by object file and then name, and the result's strings are
 * numbered in byte order.  Only procedures put first for their unknown
 * source files (cmp_pr) need an index of their own (R->pidx).
 */
static void put_table(out *o, const result *R, xp_table t)
{
	const xp_merger *m = R->m;
	switch (t) {
	case XP_T_RUNS:
		put_run(o, XP_SEC_OBJFILE, m->nof);
		put_run(o, XP_SEC_PROGRAM, m->npg);
		put_run(o, XP_SEC_SRCFILE, m->nsf);
		break;
	case XP_T_STATS:
		put_objfile_table(o, R, t);
		put_program_table(o, R, t);
		break;
	case XP_T_OBJFILES:
	case XP_T_PROCS:
	case XP_T_COUNTERS:
	case XP_T_VPS:
	case XP_T_VPVALS:
	case XP_T_BLOCKS:
	case XP_T_EDGES:
	case XP_T_TUPLES:
		put_objfile_table(o, R, t);
		break;
	case XP_T_PROGRAMS:
	case XP_T_OBJREFS:
	case XP_T_COMDATS:
		put_program_table(o, R, t);
		break;
	case XP_T_SRCFILES:
	case XP_T_SRCLINES:
	case XP_T_BLOCKREFS:
		put_srcfile_table(o, R, t);
		break;
	case XP_T_IDX_OBJFILES:
	case XP_T_IDX_PROCS:
	case XP_T_IDX_PROGRAMS:
	case XP_T_IDX_SRCFILES:
		for (uint32_t i = 0; i < R->n[t]; i++)
			xp_put_le32(orec(o, XP_RS_INDEX), t == XP_T_IDX_PROCS &&
			                                      R->pidx ? R->pidx[i] : i);
		break;
	case XP_T_COUNT_:
		break;
	}
	out_done(o);
}

/*
 * Everything up to writing the records: the templates' deltas added, the
 * final counts and drops, the order, sizes and strings of the result.
 */
static xp_err result_plan(xp_merger *m, result *R, xp_diags *d)
{
	xp_err err;
	*R = (result){.m = m};
	if (m->failed)
		return xp_diag_file(d, XP_E_INVAL, "merge",
		                    "the merge failed earlier");
	err = drop_templates(m, NULL);
	m->failed = 1;
	if (err || (err = settle(m, d)))
		return err;
	if (m->saturated)
		m->saturated = count_saturated(m);
	if (m->saturated)
		xp_diag_warn(d, "",
		             "%llu count%s saturated at 18446744073709551615",
		             (unsigned long long)m->saturated,
		             m->saturated == 1 ? "" : "s");
	uint32_t *order = NULL;
	if (!(err = rank_strings(m, &order)) && !(err = plan(R)))
		err = number_strings(R, order);
	free(order);
	return err;
}

xp_err xp_merger_finish(xp_merger *m, xp_fb **out_fb, xp_diags *d)
{
	result R;
	*out_fb = NULL;
	xp_err err = result_plan(m, &R, d);
	xp_fb *fb = err ? NULL : xp_fb_alloc(m->type, m->minor, m->n_proc_names);
	if (!err && !fb)
		err = XP_E_NOMEM;
	for (int t = 0; t < XP_T_COUNT_ && !err; t++) {
		size_t size = (size_t)R.n[t] * xp_tabdescs[t].size;
		unsigned char *tab = malloc(size + 1);
		if (!tab) {
			err = XP_E_NOMEM;
			break;
		}
		fb->tab[t] = fb->owned[t] = tab;
		fb->n[t] = (uint32_t)R.n[t];
		out o = {.base = tab, .p = tab, .end = tab + size};
		put_table(&o, &R, (xp_table)t);
	}
	if (!err) {
		fb->nstr = R.nstr;
		fb->stroff = fb->owned[XP_T_COUNT_] = R.stroff;
		fb->strtab = R.strtab;
		fb->owned[XP_T_COUNT_ + 1] = (unsigned char *)R.strtab;
		fb->strtab_len = R.strbytes;
		R.stroff = NULL;
		R.strtab = NULL;
		*out_fb = fb;
		fb = NULL;
	}
	xp_fb_free(fb);
	result_free(&R);
	return err;
}

/* Writing the result as a database: directory entry e. */
static void put_entry(void *ctx, unsigned e, xp_wbuf *w)
{
	const result *R = ctx;
	out o = {.w = w};
	if (e == XP_DBE_STROFFS)
		out_copy(&o, R->stroff, (size_t)R->nstr * 4, 4);
	else if (e == XP_DBE_STRINGS)
		out_copy(&o, R->strtab, R->strbytes, 1);
	else
		put_table(&o, R, (xp_table)(e - XP_DBE_TABLE0));
	out_done(&o);
}

typedef struct {
	xp_db_shape shape;
	result *R;
} written;

static xp_err write_result(void *ctx, int fd)
{
	written *wr = ctx;
	return xp_db_write_fd_with(&wr->shape, put_entry, wr->R, fd);
}

/* Writes the planned result R into the profile directory l locks. */
static xp_err write_planned(result *R, xp_lock *l, xp_diags *d)
{
	xp_merger *m = R->m;
	const char *objfile = m->nof == 1 ? xp_strpool_str(&m->str, m->of[0].path)
	                                  : NULL;
	written wr = {{m->type, m->minor, m->n_proc_names, {0}}, R};
	wr.shape.count[XP_DBE_STROFFS] = R->nstr;
	wr.shape.count[XP_DBE_STRINGS] = R->strbytes;
	for (int t = 0; t < XP_T_COUNT_; t++)
		wr.shape.count[XP_DBE_TABLE0 + t] = R->n[t];
	return xp_profdir_write_with(l, m->type, m->nof, objfile, write_result,
	                             &wr, d);
}

xp_err xp_merger_write_locked(xp_merger *m, xp_lock *l, xp_diags *d)
{
	result R;
	xp_err err = result_plan(m, &R, d);
	if (!err)
		err = write_planned(&R, l, d);
	result_free(&R);
	return err;
}

xp_err xp_merger_write(xp_merger *m, const char *dir, xp_diags *d)
{
	result R;
	xp_lock *l = NULL;
	/* The directory is made once the result is known to be good. */
	xp_err err = result_plan(m, &R, d);
	if (!err && !(err = xp_profdir_lock(dir, 1, &l, d)))
		err = write_planned(&R, l, d);
	if (err)
		xp_profdir_unlock_failed(l);
	else
		xp_profdir_unlock(l);
	result_free(&R);
	return err;
}
