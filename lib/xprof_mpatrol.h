/*
 * xprof_mpatrol.h - the model of an mpatrol allocation profile (the MPTL
 * file that the mpatrol library writes and mprof reads), as
 * xp_prof_model() returns it for XP_FMT_MPATROL and XP_FMT_MPATROL_TEXT.
 * mpatrol(5) describes the file, its text form and every rule the reader
 * keeps.
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

#endif
