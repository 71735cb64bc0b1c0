/*
 * xprof_mpatrol.h - the model of an mpatrol allocation profile (the MPTL
 * file that the mpatrol library writes and mprof reads), as
 * xp_prof_model() returns it for XP_FMT_MPATROL and XP_FMT_MPATROL_TEXT,
 * and mprof's report on it (xp_mpatrol_report, also what xp_prof_report()
 * gives).  mpatrol(5) describes the file, its text form, every rule the
 * reader keeps and the report.
 *
 * The model holds every field of the file in file order, so that writing
 * it back gives the same bytes.  A model returned by the library has been
 * checked: every index below is in range, call-site indices and
 * profiling-data indices are each a permutation of 1..n, the parent links
 * form no cycle, and every name offset is the start of a NUL-terminated
 * string inside the string table.  Callers only read it; it belongs to
 * the xp_prof it came from.
 */
#ifndef XPROF_MPATROL_H
#define XPROF_MPATROL_H

#include <stddef.h>
#include <stdint.h>

#include "xprof.h"

/* Sizes of allocations, by the bounds of the file (see bounds below). */
enum { XP_MPATROL_SMALL, XP_MPATROL_MEDIUM, XP_MPATROL_LARGE,
       XP_MPATROL_XLARGE };

/* One profiling data structure: what the call sites that refer to it
 * allocated and freed, by allocation size class. */
typedef struct {
	uint64_t index;       /* 1..ndata */
	uint64_t acount[4];   /* allocations */
	uint64_t atotal[4];   /* bytes allocated */
	uint64_t dcount[4];   /* deallocations */
	uint64_t dtotal[4];   /* bytes freed */
} xp_mpatrol_data;

/* One call site: a return address in a call stack that allocated. */
typedef struct {
	uint64_t index;       /* 1..nsites */
	uint64_t parent;      /* index of the caller's call site; 0: none */
	uint64_t addr;        /* code address */
	uint64_t symbol;      /* 1-based index into syms; 0: none */
	uint64_t name;        /* offset of the name in strtab; 0: none */
	uint64_t data;        /* index of its profiling data; 0: none */
} xp_mpatrol_site;

typedef struct {
	/* The layout: 4 or 8 bytes per integer and per pointer, and the
	 * byte order (1 big-endian). */
	unsigned int_size, ptr_size;
	int big_endian;
	uint64_t version;     /* of the mpatrol library: 10300 is 1.3.0 */
	/* 0 < small <= sbound < medium <= mbound < large <= lbound < xlarge */
	uint64_t sbound, mbound, lbound;
	/* Allocation bins: bin i counts allocations of i + 1 bytes; the last
	 * one counts every allocation of nbins bytes or more, whose bytes
	 * are atotals (dtotals for the deallocations). */
	size_t nbins;
	uint64_t *acounts, *dcounts;
	uint64_t atotals, dtotals;
	size_t ndata;
	xp_mpatrol_data *data;      /* file order */
	size_t nsites;
	xp_mpatrol_site *sites;     /* file order */
	size_t nsyms;
	uint64_t *syms;             /* symbol addresses */
	size_t strtab_len;
	char *strtab;               /* the symbol name string table */
	/* Positions in data[] and sites[] by index - 1. */
	size_t *data_pos, *site_pos;
} xp_mpatrol;

/* The most bins a profile may have (the arrays are allocated whole). */
#define XP_MPATROL_MAX_BINS ((size_t)1 << 24)

/* The call site with this index (1..nsites), or NULL for 0. */
const xp_mpatrol_site *xp_mpatrol_site_at(const xp_mpatrol *m,
                                          uint64_t index);
/* The profiling data of a call site, or NULL when it has none. */
const xp_mpatrol_data *xp_mpatrol_site_data(const xp_mpatrol *m,
                                            const xp_mpatrol_site *s);
/* The name of a call site's function, or NULL when it has none. */
const char *xp_mpatrol_site_name(const xp_mpatrol *m,
                                 const xp_mpatrol_site *s);
/* The address of its symbol; 0 when it has none. */
uint64_t xp_mpatrol_site_symaddr(const xp_mpatrol *m,
                                 const xp_mpatrol_site *s);

/* "be32", "le64", "le64p32", ... (see mpatrol(5), LAYOUTS). */
const char *xp_mpatrol_layout_name(const xp_mpatrol *m);

/* ------------------------------------------------------------------ */
/* The report (what mprof prints)                                      */
/* ------------------------------------------------------------------ */

/*
 * mprof's tables, computed as mprof computes them (mpatrol(5), REPORT):
 * the allocation bins, the direct allocations per function, the memory
 * leaks per call stack and the allocation call graph.  Call sites are
 * visited by address (ties in file order); sites of one function that
 * follow each other in that order make one row (with addresses, only
 * sites at one address do); each table is sorted by its key, descending,
 * the later made of two equal rows first (mprof's red-black trees put
 * equal keys to the right).
 *
 * A report holds copies of what it gives (names included): it stays
 * valid after the model it was made from is freed.  Functions are named
 * as mprof prints them: the symbol's name, with addresses "name+offset"
 * when the call site is not at the symbol's address, and "0x" and the
 * address in capitals, two digits per pointer byte, when it has no name.
 */
typedef struct xp_mpatrol_report xp_mpatrol_report;

typedef struct {
	/* Tell call sites of one function apart by address (mprof
	 * --addresses). */
	int addresses;
	/* Sort by counts instead of bytes (mprof --counts). */
	int counts;
	/* Build the allocation call graph (mprof --call-graph). */
	int call_graph;
	/* When stack_depth_given, the depth of the call stacks that tell
	 * leaks apart and are shown, 0 meaning whole stacks (mprof
	 * --stack-depth); otherwise mprof's default, 1. */
	int stack_depth_given;
	uint64_t stack_depth;
} xp_mpatrol_report_opts;

/* Counts and bytes by size class (XP_MPATROL_SMALL ... XLARGE), summed
 * over the call sites of a row: allocations (acount, atotal),
 * deallocations (dcount, dtotal) and what is left unfreed (ucount =
 * acount - dcount, utotal = atotal - dtotal, modulo 2^64 as mprof's
 * unsigned arithmetic). */
typedef struct {
	uint64_t acount[4], atotal[4];
	uint64_t dcount[4], dtotal[4];
	uint64_t ucount[4], utotal[4];
} xp_mpatrol_sums;

/* The totals of the allocation bins, which every table's total line and
 * percentages use (unfreed: allocated minus freed, modulo 2^64). */
typedef struct {
	uint64_t count, bytes;
	uint64_t unfreed_count, unfreed_bytes;
} xp_mpatrol_totals;

/* A bin that counted allocations: those of size bytes (or more, for the
 * last bin), with their bytes, and what is left of them unfreed. */
typedef struct {
	uint64_t size;
	int or_more;
	uint64_t count, bytes;
	uint64_t unfreed_count, unfreed_bytes;
} xp_mpatrol_bin;

/* A row of the direct allocation table: a function that allocated.
 * key is what the table is sorted by: the bytes allocated, or with
 * counts the allocations. */
typedef struct {
	const char *function;
	uint64_t site;        /* index of the row's first call site */
	uint64_t key;
	xp_mpatrol_sums sums;
} xp_mpatrol_direct;

/* A row of the memory leak table: a call stack that left memory
 * unfreed, the calls sites with that stack to the report's depth taken
 * together.  key is the unfreed bytes, or with counts the unfreed
 * allocations (never 0). */
typedef struct {
	/* The function that allocated, then its callers, depth names; as
	 * many as the report's stack depth, fewer when the stack ends. */
	const char *const *stack;
	size_t depth;
	uint64_t site;        /* index of the row's first call site */
	uint64_t key;
	xp_mpatrol_sums sums;
} xp_mpatrol_leak;

/* A vertex of the allocation call graph: a function (a call site's
 * symbol, or its address when it has no symbol or with addresses). */
typedef struct {
	size_t index;         /* 1..n, by key: symbol index, then address */
	const char *function;
	uint64_t key;         /* the symbol index, or the address */
	int key_is_addr;
	uint64_t site;        /* index of the call site that made it */
	/* Its edges (numbers for xp_mpatrol_report_edge()), in the order
	 * they were made: from its callers and to the functions it calls;
	 * the edge from the program's start and the one to the allocator
	 * are among them. */
	const size_t *parents, *children;
	size_t nparents, nchildren;
} xp_mpatrol_vertex;

/* An edge of the call graph, from caller to callee, with what was
 * allocated through it.  from is 0 for the program's start (the
 * outermost function of a stack), to is 0 for the allocator (the
 * function that allocated).  cycle: some stack calls through it back
 * into a function already on that stack; as in mprof, what that stack
 * allocated is not added to the edge. */
typedef struct {
	size_t from, to;      /* vertex indices */
	xp_mpatrol_sums sums;
	int cycle;
} xp_mpatrol_edge;

/* Computes the report of m.  Errors: XP_E_NOMEM, XP_E_LIMIT (more names
 * than the string pool holds); d is for future diagnostics. */
xp_err xp_mpatrol_report_new(const xp_mpatrol *m,
                             const xp_mpatrol_report_opts *o,
                             xp_mpatrol_report **out, xp_diags *d);
/* Accepts NULL. */
void xp_mpatrol_report_free(xp_mpatrol_report *r);
/*
 * xp_prof_report() of an mpatrol profile computes the same report, and
 * xp_report_model() returns the xp_mpatrol_report: xp_report_opts.lines
 * is addresses, counts, call_graph, stack_depth and stack_depth_given
 * are the same here; exe is not used (the profile names its functions).
 */

/* How the report was made: 1 when sorted by counts; the stack depth
 * (mprof's "maximum stack depth", 0 for whole stacks). */
int xp_mpatrol_report_by_counts(const xp_mpatrol_report *r);
uint64_t xp_mpatrol_report_stack_depth(const xp_mpatrol_report *r);
const xp_mpatrol_totals *xp_mpatrol_report_totals(const xp_mpatrol_report *r);
/* The call sites (their indices) in the order mprof visits them. */
size_t xp_mpatrol_report_nsites(const xp_mpatrol_report *r);
uint64_t xp_mpatrol_report_site(const xp_mpatrol_report *r, size_t i);
/* The bins that counted allocations, by size. */
size_t xp_mpatrol_report_nbins(const xp_mpatrol_report *r);
const xp_mpatrol_bin *xp_mpatrol_report_bin(const xp_mpatrol_report *r,
                                            size_t i);
/* The direct allocation rows in table order, and their sum. */
size_t xp_mpatrol_report_ndirect(const xp_mpatrol_report *r);
const xp_mpatrol_direct *xp_mpatrol_report_direct(const xp_mpatrol_report *r,
                                                  size_t i);
const xp_mpatrol_sums *xp_mpatrol_report_direct_total(
	const xp_mpatrol_report *r);
/* The memory leak rows in table order. */
size_t xp_mpatrol_report_nleaks(const xp_mpatrol_report *r);
const xp_mpatrol_leak *xp_mpatrol_report_leak(const xp_mpatrol_report *r,
                                              size_t i);
/* The call graph (none without call_graph): vertex i has index i + 1;
 * edges in the order they were made. */
size_t xp_mpatrol_report_nvertices(const xp_mpatrol_report *r);
const xp_mpatrol_vertex *xp_mpatrol_report_vertex(const xp_mpatrol_report *r,
                                                  size_t i);
size_t xp_mpatrol_report_nedges(const xp_mpatrol_report *r);
const xp_mpatrol_edge *xp_mpatrol_report_edge(const xp_mpatrol_report *r,
                                              size_t i);
/* Every accessor with an index returns NULL (0 for a site) past the
 * end. */

#endif
