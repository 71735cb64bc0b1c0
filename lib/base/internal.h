/*
 * base/internal.h - what the modules of libxprof share and the public header
 * does not show: byte-order helpers, growable buffers, the buffered
 * writer, the in-memory layout of a feedback profile, and the internal
 * side of diagnostics.
 *
 * A profile is held as one byte array per table, each record encoded
 * exactly as in the database file (little-endian, fixed width, packed;
 * see xprof_db(5)).  A profile built in memory and one mapped from a file
 * are therefore the same thing to every reader, and writing a database is
 * a matter of streaming the arrays.
 */
#ifndef XPROF_INTERNAL_H
#define XPROF_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xprof.h"

/* ------------------------------------------------------------------ */
/* Byte order                                                          */
/* ------------------------------------------------------------------ */

/*
 * On a little-endian host the little-endian helpers are a plain copy,
 * which compilers turn into one load or store (the byte-wise forms are
 * not always merged into one); elsewhere they assemble the bytes.
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define XP_HOST_LE 1
#else
#define XP_HOST_LE 0
#endif

/* A huge page (a page table's span on x86-64): the unit that large
 * buffers and mappings of databases are aligned to and advised in. */
#define XP_HUGE_PAGE ((size_t)2 << 20)

static inline uint32_t xp_get_le32(const unsigned char *p)
{
	if (XP_HOST_LE) {
		uint32_t v;
		memcpy(&v, p, 4);
		return v;
	}
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t xp_get_le64(const unsigned char *p)
{
	if (XP_HOST_LE) {
		uint64_t v;
		memcpy(&v, p, 8);
		return v;
	}
	return (uint64_t)xp_get_le32(p) | (uint64_t)xp_get_le32(p + 4) << 32;
}

static inline uint32_t xp_get_be32(const unsigned char *p)
{
	return (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[0] << 24;
}

static inline uint64_t xp_get_be64(const unsigned char *p)
{
	return (uint64_t)xp_get_be32(p) << 32 | (uint64_t)xp_get_be32(p + 4);
}

/* Whether the host stores numbers big-endian: arrays of numbers in the
 * host's order are then copied, not decoded. */
static inline int xp_host_big(void)
{
	const uint16_t one = 1;
	unsigned char b;

	memcpy(&b, &one, 1);
	return b == 0;
}

static inline void xp_put_le32(unsigned char *p, uint32_t v)
{
	if (XP_HOST_LE) {
		memcpy(p, &v, 4);
		return;
	}
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static inline void xp_put_le64(unsigned char *p, uint64_t v)
{
	if (XP_HOST_LE) {
		memcpy(p, &v, 8);
		return;
	}
	xp_put_le32(p, (uint32_t)v);
	xp_put_le32(p + 4, (uint32_t)(v >> 32));
}

/* ------------------------------------------------------------------ */
/* Growable byte buffer                                                */
/* ------------------------------------------------------------------ */

typedef struct {
	unsigned char *p;
	size_t len, cap;
} xp_buf;

/* Makes room for n more bytes; returns a pointer to them or NULL. */
unsigned char *xp_buf_grow(xp_buf *b, size_t n);
xp_err xp_buf_append(xp_buf *b, const void *p, size_t n);
void xp_buf_free(xp_buf *b);
/*
 * Makes room for element n of the array *pp (pp: the address of the
 * array's pointer, of any type) of elements of size sz and capacity *cap,
 * doubling it from 16: XP_E_OK, or XP_E_NOMEM with the array left as it
 * was.
 */
xp_err xp_grow(void *pp, size_t *cap, size_t n, size_t sz);

/*
 * len bytes for a large array, freed with free(): from XP_HUGE_PAGE on,
 * aligned to huge pages and advised to be given them, so that filling it
 * takes 512 times fewer page faults.  NULL when out of memory.
 */
void *xp_alloc_huge(size_t len);

/* A NUL-terminated copy of the n bytes at s (which need not be
 * terminated, nor hold a NUL); NULL when out of memory. */
char *xp_strndup(const char *s, size_t n);

/* a + b, or UINT64_MAX when the sum does not fit. */
static inline uint64_t xp_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Scrambles a 64-bit key for a hash table (MurmurHash3's finalizer). */
static inline uint64_t xp_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdu;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53u;
	x ^= x >> 33;
	return x;
}

/*
 * Frees each of the n pointers of p: the body of a destructor that owns
 * several arrays, as XP_FREE(a, b, c).
 */
static inline void xp_free_all(void *const *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i]);
}

#define XP_FREE(...)                                                      \
	xp_free_all((void *const[]){__VA_ARGS__},                         \
	            sizeof((void *const[]){__VA_ARGS__}) / sizeof(void *))

/*
 * qsort(3) for arrays that may be empty: the C library declares its base
 * pointer non-null, and an empty array may well have none.
 */
static inline void xp_qsort(void *base, size_t n, size_t size,
                            int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/* A key and what goes with it (an index, a weight), for xp_sort_kv. */
typedef struct {
	uint64_t key, val;
} xp_kv;

/* Sorts the n pairs of v by key in linear time, equal keys in the order
 * they had (sort.c); XP_E_NOMEM, v unchanged, when out of memory. */
xp_err xp_sort_kv(xp_kv *v, size_t n);
/*
 * Sorts the n records of size bytes at base by the 64-bit fields at the
 * nkeys offsets of key, the most significant first, equal records in the
 * order they had (sort.c); XP_E_NOMEM, the records unchanged, when out of
 * memory.
 */
xp_err xp_sort_records(void *base, size_t n, size_t size, const size_t *key,
                       size_t nkeys);
/*
 * Sorts the n records of size bytes at base by the 64-bit field at
 * offset key in linear time, then each run of records with equal keys
 * by cmp (sort.c): for an order whose first key settles most of it.
 */
xp_err xp_sort_keyed(void *base, size_t n, size_t size, size_t key,
                     int (*cmp)(const void *, const void *));
/*
 * Sorts the n indices of v by cmp(ctx, a, b) (negative, 0 or positive),
 * equal ones in the order they had: a merge sort, linear on indices
 * already in order, through tmp (room for n) (sort.c).
 */
void xp_sort_idx(size_t *v, size_t *tmp, size_t n,
                 int (*cmp)(const void *ctx, size_t a, size_t b),
                 const void *ctx);

/* ------------------------------------------------------------------ */
/* Interned strings (strpool.c)                                        */
/* ------------------------------------------------------------------ */

/* Distinct byte strings named by dense ids in the order first seen; a
 * zeroed struct is an empty pool. */
typedef struct {
	xp_buf bytes;      /* every string followed by a NUL */
	uint32_t *off;     /* n + 1 start offsets (off[n]: the end) */
	uint32_t n, offcap;
	uint64_t *hash;    /* hash bits << 32 | id + 1; 0 is an empty slot */
	uint32_t hcap;     /* a power of two, at least 2 * n */
} xp_strpool;

/* The id of (s, len), added if new.  XP_E_LIMIT past 2^32 - 2 strings or
 * 4 GiB of bytes. */
xp_err xp_strpool_intern(xp_strpool *sp, const char *s, size_t len,
                         uint32_t *out);
/* Interns every string of pool from into to; *map (malloc'd, the caller
 * frees it, even after an error) gets from's ids as to's. */
xp_err xp_strpool_map(xp_strpool *to, const xp_strpool *from, uint32_t **map);
void xp_strpool_free(xp_strpool *sp);

/* String id (below sp->n), NUL-terminated, and its length. */
static inline const char *xp_strpool_str(const xp_strpool *sp, uint32_t id)
{
	return (const char *)sp->bytes.p + sp->off[id];
}

static inline size_t xp_strpool_len(const xp_strpool *sp, uint32_t id)
{
	return sp->off[id + 1] - sp->off[id] - 1;
}

/* The last component of a path: what follows its last '/'. */
static inline const char *xp_path_base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s != NULL ? s + 1 : path;
}

/* Byte-wise comparison of (a, alen) with (b, blen): the order of a
 * database's strings (strcmp order for strings without NULs). */
static inline int xp_bytecmp(const void *a, size_t alen, const void *b,
                             size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);
	if (c)
		return c;
	return alen < blen ? -1 : alen > blen;
}

/* Strings a and b of sp compared in that order. */
static inline int xp_strpool_cmp(const xp_strpool *sp, uint32_t a, uint32_t b)
{
	return xp_bytecmp(xp_strpool_str(sp, a), xp_strpool_len(sp, a),
	                  xp_strpool_str(sp, b), xp_strpool_len(sp, b));
}

/* ------------------------------------------------------------------ */
/* Record layouts                                                      */
/* ------------------------------------------------------------------ */

/* Record sizes in bytes, by xp_table. */
#define XP_RS_RUN 8
#define XP_RS_OBJFILE 44
#define XP_RS_PROC 80
#define XP_RS_STAT 12
#define XP_RS_COUNTER 12
#define XP_RS_VP 8
#define XP_RS_VPVAL 20
#define XP_RS_BLOCK 8
#define XP_RS_EDGE 16
#define XP_RS_TUPLE 20
#define XP_RS_PROGRAM 28
#define XP_RS_OBJREF 4
#define XP_RS_COMDAT 8
#define XP_RS_SRCFILE 12
#define XP_RS_SRCLINE 16
#define XP_RS_BLOCKREF 20
#define XP_RS_INDEX 4

/* Field offsets within records (all fields u32 unless noted u64). */
enum {
	/* run */
	XP_RUN_KIND = 0, XP_RUN_COUNT = 4,
	/* objfile */
	XP_OF_PATH = 0, XP_OF_TVSEC = 4, XP_OF_TVUSEC = 8, XP_OF_NVPV = 12,
	XP_OF_SIG = 16 /* u64 */, XP_OF_NSFN = 24, XP_OF_FSTAT = 28,
	XP_OF_NSTAT = 32, XP_OF_FPROC = 36, XP_OF_NPROC = 40,
	/* proc */
	XP_PR_NAME = 0, XP_PR_OBJFILE = 4, XP_PR_SIG = 8 /* u64 */,
	XP_PR_ID = 16, XP_PR_NVPSITES = 20, XP_PR_NSRCMAP = 24,
	XP_PR_FSTAT = 28, XP_PR_NSTAT = 32, XP_PR_FCNT = 36, XP_PR_NCNT = 40,
	XP_PR_FVP = 44, XP_PR_NVP = 48, XP_PR_FVPVAL = 52, XP_PR_FBLK = 56,
	XP_PR_NBLK = 60, XP_PR_FEDGE = 64, XP_PR_NEDGE = 68,
	XP_PR_FTUP = 72, XP_PR_NTUP = 76,
	/* stat */
	XP_ST_KIND = 0, XP_ST_VALUE = 4 /* u64 */,
	/* counter */
	XP_CN_ID = 0, XP_CN_VALUE = 4 /* u64 */,
	/* vp */
	XP_VP_EXPR = 0, XP_VP_TYPE = 4,
	/* vpval */
	XP_VV_COUNT = 0 /* u64 */, XP_VV_VALUE = 8 /* u64 */, XP_VV_FLAGS = 16,
	/* block */
	XP_BK_ID = 0, XP_BK_COUNTER = 4,
	/* edge */
	XP_ED_ID = 0, XP_ED_COUNTER = 4, XP_ED_FROM = 8, XP_ED_TO = 12,
	/* tuple */
	XP_TU_ID = 0, XP_TU_BLOCK = 4, XP_TU_LINE = 8, XP_TU_COL = 12,
	XP_TU_FILE = 16,
	/* program */
	XP_PG_PATH = 0, XP_PG_FSTAT = 4, XP_PG_NSTAT = 8, XP_PG_FOBJREF = 12,
	XP_PG_NOBJREF = 16, XP_PG_FCOMDAT = 20, XP_PG_NCOMDAT = 24,
	/* comdat */
	XP_CD_PROC = 0, XP_CD_OBJFILE = 4,
	/* srcfile */
	XP_SF_PATH = 0, XP_SF_FLINE = 4, XP_SF_NLINE = 8,
	/* srcline */
	XP_SL_LINE = 0, XP_SL_COL = 4, XP_SL_FREF = 8, XP_SL_NREF = 12,
	/* blockref */
	XP_BR_BLOCK = 0, XP_BR_COUNT = 4 /* u64 */, XP_BR_PROC = 12,
	XP_BR_OBJFILE = 16
};

/* vpval flags */
#define XP_VVF_HAS_VALUE 1u

/*
 * How a VP value is kept in its u64 field: VP_INT as the int32 sign
 * extended to 64 bits; VP_LLONG as its two's complement bits; VP_FLOAT as
 * the float's bits in the low 32 bits (high bits zero); VP_DOUBLE as the
 * double's bits; VP_PROC as name id | objfile id << 32.  A value whose
 * field was empty is 0.
 */

/* Per table: record size and the offsets of fields holding string ids. */
typedef struct {
	const char *name;       /* as in xprof_db(5), e.g. "OBJFILES" */
	uint32_t size;
	uint8_t nstr;           /* number of string fields */
	uint8_t str[2];         /* their offsets */
	uint8_t str_optional;   /* string fields may be XP_NOSTR */
} xp_tabdesc;

extern const xp_tabdesc xp_tabdescs[XP_T_COUNT_];

/* ------------------------------------------------------------------ */
/* The profile                                                         */
/* ------------------------------------------------------------------ */

struct xp_fb {
	xp_datatype type;
	unsigned minor;
	uint32_t n_proc_names;

	const unsigned char *tab[XP_T_COUNT_];
	uint32_t n[XP_T_COUNT_];

	/* Strings: n_str offsets (u32 LE) into strtab; string i occupies
	 * strtab[off[i] .. off[i+1]-2] followed by a NUL (the last one ends
	 * at strtab_len). */
	uint32_t nstr;
	const unsigned char *stroff;
	const char *strtab;
	uint32_t strtab_len;

	/* A database as the reader checked it: the file's bytes (NULL for a
	 * profile built in memory). */
	const unsigned char *image;
	size_t image_len;
	/* The database that this one was checked against byte for byte
	 * (xp_db_open_fd_like()): the same bytes but for the values of
	 * STATS, COUNTERS, VPVALS and BLOCKREFS; NULL otherwise. */
	const xp_fb *like;
	/* The sum of the values of all COUNTERS, exactly (low and high 64
	 * bits), when sum_known: the reader adds them up as it checks. */
	uint64_t sum_lo, sum_hi;
	int sum_known;

	/* What to release: a mapping, or owned buffers. */
	void *map;
	size_t maplen;
	unsigned char *owned[XP_T_COUNT_ + 2];
};

/*
 * Whether n records of size rs at a and b are equal but for the u64 at vo
 * in each (rs and vo are multiples of 4; constants where this is inlined).
 */
static inline __attribute__((always_inline)) int
xp_same_but_u64(const unsigned char *a, const unsigned char *b, uint32_t n,
                size_t rs, size_t vo)
{
	uint64_t diff = 0;
	/* The layouts of the tables, spelled out: a loop over the fields
	 * of a record is not always unrolled. */
	if (rs == 12 && vo == 4) {
		for (uint32_t i = 0; i < n; i++, a += rs, b += rs)
			diff |= xp_get_le32(a) ^ xp_get_le32(b);
	} else if (rs == 20 && vo == 4) {
		for (uint32_t i = 0; i < n; i++, a += rs, b += rs)
			diff |= (xp_get_le32(a) ^ xp_get_le32(b)) |
			        (xp_get_le64(a + 12) ^ xp_get_le64(b + 12));
	} else if (rs == 20 && vo == 0) {
		for (uint32_t i = 0; i < n; i++, a += rs, b += rs)
			diff |= (xp_get_le64(a + 8) ^ xp_get_le64(b + 8)) |
			        (xp_get_le32(a + 16) ^ xp_get_le32(b + 16));
	} else {
		for (uint32_t i = 0; i < n; i++, a += rs, b += rs)
			for (size_t k = 0; k < rs; k += 4)
				if (k < vo || k >= vo + 8)
					diff |= xp_get_le32(a + k) ^ xp_get_le32(b + k);
	}
	return diff == 0;
}

/* The record size of table t, xp_tabdescs[t].size: a constant where t
 * is one, so that record addresses need no load. */
static inline uint32_t xp_recsize(xp_table t)
{
	static const uint8_t size[XP_T_COUNT_] = {
		[XP_T_RUNS] = XP_RS_RUN, [XP_T_OBJFILES] = XP_RS_OBJFILE,
		[XP_T_PROCS] = XP_RS_PROC, [XP_T_STATS] = XP_RS_STAT,
		[XP_T_COUNTERS] = XP_RS_COUNTER, [XP_T_VPS] = XP_RS_VP,
		[XP_T_VPVALS] = XP_RS_VPVAL, [XP_T_BLOCKS] = XP_RS_BLOCK,
		[XP_T_EDGES] = XP_RS_EDGE, [XP_T_TUPLES] = XP_RS_TUPLE,
		[XP_T_PROGRAMS] = XP_RS_PROGRAM, [XP_T_OBJREFS] = XP_RS_OBJREF,
		[XP_T_COMDATS] = XP_RS_COMDAT, [XP_T_SRCFILES] = XP_RS_SRCFILE,
		[XP_T_SRCLINES] = XP_RS_SRCLINE,
		[XP_T_BLOCKREFS] = XP_RS_BLOCKREF,
		[XP_T_IDX_OBJFILES] = XP_RS_INDEX,
		[XP_T_IDX_PROCS] = XP_RS_INDEX,
		[XP_T_IDX_PROGRAMS] = XP_RS_INDEX,
		[XP_T_IDX_SRCFILES] = XP_RS_INDEX,
	};
	return size[t];
}

/* Allocates an empty profile with no tables. */
xp_fb *xp_fb_alloc(xp_datatype type, unsigned minor, uint32_t n_proc_names);

/* xp_fbb_intern() for a caller whose strings are names by construction
 * (at least one byte, none of the bytes it refuses): the feedback text
 * parser's fields. */
xp_err xp_fbb_intern_word(xp_fbb *b, const char *s, size_t len, xp_str *out);

/*
 * Appends the records of src, a builder of the same data type, version
 * and header, to b's, as if b had been given them after its own; src is
 * left holding its records in b's terms, to be freed.  With map, *map
 * (the caller frees it) gets src's string ids as b's.  Sections stay
 * open in neither.  The feedback text parser joins the parts it parsed on
 * threads with it.
 */
xp_err xp_fbb_append(xp_fbb *b, xp_fbb *src, uint32_t **map);

/* Record i of table t.  An empty table has no storage (NULL), and no
 * arithmetic is done on it, not even adding 0, which C leaves undefined. */
static inline const unsigned char *xp_rec(const xp_fb *fb, xp_table t,
                                          uint32_t i)
{
	const unsigned char *base = fb->tab[t];

	return base != NULL ? base + (size_t)i * xp_recsize(t) : base;
}

/* The object file whose path is string id path, found through the
 * object file index (by path id, as the writers sort it), or UINT32_MAX
 * (model.c). */
uint32_t xp_fb_objfile_by_path(const xp_fb *fb, xp_str path);

/* ------------------------------------------------------------------ */
/* Diagnostics (internal side)                                         */
/* ------------------------------------------------------------------ */

/*
 * Adds a text diagnostic.  line_text/line_len give the source line (no
 * newline needed; a trailing newline or CR is dropped).  Returns the code
 * so that callers can write `return xp_diag_text(...)`.
 */
xp_err xp_diag_text(xp_diags *d, xp_err code, const char *file,
                    uint32_t line, uint32_t col, uint64_t line_off,
                    const char *line_text, size_t line_len,
                    const char *fmt, ...)
	__attribute__((format(printf, 9, 10)));
/* Adds a binary diagnostic at a byte offset. */
xp_err xp_diag_bin(xp_diags *d, xp_err code, const char *file,
                   uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* xp_diag_bin with the arguments of fmt as a va_list. */
xp_err xp_diag_vbin(xp_diags *d, xp_err code, const char *file,
                    uint64_t offset, const char *fmt, va_list ap)
	__attribute__((format(printf, 5, 0)));
/* Adds a warning with no position ("prog: file: warning: msg"). */
void xp_diag_warn(xp_diags *d, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Adds copies of every diagnostic of src to dst (its cap applying). */
void xp_diags_append(xp_diags *dst, const xp_diags *src);
/* Adds a diagnostic with no position ("prog: file: msg"). */
xp_err xp_diag_file(xp_diags *d, xp_err code, const char *file,
                    const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* ------------------------------------------------------------------ */
/* Buffered output                                                     */
/* ------------------------------------------------------------------ */

/*
 * A buffered writer to a file descriptor or to memory.  Bytes are staged in
 * buf and flushed to the fd (or appended to mem) when it fills.  Errors are
 * sticky: after the first failure every call does nothing and
 * xp_wbuf_close() reports it.  While crc_on is set, crc accumulates the
 * CRC-32C of every byte written.
 */
typedef struct {
	int fd;              /* -1: writing to mem */
	struct xp_wbuf_async *async;  /* writing behind (wbuf.c), or NULL */
	xp_buf mem;
	unsigned char *buf;
	size_t len, cap;
	xp_err err;
	int saved_errno;
	uint64_t total;      /* bytes written so far, staged ones included */
	int crc_on;
	uint32_t crc;
} xp_wbuf;

xp_err xp_wbuf_init_fd(xp_wbuf *w, int fd);
xp_err xp_wbuf_init_mem(xp_wbuf *w);
void xp_wbuf_write(xp_wbuf *w, const void *p, size_t n);
/* Makes room for n <= XP_WBUF_MAXRES bytes; NULL after an error. */
unsigned char *xp_wbuf_reserve_slow(xp_wbuf *w, size_t n);
xp_err xp_wbuf_flush(xp_wbuf *w);
/* Flushes; for memory targets hands over the bytes (*mem, *len). */
xp_err xp_wbuf_close(xp_wbuf *w, unsigned char **mem, size_t *len);
/* Releases everything without flushing (after an error). */
void xp_wbuf_discard(xp_wbuf *w);

#define XP_WBUF_MAXRES 8192

/*
 * A window on a file read with pread(2) into a buffer of the caller's:
 * xp_win_get() gives bytes [from, to) of the file, reading what the
 * buffer does not hold yet.  Made for reading a file front to back, in
 * pieces much smaller than the buffer: bytes already read at the end of
 * the buffer move to its start instead of being read again.  Nothing is
 * mapped, so a file read this way adds nothing to the memory of the
 * process and costs no page faults.
 */
typedef struct {
	int fd;
	unsigned char *buf;
	size_t cap;
	uint64_t start, end;  /* the file's bytes the buffer holds */
	int err;              /* errno of a failed read, or -1 when the file
	                         ended before the bytes asked for */
} xp_win;

static inline void xp_win_init(xp_win *w, int fd, unsigned char *buf,
                               size_t cap)
{
	w->fd = fd;
	w->buf = buf;
	w->cap = cap;
	w->start = w->end = 0;
	w->err = 0;
}

/* Bytes [from, to) of the file (to - from <= cap); NULL, with w->err
 * set, when they cannot be read. */
const unsigned char *xp_win_get_slow(xp_win *w, uint64_t from, uint64_t to);

static inline const unsigned char *xp_win_get(xp_win *w, uint64_t from,
                                              uint64_t to)
{
	if (from >= w->start && to <= w->end)
		return w->buf + (from - w->start);
	return xp_win_get_slow(w, from, to);
}

/* CRC-32C (Castagnoli), continued from crc (start with 0). */
uint32_t xp_crc32c(uint32_t crc, const void *p, size_t n);
/* A count of bytes and their CRC-32C, taken as they are read. */
typedef struct {
	uint64_t len;
	uint32_t crc;
} xp_bytesum;

/* The plain CRC-32C register (no initial value, no final xor) reg,
 * advanced over n zero bytes. */
uint32_t xp_crc32c_zeros(uint32_t reg, uint64_t n);
/*
 * crc is the CRC-32C of len bytes in which the four bytes at `at` are
 * zero; returns the CRC-32C of the same bytes with field (little-endian)
 * there instead, without reading them again.  (A database's checksum is
 * taken with its own field zero; this gives the checksum of the file.)
 */
uint32_t xp_crc32c_with_field(uint32_t crc, uint64_t len, uint64_t at,
                              uint32_t field);

static inline unsigned char *xp_wbuf_reserve(xp_wbuf *w, size_t n)
{
	if (w->cap - w->len >= n && w->err == XP_E_OK)
		return w->buf + w->len;
	return xp_wbuf_reserve_slow(w, n);
}

/* Commits n bytes written into the space xp_wbuf_reserve() returned. */
static inline void xp_wbuf_commit(xp_wbuf *w, size_t n)
{
	if (w->crc_on)
		w->crc = xp_crc32c(w->crc, w->buf + w->len, n);
	w->len += n;
	w->total += n;
}

/* ------------------------------------------------------------------ */
/* Symbols                                                             */
/* ------------------------------------------------------------------ */

/*
 * y's name where it lies in the ELF string table of s (a copy held by
 * s), or NULL when that is not known (not ELF, a dynamic table, a name
 * that does not match).  The string table's own bytes follow the name,
 * then two NULs after its end, so a reader may go on past the name's
 * NUL into the next strings, as GNU gprof does, until it meets an empty
 * string.
 */
const char *xp_sym_strtab_name(const xp_sym *s, const xp_symbol *y);
/*
 * xp_sym_lookup for addresses looked up one after the other: *at (0 at
 * first) keeps where the last one was found.  Any order gives the same
 * answers; ascending addresses cost a few steps each.
 */
const xp_symbol *xp_sym_lookup_next(const xp_sym *s, size_t *at,
                                    uint64_t addr);
/*
 * The contents of the object at addr in memory, for reading many
 * addresses without a call each: the bytes of the addresses [*lo, *hi),
 * which hold addr, and which xp_sym_read reads as they are here.  NULL
 * when xp_sym_read would read no bytes at addr, or would read them from
 * the file (which is then not mapped).
 */
const unsigned char *xp_sym_span(const xp_sym *s, uint64_t addr,
                                 uint64_t *lo, uint64_t *hi);
/*
 * name demangled as binutils' nm --demangle and addr2line -C print it
 * (parameters included), malloc'd; NULL when it is not a mangled name.
 */
char *xp_sym_demangle(const xp_sym *s, const char *name);
/*
 * y as `nm --demangle` prints it, malloc'd: the demangled name, then
 * "@@VERSION" (or "@VERSION" when hidden) for a versioned dynamic
 * symbol; *cls is nm's class letter ('T', 't', 'D'...).  NULL with *cls
 * 0 for symbols nm does not list (debugging and section symbols), NULL
 * with *cls set when out of memory.
 */
char *xp_sym_nm_name(const xp_sym *s, const xp_symbol *y, int *cls);
/*
 * The functions of s's text, by address, as the conversions to feedback
 * list them (symbolize/functions.c gives the rule): *out, which the
 * caller frees, gets *n pointers to symbols of s.
 */
xp_err xp_sym_functions(const xp_sym *s, const xp_symbol ***out, size_t *n);

/* ------------------------------------------------------------------ */
/* Procedure names of the conversions (feedback/procname.c)            */
/* ------------------------------------------------------------------ */

/* name as a procedure name by the conversions' rule (xprof_text(5),
 * NAMES FROM OTHER FORMATS: xp_fbb_intern_proc), malloc'd; NULL when
 * out of memory. */
char *xp_fb_proc_escape(const char *name);
/* "name@0x<address>", malloc'd; NULL when out of memory. */
char *xp_fb_name_at(const char *name, uint64_t addr);
/*
 * Names n procedures of one object file apart, names[i] (their linker
 * names) at addrs[i]: out[i] gets NULL where names[i] is unique, else,
 * for all but the first by address of the procedures of one name,
 * xp_fb_name_at() (malloc'd; the caller frees every out[i]).
 */
xp_err xp_fb_names_apart(const char *const *names, const uint64_t *addrs,
                         size_t n, char **out);

/* ------------------------------------------------------------------ */
/* Number formatting                                                   */
/* ------------------------------------------------------------------ */

/*
 * The eight decimal digits of v < 10^8 (leading zeros included), one a
 * byte, the first digit in the lowest byte: the halves, quarters and
 * eighths of the number are split in all lanes of one 64-bit word at
 * once, dividing by 10^4, 100 and 10 with multiplications that are exact
 * in these ranges (v / 100 = v * 5243 >> 19 for v < 10^4, v / 10 =
 * v * 103 >> 10 for v < 100).
 */
static inline uint64_t xp_digits8(uint32_t v)
{
	uint64_t x = v / 10000 | (uint64_t)(v % 10000) << 32;
	uint64_t hi = (x * 5243 >> 19) & 0x0000007f0000007fu;
	x = hi | (x - hi * 100) << 16;
	hi = (x * 103 >> 10) & 0x000f000f000f000fu;
	return hi | (x - hi * 10) << 8;
}

/*
 * Writes v < 10^8 in decimal at p (no leading zeros; "0" for 0) and
 * returns the number of digits; the eight bytes at p are written.
 */
static inline size_t xp_fmt_upto8(char *p, uint32_t v)
{
	uint64_t x = xp_digits8(v);
	/* The first nonzero digit, or the last one when all are zero. */
	unsigned lead = (unsigned)__builtin_ctzll(x | 1ull << 56) & ~7u;

	xp_put_le64((unsigned char *)p, (x >> lead) + 0x3030303030303030u);
	return 8 - lead / 8;
}

/* Numbers of 10^8 and above (base/numfmt.c). */
size_t xp_fmt_u64_big(char *p, uint64_t v);

/*
 * The numbers below 1000 in decimal, one a word: its digits in the low
 * bytes, the first lowest, and their number in the high byte.
 */
extern const uint32_t xp_digits3[1000];

/*
 * Writes v in decimal at p (no NUL); returns the number of bytes (<=20).
 * The bytes after the number, up to the eighth from p, may be written
 * too: p needs room for 20 bytes whatever v is.  Inline, and without
 * branches on the number of digits of the numbers most common in profile
 * texts (below 1000, looked up): writing text is dominated by numbers.
 */
static inline size_t xp_fmt_u64(char *p, uint64_t v)
{
	if (v < 1000) {
		uint32_t e = xp_digits3[v];
		xp_put_le32((unsigned char *)p, e);
		return e >> 24;
	}
	return v < 100000000 ? xp_fmt_upto8(p, (uint32_t)v)
	                     : xp_fmt_u64_big(p, v);
}
/* Lower-case hexadecimal, no prefix, no leading zeros (<=16 bytes). */
size_t xp_fmt_hex64(char *p, uint64_t v);
/* Signed decimal (<=20 bytes; p needs room for 21, as for xp_fmt_u64). */
size_t xp_fmt_i64(char *p, int64_t v);
/*
 * The shortest decimal text (printf %g style) that reads back to exactly
 * the same float/double; "inf", "-inf", "nan", "-nan" for the specials.
 * buf must hold 40 bytes; returns the length.
 */
size_t xp_fmt_float(char *p, float v);
size_t xp_fmt_double(char *p, double v);
/*
 * v (0 to 1) with d decimals (1 to 17), NUL-terminated, as printf's
 * "%.*f" gives it in the "C" locale; returns the length (d + 2).  v is
 * m * 2^-s exactly (m below 2^53), so v * 10^d is the integer m * 10^d
 * shifted right by s, rounded half to even on the bits shifted out:
 * printf's rounding of the exact binary value.
 */
size_t xp_fmt_fixed01(char *p, double v, int d);
/*
 * Parses such text (also any form scanf %g accepts: leading sign,
 * exponent, hex floats, inf/infinity/nan in any case) without depending
 * on the locale.  Returns 0 on success, 1 if the value overflows the
 * type, -1 if the text is not a number.
 */
int xp_parse_float(const char *s, size_t len, float *out);
int xp_parse_double(const char *s, size_t len, double *out);

#endif /* XPROF_INTERNAL_H */
