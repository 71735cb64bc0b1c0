/*
 * xprof_gmon.h - the model of a GNU gprof gmon.out file (gmon(5)), and
 * the analysis of it that gprof makes with an executable's symbols: the
 * flat profile and the call graph.
 *
 * xp_prof_model() of a profile whose xp_prof_format() is XP_FMT_GMON
 * points to an xp_gmon.  The model keeps every record in file order with
 * every byte of the file that carries information (header spare bytes,
 * the histogram's dimension bytes past its NUL, trailing bytes of an old
 * BSD file), so that writing it back gives the same bytes.
 */
#ifndef XPROF_GMON_H
#define XPROF_GMON_H

#include <stddef.h>
#include <stdint.h>

#include "xprof.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The three kinds of file gprof reads. */
typedef enum {
	XP_GMON_GNU = 0,   /* "gmon" magic, version, tagged records */
	XP_GMON_BSD = 1,   /* old BSD: low_pc, high_pc, ncnt; bins; arcs */
	XP_GMON_BSD44 = 2  /* 4.4BSD: the same with version and rate */
} xp_gmon_flavor;

/* Record kinds: the tags of the GNU format. */
typedef enum {
	XP_GMON_HIST = 0,
	XP_GMON_ARC = 1,
	XP_GMON_BB = 2
} xp_gmon_rectype;

/* A histogram record: n_bins 16-bit sample counts spread evenly over
 * [low_pc, high_pc). */
typedef struct {
	uint64_t low_pc, high_pc;
	uint32_t prof_rate;           /* samples per second; BSD: 0 */
	unsigned char dimen[15];      /* "seconds", NUL padded, kept raw */
	unsigned char abbrev;         /* 's' */
	uint32_t n_bins;
	uint16_t *bins;
} xp_gmon_hist;

/* A call-graph arc: from_pc lies in the caller, self_pc in the callee. */
typedef struct {
	uint64_t from_pc, self_pc;
	uint64_t count;   /* 32 bits in GNU files, a word in BSD files */
} xp_gmon_arc;

/* One basic-block count (GNU tag 2 records hold any number). */
typedef struct {
	uint64_t addr, count;         /* both address-sized in the file */
} xp_gmon_bb;

/* A record in file order: hists[index], arcs[index], or the n block
 * counts bbs[index .. index + n). */
typedef struct {
	xp_gmon_rectype type;
	size_t index;
	size_t n;
} xp_gmon_rec;

typedef struct xp_gmon {
	xp_gmon_flavor flavor;
	int big;                  /* big-endian words */
	unsigned addr_bytes;      /* 4 or 8 */
	uint32_t version;         /* GNU: the header's; BSD44: 0x51879 */
	unsigned char spare[12];  /* GNU and BSD44 header spare bytes */
	uint32_t ncnt;            /* BSD, BSD44: the header's byte count */
	xp_gmon_rec *recs;
	size_t n_recs;
	xp_gmon_hist *hists;
	size_t n_hists;
	xp_gmon_arc *arcs;
	size_t n_arcs;
	xp_gmon_bb *bbs;
	size_t n_bbs;
	unsigned char *trailing;  /* BSD: bytes after the last whole arc */
	size_t n_trailing;
} xp_gmon;

/* Bytes of the old BSD headers (gprof's GMON_HDRSIZE_*). */
#define XP_GMON_BSD_HDR(addr_bytes) (2u * (addr_bytes) + 4u)
#define XP_GMON_BSD44_HDR(addr_bytes) (2u * (addr_bytes) + 24u)
#define XP_GMON_BSD44_VERSION 0x00051879u

/*
 * Parses a layout string of gmon(5): "le32", "le64", "be32" or "be64".
 * Returns 0 and sets *big and *addr_bytes, or -1.
 */
int xp_gmon_parse_layout(const char *s, int *big, unsigned *addr_bytes);

/* ------------------------------------------------------------------ */
/* What gprof makes of a profile                                       */
/* ------------------------------------------------------------------ */

/*
 * One entry of gprof's symbol table.  Times are in samples (divide by
 * the analysis's hz for seconds); the fields follow gprof's names.
 */
typedef struct {
	const char *name;         /* the linker's (mangled, for C++): the
	                             name gprof sorts by */
	/* The name gprof prints by default, demangled by libbfd as gprof
	 * does (bfd_demangle, DMGL_PARAMS | DMGL_ANSI: "ns::f(long)"), or
	 * NULL when name is no mangled name or the function appears nowhere
	 * in the report (no calls, samples or arcs).  The analysis owns it. */
	char *demangled;
	const char *file;         /* source file (base name) of a static
	                             function, or NULL */
	uint64_t addr, end;       /* [addr, end], as gprof looks up arcs */
	int is_static, is_func;
	int excluded;             /* gprof's default exclusions (mcount...) */
	double samples;           /* histogram samples credited to it */
	uint64_t ncalls;          /* calls from other functions */
	uint64_t self_calls;      /* recursive calls */
	double child_time;        /* time of its descendants */
	double prop_self, prop_child, prop_fract;
	uint32_t cycle;           /* number of its cycle, or 0 */
	uint32_t index;           /* call graph index (1-based) */
	int print_flag;
	size_t first_parent, n_parents;   /* into parent_arcs, print order */
	size_t first_child, n_children;   /* into child_arcs, print order */
} xp_gmon_fn;

/* An arc between two entries of the symbol table, summed over sites. */
typedef struct {
	size_t parent, child;     /* indexes into fns */
	uint64_t count;
	double time, child_time;  /* the shares propagated along it */
} xp_gmon_farc;

/* A cycle of the call graph ("<cycle N as a whole>"). */
typedef struct {
	uint32_t number, index;
	uint64_t ncalls, self_calls;
	double samples, prop_self, prop_child, prop_fract;
	int print_flag;
	size_t first_member, n_members;   /* into members, print order */
} xp_gmon_cycle;

/* An entry of the call graph: a function or a cycle. */
typedef struct {
	int is_cycle;
	size_t i;                 /* into fns or cycles */
} xp_gmon_entry;

typedef struct {
	xp_gmon_fn *fns;          /* gprof's symbol table, by address */
	size_t n_fns;
	xp_gmon_farc *arcs;
	size_t n_arcs;
	size_t *parent_arcs, *child_arcs;
	xp_gmon_cycle *cycles;
	size_t n_cycles;
	size_t *members;
	xp_gmon_entry *order;     /* by call graph index */
	size_t n_order;
	size_t *flat;             /* the flat profile's lines, in order */
	size_t n_flat;
	double total_time;        /* samples the flat profile counts */
	double print_time;        /* samples the call graph counts */
	double hz;                /* samples per second */
	double hist_scale;        /* gprof's: 2-byte units per bin */
	char dimen[16];           /* "seconds" */
	char abbrev;              /* 's' */
	int has_hist, has_arcs;
} xp_gmon_analysis;

/*
 * Does what gprof does with a profile and its executable: builds its
 * symbol table from sym (its rules for which symbols are functions),
 * credits histogram bins to functions the way gprof splits them, tallies
 * arcs, finds cycles, propagates times and orders everything as gprof
 * prints it.  For a PIE, the profile's addresses are load-relative like
 * the file's symbols.  Histograms that gprof would refuse together
 * (different rates, dimensions, scales; overlapping ranges) give
 * XP_E_INVAL.  *out is the caller's, to free with xp_gmon_analysis_free.
 * sym is not const: source files are looked up through it.
 */
xp_err xp_gmon_analyze(const xp_gmon *g, xp_sym *sym, const char *name,
                       xp_gmon_analysis **out, xp_diags *d);
void xp_gmon_analysis_free(xp_gmon_analysis *a);
/* xp_prof_report() of a gmon.out computes the same analysis with the
 * executable of xp_report_opts.exe (required; per-line reports, orders
 * by counts and stack depths are not gprof's and are refused; the call
 * graph is always there), and xp_report_model() returns the
 * xp_gmon_analysis. */

#ifdef __cplusplus
}
#endif

#endif /* XPROF_GMON_H */
