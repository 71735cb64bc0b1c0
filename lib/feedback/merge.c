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
 * (xp_merger_add_path, merge_layout.c).  The result is written table by
 * table from the accumulator (merge_order.c, merge_write.c), or, when
 * every input had the first one's layout, from that one and the others'
 * counts, the accumulator never built (merge_flat.c).
 *
 * Which version of a procedure survives a mismatch is decided by a total
 * order on versions (newest compilation first), so that the result does
 * not depend on the order of the inputs and merging is associative.
 *
 * This file holds the accumulator and its lookups; merge.h says which
 * file holds each stage of the merger.
 */
#include <stdlib.h>
#include <string.h>

#include "feedback/merge.h"

/* ------------------------------------------------------------------ */
/* The accumulator                                                     */
/* ------------------------------------------------------------------ */

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
		uint32_t j = (uint32_t)xp_mix64(m->keys[i]) & (ncap - 1);
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

xp_err xp_merge_map_put(map64 *m, uint64_t key, uint32_t val)
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
void xp_merge_version_free(aproc *p)
{
	if (!p->in_arena)
		free(p->mem);
	p->mem = NULL;
	p->in_arena = 0;
}

void xp_merge_proc_free(aproc *p)
{
	if (!p)
		return;
	xp_merge_version_free(p);
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
		xp_merge_proc_free(&m->pr[i]);
	for (uint32_t i = 0; i < m->npg; i++) {
		free(m->pg[i].refs);
		free(m->pg[i].cds);
	}
	for (uint32_t i = 0; i < m->nsf; i++)
		free(m->sf[i].lines);
	for (uint32_t i = 0; i < m->nof; i++)
		free(m->of[i].ord);
	XP_FREE(m->of, m->pr, m->pg, m->sf, m->ln, m->rp, m->ptag);
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
	XP_FREE(m->of_by_str, m->pg_by_str, m->sf_by_str, m->smap);
	xp_buf_free(&m->smap_of);
	free(m->first_name);
	for (unsigned k = 0; k < NTMPL; k++)
		xp_merge_template_free(&m->tp[k]);
	free(m->rank);
	free(m->rbuf);
	free(m);
}

uint64_t xp_merger_count(const xp_merger *m)
{
	return m->count;
}

int xp_merger_failed(const xp_merger *m)
{
	return m->failed;
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
/* Lookups by pool id                                                  */
/* ------------------------------------------------------------------ */

xp_err xp_merge_ensure_by_str(xp_merger *m)
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

