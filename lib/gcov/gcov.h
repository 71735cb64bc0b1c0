/*
 * gcov/gcov.h - what the files of the GCC coverage module (module.c,
 * layout.c, text.c, merge.c, feedback.c, from_feedback.c) share.
 */
#ifndef XP_GCOV_INT_H
#define XP_GCOV_INT_H

#include "registry/module.h"
#include "base/rd.h"
#include "xprof_gcov.h"

#define XP_GCOV_MAGIC_NOTES 0x67636e6fu  /* "gcno" */
#define XP_GCOV_MAGIC_DATA 0x67636461u   /* "gcda" */

#define XP_GCOV_TAG_FUNCTION 0x01000000u
#define XP_GCOV_TAG_BLOCKS 0x01410000u
#define XP_GCOV_TAG_ARCS 0x01430000u
#define XP_GCOV_TAG_LINES 0x01450000u
#define XP_GCOV_TAG_COUNTER_BASE 0x01a10000u
#define XP_GCOV_TAG_SUMMARY 0xa1000000u
#define XP_GCOV_TAG_COUNTER(k) (XP_GCOV_TAG_COUNTER_BASE + ((uint32_t)(k) << 17))

/* How a counter kind merges (libgcov's merge functions). */
typedef enum {
	XP_GCOV_M_ADD,      /* __gcov_merge_add: sums */
	XP_GCOV_M_TOPN,     /* __gcov_merge_topn: the most common values */
	XP_GCOV_M_IOR,      /* __gcov_merge_ior: bitwise or */
	XP_GCOV_M_TIME      /* __gcov_merge_time_profile: first visit */
} xp_gcov_mergefn;

typedef struct {
	const char *name;
	xp_gcov_mergefn merge;
} xp_gcov_ctrdesc;

/*
 * The layout of one GCC release's files (layout.c): what changed from
 * release to release, as a table, so that adding a release is adding a
 * row.
 */
typedef struct {
	unsigned major;           /* 12 */
	int bytes;                /* record lengths and strings count bytes
	                             (GCC 12 on); before, 4-byte words,
	                             strings padded to a word */
	int checksum;             /* a checksum word follows the stamp */
	int end_column;           /* FUNCTION notes end with the end column */
	unsigned n_counters;
	const xp_gcov_ctrdesc *counters;
	unsigned topn_max;        /* GCOV_TOPN_MAXIMUM_TRACKED_VALUES */
} xp_gcov_layout;

/* The layout of a version word; NULL for releases this program does not
 * read.  *major and *minor get the release the word names (0 and 0 when
 * it names none). */
const xp_gcov_layout *xp_gcov_layout_of(uint32_t version, unsigned *major,
                                        unsigned *minor);
/* "11 and 12": the releases there are layouts for. */
const char *xp_gcov_releases(void);

/* The kind of record a tag is in a file of kind k (module.c). */
xp_gcov_rectype xp_gcov_rectype_of(const xp_gcov_layout *lay,
                                   xp_gcov_kind k, uint32_t tag);

/* The model (module.c). */
xp_gcov *xp_gcov_new(xp_gcov_kind kind, int big, uint32_t version);
void xp_gcov_free(xp_gcov *g);
/* A copy of s (n bytes) owned by g, NUL-terminated. */
const char *xp_gcov_strdup(xp_gcov *g, const char *s, size_t n);
/* Appending: each returns XP_E_NOMEM or XP_E_OK; *out the index. */
xp_err xp_gcov_add_rec(xp_gcov *g, const xp_gcov_rec *r);
xp_err xp_gcov_add_fn(xp_gcov *g, const xp_gcov_fn *f, size_t *out);
xp_err xp_gcov_add_arc(xp_gcov *g, const xp_gcov_arc *a);
xp_err xp_gcov_add_item(xp_gcov *g, const xp_gcov_item *it);
xp_err xp_gcov_add_value(xp_gcov *g, uint64_t v);
xp_err xp_gcov_add_raw(xp_gcov *g, const unsigned char *p, size_t n);
/* The layout of g (known: only such models are made). */
const xp_gcov_layout *xp_gcov_layout_get(const xp_gcov *g);
/* The file name of the other kind beside path (".gcda" for ".gcno"):
 * malloc'd, NULL when out of memory or path has no such suffix. */
char *xp_gcov_sibling(const char *path, xp_gcov_kind want);

/* The name a function's procedure has in feedback before the escape of
 * xp_fbb_intern_proc: its linker name, or "ident.N" without one (in buf).
 * (feedback.c) */
const char *xp_gcov_fn_name(const xp_gcov_fn *fn, char buf[32]);
/*
 * Where the notes of data file dpath are (feedback.c): where itself when
 * it names no directory (a notes file); in the directory where, the file
 * of dpath's base name with .gcno, or with rel first that of dpath's
 * relative path when there is one; without where, beside dpath.  *out is
 * malloc'd.  XP_E_INVAL, naming dpath, when the notes are not given and
 * its name does not end in .gcda.
 */
xp_err xp_gcov_find_notes(const char *dpath, const char *where, int rel,
                          char **out, xp_diags *d);
/* Opens path, which must be a GCC file of kind want: *p, its model *g. */
xp_err xp_gcov_open_kind(const char *path, xp_gcov_kind want, xp_prof **p,
                         const xp_gcov **g, xp_diags *d);

/* The text form (text.c). */
int xp_gcov_detect_text(const unsigned char *head, size_t len);
xp_err xp_gcov_read_text(const unsigned char *buf, size_t len,
                         const char *name, const xp_load_opts *o,
                         void **out, xp_diags *d);
xp_err xp_gcov_write_text(const void *m, xp_wbuf *w);

/* Merging (merge.c) and conversion to feedback (feedback.c). */
xp_err xp_gcov_merge(void **acc, const void *in, double weight,
                     const xp_prof_merge_opts *o, const char *name,
                     xp_diags *d);
xp_err xp_gcov_to_feedback(const void *m, const xp_conv_opts *o,
                           xp_fb **out, xp_diags *d);

/*
 * The flow graphs of a notes file with the counts of a data file, solved,
 * and gcov's line counts (graph.c).
 */
typedef struct {
	uint32_t src, dst, flags;
	uint32_t counter;      /* 1.. in counter order; 0: on the tree */
	size_t order;          /* its place in the notes */
	int64_t count, cs;     /* cs: what the search for loops leaves */
	int valid;
} xp_gcov_garc;

typedef struct {
	int64_t count;
	int valid;
	int64_t nsucc, npred;  /* arcs not yet known */
	size_t succ0, nsuccs;  /* its arcs out: succ[succ0 ..], by dest */
	size_t pred0, npreds;  /* its arcs in: pred[pred0 ..], notes order */
} xp_gcov_gblk;

/* A block location: lines store[first .. + n) (sorted) of source src. */
typedef struct {
	uint32_t block;
	size_t src, first, n;
} xp_gcov_loc;

typedef struct {
	const xp_gcov_fn *fn;  /* its FUNCTION note */
	size_t src;            /* its source file */
	uint32_t nb;
	xp_gcov_gblk *blk;
	xp_gcov_garc *arc;     /* by source block, then notes order */
	size_t na, nctr;
	size_t *succ, *pred;
	xp_gcov_loc *loc;      /* by block */
	size_t n_loc, cap_loc;
	int lines;             /* gcov reports its lines */
	uint32_t blocks_executed;
} xp_gcov_gfn;

typedef struct {
	uint32_t fn, blk;
} xp_gcov_bref;

typedef struct {
	int64_t count;
	int exists;
	uint32_t owner;        /* 1 + the first function with the line */
	xp_gcov_bref *blocks;  /* the blocks listed on it */
	size_t n_blocks, cap;
} xp_gcov_line;

typedef struct {
	const char *name;
	xp_gcov_line *lines;   /* by line number */
	size_t n_lines;
} xp_gcov_src;

typedef struct {
	const xp_gcov *notes, *data;  /* data: NULL when there is none */
	xp_gcov_gfn *fns;
	size_t n_fns;
	xp_gcov_src *srcs;
	size_t n_srcs, cap_srcs;
	uint32_t *store;       /* the lines of the locations */
} xp_gcov_graph;

/* The graphs of notes with the counts of data (NULL: none, all counts
 * zero), solved, with the line counts; nname and dname name the files in
 * diagnostics.  XP_E_INVAL for data whose functions are not the notes'. */
xp_err xp_gcov_graph_new(const xp_gcov *notes, const xp_gcov *data,
                         const char *nname, const char *dname,
                         xp_gcov_graph **out, xp_diags *d);
void xp_gcov_graph_free(xp_gcov_graph *gr);

#endif
