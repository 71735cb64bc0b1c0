/*
 * feedback/model.c - the feedback model: the table descriptions, record accessors
 * of a sealed profile, and the builder that collects records in text
 * order and seals them into a profile (sorted string table, renumbered
 * string references, sorted indexes).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/internal.h"

const xp_tabdesc xp_tabdescs[XP_T_COUNT_] = {
	[XP_T_RUNS] = {"RUNS", XP_RS_RUN, 0, {0, 0}, 0},
	[XP_T_OBJFILES] = {"OBJFILES", XP_RS_OBJFILE, 1, {XP_OF_PATH, 0}, 0},
	[XP_T_PROCS] = {"PROCS", XP_RS_PROC, 1, {XP_PR_NAME, 0}, 0},
	[XP_T_STATS] = {"STATS", XP_RS_STAT, 0, {0, 0}, 0},
	[XP_T_COUNTERS] = {"COUNTERS", XP_RS_COUNTER, 0, {0, 0}, 0},
	[XP_T_VPS] = {"VPS", XP_RS_VP, 0, {0, 0}, 0},
	/* VP_PROC values hold two string ids inside their value field; they
	 * depend on the record's type and are handled on their own. */
	[XP_T_VPVALS] = {"VPVALS", XP_RS_VPVAL, 0, {0, 0}, 0},
	[XP_T_BLOCKS] = {"BLOCKS", XP_RS_BLOCK, 0, {0, 0}, 0},
	[XP_T_EDGES] = {"EDGES", XP_RS_EDGE, 0, {0, 0}, 0},
	[XP_T_TUPLES] = {"TUPLES", XP_RS_TUPLE, 1, {XP_TU_FILE, 0}, 1},
	[XP_T_PROGRAMS] = {"PROGRAMS", XP_RS_PROGRAM, 1, {XP_PG_PATH, 0}, 0},
	[XP_T_OBJREFS] = {"OBJREFS", XP_RS_OBJREF, 1, {0, 0}, 0},
	[XP_T_COMDATS] = {"COMDATS", XP_RS_COMDAT, 2,
	                  {XP_CD_PROC, XP_CD_OBJFILE}, 0},
	[XP_T_SRCFILES] = {"SRCFILES", XP_RS_SRCFILE, 1, {XP_SF_PATH, 0}, 0},
	[XP_T_SRCLINES] = {"SRCLINES", XP_RS_SRCLINE, 0, {0, 0}, 0},
	[XP_T_BLOCKREFS] = {"BLOCKREFS", XP_RS_BLOCKREF, 2,
	                    {XP_BR_PROC, XP_BR_OBJFILE}, 0},
	[XP_T_IDX_OBJFILES] = {"IDX_OBJFILES", XP_RS_INDEX, 0, {0, 0}, 0},
	[XP_T_IDX_PROCS] = {"IDX_PROCS", XP_RS_INDEX, 0, {0, 0}, 0},
	[XP_T_IDX_PROGRAMS] = {"IDX_PROGRAMS", XP_RS_INDEX, 0, {0, 0}, 0},
	[XP_T_IDX_SRCFILES] = {"IDX_SRCFILES", XP_RS_INDEX, 0, {0, 0}, 0},
};

/* ------------------------------------------------------------------ */
/* Names                                                               */
/* ------------------------------------------------------------------ */

static const char *const datatype_names[] = {"feedback", "tcovd", "objfd",
                                              "tcovsd"};

const char *xp_datatype_name(xp_datatype t)
{
	if ((unsigned)t < sizeof datatype_names / sizeof datatype_names[0])
		return datatype_names[t];
	return "?";
}

int xp_datatype_parse(const char *name, xp_datatype *t)
{
	for (unsigned i = 0; i < 4; i++) {
		if (strcmp(name, datatype_names[i]) == 0) {
			*t = (xp_datatype)i;
			return 0;
		}
	}
	return -1;
}

static const char *const vptype_names[] = {"VP_INT", "VP_LLONG", "VP_FLOAT",
                                            "VP_DOUBLE", "VP_PROC"};

const char *xp_vptype_name(xp_vptype t)
{
	if ((unsigned)t < 5)
		return vptype_names[t];
	return "VP_?";
}

/* ------------------------------------------------------------------ */
/* Growable buffers                                                    */
/* ------------------------------------------------------------------ */

unsigned char *xp_buf_grow(xp_buf *b, size_t n)
{
	/* A buffer always exists before any pointer arithmetic: NULL + 0 is
	 * undefined in C. */
	if (!b->p || b->cap - b->len < n) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap - b->len < n) {
			if (cap > SIZE_MAX / 2)
				return NULL;
			cap *= 2;
		}
		unsigned char *p = realloc(b->p, cap);
		if (!p)
			return NULL;
		b->p = p;
		b->cap = cap;
	}
	return b->p + b->len;
}

xp_err xp_buf_append(xp_buf *b, const void *p, size_t n)
{
	unsigned char *q = xp_buf_grow(b, n);
	if (!q)
		return XP_E_NOMEM;
	if (n)
		memcpy(q, p, n);
	b->len += n;
	return XP_E_OK;
}

void xp_buf_free(xp_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

xp_err xp_grow(void *pp, size_t *cap, size_t n, size_t sz)
{
	void **p = pp;
	size_t nc;
	void *q;

	if (n < *cap)
		return XP_E_OK;
	nc = *cap ? *cap * 2 : 16;
	while (nc <= n && nc <= SIZE_MAX / 2)
		nc *= 2;
	if (nc <= n || nc > SIZE_MAX / sz)
		return XP_E_NOMEM;
	q = realloc(*p, nc * sz);
	if (q == NULL)
		return XP_E_NOMEM;
	*p = q;
	*cap = nc;
	return XP_E_OK;
}

/* ------------------------------------------------------------------ */
/* Sealed profiles                                                     */
/* ------------------------------------------------------------------ */

xp_fb *xp_fb_alloc(xp_datatype type, unsigned minor, uint32_t n_proc_names)
{
	xp_fb *fb = calloc(1, sizeof *fb);
	if (!fb)
		return NULL;
	fb->type = type;
	fb->minor = minor;
	fb->n_proc_names = n_proc_names;
	fb->strtab = "";
	return fb;
}

void xp_fb_free(xp_fb *fb)
{
	if (!fb)
		return;
	if (fb->map)
		munmap(fb->map, fb->maplen);
	for (size_t i = 0; i < sizeof fb->owned / sizeof fb->owned[0]; i++)
		free(fb->owned[i]);
	free(fb);
}

xp_datatype xp_fb_datatype(const xp_fb *fb) { return fb->type; }
unsigned xp_fb_minor(const xp_fb *fb) { return fb->minor; }
uint32_t xp_fb_n_proc_names(const xp_fb *fb) { return fb->n_proc_names; }

uint32_t xp_fb_count(const xp_fb *fb, xp_table t)
{
	return (unsigned)t < XP_T_COUNT_ ? fb->n[t] : 0;
}

uint32_t xp_fb_nstrings(const xp_fb *fb) { return fb->nstr; }

static uint32_t str_off(const xp_fb *fb, xp_str s)
{
	return xp_get_le32(fb->stroff + (size_t)s * 4);
}

static uint32_t str_end(const xp_fb *fb, xp_str s)
{
	/* The offset one past the string's NUL. */
	return s + 1 < fb->nstr ? str_off(fb, s + 1) : fb->strtab_len;
}

const char *xp_fb_str(const xp_fb *fb, xp_str s)
{
	if (s == XP_NOSTR || s >= fb->nstr)
		return "";
	return fb->strtab + str_off(fb, s);
}

size_t xp_fb_strlen(const xp_fb *fb, xp_str s)
{
	if (s == XP_NOSTR || s >= fb->nstr)
		return 0;
	return str_end(fb, s) - str_off(fb, s) - 1;
}

xp_str xp_fb_find_str(const xp_fb *fb, const char *s, size_t len)
{
	uint32_t lo = 0, hi = fb->nstr;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = xp_bytecmp(xp_fb_str(fb, mid), xp_fb_strlen(fb, mid), s, len);
		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return XP_NOSTR;
}

uint32_t xp_fb_objfile_by_path(const xp_fb *fb, xp_str path)
{
	uint32_t lo = 0, hi = fb->n[XP_T_IDX_OBJFILES];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint32_t o = xp_fb_index(fb, XP_T_IDX_OBJFILES, mid);
		xp_str p = xp_get_le32(xp_rec(fb, XP_T_OBJFILES, o) + XP_OF_PATH);
		if (p == path)
			return o;
		if (p < path)
			lo = mid + 1;
		else
			hi = mid;
	}
	return UINT32_MAX;
}

uint32_t xp_fb_find_objfile(const xp_fb *fb, const char *path)
{
	xp_str s = xp_fb_find_str(fb, path, strlen(path));
	return s == XP_NOSTR ? UINT32_MAX : xp_fb_objfile_by_path(fb, s);
}

#define U32(t, i, f) xp_get_le32(xp_rec(fb, t, i) + (f))
#define U64(t, i, f) xp_get_le64(xp_rec(fb, t, i) + (f))

void xp_fb_run(const xp_fb *fb, uint32_t i, xp_run *r)
{
	r->kind = (xp_seckind)U32(XP_T_RUNS, i, XP_RUN_KIND);
	r->count = U32(XP_T_RUNS, i, XP_RUN_COUNT);
}

void xp_fb_objfile(const xp_fb *fb, uint32_t i, xp_objfile *r)
{
	const unsigned char *p = xp_rec(fb, XP_T_OBJFILES, i);
	r->path = xp_get_le32(p + XP_OF_PATH);
	r->tv_sec = xp_get_le32(p + XP_OF_TVSEC);
	r->tv_usec = xp_get_le32(p + XP_OF_TVUSEC);
	r->n_values_per_vp = xp_get_le32(p + XP_OF_NVPV);
	r->signature = xp_get_le64(p + XP_OF_SIG);
	r->n_srcfile_names = xp_get_le32(p + XP_OF_NSFN);
	r->first_stat = xp_get_le32(p + XP_OF_FSTAT);
	r->n_stats = xp_get_le32(p + XP_OF_NSTAT);
	r->first_proc = xp_get_le32(p + XP_OF_FPROC);
	r->n_procs = xp_get_le32(p + XP_OF_NPROC);
}

void xp_fb_proc(const xp_fb *fb, uint32_t i, xp_proc *r)
{
	const unsigned char *p = xp_rec(fb, XP_T_PROCS, i);
	r->name = xp_get_le32(p + XP_PR_NAME);
	r->objfile = xp_get_le32(p + XP_PR_OBJFILE);
	r->signature = xp_get_le64(p + XP_PR_SIG);
	r->proc_id = xp_get_le32(p + XP_PR_ID);
	r->n_vp_sites = xp_get_le32(p + XP_PR_NVPSITES);
	r->n_srcmap_ops = xp_get_le32(p + XP_PR_NSRCMAP);
	r->first_stat = xp_get_le32(p + XP_PR_FSTAT);
	r->n_stats = xp_get_le32(p + XP_PR_NSTAT);
	r->first_counter = xp_get_le32(p + XP_PR_FCNT);
	r->n_counters = xp_get_le32(p + XP_PR_NCNT);
	r->first_vp = xp_get_le32(p + XP_PR_FVP);
	r->n_vps = xp_get_le32(p + XP_PR_NVP);
	r->first_vpval = xp_get_le32(p + XP_PR_FVPVAL);
	r->first_block = xp_get_le32(p + XP_PR_FBLK);
	r->n_blocks = xp_get_le32(p + XP_PR_NBLK);
	r->first_edge = xp_get_le32(p + XP_PR_FEDGE);
	r->n_edges = xp_get_le32(p + XP_PR_NEDGE);
	r->first_tuple = xp_get_le32(p + XP_PR_FTUP);
	r->n_tuples = xp_get_le32(p + XP_PR_NTUP);
}

void xp_fb_stat(const xp_fb *fb, uint32_t i, xp_stat *r)
{
	r->kind = (xp_statkind)U32(XP_T_STATS, i, XP_ST_KIND);
	r->value = U64(XP_T_STATS, i, XP_ST_VALUE);
}

void xp_fb_counter(const xp_fb *fb, uint32_t i, xp_counter *r)
{
	r->id = U32(XP_T_COUNTERS, i, XP_CN_ID);
	r->value = U64(XP_T_COUNTERS, i, XP_CN_VALUE);
}

void xp_fb_vp(const xp_fb *fb, uint32_t i, xp_vp *r)
{
	r->expr_id = U32(XP_T_VPS, i, XP_VP_EXPR);
	r->type = (xp_vptype)U32(XP_T_VPS, i, XP_VP_TYPE);
}

static float bits_to_float(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

static double bits_to_double(uint64_t u)
{
	double d;
	memcpy(&d, &u, sizeof d);
	return d;
}

void xp_fb_vpval(const xp_fb *fb, uint32_t i, xp_vptype type, xp_vpval *r)
{
	const unsigned char *p = xp_rec(fb, XP_T_VPVALS, i);
	uint64_t v = xp_get_le64(p + XP_VV_VALUE);
	memset(r, 0, sizeof *r);
	r->count = xp_get_le64(p + XP_VV_COUNT);
	r->has_value = (xp_get_le32(p + XP_VV_FLAGS) & XP_VVF_HAS_VALUE) != 0;
	switch (type) {
	case XP_VP_INT: r->v.i = (int32_t)(uint32_t)v; break;
	case XP_VP_LLONG: r->v.ll = (int64_t)v; break;
	case XP_VP_FLOAT: r->v.f = bits_to_float((uint32_t)v); break;
	case XP_VP_DOUBLE: r->v.d = bits_to_double(v); break;
	case XP_VP_PROC:
		r->v.proc.name = (uint32_t)v;
		r->v.proc.objfile = (uint32_t)(v >> 32);
		break;
	}
}

void xp_fb_block(const xp_fb *fb, uint32_t i, xp_block *r)
{
	r->id = U32(XP_T_BLOCKS, i, XP_BK_ID);
	r->counter = U32(XP_T_BLOCKS, i, XP_BK_COUNTER);
}

void xp_fb_edge(const xp_fb *fb, uint32_t i, xp_edge *r)
{
	const unsigned char *p = xp_rec(fb, XP_T_EDGES, i);
	r->id = xp_get_le32(p + XP_ED_ID);
	r->counter = xp_get_le32(p + XP_ED_COUNTER);
	r->from = xp_get_le32(p + XP_ED_FROM);
	r->to = xp_get_le32(p + XP_ED_TO);
}

void xp_fb_tuple(const xp_fb *fb, uint32_t i, xp_tuple *r)
{
	const unsigned char *p = xp_rec(fb, XP_T_TUPLES, i);
	r->id = xp_get_le32(p + XP_TU_ID);
	r->block = xp_get_le32(p + XP_TU_BLOCK);
	r->line = xp_get_le32(p + XP_TU_LINE);
	r->col = xp_get_le32(p + XP_TU_COL);
	r->srcfile = xp_get_le32(p + XP_TU_FILE);
}

void xp_fb_program(const xp_fb *fb, uint32_t i, xp_program *r)
{
	const unsigned char *p = xp_rec(fb, XP_T_PROGRAMS, i);
	r->path = xp_get_le32(p + XP_PG_PATH);
	r->first_stat = xp_get_le32(p + XP_PG_FSTAT);
	r->n_stats = xp_get_le32(p + XP_PG_NSTAT);
	r->first_objref = xp_get_le32(p + XP_PG_FOBJREF);
	r->n_objrefs = xp_get_le32(p + XP_PG_NOBJREF);
	r->first_comdat = xp_get_le32(p + XP_PG_FCOMDAT);
	r->n_comdats = xp_get_le32(p + XP_PG_NCOMDAT);
}

xp_str xp_fb_objref(const xp_fb *fb, uint32_t i)
{
	return U32(XP_T_OBJREFS, i, 0);
}

void xp_fb_comdat(const xp_fb *fb, uint32_t i, xp_comdat *r)
{
	r->proc = U32(XP_T_COMDATS, i, XP_CD_PROC);
	r->objfile = U32(XP_T_COMDATS, i, XP_CD_OBJFILE);
}

void xp_fb_srcfile(const xp_fb *fb, uint32_t i, xp_srcfile *r)
{
	r->path = U32(XP_T_SRCFILES, i, XP_SF_PATH);
	r->first_line = U32(XP_T_SRCFILES, i, XP_SF_FLINE);
	r->n_lines = U32(XP_T_SRCFILES, i, XP_SF_NLINE);
}

void xp_fb_srcline(const xp_fb *fb, uint32_t i, xp_srcline *r)
{
	const unsigned char *p = xp_rec(fb, XP_T_SRCLINES, i);
	r->line = xp_get_le32(p + XP_SL_LINE);
	r->col = xp_get_le32(p + XP_SL_COL);
	r->first_ref = xp_get_le32(p + XP_SL_FREF);
	r->n_refs = xp_get_le32(p + XP_SL_NREF);
}

void xp_fb_blockref(const xp_fb *fb, uint32_t i, xp_blockref *r)
{
	const unsigned char *p = xp_rec(fb, XP_T_BLOCKREFS, i);
	r->block = xp_get_le32(p + XP_BR_BLOCK);
	r->count = xp_get_le64(p + XP_BR_COUNT);
	r->proc = xp_get_le32(p + XP_BR_PROC);
	r->objfile = xp_get_le32(p + XP_BR_OBJFILE);
}

uint32_t xp_fb_index(const xp_fb *fb, xp_table idx, uint32_t i)
{
	return U32(idx, i, 0);
}

/* ------------------------------------------------------------------ */
/* Sorting                                                             */
/* ------------------------------------------------------------------ */

/* Bytes d to d + 7 of string id, big-endian, zeros past its end. */
static uint64_t str_chunk(const xp_strpool *sp, uint32_t id, size_t d)
{
	const unsigned char *s = (const unsigned char *)xp_strpool_str(sp, id);
	size_t len = xp_strpool_len(sp, id);
	uint64_t k = 0;
	for (size_t i = 0; i < 8; i++)
		k = k << 8 | (d + i < len ? s[d + i] : 0);
	return k;
}

static int cmp_str(const void *ctx, size_t a, size_t b)
{
	return xp_strpool_cmp(ctx, (uint32_t)a, (uint32_t)b);
}

/* Strings the same in their first STR_DEPTH bytes are compared whole:
 * a bound on the depth of sort_strings' recursion. */
#define STR_DEPTH 64

/*
 * Sorts the strings a[].val of sp, all the same in their first d bytes, in
 * byte order (xp_strpool_cmp), tmp holding room for as many: by their
 * next eight bytes, then each run that has those bytes alike by the
 * eight after them, and so on.  Each level reads a string's bytes once,
 * where comparing them whole would read their common prefix at every
 * comparison.  A run in which a string ends (or holds NUL bytes) is
 * compared whole.
 */
static xp_err sort_strings(const xp_strpool *sp, xp_kv *a, xp_kv *tmp,
                           size_t n, size_t d)
{
	for (size_t i = 0; i < n; i++)
		a[i].key = str_chunk(sp, (uint32_t)a[i].val, d);
	xp_err serr = xp_sort_kv(a, n);
	if (serr)
		return serr;
	for (size_t i = 0, j; i < n; i = j) {
		int ends = xp_strpool_len(sp, (uint32_t)a[i].val) <= d + 8;
		for (j = i + 1; j < n && a[j].key == a[i].key; j++)
			ends |= xp_strpool_len(sp, (uint32_t)a[j].val) <= d + 8;
		if (j - i < 2)
			continue;
		if (!ends && d < STR_DEPTH) {
			xp_err err = sort_strings(sp, a + i, tmp, j - i, d + 8);
			if (err)
				return err;
			continue;
		}
		/* tmp has room for n pairs: 2 (j - i) ids and more. */
		size_t *ids = (size_t *)tmp;
		for (size_t k = i; k < j; k++)
			ids[k - i] = (size_t)a[k].val;
		xp_sort_idx(ids, ids + (j - i), j - i, cmp_str, sp);
		for (size_t k = i; k < j; k++)
			a[k].val = ids[k - i];
	}
	return XP_E_OK;
}

/* Sorts the strings ids[0..n) of sp in byte order. */
static xp_err sort_ids(const xp_strpool *sp, uint32_t *ids, size_t n)
{
	xp_kv *a = malloc((n + 1) * sizeof *a);
	xp_kv *tmp = malloc((n + 1) * sizeof *tmp);
	xp_err err = XP_E_NOMEM;
	if (a && tmp) {
		for (size_t i = 0; i < n; i++)
			a[i].val = ids[i];
		if ((err = sort_strings(sp, a, tmp, n, 0)) == XP_E_OK)
			for (size_t i = 0; i < n; i++)
				ids[i] = (uint32_t)a[i].val;
	}
	XP_FREE(a, tmp);
	return err;
}

/* ------------------------------------------------------------------ */
/* The builder                                                         */
/* ------------------------------------------------------------------ */

enum { TGT_NONE, TGT_OBJFILE, TGT_PROC, TGT_PROGRAM };

struct xp_fbb {
	xp_datatype type;
	unsigned minor;
	uint32_t n_proc_names;

	xp_buf tab[XP_T_COUNT_];
	uint32_t n[XP_T_COUNT_];

	xp_strpool sp;  /* the strings, ids in the order first interned */

	/* The open sections (indexes), UINT32_MAX when none. */
	uint32_t cur_obj, cur_proc, cur_vp, cur_prog, cur_src, cur_line;
	int stat_target;

	xp_diags *d;    /* where refusals are explained, or NULL */
};

xp_fbb *xp_fbb_new(xp_datatype type, unsigned minor, uint32_t n_proc_names)
{
	xp_fbb *b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	b->type = type;
	b->minor = minor;
	b->n_proc_names = n_proc_names;
	b->cur_obj = b->cur_proc = b->cur_vp = UINT32_MAX;
	b->cur_prog = b->cur_src = b->cur_line = UINT32_MAX;
	return b;
}

void xp_fbb_free(xp_fbb *b)
{
	if (!b)
		return;
	for (int t = 0; t < XP_T_COUNT_; t++)
		xp_buf_free(&b->tab[t]);
	xp_strpool_free(&b->sp);
	free(b);
}

uint32_t xp_fbb_count(const xp_fbb *b, xp_table t)
{
	return (unsigned)t < XP_T_COUNT_ ? b->n[t] : 0;
}

void xp_fbb_set_diags(xp_fbb *b, xp_diags *d)
{
	b->d = d;
}

/* Up to 60 bytes of s for a message, bytes below 0x20 and 0x7f as
 * \xNN, "..." when cut. */
static void quote(char *buf, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t k = 0;

	for (size_t i = 0; i < len && i < 60; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f) {
			buf[k++] = '\\';
			buf[k++] = 'x';
			buf[k++] = hex[c >> 4];
			buf[k++] = hex[c & 15];
		} else {
			buf[k++] = (char)c;
		}
	}
	if (len > 60)
		buf[k++] = '.', buf[k++] = '.', buf[k++] = '.';
	buf[k] = '\0';
}

/*
 * Every string of a profile is a name or a path that the text and the
 * database must be able to hold (xprof_text(5), xprof_db(5)): at least
 * one byte, and no space, tab, CR, LF or NUL.
 */
xp_err xp_fbb_intern(xp_fbb *b, const char *s, size_t len, xp_str *out)
{
	char q[60 * 4 + 4];
	size_t i = 0;

	while (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\r' &&
	       s[i] != '\n' && s[i] != '\0')
		i++;
	if (len == 0)
		return xp_diag_file(b->d, XP_E_INVAL, "", "an empty string "
		                    "cannot be a feedback name or path");
	if (i < len) {
		quote(q, s, len);
		return xp_diag_file(b->d, XP_E_INVAL, "", "\"%s\" holds byte "
		                    "0x%02x: a feedback name or path cannot hold "
		                    "space, tab, CR, LF or NUL", q,
		                    (unsigned char)s[i]);
	}
	return xp_strpool_intern(&b->sp, s, len, out);
}

xp_err xp_fbb_intern_word(xp_fbb *b, const char *s, size_t len, xp_str *out)
{
	return xp_strpool_intern(&b->sp, s, len, out);
}

/* A procedure named in a <proc_name>:<objfile> pair (of what) cannot
 * hold ':': the text splits the pair at the first one. */
static xp_err pair_name(xp_fbb *b, xp_str name, const char *what)
{
	char q[60 * 4 + 4];

	if (name >= b->sp.n)
		return XP_E_INVAL;
	if (memchr(xp_strpool_str(&b->sp, name), ':',
	           xp_strpool_len(&b->sp, name)) == NULL)
		return XP_E_OK;
	quote(q, xp_strpool_str(&b->sp, name), xp_strpool_len(&b->sp, name));
	return xp_diag_file(b->d, XP_E_INVAL, "", "%s names procedure \"%s\", "
	                    "which holds ':': the procedure of a "
	                    "<proc_name>:<objfile> pair cannot", what, q);
}

const char *xp_fbb_str(const xp_fbb *b, xp_str s)
{
	if (s >= b->sp.n)
		return "";
	return xp_strpool_str(&b->sp, s);
}

/* Appends a zeroed record to table t; NULL when out of memory or full.
 * Inlined, with t a constant: a record is added per line of a text. */
static inline unsigned char *add_rec(xp_fbb *b, xp_table t, xp_err *err)
{
	uint32_t size = xp_tabdescs[t].size;
	xp_buf *tb = &b->tab[t];
	unsigned char *p;
	if (b->n[t] == UINT32_MAX) {
		*err = XP_E_LIMIT;
		return NULL;
	}
	if (tb->p && tb->cap - tb->len >= size) {
		p = tb->p + tb->len;
	} else if (!(p = xp_buf_grow(tb, size))) {
		*err = XP_E_NOMEM;
		return NULL;
	}
	memset(p, 0, size);
	tb->len += size;
	b->n[t]++;
	return p;
}

static inline unsigned char *rec(xp_fbb *b, xp_table t, uint32_t i)
{
	return b->tab[t].p + (size_t)i * xp_tabdescs[t].size;
}

static inline void bump(unsigned char *p, unsigned off)
{
	xp_put_le32(p + off, xp_get_le32(p + off) + 1);
}

static xp_err add_run(xp_fbb *b, xp_seckind kind)
{
	uint32_t n = b->n[XP_T_RUNS];
	if (n > 0) {
		unsigned char *last = rec(b, XP_T_RUNS, n - 1);
		if (xp_get_le32(last + XP_RUN_KIND) == (uint32_t)kind) {
			bump(last, XP_RUN_COUNT);
			return XP_E_OK;
		}
	}
	xp_err err = XP_E_OK;
	unsigned char *p = add_rec(b, XP_T_RUNS, &err);
	if (!p)
		return err;
	xp_put_le32(p + XP_RUN_KIND, (uint32_t)kind);
	xp_put_le32(p + XP_RUN_COUNT, 1);
	return XP_E_OK;
}

static void close_all(xp_fbb *b)
{
	b->cur_obj = b->cur_proc = b->cur_vp = UINT32_MAX;
	b->cur_prog = b->cur_src = b->cur_line = UINT32_MAX;
	b->stat_target = TGT_NONE;
}

xp_err xp_fbb_begin_objfile(xp_fbb *b, const xp_objfile *o)
{
	xp_err err = add_run(b, XP_SEC_OBJFILE);
	if (err)
		return err;
	unsigned char *p = add_rec(b, XP_T_OBJFILES, &err);
	if (!p)
		return err;
	xp_put_le32(p + XP_OF_PATH, o->path);
	xp_put_le32(p + XP_OF_TVSEC, o->tv_sec);
	xp_put_le32(p + XP_OF_TVUSEC, o->tv_usec);
	xp_put_le32(p + XP_OF_NVPV, o->n_values_per_vp);
	xp_put_le64(p + XP_OF_SIG, o->signature);
	xp_put_le32(p + XP_OF_NSFN, o->n_srcfile_names);
	xp_put_le32(p + XP_OF_FSTAT, b->n[XP_T_STATS]);
	xp_put_le32(p + XP_OF_FPROC, b->n[XP_T_PROCS]);
	close_all(b);
	b->cur_obj = b->n[XP_T_OBJFILES] - 1;
	b->stat_target = TGT_OBJFILE;
	return XP_E_OK;
}

xp_err xp_fbb_begin_proc(xp_fbb *b, const xp_proc *pr)
{
	if (b->cur_obj == UINT32_MAX)
		return XP_E_INVAL;
	xp_err err = XP_E_OK;
	unsigned char *p = add_rec(b, XP_T_PROCS, &err);
	if (!p)
		return err;
	xp_put_le32(p + XP_PR_NAME, pr->name);
	xp_put_le32(p + XP_PR_OBJFILE, b->cur_obj);
	xp_put_le64(p + XP_PR_SIG, pr->signature);
	xp_put_le32(p + XP_PR_ID, pr->proc_id);
	xp_put_le32(p + XP_PR_NVPSITES, pr->n_vp_sites);
	xp_put_le32(p + XP_PR_NSRCMAP, pr->n_srcmap_ops);
	xp_put_le32(p + XP_PR_FSTAT, b->n[XP_T_STATS]);
	xp_put_le32(p + XP_PR_FCNT, b->n[XP_T_COUNTERS]);
	xp_put_le32(p + XP_PR_FVP, b->n[XP_T_VPS]);
	xp_put_le32(p + XP_PR_FVPVAL, b->n[XP_T_VPVALS]);
	xp_put_le32(p + XP_PR_FBLK, b->n[XP_T_BLOCKS]);
	xp_put_le32(p + XP_PR_FEDGE, b->n[XP_T_EDGES]);
	xp_put_le32(p + XP_PR_FTUP, b->n[XP_T_TUPLES]);
	bump(rec(b, XP_T_OBJFILES, b->cur_obj), XP_OF_NPROC);
	b->cur_proc = b->n[XP_T_PROCS] - 1;
	b->cur_vp = UINT32_MAX;
	b->stat_target = TGT_PROC;
	return XP_E_OK;
}

xp_err xp_fbb_add_stat(xp_fbb *b, xp_statkind kind, uint64_t value)
{
	unsigned char *parent;
	unsigned off;
	switch (b->stat_target) {
	case TGT_OBJFILE:
		parent = rec(b, XP_T_OBJFILES, b->cur_obj);
		off = XP_OF_NSTAT;
		break;
	case TGT_PROC:
		parent = rec(b, XP_T_PROCS, b->cur_proc);
		off = XP_PR_NSTAT;
		break;
	case TGT_PROGRAM:
		parent = rec(b, XP_T_PROGRAMS, b->cur_prog);
		off = XP_PG_NSTAT;
		break;
	default:
		return XP_E_INVAL;
	}
	/* Compute the parent's address before add_rec may move buffers of
	 * other tables; the stats table is a different buffer. */
	xp_err err = XP_E_OK;
	unsigned char *p = add_rec(b, XP_T_STATS, &err);
	if (!p)
		return err;
	xp_put_le32(p + XP_ST_KIND, (uint32_t)kind);
	xp_put_le64(p + XP_ST_VALUE, value);
	bump(parent, off);
	return XP_E_OK;
}

/* Adds a record to table t under the open procedure, counting it in the
 * procedure's field nfield. */
static inline unsigned char *proc_child(xp_fbb *b, xp_table t, unsigned nfield,
                                 xp_err *err)
{
	if (b->cur_proc == UINT32_MAX) {
		*err = XP_E_INVAL;
		return NULL;
	}
	unsigned char *p = add_rec(b, t, err);
	if (p)
		bump(rec(b, XP_T_PROCS, b->cur_proc), nfield);
	return p;
}

xp_err xp_fbb_add_counter(xp_fbb *b, uint32_t id, uint64_t value)
{
	xp_err err = XP_E_OK;
	unsigned char *p = proc_child(b, XP_T_COUNTERS, XP_PR_NCNT, &err);
	if (!p)
		return err;
	xp_put_le32(p + XP_CN_ID, id);
	xp_put_le64(p + XP_CN_VALUE, value);
	b->stat_target = TGT_NONE;
	return XP_E_OK;
}

xp_err xp_fbb_add_vp(xp_fbb *b, uint32_t expr_id, xp_vptype type)
{
	xp_err err = XP_E_OK;
	unsigned char *p = proc_child(b, XP_T_VPS, XP_PR_NVP, &err);
	if (!p)
		return err;
	xp_put_le32(p + XP_VP_EXPR, expr_id);
	xp_put_le32(p + XP_VP_TYPE, (uint32_t)type);
	b->cur_vp = b->n[XP_T_VPS] - 1;
	b->stat_target = TGT_NONE;
	return XP_E_OK;
}

static uint32_t float_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}

static uint64_t double_bits(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return u;
}

xp_err xp_fbb_add_vpval(xp_fbb *b, const xp_vpval *v)
{
	if (b->cur_vp == UINT32_MAX)
		return XP_E_INVAL;
	xp_vptype type =
	    (xp_vptype)xp_get_le32(rec(b, XP_T_VPS, b->cur_vp) + XP_VP_TYPE);
	xp_err err = XP_E_OK;
	if (type == XP_VP_PROC && v->has_value &&
	    (err = pair_name(b, v->v.proc.name, "a VP_PROC value")) != XP_E_OK)
		return err;
	unsigned char *p = add_rec(b, XP_T_VPVALS, &err);
	if (!p)
		return err;
	uint64_t bits = 0;
	if (v->has_value) {
		switch (type) {
		case XP_VP_INT: bits = (uint64_t)(int64_t)v->v.i; break;
		case XP_VP_LLONG: bits = (uint64_t)v->v.ll; break;
		case XP_VP_FLOAT: bits = float_bits(v->v.f); break;
		case XP_VP_DOUBLE: bits = double_bits(v->v.d); break;
		case XP_VP_PROC:
			bits = (uint64_t)v->v.proc.name |
			       (uint64_t)v->v.proc.objfile << 32;
			break;
		}
	}
	xp_put_le64(p + XP_VV_COUNT, v->count);
	xp_put_le64(p + XP_VV_VALUE, bits);
	xp_put_le32(p + XP_VV_FLAGS, v->has_value ? XP_VVF_HAS_VALUE : 0);
	return XP_E_OK;
}

xp_err xp_fbb_add_block(xp_fbb *b, uint32_t id, uint32_t counter)
{
	xp_err err = XP_E_OK;
	unsigned char *p = proc_child(b, XP_T_BLOCKS, XP_PR_NBLK, &err);
	if (!p)
		return err;
	xp_put_le32(p + XP_BK_ID, id);
	xp_put_le32(p + XP_BK_COUNTER, counter);
	b->cur_vp = UINT32_MAX;
	b->stat_target = TGT_NONE;
	return XP_E_OK;
}

xp_err xp_fbb_add_edge(xp_fbb *b, const xp_edge *e)
{
	xp_err err = XP_E_OK;
	unsigned char *p = proc_child(b, XP_T_EDGES, XP_PR_NEDGE, &err);
	if (!p)
		return err;
	xp_put_le32(p + XP_ED_ID, e->id);
	xp_put_le32(p + XP_ED_COUNTER, e->counter);
	xp_put_le32(p + XP_ED_FROM, e->from);
	xp_put_le32(p + XP_ED_TO, e->to);
	b->cur_vp = UINT32_MAX;
	b->stat_target = TGT_NONE;
	return XP_E_OK;
}

xp_err xp_fbb_add_tuple(xp_fbb *b, const xp_tuple *t)
{
	xp_err err = XP_E_OK;
	unsigned char *p = proc_child(b, XP_T_TUPLES, XP_PR_NTUP, &err);
	if (!p)
		return err;
	xp_put_le32(p + XP_TU_ID, t->id);
	xp_put_le32(p + XP_TU_BLOCK, t->block);
	xp_put_le32(p + XP_TU_LINE, t->line);
	xp_put_le32(p + XP_TU_COL, t->col);
	xp_put_le32(p + XP_TU_FILE, t->srcfile);
	b->cur_vp = UINT32_MAX;
	b->stat_target = TGT_NONE;
	return XP_E_OK;
}

xp_err xp_fbb_begin_program(xp_fbb *b, xp_str path)
{
	xp_err err = add_run(b, XP_SEC_PROGRAM);
	if (err)
		return err;
	unsigned char *p = add_rec(b, XP_T_PROGRAMS, &err);
	if (!p)
		return err;
	xp_put_le32(p + XP_PG_PATH, path);
	xp_put_le32(p + XP_PG_FSTAT, b->n[XP_T_STATS]);
	xp_put_le32(p + XP_PG_FOBJREF, b->n[XP_T_OBJREFS]);
	xp_put_le32(p + XP_PG_FCOMDAT, b->n[XP_T_COMDATS]);
	close_all(b);
	b->cur_prog = b->n[XP_T_PROGRAMS] - 1;
	b->stat_target = TGT_PROGRAM;
	return XP_E_OK;
}

xp_err xp_fbb_add_objref(xp_fbb *b, xp_str path)
{
	if (b->cur_prog == UINT32_MAX)
		return XP_E_INVAL;
	xp_err err = XP_E_OK;
	unsigned char *p = add_rec(b, XP_T_OBJREFS, &err);
	if (!p)
		return err;
	xp_put_le32(p, path);
	bump(rec(b, XP_T_PROGRAMS, b->cur_prog), XP_PG_NOBJREF);
	b->stat_target = TGT_NONE;
	return XP_E_OK;
}

xp_err xp_fbb_add_comdat(xp_fbb *b, xp_str proc, xp_str objfile)
{
	if (b->cur_prog == UINT32_MAX)
		return XP_E_INVAL;
	xp_err err = pair_name(b, proc, "a COMDAT_PROC");
	if (err)
		return err;
	unsigned char *p = add_rec(b, XP_T_COMDATS, &err);
	if (!p)
		return err;
	xp_put_le32(p + XP_CD_PROC, proc);
	xp_put_le32(p + XP_CD_OBJFILE, objfile);
	bump(rec(b, XP_T_PROGRAMS, b->cur_prog), XP_PG_NCOMDAT);
	b->stat_target = TGT_NONE;
	return XP_E_OK;
}

xp_err xp_fbb_begin_srcfile(xp_fbb *b, xp_str path)
{
	xp_err err = add_run(b, XP_SEC_SRCFILE);
	if (err)
		return err;
	unsigned char *p = add_rec(b, XP_T_SRCFILES, &err);
	if (!p)
		return err;
	xp_put_le32(p + XP_SF_PATH, path);
	xp_put_le32(p + XP_SF_FLINE, b->n[XP_T_SRCLINES]);
	close_all(b);
	b->cur_src = b->n[XP_T_SRCFILES] - 1;
	return XP_E_OK;
}

xp_err xp_fbb_begin_srcline(xp_fbb *b, uint32_t line, uint32_t col)
{
	if (b->cur_src == UINT32_MAX)
		return XP_E_INVAL;
	xp_err err = XP_E_OK;
	unsigned char *p = add_rec(b, XP_T_SRCLINES, &err);
	if (!p)
		return err;
	xp_put_le32(p + XP_SL_LINE, line);
	xp_put_le32(p + XP_SL_COL, col);
	xp_put_le32(p + XP_SL_FREF, b->n[XP_T_BLOCKREFS]);
	bump(rec(b, XP_T_SRCFILES, b->cur_src), XP_SF_NLINE);
	b->cur_line = b->n[XP_T_SRCLINES] - 1;
	return XP_E_OK;
}

xp_err xp_fbb_add_blockref(xp_fbb *b, const xp_blockref *r)
{
	if (b->cur_line == UINT32_MAX)
		return XP_E_INVAL;
	xp_err err = pair_name(b, r->proc, "a block reference");
	if (err)
		return err;
	unsigned char *p = add_rec(b, XP_T_BLOCKREFS, &err);
	if (!p)
		return err;
	xp_put_le32(p + XP_BR_BLOCK, r->block);
	xp_put_le64(p + XP_BR_COUNT, r->count);
	xp_put_le32(p + XP_BR_PROC, r->proc);
	xp_put_le32(p + XP_BR_OBJFILE, r->objfile);
	bump(rec(b, XP_T_SRCLINES, b->cur_line), XP_SL_NREF);
	return XP_E_OK;
}

/* ------------------------------------------------------------------ */
/* Sealing                                                             */
/* ------------------------------------------------------------------ */

/*
 * Calls fn on every string field of every record, VP_PROC values included;
 * fn may rewrite the id in place.  Returns the first error fn returns.
 * Inlined where it is called, so that fn is too: it runs for every
 * string field of a profile, twice when a builder is sealed.
 */
typedef xp_err (*strfield_fn)(unsigned char *field, int optional, void *ctx);

static inline __attribute__((always_inline)) xp_err
each_strfield(xp_fbb *b, strfield_fn fn, void *ctx)
{
	for (int t = 0; t < XP_T_COUNT_; t++) {
		const xp_tabdesc *td = &xp_tabdescs[t];
		for (unsigned k = 0; k < td->nstr; k++) {
			for (uint32_t i = 0; i < b->n[t]; i++) {
				xp_err err = fn(rec(b, (xp_table)t, i) + td->str[k],
				                td->str_optional, ctx);
				if (err)
					return err;
			}
		}
	}
	/* VP_PROC values: walk procedures, their records and values. */
	for (uint32_t pi = 0; pi < b->n[XP_T_PROCS]; pi++) {
		const unsigned char *pr = rec(b, XP_T_PROCS, pi);
		uint32_t obj = xp_get_le32(pr + XP_PR_OBJFILE);
		uint32_t nvpv = xp_get_le32(rec(b, XP_T_OBJFILES, obj) + XP_OF_NVPV);
		uint32_t fvp = xp_get_le32(pr + XP_PR_FVP);
		uint32_t nvp = xp_get_le32(pr + XP_PR_NVP);
		uint64_t val = xp_get_le32(pr + XP_PR_FVPVAL);
		for (uint32_t j = 0; j < nvp; j++, val += nvpv) {
			uint32_t type = xp_get_le32(rec(b, XP_T_VPS, fvp + j) + XP_VP_TYPE);
			if (type != XP_VP_PROC)
				continue;
			if (val + nvpv > b->n[XP_T_VPVALS])
				return XP_E_INVAL;
			for (uint32_t k = 0; k < nvpv; k++) {
				unsigned char *v = rec(b, XP_T_VPVALS, (uint32_t)(val + k));
				if (!(xp_get_le32(v + XP_VV_FLAGS) & XP_VVF_HAS_VALUE))
					continue;
				xp_err err = fn(v + XP_VV_VALUE, 0, ctx);
				if (!err)
					err = fn(v + XP_VV_VALUE + 4, 0, ctx);
				if (err)
					return err;
			}
		}
	}
	return XP_E_OK;
}

typedef struct {
	unsigned char *used; /* one byte per string */
	uint32_t nstr;
	const uint32_t *remap;
} strctx;

static xp_err mark_used(unsigned char *field, int optional, void *ctx)
{
	strctx *c = ctx;
	uint32_t id = xp_get_le32(field);
	if (id == XP_NOSTR && optional)
		return XP_E_OK;
	if (id >= c->nstr)
		return XP_E_INVAL;
	c->used[id] = 1;
	return XP_E_OK;
}

static xp_err renumber(unsigned char *field, int optional, void *ctx)
{
	strctx *c = ctx;
	uint32_t id = xp_get_le32(field);
	if (id == XP_NOSTR && optional)
		return XP_E_OK;
	if (id >= c->nstr)
		return XP_E_INVAL;
	xp_put_le32(field, c->remap[id]);
	return XP_E_OK;
}

/* ------------------------------------------------------------------ */
/* Joining                                                             */
/* ------------------------------------------------------------------ */

/*
 * The fields that hold the index of a record of another table (the F*
 * fields: the first of a run of records; a procedure's object file):
 * appended after another builder's records, they move by the number of
 * records that table holds there.
 */
static const struct {
	uint8_t t, off, to;
} ref_fields[] = {
	{XP_T_OBJFILES, XP_OF_FSTAT, XP_T_STATS},
	{XP_T_OBJFILES, XP_OF_FPROC, XP_T_PROCS},
	{XP_T_PROCS, XP_PR_OBJFILE, XP_T_OBJFILES},
	{XP_T_PROCS, XP_PR_FSTAT, XP_T_STATS},
	{XP_T_PROCS, XP_PR_FCNT, XP_T_COUNTERS},
	{XP_T_PROCS, XP_PR_FVP, XP_T_VPS},
	{XP_T_PROCS, XP_PR_FVPVAL, XP_T_VPVALS},
	{XP_T_PROCS, XP_PR_FBLK, XP_T_BLOCKS},
	{XP_T_PROCS, XP_PR_FEDGE, XP_T_EDGES},
	{XP_T_PROCS, XP_PR_FTUP, XP_T_TUPLES},
	{XP_T_PROGRAMS, XP_PG_FSTAT, XP_T_STATS},
	{XP_T_PROGRAMS, XP_PG_FOBJREF, XP_T_OBJREFS},
	{XP_T_PROGRAMS, XP_PG_FCOMDAT, XP_T_COMDATS},
	{XP_T_SRCFILES, XP_SF_FLINE, XP_T_SRCLINES},
	{XP_T_SRCLINES, XP_SL_FREF, XP_T_BLOCKREFS},
};

xp_err xp_fbb_append(xp_fbb *b, xp_fbb *src, uint32_t **map)
{
	uint32_t *remap = NULL;
	xp_err err;

	if (map)
		*map = NULL;
	if (src->type != b->type || src->minor != b->minor ||
	    src->n_proc_names != b->n_proc_names)
		return XP_E_INVAL;
	/* src's records in b's terms, in place: its strings as b's ids, its
	 * indexes moved past b's records. */
	if ((err = xp_strpool_map(&b->sp, &src->sp, &remap)))
		goto out;
	strctx c = {NULL, src->sp.n, remap};
	if ((err = each_strfield(src, renumber, &c)))
		goto out;
	for (size_t k = 0; k < sizeof ref_fields / sizeof ref_fields[0]; k++) {
		xp_table t = (xp_table)ref_fields[k].t;
		uint32_t add = b->n[ref_fields[k].to];
		for (uint32_t i = 0; i < src->n[t]; i++) {
			unsigned char *f = rec(src, t, i) + ref_fields[k].off;
			xp_put_le32(f, xp_get_le32(f) + add);
		}
	}
	for (int t = 0; t < XP_T_COUNT_; t++) {
		uint32_t from = 0, size = xp_tabdescs[t].size;
		/* A run of sections that goes on where b's last one ended is
		 * one run, as one builder given every section makes it. */
		if (t == XP_T_RUNS && b->n[t] > 0 && src->n[t] > 0 &&
		    xp_get_le32(rec(b, XP_T_RUNS, b->n[t] - 1) + XP_RUN_KIND) ==
		    xp_get_le32(rec(src, XP_T_RUNS, 0) + XP_RUN_KIND)) {
			unsigned char *last = rec(b, XP_T_RUNS, b->n[t] - 1);
			xp_put_le32(last + XP_RUN_COUNT,
			            xp_get_le32(last + XP_RUN_COUNT) +
			            xp_get_le32(rec(src, XP_T_RUNS, 0) +
			                        XP_RUN_COUNT));
			from = 1;
		}
		if (src->n[t] - from > UINT32_MAX - b->n[t]) {
			err = XP_E_LIMIT;
			goto out;
		}
		if (src->n[t] > from &&
		    (err = xp_buf_append(&b->tab[t], rec(src, (xp_table)t, from),
		                         (size_t)(src->n[t] - from) * size)))
			goto out;
		b->n[t] += src->n[t] - from;
	}
	close_all(b);
out:
	if (map && err == XP_E_OK)
		*map = remap;
	else
		free(remap);
	return err;
}

/* Index sort keys: a table, its string field and, for procedures, the
 * owning object file's path first. */
typedef struct {
	const xp_fbb *b;
	xp_table t;
	unsigned field;
} idxctx;

/* The key of record i: its string's id (the strings are sealed, so
 * their ids are in byte order), after its object file's path's for a
 * procedure. */
static uint64_t idx_key(const idxctx *c, uint32_t i)
{
	const xp_fbb *fb = c->b;
	uint64_t k = 0;
	if (c->t == XP_T_PROCS) {
		uint32_t o = xp_get_le32(fb->tab[XP_T_PROCS].p +
		                         (size_t)i * XP_RS_PROC + XP_PR_OBJFILE);
		k = (uint64_t)xp_get_le32(fb->tab[XP_T_OBJFILES].p +
		                          (size_t)o * XP_RS_OBJFILE +
		                          XP_OF_PATH) << 32;
	}
	return k | xp_get_le32(fb->tab[c->t].p +
	                       (size_t)i * xp_tabdescs[c->t].size + c->field);
}

/* Compares the keys of records a and b, ignoring their order. */
static int cmp_key(uint32_t a, uint32_t b, const idxctx *c)
{
	uint64_t ka = idx_key(c, a), kb = idx_key(c, b);
	return ka < kb ? -1 : ka > kb;
}

/*
 * Keys are unique (paths; procedure names within an object file): the
 * readers refuse a second one.  ids: the records sorted by key; str: the
 * sealed strings (the keys' ids are theirs by now).
 */
static xp_err unique_keys(const xp_fbb *b, const idxctx *c,
                          const uint32_t *ids, uint32_t n,
                          const xp_buf *strtab, const xp_buf *stroff)
{
	size_t size = xp_tabdescs[c->t].size;

	for (uint32_t i = 1; i < n; i++) {
		if (cmp_key(ids[i - 1], ids[i], c) != 0)
			continue;
		uint32_t s = xp_get_le32(b->tab[c->t].p + (size_t)ids[i] * size +
		                         c->field);
		const char *key = (const char *)strtab->p +
		                  xp_get_le32(stroff->p + (size_t)s * 4);
		return xp_diag_file(b->d, XP_E_INVAL, "", "two %s \"%.60s\"%s",
		                    c->t == XP_T_PROCS ? "procedures named" :
		                    c->t == XP_T_OBJFILES ? "object files" :
		                    c->t == XP_T_PROGRAMS ? "programs" :
		                    "source files", key,
		                    c->t == XP_T_PROCS ? " in one object file" : "");
	}
	return XP_E_OK;
}

static xp_err build_index(xp_fbb *b, xp_table idx, xp_table t, unsigned field,
                          const xp_buf *strtab, const xp_buf *stroff)
{
	uint32_t n = b->n[t];
	xp_buf *ib = &b->tab[idx];
	ib->len = 0;
	if (!xp_buf_grow(ib, (size_t)n * 4 + 4))
		return XP_E_NOMEM;
	uint32_t *ids = malloc(((size_t)n + 1) * sizeof *ids);
	xp_kv *a = malloc(((size_t)n + 1) * sizeof *a);
	xp_err err = XP_E_NOMEM;
	if (!ids || !a)
		goto out;
	/* By key, and records of equal keys in their order. */
	idxctx c = {b, t, field};
	for (uint32_t i = 0; i < n; i++) {
		a[i].key = idx_key(&c, i);
		a[i].val = i;
	}
	if ((err = xp_sort_kv(a, n)) != XP_E_OK)
		goto out;
	for (uint32_t i = 0; i < n; i++)
		ids[i] = (uint32_t)a[i].val;
	err = unique_keys(b, &c, ids, n, strtab, stroff);
	if (!err) {
		for (uint32_t i = 0; i < n; i++)
			xp_put_le32(ib->p + (size_t)i * 4, ids[i]);
		ib->len = (size_t)n * 4;
		b->n[idx] = n;
	}
out:
	XP_FREE(ids, a);
	return err;
}

xp_err xp_fbb_finish(xp_fbb *b, xp_fb **out)
{
	*out = NULL;
	xp_err err = XP_E_OK;
	strctx c = {NULL, b->sp.n, NULL};
	uint32_t *order = NULL, *remap = NULL;
	xp_buf strtab = {0}, stroff = {0};
	xp_fb *fb = NULL;

	c.used = calloc((size_t)b->sp.n + 1, 1);
	order = malloc(((size_t)b->sp.n + 1) * sizeof *order);
	remap = malloc(((size_t)b->sp.n + 1) * sizeof *remap);
	if (!c.used || !order || !remap) {
		err = XP_E_NOMEM;
		goto out;
	}
	if ((err = each_strfield(b, mark_used, &c)))
		goto out;

	/* Sort the strings in use and renumber references to match. */
	uint32_t n = 0;
	for (uint32_t i = 0; i < b->sp.n; i++)
		if (c.used[i])
			order[n++] = i;
	if ((err = sort_ids(&b->sp, order, n)))
		goto out;
	if (!xp_buf_grow(&stroff, (size_t)n * 4 + 4)) {
		err = XP_E_NOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = order[i];
		remap[id] = i;
		xp_put_le32(stroff.p + (size_t)i * 4, (uint32_t)strtab.len);
		if ((err = xp_buf_append(&strtab, xp_strpool_str(&b->sp, id),
		                         xp_strpool_len(&b->sp, id) + 1)))
			goto out;
	}
	stroff.len = (size_t)n * 4;
	c.remap = remap;
	if ((err = each_strfield(b, renumber, &c)))
		goto out;

	if ((err = build_index(b, XP_T_IDX_OBJFILES, XP_T_OBJFILES, XP_OF_PATH,
	                       &strtab, &stroff)) ||
	    (err = build_index(b, XP_T_IDX_PROCS, XP_T_PROCS, XP_PR_NAME,
	                       &strtab, &stroff)) ||
	    (err = build_index(b, XP_T_IDX_PROGRAMS, XP_T_PROGRAMS, XP_PG_PATH,
	                       &strtab, &stroff)) ||
	    (err = build_index(b, XP_T_IDX_SRCFILES, XP_T_SRCFILES, XP_SF_PATH,
	                       &strtab, &stroff)))
		goto out;

	fb = xp_fb_alloc(b->type, b->minor, b->n_proc_names);
	if (!fb) {
		err = XP_E_NOMEM;
		goto out;
	}
	for (int t = 0; t < XP_T_COUNT_; t++) {
		fb->tab[t] = b->tab[t].p;
		fb->n[t] = b->n[t];
		fb->owned[t] = b->tab[t].p;
		b->tab[t] = (xp_buf){0};
		b->n[t] = 0;
	}
	fb->nstr = n;
	fb->stroff = stroff.p;
	fb->owned[XP_T_COUNT_] = stroff.p;
	stroff = (xp_buf){0};
	fb->strtab = strtab.p ? (const char *)strtab.p : "";
	fb->strtab_len = (uint32_t)strtab.len;
	fb->owned[XP_T_COUNT_ + 1] = strtab.p;
	strtab = (xp_buf){0};
	*out = fb;

	/* Leave the builder empty. */
	xp_strpool_free(&b->sp);
	close_all(b);
out:
	XP_FREE(c.used, order, remap);
	xp_buf_free(&strtab);
	xp_buf_free(&stroff);
	return err;
}
