/*
 * feedback/tcov_int.h - what the files of the coverage (tcov.c, the
 * union of coverages in tcov_union.c, the reported sources and their
 * exports in tcov_src.c and tcov_export.c) share: the coverage's layout.
 */
#ifndef XP_TCOV_INT_H
#define XP_TCOV_INT_H

#include "base/internal.h"
#include "xprof_tcov.h"

/* Every string of the coverage lives in sp; each table holds the rows of
 * every file, a file's rows being consecutive. */
struct xp_tcov {
	xp_strpool sp;
	size_t n_files;
	xp_tcov_file *files;
	xp_tcov_block *blocks;
	xp_tcov_line *lines;
	xp_tcov_func *funcs;
	xp_tcov_loc *locs;
	xp_tcov_branch *branches;
};

/* Locations by line, column, then block. */
static inline int xp_tcov_cmp_loc(const void *a, const void *b)
{
	const xp_tcov_loc *x = a, *y = b;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	if (x->block != y->block)
		return x->block < y->block ? -1 : 1;
	return 0;
}

/* xp_tcov_top() over the blocks i of f with in[i] set (in NULL: all). */
xp_err xp_tcov_top_in(const xp_tcov_file *f, const unsigned char *in,
                      size_t n, size_t **out, size_t *count);

#endif /* XP_TCOV_INT_H */
