/*
 * export/xs.h - what the exports (folded stacks, callgrind, pprof's
 * profile.proto; xprof_export.h) are written from: a profile of any
 * format as samples over call stacks of locations, and call arcs.
 *
 * Each format builds one (the module's export entry, registry/module.h;
 * feedback/export.c for feedback) from what its own report computes, so
 * that every export names functions as that report does; the writers
 * (folded.c, callgrind.c, pprof.c) know no format.
 *
 * A location is a code address (CPU profiles) or a function (the other
 * formats): one or more lines, each a function at a source line, the
 * innermost first (calls inlined there), the last the function holding
 * the code.  A sample is a stack of locations, the leaf first, with one
 * value per sample type.  An arc is a call from one location to another
 * with its count and the cost that went through it (gprof's graph).
 */
#ifndef XP_EXPORT_XS_H
#define XP_EXPORT_XS_H

#include "base/internal.h"
#include "xprof_export.h"

/* The most sample types a profile has. */
#define XP_XS_MAXV 4
/* No string. */
#define XP_XS_NONE UINT32_MAX

typedef struct {
	uint32_t name;     /* the function as the format's report names it */
	uint32_t full;     /* as the real tool's folded stacks name it
	                    * (google-pprof --collapsed), or XP_XS_NONE: name */
	uint32_t file;     /* source file, or XP_XS_NONE */
	uint32_t line;     /* 0: unknown */
} xp_xs_line;

typedef struct {
	uint64_t addr;     /* 0: none */
	uint32_t obj;      /* the object file, or XP_XS_NONE */
	size_t first, n;   /* lines [first, first + n), n >= 1 */
} xp_xs_loc;

typedef struct {
	size_t first, n;   /* stack [first, first + n): locations, leaf first */
	uint64_t v[XP_XS_MAXV];
} xp_xs_sample;

typedef struct {
	size_t caller, callee;      /* locations */
	uint64_t calls;
	uint64_t v[XP_XS_MAXV];     /* the cost that went through it */
} xp_xs_arc;

/* A mapped object (CPU profiles): where it was, for pprof. */
typedef struct {
	uint64_t start, limit, offset;
	uint32_t file;
} xp_xs_map;

typedef struct xp_xs {
	xp_strpool sp;
	unsigned nv;                         /* sample types */
	const char *vtype[XP_XS_MAXV];       /* "samples", "alloc_space" */
	const char *vunit[XP_XS_MAXV];       /* "count", "bytes" */
	const char *vevent[XP_XS_MAXV];      /* callgrind's event name */
	unsigned main;                       /* the value folded stacks give */
	const char *ptype, *punit;           /* pprof's period type, or NULL */
	uint64_t period;
	int stacks;        /* samples are whole call stacks */
	const char *what;  /* for refusals: "a DCPI profile" */
	xp_xs_line *ln;
	size_t nln, lncap;
	xp_xs_loc *loc;
	size_t nloc, loccap;
	size_t *stk;
	size_t nstk, stkcap;
	xp_xs_sample *s;
	size_t ns, scap;
	xp_xs_arc *arc;
	size_t narc, arccap;
	xp_xs_map *map;
	size_t nmap, mapcap;
	/* Per location: its mapping + 1, or 0 (set by the builder). */
	size_t *locmap;
} xp_xs;

/* A zeroed xp_xs is empty; this frees what it holds and zeroes it. */
void xp_xs_free(xp_xs *x);
/* The id of s (NULL: XP_XS_NONE). */
xp_err xp_xs_str(xp_xs *x, const char *s, uint32_t *id);
/* Sets sample type i. */
void xp_xs_type(xp_xs *x, unsigned i, const char *type, const char *unit,
                const char *event);
/* A new location with n lines (copied), innermost first; *out its
 * index. */
xp_err xp_xs_loc_add(xp_xs *x, uint64_t addr, uint32_t obj,
                     const xp_xs_line *lines, size_t n, size_t *out);
/* The location of a function (one line, no address). */
xp_err xp_xs_func(xp_xs *x, const char *name, const char *file,
                  uint32_t line, const char *obj, size_t *out);
/* A sample over locs[0..n), leaf first, with x->nv values. */
xp_err xp_xs_sample_add(xp_xs *x, const size_t *locs, size_t n,
                        const uint64_t *v);
xp_err xp_xs_arc_add(xp_xs *x, size_t caller, size_t callee,
                     uint64_t calls, const uint64_t *v);
/* A mapped object; *out its index. */
xp_err xp_xs_map_add(xp_xs *x, uint64_t start, uint64_t limit,
                     uint64_t offset, const char *file, size_t *out);
/* Location loc lies in mapping m (every location added before). */
xp_err xp_xs_loc_map(xp_xs *x, size_t loc, size_t m);

static inline const char *xp_xs_s(const xp_xs *x, uint32_t id)
{
	return id == XP_XS_NONE ? NULL : xp_strpool_str(&x->sp, id);
}

/* Rounds the n non-negative shares in w to integers that sum to the
 * rounded sum of all (largest remainders first, ties to the lower
 * index), into out. */
xp_err xp_xs_round(const double *w, size_t n, uint64_t *out);

/* A feedback profile's counts (feedback/export.c), as sample type
 * (type, unit, event). */
xp_err xp_fb_export(const xp_fb *fb, const char *type, const char *unit,
                    const char *event, xp_xs *x);

/* The refusal of folded stacks for a profile (what: "a DCPI profile")
 * that has no call stacks. */
xp_err xp_xs_no_stacks(const char *what, const char *name, xp_diags *d);

/* The writers: each appends the whole export to w, or refuses (with a
 * diagnostic naming name) what x has no data for. */
xp_err xp_xs_folded(const xp_xs *x, const char *name, xp_wbuf *w,
                    xp_diags *d);
xp_err xp_xs_callgrind(const xp_xs *x, const char *name, xp_wbuf *w,
                       xp_diags *d);
xp_err xp_xs_pprof(const xp_xs *x, const char *name, xp_wbuf *w,
                   xp_diags *d);

#endif
