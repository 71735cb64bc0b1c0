/*
 * feedback/merge_lines.c - adding an input's source files to the merger:
 * their lines, and the block refs of each line with the version of its
 * procedure that each count belongs to.
 *
 * Lines are found at their position in the previous input first, then by
 * bisection of a source file's sorted lines; a hash map of every line,
 * built the first time the inputs of a file disagree on the order of its
 * lines, serves the rest.  The block refs of all lines live in one array,
 * each line's in a run that moves to the end when it must grow.  A ref's
 * counts from inputs without its procedure stay apart from those of the
 * procedure's versions (TAG_ANY in merge.h), so that dropping a version
 * never takes them, in whatever order the inputs come.
 */
#include <string.h>

#include "feedback/merge.h"

static uint64_t lkey(uint32_t sf, uint32_t line, uint32_t col)
{
	return xp_mix64((uint64_t)sf << 32 | line) ^ ((uint64_t)col * 0x9e3779b97f4a7c15u);
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
		key = xp_mix64(key + 1);
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
		xp_err err = xp_merge_map_put(&m->linemap, key, li);
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
	if (m->linemap_ok && (err = xp_merge_map_put(&m->linemap, key, li)))
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

/*
 * The position of ref (po, pp, block) among the refs of line l: position
 * q first (inputs of one binary list them in the same order), then a
 * scan; l->nref when it is absent.  *pi: its procedure, NONE when none.
 * The ref found may hold the counts of the other kind than the ones to
 * add (see ref_of_kind).
 */
static uint32_t find_ref(const xp_merger *m, const aline *l, uint32_t q,
                         uint32_t po, uint32_t pp, uint32_t block,
                         uint32_t *pi)
{
	const aref *lr = l->nref ? m->rp + l->first : NULL;
	uint32_t e = q;
	if (e >= l->nref || lr[e].block != block || lr[e].proc != pp ||
	    lr[e].objfile != po)
		for (e = 0; e < l->nref; e++)
			if (lr[e].block == block && lr[e].proc == pp &&
			    lr[e].objfile == po)
				break;
	*pi = e < l->nref ? lr[e].pi : NONE;
	if (*pi == NONE) {
		uint32_t ofi = m->of_by_str[po];
		*pi = ofi == NONE ? NONE : find_proc(m, ofi, pp);
	}
	return e;
}

/*
 * The counts of inputs that do not hold a ref's procedure (tag TAG_ANY)
 * belong to no version of it, so no version's drop takes them: they are
 * kept in a ref of their own beside the one of the procedure's versions
 * until settling adds the two.  Given ref e of line l (found by
 * find_ref, or l->nref), the position of the ref of the same key that
 * holds the counts of tag's kind; l->nref when there is none yet.
 */
static uint32_t ref_of_kind(const xp_merger *m, const aline *l, uint32_t e,
                            uint32_t tag)
{
	if (e >= l->nref)
		return l->nref;
	const aref *lr = m->rp + l->first, *r = &lr[e];
	int any = tag == TAG_ANY;
	if ((r->tag == TAG_ANY) == any)
		return e;
	uint32_t k;
	for (k = 0; k < l->nref; k++)
		if (lr[k].block == r->block && lr[k].proc == r->proc &&
		    lr[k].objfile == r->objfile && (lr[k].tag == TAG_ANY) == any)
			break;
	return k;
}

/*
 * Combines count c (weighted already; sat: weighing saturated) of the
 * version tag (TAG_ANY: of an input without the procedure) into ref e
 * of line li, which holds counts of tag's kind, or a new ref when e is
 * past the line's refs.  The counts of a version since replaced are
 * replaced.
 */
static xp_err put_ref(xp_merger *m, uint32_t li, uint32_t e, uint32_t po,
                      uint32_t pp, uint32_t block, uint32_t tag,
                      uint32_t pi, uint64_t c, int sat)
{
	aline *l = &m->ln[li];
	if (e == l->nref) {
		aref nr = {po, pp, block, tag, pi, 0};
		combine(m, &nr.count, c, 1, sat);
		return line_add_ref(m, l, &nr);
	}
	aref *r = &m->rp[l->first + e];
	r->pi = pi;
	if (tag != TAG_ANY && r->tag < tag) {
		r->tag = tag;
		combine(m, &r->count, c, 1, sat);
	} else {
		combine(m, &r->count, c, 0, sat);
	}
	return XP_E_OK;
}

/* The source file of path (a pool id), made when absent. */
static xp_err get_srcfile(xp_merger *m, uint32_t path, uint32_t *out)
{
	uint32_t si = m->sf_by_str[path];
	xp_err err;
	if (si == NONE) {
		if ((err = GROW(m->sf, m->sfcap, m->nsf + 1)))
			return err;
		si = m->nsf++;
		m->sf_by_str[path] = si;
		memset(&m->sf[si], 0, sizeof m->sf[si]);
		m->sf[si].path = path;
	}
	*out = si;
	return XP_E_OK;
}

xp_err xp_merge_add_srcfile(xp_merger *m, const xp_fb *in, uint32_t i)
{
	xp_srcfile is;
	xp_err err;
	uint32_t si;
	xp_fb_srcfile(in, i, &is);
	if ((err = get_srcfile(m, m->smap[is.path], &si)))
		return err;
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
			uint32_t block = xp_get_le32(rrec + XP_BR_BLOCK);
			uint32_t pp = m->smap[xp_get_le32(rrec + XP_BR_PROC)];
			uint32_t po = m->smap[xp_get_le32(rrec + XP_BR_OBJFILE)];
			uint32_t pi;
			uint32_t e = find_ref(m, &m->ln[li], q, po, pp, block, &pi);
			uint32_t tag = pi == NONE ? TAG_ANY : m->ptag[pi];
			e = ref_of_kind(m, &m->ln[li], e, tag);
			if (note) {
				note[0] = li;
				note[1] = tag == TAG_DROP ? NONE : e;
			}
			if (tag == TAG_DROP)
				continue; /* its version was dropped */
			int sat = 0;
			uint64_t c = weigh(m, xp_get_le64(rrec + XP_BR_COUNT), &sat);
			if ((err = put_ref(m, li, e, po, pp, block, tag, pi, c, sat)))
				return err;
		}
	}
	return XP_E_OK;
}

/*
 * Source file i of merger f into m (merge_absorb.c): sid maps f's pool
 * ids to m's, tag f's procedures to the tag their current version's
 * block refs take in m (TAG_DROP: that version was dropped).  Refs of
 * f's versions since replaced are left out, as settling f would.
 */
xp_err xp_merge_absorb_srcfile(xp_merger *m, const xp_merger *f, uint32_t i,
                               const uint32_t *sid, const uint32_t *tag)
{
	const asrc *fs = &f->sf[i];
	uint32_t si;
	xp_err err;
	if ((err = get_srcfile(m, sid[fs->path], &si)))
		return err;
	for (uint32_t k = 0; k < fs->nline; k++) {
		const aline *fl = &f->ln[fs->lines[k]];
		uint32_t li;
		if ((err = get_line(m, si, fl->line, fl->col, k, &li)))
			return err;
		for (uint32_t q = 0; q < fl->nref; q++) {
			const aref *r = &f->rp[fl->first + q];
			uint32_t t = TAG_ANY, fpi = r->pi, pi;
			if (r->tag != TAG_ANY) {
				if (fpi == NONE) {
					uint32_t ofi = f->of_by_str[r->objfile];
					fpi = ofi == NONE ? NONE
					                  : find_proc(f, ofi, r->proc);
				}
				if (fpi != NONE && f->pr[fpi].gen != r->tag)
					continue;
				t = fpi == NONE ? TAG_ANY : tag[fpi];
				if (t == TAG_DROP)
					continue;
			}
			uint32_t po = sid[r->objfile], pp = sid[r->proc];
			uint32_t e = find_ref(m, &m->ln[li], q, po, pp, r->block,
			                      &pi);
			e = ref_of_kind(m, &m->ln[li], e, t);
			if ((err = put_ref(m, li, e, po, pp, r->block, t, pi,
			                   r->count, 0)))
				return err;
		}
	}
	return XP_E_OK;
}
